// Huge and degenerate input over --stdio: megabyte requests of one repeated shape are answered, larger ones refused with a clear error, and the server keeps serving code actions.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, TaskCommandResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { RawServer, frame } from '../support/rawLsp.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

const MEGABYTE = 1_000_000;
/**
 * Runs of one shape that made a pattern retry from every position (a run of letters, an uppercase run, blanks,
 * blank lines, backticks, parentheses, dotted words): each pattern that reads user text must take them in one pass.
 * Nothing here times the answers: a pattern that is quadratic again takes hours on a megabyte, past the test's limit.
 */
const SHAPES = ['x', 'xX', 'X', ' ', '\n', '`', '(', 'a.b ', 'x1', '"a":', '?a=', 'token ', 'x=', '/x', ' \n'];

function repeated(shape: string, length: number): string {
  return shape.repeat(Math.ceil(length / shape.length)).slice(0, length);
}

async function codeActionsAnswered(editor: TestEditor, uri: string): Promise<void> {
  const at = editor.position(uri, 'parseConfig(');
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
  expect(actions.map((a) => a.title)).toContain('Assistant: Document function parseConfig');
}

describe('huge input', () => {
  it('answers a megabyte request of every degenerate shape, and code actions between them', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    for (const shape of SHAPES) {
      // The last character makes a run of blanks a request with words in it.
      const asked = await editor.request<AskResult>('assistant/ask', { text: `${repeated(shape, MEGABYTE)}x` });
      expect(asked.task, JSON.stringify(shape)).toBe('none');
      await codeActionsAnswered(editor, doc.uri);
    }
  });

  it('refuses a request over the limit with a clear error and goes on serving', async () => {
    const server = RawServer.spawn({ root: copyFixture('basic') });
    try {
      expect((await server.initialize()).error).toBeUndefined();
      const id = 'too-big';
      server.writeBytes(frame({ jsonrpc: '2.0', id, method: 'assistant/ask', params: { text: 'x'.repeat(3 * MEGABYTE) } }));
      const refused = await server.response(id, 20_000);
      expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('over the 2 MiB limit for one request') });
      // A document that large is fine: it comes in a notification.
      const { uri } = server.open('src/big.ts', `export const text = "${'x'.repeat(3 * MEGABYTE)}";\n/** Reads it. */\nexport function readText(): string {\n  return text;\n}\n`);
      const answered = await server.call('textDocument/codeAction', { textDocument: { uri }, range: { start: { line: 2, character: 17 }, end: { line: 2, character: 17 } }, context: { diagnostics: [] } }, 20_000);
      expect(answered.error).toBeUndefined();
    } finally {
      await server.dispose();
    }
  });

  it('explains code holding a megabyte run inside a string, and takes a model answer of a megabyte of backticks', async () => {
    const model = await startScriptedModel();
    models.push(model);
    model.setDefault({ kind: 'text', content: repeated('`', MEGABYTE), chunkSize: 65_536 });
    const root = copyFixture('basic');
    fs.writeFileSync(path.join(root, 'src', 'long.ts'), `const filler = "${'a'.repeat(MEGABYTE)}";\n\n/** The filler's length, doubled, then halved. */\nexport function fillerLength(): number {\n  const twice = filler.length * 2;\n  const half = twice / 2;\n  return half;\n}\n`);
    const { editor } = await TestEditor.start({
      root,
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-huge' },
      initializationOptions: { assistant: { annotations: { enabled: false }, orchestrator: { agentTimeoutMs: 20_000 } } },
    });
    editors.push(editor);
    const doc = await editor.open('src/long.ts');
    const explained = await editor.request<AskResult>('assistant/ask', { text: 'explain fillerLength', textDocument: { uri: doc.uri }, position: editor.position(doc.uri, 'fillerLength(') });
    expect(explained.task).toBe('explain');
    expect(explained.responses.some((r) => r.status === 'ok')).toBe(true);
    const at = editor.position(doc.uri, 'fillerLength(');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
    const optimize = actions.find((a) => /^Assistant: Optimize/.test(a.title))!;
    const optimized = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: optimize.command!.command, arguments: optimize.command!.arguments });
    expect(optimized).toMatchObject({ applied: false });
  });
});
