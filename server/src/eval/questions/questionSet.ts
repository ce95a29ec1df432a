// The shape of a pinned package's workspace questions: tuning sets the ranking may be changed on, and held-out sets only measured.
import type { QuestionEntry } from '../workspaceScenario.js';

export interface QuestionSets {
  tuning: readonly QuestionEntry[];
  /** Never read while changing the product: measured only. */
  heldOut: readonly QuestionEntry[];
  /**
   * A second held-out set, written later by someone who never saw how the product ranks them, to make the held-out
   * figure less dependent on a handful of questions; measured only, like `heldOut`.
   */
  heldOut2?: readonly QuestionEntry[];
  /**
   * A third tuning set, written after `heldOut2` showed the ranking fitted to the manner of the first sets: questions
   * in a newcomer's everyday words, typos and shorthand; the ranking may be changed on it, like `tuning`.
   */
  tuning3?: readonly QuestionEntry[];
}

export const QUESTION_SET_NAMES = ['tuning', 'held-out', 'held-out-2', 'tuning-3', 'all'] as const;
export type QuestionSetName = (typeof QUESTION_SET_NAMES)[number];

/** The questions of one set (every set for `all`). */
export function questionsOf(sets: QuestionSets, name: QuestionSetName): QuestionEntry[] {
  const heldOut2 = sets.heldOut2 ?? [];
  const tuning3 = sets.tuning3 ?? [];
  switch (name) {
    case 'tuning':
      return [...sets.tuning];
    case 'held-out':
      return [...sets.heldOut];
    case 'held-out-2':
      return [...heldOut2];
    case 'tuning-3':
      return [...tuning3];
    case 'all':
      return [...sets.tuning, ...sets.heldOut, ...heldOut2, ...tuning3];
  }
}
