// The user's folders outside the workspace: the cache, for what the server can rebuild (the saved lexical index), and the data folder, where a trace may be kept.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * `$XDG_CACHE_HOME/assistant-ls`, else `%LOCALAPPDATA%\assistant-ls` on Windows, `~/Library/Caches/assistant-ls` on
 * macOS and `~/.cache/assistant-ls` elsewhere.
 */
export function userCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'assistant-ls');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'assistant-ls');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'assistant-ls');
  return path.join(os.homedir(), '.cache', 'assistant-ls');
}

/**
 * `$XDG_DATA_HOME/assistant-ls`, else `%APPDATA%\assistant-ls` on Windows, `~/Library/Application Support/assistant-ls`
 * on macOS and `~/.local/share/assistant-ls` elsewhere: the one place outside the workspace a trace may be kept.
 */
export function userDataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'assistant-ls');
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'assistant-ls');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'assistant-ls');
  return path.join(os.homedir(), '.local', 'share', 'assistant-ls');
}

/** A file of `kind` for one workspace folder: its name, then a hash of its absolute path (two folders never share one). */
export function workspaceCacheFile(kind: string, root: string, env: NodeJS.ProcessEnv = process.env): string {
  const absolute = path.resolve(root);
  const hash = crypto.createHash('sha256').update(absolute).digest('hex').slice(0, 16);
  const name = path.basename(absolute).replace(/[^\w.-]/g, '_').slice(0, 40) || 'root';
  return path.join(userCacheDirectory(env), kind, `${name}-${hash}`);
}

/** Removes the least recently written files of a cache folder beyond `keep` (workspaces not opened for a long time). */
export async function pruneCacheFolder(folder: string, keep: number): Promise<void> {
  const entries = await fs.readdir(folder, { withFileTypes: true });
  const files = await Promise.all(
    entries
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.tmp'))
      .map(async (entry) => {
        const file = path.join(folder, entry.name);
        return { file, mtimeMs: (await fs.stat(file)).mtimeMs };
      }),
  );
  files.sort((a, b) => b.mtimeMs - a.mtimeMs);
  await Promise.all(files.slice(keep).map(({ file }) => fs.rm(file, { force: true })));
}
