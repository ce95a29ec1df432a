// The Test task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const testTask: TaskDefinition = {
  id: 'test',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the test task is not written yet' }),
};
