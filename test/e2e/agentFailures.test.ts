// Over --stdio: each agent's failure named in a user's words, progress counted over all of a task's agents, a cancelled run recorded as such.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, AssistantSettings, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { RESOLVE_CAPABILITIES, TestEditor, copyFixture, until } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptStep, ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, expectModelAtWork, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';

let model: ScriptedModel;
const editors: TestEditor[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model.close();
});

const WARNING = 2;
/** An answer the Document task refuses: code, and no comment. */
const CODE_ONLY = '```ts\nasync load(): Promise<Config> {\n  return this.cached;\n}\n```';

/** The editor with the offline agents and the given model agents on the scripted endpoint. */
async function start(agents: AssistantSettings['agents'], options: { orchestrator?: Partial<AssistantSettings['orchestrator']>; resolve?: boolean; disabledAgents?: string[] } = {}) {
  const { editor } = await TestEditor.start({
    root: copyFixture('basic'),
    ...(options.resolve ? { capabilities: RESOLVE_CAPABILITIES } : {}),
    initializationOptions: { assistant: { agents, useEnvironment: false, orchestrator: { agentTimeoutMs: 20_000, maxAttempts: 1, ...options.orchestrator }, ...(options.disabledAgents ? { disabledAgents: options.disabledAgents } : {}) } },
  });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  return { editor, doc };
}

async function documentLoad(editor: TestEditor, uri: string): Promise<CodeAction> {
  const position = editor.position(uri, 'async load');
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
  const action = actions.find((a) => a.title.startsWith('Assistant: Document'));
  if (!action) throw new Error(`no Document action: ${actions.map((a) => a.title).join(', ')}`);
  return action;
}

function run(editor: TestEditor, action: CodeAction, workDoneToken?: string): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments, ...(workDoneToken ? { workDoneToken } : {}) });
}

/** The messages of the reports on one progress token, in order. */
function reports(editor: TestEditor, token: string): string[] {
  return editor.progress.filter((p) => p.token === token && p.value.kind === 'report').map((p) => p.value.message ?? '');
}

