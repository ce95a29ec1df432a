// The server's own diagnostics of open documents, computed in the background per (uri, version) after a pause in typing, so Fix is offered even when the client sends none.
import type { WorkspaceProjects } from '../workspace/workspaceProject.js';
import type { DiagnosticInfo } from '../tasks/task.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { isSupportedLanguage } from '../workspace/documentSnapshot.js';
import { CheckerThread, findCheckerScript } from './checkerThread.js';
import { diagnosticsOf, projectPathOf } from './typeCheck.js';

export interface DiagnosticsCacheOptions {
  /**
   * Computes a document's diagnostics; may throw (the failure is reported and nothing is cached). The signal is
   * aborted once the result cannot be used (a newer version was asked for, the document closed); the computation
   * may then reject with its reason, which is not reported.
   */
  compute(document: DocumentSnapshot, signal: AbortSignal): DiagnosticInfo[] | Promise<DiagnosticInfo[]>;
  /** Quiet time after the last request for a document before its diagnostics are computed. */
  delayMs?: number;
  /** Documents longer than this are not checked in the background (a type-check per keystroke pause would cost too much). */
  maxChars?: number;
  /** How many documents are remembered; the least recently requested are dropped. */
  capacity?: number;
  /** Called after a document's diagnostics are cached. */
  onComputed?(uri: string, version: number | null, diagnostics: DiagnosticInfo[]): void;
  /** Called when computing failed. */
  onError?(uri: string, error: unknown): void;
  /** Called once by `dispose`, to release what `compute` holds. */
  onDispose?(): void;
}

interface Entry {
  /** The latest version asked for. */
  requested: number | null;
  timer?: ReturnType<typeof setTimeout>;
  running?: Promise<void>;
  /** Aborts the running computation. */
  abort?: AbortController;
  cached?: { version: number | null; diagnostics: DiagnosticInfo[] };
}

/**
 * Requests for one document within `delayMs` of each other collapse into one computation of the latest version;
 * `get` answers only for the exact version, so a code-action request never sees diagnostics of other text.
 */
export class DiagnosticsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly delayMs: number;
  private readonly maxChars: number;
  private readonly capacity: number;
  private disposed = false;

  constructor(private readonly options: DiagnosticsCacheOptions) {
    this.delayMs = options.delayMs ?? 400;
    this.maxChars = options.maxChars ?? 1_000_000;
    this.capacity = options.capacity ?? 200;
  }

  /** Schedules the document's diagnostics (on open and on every change); a newer request for the same URI replaces a pending one. */
  request(document: DocumentSnapshot): void {
    if (this.disposed) return;
    const entry = this.entries.get(document.uri) ?? { requested: document.version };
    // Re-inserting keeps the map in least-recently-requested order for eviction.
    this.entries.delete(document.uri);
    this.entries.set(document.uri, entry);
    if (entry.requested !== document.version) entry.abort?.abort();
    entry.requested = document.version;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    this.evict();
    if (entry.cached && entry.cached.version === document.version) return;
    if (document.text.length > this.maxChars) return;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      entry.abort?.abort();
      const abort = new AbortController();
      const run: Promise<void> = this.compute(entry, document, abort.signal).finally(() => {
        if (entry.running === run) entry.running = undefined;
        if (entry.abort === abort) entry.abort = undefined;
      });
      entry.running = run;
      entry.abort = abort;
    }, this.delayMs);
  }

  /** The cached diagnostics of exactly this version, or undefined when they are not (yet) known. */
  get(uri: string, version: number | null): DiagnosticInfo[] | undefined {
    const cached = this.entries.get(uri)?.cached;
    return cached && cached.version === version ? cached.diagnostics : undefined;
  }

  /** Drops a document (on close). */
  forget(uri: string): void {
    const entry = this.entries.get(uri);
    if (entry?.timer) clearTimeout(entry.timer);
    entry?.abort?.abort();
    this.entries.delete(uri);
  }

  /** Resolves once no computation is scheduled or running; for tests and orderly shutdown. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.entries.values()].filter((e) => e.timer !== undefined || e.running !== undefined);
      if (busy.length === 0) return;
      const running = busy.map((e) => e.running).filter((r): r is Promise<void> => r !== undefined);
      await (running.length > 0 ? Promise.all(running) : new Promise((resolve) => setTimeout(resolve, this.delayMs)));
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const entry of this.entries.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.abort?.abort();
    }
    this.entries.clear();
    this.options.onDispose?.();
  }

  private async compute(entry: Entry, document: DocumentSnapshot, signal: AbortSignal): Promise<void> {
    try {
      const diagnostics = await this.options.compute(document, signal);
      // A slow computation may finish after a newer version was requested or the document was closed: keep only current results.
      if (this.disposed || this.entries.get(document.uri) !== entry || entry.requested !== document.version) return;
      entry.cached = { version: document.version, diagnostics };
      this.options.onComputed?.(document.uri, document.version, diagnostics);
    } catch (error) {
      if (!signal.aborted) this.options.onError?.(document.uri, error);
    }
  }

  private evict(): void {
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) return;
      this.forget(oldest);
    }
  }
}

/**
 * The cache the server uses: the diagnostics of TypeScript and JavaScript documents, each in the project of the config
 * that governs it, checked on a worker thread with projects of its own (see `CheckerThread`), or on this thread when
 * the worker's script is not there (`script: null`, or no build beside the sources).
 */
export function projectDiagnosticsCache(projects: WorkspaceProjects, options: Omit<DiagnosticsCacheOptions, 'compute' | 'onDispose'> & { script?: URL | null } = {}): DiagnosticsCache {
  const { script = findCheckerScript(), ...cacheOptions } = options;
  const thread = script ? new CheckerThread({ root: projects.root, script }) : undefined;
  return new DiagnosticsCache({
    ...cacheOptions,
    compute: (document, signal) => {
      if (!isSupportedLanguage(document.languageId)) return [];
      const fsPath = projectPathOf(projects.workspace, document.uri, document.languageId);
      return thread ? thread.check(fsPath, document.text, signal) : diagnosticsOf(projects.forFile(fsPath), fsPath, document.text);
    },
    onDispose: () => void thread?.dispose(),
  });
}

/**
 * The client's diagnostics plus the server's own that the client did not already send (same range and code, or
 * same range and message), so one problem is offered once.
 */
export function mergeDiagnostics(fromClient: readonly DiagnosticInfo[], own: readonly DiagnosticInfo[]): DiagnosticInfo[] {
  const same = (a: DiagnosticInfo, b: DiagnosticInfo): boolean => a.start === b.start && a.end === b.end && ((a.code !== undefined && String(a.code) === String(b.code)) || a.message === b.message);
  return [...fromClient, ...own.filter((d) => !fromClient.some((c) => same(c, d)))];
}
