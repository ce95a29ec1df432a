// Unit tests of failureReason: what the model client's real failures against the scripted endpoint become in a user's words.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelClient } from '../../server/src/agents/modelClient.js';
import type { ModelEndpoint } from '../../server/src/agents/modelClient.js';
import { BudgetExceeded, failureReason, formatDuration } from '../../server/src/agents/failureReason.js';
import { PipelineFailure } from '../../server/src/agents/orchestrator.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptStep, ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

/** The reason the user reads when the endpoint answers with `step`. */
async function reasonFor(step: ScriptStep, endpoint: Partial<ModelEndpoint> = {}): Promise<string> {
  model.setDefault(step);
  const client = new ModelClient({ apiKey: 'k', baseURL: model.baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true, ...endpoint });
  const error = await client.complete([{ role: 'user', content: 'hello' }], new AbortController().signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should fail').toBeDefined();
  return failureReason(error);
}

describe('failureReason', () => {
  it('names the status the endpoint answered with, without the transport’s wording', async () => {
    expect(await reasonFor({ kind: 'error', status: 401, message: 'Incorrect API key provided' })).toBe('the endpoint refused the API key (401)');
    expect(await reasonFor({ kind: 'error', status: 403 })).toBe('the endpoint refused the API key (403)');
    expect(await reasonFor({ kind: 'error', status: 429, headers: { 'retry-after': '0' } })).toBe('the endpoint is rate-limiting requests (429)');
    expect(await reasonFor({ kind: 'error', status: 503 })).toBe('the endpoint failed (503)');
    expect(await reasonFor({ kind: 'error', status: 404 })).toBe('the endpoint does not know this model (404)');
    expect(await reasonFor({ kind: 'error', status: 400 })).toBe('the endpoint rejected the request (400)');
  });

  it('says which limit ran out, in seconds', async () => {
    expect(await reasonFor({ kind: 'stall', afterHeaders: true }, { idleTimeoutMs: 300 })).toBe('the model sent nothing for 300 ms');
    expect(await reasonFor({ kind: 'text', content: 'x'.repeat(100), chunkSize: 1, delayMs: 30 }, { timeoutMs: 1500, idleTimeoutMs: 1000 })).toBe('no answer within 1.5 s');
    expect(failureReason(new BudgetExceeded(60_000))).toBe('no answer within 60 s (orchestrator.agentTimeoutMs)');
  });

  it('tells a broken, cut-off, filtered or unreadable answer apart', async () => {
    expect(await reasonFor({ kind: 'truncate', content: 'an answer that goes on', stopAfterChars: 5 })).toBe('the answer stopped halfway');
    expect(await reasonFor({ kind: 'text', content: 'abc', finishReason: 'length' })).toBe('the answer was cut off at the model’s token limit');
    expect(await reasonFor({ kind: 'text', content: 'abc', finishReason: 'content_filter' })).toBe('the endpoint’s content filter withheld the answer');
    expect(await reasonFor({ kind: 'garbage' }, { stream: false })).toBe('the endpoint’s answer could not be read');
  });

  it('says the endpoint cannot be reached when nothing listens there', async () => {
    const baseURL = model.baseURL;
    await model.close();
    const client = new ModelClient({ apiKey: 'k', baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true });
    const error = await client.complete([{ role: 'user', content: 'hello' }], new AbortController().signal).catch((e: unknown) => e);
    expect(failureReason(error)).toBe('cannot reach the endpoint');
  });

  it('gives a pipeline’s failure the reason of the model error behind it, and leaves agents’ own words alone', async () => {
    model.setDefault({ kind: 'error', status: 401 });
    const client = new ModelClient({ apiKey: 'k', baseURL: model.baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true });
    const cause = await client.complete([{ role: 'user', content: 'hello' }], new AbortController().signal).catch((e: unknown) => e);
    expect(failureReason(new PipelineFailure((cause as Error).message, { name: 'issue', steps: [] }, cause))).toBe('the endpoint refused the API key (401)');
    expect(failureReason(new Error('the patch no longer applies'))).toBe('the patch no longer applies');
  });

  it('writes durations as people say them', () => {
    expect([formatDuration(100), formatDuration(1000), formatDuration(1500), formatDuration(60_000)]).toEqual(['100 ms', '1 s', '1.5 s', '60 s']);
  });
});
