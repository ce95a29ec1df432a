// The Generate task for model agents: the signature, TODO or cursor in its file, asking for the code in one fence.
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';
import type { AgentRequest } from '../agent.js';
import { fileAround } from './fixModel.js';
import { lineStarts, offsetToPosition } from '../../edits/textEdits.js';

const SYSTEM =
  'You are a careful TypeScript engineer writing code inside a code editor. ' +
  'You answer with the code in exactly one code fence, optionally followed by one short sentence. ' +
  'Your code is type-checked in the project (nothing new may fail) and, where allowed, the project\'s tests are run on it.';

/** One user template per way of generating; `{{file}}` is the file around the target, with `{{marker}}` where the code goes. */
const USER: Record<string, string> = {
  body:
    'Write the body of the {{kind}} `{{symbol}}` in {{fileName}} (line {{line}}). Keep its name, parameters and return type exactly as they are.\n\n' +
    '```{{language}}\n{{code}}\n```\n\n' +
    'The file, for context:\n```{{language}}\n{{file}}\n```\n\n' +
    'Request from the developer: {{request}}\n\n' +
    'Answer with the whole {{kind}}, signature included, in one ```{{language}} code fence. Put any import it needs first in the same fence.',
  todo:
    'Replace this comment in {{fileName}} (line {{line}}) with the code it asks for:\n{{code}}\n\n' +
    'The file, for context (the comment is where the code goes):\n```{{language}}\n{{file}}\n```\n\n' +
    'Request from the developer: {{request}}\n\n' +
    'Answer with only the code that replaces the comment, in one ```{{language}} code fence. Put any import it needs first in the same fence.',
  replace:
    'Replace the selected code in {{fileName}} (line {{line}}) as the developer asks: {{request}}\n\n' +
    '```{{language}}\n{{code}}\n```\n\n' +
    'The file, for context:\n```{{language}}\n{{file}}\n```\n\n' +
    'Answer with only the code that replaces the selection, in one ```{{language}} code fence. Put any import it needs first in the same fence.',
  insert:
    'Write code for this request, to go at line {{line}} of {{fileName}}, where the file below says {{marker}}: {{request}}\n\n' +
    '```{{language}}\n{{file}}\n```\n\n' +
    'Answer with only the new code, in one ```{{language}} code fence. Put any import it needs first in the same fence.',
};

const MARKER = '/* ← your code here */';

/** The values of a generate prompt: the standard ones, the line, and the file with the insertion point marked. */
export function generateValues(request: AgentRequest): Record<string, string> {
  const { document, target } = request;
  const mode = request.parameters.mode ?? 'insert';
  const text = document.text;
  const inserting = mode === 'insert' || mode === 'insert-after';
  const marked = inserting ? `${text.slice(0, target.start)}${mode === 'insert-after' ? '\n' : ''}${MARKER}${text.slice(target.end)}` : text;
  const line = offsetToPosition(text, target.start, lineStarts(text)).line + 1 + (mode === 'insert-after' ? 1 : 0);
  return {
    ...standardValues(request),
    line: String(line),
    marker: MARKER,
    todo: request.parameters.todo ?? '',
    file: fileAround(marked, target.start, target.start + (inserting ? MARKER.length : target.end - target.start)),
  };
}

export const generateModel: ModelTaskStrategy = {
  buildPrompt(request, override) {
    const mode = request.parameters.mode ?? 'insert';
    const template = override ?? USER[mode === 'insert-after' ? 'insert' : mode];
    if (!template) return undefined;
    return { system: SYSTEM, user: fillTemplate(template, generateValues(request)) };
  },
};
