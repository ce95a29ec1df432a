// Where a declaration's doc comment goes and which one it already has: above its first overload and its own `//` lines.
import { ts } from 'ts-morph';
import { isAnnotationComment } from '../edits/annotation.js';

/** A declaration that can have overload signatures. */
export type Overloadable = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ConstructorDeclaration;

/** A doc comment in the text: offsets of `/**` and just past `*\/`. */
export interface DocCommentRange {
  start: number;
  end: number;
  text: string;
}

/** Where the doc comment of a declaration goes, and the one it has. */
export interface DocPlacement {
  /** The start of the line a new doc comment goes on: its first overload's, or its first `//` line's directly above. */
  lineStart: number;
  existingDoc?: DocCommentRange;
}

/**
 * The overload signatures of an implementation: the declarations of the same name without a body right before it,
 * in source order. TypeScript requires them to be adjacent, so the walk stops at the first other member.
 */
export function overloadSignatures(node: ts.Node, source: ts.SourceFile): Overloadable[] {
  if (!isOverloadable(node) || !node.body) return [];
  const parent = node.parent;
  const siblings: readonly ts.Node[] | undefined = ts.isClassLike(parent) ? parent.members : ts.isSourceFile(parent) || ts.isModuleBlock(parent) ? parent.statements : undefined;
  if (!siblings) return [];
  const name = nameOf(node, source);
  const out: Overloadable[] = [];
  for (let index = siblings.indexOf(node) - 1; index >= 0; index--) {
    const sibling = siblings[index] as ts.Node;
    if (sibling.kind !== node.kind || !isOverloadable(sibling) || sibling.body || nameOf(sibling, source) !== name) break;
    out.unshift(sibling);
  }
  return out;
}

/**
 * The overload signatures a doc comment on the first one speaks for, none for a declaration without overloads.
 * TypeScript shows the first overload's comment for every overload without one of its own (and never the
 * implementation's): that is where the comment goes, and whom it describes.
 */
export function documentedOverloads(node: ts.Node, source: ts.SourceFile): Overloadable[] {
  return overloadSignatures(node, source).filter((signature, index) => index === 0 || jsDocAbove(signature, source) === undefined);
}

/**
 * Where the doc comment of the declaration whose statement is `anchor` goes, and the doc comment it has. With
 * overloads, that is above the first signature (its own comment, else the implementation's, is the existing one).
 * `//` lines directly above stay directly above the code: lint and compiler directives govern the line after them,
 * and a note belongs to the code it was written over.
 */
export function docPlacement(node: ts.Node, anchor: ts.Node, source: ts.SourceFile): DocPlacement {
  const first = overloadSignatures(node, source)[0];
  const top = first ?? anchor;
  const existingDoc = jsDocAbove(top, source) ?? (first ? jsDocAbove(anchor, source) : undefined);
  const comments = attachedLineComments(top, source);
  const at = comments[0]?.pos ?? top.getStart(source);
  const placement: DocPlacement = { lineStart: source.text.lastIndexOf('\n', at - 1) + 1 };
  if (existingDoc) placement.existingDoc = existingDoc;
  return placement;
}

/** The `//` lines a new doc comment goes above (see `docPlacement`), as written. */
export function notesAbove(node: ts.Node, anchor: ts.Node, source: ts.SourceFile): string[] {
  const top = overloadSignatures(node, source)[0] ?? anchor;
  // The assistant's own annotation lines say who wrote the code, not what it does.
  return attachedLineComments(top, source)
    .map((range) => source.text.slice(range.pos, range.end))
    .filter((line) => !isAnnotationComment(line));
}

/**
 * The `//` comments that belong to the code below them: the run of line comments right above it, each on a line of
 * its own, with no blank line in between. A banner (`//////// SECTION ////////`, `// ----`), a region marker, a
 * triple-slash directive or a licence line ends the run: those head the file or a section, not this declaration.
 */
export function attachedLineComments(node: ts.Node, source: ts.SourceFile): ts.CommentRange[] {
  const text = source.text;
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const attached: ts.CommentRange[] = [];
  let next = node.getStart(source);
  let underBanner = false;
  for (let index = ranges.length - 1; index >= 0; index--) {
    const range = ranges[index] as ts.CommentRange;
    if (range.kind !== ts.SyntaxKind.SingleLineCommentTrivia) break;
    const between = text.slice(range.end, next);
    if (between.trim() !== '' || (between.match(/\n/g)?.length ?? 0) > 1) break;
    const lineStart = text.lastIndexOf('\n', range.pos - 1) + 1;
    if (text.slice(lineStart, range.pos).trim() !== '') break;
    if (headsSection(text.slice(range.pos, range.end))) {
      underBanner = true;
      break;
    }
    attached.unshift(range);
    next = range.pos;
  }
  // A title right under a banner (`// ----` then `// Parsing`) is the section's heading too.
  while (underBanner && attached[0] && isLabel(text.slice(attached[0].pos + 2, attached[0].end))) attached.shift();
  // A run that opens the file (after a `#!` line at most) says what the file is, not what its first declaration is.
  if (attached[0] && text.slice(0, attached[0].pos).replace(/^#![^\n]*/, '').trim() === '') return [];
  return attached;
}

/** A few words naming something, not saying anything about it. */
function isLabel(comment: string): boolean {
  return comment.trim().split(/\s+/).length <= 2;
}

/** A `//` line that heads a file or a section rather than the declaration below it. */
function headsSection(comment: string): boolean {
  if (comment.startsWith('///')) return true;
  const body = comment.slice(2).trim();
  if (!/[\p{L}\p{N}]/u.test(body)) return true;
  return /([-=*#~_+/])\1{3,}/.test(body) || /^#?(?:end)?region\b/i.test(body) || /\b(?:copyright|licen[cs]ed?|spdx-license-identifier)\b/i.test(body);
}

/**
 * The doc comment TypeScript takes for a declaration: the last `/**` block before it, with only whitespace and `//`
 * lines after it.
 */
export function jsDocAbove(node: ts.Node, source: ts.SourceFile): DocCommentRange | undefined {
  const text = source.text;
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  for (let index = ranges.length - 1; index >= 0; index--) {
    const range = ranges[index] as ts.CommentRange;
    if (range.kind === ts.SyntaxKind.SingleLineCommentTrivia) continue;
    const comment = text.slice(range.pos, range.end);
    if (!comment.startsWith('/**') || comment.startsWith('/**/')) return undefined;
    return { start: range.pos, end: range.end, text: comment };
  }
  return undefined;
}

function isOverloadable(node: ts.Node): node is Overloadable {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node);
}

function nameOf(node: Overloadable, source: ts.SourceFile): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const isStatic = ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
  const name = node.name?.getText(source);
  return name === undefined ? undefined : `${isStatic ? 'static ' : ''}${name}`;
}
