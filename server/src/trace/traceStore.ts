// The interaction trace on disk: each server session appends to its own bounded segment files and reads everyone's.
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { Low } from 'lowdb';
import type { Interaction, TraceParams, TraceResult, TraceSession } from '../protocol.js';
import { DurableJsonFile } from './durableJsonFile.js';
import { parseSegmentLog, SegmentAppender, serializeSegmentLog, type LogEntry } from './segmentLog.js';
import { parseTraceParams } from './traceQuery.js';
import { TraceIndex, type TraceEntry } from './traceIndex.js';
import { redactSecrets } from '../privacy/secrets.js';
import { describeExclusion, workspaceExclusion } from '../privacy/exclusion.js';
import { changedAt, isUnsettled } from '../workspace/fileTimes.js';

export const SEGMENT_FORMAT = 1;

/** What a later request may change on a recorded response. */
export interface ResponsePatch {
  /** A thumb up or down; null withdraws it. */
  rating?: 'up' | 'down' | null;
  /** Appended to the response's feedback. */
  feedback?: string;
  revertedAt?: string;
}

/**
 * A change to an interaction written by a session that does not own it (each file has one writer), kept in
 * that session's segment and applied on top of the interaction wherever it is read.
 */
export interface Amendment {
  interactionId: string;
  responseId: string;
  at: string;
  patch: ResponsePatch;
}

/**
 * The content of one segment: a `segment-NNNNNN.jsonl` log (what sessions write) folded, or a whole
 * `segment-NNNNNN.json` document (what earlier versions wrote; still read, and rewritten whole on the rare update).
 */
export interface SegmentFile {
  format: typeof SEGMENT_FORMAT;
  session: TraceSession;
  interactions: Interaction[];
  amendments?: Amendment[];
}

/** Applies a patch to the response it names. */
export function applyResponsePatch(interaction: Interaction, responseId: string, patch: ResponsePatch): void {
  const response = interaction.responses.find((r) => r.id === responseId);
  if (!response) return;
  if (patch.rating === null) delete response.rating;
  else if (patch.rating !== undefined) response.rating = patch.rating;
  if (patch.feedback !== undefined) response.feedback = [...(response.feedback ?? []), patch.feedback];
  if (patch.revertedAt !== undefined) response.revertedAt = patch.revertedAt;
}

/** For `add` and `update`. */
export interface WriteOptions {
  /**
   * Runs once the change is in the file, before the wait for the disk: from then on it outlives this process and
   * every reader sees it. Until the flush ends, it can still be lost to a crash of the whole machine, or undone by a
   * flush that fails (the promise then rejects).
   */
  onWritten?: () => void;
}

export interface TraceStoreOptions {
  /** The trace directory (absolute, or relative to the process's working directory). */
  directory: string;
  session: TraceSession;
  /** Interactions per segment file before a new one starts. */
  segmentSize: number;
  onWarning?: (message: string) => void;
  /**
   * `'open'` (the default): `open` resolves once every session's segments are loaded. `'background'`: it resolves
   * once this session's own segments are loaded, so appends need not wait for the history; other sessions' segments
   * load in the background (`historyLoaded()`), reads see what has loaded so far, and `update`/`amendResponse` of an
   * interaction not loaded yet wait for it.
   */
  history?: 'open' | 'background';
}

const SEGMENT_NAME = /^segment-(\d{6,})\.json(l?)$/;

