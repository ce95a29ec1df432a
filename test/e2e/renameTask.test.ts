// End-to-end Rename through the built server: ask and apply over three files, the command with a new name, a refused name, and names suggested by a model.
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, TaskCommandArgs, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import type { Buffer } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function start(env?: Record<string, string>) {
  const { editor } = await TestEditor.start({ root: copyFixture('rename'), ...(env ? { env } : {}), initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } } });
  editors.push(editor);
  // The test editor applies edits to open buffers only, as the rename touches three files, all three are open.
  const clamp = await editor.open('src/clamp.ts');
  const stats = await editor.open('src/stats.ts');
  const report = await editor.open('src/report.ts');
  return { editor, clamp, stats, report };
}

/** The three buffers after a rename of clampAll to `name`, checked line by line. */
function expectRenamed(editor: TestEditor, files: { clamp: Buffer; stats: Buffer; report: Buffer }, name: string): void {
  const clamp = editor.buffer(files.clamp.uri).text;
  expect(clamp).toContain(`export function ${name}(values: number[], range: Range): number[] {`);
  expect(clamp).toContain(`return ${name}(${name}(values, range), range);`);
  const stats = editor.buffer(files.stats.uri).text;
  expect(stats).toContain(`import { ${name} } from './clamp.js';`);
  expect(stats).toContain(`return ${name}(values, range);`);
  expect(stats).toContain(`export const helpers = { clampAll: ${name}, total };`);
  const report = editor.buffer(files.report.uri).text;
  expect(report).toContain(`import { ${name} as clampEvery } from './clamp.js';`);
  // Outside comments and the object's own property name, the old name is gone from every file.
  for (const text of [clamp, stats, report]) {
    const code = text.split('\n').filter((line) => !line.startsWith('//') && !line.includes('clampAll: '));
    expect(code.join('\n')).not.toMatch(/\bclampAll\b/);
  }
}

describe('Rename, offline', () => {
  it('"rename clampAll to clampValues" returns one edit over the three files, and assistant/apply applies it', async () => {
    const { editor, clamp, stats, report } = await start();
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'rename clampAll to clampValues', textDocument: { uri: stats.uri } });
    expect(answer.task).toBe('rename');
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response).toMatchObject({ status: 'ok', agent: { name: 'rename-offline', technology: 'rule' }, text: 'Rename clampAll to clampValues: 7 edits in 3 files' });
    const changes = response.edit!.documentChanges as TextDocumentEdit[];
    expect(changes.map((c) => c.textDocument.uri).sort()).toEqual([clamp.uri, report.uri, stats.uri].sort());
    expect(changes.reduce((sum, c) => sum + c.edits.length, 0)).toBe(7);
    // Nothing is applied until the user asks.
    expect(editor.applied).toHaveLength(0);

    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(applied).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.applied).toHaveLength(1);
    // One workspace edit, versioned for every buffer.
    const sent = editor.applied[0]!.edit.documentChanges as TextDocumentEdit[];
    expect(sent.map((c) => c.textDocument.version)).toEqual([1, 1, 1]);
    expectRenamed(editor, { clamp, stats, report }, 'clampValues');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.responses[0]!.used).toBe(true);
  });

  it('workspace/executeCommand assistant.rename with parameters.newName renames everywhere', async () => {
    const { editor, clamp, stats, report } = await start();
    const position = editor.position(clamp.uri, 'clampAll(values');
    const args: TaskCommandArgs = { textDocument: { uri: clamp.uri, version: 1 }, range: { start: position, end: position }, symbol: 'clampAll', parameters: { newName: 'clampValues' } };
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: 'assistant.rename', arguments: [args] });
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.questions).toHaveLength(0);
    expectRenamed(editor, { clamp, stats, report }, 'clampValues');
  });

  it('"rename clampAll to class" gives no edit and says why', async () => {
    const { editor, clamp } = await start();
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'rename clampAll to class', textDocument: { uri: clamp.uri } });
    expect(answer.task).toBe('rename');
    expect(answer.responses).toHaveLength(1);
    expect(answer.responses[0]!.edit).toBeUndefined();
    expect(answer.responses[0]!.error).toBe('cannot rename clampAll to class: `class` is a reserved word in JavaScript and cannot name a function');
    expect(answer.message).toContain('`class` is a reserved word');
    expect(editor.applied).toHaveLength(0);
  });

  it('does not offer "Suggest a better name" without a model, and the command without a new name says how to give one', async () => {
    const { editor, clamp } = await start();
    const position = editor.position(clamp.uri, 'clampAll(values');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: clamp.uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
    expect(actions.map((a) => a.title)).not.toContain('Assistant: Suggest a better name for clampAll');
    const args = { textDocument: { uri: clamp.uri, version: 1 }, range: { start: position, end: position }, symbol: 'clampAll' };
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: 'assistant.rename', arguments: [args] });
    expect(result.applied).toBe(false);
    expect(result.message).toContain('the offline agent needs a new name: use assistant/ask "rename clampAll to <new name>"');
  });
});

describe('Rename, with a model', () => {
  it('suggests names from two prompts, the second without the old name, and applies the chosen one everywhere', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const { editor, clamp, stats, report } = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-rename' });
    model.enqueue({ kind: 'text', content: 'clampValues\nclampEach' }, { kind: 'text', content: '1. boundValues\n2. clampValues' });
    const position = editor.position(clamp.uri, 'clampAll(values');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: clamp.uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
    // Listing actions never calls the model.
    expect(model.requests).toHaveLength(0);
    const action = actions.find((a) => a.title === 'Assistant: Suggest a better name for clampAll')!;
    editor.onQuestion = (params) => params.actions?.[0] ?? null;
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });

    expect(model.requests).toHaveLength(2);
    const prompt = (i: number): string => JSON.stringify(model.requests[i]!.body.messages);
    expect(prompt(0)).toContain('clampAll');
    expect(prompt(1)).not.toContain('clampAll');
    expect(prompt(1)).toContain('__NAME__');

    // The user chose among the suggested names.
    expect(editor.questions).toHaveLength(1);
    const question = editor.questions[0]!;
    expect(question.message).toContain('3 answers for clampAll');
    for (const name of ['clampValues', 'boundValues', 'clampEach']) expect(question.message).toContain(`Rename clampAll to ${name}: 7 edits in 3 files`);
    expect(question.actions!.at(-1)!.title).toBe('Discard');

    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expectRenamed(editor, { clamp, stats, report }, 'clampValues');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const responses = trace.interactions[0]!.responses;
    expect(responses.filter((r) => r.agent.isLLM).map((r) => r.text.split('\n')[0])).toEqual([
      'Rename clampAll to clampValues: 7 edits in 3 files',
      'Rename clampAll to boundValues: 7 edits in 3 files',
      'Rename clampAll to clampEach: 7 edits in 3 files',
    ]);
    expect(responses.find((r) => r.used)!.text).toMatch(/^Rename clampAll to clampValues/);
    expect(responses.find((r) => r.agent.name === 'rename-offline')!.error).toContain('needs a new name');
  });
});
