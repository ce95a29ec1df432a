// The interaction trace on disk: each server session appends to its own bounded segment files and reads everyone's.
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { Low } from 'lowdb';
import type { Interaction, TraceParams, TraceResult, TraceSession } from '../protocol.js';
import { DurableJsonFile } from './durableJsonFile.js';
import { compareNewestFirst, queryInteractions } from './traceQuery.js';
import { redactSecrets } from '../privacy/secrets.js';
import { describeExclusion, workspaceExclusion } from '../privacy/exclusion.js';

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

/** The content of one `segment-NNNNNN.json` file. */
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

export interface TraceStoreOptions {
  /** The trace directory (absolute, or relative to the process's working directory). */
  directory: string;
  session: TraceSession;
  /** Interactions per segment file before a new one starts. */
  segmentSize: number;
  onWarning?: (message: string) => void;
}

const SEGMENT_NAME = /^segment-(\d{6,})\.json$/;

/** Names that are unsafe as a directory on some platform or would escape the trace directory. */
// eslint-disable-next-line no-control-regex
const UNSAFE_SESSION_ID = /[<>:"/\\|?*\u0000-\u001f]/;

function segmentName(index: number): string {
  return `segment-${String(index).padStart(6, '0')}.json`;
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

/** Identifies one version of a file or directory; every durable write replaces the inode, so `ino` changes too. */
function signatureOf(stat: fs.Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

function statSignature(target: string): string | undefined {
  try {
    return signatureOf(fs.statSync(target));
  } catch {
    return undefined;
  }
}

function lineInRange(line: number, range: { start: { line: number }; end: { line: number; character: number } }): boolean {
  // An insertion of whole lines ends at character 0 of the following line, which holds none of the inserted code.
  const lastLine = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  return line >= range.start.line && line <= lastLine;
}

interface Segment {
  sessionId: string;
  index: number;
  filePath: string;
  adapter: DurableJsonFile<SegmentFile>;
  db: Low<SegmentFile>;
  /** Only for other sessions' segments: the file version `db.data` was read from. */
  signature?: string;
}

interface ForeignSession {
  directory: string;
  /** The directory version whose listing `segments` reflects. */
  signature?: string;
  segments: Map<number, Segment>;
}

interface Entry {
  interaction: Interaction;
  segment: Segment;
}

export class TraceStore {
  readonly directory: string;
  readonly session: TraceSession;
  readonly segmentSize: number;
  private readonly onWarning: (message: string) => void;
  private readonly sessionDirectory: string;
  private readonly entries = new Map<string, Entry>();
  /** Amendments by interaction id, from every session's segments. */
  private readonly amendments = new Map<string, { amendment: Amendment; segment: Segment }[]>();
  /** This session's segments, oldest first; only the last one is appended to. */
  private readonly ownSegments: Segment[] = [];
  private nextSegmentIndex = 1;
  private readonly foreign = new Map<string, ForeignSession>();
  private rootSignature: string | undefined;
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
    await store.load();
    return store;
  }

  /** Appends an interaction of this session; resolves once it is durably on disk. */
  add(interaction: Interaction): Promise<void> {
    const record = copy(interaction);
    redactInteraction(record, this.session.workspace);
    return this.enqueue(async () => {
      if (record.sessionId !== this.session.id) {
        throw new Error(
          `TraceStore: interaction ${record.id} belongs to session ${record.sessionId}, not to this session (${this.session.id})`,
        );
      }
      if (this.entries.has(record.id)) throw new Error(`TraceStore: interaction ${record.id} is already recorded`);

      const { segment, created } = await this.appendTarget();
      segment.db.data.interactions.push(record);
      this.entries.set(record.id, { interaction: record, segment });
      try {
        await segment.db.write();
      } catch (error) {
        // Keep memory equal to disk: what did not reach the file is not in the trace.
        segment.db.data.interactions.pop();
        this.entries.delete(record.id);
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
    const entry = this.entries.get(id) ?? (this.refresh(), this.entries.get(id));
    if (entry === undefined) return Promise.reject(new Error(`TraceStore: no interaction with id ${id}`));
    if (!entry.interaction.responses.some((r) => r.id === responseId)) {
      return Promise.reject(new Error(`TraceStore: interaction ${id} has no response ${responseId}`));
    }
    const amendment: Amendment = { interactionId: id, responseId, at: new Date().toISOString(), patch: copy(patch) };
    if (amendment.patch.feedback !== undefined) amendment.patch.feedback = redactSecrets(amendment.patch.feedback);
    return this.enqueue(async () => {
      const { segment, created } = await this.appendTarget();
      const list = (segment.db.data.amendments ??= []);
      list.push(amendment);
      try {
        await segment.db.write();
      } catch (error) {
        list.pop();
        this.dropIfCreated(created);
        throw error;
      }
      this.indexAmendment(amendment, segment);
      return copy(this.view(this.entries.get(id)?.interaction ?? entry.interaction));
    });
  }

  /** This session's segment to append to, started anew when the last one is full. */
  private async appendTarget(): Promise<{ segment: Segment; created: boolean }> {
    const last = this.ownSegments.at(-1);
    if (last !== undefined && last.db.data.interactions.length < this.segmentSize) return { segment: last, created: false };
    if (last === undefined) await fsp.mkdir(this.sessionDirectory, { recursive: true });
    const segment = this.createSegment(this.session.id, this.nextSegmentIndex, this.sessionDirectory);
    segment.db.data = { format: SEGMENT_FORMAT, session: this.session, interactions: [] };
    this.nextSegmentIndex += 1;
    this.ownSegments.push(segment);
    return { segment, created: true };
  }

  private dropIfCreated(created: boolean): void {
    if (!created) return;
    this.ownSegments.pop();
    this.nextSegmentIndex -= 1;
  }

  /** The interaction with every amendment applied, oldest first; the stored object itself when there are none. */
  private view(interaction: Interaction): Interaction {
    const amendments = this.amendments.get(interaction.id);
    if (!amendments?.length) return interaction;
    const result = copy(interaction);
    for (const { amendment } of [...amendments].sort((a, b) => (a.amendment.at < b.amendment.at ? -1 : 1))) {
      applyResponsePatch(result, amendment.responseId, amendment.patch);
    }
    return result;
  }

  private indexAmendment(amendment: Amendment, segment: Segment): void {
    const list = this.amendments.get(amendment.interactionId) ?? [];
    list.push({ amendment, segment });
    this.amendments.set(amendment.interactionId, list);
  }

  /**
   * Changes an interaction of this session and rewrites the one segment holding it; resolves with a copy of the
   * result once it is durably on disk. `change` works on a copy, so a throwing `change` leaves the trace intact.
   */
  update(id: string, change: (interaction: Interaction) => void): Promise<Interaction> {
    return this.enqueue(async () => {
      let entry = this.entries.get(id);
      if (entry === undefined) {
        this.refresh();
        entry = this.entries.get(id);
      }
      if (entry === undefined) throw new Error(`TraceStore: no interaction with id ${id}`);
      if (entry.segment.sessionId !== this.session.id) {
        throw new Error(
          `TraceStore: interaction ${id} belongs to session ${entry.segment.sessionId}; only that session may change it`,
        );
      }
      const { segment, interaction: before } = entry;
      const changed = copy(before);
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
      this.entries.set(id, { interaction: after, segment });
      try {
        await segment.db.write();
      } catch (error) {
        list[position] = before;
        this.entries.set(id, entry);
        throw error;
      }
      return copy(this.view(after));
    });
  }

  get(id: string): Interaction | undefined {
    this.refresh();
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : copy(this.view(entry.interaction));
  }

  query(params: TraceParams): TraceResult {
    this.refresh();
    const result = queryInteractions(this.interactions(), params);
    return copy(result);
  }

  /** Every interaction of every session, newest first. */
  all(): Interaction[] {
    this.refresh();
    return copy(this.interactions().sort(compareNewestFirst));
  }

  /** Interactions with a response inserted at `uri` over the 0-based `line`, newest first. */
  findByInsertion(uri: string, line: number): Interaction[] {
    this.refresh();
    const found = this.interactions().filter((interaction) =>
      interaction.responses.some((response) =>
        (response.insertedAt ?? []).some((insertion) => insertion.uri === uri && lineInRange(line, insertion.range)),
      ),
    );
    return copy(found.sort(compareNewestFirst));
  }

  /** Waits for every add and update issued so far. */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Flushes; later adds and updates are refused, reads keep working. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private interactions(): Interaction[] {
    return Array.from(this.entries.values(), (entry) => this.view(entry.interaction));
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

  private createSegment(sessionId: string, index: number, directory: string): Segment {
    const filePath = path.join(directory, segmentName(index));
    const adapter = new DurableJsonFile<SegmentFile>(filePath, { validate: isSegmentFile, onWarning: this.onWarning });
    const db = new Low<SegmentFile>(adapter, { format: SEGMENT_FORMAT, session: this.session, interactions: [] });
    return { sessionId, index, filePath, adapter, db };
  }

  private static listSegments(directory: string): Array<{ index: number; name: string }> {
    let names: string[];
    try {
      names = fs.readdirSync(directory);
    } catch {
      return [];
    }
    const found: Array<{ index: number; name: string }> = [];
    for (const name of names) {
      const match = SEGMENT_NAME.exec(name);
      if (match?.[1] !== undefined) found.push({ index: Number(match[1]), name });
    }
    return found.sort((a, b) => a.index - b.index);
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

  private async load(): Promise<void> {
    this.rootSignature = statSignature(this.directory);
    for (const sessionId of this.listSessionDirectories()) {
      const directory = path.join(this.directory, sessionId);
      const own = sessionId === this.session.id;
      const foreign: ForeignSession | undefined = own ? undefined : { directory, segments: new Map() };
      if (foreign) {
        foreign.signature = statSignature(directory);
        this.foreign.set(sessionId, foreign);
      }
      for (const { index } of TraceStore.listSegments(directory)) {
        const segment = this.createSegment(sessionId, index, directory);
        // Stat before reading: if the file changes in between, the next refresh sees a new version and re-reads.
        const signature = own ? undefined : statSignature(segment.filePath);
        const data = await segment.adapter.read();
        if (own) this.nextSegmentIndex = Math.max(this.nextSegmentIndex, index + 1);
        if (data === null) continue;
        segment.db.data = data;
        if (own) {
          this.ownSegments.push(segment);
        } else if (foreign) {
          segment.signature = signature;
          foreign.segments.set(index, segment);
        }
        this.index(segment);
      }
    }
  }

  private index(segment: Segment): void {
    for (const amendment of segment.db.data.amendments ?? []) this.indexAmendment(amendment, segment);
    for (const interaction of segment.db.data.interactions) {
      const existing = this.entries.get(interaction.id);
      // Ids are unique by construction; should two files disagree, this session's own record wins.
      if (existing !== undefined && existing.segment.sessionId === this.session.id) continue;
      this.entries.set(interaction.id, { interaction, segment });
    }
  }

  private unindex(segment: Segment): void {
    for (const [id, list] of this.amendments) {
      const kept = list.filter((item) => item.segment !== segment);
      if (kept.length) this.amendments.set(id, kept);
      else this.amendments.delete(id);
    }
    for (const interaction of segment.db.data.interactions) {
      if (this.entries.get(interaction.id)?.segment === segment) this.entries.delete(interaction.id);
    }
  }

  /**
   * Picks up what other servers on this workspace wrote since we last looked. Cheap when nothing changed:
   * one stat per directory and per segment file, no reads.
   */
  private refresh(): void {
    const rootSignature = statSignature(this.directory);
    if (rootSignature !== this.rootSignature) {
      this.rootSignature = rootSignature;
      const present = new Set(this.listSessionDirectories());
      for (const sessionId of present) {
        if (sessionId !== this.session.id && !this.foreign.has(sessionId)) {
          this.foreign.set(sessionId, { directory: path.join(this.directory, sessionId), segments: new Map() });
        }
      }
      for (const [sessionId, foreign] of this.foreign) {
        if (present.has(sessionId)) continue;
        for (const segment of foreign.segments.values()) this.unindex(segment);
        this.foreign.delete(sessionId);
      }
    }
    for (const [sessionId, foreign] of this.foreign) this.refreshSession(sessionId, foreign);
  }

  private refreshSession(sessionId: string, foreign: ForeignSession): void {
    const signature = statSignature(foreign.directory);
    if (signature !== foreign.signature) {
      foreign.signature = signature;
      const listed = new Map(TraceStore.listSegments(foreign.directory).map((entry) => [entry.index, entry]));
      for (const [index, segment] of foreign.segments) {
        if (listed.has(index)) continue;
        this.unindex(segment);
        foreign.segments.delete(index);
      }
      for (const index of listed.keys()) {
        if (!foreign.segments.has(index)) {
          foreign.segments.set(index, this.createSegment(sessionId, index, foreign.directory));
        }
      }
    }
    for (const segment of foreign.segments.values()) {
      const fileSignature = statSignature(segment.filePath);
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
      this.unindex(segment);
      segment.db.data = data;
      this.index(segment);
    }
  }
}
