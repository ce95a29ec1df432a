// Chat completions from a local GGUF model on a worker thread: loaded on first use, unloaded when idle, each call within a token budget and abortable at once.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { writtenCalls } from '../lenientJson.js';
import { finishCompletion, ModelError } from '../modelClient.js';
import type { ChatClient, ChatMessage, CompleteOptions, Completion, FillRequest, ToolSpec } from '../modelClient.js';
import type { LocalModelInfo, LocalModelOptions, WorkerReply, WorkerRequest } from './localModelMessages.js';

export interface LocalModelSettings extends LocalModelOptions {
  /** Most tokens one answer may have; a longer one is cut off and reported as such. */
  maxTokens: number;
  temperature: number;
  /** The worker (and the model's memory with it) goes after this long without a request. */
  idleUnloadMs: number;
}

/** Where the worker's script is: beside this module in the build, `.mjs` in the bundle, the build's copy from the sources. */
export function findLocalModelWorker(base: string = import.meta.url): URL | undefined {
  const candidates = ['./localModelWorker.js', './localModelWorker.mjs'];
  if (base.endsWith('.ts')) candidates.push('../../../../dist/server/src/agents/local/localModelWorker.js');
  for (const candidate of candidates) {
    const url = new URL(candidate, base);
    if (fs.existsSync(url)) return url;
  }
  return undefined;
}

interface Pending {
  resolve(completion: Completion): void;
  reject(error: unknown): void;
  onText?: (text: string) => void;
  text: string;
  /** Called once the worker confirms the request is over (answered, failed or stopped). */
  settled?: () => void;
}

export interface LocalCompleteOptions extends CompleteOptions {
  /** Each piece of the answer as the model writes it. */
  onText?: (text: string) => void;
  /** Overrides the agent's token budget for this call. */
  maxTokens?: number;
}

/**
 * One local model behind the `complete` of any model client. Nothing leaves the process, so nothing is redacted.
 * An aborted call is answered at once with the signal's reason; the worker is told to stop, and stops generating
 * within a token or a batch.
 */
export class LocalModelClient implements ChatClient {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private loaded: Promise<LocalModelInfo> | undefined;
  private resolveLoaded: ((info: LocalModelInfo) => void) | undefined;
  private rejectLoaded: ((error: unknown) => void) | undefined;

  constructor(
    readonly settings: LocalModelSettings,
    private readonly script: URL | undefined = findLocalModelWorker(),
  ) {}

  /** Whether the model is loaded or loading (its worker runs). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** The model's facts, loading it if need be. */
  info(): Promise<LocalModelInfo> {
    this.start().postMessage({ type: 'load' } satisfies WorkerRequest);
    const loaded = this.loaded!;
    void loaded.then(() => {
      if (this.pending.size === 0) this.idle();
    }, () => undefined);
    return loaded;
  }

  async complete(messages: ChatMessage[], signal: AbortSignal, options: LocalCompleteOptions = {}): Promise<Completion> {
    const { onWritten, onText } = options;
    let written = 0;
    const counted: LocalCompleteOptions = onWritten
      ? {
          ...options,
          onText: (text) => {
            onText?.(text);
            written += text.length;
            onWritten(written);
          },
        }
      : options;
    const raw = await this.generate(messages, signal, counted);
    return finishCompletion(raw.text, raw.finishReason, raw.usage, raw.toolCalls);
  }

  /**
   * The model's answer as it ended, `finishReason` `length` included (which `complete` reports as a cut-off answer):
   * what an OpenAI-compatible server in front of the model needs.
   */
  async generate(messages: ChatMessage[], signal: AbortSignal, options: LocalCompleteOptions = {}): Promise<Completion> {
    return this.run((id) => ({ type: 'complete', id, messages, ...(options.tools?.length ? { tools: options.tools } : {}), maxTokens: options.maxTokens ?? this.settings.maxTokens, temperature: this.settings.temperature }), signal, options);
  }

  /**
   * Fill-in-the-middle with the model's FIM tokens (inline completion); fails with a `local` ModelError when the
   * model has none, which `info().infill` tells beforehand. Nothing leaves the process, so nothing is redacted.
   */
  async fill(request: FillRequest, signal: AbortSignal): Promise<Completion> {
    return this.run((id) => ({ type: 'infill', id, prefix: request.prompt, suffix: request.suffix, maxTokens: request.maxTokens, temperature: this.settings.temperature, stop: request.stop }), signal, {});
  }

