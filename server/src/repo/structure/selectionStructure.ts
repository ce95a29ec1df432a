// The structure of a selection: its statements, what it calls, branches on and throws, and the names it declares, reads and writes.
import { ts } from 'ts-morph';
import type { DocumentSnapshot } from '../../workspace/documentSnapshot.js';
import { declarationAt } from '../declarations.js';
import { callsOf, externalSource } from './callSummary.js';
import type { CodeStructure, StructureTarget } from './codeStructure.js';
import { branchesOf, throwsOf } from './controlFlow.js';
import { awaitsOf } from './declarationStructure.js';
import { MAX_SITES, type Analysis } from './structureAnalysis.js';
import { lineOf, NO_VALUE, quote } from './structureText.js';

/** Most names listed as read or written, so a huge selection stays cheap to describe. */
const MAX_NAMES = 60;

export function describeSelection(a: Analysis, target: StructureTarget, document: DocumentSnapshot): CodeStructure {
  const { start, end } = trimRange(a.source.text, target.start, target.end);
  const roots = selectedNodes(a.source, start, end);
  const enclosing = declarationAt(a.fileName, document.text, start, end);
  const structure: CodeStructure = {
    subject: 'selection',
    name: target.name,
    kind: 'selection',
    file: a.displayName,
    line: lineOf(a.source, start),
    endLine: lineOf(a.source, Math.max(start, end - 1)),
    modifiers: [],
    typed: a.checker !== undefined,
    ...callsOf(a, roots),
    branches: branchesOf(a.source, roots),
    throws: throwsOf(a, roots),
    awaits: roots.reduce((n, root) => n + (ts.isAwaitExpression(root) ? 1 : 0) + awaitsOf(root), 0),
    statements: roots.map((node) => ({ line: lineOf(a.source, node.getStart(a.source)), text: quote(node, a.source) })),
    ...namesOf(a, roots, start, end),
  };
  if (enclosing && !(enclosing.start >= start && enclosing.end <= end)) structure.enclosing = enclosing.name;
  const only = roots.length === 1 ? roots[0] : undefined;
  if (only && a.checker && isExpressionNode(only)) structure.expressionType = a.checker.typeToString(a.checker.getTypeAtLocation(only), only, ts.TypeFormatFlags.NoTruncation);
  const returns: { line: number; text: string }[] = [];
  for (const root of roots) {
    const visit = (node: ts.Node): void => {
      if (ts.isReturnStatement(node) && returns.length < MAX_SITES) returns.push({ line: lineOf(a.source, node.getStart(a.source)), text: node.expression ? quote(node.expression, a.source) : NO_VALUE });
      if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    visit(root);
  }
  if (returns.length > 0) structure.returns = { points: returns };
  return structure;
}

function trimRange(text: string, start: number, end: number): { start: number; end: number } {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s] ?? '')) s++;
  while (e > s && /\s/.test(text[e - 1] ?? '')) e--;
  return { start: s, end: e };
}

