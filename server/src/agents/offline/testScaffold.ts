// Writes a test-file scaffold for an exported function or class: a describe per symbol, a todo per visible behaviour, and smoke calls built from the types.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { DeclarationTarget } from '../../repo/declarations.js';
import type { TestConvention } from '../../repo/testFramework.js';
import { frameworkImports, moduleSpecifier } from '../../repo/testFramework.js';
import { locateDeclaration } from './declarationLocator.js';
import type { FunctionLike } from './declarationLocator.js';

export interface ScaffoldInput {
  source: ts.SourceFile;
  /** Absent when the file has no types (JavaScript, or the project would not load): then no smoke calls. */
  checker: ts.TypeChecker | undefined;
  target: DeclarationTarget;
  convention: TestConvention;
  sourcePath: string;
  testPath: string;
  /** Whether to write smoke calls; off when an earlier version did not type-check. */
  smoke: boolean;
}

export interface Scaffold {
  text: string;
  /** Every todo title, in order. */
  behaviours: string[];
  smokeTests: number;
  /** The import of the symbol under test. */
  importLine: string;
}

const MAX_BEHAVIOURS = 15;
const INDENT = '  ';

/** The scaffold, or undefined when the target is not an exported function or class of `source`. */
export function buildScaffold(input: ScaffoldInput): Scaffold | undefined {
  const located = locateDeclaration(input.source, input.target);
  if (!located) return undefined;
  const statement = located.kind === 'arrow-function' && ts.isVariableDeclaration(located.node) ? located.node.parent.parent : located.node;
  const exported = exportOf(statement);
  if (!exported) return undefined;
  const name = input.target.simpleName;
  const writer = new TestWriter(input.convention.framework);
  const smoke = input.smoke && input.checker ? new SmokeValues(input.checker) : undefined;
  if (located.kind === 'class') {
    if (!ts.isClassDeclaration(located.node)) return undefined;
    writeClass(writer, located.node, name, input.source, smoke);
  } else if ('fn' in located && (located.kind === 'function' || located.kind === 'arrow-function')) {
    writer.open(`describe(${quote(name)}, () => {`);
    writeFunctionBody(writer, located.fn, input.source, smoke, (args) => `${name}(${args})`, []);
    writer.close('});');
  } else {
    return undefined;
  }
  const importLine = exported === 'default' ? `import ${name} from '${moduleSpecifier(input.testPath, input.sourcePath, input.convention.importSuffix)}';` : `import { ${name} } from '${moduleSpecifier(input.testPath, input.sourcePath, input.convention.importSuffix)}';`;
  const imports = [...frameworkImports(input.convention, { expect: writer.usesExpect, assert: writer.usesAssert }), importLine];
  const header = `// Tests for ${name} from ${path.basename(input.sourcePath)}: a scaffold whose todos name the behaviours visible in its code.`;
  const text = [header, ...imports, '', ...writer.lines, ''].join('\n');
  return { text, behaviours: writer.todos, smokeTests: writer.smokeTests, importLine };
}

/** `'named'`, `'default'`, or undefined for a statement without `export`. */
function exportOf(statement: ts.Node): 'named' | 'default' | undefined {
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return undefined;
  return modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) ? 'default' : 'named';
}

/** Whether a declaration has `export` (and a name an import can use): what the Test task is offered on. */
export function isExportedStatement(statement: ts.Node): boolean {
  const kind = exportOf(statement);
  if (!kind) return false;
  return ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) ? statement.name !== undefined : kind === 'named';
}

// ---------------------------------------------------------------------------------------------
// The test text, per framework

class TestWriter {
  readonly lines: string[] = [];
  readonly todos: string[] = [];
  usesExpect = false;
  usesAssert = false;
  smokeTests = 0;
  private depth = 0;

  constructor(private readonly framework: TestConvention['framework']) {}

  private get jestLike(): boolean {
    return this.framework === 'vitest' || this.framework === 'jest';
  }

  line(text: string): void {
    this.lines.push(`${INDENT.repeat(this.depth)}${text}`);
  }

  open(text: string): void {
    this.line(text);
    this.depth++;
  }

  close(text: string): void {
    this.depth--;
    this.line(text);
  }

