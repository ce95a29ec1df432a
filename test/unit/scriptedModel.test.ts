// Checks the scripted model against the real openai client, so agent tests can trust what it simulates.
import OpenAI from 'openai';
import type { APIError } from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
let client: OpenAI;

beforeEach(async () => {
  model = await startScriptedModel();
  client = new OpenAI({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 });
});

afterEach(async () => {
  await model.close();
});

const userMessage = (content: string): OpenAI.Chat.ChatCompletionMessageParam[] => [{ role: 'user', content }];

describe('chat completions, non-streamed', () => {
  it('answers a text step and records the request', async () => {
    model.enqueue({ kind: 'text', content: 'Hello there, friend.' });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ];

    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });

    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Hello there, friend.' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    // 'Be brief.' + 'Say hello' = 18 chars -> 5 tokens; 20 content chars -> 5 tokens.
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });

    expect(model.requests).toHaveLength(1);
    const rec = model.requests[0]!;
    expect(rec.index).toBe(0);
    expect(rec.method).toBe('POST');
    expect(rec.path).toBe('/v1/chat/completions');
    expect(rec.headers.authorization).toBe('Bearer test');
    expect(rec.body.model).toBe('gpt-test');
    expect(rec.body.messages).toEqual(messages);
    expect(JSON.parse(rec.rawBody)).toEqual(rec.body);
    expect(rec.step).toEqual({ kind: 'text', content: 'Hello there, friend.' });
    expect(rec.finishedAt).toBeGreaterThanOrEqual(rec.receivedAt);
    expect(rec.closedAt).toBeUndefined();
  });

  it('answers queued steps in FIFO order, then the default, then a 500 once exhausted', async () => {
    model.enqueue({ kind: 'text', content: 'first' }, { kind: 'text', content: 'second' });
    const ask = async (): Promise<string | null | undefined> =>
      (await client.chat.completions.create({ model: 'm', messages: userMessage('x') })).choices[0]?.message.content;

    expect(await ask()).toBe('first');
    expect(await ask()).toBe('second');
    model.setDefault({ kind: 'text', content: 'fallback' });
    expect(await ask()).toBe('fallback');
    expect(await ask()).toBe('fallback');
    model.setDefault(undefined);
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('scripted model: script exhausted');
    expect(model.requests.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('lets a dynamic step answer from the recorded request', async () => {
    model.setDefault({
      kind: 'dynamic',
      respond: (req) => ({ kind: 'text', content: `echo: ${String(req.body.messages.at(-1).content)}` }),
    });

    const a = await client.chat.completions.create({ model: 'm', messages: userMessage('one') });
    const b = await client.chat.completions.create({ model: 'm', messages: userMessage('two') });

    expect(a.choices[0]?.message.content).toBe('echo: one');
    expect(b.choices[0]?.message.content).toBe('echo: two');
    // The recorded step is the concrete answer, not the dynamic wrapper, so tests can see what was sent.
    expect(model.requests[1]?.step).toEqual({ kind: 'text', content: 'echo: two' });
  });

  it('reset() clears the queue, the default and the recorded requests', async () => {
    model.enqueue({ kind: 'text', content: 'stale' });
    model.setDefault({ kind: 'text', content: 'stale default' });
    await client.models.list();
    model.reset();

    expect(model.requests).toHaveLength(0);
    await expect(client.chat.completions.create({ model: 'm', messages: userMessage('x') })).rejects.toMatchObject({ status: 500 });
    expect(model.requests[0]?.index).toBe(0);
  });
});

describe('chat completions, streamed', () => {
  it('streams text in chunkSize pieces and reports usage when asked', async () => {
    const content = 'The quick brown fox jumps over the lazy dog.';
    model.enqueue({ kind: 'text', content, chunkSize: 5, usage: { prompt_tokens: 7, completion_tokens: 11 } });

    const stream = await client.chat.completions.create({
      model: 'gpt-stream',
      messages: userMessage('Tell me about foxes'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const withChoices = chunks.filter((c) => c.choices.length > 0);
    expect(withChoices[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const pieces = withChoices.map((c) => c.choices[0]?.delta.content ?? '').filter((p) => p.length > 0);
    expect(pieces.join('')).toBe(content);
    expect(pieces).toHaveLength(Math.ceil(content.length / 5));
    expect(pieces.every((p) => p.length <= 5)).toBe(true);
    expect(withChoices.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-stream')).toBe(true);

    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toEqual({ prompt_tokens: 7, completion_tokens: 11, total_tokens: 18 });
    expect(model.requests[0]?.finishedAt).toBeDefined();
  });

  it('omits the usage chunk without include_usage and honours a step-level stream override', async () => {
    model.enqueue({ kind: 'text', content: 'abc', finishReason: 'length' }, { kind: 'text', content: 'forced', stream: false });

    const stream = await client.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');

    // The client asked for a stream but the step says no, so the raw response is a plain completion.
    const raw = await client.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true }).asResponse();
    expect(raw.headers.get('content-type')).toBe('application/json');
    expect(await raw.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'forced' } }] });
  });

  it('spaces chunks by delayMs', async () => {
    model.enqueue({ kind: 'text', content: 'abcdef', chunkSize: 2, delayMs: 40 });
    const started = Date.now();
    const stream = await client.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('abcdef');
    // Three pieces, each preceded by a 40 ms pause; timers may fire a millisecond early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('tool calls', () => {
  const calls = [
    { id: 'call_read', name: 'read_file', arguments: { path: 'src/index.ts', range: { start: 1, end: 40 } } },
    { name: 'search', arguments: '{"query":"TODO","caseSensitive":false}' },
  ];

  it('returns tool calls in a non-streamed completion', async () => {
    model.enqueue({ kind: 'toolCalls', calls });

    const completion = await client.chat.completions.create({ model: 'm', messages: userMessage('look around') });

    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const toolCalls = choice.message.tool_calls ?? [];
    expect(toolCalls).toHaveLength(2);
    expect(toolCalls[0]).toMatchObject({ id: 'call_read', type: 'function', function: { name: 'read_file' } });
    expect(toolCalls[1]?.id).toEqual(expect.any(String));
    const parsed = toolCalls.map((c) => (c.type === 'function' ? { name: c.function.name, args: JSON.parse(c.function.arguments) } : undefined));
    expect(parsed).toEqual([
      { name: 'read_file', args: { path: 'src/index.ts', range: { start: 1, end: 40 } } },
      { name: 'search', args: { query: 'TODO', caseSensitive: false } },
    ]);
  });

  it('streams tool calls as indexed deltas that reassemble intact', async () => {
    model.enqueue({ kind: 'toolCalls', calls, content: 'Let me check.' });

    const stream = await client.chat.completions.create({ model: 'm', messages: userMessage('look around'), stream: true });
    let content = '';
    let finishReason: string | null | undefined;
    let argumentFragments = 0;
    const assembled: { id?: string; type?: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      content += choice.delta.content ?? '';
      finishReason = choice.finish_reason ?? finishReason;
      for (const delta of choice.delta.tool_calls ?? []) {
        const slot = (assembled[delta.index] ??= { name: '', arguments: '' });
        if (delta.id) slot.id = delta.id;
        if (delta.type) slot.type = delta.type;
        slot.name += delta.function?.name ?? '';
        if (delta.function?.arguments) {
          slot.arguments += delta.function.arguments;
          argumentFragments++;
        }
      }
    }

    expect(content).toBe('Let me check.');
    expect(finishReason).toBe('tool_calls');
    expect(assembled).toHaveLength(2);
    expect(assembled[0]).toMatchObject({ id: 'call_read', type: 'function', name: 'read_file' });
    expect(assembled[1]).toMatchObject({ id: expect.any(String), type: 'function', name: 'search' });
    expect(JSON.parse(assembled[0]!.arguments)).toEqual({ path: 'src/index.ts', range: { start: 1, end: 40 } });
    expect(JSON.parse(assembled[1]!.arguments)).toEqual({ query: 'TODO', caseSensitive: false });
    // Proves the arguments really arrived in pieces rather than one delta per call.
    expect(argumentFragments).toBeGreaterThan(2);
  });
});

describe('errors', () => {
  it('retries a 429 with retry-after: 0 immediately and then succeeds', async () => {
    const retrying = new OpenAI({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 1 });
    model.enqueue(
      { kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '0' } },
      { kind: 'text', content: 'after retry' },
    );

    const started = Date.now();
    const completion = await retrying.chat.completions.create({ model: 'm', messages: userMessage('x') });
    const elapsed = Date.now() - started;

    expect(completion.choices[0]?.message.content).toBe('after retry');
    const recorded = await model.waitForRequests(2);
    expect(recorded).toHaveLength(2);
    expect(recorded.map((r) => r.step?.kind)).toEqual(['error', 'text']);
    expect(recorded.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
    // The default backoff would be at least 375 ms; staying under it shows retry-after: 0 was honoured.
    expect(elapsed).toBeLessThan(350);
  });

  it('surfaces a 429 without retries as a RateLimitError carrying the scripted body', async () => {
    model.enqueue({ kind: 'error', status: 429, message: 'slow down', type: 'requests', headers: { 'retry-after': '0' } });

    const err = await client.chat.completions.create({ model: 'm', messages: userMessage('x') }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, type: 'requests', param: null, code: null });
    expect((err as APIError).headers?.get('retry-after')).toBe('0');
    expect((err as APIError).error).toEqual({ message: 'slow down', type: 'requests', param: null, code: null });
  });

  it('surfaces a 500 as an OpenAI.APIError with status 500', async () => {
    model.enqueue({ kind: 'error', status: 500, message: 'boom' });

    const err = await client.chat.completions.create({ model: 'm', messages: userMessage('x') }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('boom');
    expect(model.requests).toHaveLength(1);
  });

  it('rejects with a SyntaxError on a garbage non-streamed body', async () => {
    model.enqueue({ kind: 'garbage' });

    const err = await client.chat.completions.create({ model: 'm', messages: userMessage('x') }).catch((e: unknown) => e);

    // openai v6 lets the JSON parse error escape unwrapped rather than turning it into an OpenAIError.
    expect(err).toBeInstanceOf(SyntaxError);
    expect(err).not.toBeInstanceOf(OpenAI.OpenAIError);
  });

  it('throws a SyntaxError while iterating a garbage stream', async () => {
    // The stream helper logs unparsable events through the client logger; silence it to keep test output clean.
    const quiet = new OpenAI({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0, logLevel: 'off' });
    model.enqueue({ kind: 'garbage' });

    const stream = await quiet.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true });
    const received: unknown[] = [];
    const err = await (async () => {
      for await (const chunk of stream) received.push(chunk);
    })().catch((e: unknown) => e);

    expect(err).toBeInstanceOf(SyntaxError);
    expect(received).toEqual([]);
  });

  it('answers unknown routes with a 404 in the OpenAI error format', async () => {
    const err = await client.models.retrieve('no-such-model').catch((e: unknown) => e);

    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as APIError).error).toMatchObject({ message: expect.stringContaining('GET /v1/models/no-such-model'), param: null, code: null });
    // Only chat requests count for waitForRequests, though every request is recorded.
    expect(model.requests).toHaveLength(1);
    await expect(model.waitForRequests(1, 50)).rejects.toThrow(/timed out/);
  });
});

