// The interaction trace's API: each server session appends to its own bounded segment files and reads everyone's.
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Interaction, TraceParams, TraceResult, TraceSession } from '../protocol.js';
import { AmendmentIndex, type Amendment, type ResponsePatch } from './amendments.js';
import { ForeignSessions } from './foreignSessions.js';
import { redactInteraction, restoreInteractionCode } from './interactionRedaction.js';
import type { Segment, SegmentFile } from './segmentFiles.js';
import { SegmentWriter } from './segmentWriter.js';
import { parseTraceParams } from './traceQuery.js';
import { TraceIndex, type TraceEntry } from './traceIndex.js';
import { Redactor } from '../privacy/secrets.js';
import { WorkspaceExclusion } from '../privacy/exclusion.js';

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
  /** The rule of the session's workspace (`Workspace.exclusion`); by default one read from `session.workspace`. */
  exclusion?: WorkspaceExclusion;
  /**
   * A reader beside the servers (the `assistant-ls trace` command): every session's segments are read as another
   * session's, nothing is created, set aside or tidied away, and `add`, `update` and amendments are refused. `session`
   * then names only the reader, whose id no folder should have.
   */
  readOnly?: boolean;
}

/** Names that are unsafe as a directory on some platform or would escape the trace directory. */
// eslint-disable-next-line no-control-regex
const UNSAFE_SESSION_ID = /[<>:"/\\|?*\u0000-\u001f]/;

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

/**
 * The trace of every session on a workspace. Every change to a recorded interaction goes through `add` and `update`
 * (this session's interactions, written to its segments by `SegmentWriter`) or `amendResponse` (a response of any
 * session's interaction, as an amendment); reads see other sessions' writes through `ForeignSessions`.
 */
export class TraceStore {
  readonly directory: string;
  readonly session: TraceSession;
  readonly segmentSize: number;
  readonly readOnly: boolean;
  private readonly onWarning: (message: string) => void;
  /** Whose files' code fragments are not recorded (the session's workspace's rule). */
  private readonly exclusion: WorkspaceExclusion | undefined;
  private readonly index = new TraceIndex<Segment>();
  /** Amendments by interaction id, from every session's segments. */
  private readonly amendments = new AmendmentIndex();
  private readonly writer: SegmentWriter;
  private readonly others: ForeignSessions;
  private history: Promise<void> = Promise.resolve();
  /** Tail of the write chain; never rejects, so one failed write does not block later ones. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /**
   * This session's placeholders for the secrets of what it writes, one per value for the life of the process, so
   * the values can be put back for its own revert and tracking; they are never written anywhere.
   */
  private readonly secrets = new Redactor(new Map(), { keptValues: true });
  private readonly redact = (text: string): string => this.secrets.redact(text);

  private constructor(options: TraceStoreOptions) {
    this.directory = path.resolve(options.directory);
    this.session = copy(options.session);
    this.segmentSize = options.segmentSize;
    this.readOnly = options.readOnly === true;
    this.exclusion = options.exclusion ?? (this.session.workspace ? new WorkspaceExclusion(this.session.workspace) : undefined);
    this.onWarning =
      options.onWarning ?? ((message) => void process.stderr.write(`[assistant-ls] trace: ${message}\n`));
    const context = { session: this.session, onWarning: this.onWarning, readOnly: this.readOnly };
    this.writer = new SegmentWriter(path.join(this.directory, this.session.id), this.segmentSize, context);
    this.others = new ForeignSessions(this.directory, context, {
      index: this.index,
      indexSegment: (segment) => this.indexSegment(segment),
      unindexSegment: (segment) => this.unindexSegment(segment),
      reindexSegment: (segment, data) => this.reindexSegment(segment, data),
    });
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
    if (!store.readOnly) {
      await fsp.mkdir(store.directory, { recursive: true });
      for (const segment of await store.writer.load()) store.indexSegment(segment);
      store.index.flush();
    }
    const history = store.others.load();
    if (options.history === 'background') {
      store.history = history.catch((error: unknown) => {
        // Whatever did not load is listed again (and read) by the next read.
        store.others.relistOnNextRead();
        store.onWarning(`could not load the trace history: ${error instanceof Error ? error.message : String(error)}`);
      });
    } else {
      await history;
    }
    store.others.startSweep();
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
    redactInteraction(record, this.exclusion, this.redact);
    return this.enqueue(async () => {
      if (record.sessionId !== this.session.id) {
        throw new Error(
          `TraceStore: interaction ${record.id} belongs to session ${record.sessionId}, not to this session (${this.session.id})`,
        );
      }
      if (this.index.get(record.id) !== undefined) throw new Error(`TraceStore: interaction ${record.id} is already recorded`);

      const { segment, created } = await this.writer.appendTarget();
      segment.db.data.interactions.push(record);
      this.index.set(record, segment);
      try {
        await this.writer.persist(segment, { add: record }, options.onWritten);
      } catch (error) {
        // Keep memory equal to disk: what did not reach the file is not in the trace.
        segment.db.data.interactions.pop();
        this.index.delete(record.id);
        this.writer.dropIfCreated(created);
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
    this.others.refresh();
    const entry = this.index.get(id);
    if (entry === undefined) {
      if (this.others.loadingHistory) return this.history.then(() => this.amendResponse(id, responseId, patch));
      return Promise.reject(new Error(`TraceStore: no interaction with id ${id}`));
    }
    if (!entry.interaction.responses.some((r) => r.id === responseId)) {
      return Promise.reject(new Error(`TraceStore: interaction ${id} has no response ${responseId}`));
    }
    const amendment: Amendment = { interactionId: id, responseId, at: this.amendments.nextTime(id), patch: copy(patch) };
    this.redactPatch(amendment.patch);
    return this.enqueue(async () => {
      const { segment, created } = await this.writer.appendTarget();
      const list = (segment.db.data.amendments ??= []);
      list.push(amendment);
      try {
        await this.writer.persist(segment, { amend: amendment });
      } catch (error) {
        list.pop();
        this.writer.dropIfCreated(created);
        throw error;
      }
      this.amendments.add(amendment, segment);
      return this.snapshot((this.index.get(id) ?? entry).interaction);
    });
  }

  /**
   * Several amendments as `amendResponse` makes them, written as one append (one `fdatasync`): what a save of a file
   * says of every insertion in it. Interactions not in the trace (any more) are left out; resolves once durable.
   */
  amendResponses(changes: readonly { interactionId: string; responseId: string; patch: ResponsePatch }[]): Promise<void> {
    this.others.refresh();
    const amendments: Amendment[] = [];
    for (const { interactionId, responseId, patch } of changes) {
      const entry = this.index.get(interactionId);
      if (!entry?.interaction.responses.some((r) => r.id === responseId)) continue;
      const redacted = copy(patch);
      this.redactPatch(redacted);
      amendments.push({ interactionId, responseId, at: this.amendments.nextTime(interactionId), patch: redacted });
    }
    if (amendments.length === 0) return Promise.resolve();
    return this.enqueue(async () => {
      const { segment, created } = await this.writer.appendTarget();
      const list = (segment.db.data.amendments ??= []);
      list.push(...amendments);
      try {
        await this.writer.persist(
          segment,
          amendments.map((amend) => ({ amend })),
        );
      } catch (error) {
        list.splice(list.length - amendments.length, amendments.length);
        this.writer.dropIfCreated(created);
        throw error;
      }
      for (const amendment of amendments) this.amendments.add(amendment, segment);
    });
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
        this.others.refresh();
        entry = this.index.get(id);
      }
      if (entry === undefined && this.others.loadingHistory) {
        await this.history;
        this.others.refresh();
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
      redactInteraction(after, this.exclusion, this.redact);
      const list = segment.db.data.interactions;
      const position = list.indexOf(before);
      if (position < 0) throw new Error(`TraceStore: internal error, interaction ${id} is missing from its segment`);
      list[position] = after;
      this.index.set(after, segment);
      try {
        await this.writer.persist(segment, { update: after }, options.onWritten);
      } catch (error) {
        list[position] = before;
        this.index.set(before, segment);
        throw error;
      }
      return this.snapshot(after);
    });
  }

  /** A patch as the trace keeps it: feedback and the text of edited insertions with their secrets replaced. */
  private redactPatch(patch: ResponsePatch): void {
    if (patch.feedback !== undefined) patch.feedback = this.redact(patch.feedback);
    for (const insertion of Array.isArray(patch.insertions) ? patch.insertions : []) if (typeof insertion?.editedText === 'string') insertion.editedText = this.redact(insertion.editedText);
  }

  /**
   * Like `get`, with the secrets of this session's edits and insertions put back (the placeholders the trace keeps
   * for them), for what must match the code in the editor: a revert, the tracking of inserted code. Another
   * session's interaction keeps its placeholders, whose values this process never knew.
   */
  getWithSecrets(id: string): Interaction | undefined {
    const interaction = this.get(id);
    if (interaction?.sessionId === this.session.id) restoreInteractionCode(interaction, (text) => this.secrets.restore(text));
    return interaction;
  }

  get(id: string): Interaction | undefined {
    this.others.refresh();
    const entry = this.index.get(id);
    return entry === undefined ? undefined : this.snapshot(entry.interaction);
  }

  /** The ids of every session's interactions that start with `prefix` (an id as a person types it), at most `limit`. */
  idsStartingWith(prefix: string, limit: number): string[] {
    this.others.refresh();
    return this.index.idsStartingWith(prefix, limit);
  }

  /** Answers like `queryInteractions` over every interaction, from the indexes: it touches little more than the page. */
  query(params: TraceParams): TraceResult {
    const filter = parseTraceParams(params);
    this.others.refresh();
    // Whether a response is used can change after the record (an edit discarded after it was applied): amended.
    const view = filter.used === undefined ? undefined : (entry: TraceEntry<Segment>): Interaction => (this.amendments.has(entry.id) ? this.snapshot(entry.interaction) : entry.interaction);
    const { entries, total } = this.index.query(filter, view);
    const result: TraceResult = { interactions: entries.map((entry) => this.snapshot(entry.interaction)), total };
    if (filter.offset + filter.limit < total) result.nextOffset = filter.offset + filter.limit;
    return result;
  }

  /** Every interaction of every session, newest first. */
  all(): Interaction[] {
    this.others.refresh();
    return this.index.newestFirst().map((entry) => this.snapshot(entry.interaction));
  }

  /**
   * Whether this session may settle what another session left unsettled (an edit it applied but never saw saved):
   * it is this session, or one of the same user on the same workspace whose server no longer runs on this machine.
   */
  inheritsFrom(sessionId: string): boolean {
    // A reader settles nothing: what it would decide is an amendment, which it does not write.
    if (this.readOnly) return false;
    return sessionId === this.session.id || this.others.ended(sessionId, this.session.user, this.session.workspace);
  }

  /** The ids of the interactions with a response inserted into `uri` (see `insertionsVersion`). */
  idsInsertedInto(uri: string): string[] {
    this.others.refresh();
    return this.index.idsInsertedInto(uri);
  }

  /** Changes whenever an interaction with insertions is added, or its insertions change, in any session read here. */
  get insertionsVersion(): number {
    return this.index.insertionsVersion;
  }

  /** Interactions with a response inserted at `uri` over the 0-based `line` as recorded (not moved since), newest first. */
  findByInsertion(uri: string, line: number): Interaction[] {
    this.others.refresh();
    return this.index.atInsertion(uri, line).map((entry) => this.snapshot(entry.interaction));
  }

  /** Waits for every add and update issued so far. */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Flushes; later adds and updates are refused, reads keep working (checking every session's files each time). */
  async close(): Promise<void> {
    this.closed = true;
    this.others.close();
    await this.flush();
    this.writer.close();
    await this.history;
  }

  private enqueue<R>(operation: () => Promise<R>): Promise<R> {
    if (this.readOnly) return Promise.reject(new Error('TraceStore: the store only reads'));
    if (this.closed) return Promise.reject(new Error('TraceStore: the store is closed'));
    const run = this.queue.then(operation);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** A copy of the interaction with every amendment applied, oldest first. */
  private snapshot(interaction: Interaction): Interaction {
    return this.amendments.applyTo(cloneJson(interaction));
  }

  private indexSegment(segment: Segment): void {
    for (const amendment of segment.db.data.amendments ?? []) this.amendments.add(amendment, segment);
    // Ids are unique by construction; should two files disagree, this session's own record wins.
    const keep = this.keepOwn(segment);
    for (const interaction of segment.db.data.interactions) this.index.set(interaction, segment, keep);
  }

  /** For indexing `segment`: whether an entry already indexed from elsewhere stays (it does when it is our own). */
  private keepOwn(segment: Segment): (existing: TraceEntry<Segment>) => boolean {
    return (existing) => existing.source !== segment && existing.source.sessionId === this.session.id;
  }

  private unindexSegment(segment: Segment): void {
    this.amendments.removeFrom(segment);
    for (const interaction of segment.db.data.interactions) {
      if (this.index.get(interaction.id)?.source === segment) this.index.delete(interaction.id);
    }
  }

  /** Replaces a foreign segment's content: unchanged interactions keep their place in the indexes. */
  private reindexSegment(segment: Segment, data: SegmentFile): void {
    const before = segment.db.data;
    this.amendments.removeFrom(segment);
    segment.db.data = data;
    for (const amendment of data.amendments ?? []) this.amendments.add(amendment, segment);
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
}
