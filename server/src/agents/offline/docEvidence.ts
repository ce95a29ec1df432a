// What the code and the repository's own comments say about a function beyond its signature: documentation it inherits, and what its body returns, calls, sets and checks.
import { ts } from 'ts-morph';
import { parseJsDoc } from '../../edits/jsdoc.js';
import { overloadsOf } from './declarationLocator.js';
import type { FunctionLike } from './declarationLocator.js';
import { joinList } from './docSummaries.js';
import { backticked, sentence, splitIdentifier } from './identifierProse.js';

// ---------------------------------------------------------------------------------------------
// Inherited documentation

/** Documentation the repository already gives the same function elsewhere: an overload, a base or interface member. */
export interface InheritedDoc {
  summary?: string;
  /** `@param` texts by parameter name. */
  parameters: Map<string, string>;
  returns?: string;
}

/**
 * The documentation a function inherits: the first documented overload signature of the same function, else (with
 * the checker) what the TypeScript language service shows for a class or interface member without a comment of its
 * own, the documentation of the member it overrides or implements. Undefined when there is none.
 */
export function inheritedDoc(fn: FunctionLike, member: ts.Node, checker: ts.TypeChecker | undefined, root: ts.SourceFile): InheritedDoc | undefined {
  for (const overload of overloadsOf(fn)) {
    const docs = ts.getJSDocCommentsAndTags(overload).filter(ts.isJSDoc);
    const last = docs[docs.length - 1];
    if (!last) continue;
    const block = parseJsDoc(last.getText(root));
    const parameters = new Map<string, string>();
    for (const tag of block.tags) if ((tag.tag === 'param' || tag.tag === 'arg') && tag.name && tag.text.trim()) parameters.set(tag.name.replace(/^\.\.\./, ''), oneLine(tag.text));
    const returns = block.tags.find((tag) => (tag.tag === 'returns' || tag.tag === 'return') && tag.text.trim());
    const doc: InheritedDoc = { parameters };
    if (block.description.trim()) doc.summary = block.description.trim();
    if (returns) doc.returns = oneLine(returns.text);
    if (doc.summary || parameters.size > 0) return doc;
  }
  if (!checker) return undefined;
  try {
    const name = (member as ts.NamedDeclaration).name;
    const owner = member.parent;
    if (!name || !owner || !(ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner))) return undefined;
    const symbol = checker.getSymbolAtLocation(name);
    if (!symbol) return undefined;
    // Without a comment of its own, a member shows the one of the member it overrides or implements.
    const summary = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    const parameters = new Map<string, string>();
    let returns: string | undefined;
    for (const tag of symbol.getJsDocTags(checker)) {
      const parts = tag.text ?? [];
      if (tag.name === 'param') {
        const parameterName = parts.find((part) => part.kind === 'parameterName')?.text;
        const text = parts.filter((part) => part.kind !== 'parameterName').map((part) => part.text).join('').replace(/^\s*-?\s*/, '');
        if (parameterName && text.trim()) parameters.set(parameterName, oneLine(text));
      } else if (tag.name === 'returns' || tag.name === 'return') {
        const text = ts.displayPartsToString(parts).trim();
        if (text) returns = oneLine(text);
      }
    }
    if (!summary && parameters.size === 0 && !returns) return undefined;
    const doc: InheritedDoc = { parameters };
    if (summary) doc.summary = summary;
    if (returns) doc.returns = returns;
    return doc;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// What the body does

export interface BodyFacts {
  /** The functions and methods the body always calls itself (not in nested functions), as written, in order, once each. */
  calls: string[];
  /** Those it calls only on some paths (under a condition, in a loop, a `catch`, after `?.`). */
  mayCall: string[];
  /** Fields of `this` (and of parameters) the body always assigns, deletes or increments. */
  sets: string[];
  /** Those it writes only on some paths. */
  maySet: string[];
  /** The single value returned, when the body returns one expression and nothing else. */
  returned?: ts.Expression;
  /** Early returns: `if (condition) return value;` statements of the body, in order, before its last `return`. */
  guards: Array<{ condition: ts.Expression; value: ts.Expression }>;
  /** The body's last statement's returned value, after guards. */
  finalReturn?: ts.Expression;
  /** The body is one call, returned or not: the function delegates to it. */
  delegate?: string;
  /** Names declared in the body: a comment must not name them, since the caller never sees them. */
  locals: Set<string>;
  /** What the body calls of its own (`processError`, `found` of `found.next()`), left out of `calls` and `mayCall`. */
  localCalls: string[];
  /** Locals the body returns as they are (`return result;`). */
  returnsLocal: string[];
  /** Locals the other values it returns are computed from (`d` of `return d < 0 ? -d : d;`). */
  returnsFromLocals: string[];
  /** Locals the functions it returns use (`getSizing` of `return (issue) => getSizing(issue.origin);`). */
  returnsFunctionOf: string[];
  /** The classes of the `new` expressions it returns (`ZodString` of `return new ZodString({ … })`). */
  returnsNew: string[];
}

const MAX_CODE = 60;

export function bodyFacts(fn: FunctionLike, root: ts.SourceFile): BodyFacts {
  const facts: BodyFacts = { calls: [], mayCall: [], sets: [], maySet: [], guards: [], locals: new Set(), localCalls: [], returnsLocal: [], returnsFromLocals: [], returnsFunctionOf: [], returnsNew: [] };
  const body = fn.body;
  if (!body) return facts;
  const parameterNames = new Set(fn.parameters.flatMap((parameter) => (ts.isIdentifier(parameter.name) ? [parameter.name.text] : [])));
  const returns: ts.Expression[] = [];
  let bareReturn = false;
  const visit = (node: ts.Node, conditional = false): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) {
      if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) facts.locals.add(node.name.text);
      return;
    }
    if (ts.isVariableDeclaration(node)) bindNames(node.name, facts.locals);
    if (ts.isCatchClause(node) && node.variableDeclaration) bindNames(node.variableDeclaration.name, facts.locals);
    if (ts.isReturnStatement(node)) {
      if (node.expression) returns.push(node.expression);
      else bareReturn = true;
    }
    if (ts.isCallExpression(node)) {
      const callee = calleeText(node.expression, root);
      const maybe = conditional || (ts.isCallExpression(node) && node.questionDotToken !== undefined);
      if (callee && !isStandardLibrary(callee) && !facts.calls.includes(callee)) {
        if (!maybe) {
          facts.calls.push(callee);
          facts.mayCall = facts.mayCall.filter((other) => other !== callee);
        } else if (!facts.mayCall.includes(callee)) facts.mayCall.push(callee);
      }
    }
    const written = writtenTarget(node);
    if (written) {
      const text = written.getText(root).replace(/\s+/g, '');
      const base = baseIdentifier(written);
      if ((base === 'this' || (base && parameterNames.has(base))) && text.length <= MAX_CODE && !facts.sets.includes(text)) {
        if (!conditional) {
          facts.sets.push(text);
          facts.maySet = facts.maySet.filter((other) => other !== text);
        } else if (!facts.maySet.includes(text)) facts.maySet.push(text);
      }
    }
    ts.forEachChild(node, (child) => visit(child, conditional || runsSometimes(node, child)));
  };
  if (ts.isBlock(body)) ts.forEachChild(body, (child) => visit(child));
  else {
    returns.push(body);
    visit(body);
  }
  for (const parameter of fn.parameters) if (ts.isIdentifier(parameter.name)) facts.locals.delete(parameter.name.text);
  // A call on the function's own variables (`found.continue()`) names what the caller never sees; `super()` is required.
  const visible = (callee: string): boolean => callee !== 'super' && !facts.locals.has(callee.split('.')[0] ?? '');
  for (const callee of [...facts.calls, ...facts.mayCall]) {
    const base = callee.split('.')[0] ?? '';
    if (callee !== 'super' && facts.locals.has(base) && !facts.localCalls.includes(base)) facts.localCalls.push(base);
  }
  facts.calls = facts.calls.filter(visible);
  facts.mayCall = facts.mayCall.filter(visible);
  // `constructor(private readonly path: string)` sets `this.path` before the body runs.
  if (ts.isConstructorDeclaration(fn)) {
    const declared = fn.parameters.flatMap((parameter) => (ts.isIdentifier(parameter.name) && ts.isParameterPropertyDeclaration(parameter, fn) ? [`this.${parameter.name.text}`] : []));
    facts.sets = [...declared, ...facts.sets.filter((text) => !declared.includes(text))];
  }
  for (const returned of returns) {
    const value = unwrap(returned);
    if (ts.isIdentifier(value) && facts.locals.has(value.text)) {
      if (!facts.returnsLocal.includes(value.text)) facts.returnsLocal.push(value.text);
      continue;
    }
    const fromLocals = localsNamed(value, facts.locals);
    const into = isFunctionValue(value) ? facts.returnsFunctionOf : facts.returnsFromLocals;
    for (const name of fromLocals) if (!into.includes(name)) into.push(name);
    const constructed = ts.isNewExpression(value) && fromLocals.length === 0 ? calleeText(value.expression, root) : undefined;
    if (constructed && !facts.returnsNew.includes(constructed)) facts.returnsNew.push(constructed);
  }
  const statements = ts.isBlock(body) ? body.statements : undefined;
  const only = returns.length === 1 && !bareReturn ? returns[0] : undefined;
  if (only && (!statements || (statements.length === 1 && ts.isReturnStatement(statements[0] as ts.Node)))) facts.returned = unwrap(only);
  if (statements) collectGuards(statements, facts);
  const single = !statements ? unwrap(body as ts.Expression) : statements.length === 1 ? singleExpression(statements[0] as ts.Statement) : undefined;
  if (single && ts.isCallExpression(single)) {
    const callee = calleeText(single.expression, root);
    if (callee && !isStandardLibrary(callee) && !facts.locals.has(callee.split('.')[0] ?? '')) facts.delegate = callee;
  }
  return facts;
}

