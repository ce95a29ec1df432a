// How a model agent serves the Class task: the class pipeline (related code, attempts checked by the oracle, tools, reflection).
import type { ModelTaskStrategy } from '../modelTask.js';
import { runClassPipeline } from '../../pipeline/classPipeline.js';

export const classModel: ModelTaskStrategy = {
  // The pipeline writes its own prompts, step by step.
  buildPrompt: () => undefined,
  run: async (request, _ask, _override, signal, session) => {
    if (!session) return { text: '', reason: 'the class pipeline needs a model session' };
    return runClassPipeline({ request, session }, signal);
  },
};
