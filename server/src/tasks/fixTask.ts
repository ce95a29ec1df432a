// The Fix task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const fixTask: TaskDefinition = {
  id: 'fix',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the fix task is not written yet' }),
};
