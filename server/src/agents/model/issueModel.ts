// How a model agent serves the Issue task: the whole issue pipeline (tools, patch, review, self-fix), not one prompt.
import type { ModelTaskStrategy } from '../modelTask.js';
import { runIssuePipeline } from '../../pipeline/issuePipeline.js';

export const issueModel: ModelTaskStrategy = {
  // The pipeline writes its own prompts, step by step.
  buildPrompt: () => undefined,
  run: async (request, _ask, _override, signal, session) => {
    if (!session) return { text: '', reason: 'the issue pipeline needs a model session' };
    return runIssuePipeline({ request, session }, signal);
  },
};
