// Which agents of a run gave nothing usable, and the words that tell the user: in the choice list, and once another answer is used.
import type { TraceResponse } from '../protocol.js';

/** One line per agent that gave nothing usable: "gpt-4o-mini failed: the endpoint refused the API key (401)". */
export function failureLines(responses: readonly TraceResponse[]): string[] {
  const byAgent = new Map<string, TraceResponse[]>();
  for (const response of responses) byAgent.set(response.agent.name, [...(byAgent.get(response.agent.name) ?? []), response]);
  const lines: string[] = [];
  for (const own of byAgent.values()) {
    // An agent failed when none of its answers is usable; one answer of several that the oracle rejected is not a
    // failure of the agent. A cancelled agent did what the user asked.
    if (own.some((r) => r.status === 'ok' || r.status === 'cancelled')) continue;
    lines.push(failureLine(own[0] as TraceResponse));
  }
  return lines;
}

/**
 * How one agent's unusable answer reads: an offline agent that had nothing true to say declined (status `empty`, no
 * error of its own); an answer the oracle turned down was rejected; an error or a timeout is a failure.
 */
export function failureLine(response: TraceResponse): string {
  const name = response.agent.name;
  const reason = response.error ?? response.status;
  if (response.status === 'empty' && reason.startsWith('rejected by ')) return `${name}'s answer was ${reason}`;
  if (response.status === 'empty' && !response.agent.isLLM) return `${name} declined: ${reason}`;
  return `${name} failed: ${reason}`;
}

/**
 * The warning shown when one agent's answer is applied or shown while others failed, so a failing model is never
 * silent behind an offline answer; undefined when no agent failed.
 */
export function failureNotice(responses: readonly TraceResponse[], used: TraceResponse): string | undefined {
  const lines = failureLines(responses.filter((r) => r.agent.name !== used.agent.name));
  return lines.length > 0 ? `Used the answer of ${used.agent.name}; ${lines.join('; ')}.` : undefined;
}

/** How a response's error begins when the task's check turned its answer down; the check's verdict follows. */
export const REJECTED_BY_CHECK = 'rejected by the oracle: ';

/**
 * Why there is nothing to use: with one agent, its reason first, where a notification cut to its first line still
 * shows it (the trace keeps the check's name; the user needs what failed); with several, each agent's.
 */
export function noAnswerMessage(subject: string, responses: readonly TraceResponse[]): string {
  const [only] = responses;
  if (responses.length === 1 && only) {
    const reason = only.error ?? only.status;
    return `No usable answer for ${subject}: ${reason.startsWith(REJECTED_BY_CHECK) ? reason.slice(REJECTED_BY_CHECK.length) : reason} (${only.agent.name}).`;
  }
  const reasons = responses.map((r) => `${r.agent.name}: ${r.error ?? r.status}`).join('; ');
  return `No usable answer for ${subject}${reasons ? ` (${reasons})` : ''}.`;
}
