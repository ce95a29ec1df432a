// The saved lexical index: what a walk read, kept in the user's cache folder for the next process on the workspace, so its first walk stats the files instead of reading and parsing them.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileStamp } from '../../workspace/workspaceFiles.js';
import { pruneCacheFolder, workspaceCacheFile } from '../../workspace/userCache.js';
import { FIELD_COUNT } from './bm25f.js';
import type { TermStatistics } from './bm25f.js';
import type { LocationKind } from './documentExtraction.js';
import { WALK_SLICE_MS, yieldToEventLoop } from './eventLoop.js';
import type { IndexedDocument, IndexedFile } from './indexedDocuments.js';

// One line per file (`"path"\tmtimeMs\tsize\tctimeMs:inode\t[imports]\t[documents]`) after a line naming the format, the build that
// wrote it and the limits; a file whose mtime, size, status-change time or inode differs is read again, and a file
// read within moments of its last change is not saved (see `fileTimes.ts`).

/** Bumped when what a saved line holds changes shape. */
const SAVED_FORMAT = 3;
/** The first save waits this long after the walk, so it never competes with the task that asked for the walk. */
const SAVE_DELAY_MS = 2_000;
/** Later saves (after files changed) come at most this often. */
const SAVE_INTERVAL_MS = 60_000;
/** Saved indexes kept in the cache folder: those of the workspaces opened least recently go first. */
const MAX_SAVED_WORKSPACES = 32;
/** A saved index larger than this is not read (it would take longer than reading the files). */
const MAX_SAVED_BYTES = 256 * 1024 * 1024;

/** `delegate` is the empty string for a declaration that delegates to nothing. */
export type SavedDocument = [kind: LocationKind, name: string, startLine: number, endLine: number, commentLine: number, signature: string, terms: string[], counts: number[], lengths: number[], delegate: string];

function isSavedDocument(row: unknown): row is SavedDocument {
  if (!Array.isArray(row) || row.length !== 10) return false;
  const [kind, name, startLine, endLine, commentLine, signature, termList, countList, lengthList, delegate] = row as unknown[];
  return (
    typeof kind === 'string' &&
    typeof name === 'string' &&
    Number.isInteger(startLine) &&
    Number.isInteger(endLine) &&
    Number.isInteger(commentLine) &&
    typeof signature === 'string' &&
    Array.isArray(termList) &&
    termList.every((t) => typeof t === 'string') &&
    Array.isArray(countList) &&
    countList.length === termList.length * FIELD_COUNT &&
    Array.isArray(lengthList) &&
    lengthList.length === FIELD_COUNT &&
    typeof delegate === 'string'
  );
}

/** What a saved line checks besides the mtime and size: the status-change time and the inode. */
export function savedStampOf(stat: FileStamp): string {
  return `${stat.ctimeMs}:${stat.ino}`;
}

/** The first `count` tab-separated fields of a line, the last one holding the rest. */
function splitFields(line: string, count: number): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  let from = 0;
  for (let i = 0; i < count - 1; i++) {
    const tab = line.indexOf('\t', from);
    if (tab < 0) return [...out, line.slice(from)];
    out.push(line.slice(from, tab));
    from = tab + 1;
  }
  out.push(line.slice(from));
  return out;
}

let buildIdentityMemo: string | undefined;
/**
 * The modules whose code decides what a saved line holds, beside this one: the lexical index was one module, whose
 * rebuild invalidated saved indexes, and a rebuild of any of its parts still does. In the bundle they are one chunk.
 */
const BUILD_MODULES = ['terms', 'documentExtraction', 'lineStarts', 'bm25f', 'lexicalIndex'];
/** The size and mtime of the modules this code was loaded from: a rebuild of the extraction invalidates saved indexes. */
function buildIdentity(): string {
  if (buildIdentityMemo === undefined) {
    const own = fileURLToPath(import.meta.url);
    const modules = [own, ...BUILD_MODULES.map((name) => path.join(path.dirname(own), `${name}${path.extname(own)}`))];
    const stamps = new Set<string>();
    for (const module of modules) {
      try {
        const stat = fs.statSync(module);
        stamps.add(`${stat.size}:${stat.mtimeMs}`);
      } catch {
        // Not a module of its own here (the bundle), or unreadable.
      }
    }
    buildIdentityMemo = stamps.size > 0 ? [...stamps].join(',') : 'unknown';
  }
  return buildIdentityMemo;
}