describe('failed agents are named', () => {
  it('keeps the text of an answer cut off at the token limit in the trace, and still counts it as failed', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini', { maxRetries: 0 })]);
    model.setDefault({ kind: 'text', content: '/**\n * Loads the configuration from', finishReason: 'length' });
    const result = await run(editor, await documentLoad(editor, doc.uri));
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const cut = trace.interactions[0]!.responses.find((r) => r.agent.name === 'gpt-4o-mini')!;
    expect(cut).toMatchObject({ status: 'error', error: 'the answer was cut off at the model’s token limit', text: '/**\n * Loads the configuration from', used: false });
    await until(() => editor.messages.some((m) => m.type === WARNING), 15_000, 'the warning');
    expect(editor.messages).toContainEqual({ type: WARNING, message: 'Used the answer of doc-offline; gpt-4o-mini failed: the answer was cut off at the model’s token limit.' });
  });

  it('keeps the whole sections of a markdown answer cut off at the token limit, as the tags they stand for', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini', { maxRetries: 0 })]);
    // What a small local model writes: markdown sections instead of tags, then a retelling of the code cut off midway.
    const content = '**Purpose**: Loads the configuration once and keeps it for later calls.\n\n**Returns**: A promise of the configuration.\n\n**Behaviour**:\n- It reads the file the first ti';
    model.setDefault({ kind: 'text', content, finishReason: 'length' });
    const result = await run(editor, await documentLoad(editor, doc.uri));
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const kept = trace.interactions[0]!.responses.find((r) => r.agent.name === 'gpt-4o-mini')!;
    expect(kept).toMatchObject({ status: 'ok', text: '/**\n * Loads the configuration once and keeps it for later calls.\n *\n * @returns A promise of the configuration.\n */' });
  });

  it('says an offline agent with nothing true to add declined, not that it failed', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')]);
    model.setDefault({ kind: 'text', content: '/** The first item, else the fallback. */' });
    await editor.setText(doc.uri, `${doc.text}\nexport function same(value: string): string {\n  return value;\n}\n`);
    const position = editor.position(doc.uri, 'same(value');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
    const result = await run(editor, actions.find((a) => a.title.startsWith('Assistant: Document'))!);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    await until(() => editor.messages.some((m) => m.type === WARNING), 15_000, 'the warning');
    expect(editor.messages).toEqual([{ type: WARNING, message: expect.stringMatching(/^Used the answer of gpt-4o-mini; doc-offline declined: nothing true to add to the signature of same/) }]);
  });

  it('applies the offline answer beside a model that answers 401, and warns naming the model and the 401', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')]);
    model.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided: sk-test' });
    const result = await run(editor, await documentLoad(editor, doc.uri));
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.questions).toEqual([]);
    await until(() => editor.messages.some((m) => m.type === WARNING), 15_000, 'the warning');
    expect(editor.messages).toContainEqual({ type: WARNING, message: 'Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).' });
    // The short reason is what the user reads; the endpoint's own words stay in the trace.
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'error', error: 'the endpoint refused the API key (401)', errorDetail: expect.stringContaining('Incorrect API key provided') });
  });

  it('lists every failed agent with its reason in the choice, offers only the usable answers, and warns once one is applied', async () => {
    const agents = [scriptedAgent(model, 'gpt-4o-mini'), scriptedAgent(model, 'local'), scriptedAgent(model, 'broken', { stream: false }), scriptedAgent(model, 'wordy')];
    // The budget ends the stalled agent; it is long enough for the others' answers on a busy machine.
    const { editor, doc } = await start(agents, { orchestrator: { agentTimeoutMs: 4000 } });
    const steps: Record<string, ScriptStep> = {
      'gpt-4o-mini': { kind: 'text', content: LOAD_DOC },
      local: { kind: 'stall', afterHeaders: true },
      broken: { kind: 'garbage' },
      wordy: { kind: 'text', content: CODE_ONLY },
    };
    model.setDefault(taskSteps((agent) => steps[agent] ?? { kind: 'error', status: 500 }));
    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Use gpt-4o-mini') ?? null;
    const result = await run(editor, await documentLoad(editor, doc.uri));
    expect(result.applied).toBe(true);
    expect(editor.questions).toHaveLength(1);
    const question = editor.questions[0]!;
    expect(question.actions!.map((a) => a.title)).toEqual(['Use doc-offline', 'Use gpt-4o-mini', 'Discard']);
    const failures = ['local failed: no answer within 4 s (orchestrator.agentTimeoutMs)', 'broken failed: the endpoint’s answer could not be read', 'wordy failed: the answer holds no documentation comment'];
    expect(question.message.split('\n').slice(-3)).toEqual(failures);
    await until(() => editor.messages.some((m) => m.type === WARNING), 15_000, 'the warning');
    expect(editor.messages).toContainEqual({ type: WARNING, message: `Used the answer of gpt-4o-mini; ${failures.join('; ')}.` });
    expect(editor.buffer(doc.uri).text).toContain('Loads the configuration from disk once and caches it.');
  });

  it('names the failure in assistant/ask’s message and the failed response’s error, and warns when the other answer is applied', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')]);
    model.setDefault({ kind: 'error', status: 401 });
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'write documentation for the load method', textDocument: { uri: doc.uri }, task: 'document' });
    expect(answer.message).toBe('1 candidate for document on ConfigStore.load; apply one with assistant/apply. gpt-4o-mini failed: the endpoint refused the API key (401).');
    expect(answer.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'error', error: 'the endpoint refused the API key (401)' });
    const offline = answer.responses.find((r) => r.agent.name === 'doc-offline')!;
    expect(editor.messages).toEqual([]);
    await editor.request('assistant/apply', { interactionId: answer.interactionId, responseId: offline.id });
    await until(() => editor.messages.length > 0, 15_000, 'the warning');
    expect(editor.messages).toEqual([{ type: WARNING, message: 'Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).' }]);
  });

  it('warns once the client applied a resolved code action’s edit', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')], { resolve: true });
    model.setDefault({ kind: 'error', status: 403 });
    const position = editor.position(doc.uri, 'async load');
    const [action] = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
    const resolved = await editor.request<CodeAction>('codeAction/resolve', action);
    expect(resolved.edit).toBeDefined();
    expect(editor.messages).toEqual([]);
    await editor.request('workspace/executeCommand', resolved.command);
    await until(() => editor.messages.length > 0, 15_000, 'the warning');
    expect(editor.messages).toEqual([{ type: WARNING, message: 'Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (403).' }]);
  });
});

