// The Fix task for model agents: the diagnostic, the declaration it sits in and the file's imports, asking for the corrected declaration in one code fence.
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, importsEnd, standardValues, withoutAnnotations } from '../modelTask.js';
import type { AgentRequest } from '../agent.js';
import { lineStarts, offsetToPosition } from '../../edits/textEdits.js';

const SYSTEM =
  'You are a careful TypeScript engineer embedded in a code editor. You fix the compiler diagnostic you are given with the smallest correct change. ' +
  'You answer with the whole corrected declaration in exactly one code fence, optionally preceded by one short sentence. ' +
  'Your fix is type-checked: it must remove the diagnostic and must not introduce any new one.';

const USER =
  'Fix this diagnostic in {{fileName}}:\n' +
  '{{diagnostic}}\n\n' +
  'It is in this {{kind}} (line {{line}} of the file):\n' +
  '```{{language}}\n{{code}}\n```\n\n' +
  "The file's imports:\n" +
  '```{{language}}\n{{file}}\n```\n\n' +
  'Answer with the whole corrected {{kind}} in one ```{{language}} code fence, changing only what the fix needs. ' +
  'If the fix needs an import, put the import line first in the same fence.';

/** Most characters of the file sent around the target; the imports at the top are always kept. */
const FILE_CHARS = 12_000;
const HEAD_CHARS = 2_000;

/** The file clipped to a window around the target, keeping its head (the imports) and marking what was left out; no annotation lines. */
export function fileAround(text: string, start: number, end: number, max = FILE_CHARS): string {
  if (text.length <= max) return withoutAnnotations(text);
  const head = text.slice(0, text.lastIndexOf('\n', HEAD_CHARS) + 1 || HEAD_CHARS);
  const room = Math.max(0, max - head.length);
  const middle = Math.floor((start + end) / 2);
  let from = Math.max(head.length, middle - Math.floor(room / 2));
  const to = Math.min(text.length, from + room);
  from = Math.max(head.length, to - room);
  // Whole lines only, so the model never sees half a statement.
  const lineFrom = from === head.length ? from : text.indexOf('\n', from) + 1 || from;
  const lineTo = to === text.length ? to : text.lastIndexOf('\n', to) + 1 || to;
  const before = lineFrom > head.length ? `/* … ${lineFrom - head.length} characters left out … */\n` : '';
  const after = lineTo < text.length ? `/* … ${text.length - lineTo} characters left out … */\n` : '';
  return withoutAnnotations(`${head}${before}${text.slice(lineFrom, lineTo)}${after}`);
}

/**
 * The values of a fix prompt: the standard ones plus the diagnostic, its line and the file's imports. The rest of
 * the file is not sent whole: the declarations the code uses come with the request's context, and the declaration
 * being fixed is in the prompt once.
 */
export function fixValues(request: AgentRequest): Record<string, string> {
  const { document, target } = request;
  const diagnostic = target.diagnostic;
  const starts = lineStarts(document.text);
  const line = offsetToPosition(document.text, diagnostic?.start ?? target.start, starts).line + 1;
  const severity = ['', 'error', 'warning', 'information', 'hint'][diagnostic?.severity ?? 1] ?? 'error';
  const code = diagnostic?.code === undefined ? '' : /^\d+$/.test(String(diagnostic.code)) ? ` TS${diagnostic.code}` : ` ${diagnostic.code}`;
  const source = diagnostic?.source && !/^(ts|typescript)$/i.test(diagnostic.source) ? ` (${diagnostic.source})` : '';
  const described = diagnostic ? `line ${line}: ${severity}${code}${source}: ${diagnostic.message}` : `line ${line}: ${request.text}`;
  return {
    ...standardValues(request),
    kind: target.declaration?.kind.replace('-', ' ') ?? 'code',
    diagnostic: described,
    line: String(offsetToPosition(document.text, target.start, starts).line + 1),
    file: withoutAnnotations(document.text.slice(0, importsEnd(document))).trim() || '(no imports)',
  };
}

export const fixModel: ModelTaskStrategy = {
  buildPrompt: (request, override) => (request.target.diagnostic ? { system: SYSTEM, user: fillTemplate(override ?? USER, fixValues(request)) } : undefined),
  shows: (document) => [{ start: 0, end: importsEnd(document) }],
};
