// Amendments: ratings, feedback, reverts (done or discarded), answers discarded in the choice, moved insertions and kept or discarded edits any session writes to any session's interaction, applied on read in one order for every reader.
import type { Range } from 'vscode-languageserver-protocol';
import type { InsertionFate, InsertionState, Interaction } from '../protocol.js';
import type { Segment } from './segmentFiles.js';
import { isRange } from '../edits/textEdits.js';

/** Where one insertion of a response is now (see `InsertionRecord`): replaces what earlier patches said of it. */
export interface InsertionPatch {
  /** Its index in the response's `insertedAt`. */
  index: number;
  range: Range;
  state: InsertionState;
  editedText?: string;
  fate?: InsertionFate;
  fateAt?: string;
}

/**
 * What became of a response's applied edit as a whole: `kept` (some of it reached the disk), `discarded` (none of it
 * did), `applied` (discarded before, back in the file since and not saved yet), `removed` (kept, and then the file
 * reached the disk without any of it).
 */
export interface FatePatch {
  fate: 'kept' | 'discarded' | 'applied' | 'removed';
  at: string;
  /** Why it was discarded, in words for the user. */
  reason?: string;
}

/** What a later request may change on a recorded response. */
export interface ResponsePatch {
  /** A thumb up or down; null withdraws it. */
  rating?: 'up' | 'down' | null;
  /** Appended to the response's feedback. */
  feedback?: string;
  revertedAt?: string;
  /** When the user was shown a revert of the response in the preview and discarded it (appended to its list). */
  revertDiscardedAt?: string;
  /** When the user chose none of the interaction's answers (see `TraceResponse.choiceDiscardedAt`). */
  choiceDiscardedAt?: string;
  /** Insertions that moved, changed or met their fate since the last patch. */
  insertions?: InsertionPatch[];
  fate?: FatePatch;
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/**
 * A change to an interaction written by a session that does not own it (each file has one writer), kept in
 * that session's segment and applied on top of the interaction wherever it is read.
 */
export interface Amendment {
  interactionId: string;
  responseId: string;
  at: string;
  patch: ResponsePatch;
}

/** Applies a patch to the response it names. */
export function applyResponsePatch(interaction: Interaction, responseId: string, patch: ResponsePatch): void {
  const response = interaction.responses.find((r) => r.id === responseId);
  if (!response) return;
  if (patch.rating === null) delete response.rating;
  else if (patch.rating !== undefined) response.rating = patch.rating;
  if (patch.feedback !== undefined) response.feedback = [...(response.feedback ?? []), patch.feedback];
  if (patch.revertedAt !== undefined) response.revertedAt = patch.revertedAt;
  if (typeof patch.revertDiscardedAt === 'string') response.revertsDiscardedAt = [...(response.revertsDiscardedAt ?? []), patch.revertDiscardedAt];
  for (const moved of Array.isArray(patch.insertions) ? patch.insertions : []) {
    // A trace file is data anyone can write: a patch without the shape of one changes nothing.
    const insertion = typeof moved?.index === 'number' ? response.insertedAt?.[moved.index] : undefined;
    if (!insertion || !isRange(moved.range) || !['present', 'edited', 'removed'].includes(moved.state)) continue;
    if (insertion.appliedRange === undefined && !sameRange(insertion.range, moved.range)) insertion.appliedRange = insertion.range;
    insertion.range = moved.range;
    if (moved.state === 'present') delete insertion.state;
    else insertion.state = moved.state;
    if (moved.editedText !== undefined) insertion.editedText = moved.editedText;
    else delete insertion.editedText;
    if (moved.fate !== undefined) {
      insertion.fate = moved.fate;
      if (moved.fateAt !== undefined) insertion.fateAt = moved.fateAt;
    }
  }
  if (patch.fate) applyFate(response, patch.fate);
  if (typeof patch.choiceDiscardedAt === 'string') applyChoiceDiscard(response, patch.choiceDiscardedAt);
}

/** What `outcomeReason` says of an answer discarded in the choice. */
export const CHOICE_DISCARDED_REASON = 'None of the answers was chosen; nothing was applied.';

/**
 * A discard in the choice is the outcome only of an answer nothing else became of: one applied or shown (even after
 * the discard, in the stored record this patch lands on), refused, or discarded in the preview keeps its own outcome.
 */
function applyChoiceDiscard(response: Interaction['responses'][number], at: string): void {
  response.choiceDiscardedAt ??= at;
  if (response.used || response.outcome !== undefined || response.insertedAt?.length) return;
  response.outcome = 'discarded';
  response.outcomeReason = CHOICE_DISCARDED_REASON;
}

function applyFate(response: Interaction['responses'][number], patch: FatePatch): void {
  if (patch.fate === 'removed') {
    // Kept before: still used, and kept then; the code is no longer in the file.
    if (response.outcome !== 'discarded-after-apply') response.removedAt = patch.at;
    return;
  }
  delete response.removedAt;
  if (patch.fate === 'discarded') {
    response.used = false;
    response.outcome = 'discarded-after-apply';
    response.discardedAt = patch.at;
    if (patch.reason !== undefined) response.outcomeReason = patch.reason;
    return;
  }
  if (response.outcome === 'discarded-after-apply') {
    response.outcome = 'applied';
    delete response.outcomeReason;
  }
  delete response.discardedAt;
  response.used = true;
  if (patch.fate === 'kept') response.keptAt ??= patch.at;
}

/**
 * The order amendments apply in, the same for every reader: by time; within one millisecond by session id, and within
 * a session in the order it wrote them (the sort is stable and each session's list keeps its files' order).
 */
function amendmentOrder(a: { amendment: Amendment; segment: Segment }, b: { amendment: Amendment; segment: Segment }): number {
  if (a.amendment.at !== b.amendment.at) return a.amendment.at < b.amendment.at ? -1 : 1;
  if (a.segment.sessionId !== b.segment.sessionId) return a.segment.sessionId < b.segment.sessionId ? -1 : 1;
  return a.segment.index - b.segment.index;
}

/** Amendments by interaction id, from every session's segments, each with the segment it was read from. */
export class AmendmentIndex {
  private readonly amendments = new Map<string, { amendment: Amendment; segment: Segment }[]>();

