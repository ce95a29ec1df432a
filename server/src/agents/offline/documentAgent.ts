// The offline Document agent: writes a JSDoc comment from a declaration's name, signature and types, with no model.
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { DeclarationKind, DeclarationTarget } from '../../repo/declarations.js';
import { parseJsDoc, renderJsDoc, renderTag, tagNames, unindentBlock } from '../../edits/jsdoc.js';
import type { JsDocTag } from '../../edits/jsdoc.js';

/** Answers Document requests offline: deterministic, instant, and always available. */
export class OfflineDocumentAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'doc-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['document'];
  readonly description = "Writes a JSDoc comment from the declaration's name, signature and types, without a model.";

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const { document, target, project } = request;
    const fsPath = document.fsPath ?? path.join(project.root, '__assistant_untitled__', 'untitled.ts');
    const javascript = /^javascript/.test(document.languageId) || /\.[cm]?jsx?$/i.test(fsPath);
    let text: string;
    try {
      text = documentDeclaration(project.sourceFile(fsPath, document.text), target, { javascript });
    } catch {
      // The workspace project could not load (e.g. a broken tsconfig): the file alone still has a syntax and local types.
      text = documentInIsolation(fsPath, document.text, target, javascript);
    }
    signal.throwIfAborted();
    return { text };
  }
}

/**
 * The JSDoc block (un-indented) for the declaration `target` in `sourceFile`, or `''` when the
 * declaration is not there. An existing doc comment is completed, never rewritten.
 */
export function documentDeclaration(sourceFile: SourceFile, target: DeclarationTarget, options: { javascript: boolean }): string {
  let checker: ts.TypeChecker | undefined;
  try {
    const program = sourceFile.getProject().getProgram().compilerObject;
    // A JavaScript file outside a tsconfig without `allowJs` is not in the program: its types would all be `any`.
    checker = program.getSourceFile(sourceFile.getFilePath()) ? program.getTypeChecker() : undefined;
  } catch {
    checker = undefined;
  }
  const root = sourceFile.compilerNode;
  const declaration = locateDeclaration(root, target);
  if (!declaration) return '';
  const syntaxTypes = new SyntaxTypes(root, options.javascript);
  try {
    return writeDocComment(declaration, target, options, checker ? new CheckerTypes(checker, syntaxTypes) : syntaxTypes);
  } catch {
    try {
      return writeDocComment(declaration, target, options, syntaxTypes);
    } catch {
      return target.existingDoc ? unindentBlock(target.existingDoc.text, target.indent) : '';
    }
  }
}

function documentInIsolation(fsPath: string, text: string, target: DeclarationTarget, javascript: boolean): string {
  try {
    const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true, strict: true, target: ts.ScriptTarget.ES2022 } });
    return documentDeclaration(project.createSourceFile(path.basename(fsPath), text), target, { javascript });
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// Locating the declaration

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression;

type LocatedDeclaration =
  | { kind: 'class'; node: ts.ClassDeclaration | ts.ClassExpression }
  | { kind: 'interface'; node: ts.InterfaceDeclaration }
  | { kind: Exclude<DeclarationKind, 'class' | 'interface'>; node: ts.Node; fn: FunctionLike };

function locateDeclaration(root: ts.SourceFile, target: DeclarationTarget): LocatedDeclaration | undefined {
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
function nodesAt(root: ts.SourceFile, position: number): ts.Node[] {
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

function isFunctionExpression(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

// ---------------------------------------------------------------------------------------------
// Types: what the documentation needs to know about a type, from the checker or from the syntax alone

/** The facts about a type that choose a description. */
type TypeShape =
  | { kind: 'void' | 'null' | 'boolean' | 'string' | 'number' | 'bigint' | 'any' | 'other' | 'this' | 'type-parameter' }
  | { kind: 'promise'; inner: TypeShape }
  | { kind: 'array'; element: TypeShape }
  | { kind: 'function'; parameterNames: string[] }
  | { kind: 'optional'; inner: TypeShape; missing: 'undefined' | 'null' }
  | { kind: 'named'; name: string; typeArguments: TypeShape[] }
  | { kind: 'literals'; values: string[] };

interface TypeFacts {
  shape: TypeShape;
  /** The type as JSDoc writes it in JavaScript files; undefined when unknown. */
  jsdocType?: string;
}

interface TypeSource {
  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, optional: boolean): TypeFacts;
  ofReturn(fn: FunctionLike): TypeFacts;
  /** The class a thrown value belongs to, when it is known. */
  thrownTypeName(expression: ts.Expression): string | undefined;
  isOptionalProperty(pattern: ts.ObjectBindingPattern, key: string): boolean;
}

const PRINT_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** Types from the checker; any failure falls back to what the syntax says, one question at a time. */
class CheckerTypes implements TypeSource {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly syntax: SyntaxTypes,
  ) {}

  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, optional: boolean): TypeFacts {
    try {
      const type = this.checker.getTypeAtLocation(node.name);
      const shape = this.shape(type, 0);
      if (shape.kind === 'any') {
        // Unannotated JavaScript: the initializer may still say more than the checker's `any`.
        const fromSyntax = this.syntax.ofBinding(node, optional);
        if (fromSyntax.shape.kind !== 'any') return fromSyntax;
      }
      // A destructured object is documented property by property; its literal type would repeat them.
      const isPattern = ts.isObjectBindingPattern(node.name);
      const printed = isPattern && this.isAnonymousObject(this.checker.getNonNullableType(type)) ? 'object' : this.print(type, node, optional);
      const isRest = ts.isParameter(node) && node.dotDotDotToken !== undefined;
      if (isRest) {
        const element = shape.kind === 'array' ? this.print(this.elementType(type) ?? type, node, false) : '*';
        return { shape, jsdocType: `...${element}` };
      }
      return { shape, jsdocType: printed };
    } catch {
      return this.syntax.ofBinding(node, optional);
    }
  }

  ofReturn(fn: FunctionLike): TypeFacts {
    try {
      const signature = this.checker.getSignatureFromDeclaration(fn);
      if (!signature) return this.syntax.ofReturn(fn);
      const type = this.checker.getReturnTypeOfSignature(signature);
      return { shape: this.shape(type, 0), jsdocType: this.print(type, fn, false) };
    } catch {
      return this.syntax.ofReturn(fn);
    }
  }

  thrownTypeName(expression: ts.Expression): string | undefined {
    try {
      const type = this.checker.getBaseTypeOfLiteralType(this.checker.getTypeAtLocation(expression));
      if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
      const symbol = type.aliasSymbol ?? type.getSymbol();
      if (symbol && !symbol.name.startsWith('__')) return symbol.name;
      return compactType(this.checker.typeToString(type, expression, PRINT_FLAGS));
    } catch {
      return this.syntax.thrownTypeName(expression);
    }
  }

  isOptionalProperty(pattern: ts.ObjectBindingPattern, key: string): boolean {
    try {
      const type = this.checker.getTypeAtLocation(pattern);
      const property = this.checker.getPropertyOfType(this.checker.getNonNullableType(type), key);
      return property !== undefined && (property.flags & ts.SymbolFlags.Optional) !== 0;
    } catch {
      return false;
    }
  }

  private elementType(type: ts.Type): ts.Type | undefined {
    if (!this.checker.isArrayType(type)) return undefined;
    return this.checker.getTypeArguments(type as ts.TypeReference)[0];
  }

  /** The type as a JSDoc `{…}` in a JavaScript file: `*` for any, long literal types collapsed to `object`. */
  private print(type: ts.Type, enclosing: ts.Node, optional: boolean): string {
    if (optional && type.isUnion()) {
      const defined = type.types.filter((member) => !(member.flags & ts.TypeFlags.Undefined));
      if (defined.length === 1 && defined[0]) return this.printCompact(defined[0], enclosing, 0);
      const text = this.printCompact(type, enclosing, 0);
      return text.replace(/\s*\|\s*undefined\b/g, '').replace(/^undefined\s*\|\s*/, '');
    }
    return this.printCompact(type, enclosing, 0);
  }

  private printCompact(type: ts.Type, enclosing: ts.Node, depth: number): string {
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return '*';
    const text = compactType(this.checker.typeToString(type, enclosing, PRINT_FLAGS));
    if (this.isAnonymousObject(type) && text.length > 40) return 'object';
    if (text.length <= 60 || depth > 3) return text.length <= 60 ? text : '*';
    const typeArguments = this.typeArguments(type);
    const symbolName = type.getSymbol()?.name;
    if ((symbolName === 'Promise' || symbolName === 'PromiseLike') && typeArguments[0]) return `${symbolName}<${this.printCompact(typeArguments[0], enclosing, depth + 1)}>`;
    if (this.checker.isArrayType(type) && typeArguments[0]) {
      const element = this.printCompact(typeArguments[0], enclosing, depth + 1);
      return element.includes('|') ? `(${element})[]` : `${element}[]`;
    }
    if (type.isUnion()) {
      const members = type.types.map((member) => this.printCompact(member, enclosing, depth + 1)).join(' | ');
      return members.length <= 80 ? members : '*';
    }
    if (type.getCallSignatures().length > 0) return 'Function';
    if (type.flags & ts.TypeFlags.Object) return 'object';
    return text;
  }

  private isAnonymousObject(type: ts.Type): boolean {
    const symbol = type.getSymbol();
    return (type.flags & ts.TypeFlags.Object) !== 0 && !type.aliasSymbol && (symbol === undefined || symbol.name.startsWith('__')) && type.getCallSignatures().length === 0;
  }

  private shape(type: ts.Type, depth: number): TypeShape {
    const flags = type.flags;
    if (depth > 4) return { kind: 'other' };
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: 'any' };
    if (flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never)) return { kind: 'void' };
    if (flags & ts.TypeFlags.Null) return { kind: 'null' };
    if (flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { kind: 'boolean' };
    if (flags & ts.TypeFlags.EnumLike && (type.aliasSymbol ?? type.getSymbol())) {
      return { kind: 'named', name: (type.aliasSymbol ?? type.getSymbol())?.name ?? 'enum', typeArguments: [] };
    }
    if (flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral)) return { kind: 'literals', values: [this.checker.typeToString(type)] };
    if (flags & ts.TypeFlags.StringLike) return { kind: 'string' };
    if (flags & ts.TypeFlags.NumberLike) return { kind: 'number' };
    if (flags & ts.TypeFlags.BigIntLike) return { kind: 'bigint' };
    if (flags & ts.TypeFlags.TypeParameter) {
      return this.checker.typeToString(type) === 'this' ? { kind: 'this' } : { kind: 'type-parameter' };
    }
    if (type.isUnion()) {
      const present = type.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)));
      const missing = type.types.some((member) => member.flags & ts.TypeFlags.Null) ? 'null' : 'undefined';
      let inner: TypeShape;
      if (present.length === 0) return { kind: 'void' };
      if (present.every((member) => member.flags & ts.TypeFlags.BooleanLiteral)) inner = { kind: 'boolean' };
      else if (present.length === 1 && present[0]) inner = this.shape(present[0], depth + 1);
      else if (present.every((member) => member.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral))) {
        inner = { kind: 'literals', values: present.map((member) => this.checker.typeToString(member)) };
      } else if (type.aliasSymbol) inner = { kind: 'named', name: type.aliasSymbol.name, typeArguments: [] };
      else inner = { kind: 'other' };
      return present.length < type.types.length ? { kind: 'optional', inner, missing } : inner;
    }
    const symbol = type.getSymbol();
    const typeArguments = this.typeArguments(type);
    if ((symbol?.name === 'Promise' || symbol?.name === 'PromiseLike') && typeArguments[0]) {
      return { kind: 'promise', inner: this.shape(typeArguments[0], depth + 1) };
    }
    if (this.checker.isArrayType(type) && typeArguments[0]) return { kind: 'array', element: this.shape(typeArguments[0], depth + 1) };
    const callSignatures = type.getCallSignatures();
    if (callSignatures.length > 0 && !(symbol && symbol.flags & ts.SymbolFlags.Class)) {
      return { kind: 'function', parameterNames: (callSignatures[0]?.getParameters() ?? []).map((parameter) => parameter.name) };
    }
    const named = type.aliasSymbol ?? symbol;
    if (named && !named.name.startsWith('__')) {
      return { kind: 'named', name: named.name, typeArguments: typeArguments.map((argument) => this.shape(argument, depth + 1)) };
    }
    return { kind: 'other' };
  }

  private typeArguments(type: ts.Type): readonly ts.Type[] {
    if (type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) {
      return this.checker.getTypeArguments(type as ts.TypeReference);
    }
    return type.aliasTypeArguments ?? [];
  }
}