/** The saved files by relative path (each with the rest of its line), or undefined when there is none for `key`. */
async function readSavedIndex(file: string, key: string): Promise<Map<string, string> | undefined> {
  let text: string;
  try {
    const stat = await fsp.stat(file);
    if (stat.size > MAX_SAVED_BYTES) return undefined;
    text = await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  if (lines[0] !== key) return undefined;
  // Read means used: the cache folder keeps the indexes of the workspaces used last (see MAX_SAVED_WORKSPACES).
  const now = new Date();
  await fsp.utimes(file, now, now).catch(() => undefined);
  const saved = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    try {
      const relative: unknown = JSON.parse(line.slice(0, tab));
      if (typeof relative === 'string') saved.set(relative, line.slice(tab + 1));
    } catch {
      // A damaged line: that file is read again.
    }
  }
  return saved;
}

/** What a saved index reads of the index it is saved from: its files as they stand, and its vocabulary. */
export interface SavedIndexSource {
  readonly files: ReadonlyMap<string, IndexedFile>;
  readonly statistics: TermStatistics;
}

/**
 * The saved index of one lexical index: read by its first walk, which takes every file whose stamp is unchanged from
 * it; written a while after a walk that changed it, at most once per SAVE_INTERVAL_MS, and when the server shuts down.
 */
export class SavedIndex {
  /** The saved files not yet taken by this process's first walk, by relative path; gone once it ends. */
  private saved: Map<string, string> | undefined;
  private savedRead = false;
  /** Whether the disk's files changed since the saved index was written (or read). */
  private unsaved = false;
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private lastSave = 0;

  constructor(
    /** Where the index keeps what it read for the next process on this workspace, if anywhere. */
    private readonly cacheFile: string | undefined,
    private readonly maxTermsPerDocument: number,
    private readonly source: SavedIndexSource,
  ) {}

  /** Reads the saved files, on the index's first walk only. */
  async read(): Promise<void> {
    if (this.cacheFile && !this.savedRead) {
      this.savedRead = true;
      this.saved = await readSavedIndex(this.cacheFile, this.cacheKey());
      // Nothing saved (or saved by another build): the first walk reads everything, and saves it.
      if (!this.saved) this.unsaved = true;
    }
  }

  /** A file's saved line (the rest of it after the path), once: the walk takes the file from it, or reads the file. */
  take(relative: string): string | undefined {
    const saved = this.saved?.get(relative);
    if (saved !== undefined) this.saved?.delete(relative);
    return saved;
  }

  /** The disk's files changed since the saved index was written (or read). */
  changed(): void {
    this.unsaved = true;
  }

  /** After a walk: the saved files it did not take are gone, and a save follows a walk that changed the index. */
  walked(): void {
    // Saved files the walk did not take (deleted, changed, ignored now) make the saved index out of date.
    if (this.saved && this.saved.size > 0) this.unsaved = true;
    this.saved = undefined;
    if (this.unsaved) this.scheduleSave();
  }

  /** What the saved index must have been written by: this format, these limits, and this very build of the code. */
  private cacheKey(): string {
    return JSON.stringify({ format: SAVED_FORMAT, build: buildIdentity(), maxTermsPerDocument: this.maxTermsPerDocument });
  }

