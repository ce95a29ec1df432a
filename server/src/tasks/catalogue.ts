// The task catalogue: every task the server can run, looked up by id, and the offers at a place.
import type { TaskId } from '../protocol.js';
import { documentTask } from './documentTask.js';
import type { OfferContext, TaskDefinition, TaskOffer } from './task.js';

const TASKS: readonly TaskDefinition[] = [documentTask];

export function taskDefinition(id: TaskId): TaskDefinition | undefined {
  return TASKS.find((t) => t.id === id);
}

/** Tasks the server can turn into edits today. */
export function implementedTasks(): TaskId[] {
  return TASKS.map((t) => t.id);
}

/** Offers of every task that some agent serves, at a selection. */
export function offersAt(context: OfferContext, served: (task: TaskId) => boolean): TaskOffer[] {
  const offers: TaskOffer[] = [];
  for (const task of TASKS) {
    if (!served(task.id)) continue;
    offers.push(...task.offersAt(context));
  }
  return offers;
}
