// End-to-end Document task with the offline agent: offered as a code action, applied as a versioned edit, traced, moved or refused on stale text.
import path from 'node:path';
import { ts } from 'ts-morph';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { Interaction, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, RESOLVE_CAPABILITIES, until } from '../support/lspClient.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

// Progress at once (progress.showAfterMs 0), so the progress tests do not depend on how long a task takes.
async function start(capabilities?: Parameters<typeof TestEditor.start>[0]['capabilities'], showAfterMs = 0) {
  const { editor } = await TestEditor.start({ root: copyFixture('basic'), initializationOptions: { assistant: { progress: { showAfterMs } } }, ...(capabilities ? { capabilities } : {}) });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  return { editor, doc };
}

/** The Document actions at a place (other tasks offered there are left out by kind). */
async function actionsAt(editor: TestEditor, uri: string, needle: string): Promise<CodeAction[]> {
  const position = editor.position(uri, needle);
  return editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
}

/** The text with every JSDoc block removed: what must be unchanged by a Document edit. */
/** The text without its doc comments and the assistant's annotation lines: the code. */
function withoutDocComments(text: string): string {
  return text.replace(/[ \t]*\/\*\*[\s\S]*?\*\/\n?/g, '').replace(/^[ \t]*\/\/ @assistant .*\n/gm, '');
}

function jsDocTagsOf(text: string, name: string): { tag: string; name?: string }[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === name) found = node;
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!found) throw new Error(`no function ${name}`);
  return ts.getJSDocTags(found).map((t) => ({ tag: t.tagName.text, ...(ts.isJSDocParameterTag(t) ? { name: t.name.getText() } : {}) }));
}

