// Three-way merge of a proposal onto a document the user changed after the proposal was computed: lines first, declarations when lines conflict.
import { diffArrays, diffLines } from 'diff';
import type { OffsetEdit } from './textEdits.js';
import { isScriptFile, mergeUnits, namesAt, newSyntaxErrors } from './declarationMerge.js';
import type { ParseError } from './declarationMerge.js';

export interface MergeConflict {
  /** 0-based line ranges [start, end) of the conflicting region in each text. */
  base: { start: number; end: number; text: string };
  ours: { start: number; end: number; text: string };
  theirs: { start: number; end: number; text: string };
  /** Words for the user: e.g. "lines 12-14: both the editor and the proposal changed `Cart.total`". */
  description: string;
}

export type MergeResult =
  | { ok: true; text: string; level: 'unchanged' | 'lines' | 'declarations' }
  | { ok: false; conflicts: MergeConflict[] };

/** A text as lines without their terminators; `eols[i]` is the terminator of line i as written ('' for a last line without one). */
interface SplitText {
  lines: string[];
  eols: string[];
  finalNewline: boolean;
}

/** Lines `[sideStart, sideEnd)` of one side replace lines `[baseStart, baseEnd)` of the base. */
interface LineHunk {
  baseStart: number;
  baseEnd: number;
  sideStart: number;
  sideEnd: number;
}

/**
 * `base` is the text the proposal was computed on, `ours` the editor's current text, `theirs` the proposal applied to
 * `base`. The result keeps both changes or lists the conflicts; it never drops or forces either side.
 */
export function mergeThreeWay(base: string, ours: string, theirs: string, options: { fileName?: string } = {}): MergeResult {
  const fileName = options.fileName ?? 'file.ts';
  if (ours === theirs || theirs === base) return { ok: true, text: ours, level: 'unchanged' };
  if (ours === base) return { ok: true, text: withEolOf(theirs, ours), level: 'unchanged' };
  const lines = mergeLines(base, ours, theirs);
  if (!isScriptFile(fileName)) return lines;
  let syntax: ParseError[] = [];
  if (lines.ok) {
    syntax = newSyntaxErrors(fileName, lines.text, ours, theirs);
    if (syntax.length === 0) return lines;
  }
  // Lines that conflict (or merge into broken syntax) often belong to different declarations that merely sit side
  // by side; merging declaration by declaration settles those without guessing.
  const units = mergeUnits(base, ours, theirs, fileName);
  if ('text' in units) {
    const broken = newSyntaxErrors(fileName, units.text, ours, theirs);
    if (broken.length === 0) return { ok: true, text: units.text, level: 'declarations' };
  } else if (units.conflicts.length > 0) {
    return { ok: false, conflicts: units.conflicts };
  }
  if (lines.ok) return { ok: false, conflicts: [syntaxConflict(lines.text, base, ours, theirs, syntax)] };
  return { ok: false, conflicts: lines.conflicts.map((c) => ({ ...c, description: describeLineConflict(c, fileName, base, ours) })) };
}

/**
 * The line-level three-way merge alone (no declarations, no syntax check): what declaration merging uses on the
 * texts of one declaration.
 *
 * Changes of the two sides whose base ranges overlap *or touch* conflict, as in git: an insertion next to a line the
 * other side changed or deleted may belong to it (a doc comment added above a function the other side deletes), and
 * two insertions at one place have no order to choose. Identical changes on both sides count once. Line endings
 * are compared without their terminators; lines taken from ours keep theirs, other lines get ours' usual ending.
 */
