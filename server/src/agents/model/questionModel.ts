// The Question task for model agents: retrieve code with the lexical index, then ask for an answer grounded in it, citing path:line.
import type { AgentRequest } from '../agent.js';
import type { ModelTaskStrategy, Prompt } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';
import { answerOrWhatWasWritten } from './cutAnswer.js';
import type { CodeLocation, LexicalIndex } from '../../repo/lexical/lexicalIndex.js';
import { fenceFor, fenceLanguage, placeOf, questionOf, retrieveLocations } from '../offline/questionAgent.js';

const SYSTEM =
  'You answer questions about a code base inside a code editor. You are given excerpts of the workspace, retrieved for the question ' +
  'and headed by their location as path:line. Answer from these excerpts only, and cite the location of everything you rely on as path:line ' +
  '(for example src/app.ts:12). If the excerpts do not answer the question, say so and name the locations that come closest. ' +
  'Never invent files, functions or line numbers. Be concise: a short answer in markdown, no preamble.';

const USER =
  'Question: {{question}}\n\n' +
  'Code retrieved from the workspace, most relevant first:\n\n{{context}}\n\n' +
  'Answer the question, citing path:line for each location you use.';

/** Characters of code sent in one prompt: enough for a dozen declarations, well inside a small model's context. */
export const CONTEXT_BUDGET = 12_000;
/** Most lines of one excerpt; a long class is cut rather than crowding out the rest. */
const EXCERPT_LINES = 60;
const RETRIEVED = 12;

/**
 * The retrieved code as prompt text, best first, within `budget` characters: each location's excerpt (from its
 * doc comment to its end), headed by `path:start-end — kind name`. The best location is always included (cut to
 * fit). Nothing is sent twice: a location inside an excerpt already included is left out, and a container (a
 * class) that comes after some of its members takes their place.
 */
export function contextBlock(locations: readonly CodeLocation[], index: LexicalIndex, budget = CONTEXT_BUDGET): { text: string; used: CodeLocation[] } {
  const parts: { location: CodeLocation; text: string }[] = [];
  const inside = (inner: CodeLocation, outer: CodeLocation): boolean => inner.path === outer.path && outer.commentLine <= inner.commentLine && inner.endLine <= outer.endLine;
  const size = (list: readonly { text: string }[]): number => list.reduce((sum, p) => sum + p.text.length + 2, 0);
  for (const location of locations) {
    if (parts.some((p) => inside(location, p.location))) continue;
    const last = Math.min(location.endLine, location.commentLine + EXCERPT_LINES - 1);
    let code = index.excerpt(location.path, location.commentLine, last, budget) ?? location.snippet;
    if (last < location.endLine) code += '\n…';
    const fence = fenceFor(code);
    const header = `${location.path}:${location.startLine}-${location.endLine} — ${location.kind} ${location.name}`;
    let text = `${header}\n${fence}${fenceLanguage(location.path)}\n${code}\n${fence}`;
    const kept = parts.filter((p) => !inside(p.location, location));
    if (size(kept) + text.length > budget) {
      if (parts.length > 0) continue;
      const room = Math.max(0, budget - header.length - 2 * fence.length - 16);
      text = `${header}\n${fence}${fenceLanguage(location.path)}\n${code.slice(0, room)}\n…\n${fence}`;
    }
    // The container goes where its best member was, so the order stays best first.
    const at = parts.findIndex((p) => inside(p.location, location));
    const part = { location, text };
    if (at < 0) kept.push(part);
    else kept.splice(parts.slice(0, at).filter((p) => !inside(p.location, location)).length, 0, part);
    parts.splice(0, parts.length, ...kept);
  }
  return { text: parts.map((p) => p.text).join('\n\n'), used: parts.map((p) => p.location) };
}

/** The prompt for a question and its retrieved code; `override` replaces the user message (`{{question}}`, `{{context}}` and the standard placeholders). */
export function buildQuestionPrompt(request: AgentRequest, locations: readonly CodeLocation[], index: LexicalIndex, override: string | undefined): Prompt {
  const context = locations.length > 0 ? contextBlock(locations, index).text : '(no code in the workspace matched the question)';
  const question = questionOf(request);
  return { system: SYSTEM, user: fillTemplate(override ?? USER, { ...standardValues(request), request: question, question, context }) };
}

/** Whether an answer cites at least one of the retrieved files as `path:line`. */
function citesAny(answer: string, locations: readonly CodeLocation[]): boolean {
  return locations.some((l) => answer.includes(`${l.path}:`));
}

/**
 * The retrieved locations the answer cites (a `path:line` within the location's lines, comment included), in the
 * order it cites them; the citations it makes up point nowhere and are left out.
 */
export function citedLocations(answer: string, locations: readonly CodeLocation[]): CodeLocation[] {
  const cited: CodeLocation[] = [];
  for (const match of answer.matchAll(/(?<![\w./@-])([\w./@-]+):(\d+)/g)) {
    const [, file, line] = match;
    const at = Number(line);
    const found = locations.find((l) => (l.path === file || l.path.endsWith(`/${file}`)) && l.commentLine <= at && at <= l.endLine);
    if (found && !cited.includes(found)) cited.push(found);
  }
  return cited;
}

export const questionModel: ModelTaskStrategy = {
  // From the index as it stands (no refresh: a prompt is built synchronously); `run` refreshes first.
  buildPrompt: (request, override) => {
    const index = request.workspace.index;
    return buildQuestionPrompt(request, index.lookup(questionOf(request), { limit: RETRIEVED, maxPerFile: 4 }), index, override);
  },

  async run(request, ask, override, signal) {
    if (!questionOf(request)) return { text: '' };
    const { index, locations } = await retrieveLocations(request, { limit: RETRIEVED, maxPerFile: 4 }, signal);
    signal.throwIfAborted();
    // A small model's answer often runs into its token limit: the lines written before the cut still answer, and
    // still point at the code they cite.
    const answer = (await answerOrWhatWasWritten(ask(buildQuestionPrompt(request, locations, index, override), signal))).trim();
    if (!answer) return { text: '' };
    // An answer that cites nothing still points the user at the code it was given.
    if (locations.length > 0 && !citesAny(answer, locations)) {
      const shown = locations.slice(0, 5);
      const sources = shown.map((l) => `- ${l.path}:${l.startLine} — ${l.kind} ${l.name}`);
      return { text: `${answer}\n\nRetrieved locations:\n${sources.join('\n')}`, places: shown.map(placeOf) };
    }
    // Citations that match no retrieved location still leave the user the code the answer was grounded in.
    const cited = citedLocations(answer, locations);
    const places = (cited.length ? cited : locations.slice(0, 5)).map(placeOf);
    return { text: answer, ...(places.length ? { places } : {}) };
  },
};