  todo(title: string): void {
    this.todos.push(title);
    // Each framework's own way to list a test still to write.
    if (this.jestLike) this.line(`it.todo(${quote(title)});`);
    else if (this.framework === 'mocha') this.line(`it(${quote(title)});`);
    else this.line(`it(${quote(title)}, { todo: true });`);
  }

  test(title: string, isAsync: boolean, body: string[]): void {
    this.smokeTests++;
    this.open(`it(${quote(title)}, ${isAsync ? 'async ' : ''}() => {`);
    for (const line of body) this.line(line);
    this.close('});');
  }

  typeofIs(expression: string, name: string): string {
    if (this.jestLike) {
      this.usesExpect = true;
      return `expect(typeof ${expression}).toBe(${quote(name)});`;
    }
    this.usesAssert = true;
    return `assert.strictEqual(typeof ${expression}, ${quote(name)});`;
  }

  doesNotThrow(call: string): string {
    if (this.jestLike) {
      this.usesExpect = true;
      return `expect(() => ${call}).not.toThrow();`;
    }
    this.usesAssert = true;
    return `assert.doesNotThrow(() => ${call});`;
  }

  resolves(call: string): string {
    if (this.jestLike) {
      this.usesExpect = true;
      return `await expect(${call}).resolves.toBeUndefined();`;
    }
    this.usesAssert = true;
    return `await assert.doesNotReject(${call});`;
  }

  instanceOf(expression: string, className: string): string {
    if (this.jestLike) {
      this.usesExpect = true;
      return `expect(${expression}).toBeInstanceOf(${className});`;
    }
    this.usesAssert = true;
    return `assert.ok(${expression} instanceof ${className});`;
  }
}

function writeClass(writer: TestWriter, node: ts.ClassDeclaration, name: string, root: ts.SourceFile, smoke: SmokeValues | undefined): void {
  writer.open(`describe(${quote(name)}, () => {`);
  const constructorNode = node.members.find((m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && m.body !== undefined);
  const abstract = hasModifier(node, ts.SyntaxKind.AbstractKeyword);
  let construct: string | undefined;
  if (constructorNode) for (const behaviour of behavioursOf(constructorNode, root)) writer.todo(`constructor ${behaviour}`);
  if (smoke && !abstract && !(constructorNode && (hasModifier(constructorNode, ts.SyntaxKind.PrivateKeyword) || hasModifier(constructorNode, ts.SyntaxKind.ProtectedKeyword)))) {
    const args = smoke.constructorArguments(node);
    if (args !== undefined) {
      construct = `new ${name}(${args})`;
      writer.test('can be constructed', false, [`const instance = ${construct};`, writer.instanceOf('instance', name)]);
    }
  }
  if (!constructorNode && !construct && !abstract) writer.todo('can be constructed');
  for (const member of node.members) {
    const method = publicMethod(member);
    if (!method) continue;
    const isStatic = hasModifier(member, ts.SyntaxKind.StaticKeyword);
    const call = (args: string): string => (isStatic ? `${name}.${method.name}(${args})` : `instance.${method.name}(${args})`);
    writer.open(`describe(${quote(isStatic ? `${name}.${method.name}` : method.name)}, () => {`);
    writeFunctionBody(writer, method.fn, root, isStatic || construct ? smoke : undefined, call, isStatic || !construct ? [] : [`const instance = ${construct};`]);
    writer.close('});');
  }
  writer.close('});');
}

/** A public method with a body: the name to call it by, and the function. */
function publicMethod(member: ts.ClassElement): { name: string; fn: FunctionLike } | undefined {
  if (hasModifier(member, ts.SyntaxKind.PrivateKeyword) || hasModifier(member, ts.SyntaxKind.ProtectedKeyword) || hasModifier(member, ts.SyntaxKind.AbstractKeyword)) return undefined;
  const name = member.name && ts.isIdentifier(member.name) ? member.name.text : undefined;
  if (!name) return undefined;
  if (ts.isMethodDeclaration(member) && member.body) return { name, fn: member };
  if (ts.isPropertyDeclaration(member) && member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer))) return { name, fn: member.initializer };
  return undefined;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

