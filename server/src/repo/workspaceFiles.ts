// The workspace's source files brought into the ts-morph project on demand, so references in files nobody opened are found.
import fs from 'node:fs';
import { ts } from 'ts-morph';
import { configFileNames } from './projectConfigs.js';
import type { WorkspaceProject } from './workspaceProject.js';

/** How much of the workspace the project holds: a large workspace is loaded up to its first files only. */
export interface WorkspaceScope {
  files: number;
  of: number;
  truncated: boolean;
}

const MAX_WORKSPACE_FILES = 3_000;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const SKIPPED = ['**/node_modules', '**/dist', '**/build', '**/out', '**/coverage'];

/**
 * Adds the tsconfig's files (or, without one, the workspace's TypeScript and JavaScript files) to the project,
 * at most MAX_WORKSPACE_FILES. Files holding an editor's text keep it; files read from disk are refreshed, so
 * callers added since are found and deleted files are forgotten.
 */
export function loadWorkspaceFiles(workspace: WorkspaceProject, signal?: AbortSignal): WorkspaceScope {
  const project = workspace.tsProject();
  for (const file of project.getSourceFiles()) {
    signal?.throwIfAborted();
    try {
      if (file.isSaved()) file.refreshFromFileSystemSync();
    } catch {
      // Unreadable now: it keeps the text it had.
    }
  }
  const names = workspaceFileNames(workspace);
  const chosen = names.slice(0, MAX_WORKSPACE_FILES);
  for (const file of chosen) {
    signal?.throwIfAborted();
    try {
      if (!project.getSourceFile(file)) project.addSourceFileAtPathIfExists(file);
    } catch {
      // An unreadable file is left out; only what it would have told is missing.
    }
  }
  return { files: chosen.length, of: names.length, truncated: names.length > chosen.length };
}

function workspaceFileNames(workspace: WorkspaceProject): string[] {
  const tsconfig = workspace.configFile;
  if (tsconfig && fs.existsSync(tsconfig)) {
    const names = configFileNames(tsconfig);
    // A solution-style tsconfig (`files: []` with references) lists nothing: the folder's files are the workspace then.
    if (names.length > 0) return names;
  }
  // TypeScript's own directory walk: hidden folders are skipped, as they are for a tsconfig's `include`.
  return ts.sys.readDirectory(workspace.root, SOURCE_EXTENSIONS, SKIPPED, ['**/*']).filter((file) => !file.endsWith('.d.ts'));
}