/** Types read from annotations and initializers only, for when the checker is unavailable. */
class SyntaxTypes implements TypeSource {
  constructor(
    private readonly root: ts.SourceFile,
    private readonly javascript: boolean,
  ) {}

  ofBinding(node: ts.ParameterDeclaration | ts.BindingElement, _optional: boolean): TypeFacts {
    const annotation = ts.isParameter(node) ? node.type : undefined;
    const shape = annotation ? shapeOfTypeNode(annotation) : node.initializer ? shapeOfInitializer(node.initializer) : { kind: 'any' as const };
    const isRest = ts.isParameter(node) && node.dotDotDotToken !== undefined;
    let jsdocType = annotation ? compactType(annotation.getText(this.root)) : jsdocTypeOfShape(shape);
    if (isRest) {
      const element = annotation && ts.isArrayTypeNode(annotation) ? compactType(annotation.elementType.getText(this.root)) : '*';
      jsdocType = `...${element}`;
    }
    return { shape, jsdocType: this.javascript ? jsdocType : undefined };
  }

  ofReturn(fn: FunctionLike): TypeFacts {
    const isAsync = ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async;
    if (fn.type) return { shape: shapeOfTypeNode(fn.type), jsdocType: compactType(fn.type.getText(this.root)) };
    let returnsValue = fn.body !== undefined && !ts.isBlock(fn.body);
    if (fn.body && ts.isBlock(fn.body)) {
      const visit = (node: ts.Node): void => {
        if (returnsValue || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
        if (ts.isReturnStatement(node) && node.expression) returnsValue = true;
        else ts.forEachChild(node, visit);
      };
      ts.forEachChild(fn.body, visit);
    }
    const inner: TypeShape = returnsValue ? { kind: 'any' } : { kind: 'void' };
    return isAsync ? { shape: { kind: 'promise', inner }, jsdocType: returnsValue ? 'Promise<*>' : 'Promise<void>' } : { shape: inner, jsdocType: returnsValue ? '*' : 'void' };
  }

  thrownTypeName(expression: ts.Expression): string | undefined {
    if (ts.isStringLiteralLike(expression) || ts.isTemplateExpression(expression)) return 'string';
    return undefined;
  }

  isOptionalProperty(): boolean {
    return false;
  }
}

function shapeOfTypeNode(node: ts.TypeNode): TypeShape {
  switch (node.kind) {
    case ts.SyntaxKind.BooleanKeyword:
      return { kind: 'boolean' };
    case ts.SyntaxKind.StringKeyword:
      return { kind: 'string' };
    case ts.SyntaxKind.NumberKeyword:
      return { kind: 'number' };
    case ts.SyntaxKind.BigIntKeyword:
      return { kind: 'bigint' };
    case ts.SyntaxKind.VoidKeyword:
    case ts.SyntaxKind.UndefinedKeyword:
    case ts.SyntaxKind.NeverKeyword:
      return { kind: 'void' };
    case ts.SyntaxKind.AnyKeyword:
    case ts.SyntaxKind.UnknownKeyword:
      return { kind: 'any' };
    case ts.SyntaxKind.ThisType:
      return { kind: 'this' };
  }
  if (ts.isParenthesizedTypeNode(node)) return shapeOfTypeNode(node.type);
  if (ts.isTypeOperatorNode(node)) return shapeOfTypeNode(node.type);
  if (ts.isArrayTypeNode(node)) return { kind: 'array', element: shapeOfTypeNode(node.elementType) };
  if (ts.isFunctionTypeNode(node)) return { kind: 'function', parameterNames: node.parameters.map((parameter) => parameter.name.getText()) };
  if (ts.isLiteralTypeNode(node)) {
    if (node.literal.kind === ts.SyntaxKind.TrueKeyword || node.literal.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'boolean' };
    if (node.literal.kind === ts.SyntaxKind.NullKeyword) return { kind: 'null' };
    return { kind: 'literals', values: [node.literal.getText()] };
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText();
    const typeArguments = (node.typeArguments ?? []).map(shapeOfTypeNode);
    if ((name === 'Promise' || name === 'PromiseLike') && typeArguments[0]) return { kind: 'promise', inner: typeArguments[0] };
    if ((name === 'Array' || name === 'ReadonlyArray') && typeArguments[0]) return { kind: 'array', element: typeArguments[0] };
    return { kind: 'named', name: name.split('.').pop() ?? name, typeArguments };
  }
  if (ts.isUnionTypeNode(node)) {
    const members = node.types.map(shapeOfTypeNode);
    const present = members.filter((member) => member.kind !== 'void' && member.kind !== 'null');
    const missing = members.some((member) => member.kind === 'null') ? 'null' : 'undefined';
    let inner: TypeShape;
    if (present.length === 0) return { kind: 'void' };
    if (present.length === 1 && present[0]) inner = present[0];
    else if (present.every((member) => member.kind === 'boolean')) inner = { kind: 'boolean' };
    else if (present.every((member) => member.kind === 'literals')) inner = { kind: 'literals', values: present.flatMap((member) => (member.kind === 'literals' ? member.values : [])) };
    else inner = { kind: 'other' };
    return present.length < members.length ? { kind: 'optional', inner, missing } : inner;
  }
  return { kind: 'other' };
}

function shapeOfInitializer(expression: ts.Expression): TypeShape {
  if (expression.kind === ts.SyntaxKind.TrueKeyword || expression.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'boolean' };
  if (ts.isNumericLiteral(expression) || (ts.isPrefixUnaryExpression(expression) && ts.isNumericLiteral(expression.operand))) return { kind: 'number' };
  if (ts.isStringLiteralLike(expression) || ts.isTemplateExpression(expression)) return { kind: 'string' };
  if (ts.isArrayLiteralExpression(expression)) return { kind: 'array', element: { kind: 'any' } };
  if (isFunctionExpression(expression)) return { kind: 'function', parameterNames: expression.parameters.map((parameter) => parameter.name.getText()) };
  if (ts.isNewExpression(expression)) return { kind: 'named', name: expression.expression.getText(), typeArguments: [] };
  return { kind: 'any' };
}

function jsdocTypeOfShape(shape: TypeShape): string {
  switch (shape.kind) {
    case 'boolean':
    case 'string':
    case 'number':
      return shape.kind;
    case 'array':
      return `${jsdocTypeOfShape(shape.element)}[]`;
    case 'function':
      return 'Function';
    case 'named':
      return shape.name;
    default:
      return '*';
  }
}

/** A printed type on one line, without `import("…").` qualifiers. */
function compactType(text: string): string {
  return text
    .replace(/import\((?:"[^"]*"|'[^']*')\)\./g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Words: turning identifiers into English

const ACRONYMS = new Map<string, string>(
  Object.entries({
    id: 'ID', ids: 'IDs', url: 'URL', urls: 'URLs', uri: 'URI', uris: 'URIs', json: 'JSON', html: 'HTML', http: 'HTTP', https: 'HTTPS',
    api: 'API', apis: 'APIs', css: 'CSS', xml: 'XML', sql: 'SQL', ui: 'UI', io: 'I/O', utf8: 'UTF-8', csv: 'CSV', jwt: 'JWT', uuid: 'UUID',
    ast: 'AST', dom: 'DOM', ip: 'IP', tcp: 'TCP', udp: 'UDP', ssh: 'SSH', tls: 'TLS', ssl: 'SSL', os: 'OS', cpu: 'CPU', lsp: 'LSP',
    jsdoc: 'JSDoc', yaml: 'YAML', pdf: 'PDF', svg: 'SVG', png: 'PNG', dto: 'DTO', sha: 'SHA', md5: 'MD5', ttl: 'TTL', tz: 'time zone',
  }),
);

const ABBREVIATIONS = new Map<string, string>(
  Object.entries({
    opts: 'options', opt: 'option', cfg: 'configuration', conf: 'configuration', ctx: 'context', msg: 'message', msgs: 'messages', err: 'error',
    errs: 'errors', req: 'request', res: 'response', resp: 'response', cb: 'callback', fn: 'function', func: 'function', str: 'string',
    num: 'number', idx: 'index', len: 'length', dir: 'directory', dirs: 'directories', src: 'source', dest: 'destination', dst: 'destination',
    env: 'environment', val: 'value', vals: 'values', obj: 'object', arr: 'array', elem: 'element', el: 'element', evt: 'event',
    args: 'arguments', arg: 'argument', params: 'parameters', param: 'parameter', prev: 'previous', cur: 'current', curr: 'current',
    tmp: 'temporary', temp: 'temporary', btn: 'button', pos: 'position', info: 'information', attr: 'attribute', attrs: 'attributes',
    doc: 'document', docs: 'documents', pkg: 'package', ref: 'reference', refs: 'references', col: 'column', cols: 'columns', lib: 'library',
    impl: 'implementation', util: 'utility', utils: 'utilities', auth: 'authentication', repo: 'repository', repos: 'repositories',
    argv: 'command-line arguments', db: 'database', max: 'maximum', min: 'minimum', avg: 'average', desc: 'description', addr: 'address', ts: 'timestamp', seq: 'sequence',
  }),
);

const VERBS = new Set(
  `add append apply assert assign attach await bind build cache calculate calc call cancel capture check clamp clean clear clone close collect
  combine commit compare compile complete compose compress compute concat configure confirm connect construct consume convert copy count create
  debounce decode decorate decrement decrypt define delete deserialize destroy detach detect diff disable disconnect dispatch dispose download
  drain draw drop dump emit enable encode encrypt enqueue dequeue ensure enter escape evaluate eval execute exec exit expand expect export extend extract
  fail fetch fill filter find finish flatten flush fold follow force format generate gen get group guard handle hash hide hydrate import
  include increment infer init initialize inject insert install interpolate invalidate invoke iterate join keep kill launch list listen load
  lock log lookup make map mark match measure merge migrate mount move navigate new normalize notify observe omit open pack pad parse patch pause
  peek perform pick ping place play poll pop post prepare prepend preload print process produce prompt provide publish pull purge push put
  query queue quote read rebuild receive record reduce refresh register reject release reload remove rename render reorder repeat replace
  report request require reset resize resolve restart restore resume retrieve retry revert rewrite rotate round route run sanitize save scan schedule
  scroll search seed select send serialize set setup shift show shuffle shutdown skip slice sort spawn split start stop store strip submit
  subscribe subtract sum swap sync take teardown test throttle toggle tokenize touch trace track transform translate traverse trigger trim
  truncate try unlock unmount unpack unregister unsubscribe unwrap update upload upsert use validate verify visit wait walk warn watch wrap
  write zip accept allow deny listen serve mock stub spy measure sign upgrade downgrade raise
  overwrite override recurse preserve ignore exclude reuse retain abort block dedupe minify bundle inline scale multiply divide negate
  invert reverse stream partition chunk paginate unescape sample delay sleep broadcast authenticate authorize decompress login logout`
    .split(/\s+/)
    .filter(Boolean),
);

const THIRD_PERSON = new Map<string, string>(
  Object.entries({
    be: 'is', have: 'has', do: 'does', go: 'goes', init: 'initializes', setup: 'sets up', teardown: 'tears down', calc: 'calculates',
    exec: 'executes', gen: 'generates', eval: 'evaluates', shutdown: 'shuts down', lookup: 'looks up', new: 'creates', login: 'logs in', logout: 'logs out',
  }),
);

const PAST_PARTICIPLES = new Map<string, string>(
  Object.entries({
    build: 'built', make: 'made', find: 'found', read: 'read', write: 'written', send: 'sent', take: 'taken', run: 'run', split: 'split',
    set: 'set', put: 'put', hide: 'hidden', bind: 'bound', draw: 'drawn', keep: 'kept', stop: 'stopped', map: 'mapped', wrap: 'wrapped',
    drop: 'dropped', strip: 'stripped', trim: 'trimmed', scan: 'scanned', sum: 'summed', submit: 'submitted', emit: 'emitted',
    commit: 'committed', omit: 'omitted', swap: 'swapped', zip: 'zipped', init: 'initialized', calc: 'calculated', gen: 'generated',
    exec: 'executed', eval: 'evaluated', get: 'retrieved', login: 'logged in', logout: 'logged out', pad: 'padded', plan: 'planned', shut: 'shut', seek: 'sought', spin: 'spun',
  }),
);

const PREPOSITIONS = new Set(['by', 'from', 'for', 'with', 'to', 'in', 'into', 'on', 'at', 'of', 'as', 'via', 'within', 'without', 'after', 'before', 'over', 'under', 'between', 'per', 'onto', 'until', 'if', 'or', 'and']);

const ADJECTIVES = new Set(
  `empty valid invalid ready busy idle open closed new old same equal done safe stale full blank visible hidden enabled disabled active inactive
  alive dead locked expired up down online offline sync async pure null undefined defined true false local remote private public absolute
  present absent current different pending prime odd even positive negative finite infinite due overdue dirty clean readonly ok free
  required optional unique sorted connected running stopped paused cancelled canceled complete incomplete supported initialized`
    .split(/\s+/)
    .filter(Boolean),
);

const NOUNS_THAT_LOOK_ADJECTIVAL = new Set(['string', 'thing', 'token', 'signal', 'channel', 'terminal', 'interval', 'total', 'portal', 'modal', 'proposal', 'ring', 'king', 'children', 'often']);

/** The words of an identifier: `getUserById` → `get User By Id`, `MAX_RETRIES` → `MAX RETRIES`. */
function splitIdentifier(name: string): string[] {
  const cleaned = name.replace(/^[#_$]+|[_$]+$/g, '');
  const shouting = !/[a-z]/.test(cleaned);
  const words = cleaned
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_$-]+/)
    .filter(Boolean);
  return shouting ? words.map((word) => word.toLowerCase()) : words;
}

/** One identifier word as it is written in prose. */
function proseWord(word: string): string {
  const lower = word.toLowerCase();
  const acronym = ACRONYMS.get(lower);
  if (acronym) return acronym;
  const expanded = ABBREVIATIONS.get(lower);
  if (expanded) return expanded;
  if (word.length > 1 && word === word.toUpperCase() && /[A-Z]/.test(word)) return word;
  return lower;
}

function phrase(words: readonly string[]): string {
  return words.map(proseWord).join(' ');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return capitalize(/[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`);
}

function thirdPerson(verb: string): string {
  const irregular = THIRD_PERSON.get(verb);
  if (irregular) return irregular;
  if (/(s|x|z|ch|sh|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function pastParticiple(verb: string): string {
  const irregular = PAST_PARTICIPLES.get(verb);
  if (irregular) return irregular;
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  return `${verb}ed`;
}

const LOOKS_LIKE_VERB_BUT_IS_NOT = new Set(['precise', 'concise', 'expertise', 'promise', 'premise', 'otherwise', 'enterprise']);

function isVerb(word: string): boolean {
  const lower = word.toLowerCase();
  return VERBS.has(lower) || (lower.length >= 6 && /(ize|ise|ify)$/.test(lower) && !LOOKS_LIKE_VERB_BUT_IS_NOT.has(lower));
}

function singularize(text: string): string {
  const words = text.split(' ');
  const last = words.pop() ?? '';
  let singular: string;
  if (!isPluralWord(last)) singular = last;
  else if (/ies$/.test(last)) singular = `${last.slice(0, -3)}y`;
  else if (/(s|x|z|ch|sh)es$/.test(last)) singular = last.slice(0, -2);
  else singular = last.slice(0, -1);
  return [...words, singular].join(' ');
}

const QUANTIFIERS = new Set(['all', 'each', 'every', 'any', 'some', 'many', 'multiple', 'both', 'several']);

/** Names like `first` or `max` that pick one element of a collection. */
const SELECTOR_WORDS = new Set(['first', 'last', 'next', 'previous', 'prev', 'min', 'max', 'minimum', 'maximum', 'head', 'tail', 'latest', 'oldest', 'newest']);

function isPluralWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (['data', 'children', 'people', 'metadata', 'options', 'settings', 'arguments', 'parameters', 'credentials', 'headers'].includes(lower)) return true;
  return /[^s]s$/.test(lower) && !/(us|is|ss)$/.test(lower) && lower.length > 3;
}

function pluralize(text: string): string {
  const words = text.split(' ');
  const last = words.pop() ?? '';
  if (isPluralWord(last) || last === '') return text;
  let plural: string;
  if (/^[A-Z0-9]+$/.test(last)) plural = `${last}s`;
  else if (/(s|x|z|ch|sh)$/.test(last)) plural = `${last}es`;
  else if (/[^aeiou]y$/.test(last)) plural = `${last.slice(0, -1)}ies`;
  else plural = `${last}s`;
  return [...words, plural].join(' ');
}

function withArticle(text: string): string {
  if (!text) return text;
  const first = text.split(' ')[0] ?? '';
  if (isPluralWord(first) || isPluralWord(text.split(' ').pop() ?? '')) return text;
  const upper = /^[A-Z0-9/-]{2,}$/.test(first);
  const an = upper ? /^[AEFHILMNORSX8]/.test(first) : /^(?:[aeio]|u(?!ni|se|su|sa|ti|ra|re)|hour|honest)/i.test(first) && !/^one/i.test(first);
  return `${an ? 'an' : 'a'} ${text}`;
}

/** `is {complement}`: `valid`, `a number`, `logged in`. */
function predicateComplement(words: readonly string[]): string {
  const text = phrase(words);
  if (words.length === 0) return 'set';
  const last = (words[words.length - 1] ?? '').toLowerCase();
  const first = (words[0] ?? '').toLowerCase();
  const adjectival =
    ADJECTIVES.has(last) ||
    PREPOSITIONS.has(last) ||
    ['in', 'out', 'up', 'down', 'off'].includes(last) ||
    (ADJECTIVES.has(first) && words.length === 1) ||
    (/(ed|able|ible|ive|al|ful|less|ous|ic|ing|en|ory|ar)$/.test(last) && !NOUNS_THAT_LOOK_ADJECTIVAL.has(last));
  return adjectival || isPluralWord(last) ? text : withArticle(text);
}

/** The words before the first preposition, and the prepositional rest. */
function splitAtPreposition(words: readonly string[]): { head: string[]; tail: string[] } {
  const index = words.findIndex((word) => PREPOSITIONS.has(word.toLowerCase()));
  return index < 0 ? { head: [...words], tail: [] } : { head: words.slice(0, index), tail: words.slice(index) };
}

function lastWordsMatch(a: string, b: string): boolean {
  const singular = (text: string): string => (text.split(' ').pop() ?? '').toLowerCase().replace(/(ies)$/, 'y').replace(/s$/, '');
  return singular(a) !== '' && singular(a) === singular(b);
}

function backticked(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

// ---------------------------------------------------------------------------------------------
// What the declaration is called and where it lives

interface NamingContext {
  kind: DeclarationKind;
  /** The identifier's words, e.g. `get`, `User`, `By`, `Id`. */
  words: string[];
  /** The lower-case first word when it is a verb. */
  verb?: string;
  /** The words after the verb (all words when there is no verb). */
  rest: string[];
  /** ` asynchronously` or ` synchronously` when the name ends with Async or Sync. */
  manner: string;
  /** The enclosing class's prose name: `user cache`. */
  owner?: string;
  /** How the first parameter is referred to as a subject: `the given email`, `` `n` ``. */
  firstParameterSubject?: string;
  firstParameterPhrase?: string;
  /** Whether the first parameter is a destructuring pattern (`{ host, port }`). */
  destructuredFirstParameter?: boolean;
  /** Whether the name has an identifier form (not `[Symbol.iterator]` or a string literal). */
  plainName: boolean;
  rawName: string;
}

function namingContext(kind: DeclarationKind, rawName: string, owner: string | undefined, firstParameter: string | undefined): NamingContext {
  const plainName = /^#?[\w$]+$/.test(rawName) || rawName === '';
  let words = plainName ? splitIdentifier(rawName) : [];
  let manner = '';
  const lastWord = words[words.length - 1]?.toLowerCase();
  if (words.length > 1 && (lastWord === 'async' || lastWord === 'sync')) {
    manner = lastWord === 'async' ? ' asynchronously' : ' synchronously';
    words = words.slice(0, -1);
  }
  const first = words[0]?.toLowerCase() ?? '';
  // `to` and `on` start a verb phrase only with something after them (`toJson`, `onClick`).
  const leadsPhrase = ['is', 'are', 'has', 'have', 'can', 'should'].includes(first) || (['to', 'on'].includes(first) && words.length > 1);
  const verb = isVerb(first) || leadsPhrase ? first : undefined;
  const context: NamingContext = { kind, words, rest: verb ? words.slice(1) : words, manner, plainName, rawName };
  if (verb) context.verb = verb;
  if (owner) context.owner = owner;
  if (firstParameter) {
    const parameterWords = splitIdentifier(firstParameter);
    context.firstParameterPhrase = phrase(parameterWords);
    context.firstParameterSubject = firstParameter.length === 1 ? backticked(firstParameter) : `the given ${phrase(parameterWords)}`;
  }
  return context;
}

/** The clause a boolean-returning name asserts: `the given email is valid`, or undefined for other names. */
function predicateClause(context: NamingContext): string | undefined {
  const subject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : 'it');
  const rest = context.rest;
  switch (context.verb) {
    case 'is':
    case 'are': {
      // `isValidEmail(email)` is about the email: "the given email is valid", not "is a valid email".
      const restWithoutSubject = context.firstParameterPhrase && rest.length > 1 && lastWordsMatch(phrase(rest), context.firstParameterPhrase) ? rest.slice(0, -1) : rest;
      return `${subject} ${context.verb === 'are' && subject === 'it' ? 'they are' : 'is'} ${predicateComplement(restWithoutSubject)}`.replace(/^it they/, 'they');
    }
    case 'has':
    case 'have':
      if (rest.length === 0) return context.firstParameterSubject && context.owner ? `the ${context.owner} contains ${context.firstParameterSubject}` : `${subject} is present`;
      if (context.firstParameterSubject && context.firstParameterPhrase && lastWordsMatch(phrase(rest), context.firstParameterPhrase)) {
        return `${context.owner ? `the ${context.owner}` : 'it'} has ${context.firstParameterSubject}`;
      }
      return `${subject} has ${phrase(rest)}`;
    case 'can':
      return `${context.owner && !context.firstParameterSubject ? `the ${context.owner}` : context.firstParameterSubject ?? 'it'} can ${phrase(rest)}`;
    case 'should':
      return rest[0]?.toLowerCase() === 'be' ? `${subject} should ${phrase(rest)}` : `to ${phrase(rest)}`;
  }
  const last = context.words[context.words.length - 1]?.toLowerCase() ?? '';
  if (!context.verb && context.words.length > 1 && ['exists', 'equals', 'matches', 'contains', 'includes', 'supports', 'needs', 'requires', 'allows'].includes(last)) {
    return `the ${phrase(context.words.slice(0, -1))} ${last}`;
  }
  return undefined;
}

/** What a value-returning name says it produces: `user`, `parsed config`, `JSON representation`. */
function producedNoun(context: NamingContext): string | undefined {
  const leading = (context.words[0] ?? '').toLowerCase();
  if (!context.verb && leading === 'as' && context.words.length > 1) return `${phrase(context.words.slice(1))} representation`;
  const { head } = splitAtPreposition(context.rest);
  if (head.length === 0) return undefined;
  const object = phrase(head);
  switch (context.verb) {
    case undefined:
      return selectorNoun(context) ?? object;
    case 'is': case 'are': case 'has': case 'have': case 'can': case 'should': case 'on':
      return undefined;
    case 'to':
      return `${object} representation`;
    case 'get': case 'find': case 'lookup': case 'load': case 'read': case 'fetch': case 'select': case 'pick': case 'resolve': case 'list':
    case 'query': case 'search': case 'retrieve': case 'collect': case 'receive': case 'take': case 'peek': case 'pop': case 'shift': case 'dequeue': case 'count':
      return context.verb === 'count' ? `number of ${pluralize(object)}` : object;
    case 'create': case 'make': case 'build': case 'new': case 'construct': case 'clone': case 'copy': case 'generate': case 'gen':
      return `new ${object}`;
    default:
      return `${pastParticiple(context.verb)} ${object}`;
  }
}

/** `first item` for `first(items)`: a selector name and what it selects from. */
function selectorNoun(context: NamingContext): string | undefined {
  const word = context.words.length === 1 ? (context.words[0] ?? '').toLowerCase() : '';
  if (!SELECTOR_WORDS.has(word)) return undefined;
  const selected = context.firstParameterPhrase && isPluralWord(context.firstParameterPhrase.split(' ').pop() ?? '') ? singularize(context.firstParameterPhrase) : 'element';
  return `${phrase([word])} ${selected}`;
}

/** The object of a verb: `the user`, `all users`; undefined when the name has none. */
function objectPhrase(head: readonly string[], context: NamingContext): string | undefined {
  if (head.length === 0) return undefined;
  const first = (head[0] ?? '').toLowerCase();
  if (QUANTIFIERS.has(first)) {
    if (head.length > 1) return `${first} ${phrase(head.slice(1))}`;
    return `${first} ${context.firstParameterPhrase ? pluralize(context.firstParameterPhrase) : 'items'}`;
  }
  return `the ${phrase(head)}`;
}

/** A prepositional rest; a bare trailing preposition (`idsOf`) is completed with the first parameter. */
function prepositionalText(tail: readonly string[], context: NamingContext): string {
  if (tail.length === 0) return '';
  const subject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : undefined);
  if (tail.length === 1 && subject) return ` ${phrase(tail)} ${subject}`;
  return ` ${phrase(tail)}`;
}

// ---------------------------------------------------------------------------------------------
// Summary sentences

function functionSummary(context: NamingContext, returns: TypeShape | undefined): string {
  if (!context.rawName) return isNothing(returns ?? { kind: 'void' }) ? "Runs this module's default export." : "Computes the result of this module's default export.";
  if (!context.plainName) return sentence(`Implements ${backticked(context.rawName)}`);
  if (context.words.length === 0) return "Runs this module's default export.";
  const predicate = predicateClause(context);
  if (predicate) return sentence(`Checks whether ${predicate}${context.manner}`);
  const firstWord = (context.words[0] ?? '').toLowerCase();
  if (!context.verb && PREPOSITIONS.has(firstWord)) return prepositionSummary(firstWord, context, returns);
  const { head, tail } = splitAtPreposition(context.rest);
  const object = phrase(head);
  const theObject = objectPhrase(head, context);
  const tailText = prepositionalText(tail, context);
  const returnNoun = returns ? nounOfShape(returns) : undefined;
  const fallbackObject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : returnNoun && returnNoun !== 'value' ? `the ${returnNoun}` : undefined);
  const manner = context.manner;
  switch (context.verb) {
    case 'get':
      return sentence(`Gets ${theObject ?? `the ${returnNoun ?? 'value'}`}${tailText}${manner}`);
    case 'set':
      return sentence(`Sets ${theObject ?? 'the value'}${tailText}${manner}`);
    case 'create':
    case 'make':
    case 'build':
    case 'new': {
      const created = object ? (isPluralWord(head[head.length - 1] ?? '') || QUANTIFIERS.has((head[0] ?? '').toLowerCase()) ? object : withArticle(object)) : `a new ${returnNoun && returnNoun !== 'value' ? returnNoun : (context.owner ?? 'instance')}`;
      return sentence(`Creates ${created}${tailText}${manner}`);
    }
    case 'to': {
      const target = ['string', 'number', 'array', 'object', 'map', 'set', 'list'].includes(object) ? withArticle(object) : object;
      return sentence(`Converts ${context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : 'the value')} to ${target}${manner}`);
    }
    case 'on':
      return sentence(`Handles the ${phrase(context.rest)} event`);
    case undefined: {
      // A noun phrase names what the function computes.
      const selected = selectorNoun(context);
      if (selected) return sentence(`Gets the ${selected}${context.firstParameterSubject && !selected.endsWith('element') ? '' : context.firstParameterSubject ? ` of ${context.firstParameterSubject}` : ''}${manner}`);
      if (returns && !isNothing(returns)) {
        const verbText = context.kind === 'method' && !context.firstParameterSubject ? 'Gets' : 'Computes';
        return sentence(`${verbText} the ${phrase(head)}${tailText}${manner}`);
      }
      return sentence(`Runs the ${phrase(context.words)} routine${manner}`);
    }
    default: {
      const verbText = capitalize(thirdPerson(context.verb));
      if (theObject) return sentence(`${verbText} ${theObject}${tailText}${manner}`);
      if (tail.length > 0) {
        const leadingObject = fallbackObject && ['load', 'read', 'fetch', 'parse', 'create', 'build'].includes(context.verb) && tail.length > 1 ? ` ${fallbackObject}` : '';
        return sentence(`${verbText}${leadingObject}${prepositionalText(tail, context)}${manner}`);
      }
      if (fallbackObject) return sentence(`${verbText} ${fallbackObject}${manner}`);
      return sentence(`${verbText}${context.destructuredFirstParameter ? ' with the given options' : ''}${manner}`);
    }
  }
}

/** Names that start with a preposition: `withStatus`, `fromJson`, `asString`. */
function prepositionSummary(preposition: string, context: NamingContext, returns: TypeShape | undefined): string {
  const rest = phrase(context.words.slice(1));
  const given = rest ? `the given ${rest}` : (context.firstParameterSubject ?? 'the given value');
  switch (preposition) {
    case 'with':
      return sentence(`Returns ${returns?.kind === 'this' ? 'this instance' : 'a copy'} with ${given}`);
    case 'from': {
      const made = returns && returns.kind !== 'any' && returns.kind !== 'other' && !isNothing(returns) ? nounOfShape(returns) : (context.owner ?? 'instance');
      return sentence(`Creates ${withArticle(made)} from ${rest ? (/^[A-Z0-9/-]+$/.test(rest) ? rest : withArticle(rest)) : given}`);
    }
    case 'as':
      return sentence(`Returns ${context.owner && !context.firstParameterSubject ? `the ${context.owner}` : (context.firstParameterSubject ?? 'the value')} as ${rest ? withArticle(rest) : 'another type'}`);
    default:
      return sentence(`Computes the result ${phrase(context.words)}`);
  }
}

function classSummary(node: ts.ClassDeclaration | ts.ClassExpression, root: ts.SourceFile): string {
  const name = node.name?.text;
  const isAbstract = (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Abstract) !== 0;
  const base = name ? phrase(splitIdentifier(name)) : 'the default export of this module';
  let text = name ? `Represents ${withArticle(`${isAbstract ? 'abstract ' : ''}${base}`)}` : `Represents ${base}`;
  const extended = heritage(node.heritageClauses, ts.SyntaxKind.ExtendsKeyword, root);
  const implemented = heritage(node.heritageClauses, ts.SyntaxKind.ImplementsKeyword, root);
  const clauses: string[] = [];
  if (extended.length > 0) clauses.push(`extending ${joinList(extended.map(backticked))}`);
  if (implemented.length > 0) clauses.push(`implementing ${joinList(implemented.map(backticked))}`);
  if (clauses.length > 0) text += `, ${clauses.join(' and ')}`;
  return sentence(text);
}

function interfaceSummary(node: ts.InterfaceDeclaration, root: ts.SourceFile): string {
  const name = node.name.text.replace(/^I(?=[A-Z][a-z])/, '');
  const words = phrase(splitIdentifier(name));
  const subject = isPluralWord(splitIdentifier(name).pop() ?? '') ? `the ${words}` : withArticle(words);
  let text = `Describes the shape of ${subject}`;
  const extended = heritage(node.heritageClauses, ts.SyntaxKind.ExtendsKeyword, root);
  if (extended.length > 0) text += `, extending ${joinList(extended.map(backticked))}`;
  return sentence(text);
}

function heritage(clauses: ts.NodeArray<ts.HeritageClause> | undefined, token: ts.SyntaxKind, root: ts.SourceFile): string[] {
  return (clauses ?? []).filter((clause) => clause.token === token).flatMap((clause) => clause.types.map((type) => compactType(type.getText(root))));
}

function joinList(items: string[], conjunction = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1] ?? ''}`;
}

// ---------------------------------------------------------------------------------------------
// Parameters

interface ParameterEntry {
  /** The name as the `@param` tag writes it: `timeout`, `root0`, `root0.retries`. */
  tagName: string;
  /** The identifier (or property key) the description is derived from. */
  sourceName: string;
  facts: TypeFacts;
  optional: boolean;
  defaultText?: string;
  rest: boolean;
  pattern?: 'object' | 'array';
  /** The parameter's position among the declaration's parameters. */
  position: number;
  isProperty: boolean;
}

function collectParameters(fn: FunctionLike, types: TypeSource, root: ts.SourceFile, rootAliases: Map<number, string>): ParameterEntry[] {
  const entries: ParameterEntry[] = [];
  let destructuredCount = 0;
  const parameters = fn.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'));
  parameters.forEach((parameter, position) => {
    const optional = parameter.questionToken !== undefined || parameter.initializer !== undefined || isJsDocOptional(parameter);
    const defaultText = parameter.initializer ? shortDefault(parameter.initializer, root) : undefined;
    const rest = parameter.dotDotDotToken !== undefined;
    if (ts.isIdentifier(parameter.name)) {
      entries.push(withDefault({ tagName: parameter.name.text, sourceName: parameter.name.text, facts: types.ofBinding(parameter, optional), optional, rest, position, isProperty: false }, defaultText));
      return;
    }
    const rootName = rootAliases.get(position) ?? `root${destructuredCount}`;
    destructuredCount++;
    const pattern = ts.isObjectBindingPattern(parameter.name) ? 'object' : 'array';
    entries.push(withDefault({ tagName: rootName, sourceName: rootName, facts: types.ofBinding(parameter, optional), optional, rest, pattern, position, isProperty: false }, defaultText));
    if (ts.isObjectBindingPattern(parameter.name)) collectPatternProperties(parameter.name, rootName, position, types, root, entries);
  });
  return entries;
}

function collectPatternProperties(pattern: ts.ObjectBindingPattern, prefix: string, position: number, types: TypeSource, root: ts.SourceFile, entries: ParameterEntry[]): void {
  for (const element of pattern.elements) {
    const key = element.propertyName ? propertyKeyText(element.propertyName, root) : ts.isIdentifier(element.name) ? element.name.text : undefined;
    if (!key) continue;
    const tagName = `${prefix}.${key}`;
    const optional = element.initializer !== undefined || (element.dotDotDotToken === undefined && types.isOptionalProperty(pattern, key));
    const defaultText = element.initializer ? shortDefault(element.initializer, root) : undefined;
    const nested = ts.isObjectBindingPattern(element.name) ? 'object' : ts.isArrayBindingPattern(element.name) ? 'array' : undefined;
    const entry: ParameterEntry = { tagName, sourceName: key, facts: types.ofBinding(element, optional), optional, rest: element.dotDotDotToken !== undefined, position, isProperty: true };
    if (nested) entry.pattern = nested;
    entries.push(withDefault(entry, defaultText));
    if (ts.isObjectBindingPattern(element.name)) collectPatternProperties(element.name, tagName, position, types, root, entries);
  }
}

function withDefault(entry: ParameterEntry, defaultText: string | undefined): ParameterEntry {
  if (defaultText !== undefined) entry.defaultText = defaultText;
  return entry;
}

function propertyKeyText(name: ts.PropertyName, root: ts.SourceFile): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return name.getText(root);
}

function isJsDocOptional(parameter: ts.ParameterDeclaration): boolean {
  return ts.getJSDocParameterTags(parameter).some((tag) => tag.isBracketed);
}

/** A default value short enough to quote, on one line. */
function shortDefault(initializer: ts.Expression, root: ts.SourceFile): string | undefined {
  const text = initializer.getText(root).replace(/\s+/g, ' ');
  return text.length <= 40 ? text : undefined;
}

const UNIT_SUFFIXES: Array<[RegExp, string]> = [
  [/^(ms|millis|milliseconds)$/i, 'milliseconds'],
  [/^(sec|secs|seconds)$/i, 'seconds'],
  [/^(mins|minutes)$/i, 'minutes'],
  [/^(hours)$/i, 'hours'],
  [/^(days)$/i, 'days'],
  [/^(px|pixels)$/i, 'pixels'],
  [/^(bytes)$/i, 'bytes'],
  [/^(kb)$/i, 'kilobytes'],
  [/^(mb)$/i, 'megabytes'],
];

/** A description of one parameter derived from its name and type. */
function describeParameter(entry: ParameterEntry, context: NamingContext, positionCount: number): string {
  const shape = entry.facts.shape.kind === 'optional' ? entry.facts.shape.inner : entry.facts.shape;
  let text = parameterPhrase(entry, shape, context, positionCount);
  if (entry.defaultText !== undefined) text += ` Defaults to ${backticked(entry.defaultText)}.`;
  else if (entry.optional) text += ' Optional.';
  return text;
}

function parameterPhrase(entry: ParameterEntry, shape: TypeShape, context: NamingContext, positionCount: number): string {
  if (entry.pattern === 'object') {
    if (entry.isProperty) return sentence(`The ${phrase(splitIdentifier(entry.sourceName))} settings`);
    return shape.kind === 'named' ? sentence(`The ${phrase(splitIdentifier(shape.name))}`) : 'The options object.';
  }
  if (entry.pattern === 'array') return 'The values to destructure.';
  const words = splitIdentifier(entry.sourceName);
  const lowerWords = words.map((word) => word.toLowerCase());
  if (words.length === 0) return sentence(`The ${ordinal(entry.position)} argument`);
  if (shape.kind === 'boolean') {
    const parentName = entry.isProperty ? entry.tagName.split('.').slice(-2, -1)[0] : undefined;
    const parentPhrase = parentName && !/^root\d+$/.test(parentName) ? phrase(splitIdentifier(parentName)) : undefined;
    const subject = parentPhrase ? (/^[A-Z0-9/-]+$/.test(parentPhrase) ? parentPhrase : `the ${parentPhrase}`) : 'it';
    return sentence(whetherPhrase(words, subject));
  }
  if (shape.kind === 'function') return sentence(calledPhrase(words, shape.parameterNames));
  const last = lowerWords[lowerWords.length - 1] ?? '';
  const unit = UNIT_SUFFIXES.find(([pattern]) => pattern.test(last));
  if (unit && (shape.kind === 'number' || shape.kind === 'bigint' || shape.kind === 'any')) {
    const base = phrase(words.slice(0, -1));
    return sentence(`The ${base || 'duration'} in ${unit[1]}`);
  }
  if ((lowerWords[0] === 'max' || lowerWords[0] === 'min') && words.length > 1) {
    const extreme = lowerWords[0] === 'max' ? 'maximum' : 'minimum';
    const rest = words.slice(1);
    return sentence(isPluralWord(rest[rest.length - 1] ?? '') && shape.kind === 'number' ? `The ${extreme} number of ${phrase(rest)}` : `The ${extreme} ${phrase(rest)}`);
  }
  if (last === 'count' && words.length > 1) return sentence(`The number of ${pluralize(phrase(words.slice(0, -1)))}`);
  if (lowerWords[0] === 'num' && words.length > 1) return sentence(`The number of ${phrase(words.slice(1))}`);
  if (shape.kind === 'number' && words.length === 1 && isPluralWord(last)) return sentence(`The number of ${phrase(words)}`);
  const { head: nameHead, tail: nameTail } = splitAtPreposition(context.rest);
  if (!entry.isProperty && nameTail[0]?.toLowerCase() === 'by' && nameHead.length > 0 && phrase(nameTail.slice(1)) === phrase(words) && context.verb) {
    // `getUserById(id)`: the ID of the user to get.
    return sentence(`The ${phrase(words)} of the ${phrase(nameHead)} to ${context.verb === 'lookup' ? 'look up' : context.verb}`);
  }
  if (last === 'id' && words.length > 1) return sentence(`The ID of the ${phrase(words.slice(0, -1))}`);
  if (lowerWords.length === 1 && last === 'id') return 'The identifier.';
  if (entry.sourceName.length === 1) return singleLetterPhrase(entry.sourceName, shape, entry.position, positionCount);
  if (context.kind === 'setter') return sentence(`The new ${phrase(context.words)}`);
  const namePhrase = phrase(words);
  if (entry.position === 0 && !entry.isProperty && context.verb && !['get', 'set', 'is', 'are', 'has', 'have', 'can', 'should', 'to', 'on', 'new'].includes(context.verb)) {
    const { head, tail } = splitAtPreposition(context.rest);
    const verbBase = context.verb === 'calc' ? 'calculate' : context.verb;
    // `compareBy(key)`: the key is what the function compares by.
    if (head.length === 0 && tail.length === 1) return sentence(`The ${namePhrase} to ${verbBase} ${phrase(tail)}`);
    if (head.length === 0 || lastWordsMatch(phrase(head), namePhrase)) return sentence(`The ${namePhrase} to ${verbBase}`);
  }
  if (shape.kind === 'named' && lastWordsMatch(phrase(splitIdentifier(shape.name)), namePhrase) && splitIdentifier(shape.name).length > words.length) {
    return sentence(`The ${phrase(splitIdentifier(shape.name))}`);
  }
  if (shape.kind === 'named' && GENERIC_PARAMETER_NAMES.has(entry.sourceName.toLowerCase()) && !['Object', 'Record', 'Partial', 'Map', 'Set'].includes(shape.name)) {
    return sentence(`The ${phrase(splitIdentifier(shape.name))}`);
  }
  if (entry.rest) return sentence(`The ${pluralize(namePhrase)}`);
  if (words.length === 1 && (ADJECTIVES.has(last) || ['initial', 'final', 'default', 'previous', 'next', 'original', 'fallback'].includes(last))) {
    const noun = shape.kind === 'named' ? nounOfShape(shape) : 'value';
    return sentence(`The ${namePhrase} ${noun}`);
  }
  return sentence(`The ${namePhrase}`);
}

const GENERIC_PARAMETER_NAMES = new Set(['options', 'opts', 'config', 'cfg', 'settings', 'props', 'params', 'args', 'data', 'input', 'payload']);

function ordinal(position: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'][position] ?? `${position + 1}th`;
}

function singleLetterPhrase(name: string, shape: TypeShape, position: number, positionCount: number): string {
  const lower = name.toLowerCase();
  if (['x', 'y', 'z'].includes(lower)) return `The ${lower}-coordinate.`;
  if (['i', 'j', 'k'].includes(lower) && shape.kind === 'number') return 'The index.';
  const noun = nounOfShape(shape);
  return sentence(positionCount > 1 ? `The ${ordinal(position)} ${noun}` : `The ${noun}`);
}

/** `Whether …` for a boolean parameter. */
function whetherPhrase(words: string[], subject: string): string {
  const first = (words[0] ?? '').toLowerCase();
  const rest = words.slice(1);
  switch (first) {
    case 'is':
    case 'are':
      return `Whether ${subject} is ${predicateComplement(rest)}`;
    case 'has':
      return `Whether ${subject} has ${phrase(rest)}`;
    case 'should':
    case 'must':
      return `Whether to ${phrase(rest)}`;
    case 'can':
      return `Whether it can ${phrase(rest)}`;
  }
  if (isVerb(first)) return `Whether to ${phrase(words)}`;
  const text = phrase(words);
  if (words.length === 1 && predicateComplement(words) === text && !isPluralWord(first)) return `Whether ${subject} is ${text}`;
  return /\bmode$/.test(text) ? `Whether ${text} is enabled` : `Whether ${text} mode is enabled`;
}

/** `Called …` for a function-typed parameter. */
function calledPhrase(words: string[], parameterNames: string[]): string {
  const first = (words[0] ?? '').toLowerCase();
  const generic = ['callback', 'cb', 'fn', 'func', 'function', 'handler', 'listener', 'done', 'next'].includes(words.join('').toLowerCase());
  let text = 'Called';
  if (first === 'on' && words.length > 1) text += ` on ${phrase(words.slice(1))}`;
  else if (!generic && isVerb(first)) text += ` to ${phrase(words)}`;
  else if (!generic) text += ` as the ${phrase(words)}`;
  const named = parameterNames.filter((name) => name && !name.startsWith('__'));
  if (named.length > 0) text += `${text === 'Called' ? '' : ','} with ${joinList(named.map(backticked))}`;
  else if (text === 'Called') text += ' with no arguments';
  return text;
}

// ---------------------------------------------------------------------------------------------
// Returns

function isNothing(shape: TypeShape): boolean {
  return shape.kind === 'void' || shape.kind === 'null' || (shape.kind === 'promise' && (shape.inner.kind === 'void' || shape.inner.kind === 'null'));
}

/** A noun for what a type holds: `config`, `strings`, `value`. */
function nounOfShape(shape: TypeShape): string {
  switch (shape.kind) {
    case 'named':
      return phrase(splitIdentifier(shape.name.replace(/^I(?=[A-Z][a-z])/, '')));
    case 'string':
    case 'number':
      return shape.kind;
    case 'bigint':
      return 'big integer';
    case 'boolean':
      return 'flag';
    case 'array':
      return pluralize(nounOfShape(shape.element));
    case 'promise':
      return 'promise';
    case 'function':
      return 'function';
    case 'optional':
      return nounOfShape(shape.inner);
    case 'this':
      return 'instance';
    default:
      return 'value';
  }
}

const ITERATOR_TYPES = new Set(['Generator', 'AsyncGenerator', 'Iterable', 'Iterator', 'IterableIterator', 'AsyncIterable', 'AsyncIterableIterator', 'AsyncIterator']);

function returnsPhrase(shape: TypeShape, context: NamingContext): string {
  const noun = producedNoun(context);
  switch (shape.kind) {
    case 'promise':
      return `a promise that resolves to ${returnsPhrase(shape.inner, context)}`;
    case 'boolean': {
      const predicate = predicateClause(context);
      if (predicate?.startsWith('to ')) return `\`true\` ${predicate}, otherwise \`false\``;
      if (predicate) return `\`true\` if ${predicate}, otherwise \`false\``;
      if (context.verb && ['validate', 'verify', 'check', 'test'].includes(context.verb)) return '`true` if the check passes, otherwise `false`';
      return '`true` if successful, otherwise `false`';
    }
    case 'optional': {
      const lookup = context.verb !== undefined && ['get', 'find', 'lookup', 'search', 'resolve', 'read', 'load', 'fetch', 'query', 'pick', 'select', 'retrieve'].includes(context.verb);
      return `${returnsPhrase(shape.inner, context)}, or \`${shape.missing}\` if ${lookup ? 'not found' : 'there is none'}`;
    }
    case 'this':
      return 'this instance, for chaining';
    case 'array':
      return noun && isPluralWord(noun.split(' ').pop() ?? '') ? `the ${noun}` : `the ${pluralize(noun && lastWordsMatch(noun, nounOfShape(shape.element)) ? noun : nounOfShape(shape.element))}`;
    case 'named': {
      if (ITERATOR_TYPES.has(shape.name)) {
        const element = shape.typeArguments[0];
        return `an iterator over the ${element && element.kind !== 'any' ? pluralize(nounOfShape(element)) : (noun ?? 'values')}`;
      }
      return `the ${noun ?? nounOfShape(shape)}`;
    }
    case 'string':
    case 'number':
    case 'bigint':
      return noun ? `the ${noun}` : `the resulting ${nounOfShape(shape)}`;
    case 'literals':
      return shape.values.length <= 5 ? `one of ${joinList(shape.values.map(backticked), 'or')}` : `the ${noun ?? 'resulting value'}`;
    case 'function':
      return noun ? `the ${noun}` : 'the resulting function';
    case 'null':
    case 'void':
      return 'nothing';
    default:
      return noun ? `the ${noun}` : 'the result';
  }
}

// ---------------------------------------------------------------------------------------------
// Throws

interface ThrowEntry {
  type?: string;
  text: string;
}

/** Every `throw` in the function's own body (not in nested functions or classes), with when it happens. */
function collectThrows(fn: FunctionLike, types: TypeSource, root: ts.SourceFile): ThrowEntry[] {
  const entries: ThrowEntry[] = [];
  if (!fn.body) return entries;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isThrowStatement(node)) {
      const entry = throwEntry(node, fn, types, root);
      if (entry) entries.push(entry);
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn.body, visit);
  return entries;
}

function throwEntry(statement: ts.ThrowStatement, fn: FunctionLike, types: TypeSource, root: ts.SourceFile): ThrowEntry | undefined {
  let thrown: ts.Expression = statement.expression;
  while (ts.isParenthesizedExpression(thrown) || ts.isAsExpression(thrown) || ts.isAwaitExpression(thrown)) thrown = thrown.expression;
  let type: string | undefined;
  if (ts.isNewExpression(thrown)) type = thrown.expression.getText(root);
  else if (ts.isCallExpression(thrown) && ts.isIdentifier(thrown.expression) && /^[A-Z]/.test(thrown.expression.text)) type = thrown.expression.text;
  else type = types.thrownTypeName(thrown);
  let text = throwCondition(statement, fn, root);
  if ((!text || text === CATCH_CONDITION) && ts.isIdentifier(thrown) && isCatchVariable(thrown)) text = 'Rethrows the error raised in the `try` block.';
  const entry: ThrowEntry = { text };
  if (type) entry.type = compactType(type);
  return entry;
}

function isCatchVariable(identifier: ts.Identifier): boolean {
  for (let node: ts.Node | undefined = identifier.parent; node; node = node.parent) {
    if (ts.isCatchClause(node)) return node.variableDeclaration !== undefined && ts.isIdentifier(node.variableDeclaration.name) && node.variableDeclaration.name.text === identifier.text;
    if (ts.isFunctionLike(node)) return false;
  }
  return false;
}

/** `If …` / `Unless …` / `When …` from the nearest enclosing condition, or `''` when the throw is unconditional. */
function throwCondition(statement: ts.ThrowStatement, fn: FunctionLike, root: ts.SourceFile): string {
  let child: ts.Node = statement;
  for (let parent: ts.Node | undefined = statement.parent; parent && parent !== fn; child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent)) {
      if (child === parent.thenStatement) return `If ${backticked(shortCode(parent.expression, root))}.`;
      if (child === parent.elseStatement) return `Unless ${backticked(shortCode(parent.expression, root))}.`;
    }
    if (ts.isCaseClause(parent)) return `When ${backticked(shortCode(parent.parent.parent.expression, root))} is ${backticked(shortCode(parent.expression, root))}.`;
    if (ts.isDefaultClause(parent)) return `When ${backticked(shortCode(parent.parent.parent.expression, root))} matches no case.`;
    if (ts.isCatchClause(parent)) return CATCH_CONDITION;
  }
  return '';
}

const CATCH_CONDITION = 'If the `try` block throws.';

function shortCode(node: ts.Node, root: ts.SourceFile): string {
  const text = node.getText(root).replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 57).trimEnd()}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Type parameters

