// The target's names resolved through its file's imports, by syntax alone: the declaration the code actually uses, in the file an import leads to (re-exports followed), found before any lookup by name.
import path from 'node:path';
import { ts } from 'ts-morph';
import { firstStatementEndingFrom, parseDocument } from '../repo/declarations.js';
import { resolveImport } from '../repo/lexical/fileReach.js';
import { MAX_SYMBOLS, MAX_TARGET_IDENTIFIERS } from './contextLimits.js';
import { describeDeclaration, kindOf } from './symbolCandidates.js';
import type { FoundDeclaration } from './symbolCandidates.js';

/** A name the target uses, with the member it reads of it when qualified (`util.joinValues`, `StandardSchemaV1.FailureResult`). */
export interface NameUse {
  name: string;
  member?: string;
}

/** Where the resolver reads files: workspace-relative paths of the files that exist, and their current texts. */
export interface ModuleFiles {
  root: string;
  has(relative: string): boolean;
  text(fsPath: string): string | undefined;
}

/** A name as its file binds it at the top level: imported from a module, or declared there. */
type Binding = { specifier: string; imported: string } | { nodes: ts.Node[] };

/** What a name resolves to: declarations, or a whole module (`import * as util`). */
type Resolved = { nodes: ts.Node[]; source: ts.SourceFile } | { module: ts.SourceFile };

/** Re-exports followed at most this deep: `index.ts` → `core/index.ts` → `core/errors.ts` is three. */
const MAX_DEPTH = 8;
/** Declarations a declaration's own types lead to (the `Issue` of `FailureResult.issues`), per request. */
export const MAX_SECOND_HOP = 3;

const bindingCache = new WeakMap<ts.SourceFile, Map<string, Binding>>();

/** The names a file binds at its top level, by import or declaration; nothing from inside functions. */
export function topLevelBindings(source: ts.SourceFile): Map<string, Binding> {
  const known = bindingCache.get(source);
  if (known) return known;
  const bindings = new Map<string, Binding>();
  const declare = (name: string, node: ts.Node): void => {
    const existing = bindings.get(name);
    if (existing && 'nodes' in existing) existing.nodes.push(node);
    else if (!existing) bindings.set(name, { nodes: [node] });
  };
  for (const statement of source.statements) declarationsOf(statement, declare, (name, binding) => bindings.set(name, binding));
  bindingCache.set(source, bindings);
  return bindings;
}

function declarationsOf(statement: ts.Statement, declare: (name: string, node: ts.Node) => void, bind: (name: string, binding: Binding) => void): void {
  if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
    const specifier = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    if (clause?.name) bind(clause.name.text, { specifier, imported: 'default' });
    const named = clause?.namedBindings;
    if (named && ts.isNamespaceImport(named)) bind(named.name.text, { specifier, imported: '*' });
    else if (named) for (const element of named.elements) bind(element.name.text, { specifier, imported: (element.propertyName ?? element.name).text });
    return;
  }
  if (ts.isVariableStatement(statement)) {
    for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) declare(declaration.name.text, declaration);
    return;
  }
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) && statement.name && ts.isIdentifier(statement.name)) {
    declare(statement.name.text, statement);
  }
}

