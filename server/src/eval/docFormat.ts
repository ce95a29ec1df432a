// The doc scenario's metrics: syntax correctness of the edited file, and format correctness of the inserted doc comment (placed on the target, every parameter, the return, a description, the code unchanged).
import { ts } from 'ts-morph';
import type { DeclarationKind, DeclarationTarget } from '../repo/declarations.js';
import { listDeclarations } from '../repo/declarations.js';
import { changedSpan } from '../edits/textEdits.js';
import { coverageProblems } from '../repo/docCoverage.js';
import type { SignatureFacts } from '../repo/docCoverage.js';

/** The syntax errors of a file's text (the parser's own, no type checking), as messages. */
export function syntaxErrors(fileName: string, text: string): string[] {
  const output = ts.transpileModule(text, { fileName, reportDiagnostics: true, compilerOptions: { jsx: ts.JsxEmit.Preserve, allowJs: true, noEmitHelpers: true } });
  return (output.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error && d.file !== undefined).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

/** The verdict on one inserted doc comment. */
export interface DocFormatResult {
  /** The comment sits on the target and nothing but the comment was added. */
  placed: boolean;
  /** Every check passed. */
  correct: boolean;
  /** What is wrong, one short sentence each. */
  problems: string[];
  /** The comment found, when one was. */
  comment?: string;
}

/** The case the comment was asked for: the text without a doc comment on the target, and the target in it. */
export interface DocFormatInput {
  fileName: string;
  before: string;
  after: string;
  target: { kind: DeclarationKind; simpleName: string; start: number };
  facts: SignatureFacts | undefined;
}

/**
 * Format correctness as the Copilot harness defines it for doc: the comment is inserted where documentation of the
 * target goes, the code is unchanged (removing the comment gives the original text back), and it documents the
 * target completely: a description, `@param` for every parameter (a destructured one under any name, or through its
 * `name.property` tags, as the product writes them), and `@returns` unless the function returns nothing.
 */
export function checkDocFormat(input: DocFormatInput): DocFormatResult {
  const { before, after } = input;
  const { start: prefix, beforeEnd, afterEnd } = changedSpan(before, after);
  const removed = before.slice(prefix, beforeEnd);
  const inserted = after.slice(prefix, afterEnd);
  if (removed !== '') return { placed: false, correct: false, problems: ['the code was changed, not only documented'] };
  if (inserted === '') return { placed: false, correct: false, problems: ['nothing was inserted'] };
  // The target moved by what was inserted before it.
  const shift = prefix <= input.target.start ? inserted.length : 0;
  const found = listDeclarations(input.fileName, after).find((d) => d.kind === input.target.kind && d.simpleName === input.target.simpleName && d.start === input.target.start + shift);
  if (!found) return { placed: false, correct: false, problems: [`the documented declaration ${input.target.simpleName} is no longer found`] };
  const doc = found.existingDoc;
  if (!doc) return { placed: false, correct: false, problems: [`no doc comment is attached to ${input.target.simpleName}`] };
  if (doc.start < prefix || doc.end > prefix + inserted.length || inserted.trim() !== doc.text) {
    return { placed: false, correct: false, problems: ['more than a doc comment on the target was inserted'], comment: doc.text };
  }
  const problems = input.facts ? coverageProblems(doc.text, input.facts) : [];
  return { placed: true, correct: problems.length === 0, problems, comment: doc.text };
}

/** Whether the declaration may take a doc comment where the product puts it: alone on its first line. */
export function startsItsLine(text: string, target: DeclarationTarget): boolean {
  return text.slice(target.lineStart, target.start).trim() === '';
}