function templateTags(typeParameters: readonly ts.TypeParameterDeclaration[] | undefined, fn: FunctionLike | undefined, root: ts.SourceFile, javascript: boolean): Array<Omit<JsDocTag, 'raw'>> {
  return (typeParameters ?? []).map((parameter) => {
    const name = parameter.name.text;
    const constraint = parameter.constraint ? compactType(parameter.constraint.getText(root)) : undefined;
    let text = templateUsage(name, fn, root);
    if (constraint && !javascript) text += ` Must extend ${backticked(constraint)}.`;
    if (parameter.default) text += ` Defaults to ${backticked(compactType(parameter.default.getText(root)))}.`;
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'template', name, text };
    if (constraint && javascript) tag.type = constraint;
    return tag;
  });
}

function templateUsage(name: string, fn: FunctionLike | undefined, root: ts.SourceFile): string {
  if (fn) {
    for (const parameter of fn.parameters) {
      const annotation = parameter.type?.getText(root).replace(/\s+/g, '');
      if (!annotation || !ts.isIdentifier(parameter.name)) continue;
      const parameterName = parameter.name.text;
      if (annotation === name) return `The type of ${backticked(parameterName)}.`;
      if ([`${name}[]`, `Array<${name}>`, `readonly${name}[]`, `ReadonlyArray<${name}>`].includes(annotation)) return `The type of the elements of ${backticked(parameterName)}.`;
    }
    const returnAnnotation = fn.type?.getText(root).replace(/\s+/g, '');
    if (returnAnnotation === name || returnAnnotation === `Promise<${name}>`) return 'The type of the result.';
  }
  const descriptive = /^T[A-Z]/.test(name) ? name.slice(1) : name.length > 1 ? name : undefined;
  return descriptive ? `The ${phrase(splitIdentifier(descriptive))} type.` : `The ${name} type parameter.`;
}

