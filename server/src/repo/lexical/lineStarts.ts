// Line tables of the texts the lexical index reads: where lines start, moved after one change, and the line of an offset.
import type { ChangedSpan } from '../../edits/textEdits.js';

/** Offsets where lines start, counting `\n` only: the lines the index's locations are numbered by. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The line starts of a text after one change (`span`), from those of the text before it: only the changed part is read. */
export function movedLineStarts(before: readonly number[], span: ChangedSpan, text: string): number[] {
  // Lines starting at or before the change's start have their line break before it; those starting in the changed
  // part are gone; the rest move with the text after it.
  const kept = lineOf(before, span.start);
  const gone = lineOf(before, span.beforeEnd);
  const starts = before.slice(0, kept);
  for (let at = text.indexOf('\n', span.start); at >= 0 && at < span.afterEnd; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  const moved = span.afterEnd - span.beforeEnd;
  const after = before.slice(gone);
  if (moved !== 0) for (let i = 0; i < after.length; i++) after[i] = (after[i] as number) + moved;
  return starts.length === 0 ? after : starts.concat(after);
}

/** 1-based line of an offset. */
export function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
