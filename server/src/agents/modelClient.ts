// Calls an OpenAI-compatible chat endpoint through the openai package: redaction of secrets, streaming, budgets, an idle watchdog, retries and cancellation.
import OpenAI from 'openai';
import type { TokenUsage } from './agent.js';
import { Redactor } from '../privacy/secrets.js';

export interface ModelEndpoint {
  baseURL?: string;
  apiKey: string;
  model: string;
  temperature?: number;
  /** Budget of one attempt, from sending the request to the last streamed chunk. */
  timeoutMs: number;
  /** Longest silence tolerated while waiting for the next chunk (or the first). */
  idleTimeoutMs: number;
  /** Attempts after the first, for rate limits, server errors, dropped connections and stalled streams. */
  maxRetries: number;
  stream: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** On an assistant message: the tools it called (sent back so the model sees its own calls). */
  toolCalls?: ToolCall[];
  /** On a tool message: the call it answers. */
  toolCallId?: string;
}

/** One function call a model asked for; `arguments` is the JSON text it wrote, valid or not. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool offered through function calling: its name, what it does, and its JSON-schema parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Completion {
  text: string;
  usage?: TokenUsage;
  finishReason: string;
  /** Distinct secrets replaced by markers in the messages sent (and put back in `text`). */
  redacted?: number;
  /** The tools the model called instead of (or besides) answering, when tools were offered. */
  toolCalls?: ToolCall[];
  /**
   * When the answering exchange with the endpoint began and its last token arrived (`performance.now()`): what lies
   * outside it is the server's own time (see the inline completion bench).
   */
  exchange?: Exchange;
}

export interface Exchange {
  startedAt: number;
  endedAt: number;
}

export interface CompleteOptions {
  /** Values to redact wherever they appear (a workspace's .env values, literals of ignored files), with their kind. */
  knownSecrets?: ReadonlyMap<string, string>;
  /** Tools offered through function calling; the answer may then be calls rather than text. */
  tools?: readonly ToolSpec[];
  /** How many characters of the answer the model has written so far, told as it streams (for progress, never the text). */
  onWritten?: (characters: number) => void;
}

/** A fill-in-the-middle request: the text before the cursor (`prompt`) and after it (`suffix`). */
export interface FillRequest {
  prompt: string;
  suffix: string;
  /** The model to ask; the endpoint's own when absent. */
  model?: string;
  maxTokens: number;
  stop: readonly string[];
}

/** `local`: the in-process model could not run or stopped; its message is written for the user. */
export type ModelErrorKind = 'auth' | 'rate-limit' | 'server' | 'bad-request' | 'connection' | 'timeout' | 'idle' | 'incomplete' | 'malformed' | 'too-large' | 'local';

/** What a model agent asks its model through: an OpenAI-compatible endpoint, or a local model. */
export interface ChatClient {
  complete(messages: ChatMessage[], signal: AbortSignal, options?: CompleteOptions): Promise<Completion>;
  embed?(texts: readonly string[], model: string, signal: AbortSignal, options?: Pick<CompleteOptions, 'knownSecrets'>): Promise<number[][]>;
  /** Fill-in-the-middle, for inline completion; `finishReason` `length` is an answer like any other here. */
  fill?(request: FillRequest, signal: AbortSignal, options?: Pick<CompleteOptions, 'knownSecrets'>): Promise<Completion>;
}

/** Longest answer read from a model (about 250,000 tokens): beyond it the request is abandoned, so memory stays bounded. */
export const MAX_ANSWER_CHARS = 1_000_000;

/** What a failure's short reason is made from (see `failureReason.ts`), besides its kind. */
export interface ModelErrorFacts {
  /** How long to wait before asking again, from the endpoint's `retry-after`. */
  retryAfterMs?: number;
  /** The HTTP status the endpoint answered with. */
  status?: number;
  /** The limit that ran out, for `timeout` and `idle`. */
  limitMs?: number;
  /** An `incomplete` answer cut off at the model's token limit, or a `bad-request` held back by a content filter. */
  cause?: 'token-limit' | 'content-filter';
  /** What the model wrote before it was cut off, kept in the trace so the user can see it. */
  partialText?: string;
}

/**
 * A model failure: `message` says in full what happened, for the trace and the log; `failureReason` turns the kind
 * and the facts into the short reason the user is shown.
 */
export class ModelError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly facts: ModelErrorFacts = {},
  ) {
    super(message);
    this.name = 'ModelError';
    this.retryAfterMs = facts.retryAfterMs;
  }
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate-limit', 'server', 'connection', 'idle', 'malformed', 'incomplete']);

