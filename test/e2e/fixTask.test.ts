// End-to-end Fix task over --stdio: a client diagnostic becomes a quickfix; the offline agent adds the import; a model's fix that leaves the error is rejected by the oracle and retried with the verdict.
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import type { TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { TestEditor, copyFixture, handleFiles } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
let model: ScriptedModel | undefined;
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model?.close();
  model = undefined;
});

/** A TypeScript diagnostic on the first occurrence of `needle`, as a client (tsserver) would send it. */
function diagnosticOn(editor: TestEditor, uri: string, needle: string, code: number, message: string, length = needle.length): Diagnostic {
  const start = editor.position(uri, needle);
  return { range: { start, end: { line: start.line, character: start.character + length } }, severity: 1, code, source: 'ts', message };
}

async function fixActions(editor: TestEditor, uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
  return actions.filter((a) => a.kind === 'quickfix');
}

function run(editor: TestEditor, action: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
}

describe('Fix a diagnostic', () => {
  it('offers a quickfix for an unresolved name and applies the offline import fix', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('fix') });
    editors.push(editor);
    const doc = await editor.open('src/main.ts');
    const diagnostic = diagnosticOn(editor, doc.uri, 'add(sum', 2304, "Cannot find name 'add'.", 3);

    const actions = await fixActions(editor, doc.uri, diagnostic);
    expect(actions.map((a) => a.title)).toEqual([`Assistant: Fix "Cannot find name 'add'."`]);
    const action = actions[0]!;
    expect(action.command?.command).toBe('assistant.fix');
    expect((action.command!.arguments![0] as { diagnostic: Diagnostic }).diagnostic).toEqual(diagnostic);
    // Without a diagnostic there is nothing to fix.
    const plain = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: diagnostic.range, context: { diagnostics: [] } });
    expect(plain.filter((a) => a.kind === 'quickfix')).toEqual([]);

    const result = await run(editor, action);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    // The compiler offers the import and a stub declaration; the import comes first and is the default choice.
    expect(editor.questions[0]?.message).toContain('fix-offline: Add import from "./math.js"');
    const after = editor.buffer(doc.uri).text;
    expect(after).toContain("import { fetchCount } from './count.js';\nimport { add } from './math.js';\n");
    expect(after).not.toContain('function add(');

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const interaction = trace.interactions[0]!;
    expect(interaction.task).toBe('fix');
    const used = interaction.responses.find((r) => r.used)!;
    expect(used).toMatchObject({ agent: { name: 'fix-offline', technology: 'rule', isLLM: false }, text: 'Add import from "./math.js"', attempts: 1 });
    expect(used.verdict).toEqual({ passed: true, summary: '3 errors before, 2 after' });
  });

  it("offers Fix from the server's own type-check, run on its worker thread, when the client sends no diagnostics", async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('fix') });
    editors.push(editor);
    const doc = await editor.open('src/main.ts');
    const titles = await editor.quickfixesOnceChecked(doc.uri, 'mesage');
    expect(titles).toEqual([`Assistant: Fix "Cannot find name 'mesage'. Did you mean 'message'?"`]);
    // The built server carries the worker's script; without it the checks would run on the main thread, and say so.
    expect(editor.logs.filter((line) => /type-check/.test(line))).toEqual([]);
  });

  it('runs the Fix offered at a bare cursor on a problem assistant.checkTypes published: the command carries that diagnostic', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('fix') });
    editors.push(editor);
    handleFiles(editor);
    await editor.request('workspace/executeCommand', { command: 'assistant.checkTypes', arguments: [] });
    // Eglot with point inside the error and no region sends no diagnostics in the context (Flymake finds none in an
    // empty range); the file is not open, so the listener's problem is the only one the server knows there.
    const uri = editor.uri('src/main.ts');
    const text = fs.readFileSync(path.join(editor.root, 'src/main.ts'), 'utf8');
    const line = text.split('\n').findIndex((l) => l.includes('mesage'));
    const position = { line, character: text.split('\n')[line]!.indexOf('esage') };
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
    const action = actions.find((a) => a.kind === 'quickfix' && a.command?.command === 'assistant.fix');
    expect(action, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    expect((action!.command!.arguments![0] as { diagnostic?: Diagnostic }).diagnostic).toMatchObject({ code: 2552, source: 'typescript' });
    const result = await run(editor, action!);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
  });

  it('says what is missing, not that the code is gone, when a fix command carries no diagnostic', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('fix') });
    editors.push(editor);
    const doc = await editor.open('src/main.ts');
    const position = editor.position(doc.uri, 'mesage');
    const args = { textDocument: { uri: doc.uri, version: doc.version }, range: { start: position, end: position }, symbol: 'TS2552' };
    await expect(editor.request('workspace/executeCommand', { command: 'assistant.fix', arguments: [args] })).rejects.toThrow(/needs the diagnostic it fixes/);
  });

  it("checks a monorepo package's file with that package's tsconfig: Fix for its real error, none for the root's missing options", async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('monorepo') });
    editors.push(editor);
    const doc = await editor.open('packages/web/src/view.tsx');
    await editor.setText(doc.uri, doc.text.replace('  document.title = label', '  const count: number = label(1);\n  document.title = label'));
    expect(await editor.quickfixesOnceChecked(doc.uri, 'count')).toEqual([`Assistant: Fix "Type 'string' is not assignable to type 'number'."`]);
    // Under the root's tsconfig (no options) the alias, the JSX and the extensionless import would all be errors.
    expect(await editor.quickfixes(doc.uri, "'@mono/core'")).toEqual([]);
    expect(await editor.quickfixes(doc.uri, '<div>')).toEqual([]);
    expect(await editor.quickfixes(doc.uri, "'./label'")).toEqual([]);
  });

  it('rejects a model fix that leaves the error, asks again with the verdict, and applies the passing one', async () => {
    model = await startScriptedModel();
    const { editor } = await TestEditor.start({
      root: copyFixture('fix'),
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-fix' },
      initializationOptions: { assistant: { disabledAgents: ['fix-offline'], annotations: { enabled: false } } },
    });
    editors.push(editor);
    const doc = await editor.open('src/main.ts');
    const before = doc.text;
    const diagnostic = diagnosticOn(editor, doc.uri, 'mesage', 2552, "Cannot find name 'mesage'. Did you mean 'message'?");
    const shout = (expression: string): string => ['Here is the fix:', '```ts', 'export function shout(label: string): string {', '  const message = `${label}!`;', `  return ${expression};`, '}', '```'].join('\n');
    model.enqueue({ kind: 'text', content: shout('mesage.toLocaleUpperCase()') }, { kind: 'text', content: shout('message.toUpperCase()') });

    const [action] = await fixActions(editor, doc.uri, diagnostic);
    expect(action?.title).toBe(`Assistant: Fix "Cannot find name 'mesage'. Did you mean 'message'?"`);
    const result = await run(editor, action!);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });

    expect(model.requests).toHaveLength(2);
    const first = JSON.stringify(model.requests[0]!.body.messages);
    expect(first).toContain("line 12: error TS2552: Cannot find name 'mesage'. Did you mean 'message'?");
    expect(first).toContain('export function shout(label: string): string {');
    const second = model.requests[1]!.body.messages as { role: string; content: string }[];
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second[2]!.content).toContain('mesage.toLocaleUpperCase()');
    expect(second[3]!.content).toContain('3 errors before, 3 after: the fix must leave fewer diagnostics');
    expect(second[3]!.content).toContain("still: src/main.ts:12: error TS2552: Cannot find name 'mesage'. Did you mean 'message'?");

    expect(editor.buffer(doc.uri).text).toBe(before.replace('return mesage.toUpperCase();', 'return message.toUpperCase();'));
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const responses = trace.interactions[0]!.responses;
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ used: true, attempts: 2, agent: { isLLM: true, model: 'scripted-fix' }, verdict: { passed: true, summary: '3 errors before, 2 after' } });
  });
});
