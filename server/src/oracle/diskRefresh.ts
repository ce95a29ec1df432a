// Keeps a ts-morph project's files as they are on disk between checks: each check first re-reads the files whose stamp moved since they were read.
import fs from 'node:fs';
import type { Project, ts } from 'ts-morph';
import { isUnsettled } from '../workspace/fileTimes.js';

/**
 * A file's stamp as last read, or `undefined` for one to read again at every check: its times had not settled, so
 * a change could leave them as they were (see `isUnsettled`).
 */
type Stamp = string | undefined;

/**
 * Re-reads the project's files that changed on disk since it read them (saved in the editor, or changed by a
 * checkout, a formatter, another tool), and forgets those deleted. Files under `node_modules` are read once: they
 * change only with an install, and a restart of the server reads them again. A file seen for the first time is read
 * again too, since it may have changed between the project's read and this stat, which comes before the read. Files
 * that cannot be stat'ed and never could (the compiler's default library, held in memory) are left alone.
 */
export class DiskRefresh {
  private readonly stamps = new Map<string, Stamp>();
  /** The files the last check's program read (imports are read without entering the project). */
  private programFiles: string[] = [];

  constructor(private readonly project: () => Project) {}

  /** Remembers the files of the program a check ran on, for the next `refresh`. */
  checkedOn(program: ts.Program): void {
    this.programFiles = program.getSourceFiles().map((f) => f.fileName);
  }

  refresh(now = Date.now()): void {
    const project = this.project();
    const names = new Set([...project.getSourceFiles().map((f) => f.getFilePath() as string), ...this.programFiles]);
    for (const name of names) {
      const file = project.getSourceFile(name);
      if (!file) continue;
      const fsPath = file.getFilePath();
      if (fsPath.includes('/node_modules/') && this.stamps.has(fsPath)) continue;
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(fsPath, { throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      // null: not on disk (deleted, or never there).
      const stamp: Stamp | null = !stat ? null : isUnsettled(stat, now) ? undefined : `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
      const known = this.stamps.get(fsPath);
      if (stamp === null && !this.stamps.has(fsPath)) continue;
      if (stamp !== undefined && stamp === known) continue;
      try {
        file.refreshFromFileSystemSync();
      } catch {
        // Unreadable now: it keeps the text it had, and is read again next time.
        this.stamps.set(fsPath, undefined);
        continue;
      }
      if (stamp === null) this.stamps.delete(fsPath);
      else this.stamps.set(fsPath, stamp);
    }
  }
}