function isExported(node: ts.Node): boolean {
  const statement = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isDefaultExport(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

/** Resolves names through the import graph of one request's files; each file is parsed once, from its current text. */
export class ImportGraph {
  private readonly sources = new Map<string, ts.SourceFile | undefined>();

  /** `known`: the request's document as already parsed, so a cycle back to it does not parse it again. */
  constructor(
    private readonly files: ModuleFiles,
    known?: ts.SourceFile,
  ) {
    if (known) this.sources.set(path.resolve(known.fileName), known);
  }

  /** The file a relative import of `from` leads to; none for a package or a path alias (the lexical fallback's). */
  moduleOf(from: ts.SourceFile, specifier: string): ts.SourceFile | undefined {
    if (!specifier.startsWith('.')) return undefined;
    const relative = path.relative(this.files.root, from.fileName).split(path.sep).join('/');
    const target = resolveImport(relative, specifier, this.files);
    return target === undefined ? undefined : this.source(path.join(this.files.root, target));
  }

  private source(fsPath: string): ts.SourceFile | undefined {
    if (this.sources.has(fsPath)) return this.sources.get(fsPath);
    const text = this.files.text(fsPath);
    // A tree from the shared parse cache: it is never changed, so its nodes may outlive this request.
    const source = text === undefined ? undefined : parseDocument(fsPath, text);
    this.sources.set(fsPath, source);
    return source;
  }

  /** What `name` means at the top level of `source`: its own declarations, else what an import brings. */
  resolveLocal(source: ts.SourceFile, name: string, depth = 0): Resolved | undefined {
    const binding = topLevelBindings(source).get(name);
    if (!binding || depth > MAX_DEPTH) return undefined;
    if ('nodes' in binding) return { nodes: binding.nodes, source };
    const module = this.moduleOf(source, binding.specifier);
    if (!module) return undefined;
    return binding.imported === '*' ? { module } : this.resolveExport(module, binding.imported, depth + 1, new Set());
  }

  /** What a module exports as `name`: a declaration of its own, a local it exports under that name, or a re-export. */
  resolveExport(source: ts.SourceFile, name: string, depth: number, seen: Set<ts.SourceFile>): Resolved | undefined {
    if (depth > MAX_DEPTH || seen.has(source)) return undefined;
    seen.add(source);
    const own = topLevelBindings(source).get(name);
    if (name !== 'default' && own && 'nodes' in own) {
      const exported = own.nodes.filter(isExported);
      if (exported.length > 0) return { nodes: exported, source };
    }
    const stars: ts.SourceFile[] = [];
    for (const statement of source.statements) {
      if (name === 'default' && isDefaultExport(statement)) return { nodes: [statement], source };
      if (name === 'default' && ts.isExportAssignment(statement) && ts.isIdentifier(statement.expression)) return this.resolveLocal(source, statement.expression.text, depth + 1);
      if (!ts.isExportDeclaration(statement)) continue;
      const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? this.moduleOf(source, statement.moduleSpecifier.text) : undefined;
      const clause = statement.exportClause;
      if (!clause) {
        if (from) stars.push(from);
      } else if (ts.isNamespaceExport(clause)) {
        if (clause.name.text === name && from) return { module: from };
      } else {
        const element = clause.elements.find((e) => e.name.text === name);
        if (!element) continue;
        const local = (element.propertyName ?? element.name).text;
        if (statement.moduleSpecifier) return from ? this.resolveExport(from, local, depth + 1, new Set()) : undefined;
        return this.resolveLocal(source, local, depth + 1);
      }
    }
    for (const star of stars) {
      const found = this.resolveExport(star, name, depth + 1, seen);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * The declaration a use means: for a qualified use, the member of the module or namespace its head names (a
   * namespace's member is what the code reads, not the whole namespace); the best-ranked of merged declarations.
   */
  declarationOf(resolved: Resolved, member: string | undefined): FoundDeclaration | undefined {
    if ('module' in resolved) {
      if (member === undefined) return undefined;
      const inner = this.resolveExport(resolved.module, member, 0, new Set());
      return inner ? this.declarationOf(inner, undefined) : undefined;
    }
    if (member !== undefined) {
      for (const node of resolved.nodes) {
        const found = ts.isModuleDeclaration(node) ? namespaceMember(node, member) : undefined;
        if (found) return describeDeclaration(found, resolved.source, false);
      }
    }
    const ranked = resolved.nodes.filter((node) => kindOf(node)).sort((a, b) => (kindOf(a)?.rank ?? 9) - (kindOf(b)?.rank ?? 9));
    const best = ranked[0];
    return best ? describeDeclaration(best, resolved.source, false) : undefined;
  }

  /**
   * The types a declaration's own text names, resolved where it is written (a namespace's siblings first, then its
   * file's top level): `FailureResult { issues: ReadonlyArray<Issue> }` leads to `Issue`.
   */
  typesNamedBy(declaration: FoundDeclaration, max: number): FoundDeclaration[] {
    const out: FoundDeclaration[] = [];
    const names: NameUse[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
        const use = ts.isTypeReferenceNode(node) ? useOfEntity(node.typeName) : ts.isIdentifier(node.expression) ? { name: node.expression.text } : undefined;
        if (use && !names.some((n) => n.name === use.name && n.member === use.member)) names.push(use);
      }
      ts.forEachChild(node, visit);
    };
    visit(declaration.node);
    const typeParameters = new Set(((declaration.node as { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }).typeParameters ?? []).map((p) => p.name.text));
    for (const use of names) {
      if (out.length >= max) break;
      if (typeParameters.has(use.name)) continue;
      const block = enclosingNamespace(declaration.node);
      const sibling = block && use.member === undefined ? namespaceMember(block, use.name) : undefined;
      const found = sibling ? describeDeclaration(sibling, declaration.source, false) : this.useIn(declaration.source, use);
      if (found && found.node !== declaration.node && !out.some((f) => f.node === found.node)) out.push(found);
    }
    return out;
  }

  /** A use resolved at the top level of `source`. */
  useIn(source: ts.SourceFile, use: NameUse): FoundDeclaration | undefined {
    const resolved = this.resolveLocal(source, use.name);
    return resolved ? this.declarationOf(resolved, use.member) : undefined;
  }
}

function namespaceMember(namespace: ts.ModuleDeclaration, name: string): ts.Node | undefined {
  const body = namespace.body;
  if (!body || !ts.isModuleBlock(body)) return undefined;
  for (const statement of body.statements) {
    let found: ts.Node | undefined;
    declarationsOf(statement, (declared, node) => void (declared === name && !found && (found = node)), () => undefined);
    if (found) return found;
  }
  return undefined;
}

function enclosingNamespace(node: ts.Node): ts.ModuleDeclaration | undefined {
  for (let current = node.parent; current; current = current.parent) if (ts.isModuleDeclaration(current)) return current;
  return undefined;
}

function useOfEntity(name: ts.EntityName): NameUse | undefined {
  if (ts.isIdentifier(name)) return { name: name.text };
  return ts.isIdentifier(name.left) ? { name: name.left.text, member: name.right.text } : undefined;
}

/** What a target's code names: resolved through its file, or left for a lookup by name. */
export interface TargetNames {
  /** Names its file binds at the top level, in order of first use, qualified when the code reads a member of them. */
  uses: NameUse[];
  /**
   * What no declaration of the file answers and only a lookup by name can place: methods called on values (not the
   * built-in ones), and code-shaped names (called, constructed, typed with, capitalised) that are neither the
   * target's own locals nor globals: a script's names, a missing import.
   */
  byName: { simple: string; member: boolean }[];
}

/**
 * The names a target's code uses. A local shadowing a top-level name is rare enough to be taken for it; the
 * target's own parameters and locals are no other file's to answer.
 */
export function targetUses(source: ts.SourceFile, target: { start: number; end: number }): TargetNames {
  const bindings = topLevelBindings(source);
  const uses: NameUse[] = [];
  const locals = new Set<string>();
  const shaped: { simple: string; member: boolean }[] = [];
  let visited = 0;
  const visit = (node: ts.Node): void => {
    // Pruned by the full span (leading trivia included), which is cheap: finding where a node's code starts means
    // scanning its comments. An identifier counts only when its own code overlaps the target.
    if (visited > MAX_TARGET_IDENTIFIERS || node.end <= target.start || node.pos >= target.end) return;
    if (!ts.isIdentifier(node)) {
      ts.forEachChild(node, visit);
      return;
    }
    visited++;
    if (node.getStart(source) >= target.end) return;
    const parent = node.parent;
    const called = ts.isPropertyAccessExpression(parent) && parent.name === node && ts.isCallExpression(parent.parent) && parent.parent.expression === parent;
    if ((ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isQualifiedName(parent) && parent.right === node)) {
      if (called && !shaped.some((s) => s.simple === node.text)) shaped.push({ simple: node.text, member: true });
      return;
    }
    if (declares(parent, node)) {
      locals.add(node.text);
      return;
    }
    if (bindings.has(node.text)) {
      const member = ts.isPropertyAccessExpression(parent) && parent.expression === node ? parent.name.text : ts.isQualifiedName(parent) && parent.left === node ? parent.right.text : undefined;
      if (!uses.some((u) => u.name === node.text && u.member === member)) uses.push(member !== undefined ? { name: node.text, member } : { name: node.text });
      return;
    }
    const callee = (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === node;
    const typed = ts.isTypeReferenceNode(parent) || ts.isExpressionWithTypeArguments(parent);
    if ((callee || typed || /^[A-Z]/.test(node.text)) && !shaped.some((s) => s.simple === node.text)) shaped.push({ simple: node.text, member: false });
  };
  // The statements the target overlaps, found by halving: a file has hundreds of statements after it.
  const statements = source.statements;
  for (let i = firstStatementEndingFrom(source, target.start + 1); i < statements.length && (statements[i] as ts.Statement).pos < target.end; i++) visit(statements[i] as ts.Statement);
  const byName = shaped.filter(({ simple, member }) => (member ? !BUILT_IN_METHODS.has(simple) : !locals.has(simple) && !(simple in globalThis))).slice(0, MAX_SYMBOLS);
  return { uses, byName };
}

/** Methods of the built-in prototypes: `issues.sort(…)` calls the array's, not a workspace method of that name. */
const BUILT_IN_METHODS = new Set(
  [Array, String, Object, Map, Set, Promise, Function, Number, RegExp, Date, WeakMap, Error].flatMap((type) => Object.getOwnPropertyNames(type.prototype)).concat(Object.getOwnPropertyNames(JSON), Object.getOwnPropertyNames(Math)),
);

/** Whether an identifier is the name a node declares or a property it names, not a use of a binding. */
function declares(parent: ts.Node, node: ts.Identifier): boolean {
  const named = (parent as ts.NamedDeclaration).name === node;
  if (!named) return false;
  return !ts.isShorthandPropertyAssignment(parent);
}
