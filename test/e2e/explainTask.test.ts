// End-to-end Explain: offered on declarations and selections, shown as a message or a markdown document, traced as shown, and grounded for a model.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Position } from 'vscode-languageserver-protocol';
import type { AskResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function start(env?: Record<string, string>) {
  const { editor } = await TestEditor.start({ root: copyFixture('explain'), ...(env ? { env } : {}), initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } } });
  editors.push(editor);
  const doc = await editor.open('src/parser.ts');
  return { editor, doc };
}

/** The Explain actions for a range (only that kind is asked for, so other tasks' offers do not interfere). */
function explainActions(editor: TestEditor, uri: string, start: Position, end: Position = start): Promise<CodeAction[]> {
  return editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start, end }, context: { diagnostics: [], only: ['assistant.explain'] } });
}

function run(editor: TestEditor, action: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
}

describe('Explain (offline agent)', () => {
  it('is offered on a function, a class, an interface and a selection, with a read-only kind, and not elsewhere', async () => {
    const { editor, doc } = await start();
    const at = (needle: string, delta = 0) => editor.position(doc.uri, needle, delta);
    const titles = async (start: Position, end?: Position) => (await explainActions(editor, doc.uri, start, end)).map((a) => a.title);
    expect(await titles(at('parseEntries(text'))).toEqual(['Assistant: Explain function parseEntries']);
    expect(await titles(at('class EntryIndex'))).toEqual(['Assistant: Explain class EntryIndex']);
    expect(await titles(at('interface Entry'))).toEqual(['Assistant: Explain interface Entry']);
    expect(await titles(at('double ='))).toEqual(['Assistant: Explain function double']);
    expect(await titles(at('import { readFileSync }'))).toEqual([]);
    const selection = await explainActions(editor, doc.uri, at('const trimmed'), at("startsWith('#')) continue;", "startsWith('#')) continue;".length));
    expect(selection.map((a) => a.title)).toEqual(['Assistant: Explain the selection']);
    expect(selection[0]).toMatchObject({ kind: 'assistant.explain', command: { command: 'assistant.explain' } });
    // Selecting exactly a function's name explains the function.
    expect(await titles(at('parseEntries(text'), at('parseEntries(text', 'parseEntries'.length))).toEqual(['Assistant: Explain function parseEntries']);
    // Menus for fixes or refactorings do not list it; an unfiltered menu does.
    const only = (kinds: string[]) => editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: at('parseEntries(text'), end: at('parseEntries(text') }, context: { diagnostics: [], only: kinds } });
    expect((await only(['quickfix', 'refactor'])).filter((a) => a.kind === 'assistant.explain')).toEqual([]);
    const all = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: at('parseEntries(text'), end: at('parseEntries(text') }, context: { diagnostics: [] } });
    expect(all.map((a) => a.title)).toContain('Assistant: Explain function parseEntries');
  });

  it('opens a long explanation as a markdown document under .assistant/answers/ naming the callers in another file and the complexity', async () => {
    const { editor, doc } = await start();
    const [action] = await explainActions(editor, doc.uri, editor.position(doc.uri, 'parseEntries(text'));
    const result = await run(editor, action!);
    expect(result).toMatchObject({ applied: false, outcome: 'shown' });
    expect(editor.applied).toHaveLength(0);
    expect(editor.buffer(doc.uri).text).toBe(doc.text);

    expect(editor.shownDocuments).toHaveLength(1);
    const shown = editor.shownDocuments[0]!;
    expect(shown).toMatch(/\/\.assistant\/answers\/[0-9a-f-]+\.md$/);
    const markdown = fs.readFileSync(fileURLToPath(shown), 'utf8');
    expect(markdown).toContain('parseEntries(text: string, strict?: boolean): Entry[]');
    expect(markdown).toMatch(/`src\/main\.ts` \(3\): `countKeys` \(line 5\), `main` \(line 9\)/);
    expect(markdown).toContain('`loadEntries`');
    expect(markdown).toContain('cyclomatic complexity 6');
    expect(markdown).toMatch(/Throws\*\* `SyntaxError` when `strict`/);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const interaction = trace.interactions[0]!;
    expect(interaction).toMatchObject({ task: 'explain', source: 'command', context: { symbol: 'parseEntries', resource: { relativePath: 'src/parser.ts' } } });
    expect(interaction.responses).toHaveLength(1);
    expect(interaction.responses[0]).toMatchObject({ used: true, outcome: 'shown', agent: { name: 'explain-offline', technology: 'rule', isLLM: false } });
    expect(interaction.responses[0]!.edit).toBeUndefined();
  });

  it('opens a short explanation as a document too, so no client cuts it', async () => {
    const { editor, doc } = await start();
    const [action] = await explainActions(editor, doc.uri, editor.position(doc.uri, 'double ='));
    const result = await run(editor, action!);
    expect(result).toMatchObject({ applied: false, outcome: 'shown' });
    expect(editor.shownDocuments).toHaveLength(1);
    const markdown = fs.readFileSync(fileURLToPath(editor.shownDocuments[0]!), 'utf8');
    expect(markdown).toMatch(/^# Explain double\n/);
    expect(markdown).toContain('`double(n: number): number`');
    expect(markdown).toMatch(/`src\/main\.ts` \(1\): `main` \(line 11\)/);
    expect(editor.messages.filter((m) => m.message.includes('`double`'))).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
  });

  it('explains a selection: the statements, the names it reads and declares, its calls and branches', async () => {
    const { editor, doc } = await start();
    const from = editor.position(doc.uri, 'const trimmed');
    const to = editor.position(doc.uri, "startsWith('#')) continue;", "startsWith('#')) continue;".length);
    const [action] = await explainActions(editor, doc.uri, from, to);
    const result = await run(editor, action!);
    expect(result.outcome).toBe('shown');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const text = trace.interactions[0]!.responses[0]!.text;
    expect(text).toContain('inside `parseEntries`: 2 statements');
    expect(text).toContain('**Declares** `trimmed`; **reads** `line`');
    expect(text).toContain('`String.startsWith`: external (TypeScript lib)');
    expect(text).toContain('cyclomatic complexity 3');
    expect(trace.interactions[0]!.context.fragment?.text).toBe("const trimmed = line.trim();\n    if (trimmed === '' || trimmed.startsWith('#')) continue;");
  });

  it('answers assistant/ask "explain what parseEntries does" with the text, unapplied', async () => {
    const { editor } = await start();
    const main = await editor.open('src/main.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'explain what parseEntries does', textDocument: { uri: main.uri } });
    expect(answer.task).toBe('explain');
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response).toMatchObject({ status: 'ok', agent: { name: 'explain-offline' } });
    expect(response.edit).toBeUndefined();
    expect(response.text).toContain('**function `parseEntries`** in `src/parser.ts`');
    expect(response.text).toContain('cyclomatic complexity 6');
    expect(editor.applied).toHaveLength(0);
    expect(editor.shownDocuments).toHaveLength(0);
  });
});

