// The Optimize task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const optimizeTask: TaskDefinition = {
  id: 'optimize',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the optimize task is not written yet' }),
};
