// Decides how to start the server: the copy bundled in the extension, or the one `assistantLs.server.path` names.
import path from 'node:path';
import { SERVER_PATH_SETTING } from './extensionIds.js';

/** A JavaScript module run with the editor's own Node, or an executable run as is; both get `--stdio`. */
export type ServerLaunch = { kind: 'module'; module: string; source: string } | { kind: 'command'; command: string; source: string };

export interface LaunchInputs {
  /** The `assistantLs.server.path` setting: empty for the bundled server. */
  configuredPath: string | undefined;
  /** The server bundled in the extension (`dist/server/assistant-ls.mjs`). */
  bundledServer: string;
  /** The first workspace folder, for relative paths. */
  workspaceFolder: string | undefined;
  homeDir: string;
}

const MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs'];

/**
 * `""` → the bundled server; a path to a `.js`/`.mjs`/`.cjs` file (such as the repository's `bin/assistant-ls.js`)
 * → that module, run with the editor's Node; anything else (`assistant-ls`, `/usr/local/bin/assistant-ls`) → an
 * executable, looked up on `PATH` when it has no directory part. `~` and workspace-relative paths are expanded.
 */
export function resolveServerLaunch(inputs: LaunchInputs): ServerLaunch {
  const configured = inputs.configuredPath?.trim() ?? '';
  if (configured === '') return { kind: 'module', module: inputs.bundledServer, source: 'bundled' };
  let resolved = configured;
  if (resolved === '~' || resolved.startsWith('~/')) resolved = path.join(inputs.homeDir, resolved.slice(1));
  const hasDirectory = resolved.includes('/') || resolved.includes('\\');
  if (hasDirectory && !path.isAbsolute(resolved) && inputs.workspaceFolder) resolved = path.resolve(inputs.workspaceFolder, resolved);
  const source = `${SERVER_PATH_SETTING} = ${configured}`;
  if (MODULE_EXTENSIONS.includes(path.extname(resolved).toLowerCase())) return { kind: 'module', module: resolved, source };
  return { kind: 'command', command: resolved, source };
}
