// The Generate task for model agents (not written yet: no model agent serves generate until this exports a strategy).
import type { ModelTaskStrategy } from '../modelTask.js';

export const generateModel: ModelTaskStrategy | undefined = undefined;