/** Whether `child` of `node` runs only on some paths through it. */
function runsSometimes(node: ts.Node, child: ts.Node): boolean {
  if (ts.isIfStatement(node)) return child !== node.expression;
  if (ts.isConditionalExpression(node)) return child !== node.condition;
  if (ts.isBinaryExpression(node)) {
    const kind = node.operatorToken.kind;
    return child === node.right && (kind === ts.SyntaxKind.AmpersandAmpersandToken || kind === ts.SyntaxKind.BarBarToken || kind === ts.SyntaxKind.QuestionQuestionToken || kind === ts.SyntaxKind.AmpersandAmpersandEqualsToken || kind === ts.SyntaxKind.BarBarEqualsToken || kind === ts.SyntaxKind.QuestionQuestionEqualsToken);
  }
  if (ts.isCaseClause(node) || ts.isDefaultClause(node) || ts.isCatchClause(node)) return true;
  if (ts.isForStatement(node)) return child !== node.initializer;
  if (ts.isForOfStatement(node) || ts.isForInStatement(node)) return child === node.statement;
  if (ts.isWhileStatement(node)) return child === node.statement;
  return false;
}

/**
 * Calls of the language's general-purpose helpers (`Math.max`, `Object.keys`, `Array.isArray`, `String(x)`) say little
 * about what a function is for; `JSON.parse`, `Promise.all` or `fetch` do, and are kept.
 */
