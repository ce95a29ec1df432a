// A raw LSP peer for robustness tests: spawns `assistant-ls --stdio`, writes frames or arbitrary bytes, and records every frame the server sends.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientCapabilities } from 'vscode-languageserver-protocol';
import { BIN, FULL_CAPABILITIES } from './lspClient.js';

export type Id = number | string;

/** A message as the server sent it, with when it arrived. */
export interface Received {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the server's frames are inspected as plain JSON.
  message: any;
  at: number;
}

export interface ResponseMessage {
  id: Id | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  at: number;
}

/** One complete frame: `Content-Length` header and a body. */
export function frame(body: unknown): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

/** The server's resident set size in bytes, from /proc (Linux), or undefined once it has exited. */
export function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

type ServerRequestHandler = (params: unknown, message: Received['message']) => unknown;

export class RawServer {
  readonly child: ChildProcess;
  readonly received: Received[] = [];
  readonly responses = new Map<string, ResponseMessage[]>();
  /** Responses whose id is null: what the server owes for a body it could not read. */
  readonly nullIdResponses: ResponseMessage[] = [];
  readonly serverRequests: Received[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the server's stderr has been read to its end ('exit' can come before the last of it). */
  readonly stderrEnded: Promise<void>;
  stderr = '';
  /** Bytes of stdout that did not parse as frames (must stay empty: the server only writes frames). */
  garbageOut = '';
  private nextId = 1;
  private pending = Buffer.alloc(0);
  private readonly waiters = new Set<() => void>();
  private readonly handlers = new Map<string, ServerRequestHandler>();

  private constructor(child: ChildProcess, readonly root: string) {
    this.child = child;
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => this.wake());
    child.stdout!.on('data', (data: Buffer) => this.onData(data));
    child.stderr!.on('data', (data: Buffer) => (this.stderr += data.toString('utf8')));
    this.stderrEnded = new Promise((resolve) => child.stderr!.once('close', () => resolve()));
    // Writing to a server that already exited is part of these tests, not a failure of the test process.
    child.stdin!.on('error', () => undefined);
    this.handlers.set('workspace/applyEdit', () => ({ applied: true }));
    this.handlers.set('window/showMessageRequest', (params) => (params as { actions?: unknown[] } | undefined)?.actions?.[0] ?? null);
    this.handlers.set('window/workDoneProgress/create', () => null);
    this.handlers.set('window/showDocument', () => ({ success: true }));
    this.handlers.set('workspace/configuration', (params) => ((params as { items?: unknown[] } | undefined)?.items ?? []).map(() => null));
    this.handlers.set('client/registerCapability', () => null);
  }