/** The todos of one function and its smoke test. */
function writeFunctionBody(writer: TestWriter, fn: FunctionLike, root: ts.SourceFile, smoke: SmokeValues | undefined, call: (args: string) => string, setup: string[]): void {
  const behaviours = behavioursOf(fn, root);
  const plan = smoke?.callPlan(fn);
  if (behaviours.length === 0) writer.todo(plan?.result === 'void' ? 'has the expected effect for typical input' : 'returns the expected result for typical input');
  for (const behaviour of behaviours) writer.todo(behaviour);
  if (!plan) return;
  const invocation = call(plan.args);
  if (plan.isAsync) {
    if (plan.result === 'void') writer.test('resolves for minimal arguments', true, [...setup, writer.resolves(invocation)]);
    else if (plan.result) writer.test(`resolves to ${article(plan.result)} for minimal arguments`, true, [...setup, `const result = await ${invocation};`, writer.typeofIs('result', plan.result)]);
    else writer.test('resolves for minimal arguments', true, [...setup, `await ${invocation};`]);
  } else if (plan.result && plan.result !== 'void') {
    writer.test(`returns ${article(plan.result)} for minimal arguments`, false, [...setup, `const result = ${invocation};`, writer.typeofIs('result', plan.result)]);
  } else {
    writer.test('runs without throwing for minimal arguments', false, [...setup, writer.doesNotThrow(invocation)]);
  }
}

function article(typeofName: string): string {
  return `${/^[aeiou]/.test(typeofName) ? 'an' : 'a'} ${typeofName}`;
}

// ---------------------------------------------------------------------------------------------
// Behaviours visible in the code

/**
 * One sentence per behaviour a test should pin down: each throw with its condition, each branch, each case, each
 * fallback value. Nested functions and classes are someone else's behaviour and are not entered.
 */
export function behavioursOf(fn: FunctionLike, root: ts.SourceFile): string[] {
  const out: string[] = [];
  const add = (text: string | undefined): void => {
    if (text && !out.includes(text) && out.length < MAX_BEHAVIOURS) out.push(text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isThrowStatement(node)) add(throwBehaviour(node, fn, root));
    else if (ts.isIfStatement(node)) ifBehaviours(node, root).forEach(add);
    else if (ts.isSwitchStatement(node)) {
      const subject = code(node.expression, root);
      for (const clause of node.caseBlock.clauses) {
        if (onlyThrows(clause.statements)) continue;
        add(ts.isCaseClause(clause) ? `handles ${subject} being ${code(clause.expression, root)}` : `handles ${subject} matching no case`);
      }
    } else if (ts.isConditionalExpression(node)) add(`handles ${code(node.condition, root)} being true and false`);
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken && !isInnerCoalesce(node)) add(fallbackBehaviour(node, root));
    ts.forEachChild(node, visit);
  };
  if (fn.body && ts.isBlock(fn.body)) ts.forEachChild(fn.body, visit);
  else if (fn.body) visit(fn.body);
  return out;
}

function throwBehaviour(statement: ts.ThrowStatement, fn: FunctionLike, root: ts.SourceFile): string {
  let thrown: ts.Expression = statement.expression;
  while (ts.isParenthesizedExpression(thrown) || ts.isAsExpression(thrown)) thrown = thrown.expression;
  let type = 'an error';
  if (ts.isNewExpression(thrown) || (ts.isCallExpression(thrown) && ts.isIdentifier(thrown.expression) && /^[A-Z]/.test(thrown.expression.text))) type = thrown.expression.getText(root);
  const condition = throwCondition(statement, fn, root);
  return condition ? `throws ${type} ${condition}` : `throws ${type}`;
}

function throwCondition(statement: ts.Node, fn: FunctionLike, root: ts.SourceFile): string {
  let child: ts.Node = statement;
  for (let parent: ts.Node | undefined = statement.parent; parent && parent !== fn; child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent)) {
      if (child === parent.thenStatement) return `when ${code(parent.expression, root)}`;
      if (child === parent.elseStatement) return `unless ${code(parent.expression, root)}`;
    }
    if (ts.isCaseClause(parent)) return `when ${code(parent.parent.parent.expression, root)} is ${code(parent.expression, root)}`;
    if (ts.isDefaultClause(parent)) return `when ${code(parent.parent.parent.expression, root)} matches no case`;
    if (ts.isCatchClause(parent)) return 'when the try block fails';
  }
  return '';
}