  private async run(build: (id: number) => WorkerRequest, signal: AbortSignal, options: LocalCompleteOptions): Promise<Completion> {
    signal.throwIfAborted();
    const worker = this.start();
    const id = this.nextId++;
    const request = build(id);
    this.busy();
    return new Promise<Completion>((resolve, reject) => {
      const onAbort = (): void => {
        worker.postMessage({ type: 'abort', id } satisfies WorkerRequest);
        const entry = this.pending.get(id);
        if (entry) entry.resolve = entry.reject = () => undefined;
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const release = (): void => signal.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        text: '',
        ...(options.onText ? { onText: options.onText } : {}),
        resolve: (completion) => {
          release();
          resolve(options.tools?.length ? withWrittenCalls(completion, options.tools) : completion);
        },
        reject: (error) => {
          release();
          reject(error);
        },
      });
      worker.postMessage(request);
    });
  }

  /** How much text the requests still running have produced so far (0 while the model reads their prompts). */
  pendingText(): number {
    return [...this.pending.values()].reduce((sum, entry) => sum + entry.text.length, 0);
  }

  /**
   * Resolves once the worker has no request left running: after an abort, when it stopped generating. For tests
   * and the bench, which measure how soon that is.
   */
  whenIdle(): Promise<void> {
    const open = [...this.pending.values()];
    return Promise.all(open.map((entry) => new Promise<void>((resolve) => (entry.settled = resolve)))).then(() => undefined);
  }

  /**
   * Stops the worker, failing what it was doing; the next call starts it again. The worker frees the model and ends
   * itself (native code ended mid-call would abort the process); one that has not ended within `graceMs` is terminated.
   */
  async dispose(graceMs = 10_000): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    if (!worker) return;
    this.stopped(worker, 'the local model was unloaded');
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'dispose' } satisfies WorkerRequest);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
    clearTimeout(timer);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    if (!this.script) throw new ModelError('local', 'the local model worker (localModelWorker.js) is not beside the server; rebuild assistant-ls');
    const { maxTokens: _maxTokens, temperature: _temperature, idleUnloadMs: _idle, ...workerOptions } = this.settings;
    const worker = new Worker(this.script, { workerData: workerOptions satisfies LocalModelOptions });
    this.worker = worker;
    this.loaded = new Promise<LocalModelInfo>((resolve, reject) => {
      this.resolveLoaded = resolve;
      this.rejectLoaded = reject;
    });
    // Whoever waits for the model sees the failure; nobody waiting is not an unhandled rejection.
    this.loaded.catch(() => undefined);
    worker.on('message', (reply: WorkerReply) => this.receive(reply));
    worker.on('error', (error) => this.stopped(worker, `the local model's worker failed: ${error.message}`));
    worker.on('exit', (code) => this.stopped(worker, `the local model's worker stopped (exit code ${code})`));
    return worker;
  }

  private receive(reply: WorkerReply): void {
    if (reply.type === 'loaded') return this.resolveLoaded?.(reply.info);
    if (reply.type === 'failed') {
      const error = new ModelError('local', reply.message);
      this.rejectLoaded?.(error);
      // The model cannot run: every request waiting on it fails with the same reason.
      for (const id of [...this.pending.keys()]) this.settle(id, (entry) => entry.reject(error));
      return;
    }
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    switch (reply.type) {
      case 'chunk':
        entry.text += reply.text;
        entry.onText?.(reply.text);
        return;
      case 'done':
        return this.settle(reply.id, (e) => e.resolve(reply.completion));
      case 'error':
        return this.settle(reply.id, (e) => e.reject(new ModelError('local', `the local model failed: ${reply.message}`)));
      case 'aborted':
        return this.settle(reply.id, (e) => e.reject(new ModelError('local', 'the local model stopped')));
    }
  }

  private settle(id: number, how: (entry: Pending) => void): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    how(entry);
    entry.settled?.();
    if (this.pending.size === 0) this.idle();
  }

  private stopped(worker: Worker, message: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const error = new ModelError('local', message);
    this.rejectLoaded?.(error);
    this.loaded = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id, (entry) => entry.reject(error));
  }

  /** A worker with work keeps the process alive; an idle one does not, and is unloaded after `idleUnloadMs`. */
  private busy(): void {
    clearTimeout(this.idleTimer);
    this.worker?.ref();
  }

  private idle(): void {
    this.worker?.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.dispose(), this.settings.idleUnloadMs);
    this.idleTimer.unref();
  }
}

/**
 * A model offered tools that writes its call as a JSON object (`{"name": "<tool>", "arguments": {...}}`) instead of
 * in its template's call syntax, as small models often do: the call, as function calling would have returned it.
 */
function withWrittenCalls(completion: Completion, tools: readonly ToolSpec[]): Completion {
  if (completion.toolCalls?.length || completion.finishReason === 'length') return completion;
  const calls = writtenCalls(completion.text, new Set(tools.map((tool) => tool.name)));
  return calls.length > 0 ? { ...completion, text: '', toolCalls: calls, finishReason: 'tool_calls' } : completion;
}