/**
 * The reason an attempt's controller is aborted with once a failed attempt is over, to release whatever still listens
 * to it: without a reason, every attempt would build a DOMException, which is slow in Node.
 */
const RELEASED = new Error('the model exchange is over');

export class ModelClient implements ChatClient {
  private readonly client: OpenAI;

  constructor(readonly endpoint: ModelEndpoint) {
    // The package's own retries cannot see stalled streams, so every retry is done here, uniformly.
    this.client = new OpenAI({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL, maxRetries: 0, timeout: endpoint.timeoutMs });
  }

  /**
   * One chat completion; rejects with a ModelError, or with the signal's reason once `signal` aborts.
   *
   * **Architecture Invariant**: this is the one place messages leave the process, so it is where secrets are
   * redacted (every message: prompts, context, retrieved code, earlier answers, test output fed back). The markers
   * the model echoes are put back in the answer, so code built from it keeps the user's own values.
   */
  async complete(messages: ChatMessage[], signal: AbortSignal, options: CompleteOptions = {}): Promise<Completion> {
    const redactor = new Redactor(options.knownSecrets);
    const outgoing = messages.map((message) => ({
      ...message,
      content: redactor.redact(message.content),
      ...(message.toolCalls ? { toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: redactor.redact(call.arguments) })) } : {}),
    }));
    const completion = await this.send(outgoing, options.tools, signal, options.onWritten);
    const toolCalls = completion.toolCalls?.map((call) => ({ ...call, arguments: redactor.restore(call.arguments) }));
    return { ...completion, text: redactor.restore(completion.text), ...(toolCalls ? { toolCalls } : {}), ...(redactor.count > 0 ? { redacted: redactor.count } : {}) };
  }

  /**
   * Embeddings of the texts with the endpoint's `/embeddings`, one vector per text, in order. The texts are
   * redacted like every message (nothing comes back to restore), and the call has the same budget, retries and abort.
   */
  async embed(texts: readonly string[], model: string, signal: AbortSignal, options: Pick<CompleteOptions, 'knownSecrets'> = {}): Promise<number[][]> {
    const redactor = new Redactor(options.knownSecrets);
    const input = texts.map((text) => redactor.redact(text));
    return this.withRetries(
      (attemptSignal) =>
        this.budgeted(attemptSignal, `the embeddings did not arrive within ${this.endpoint.timeoutMs} ms`, async (controller) => {
          const response = await this.client.embeddings.create({ model, input, encoding_format: 'float' }, { signal: controller.signal });
          const vectors = [...(response.data ?? [])].sort((a, b) => a.index - b.index).map((item) => item.embedding);
          if (vectors.length !== input.length || vectors.some((v) => !Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'number'))) {
            throw new ModelError('malformed', `the endpoint answered ${vectors.length} embeddings for ${input.length} texts`);
          }
          return vectors;
        }),
      signal,
    );
  }

  /**
   * Fill-in-the-middle through the endpoint's `/completions` with `prompt` and `suffix` (llama.cpp server, Ollama,
   * vLLM, LM Studio), redacted like every message and restored in the answer. One attempt and no retry: a completion
   * that fails is simply not shown, and the next keystroke asks again. An abort closes the HTTP request.
   */
  async fill(request: FillRequest, signal: AbortSignal, options: Pick<CompleteOptions, 'knownSecrets'> = {}): Promise<Completion> {
    const redactor = new Redactor(options.knownSecrets);
    const prompt = redactor.redact(request.prompt);
    const suffix = redactor.redact(request.suffix);
    signal.throwIfAborted();
    try {
      const startedAt = performance.now();
      const completion = await this.budgeted(signal, `the completion did not arrive within ${this.endpoint.timeoutMs} ms`, async (controller) => {
        const body = {
          model: request.model ?? this.endpoint.model,
          prompt,
          suffix,
          max_tokens: request.maxTokens,
          ...(request.stop.length > 0 ? { stop: request.stop.slice(0, 4) } : {}),
          ...(this.endpoint.temperature !== undefined ? { temperature: this.endpoint.temperature } : {}),
        };
        if (!this.endpoint.stream) {
          const response = await this.client.completions.create({ ...body, stream: false }, { signal: controller.signal });
          const choice = response.choices?.[0];
          if (!choice || typeof choice.text !== 'string') throw new ModelError('malformed', 'the endpoint answered the completion without any text');
          return { text: choice.text, finishReason: choice.finish_reason ?? 'stop', ...(response.usage ? { usage: usageOf(response.usage) } : {}) };
        }
        const stream = await this.client.completions.create({ ...body, stream: true }, { signal: controller.signal });
        let text = '';
        let finishReason: string | undefined;
        for await (const chunk of stream) {
          const choice = chunk.choices?.[0];
          if (typeof choice?.text === 'string') text += choice.text;
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          if (text.length > MAX_ANSWER_CHARS) throw tooLarge();
        }
        return { text, finishReason: finishReason ?? 'stop' };
      });
      const exchange = { startedAt, endedAt: performance.now() };
      return { ...completion, text: redactor.restore(completion.text), ...(redactor.count > 0 ? { redacted: redactor.count } : {}), exchange };
    } catch (error) {
      signal.throwIfAborted();
      throw toModelError(error, this.endpoint);
    }
  }

  private send(messages: ChatMessage[], tools: readonly ToolSpec[] | undefined, signal: AbortSignal, onWritten?: (characters: number) => void): Promise<Completion> {
    return this.withRetries((attemptSignal) => this.attempt(messages, tools, attemptSignal, onWritten), signal);
  }

  /** One call, again after failures that may pass (rate limits, server errors, broken streams) while retries remain. */
  private async withRetries<T>(call: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    let lastError: ModelError | undefined;
    for (let attempt = 0; attempt <= this.endpoint.maxRetries; attempt++) {
      signal.throwIfAborted();
      try {
        return await call(signal);
      } catch (error) {
        signal.throwIfAborted();
        lastError = toModelError(error, this.endpoint);
        // An answer cut off at the token limit would be cut again: the task keeps what it can of it instead.
        if (!RETRYABLE.has(lastError.kind) || lastError.facts.cause === 'token-limit' || attempt === this.endpoint.maxRetries) break;
        await sleep(lastError.retryAfterMs ?? Math.min(8_000, 250 * 2 ** attempt), signal);
      }
    }
    throw lastError ?? new ModelError('connection', 'the model gave no answer');
  }

  /**
   * One attempt within the endpoint's budget: a controller that aborts when `signal` does or the budget ends, whose
   * reason (a ModelError for the budget, the idle watchdog) is what a failure reports, and which is released after.
   */
  private async budgeted<T>(signal: AbortSignal, timeoutMessage: string, run: (controller: AbortController) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const overall = setTimeout(() => controller.abort(new ModelError('timeout', timeoutMessage, { limitMs: this.endpoint.timeoutMs })), this.endpoint.timeoutMs);
    let answered = false;
    try {
      const result = await run(controller);
      answered = true;
      return result;
    } catch (error) {
      // The abort reason (idle watchdog, budget) says more than the package's generic abort error.
      if (controller.signal.aborted && controller.signal.reason instanceof ModelError) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(overall);
      signal.removeEventListener('abort', onAbort);
      // An answer was read to its end, so nothing is left to release (aborting would still run undici's cancel steps);
      // after a failure the abort drops whatever stream or connection the attempt left open.
      if (!answered && !controller.signal.aborted) controller.abort(RELEASED);
    }
  }

  private async attempt(messages: ChatMessage[], tools: readonly ToolSpec[] | undefined, signal: AbortSignal, onWritten?: (characters: number) => void): Promise<Completion> {
    const startedAt = performance.now();
    const completion = await this.budgeted(signal, `the model did not finish within ${this.endpoint.timeoutMs} ms`, (controller) => this.exchange(messages, tools, controller, onWritten));
    return { ...completion, exchange: { startedAt, endedAt: performance.now() } };
  }

  private async exchange(messages: ChatMessage[], tools: readonly ToolSpec[] | undefined, controller: AbortController, onWritten?: (characters: number) => void): Promise<Completion> {
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => controller.abort(new ModelError('idle', `the model sent nothing for ${this.endpoint.idleTimeoutMs} ms`, { limitMs: this.endpoint.idleTimeoutMs })), this.endpoint.idleTimeoutMs);
    };
    armIdle();
    try {
      const body = {
        model: this.endpoint.model,
        messages: messages.map(wireMessage),
        ...(this.endpoint.temperature !== undefined ? { temperature: this.endpoint.temperature } : {}),
        ...(tools?.length ? { tools: tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) } : {}),
      };
      if (!this.endpoint.stream) {
        const response = await this.client.chat.completions.create({ ...body, stream: false }, { signal: controller.signal });
        const choice = response.choices?.[0];
        const calls = (choice?.message?.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : []));
        const content = choice?.message?.content;
        if (!choice || (typeof content !== 'string' && calls.length === 0)) throw new ModelError('malformed', 'the model answered without any text');
        const text = typeof content === 'string' ? content : '';
        if (text.length + calls.reduce((n, c) => n + c.arguments.length, 0) > MAX_ANSWER_CHARS) throw tooLarge();
        return finishCompletion(text, choice.finish_reason, usageOf(response.usage), calls);
      }
      const stream = await this.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: controller.signal });
      let text = '';
      let finishReason: string | null | undefined;
      let usage: TokenUsage | undefined;
      // Streamed calls arrive in pieces keyed by index: the id and name first, the arguments a few characters at a time.
      const calls: ToolCall[] = [];
      let callChars = 0;
      for await (const chunk of stream) {
        armIdle();
        if (chunk.usage) usage = usageOf(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (typeof choice.delta?.content === 'string') text += choice.delta.content;
        for (const piece of choice.delta?.tool_calls ?? []) {
          const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
          if (piece.id) call.id = piece.id;
          if (piece.function?.name) call.name += piece.function.name;
          if (piece.function?.arguments) {
            call.arguments += piece.function.arguments;
            callChars += piece.function.arguments.length;
          }
        }
        if (text.length + callChars > MAX_ANSWER_CHARS) throw tooLarge();
        onWritten?.(text.length + callChars);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      if (!finishReason) throw new ModelError('incomplete', 'the model’s answer stopped halfway');
      return finishCompletion(text, finishReason, usage, calls.filter(Boolean));
    } finally {
      clearTimeout(idleTimer);
    }
  }
}

