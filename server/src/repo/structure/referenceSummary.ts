// Where a declaration is used: the language service's references, grouped by file and by the declaration they are in.
import { ts } from 'ts-morph';
import { nodesAt } from '../../agents/offline/declarationLocator.js';
import type { DeclarationTarget } from '../declarations.js';
import type { ReferenceFile, ReferenceSummary } from './codeStructure.js';
import { MAX_SITES, type Analysis } from './structureAnalysis.js';
import { lineOf, relativePath } from './structureText.js';

/** Bounds on the references listed, so a symbol used everywhere stays cheap to describe. */
const MAX_REFERENCE_FILES = 200;
const MAX_USERS_PER_FILE = 30;

export function referencesOf(a: Analysis, target: DeclarationTarget, typeLike: boolean): ReferenceSummary | undefined {
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
  return { total, calls, files, scope: a.scope ?? { files: 0, truncated: false } };
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
