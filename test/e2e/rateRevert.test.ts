// End-to-end assistant/rate and assistant/revert: ratings recorded (across sessions too), reverts restoring the text or refusing.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplyResult, AskResult, RateResult, RevertResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

async function start(root = copyFixture('basic')) {
  const { editor } = await TestEditor.start({ root });
  editors.push(editor);
  return editor;
}

async function askAndApply(editor: TestEditor, uri: string, text: string): Promise<{ interactionId: string; responseId: string }> {
  const answer = await editor.request<AskResult>('assistant/ask', { text, textDocument: { uri } });
  const responseId = answer.responses[0]!.id;
  const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId });
  expect(applied.applied).toBe(true);
  return { interactionId: answer.interactionId, responseId };
}

describe('assistant/rate', () => {
  it('records a rating and a comment, withdraws it, and rates an earlier session\'s response', async () => {
    const root = copyFixture('basic');
    const editor = await start(root);
    const doc = await editor.open('src/config.ts');
    const { interactionId, responseId } = await askAndApply(editor, doc.uri, 'document parseConfig');
    expect(await editor.request<RateResult>('assistant/rate', { interactionId, responseId, rating: 'down', comment: 'misses the default port' })).toEqual({ interactionId, responseId, rating: 'down' });
    let trace = await editor.request<TraceResult>('assistant/trace', { id: interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ rating: 'down', feedback: ['misses the default port'] });
    await editor.request('assistant/rate', { interactionId, responseId, rating: null });
    trace = await editor.request<TraceResult>('assistant/trace', { id: interactionId });
    expect(trace.interactions[0]!.responses[0]!.rating).toBeUndefined();
    expect(await editor.shutdownAndExit()).toBe(0);

    const later = await start(root);
    await later.request('assistant/rate', { interactionId, responseId, rating: 'up' });
    trace = await later.request<TraceResult>('assistant/trace', { id: interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ rating: 'up', feedback: ['misses the default port'] });
  });

  it('rejects bad ratings and unknown ids', async () => {
    const editor = await start();
    await expect(editor.request('assistant/rate', { interactionId: 'x', responseId: 'y', rating: 'meh' })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/rate', { interactionId: 'x', responseId: 'y', rating: 'up' })).rejects.toMatchObject({ code: -32010 });
  });
});

describe('assistant/revert', () => {
  it('restores the exact text, and refuses a second time', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const original = doc.text;
    const { interactionId } = await askAndApply(editor, doc.uri, 'document parseConfig');
    expect(editor.buffer(doc.uri).text).not.toBe(original);
    const result = await editor.request<RevertResult>('assistant/revert', { interactionId });
    expect(result).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(editor.buffer(doc.uri).text).toBe(original);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: interactionId });
    expect(trace.interactions[0]!.responses[0]!.revertedAt).toBeDefined();
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId })).toMatchObject({ reverted: false, outcome: 'already-reverted' });
  });

  it('puts back the comment a completion replaced, after the code moved', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const withDoc = doc.text.replace('export function parseConfig', '/** Reads it. */\nexport function parseConfig');
    await editor.setText(doc.uri, withDoc);
    const { interactionId } = await askAndApply(editor, doc.uri, 'document parseConfig');
    const completed = editor.buffer(doc.uri).text;
    expect(completed).not.toContain('/** Reads it. */');
    await editor.setText(doc.uri, `// moved down by a line\n${completed}`);
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId })).toMatchObject({ reverted: true });
    expect(editor.buffer(doc.uri).text).toBe(`// moved down by a line\n${withDoc}`);
  });

  it('refuses when the inserted code was edited, and when nothing was applied', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const { interactionId } = await askAndApply(editor, doc.uri, 'document parseConfig');
    const edited = editor.buffer(doc.uri).text.replace('@param text', '@param text - my own words');
    await editor.setText(doc.uri, edited);
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId })).toMatchObject({ reverted: false, outcome: 'changed' });
    expect(editor.buffer(doc.uri).text).toBe(edited);

    const unapplied = await editor.request<AskResult>('assistant/ask', { text: 'document firstOf', textDocument: { uri: doc.uri } });
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId: unapplied.interactionId })).toMatchObject({ reverted: false, outcome: 'not-applied' });
    await expect(editor.request('assistant/revert', { interactionId: 'nope' })).rejects.toMatchObject({ code: -32010 });
  });
});

describe('assistant.showInteraction', () => {
  it('is offered on annotated code and opens a markdown report of the interaction', async () => {
    const editor = await start();
    const doc = await editor.open('src/config.ts');
    const at = editor.position(doc.uri, 'JSON.parse');
    const listAt = () => editor.request<{ title: string; command?: { command: string; arguments: unknown[] } }[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
    expect((await listAt()).map((a) => a.title)).not.toContain('Assistant: Show the interaction behind this code');
    const { interactionId } = await askAndApply(editor, doc.uri, 'document parseConfig');
    const action = (await listAt()).find((a) => a.title === 'Assistant: Show the interaction behind this code');
    expect(action?.command?.command).toBe('assistant.showInteraction');
    const result = await editor.request<{ interactionIds: string[]; reportUri: string }>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
    expect(result.interactionIds).toEqual([interactionId]);
    expect(editor.shownDocuments).toEqual([result.reportUri]);
    const report = fs.readFileSync(fileURLToPath(result.reportUri), 'utf8');
    expect(report).toContain(interactionId);
    expect(report).toContain('agent **doc-offline** (rule)');
    expect(report).toContain('@param text');
  });
});
