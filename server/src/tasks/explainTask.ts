// The Explain task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const explainTask: TaskDefinition = {
  id: 'explain',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the explain task is not written yet' }),
};
