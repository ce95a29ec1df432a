// Labels of answers in the choice list and in `assistant/ask`, over --stdio: one line of plain text each, never markdown or a code fence.
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, TaskCommandResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** A model's explanation that opens with the code it talks about, as models often answer. */
const FENCED_FIRST = ['```ts', 'export function parseEntries(text: string, strict = false): Entry[] {', '```', '', '**`parseEntries`** reads `key=value` lines into entries.'].join('\n');

async function start() {
  const model = await startScriptedModel();
  models.push(model);
  const { editor } = await TestEditor.start({
    root: copyFixture('explain'),
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-explain' },
    initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } },
  });
  editors.push(editor);
  const doc = await editor.open('src/parser.ts');
  return { editor, doc, model, host: new URL(model.baseURL).host };
}

describe('labels of answers', () => {
  it('lists each answer in the choice list by its first line of prose, as plain text', async () => {
    const { editor, doc, model, host } = await start();
    model.enqueue({ kind: 'text', content: FENCED_FIRST });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Discard') ?? null;
    const position = editor.position(doc.uri, 'parseEntries(text');
    const [action] = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['assistant.explain'] } });
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
    expect(result.outcome).toBe('discarded');
    const lines = editor.questions[0]!.message.split('\n');
    expect(lines.slice(1)).toEqual(['1. explain-offline: function parseEntries in src/parser.ts, lines 15–28 (exported).', `2. scripted-explain@${host}: parseEntries reads key=value lines into entries.`]);
  });

  it('gives each response of assistant/ask a plain one-line summary for pickers', async () => {
    const { editor, doc, model, host } = await start();
    model.enqueue({ kind: 'text', content: FENCED_FIRST });
    const position = editor.position(doc.uri, 'parseEntries(text');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'explain this function', task: 'explain', textDocument: { uri: doc.uri }, range: { start: position, end: position } });
    expect(answer.task).toBe('explain');
    const summaries = Object.fromEntries(answer.responses.map((r) => [r.agent.name, r.summary]));
    expect(summaries).toEqual({ 'explain-offline': 'function parseEntries in src/parser.ts, lines 15–28 (exported).', [`scripted-explain@${host}`]: 'parseEntries reads key=value lines into entries.' });
    // The text itself is unchanged: only its label is plain.
    expect(answer.responses.find((r) => r.agent.isLLM)!.text).toContain('**`parseEntries`**');
  });
});
