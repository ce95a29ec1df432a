// Where a declaration is used: the language service's references, grouped by file and by the declaration they are in, searched in the config's files, the workspace files it leaves out that name the declaration, and the compiled copies a package's own name resolves to.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { nodesAt } from '../../agents/offline/declarationLocator.js';
import type { DeclarationTarget } from '../declarations.js';
import { isCompiledCopyOf } from '../../workspace/builtOutput.js';
import { filesOutsideConfig } from '../../workspace/workspaceProject.js';
import type { ReferenceFile, ReferenceSummary } from './codeStructure.js';
import { MAX_SITES, type Analysis } from './structureAnalysis.js';
import { lineOf, relativePath } from './structureText.js';

/** Bounds on the references listed, so a symbol used everywhere stays cheap to describe. */
const MAX_REFERENCE_FILES = 200;
const MAX_USERS_PER_FILE = 30;
/** Most files outside the config added to one search: each is parsed and bound with the program. */
const MAX_OUTSIDE_FILES = 300;

/**
 * The references of the declaration at `target`. Beside the project's own files (the config's, loaded by
 * `openAnalysis`), the search covers the workspace's files the config leaves out that name the declaration (tests
 * a tsconfig excludes), laid over the project for this search only, and the compiled declarations of the same file
 * the program reached (a test importing the package by its own name gets the package's `.d.ts`, not its source):
 * a use of the same declaration there is a use of this one.
 */
export function referencesOf(a: Analysis, target: DeclarationTarget, typeLike: boolean): ReferenceSummary | undefined {
  const service = a.service as ts.LanguageService;
  const word = searchedName(target);
  const outside = a.workspace && a.scope ? outsideFilesNaming(a, word) : { files: [], truncated: false };
  let summary: ReferenceSummary | undefined;
  const search = (): void => {
    summary = collect(a, service, target, typeLike);
  };
  if (a.workspace && outside.files.length > 0) a.workspace.withOverlay(outside.files, search);
  else search();
  if (!summary) return undefined;
  const config = a.workspace?.configFile;
  summary.searched = {
    ...(config ? { config: relativePath(a.root, config) } : {}),
    files: a.scope?.files ?? 0,
    others: outside.files.length,
    othersTruncated: outside.truncated,
    name: word,
  };
  return summary;
}