  add(amendment: Amendment, segment: Segment): void {
    const list = this.amendments.get(amendment.interactionId);
    if (list) list.push({ amendment, segment });
    else this.amendments.set(amendment.interactionId, [{ amendment, segment }]);
  }

  /** Forgets the amendments read from `segment` (before its content is replaced or dropped). */
  removeFrom(segment: Segment): void {
    for (const id of new Set((segment.db.data.amendments ?? []).map((amendment) => amendment.interactionId))) {
      const kept = (this.amendments.get(id) ?? []).filter((item) => item.segment !== segment);
      if (kept.length) this.amendments.set(id, kept);
      else this.amendments.delete(id);
    }
  }

  /**
   * Now, or just after the latest amendment of the interaction known here if that is not earlier: a change made after
   * seeing another applies after it, even within the same millisecond.
   */
  nextTime(id: string): string {
    let latest = '';
    for (const { amendment } of this.amendments.get(id) ?? []) if (amendment.at > latest) latest = amendment.at;
    const now = new Date().toISOString();
    return now > latest ? now : new Date(Date.parse(latest) + 1).toISOString();
  }

  /** Whether any amendment names the interaction (its snapshot then differs from the stored record). */
  has(id: string): boolean {
    return this.amendments.has(id);
  }

  /** Applies every amendment of the interaction to `result` (a copy the caller owns), oldest first. */
  applyTo(result: Interaction): Interaction {
    const amendments = this.amendments.get(result.id);
    if (!amendments?.length) return result;
    for (const { amendment } of [...amendments].sort(amendmentOrder)) {
      applyResponsePatch(result, amendment.responseId, amendment.patch);
    }
    return result;
  }
}