function tooLarge(): ModelError {
  return new ModelError('too-large', `the model's answer exceeded ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters and was abandoned`);
}

/** A completion from its parts; a cut-off or withheld answer is an error, as every model path reports it. */
export function finishCompletion(text: string, finishReason: string | null | undefined, usage: TokenUsage | undefined, calls: ToolCall[] = []): Completion {
  if (finishReason === 'length') throw new ModelError('incomplete', 'the model’s answer was cut off at its token limit', { cause: 'token-limit', ...(text ? { partialText: text } : {}) });
  if (finishReason === 'content_filter') throw new ModelError('bad-request', 'the endpoint’s content filter withheld the answer', { cause: 'content-filter' });
  // A call without a name cannot be answered or sent back; one without an id gets one, so its result can refer to it.
  const toolCalls = calls.filter((call) => call.name !== '').map((call, i) => (call.id ? call : { ...call, id: `call_${i}` }));
  return { text, finishReason: finishReason ?? 'stop', ...(usage ? { usage } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/** A message in the wire shape of the chat API. */
function wireMessage(message: ChatMessage): OpenAI.Chat.ChatCompletionMessageParam {
  if (message.role === 'tool') return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return { role: 'assistant', content: message.content || null, tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) };
  }
  return { role: message.role, content: message.content };
}

function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}

