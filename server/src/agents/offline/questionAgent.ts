// The offline Question agent: answers a workspace question with the best-ranked code locations of the lexical index.
import path from 'node:path';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest, AnswerPlace } from '../agent.js';
import type { CodeLocation, LexicalIndex, SearchOptions } from '../../repo/lexical/lexicalIndex.js';
import { isSupportedLanguage, pathToUri } from '../../workspace/documentSnapshot.js';

/** The question of a request: the `question` parameter (commands), else the user's words (ask). */
export function questionOf(request: AgentRequest): string {
  return (request.parameters.question ?? request.text).trim();
}

/**
 * The workspace's index with the request's document as the editor has it (unsaved edits count), and the
 * locations it ranks best for the question.
 */
export async function retrieveLocations(request: AgentRequest, options: SearchOptions, signal: AbortSignal): Promise<{ index: LexicalIndex; locations: CodeLocation[] }> {
  const index = request.workspace.index;
  const { document } = request;
  // Only an open editor buffer differs from the disk; the workspace stand-in (the folder itself) has no text.
  if (document.fsPath && document.version !== null && isSupportedLanguage(document.languageId)) index.updateDocument(document.fsPath, document.text);
  // With a file open, the code it uses is what "safeParse" in the question most likely means.
  const near = document.fsPath && document.version !== null ? index.relativePath(document.fsPath) : undefined;
  const locations = await index.search(questionOf(request), { ...options, ...(near !== undefined ? { near } : {}) }, signal);
  return { index, locations };
}

/** The code-fence language of a file. */
export function fenceLanguage(file: string): string {
  const extension = path.extname(file).slice(1).toLowerCase();
  return ({ ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'jsx' } as Record<string, string>)[extension] ?? '';
}

/** A fence longer than any run of backticks in the code, so a template literal cannot close it. */
export function fenceFor(code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `path:line — kind name`: the form editors and quickfix lists recognise. */
export function locationLine(location: CodeLocation): string {
  return `${location.path}:${location.startLine} — ${location.kind} ${location.name}`;
}

/** A ranked location as a place the client jumps to: the declaration's line, the cursor on its name. */
export function placeOf(location: CodeLocation): AnswerPlace {
  return { uri: pathToUri(location.fsPath), line: location.startLine, label: `${location.kind} ${location.name}`, ...(location.kind === 'comment' ? {} : { name: location.name }) };
}

/** The markdown answer: a numbered list of locations, best first, each with its snippet in a code fence. */
export function formatLocations(question: string, locations: readonly CodeLocation[]): string {
  const lines = [`Code locations for “${question}”, best first:`, ''];
  locations.forEach((location, i) => {
    lines.push(`${i + 1}. ${locationLine(location)}`);
    if (location.snippet) {
      const fence = fenceFor(location.snippet);
      lines.push(`   ${fence}${fenceLanguage(location.path)}`, ...location.snippet.split('\n').map((l) => (l ? `   ${l}` : '')), `   ${fence}`);
    }
  });
  return lines.join('\n');
}

/** Locations shown in one answer, and from one file, so a big file cannot crowd out the others. */
const SHOWN = 8;
const PER_FILE = 3;

/** Why a question found nothing: what the index holds, and what it never holds. */
function nothingMatches(files: number): string {
  return `no declaration or comment in the ${files} indexed file${files === 1 ? '' : 's'} matches (ignored files and files named like secrets, such as secrets.ts or .env, are not searched)`;
}

export class OfflineQuestionAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'question-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['question'];
  readonly description = 'Answers a workspace question with the ranked code locations of a lexical index over declarations and comments, without a model.';

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const question = questionOf(request);
    if (!question) return { text: '' };
    const { index, locations } = await retrieveLocations(request, { limit: SHOWN, maxPerFile: PER_FILE, snippetLines: 8 }, signal);
    signal.throwIfAborted();
    // Said so the user knows what was searched: a name defined only in an ignored or secret-named file is not found.
    if (locations.length === 0) return { text: '', reason: nothingMatches(index.stats().files) };
    // A request routed here because its own task has no agent says so above the places (see `routeRequest`).
    const instead = request.parameters.instead;
    return { text: `${instead ? `${instead}\n\n` : ''}${formatLocations(question, locations)}`, places: locations.map(placeOf) };
  }
}