  static spawn(options: { root: string; env?: Record<string, string> }): RawServer {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
    }
    const child = spawn(process.execPath, [BIN, '--stdio'], { cwd: options.root, env: { ...env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    return new RawServer(child, options.root);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  rss(): number | undefined {
    return rssOf(this.child.pid);
  }

  /** How the client answers a server → client request. */
  onServerRequest(method: string, handler: ServerRequestHandler): void {
    this.handlers.set(method, handler);
  }

  writeBytes(bytes: Buffer | string): void {
    if (this.child.stdin!.writable) this.child.stdin!.write(bytes);
  }

  send(message: unknown): void {
    this.writeBytes(frame(message));
  }

  /** Sends a request and returns its id; the answer is read with `response`. */
  request(method: string, params?: unknown, id: Id = this.nextId++): Id {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return id;
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  cancel(id: Id): void {
    this.notify('$/cancelRequest', { id });
  }

  responsesTo(id: Id): ResponseMessage[] {
    return this.responses.get(JSON.stringify(id)) ?? [];
  }

  /** The first response to `id`; rejects after `timeoutMs`, or when the server exits first. */
  response(id: Id, timeoutMs = 10_000): Promise<ResponseMessage> {
    return this.until(() => this.responsesTo(id)[0], timeoutMs, `the response to ${JSON.stringify(id)}`);
  }

  /** Sends a request and waits for its response. */
  async call(method: string, params?: unknown, timeoutMs?: number): Promise<ResponseMessage> {
    return this.response(this.request(method, params), timeoutMs);
  }

  /** Waits until `check` returns a value; rejects on timeout or when the server exits without one. */
  until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const test = (): boolean => {
        const value = check();
        if (value !== undefined) {
          cleanup();
          resolve(value);
          return true;
        }
        if (!this.alive) {
          cleanup();
          reject(new Error(`the server exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}; stderr: ${this.stderr.slice(-2000)}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter = (): void => void test();
      if (!test()) this.waiters.add(waiter);
    });
  }

  /** `initialize` + `initialized` with the test editor's capabilities. */
  async initialize(options: { capabilities?: ClientCapabilities; initializationOptions?: unknown } = {}): Promise<ResponseMessage> {
    const rootUri = pathToFileURL(this.root).href;
    const answer = await this.call('initialize', {
      processId: process.pid,
      clientInfo: { name: 'raw-test-client', version: '1' },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities: options.capabilities ?? FULL_CAPABILITIES,
      initializationOptions: options.initializationOptions,
    });
    this.notify('initialized', {});
    return answer;
  }

  uri(relativePath: string): string {
    return pathToFileURL(path.join(this.root, relativePath)).href;
  }

  /** Opens a workspace file (or the given text) in the server. */
  open(relativePath: string, text = fs.readFileSync(path.join(this.root, relativePath), 'utf8'), version = 1): { uri: string; text: string } {
    const uri = this.uri(relativePath);
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version, text } });
    return { uri, text };
  }

  /** Closes stdin (the client vanished) and waits for the exit. */
  async endInput(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin!.end();
    return this.exited;
  }

  async dispose(): Promise<void> {
    if (this.alive) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  private onData(data: Buffer): void {
    this.pending = Buffer.concat([this.pending, data]);
    for (;;) {
      const end = this.pending.indexOf('\r\n\r\n');
      if (end < 0) break;
      const header = this.pending.subarray(0, end).toString('ascii');
      const length = /Content-Length: (\d+)/i.exec(header);
      if (!length) {
        this.garbageOut += this.pending.toString('utf8');
        this.pending = Buffer.alloc(0);
        break;
      }
      const size = Number(length[1]);
      if (this.pending.length < end + 4 + size) break;
      const body = this.pending.subarray(end + 4, end + 4 + size).toString('utf8');
      this.pending = this.pending.subarray(end + 4 + size);
      this.onMessage(JSON.parse(body));
    }
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private onMessage(message: Received['message']): void {
    const at = Date.now();
    this.received.push({ message, at });
    if (typeof message.method === 'string' && message.id !== undefined) {
      this.serverRequests.push({ message, at });
      const handler = this.handlers.get(message.method);
      let result: unknown;
      try {
        result = handler ? handler(message.params, message) : null;
      } catch {
        result = null;
      }
      this.send({ jsonrpc: '2.0', id: message.id, result: result ?? null });
      return;
    }
    if (message.method === undefined && ('result' in message || 'error' in message)) {
      const response: ResponseMessage = { id: message.id, ...('result' in message ? { result: message.result } : {}), ...(message.error ? { error: message.error } : {}), at };
      if (message.id === null) this.nullIdResponses.push(response);
      else {
        const key = JSON.stringify(message.id);
        this.responses.set(key, [...(this.responses.get(key) ?? []), response]);
      }
    }
  }
}

/** A seeded PRNG (mulberry32), so a failing run is reproduced by its seed. */
export function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(items: readonly T[]) => T; chance: (p: number) => boolean } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)] as T, chance: (p: number) => next() < p };
}

/** The seed of a randomized test: `ASSISTANT_SEED` when set (to replay a failure), else a fixed default. */
export function testSeed(fallback: number): number {
  const given = Number(process.env.ASSISTANT_SEED);
  return Number.isInteger(given) && process.env.ASSISTANT_SEED !== '' ? given : fallback;
}

/** Whether the long versions of the robustness tests run (`ASSISTANT_LONG_TESTS=1`). */
export const LONG_TESTS = process.env.ASSISTANT_LONG_TESTS === '1';