describe('truncated streams', () => {
  it('delivers the content before the cut, then iteration throws a TypeError("terminated")', async () => {
    model.enqueue({ kind: 'truncate', content: 'hello world, this never finishes', stopAfterChars: 10 });

    const stream = await client.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true });
    let text = '';
    const finishReasons: (string | null)[] = [];
    const err = await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finishReasons.push(chunk.choices[0]?.finish_reason ?? null);
      }
    })().catch((e: unknown) => e);

    // openai v6 does not wrap this: the undici body error escapes as-is, not as an APIConnectionError.
    expect(err).toBeInstanceOf(TypeError);
    expect(err).not.toBeInstanceOf(OpenAI.OpenAIError);
    expect((err as Error).message).toBe('terminated');
    expect((err as Error & { cause?: { code?: string } }).cause?.code).toBe('UND_ERR_SOCKET');
    expect(text).toBe('hello worl');
    expect(finishReasons.every((r) => r === null)).toBe(true);
    // The server cut the connection itself, so this is not a client close.
    expect(model.requests[0]?.closedAt).toBeUndefined();
    expect(model.requests[0]?.finishedAt).toBeUndefined();
  });

  it('rejects a non-streamed request whose body is cut short with the same TypeError', async () => {
    model.enqueue({ kind: 'truncate', content: 'hello world', stopAfterChars: 30 });

    const err = await client.chat.completions.create({ model: 'm', messages: userMessage('x') }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe('terminated');
  });
});

