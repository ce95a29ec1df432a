// The structure of a declaration or a selection, read from the syntax and the type checker: what Explain shows offline and what a model is told.
import path from 'node:path';
import { ts } from 'ts-morph';
import { parseJsDoc } from '../edits/jsdoc.js';
import { locateDeclaration, nodesAt } from '../agents/offline/declarationLocator.js';
import type { LocatedDeclaration } from '../agents/offline/declarationLocator.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationAt, parseDocument } from './declarations.js';
import type { DeclarationKind, DeclarationTarget } from './declarations.js';
import { loadWorkspaceFiles } from './workspaceFiles.js';
import type { WorkspaceScope } from './workspaceFiles.js';
import type { WorkspaceProject } from './workspaceProject.js';

/** What to describe: a declaration (with its syntax-only target) or a range of code. Offsets are UTF-16 into the text. */
export interface StructureTarget {
  name: string;
  start: number;
  end: number;
  declaration?: DeclarationTarget;
}

/** A place in the workspace: a workspace-relative path with forward slashes and a 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** One function (or constructor) the code calls, with every call site of it counted once. */
export interface CallSummary {
  /** `parseEntries`, `JSON.parse`, `Map.get`; for an unresolved callee, its text. */
  name: string;
  /** A `new` expression. */
  construct: boolean;
  count: number;
  /** The declaration in the workspace it resolves to. */
  declaredAt?: SourceLocation;
  /** What declares it when that is not workspace code, e.g. `TypeScript lib`, `@types/node`, `node:fs`. */
  external?: string;
  /** What the callee is when it is only known at run time: `parameter`, `variable`. */
  holder?: string;
  /** The callee was not resolved (no type information, or no declaration found). */
  unresolved?: boolean;
}

/** Where the code is used: references found by the TypeScript language service, grouped by file. */
export interface ReferenceSummary {
  total: number;
  calls: number;
  files: ReferenceFile[];
  /** How much of the workspace was searched (a large workspace is searched within its first files). */
  scope: WorkspaceScope;
}

export interface ReferenceFile {
  file: string;
  count: number;
  /** References by the declaration they are in, in order of appearance. */
  users: ReferenceUser[];
}

export interface ReferenceUser {
  /** `run`, `ConfigStore.load`; absent for code at the top level of the file. */
  name?: string;
  lines: number[];
  /** Some of these references are not calls (the function passed as a value, a type annotation). */
  asValue: boolean;
}

export type BranchLabel = 'if' | 'case' | '?:' | 'loop' | 'catch' | '&&' | '||' | '??' | '&&=' | '||=' | '??=';

/** The decision points in the code and the cyclomatic complexity they make (1 + one per decision point). */
export interface BranchSummary {
  counts: Partial<Record<BranchLabel, number>>;
  /** The conditions of `if`s, `case`s, ternaries, loops and `catch`es, in source order. */
  sites: { label: BranchLabel; line: number; text: string }[];
  complexity: number;
}

export interface ThrowSummary {
  line: number;
  /** `RangeError`, or `the caught error`. */
  type?: string;
  /** `when \`x < 0\``, `unless …`, `in the catch block`. */
  when?: string;
}

export interface MemberSummary {
  name: string;
  kind: 'method' | 'property' | 'constructor' | 'getter' | 'setter' | 'index';
  /** The member's signature or type: `load(): Promise<Config>`, `cached: Config | undefined`. */
  signature: string;
  line: number;
  modifiers: string[];
  /** For members with code. */
  complexity?: number;
}