// ---------------------------------------------------------------------------------------------
// Assembling the comment

interface GeneratedDoc {
  summary: string;
  templates: Array<Omit<JsDocTag, 'raw'>>;
  parameters: Array<Omit<JsDocTag, 'raw'>>;
  returns?: Omit<JsDocTag, 'raw'>;
  throws: Array<Omit<JsDocTag, 'raw'>>;
}

function writeDocComment(declaration: LocatedDeclaration, target: DeclarationTarget, options: { javascript: boolean }, types: TypeSource): string {
  const root = declaration.node.getSourceFile();
  const existing = target.existingDoc ? parseJsDoc(target.existingDoc.text) : undefined;
  const existingParameterNames = existing ? existing.tags.filter((tag) => isParameterTag(tag.tag)).map((tag) => tag.name ?? '') : [];
  const generated = generateDoc(declaration, root, options.javascript, types, existingParameterNames);
  const hyphen = prefersHyphen(existing?.tags ?? []);
  const toTag = (fields: Omit<JsDocTag, 'raw'>): JsDocTag => ({ ...fields, raw: renderTag(fields, { hyphen }) });
  if (!existing || !target.existingDoc) {
    return renderJsDoc({
      description: generated.summary,
      tags: [...generated.templates, ...generated.parameters, ...(generated.returns ? [generated.returns] : []), ...generated.throws].map(toTag),
    });
  }
  const tags = [...existing.tags];
  let changed = false;
  const description = existing.description.trim() ? existing.description : generated.summary;
  if (!existing.description.trim()) changed = true;

  const documentedTemplates = new Set(tags.filter((tag) => tag.tag === 'template' || tag.tag.toLowerCase() === 'typeparam').flatMap(tagNames));
  for (const template of generated.templates) {
    if (template.name && documentedTemplates.has(template.name)) continue;
    insertByRank(tags, toTag(template));
    changed = true;
  }

  const parameterOrder = generated.parameters.map((tag) => tag.name ?? '');
  // Some authors write rest parameters as `@param ...items`.
  const documentedParameters = new Set(tags.filter((tag) => isParameterTag(tag.tag)).map((tag) => (tag.name ?? '').replace(/^\.\.\./, '')));
  generated.parameters.forEach((parameter, index) => {
    if (documentedParameters.has(parameter.name ?? '')) return;
    insertParameter(tags, toTag(parameter), index, parameterOrder);
    changed = true;
  });

  if (generated.returns && !tags.some((tag) => tag.tag === 'returns' || tag.tag === 'return')) {
    insertByRank(tags, toTag(generated.returns));
    changed = true;
  }

  const existingThrows = tags.filter((tag) => tag.tag === 'throws' || tag.tag === 'throw' || tag.tag === 'exception');
  const coversEveryThrow = existingThrows.some((tag) => tag.type === undefined);
  const documentedThrowTypes = new Set(existingThrows.map((tag) => tag.type));
  if (!coversEveryThrow) {
    for (const thrown of generated.throws) {
      if (documentedThrowTypes.has(thrown.type)) continue;
      insertByRank(tags, toTag(thrown));
      changed = true;
    }
  }

  if (!changed) return unindentBlock(target.existingDoc.text, target.indent);
  return renderJsDoc({ description, tags });
}

