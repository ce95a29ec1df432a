// Pieces of a request's context: candidate snippets before the budget, with raw text (redaction happens at the gate), and how they are cut.
import path from 'node:path';
import type { Lines, ContextFiles } from './contextFiles.js';
import { MIN_CUT_CHARS } from './contextLimits.js';

export interface Piece {
  /** Absolute path, checked against the exclusions at the gate. */
  fsPath: string;
  startLine: number;
  endLine: number;
  text: string;
  /**
   * The declaration the piece is in, asked only when the piece is placed: finding it may walk the file, and most
   * candidates never reach the context (a symbol left out, references beyond the few shown, the budget spent).
   */
  label?: () => string | undefined;
  /** A shorter rendering (an outline) tried before cutting. */
  outline?: string;
  /** Comments in the file's language (for the markers). */
  code: boolean;
  /** The text leaves part of the lines out (folded bodies, a cut): it does not cover them for later pieces. */
  partial?: boolean;
  /** The lines that matter (a visited range, a reference's line): when the context shows them already, the piece is not repeated. */
  focus?: { startLine: number; endLine: number };
  /** Lines of `text`, and of `outline`, that a cut keeps first. */
  keep?: Keep;
  outlineKeep?: Keep;
  /** Stands for an excluded file: no text, only its path for the omissions; dropped should the file be included again. */
  stub?: boolean;
  /** In omissions: `class Ledger`, `the recent position src/report.ts:9`. */
  describe: string;
}

/** Removes the indentation every non-blank line shares: tokens spent on nothing. */
export function dedent(text: string): string {
  const lines = text.split('\n');
  let indent = Infinity;
  for (const line of lines) if (line.trim() !== '') indent = Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0);
  if (!Number.isFinite(indent) || indent === 0) return text;
  return lines.map((line) => line.slice(Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0))).join('\n');
}

/** Text of a region with some spans replaced (folded bodies, the elided target), by whole offsets. */
export function withCuts(text: string, start: number, end: number, cuts: { start: number; end: number; replacement: string }[]): string {
  let out = '';
  let at = start;
  for (const cut of [...cuts].sort((a, b) => a.start - b.start)) {
    if (cut.start < at || cut.end > end) continue;
    out += text.slice(at, cut.start) + cut.replacement;
    at = cut.end;
  }
  return (out + text.slice(at, end)).replace(/\r(?=\n)/g, '');
}

function lineMarker(count: number, code: boolean): string {
  const words = `… ${count} line${count === 1 ? '' : 's'} left out …`;
  return code ? `/* ${words} */` : words;
}

/** Lines of a piece's text (0-based, inclusive) that a cut keeps first: the target inside its enclosing declaration. */
export interface Keep {
  from: number;
  to: number;
}

/**
 * Cuts text to a limit of characters or lines, whole lines kept and a marker in each gap saying how many went:
 * the `keep` lines first, then lines growing from the head, around `keep` and from the tail in turn (without
 * `keep`, a cut in the middle). Undefined when too little room is left to say anything; with the cut text, where
 * the kept lines are now.
 */
export function cutLines(text: string, limit: { chars?: number; lines?: number }, code: boolean, keep?: Keep): { text: string; keep?: Keep } | undefined {
  const maxChars = limit.chars ?? Infinity;
  const maxLines = limit.lines ?? Infinity;
  const lines = text.split('\n');
  const total = lines.length;
  if (text.length <= maxChars && total <= maxLines) return { text, ...(keep ? { keep } : {}) };
  if (maxChars < MIN_CUT_CHARS) return undefined;
  const focus = keep && keep.from >= 0 && keep.to < total && keep.from <= keep.to ? keep : undefined;
  // The kept lines are a head, a window around the focus and a tail: at most two gaps, one without a focus.
  const gaps = focus ? 2 : 1;
  const kept = new Uint8Array(total);
  let chars = gaps * (lineMarker(total, code).length + 1);
  let count = gaps;
  const order: number[] = [];
  if (focus) for (let i = focus.from; i <= focus.to; i++) order.push(i);
  for (let round = 0; round < total; round++) {
    order.push(round);
    if (focus) order.push(focus.from - 1 - round, focus.to + 1 + round);
    order.push(total - 1 - round);
  }
  for (const i of order) {
    if (i < 0 || i >= total || kept[i]) continue;
    const cost = (lines[i] as string).length + 1;
    if (chars + cost > maxChars || count + 1 > maxLines) break;
    kept[i] = 1;
    chars += cost;
    count++;
  }
  const out: string[] = [];
  const at = new Map<number, number>();
  let gap = 0;
  let informative = 0;
  for (let i = 0; i < total; i++) {
    if (!kept[i]) {
      gap++;
      continue;
    }
    if (gap > 0) out.push(lineMarker(gap, code));
    gap = 0;
    at.set(i, out.length);
    out.push(lines[i] as string);
    if ((lines[i] as string).trim() !== '') informative++;
  }
  if (gap > 0) out.push(lineMarker(gap, code));
  // A cut that keeps a single line (a file's header comment, a closing brace) tells nothing about what it cut.
  if (informative >= 2) {
    const from = focus ? at.get(focus.from) : undefined;
    const to = focus ? at.get(focus.to) : undefined;
    return { text: out.join('\n'), ...(from !== undefined && to !== undefined ? { keep: { from, to } } : {}) };
  }
  if (total > 1) return undefined;
  // One line longer than the room (minified code): characters from both ends.
  const marker = code ? `/* … ${text.length} characters cut … */` : `… ${text.length} characters cut …`;
  const room = maxChars - marker.length - 2;
  if (room < MIN_CUT_CHARS / 2) return undefined;
  return { text: `${text.slice(0, Math.ceil(room / 2))}\n${marker}\n${text.slice(text.length - Math.floor(room / 2))}` };
}

/** Caps a piece before any budget, so each kind keeps its share of a large one. */
export function capped(piece: Piece, maxLines: number): Piece {
  const cut = cutLines(piece.text, { lines: maxLines }, piece.code, piece.keep);
  if (!cut || cut.text === piece.text) return piece;
  const { keep: _keep, ...rest } = piece;
  return { ...rest, partial: true, text: cut.text, ...(cut.keep ? { keep: cut.keep } : {}) };
}

/** A window of lines around a focus, without blank lines at its edges (they cost tokens and say nothing). */
export function windowAround(lines: Lines, first: number, last: number, around: number): { startLine: number; endLine: number } {
  let startLine = Math.max(0, first - around);
  let endLine = Math.min(lines.count - 1, last + around);
  while (startLine < first && lines.slice(startLine, startLine).trim() === '') startLine++;
  while (endLine > last && lines.slice(endLine, endLine).trim() === '') endLine--;
  return { startLine, endLine };
}

/** A piece standing for an excluded file: nothing of it but its path, which only the omissions use. */
export function stub(fsPath: string, files: ContextFiles): Piece {
  return { fsPath, startLine: 0, endLine: 0, text: '', code: false, stub: true, describe: files.relative(fsPath) ?? path.basename(fsPath) };
}