/** The outermost nodes inside the range; when the range is inside one token or node, that node. */
function selectedNodes(source: ts.SourceFile, start: number, end: number): ts.Node[] {
  const out: ts.Node[] = [];
  let innermost: ts.Node = source;
  const visit = (node: ts.Node): void => {
    const nodeStart = node.getStart(source);
    const nodeEnd = node.getEnd();
    if (nodeEnd <= start || nodeStart >= end) return;
    if (nodeStart >= start && nodeEnd <= end) {
      out.push(node);
      return;
    }
    if (nodeStart <= start && end <= nodeEnd) innermost = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return out.length > 0 ? out : innermost === source ? [] : [innermost];
}

function isExpressionNode(node: ts.Node): boolean {
  return ts.isExpression(node) && !ts.isFunctionLike(node);
}

/**
 * The names the selection declares, the outside values it reads, and the outside values it writes (`this.x`
 * included). With the checker, a name is local when every declaration of its symbol is inside the selection;
 * without it, when a declaration of that name is.
 */
function namesOf(a: Analysis, roots: readonly ts.Node[], start: number, end: number): { declares: string[]; reads: string[]; writes: string[] } {
  const declares = new Set<string>();
  const reads = new Set<string>();
  const writes = new Set<string>();
  const inside = (node: ts.Node): boolean => node.getSourceFile() === a.source && node.getStart(a.source) >= start && node.getEnd() <= end;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || node.kind === ts.SyntaxKind.ThisKeyword) classify(node);
    ts.forEachChild(node, visit);
  };
  const classify = (node: ts.Node): void => {
    const parent = node.parent;
    if (!parent) return;
    // `this.x` is one name; `this` alone is not interesting.
    if (node.kind === ts.SyntaxKind.ThisKeyword) {
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) add(`this.${parent.name.text}`, parent, true);
      return;
    }
    const identifier = node as ts.Identifier;
    if (isDeclarationName(identifier)) {
      if ((ts.isVariableDeclaration(parent) || ts.isBindingElement(parent) || ts.isFunctionDeclaration(parent) || ts.isClassDeclaration(parent)) && !isParameterName(parent)) declares.add(identifier.text);
      return;
    }
    if (ts.isPropertyAccessExpression(parent) && parent.name === identifier) return;
    if (ts.isPropertyAssignment(parent) && parent.name === identifier) return;
    if (ts.isQualifiedName(parent) || ts.isTypeReferenceNode(parent) || ts.isExpressionWithTypeArguments(parent) || ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return;
    if (isTypePosition(identifier)) return;
    add(identifier.text, identifier, false);
  };
  const add = (name: string, node: ts.Node, isThis: boolean): void => {
    if (!isThis && isLocal(node as ts.Identifier)) return;
    if (isWritten(node)) {
      if (writes.size < MAX_NAMES) writes.add(name);
      // `x += 1` and `x++` also read x.
      if (!isPlainAssignmentTarget(node) && reads.size < MAX_NAMES) reads.add(name);
    } else if (reads.size < MAX_NAMES) reads.add(name);
  };
  const isLocal = (identifier: ts.Identifier): boolean => {
    if (!a.checker) return declaredNames.has(identifier.text) || isGlobalName(identifier.text);
    let symbol = ts.isShorthandPropertyAssignment(identifier.parent) ? a.checker.getShorthandAssignmentValueSymbol(identifier.parent) : a.checker.getSymbolAtLocation(identifier);
    if (!symbol) return true;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = a.checker.getAliasedSymbol(symbol);
    const declarations = symbol.declarations ?? [];
    if (declarations.length === 0) return true;
    // Globals and library values (JSON, console, Math) are not the selection's data.
    if (declarations.every((d) => externalSource(a, d.getSourceFile()) !== undefined)) return true;
    return declarations.every((d) => inside(d));
  };
  const declaredNames = new Set<string>();
  if (!a.checker) {
    const collect = (node: ts.Node): void => {
      if ((ts.isVariableDeclaration(node) || ts.isBindingElement(node) || ts.isFunctionDeclaration(node) || ts.isParameter(node)) && node.name && ts.isIdentifier(node.name)) declaredNames.add(node.name.text);
      ts.forEachChild(node, collect);
    };
    roots.forEach(collect);
  }
  roots.forEach(visit);
  return { declares: [...declares], reads: [...reads].filter((n) => !declares.has(n)), writes: [...writes] };
}

const GLOBAL_NAMES = new Set(['undefined', 'NaN', 'Infinity', 'globalThis', 'console', 'JSON', 'Math', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Promise', 'Date', 'Error', 'Map', 'Set', 'Symbol', 'RegExp', 'process', 'require', 'module', 'exports']);

function isGlobalName(name: string): boolean {
  return GLOBAL_NAMES.has(name);
}

function isDeclarationName(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  return (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isFunctionDeclaration(parent) || ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent) || ts.isTypeAliasDeclaration(parent) || ts.isEnumDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isFunctionExpression(parent) || ts.isClassExpression(parent) || ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent) || ts.isTypeParameterDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || (ts.isBindingElement(parent) && parent.propertyName !== identifier)) && (parent as ts.NamedDeclaration).name === identifier;
}

/** Whether a declared name is a parameter's, destructured ones included. */
function isParameterName(declaration: ts.Node): boolean {
  let node: ts.Node | undefined = declaration;
  while (node && (ts.isBindingElement(node) || ts.isObjectBindingPattern(node) || ts.isArrayBindingPattern(node))) node = node.parent;
  return node !== undefined && ts.isParameter(node);
}

function isTypePosition(node: ts.Node): boolean {
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    if (ts.isTypeNode(current)) return true;
    if (ts.isExpression(current) || ts.isStatement(current)) return false;
  }
  return false;
}

/** The operand an assignment or `++`/`--` changes: the name itself, or `this.x` for the `this` keyword. */
function assignedOperand(node: ts.Node): ts.Node {
  return node.kind === ts.SyntaxKind.ThisKeyword && node.parent && ts.isPropertyAccessExpression(node.parent) ? node.parent : node;
}

function isWritten(node: ts.Node): boolean {
  const operand = assignedOperand(node);
  const parent = operand.parent;
  if (!parent) return false;
  if (ts.isBinaryExpression(parent) && parent.left === operand && isAssignmentOperator(parent.operatorToken.kind)) return true;
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) && (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  // `[a, b] = …` and `({ a } = …)`.
  for (let current: ts.Node = operand; current.parent; current = current.parent) {
    const up = current.parent;
    if (ts.isArrayLiteralExpression(up) || ts.isShorthandPropertyAssignment(up) || ts.isPropertyAssignment(up) || ts.isObjectLiteralExpression(up) || ts.isSpreadElement(up)) continue;
    return ts.isBinaryExpression(up) && up.left === current && up.operatorToken.kind === ts.SyntaxKind.EqualsToken && current !== operand;
  }
  return false;
}

function isPlainAssignmentTarget(node: ts.Node): boolean {
  const operand = assignedOperand(node);
  const parent = operand.parent;
  return parent !== undefined && ts.isBinaryExpression(parent) && parent.left === operand && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

function isAssignmentOperator(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}
