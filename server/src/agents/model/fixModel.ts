// The Fix task for model agents (not written yet: no model agent serves fix until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const fixModel: ModelTaskStrategy | undefined = undefined;
