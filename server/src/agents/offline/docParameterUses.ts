// What a function's body does with each of its parameters (passes it on, reads its members, stores, returns, awaits, compares it), in sentences for its `@param` line.
import { ts } from 'ts-morph';
import { skipOuterExpressions } from '../../repo/structure/callSummary.js';
import type { FunctionLike } from './declarationLocator.js';
import { isStandardLibrary } from './docEvidence.js';
import { joinList } from './docSummaries.js';
import { backticked, capitalize } from './identifierProse.js';

/** Longest code quoted in a `@param` line. */
const MAX_CODE = 48;
/** Sentences per parameter: the rest of what the body does with it is an explanation of the body, not of the parameter. */
const MAX_SENTENCES = 2;
/** Conditions joined in one `when`/`unless`. */
const MAX_CONDITIONS = 2;
/** Members listed per sentence before `and N more`. */
const MAX_MEMBERS = 4;

type UseKind = 'returned' | 'stored' | 'passed' | 'constructed' | 'called' | 'instantiated' | 'method' | 'written' | 'read' | 'awaited' | 'iterated' | 'keys' | 'spread' | 'fallback' | 'compared' | 'typeof' | 'instanceof';

const TELLING_KINDS: ReadonlySet<UseKind> = new Set(['passed', 'constructed', 'stored', 'method', 'written', 'fallback', 'instantiated']);

/** The order sentences come in: what leaves the function first, then what it does to the value, then the tests. */
const KIND_ORDER: readonly UseKind[] = ['returned', 'stored', 'passed', 'constructed', 'called', 'instantiated', 'method', 'written', 'read', 'awaited', 'iterated', 'keys', 'spread', 'fallback', 'compared', 'typeof', 'instanceof'];

/**
 * When a use happens: on every path through the body, under one condition the caller can read (`when`/`unless`),
 * inside a callback given to a named call, inside the function the body returns, or on some paths only.
 */
type When =
  | { kind: 'always' }
  | { kind: 'when' | 'unless'; codes: string[] }
  | { kind: 'callback'; callee: string }
  | { kind: 'returned-function' }
  | { kind: 'sometimes' };

/** One step of the path to a use: a condition that must hold, a nested function, or something unknown. */
type Guard = { kind: 'when' | 'unless'; code: string | undefined } | { kind: 'callback'; callee: string | undefined } | { kind: 'returned-function' } | { kind: 'sometimes' };

interface Use {
  kind: UseKind;
  /** The callee, member, field, compared code… quoted in the sentence. */
  detail: string;
  /** For a value passed inside an object literal: the property it is passed as. */
  key?: string;
  /** For `spread`: into an object or an array. */
  into?: 'object' | 'array';
  /** For `fallback`: when the fallback applies. */
  on?: 'nullish' | 'falsy';
  when: When;
}

/** A `@param` text, and those of its sentences that tell where the value goes or what is done to it. */
export interface ParameterText {
  text: string;
  /**
   * The sentences saying where the value goes (a call, a constructor, a field) or what is done to it (set, called
   * through, replaced): evidence a comment is worth proposing. Reading its members, testing or returning it, on their
   * own, say little the parameter's type does not.
   */
  telling: string;
}

/** A parameter (or a property a parameter destructures) as its tag names it, and the variable that holds it in the body. */
export interface ParameterBinding {
  tagName: string;
  /** The identifier the body uses. */
  variable: string;
}

/**
 * For each parameter binding, a `@param` text saying what the body does with it, or nothing when the body does
 * nothing nameable with it (it only forwards it to code local to the body, or only indexes it). `locals` are the
 * names declared in the body: a sentence never names one, since the caller cannot see it.
 */
