// The Explain task: offered on declarations and selections; its answer is a markdown text shown to the user, never an edit.
import type { DeclarationTarget } from '../repo/declarations.js';
import { declarationAt, KIND_LABEL } from '../repo/declarations.js';
import { declarationTarget } from './documentTask.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { TaskAnswer, TaskDefinition, TaskOffer } from './task.js';

/**
 * Explain reads code and changes nothing, so no standard kind fits: `quickfix` and `refactor.*` announce an edit,
 * and `source.*` is for whole-file actions (VS Code keeps those out of its quick-fix menu). A kind outside the
 * standard families is listed by every client's unfiltered code-action menu (VS Code under "More Actions"),
 * stays out of menus that ask only for fixes or refactorings, and can be asked for by name. LSP requires clients
 * that declare a `valueSet` to handle kinds outside it gracefully.
 */
export const EXPLAIN_KIND = 'assistant.explain';

/** The name the task uses for a selection that is not one declaration. */
export const SELECTION_NAME = 'the selection';

export const explainTask: TaskDefinition = {
  id: 'explain',

  offersAt({ document, start, end }): TaskOffer[] {
    const range = trimmed(document.text, start, end);
    if (range.start === range.end && start !== end) return [];
    const declaration = declarationAt(syntaxFileName(document), document.text, range.start, range.end);
    if (start === end || (declaration && isExactly(declaration, range))) {
      if (!declaration) return [];
      const label = declaration.kind === 'constructor' ? `the constructor of ${declaration.name.replace(/\.constructor$/, '')}` : `${KIND_LABEL[declaration.kind]} ${declaration.name}`;
      return [{ task: 'explain', title: `Assistant: Explain ${label}`, kind: EXPLAIN_KIND, target: declarationTarget(declaration) }];
    }
    return [{ task: 'explain', title: 'Assistant: Explain the selection', kind: EXPLAIN_KIND, target: { name: SELECTION_NAME, start: range.start, end: range.end } }];
  },

  convertAnswer(answer): TaskAnswer {
    const text = cleanExplanation(answer.text);
    return text ? { ok: true, kind: 'text', text, ...(answer.places ? { places: answer.places } : {}) } : { ok: false, reason: 'the explanation is empty' };
  },
};

/** The range without the whitespace at its ends. */
function trimmed(text: string, start: number, end: number): { start: number; end: number } {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text.charAt(s))) s++;
  while (e > s && /\s/.test(text.charAt(e - 1))) e--;
  return { start: s, end: e };
}

/** A selection of the whole declaration (from its doc comment, its first line or its first token) or of just its name. */
function isExactly(declaration: DeclarationTarget, range: { start: number; end: number }): boolean {
  if (range.start === declaration.nameStart && range.end === declaration.nameEnd) return true;
  const starts = [declaration.start, declaration.lineStart + declaration.indent.length, declaration.existingDoc?.start];
  return range.end === declaration.end && starts.includes(range.start);
}

/**
 * The text to show: a model's reasoning (`<think>…</think>`) and a fence around the whole answer are removed;
 * an answer left empty is refused.
 */
export function cleanExplanation(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fenced = /^(`{3,}|~{3,})(?:markdown|md)?[ \t]*\n([\s\S]*?)\n\1[ \t]*$/i.exec(out);
  if (fenced && !fenced[2]?.includes(fenced[1] as string)) out = (fenced[2] ?? '').trim();
  return out;
}