export function mergeLines(base: string, ours: string, theirs: string): MergeResult {
  if (ours === theirs || theirs === base) return { ok: true, text: ours, level: 'unchanged' };
  if (ours === base) return { ok: true, text: withEolOf(theirs, ours), level: 'unchanged' };
  const b = splitText(base);
  const o = splitText(ours);
  const t = splitText(theirs);
  const eol = dominantEol(ours) ?? dominantEol(theirs) ?? dominantEol(base) ?? '\n';
  const oursHunks = lineHunks(b.lines, o.lines);
  const theirsHunks = lineHunks(b.lines, t.lines);
  const out: { text: string; eol: string }[] = [];
  const conflicts: MergeConflict[] = [];
  const fromOurs = (start: number, end: number): void => {
    for (let k = start; k < end; k++) out.push({ text: o.lines[k] ?? '', eol: o.eols[k] || eol });
  };
  const fromTheirs = (start: number, end: number): void => {
    for (let k = start; k < end; k++) out.push({ text: t.lines[k] ?? '', eol });
  };
  let i = 0;
  let j = 0;
  let basePos = 0;
  let oursDelta = 0;
  let theirsDelta = 0;
  while (i < oursHunks.length || j < theirsHunks.length) {
    const lo = Math.min(oursHunks[i]?.baseStart ?? Infinity, theirsHunks[j]?.baseStart ?? Infinity);
    fromOurs(basePos + oursDelta, lo + oursDelta);
    let hi = lo;
    const oursIn: LineHunk[] = [];
    const theirsIn: LineHunk[] = [];
    for (let grew = true; grew; ) {
      grew = false;
      for (let h = oursHunks[i]; h && h.baseStart <= hi; h = oursHunks[++i]) {
        oursIn.push(h);
        hi = Math.max(hi, h.baseEnd);
        grew = true;
      }
      for (let h = theirsHunks[j]; h && h.baseStart <= hi; h = theirsHunks[++j]) {
        theirsIn.push(h);
        hi = Math.max(hi, h.baseEnd);
        grew = true;
      }
    }
    const oursRange = sideRange(lo, hi, oursIn, oursDelta);
    const theirsRange = sideRange(lo, hi, theirsIn, theirsDelta);
    oursDelta = oursRange.delta;
    theirsDelta = theirsRange.delta;
    if (theirsIn.length === 0) {
      fromOurs(oursRange.start, oursRange.end);
    } else if (oursIn.length === 0) {
      fromTheirs(theirsRange.start, theirsRange.end);
    } else if (sameLines(o.lines, oursRange, t.lines, theirsRange)) {
      fromOurs(oursRange.start, oursRange.end);
    } else {
      conflicts.push({
        base: { start: lo, end: hi, text: joinLines(b.lines, lo, hi) },
        ours: { start: oursRange.start, end: oursRange.end, text: joinLines(o.lines, oursRange.start, oursRange.end) },
        theirs: { start: theirsRange.start, end: theirsRange.end, text: joinLines(t.lines, theirsRange.start, theirsRange.end) },
        description: '',
      });
    }
    basePos = hi;
  }
  if (conflicts.length > 0) {
    for (const c of conflicts) c.description = `${whereInOurs(c)}: ${lineConflictWhat(c, 'these lines')}`;
    return { ok: false, conflicts };
  }
  fromOurs(basePos + oursDelta, o.lines.length);
  const finalNewline = o.finalNewline !== b.finalNewline ? o.finalNewline : t.finalNewline;
  return { ok: true, text: joinOutput(out, finalNewline, eol), level: 'lines' };
}

/** Minimal offset edits turning `from` into `to` (line-granular diff, then trimmed to the changed characters), sorted, non-overlapping. */
export function editsBetween(from: string, to: string): OffsetEdit[] {
  if (from === to) return [];
  const edits: OffsetEdit[] = [];
  let offset = 0;
  let pending: OffsetEdit | undefined;
  const flush = (): void => {
    if (pending) edits.push(trimEdit(from, pending));
    pending = undefined;
  };
  for (const change of diffLines(from, to)) {
    if (change.added) {
      pending ??= { start: offset, end: offset, newText: '' };
      pending.newText += change.value;
    } else if (change.removed) {
      pending ??= { start: offset, end: offset, newText: '' };
      offset += change.value.length;
      pending.end = offset;
    } else {
      flush();
      offset += change.value.length;
    }
  }
  flush();
  return edits.filter((e) => e.start !== e.end || e.newText !== '');
}