export function parameterUses(fn: FunctionLike, root: ts.SourceFile, bindings: readonly ParameterBinding[], locals: ReadonlySet<string>): Map<string, ParameterText> {
  const texts = new Map<string, ParameterText>();
  if (!fn.body) return texts;
  const variables = new Set(bindings.map((binding) => binding.variable));
  // A parameter redeclared in the body (`let x = …`, a nested function's own `x`) is another variable there: say nothing of it.
  const redeclared = declaredNames(fn.body);
  const uses = new Map<string, Use[]>();
  const reassigned = new Set<string>();

  const record = (variable: string, use: Omit<Use, 'when'>, guards: readonly Guard[]): void => {
    const list = uses.get(variable) ?? [];
    list.push({ ...use, when: whenOf(guards) });
    uses.set(variable, list);
  };

  const useOf = (identifier: ts.Identifier, guards: readonly Guard[]): void => {
    const variable = identifier.text;
    let node: ts.Expression = identifier;
    while (isTransparent(node.parent) && (node.parent as ts.Expression & { expression: ts.Expression }).expression === node) node = node.parent as ts.Expression;
    const parent = node.parent;
    if (ts.isPropertyAccessExpression(parent) && parent.expression === node) {
      const member = parent.name.text;
      const inChain = guards.concat(parent.questionDotToken ? [{ kind: 'sometimes' }] : []);
      let outer: ts.Node = parent;
      while (isTransparent(outer.parent) && (outer.parent as ts.Expression & { expression: ts.Expression }).expression === outer) outer = outer.parent;
      const grand = outer.parent;
      if (ts.isCallExpression(grand) && grand.expression === outer) record(variable, { kind: 'method', detail: member }, inChain);
      else if (isWrite(grand, outer)) record(variable, { kind: 'written', detail: member }, inChain);
      else record(variable, { kind: 'read', detail: member }, inChain);
      return;
    }
    if (ts.isCallExpression(parent) && parent.expression === node) {
      record(variable, { kind: 'called', detail: '' }, guards);
      return;
    }
    if (ts.isNewExpression(parent) && parent.expression === node) {
      record(variable, { kind: 'instantiated', detail: '' }, guards);
      return;
    }
    const argumentOf = (expression: ts.Node): ts.CallExpression | ts.NewExpression | undefined => {
      const holder = ts.isSpreadElement(expression.parent) ? expression.parent : expression;
      const call = holder.parent;
      return (ts.isCallExpression(call) || ts.isNewExpression(call)) && call.arguments?.includes(holder as ts.Expression) ? call : undefined;
    };
    const passedTo = (call: ts.CallExpression | ts.NewExpression, key?: string): void => {
      const callee = calleeName(call.expression, root, hidden);
      // `Array.isArray(x)`, `Object.keys(x)`: a general-purpose helper says how, not what for.
      if (!callee || isStandardLibrary(callee)) return;
      const optional = ts.isCallExpression(call) && (call.flags & ts.NodeFlags.OptionalChain) !== 0;
      const where = optional ? guards.concat([{ kind: 'sometimes' }]) : guards;
      const use: Omit<Use, 'when'> = ts.isNewExpression(call) ? { kind: 'constructed', detail: callee } : { kind: 'passed', detail: callee };
      if (key && key !== variable) use.key = key;
      record(variable, use, where);
    };
    const call = argumentOf(node);
    if (call) {
      passedTo(call);
      return;
    }
    // `f({ schema: x })`, `f({ x })`: passed on as one of the options of a call.
    if ((ts.isPropertyAssignment(parent) && parent.initializer === node) || ts.isShorthandPropertyAssignment(parent)) {
      const literal = parent.parent;
      const key = propertyKey(parent.name);
      const holder = ts.isObjectLiteralExpression(literal) ? argumentOf(literal) : undefined;
      if (holder && key) passedTo(holder, key);
      return;
    }
    if (isReturned(node)) {
      record(variable, { kind: 'returned', detail: '' }, guards);
      return;
    }
    if (ts.isAwaitExpression(parent)) {
      record(variable, { kind: 'awaited', detail: '' }, guards);
      return;
    }
    if (ts.isForOfStatement(parent) && parent.expression === node) {
      record(variable, { kind: 'iterated', detail: '' }, guards);
      return;
    }
    if (ts.isForInStatement(parent) && parent.expression === node) {
      record(variable, { kind: 'keys', detail: '' }, guards);
      return;
    }
    if (ts.isSpreadAssignment(parent)) {
      record(variable, { kind: 'spread', detail: '', into: 'object' }, guards);
      return;
    }
    if (ts.isSpreadElement(parent) && ts.isArrayLiteralExpression(parent.parent)) {
      record(variable, { kind: 'spread', detail: '', into: 'array' }, guards);
      return;
    }
    if (ts.isTypeOfExpression(parent)) {
      const comparison = parent.parent;
      if (ts.isBinaryExpression(comparison) && isEquality(comparison.operatorToken.kind)) {
        const other = comparison.left === parent ? comparison.right : comparison.left;
        if (ts.isStringLiteral(other)) record(variable, { kind: 'typeof', detail: JSON.stringify(other.text) }, guards);
      }
      return;
    }
    if (ts.isVariableDeclaration(parent) && parent.initializer === node && ts.isObjectBindingPattern(parent.name)) {
      for (const element of parent.name.elements) {
        const key = element.propertyName ? propertyKey(element.propertyName) : ts.isIdentifier(element.name) ? element.name.text : undefined;
        if (key && !element.dotDotDotToken) record(variable, { kind: 'read', detail: key }, guards);
      }
      return;
    }
    if (ts.isBinaryExpression(parent)) {
      const operator = parent.operatorToken.kind;
      if (operator === ts.SyntaxKind.EqualsToken && parent.right === node) {
        const target = skipOuterExpressions(parent.left);
        const base = baseOf(target);
        if (ts.isPropertyAccessExpression(target) && (base === 'this' || (base !== undefined && variables.has(base) && base !== variable))) {
          const field = quote(target);
          if (field) record(variable, { kind: 'stored', detail: field }, guards);
        }
        return;
      }
      if (isAssignment(operator) && parent.left === node) {
        // `x = x ?? fallback` and `x ??= fallback` give a fallback; any other assignment makes `x` another value from there on.
        const fallback = fallbackOf(parent, variable);
        if (fallback) {
          const code = quote(fallback.code);
          if (code) record(variable, { kind: 'fallback', detail: code, on: fallback.on }, guards);
        } else reassigned.add(variable);
        return;
      }
      if ((operator === ts.SyntaxKind.QuestionQuestionToken || operator === ts.SyntaxKind.BarBarToken) && parent.left === node) {
        const code = quote(parent.right);
        if (code && !isAssignedBack(parent, variable)) record(variable, { kind: 'fallback', detail: code, on: operator === ts.SyntaxKind.QuestionQuestionToken ? 'nullish' : 'falsy' }, guards);
        return;
      }
      if (operator === ts.SyntaxKind.InstanceOfKeyword && parent.left === node) {
        const type = quote(parent.right);
        if (type) record(variable, { kind: 'instanceof', detail: type }, guards);
        return;
      }
      if (isComparison(operator)) {
        const other = parent.left === node ? parent.right : parent.left;
        const code = quote(other);
        if (code && !isNeutralOperand(other)) record(variable, { kind: 'compared', detail: code }, guards);
        return;
      }
    }
  };

  const visit = (node: ts.Node, guards: readonly Guard[]): void => {
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isIdentifier(node)) {
      if (variables.has(node.text) && !redeclared.has(node.text) && isReference(node)) useOf(node, guards);
      return;
    }
    if (ts.isFunctionLike(node)) {
      visitNested(node, guards);
      return;
    }
    if (ts.isClassLike(node)) return;
    if (ts.isBlock(node) || ts.isModuleBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      visitStatements(ts.isCaseClause(node) ? [node.expression, ...node.statements] : node.statements, guards);
      return;
    }
    if (ts.isIfStatement(node)) {
      visit(node.expression, guards);
      const condition = quote(node.expression);
      visit(node.thenStatement, guards.concat([{ kind: 'when', code: condition }]));
      if (node.elseStatement) visit(node.elseStatement, guards.concat([{ kind: 'unless', code: condition }]));
      return;
    }
    if (ts.isConditionalExpression(node)) {
      visit(node.condition, guards);
      const condition = quote(node.condition);
      visit(node.whenTrue, guards.concat([{ kind: 'when', code: condition }]));
      visit(node.whenFalse, guards.concat([{ kind: 'unless', code: condition }]));
      return;
    }
    if (ts.isBinaryExpression(node)) {
      const operator = node.operatorToken.kind;
      if (operator === ts.SyntaxKind.AmpersandAmpersandToken || operator === ts.SyntaxKind.BarBarToken) {
        visit(node.left, guards);
        visit(node.right, guards.concat([{ kind: operator === ts.SyntaxKind.AmpersandAmpersandToken ? 'when' : 'unless', code: quote(node.left) }]));
        return;
      }
      if (operator === ts.SyntaxKind.QuestionQuestionToken || isShortCircuitAssignment(operator)) {
        visit(node.left, guards);
        visit(node.right, guards.concat([{ kind: 'sometimes' }]));
        return;
      }
    }
    if (ts.isSwitchStatement(node)) {
      visit(node.expression, guards);
      const subject = quote(node.expression);
      for (const clause of node.caseBlock.clauses) {
        const label = ts.isCaseClause(clause) ? quote(clause.expression) : undefined;
        // One `case` reached only by its own label (the one before it ends in `break` or `return`) runs exactly when the subject equals it.
        const alone = ts.isCaseClause(clause) && clause.statements.length > 0 && precededByExit(clause);
        const guard: Guard = alone && subject && label ? { kind: 'when', code: `${subject} === ${label}` } : { kind: 'sometimes' };
        visitStatements(clause.statements, guards.concat([guard]));
      }
      return;
    }
    if (ts.isForStatement(node)) {
      if (node.initializer) visit(node.initializer, guards);
      if (node.condition) visit(node.condition, guards);
      if (node.incrementor) visit(node.incrementor, guards.concat([{ kind: 'sometimes' }]));
      visit(node.statement, guards.concat([{ kind: 'sometimes' }]));
      return;
    }
    if (ts.isForOfStatement(node) || ts.isForInStatement(node)) {
      visit(node.expression, guards);
      visit(node.statement, guards.concat([{ kind: 'sometimes' }]));
      return;
    }
    if (ts.isWhileStatement(node)) {
      visit(node.expression, guards);
      visit(node.statement, guards.concat([{ kind: 'sometimes' }]));
      return;
    }
    if (ts.isDoStatement(node)) {
      visit(node.statement, guards);
      visit(node.expression, guards.concat([{ kind: 'sometimes' }]));
      return;
    }
    if (ts.isTryStatement(node)) {
      visit(node.tryBlock, guards);
      if (node.catchClause) visit(node.catchClause.block, guards.concat([{ kind: 'sometimes' }]));
      if (node.finallyBlock) visit(node.finallyBlock, guards);
      return;
    }
    if (ts.isCallExpression(node) && (node.flags & ts.NodeFlags.OptionalChain) !== 0 && node.questionDotToken) {
      visit(node.expression, guards);
      for (const argument of node.arguments) visit(argument, guards.concat([{ kind: 'sometimes' }]));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, guards));
  };

  /** Statements in order: after one that may leave the function, the rest runs only on some paths. */
  const visitStatements = (statements: readonly ts.Node[], outer: readonly Guard[]): void => {
    let guards = outer;
    for (const statement of statements) {
      visit(statement, guards);
      if (!ts.isStatement(statement) || !mayExit(statement)) continue;
      // `if (c) return …;` with no `else`: what follows runs unless `c`.
      const exit = ts.isIfStatement(statement) && !statement.elseStatement && !mayExit(statement.expression) ? quote(statement.expression) : undefined;
      guards = guards.concat([exit ? { kind: 'unless', code: exit } : { kind: 'sometimes' }]);
    }
  };

  const visitNested = (nested: ts.SignatureDeclaration, outer: readonly Guard[]): void => {
    let guards = outer;
    if (!('body' in nested) || !nested.body) return;
    const holder = ts.isSpreadElement(nested.parent) ? nested.parent : nested;
    const call = holder.parent;
    let guard: Guard;
    if ((ts.isCallExpression(call) || ts.isNewExpression(call)) && call.arguments?.includes(holder as ts.Expression)) {
      const callee = calleeName(call.expression, root, hidden);
      guard = { kind: 'callback', callee: callee && ts.isNewExpression(call) ? `new ${callee}` : callee };
    } else if (returnsDirectly(nested, fn) || (guards[guards.length - 1]?.kind === 'returned-function' && returnsDirectly(nested, enclosingFunction(nested)))) {
      // `(a) => (b) => () => …`: every function returned in turn runs when the caller calls what it was given.
      if (guards[guards.length - 1]?.kind === 'returned-function') guards = guards.slice(0, -1);
      guard = { kind: 'returned-function' };
    } else {
      guard = { kind: 'sometimes' };
    }
    const body = nested.body as ts.Node;
    if (ts.isBlock(body)) visitStatements(body.statements, guards.concat([guard]));
    else visit(body, guards.concat([guard]));
  };

  const shadowing = (nested: ts.SignatureDeclaration): void => {
    for (const parameter of nested.parameters) bindNames(parameter.name, redeclared);
  };
  forEachNested(fn.body, shadowing);
  // Nor is anything quoted that names a variable of the body or of a function in it: the caller never sees them.
  const hidden = new Set([...locals, ...redeclared]);
  const quote = (node: ts.Node): string | undefined => quotable(node, root, hidden);

  if (ts.isBlock(fn.body)) visitStatements(fn.body.statements, []);
  else visit(fn.body, []);

  for (const binding of bindings) {
    if (reassigned.has(binding.variable) || redeclared.has(binding.variable)) continue;
    const text = sentencesOf(uses.get(binding.variable) ?? [], binding.variable);
    if (text.text) texts.set(binding.tagName, text);
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------
// Conditions

function whenOf(guards: readonly Guard[]): When {
  if (guards.length === 0) return { kind: 'always' };
  if (guards.length > 1) {
    // `unless \`a\` or \`b\``: after two early returns; `when \`a\` and \`b\``: two nested conditions.
    const kind = guards[0]?.kind;
    const codes = guards.map((guard) => (guard.kind === kind && (guard.kind === 'when' || guard.kind === 'unless') ? guard.code : undefined));
    if ((kind === 'when' || kind === 'unless') && guards.length <= MAX_CONDITIONS && codes.every((code) => code !== undefined && !/&&|\|\||\?/.test(code))) {
      return { kind, codes: codes as string[] };
    }
    return { kind: 'sometimes' };
  }
  const guard = guards[0] as Guard;
  if (guard.kind === 'when' || guard.kind === 'unless') return guard.code ? simplified(guard.kind, guard.code) : { kind: 'sometimes' };
  if (guard.kind === 'callback') return guard.callee ? { kind: 'callback', callee: guard.callee } : { kind: 'sometimes' };
  return { kind: guard.kind };
}

/** `unless \`!x\`` reads better as `when \`x\``. */
function simplified(kind: 'when' | 'unless', code: string): When {
  const negated = /^!([\w$.]+)$/.exec(code);
  if (negated?.[1]) return { kind: kind === 'when' ? 'unless' : 'when', codes: [negated[1]] };
  return { kind, codes: [code] };
}

function sameWhen(a: When, b: When): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether a statement contains a `return` or `throw` of the function (not of a nested one). */
function mayExit(node: ts.Node): boolean {
  if (ts.isReturnStatement(node) || ts.isThrowStatement(node)) return true;
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
  return ts.forEachChild(node, (child) => (mayExit(child) ? true : undefined)) === true;
}

/** Whether the clause before a `case` cannot fall through into it. */
function precededByExit(clause: ts.CaseClause): boolean {
  const clauses = clause.parent.clauses;
  const index = clauses.indexOf(clause);
  if (index === 0) return true;
  const previous = clauses[index - 1];
  const last = previous?.statements[previous.statements.length - 1];
  return last !== undefined && (ts.isBreakStatement(last) || ts.isReturnStatement(last) || ts.isThrowStatement(last) || ts.isContinueStatement(last));
}

function returnsDirectly(nested: ts.Node, fn: ts.Node | undefined): boolean {
  let node: ts.Node = nested;
  while (isTransparent(node.parent)) node = node.parent;
  const parent = node.parent;
  return fn !== undefined && ((ts.isReturnStatement(parent) && enclosingFunction(parent) === fn) || (ts.isArrowFunction(parent) && parent === fn && parent.body === node));
}

/** Whether an expression is what its function returns: `return x`, `=> x`, or a branch of `c ? x : y` returned. */
function isReturned(expression: ts.Node): boolean {
  let node = expression;
  for (;;) {
    const parent = node.parent;
    if (isTransparent(parent) || (ts.isConditionalExpression(parent) && parent.condition !== node)) node = parent;
    else return ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === node);
  }
}

