// Unit tests of the model client against the scripted endpoint: streaming, retries, the idle watchdog, the budget, and aborts closing the request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, ModelClient, ModelError } from '../../server/src/agents/modelClient.js';
import type { ModelEndpoint } from '../../server/src/agents/modelClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

function client(overrides: Partial<ModelEndpoint> = {}): ModelClient {
  return new ModelClient({ apiKey: 'k', baseURL: model.baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true, ...overrides });
}
const messages = [{ role: 'user' as const, content: 'hello' }];
const signal = (): AbortSignal => new AbortController().signal;

describe('ModelClient', () => {
  it('assembles a streamed answer and its usage', async () => {
    model.enqueue({ kind: 'text', content: 'streamed answer', chunkSize: 3, usage: { prompt_tokens: 7, completion_tokens: 4 } });
    const completion = await client().complete(messages, signal());
    expect(completion).toEqual({ text: 'streamed answer', finishReason: 'stop', usage: { promptTokens: 7, completionTokens: 4 }, exchange: { startedAt: expect.any(Number), endedAt: expect.any(Number) } });
    // The exchange spans the HTTP request to the last token, which takes some time.
    expect(completion.exchange!.endedAt).toBeGreaterThan(completion.exchange!.startedAt);
    expect(model.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('reads a non-streamed answer', async () => {
    model.enqueue({ kind: 'text', content: 'whole answer' });
    expect((await client({ stream: false }).complete(messages, signal())).text).toBe('whole answer');
  });

  it('assembles tool calls, streamed or not, and sends tools, calls and results in the wire format', async () => {
    const tools = [{ name: 'get_signature', description: 'a signature', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }];
    for (const stream of [true, false]) {
      model.reset();
      model.enqueue({ kind: 'toolCalls', calls: [{ id: 'c1', name: 'get_signature', arguments: { name: 'Cart.total' } }, { id: 'c2', name: 'get_signature', arguments: '{"name": broken' }] });
      const completion = await client({ stream }).complete(messages, signal(), { tools });
      expect(completion.toolCalls).toEqual([
        { id: 'c1', name: 'get_signature', arguments: '{"name":"Cart.total"}' },
        { id: 'c2', name: 'get_signature', arguments: '{"name": broken' },
      ]);
      expect(completion.finishReason).toBe('tool_calls');
      expect(model.requests[0]!.body.tools).toEqual([{ type: 'function', function: tools[0] }]);
    }
    model.reset();
    model.enqueue({ kind: 'text', content: 'done' });
    const key = 'sk-proj-' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0';
    await client().complete(
      [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search_code', arguments: JSON.stringify({ code: key }) }] },
        { role: 'tool', toolCallId: 'c1', content: `const KEY = "${key}";` },
      ],
      signal(),
    );
    const sent = model.requests[0]!.body.messages;
    expect(sent[1]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_code' } }] });
    expect(sent[2]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(model.requests[0]!.rawBody).not.toContain(key);
  });

  it('retries after a 429 with retry-after and a 500, then succeeds', async () => {
    model.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '0' } }, { kind: 'error', status: 503 }, { kind: 'text', content: 'third time' });
    const completion = await client({ maxRetries: 2 }).complete(messages, signal());
    expect(completion.text).toBe('third time');
    expect(model.requests).toHaveLength(3);
  });

  it('does not retry an authentication failure, and says what happened', async () => {
    model.setDefault({ kind: 'error', status: 401, message: 'bad key' });
    await expect(client({ maxRetries: 3 }).complete(messages, signal())).rejects.toMatchObject({ kind: 'auth', message: expect.stringMatching(/refused the API key \(401\)/) });
    expect(model.requests).toHaveLength(1);
  });

  it('abandons a stalled stream through the idle watchdog', async () => {
    model.setDefault({ kind: 'stall', afterHeaders: true });
    const started = Date.now();
    await expect(client({ idleTimeoutMs: 300 }).complete(messages, signal())).rejects.toMatchObject({ kind: 'idle' });
    expect(Date.now() - started).toBeLessThan(3000);
    await model.waitForClose(0, 1000);
  });

  it('enforces the whole-request budget on a slow but steady stream', async () => {
    model.setDefault({ kind: 'text', content: 'x'.repeat(200), chunkSize: 1, delayMs: 20 });
    await expect(client({ timeoutMs: 400, idleTimeoutMs: 5000 }).complete(messages, signal())).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('reports a stream that stops halfway, after its retries', async () => {
    model.setDefault({ kind: 'truncate', content: 'partial answer that goes on', stopAfterChars: 7 });
    const error = await client({ maxRetries: 1 }).complete(messages, signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe('incomplete');
    expect(model.requests).toHaveLength(2);
  });

  it('retries a connection reset before any answer, and says so when it keeps happening', async () => {
    model.enqueue({ kind: 'reset' }, { kind: 'text', content: 'after the reset' });
    expect((await client({ maxRetries: 1 }).complete(messages, signal())).text).toBe('after the reset');
    model.setDefault({ kind: 'reset' });
    const error = (await client({ maxRetries: 1 }).complete(messages, signal()).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(['connection', 'incomplete']).toContain(error.kind);
    expect(error.message).toMatch(/127\.0\.0\.1/);
    expect(model.requests).toHaveLength(4);
  });

  it('abandons a huge answer past MAX_ANSWER_CHARS instead of holding it in memory, streamed or not, without retrying', async () => {
    const huge = 'x'.repeat(MAX_ANSWER_CHARS + 10);
    model.setDefault({ kind: 'text', content: huge, chunkSize: 100_000 });
    await expect(client({ maxRetries: 2 }).complete(messages, signal())).rejects.toMatchObject({ kind: 'too-large', message: expect.stringContaining('exceeded 1,000,000 characters') });
    await expect(client({ maxRetries: 2, stream: false }).complete(messages, signal())).rejects.toMatchObject({ kind: 'too-large' });
    expect(model.requests).toHaveLength(2);
  });

  it('drops the connection of an abandoned stream at once, and reads an answer to its end', async () => {
    // Five more chunks of 100,000 characters, 100 ms apart, follow the one that passes the limit.
    model.enqueue({ kind: 'text', content: 'x'.repeat(MAX_ANSWER_CHARS + 500_000), chunkSize: 100_000, delayMs: 100 });
    await expect(client({ maxRetries: 0 }).complete(messages, signal())).rejects.toMatchObject({ kind: 'too-large' });
    const abandonedAt = Date.now();
    expect((await model.waitForClose(0, 1000)) - abandonedAt).toBeLessThan(200);
    model.enqueue({ kind: 'text', content: 'All done.' });
    await expect(client().complete(messages, signal())).resolves.toMatchObject({ text: 'All done.', finishReason: 'stop' });
    expect(model.requests[1]?.closedAt).toBeUndefined();
  });

  it('reports garbage as malformed', async () => {
    model.setDefault({ kind: 'garbage' });
    await expect(client({ stream: false }).complete(messages, signal())).rejects.toMatchObject({ kind: 'malformed' });
  });

  it('closes the HTTP request within 200 ms of an abort, and rejects with the abort reason', async () => {
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const controller = new AbortController();
    const pending = client().complete(messages, controller.signal);
    await model.waitForRequests(1);
    const abortedAt = Date.now();
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    expect((await model.waitForClose(0, 1000)) - abortedAt).toBeLessThan(200);
  });

  it('stops retrying once aborted during the backoff', async () => {
    model.setDefault({ kind: 'error', status: 429, headers: { 'retry-after': '10' } });
    const controller = new AbortController();
    const pending = client({ maxRetries: 5 }).complete(messages, controller.signal);
    await model.waitForRequests(1);
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    expect(model.requests).toHaveLength(1);
  });
});