function generateDoc(declaration: LocatedDeclaration, root: ts.SourceFile, javascript: boolean, types: TypeSource, existingParameterNames: string[]): GeneratedDoc {
  if (declaration.kind === 'class') {
    return { summary: classSummary(declaration.node, root), templates: templateTags(declaration.node.typeParameters, undefined, root, javascript), parameters: [], throws: [] };
  }
  if (declaration.kind === 'interface') {
    return { summary: interfaceSummary(declaration.node, root), templates: templateTags(declaration.node.typeParameters, undefined, root, javascript), parameters: [], throws: [] };
  }
  const { fn, kind } = declaration;
  const owner = ownerClass(fn);
  const ownerName = owner?.name?.text;
  const ownerPhrase = ownerName ? phrase(splitIdentifier(ownerName)) : undefined;
  const visibleParameters = fn.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'));
  const firstParameter = visibleParameters[0];
  const firstParameterName = firstParameter && ts.isIdentifier(firstParameter.name) ? firstParameter.name.text : undefined;
  const rawName = declarationName(declaration);
  const context = namingContext(kind, rawName, ownerPhrase, firstParameterName);
  if (firstParameter && !ts.isIdentifier(firstParameter.name)) context.destructuredFirstParameter = true;

  const rootAliases = destructuredRootAliases(visibleParameters, existingParameterNames);
  const parameterEntries = collectParameters(fn, types, root, rootAliases);
  const parameters = parameterEntries.map((entry) => {
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'param', name: entry.tagName, text: describeParameter(entry, context, visibleParameters.length) };
    if (javascript) {
      tag.type = entry.facts.jsdocType ?? '*';
      if (entry.optional && !entry.rest) {
        tag.optional = true;
        if (entry.defaultText !== undefined) tag.defaultValue = entry.defaultText;
      }
    }
    return tag;
  });

  const returnFacts = kind === 'constructor' || kind === 'setter' ? undefined : types.ofReturn(fn);
  let summary: string;
  if (kind === 'constructor') summary = sentence(`Creates a new ${ownerName ? backticked(ownerName) : 'instance'}`);
  else if (kind === 'getter') summary = context.plainName && predicateClause(context) ? sentence(`Checks whether ${predicateClause(context) ?? ''}`) : sentence(`Gets the ${context.plainName ? phrase(context.verb === 'get' ? context.rest : context.words) : backticked(rawName)}`);
  else if (kind === 'setter') summary = sentence(`Sets the ${context.plainName ? phrase(context.verb === 'set' ? context.rest : context.words) : backticked(rawName)}`);
  else summary = functionSummary(context, returnFacts?.shape);

  const generated: GeneratedDoc = {
    summary,
    templates: ts.isConstructorDeclaration(fn) || ts.isAccessor(fn) ? [] : templateTags(fn.typeParameters, fn, root, javascript),
    parameters,
    throws: [],
  };
  if (returnFacts && !isNothing(returnFacts.shape)) {
    const returns: Omit<JsDocTag, 'raw'> = { tag: 'returns', text: sentence(returnsPhrase(returnFacts.shape, context)) };
    if (javascript) returns.type = returnFacts.jsdocType ?? '*';
    generated.returns = returns;
  }
  const seen = new Set<string>();
  for (const thrown of collectThrows(fn, types, root)) {
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'throws', text: thrown.text };
    if (thrown.type) tag.type = thrown.type;
    const key = renderTag(tag);
    if (seen.has(key)) continue;
    seen.add(key);
    generated.throws.push(tag);
  }
  return generated;
}