export function isStandardLibrary(callee: string): boolean {
  return /^(Math|Object|Array|Number|String|Reflect|Symbol|Boolean|BigInt|Error)(\.|$)/.test(callee) || /^(parseInt|parseFloat|isNaN|isFinite|Date\.now|console\.\w+|Promise\.(resolve|reject))$/.test(callee);
}

/** `if (c) return v;` statements at the top of the body and a last `return`: the cases of what comes back. */
function collectGuards(statements: ts.NodeArray<ts.Statement>, facts: BodyFacts): void {
  const last = statements[statements.length - 1];
  if (!last || !ts.isReturnStatement(last) || !last.expression) return;
  const guards: BodyFacts['guards'] = [];
  for (const statement of statements.slice(0, -1)) {
    if (!ts.isIfStatement(statement)) continue;
    const then = ts.isBlock(statement.thenStatement) && statement.thenStatement.statements.length === 1 ? statement.thenStatement.statements[0] : statement.thenStatement;
    if (statement.elseStatement || !then || !ts.isReturnStatement(then) || !then.expression) continue;
    guards.push({ condition: statement.expression, value: unwrap(then.expression) });
  }
  if (guards.length === 0) return;
  facts.guards = guards;
  facts.finalReturn = unwrap(last.expression);
}

function singleExpression(statement: ts.Statement): ts.Expression | undefined {
  if (ts.isReturnStatement(statement) && statement.expression) return unwrap(statement.expression);
  if (ts.isExpressionStatement(statement)) return unwrap(statement.expression);
  return undefined;
}