function ifBehaviours(node: ts.IfStatement, root: ts.SourceFile): string[] {
  const condition = code(node.expression, root);
  const out: string[] = [];
  if (!onlyThrows([node.thenStatement])) {
    const returned = finalReturn(node.thenStatement);
    const value = returned?.expression ? code(returned.expression, root) : undefined;
    if (returned) out.push(value === condition ? `returns ${value} when it is set` : value && value.length <= 40 ? `returns ${value} when ${condition}` : `returns early when ${condition}`);
    else out.push(`handles the case where ${condition}`);
  }
  const otherwise = node.elseStatement;
  if (otherwise && !ts.isIfStatement(otherwise) && !onlyThrows([otherwise])) out.push(`handles the case where ${condition} is false`);
  return out;
}

function finalReturn(statement: ts.Statement): ts.ReturnStatement | undefined {
  if (ts.isReturnStatement(statement)) return statement;
  if (ts.isBlock(statement)) {
    const last = statement.statements[statement.statements.length - 1];
    return last && ts.isReturnStatement(last) ? last : undefined;
  }
  return undefined;
}

/** Branches that only throw are covered by their throw's behaviour. */
function onlyThrows(statements: readonly ts.Statement[]): boolean {
  if (statements.length === 0) return false;
  return statements.every((s) => ts.isThrowStatement(s) || (ts.isBlock(s) && s.statements.length > 0 && onlyThrows(s.statements)));
}

/** The left operand of another `??`: the outer one describes the whole chain. */
function isInnerCoalesce(node: ts.BinaryExpression): boolean {
  let child: ts.Node = node;
  let parent = node.parent;
  while (ts.isParenthesizedExpression(parent)) {
    child = parent;
    parent = parent.parent;
  }
  return ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken && parent.left === child;
}

/** `a ?? b ?? 5000` → `uses 5000 when a and b are missing`. */
function fallbackBehaviour(node: ts.BinaryExpression, root: ts.SourceFile): string {
  const operands: ts.Expression[] = [];
  let current: ts.Expression = node;
  while (ts.isBinaryExpression(current) && current.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
    operands.unshift(current.right);
    current = current.left;
    while (ts.isParenthesizedExpression(current)) current = current.expression;
  }
  operands.unshift(current);
  const fallback = operands.pop() as ts.Expression;
  const missing = operands.map((o) => code(o, root));
  return `uses ${code(fallback, root)} when ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing`;
}

function code(node: ts.Node, root: ts.SourceFile): string {
  const text = node.getText(root).replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 57).trimEnd()}…` : text;
}

/** A string literal: single quotes, or double quotes when that spares escaping. */
export function quote(text: string): string {
  const flat = text.replace(/\\/g, '\\\\').replace(/\r?\n/g, ' ');
  if (flat.includes("'") && !flat.includes('"')) return `"${flat}"`;
  return `'${flat.replace(/'/g, "\\'")}'`;
}

// ---------------------------------------------------------------------------------------------
// Smoke calls: arguments built from the parameter types

interface CallPlan {
  args: string;
  isAsync: boolean;
  /** The `typeof` of the (awaited) result, `'void'` when there is none, undefined when it cannot be told. */
  result: string | undefined;
}

/** Literal values of the parameters' types, or undefined when a type cannot be built without knowing the code. */
class SmokeValues {
  constructor(private readonly checker: ts.TypeChecker) {}

  /** Arguments for the required parameters (optional ones are left out), or undefined when one cannot be built. */
  arguments(parameters: readonly ts.ParameterDeclaration[]): string | undefined {
    const values: string[] = [];
    for (const parameter of parameters) {
      if (ts.isIdentifier(parameter.name) && parameter.name.text === 'this') continue;
      if (parameter.questionToken || parameter.initializer || parameter.dotDotDotToken) break;
      const value = this.value(this.checker.getTypeAtLocation(parameter), 0);
      if (value === undefined) return undefined;
      values.push(value);
    }
    return values.join(', ');
  }

