// The Optimize task for model agents (not written yet: no model agent serves optimize until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const optimizeModel: ModelTaskStrategy | undefined = undefined;