function toModelError(error: unknown, endpoint: ModelEndpoint): ModelError {
  if (error instanceof ModelError) return error;
  const where = endpoint.baseURL ? new URL(endpoint.baseURL).host : 'the OpenAI API';
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ModelError('timeout', `${where} did not answer within ${endpoint.timeoutMs} ms`, { limitMs: endpoint.timeoutMs });
  if (error instanceof OpenAI.APIConnectionError) return new ModelError('connection', `cannot reach ${where}: ${error.message}`);
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const detail = error.message.replace(/^\d+\s*/, '');
    if (error.status === 401 || error.status === 403) return new ModelError('auth', `${where} refused the API key (${error.status}): ${detail}`, { status: error.status });
    if (error.status === 429) return new ModelError('rate-limit', `${where} is rate-limiting requests (429): ${detail}`, { status: 429, retryAfterMs: retryAfter(error.headers) });
    if (error.status >= 500) return new ModelError('server', `${where} failed (${error.status}): ${detail}`, { status: error.status, retryAfterMs: retryAfter(error.headers) });
    if (error.status === 404) return new ModelError('bad-request', `${where} does not know model "${endpoint.model}" or this API (404): ${detail}`, { status: 404 });
    return new ModelError('bad-request', `${where} rejected the request (${error.status}): ${detail}`, { status: error.status });
  }
  if (error instanceof SyntaxError || (error instanceof Error && /JSON|Unexpected token|parse/i.test(error.message))) {
    return new ModelError('malformed', `${where} sent an answer that is not valid JSON`);
  }
  if (error instanceof Error && /terminated|aborted|socket|ECONNRESET|other side closed/i.test(error.message)) {
    return new ModelError('incomplete', `the connection to ${where} broke before the answer was complete`);
  }
  return new ModelError('connection', `${where}: ${error instanceof Error ? error.message : String(error)}`);
}

function retryAfter(headers: Headers | undefined): number | undefined {
  const value = headers?.get?.('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(30_000, Math.max(0, seconds * 1000));
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.min(30_000, Math.max(0, date - Date.now())) : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
