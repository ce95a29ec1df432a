// Texts of a workspace's files as they are on disk, kept between requests while each file's stamp (times, size, inode) holds.
import fs from 'node:fs';
import { isUnsettled } from './fileTimes.js';

interface Kept {
  stamp: string;
  text: string;
}

const KEPT_FILES = 128;
const KEPT_CHARS = 8_000_000;

/**
 * One workspace's disk texts (its `Workspace.disk`), least recently used first. A task's context reads the same few
 * declaring files on every request; kept, each costs a stat instead of a read, and the same string each time lets the
 * caches keyed by text (parses, line tables) answer by identity instead of comparing or hashing the whole text again.
 * The stamp is checked on every use; the workspace's file events and saves drop an entry at once (`forget`).
 */
export class DiskTexts {
  private readonly kept = new Map<string, Kept>();
  private keptChars = 0;

  /** Drops what is kept of a file (it changed, came or went). */
  forget(fsPath: string): void {
    const entry = this.kept.get(fsPath);
    if (!entry) return;
    this.kept.delete(fsPath);
    this.keptChars -= entry.text.length;
  }

  /**
   * The UTF-8 text of a regular file of at most `maxBytes` bytes, or undefined (no such file, a larger one,
   * unreadable). A file is kept only once its times have settled (see `isUnsettled`): until then a change may leave
   * its stamp as it was, so it is read again on every call.
   */
  text(fsPath: string, maxBytes: number): string | undefined {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(fsPath, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (!stat || !stat.isFile() || stat.size > maxBytes) {
      this.forget(fsPath);
      return undefined;
    }
    const stamp = `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
    const entry = this.kept.get(fsPath);
    if (entry && entry.stamp === stamp) {
      this.kept.delete(fsPath);
      this.kept.set(fsPath, entry);
      return entry.text;
    }
    this.forget(fsPath);
    let text: string;
    try {
      text = fs.readFileSync(fsPath, 'utf8');
    } catch {
      return undefined;
    }
    // The stamp was taken before the read: a change in between moves the times of a settled file, so the next call reads again.
    if (!isUnsettled(stat, Date.now()) && text.length <= KEPT_CHARS) {
      this.kept.set(fsPath, { stamp, text });
      this.keptChars += text.length;
      for (const [name, old] of this.kept) {
        if (this.kept.size <= KEPT_FILES && this.keptChars <= KEPT_CHARS) break;
        this.kept.delete(name);
        this.keptChars -= old.text.length;
      }
    }
    return text;
  }
}