export interface CodeStructure {
  subject: 'declaration' | 'selection';
  /** `parseEntries`, `ConfigStore.load`, `the selection`. */
  name: string;
  kind: DeclarationKind | 'selection';
  file: string;
  line: number;
  endLine: number;
  /** `exported`, `async`, `static`, `private`, `abstract`, `generator`. */
  modifiers: string[];
  /** Whether the type checker answered (types, call resolution, references); otherwise syntax alone. */
  typed: boolean;
  /** `parseEntries(text: string, strict?: boolean): Entry[]`, `class ConfigStore extends Base`. */
  signature?: string;
  documentation?: { summary: string; tags: string[]; deprecated?: string };
  returns?: { type?: string; points: { line: number; text: string }[] };
  members?: MemberSummary[];
  calls: CallSummary[];
  /** Call sites in all, including the ones folded into `calls`. */
  callSites: number;
  references?: ReferenceSummary;
  /** Why the references are missing, when they were looked for. */
  referencesUnavailable?: string;
  branches: BranchSummary;
  throws: ThrowSummary[];
  awaits: number;
  /** For a selection: the declaration it is in. */
  enclosing?: string;
  /** For a selection: its statements (or the one expression it is). */
  statements?: { line: number; text: string }[];
  /** For a selection that is one expression: its type. */
  expressionType?: string;
  /** For a selection: names it declares, reads from outside, and writes outside. */
  declares?: string[];
  reads?: string[];
  writes?: string[];
}

/** Longest piece of code quoted in a structure. */
const MAX_QUOTE = 72;
/** Bounds on what is collected, so a huge function or a symbol used everywhere stays cheap to describe. */
const MAX_CALLS = 200;
const MAX_SITES = 60;
const MAX_REFERENCE_FILES = 200;
const MAX_USERS_PER_FILE = 30;
const MAX_NAMES = 60;

/** Structures already computed for a document snapshot: agents of one run share the snapshot, so each target is read once. */
const computed = new WeakMap<DocumentSnapshot, Map<string, CodeStructure>>();

/**
 * The structure of `target` in `document`. The workspace's files are loaded into the project only for
 * declarations (whose references are searched); a failing project leaves a structure from the syntax alone.
 */
export function codeStructure(workspace: WorkspaceProject, document: DocumentSnapshot, target: StructureTarget, signal?: AbortSignal): CodeStructure {
  const key = `${target.start}:${target.end}:${target.declaration?.kind ?? ''}`;
  const known = computed.get(document)?.get(key);
  if (known) return known;
  signal?.throwIfAborted();
  const analysis = openAnalysis(workspace, document, target.declaration !== undefined, signal);
  signal?.throwIfAborted();
  const declaration = target.declaration ? locateDeclaration(analysis.source, target.declaration) : undefined;
  const structure = declaration && target.declaration ? describeDeclaration(analysis, target.declaration, declaration, signal) : describeSelection(analysis, target, document);
  signal?.throwIfAborted();
  const forDocument = computed.get(document) ?? new Map<string, CodeStructure>();
  forDocument.set(key, structure);
  computed.set(document, forDocument);
  return structure;
}

// ---------------------------------------------------------------------------------------------
// The program

interface Analysis {
  source: ts.SourceFile;
  /** The workspace folder, for relative paths. */
  root: string;
  /** Absolute path of the document (a stand-in for untitled buffers). */
  fileName: string;
  /** The path shown for the document. */
  displayName: string;
  checker?: ts.TypeChecker;
  program?: ts.Program;
  service?: ts.LanguageService;
  scope?: WorkspaceScope;
  /** Why there is no checker. */
  untyped?: string;
}

