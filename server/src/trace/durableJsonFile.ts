// A lowdb adapter that stores one JSON document so that a completed write survives a crash or power loss.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Adapter } from 'lowdb';

export interface DurableJsonFileOptions<T = unknown> {
  /** Shape check for parsed data; a document failing it is treated like unparsable text. */
  validate?: (data: unknown) => boolean;
  /** Told when a damaged file is found (and set aside); defaults to stderr, which is safe beside an LSP stdio channel. */
  onWarning?: (message: string) => void;
  /** Turns the data into the file's text (without the final newline); defaults to `JSON.stringify(data, null, 2)`. */
  serialize?: (data: T) => string;
  /** Turns the file's text into data (defaults to `JSON.parse`); `undefined` means the file holds nothing yet (no warning). */
  parse?: (text: string) => unknown;
  /**
   * Largest file (bytes) whose write makes its quick calls directly (see `DIRECT_CALL_BYTES`, the default); 0: every
   * call goes through the thread pool.
   */
  directCallBytes?: number;
}

export interface DurableReadOptions {
  /**
   * Rename a damaged file out of the way and, for `read`, remove the temp files a crashed writer left (default true).
   * Readers of files another process owns pass false, so that they never change the folder under its writer.
   */
  setAside?: boolean;
}

/** Temp files older than this can only be leftovers of a crashed writer: no write takes that long. */
const STALE_TEMP_MS = 60_000;

/**
 * A durable write is eight file-system calls (open, write, fsync, close, rename, open, fsync, close of the directory).
 * Made asynchronously, each is a round trip through libuv's thread pool, and on a fast disk those round trips cost
 * more than the calls (about 1.2 ms against 0.5 ms for a 10 KB file on the development machine), on the path of every
 * task, which writes its record before its edit is applied and its outcome before it answers. So for a file up to
 * this size the calls that only touch the page cache and the directory are made directly, and only the two fsyncs,
 * the calls that wait for the disk (tens of milliseconds while other writes are being flushed), go through the pool.
 */
export const DIRECT_CALL_BYTES = 256 * 1024;

function fsyncLater(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** Codes with which some platforms (Windows, some network file systems) refuse to fsync a directory. */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM']);

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function defaultWarning(message: string): void {
  process.stderr.write(`[assistant-ls] ${message}\n`);
}

/**
 * Makes a directory's entries (a rename, a new file) durable. Only the fsync waits for the disk and goes through the
 * thread pool: opening and closing the directory are made directly.
 */
export async function syncDirectory(directory: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = fs.openSync(directory, 'r');
    await fsyncLater(fd);
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined || !DIRECTORY_SYNC_UNSUPPORTED.has(code)) throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export class DurableJsonFile<T> implements Adapter<T> {
  readonly filePath: string;
  private readonly directory: string;
  private readonly baseName: string;
  private readonly validate: (data: unknown) => boolean;
  private readonly onWarning: (message: string) => void;
  private readonly serialize: (data: T) => string;
  private readonly parse: (text: string) => unknown;
  private readonly directCallBytes: number;
  /** Tail of the write chain; never rejects, so one failed write does not poison the next. */
  private queue: Promise<void> = Promise.resolve();

  constructor(filePath: string, options: DurableJsonFileOptions<T> = {}) {
    this.filePath = path.resolve(filePath);
    this.directory = path.dirname(this.filePath);
    this.baseName = path.basename(this.filePath);
    this.validate = options.validate ?? (() => true);
    this.onWarning = options.onWarning ?? defaultWarning;
    this.serialize = options.serialize ?? ((data) => JSON.stringify(data, null, 2));
    this.parse = options.parse ?? ((text) => JSON.parse(text) as unknown);
    this.directCallBytes = options.directCallBytes ?? DIRECT_CALL_BYTES;
  }

  async read(options: DurableReadOptions = {}): Promise<T | null> {
    const setAside = options.setAside ?? true;
    if (setAside) await this.removeStaleTempFiles();
    let text: string;
    try {
      text = await fsp.readFile(this.filePath, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    return this.interpret(text, setAside);
  }

  /** Synchronous read for callers that must answer without awaiting (e.g. refreshing before a query). */
  readSync(options: DurableReadOptions = {}): T | null {
    let text: string;
    try {
      text = fs.readFileSync(this.filePath, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    return this.interpret(text, options.setAside ?? true);
  }

  write(data: T): Promise<void> {
    // Serialise now so the file gets the value as of this call, even if the caller mutates `data` while queued.
    const content = `${this.serialize(data)}\n`;
    const run = this.queue.then(() => (Buffer.byteLength(content) <= this.directCallBytes ? this.writeNowDirect(content) : this.writeNow(content)));
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Resolves once every write issued so far has finished (successfully or not). */
  flush(): Promise<void> {
    return this.queue;
  }

  private interpret(text: string, setAside: boolean): T | null {
    let data: unknown;
    let problem: string | undefined;
    try {
      data = this.parse(text);
      if (data === undefined) return null;
      if (!this.validate(data)) problem = 'unexpected content';
    } catch (error) {
      problem = `invalid JSON (${describe(error)})`;
    }
    if (problem === undefined) return data as T;
    if (!setAside) {
      this.onWarning(`Ignoring damaged file ${this.filePath}: ${problem}.`);
      return null;
    }
    const damagedPath = `${this.filePath}.damaged-${new Date().toISOString().replace(/:/g, '-')}`;
    try {
      fs.renameSync(this.filePath, damagedPath);
      this.onWarning(`Damaged file ${this.filePath} (${problem}) was set aside as ${damagedPath}; starting without it.`);
    } catch (error) {
      this.onWarning(`Damaged file ${this.filePath} (${problem}) could not be set aside (${describe(error)}); ignoring it.`);
    }
    return null;
  }

  private tempPath(): string {
    return path.join(this.directory, `${this.baseName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  }

  /** The same steps as `writeNow`; only the two fsyncs go through the thread pool. */
  private async writeNowDirect(content: string): Promise<void> {
    const tempPath = this.tempPath();
    try {
      const fd = fs.openSync(tempPath, 'wx');
      try {
        fs.writeFileSync(fd, content, 'utf8');
        await fsyncLater(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tempPath, this.filePath);
    } catch (error) {
      try {
        fs.rmSync(tempPath, { force: true });
      } catch {
        // The write's own error is the one to report; a leftover temp file is removed by a later read.
      }
      throw error;
    }
    await syncDirectory(this.directory);
  }

  private async writeNow(content: string): Promise<void> {
    const tempPath = this.tempPath();
    try {
      const handle = await fsp.open(tempPath, 'wx');
      try {
        await handle.writeFile(content, 'utf8');
        // Without this the rename below can reach the disk before the data, leaving an empty file after a power cut.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(tempPath, this.filePath);
    } catch (error) {
      await fsp.rm(tempPath, { force: true }).catch(() => undefined);
      throw error;
    }
    // The rename itself lives in the directory entry; only syncing the directory makes it durable.
    await syncDirectory(this.directory);
  }

  private async removeStaleTempFiles(): Promise<void> {
    let names: string[];
    try {
      names = await fsp.readdir(this.directory);
    } catch {
      return;
    }
    const prefix = `${this.baseName}.`;
    const now = Date.now();
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const tempPath = path.join(this.directory, name);
      try {
        const stat = await fsp.stat(tempPath);
        if (now - stat.mtimeMs > STALE_TEMP_MS) await fsp.rm(tempPath, { force: true });
      } catch {
        // Best effort: a leftover that cannot be removed is harmless because nothing reads temp files.
      }
    }
  }
}
