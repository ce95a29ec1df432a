// Unit tests of the orchestrator: agents run in parallel, a failing, slow or cancelled agent yields an outcome, not an exception.
import { describe, expect, it } from 'vitest';
import { PipelineFailure, runAgents } from '../../server/src/agents/orchestrator.js';
import type { Agent, AgentRequest } from '../../server/src/agents/agent.js';

function agent(name: string, run: Agent['run']): Agent {
  return { descriptor: { name, technology: 'rule', isLLM: false }, tasks: ['document'], description: name, run };
}
const request = {} as AgentRequest;
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

describe('runAgents', () => {
  it('runs agents in parallel and keeps each outcome', async () => {
    const started = Date.now();
    const outcomes = await runAgents(
      [agent('a', async (_r, s) => (await sleep(200, s), { text: 'A' })), agent('b', async (_r, s) => (await sleep(200, s), { text: 'B', usage: { promptTokens: 3 } }))],
      request,
      { agentTimeoutMs: 5000, signal: new AbortController().signal },
    );
    expect(Date.now() - started).toBeLessThan(390);
    expect(outcomes.map((o) => [o.agent.descriptor.name, o.status, o.text])).toEqual([['a', 'ok', 'A'], ['b', 'ok', 'B']]);
    expect(outcomes[1]!.usage).toEqual({ promptTokens: 3 });
    expect(new Set(outcomes.map((o) => o.responseId)).size).toBe(2);
  });

  it('turns a throwing agent into an error outcome and an empty one into empty', async () => {
    const outcomes = await runAgents(
      [agent('bad', () => Promise.reject(new Error('boom'))), agent('silent', () => Promise.resolve({ text: '  ' })), agent('good', () => Promise.resolve({ text: 'ok' }))],
      request,
      { agentTimeoutMs: 1000, signal: new AbortController().signal },
    );
    expect(outcomes.map((o) => o.status)).toEqual(['error', 'empty', 'ok']);
    expect(outcomes[0]!.error).toBe('boom');
  });

  it('gives up on an agent past its budget, even one that ignores its signal', async () => {
    const outcomes = await runAgents([agent('slow', () => new Promise(() => undefined))], request, { agentTimeoutMs: 100, signal: new AbortController().signal });
    expect(outcomes[0]).toMatchObject({ status: 'timeout', error: 'no answer within 100 ms (orchestrator.agentTimeoutMs)' });
  });

  it('keeps the steps a pipeline ran when its budget stops it', async () => {
    const steps = { name: 'issue', steps: [{ id: 's1', index: 0, name: 'context', status: 'cancelled' as const, input: {}, responses: [], startedAt: '', durationMs: 90 }] };
    const pipeline = agent('pipeline', (_r, s) => sleep(5000, s).then(() => ({ text: 'late' }), (reason: unknown) => Promise.reject(new PipelineFailure(String(reason), steps))));
    const outcomes = await runAgents([pipeline], request, { agentTimeoutMs: 100, signal: new AbortController().signal });
    expect(outcomes[0]).toMatchObject({ status: 'timeout', error: 'no answer within 100 ms (orchestrator.agentTimeoutMs)', pipeline: steps });
  });

  it('marks every agent cancelled when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = runAgents([agent('a', (_r, s) => sleep(5000, s).then(() => ({ text: 'late' })))], request, { agentTimeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await pending)[0]!.status).toBe('cancelled');
  });
});
