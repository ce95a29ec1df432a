// The Optimize task for model agents: the declaration or selection and the goal, asking for the rewritten code with the same behaviour in one fence.
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';
import { fileAround } from './fixModel.js';
import { lineStarts, offsetToPosition } from '../../edits/textEdits.js';

const SYSTEM =
  'You are a senior TypeScript engineer improving code inside a code editor. ' +
  'You keep behaviour identical: the same results, errors and side effects for every input. ' +
  'You answer with the rewritten code in exactly one code fence, followed by at most three short sentences on what changed. ' +
  'Your code is type-checked in the project (nothing new may fail) and, where allowed, the project\'s tests are run on it.';

const GOALS: Record<string, string> = {
  general: 'Improve it where it clearly needs it: efficiency, clarity and structure, in that order of importance.',
  efficiency: 'Make it faster and lighter on memory: better algorithms and data structures, no repeated work, fewer allocations.',
  readability: 'Make it easier to read: clear names for locals, straightforward control flow, no clever tricks; comments only where the why is not obvious.',
  complexity: 'Reduce its cyclomatic complexity and nesting: early returns, fewer branches, smaller steps.',
};

const USER =
  'Optimize the {{kind}} `{{symbol}}` in {{fileName}} (line {{line}}). Goal: {{goal}}\n' +
  'Keep its name, parameters, return type and exported surface unchanged.\n\n' +
  '```{{language}}\n{{code}}\n```\n\n' +
  'The file, for context:\n```{{language}}\n{{file}}\n```\n\n' +
  'Request from the developer: {{request}}\n\n' +
  'Answer with the whole rewritten {{kind}} in one ```{{language}} code fence. Put any import it needs first in the same fence.';

function elided(text: string, target: { start: number; end: number }, marker: string): string {
  return `${text.slice(0, target.start)}${marker}${text.slice(target.end)}`;
}

export const optimizeModel: ModelTaskStrategy = {
  buildPrompt(request, override) {
    const { document, target } = request;
    const values = {
      ...standardValues(request),
      kind: target.declaration?.kind.replace('-', ' ') ?? 'code',
      line: String(offsetToPosition(document.text, target.start, lineStarts(document.text)).line + 1),
      goal: GOALS[request.parameters.goal ?? 'general'] ?? GOALS.general ?? '',
      // The code is in the prompt already: the file names it where it stands rather than repeating it.
      file: fileAround(elided(document.text, target, `/* … ${target.name}: the code above … */`), target.start, target.start),
    };
    return { system: SYSTEM, user: fillTemplate(override ?? USER, values) };
  },
};