function openAnalysis(workspace: WorkspaceProject, document: DocumentSnapshot, withReferences: boolean, signal: AbortSignal | undefined): Analysis {
  const root = workspace.root;
  const fileName = document.fsPath ?? path.join(root, '__assistant_untitled__', document.languageId.startsWith('javascript') ? 'untitled.js' : 'untitled.ts');
  const displayName = document.fsPath ? relativePath(root, document.fsPath) : document.uri;
  try {
    const file = workspace.sourceFile(fileName, document.text);
    // Only the document's own text must be current; the other files come from the disk.
    const scope = withReferences && document.fsPath ? loadWorkspaceFiles(workspace, signal) : undefined;
    signal?.throwIfAborted();
    // The language service's program serves both the checker and the references, so it is built once.
    const service = workspace.tsProject().getLanguageService().compilerObject;
    const program = service.getProgram();
    const source = program?.getSourceFile(fileName);
    if (program && source) return { source, root, fileName, displayName, checker: program.getTypeChecker(), program, service, ...(scope ? { scope } : {}) };
    // A JavaScript file outside a tsconfig without `allowJs` is not in the program.
    return { source: file.compilerNode, root, fileName, displayName, untyped: 'the file is not part of the TypeScript project' };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { source: parseDocument(fileName, document.text), root, fileName, displayName, untyped: `the TypeScript project did not load: ${(error as Error).message.replace(/[.\s]+$/, '')}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Declarations

function describeDeclaration(a: Analysis, target: DeclarationTarget, located: LocatedDeclaration, signal: AbortSignal | undefined): CodeStructure {
  const node = located.node;
  const structure: CodeStructure = {
    subject: 'declaration',
    name: target.name,
    kind: target.kind,
    file: a.displayName,
    line: lineOf(a.source, target.start),
    endLine: lineOf(a.source, target.end),
    modifiers: modifiersOf(node),
    typed: a.checker !== undefined,
    calls: [],
    callSites: 0,
    branches: branchesOf(a.source, [node]),
    throws: throwsOf(a, [node]),
    awaits: 0,
  };
  if (target.existingDoc) structure.documentation = documentationOf(target.existingDoc.text);
  if (located.kind === 'class' || located.kind === 'interface') {
    structure.signature = headerOf(a.source, located.node);
    structure.members = located.kind === 'class' ? classMembers(a, located.node) : interfaceMembers(a, located.node);
  } else {
    const fn = located.fn;
    if (fn.asteriskToken) structure.modifiers.push('generator');
    if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) structure.modifiers.push('async');
    structure.signature = functionSignature(a, fn, target.simpleName);
    structure.awaits = awaitsOf(fn);
    if (located.kind !== 'constructor' && located.kind !== 'setter') structure.returns = returnsOf(a, fn);
  }
  if (located.kind !== 'interface') Object.assign(structure, callsOf(a, [node]));
  signal?.throwIfAborted();
  if (a.service && a.program) structure.references = referencesOf(a, target, located.kind === 'class' || located.kind === 'interface');
  else structure.referencesUnavailable = a.untyped ?? 'no type information';
  return structure;
}

function modifiersOf(node: ts.Node): string[] {
  const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
  const out: string[] = [];
  if (flags & ts.ModifierFlags.Export) out.push('exported');
  if (flags & ts.ModifierFlags.Default) out.push('default');
  if (flags & ts.ModifierFlags.Abstract) out.push('abstract');
  if (flags & ts.ModifierFlags.Static) out.push('static');
  if (flags & ts.ModifierFlags.Private || (ts.isClassElement(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name))) out.push('private');
  if (flags & ts.ModifierFlags.Protected) out.push('protected');
  if (flags & ts.ModifierFlags.Readonly) out.push('readonly');
  return out;
}

/** `name(params): Return` from the checker, or the declaration's own header text when there is no checker. */
function functionSignature(a: Analysis, fn: ts.SignatureDeclaration, name: string): string {
  const signature = a.checker?.getSignatureFromDeclaration(fn);
  if (a.checker && signature) {
    const text = a.checker.signatureToString(signature, fn, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope);
    if (ts.isConstructorDeclaration(fn)) return `constructor${text.replace(/\):[^():]*$/, ')')}`;
    if (ts.isGetAccessorDeclaration(fn)) return `get ${name}${text}`;
    if (ts.isSetAccessorDeclaration(fn)) return `set ${name}${text.replace(/\):[^():]*$/, ')')}`;
    return `${name}${text}`;
  }
  if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
    // `const name = (…) => …`: the header starts at the type parameters or parameters, and the name is the variable's.
    const from = (fn.typeParameters ?? fn.parameters).pos - 1;
    return `${name}${oneLine(a.source.text.slice(from, fn.body.getStart(a.source)).replace(/=>\s*$/, ''), 160)}`;
  }
  return headerOf(a.source, fn);
}

/** The declaration's text up to its body, on one line: what a reader sees of its signature. */
function headerOf(source: ts.SourceFile, node: ts.Node): string {
  const bodyStart = ts.isClassLike(node) || ts.isInterfaceDeclaration(node) ? node.members.pos - 1 : (node as ts.FunctionLikeDeclaration).body?.getStart(source);
  const text = source.text.slice(node.getStart(source), bodyStart ?? node.getEnd());
  return oneLine(text.replace(/=>\s*$/, '').replace(/\{\s*$/, ''), 160);
}

function returnsOf(a: Analysis, fn: ts.SignatureDeclaration): CodeStructure['returns'] {
  const returns: NonNullable<CodeStructure['returns']> = { points: [] };
  const signature = a.checker?.getSignatureFromDeclaration(fn);
  if (a.checker && signature) returns.type = a.checker.typeToString(a.checker.getReturnTypeOfSignature(signature), fn, ts.TypeFormatFlags.NoTruncation);
  else if (fn.type) returns.type = oneLine(fn.type.getText(a.source), 120);
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (!body) return returns;
  if (!ts.isBlock(body)) {
    returns.points.push({ line: lineOf(a.source, body.getStart(a.source)), text: quote(body, a.source) });
    return returns;
  }
  forOwnCode(body, (node) => {
    if (ts.isReturnStatement(node) && returns.points.length < MAX_SITES) returns.points.push({ line: lineOf(a.source, node.getStart(a.source)), text: node.expression ? quote(node.expression, a.source) : '(nothing)' });
  });
  return returns;
}

function awaitsOf(fn: ts.Node): number {
  let count = 0;
  forOwnCode(fn, (node) => {
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) count++;
  });
  return count;
}

/** Visits the code that runs as part of `root` itself: not the bodies of functions and classes declared inside it. */
function forOwnCode(root: ts.Node, visit: (node: ts.Node) => void): void {
  const walk = (node: ts.Node): void => {
    visit(node);
    if (node !== root && (ts.isFunctionLike(node) || ts.isClassLike(node))) return;
    ts.forEachChild(node, walk);
  };
  ts.forEachChild(root, walk);
}

function documentationOf(block: string): NonNullable<CodeStructure['documentation']> {
  const parsed = parseJsDoc(block);
  const summary = parsed.description.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  const deprecated = parsed.tags.find((t) => t.tag === 'deprecated');
  return {
    summary: clip(summary, 300),
    tags: [...new Set(parsed.tags.map((t) => `@${t.tag}`))],
    ...(deprecated ? { deprecated: clip(deprecated.text.replace(/\s+/g, ' ').trim(), 200) } : {}),
  };
}

function classMembers(a: Analysis, node: ts.ClassDeclaration | ts.ClassExpression): MemberSummary[] {
  const members: MemberSummary[] = [];
  for (const member of node.members) {
    const name = member.name ? member.name.getText(a.source) : '';
    const line = lineOf(a.source, member.getStart(a.source));
    const modifiers = modifiersOf(member).filter((m) => m !== 'exported');
    if (ts.isConstructorDeclaration(member)) {
      members.push({ name: 'constructor', kind: 'constructor', signature: functionSignature(a, member, 'constructor'), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
      // Parameter properties are fields too.
      for (const parameter of member.parameters) {
        if (!ts.isParameterPropertyDeclaration(parameter, member)) continue;
        members.push({ name: parameter.name.getText(a.source), kind: 'property', signature: propertySignature(a, parameter), line: lineOf(a.source, parameter.getStart(a.source)), modifiers: modifiersOf(parameter) });
      }
    } else if (ts.isMethodDeclaration(member)) {
      members.push({ name, kind: 'method', signature: functionSignature(a, member, name), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
    } else if (ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) {
      members.push({ name, kind: ts.isGetAccessorDeclaration(member) ? 'getter' : 'setter', signature: functionSignature(a, member, name), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
    } else if (ts.isPropertyDeclaration(member)) {
      const fn = member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer)) ? member.initializer : undefined;
      if (fn) members.push({ name, kind: 'method', signature: functionSignature(a, fn, name), line, modifiers, complexity: branchesOf(a.source, [fn]).complexity });
      else members.push({ name, kind: 'property', signature: propertySignature(a, member), line, modifiers });
    } else if (ts.isIndexSignatureDeclaration(member)) {
      members.push({ name: '[index]', kind: 'index', signature: oneLine(member.getText(a.source), 120), line, modifiers });
    }
  }
  return members;
}

function propertySignature(a: Analysis, node: ts.PropertyDeclaration | ts.ParameterDeclaration): string {
  const name = node.name.getText(a.source);
  const optional = node.questionToken ? '?' : '';
  let type = node.type ? node.type.getText(a.source) : undefined;
  if (a.checker) type = a.checker.typeToString(a.checker.getTypeAtLocation(node), node, ts.TypeFormatFlags.NoTruncation);
  return oneLine(`${name}${optional}${type ? `: ${type}` : ''}`, 140);
}

function interfaceMembers(a: Analysis, node: ts.InterfaceDeclaration): MemberSummary[] {
  return node.members.map((member): MemberSummary => {
    const kind: MemberSummary['kind'] = ts.isMethodSignature(member) || ts.isCallSignatureDeclaration(member) || ts.isConstructSignatureDeclaration(member) ? 'method' : ts.isIndexSignatureDeclaration(member) ? 'index' : 'property';
    // The interface's own words are its signature: the checker would only expand aliases.
    return { name: member.name?.getText(a.source) ?? '[index]', kind, signature: oneLine(member.getText(a.source).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '').replace(/[;,]\s*$/, ''), 140), line: lineOf(a.source, member.getStart(a.source)), modifiers: modifiersOf(member) };
  });
}

// ---------------------------------------------------------------------------------------------
// Calls

function callsOf(a: Analysis, roots: readonly ts.Node[]): { calls: CallSummary[]; callSites: number } {
  const byKey = new Map<string, CallSummary>();
  let callSites = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      callSites++;
      const { key, call } = resolveCall(a, node);
      const known = byKey.get(key);
      if (known) known.count++;
      else if (byKey.size < MAX_CALLS) byKey.set(key, call);
    }
    ts.forEachChild(node, visit);
  };
  roots.forEach(visit);
  return { calls: [...byKey.values()], callSites };
}

function resolveCall(a: Analysis, call: ts.CallExpression | ts.NewExpression): { key: string; call: CallSummary } {
  const construct = ts.isNewExpression(call);
  const callee = skipOuterExpressions(call.expression);
  const nameNode = calleeName(callee);
  const text = nameNode && ts.isIdentifier(nameNode) ? nameNode.text : oneLine(callee.getText(a.source), 40);
  const unresolved = (): { key: string; call: CallSummary } => ({ key: `?${construct}:${text}`, call: { name: text, construct, count: 1, unresolved: true } });
  if (!a.checker) {
    // Without types, a plain name still leads to a declaration of this file or to the module it is imported from.
    const found = nameNode && ts.isIdentifier(callee) ? syntaxIndex(a).get(callee.text) : undefined;
    return found ? { key: `${found.external ?? ''}:${found.line ?? ''}:${text}`, call: { name: text, construct, count: 1, ...(found.line !== undefined ? { declaredAt: { file: a.displayName, line: found.line } } : { external: found.external as string }) } } : unresolved();
  }
  if (callee.kind === ts.SyntaxKind.SuperKeyword) {
    const declaration = a.checker.getResolvedSignature(call as ts.CallExpression)?.declaration;
    const owner = declaration && ts.isConstructorDeclaration(declaration) ? declaration.parent.name?.text : undefined;
    if (!declaration || ts.isJSDocSignature(declaration)) return unresolved();
    return { key: keyOf(declaration), call: { name: owner ? `super (${owner})` : 'super', construct: false, count: 1, ...placeOf(a, declaration) } };
  }
  let symbol = nameNode ? a.checker.getSymbolAtLocation(nameNode) : undefined;
  let importedFrom: string | undefined;
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
    importedFrom = moduleOfImport(symbol.declarations?.[0]);
    symbol = a.checker.getAliasedSymbol(symbol);
  }
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (!symbol || !declaration) {
    // An import the checker could not follow (no types installed) still says where it comes from.
    if (importedFrom && !importedFrom.startsWith('.')) return { key: `${importedFrom}:${text}`, call: { name: text, construct, count: 1, external: importedFrom } };
    return unresolved();
  }
  const name = qualifiedName(declaration, symbol.name);
  return { key: keyOf(declaration), call: { name, construct, count: 1, ...placeOf(a, declaration) } };
}

const syntaxIndexes = new WeakMap<ts.SourceFile, Map<string, { line?: number; external?: string }>>();

/** Names declared at the top level of the file (their lines) and names imported from packages (their modules). */
function syntaxIndex(a: Analysis): Map<string, { line?: number; external?: string }> {
  const known = syntaxIndexes.get(a.source);
  if (known) return known;
  const index = new Map<string, { line?: number; external?: string }>();
  for (const statement of a.source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.importClause) {
      const module = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      const names = [clause.name, ...(clause.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements.map((e) => e.name) : [])];
      for (const name of names) if (name) index.set(name.text, { external: module });
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      index.set(statement.name.text, { line: lineOf(a.source, statement.name.getStart(a.source)) });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) index.set(declaration.name.text, { line: lineOf(a.source, declaration.name.getStart(a.source)) });
      }
    }
  }
  syntaxIndexes.set(a.source, index);
  return index;
}

function skipOuterExpressions(node: ts.Expression): ts.Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current) || ts.isNonNullExpression(current) || ts.isAsExpression(current) || ts.isTypeAssertionExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
  return current;
}

function calleeName(callee: ts.Expression): ts.Node | undefined {
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isElementAccessExpression(callee)) return callee.argumentExpression;
  return undefined;
}

function moduleOfImport(declaration: ts.Declaration | undefined): string | undefined {
  for (let node: ts.Node | undefined = declaration; node; node = node.parent) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) return node.moduleReference.expression.text;
  }
  return undefined;
}

function keyOf(declaration: ts.Node): string {
  return `${declaration.getSourceFile().fileName}:${declaration.pos}`;
}

/** `Class.member` for members of classes and interfaces (`JSON.parse`, `Map.get`), the plain name otherwise. */
function qualifiedName(declaration: ts.Node, name: string): string {
  const parent = declaration.parent;
  if (parent && (ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent)) && parent.name) return `${parent.name.text}.${name}`;
  return name;
}

/** Where a declaration is: a workspace file and line, a library, or a parameter/variable known only at run time. */
function placeOf(a: Analysis, declaration: ts.Node): Pick<CallSummary, 'declaredAt' | 'external' | 'holder'> {
  const file = declaration.getSourceFile();
  const external = externalSource(a, file);
  if (external) return { external };
  const named = (declaration as ts.NamedDeclaration).name ?? declaration;
  const at: SourceLocation = { file: file.fileName === a.fileName ? a.displayName : relativePath(a.root, file.fileName), line: lineOf(file, named.getStart(file)) };
  if (ts.isParameter(declaration)) return { declaredAt: at, holder: 'parameter' };
  if ((ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration) || ts.isPropertySignature(declaration)) && !isFunctionValued(declaration)) return { declaredAt: at, holder: ts.isVariableDeclaration(declaration) ? 'variable' : 'property' };
  return { declaredAt: at };
}

function isFunctionValued(declaration: ts.VariableDeclaration | ts.PropertyDeclaration | ts.PropertySignature): boolean {
  const initializer = 'initializer' in declaration ? declaration.initializer : undefined;
  return initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer) || ts.isClassExpression(initializer));
}

/** The library a file belongs to, or undefined for workspace code. */
function externalSource(a: Analysis, file: ts.SourceFile): string | undefined {
  if (a.program?.isSourceFileDefaultLibrary(file)) return 'TypeScript lib';
  const normalized = file.fileName.split(path.sep).join('/');
  const at = normalized.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const parts = normalized.slice(at + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? 'a library');
  }
  if (a.program?.isSourceFileFromExternalLibrary(file)) return 'a library';
  const relative = path.relative(a.root, file.fileName);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'outside the workspace';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// References

function referencesOf(a: Analysis, target: DeclarationTarget, typeLike: boolean): ReferenceSummary | undefined {
  const service = a.service as ts.LanguageService;
  const program = a.program as ts.Program;
  let found: readonly ts.ReferencedSymbol[] | undefined;
  try {
    found = service.findReferences(a.fileName, target.nameStart);
  } catch {
    return undefined;
  }
  const seen = new Set<string>();
  const byFile = new Map<string, ReferenceFile>();
  let total = 0;
  let calls = 0;
  for (const group of found ?? []) {
    for (const reference of group.references) {
      if (reference.isDefinition) continue;
      const key = `${reference.fileName}:${reference.textSpan.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const source = program.getSourceFile(reference.fileName);
      if (!source) continue;
      const node = nodesAt(source, reference.textSpan.start).at(-1) as ts.Node;
      if (isInImportOrExport(node)) continue;
      const call = isCalled(node);
      total++;
      if (call) calls++;
      const file = relativePath(a.root, reference.fileName);
      let entry = byFile.get(file);
      if (!entry) {
        if (byFile.size >= MAX_REFERENCE_FILES) continue;
        entry = { file, count: 0, users: [] };
        byFile.set(file, entry);
      }
      entry.count++;
      const name = enclosingName(node, source);
      let user = entry.users.find((u) => u.name === name);
      if (!user && entry.users.length < MAX_USERS_PER_FILE) {
        user = { ...(name !== undefined ? { name } : {}), lines: [], asValue: false };
        entry.users.push(user);
      }
      if (!user) continue;
      if (user.lines.length < MAX_SITES) user.lines.push(lineOf(source, reference.textSpan.start));
      if (!call && !typeLike) user.asValue = true;
    }
  }
  const files = [...byFile.values()].sort((x, y) => y.count - x.count || x.file.localeCompare(y.file));
  for (const file of files) for (const user of file.users) user.lines.sort((x, y) => x - y);
  return { total, calls, files, scope: a.scope ?? { files: 0, of: 0, truncated: false } };
}

