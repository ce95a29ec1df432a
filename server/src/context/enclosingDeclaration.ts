// The declaration around a request's target, by syntax alone, as a piece of its context (a class as an outline when long).
import { ts } from 'ts-morph';
import { isSupportedLanguage, syntaxFileName } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { KIND_LABEL, declarationsContaining, withSyntaxTree } from '../repo/declarations.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import type { ContextFiles } from './contextFiles.js';
import { MAX_LINES } from './contextLimits.js';
import { capped, dedent, withCuts } from './contextPieces.js';
import type { Piece } from './contextPieces.js';
import type { RequestContextInput } from './contextShapes.js';

interface Enclosing {
  declaration: DeclarationTarget;
  /** From its doc comment, if any, to its end. */
  start: number;
  end: number;
}

/** The innermost declaration strictly around the target; none when the target is a top-level declaration itself. */
export function enclosingOf(document: DocumentSnapshot, target: RequestContextInput['target']): Enclosing | undefined {
  if (!isSupportedLanguage(document.languageId)) return undefined;
  let best: DeclarationTarget | undefined;
  // Only the nodes around the target are walked when the file's list is not known (a text the user just typed).
  for (const declaration of declarationsContaining(syntaxFileName(document), document.text, target.start, target.end)) {
    const contains = declaration.start <= target.start && target.end <= declaration.end;
    const same = declaration.start >= target.start || (target.start <= declaration.nameStart && (declaration.name === target.name || declaration.simpleName === target.name));
    if (!contains || same) continue;
    if (!best || declaration.start > best.start || (declaration.start === best.start && declaration.end < best.end)) best = declaration;
  }
  return best ? { declaration: best, start: best.existingDoc?.start ?? best.start, end: best.end } : undefined;
}

export function enclosingPiece(document: DocumentSnapshot, target: RequestContextInput['target'], enclosing: Enclosing, files: ContextFiles): Piece {
  const text = document.text;
  const lines = files.linesOf(text, files.nameOf(document));
  const startLine = lines.lineOf(enclosing.start);
  const endLine = lines.lineOf(enclosing.end);
  const fileName = files.nameOf(document);
  const code = true;
  const cuts: { start: number; end: number; replacement: string }[] = [];
  // The target is in the prompt already: a long one is named here rather than repeated, a short one stays in place.
  const targetFirst = lines.lineOf(target.start);
  const targetLast = lines.lineOf(Math.max(target.start, target.end - 1));
  const marker = `/* … ${target.name}: the code this request is about … */`;
  const elided = targetLast - targetFirst >= 2 && targetFirst > startLine;
  if (elided) {
    const indent = /^[ \t]*/.exec(text.slice(lines.start(targetFirst), lines.end(targetFirst)))?.[0] ?? '';
    cuts.push({ start: lines.start(targetFirst), end: lines.end(targetLast), replacement: `${indent}${marker}` });
  }
  const regionStart = lines.start(startLine);
  const regionEnd = lines.end(endLine);
  const full = dedent(withCuts(text, regionStart, regionEnd, cuts));
  const kind = KIND_LABEL[enclosing.declaration.kind];
  // A cut of a long declaration keeps the lines around the target, where the request is.
  const keep = elided ? { from: targetFirst - startLine, to: targetFirst - startLine } : { from: targetFirst - startLine, to: targetLast - startLine };
  const piece: Piece = { fsPath: fileName, startLine, endLine, text: full, code, describe: `the enclosing ${kind} ${enclosing.declaration.name}`, keep };
  const bodies = classBodiesAt(fileName, text, enclosing.declaration.start);
  if (bodies) {
    const folded = [...cuts, ...bodies.filter((f) => !cuts.some((c) => f.start < c.end && c.start < f.end))];
    const outline = dedent(withCuts(text, regionStart, regionEnd, folded));
    if (outline.length < full.length) {
      piece.outline = outline;
      const markerLine = elided ? outline.split('\n').findIndex((line) => line.includes(marker)) : -1;
      if (markerLine >= 0) piece.outlineKeep = { from: markerLine, to: markerLine };
    }
  }
  return capped(piece, MAX_LINES.enclosing);
}

function classNodeAt(source: ts.SourceFile, start: number): ts.ClassLikeDeclaration | undefined {
  let found: ts.ClassLikeDeclaration | undefined;
  const visit = (node: ts.Node): void => {
    if (found || node.getEnd() < start || node.getStart(source) > start) return;
    if (ts.isClassLike(node) && node.getStart(source) === start) found = node;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** The bodies a class's outline folds, for the class that starts at `start`; none when no class starts there. */
export function classBodiesAt(fileName: string, text: string, start: number): { start: number; end: number; replacement: string }[] | undefined {
  // Lent, not handed out: offsets outlive the call, nodes do not (see `lexicalSymbols`).
  return withSyntaxTree(fileName, text, (source) => {
    const node = classNodeAt(source, start);
    return node ? foldedBodies(node, source) : undefined;
  });
}

/** The bodies of a class's members that span lines, folded to `{ … }`: what a reader of an outline skips. */
export function foldedBodies(node: ts.ClassLikeDeclaration | ts.InterfaceDeclaration, source: ts.SourceFile): { start: number; end: number; replacement: string }[] {
  const cuts: { start: number; end: number; replacement: string }[] = [];
  for (const member of node.members as ts.NodeArray<ts.Node>) {
    let body: ts.Node | undefined;
    if (ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member) || ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) body = member.body;
    else if (ts.isPropertyDeclaration(member) && member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer))) body = member.initializer.body;
    if (!body || !ts.isBlock(body)) continue;
    const start = body.getStart(source);
    if (source.text.slice(start, body.getEnd()).includes('\n')) cuts.push({ start, end: body.getEnd(), replacement: '{ … }' });
  }
  return cuts;
}
