// End-to-end assistant/ask, assistant/apply and assistant/trace: classification, candidates without applying, apply, queries, model classifier.
import { afterEach, describe, expect, it } from 'vitest';
import type { TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function start(env?: Record<string, string>) {
  const { editor } = await TestEditor.start({ root: copyFixture('basic'), ...(env ? { env } : {}) });
  editors.push(editor);
  return editor;
}

describe('assistant/ask and assistant/apply', () => {
  it('classifies "write documentation for the load method" as document and returns a candidate without applying it', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'write documentation for the load method', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('document');
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response).toMatchObject({ status: 'ok', agent: { name: 'doc-offline' } });
    expect(response.text).toMatch(/^\/\*\*/);
    expect(response.text).toContain('@returns');
    const change = response.edit!.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument).toEqual({ uri: doc.uri, version: 1 });
    expect(editor.applied).toHaveLength(0);
    expect(editor.buffer(doc.uri).text).toBe(doc.text);

    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(applied).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.buffer(doc.uri).text).toMatch(/\*\/\n {2}\/\/ @assistant .*\n {2}async load\(\)/);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]).toMatchObject({ source: 'text', text: 'write documentation for the load method', task: 'document', classification: { by: 'intent-offline' } });
    expect(trace.interactions[0]!.responses[0]!.used).toBe(true);

    // Applying twice is refused, not duplicated.
    const again = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(again.applied).toBe(false);
    expect(editor.applied).toHaveLength(1);
  });

  it('finds the named symbol in the workspace when no document is given', async () => {
    const editor = await start();
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document parseConfig' });
    expect(answer.task).toBe('document');
    expect(answer.responses[0]!.text).toContain('@throws');
    const change = answer.responses[0]!.edit!.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument).toEqual({ uri: editor.uri('src/config.ts'), version: null });
  });

  it('answers "what is the weather in Paris" with none and a clear message', async () => {
    const editor = await start();
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'what is the weather in Paris' });
    expect(answer.task).toBe('none');
    expect(answer.responses).toEqual([]);
    expect(answer.message).toMatch(/does not match any assistant task/);
    const trace = await editor.request<TraceResult>('assistant/trace', { task: 'none' });
    expect(trace.interactions.map((i) => i.id)).toContain(answer.interactionId);
  });

  it('says so when a task has no agent yet, instead of guessing', async () => {
    const editor = await start();
    // Optimising has model agents only: without a model nothing serves it.
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'make parseConfig faster' });
    expect(answer.task).toBe('optimize');
    expect(answer.responses).toEqual([]);
    expect(answer.message).toMatch(/^This needs a model agent: no offline agent can optimise code. Configure one/);
  });

  it('rejects malformed ask and apply requests with InvalidParams or UnknownInteraction', async () => {
    const editor = await start();
    await expect(editor.request('assistant/ask', {})).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/ask', { text: 'document load', range: { start: 3 } })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/apply', { interactionId: 'nope', responseId: 'nope' })).rejects.toMatchObject({ code: -32010 });
    await expect(editor.request('assistant/apply', {})).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/trace', { since: 'yesterday-ish' })).rejects.toMatchObject({ code: -32602 });
  });

  it('classifies with the model when one is configured and the offline classifier places no task (numbered list, none of the above)', async () => {
    const model = await startScriptedModel();
    closers.push(() => model.close());
    const editor = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted' });
    // First request: the classifier; second: the document agent; the offline agent answers too.
    model.enqueue({ kind: 'text', content: '1' }, { kind: 'text', content: '/** Loads the configuration once. */' });
    editor.onQuestion = (p) => p.actions?.find((a) => a.title.startsWith('Use scripted')) ?? null;
    const doc = await editor.open('src/config.ts');
    // Words the offline classifier does not know: the model reads them.
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'dokumentiere die Methode load', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('document');
    const prompt = JSON.stringify(model.requests[0]!.body.messages);
    expect(prompt).toMatch(/None of the above/i);
    expect(answer.responses.map((r) => r.agent.technology).sort()).toEqual(['llm', 'rule']);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.classification?.by).toMatch(/^scripted@/);

    // A request about nothing the code has is no task, with no model call.
    const asked = model.requests.length;
    const none = await editor.request<AskResult>('assistant/ask', { text: 'book me a table for two' });
    expect(none.task).toBe('none');
    expect(model.requests).toHaveLength(asked);
    // The model's none of the above, for a request the offline classifier found about the code.
    model.enqueue({ kind: 'text', content: String(12) });
    expect((await editor.request<AskResult>('assistant/ask', { text: 'hmm load', textDocument: { uri: doc.uri } })).task).toBe('none');
    expect(model.requests).toHaveLength(asked + 1);
  });
});

