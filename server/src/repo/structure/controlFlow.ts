// The decision points of code with the complexity they make, and what it throws and when.
import { ts } from 'ts-morph';
import { skipOuterExpressions } from './callSummary.js';
import type { BranchLabel, BranchSummary, ThrowSummary } from './codeStructure.js';
import { MAX_SITES, type Analysis } from './structureAnalysis.js';
import { clip, code, lineOf, MAX_QUOTE, oneLine, quote } from './structureText.js';

const LOGICAL: ReadonlyMap<ts.SyntaxKind, BranchLabel> = new Map([
  [ts.SyntaxKind.AmpersandAmpersandToken, '&&'],
  [ts.SyntaxKind.BarBarToken, '||'],
  [ts.SyntaxKind.QuestionQuestionToken, '??'],
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken, '&&='],
  [ts.SyntaxKind.BarBarEqualsToken, '||='],
  [ts.SyntaxKind.QuestionQuestionEqualsToken, '??='],
]);

/**
 * Every decision point inside the nodes, callbacks included (they run as part of the code being read):
 * `if`, `case`, `?:`, loops, `catch`, and the short-circuit operators. Complexity is one more than their number.
 */
export function branchesOf(source: ts.SourceFile, roots: readonly ts.Node[]): BranchSummary {
  const summary: BranchSummary = { counts: {}, sites: [], complexity: 1 };
  const add = (label: BranchLabel, node?: ts.Node, text?: string): void => {
    summary.counts[label] = (summary.counts[label] ?? 0) + 1;
    summary.complexity++;
    if (node && text !== undefined && summary.sites.length < MAX_SITES) summary.sites.push({ label, line: lineOf(source, node.getStart(source)), text: clip(text, MAX_QUOTE) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isIfStatement(node)) add('if', node, `if (${oneLine(node.expression.getText(source))})`);
    else if (ts.isConditionalExpression(node)) add('?:', node, `${oneLine(node.condition.getText(source))} ? …`);
    else if (ts.isCaseClause(node)) add('case', node, `case ${oneLine(node.expression.getText(source))}:`);
    else if (ts.isCatchClause(node)) add('catch', node, node.variableDeclaration ? `catch (${node.variableDeclaration.getText(source)})` : 'catch');
    else if (ts.isIterationStatement(node, false)) add('loop', node, loopHeader(node, source));
    else if (ts.isBinaryExpression(node)) {
      const label = LOGICAL.get(node.operatorToken.kind);
      if (label) add(label);
    }
    ts.forEachChild(node, visit);
  };
  roots.forEach(visit);
  return summary;
}

function loopHeader(node: ts.IterationStatement, source: ts.SourceFile): string {
  if (ts.isDoStatement(node)) return `do … while (${oneLine(node.expression.getText(source))})`;
  return oneLine(source.text.slice(node.getStart(source), node.statement.getStart(source)).replace(/\{?\s*$/, ''));
}

export function throwsOf(a: Analysis, roots: readonly ts.Node[]): ThrowSummary[] {
  const throws: ThrowSummary[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isThrowStatement(node) && throws.length < MAX_SITES) throws.push(describeThrow(a, node, roots));
    ts.forEachChild(node, visit);
  };
  roots.forEach(visit);
  return throws;
}

function describeThrow(a: Analysis, statement: ts.ThrowStatement, roots: readonly ts.Node[]): ThrowSummary {
  const thrown = skipOuterExpressions(statement.expression);
  const entry: ThrowSummary = { line: lineOf(a.source, statement.getStart(a.source)) };
  if (ts.isNewExpression(thrown) || (ts.isCallExpression(thrown) && ts.isIdentifier(thrown.expression) && /^[A-Z]/.test(thrown.expression.text))) entry.type = oneLine(thrown.expression.getText(a.source), 40);
  else if (ts.isIdentifier(thrown) && isCatchVariable(thrown)) entry.type = 'the caught error';
  else if (a.checker) entry.type = a.checker.typeToString(a.checker.getTypeAtLocation(thrown));
  let child: ts.Node = statement;
  for (let parent: ts.Node | undefined = statement.parent; parent && !roots.includes(child); child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent)) {
      entry.when = `${child === parent.thenStatement ? 'when' : 'unless'} ${code(quote(parent.expression, a.source))}`;
      break;
    }
    if (ts.isCaseClause(parent)) {
      entry.when = `when ${code(quote(parent.parent.parent.expression, a.source))} is ${code(quote(parent.expression, a.source))}`;
      break;
    }
    if (ts.isCatchClause(parent)) {
      entry.when = 'in the `catch` block';
      break;
    }
    if (ts.isFunctionLike(parent)) break;
  }
  return entry;
}

/** Whether the identifier is the variable of the `catch` clause it is in (a rethrow). */
export function isCatchVariable(identifier: ts.Identifier): boolean {
  for (let node: ts.Node | undefined = identifier.parent; node; node = node.parent) {
    if (ts.isCatchClause(node)) return node.variableDeclaration !== undefined && ts.isIdentifier(node.variableDeclaration.name) && node.variableDeclaration.name.text === identifier.text;
    if (ts.isFunctionLike(node)) return false;
  }
  return false;
}