function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let current = node.parent; current; current = current.parent) if (ts.isFunctionLike(current)) return current;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Sentences

interface Clause {
  /** `Its \`a\` and \`b\``; none for the parameter itself. */
  subject?: string;
  plural: boolean;
  /** `passed to \`f\``, `read`. */
  participle: string;
}

function sentencesOf(all: readonly Use[], variable: string): ParameterText {
  // `Called when it is a function` says what `Tested with \`typeof\` against "function"` would.
  const tested = new Set(all.flatMap((use) => (use.when.kind === 'when' || use.when.kind === 'unless' ? use.when.codes.map((code) => typeTest(code, variable)?.type) : [])));
  const uses = all.filter((use) => use.kind !== 'typeof' || !tested.has(JSON.parse(use.detail) as string));
  // One use said once: with its condition when every occurrence shares it, `may` when they differ.
  const merged: Use[] = [];
  for (const use of uses) {
    const same = merged.find((other) => other.kind === use.kind && other.detail === use.detail && other.key === use.key && other.into === use.into && other.on === use.on);
    if (!same) merged.push(use);
    else if (same.when.kind !== 'always' && (use.when.kind === 'always' || !sameWhen(same.when, use.when))) same.when = use.when.kind === 'always' ? use.when : { kind: 'sometimes' };
  }
  const groups: Array<{ kind: UseKind; when: When; uses: Use[] }> = [];
  for (const use of merged) {
    // A fallback applies on every path or says nothing: `\`x\` is used in its place when it is nullish, when \`c\`` misleads.
    if (use.kind === 'fallback' && use.when.kind !== 'always') continue;
    const group = groups.find((other) => other.kind === use.kind && sameWhen(other.when, use.when) && use.kind !== 'fallback');
    if (group) group.uses.push(use);
    else groups.push({ kind: use.kind, when: use.when, uses: [use] });
  }
  // What is done with the value before the tests made on it, what always happens before what happens on some paths.
  const isTest = (kind: UseKind): boolean => kind === 'compared' || kind === 'typeof' || kind === 'instanceof';
  const rank = (group: (typeof groups)[number]): number => (isTest(group.kind) ? 1000 : 0) + (group.when.kind === 'always' ? 0 : group.when.kind === 'sometimes' ? 2 : 1) * 100 + KIND_ORDER.indexOf(group.kind);
  groups.sort((a, b) => rank(a) - rank(b));
  const said = groups.slice(0, MAX_SENTENCES).map((group) => ({ kind: group.kind, text: sentenceOf(clauseOf(group.kind, group.uses), group.when, variable) }));
  return {
    text: said.map((sentence) => sentence.text).join(' '),
    telling: said.filter((sentence) => TELLING_KINDS.has(sentence.kind)).map((sentence) => sentence.text).join(' '),
  };
}