describe('Document as a code action (offline agent)', () => {
  it('offers Document on functions, methods, classes and arrow functions, not elsewhere', async () => {
    const { editor, doc } = await start();
    expect((await actionsAt(editor, doc.uri, 'parseConfig(text')).map((a) => a.title)).toEqual(['Assistant: Document function parseConfig']);
    expect((await actionsAt(editor, doc.uri, 'async load')).map((a) => a.title)).toEqual(['Assistant: Document method ConfigStore.load']);
    expect((await actionsAt(editor, doc.uri, 'class ConfigStore')).map((a) => a.title)).toEqual(['Assistant: Document class ConfigStore']);
    expect((await actionsAt(editor, doc.uri, 'firstOf')).map((a) => a.title)).toEqual(['Assistant: Document function firstOf']);
    expect(await actionsAt(editor, doc.uri, 'import { readFile }')).toEqual([]);
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    expect(action.kind).toBe('refactor.rewrite.assistant.document');
    expect(action.command?.command).toBe('assistant.document');
    // A client asking only for quick fixes gets none of these.
    const position = editor.position(doc.uri, 'parseConfig(text');
    expect(await editor.request('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['quickfix'] } })).toEqual([]);
  });

  it('offers Document in untitled buffers, each parsed as its own language and text, before and after another is closed', async () => {
    const { editor } = await start();
    const jsx = 'export const View = () => <div className="list">{items.map((item) => <span key={item}>{item} > {\'{\'}</span>)}</div>;\n\nexport function render(items: string[]): number {\n  return items.length;\n}\n';
    const tsx = await editor.openText('untitled:Untitled-1', 'typescriptreact', jsx);
    const plain = await editor.openText('untitled:Untitled-2', 'typescript', 'export function total(values: number[]): number {\n  return values.length;\n}\n');
    // Parsed as TypeScript without JSX, the arrow function's markup hides the function after it.
    expect((await actionsAt(editor, tsx.uri, 'render(')).map((a) => a.title)).toEqual(['Assistant: Document function render']);
    expect((await actionsAt(editor, plain.uri, 'total(')).map((a) => a.title)).toEqual(['Assistant: Document function total']);
    expect((await actionsAt(editor, tsx.uri, 'View')).map((a) => a.title)).toEqual(['Assistant: Document function View']);
    await editor.close(plain.uri);
    const reopened = await editor.openText('untitled:Untitled-2', 'typescript', 'export function average(values: number[]): number {\n  return 0;\n}\n');
    expect((await actionsAt(editor, reopened.uri, 'average(')).map((a) => a.title)).toEqual(['Assistant: Document function average']);
    expect((await actionsAt(editor, tsx.uri, 'render(')).map((a) => a.title)).toEqual(['Assistant: Document function render']);
  });

  it('applies a versioned edit with every @param, @returns and @throws and changes no code, then traces it', async () => {
    const { editor, doc } = await start();
    const before = doc.text;
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    const token = 'doc-progress-1';
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { ...action.command!, command: action.command!.command, arguments: action.command!.arguments, workDoneToken: token });
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });

    expect(editor.applied).toHaveLength(1);
    const change = editor.applied[0]!.edit.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument).toEqual({ uri: doc.uri, version: 1 });
    expect(change.edits).toHaveLength(1);

    const after = editor.buffer(doc.uri).text;
    expect(withoutDocComments(after)).toBe(withoutDocComments(before));
    const tags = jsDocTagsOf(after, 'parseConfig');
    expect(tags.filter((t) => t.tag === 'param').map((t) => t.name)).toEqual(['text', 'defaults']);
    expect(tags.some((t) => t.tag === 'returns')).toBe(true);
    expect(tags.some((t) => t.tag === 'throws')).toBe(true);
    // The annotation is a line comment between the doc comment and the code, never part of the documentation.
    expect(after).toMatch(/\*\/\n\/\/ @assistant task=document agent=doc-offline interaction=[0-9a-f-]+ at=\S+\nexport function parseConfig/);
    expect(jsDocTagsOf(after, 'parseConfig').map((t) => t.tag)).not.toContain('assistant');

    const kinds = editor.progress.filter((p) => p.token === token).map((p) => p.value.kind);
    expect(kinds[0]).toBe('begin');
    expect(kinds.at(-1)).toBe('end');

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.total).toBe(1);
    const interaction = trace.interactions[0]!;
    expect(interaction).toMatchObject({ task: 'document', source: 'command', context: { symbol: 'parseConfig', resource: { relativePath: 'src/config.ts', fileName: 'config.ts' } } });
    expect(interaction.responses).toHaveLength(1);
    expect(interaction.responses[0]).toMatchObject({ used: true, outcome: 'applied', agent: { name: 'doc-offline', technology: 'rule', isLLM: false } });
    expect(interaction.responses[0]!.insertedAt?.[0]?.uri).toBe(doc.uri);

    // Code to interaction: a position inside the function finds it through the annotation.
    const byPosition = await editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: editor.position(doc.uri, 'JSON.parse') });
    expect(byPosition.interactions.map((i: Interaction) => i.id)).toContain(result.interactionId);

    // The trace is a real file on disk.
    const traceDir = path.join(editor.root, '.assistant', 'trace');
    expect(segmentFiles(traceDir).flatMap((file) => readSegment(file).interactions).map((i) => i.id)).toContain(result.interactionId);
  });

  it('completes an existing comment instead of adding a second one', async () => {
    const { editor, doc } = await start();
    const text = doc.text.replace('export function parseConfig', '/**\n * Reads the configuration text.\n * @param text - JSON source.\n */\nexport function parseConfig');
    await editor.setText(doc.uri, text);
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    expect(action.title).toBe('Assistant: Complete the documentation of function parseConfig');
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(result.applied).toBe(true);
    const after = editor.buffer(doc.uri).text;
    expect(after.match(/\/\*\*/g)?.length).toBe(text.match(/\/\*\*/g)?.length);
    expect(after).toContain(' * Reads the configuration text.');
    expect(after).toContain(' * @param text - JSON source.');
    expect(jsDocTagsOf(after, 'parseConfig').filter((t) => t.tag === 'param').map((t) => t.name)).toEqual(['text', 'defaults']);
  });

  it('resolves the edit through codeAction/resolve and records it used when the client runs the follow-up command', async () => {
    const { editor, doc } = await start(RESOLVE_CAPABILITIES);
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    expect(action.command).toBeUndefined();
    expect(action.edit).toBeUndefined();
    const resolved = await editor.request<CodeAction>('codeAction/resolve', action);
    const change = resolved.edit!.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument.version).toBe(1);
    expect(resolved.command?.command).toBe('assistant.responseApplied');
    const [ids] = resolved.command!.arguments as [{ interactionId: string; responseId: string }];
    let trace = await editor.request<TraceResult>('assistant/trace', { id: ids.interactionId });
    expect(trace.interactions[0]!.responses[0]!.used).toBe(false);
    // The editor applies the edit itself, then runs the command.
    editor.applyLocally({ edit: resolved.edit! });
    await editor.request('workspace/executeCommand', resolved.command);
    trace = await editor.request<TraceResult>('assistant/trace', { id: ids.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, outcome: 'applied' });
    // Server-created progress was used, since the resolve request carries no token.
    expect(editor.createdTokens.length).toBeGreaterThan(0);
  });

  it('starts the work without waiting for the progress token it asks for, and reports only once the editor accepts it', async () => {
    const { editor, doc } = await start();
    // The editor accepts the token only after the edit has arrived: the work must not have waited for it.
    let accepted: string | number | undefined;
    editor.onCreateProgress = async (token) => {
      await until(() => editor.applied.length > 0, 5000, 'the edit, sent before the token is accepted');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(editor.progress.filter((p) => p.token === token)).toEqual([]);
      accepted = token;
      return null;
    };
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    await until(() => accepted !== undefined && editor.progress.some((p) => p.token === accepted && p.value.kind === 'end'), 5000, 'the progress, once accepted');
    const kinds = editor.progress.filter((p) => p.token === accepted).map((p) => p.value.kind);
    expect(kinds[0]).toBe('begin');
    expect(kinds.at(-1)).toBe('end');
    expect(kinds.filter((k) => k === 'begin' || k === 'end')).toEqual(['begin', 'end']);

    // An editor that refuses the token gets no progress on it, and the work is done all the same.
    const refused: (string | number)[] = [];
    editor.onCreateProgress = (token) => {
      refused.push(token);
      return Promise.reject(new Error('no progress here'));
    };
    const second = (await actionsAt(editor, doc.uri, 'async load()'))[0]!;
    const done = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: second.command!.command, arguments: second.command!.arguments });
    expect(done.applied).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(refused).toHaveLength(1);
    expect(editor.progress.filter((p) => p.token === refused[0])).toEqual([]);
  });

  it('shows no progress for a task that ends before progress.showAfterMs, on its own token or the editor’s', async () => {
    const { editor, doc } = await start(undefined, 60_000);
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    const own = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(own).toMatchObject({ applied: true, outcome: 'applied' });
    const second = (await actionsAt(editor, doc.uri, 'async load()'))[0]!;
    const given = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: second.command!.command, arguments: second.command!.arguments, workDoneToken: 'quick' });
    expect(given.applied).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(editor.createdTokens).toEqual([]);
    expect(editor.progress).toEqual([]);
  });

  it('tells the user and records it when the editor refuses the edit', async () => {
    const { editor, doc } = await start();
    editor.onApplyEdit = () => ({ applied: false, failureReason: 'the user said no' });
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(result).toMatchObject({ applied: false, outcome: 'rejected-by-client' });
    await until(() => editor.messages.some((m) => m.message.includes('the user said no')), 5000, 'the warning');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: false, outcome: 'rejected-by-client' });
    expect(editor.buffer(doc.uri).text).toBe(doc.text);
  });

  it('runs on the current text when the action was offered on an older version', async () => {
    const { editor, doc } = await start();
    const action = (await actionsAt(editor, doc.uri, 'parseConfig(text'))[0]!;
    await editor.setText(doc.uri, `// a new first line\n${doc.text}`);
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(result.applied).toBe(true);
    const change = editor.applied[0]!.edit.documentChanges![0] as TextDocumentEdit;
    expect(change.textDocument.version).toBe(2);
    const after = editor.buffer(doc.uri).text;
    expect(after.startsWith('// a new first line\n')).toBe(true);
    expect(after).toMatch(/\*\/\n\/\/ @assistant .*\nexport function parseConfig/);
  });

  it('proposes nothing where the code says nothing beyond the signature, and tells the user why in a message', async () => {
    const { editor } = await start();
    const plain = await editor.openText('untitled:Untitled-3', 'typescript', 'export function sum(a: number, b: number): number {\n  const total = a + b;\n  return total;\n}\n');
    const action = (await actionsAt(editor, plain.uri, 'sum('))[0]!;
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
    expect(result).toMatchObject({ applied: false, message: expect.stringMatching(/^No usable answer for sum: nothing true to add to the signature of sum: .+ \(doc-offline\)\.$/) });
    expect(editor.applied).toEqual([]);
    expect(editor.buffer(plain.uri).text).toBe(plain.text);
    await until(() => editor.messages.some((m) => m.message === result.message), 5000, 'the message');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ status: 'empty', used: false, error: expect.stringMatching(/^nothing true to add/) });
  });

  it('answers bad command arguments with InvalidParams and keeps serving', async () => {
    const { editor, doc } = await start();
    await expect(editor.request('workspace/executeCommand', { command: 'assistant.document', arguments: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('workspace/executeCommand', { command: 'assistant.document', arguments: [{ textDocument: { uri: doc.uri, version: 1 }, range: { start: { line: -1 } } }] })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('workspace/executeCommand', { command: 'assistant.nope', arguments: [] })).rejects.toMatchObject({ code: -32602 });
    expect((await actionsAt(editor, doc.uri, 'parseConfig(text')).length).toBe(1);
  });
});