  constructorArguments(node: ts.ClassDeclaration): string | undefined {
    const declared = node.members.find((m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && m.body !== undefined);
    if (declared) return this.arguments(declared.parameters);
    // An inherited constructor: its parameters through the checker.
    const symbol = node.name ? this.checker.getSymbolAtLocation(node.name) : undefined;
    if (!symbol) return '';
    const signature = this.checker.getTypeOfSymbolAtLocation(symbol, node).getConstructSignatures()[0];
    if (!signature) return '';
    const values: string[] = [];
    for (const parameter of signature.getParameters()) {
      const declaration = parameter.valueDeclaration;
      if (declaration && ts.isParameter(declaration) && (declaration.questionToken || declaration.initializer || declaration.dotDotDotToken)) break;
      const value = this.value(this.checker.getTypeOfSymbolAtLocation(parameter, node), 0);
      if (value === undefined) return undefined;
      values.push(value);
    }
    return values.join(', ');
  }

  callPlan(fn: FunctionLike): CallPlan | undefined {
    if (ts.isFunctionDeclaration(fn) && hasOverloads(fn)) return undefined;
    const args = this.arguments(fn.parameters);
    if (args === undefined) return undefined;
    const signature = this.checker.getSignatureFromDeclaration(fn);
    if (!signature) return undefined;
    let returned = this.checker.getReturnTypeOfSignature(signature);
    const isAsync = isPromise(returned);
    if (isAsync) returned = this.checker.getAwaitedType(returned) ?? returned;
    if (returned.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) return { args, isAsync, result: 'void' };
    return { args, isAsync, result: typeofName(returned) };
  }

  private value(type: ts.Type, depth: number): string | undefined {
    if (depth > 4) return undefined;
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return 'undefined';
    if (flags & ts.TypeFlags.Null) return 'null';
    if (flags & ts.TypeFlags.EnumLike) return undefined;
    if (type.isStringLiteral()) return quote(type.value);
    if (type.isNumberLiteral()) return String(type.value);
    if (flags & ts.TypeFlags.BooleanLiteral) return this.checker.typeToString(type);
    if (flags & ts.TypeFlags.BigIntLiteral) {
      const big = (type as ts.BigIntLiteralType).value;
      return `${big.negative ? '-' : ''}${big.base10Value}n`;
    }
    if (flags & ts.TypeFlags.Number) return '0';
    if (flags & ts.TypeFlags.String) return "''";
    if (flags & ts.TypeFlags.Boolean) return 'false';
    if (flags & ts.TypeFlags.BigInt) return '0n';
    if (flags & ts.TypeFlags.ESSymbol) return "Symbol('test')";
    if (type.isUnion()) {
      if (type.types.some((t) => t.flags & ts.TypeFlags.Undefined)) return 'undefined';
      if (type.types.some((t) => t.flags & ts.TypeFlags.Null)) return 'null';
      for (const member of type.types) {
        const value = this.value(member, depth);
        if (value !== undefined) return value;
      }
      return undefined;
    }
    if (type.isTypeParameter()) {
      const constraint = type.getConstraint();
      return constraint ? this.value(constraint, depth) : 'undefined';
    }
    if (flags & ts.TypeFlags.Intersection) return (type as ts.IntersectionType).types.every((t) => t.flags & ts.TypeFlags.Object) ? this.objectValue(type, depth) : undefined;
    if (flags & ts.TypeFlags.NonPrimitive) return '{}';
    if (flags & ts.TypeFlags.Object) return this.objectValue(type, depth);
    return undefined;
  }

  private objectValue(type: ts.Type, depth: number): string | undefined {
    if (this.checker.isTupleType(type)) {
      const target = (type as ts.TypeReference).target as ts.TupleType;
      const elements = this.checker.getTypeArguments(type as ts.TypeReference).slice(0, target.minLength);
      const values = elements.map((element) => this.value(element, depth + 1));
      return values.every((v) => v !== undefined) ? `[${values.join(', ')}]` : undefined;
    }
    if (this.checker.isArrayType(type)) return '[]';
    const symbol = type.aliasSymbol && !type.getSymbol() ? type.aliasSymbol : type.getSymbol();
    const library = symbol !== undefined && isLibrarySymbol(symbol);
    if (library && symbol) {
      if (symbol.name === 'Promise') {
        const inner = this.checker.getAwaitedType(type);
        const value = inner ? this.value(inner, depth + 1) : 'undefined';
        return value === undefined ? undefined : `Promise.resolve(${value})`;
      }
      const known = LIBRARY_VALUES[symbol.name];
      if (known) return known;
    }
    if (symbol && symbol.flags & ts.SymbolFlags.Class) return undefined;
    if (type.getConstructSignatures().length > 0) return undefined;
    const call = type.getCallSignatures()[0];
    if (call) return this.functionValue(call, depth);
    if (library) return undefined;
    const parts: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      if (property.flags & ts.SymbolFlags.Optional) continue;
      if (property.name.startsWith('__@') || property.name.startsWith('#')) return undefined;
      const value = this.value(this.checker.getTypeOfSymbol(property), depth + 1);
      if (value === undefined) return undefined;
      parts.push(`${propertyName(property.name)}: ${value}`);
    }
    return parts.length > 0 ? `{ ${parts.join(', ')} }` : '{}';
  }

