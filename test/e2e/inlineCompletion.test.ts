// End-to-end inline completion over --stdio: fill-in-the-middle and the chat fallback against the scripted endpoint, supersession, the cache, trimming, and acceptance recorded in the trace.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InitializeResult, InlineCompletionItem, InlineCompletionList, Position } from 'vscode-languageserver-protocol';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import type { AcceptCompletionArgs, AcceptCompletionResult, TraceResult } from '../../protocol/src/index.js';
import { FULL_CAPABILITIES, TestEditor, copyFixture } from '../support/lspClient.js';
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

const SECRET = 'pk9Zq4Lm2Xv8Rt6Wn3Ys';
const IGNORED_VALUE = 'internal-billing-endpoint-7731';

async function start(completion: Record<string, unknown> = {}, options: { withModel?: boolean } = {}) {
  const env: Record<string, string> = options.withModel === false ? {} : { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
  const { editor, result } = await TestEditor.start({ root: copyFixture('completion'), env, initializationOptions: { assistant: { completion: { debounceMs: 0, ...completion } } } });
  editors.push(editor);
  const doc = await editor.open('src/main.ts');
  // The cursor goes where the placeholder was: `return values.reduce(|, 0);`.
  await editor.setText(doc.uri, doc.text.replace('ADD', ''));
  return { editor, doc, result };
}

function complete(editor: TestEditor, uri: string, position: Position, token?: CancellationTokenSource, triggerKind: 1 | 2 = 2): Promise<InlineCompletionList> {
  const params = { textDocument: { uri }, position, context: { triggerKind } };
  return token ? editor.connection.sendRequest<InlineCompletionList>('textDocument/inlineCompletion', params, token.token) : editor.request<InlineCompletionList>('textDocument/inlineCompletion', params);
}

const CURSOR = 'values.reduce(';
const SHOWS_INLINE = { ...FULL_CAPABILITIES, textDocument: { ...FULL_CAPABILITIES.textDocument, inlineCompletion: {} } };

describe('inline completion', () => {
  it('starts loading a local model that serves completions when a document opens, before any request', async () => {
    // A file that is no model: the load fails at once, and says so in the log, without a completion request.
    const root = copyFixture('completion');
    const modelPath = path.join(os.tmpdir(), `assistant-ls-broken-${process.pid}.gguf`);
    fs.writeFileSync(modelPath, 'not a model\n');
    const initializationOptions = { assistant: { useEnvironment: false, agents: [{ name: 'local', modelPath }], completion: { debounceMs: 0 } } };
    // A client that does not show inline completions (Helix today) has no model loaded for them.
    const { editor: other } = await TestEditor.start({ root, env: {}, initializationOptions });
    editors.push(other);
    await other.open('src/main.ts');
    const { editor } = await TestEditor.start({ root, env: {}, capabilities: SHOWS_INLINE, initializationOptions });
    editors.push(editor);
    await editor.open('src/main.ts');
    const started = Date.now();
    while (!editor.logs.some((l) => l.startsWith('inline completion by local: ')) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    expect(editor.logs.filter((l) => l.startsWith('inline completion by local: ')), editor.logs.join('\n')).toHaveLength(1);
    // Opening another document does not try again.
    await editor.open('src/util.ts');
    await new Promise((r) => setTimeout(r, 300));
    expect(editor.logs.filter((l) => l.startsWith('inline completion by local: '))).toHaveLength(1);
    expect(other.logs.filter((l) => l.startsWith('inline completion by local: '))).toHaveLength(0);
  });

  it('advertises inlineCompletionProvider', async () => {
    const { result } = await start();
    expect((result as InitializeResult).capabilities.inlineCompletionProvider).toBe(true);
  });

  it('fills in the middle through /v1/completions with prompt and suffix, no excluded file or secret', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v, 0);\n}\n\nexport function other() {' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const { items } = await complete(editor, doc.uri, at);
    expect(items).toHaveLength(1);
    const item = items[0] as InlineCompletionItem;
    // Cut to its line, and where it repeats the rest of the line (`, 0);`).
    expect(item.insertText).toBe('(sum, v) => sum + v');
    expect(item.range).toEqual({ start: at, end: at });
    expect(item.command?.command).toBe('assistant.acceptCompletion');
    const [request] = model.requests;
    expect(request?.path).toBe('/v1/completions');
    expect(request?.body.model).toBe('scripted-coder');
    expect(request?.body.prompt).toMatch(/return values\.reduce\($/);
    expect(request?.body.suffix).toMatch(/^, 0\);\n\}/);
    expect(request?.body.stop).toContain('\n');
    // The imported module's exports go with it; the ignored one's do not, nor the .env value the document holds.
    expect(request?.body.prompt).toContain('// Path: src/util.ts');
    expect(request?.body.prompt).toContain('export function clamp(value: number, min: number, max: number): number');
    expect(request?.rawBody).not.toContain(IGNORED_VALUE);
    expect(request?.rawBody).not.toContain(SECRET);
    expect(request?.body.prompt).toMatch(/\[redacted:[a-z0-9-]+(#\d+)?\]/);
  });

  it("says the server's own time around the model call in $/logTrace when the client's trace is on, and nothing when it is off", async () => {
    const { editor, doc } = await start();
    const traced: string[] = [];
    editor.connection.onNotification('$/logTrace', (params: { message: string }) => void traced.push(params.message));
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v' });
    expect((await complete(editor, doc.uri, at)).items).toHaveLength(1);
    await editor.connection.sendNotification('$/setTrace', { value: 'messages' });
    // A model that takes 300 ms: its time is the model's, not the server's.
    model.enqueue({ kind: 'text', content: '(total, v) => total + v', delayMs: 300 });
    await editor.setText(doc.uri, `${doc.text.replace('ADD', '')}\n`);
    expect((await complete(editor, doc.uri, at)).items).toHaveLength(1);
    expect(traced).toHaveLength(1);
    const [, own, before, after, modelMs] = /^inlineCompletion: server's own time ([\d.]+) ms \(([\d.]+) ms to the model call, ([\d.]+) ms from its last token to the answer\); the model ([\d.]+) ms$/.exec(traced[0]!) ?? [];
    expect(Number(modelMs)).toBeGreaterThanOrEqual(290);
    expect(Number(own)).toBeCloseTo(Number(before) + Number(after), 1);
    expect(Number(own)).toBeLessThan(Number(modelMs));
  });

  it('asks the chat model when the endpoint has no /v1/completions, and cuts its answer to the insertion', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'error', status: 404, message: 'Not found' }, { kind: 'text', content: 'Here you go:\n```ts\n  return values.reduce((sum, v) => sum + v, 0);\n```' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const { items } = await complete(editor, doc.uri, at);
    expect(items.map((i) => i.insertText)).toEqual(['(sum, v) => sum + v']);
    expect(model.requests.map((r) => r.path)).toEqual(['/v1/completions', '/v1/chat/completions']);
    const chat = model.requests[1]!.body.messages as { content: string }[];
    expect(chat.map((m) => m.content).join('\n')).toContain('values.reduce(<CURSOR>, 0);');
    // The endpoint is remembered: the next request goes to chat at once.
    model.enqueue({ kind: 'text', content: '(a, b) => a + b' });
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace('export function describe', 'export function describe2'));
    await complete(editor, doc.uri, at);
    expect(model.requests.map((r) => r.path)).toEqual(['/v1/completions', '/v1/chat/completions', '/v1/chat/completions']);
  });

  it('completes a block on an empty line, cut where it leaves the block', async () => {
    const { editor, doc } = await start();
    const text = editor.buffer(doc.uri).text.replace('  return values.reduce(, 0);\n', '  \n');
    await editor.setText(doc.uri, text);
    model.enqueue({ kind: 'text', content: 'let sum = 0;\n  for (const v of values) sum += v;\n  return sum;\n}\n\nexport function describe(): string {' });
    const at = editor.position(doc.uri, '): number {\n  ', '): number {\n  '.length);
    const { items } = await complete(editor, doc.uri, at);
    expect(items.map((i) => i.insertText)).toEqual(['let sum = 0;\n  for (const v of values) sum += v;\n  return sum;']);
    expect(model.requests[0]?.body.stop ?? []).not.toContain('\n');
  });

  it('answers an empty list at once without a model agent', async () => {
    const { editor, doc } = await start({}, { withModel: false });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    await complete(editor, doc.uri, at);
    const started = Date.now();
    const list = await complete(editor, doc.uri, at);
    expect(list).toEqual({ items: [] });
    expect(Date.now() - started).toBeLessThan(200);
    expect(model.requests).toHaveLength(0);
  });

  it('says why there is nothing to a request the user made (Invoked), and nothing to one made while typing', async () => {
    const { editor, doc } = await start({}, { withModel: false });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    expect(await complete(editor, doc.uri, at)).toEqual({ items: [] });
    expect(editor.messages).toEqual([]);
    expect(await complete(editor, doc.uri, at, undefined, 1)).toEqual({ items: [] });
    expect(editor.messages).toEqual([{ type: 3, message: 'No suggestion: no model agent is configured (assistant.agents or completion.agent).' }]);
  });

  it('says that an excluded document is never sent, to a request the user made', async () => {
    const { editor } = await start();
    // An unsaved buffer of the ignored file is enough: the rule is by path.
    const ignored = await editor.openText(editor.uri('src/private.ts'), 'typescript', 'export const PRIVATE_ENDPOINT = \'\';\n');
    const at = { line: 0, character: 0 };
    expect(await complete(editor, ignored.uri, at)).toEqual({ items: [] });
    expect(editor.messages).toEqual([]);
    expect(await complete(editor, ignored.uri, at, undefined, 1)).toEqual({ items: [] });
    expect(editor.messages.map((m) => m.message)).toEqual([expect.stringMatching(/^No suggestion: src\/private\.ts is matched by .*, so it is never sent to a model\.$/)]);
    expect(model.requests).toHaveLength(0);
  });

  it('supersedes an older request for the same document, closing its HTTP request', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'stall', afterHeaders: true }, { kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const first = complete(editor, doc.uri, at);
    await model.waitForRequests(1);
    const second = complete(editor, doc.uri, at);
    expect(await first).toEqual({ items: [] });
    await model.waitForClose(0, 2000);
    expect((await second).items.map((i) => i.insertText)).toEqual(['(sum, v) => sum + v']);
  });

  it('honours $/cancelRequest down to the HTTP request', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'stall', afterHeaders: true });
    const source = new CancellationTokenSource();
    const pending = complete(editor, doc.uri, editor.position(doc.uri, CURSOR, CURSOR.length), source);
    await model.waitForRequests(1);
    source.cancel();
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    await model.waitForClose(0, 2000);
  });

  it('waits out the debounce: a request superseded within it never reaches the model', async () => {
    const { editor, doc } = await start({ debounceMs: 300 });
    model.setDefault({ kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const first = complete(editor, doc.uri, at);
    const second = complete(editor, doc.uri, at);
    expect(await first).toEqual({ items: [] });
    expect((await second).items).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });

  it('serves typing through a suggestion from the cache, without another model call', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    expect((await complete(editor, doc.uri, at)).items.map((i) => i.insertText)).toEqual(['(sum, v) => sum + v']);
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace(CURSOR, `${CURSOR}(su`));
    const typed = await complete(editor, doc.uri, { line: at.line, character: at.character + 3 });
    expect(typed.items.map((i) => i.insertText)).toEqual(['m, v) => sum + v']);
    expect(model.requests).toHaveLength(1);
  });

  it('records an accepted completion as a complete interaction, found from the code', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const item = (await complete(editor, doc.uri, at)).items[0] as InlineCompletionItem;
    // The editor inserts the text, then runs the item's command.
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace(CURSOR, `${CURSOR}${item.insertText as string}`));
    const accepted = await editor.request<AcceptCompletionResult>('workspace/executeCommand', { command: item.command!.command, arguments: item.command!.arguments });
    expect(accepted).toMatchObject({ partial: false, text: '(sum, v) => sum + v' });
    const found = await editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: { line: at.line, character: at.character + 5 } });
    const interaction = found.interactions.find((i) => i.id === accepted.interactionId);
    expect(interaction).toMatchObject({ task: 'complete', completion: { offered: '(sum, v) => sum + v', partial: false, mode: 'fim' } });
    expect(interaction?.responses[0]).toMatchObject({ used: true, text: '(sum, v) => sum + v', agent: { model: 'scripted-coder' } });
    expect(interaction?.responses[0]?.insertedAt?.[0]?.range).toEqual({ start: at, end: { line: at.line, character: at.character + '(sum, v) => sum + v'.length } });
    expect((await editor.request<TraceResult>('assistant/trace', { task: 'complete' })).total).toBe(1);
  });

  it('finds an acceptance from the code when the question comes before the acceptance is answered', async () => {
    // An editor runs the item's command and does not wait for its answer: the user moves on and asks at once.
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const item = (await complete(editor, doc.uri, at)).items[0] as InlineCompletionItem;
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace(CURSOR, `${CURSOR}${item.insertText as string}`));
    const [accepted, found] = await Promise.all([
      editor.request<AcceptCompletionResult>('workspace/executeCommand', { command: item.command!.command, arguments: item.command!.arguments }),
      editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: { line: at.line, character: at.character + 5 } }),
    ]);
    expect(found.interactions.map((i) => i.id)).toEqual([accepted.interactionId]);
  });

  it('does not lead from code the user typed again by hand to the completion it replaced, and does after an undo', async () => {
    for (const how of ['typed', 'undone'] as const) {
      const { editor, doc } = await start();
      model.enqueue({ kind: 'text', content: '(s, v) => s + v' });
      const at = editor.position(doc.uri, CURSOR, CURSOR.length);
      const item = (await complete(editor, doc.uri, at)).items[0] as InlineCompletionItem;
      const text = item.insertText as string;
      await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace(CURSOR, `${CURSOR}${text}`));
      await editor.request('workspace/executeCommand', { command: item.command!.command, arguments: item.command!.arguments });
      const end = { line: at.line, character: at.character + text.length };
      // Taken out again, then the same text back: typed a key at a time (the keys in one notification), or undone.
      await editor.change(doc.uri, [{ range: { start: at, end }, text: '' }]);
      const back = how === 'typed' ? [...text].map((key, i) => ({ range: { start: { line: at.line, character: at.character + i }, end: { line: at.line, character: at.character + i } }, text: key })) : [{ range: { start: at, end: at }, text }];
      await editor.change(doc.uri, back);
      expect(editor.buffer(doc.uri).text).toContain(`${CURSOR}${text}, 0);`);
      const found = await editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: { line: at.line, character: at.character + 3 } });
      expect(found.interactions.map((i) => i.task), how).toEqual(how === 'typed' ? [] : ['complete']);
    }
  });

  it('records a partial acceptance from the length the client appends', async () => {
    const { editor, doc } = await start();
    model.enqueue({ kind: 'text', content: '(sum, v) => sum + v' });
    const at = editor.position(doc.uri, CURSOR, CURSOR.length);
    const item = (await complete(editor, doc.uri, at)).items[0] as InlineCompletionItem;
    const args = item.command!.arguments as [AcceptCompletionArgs];
    await editor.setText(doc.uri, editor.buffer(doc.uri).text.replace(CURSOR, `${CURSOR}(sum,`));
    const accepted = await editor.request<AcceptCompletionResult>('workspace/executeCommand', { command: item.command!.command, arguments: [...args, { acceptedLength: 5 }] });
    expect(accepted).toMatchObject({ partial: true, text: '(sum,' });
    const bad = editor.request('workspace/executeCommand', { command: item.command!.command, arguments: [args[0], { acceptedText: 'nope' }] });
    await expect(bad).rejects.toMatchObject({ code: -32602 });
  });
});