function unwrap(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isAwaitExpression(current) || ts.isNonNullExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
  return current;
}

function bindNames(name: ts.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) into.add(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindNames(element.name, into);
}

/** `this.#cache.get` for `this.#cache.get(key)`; undefined for calls of computed or anonymous functions. */
function calleeText(expression: ts.Expression, root: ts.SourceFile): string | undefined {
  const callee = unwrap(expression);
  if (!ts.isIdentifier(callee) && !ts.isPropertyAccessExpression(callee) && callee.kind !== ts.SyntaxKind.SuperKeyword) return undefined;
  // Named code only: `this.a.b`, `util.c`, not `/x/.test` or `items[0].get`.
  if (ts.isPropertyAccessExpression(callee) && baseIdentifier(callee) === undefined) return undefined;
  const text = callee.getText(root).replace(/\s+/g, '').replace(/\?\./g, '.');
  return text.length <= MAX_CODE && !/[()[\]]/.test(text) ? text : undefined;
}

/** The expression a node writes to: the left of an assignment, the operand of `++`, `--` or `delete`. */
function writtenTarget(node: ts.Node): ts.Expression | undefined {
  if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
    return ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left) ? node.left : undefined;
  }
  if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) {
    return ts.isPropertyAccessExpression(node.operand) ? node.operand : undefined;
  }
  if (ts.isDeleteExpression(node) && ts.isPropertyAccessExpression(node.expression)) return node.expression;
  return undefined;
}

function baseIdentifier(expression: ts.Expression): string | undefined {
  let current: ts.Expression = expression;
  while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) current = current.expression;
  if (current.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  return ts.isIdentifier(current) ? current.text : undefined;
}

function isFunctionValue(node: ts.Expression): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

/** The identifiers among `locals` an expression reads (not as property names), in order, once each. */
function localsNamed(expression: ts.Expression, locals: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && locals.has(node.text) && !found.includes(node.text)) {
      const parent = node.parent;
      const isPropertyName = (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node);
      if (!isPropertyName) found.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(expression);
  return found;
}

