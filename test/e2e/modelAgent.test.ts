// End-to-end model path: an OpenAI-compatible agent from the environment, the user's choice among agents, stale text, cancellation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { AgentsResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, FULL_CAPABILITIES, until } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
const editors: TestEditor[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model.close();
});

function modelEnv(): Record<string, string> {
  return { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-doc' };
}

async function start(options: { offline?: boolean } = {}) {
  const { editor } = await TestEditor.start({
    root: copyFixture('basic'),
    env: modelEnv(),
    initializationOptions: { assistant: { disabledAgents: options.offline ? [] : ['doc-offline'], orchestrator: { agentTimeoutMs: 20_000 } } },
  });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  return { editor, doc };
}

async function documentAction(editor: TestEditor, uri: string, needle: string): Promise<CodeAction> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
  return actions[0]!;
}

function run(editor: TestEditor, action: CodeAction, workDoneToken?: string): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments, ...(workDoneToken ? { workDoneToken } : {}) });
}

const WHOLE_FUNCTION_ANSWER = [
  'Here is the documented function:',
  '```ts',
  '/**',
  ' * Parses the configuration text and fills in defaults.',
  ' * @param text - The JSON text.',
  ' * @param defaults - Values used when the text leaves a key out.',
  ' * @returns The complete configuration.',
  ' * @throws {RangeError} When the timeout is negative.',
  ' */',
  'export function parseConfig(text: string): Config {',
  '  return { host: "evil", port: 1, timeoutMs: 0 };',
  '}',
  '```',
].join('\n');

