// The main thread's side of the background type-check: one worker thread, fed one document at a time, restarted when it stops.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { DiagnosticInfo } from '../tasks/task.js';

const STOPPED = 'the type-check thread was stopped';

/** What the worker is started with. */
export interface CheckerThreadData {
  /** The workspace folder its project is made for. */
  root: string;
}

/** One check the worker is asked for: the document's path in the project and the text to check. */
export interface CheckRequest {
  id: number;
  fsPath: string;
  text: string;
}

/** The worker's answer to one request. */
export type CheckReply = { id: number; diagnostics: DiagnosticInfo[] } | { id: number; error: string };

export interface CheckerThreadOptions {
  root: string;
  /** The worker's script (`diagnosticsWorker.js`). */
  script: URL;
  /** How many times in a row the thread may stop on its own before background checks are given up. */
  maxRestarts?: number;
}

interface Pending extends CheckRequest {
  resolve(diagnostics: DiagnosticInfo[]): void;
  reject(error: unknown): void;
  /** Set once the caller has its answer (or gave up on it); a late reply is then dropped. */
  settled: boolean;
}

/**
 * Where the worker's script is: beside this module in the build (`diagnosticsWorker.js`) and in the VS Code bundle
 * (`diagnosticsWorker.mjs` beside `assistant-ls.mjs`); when this module runs from its TypeScript source (the tests),
 * the build's copy. Undefined when there is none, and the checks then run on the main thread.
 */
export function findCheckerScript(base: string = import.meta.url): URL | undefined {
  const candidates = ['./diagnosticsWorker.js', './diagnosticsWorker.mjs'];
  if (base.endsWith('.ts')) candidates.push('../../../dist/server/src/oracle/diagnosticsWorker.js');
  for (const candidate of candidates) {
    const url = new URL(candidate, base);
    if (fs.existsSync(url)) return url;
  }
  return undefined;
}

/**
 * Type-checks documents on a worker thread with a ts-morph project of its own, so a check (hundreds of milliseconds
 * on a large file, seconds on the first) never holds up code actions, cancellations or tasks. Requests go to the
 * worker one at a time; a request aborted while it waits is never sent, and one aborted while the worker checks it
 * is answered at once (the worker's reply is dropped). A worker that stops (a crash, running out of memory) fails
 * the check it had and is started again for the next one, up to `maxRestarts` times in a row.
 */
export class CheckerThread {
  private worker: Worker | undefined;
  private readonly queue: Pending[] = [];
  private inFlight: Pending | undefined;
  private nextId = 1;
  private stops = 0;
  private failure: string | undefined;
  private disposed = false;

  constructor(private readonly options: CheckerThreadOptions) {}

  /** The diagnostics of `text` as the content of `fsPath`; rejects with the signal's reason when aborted. */
  check(fsPath: string, text: string, signal: AbortSignal): Promise<DiagnosticInfo[]> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.disposed) return Promise.reject(new Error(STOPPED));
    if (this.failure !== undefined) return Promise.reject(new Error(this.failure));
    return new Promise<DiagnosticInfo[]>((resolve, reject) => {
      const pending: Pending = {
        id: this.nextId++,
        fsPath,
        text,
        settled: false,
        resolve: (diagnostics) => {
          signal.removeEventListener('abort', onAbort);
          resolve(diagnostics);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = (): void => {
        const queued = this.queue.indexOf(pending);
        if (queued >= 0) this.queue.splice(queued, 1);
        settle(pending, { error: signal.reason });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      this.pump();
    });
  }

  /** Stops the worker; checks not yet answered are rejected. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.failAll(new Error(STOPPED));
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private pump(): void {
    if (this.inFlight || this.disposed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.inFlight = next;
    const request: CheckRequest = { id: next.id, fsPath: next.fsPath, text: next.text };
    this.started().postMessage(request);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const data: CheckerThreadData = { root: this.options.root };
    const worker = new Worker(this.options.script, { workerData: data });
    // The server's process ends when its connection does; a check under way must not keep it alive.
    worker.unref();
    let lastError: string | undefined;
    worker.on('message', (reply: CheckReply) => {
      if (this.worker !== worker) return;
      const pending = this.inFlight;
      if (!pending || pending.id !== reply.id) return;
      this.inFlight = undefined;
      this.stops = 0;
      settle(pending, 'error' in reply ? { error: new Error(reply.error) } : { diagnostics: reply.diagnostics });
      this.pump();
    });
    worker.on('error', (error) => {
      lastError = error.message;
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.stops++;
      const reason = `the type-check thread stopped (${lastError ?? `exit code ${code}`})`;
      const pending = this.inFlight;
      this.inFlight = undefined;
      if (pending) settle(pending, { error: new Error(reason) });
      if (this.stops > (this.options.maxRestarts ?? 3)) {
        this.failure = `${reason}; background type-checks are off until the server restarts`;
        this.failAll(new Error(this.failure));
        return;
      }
      this.pump();
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    const pending = [...(this.inFlight ? [this.inFlight] : []), ...this.queue];
    this.inFlight = undefined;
    this.queue.length = 0;
    for (const p of pending) settle(p, { error });
  }
}

function settle(pending: Pending, outcome: { diagnostics: DiagnosticInfo[] } | { error: unknown }): void {
  if (pending.settled) return;
  pending.settled = true;
  if ('diagnostics' in outcome) pending.resolve(outcome.diagnostics);
  else pending.reject(outcome.error);
}