/** Names that are unsafe as a directory on some platform or would escape the trace directory. */
// eslint-disable-next-line no-control-regex
const UNSAFE_SESSION_ID = /[<>:"/\\|?*\u0000-\u001f]/;

function segmentName(index: number, log: boolean): string {
  return `segment-${String(index).padStart(6, '0')}.json${log ? 'l' : ''}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A light shape check: enough that the store and queries cannot crash on what they read. */
export function isSegmentFile(data: unknown): data is SegmentFile {
  if (!isRecord(data) || data.format !== SEGMENT_FORMAT) return false;
  if (!isRecord(data.session) || typeof data.session.id !== 'string') return false;
  if (!Array.isArray(data.interactions)) return false;
  if (data.amendments !== undefined && !(Array.isArray(data.amendments) && data.amendments.every((a: unknown) => isRecord(a) && typeof a.interactionId === 'string' && typeof a.responseId === 'string' && typeof a.at === 'string' && isRecord(a.patch)))) {
    return false;
  }
  return data.interactions.every(
    (interaction: unknown) =>
      isRecord(interaction) &&
      typeof interaction.id === 'string' &&
      typeof interaction.sessionId === 'string' &&
      typeof interaction.timestamp === 'string' &&
      typeof interaction.text === 'string' &&
      Array.isArray(interaction.responses) &&
      interaction.responses.every(
        (response: unknown) =>
          isRecord(response) &&
          isRecord(response.agent) &&
          typeof response.agent.name === 'string' &&
          typeof response.text === 'string',
      ),
  );
}

/**
 * Secrets never reach the trace raw: the free text of an interaction (its request, code fragment, message) and of
 * each response (answer, error, verdict, feedback) is redacted as it is written, and the code fragment of a file
 * the workspace keeps from models (`workspace`: its root) is not recorded at all. Edits and insertion records are
 * kept as they are, since applying and reverting need them exactly; they hold the user's own code.
 */
export function redactInteraction(interaction: Interaction, workspace?: string): void {
  interaction.text = redactSecrets(interaction.text);
  if (interaction.message !== undefined) interaction.message = redactSecrets(interaction.message);
  const fragment = interaction.context?.fragment;
  const fullPath = interaction.context?.resource?.fullPath;
  const excluded = workspace && fullPath ? workspaceExclusion(workspace).check(fullPath) : undefined;
  if (fragment && excluded) fragment.text = `[not recorded: ${describeExclusion(excluded).replace(/, so it is never sent to a model$/, '')}]`;
  else if (fragment && typeof fragment.text === 'string') fragment.text = redactSecrets(fragment.text);
  for (const response of interaction.responses) {
    response.text = redactSecrets(response.text);
    if (response.error !== undefined) response.error = redactSecrets(response.error);
    if (response.outcomeReason !== undefined) response.outcomeReason = redactSecrets(response.outcomeReason);
    if (response.feedback) response.feedback = response.feedback.map(redactSecrets);
    if (response.verdict) {
      response.verdict.summary = redactSecrets(response.verdict.summary);
      if (response.verdict.details) response.verdict.details = response.verdict.details.map(redactSecrets);
    }
  }
}

/** What we return is a copy, so callers cannot change the trace without going through a durable write. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A deep copy of JSON data (what the store holds), cheaper than a round trip through text. */
function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
    else result[key] = item;
  }
  return result as T;
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

interface Segment {
  sessionId: string;
  index: number;
  filePath: string;
  /** A `.jsonl` log; otherwise a whole `.json` document. */
  log: boolean;
  adapter: DurableJsonFile<SegmentFile>;
  db: Low<SegmentFile>;
  /** Only for other sessions' segments: the file version `db.data` was read from. */
  signature?: string;
  /** Only for the segment this session appends to: a segment without one is rewritten whole. */
  appender?: SegmentAppender;
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
  live: boolean;
  segments: Map<number, Segment>;
}

/**
 * The order amendments apply in, the same for every reader: by time; within one millisecond by session id, and within
 * a session in the order it wrote them (the sort is stable and each session's list keeps its files' order).
 */
function amendmentOrder(a: { amendment: Amendment; segment: Segment }, b: { amendment: Amendment; segment: Segment }): number {
  if (a.amendment.at !== b.amendment.at) return a.amendment.at < b.amendment.at ? -1 : 1;
  if (a.segment.sessionId !== b.segment.sessionId) return a.segment.sessionId < b.segment.sessionId ? -1 : 1;
  return a.segment.index - b.segment.index;
}

export class TraceStore {
  readonly directory: string;
  readonly session: TraceSession;
  readonly segmentSize: number;
  private readonly onWarning: (message: string) => void;
  private readonly sessionDirectory: string;
  private readonly index = new TraceIndex<Segment>();
  /** Amendments by interaction id, from every session's segments. */
  private readonly amendments = new Map<string, { amendment: Amendment; segment: Segment }[]>();
  /** This session's segments, oldest first; only the last one is appended to. */
  private readonly ownSegments: Segment[] = [];
  private nextSegmentIndex = 1;
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
  /** Other sessions' segments are still loading (`open` with `history: 'background'`). */
  private loading = false;
  private history: Promise<void> = Promise.resolve();
  /** Tail of the write chain; never rejects, so one failed write does not block later ones. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(options: TraceStoreOptions) {
    this.directory = path.resolve(options.directory);
    this.session = copy(options.session);
    this.segmentSize = options.segmentSize;
    this.onWarning =
      options.onWarning ?? ((message) => void process.stderr.write(`[assistant-ls] trace: ${message}\n`));
    this.sessionDirectory = path.join(this.directory, this.session.id);
  }

  static async open(options: TraceStoreOptions): Promise<TraceStore> {
    const id = options.session.id;
    if (typeof id !== 'string' || id === '' || id === '.' || id === '..' || UNSAFE_SESSION_ID.test(id)) {
      throw new TypeError(`TraceStore: session id ${JSON.stringify(id)} cannot be used as a directory name`);
    }
    if (!Number.isInteger(options.segmentSize) || options.segmentSize < 1) {
      throw new TypeError(`TraceStore: segmentSize must be a positive integer, got ${String(options.segmentSize)}`);
    }
    const store = new TraceStore(options);
    await fsp.mkdir(store.directory, { recursive: true });
    await store.loadOwn();
    store.loading = true;
    const history = store.loadHistory().finally(() => {
      store.loading = false;
    });
    if (options.history === 'background') {
      store.history = history.catch((error: unknown) => {
        // Whatever did not load is listed again (and read) by the next read.
        store.rootSignature = undefined;
        store.onWarning(`could not load the trace history: ${error instanceof Error ? error.message : String(error)}`);
      });
    } else {
      await history;
    }
    store.startSweep();
    return store;
  }

  /** Resolves once every session's segments present at `open` are loaded (at once unless `history: 'background'`). */
  historyLoaded(): Promise<void> {
    return this.history;
  }

  /**
   * Appends an interaction of this session; resolves once it is durably on disk (`options.onWritten` runs earlier,
   * once it is in the file). If the flush fails, the record is taken out again and the promise rejects.
   */
  add(interaction: Interaction, options: WriteOptions = {}): Promise<void> {
    const record = copy(interaction);
    redactInteraction(record, this.session.workspace);
    return this.enqueue(async () => {
      if (record.sessionId !== this.session.id) {
        throw new Error(
          `TraceStore: interaction ${record.id} belongs to session ${record.sessionId}, not to this session (${this.session.id})`,
        );
      }
      if (this.index.get(record.id) !== undefined) throw new Error(`TraceStore: interaction ${record.id} is already recorded`);

      const { segment, created } = await this.appendTarget();
      segment.db.data.interactions.push(record);
      this.index.set(record, segment);
      try {
        await this.persist(segment, { add: record }, options.onWritten);
      } catch (error) {
        // Keep memory equal to disk: what did not reach the file is not in the trace.
        segment.db.data.interactions.pop();
        this.index.delete(record.id);
        this.dropIfCreated(created);
        throw error;
      }
    });
  }

  /**
   * Rates, comments on or marks reverted one response of any session's interaction, as an amendment in this
   * session's segment (so every change is ordered by time, whoever makes it, and each file keeps one writer).
   * Resolves with the amended interaction once durably on disk.
   */
  amendResponse(id: string, responseId: string, patch: ResponsePatch): Promise<Interaction> {
    this.refresh();
    const entry = this.index.get(id);
    if (entry === undefined) {
      if (this.loading) return this.history.then(() => this.amendResponse(id, responseId, patch));
      return Promise.reject(new Error(`TraceStore: no interaction with id ${id}`));
    }
    if (!entry.interaction.responses.some((r) => r.id === responseId)) {
      return Promise.reject(new Error(`TraceStore: interaction ${id} has no response ${responseId}`));
    }
    const amendment: Amendment = { interactionId: id, responseId, at: this.amendmentTime(id), patch: copy(patch) };
    if (amendment.patch.feedback !== undefined) amendment.patch.feedback = redactSecrets(amendment.patch.feedback);
    return this.enqueue(async () => {
      const { segment, created } = await this.appendTarget();
      const list = (segment.db.data.amendments ??= []);
      list.push(amendment);
      try {
        await this.persist(segment, { amend: amendment });
      } catch (error) {
        list.pop();
        this.dropIfCreated(created);
        throw error;
      }
      this.indexAmendment(amendment, segment);
      return this.snapshot((this.index.get(id) ?? entry).interaction);
    });
  }

  /**
   * Now, or just after the latest amendment of the interaction known here if that is not earlier: a change made after
   * seeing another applies after it, even within the same millisecond.
   */
  private amendmentTime(id: string): string {
    let latest = '';
    for (const { amendment } of this.amendments.get(id) ?? []) if (amendment.at > latest) latest = amendment.at;
    const now = new Date().toISOString();
    return now > latest ? now : new Date(Date.parse(latest) + 1).toISOString();
  }

  /**
   * This session's segment to append to: a log, started anew when the last one is full, is not a log, or could not be
   * written to (see `SegmentAppender.broken`).
   */
  private async appendTarget(): Promise<{ segment: Segment; created: boolean }> {
    const last = this.ownSegments.at(-1);
    if (last?.appender && !last.appender.broken && last.db.data.interactions.length < this.segmentSize) return { segment: last, created: false };
    if (last === undefined) await fsp.mkdir(this.sessionDirectory, { recursive: true });
    this.stopAppending(last);
    const segment = this.createSegment(this.session.id, this.nextSegmentIndex, this.sessionDirectory, true);
    segment.db.data = { format: SEGMENT_FORMAT, session: this.session, interactions: [] };
    segment.appender = new SegmentAppender(segment.filePath, this.sessionDirectory, this.session);
    this.nextSegmentIndex += 1;
    this.ownSegments.push(segment);
    return { segment, created: true };
  }

  private dropIfCreated(created: boolean): void {
    if (!created) return;
    this.stopAppending(this.ownSegments.pop());
    this.nextSegmentIndex -= 1;
  }

  private stopAppending(segment: Segment | undefined): void {
    segment?.appender?.close();
    if (segment) delete segment.appender;
  }

  /**
   * Makes a change to a segment's data durable: one line appended to the segment being appended to, otherwise the
   * segment rewritten whole (a temp file renamed over it), which also ends appending to it. `onWritten` runs once the
   * change is in the file: after the line's write, before its `fdatasync`; after the whole rewrite.
   */
  private async persist(segment: Segment, entry: LogEntry, onWritten?: () => void): Promise<void> {
    if (segment.appender && !segment.appender.broken) return segment.appender.append(entry, onWritten);
    this.stopAppending(segment);
    await segment.db.write();
    onWritten?.();
  }

  /** A copy of the interaction with every amendment applied, oldest first. */
  private snapshot(interaction: Interaction): Interaction {
    const result = cloneJson(interaction);
    const amendments = this.amendments.get(interaction.id);
    if (!amendments?.length) return result;
    for (const { amendment } of [...amendments].sort(amendmentOrder)) {
      applyResponsePatch(result, amendment.responseId, amendment.patch);
    }
    return result;
  }

  private indexAmendment(amendment: Amendment, segment: Segment): void {
    const list = this.amendments.get(amendment.interactionId);
    if (list) list.push({ amendment, segment });
    else this.amendments.set(amendment.interactionId, [{ amendment, segment }]);
  }

  /**
   * Changes an interaction of this session and rewrites the one segment holding it; resolves with a copy of the
   * result once it is durably on disk (`options.onWritten` runs earlier, once it is in the file; a failed flush puts
   * the interaction back as it was). `change` works on a copy, so a throwing `change` leaves the trace intact.
   */
  update(id: string, change: (interaction: Interaction) => void, options: WriteOptions = {}): Promise<Interaction> {
    return this.enqueue(async () => {
      let entry = this.index.get(id);
      if (entry === undefined) {
        this.refresh();
        entry = this.index.get(id);
      }
      if (entry === undefined && this.loading) {
        await this.history;
        this.refresh();
        entry = this.index.get(id);
      }
      if (entry === undefined) throw new Error(`TraceStore: no interaction with id ${id}`);
      const segment = entry.source;
      if (segment.sessionId !== this.session.id) {
        throw new Error(
          `TraceStore: interaction ${id} belongs to session ${segment.sessionId}; only that session may change it`,
        );
      }
      const before = entry.interaction;
      // The stored record is JSON data already: a plain deep copy will do.
      const changed = cloneJson(before);
      change(changed);
      if (changed.id !== before.id || changed.sessionId !== before.sessionId) {
        throw new Error(`TraceStore: update of ${id} must not change its id or sessionId`);
      }
      // A copy again: `change` may have put the caller's own objects in, which redaction must not touch.
      const after = copy(changed);
      redactInteraction(after, this.session.workspace);
      const list = segment.db.data.interactions;
      const position = list.indexOf(before);
      if (position < 0) throw new Error(`TraceStore: internal error, interaction ${id} is missing from its segment`);
      list[position] = after;
      this.index.set(after, segment);
      try {
        await this.persist(segment, { update: after }, options.onWritten);
      } catch (error) {
        list[position] = before;
        this.index.set(before, segment);
        throw error;
      }
      return this.snapshot(after);
    });
  }

  get(id: string): Interaction | undefined {
    this.refresh();
    const entry = this.index.get(id);
    return entry === undefined ? undefined : this.snapshot(entry.interaction);
  }

  /** Answers like `queryInteractions` over every interaction, from the indexes: it touches little more than the page. */
  query(params: TraceParams): TraceResult {
    const filter = parseTraceParams(params);
    this.refresh();
    const { entries, total } = this.index.query(filter);
    const result: TraceResult = { interactions: entries.map((entry) => this.snapshot(entry.interaction)), total };
    if (filter.offset + filter.limit < total) result.nextOffset = filter.offset + filter.limit;
    return result;
  }

  /** Every interaction of every session, newest first. */
  all(): Interaction[] {
    this.refresh();
    return this.index.newestFirst().map((entry) => this.snapshot(entry.interaction));
  }

  /** Interactions with a response inserted at `uri` over the 0-based `line`, newest first. */
  findByInsertion(uri: string, line: number): Interaction[] {
    this.refresh();
    return this.index.atInsertion(uri, line).map((entry) => this.snapshot(entry.interaction));
  }

  /** Waits for every add and update issued so far. */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Flushes; later adds and updates are refused, reads keep working (checking every session's files each time). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    await this.flush();
    this.stopAppending(this.ownSegments.at(-1));
    await this.history;
  }

  private enqueue<R>(operation: () => Promise<R>): Promise<R> {
    if (this.closed) return Promise.reject(new Error('TraceStore: the store is closed'));
    const run = this.queue.then(operation);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private createSegment(sessionId: string, index: number, directory: string, log: boolean): Segment {
    const filePath = path.join(directory, segmentName(index, log));
    const segment = { sessionId, index, filePath, log } as Segment;
    segment.adapter = new DurableJsonFile<SegmentFile>(filePath, {
      validate: isSegmentFile,
      onWarning: this.onWarning,
      ...(log ? { parse: parseSegmentLog, serialize: serializeSegmentLog } : {}),
    });
    segment.db = new Low<SegmentFile>(segment.adapter, { format: SEGMENT_FORMAT, session: this.session, interactions: [] });
    return segment;
  }

  /** The segments among a folder's names by index; should an index have both forms, the log. */
  private static segmentsIn(names: readonly string[]): Array<{ index: number; log: boolean }> {
    const found = new Map<number, boolean>();
    for (const name of names) {
      const match = SEGMENT_NAME.exec(name);
      if (match?.[1] === undefined) continue;
      const index = Number(match[1]);
      found.set(index, found.get(index) === true || match[2] === 'l');
    }
    return [...found].map(([index, log]) => ({ index, log })).sort((a, b) => a.index - b.index);
  }

  private static listSegments(directory: string): Array<{ index: number; log: boolean }> {
    try {
      return TraceStore.segmentsIn(fs.readdirSync(directory));
    } catch {
      return [];
    }
  }

  private static async listSegmentsLater(directory: string): Promise<Array<{ index: number; log: boolean }>> {
    try {
      return TraceStore.segmentsIn(await fsp.readdir(directory));
    } catch {
      return [];
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

  /** This session's own segments (when it continues a session id): appends continue the last one. */
  private async loadOwn(): Promise<void> {
    for (const { index, log } of await TraceStore.listSegmentsLater(this.sessionDirectory)) {
      const segment = this.createSegment(this.session.id, index, this.sessionDirectory, log);
      const data = await segment.adapter.read();
      this.nextSegmentIndex = Math.max(this.nextSegmentIndex, index + 1);
      if (data === null) continue;
      segment.db.data = data;
      this.ownSegments.push(segment);
      this.indexSegment(segment);
    }
    // A log left by an earlier process of this session is continued; the others are rewritten whole on the rare update.
    const last = this.ownSegments.at(-1);
    if (last?.log) last.appender = new SegmentAppender(last.filePath, this.sessionDirectory, this.session);
    this.index.flush();
  }

  /**
   * Every other session's segments, indexed one file at a time with a turn of the event loop in between (a few files
   * are read ahead), so that loading a long history never blocks the server for more than one file's parse.
   */
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
      if (sessionId === this.session.id || this.foreign.has(sessionId)) continue;
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
      const segments = await TraceStore.listSegmentsLater(directory);
      const last = segments.at(-1);
      foreign.signature = sessionSignature(stat, last && (await statLater(path.join(directory, segmentName(last.index, last.log)))));
      if (segments.length === 0) this.addForeign(foreign);
      segments.forEach(({ index, log }, n) => jobs.push({ foreign, index, log, last: n === segments.length - 1 }));
    }
    type Read = { segment: Segment; signature?: string; data: SegmentFile | null } | { error: unknown };
    const read = async ({ foreign, index, log }: (typeof jobs)[number]): Promise<Read> => {
      try {
        const segment = this.createSegment(foreign.id, index, foreign.directory, log);
        const fileStat = await statLater(segment.filePath);
        const data = await segment.adapter.read();
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
        for (const segment of foreign.segments.values()) this.unindexSegment(segment);
        throw result.error;
      }
      const { segment, signature, data } = result;
      if (data !== null) {
        if (signature !== undefined) segment.signature = signature;
        segment.db.data = data;
        foreign.segments.set(index, segment);
        this.indexSegment(segment);
        this.noteOwner(foreign, data);
        if (this.index.pendingCount >= LOAD_BATCH) this.index.flush();
      }
      // Registered once loaded whole, so a read meanwhile never checks a half-loaded session.
      if (last) this.addForeign(foreign);
      await yieldToLoop();
    }
    this.index.flush();
  }

  private noteOwner(foreign: ForeignSession, data: SegmentFile): void {
    if (foreign.pid !== undefined) return;
    foreign.pid = data.session.pid;
    foreign.live = processRuns(foreign.pid);
    if (foreign.live && this.foreign.get(foreign.id) === foreign) this.hot.add(foreign);
  }

  private addForeign(foreign: ForeignSession): void {
    this.foreign.set(foreign.id, foreign);
    this.sweepOrder.push(foreign);
    if (foreign.live || Date.now() - foreign.lastChange < RECENT_MS || foreign.unsettled) this.hot.add(foreign);
  }

  private removeForeign(foreign: ForeignSession): void {
    for (const segment of foreign.segments.values()) this.unindexSegment(segment);
    this.foreign.delete(foreign.id);
    this.hot.delete(foreign);
    this.sweepOrder = this.sweepOrder.filter((item) => item !== foreign);
  }

  private indexSegment(segment: Segment): void {
    for (const amendment of segment.db.data.amendments ?? []) this.indexAmendment(amendment, segment);
    // Ids are unique by construction; should two files disagree, this session's own record wins.
    const keep = this.keepOwn(segment);
    for (const interaction of segment.db.data.interactions) this.index.set(interaction, segment, keep);
  }


  /** For indexing `segment`: whether an entry already indexed from elsewhere stays (it does when it is our own). */
  private keepOwn(segment: Segment): (existing: TraceEntry<Segment>) => boolean {
    return (existing) => existing.source !== segment && existing.source.sessionId === this.session.id;
  }

  private unindexAmendments(segment: Segment): void {
    for (const id of new Set((segment.db.data.amendments ?? []).map((amendment) => amendment.interactionId))) {
      const kept = (this.amendments.get(id) ?? []).filter((item) => item.segment !== segment);
      if (kept.length) this.amendments.set(id, kept);
      else this.amendments.delete(id);
    }
  }

  private unindexSegment(segment: Segment): void {
    this.unindexAmendments(segment);
    for (const interaction of segment.db.data.interactions) {
      if (this.index.get(interaction.id)?.source === segment) this.index.delete(interaction.id);
    }
  }

  /** Replaces a foreign segment's content: unchanged interactions keep their place in the indexes. */
  private reindexSegment(segment: Segment, data: SegmentFile): void {
    const before = segment.db.data;
    this.unindexAmendments(segment);
    segment.db.data = data;
    for (const amendment of data.amendments ?? []) this.indexAmendment(amendment, segment);
    const present = new Set<string>();
    const keep = this.keepOwn(segment);
    for (const interaction of data.interactions) {
      present.add(interaction.id);
      this.index.set(interaction, segment, keep);
    }
    for (const interaction of before.interactions) {
      if (!present.has(interaction.id) && this.index.get(interaction.id)?.source === segment) this.index.delete(interaction.id);
    }
  }

  /**
   * Picks up what other servers on this workspace wrote since we last looked. Cheap when nothing changed: one stat
   * of the trace directory and one per foreign session that may be writing now (see `hot`); no reads.
   */
  private refresh(): void {
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
      if (sessionId === this.session.id || this.foreign.has(sessionId)) continue;
      this.addForeign({ id: sessionId, directory: path.join(this.directory, sessionId), unsettled: false, lastChange: now, live: false, segments: new Map() });
    }
    for (const [sessionId, foreign] of this.foreign) {
      if (!present.has(sessionId)) this.removeForeign(foreign);
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
    const lastPath = TraceStore.lastSegmentPath(foreign);
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
      const listed = new Map(TraceStore.listSegments(foreign.directory).map((entry) => [entry.index, entry]));
      for (const [index, segment] of foreign.segments) {
        if (listed.get(index)?.log === segment.log) continue;
        this.unindexSegment(segment);
        foreign.segments.delete(index);
      }
      for (const { index, log } of listed.values()) {
        if (!foreign.segments.has(index)) foreign.segments.set(index, this.createSegment(foreign.id, index, foreign.directory, log));
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
        this.onWarning(`could not read ${segment.filePath}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      if (data === null) continue;
      this.reindexSegment(segment, data);
      this.noteOwner(foreign, data);
    }
  }

  /**
   * The background check of quiet foreign sessions: a batch of folders per tick, stat'ed asynchronously; one that
   * changed is checked on the next read (and on every read while it stays active).
   */
  private startSweep(): void {
    if (this.closed) return;
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
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
          const lastPath = TraceStore.lastSegmentPath(foreign);
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