describe('stalls and cancellation', () => {
  it('streamed: abort after headers ends the iteration quietly and closes the HTTP request within 200 ms', async () => {
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const controller = new AbortController();

    // Headers were flushed, so create() resolves even though no event ever arrives.
    const stream = await client.chat.completions.create({ model: 'm', messages: userMessage('x'), stream: true }, { signal: controller.signal });
    const received: unknown[] = [];
    const iteration = (async () => {
      for await (const chunk of stream) received.push(chunk);
    })();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const abortedAt = Date.now();
    controller.abort();

    // openai v6 swallows the AbortError inside Stream iteration: the loop just ends, it does not reject.
    await expect(iteration).resolves.toBeUndefined();
    expect(received).toEqual([]);
    const closedAt = await model.waitForClose(0, 1_000);
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
    expect(closedAt - abortedAt).toBeLessThan(200);
    expect(model.requests[0]?.finishedAt).toBeUndefined();
  });

  it('non-streamed: abort after headers rejects with a raw AbortError and closes within 200 ms', async () => {
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const controller = new AbortController();

    const pending = client.chat.completions.create({ model: 'm', messages: userMessage('x') }, { signal: controller.signal });
    const settled = pending.catch((e: unknown) => e);
    await model.waitForRequests(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const abortedAt = Date.now();
    controller.abort();

    const err = await settled;
    // The abort lands while reading the body, after openai's own abort handling, so it is not an APIUserAbortError.
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(err).not.toBeInstanceOf(OpenAI.APIUserAbortError);
    const closedAt = await model.waitForClose(0, 1_000);
    expect(closedAt - abortedAt).toBeGreaterThanOrEqual(0);
    expect(closedAt - abortedAt).toBeLessThan(200);
  });

  it('before headers: abort rejects with APIUserAbortError and closes within 200 ms', async () => {
    model.enqueue({ kind: 'stall' });
    const controller = new AbortController();

    const settled = client.chat.completions
      .create({ model: 'm', messages: userMessage('x'), stream: true }, { signal: controller.signal })
      .then(
        () => 'resolved',
        (e: unknown) => e,
      );
    await model.waitForRequests(1);
    const abortedAt = Date.now();
    controller.abort();

    expect(await settled).toBeInstanceOf(OpenAI.APIUserAbortError);
    const closedAt = await model.waitForClose(0, 1_000);
    expect(closedAt - abortedAt).toBeGreaterThanOrEqual(0);
    expect(closedAt - abortedAt).toBeLessThan(200);
  });

  it('waitForClose rejects on timeout while the client is still connected', async () => {
    model.enqueue({ kind: 'stall' });
    const controller = new AbortController();
    const settled = client.chat.completions.create({ model: 'm', messages: userMessage('x') }, { signal: controller.signal }).catch((e: unknown) => e);
    await model.waitForRequests(1);

    await expect(model.waitForClose(0, 50)).rejects.toThrow(/timed out/);

    controller.abort();
    await settled;
    await expect(model.waitForClose(0, 1_000)).resolves.toEqual(expect.any(Number));
  });

  it('close() returns promptly with a stalled request open, and the client sees a connection error', async () => {
    model.enqueue({ kind: 'stall', afterHeaders: false });
    const settled = client.chat.completions.create({ model: 'm', messages: userMessage('x') }).catch((e: unknown) => e);
    await model.waitForRequests(1);

    const started = Date.now();
    await model.close();
    expect(Date.now() - started).toBeLessThan(500);

    expect(await settled).toBeInstanceOf(OpenAI.APIConnectionError);
    // Tearing the server down is not the client going away.
    expect(model.requests[0]?.closedAt).toBeUndefined();
  });

  it('close() does not hang on an idle keep-alive connection', async () => {
    model.enqueue({ kind: 'text', content: 'done' });
    await client.chat.completions.create({ model: 'm', messages: userMessage('x') });

    const started = Date.now();
    await model.close();
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('other endpoints', () => {
  it('returns deterministic 16-dimension embeddings in both float and base64 encodings', async () => {
    const batch = await client.embeddings.create({ model: 'embed-test', input: ['alpha', 'beta'] });
    const floats = await client.embeddings.create({ model: 'embed-test', input: ['alpha', 'beta'], encoding_format: 'float' });
    const single = await client.embeddings.create({ model: 'embed-test', input: 'alpha', encoding_format: 'float' });

    expect(batch.object).toBe('list');
    expect(batch.model).toBe('embed-test');
    expect(batch.data.map((d) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    // ceil(5 / 4) + ceil(4 / 4): the same chars-per-token estimate as chat prompts, per input.
    expect(batch.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const [alpha, beta] = batch.data.map((d) => d.embedding);
    expect(alpha).toHaveLength(16);
    expect(alpha?.every((v) => Number.isFinite(v))).toBe(true);
    expect(alpha).not.toEqual(beta);
    // The client defaults to base64 and decodes it; the float path must yield the very same numbers.
    expect(floats.data.map((d) => d.embedding)).toEqual([alpha, beta]);
    expect(single.data).toHaveLength(1);
    expect(single.data[0]?.embedding).toEqual(alpha);
    // Unit length keeps cosine similarity meaningful for consumers.
    expect(Math.hypot(...(alpha ?? []))).toBeCloseTo(1, 5);
    expect(model.requests.map((r) => r.body.encoding_format)).toEqual(['base64', 'float', 'float']);
  });

  it('lists the scripted model', async () => {
    const page = await client.models.list();

    expect(page.data).toEqual([{ id: 'scripted-model', object: 'model', created: expect.any(Number), owned_by: 'test' }]);
    expect(model.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', body: undefined, rawBody: '' });
  });
});
