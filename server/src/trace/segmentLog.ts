// A trace segment kept as an append-only log of JSON lines, so that recording an interaction costs one write and one fdatasync.
import * as fs from 'node:fs';
import type { Interaction } from '../protocol.js';
import { syncDirectory } from './durableJsonFile.js';
import type { Amendment } from './amendments.js';
import type { SegmentFile } from './segmentFiles.js';

/** The format number in a log segment's first line (format 1 is the whole-document `segment-NNNNNN.json`). */
export const LOG_FORMAT = 2;

/** One line of a log segment after the first: an interaction added, an interaction replaced whole, an amendment. */
export type LogEntry = { add: Interaction } | { update: Interaction } | { amend: Amendment };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The segment a log holds: its first line names the session, each later line adds, replaces or amends. A last line
 * without its newline is a write that a crash cut short (it was never acknowledged) and is left out; a log without a
 * complete first line was cut short while being created and holds nothing (`undefined`). Any other line that does not
 * parse makes the whole file damaged (it throws).
 */
export function parseSegmentLog(text: string): SegmentFile | undefined {
  const end = text.lastIndexOf('\n');
  if (end < 0) return undefined;
  const lines = text.slice(0, end).split('\n');
  const header: unknown = JSON.parse(lines[0] as string);
  if (!isRecord(header) || header.format !== LOG_FORMAT || !isRecord(header.session)) throw new Error('the first line is not a log segment header');
  const data: SegmentFile = { format: 1, session: header.session as unknown as SegmentFile['session'], interactions: [] };
  const positions = new Map<string, number>();
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n] as string;
    if (line === '') continue;
    const entry: unknown = JSON.parse(line);
    if (!isRecord(entry)) throw new Error(`line ${n + 1} is not an object`);
    if (isRecord(entry.amend)) {
      (data.amendments ??= []).push(entry.amend as unknown as Amendment);
      continue;
    }
    const interaction = entry.add ?? entry.update;
    if (!isRecord(interaction) || typeof interaction.id !== 'string') throw new Error(`line ${n + 1} is neither an interaction nor an amendment`);
    // An add and an update of the same id both leave the latest whole interaction in the first one's place.
    const position = positions.get(interaction.id);
    if (position === undefined) {
      positions.set(interaction.id, data.interactions.length);
      data.interactions.push(interaction as unknown as Interaction);
    } else {
      data.interactions[position] = interaction as unknown as Interaction;
    }
  }
  return data;
}

/** The first line of a log segment. */
export function logHeader(session: SegmentFile['session']): string {
  return `${JSON.stringify({ format: LOG_FORMAT, session })}\n`;
}

/** The whole segment as a fresh log: its header, each interaction once, then its amendments (used to rewrite a segment no longer appended to). */
export function serializeSegmentLog(data: SegmentFile): string {
  let text = logHeader(data.session);
  for (const interaction of data.interactions) text += `${JSON.stringify({ add: interaction })}\n`;
  for (const amendment of data.amendments ?? []) text += `${JSON.stringify({ amend: amendment })}\n`;
  return text.slice(0, -1);
}

function fdatasyncLater(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Appends entries to one log segment of this process's session. Each append is one `write` of whole lines made
 * directly (it only reaches the page cache) and one `fdatasync` through the thread pool (the call that waits for the
 * disk); it resolves once the line is durable, and `onWritten` runs between the two (see `WriteOptions`). The file
 * is created with its header by the first append (and its directory entry synced); a log left by an earlier process
 * of the same session is continued after its last complete line. Appends must not overlap: the trace store's write
 * queue runs them one at a time.
 */
export class SegmentAppender {
  private fd: number | undefined;
  /** Bytes of whole lines in the file: a failed append is cut back to this. */
  private length = 0;
  /** Set when a failed append could not be cut back: the file must not be appended to again. */
  broken = false;

  constructor(
    readonly filePath: string,
    private readonly directory: string,
    private readonly session: SegmentFile['session'],
  ) {}

  /** Appends one entry, or several as one write (and one `fdatasync`). */
  async append(entry: LogEntry | readonly LogEntry[], onWritten?: () => void): Promise<void> {
    if (this.broken) throw new Error(`TraceStore: ${this.filePath} is no longer appended to after a failed write`);
    // A log moved or removed under us (its folder deleted, say) is not written blindly through the old descriptor,
    // where the lines would be lost: it is opened again at its path, which fails if the path cannot hold it.
    if (this.fd !== undefined && !this.stillAtPath(this.fd)) this.close();
    let created = false;
    if (this.fd === undefined) created = this.openFile();
    const fd = this.fd as number;
    const lines = (Array.isArray(entry) ? entry : [entry]).map((one) => `${JSON.stringify(one)}\n`).join('');
    const bytes = Buffer.from(`${created ? logHeader(this.session) : ''}${lines}`);
    try {
      let written = 0;
      while (written < bytes.byteLength) written += fs.writeSync(fd, bytes, written, bytes.byteLength - written, this.length + written);
      onWritten?.();
      await fdatasyncLater(fd);
      // A new file is durable only once its directory entry is.
      if (created) await syncDirectory(this.directory);
    } catch (error) {
      try {
        fs.ftruncateSync(fd, this.length);
      } catch {
        this.broken = true;
      }
      throw error;
    }
    this.length += bytes.byteLength;
  }

  private stillAtPath(fd: number): boolean {
    try {
      const open = fs.fstatSync(fd);
      const atPath = fs.statSync(this.filePath);
      return open.ino === atPath.ino && open.dev === atPath.dev;
    } catch {
      return false;
    }
  }

  /** Opens the file for appending; true when it is new (or empty) and needs its header. */
  private openFile(): boolean {
    let existing: Buffer | undefined;
    try {
      existing = fs.readFileSync(this.filePath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.fd = fs.openSync(this.filePath, existing === undefined ? 'wx' : 'r+');
    // A line cut short by a crash of the earlier process was never acknowledged: it is cut off before appending.
    this.length = existing === undefined ? 0 : existing.lastIndexOf(0x0a) + 1;
    if (existing !== undefined && this.length < existing.byteLength) fs.ftruncateSync(this.fd, this.length);
    return this.length === 0;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