  /**
   * Saves the index for the next process, a while after the walk that changed it (never during the task that asked
   * for the walk), and at most once per SAVE_INTERVAL_MS after that.
   */
  private scheduleSave(): void {
    if (!this.cacheFile || this.saveTimer || this.saving) return;
    const delay = this.lastSave === 0 ? SAVE_DELAY_MS : Math.max(SAVE_DELAY_MS, SAVE_INTERVAL_MS - (Date.now() - this.lastSave));
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, delay);
    this.saveTimer.unref();
  }

  /** Writes the saved index now if it is out of date (tests, and a server shutting down); resolves once written. */
  async saveNow(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (this.saving) await this.saving;
    if (this.unsaved) await this.save();
  }

  private save(): Promise<void> {
    this.saving ??= this.writeSaved().finally(() => {
      this.saving = undefined;
      this.lastSave = Date.now();
    });
    return this.saving;
  }

  /**
   * Writes every file as the disk has it (open documents' unsaved text is left out) through a temporary file and a
   * rename, so a reader finds the old index or the new one. The lines are made a few milliseconds at a time; a
   * vocabulary reset in between abandons the write. Failures leave the index unsaved and are otherwise ignored: the
   * next process reads the files.
   */
  private async writeSaved(): Promise<void> {
    const target = this.cacheFile;
    if (!target) return;
    this.unsaved = false;
    const { files, statistics } = this.source;
    const epoch = statistics.epoch;
    const lines = [this.cacheKey()];
    let slice = performance.now();
    for (const file of [...files.values()]) {
      if (performance.now() - slice >= WALK_SLICE_MS) {
        await yieldToEventLoop();
        slice = performance.now();
        if (epoch !== statistics.epoch) {
          this.unsaved = true;
          return;
        }
      }
      if (file.overlay !== undefined || file.savedStamp === undefined || files.get(file.relativePath) !== file) continue;
      const rows = file.documents.map((d) => [d.kind, d.name, d.startLine, d.endLine, d.commentLine, d.signature, Array.from(d.terms, (id) => statistics.termName(id)), Array.from(d.counts), Array.from(d.lengths), d.delegate ?? '']);
      lines.push(`${JSON.stringify(file.relativePath)}\t${file.mtimeMs}\t${file.size}\t${file.savedStamp}\t${JSON.stringify(file.imports)}\t${JSON.stringify(rows)}`);
    }
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.writeFile(temporary, `${lines.join('\n')}\n`, 'utf8');
      await fsp.rename(temporary, target);
      await pruneCacheFolder(path.dirname(target), MAX_SAVED_WORKSPACES).catch(() => undefined);
    } catch {
      this.unsaved = true;
      await fsp.rm(temporary, { force: true }).catch(() => undefined);
    }
  }
}

/**
 * A file's documents as the saved index has them, with the stamp of the line, when it was saved at this very stamp;
 * undefined when the entry does not match or cannot be read (the file is then read and parsed as usual).
 */
export function savedDocuments(saved: string, stat: FileStamp): { stamp: string; imports: string[]; rows: SavedDocument[] } | undefined {
  const [mtimeMs, size, stamp, importsJson, json] = splitFields(saved, 5);
  if (Number(mtimeMs) !== stat.mtimeMs || Number(size) !== stat.size || stamp !== savedStampOf(stat) || importsJson === undefined || json === undefined) return undefined;
  let rows: unknown;
  let imports: unknown;
  try {
    imports = JSON.parse(importsJson);
    rows = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(imports) || !imports.every((i) => typeof i === 'string') || !Array.isArray(rows) || !rows.every(isSavedDocument)) return undefined;
  return { stamp, imports: imports as string[], rows };
}

/** A saved document's term ids, counts and lengths in this process's vocabulary. */
export function savedTerms(row: SavedDocument, statistics: TermStatistics): Pick<IndexedDocument, 'terms' | 'counts' | 'lengths'> {
  const [, , , , , , termList, countList, lengthList] = row;
  // Term ids are this process's: the rows are sorted again by them, as `terms` is searched by bisection.
  const order = termList.map((term, i) => ({ id: statistics.termId(term), i })).sort((a, b) => a.id - b.id);
  const termArray = new Uint32Array(order.length);
  const countArray = new Uint16Array(order.length * FIELD_COUNT);
  order.forEach(({ id, i }, k) => {
    termArray[k] = id;
    for (let field = 0; field < FIELD_COUNT; field++) countArray[k * FIELD_COUNT + field] = countList[i * FIELD_COUNT + field] as number;
  });
  return { terms: termArray, counts: countArray, lengths: Uint16Array.from(lengthList) };
}

/** Where the workspace's index is saved between processes: the user's cache folder (see `userCache.ts`). */
export function savedIndexFile(root: string): string {
  return workspaceCacheFile('lexical-index', root);
}
