// A scripted OpenAI-compatible HTTP server that tests point the real openai client at, since no network or API keys exist in CI.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash } from 'node:crypto';

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary request shapes without casting.
  body: any;
  rawBody: string;
  receivedAt: number;
  closedAt?: number;
  finishedAt?: number;
  step?: ScriptStep;
}

export type ScriptStep =
  | { kind: 'text'; content: string; stream?: boolean; chunkSize?: number; delayMs?: number; finishReason?: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { kind: 'toolCalls'; calls: { id?: string; name: string; arguments: string | object }[]; content?: string; delayMs?: number }
  | { kind: 'error'; status: number; message?: string; type?: string; headers?: Record<string, string> }
  | { kind: 'stall'; afterHeaders?: boolean }
  | { kind: 'truncate'; content: string; stopAfterChars: number }
  | { kind: 'garbage'; stream?: boolean }
  /** The connection is reset before any response, like a proxy or server that drops it. */
  | { kind: 'reset' }
  | { kind: 'dynamic'; respond: (req: RecordedRequest) => ScriptStep };

export interface ScriptedModel {
  baseURL: string;
  requests: RecordedRequest[];
  enqueue(...steps: ScriptStep[]): void;
  setDefault(step: ScriptStep | undefined): void;
  reset(): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  waitForClose(index: number, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

const DEFAULT_CHUNK_SIZE = 8;
const DEFAULT_WAIT_MS = 5_000;
const EMBEDDING_DIMS = 16;
const MAX_DYNAMIC_DEPTH = 16;

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

interface ChatContext {
  rec: RecordedRequest;
  res: ServerResponse;
  model: string;
  id: string;
  created: number;
  wantsStream: boolean;
  includeUsage: boolean;
  promptTokens: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isChatPath(path: string): boolean {
  return path === '/v1/chat/completions' || path === '/chat/completions';
}

/** The legacy completions route, which fill-in-the-middle uses (`prompt` and `suffix`). */
function isCompletionsPath(path: string): boolean {
  return path === '/v1/completions' || path === '/completions';
}

function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

// Accepts both plain-string content and the array-of-parts form so token estimates stay sensible for either.
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

function estimatePromptTokens(body: unknown): number {
  if (!body || typeof body !== 'object' || !('messages' in body) || !Array.isArray(body.messages)) return 0;
  let chars = 0;
  for (const m of body.messages as unknown[]) {
    if (m && typeof m === 'object' && 'content' in m) chars += contentText(m.content).length;
  }
  return Math.ceil(chars / 4);
}

function splitChunks(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += step) out.push(text.slice(i, i + step));
  return out;
}

// Values are rounded to float32 so the float and base64 encodings decode to identical numbers on the client.
function embeddingFor(input: unknown): number[] {
  const key = typeof input === 'string' ? input : JSON.stringify(input);
  const digest = createHash('sha256').update(key).digest();
  const raw: number[] = [];
  for (let i = 0; i < EMBEDDING_DIMS; i++) raw.push((digest.readUInt16BE(i * 2) / 0xffff) * 2 - 1);
  const norm = Math.sqrt(raw.reduce((s, v) => s + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

function float32Base64(values: number[]): string {
  const buf = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const queue: ScriptStep[] = [];
  let defaultStep: ScriptStep | undefined;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  // Waiters are re-checked whenever a request is recorded or closes, instead of polling.
  const listeners = new Set<() => void>();
  let idCounter = 0;
  let closing = false;
  // closedAt means "the client went away"; connections we cut ourselves (truncate, close()) must not look like that.
  const serverDestroyed = new WeakSet<RecordedRequest>();

  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const initial = check();
      if (initial !== undefined) {
        resolve(initial);
        return;
      }
      const listener = (): void => {
        const value = check();
        if (value === undefined) return;
        cleanup();
        resolve(value);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`scripted model: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        listeners.delete(listener);
      };
      listeners.add(listener);
    });

  const chatRequests = (): RecordedRequest[] => requests.filter((r) => isChatPath(r.path) || isCompletionsPath(r.path));

  const nextStep = (): ScriptStep | undefined => queue.shift() ?? defaultStep;

  const writeEvent = (ctx: ChatContext, payload: unknown): void => {
    if (ctx.res.destroyed) return;
    ctx.res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  };

  const chunk = (ctx: ChatContext, delta: object, finishReason: string | null = null): object => ({
    id: ctx.id,
    object: 'chat.completion.chunk',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });

  const startSse = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Without an explicit flush the client would not see the headers until the first body write.
    res.flushHeaders();
  };

  const finishSse = (ctx: ChatContext, usage: Usage): void => {
    if (ctx.res.destroyed) return;
    if (ctx.includeUsage) {
      writeEvent(ctx, { id: ctx.id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.model, choices: [], usage });
    }
    writeEvent(ctx, '[DONE]');
    ctx.res.end();
  };

  const usageFor = (ctx: ChatContext, completionChars: number, given?: { prompt_tokens: number; completion_tokens: number }): Usage => {
    const prompt_tokens = given?.prompt_tokens ?? ctx.promptTokens;
    const completion_tokens = given?.completion_tokens ?? Math.ceil(completionChars / 4);
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  };

  const completion = (ctx: ChatContext, message: object, finishReason: string, usage: Usage): string =>
    JSON.stringify({
      id: ctx.id,
      object: 'chat.completion',
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, message: { refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
      usage,
    });

  const answerText = async (ctx: ChatContext, step: Extract<ScriptStep, { kind: 'text' }>): Promise<void> => {
    const stream = step.stream ?? ctx.wantsStream;
    const finishReason = step.finishReason ?? 'stop';
    const usage = usageFor(ctx, step.content.length, step.usage);
    if (!stream) {
      if (step.delayMs) await sleep(step.delayMs);
      if (ctx.res.destroyed) return;
      sendJson(ctx.res, 200, completion(ctx, { role: 'assistant', content: step.content }, finishReason, usage));
      return;
    }
    startSse(ctx.res);
    writeEvent(ctx, chunk(ctx, { role: 'assistant', content: '' }));
    for (const piece of splitChunks(step.content, step.chunkSize ?? DEFAULT_CHUNK_SIZE)) {
      if (step.delayMs) await sleep(step.delayMs);
      if (ctx.res.destroyed) return;
      writeEvent(ctx, chunk(ctx, { content: piece }));
    }
    writeEvent(ctx, chunk(ctx, {}, finishReason));
    finishSse(ctx, usage);
  };

  const answerToolCalls = async (ctx: ChatContext, step: Extract<ScriptStep, { kind: 'toolCalls' }>): Promise<void> => {
    const calls = step.calls.map((c) => ({
      id: c.id ?? `call_${++idCounter}`,
      type: 'function' as const,
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const content = step.content ?? null;
    const completionChars = (content?.length ?? 0) + calls.reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
    const usage = usageFor(ctx, completionChars);
    if (!ctx.wantsStream) {
      if (step.delayMs) await sleep(step.delayMs);
      if (ctx.res.destroyed) return;
      sendJson(ctx.res, 200, completion(ctx, { role: 'assistant', content, tool_calls: calls }, 'tool_calls', usage));
      return;
    }
    startSse(ctx.res);
    writeEvent(ctx, chunk(ctx, { role: 'assistant', content: '' }));
    const pause = async (): Promise<boolean> => {
      if (step.delayMs) await sleep(step.delayMs);
      return !ctx.res.destroyed;
    };
    for (const piece of splitChunks(content ?? '', DEFAULT_CHUNK_SIZE)) {
      if (!(await pause())) return;
      writeEvent(ctx, chunk(ctx, { content: piece }));
    }
    for (const [index, call] of calls.entries()) {
      if (!(await pause())) return;
      writeEvent(ctx, chunk(ctx, { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
      for (const piece of splitChunks(call.function.arguments, DEFAULT_CHUNK_SIZE)) {
        if (!(await pause())) return;
        writeEvent(ctx, chunk(ctx, { tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
    writeEvent(ctx, chunk(ctx, {}, 'tool_calls'));
    finishSse(ctx, usage);
  };

  const answerTruncate = (ctx: ChatContext, step: Extract<ScriptStep, { kind: 'truncate' }>): void => {
    const { res } = ctx;
    // The short pause lets the client consume the partial data as its own read before the FIN turns into an error.
    const kill = (): void => {
      serverDestroyed.add(ctx.rec);
      setTimeout(() => res.socket?.destroy(), 10);
    };
    if (!ctx.wantsStream) {
      // A non-streamed truncation promises the full length, then cuts the JSON short, like a dropped proxy connection.
      const full = completion(ctx, { role: 'assistant', content: step.content }, 'stop', usageFor(ctx, step.content.length));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(full) });
      res.write(full.slice(0, step.stopAfterChars), kill);
      return;
    }
    startSse(res);
    const events = [chunk(ctx, { role: 'assistant', content: '' })];
    for (const piece of splitChunks(step.content.slice(0, step.stopAfterChars), DEFAULT_CHUNK_SIZE)) {
      events.push(chunk(ctx, { content: piece }));
    }
    // Destroying only from the write callback makes sure the partial content reached the socket first.
    res.write(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), kill);
  };

  const answerChat = async (rec: RecordedRequest, res: ServerResponse): Promise<void> => {
    let step = nextStep();
    try {
      for (let depth = 0; step?.kind === 'dynamic'; depth++) {
        if (depth >= MAX_DYNAMIC_DEPTH) throw new Error('dynamic steps nested too deeply');
        step = step.respond(rec);
      }
    } catch (err) {
      sendJson(res, 500, errorBody(`scripted model: dynamic step threw: ${String(err)}`, 'server_error'));
      return;
    }
    if (!step) {
      sendJson(res, 500, errorBody('scripted model: script exhausted', 'server_error'));
      return;
    }
    rec.step = step;
    const body: unknown = rec.body;
    const bodyObj = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const streamOptions = bodyObj.stream_options;
    const ctx: ChatContext = {
      rec,
      res,
      model: typeof bodyObj.model === 'string' ? bodyObj.model : 'scripted-model',
      id: `chatcmpl-scripted-${++idCounter}`,
      created: Math.floor(Date.now() / 1000),
      wantsStream: bodyObj.stream === true,
      includeUsage: !!streamOptions && typeof streamOptions === 'object' && (streamOptions as Record<string, unknown>).include_usage === true,
      promptTokens: estimatePromptTokens(body),
    };
    switch (step.kind) {
      case 'text':
        return answerText(ctx, step);
      case 'toolCalls':
        return answerToolCalls(ctx, step);
      case 'error': {
        const type = step.type ?? (step.status >= 500 ? 'server_error' : 'invalid_request_error');
        sendJson(res, step.status, errorBody(step.message ?? `scripted model: error ${step.status}`, type), step.headers);
        return;
      }
      case 'stall':
        // Leaving the response open is the point: only the client going away (or close()) ends it.
        if (step.afterHeaders) startSse(res);
        return;
      case 'truncate':
        answerTruncate(ctx, step);
        return;
      case 'reset':
        serverDestroyed.add(rec);
        res.socket?.resetAndDestroy();
        return;
      case 'garbage':
        if (step.stream ?? ctx.wantsStream) {
          startSse(res);
          res.end('data: {not json\n\n');
        } else {
          sendJson(res, 200, '{"choices": [');
        }
        return;
    }
  };

  /**
   * `/completions` in the wire format of OpenAI's legacy API (what llama.cpp server, Ollama, vLLM and LM Studio serve
   * for fill-in-the-middle): `text` steps answered as one JSON body or as `text_completion` events, errors and stalls
   * as for chat.
   */
  const answerCompletion = async (rec: RecordedRequest, res: ServerResponse): Promise<void> => {
    let step = nextStep();
    for (let depth = 0; step?.kind === 'dynamic' && depth < MAX_DYNAMIC_DEPTH; depth++) step = step.respond(rec);
    if (!step || step.kind === 'dynamic') {
      sendJson(res, 500, errorBody('scripted model: script exhausted', 'server_error'));
      return;
    }
    rec.step = step;
    const body = (rec.body && typeof rec.body === 'object' ? rec.body : {}) as Record<string, unknown>;
    const id = `cmpl-scripted-${++idCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === 'string' ? body.model : 'scripted-model';
    if (step.kind === 'error') {
      sendJson(res, step.status, errorBody(step.message ?? `scripted model: error ${step.status}`, step.type ?? (step.status >= 500 ? 'server_error' : 'invalid_request_error')), step.headers);
      return;
    }
    if (step.kind === 'stall') {
      if (step.afterHeaders) startSse(res);
      return;
    }
    if (step.kind !== 'text') {
      sendJson(res, 500, errorBody(`scripted model: a ${step.kind} step cannot answer /completions`, 'server_error'));
      return;
    }
    const promptChars = (typeof body.prompt === 'string' ? body.prompt.length : 0) + (typeof body.suffix === 'string' ? body.suffix.length : 0);
    const usage = { prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: Math.ceil(step.content.length / 4), total_tokens: Math.ceil(promptChars / 4) + Math.ceil(step.content.length / 4) };
    const choice = (text: string, finish: string | null) => ({ text, index: 0, logprobs: null, finish_reason: finish });
    if (!(step.stream ?? body.stream === true)) {
      if (step.delayMs) await sleep(step.delayMs);
      if (res.destroyed) return;
      sendJson(res, 200, JSON.stringify({ id, object: 'text_completion', created, model, choices: [choice(step.content, step.finishReason ?? 'stop')], usage }));
      return;
    }
    startSse(res);
    const event = (payload: unknown): void => {
      if (!res.destroyed) res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
    };
    for (const piece of splitChunks(step.content, step.chunkSize ?? DEFAULT_CHUNK_SIZE)) {
      if (step.delayMs) await sleep(step.delayMs);
      if (res.destroyed) return;
      event({ id, object: 'text_completion', created, model, choices: [choice(piece, null)] });
    }
    event({ id, object: 'text_completion', created, model, choices: [choice('', step.finishReason ?? 'stop')] });
    event('[DONE]');
    res.end();
  };

  const answerEmbeddings = (rec: RecordedRequest, res: ServerResponse): void => {
    const body = (rec.body && typeof rec.body === 'object' ? rec.body : {}) as Record<string, unknown>;
    const input = body.input;
    // A flat number[] is a single tokenised input, so only string[] / number[][] count as batches.
    const inputs: unknown[] =
      Array.isArray(input) && input.length > 0 && input.every((i) => typeof i !== 'number') ? input : [input ?? ''];
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((item, index) => {
      const vector = embeddingFor(item);
      return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
    });
    const tokens = inputs.reduce<number>((n, item) => n + Math.ceil((typeof item === 'string' ? item.length : JSON.stringify(item).length) / 4), 0);
    sendJson(
      res,
      200,
      JSON.stringify({
        object: 'list',
        data,
        model: typeof body.model === 'string' ? body.model : 'scripted-embedding',
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, rec: RecordedRequest): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const part of req) chunks.push(part as Buffer);
    rec.rawBody = Buffer.concat(chunks).toString('utf8');
    if (rec.rawBody.length > 0) {
      try {
        rec.body = JSON.parse(rec.rawBody);
      } catch {
        rec.body = undefined;
      }
    }
    rec.index = requests.length;
    requests.push(rec);
    notify();

    const { method, path } = rec;
    if (method === 'POST' && isChatPath(path)) return answerChat(rec, res);
    if (method === 'POST' && isCompletionsPath(path)) return answerCompletion(rec, res);
    if (method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) return answerEmbeddings(rec, res);
    if (method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(
        res,
        200,
        JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'test' }] }),
      );
      return;
    }
    sendJson(res, 404, errorBody(`scripted model: no route for ${method} ${path}`, 'invalid_request_error'));
  };

  const server = createServer((req, res) => {
    const rec: RecordedRequest = {
      index: -1,
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://127.0.0.1').pathname,
      headers: { ...req.headers },
      body: undefined,
      rawBody: '',
      receivedAt: Date.now(),
    };
    // Writes racing a client disconnect must not crash the test process.
    res.on('error', () => {});
    res.on('finish', () => {
      rec.finishedAt = Date.now();
    });
    res.on('close', () => {
      // 'close' without a completed write means the connection went away first; that timestamp is what cancel tests assert on.
      if (!res.writableFinished && rec.closedAt === undefined && !closing && !serverDestroyed.has(rec)) {
        rec.closedAt = Date.now();
        notify();
      }
    });
    handle(req, res, rec).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, errorBody(`scripted model: internal error: ${String(err)}`, 'server_error'));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 1_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...steps) {
      queue.push(...steps);
    },
    setDefault(step) {
      defaultStep = step;
    },
    reset() {
      queue.length = 0;
      defaultStep = undefined;
      requests.length = 0;
    },
    waitForRequests(count, timeoutMs = DEFAULT_WAIT_MS) {
      return waitUntil(
        () => {
          const chat = chatRequests();
          return chat.length >= count ? chat : undefined;
        },
        timeoutMs,
        `${count} chat request(s)`,
      );
    },
    waitForClose(index, timeoutMs = DEFAULT_WAIT_MS) {
      return waitUntil(() => requests[index]?.closedAt, timeoutMs, `request ${index} to be closed by the client`);
    },
    close() {
      if (closing) return Promise.resolve();
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