function listed(items: readonly string[]): string {
  const unique = [...new Set(items)];
  const shown = unique.slice(0, MAX_MEMBERS).map(backticked);
  return unique.length > MAX_MEMBERS ? `${shown.join(', ')} and ${unique.length - MAX_MEMBERS} more` : joinList(shown);
}

/** `\`f\``, `the \`C\` constructor (as \`schema\`)`: where a value is passed, each once. */
function targets(uses: readonly Use[], constructor: boolean): string {
  const named = uses.map((use) => `${constructor ? 'the ' : ''}${backticked(use.detail)}${constructor ? ' constructor' : ''}${use.key ? ` (as ${backticked(use.key)})` : ''}`);
  const unique = [...new Set(named)];
  return unique.length > MAX_MEMBERS ? `${unique.slice(0, MAX_MEMBERS).join(', ')} and ${unique.length - MAX_MEMBERS} more` : joinList(unique);
}

function clauseOf(kind: UseKind, uses: readonly Use[]): Clause {
  const details = uses.map((use) => use.detail);
  const many = new Set(details).size > 1;
  switch (kind) {
    case 'returned':
      return { plural: false, participle: 'returned unchanged' };
    case 'stored':
      return { plural: false, participle: `stored in ${listed(details)}` };
    case 'passed':
      return { plural: false, participle: `passed to ${targets(uses, false)}` };
    case 'constructed':
      return { plural: false, participle: `passed to ${targets(uses, true)}` };
    case 'called':
      return { plural: false, participle: 'called' };
    case 'instantiated':
      return { plural: false, participle: 'instantiated with `new`' };
    case 'method':
      return { subject: `Its ${listed(details)} method${many ? 's' : ''}`, plural: many, participle: 'called' };
    case 'written':
      return { subject: `Its ${listed(details)}`, plural: many, participle: 'set' };
    case 'read':
      return { subject: `Its ${listed(details)}`, plural: many, participle: 'read' };
    case 'awaited':
      return { plural: false, participle: 'awaited' };
    case 'iterated':
      return { plural: false, participle: 'iterated over' };
    case 'keys':
      return { subject: 'Its keys', plural: true, participle: 'iterated over' };
    case 'spread':
      return { subject: uses[0]?.into === 'array' ? 'Its elements' : 'Its own properties', plural: true, participle: uses[0]?.into === 'array' ? 'copied into an array' : 'copied into an object' };
    case 'fallback':
      return { subject: backticked(details[0] ?? ''), plural: false, participle: `used in its place when it is ${uses[0]?.on === 'nullish' ? '`null` or `undefined`' : 'falsy'}` };
    case 'compared':
      return { plural: false, participle: `compared with ${listed(details)}` };
    case 'typeof':
      return { plural: false, participle: `tested with \`typeof\` against ${listed(details)}` };
    case 'instanceof':
      return { plural: false, participle: `tested with ${joinList([...new Set(details)].map((type) => backticked(`instanceof ${type}`)), 'and')}` };
  }
}

