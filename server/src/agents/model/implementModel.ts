// The Implement task for model agents (not written yet: no model agent serves implement until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const implementModel: ModelTaskStrategy | undefined = undefined;
