// The Generate task: a body for a signature whose body is empty, the code a TODO comment asks for, or code from free text at the cursor; model answers only, type-checked (and tested when allowed) before they are offered.
import { ts } from 'ts-morph';
import { declarationAt, KIND_LABEL, withSyntaxTree } from '../repo/declarations.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationTarget } from './documentTask.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import { shortMessage } from './fixTask.js';
import { replaceTargetWithCode } from './replaceCode.js';
import { checkRewrite } from './rewriteCheck.js';
import type { TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';

/** How a generate target is filled: a function's body, a TODO comment's code, a selection replaced, or code inserted. */
export type GenerateMode = 'body' | 'todo' | 'replace' | 'insert' | 'insert-after';

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.Block };

function hasBlockBody(node: ts.Node): node is FunctionLike {
  return (
    (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    node.body !== undefined &&
    ts.isBlock(node.body)
  );
}

/** The outermost function-like node with a block body inside `[start, end)`: the function a declaration target names. */
export function functionIn(source: ts.SourceFile, start: number, end: number): FunctionLike | undefined {
  return firstWithin(source, start, end, (node) => (hasBlockBody(node) ? node : undefined));
}

/**
 * The first node, in source order, that lies wholly within [start, end] and that `pick` maps to a value; that value.
 * Nodes outside the range are passed over without their children.
 */
export function firstWithin<T>(source: ts.SourceFile, start: number, end: number, pick: (node: ts.Node) => T | undefined): T | undefined {
  let found: T | undefined;
  const visit = (node: ts.Node): void => {
    // `pos` (before the node's leading trivia) is read first: a node that starts at or after `end` is passed over
    // without scanning its trivia for where its code starts, and only the few nodes around the range are scanned.
    if (found !== undefined || node.end <= start || node.pos >= end || node.getStart(source) >= end) return;
    if (node.getStart(source) >= start && node.getEnd() <= end) {
      found = pick(node);
      if (found !== undefined) return;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** A body with nothing to run: no statements (comments allowed), or only a `throw` saying it is not written yet. */
export function isEmptyBody(body: ts.Block, source: ts.SourceFile): boolean {
  if (body.statements.length === 0) return true;
  if (body.statements.length !== 1) return false;
  const only = body.statements[0] as ts.Statement;
  return ts.isThrowStatement(only) && /not\s+(yet\s+)?implemented|todo/i.test(only.getText(source));
}

/** A `TODO`/`FIXME` comment on a line: its text and its extent, continuation `//` lines included. */
export function todoCommentAt(text: string, offset: number): { start: number; end: number; note: string } | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEndAt = (from: number): number => {
    const newline = text.indexOf('\n', from);
    return newline < 0 ? text.length : newline;
  };
  const line = text.slice(lineStart, lineEndAt(lineStart)).replace(/\r$/, '');
  const match = /(\/\/|\/\*+)\s*((?:TODO|FIXME)\b.*)$/.exec(line);
  if (!match || match.index === undefined) return undefined;
  const start = lineStart + match.index;
  if (match[1] !== '//') {
    const close = text.indexOf('*/', start + 2);
    if (close < 0) return undefined;
    const note = text.slice(start, close).replace(/^\/\*+/, '').replace(/^[ \t]*\*\s?/gm, '').replace(/\s+/g, ' ').trim();
    return { start, end: close + 2, note };
  }
  let end = lineStart + line.length;
  const notes = [(match[2] ?? '').trim()];
  // `//` lines right below that are not new TODOs continue the note.
  while (end < text.length) {
    const nextStart = end + 1 + (text[end] === '\r' ? 1 : 0);
    const next = text.slice(nextStart, lineEndAt(nextStart)).replace(/\r$/, '');
    const continued = /^\s*\/\/\s?(.*)$/.exec(next);
    if (!continued || /^(TODO|FIXME)\b/.test((continued[1] ?? '').trim()) || (continued[1] ?? '').trim() === '') break;
    notes.push((continued[1] ?? '').trim());
    end = nextStart + next.length;
  }
  return { start, end, note: notes.join(' ') };
}

/** The offers at a place: the empty body of the function there, else a TODO comment on the cursor's line. */
function generateOffers(document: DocumentSnapshot, start: number, end: number): TaskOffer[] {
  const fileName = syntaxFileName(document);
  const declaration = declarationAt(fileName, document.text, start, end);
  if (declaration && declaration.kind !== 'class' && declaration.kind !== 'interface') {
    const empty = withSyntaxTree(fileName, document.text, (source) => {
      const fn = functionIn(source, declaration.start, declaration.end);
      return fn !== undefined && isEmptyBody(fn.body, source);
    });
    if (empty) {
      return [{ task: 'generate', title: `Assistant: Write the body of ${KIND_LABEL[declaration.kind]} ${declaration.name}`, kind: 'refactor.rewrite.assistant.generate', target: declarationTarget(declaration), parameters: { mode: 'body' } }];
    }
  }
  const todo = todoCommentAt(document.text, start);
  if (!todo) return [];
  const target: TaskTarget = { name: shortMessage(todo.note, 50), start: todo.start, end: todo.end };
  return [{ task: 'generate', title: `Assistant: Write the code for "${shortMessage(todo.note, 50)}"`, kind: 'refactor.rewrite.assistant.generate', target, parameters: { mode: 'todo', todo: todo.note } }];
}

export const generateTask: TaskDefinition = {
  id: 'generate',

  offersAt: ({ document, start, end }) => generateOffers(document, start, end),

  /** Free text: the offer at the place when there is one; else the selection is replaced, or code goes at the cursor. */
  askTarget(document, start, end) {
    const offer = generateOffers(document, start, end)[0];
    if (offer) return { target: offer.target, ...(offer.parameters ? { parameters: offer.parameters } : {}) };
    const text = document.text;
    if (start !== end) return { target: { name: 'the selection', start, end }, parameters: { mode: 'replace' } };
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const newline = text.indexOf('\n', start);
    const lineEnd = newline < 0 ? text.length : text[newline - 1] === '\r' ? newline - 1 : newline;
    const line = text.slice(lineStart, lineEnd);
    if (line.trim() === '') {
      const at = lineStart + (/^[ \t]*/.exec(line)?.[0].length ?? 0);
      return { target: { name: 'the cursor', start: at, end: at }, parameters: { mode: 'insert' } };
    }
    return { target: { name: 'the cursor', start: lineEnd, end: lineEnd }, parameters: { mode: 'insert-after' } };
  },

  convertAnswer(answer, run, annotation): TaskAnswer {
    const mode = run.parameters.mode as GenerateMode | undefined;
    const declared = run.target.declaration;
    if (mode === 'body' && declared) return replaceTargetWithCode(answer.text, run, annotation, { declares: declared.simpleName });
    return replaceTargetWithCode(answer.text, run, annotation, { onNewLine: mode === 'insert-after' });
  },

  check: (proposal, run, context, signal) => checkRewrite(proposal, run, context, signal),
};