  private functionValue(signature: ts.Signature, depth: number): string | undefined {
    const returned = this.checker.getReturnTypeOfSignature(signature);
    if (returned.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return '() => undefined';
    if (isPromise(returned)) {
      const inner = this.checker.getAwaitedType(returned);
      const value = inner ? this.value(inner, depth + 1) : 'undefined';
      return value === undefined ? undefined : `async () => ${value.startsWith('{') ? `(${value})` : value}`;
    }
    const value = this.value(returned, depth + 1);
    return value === undefined ? undefined : `() => ${value.startsWith('{') ? `(${value})` : value}`;
  }
}

const LIBRARY_VALUES: Record<string, string> = {
  Array: '[]',
  ReadonlyArray: '[]',
  Date: 'new Date(0)',
  Map: 'new Map()',
  ReadonlyMap: 'new Map()',
  Set: 'new Set()',
  ReadonlySet: 'new Set()',
  WeakMap: 'new WeakMap()',
  WeakSet: 'new WeakSet()',
  RegExp: '/test/',
  Error: "new Error('test')",
  URL: "new URL('http://localhost/')",
  Uint8Array: 'new Uint8Array()',
  ArrayBuffer: 'new ArrayBuffer(0)',
  AbortSignal: 'new AbortController().signal',
  Buffer: 'Buffer.alloc(0)',
  Object: '{}',
};

/** Declared only in declaration files (the default library, `@types/node`): its constructor is a global. */
function isLibrarySymbol(symbol: ts.Symbol): boolean {
  const declarations = symbol.getDeclarations() ?? [];
  return declarations.length > 0 && declarations.every((d) => d.getSourceFile().isDeclarationFile);
}

function isPromise(type: ts.Type): boolean {
  return type.getSymbol()?.name === 'Promise' && isLibrarySymbol(type.getSymbol() as ts.Symbol);
}

function hasOverloads(fn: ts.FunctionDeclaration): boolean {
  const parent = fn.parent;
  if (!ts.isSourceFile(parent) && !ts.isModuleBlock(parent)) return false;
  return parent.statements.some((s) => s !== fn && ts.isFunctionDeclaration(s) && !s.body && s.name?.text === fn.name?.text);
}

/** The `typeof` every value of the type has, or undefined when they differ or cannot be told. */
function typeofName(type: ts.Type): string | undefined {
  const names = new Set<string>();
  for (const member of type.isUnion() ? type.types : [type]) {
    const flags = member.flags;
    let name: string | undefined;
    if (flags & ts.TypeFlags.StringLike) name = 'string';
    else if (flags & ts.TypeFlags.NumberLike) name = 'number';
    else if (flags & ts.TypeFlags.BooleanLike) name = 'boolean';
    else if (flags & ts.TypeFlags.BigIntLike) name = 'bigint';
    else if (flags & ts.TypeFlags.ESSymbolLike) name = 'symbol';
    else if (flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) name = 'undefined';
    else if (flags & ts.TypeFlags.Null) name = 'object';
    else if (flags & (ts.TypeFlags.Object | ts.TypeFlags.NonPrimitive)) name = member.getCallSignatures().length > 0 && member.getProperties().length === 0 ? 'function' : 'object';
    if (!name) return undefined;
    names.add(name);
  }
  return names.size === 1 ? [...names][0] : undefined;
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name);
}
