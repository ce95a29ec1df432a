// The Implement task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const implementTask: TaskDefinition = {
  id: 'implement',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the implement task is not written yet' }),
};
