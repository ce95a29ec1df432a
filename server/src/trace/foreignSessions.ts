// Other sessions' segments: loaded at open a file at a time, read again when they change, and watched by a background sweep.
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { changedAt, isUnsettled } from '../workspace/fileTimes.js';
import { createSegment, listSegments, listSegmentsLater, segmentName, type Segment, type SegmentContext, type SegmentFile } from './segmentFiles.js';
import type { TraceIndex } from './traceIndex.js';

/** What the store does with the segments read here: it indexes their interactions and amendments (see `TraceStore`). */
export interface SegmentIndexing {
  readonly index: TraceIndex<Segment>;
  indexSegment(segment: Segment): void;
  unindexSegment(segment: Segment): void;
  /** Replaces a segment's content: unchanged interactions keep their place in the indexes. */
  reindexSegment(segment: Segment, data: SegmentFile): void;
}

/** Identifies one version of a file or directory; a rewrite replaces the inode (`ino`), an append changes the size. */
function signatureOf(stat: fs.Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/**
 * Identifies what a foreign session has written: its folder changes when a segment is created or rewritten, its last
 * segment when appended to (which leaves the folder as it was).
 */
function sessionSignature(folder: fs.Stats | undefined, lastSegment: fs.Stats | undefined): string | undefined {
  return folder && `${signatureOf(folder)}|${lastSegment ? signatureOf(lastSegment) : ''}`;
}

function statNow(target: string): fs.Stats | undefined {
  try {
    return fs.statSync(target, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

async function statLater(target: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.stat(target);
  } catch {
    return undefined;
  }
}

/**
 * A foreign session whose folder changed this recently may be writing now (a run writes its record, then its outcome):
 * it is checked on every read. Quiet longer, it is left to the sweep unless its server process runs here.
 */
const RECENT_MS = 2_000;
/** Other foreign sessions are swept in the background, this many folders (asynchronous stats) per interval. */
const SWEEP_BATCH = 64;
const SWEEP_INTERVAL_MS = 250;
/** While loading, new entries are sorted into the indexes in batches of about this many. */
const LOAD_BATCH = 4_096;
/** Segment files read ahead of the one being indexed while loading, so the disk and the parser overlap. */
const READ_AHEAD = 4;

/** Whether a session's server process runs on this machine (another process: ours cannot be another server). */
function processRuns(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface ForeignSession {
  id: string;
  directory: string;
  /** The directory version whose listing and files `segments` reflects. */
  signature?: string;
  /** The directory changed so recently that its time may not move on the next change (see `settleMs` in workspace/fileTimes.ts). */
  unsettled: boolean;
  /** When it was last seen to change (epoch ms). */
  lastChange: number;
  /** The pid its segments record, and whether that process runs here: then it is checked on every read. */
  pid?: unknown;
  /** Who ran it, on which workspace, as its segments record. */
  owner?: { user: unknown; workspace: unknown };
  live: boolean;
  segments: Map<number, Segment>;
}

/** The sessions of the trace directory other than the store's own, which only read their files (each file has one writer). */
export class ForeignSessions {
  private readonly foreign = new Map<string, ForeignSession>();
  /**
   * Foreign sessions checked on every read: those that changed within RECENT_MS or whose process runs here. The
   * others are past sessions as a rule; the background sweep stats their folders and moves any that changed here.
   */
  private readonly hot = new Set<ForeignSession>();
  private sweepOrder: ForeignSession[] = [];
  private sweepCursor = 0;
  private sweeping = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private rootSignature: string | undefined;
  private rootUnsettled = false;
  /** Other sessions' segments are still loading (`load` has not finished). */
  private loading = false;
  private closed = false;

  constructor(
    /** The trace directory, absolute. */
    private readonly directory: string,
    private readonly context: SegmentContext,
    private readonly indexing: SegmentIndexing,
  ) {}

  /** Whether a session read here was `user`'s on `workspace`, and its server process no longer runs on this machine. */
  ended(sessionId: string, user: string, workspace: string): boolean {
    const foreign = this.foreign.get(sessionId);
    return foreign?.owner !== undefined && foreign.owner.user === user && foreign.owner.workspace === workspace && !processRuns(foreign.pid);
  }

  /** Whether the history `load` reads is still loading: an interaction not found yet may still come. */
  get loadingHistory(): boolean {
    return this.loading;
  }

  /**
   * Every other session's segments, indexed one file at a time with a turn of the event loop in between (a few files
   * are read ahead), so that loading a long history never blocks the server for more than one file's parse.
   */
  load(): Promise<void> {
    this.loading = true;
    return this.loadHistory().finally(() => {
      this.loading = false;
    });
  }

  /** After a failed `load`: whatever did not load is listed again (and read) by the next read. */
  relistOnNextRead(): void {
    this.rootSignature = undefined;
  }

  private async loadHistory(): Promise<void> {
    const rootStat = await statLater(this.directory);
    this.rootSignature = rootStat && signatureOf(rootStat);
    this.rootUnsettled = rootStat !== undefined && isUnsettled(rootStat, Date.now());
    let names: string[];
    try {
      names = (await fsp.readdir(this.directory, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      names = [];
    }
    const jobs: Array<{ foreign: ForeignSession; index: number; log: boolean; last: boolean }> = [];
    for (const sessionId of names) {
      if (sessionId === this.context.session.id || this.foreign.has(sessionId)) continue;
      const directory = path.join(this.directory, sessionId);
      // Stat before listing and reading: whatever changes after that changes this signature, and is read again.
      const stat = await statLater(directory);
      const foreign: ForeignSession = {
        id: sessionId,
        directory,
        unsettled: stat !== undefined && isUnsettled(stat, Date.now()),
        lastChange: stat === undefined ? Date.now() : changedAt(stat),
        live: false,
        segments: new Map(),
      };
      const segments = await listSegmentsLater(directory);
      const last = segments.at(-1);
      foreign.signature = sessionSignature(stat, last && (await statLater(path.join(directory, segmentName(last.index, last.log)))));
      if (segments.length === 0) this.addForeign(foreign);
      segments.forEach(({ index, log }, n) => jobs.push({ foreign, index, log, last: n === segments.length - 1 }));
    }
    type Read = { segment: Segment; signature?: string; data: SegmentFile | null } | { error: unknown };
    const read = async ({ foreign, index, log }: (typeof jobs)[number]): Promise<Read> => {
      try {
        const segment = createSegment(foreign.id, index, foreign.directory, log, this.context);
        const fileStat = await statLater(segment.filePath);
        // A damaged file is set aside (its writer is gone as a rule), except by a reader, which changes nothing.
        const data = await segment.adapter.read({ setAside: this.context.readOnly !== true });
        return fileStat === undefined ? { segment, data } : { segment, signature: signatureOf(fileStat), data };
      } catch (error) {
        return { error };
      }
    };
    const reads: Array<Promise<Read> | undefined> = [];
    for (let n = 0; n < jobs.length; n++) {
      while (reads.length < Math.min(jobs.length, n + READ_AHEAD)) reads.push(read(jobs[reads.length] as (typeof jobs)[number]));
      const result = await (reads[n] as Promise<Read>);
      reads[n] = undefined;
      const { foreign, index, last } = jobs[n] as (typeof jobs)[number];
      if ('error' in result) {
        // Leave no half-loaded session behind: the next listing of the directory finds it again.
        for (const segment of foreign.segments.values()) this.indexing.unindexSegment(segment);
        throw result.error;
      }
      const { segment, signature, data } = result;
      if (data !== null) {
        if (signature !== undefined) segment.signature = signature;
        segment.db.data = data;
        foreign.segments.set(index, segment);
        this.indexing.indexSegment(segment);
        this.noteOwner(foreign, data);
        if (this.indexing.index.pendingCount >= LOAD_BATCH) this.indexing.index.flush();
      }
      // Registered once loaded whole, so a read meanwhile never checks a half-loaded session.
      if (last) this.addForeign(foreign);
      await yieldToLoop();
    }
    this.indexing.index.flush();
  }

  private noteOwner(foreign: ForeignSession, data: SegmentFile): void {
    if (foreign.pid !== undefined) return;
    foreign.pid = data.session.pid;
    foreign.owner = { user: data.session.user, workspace: data.session.workspace };
    foreign.live = processRuns(foreign.pid);
    if (foreign.live && this.foreign.get(foreign.id) === foreign) this.hot.add(foreign);
  }

  private addForeign(foreign: ForeignSession): void {
    this.foreign.set(foreign.id, foreign);
    this.sweepOrder.push(foreign);
    if (foreign.live || Date.now() - foreign.lastChange < RECENT_MS || foreign.unsettled) this.hot.add(foreign);
  }

  private removeForeign(foreign: ForeignSession): void {
    for (const segment of foreign.segments.values()) this.indexing.unindexSegment(segment);
    this.foreign.delete(foreign.id);
    this.hot.delete(foreign);
    this.sweepOrder = this.sweepOrder.filter((item) => item !== foreign);
  }

  /**
   * Picks up what other servers on this workspace wrote since we last looked. Cheap when nothing changed: one stat
   * of the trace directory and one per foreign session that may be writing now (see `hot`); no reads.
   */
  refresh(): void {
    const now = Date.now();
    // While the history loads, the loader owns the listing of sessions.
    if (!this.loading) this.refreshRoot(now);
    // (Deleting the current element while iterating a Set is well defined: refreshSession may demote it.)
    for (const foreign of this.closed ? this.foreign.values() : this.hot) this.refreshSession(foreign, now);
  }

  private refreshRoot(now: number): void {
    const stat = statNow(this.directory);
    const signature = stat && signatureOf(stat);
    if (signature === this.rootSignature && !this.rootUnsettled) return;
    this.rootSignature = signature;
    this.rootUnsettled = stat !== undefined && isUnsettled(stat, now);
    const present = new Set(this.listSessionDirectories());
    for (const sessionId of present) {
      if (sessionId === this.context.session.id || this.foreign.has(sessionId)) continue;
      this.addForeign({ id: sessionId, directory: path.join(this.directory, sessionId), unsettled: false, lastChange: now, live: false, segments: new Map() });
    }
    for (const [sessionId, foreign] of this.foreign) {
      if (!present.has(sessionId)) this.removeForeign(foreign);
    }
  }

  private listSessionDirectories(): string[] {
    try {
      return fs
        .readdirSync(this.directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  /** The file of a foreign session's last known segment, the one it appends to. */
  private static lastSegmentPath(foreign: ForeignSession): string | undefined {
    let last: Segment | undefined;
    for (const segment of foreign.segments.values()) if (last === undefined || segment.index > last.index) last = segment;
    return last?.filePath;
  }

  private refreshSession(foreign: ForeignSession, now: number): void {
    const stat = statNow(foreign.directory);
    const lastPath = ForeignSessions.lastSegmentPath(foreign);
    const signature = sessionSignature(stat, lastPath === undefined ? undefined : statNow(lastPath));
    const changed = signature !== foreign.signature;
    if (!changed && !foreign.unsettled) {
      // Quiet for RECENT_MS and no process of its own here: from now on the sweep watches it.
      if (!foreign.live && !this.closed && now - foreign.lastChange >= RECENT_MS) this.hot.delete(foreign);
      return;
    }
    if (changed) foreign.lastChange = now;
    foreign.signature = signature;
    foreign.unsettled = stat !== undefined && isUnsettled(stat, now);
    // Unchanged but unsettled: the files are stat'ed, and the folder listed again only if one appeared or went.
    const files = new Map<Segment, fs.Stats | undefined>();
    let relist = changed;
    if (!changed) {
      for (const segment of foreign.segments.values()) {
        const fileStat = statNow(segment.filePath);
        files.set(segment, fileStat);
        if (fileStat === undefined) relist = true;
      }
      const next = Math.max(0, ...foreign.segments.keys()) + 1;
      if ([true, false].some((log) => statNow(path.join(foreign.directory, segmentName(next, log))) !== undefined)) relist = true;
    }
    if (relist) {
      const listed = new Map(listSegments(foreign.directory).map((entry) => [entry.index, entry]));
      for (const [index, segment] of foreign.segments) {
        if (listed.get(index)?.log === segment.log) continue;
        this.indexing.unindexSegment(segment);
        foreign.segments.delete(index);
      }
      for (const { index, log } of listed.values()) {
        if (!foreign.segments.has(index)) foreign.segments.set(index, createSegment(foreign.id, index, foreign.directory, log, this.context));
      }
    }
    for (const segment of foreign.segments.values()) {
      const fileStat = files.has(segment) ? files.get(segment) : statNow(segment.filePath);
      const fileSignature = fileStat && signatureOf(fileStat);
      if (fileSignature === segment.signature) continue;
      segment.signature = fileSignature;
      if (fileSignature === undefined) continue;
      let data: SegmentFile | null;
      try {
        // Another process owns this file: a damaged one is reported but left where it is.
        data = segment.adapter.readSync({ setAside: false });
      } catch (error) {
        this.context.onWarning(`could not read ${segment.filePath}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      if (data === null) continue;
      this.indexing.reindexSegment(segment, data);
      this.noteOwner(foreign, data);
    }
  }

  /**
   * The background check of quiet foreign sessions: a batch of folders per tick, stat'ed asynchronously; one that
   * changed is checked on the next read (and on every read while it stays active).
   */
  startSweep(): void {
    if (this.closed) return;
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /** Stops the sweep; from then on every read checks every foreign session. */
  close(): void {
    this.closed = true;
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.loading || this.closed) return;
    this.sweeping = true;
    try {
      for (const foreign of this.hot) {
        if (foreign.live && !processRuns(foreign.pid)) foreign.live = false;
      }
      const order = this.sweepOrder;
      const batch: ForeignSession[] = [];
      for (let n = 0; n < order.length && batch.length < SWEEP_BATCH; n++) {
        this.sweepCursor = (this.sweepCursor + 1) % order.length;
        const foreign = order[this.sweepCursor] as ForeignSession;
        if (!this.hot.has(foreign)) batch.push(foreign);
      }
      await Promise.all(
        batch.map(async (foreign) => {
          const stat = await statLater(foreign.directory);
          const lastPath = ForeignSessions.lastSegmentPath(foreign);
          const signature = sessionSignature(stat, lastPath === undefined ? undefined : await statLater(lastPath));
          if (signature === foreign.signature || this.foreign.get(foreign.id) !== foreign) return;
          foreign.lastChange = Date.now();
          this.hot.add(foreign);
        }),
      );
    } finally {
      this.sweeping = false;
    }
  }
}
