// The Document task for model agents: one prompt asking for a single JSDoc block.
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';
import { ModelError } from '../modelClient.js';
import { salvageCutDoc } from '../../edits/sectionedDoc.js';

const SYSTEM =
  'You are a careful technical writer embedded in a code editor. You write documentation comments for TypeScript and JavaScript. ' +
  'You answer with exactly one JSDoc block (/** ... */) and nothing else: no code, no explanation, no code fence.';

// Measured with a local 0.5B model on @tanstack/query-core: showing the comment's shape made it copy the placeholders
// word for word, and asking for markdown to be avoided or for "the caller" made it wordier; this wording did best. What
// it still writes wrong (markdown sections, tags the code contradicts) the Document task repairs or drops.
const USER =
  'Write the JSDoc comment for the {{kind}} `{{symbol}}` in {{fileName}}.\n' +
  'Start with one sentence on what it does and why a caller would use it; then @param for every parameter (destructured ones as name.property), ' +
  '@returns unless it returns nothing, @throws for each error it can throw, and @template for type parameters. ' +
  'Describe behaviour, not syntax.\n' +
  'Request from the developer: {{request}}\n\n' +
  '```{{language}}\n{{code}}\n```';

export const documentModel: ModelTaskStrategy = {
  buildPrompt: (request, override) => ({ system: SYSTEM, user: fillTemplate(override ?? USER, standardValues(request)) }),

  // A small model often runs on past the comment (retelling the code) until its token limit cuts it off: the whole
  // part written before the cut is still an answer, and the task's oracle judges it like any other.
  async run(request, ask, override, signal) {
    const prompt = documentModel.buildPrompt(request, override);
    if (!prompt) return { text: '' };
    try {
      return { text: (await ask(prompt, signal)).text };
    } catch (error) {
      const partial = error instanceof ModelError && error.facts.cause === 'token-limit' ? error.facts.partialText : undefined;
      const kept = partial ? salvageCutDoc(partial) : undefined;
      if (kept === undefined) throw error;
      return { text: kept };
    }
  },
};
