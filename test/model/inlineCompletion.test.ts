// Inline completion with the real local model over --stdio: its infill (the test model has FIM tokens) gives a well-formed item, or the log names why none came.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InlineCompletionItem, InlineCompletionList } from 'vscode-languageserver-protocol';
import type { AcceptCompletionResult, TraceResult } from '../../protocol/src/index.js';
import { FULL_CAPABILITIES, TestEditor, copyFixture } from '../support/lspClient.js';
import { testModelPath } from './testModel.js';

const modelPath = testModelPath();
let editor: TestEditor;
let root: string;

beforeAll(async () => {
  if (!modelPath) return;
  root = copyFixture('completion');
  ({ editor } = await TestEditor.start({
    root,
    capabilities: { ...FULL_CAPABILITIES, textDocument: { ...FULL_CAPABILITIES.textDocument, inlineCompletion: {} } },
    initializationOptions: { assistant: { useEnvironment: false, agents: [{ name: 'local', modelPath, threads: 1, contextSize: 2048, temperature: 0 }], completion: { debounceMs: 0, maxTokens: 32 } } },
  }));
}, 60_000);

afterAll(async () => {
  await editor?.dispose();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!modelPath)('inline completion with the real local model', () => {
  it('completes mid-line through infill, and the acceptance is found from the code', async () => {
    const doc = await editor.open('src/main.ts');
    // Opening the document starts loading the model, before any completion is asked for.
    const started = Date.now();
    while (!editor.logs.some((l) => l.startsWith('inline completion by local: ')) && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 100));
    expect(editor.logs.find((l) => l.startsWith('inline completion by local: '))).toMatch(/^inline completion by local: the model is loaded \(\d+ ms\)$/);
    await editor.setText(doc.uri, doc.text.replace('ADD', ''));
    const at = editor.position(doc.uri, 'values.reduce(', 'values.reduce('.length);
    const list = await editor.request<InlineCompletionList>('textDocument/inlineCompletion', { textDocument: { uri: doc.uri }, position: at, context: { triggerKind: 1 } });
    if (list.items.length === 0) {
      // No ghost text is a legitimate answer only with a reason the server gave.
      expect(editor.logs.filter((l) => l.startsWith('inline completion by local')), 'an empty list needs a logged reason').not.toHaveLength(0);
      return;
    }
    const item = list.items[0] as InlineCompletionItem;
    const text = item.insertText as string;
    expect(text.trim()).not.toBe('');
    // Mid-line: one line, and not ending in the `, 0);` the line already holds.
    expect(text).not.toContain('\n');
    expect(text.trimEnd().endsWith(', 0);')).toBe(false);
    expect(item.range).toEqual({ start: at, end: at });
    expect(item.command?.arguments?.[0]).toMatchObject({ agent: 'local', mode: 'infill' });
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace('values.reduce(', `values.reduce(${text}`));
    const accepted = await editor.request<AcceptCompletionResult>('workspace/executeCommand', { command: item.command!.command, arguments: item.command!.arguments });
    const found = await editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: { line: at.line, character: at.character + 1 } });
    expect(found.interactions.map((i) => i.id)).toContain(accepted.interactionId);
  });
});