function declarationName(declaration: LocatedDeclaration & { fn: FunctionLike }): string {
  const node = declaration.node;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isFunctionDeclaration(node)) return node.name?.text ?? '';
  if (ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isPropertyDeclaration(node)) {
    const name = node.name;
    return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText();
  }
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) return node.name.text;
  return 'default';
}

function ownerClass(node: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    if (ts.isClassLike(current)) return current;
    if (ts.isSourceFile(current)) return undefined;
  }
  return undefined;
}

/**
 * Names an existing comment already gives destructured parameters (`@param options` for `{ a, b }`),
 * matched by position the way TypeScript matches them, so completing it does not add `root0`.
 */
function destructuredRootAliases(parameters: readonly ts.ParameterDeclaration[], existingNames: string[]): Map<number, string> {
  const aliases = new Map<number, string>();
  const topLevel = existingNames.filter((name) => name && !name.includes('.'));
  const identifierNames = new Set(parameters.flatMap((parameter) => (ts.isIdentifier(parameter.name) ? [parameter.name.text] : [])));
  const unmatched = topLevel.filter((name) => !identifierNames.has(name));
  const destructuredPositions = parameters.flatMap((parameter, position) => (ts.isIdentifier(parameter.name) ? [] : [position]));
  if (destructuredPositions.length === 1 && unmatched.length === 1 && destructuredPositions[0] !== undefined && unmatched[0]) {
    aliases.set(destructuredPositions[0], unmatched[0]);
    return aliases;
  }
  for (const position of destructuredPositions) {
    const name = topLevel[position];
    if (name && !identifierNames.has(name)) aliases.set(position, name);
  }
  return aliases;
}

