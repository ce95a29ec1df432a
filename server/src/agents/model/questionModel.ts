// The Question task for model agents (not written yet: no model agent serves question until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const questionModel: ModelTaskStrategy | undefined = undefined;