/** Whether code text names one of `names` (as a whole identifier, not a property). */
export function namesAny(code: string, names: ReadonlySet<string>): boolean {
  for (const match of code.matchAll(/(^|[^.\w$#])([A-Za-z_$][\w$]*)/g)) if (names.has(match[2] ?? '')) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Sentences from the facts

const MAX_LISTED = 3;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).map(backticked);
  return items.length > MAX_LISTED ? `${shown.join(', ')} and ${items.length - MAX_LISTED} more` : joinList(shown);
}

/** A summary of what the body does: `Delegates to \`x\`.`, `Sets \`this.a\` and calls \`b\` and \`c\`.`; undefined when it does nothing nameable. */
export function bodySummary(facts: BodyFacts): string | undefined {
  if (facts.delegate) return sentence(`Delegates to ${backticked(facts.delegate)}`);
  const parts: string[] = [];
  if (facts.sets.length > 0) parts.push(`sets ${listed(facts.sets)}`);
  if (facts.calls.length > 0) parts.push(`calls ${listed(facts.calls)}`);
  const always = parts.join(' and ');
  const maybe: string[] = [];
  if (facts.maySet.length > 0) maybe.push(`set ${listed(facts.maySet)}`);
  if (facts.mayCall.length > 0) maybe.push(`call ${listed(facts.mayCall)}`);
  // A long list of what happens on some paths buries what always happens.
  const sometimes = maybe.length > 0 && facts.sets.length + facts.calls.length < MAX_LISTED ? `${always ? 'may also' : 'may'} ${maybe.join(' and ')}` : '';
  if (!always && !sometimes) return undefined;
  // A long inventory of calls is an explanation of the body, not a summary of the function.
  if (facts.sets.length + facts.calls.length > MAX_LISTED + 1) return undefined;
  return sentence([always, sometimes].filter(Boolean).join('; '));
}

/**
 * Why the body gives a comment nothing to say, from its facts, for a function declined (no summary, `@returns` or
 * `@throws` of its code says more than its signature): what it calls and returns of its own, which a caller never
 * sees, what it names that only repeats words of the signature, and the classes it returns new instances of that
 * the signature names. Clauses are joined with `;`; each is a fact of the code.
 */
export function unsaidFacts(facts: BodyFacts, fn: FunctionLike, signature: ReadonlySet<string>): string {
  const clauses: string[] = [];
  const actions: string[] = [];
  if (facts.localCalls.length > 0) actions.push(`calls ${listed(facts.localCalls)}`);
  if (facts.returnsLocal.length > 0) actions.push(`returns ${listed(facts.returnsLocal)}`);
  if (facts.returnsFromLocals.length > 0) actions.push(`returns ${facts.returnsLocal.length > 0 ? 'other values' : 'a value'} computed from ${listed(facts.returnsFromLocals)}`);
  if (facts.returnsFunctionOf.length > 0) actions.push(`returns a function that uses ${listed(facts.returnsFunctionOf)}`);
  const localNames = new Set([...facts.localCalls, ...facts.returnsLocal, ...facts.returnsFromLocals, ...facts.returnsFunctionOf]);
  if (actions.length > 0) clauses.push(`it ${joinList(actions)}, ${localNames.size === 1 ? 'a name' : 'names'} local to its body that a caller never sees`);
  const named = [...facts.sets, ...facts.calls, ...facts.maySet, ...facts.mayCall];
  const verbs = joinList([...(facts.sets.length + facts.maySet.length > 0 ? ['sets'] : []), ...(facts.calls.length + facts.mayCall.length > 0 ? ['calls'] : [])]);
  // A declined function's summary of calls and sets either repeats the signature or was too long to be one.
  if (named.length > 0 && bodySummary(facts) !== undefined) clauses.push(`what ${actions.length > 0 ? 'else ' : ''}it ${verbs} (${listed(named)}) only repeats words of its signature`);
  else if (named.length > 0) clauses.push(`it ${verbs} ${named.length} things, too many for a one-line summary`);
  const constructed = facts.returnsNew.filter((name) => [...identifierWords(name)].every((word) => signature.has(word)));
  if (constructed.length > 0) clauses.push(`it returns a new ${joinList(constructed.map(backticked), 'or')}, which its signature already names`);
  if (clauses.length > 0) return clauses.join('; ');
  if (fn.body && ts.isBlock(fn.body) && fn.body.statements.length === 0) return 'its body is empty';
  return 'no short piece of its code says more than its signature';
}

/**
 * A `@returns` from what the body returns: the one expression returned, when it is short and names nothing local, or
 * the cases of its early returns (`` `min` if `value < min`, otherwise `value` ``), the last case said by `fallback`
 * when its code cannot be quoted. Undefined otherwise.
 */
export function returnedText(facts: BodyFacts, root: ts.SourceFile, boolean: boolean, fallback?: string): string | undefined {
  if (facts.guards.length > 0 && facts.finalReturn) return casesText(facts, root, fallback);
  const returned = facts.returned;
  if (!returned) return undefined;
  if (returned.kind === ts.SyntaxKind.TrueKeyword || returned.kind === ts.SyntaxKind.FalseKeyword || returned.kind === ts.SyntaxKind.ThisKeyword) return undefined;
  if (ts.isFunctionLike(returned) || ts.isObjectLiteralExpression(returned) || ts.isArrayLiteralExpression(returned) || ts.isLiteralExpression(returned) || containsFunction(returned)) return undefined;
  const code = returned.getText(root).replace(/\s+/g, ' ').trim();
  // A returned condition is the function's whole meaning: it may be longer than other quoted code.
  if (code.length > (boolean ? 2 * MAX_CODE : MAX_CODE) || namesAny(code, facts.locals)) return undefined;
  if (ts.isTemplateExpression(returned)) return code.includes('`', 1) && code.indexOf('`', 1) < code.length - 1 ? undefined : sentence(`The string \`${code.slice(1, -1)}\``);
  if (boolean) return sentence(`\`true\` when ${backticked(code)}, otherwise \`false\``);
  if (ts.isNewExpression(returned)) return undefined;
  if (ts.isIdentifier(returned)) return sentence(`${backticked(code)}, unchanged`);
  return sentence(`${ts.isCallExpression(returned) ? 'The result of' : 'The value of'} ${backticked(code)}`);
}

function containsFunction(node: ts.Node): boolean {
  return ts.isFunctionLike(node) || ts.forEachChild(node, (child) => (containsFunction(child) ? true : undefined)) === true;
}

/** Quotable code: one line, short, naming nothing local, with no function inside; undefined otherwise. */
function quotable(node: ts.Node, root: ts.SourceFile, locals: ReadonlySet<string>, limit = MAX_CODE): string | undefined {
  if (containsFunction(node)) return undefined;
  const code = node.getText(root).replace(/\s+/g, ' ').trim();
  return code.length <= limit && !code.includes('`') && !namesAny(code, locals) ? code : undefined;
}

function casesText(facts: BodyFacts, root: ts.SourceFile, fallback: string | undefined): string | undefined {
  const cases: string[] = [];
  const values = new Set<string>();
  for (const guard of facts.guards) {
    const value = quotable(guard.value, root, facts.locals);
    const condition = quotable(guard.condition, root, facts.locals);
    if (!value || !condition) return undefined;
    values.add(value);
    cases.push(`${backticked(value)} if ${backticked(condition)}`);
  }
  const last = facts.finalReturn ? quotable(facts.finalReturn, root, facts.locals) : undefined;
  // Every case returns the same code (a cache filled on the way): the cases say nothing, the value does.
  if (last && values.size === 1 && values.has(last)) return sentence(`The value of ${backticked(last)}`);
  const otherwise = last ? backticked(last) : fallback;
  if (!otherwise) return undefined;
  return sentence(`${cases.join(', ')}, otherwise ${otherwise}`);
}

// ---------------------------------------------------------------------------------------------
// Whether evidence says more than the signature

function wordKey(word: string): string {
  return word.toLowerCase().replace(/(ies)$/, 'y').replace(/(es|s)$/, '');
}

/** The words of identifiers in a text (`this.#queryCache.get` → `this`, `query`, `cache`, `get`), normalised. */
export function identifierWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const token of text.match(/[\p{L}\p{N}_$#]+/gu) ?? []) for (const part of splitIdentifier(token)) if (/\p{L}/u.test(part)) words.add(wordKey(part));
  return words;
}

/** Words that code quoted in a comment may repeat without saying anything: `this`, literals, operators' keywords. */
const NEUTRAL_CODE_WORDS = new Set(['this', 'true', 'false', 'null', 'undefined', 'typeof', 'instanceof', 'new', 'void', 'in', 'of', 'length'].map(wordKey));

/**
 * Whether the code quoted in a sentence (its `` `…` `` spans) names something the signature does not: a callee, a field,
 * a condition on something else. `Calls \`_check\`.` on a function returning a `ZodCheck` does not.
 */
export function addsToSignature(text: string, signature: ReadonlySet<string>): boolean {
  for (const span of text.matchAll(/`([^`]+)`/g)) {
    for (const word of identifierWords(span[1] ?? '')) if (!signature.has(word) && !NEUTRAL_CODE_WORDS.has(word)) return true;
  }
  return false;
}
