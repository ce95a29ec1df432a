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
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Completion {
  text: string;
  usage?: TokenUsage;
  finishReason: string;
  /** Distinct secrets replaced by markers in the messages sent (and put back in `text`). */
  redacted?: number;
}

export interface CompleteOptions {
  /** Values to redact wherever they appear (a workspace's .env values, literals of ignored files), with their kind. */
  knownSecrets?: ReadonlyMap<string, string>;
}

export type ModelErrorKind = 'auth' | 'rate-limit' | 'server' | 'bad-request' | 'connection' | 'timeout' | 'idle' | 'incomplete' | 'malformed' | 'too-large';

/** Longest answer read from a model (about 250,000 tokens): beyond it the request is abandoned, so memory stays bounded. */
export const MAX_ANSWER_CHARS = 1_000_000;

/** A model failure, with a message fit to show to the user. */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate-limit', 'server', 'connection', 'idle', 'malformed', 'incomplete']);

export class ModelClient {
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
    const outgoing = messages.map((message) => ({ role: message.role, content: redactor.redact(message.content) }));
    const completion = await this.send(outgoing, signal);
    return { ...completion, text: redactor.restore(completion.text), ...(redactor.count > 0 ? { redacted: redactor.count } : {}) };
  }

  private async send(messages: ChatMessage[], signal: AbortSignal): Promise<Completion> {
    let lastError: ModelError | undefined;
    for (let attempt = 0; attempt <= this.endpoint.maxRetries; attempt++) {
      signal.throwIfAborted();
      try {
        return await this.attempt(messages, signal);
      } catch (error) {
        signal.throwIfAborted();
        lastError = toModelError(error, this.endpoint);
        if (!RETRYABLE.has(lastError.kind) || attempt === this.endpoint.maxRetries) break;
        await sleep(lastError.retryAfterMs ?? Math.min(8_000, 250 * 2 ** attempt), signal);
      }
    }
    throw lastError ?? new ModelError('connection', 'the model gave no answer');
  }

  private async attempt(messages: ChatMessage[], signal: AbortSignal): Promise<Completion> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => controller.abort(new ModelError('idle', `the model sent nothing for ${this.endpoint.idleTimeoutMs} ms`)), this.endpoint.idleTimeoutMs);
    };
    const overall = setTimeout(() => controller.abort(new ModelError('timeout', `the model did not finish within ${this.endpoint.timeoutMs} ms`)), this.endpoint.timeoutMs);
    armIdle();
    try {
      const body = { model: this.endpoint.model, messages, ...(this.endpoint.temperature !== undefined ? { temperature: this.endpoint.temperature } : {}) };
      if (!this.endpoint.stream) {
        const response = await this.client.chat.completions.create({ ...body, stream: false }, { signal: controller.signal });
        const choice = response.choices?.[0];
        if (!choice || typeof choice.message?.content !== 'string') throw new ModelError('malformed', 'the model answered without any text');
        if (choice.message.content.length > MAX_ANSWER_CHARS) throw tooLarge();
        return finish(choice.message.content, choice.finish_reason, usageOf(response.usage));
      }
      const stream = await this.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: controller.signal });
      let text = '';
      let finishReason: string | null | undefined;
      let usage: TokenUsage | undefined;
      for await (const chunk of stream) {
        armIdle();
        if (chunk.usage) usage = usageOf(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (typeof choice.delta?.content === 'string') text += choice.delta.content;
        if (text.length > MAX_ANSWER_CHARS) throw tooLarge();
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      if (!finishReason) throw new ModelError('incomplete', 'the model’s answer stopped halfway');
      return finish(text, finishReason, usage);
    } catch (error) {
      // The abort reason (idle watchdog, budget) says more than the package's generic abort error.
      if (controller.signal.aborted && controller.signal.reason instanceof ModelError) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(idleTimer);
      clearTimeout(overall);
      signal.removeEventListener('abort', onAbort);
      if (!controller.signal.aborted) controller.abort();
    }
  }
}

function tooLarge(): ModelError {
  return new ModelError('too-large', `the model's answer exceeded ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters and was abandoned`);
}

function finish(text: string, finishReason: string | null | undefined, usage: TokenUsage | undefined): Completion {
  if (finishReason === 'length') throw new ModelError('incomplete', 'the model’s answer was cut off at its token limit');
  if (finishReason === 'content_filter') throw new ModelError('bad-request', 'the endpoint’s content filter withheld the answer');
  return { text, finishReason: finishReason ?? 'stop', ...(usage ? { usage } : {}) };
}

function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}

function toModelError(error: unknown, endpoint: ModelEndpoint): ModelError {
  if (error instanceof ModelError) return error;
  const where = endpoint.baseURL ? new URL(endpoint.baseURL).host : 'the OpenAI API';
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ModelError('timeout', `${where} did not answer within ${endpoint.timeoutMs} ms`);
  if (error instanceof OpenAI.APIConnectionError) return new ModelError('connection', `cannot reach ${where}: ${error.message}`);
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const detail = error.message.replace(/^\d+\s*/, '');
    if (error.status === 401 || error.status === 403) return new ModelError('auth', `${where} refused the API key (${error.status}): ${detail}`);
    if (error.status === 429) return new ModelError('rate-limit', `${where} is rate-limiting requests (429): ${detail}`, retryAfter(error.headers));
    if (error.status >= 500) return new ModelError('server', `${where} failed (${error.status}): ${detail}`, retryAfter(error.headers));
    if (error.status === 404) return new ModelError('bad-request', `${where} does not know model "${endpoint.model}" or this API (404): ${detail}`);
    return new ModelError('bad-request', `${where} rejected the request (${error.status}): ${detail}`);
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
