// The Generate task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const generateTask: TaskDefinition = {
  id: 'generate',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the generate task is not written yet' }),
};
