// Turns an `assistant/ask` result into quick-pick items (agent name and the answer's first line) or the message to show instead.
import type { AskResponse, AskResult } from './protocol.js';

/** One candidate as the quick pick shows it: an edit to apply (`responseId` goes to `assistant/apply`) or a text answer to show. */
export interface CandidateItem {
  label: string;
  description: string;
  detail: string;
  responseId: string;
  use: 'apply' | 'show';
}

/** Lines that are only comment punctuation (`/**`, ` *`, ` * /`, `//`) say nothing about the answer. */
const PUNCTUATION_ONLY = /^(\/\*+|\*+\/?|\*\/|\/\/+|#+)?$/;

/**
 * The first line that says something: a JSDoc block's first sentence rather than its `/**`, with the comment's
 * leading `*` or `//` removed.
 */
export function firstMeaningfulLine(text: string): string {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (PUNCTUATION_ONLY.test(line)) continue;
    return line.replace(/^(\/\*+|\*+|\/\/+)\s?/, '').replace(/\s*\*\/$/, '').trim() || line;
  }
  return '';
}

/** The line a picker shows for a response: the server's plain-text `summary`, else the first line that says something. */
export function answerLine(response: AskResponse): string {
  return response.summary ?? firstMeaningfulLine(response.text);
}

/** A response that can be applied: it answered and carries an edit. */
export function isApplicable(response: AskResponse): boolean {
  return response.status === 'ok' && response.edit !== undefined;
}

/** A text answer to show (an explanation, a workspace question's answer): it answered with text and no edit. */
export function isTextAnswer(response: AskResponse): boolean {
  return response.status === 'ok' && response.edit === undefined && response.text.trim() !== '';
}

/** A response the user can use: an edit to apply or a text to read. */
export function isUsable(response: AskResponse): boolean {
  return isApplicable(response) || isTextAnswer(response);
}

/** The quick-pick items for the usable responses, in the server's order. */
export function candidateItems(result: AskResult): CandidateItem[] {
  return result.responses.filter(isUsable).map((response) => {
    const { agent } = response;
    const technology = agent.isLLM ? (agent.model ?? agent.technology) : agent.technology;
    const use = isApplicable(response) ? 'apply' : 'show';
    return { label: agent.name, description: use === 'show' ? `${technology} · answer` : technology, detail: answerLine(response) || '(empty answer)', responseId: response.id, use };
  });
}

/** Below this confidence the picker says the task was a guess: above it, a figure ("79% sure" on "rename x to y") is noise. */
export const UNSURE_BELOW = 0.6;

/** The title of the picker of answers: the task the request was read as, and, when that was a guess, how sure. */
export function pickerTitle(result: AskResult): string {
  const guess = result.confidence < UNSURE_BELOW ? ` (a guess from your words, ${Math.round(result.confidence * 100)}% sure)` : '';
  return `Assistant: ${result.task}${guess}`;
}

/**
 * What to tell the user when there is nothing to pick: the server's message (which says why), else why each agent
 * gave nothing, else a plain "no candidates". Undefined when there are candidates.
 */
export function noCandidateMessage(result: AskResult): string | undefined {
  if (result.responses.some(isUsable)) return undefined;
  if (result.message) return result.message;
  const failures = result.responses.map((r) => `${r.agent.name}: ${r.error ?? r.status}`);
  return failures.length ? `No usable answer (${failures.join('; ')}).` : `No candidates for "${result.task}".`;
}

/**
 * One line per agent that gave nothing usable ("gpt-4o-mini failed: the endpoint refused the API key (401)"), shown
 * in the quick pick as labels, never as choices. An agent with a usable answer, or one the user cancelled, did not fail.
 */
export function failureLines(result: AskResult): string[] {
  const usable = new Set(result.responses.filter((r) => r.status === 'ok' || r.status === 'cancelled').map((r) => r.agent.name));
  const lines = new Map<string, string>();
  for (const response of result.responses) {
    if (usable.has(response.agent.name) || lines.has(response.agent.name)) continue;
    lines.set(response.agent.name, failureLine(response));
  }
  return [...lines.values()];
}

/** As the server words it (server/src/tasks/failures.ts): an offline agent with nothing to add declined; an error failed. */
function failureLine(response: AskResult['responses'][number]): string {
  const name = response.agent.name;
  const reason = response.error ?? response.status;
  if (response.status === 'empty' && reason.startsWith('rejected by ')) return `${name}'s answer was ${reason}`;
  if (response.status === 'empty' && !response.agent.isLLM) return `${name} declined: ${reason}`;
  return `${name} failed: ${reason}`;
}
