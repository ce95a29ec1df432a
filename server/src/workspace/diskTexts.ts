// Texts of files as they are on disk, kept between requests while each file's stamp (times, size, inode) holds.
import fs from 'node:fs';
import { isUnsettled } from './fileTimes.js';

interface Kept {
  stamp: string;
  text: string;
}

/**
 * Least recently used first. A task's context reads the same few declaring files on every request; kept, each costs a
 * stat instead of a read, and the same string each time lets the caches keyed by text (parses, line tables) answer by
 * identity instead of comparing or hashing the whole text again.
 */
const kept = new Map<string, Kept>();
const KEPT_FILES = 128;
const KEPT_CHARS = 8_000_000;
let keptChars = 0;

function forget(fsPath: string): void {
  const entry = kept.get(fsPath);
  if (!entry) return;
  kept.delete(fsPath);
  keptChars -= entry.text.length;
}

/**
 * The UTF-8 text of a regular file of at most `maxBytes` bytes, or undefined (no such file, a larger one, unreadable).
 * A file is kept only once its times have settled (see `isUnsettled`): until then a change may leave its stamp as it
 * was, so it is read again on every call.
 */
export function diskText(fsPath: string, maxBytes: number): string | undefined {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(fsPath, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  if (!stat || !stat.isFile() || stat.size > maxBytes) {
    forget(fsPath);
    return undefined;
  }
  const stamp = `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
  const entry = kept.get(fsPath);
  if (entry && entry.stamp === stamp) {
    kept.delete(fsPath);
    kept.set(fsPath, entry);
    return entry.text;
  }
  forget(fsPath);
  let text: string;
  try {
    text = fs.readFileSync(fsPath, 'utf8');
  } catch {
    return undefined;
  }
  // The stamp was taken before the read: a change in between moves the times of a settled file, so the next call reads again.
  if (!isUnsettled(stat, Date.now()) && text.length <= KEPT_CHARS) {
    kept.set(fsPath, { stamp, text });
    keptChars += text.length;
    for (const [name, old] of kept) {
      if (kept.size <= KEPT_FILES && keptChars <= KEPT_CHARS) break;
      kept.delete(name);
      keptChars -= old.text.length;
    }
  }
  return text;
}