describe('answers the oracle rejected', () => {
  it('offers none of them, says why, and refuses to apply one with its reason', async () => {
    // No test framework is installed in the fixture: the offline scaffold is written, then rejected by the oracle.
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'write tests for parseConfig', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('test');
    expect(answer.responses.length).toBeGreaterThan(0);
    expect(answer.responses.filter((r) => r.edit)).toEqual([]);
    expect(answer.message).toMatch(/no usable answer/i);
    const rejected = answer.responses.find((r) => /rejected by the oracle/.test(r.error ?? ''))!;
    const applied = await editor.request<{ applied: boolean; message: string }>('assistant/apply', { interactionId: answer.interactionId, responseId: rejected.id });
    expect(applied).toMatchObject({ applied: false });
    expect(applied.message).toMatch(/^This answer cannot be applied: rejected by the oracle: /);
    expect(editor.applied).toHaveLength(0);
  });
});

describe('classifying with a model configured', () => {
  it('takes the offline classifier\'s answer without asking the model when the request says its task plainly', async () => {
    const model = await startScriptedModel();
    closers.push(() => model.close());
    const editor = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted' });
    model.setDefault({ kind: 'text', content: '/** Loads the configuration once. */' });
    editor.onQuestion = (p) => p.actions?.find((a) => a.title.startsWith('Use scripted')) ?? null;
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document the load method', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('document');
    // One model request, the task's: no classification prompt was sent.
    expect(model.requests.map((r) => /None of the above/i.test(JSON.stringify(r.body.messages)))).toEqual([false]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.classification).toMatchObject({ by: 'intent-offline', task: 'document' });
  });
});

describe('cancelling assistant/ask', () => {
  it('answers a cancelled ask within 2 s and closes the model request', async () => {
    const model = await startScriptedModel();
    closers.push(() => model.close());
    const editor = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted' });
    const doc = await editor.open('src/config.ts');
    // The request says its task plainly: the offline classifier takes it, and the model's one request is the task's.
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const { CancellationTokenSource } = await import('vscode-jsonrpc/node');
    const source = new CancellationTokenSource();
    const pending = editor.connection.sendRequest('assistant/ask', { text: 'document the load method', textDocument: { uri: doc.uri } }, source.token);
    // The first ask of a cold server loads the project first: give it time on a busy machine.
    await model.waitForRequests(1, 30_000);
    const cancelledAt = Date.now();
    source.cancel();
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    expect(Date.now() - cancelledAt).toBeLessThan(2000);
    expect((await model.waitForClose(0, 2000)) - cancelledAt).toBeLessThan(200);
    expect(editor.applied).toHaveLength(0);
    // The interaction is in the trace, with no response used.
    const trace = await editor.request<TraceResult>('assistant/trace', { text: 'document the load method' });
    expect(trace.interactions[0]!.responses.every((r) => !r.used)).toBe(true);
  });
});

describe('assistant/trace queries', () => {
  it('filters by task, agent, used, text and time, and paginates', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const ids: string[] = [];
    for (const text of ['document the load method', 'document parseConfig', 'document firstOf']) {
      ids.push((await editor.request<AskResult>('assistant/ask', { text, textDocument: { uri: doc.uri } })).interactionId);
    }
    const first = await editor.request<AskResult>('assistant/trace', { id: ids[0] });
    expect(first).toMatchObject({ total: 1 });
    const all = await editor.request<TraceResult>('assistant/trace', { task: 'document' });
    expect(all.total).toBe(3);
    expect(all.interactions.map((i) => i.id)).toEqual([...ids].reverse());
    const page = await editor.request<TraceResult>('assistant/trace', { task: 'document', limit: 2 });
    expect(page.interactions).toHaveLength(2);
    expect(page.nextOffset).toBe(2);
    const rest = await editor.request<TraceResult>('assistant/trace', { task: 'document', limit: 2, offset: 2 });
    expect(rest.interactions.map((i) => i.id)).toEqual([ids[0]]);
    expect((await editor.request<TraceResult>('assistant/trace', { text: 'FIRSTOF' })).total).toBe(1);
    expect((await editor.request<TraceResult>('assistant/trace', { agent: 'doc-offline' })).total).toBe(3);
    expect((await editor.request<TraceResult>('assistant/trace', { used: true })).total).toBe(0);
    expect((await editor.request<TraceResult>('assistant/trace', { since: '2999-01-01T00:00:00Z' })).total).toBe(0);
    const session = all.interactions[0]!.sessionId;
    expect((await editor.request<TraceResult>('assistant/trace', { sessionId: session })).total).toBe(3);
  });
});