/** `typeof x === "string"` about the parameter `x` itself: the type tested and whether the test is negated. */
function typeTest(code: string, variable: string): { type: string; negated: boolean } | undefined {
  const match = /^typeof ([\w$]+) ([!=]==?) (["'])(\w+)\3$/.exec(code);
  if (!match || match[1] !== variable || !match[4]) return undefined;
  return { type: match[4], negated: match[2]?.startsWith('!') === true };
}

const TYPE_NOUNS: Readonly<Record<string, string>> = { object: 'an object', undefined: '`undefined`' };

function conditionText(when: { kind: 'when' | 'unless'; codes: readonly string[] }, variable: string): string {
  const test = when.codes.length === 1 ? typeTest(when.codes[0] ?? '', variable) : undefined;
  if (!test) return `${when.kind} ${joinList(when.codes.map(backticked), when.kind === 'when' ? 'and' : 'or')}`;
  const not = test.negated !== (when.kind === 'unless') ? 'not ' : '';
  return `when it is ${not}${TYPE_NOUNS[test.type] ?? `a ${test.type}`}`;
}

function sentenceOf(clause: Clause, when: When, variable: string): string {
  const be = clause.plural ? 'are' : 'is';
  const main =
    when.kind === 'sometimes'
      ? clause.subject
        ? `${clause.subject} may be ${clause.participle}`
        : `May be ${clause.participle}`
      : clause.subject
        ? `${clause.subject} ${be} ${clause.participle}`
        : capitalize(clause.participle);
  switch (when.kind) {
    case 'when':
    case 'unless':
      return `${main} ${conditionText(when, variable)}.`;
    case 'callback':
      return when.callee.startsWith('new ') ? `${main} in the callback given to the ${backticked(when.callee.slice(4))} constructor.` : `${main} in the callback given to ${backticked(when.callee)}.`;
    case 'returned-function':
      return `${main} by the function it returns.`;
    default:
      return `${main}.`;
  }
}

// ---------------------------------------------------------------------------------------------
// Syntax

/** Nodes a value passes through unchanged: `(x)`, `x as T`, `x!`, `x satisfies T`. */
function isTransparent(node: ts.Node): boolean {
  return ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node);
}

/** Whether an identifier refers to a variable, not a property name, a declaration's name or a label. */
function isReference(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === identifier) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) && parent.name === identifier) return false;
  if (ts.isBindingElement(parent) && (parent.propertyName === identifier || parent.name === identifier)) return false;
  if (ts.isVariableDeclaration(parent) && parent.name === identifier) return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  if (ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent) || ts.isTypeQueryNode(parent)) return false;
  return true;
}