describe('progress over all of a task’s agents', () => {
  it('says "1 of 2 agents done" with the model’s line, what it has written and its seconds while it streams', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')]);
    // About 7 s of streaming, long after the offline agent is done even on a busy machine.
    model.setDefault({ kind: 'text', content: LOAD_DOC, chunkSize: 6, delayMs: 450 });
    // The user reads the choice for a moment before taking one.
    editor.onQuestion = async (params) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return params.actions!.find((a) => a.title === 'Use gpt-4o-mini') ?? null;
    };
    const result = await run(editor, await documentLoad(editor, doc.uri), 'slow');
    expect(result.applied).toBe(true);
    const messages = reports(editor, 'slow');
    // The model's seconds go on while it works, and so does what it has written: two of each at least, in order.
    const written = expectModelAtWork(messages, /^1 of 2 agents done · gpt-4o-mini: (?:(\d+) characters written, )?(\d+) s$/);
    expect(Math.max(...written)).toBeLessThanOrEqual(LOAD_DOC.length);
    // Never a count of one agent alone while another still works.
    expect(messages.every((m) => /^[01] of 2 agents done · /.test(m) || m === '2 of 2 agents done' || m === '2 answers ready: waiting for your choice' || m === 'applying the edit'), messages.join('\n')).toBe(true);
    // While the user chooses, the progress says so, not that the agents are done (which reads as work still going on).
    expect(messages.slice(-2), messages.join('\n')).toEqual(['2 answers ready: waiting for your choice', 'applying the edit']);
    // No percentage: half the agents done would stand at 50% for the whole of the model's answer.
    expect(editor.progress.filter((p) => p.token === 'slow' && p.value.percentage !== undefined)).toEqual([]);
  });

  it('gives a lone model agent’s line alone and no percentage: its seconds and what it has written move while it streams', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')], { disabledAgents: ['doc-offline'] });
    // About 7 s of streaming.
    model.setDefault({ kind: 'text', content: LOAD_DOC, chunkSize: 6, delayMs: 450 });
    const result = await run(editor, await documentLoad(editor, doc.uri), 'alone');
    expect(result.applied).toBe(true);
    const values = editor.progress.filter((p) => p.token === 'alone').map((p) => p.value);
    // An indeterminate progress: nothing measures how much of the answer is left, so no figure stands still for it.
    expect(values.filter((v) => v.percentage !== undefined)).toEqual([]);
    expect(values[0]).toEqual({ kind: 'begin', title: expect.stringMatching(/^Assistant: document/), cancellable: true });
    const messages = reports(editor, 'alone');
    // What moves instead: its seconds and what it has written, in order.
    expectModelAtWork(messages, /^gpt-4o-mini: (?:(\d+) characters written, )?(\d+) s$/);
    // The agent's own line, never a count of one.
    expect(messages.every((m) => /^gpt-4o-mini: /.test(m) || m === 'gpt-4o-mini done' || m === 'applying the edit'), messages.join('\n')).toBe(true);
  });

  it('keeps an agent running through a second attempt, saying so', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')], { orchestrator: { maxAttempts: 2 } });
    model.enqueue({ kind: 'text', content: CODE_ONLY, delayMs: 300 }, { kind: 'text', content: LOAD_DOC, chunkSize: 10, delayMs: 150 });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Use gpt-4o-mini') ?? null;
    const result = await run(editor, await documentLoad(editor, doc.uri), 'retry');
    expect(result.applied).toBe(true);
    expect(model.requests).toHaveLength(2);
    const messages = reports(editor, 'retry');
    expect(messages.some((m) => /^1 of 2 agents done · gpt-4o-mini: attempt 2 \(the last was rejected\), (?:\d+ characters written, )?\d s$/.test(m))).toBe(true);
  });
});

describe('a cancelled run', () => {
  it('closes the hung model’s request within 500 ms, applies nothing, and records the agents as cancelled', async () => {
    const { editor, doc } = await start([scriptedAgent(model, 'gpt-4o-mini')]);
    model.setDefault({ kind: 'stall', afterHeaders: true });
    const pending = run(editor, await documentLoad(editor, doc.uri), 'hung');
    await model.waitForRequests(1, 20_000);
    await until(() => reports(editor, 'hung').some((m) => m.startsWith('1 of 2 agents done')), 20_000, 'the offline agent done');
    const cancelledAt = Date.now();
    await editor.connection.sendNotification('window/workDoneProgress/cancel', { token: 'hung' });
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    expect((await model.waitForClose(0, 2000)) - cancelledAt).toBeLessThan(500);
    expect(editor.applied).toEqual([]);
    expect(editor.buffer(doc.uri).text).toBe(doc.text);
    // The progress ends cancelled, never claiming the stopped agent done.
    expect(reports(editor, 'hung')).not.toContain('2 of 2 agents done');
    expect(editor.progress.filter((p) => p.token === 'hung').at(-1)!.value).toEqual({ kind: 'end', message: 'cancelled' });
    const [interaction] = (await editor.request<TraceResult>('assistant/trace', { task: 'document' })).interactions;
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    expect(interaction!.responses.map((r) => [r.agent.name, r.status, r.used])).toEqual([
      ['doc-offline', 'ok', false],
      ['gpt-4o-mini', 'cancelled', false],
    ]);
  });
});
