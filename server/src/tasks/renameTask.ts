// The Rename task (not written yet: it offers nothing and turns no answer into a proposal).
import type { TaskDefinition } from './task.js';

export const renameTask: TaskDefinition = {
  id: 'rename',
  offersAt: () => [],
  convertAnswer: () => ({ ok: false, reason: 'the rename task is not written yet' }),
};
