// The Question task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const questionTask: TaskDefinition = {
  id: 'question',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the question task is not written yet' }),
};
