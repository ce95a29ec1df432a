// End-to-end discards in the choice over --stdio: a command's Discard, and assistant/discard after assistant/ask, recorded in the trace for the server and the trace command alike.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, DiscardResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { BIN, TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** A server on `root` with the scripted model as a second agent beside the offline ones. */
async function withModel(root: string): Promise<{ editor: TestEditor; model: ScriptedModel }> {
  const model = await startScriptedModel();
  models.push(model);
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted' },
    initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } },
  });
  editors.push(editor);
  return { editor, model };
}

async function offlineOnly(root = copyFixture('basic')): Promise<TestEditor> {
  const { editor } = await TestEditor.start({ root });
  editors.push(editor);
  return editor;
}

async function traced(editor: TestEditor, id: string) {
  return (await editor.request<TraceResult>('assistant/trace', { id })).interactions[0]!;
}

/** Runs the built `assistant-ls trace` in `cwd`, as from a terminal. */
function traceCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'trace', ...args], { cwd, env: { ...process.env, TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a Discard in the server’s choice', () => {
  it('records the offered answers as discarded, whether the user picks Discard or dismisses the choice', async () => {
    const { editor, model } = await withModel(copyFixture('explain'));
    const doc = await editor.open('src/parser.ts');
    const position = editor.position(doc.uri, 'parseEntries(text');
    const explain = async (): Promise<TaskCommandResult> => {
      model.enqueue({ kind: 'text', content: '`parseEntries` reads `key=value` lines into entries.' });
      const [action] = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['assistant.explain'] } });
      return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
    };

    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Discard') ?? null;
    const picked = await explain();
    expect(picked).toMatchObject({ applied: false, outcome: 'discarded' });
    expect(editor.questions).toHaveLength(1);
    editor.onQuestion = () => null;
    const dismissed = await explain();
    expect(dismissed).toMatchObject({ applied: false, outcome: 'discarded' });

    for (const result of [picked, dismissed]) {
      const interaction = await traced(editor, result.interactionId);
      expect(interaction.responses).toHaveLength(2);
      for (const response of interaction.responses) {
        expect(response).toMatchObject({ status: 'ok', used: false, outcome: 'discarded', outcomeReason: 'None of the answers was chosen; nothing was applied.', choiceDiscardedAt: expect.any(String) });
      }
    }
    // Asked for what the user turned down, the trace lists them as not used.
    const unused = await editor.request<TraceResult>('assistant/trace', { used: false, task: 'explain' });
    expect(unused.interactions.map((i) => i.id).sort()).toEqual([picked.interactionId, dismissed.interactionId].sort());
  });
});

describe('assistant/discard', () => {
  it('marks both answers of an assistant/ask discarded, once, for the server, a later session and the trace command', async () => {
    const root = copyFixture('basic');
    const { editor, model } = await withModel(root);
    model.enqueue({ kind: 'text', content: '/** Parses the configuration text. */' });
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document parseConfig', textDocument: { uri: doc.uri } });
    expect(answer.responses.filter((r) => r.edit).map((r) => r.agent.technology).sort()).toEqual(['llm', 'rule']);

    const first = await editor.request<DiscardResult>('assistant/discard', { interactionId: answer.interactionId });
    expect(first).toEqual({ discarded: true, outcome: 'discarded', message: 'Discarded the 2 answers; nothing was applied.' });
    const interaction = await traced(editor, answer.interactionId);
    const at = interaction.responses.map((r) => r.choiceDiscardedAt);
    expect(at.every((one) => typeof one === 'string')).toBe(true);
    expect(interaction.responses.map((r) => r.outcome)).toEqual(['discarded', 'discarded']);

    // Said again (a client that retries), it writes nothing and keeps the first time.
    const again = await editor.request<DiscardResult>('assistant/discard', { interactionId: answer.interactionId });
    expect(again).toMatchObject({ discarded: true, outcome: 'already-discarded' });
    expect((await traced(editor, answer.interactionId)).responses.map((r) => r.choiceDiscardedAt)).toEqual(at);
    expect(editor.applied).toHaveLength(0);
    expect(await editor.shutdownAndExit()).toBe(0);

    const later = await offlineOnly(root);
    expect((await traced(later, answer.interactionId)).responses.map((r) => [r.outcome, r.choiceDiscardedAt])).toEqual(at.map((one) => ['discarded', one]));
    expect(await later.shutdownAndExit()).toBe(0);

    const list = await traceCli([], root);
    expect(list.stderr).toBe('');
    const line = list.stdout.split('\n').find((one) => one.startsWith(answer.interactionId.slice(0, 8)));
    expect(line).toMatch(/ document +doc-offline,scripted@\S+ +src\/config\.ts:\d+ +discarded +document parseConfig$/);
    const shown = await traceCli(['show', answer.interactionId.slice(0, 8)], root);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\n {2}Outcome {3}discarded\n/);
    expect(shown.stdout.match(/After {5}discarded: None of the answers was chosen; nothing was applied\./g)).toHaveLength(2);
  });

  it('leaves an interaction whose answer was applied as it is, and says so', async () => {
    const editor = await offlineOnly();
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document parseConfig', textDocument: { uri: doc.uri } });
    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    expect(applied.applied).toBe(true);
    const refused = await editor.request<DiscardResult>('assistant/discard', { interactionId: answer.interactionId });
    expect(refused).toEqual({ discarded: false, outcome: 'used', message: 'The answer of doc-offline was already applied, so the interaction is not marked discarded.' });
    const interaction = await traced(editor, answer.interactionId);
    expect(interaction.responses[0]).toMatchObject({ used: true, outcome: 'applied' });
    expect(interaction.responses[0]!.choiceDiscardedAt).toBeUndefined();
  });

  it('refuses malformed params with -32602 and an unknown interaction with -32010, naming the field', async () => {
    const editor = await offlineOnly();
    await expect(editor.request('assistant/discard', {})).rejects.toMatchObject({ code: -32602, message: 'assistant/discard: "interactionId" does not have the expected type.' });
    await expect(editor.request('assistant/discard', { interactionId: 7 })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/discard', ['x'])).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/discard', { interactionId: 'nope' })).rejects.toMatchObject({ code: -32010, message: 'No interaction nope in the trace.' });
    // An interaction with no answer (a request that matched no task) has nothing to discard.
    const none = await editor.request<AskResult>('assistant/ask', { text: 'book me a table for two' });
    expect(await editor.request<DiscardResult>('assistant/discard', { interactionId: none.interactionId })).toEqual({ discarded: false, outcome: 'no-answer', message: 'This interaction has no answer to discard.' });
  });
});
