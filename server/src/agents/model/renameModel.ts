// The Rename task for model agents (not written yet: no model agent serves rename until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const renameModel: ModelTaskStrategy | undefined = undefined;
