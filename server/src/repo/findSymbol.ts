// Finds the declarations a request names: in the given document, then the open documents, then the workspace files.
import fs from 'node:fs';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import { languageIdForPath, pathToUri } from '../workspace/documentSnapshot.js';
import { MAX_WORKSPACE_FILE_BYTES } from '../workspace/workspaceFiles.js';
import { declarationsNamed } from './declarations.js';
import type { DeclarationTarget } from './declarations.js';

export interface FoundDeclaration {
  document: DocumentSnapshot;
  target: DeclarationTarget;
}

/**
 * Declarations named `name` (a simple name or `Container.member`), nearest scope first. On disk, the workspace's
 * listed source files are searched (its listing: nothing ignored, secret-looking, built, vendored or reached
 * through a symlink out of the workspace); open documents are searched whatever they are.
 */
export function findDeclarations(name: string, workspace: Workspace, preferred?: DocumentSnapshot, signal?: AbortSignal): FoundDeclaration[] {
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
  const documents = workspace.documents;
  for (const uri of documents.openUris()) {
    const doc = documents.get(uri);
    if (doc) search(doc);
  }
  if (results.length) return results;
  for (const { fsPath: file } of workspace.files.list('source').files) {
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
      if (fs.statSync(file).size > MAX_WORKSPACE_FILE_BYTES) continue;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    search({ uri, fsPath: file, languageId: languageIdForPath(file), version: null, text });
  }
  return results;
}
