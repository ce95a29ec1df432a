// The task catalogue: every task the server can run, looked up by id, and the offers at a place.
import type { TaskId } from '../protocol.js';
import { documentTask } from './documentTask.js';
import { explainTask } from './explainTask.js';
import { renameTask } from './renameTask.js';
import { fixTask } from './fixTask.js';
import { testTask } from './testTask.js';
import { implementTask } from './implementTask.js';
import { questionTask } from './questionTask.js';
import { generateTask } from './generateTask.js';
import { optimizeTask } from './optimizeTask.js';
import { issueTask } from './issueTask.js';
import { classTask } from './classTask.js';
import type { OfferContext, TaskDefinition, TaskOffer } from './task.js';

/** In menu order: fixes first, then the tasks on the code at hand, then the ones that create code. */
const TASKS: readonly TaskDefinition[] = [fixTask, documentTask, explainTask, renameTask, optimizeTask, generateTask, testTask, implementTask, classTask, issueTask, questionTask];

export function taskDefinition(id: TaskId): TaskDefinition | undefined {
  return TASKS.find((t) => t.id === id);
}

/** Tasks the server can turn into edits today. */
export function implementedTasks(): TaskId[] {
  return TASKS.map((t) => t.id);
}

/**
 * The range a code-action menu is offered on: one word counts as the cursor at its start. Eglot sends the word (the
 * sexp) at point when nothing is selected, so from the keyword `export` Explain would explain that word and Optimize
 * would be missing; no one selects a single word to have the assistant work on that word alone.
 */
export function menuRange(text: string, start: number, end: number): { start: number; end: number } {
  const from = Math.min(start, end);
  const to = Math.max(start, end);
  return to > from && /^[\w$]+$/.test(text.slice(from, to)) ? { start: from, end: from } : { start: from, end: to };
}

/** Offers of every task that some agent serves, at a selection (one word is the cursor: `menuRange`). */
export function offersAt(context: OfferContext, served: (task: TaskId, needsModel: boolean) => boolean): TaskOffer[] {
  const place = { ...context, ...menuRange(context.document.text, context.start, context.end) };
  const offers: TaskOffer[] = [];
  for (const task of TASKS) {
    if (!served(task.id, false)) continue;
    offers.push(...task.offersAt(place).filter((offer) => !offer.needsModel || served(task.id, true)));
  }
  return offers;
}