/** Shrinks an edit to the characters that differ, without splitting a surrogate pair (editors count UTF-16 units but show characters). */
function trimEdit(from: string, edit: OffsetEdit): OffsetEdit {
  const old = from.slice(edit.start, edit.end);
  const next = edit.newText;
  const limit = Math.min(old.length, next.length);
  let prefix = 0;
  while (prefix < limit && old.charCodeAt(prefix) === next.charCodeAt(prefix)) prefix++;
  if (prefix > 0 && isHighSurrogate(old.charCodeAt(prefix - 1))) prefix--;
  let suffix = 0;
  while (suffix < limit - prefix && old.charCodeAt(old.length - 1 - suffix) === next.charCodeAt(next.length - 1 - suffix)) suffix++;
  if (suffix > 0 && isLowSurrogate(old.charCodeAt(old.length - suffix))) suffix--;
  return { start: edit.start + prefix, end: edit.end - suffix, newText: next.slice(prefix, next.length - suffix) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function splitText(text: string): SplitText {
  const lines: string[] = [];
  const eols: string[] = [];
  const pattern = /\r?\n/g;
  let start = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    lines.push(text.slice(start, m.index));
    eols.push(m[0]);
    start = m.index + m[0].length;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    eols.push('');
  }
  return { lines, eols, finalNewline: text.length === 0 || start === text.length };
}

/** The line ending most lines of a text use; undefined when it has none. */
export function dominantEol(text: string): string | undefined {
  let crlf = 0;
  let lf = 0;
  for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) {
    if (k > 0 && text.charCodeAt(k - 1) === 13) crlf++;
    else lf++;
  }
  if (crlf + lf === 0) return undefined;
  return crlf > lf ? '\r\n' : '\n';
}

/** `text` with the line endings `model` uses, when `model` uses one kind only (a mixed file is left alone). */
export function withEolOf(text: string, model: string): string {
  const eol = dominantEol(model);
  if (eol === undefined) return text;
  const crlfInModel = (model.match(/\r\n/g) ?? []).length;
  const allInModel = (model.match(/\n/g) ?? []).length;
  if (crlfInModel !== 0 && crlfInModel !== allInModel) return text;
  return eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text.replace(/\r\n/g, '\n');
}

/** The changed regions turning `base` into `side`, in order. */
function lineHunks(base: readonly string[], side: readonly string[]): LineHunk[] {
  // The common ends are most of a file when a user or a proposal changed a few lines: cut them before diffing.
  let head = 0;
  while (head < base.length && head < side.length && base[head] === side[head]) head++;
  let tail = 0;
  while (tail < base.length - head && tail < side.length - head && base[base.length - 1 - tail] === side[side.length - 1 - tail]) tail++;
  const hunks: LineHunk[] = [];
  let b = head;
  let s = head;
  let open: LineHunk | undefined;
  for (const change of diffArrays(base.slice(head, base.length - tail), side.slice(head, side.length - tail))) {
    const count = change.count ?? change.value.length;
    if (change.added) {
      open ??= { baseStart: b, baseEnd: b, sideStart: s, sideEnd: s };
      s += count;
      open.sideEnd = s;
    } else if (change.removed) {
      open ??= { baseStart: b, baseEnd: b, sideStart: s, sideEnd: s };
      b += count;
      open.baseEnd = b;
    } else {
      if (open) hunks.push(open);
      open = undefined;
      b += count;
      s += count;
    }
  }
  if (open) hunks.push(open);
  return hunks;
}

/** Where base lines `[lo, hi)` are on one side, given that side's hunks inside the range and its shift before it. */
function sideRange(lo: number, hi: number, hunks: readonly LineHunk[], deltaBefore: number): { start: number; end: number; delta: number } {
  let delta = deltaBefore;
  for (const h of hunks) delta += h.sideEnd - h.sideStart - (h.baseEnd - h.baseStart);
  return { start: lo + deltaBefore, end: hi + delta, delta };
}

function sameLines(a: readonly string[], ra: { start: number; end: number }, b: readonly string[], rb: { start: number; end: number }): boolean {
  if (ra.end - ra.start !== rb.end - rb.start) return false;
  for (let k = 0; k < ra.end - ra.start; k++) if (a[ra.start + k] !== b[rb.start + k]) return false;
  return true;
}

function joinLines(lines: readonly string[], start: number, end: number): string {
  return lines.slice(start, end).map((l) => `${l}\n`).join('');
}

function joinOutput(out: readonly { text: string; eol: string }[], finalNewline: boolean, eol: string): string {
  let text = '';
  out.forEach((line, k) => {
    text += line.text + (k < out.length - 1 || finalNewline ? line.eol || eol : '');
  });
  return text;
}

/** "line 12", "lines 12-14" or "at line 12" (an empty range), 1-based, in the editor's text. */
export function describeLines(range: { start: number; end: number }): string {
  if (range.end <= range.start) return `at line ${range.start + 1}`;
  if (range.end - range.start === 1) return `line ${range.start + 1}`;
  return `lines ${range.start + 1}-${range.end}`;
}