function collect(a: Analysis, service: ts.LanguageService, target: DeclarationTarget, typeLike: boolean): ReferenceSummary | undefined {
  // The program holds the files laid over it now; the analysis's is the one before.
  const program = service.getProgram() ?? (a.program as ts.Program);
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
  const through = new Map<string, number>();
  const add = (references: readonly ts.ReferencedSymbolEntry[], copy?: string): void => {
    for (const reference of references) {
      if (reference.isDefinition) continue;
      const key = `${reference.fileName}:${reference.textSpan.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const source = program.getSourceFile(reference.fileName);
      if (!source) continue;
      // The build's own files re-export and mention each other: not the workspace's code.
      if (copy && (source.isDeclarationFile || a.workspace?.files.unlisted(reference.fileName) === 'built-or-vendored')) continue;
      const node = nodesAt(source, reference.textSpan.start).at(-1) as ts.Node;
      if (isInImportOrExport(node)) continue;
      const call = isCalled(node);
      total++;
      if (call) calls++;
      if (copy) through.set(copy, (through.get(copy) ?? 0) + 1);
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
  };
  for (const group of found ?? []) add(group.references);
  for (const copy of compiledCopiesIn(program, a)) {
    const at = sameDeclaration(copy, target);
    if (at === undefined) continue;
    let copied: readonly ts.ReferencedSymbol[] | undefined;
    try {
      copied = service.findReferences(copy.fileName, at);
    } catch {
      continue;
    }
    for (const group of copied ?? []) add(group.references, relativePath(a.root, copy.fileName));
  }
  const files = [...byFile.values()].sort((x, y) => y.count - x.count || x.file.localeCompare(y.file));
  for (const file of files) for (const user of file.users) user.lines.sort((x, y) => x - y);
  const summary: ReferenceSummary = { total, calls, files, scope: a.scope ?? { files: 0, truncated: false } };
  if (through.size > 0) summary.through = [...through].map(([file, count]) => ({ file, count }));
  return summary;
}

/** The name a use of the declaration writes: its own, or its class's for a constructor. */
function searchedName(target: DeclarationTarget): string {
  if (target.kind !== 'constructor') return target.simpleName;
  return target.name.split('.').at(-2) ?? target.simpleName;
}

/**
 * The workspace's files outside the project's config (and not in its program already) whose text names `word`, with
 * their text from the disk, at most MAX_OUTSIDE_FILES; JavaScript only when the options allow it.
 */
function outsideFilesNaming(a: Analysis, word: string): { files: { path: string; text: string }[]; truncated: boolean } {
  const workspace = a.workspace;
  if (!workspace) return { files: [], truncated: false };
  const project = workspace.tsProject();
  const allowJs = project.getCompilerOptions().allowJs === true;
  const naming = new RegExp(`(?<![\\w$])${word.replace(/[$]/g, '\\$')}(?![\\w$])`);
  const { names, truncated } = filesOutsideConfig(workspace);
  const files: { path: string; text: string }[] = [];
  let more = false;
  for (const name of names) {
    if (!/\.[cm]?tsx?$/i.test(name) && !(allowJs && /\.[cm]?jsx?$/i.test(name))) continue;
    if (project.getSourceFile(name)) continue;
    let text: string;
    try {
      text = fs.readFileSync(name, 'utf8');
    } catch {
      continue;
    }
    if (!naming.test(text)) continue;
    if (files.length >= MAX_OUTSIDE_FILES) {
      more = true;
      break;
    }
    files.push({ path: path.resolve(name), text });
  }
  return { files, truncated: truncated || more };
}

/**
 * The declaration files of the program that are compiled copies of the analysed file (`isCompiledCopyOf`): inside
 * the workspace, not in `node_modules` (an installed package is a dependency, not this code's build).
 */
function compiledCopiesIn(program: ts.Program, a: Analysis): ts.SourceFile[] {
  const sourceRelative = relativePath(a.root, a.fileName);
  if (!a.workspace || sourceRelative.startsWith('..') || path.isAbsolute(sourceRelative)) return [];
  const packages = a.workspace.files.packageFolders();
  const copies: ts.SourceFile[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.isDeclarationFile) continue;
    const relative = relativePath(a.root, file.fileName);
    if (relative.startsWith('..') || path.isAbsolute(relative) || relative.split('/').includes('node_modules')) continue;
    if (isCompiledCopyOf(relative, sourceRelative, packages)) copies.push(file);
  }
  return copies;
}

/**
 * The position of the name of the declaration in `copy` that is `target` compiled: a top-level function, variable,
 * class or interface of the same name, or the same-named member (or the constructor) of the same-named class or
 * interface. Undefined when the copy has none.
 */
function sameDeclaration(copy: ts.SourceFile, target: DeclarationTarget): number | undefined {
  const parts = target.name.split('.');
  const container = parts.length > 1 ? parts.at(-2) : undefined;
  const named = (node: ts.Node, name: string | undefined): boolean => name !== undefined && (node as ts.NamedDeclaration).name?.getText(copy) === name;
  for (const statement of copy.statements) {
    if (container === undefined) {
      if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) && named(statement, target.simpleName)) return (statement.name as ts.Node).getStart(copy);
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) if (named(declaration, target.simpleName)) return declaration.name.getStart(copy);
      }
      continue;
    }
    if (!(ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) || !named(statement, container)) continue;
    for (const member of statement.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>) {
      if (target.kind === 'constructor' && ts.isConstructorDeclaration(member)) return member.getStart(copy);
      if (target.kind !== 'constructor' && named(member, target.simpleName)) return ((member as ts.NamedDeclaration).name as ts.Node).getStart(copy);
    }
  }
  return undefined;
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
