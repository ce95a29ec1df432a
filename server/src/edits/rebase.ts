// Moves edits computed on one version of a document onto a later version, or says why it cannot.
import { diffLines } from 'diff';
import type { OffsetEdit } from './textEdits.js';

export type RebaseResult =
  | { ok: true; edits: OffsetEdit[]; moved: boolean }
  | { ok: false; reason: string };

interface CommonBlock {
  baseStart: number;
  baseEnd: number;
  currentStart: number;
}

/**
 * Each edit must sit wholly inside lines the user did not touch (for an insertion: the line it
 * is inserted before); it then moves with those lines. An edit that overlaps a changed line is
 * refused rather than guessed, so nothing is ever applied to text it was not computed for.
 */
export function rebaseEdits(baseText: string, currentText: string, edits: readonly OffsetEdit[]): RebaseResult {
  if (baseText === currentText) return { ok: true, edits: [...edits], moved: false };
  const blocks = commonBlocks(baseText, currentText);
  const moved: OffsetEdit[] = [];
  for (const edit of edits) {
    const block = blocks.find((b) => b.baseStart <= edit.start && edit.end <= b.baseEnd && (edit.start < b.baseEnd || edit.start === baseText.length));
    if (!block) {
      return { ok: false, reason: 'the lines the edit touches were changed in the editor after the assistant read them' };
    }
    const delta = block.currentStart - block.baseStart;
    moved.push({ start: edit.start + delta, end: edit.end + delta, newText: edit.newText });
  }
  return { ok: true, edits: moved, moved: true };
}

function commonBlocks(baseText: string, currentText: string): CommonBlock[] {
  const blocks: CommonBlock[] = [];
  let base = 0;
  let current = 0;
  for (const change of diffLines(baseText, currentText)) {
    const length = change.value.length;
    if (change.added) {
      current += length;
    } else if (change.removed) {
      base += length;
    } else {
      blocks.push({ baseStart: base, baseEnd: base + length, currentStart: current });
      base += length;
      current += length;
    }
  }
  return blocks;
}
