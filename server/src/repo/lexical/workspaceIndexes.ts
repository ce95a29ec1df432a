// One lexical index per workspace folder, shared by every agent: made on first use, saved between processes unless told not to.
import path from 'node:path';
import { LexicalIndex } from './lexicalIndex.js';
import { savedIndexFile } from './savedIndex.js';

const MAX_WORKSPACES = 4;
const indexes = new Map<string, LexicalIndex>();

/** The workspace's index (created on first use, built on first search); the least recently used beyond four is dropped. */
export function workspaceIndex(root: string): LexicalIndex {
  const key = path.resolve(root);
  let index = indexes.get(key);
  if (index) {
    indexes.delete(key);
  } else {
    index = new LexicalIndex(key, {}, savingIndexes ? { cacheFile: savedIndexFile(key) } : {});
  }
  indexes.set(key, index);
  while (indexes.size > MAX_WORKSPACES) {
    const oldest = indexes.keys().next().value;
    if (oldest === undefined) break;
    indexes.delete(oldest);
  }
  return index;
}

let savingIndexes = true;
/**
 * Workspace indexes made from now on in this process are not saved: the evaluation's throwaway copies of a repository
 * would otherwise crowd the indexes of the user's workspaces out of the cache folder.
 */
export function stopSavingIndexes(): void {
  savingIndexes = false;
}

/** Saves the workspace's index now if it changed since it was last saved (a server shutting down). */
export async function saveWorkspaceIndex(root: string): Promise<void> {
  await indexes.get(path.resolve(root))?.saveNow();
}
