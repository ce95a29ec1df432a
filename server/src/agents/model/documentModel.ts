// The Document task for model agents: one prompt asking for a single JSDoc block.
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';

const SYSTEM =
  'You are a careful technical writer embedded in a code editor. You write documentation comments for TypeScript and JavaScript. ' +
  'You answer with exactly one JSDoc block (/** ... */) and nothing else: no code, no explanation, no code fence.';

const USER =
  'Write the JSDoc comment for the {{kind}} `{{symbol}}` in {{fileName}}.\n' +
  'Start with one sentence on what it does and why a caller would use it; then @param for every parameter (destructured ones as name.property), ' +
  '@returns unless it returns nothing, @throws for each error it can throw, and @template for type parameters. ' +
  'Describe behaviour, not syntax.\n' +
  'Request from the developer: {{request}}\n\n' +
  '```{{language}}\n{{code}}\n```';

export const documentModel: ModelTaskStrategy = {
  buildPrompt: (request, override) => ({ system: SYSTEM, user: fillTemplate(override ?? USER, standardValues(request)) }),
};
