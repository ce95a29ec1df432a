// The shape of a pinned package's workspace questions: a tuning set the ranking may be changed on, and a held-out set only measured.
import type { QuestionEntry } from '../workspaceScenario.js';

export interface QuestionSets {
  tuning: readonly QuestionEntry[];
  /** Never read while changing the product: measured only. */
  heldOut: readonly QuestionEntry[];
}

export type QuestionSetName = 'tuning' | 'held-out' | 'all';

/** The questions of one set (both for `all`). */
export function questionsOf(sets: QuestionSets, name: QuestionSetName): QuestionEntry[] {
  return name === 'tuning' ? [...sets.tuning] : name === 'held-out' ? [...sets.heldOut] : [...sets.tuning, ...sets.heldOut];
}