describe('Explain with a model', () => {
  it('sends the code and the offline structure, and offers the prose next to the offline answer', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const { editor, doc } = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-explain' });
    const prose = '`parseEntries` turns `key=value` text into entries, skipping blanks and comments; in strict mode a line without `=` throws. `countKeys` and `main` use it.';
    model.enqueue({ kind: 'text', content: prose });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title.includes('scripted-explain')) ?? null;
    const [action] = await explainActions(editor, doc.uri, editor.position(doc.uri, 'parseEntries(text'));
    const result = await run(editor, action!);

    // The prompt holds the code and the facts the offline agent established.
    const messages = JSON.stringify(model.requests[0]!.body.messages);
    expect(messages).toContain("trimmed.indexOf('=')");
    expect(messages).toContain('cyclomatic complexity 6');
    expect(messages).toContain('`src/main.ts` (3): `countKeys` (line 5)');
    expect(messages).toContain('parseEntries(text: string, strict?: boolean): Entry[]');

    // Both agents answered, so the user chose.
    expect(editor.questions).toHaveLength(1);
    const host = new URL(model.baseURL).host;
    expect(editor.questions[0]!.actions!.map((a) => a.title)).toEqual(['Use explain-offline', `Use scripted-explain@${host}`, 'Discard']);
    expect(result).toMatchObject({ applied: false, outcome: 'shown' });
    expect(editor.shownDocuments).toHaveLength(1);
    expect(fs.readFileSync(fileURLToPath(editor.shownDocuments[0]!), 'utf8')).toContain(`\n${prose}\n`);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const responses = trace.interactions[0]!.responses;
    expect(responses).toHaveLength(2);
    expect(responses.find((r) => r.agent.isLLM)).toMatchObject({ used: true, outcome: 'shown', text: prose, agent: { model: 'scripted-explain' } });
    expect(responses.find((r) => !r.agent.isLLM)!.used).toBe(false);
  });

  it('offers the first paragraphs of an explanation cut off at the token limit, up to where the model began repeating itself', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const { editor, doc } = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-explain' });
    // What the local 0.5B model wrote on a real function: a good start, then the same case over and over until its limit.
    const start_ = '`parseEntries` turns `key=value` text into entries, skipping blanks and comments.\n\n';
    const circles = [1, 2, 3, 4].map((n) => `Error case ${n}: If a line has no \`=\` in strict mode, it throws an error.`).join('\n');
    model.enqueue({ kind: 'text', content: `${start_}${circles}\nError case 5: If a li`, finishReason: 'length' });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title.includes('scripted-explain')) ?? null;
    const [action] = await explainActions(editor, doc.uri, editor.position(doc.uri, 'parseEntries(text'));
    const result = await run(editor, action!);
    expect(result).toMatchObject({ applied: false, outcome: 'shown' });
    const kept = `${start_}Error case 1: If a line has no \`=\` in strict mode, it throws an error.\n\n… (the answer was cut off at the model’s token limit)`;
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses.find((r) => r.agent.isLLM)).toMatchObject({ status: 'ok', used: true, outcome: 'shown', text: kept });
    expect(fs.readFileSync(fileURLToPath(editor.shownDocuments[0]!), 'utf8')).toContain(kept);
    // Asked once: the same prompt would be cut the same way.
    expect(model.requests).toHaveLength(1);
  });
});