function isInImportOrExport(node: ts.Node): boolean {
  for (let current: ts.Node | undefined = node; current; current = current.parent) {
    if (ts.isImportDeclaration(current) || ts.isImportEqualsDeclaration(current) || ts.isExportDeclaration(current)) return true;
    if (ts.isStatement(current)) return false;
  }
  return false;
}

/** Whether the reference is the callee of a call or `new`. */
function isCalled(node: ts.Node): boolean {
  let callee: ts.Node = node;
  if (node.parent && ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) callee = node.parent;
  const parent = callee.parent;
  return parent !== undefined && (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === callee;
}

/** The function, method or class a node is in (`run`, `ConfigStore.load`); undefined at the top level. */
function enclosingName(node: ts.Node, source: ts.SourceFile): string | undefined {
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    const container = current.parent && (ts.isClassLike(current.parent) || ts.isInterfaceDeclaration(current.parent)) ? current.parent.name?.text : undefined;
    const member = (name: string): string => (container ? `${container}.${name}` : name);
    if (ts.isFunctionDeclaration(current) && current.name) return current.name.text;
    if ((ts.isMethodDeclaration(current) || ts.isGetAccessorDeclaration(current) || ts.isSetAccessorDeclaration(current) || ts.isPropertyDeclaration(current)) && current.name) return member(current.name.getText(source));
    if (ts.isConstructorDeclaration(current)) return member('constructor');
    if ((ts.isArrowFunction(current) || ts.isFunctionExpression(current)) && current.parent && ts.isVariableDeclaration(current.parent) && ts.isIdentifier(current.parent.name)) return current.parent.name.text;
    if (ts.isClassLike(current) && current.name) return current.name.text;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Branches and throws

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

function throwsOf(a: Analysis, roots: readonly ts.Node[]): ThrowSummary[] {
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

// ---------------------------------------------------------------------------------------------
// Selections

function describeSelection(a: Analysis, target: StructureTarget, document: DocumentSnapshot): CodeStructure {
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
      if (ts.isReturnStatement(node) && returns.length < MAX_SITES) returns.push({ line: lineOf(a.source, node.getStart(a.source)), text: node.expression ? quote(node.expression, a.source) : '(nothing)' });
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

// ---------------------------------------------------------------------------------------------
// Text helpers

function lineOf(source: ts.SourceFile, offset: number): number {
  return source.getLineAndCharacterOfPosition(offset).line + 1;
}

function relativePath(root: string, fileName: string): string {
  const relative = path.relative(root, fileName);
  return (relative.startsWith('..') || path.isAbsolute(relative) ? fileName : relative).split(path.sep).join('/');
}

function oneLine(text: string, max = MAX_QUOTE): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** A node's code on one line, shortened for quoting. */
function quote(node: ts.Node, source: ts.SourceFile): string {
  return oneLine(node.getText(source));
}

/** Inline markdown code that survives backticks inside it. */
export function code(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}
