// The Test task for model agents (not written yet: no model agent serves test until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const testModel: ModelTaskStrategy | undefined = undefined;