describe('the OpenAI-compatible agent', () => {
  it('registers from OPENAI_API_KEY, OPENAI_BASE_URL and ASSISTANT_MODEL', async () => {
    const { editor } = await start({ offline: true });
    const { agents } = await editor.request<AgentsResult>('assistant/agents', {});
    const llm = agents.find((a) => a.isLLM);
    expect(llm).toMatchObject({ technology: 'llm', model: 'scripted-doc' });
    expect(llm!.tasks).toContain('document');
    expect(llm!.endpoint).toBe(new URL(model.baseURL).host);
    expect(agents.some((a) => a.name === 'doc-offline')).toBe(true);
  });

  it('lists code actions without calling the model', async () => {
    const { editor, doc } = await start();
    await documentAction(editor, doc.uri, 'parseConfig(text');
    await documentAction(editor, doc.uri, 'async load');
    expect(model.requests).toHaveLength(0);
  });

  it('inserts only the doc comment even when the model rewrites the function', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: WHOLE_FUNCTION_ANSWER });
    const result = await run(editor, await documentAction(editor, doc.uri, 'parseConfig(text'));
    expect(result.applied).toBe(true);
    const after = editor.buffer(doc.uri).text;
    expect(after).toContain(' * Parses the configuration text and fills in defaults.');
    expect(after).toContain(' * @throws {RangeError} When the timeout is negative.');
    expect(after).not.toContain('evil');
    expect(after).not.toContain('```');
    expect(after).toContain("throw new RangeError('timeoutMs must not be negative');");
    // The request carried the function's code and the model's name, streamed.
    const request = model.requests[0]!;
    expect(request.body.model).toBe('scripted-doc');
    expect(request.body.stream).toBe(true);
    expect(JSON.stringify(request.body.messages)).toContain('timeoutMs < 0');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, agent: { technology: 'llm', isLLM: true, model: 'scripted-doc' } });
  });

  it('asks the user to choose when two agents answer, and applies the choice', async () => {
    const { editor, doc } = await start({ offline: true });
    model.enqueue({ kind: 'text', content: '/** Loads the configuration from disk once and caches it.\n * @returns The configuration. */' });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title.includes('scripted-doc')) ?? null;
    const result = await run(editor, await documentAction(editor, doc.uri, 'async load'));
    expect(editor.questions).toHaveLength(1);
    const titles = editor.questions[0]!.actions!.map((a) => a.title);
    expect(titles).toEqual(['Use doc-offline', `Use scripted-doc@${new URL(model.baseURL).host}`, 'Discard']);
    expect(result.applied).toBe(true);
    expect(editor.buffer(doc.uri).text).toContain('Loads the configuration from disk once and caches it.');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const responses = trace.interactions[0]!.responses;
    expect(responses).toHaveLength(2);
    expect(responses.find((r) => r.agent.isLLM)!.used).toBe(true);
    expect(responses.find((r) => !r.agent.isLLM)!.used).toBe(false);
  });

  it('offers one action per agent to a client that cannot show a choice, and runs only the chosen agent', async () => {
    const { editor } = await TestEditor.start({
      root: copyFixture('basic'),
      env: modelEnv(),
      capabilities: { ...FULL_CAPABILITIES, window: { workDoneProgress: true } },
    });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    model.enqueue({ kind: 'text', content: '/** Loads the configuration once and caches it. */' });
    const position = editor.position(doc.uri, 'async load');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
    const host = new URL(model.baseURL).host;
    expect(actions.map((a) => a.title)).toEqual(['Assistant: Document method ConfigStore.load (doc-offline)', `Assistant: Document method ConfigStore.load (scripted-doc@${host})`]);
    const result = await run(editor, actions[1]!);
    expect(result.applied).toBe(true);
    expect(editor.questions).toHaveLength(0);
    expect(model.requests).toHaveLength(1);
    expect(editor.buffer(doc.uri).text).toContain('Loads the configuration once and caches it.');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses.map((r) => r.agent.name)).toEqual([`scripted-doc@${host}`]);
  });

  it('applies nothing when the user discards', async () => {
    const { editor, doc } = await start({ offline: true });
    model.enqueue({ kind: 'text', content: '/** Loads it. */' });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Discard') ?? null;
    const result = await run(editor, await documentAction(editor, doc.uri, 'async load'));
    expect(result).toMatchObject({ applied: false, outcome: 'discarded' });
    expect(editor.applied).toHaveLength(0);
    expect(editor.buffer(doc.uri).text).toBe(doc.text);
  });

  it('moves the edit onto text the user changed elsewhere while the model worked', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '/** Parses the configuration. */', delayMs: 150, chunkSize: 4 });
    const pending = run(editor, await documentAction(editor, doc.uri, 'parseConfig(text'));
    await model.waitForRequests(1);
    await editor.setText(doc.uri, `${doc.text}\n// the user typed at the end\n`);
    const result = await pending;
    expect(result.applied).toBe(true);
    const change = editor.applied[0]!.edit.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument.version).toBe(2);
    const after = editor.buffer(doc.uri).text;
    expect(after).toContain('// the user typed at the end');
    expect(after).toMatch(/\/\*\* Parses the configuration\. \*\/\n\/\/ @assistant [^\n]*\nexport function parseConfig/);
  });

  it('refuses, with a message, when the user changed the declaration while the model worked', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '/** Parses the configuration. */', delayMs: 150, chunkSize: 4 });
    const pending = run(editor, await documentAction(editor, doc.uri, 'parseConfig(text'));
    await model.waitForRequests(1);
    const changed = doc.text.replace('export function parseConfig(text: string', 'export function parseConfig(source: string');
    await editor.setText(doc.uri, changed);
    const result = await pending;
    expect(result).toMatchObject({ applied: false, outcome: 'stale' });
    expect(editor.applied).toHaveLength(0);
    expect(editor.buffer(doc.uri).text).toBe(changed);
    await until(() => editor.messages.some((m) => m.message.includes('changed in the editor')), 5000, 'the stale warning');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: false, outcome: 'stale' });
  });

  it('cancels with $/cancelRequest: answered promptly and the model request closed', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const action = await documentAction(editor, doc.uri, 'parseConfig(text');
    const source = new (await import('vscode-jsonrpc/node')).CancellationTokenSource();
    const pending = editor.connection.sendRequest('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments }, source.token);
    await model.waitForRequests(1);
    const cancelledAt = Date.now();
    source.cancel();
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    expect(Date.now() - cancelledAt).toBeLessThan(2000);
    const closedAt = await model.waitForClose(0, 2000);
    expect(closedAt - cancelledAt).toBeLessThan(200);
    expect(editor.applied).toHaveLength(0);
    // Still serving.
    expect((await editor.request<AgentsResult>('assistant/agents', {})).agents.length).toBeGreaterThan(0);
  });

  it('cancels from the progress report: the model request is closed', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const action = await documentAction(editor, doc.uri, 'parseConfig(text');
    const token = 'cancel-me';
    const pending = run(editor, action, token);
    await model.waitForRequests(1);
    const cancelledAt = Date.now();
    await editor.connection.sendNotification('window/workDoneProgress/cancel', { token });
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    const closedAt = await model.waitForClose(0, 2000);
    expect(closedAt - cancelledAt).toBeLessThan(200);
    expect(editor.applied).toHaveLength(0);
  });

  it('reports a clear error when the model fails, and applies nothing', async () => {
    const { editor, doc } = await start();
    model.setDefault({ kind: 'error', status: 401, message: 'invalid api key' });
    const result = await run(editor, await documentAction(editor, doc.uri, 'parseConfig(text'));
    expect(result.applied).toBe(false);
    expect(result.message).toMatch(/refused the API key/);
    expect(editor.applied).toHaveLength(0);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ status: 'error', used: false });
  });

  it('never turns a stream that stops halfway into an edit', async () => {
    const { editor, doc } = await start();
    model.setDefault({ kind: 'truncate', content: '/** Parses the configuration and more text that never ends', stopAfterChars: 20 });
    const result = await run(editor, await documentAction(editor, doc.uri, 'parseConfig(text'));
    expect(result.applied).toBe(false);
    expect(result.message).toMatch(/broke|halfway/);
    expect(editor.applied).toHaveLength(0);
  });
});
