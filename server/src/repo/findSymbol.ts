// Finds the declarations a request names: in the given document, then the open documents, then the workspace files.
import fs from 'node:fs';
import path from 'node:path';
import type { DocumentSource, DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { languageIdForPath, pathToUri } from '../workspace/documentSnapshot.js';
import { declarationsNamed } from './declarations.js';
import type { DeclarationTarget } from './declarations.js';
import { workspaceExclusion } from '../privacy/exclusion.js';

export interface FoundDeclaration {
  document: DocumentSnapshot;
  target: DeclarationTarget;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'out', 'coverage', '.assistant']);
const MAX_FILES = 5_000;
const MAX_FILE_BYTES = 2_000_000;

/**
 * Declarations named `name` (a simple name or `Container.member`), nearest scope first. Files on disk that the
 * workspace keeps from the assistant (ignored, secret-looking) are not searched; open documents are.
 */
export function findDeclarations(name: string, root: string, documents: DocumentSource, preferred?: DocumentSnapshot, signal?: AbortSignal): FoundDeclaration[] {
  const seen = new Set<string>();
  const results: FoundDeclaration[] = [];
  const search = (document: DocumentSnapshot): void => {
    if (seen.has(document.uri)) return;
    seen.add(document.uri);
    if (!document.text.includes(name.split('.').pop() ?? name)) return;
    for (const target of declarationsNamed(document.fsPath ?? document.uri, document.text, name)) results.push({ document, target });
  };
  if (preferred) search(preferred);
  if (results.length) return results;
  for (const uri of documents.openUris()) {
    const doc = documents.get(uri);
    if (doc) search(doc);
  }
  if (results.length) return results;
  for (const file of sourceFiles(root)) {
    signal?.throwIfAborted();
    const uri = pathToUri(file);
    if (seen.has(uri)) continue;
    const open = documents.get(uri);
    if (open) {
      search(open);
      continue;
    }
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_FILE_BYTES) continue;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    search({ uri, fsPath: file, languageId: languageIdForPath(file), version: null, text });
  }
  return results;
}

function* sourceFiles(root: string): Generator<string> {
  const stack = [root];
  const exclusion = workspaceExclusion(root).view();
  const excluded = (file: string, isDirectory: boolean): boolean => {
    const relative = exclusion.relative(file);
    return relative !== undefined && exclusion.checkRelative(relative, isDirectory) !== undefined;
  };
  let count = 0;
  while (stack.length) {
    const dir = stack.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.') && !excluded(path.join(dir, entry.name), true)) stack.push(path.join(dir, entry.name));
      } else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && !excluded(path.join(dir, entry.name), false)) {
        if (++count > MAX_FILES) return;
        yield path.join(dir, entry.name);
      }
    }
  }
}
