// The Explain task for model agents (not written yet: no model agent serves explain until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const explainModel: ModelTaskStrategy | undefined = undefined;
