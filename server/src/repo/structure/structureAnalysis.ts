// The program a structure is read from: the document's source file with the checker and the language service, or its syntax alone when the project cannot load.
import path from 'node:path';
import type { ts } from 'ts-morph';
import type { DocumentSnapshot } from '../../workspace/documentSnapshot.js';
import { parseDocument } from '../declarations.js';
import { loadWorkspaceFiles } from '../../workspace/workspaceProject.js';
import type { WorkspaceProject, WorkspaceScope } from '../../workspace/workspaceProject.js';
import { relativePath } from './structureText.js';

/** Most sites (returns, branches, throws, reference lines) listed, so a huge function or a symbol used everywhere stays cheap to describe. */
export const MAX_SITES = 60;

export interface Analysis {
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
  /** The project the program is of, when the workspace's files were loaded for references. */
  workspace?: WorkspaceProject;
  /** Why there is no checker. */
  untyped?: string;
}

export function openAnalysis(workspace: WorkspaceProject, document: DocumentSnapshot, withReferences: boolean, signal: AbortSignal | undefined): Analysis {
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
    if (program && source) return { source, root, fileName, displayName, checker: program.getTypeChecker(), program, service, ...(scope ? { scope, workspace } : {}) };
    // A JavaScript file outside a tsconfig without `allowJs` is not in the program.
    return { source: file.compilerNode, root, fileName, displayName, untyped: 'the file is not part of the TypeScript project' };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { source: parseDocument(fileName, document.text), root, fileName, displayName, untyped: `the TypeScript project did not load: ${(error as Error).message.replace(/[.\s]+$/, '')}` };
  }
}
