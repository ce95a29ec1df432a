// The places the user worked at most recently, learnt from the ranges of the client's requests, for a model's context.
import type { Range } from 'vscode-languageserver-protocol';

/** One place the user worked at. */
export interface VisitedPosition {
  uri: string;
  /** Where it was, in the document's lines at `version` (or later, once `shift` has moved it). */
  range: Range;
  /** When it was visited, in milliseconds since the epoch. */
  at: number;
  /** The document's version the range refers to; null or absent when unknown (a file read from disk). */
  version?: number | null;
}

/** A change of a document as the editor reports it: a replaced range, or (without one) the whole text. */
export interface PositionChange {
  range?: Range;
  text: string;
}

export interface RecentPositionsOptions {
  /** Most positions kept (default 20). */
  capacity?: number;
  /** Visits this many lines apart or closer in one document count as one place (default 3). */
  nearLines?: number;
  /** The clock, replaceable so tests need not wait. */
  now?: () => number;
}

/**
 * The last places the user worked at, most recent first. A visit near an earlier one in the same document replaces
 * it, so moving the cursor around one function leaves one entry, not twenty. Closing a document keeps its entries
 * (the file is still there, and where the user was is still telling); `forget` drops them, e.g. for a deleted file.
 *
 * Edits move the entries when `shift` is given the editor's incremental changes, so a position below an inserted
 * import block still points at the same code. Anything `shift` cannot follow (a full-text replacement, a change
 * the caller did not pass on) leaves the range where it was: readers clamp it to the current text, and show a few
 * lines around it, so a stale entry costs a little accuracy, never a wrong offset.
 */
export class RecentPositions {
  private entries: VisitedPosition[] = [];
  private readonly capacity: number;
  private readonly nearLines: number;
  private readonly now: () => number;

  constructor(options: RecentPositionsOptions = {}) {
    this.capacity = Math.max(1, Math.floor(options.capacity ?? 20));
    this.nearLines = Math.max(0, options.nearLines ?? 3);
    this.now = options.now ?? Date.now;
  }

  /** Records a visit: it goes to the front, replacing the visits near it in the same document. */
  record(uri: string, range: Range, version?: number | null): void {
    const normalized = normalize(range);
    this.entries = this.entries.filter((entry) => entry.uri !== uri || lineGap(entry.range, normalized) > this.nearLines);
    const entry: VisitedPosition = { uri, range: normalized, at: this.now() };
    if (version !== undefined) entry.version = version;
    this.entries.unshift(entry);
    if (this.entries.length > this.capacity) this.entries.length = this.capacity;
  }

  /** The visits, most recent first, at most `limit`; copies, so callers cannot move the entries. */
  list(limit = this.capacity): VisitedPosition[] {
    return this.entries.slice(0, Math.max(0, limit)).map(copy);
  }

  /** Drops every visit of a document. */
  forget(uri: string): void {
    this.entries = this.entries.filter((entry) => entry.uri !== uri);
  }

  /**
   * Follows the editor's changes of a document (in the order the editor applied them) and stamps its entries with
   * the new version. Entries whose lines were replaced collapse onto the replacement; entries that became near each
   * other merge, the more recent one staying.
   */
  shift(uri: string, version: number | null, changes: readonly PositionChange[]): void {
    let touched = false;
    for (const entry of this.entries) {
      if (entry.uri !== uri) continue;
      touched = true;
      let range = entry.range;
      for (const change of changes) {
        if (change.range) range = { start: movePosition(range.start, change.range, change.text), end: movePosition(range.end, change.range, change.text) };
      }
      entry.range = range;
      entry.version = version;
    }
    if (!touched) return;
    const kept: VisitedPosition[] = [];
    for (const entry of this.entries) {
      if (entry.uri === uri && kept.some((k) => k.uri === uri && lineGap(k.range, entry.range) <= this.nearLines)) continue;
      kept.push(entry);
    }
    this.entries = kept;
  }
}

function copy(entry: VisitedPosition): VisitedPosition {
  return { ...entry, range: { start: { ...entry.range.start }, end: { ...entry.range.end } } };
}

function before(a: Range['start'], b: Range['start']): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

function normalize(range: Range): Range {
  const start = { line: Math.max(0, range.start.line), character: Math.max(0, range.start.character) };
  const end = { line: Math.max(0, range.end.line), character: Math.max(0, range.end.character) };
  return before(end, start) ? { start: end, end: start } : { start, end };
}

/** Lines between two ranges; 0 when they share a line. */
function lineGap(a: Range, b: Range): number {
  return Math.max(0, Math.max(a.start.line, b.start.line) - Math.min(a.end.line, b.end.line));
}

/**
 * Where a position ends up once `replaced` holds `text`: before or at its start it stays (typing at the cursor does
 * not push the visit away), inside it moves to the start, after it moves by what the change added.
 */
function movePosition(position: Range['start'], replaced: Range, text: string): Range['start'] {
  if (!before(replaced.start, position)) return position;
  if (before(position, replaced.end)) return { ...replaced.start };
  const lines = text.split(/\r\n|\r|\n/);
  const insertedLines = lines.length - 1;
  const lastLength = (lines[lines.length - 1] as string).length;
  const newEnd = { line: replaced.start.line + insertedLines, character: insertedLines === 0 ? replaced.start.character + lastLength : lastLength };
  if (position.line === replaced.end.line) return { line: newEnd.line, character: newEnd.character + (position.character - replaced.end.character) };
  return { line: position.line + (newEnd.line - replaced.end.line), character: position.character };
}
