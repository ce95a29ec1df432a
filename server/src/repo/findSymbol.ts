// Finds the declarations a request names: in the given document, then the open documents, then the workspace's files the index names.
import { ts } from 'ts-morph';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { pathToUri, syntaxFileName } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import { simpleNameOf } from './lexical/lexicalIndex.js';
import { declarationsNamed, withSyntaxTree } from './declarations.js';
import type { DeclarationTarget } from './declarations.js';

/** Most files on disk read for one name (a name declared in more is too common to say which one was meant). */
const MAX_FILES = 200;

export interface FoundDeclaration {
  document: DocumentSnapshot;
  target: DeclarationTarget;
}

/**
 * Declarations named `name` (a simple name or `Container.member`, case aside), nearest scope first. On disk, the
 * files searched are those the workspace's index holds a declaration of that simple name in: the one lookup by name,
 * over the listed source files (nothing ignored, secret-looking, built, vendored or reached through a symlink out of
 * the workspace), those `preferred` imports first, then by their weight in the import graph; open documents are
 * searched whatever they are.
 */
export async function findDeclarations(name: string, workspace: Workspace, preferred?: DocumentSnapshot, signal?: AbortSignal): Promise<FoundDeclaration[]> {
  const seen = new Set<string>();
  const results: FoundDeclaration[] = [];
  const search = (document: DocumentSnapshot): void => {
    if (seen.has(document.uri)) return;
    seen.add(document.uri);
    if (!document.text.includes(simpleNameOf(name))) return;
    for (const target of declarationsNamed(document.fsPath ?? document.uri, document.text, name)) results.push({ document, target });
  };
  if (preferred) search(preferred);
  if (results.length) return results;
  const documents = workspace.documents;
  for (const uri of documents.openUris()) {
    const doc = documents.get(uri);
    if (doc) search(doc);
  }
  if (results.length) return results;
  const index = workspace.index;
  await index.current(signal);
  // The declaration the code means: one the document reaches through its imports, else the package's main code before
  // a legacy copy or a test (`fileReach.ts`), each before others of the same standing by path.
  const near = preferred?.fsPath ? index.relativePath(preferred.fsPath) : undefined;
  const reached = near !== undefined ? index.reachedFrom(near) : new Set<string>();
  const standing = (relative: string): number => (reached.has(relative) ? 1 : 0) + index.fileWeight(relative);
  const declared = [...new Map(index.declarations(() => true, MAX_FILES * 4, simpleNameOf(name)).map((declaration) => [declaration.path, declaration.fsPath])).entries()];
  const files = declared.map(([relative, fsPath]) => ({ fsPath, standing: standing(relative) })).sort((a, b) => b.standing - a.standing).map((file) => file.fsPath);
  for (const file of files.slice(0, MAX_FILES)) {
    signal?.throwIfAborted();
    // The editor's text when the file is open, else the disk's.
    const document = documents.get(pathToUri(file));
    if (document) search(document);
  }
  return results;
}

/**
 * Where the document binds a simple name, declaration or not: `export const safeParse = make(…)` binds `safeParse`
 * though no declaration lists it. Each is the range of the statement (or member) that binds it.
 */
export function bindingsNamed(document: DocumentSnapshot, name: string): { start: number; end: number }[] {
  const simple = simpleNameOf(name);
  if (!document.text.includes(simple)) return [];
  return withSyntaxTree(syntaxFileName(document), document.text, (source) => {
    const found: { start: number; end: number }[] = [];
    const visit = (node: ts.Node): void => {
      const named = (ts.isVariableDeclaration(node) || ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node)) && node.name !== undefined && ts.isIdentifier(node.name) && node.name.text === simple;
      if (named) {
        // A variable's statement, so the range holds its `export const` and its type.
        const whole = ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && ts.isVariableStatement(node.parent.parent) ? node.parent.parent : node;
        found.push({ start: whole.getStart(source), end: whole.getEnd() });
        return;
      }
      // Bindings inside function bodies are locals, not what a request names.
      if (ts.isFunctionLike(node) && !ts.isClassLike(node)) return;
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(source, visit);
    return found;
  });
}