function isWrite(parent: ts.Node, target: ts.Node): boolean {
  if (ts.isBinaryExpression(parent) && isAssignment(parent.operatorToken.kind) && parent.left === target) return true;
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) && (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  return ts.isDeleteExpression(parent);
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function isShortCircuitAssignment(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.QuestionQuestionEqualsToken || kind === ts.SyntaxKind.BarBarEqualsToken || kind === ts.SyntaxKind.AmpersandAmpersandEqualsToken;
}

function isEquality(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.EqualsEqualsEqualsToken || kind === ts.SyntaxKind.ExclamationEqualsEqualsToken || kind === ts.SyntaxKind.EqualsEqualsToken || kind === ts.SyntaxKind.ExclamationEqualsToken;
}

function isComparison(kind: ts.SyntaxKind): boolean {
  return isEquality(kind) || kind === ts.SyntaxKind.LessThanToken || kind === ts.SyntaxKind.LessThanEqualsToken || kind === ts.SyntaxKind.GreaterThanToken || kind === ts.SyntaxKind.GreaterThanEqualsToken;
}

/** `x === undefined` and `x != null` test presence, which `?` in the signature already says. */
function isNeutralOperand(node: ts.Expression): boolean {
  return node.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(node) && node.text === 'undefined') || ts.isVoidExpression(node);
}

