// The openai package path against a real model behind an OpenAI-compatible server: streamed answers with usage, a cut-off answer's stop reason, tool calls, and a cancel that stops the generation within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelClient, ModelError } from '../../server/src/agents/modelClient.js';
import type { ModelEndpoint, ToolSpec } from '../../server/src/agents/modelClient.js';
import { startLocalOpenAIServer } from '../support/localOpenAIServer.js';
import type { LocalOpenAIServer } from '../support/localOpenAIServer.js';
import { testModelPath } from './testModel.js';

const modelPath = testModelPath();
let server: LocalOpenAIServer;
let short: LocalOpenAIServer;

beforeAll(async () => {
  if (!modelPath) return;
  [server, short] = await Promise.all([startLocalOpenAIServer({ modelPath, maxTokens: 96 }), startLocalOpenAIServer({ modelPath, maxTokens: 4 })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), short?.close()]);
});

function client(baseURL: string, overrides: Partial<ModelEndpoint> = {}): ModelClient {
  return new ModelClient({ apiKey: 'not-needed', baseURL, model: 'local', timeoutMs: 90_000, idleTimeoutMs: 60_000, maxRetries: 0, stream: true, temperature: 0, ...overrides });
}

const ask = [
  { role: 'system' as const, content: 'You are a terse TypeScript assistant.' },
  { role: 'user' as const, content: 'Write a TypeScript function isEven(n: number): boolean. Code only.' },
];

describe.skipIf(!modelPath)('the openai package path with a real model', () => {
  it('streams an answer that ends with stop and reports usage; without streaming too', async () => {
    for (const stream of [true, false]) {
      const completion = await client(server.baseURL, { stream }).complete(ask, new AbortController().signal);
      expect(completion.finishReason).toBe('stop');
      expect(completion.text.trim().length).toBeGreaterThan(0);
      expect(completion.usage?.promptTokens).toBeGreaterThan(0);
      expect(completion.usage?.completionTokens).toBeGreaterThan(0);
    }
  });

  it('reports an answer cut off at the token limit as such', async () => {
    const failure = await client(short.baseURL).complete(ask, new AbortController().signal).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ kind: 'incomplete', facts: { cause: 'token-limit' } });
  });

  it('brings back tool calls the model makes, each naming an offered tool with JSON object arguments', async () => {
    const tools: ToolSpec[] = [{ name: 'get_signature', description: 'The signature of a function, by name.', parameters: { type: 'object', properties: { name: { type: 'string', description: 'The function name.' } }, required: ['name'] } }];
    const completion = await client(server.baseURL).complete(
      [
        { role: 'user', content: 'Use the get_signature tool to get the signature of lineTotal.' },
      ],
      new AbortController().signal,
      { tools },
    );
    // Whether this model calls the tool is its own business; what comes back must be well formed either way.
    for (const call of completion.toolCalls ?? []) {
      expect(call.name).toBe('get_signature');
      expect(typeof JSON.parse(call.arguments)).toBe('object');
    }
    expect(completion.finishReason).toBe(completion.toolCalls?.length ? 'tool_calls' : 'stop');
    expect((completion.toolCalls?.length ?? 0) + completion.text.length).toBeGreaterThan(0);
    console.log(`tool call test: ${completion.toolCalls?.length ? `called ${JSON.stringify(completion.toolCalls)}` : `answered in text: ${completion.text.slice(0, 300)}`}`);
  });

  it('stops generating within a second of a cancel', async () => {
    const controller = new AbortController();
    const long = [{ role: 'user' as const, content: 'Write a long TypeScript module with many functions about dates.' }];
    const request = client(server.baseURL).complete(long, controller.signal);
    // Cancel once the model is generating (the first pieces of its answer came out).
    const started = Date.now();
    while (server.client.pendingText() === 0 && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.client.pendingText()).toBeGreaterThan(0);
    const cancelledAt = performance.now();
    controller.abort(new Error('cancelled by the test'));
    await expect(request).rejects.toThrow('cancelled by the test');
    await server.client.whenIdle();
    const stoppedMs = performance.now() - cancelledAt;
    expect(stoppedMs).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.disconnects).toBe(1);
  });
});