function whereInOurs(c: MergeConflict): string {
  return describeLines(c.ours);
}

function lineConflictWhat(c: MergeConflict, what: string): string {
  if (c.base.end === c.base.start) return `the editor and the proposal both insert different lines ${what === 'these lines' ? 'here' : `in ${what}`}`;
  if (c.ours.end === c.ours.start) return `the editor deleted ${what}, which the proposal changes`;
  if (c.theirs.end === c.theirs.start) return `the proposal deletes ${what}, which the editor changed`;
  return `both the editor and the proposal changed ${what}`;
}

/** A line conflict described with the declarations it falls in (in the editor's text, or the base where the editor deleted it). */
function describeLineConflict(c: MergeConflict, fileName: string, base: string, ours: string): string {
  const names = c.ours.end > c.ours.start ? namesAt(fileName, ours, c.ours.start, c.ours.end) : namesAt(fileName, base, c.base.start, c.base.end);
  const what = names.length > 0 ? names.join(', ') : 'these lines';
  return `${whereInOurs(c)}: ${lineConflictWhat(c, what)}`;
}

/**
 * A merge that parses worse than both inputs is reported rather than returned. The region is the span of base lines
 * covering the change of each side nearest to the first new error (in the merged text), in each text's own lines.
 */
export function syntaxConflict(merged: string, base: string, ours: string, theirs: string, errors: readonly ParseError[]): MergeConflict {
  const first = errors[0];
  const line = first?.line ?? 0;
  const m = splitText(merged).lines;
  const o = splitText(ours).lines;
  const t = splitText(theirs).lines;
  const b = splitText(base).lines;
  const baseToOurs = lineHunks(b, o);
  const baseToTheirs = lineHunks(b, t);
  // What the merge took from theirs shows as a difference between ours and the merge, and the other way round.
  const theirsChange = mapRange(baseToOurs, nearestChange(o, m, line), 'side');
  const oursChange = mapRange(baseToTheirs, nearestChange(t, m, line), 'side');
  const span = { start: Math.min(theirsChange.start, oursChange.start), end: Math.max(theirsChange.end, oursChange.end) };
  const oursRange = mapRange(baseToOurs, span, 'base');
  const theirsRange = mapRange(baseToTheirs, span, 'base');
  return {
    base: { ...span, text: joinLines(b, span.start, span.end) },
    ours: { ...oursRange, text: joinLines(o, oursRange.start, oursRange.end) },
    theirs: { ...theirsRange, text: joinLines(t, theirsRange.start, theirsRange.end) },
    description: `${describeLines(oursRange)}: combining the two changes gives a syntax error neither version has, at line ${line + 1} of the merged text (${first?.message ?? 'unknown error'})`,
  };
}

/** The lines of `side` that differ from `merged` nearest to merged line `line`. */
function nearestChange(side: readonly string[], merged: readonly string[], line: number): { start: number; end: number } {
  let best: LineHunk | undefined;
  let bestDistance = Infinity;
  for (const h of lineHunks(side, merged)) {
    const distance = line < h.sideStart ? h.sideStart - line : line >= h.sideEnd ? line - Math.max(h.sideStart, h.sideEnd - 1) : 0;
    if (distance < bestDistance) {
      best = h;
      bestDistance = distance;
    }
  }
  const fallback = Math.min(line, side.length);
  return best ? { start: best.baseStart, end: best.baseEnd } : { start: fallback, end: fallback };
}

/** A line range carried through hunks, from the base to the side or back; a range end inside a change widens to the whole change. */
function mapRange(hunks: readonly LineHunk[], range: { start: number; end: number }, from: 'base' | 'side'): { start: number; end: number } {
  const map = (line: number, isEnd: boolean): number => {
    let delta = 0;
    for (const h of hunks) {
      const [fromStart, fromEnd, toStart, toEnd] = from === 'base' ? [h.baseStart, h.baseEnd, h.sideStart, h.sideEnd] : [h.sideStart, h.sideEnd, h.baseStart, h.baseEnd];
      if (isEnd ? line <= fromStart : line < fromStart) break;
      if (isEnd ? line <= fromEnd : line < fromEnd) return isEnd ? toEnd : toStart;
      delta = toEnd - fromEnd;
    }
    return line + delta;
  };
  const start = map(range.start, false);
  return { start, end: Math.max(start, map(range.end, true)) };
}