function isParameterTag(tag: string): boolean {
  return tag === 'param' || tag === 'arg' || tag === 'argument';
}

/** Whether new tags should separate name and text with ` - `, following the existing comment's style. */
function prefersHyphen(tags: readonly JsDocTag[]): boolean {
  const described = tags.filter((tag) => (isParameterTag(tag.tag) || tag.tag === 'template') && tag.name && tag.text);
  if (described.length === 0) return true;
  return described.some((tag) => /^@\S+\s+(?:\{[^}]*\}\s*)?(?:\[[^\]]*\]|\S+)\s+-\s/.test(tag.raw));
}

const TAG_RANK: Record<string, number> = { template: 0, typeParam: 0, typeparam: 0, param: 1, arg: 1, argument: 1, returns: 2, return: 2, throws: 3, throw: 3, exception: 3 };

/** Inserts a tag among the known tags by the conventional order: template, param, returns, throws. */
function insertByRank(tags: JsDocTag[], tag: JsDocTag): void {
  const rank = TAG_RANK[tag.tag] ?? 4;
  const later = tags.findIndex((existing) => (TAG_RANK[existing.tag] ?? Infinity) > rank && TAG_RANK[existing.tag] !== undefined);
  if (later >= 0) {
    tags.splice(later, 0, tag);
    return;
  }
  let lastEarlier = -1;
  tags.forEach((existing, index) => {
    const existingRank = TAG_RANK[existing.tag];
    if (existingRank !== undefined && existingRank <= rank) lastEarlier = index;
  });
  if (lastEarlier >= 0) tags.splice(lastEarlier + 1, 0, tag);
  else tags.push(tag);
}

/** Inserts a `@param` next to its neighbours in parameter order. */
function insertParameter(tags: JsDocTag[], tag: JsDocTag, orderIndex: number, order: readonly string[]): void {
  const positionOf = (existing: JsDocTag): number => (isParameterTag(existing.tag) ? order.indexOf(existing.name ?? '') : -1);
  let after = -1;
  tags.forEach((existing, index) => {
    const position = positionOf(existing);
    if (position >= 0 && position < orderIndex) after = index;
  });
  if (after >= 0) {
    tags.splice(after + 1, 0, tag);
    return;
  }
  const before = tags.findIndex((existing) => positionOf(existing) > orderIndex);
  if (before >= 0) {
    tags.splice(before, 0, tag);
    return;
  }
  insertByRank(tags, tag);
}
