// Finds the declaration a Document request targets in a parsed file, checking it is still the same one.
import { ts } from 'ts-morph';
import type { DeclarationKind, DeclarationTarget } from '../../repo/declarations.js';

export type FunctionLike =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression;

export type LocatedDeclaration =
  | { kind: 'class'; node: ts.ClassDeclaration | ts.ClassExpression }
  | { kind: 'interface'; node: ts.InterfaceDeclaration }
  | { kind: Exclude<DeclarationKind, 'class' | 'interface'>; node: ts.Node; fn: FunctionLike };

/** The overload signatures (bodiless declarations) of the same function next to it, in order. */
export function overloadsOf(fn: FunctionLike): ts.SignatureDeclaration[] {
  if (!(ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) || !fn.name || !fn.body) return [];
  const name = fn.name.getText();
  const siblings: readonly ts.Node[] = ts.isFunctionDeclaration(fn) ? (ts.isSourceFile(fn.parent) || ts.isModuleBlock(fn.parent) || ts.isBlock(fn.parent) ? fn.parent.statements : []) : ts.isClassLike(fn.parent) ? fn.parent.members : [];
  return siblings.filter((node): node is ts.FunctionDeclaration | ts.MethodDeclaration => (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node !== fn && !node.body && node.name?.getText() === name);
}

export function locateDeclaration(root: ts.SourceFile, target: DeclarationTarget): LocatedDeclaration | undefined {
  const chain = nodesAt(root, target.nameStart);
  for (let index = chain.length - 1; index >= 0; index--) {
    const node = chain[index];
    if (!node) continue;
    const located = asDeclaration(node, target.kind);
    if (located) return isTheTarget(located, root, target) ? located : undefined;
  }
  return undefined;
}

/** Offsets computed on another version of the text can land on a different declaration of the same kind. */
function isTheTarget(located: LocatedDeclaration, root: ts.SourceFile, target: DeclarationTarget): boolean {
  const anchor = ts.isVariableDeclaration(located.node) && ts.isVariableDeclarationList(located.node.parent) ? located.node.parent.parent : located.node;
  if (anchor.getStart(root) === target.start) return true;
  const name = (located.node as ts.NamedDeclaration).name;
  return located.kind === 'constructor' ? target.simpleName === 'constructor' : name !== undefined && name.getText(root) === target.simpleName;
}

/** The nodes containing `position`, outermost first. */
export function nodesAt(root: ts.SourceFile, position: number): ts.Node[] {
  const chain: ts.Node[] = [];
  let current: ts.Node | undefined = root;
  while (current) {
    chain.push(current);
    let next: ts.Node | undefined;
    ts.forEachChild(current, (child) => {
      if (child.getStart(root) <= position && position < child.getEnd()) {
        next = child;
        return true;
      }
      return undefined;
    });
    current = next;
  }
  return chain;
}

function asDeclaration(node: ts.Node, kind: DeclarationKind): LocatedDeclaration | undefined {
  switch (kind) {
    case 'function':
      return ts.isFunctionDeclaration(node) ? { kind, node, fn: node } : undefined;
    case 'constructor':
      return ts.isConstructorDeclaration(node) ? { kind, node, fn: node } : undefined;
    case 'getter':
      return ts.isGetAccessorDeclaration(node) ? { kind, node, fn: node } : undefined;
    case 'setter':
      return ts.isSetAccessorDeclaration(node) ? { kind, node, fn: node } : undefined;
    case 'method':
      if (ts.isMethodDeclaration(node)) return { kind, node, fn: node };
      if (ts.isPropertyDeclaration(node) && node.initializer && isFunctionExpression(node.initializer)) return { kind, node, fn: node.initializer };
      return undefined;
    case 'arrow-function':
      if (ts.isVariableDeclaration(node) && node.initializer && isFunctionExpression(node.initializer)) return { kind, node, fn: node.initializer };
      return undefined;
    case 'class':
      return ts.isClassDeclaration(node) || ts.isClassExpression(node) ? { kind, node } : undefined;
    case 'interface':
      return ts.isInterfaceDeclaration(node) ? { kind, node } : undefined;
  }
}

export function isFunctionExpression(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}