/** `x = x ?? d`, `x = x || d`, `x ??= d`, `x ||= d`: the fallback `d` and when it applies. */
function fallbackOf(assignment: ts.BinaryExpression, variable: string): { code: ts.Expression; on: 'nullish' | 'falsy' } | undefined {
  const operator = assignment.operatorToken.kind;
  if (operator === ts.SyntaxKind.QuestionQuestionEqualsToken) return { code: assignment.right, on: 'nullish' };
  if (operator === ts.SyntaxKind.BarBarEqualsToken) return { code: assignment.right, on: 'falsy' };
  if (operator !== ts.SyntaxKind.EqualsToken) return undefined;
  const right = skipOuterExpressions(assignment.right);
  if (!ts.isBinaryExpression(right) || !ts.isIdentifier(right.left) || right.left.text !== variable) return undefined;
  if (right.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return { code: right.right, on: 'nullish' };
  if (right.operatorToken.kind === ts.SyntaxKind.BarBarToken) return { code: right.right, on: 'falsy' };
  return undefined;
}

/** `x = x ?? d` is read once, as the assignment's fallback. */
function isAssignedBack(expression: ts.BinaryExpression, variable: string): boolean {
  let node: ts.Node = expression;
  while (isTransparent(node.parent)) node = node.parent;
  const parent = node.parent;
  return ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && parent.right === node && ts.isIdentifier(parent.left) && parent.left.text === variable;
}

function propertyKey(name: ts.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;
}

function baseOf(expression: ts.Expression): string | undefined {
  let current = expression;
  while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) current = current.expression;
  if (current.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  return ts.isIdentifier(current) ? current.text : undefined;
}

/** A callee the caller can look up: `util.normalizeParams`, `this.#cache.set`, `super`; not a local, not computed. */
function calleeName(expression: ts.Expression, root: ts.SourceFile, locals: ReadonlySet<string>): string | undefined {
  const callee = skipOuterExpressions(expression);
  if (callee.kind === ts.SyntaxKind.SuperKeyword) return 'super';
  if (!ts.isIdentifier(callee) && !ts.isPropertyAccessExpression(callee)) return undefined;
  const base = baseOf(callee);
  if (base === undefined || locals.has(base)) return undefined;
  const text = callee.getText(root).replace(/\s+/g, '').replace(/\?\./g, '.');
  return text.length <= MAX_CODE && !/[()[\]`]/.test(text) ? text : undefined;
}

/** Code short enough to quote on one line, naming nothing local and holding no function; undefined otherwise. */
function quotable(node: ts.Node, root: ts.SourceFile, locals: ReadonlySet<string>): string | undefined {
  if (containsFunction(node)) return undefined;
  const code = node.getText(root).replace(/\s+/g, ' ').trim();
  if (code.length === 0 || code.length > MAX_CODE || code.includes('`')) return undefined;
  for (const match of code.matchAll(/(^|[^.\w$#])([A-Za-z_$][\w$]*)/g)) if (locals.has(match[2] ?? '')) return undefined;
  return code;
}

function containsFunction(node: ts.Node): boolean {
  return isFunctionWithBody(node) || ts.forEachChild(node, (child) => (containsFunction(child) ? true : undefined)) === true;
}

/** Names a body declares (variables, functions, classes, catch bindings), at any depth. */
function declaredNames(body: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node)) bindNames(node.name, names);
    else if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) names.add(node.name.text);
    else if (ts.isCatchClause(node) && node.variableDeclaration) bindNames(node.variableDeclaration.name, names);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
  return names;
}

/** A function that runs code: not a function type or a signature. */
function isFunctionWithBody(node: ts.Node): node is ts.SignatureDeclaration {
  return ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
}

function forEachNested(body: ts.Node, callback: (nested: ts.SignatureDeclaration) => void): void {
  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node)) return;
    if (isFunctionWithBody(node)) callback(node);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
}

function bindNames(name: ts.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) into.add(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindNames(element.name, into);
}
