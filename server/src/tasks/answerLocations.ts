// The places a text answer names as locations a client jumps to: each line read as the editor has it, the cursor put on the name.
import fs from 'node:fs';
import type { AnswerLocation } from '../protocol.js';
import type { AnswerPlace } from '../agents/agent.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

/** Most locations one answer carries: a list to pick from, not an index of the workspace. */
export const MAX_ANSWER_LOCATIONS = 50;

/** The text of each document, read once per answer: the editor's buffer when open, else the disk. */
function lineReader(documents: DocumentSource | undefined): (uri: string, line: number) => string {
  const texts = new Map<string, string[]>();
  return (uri, line) => {
    let lines = texts.get(uri);
    if (!lines) {
      let text = documents?.get(uri)?.text;
      if (text === undefined) {
        const fsPath = uriToPath(uri);
        try {
          text = fsPath ? fs.readFileSync(fsPath, 'utf8') : '';
        } catch {
          text = '';
        }
      }
      lines = text.split('\n');
      texts.set(uri, lines);
    }
    return (lines[line] ?? '').replace(/\r$/, '');
  };
}

/** Where `word` stands alone on the line (not inside a longer identifier), or -1. */
function wholeWord(line: string, word: string): number {
  if (!word) return -1;
  for (let at = line.indexOf(word); at >= 0; at = line.indexOf(word, at + 1)) {
    const before = line.charAt(at - 1);
    const after = line.charAt(at + word.length);
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return at;
  }
  return -1;
}

/**
 * The places as LSP locations, in their order, each line once: the range covers the place's name where the line
 * has it (`getJson` of `HttpClient.getJson`), else it is empty at the line's first non-blank character.
 */
export function answerLocations(places: readonly AnswerPlace[] | undefined, documents: DocumentSource | undefined): AnswerLocation[] {
  if (!places?.length) return [];
  const lineOf = lineReader(documents);
  const seen = new Set<string>();
  const locations: AnswerLocation[] = [];
  for (const place of places) {
    if (locations.length >= MAX_ANSWER_LOCATIONS) break;
    if (!Number.isInteger(place.line) || place.line < 1) continue;
    const key = `${place.uri}\n${place.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const line = place.line - 1;
    const text = lineOf(place.uri, line);
    const word = place.name?.split('.').pop() ?? '';
    const at = wholeWord(text, word);
    const start = at >= 0 ? at : Math.max(0, text.search(/\S/));
    const end = at >= 0 ? at + word.length : start;
    locations.push({ uri: place.uri, range: { start: { line, character: start }, end: { line, character: end } }, label: place.label });
  }
  return locations;
}
