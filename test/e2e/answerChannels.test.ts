// Text answers over --stdio reach the user whole through the channel the client declared: assistant/showAnswer, a document, or a message.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientCapabilities, CodeAction } from 'vscode-languageserver-protocol';
import type { AnswerLocation, AskResult, ShowAnswerParams, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { FULL_CAPABILITIES, TestEditor, copyFixture, until } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const NOTIFYING: ClientCapabilities = { ...FULL_CAPABILITIES, experimental: { assistant: { showAnswer: true } } };
const NO_DOCUMENTS: ClientCapabilities = { ...FULL_CAPABILITIES, window: { ...FULL_CAPABILITIES.window, showDocument: { support: false } } };

async function start(fixture: string, capabilities: ClientCapabilities): Promise<{ editor: TestEditor; answers: ShowAnswerParams[] }> {
  const { editor } = await TestEditor.start({ root: copyFixture(fixture), capabilities, initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } } });
  editors.push(editor);
  const answers: ShowAnswerParams[] = [];
  editor.connection.onNotification('assistant/showAnswer', (params: ShowAnswerParams) => void answers.push(params));
  return { editor, answers };
}

/** Runs "Assistant: Explain function parseEntries" from the code-action menu of src/parser.ts. */
async function explainParseEntries(editor: TestEditor): Promise<TaskCommandResult> {
  const doc = await editor.open('src/parser.ts');
  const at = editor.position(doc.uri, 'parseEntries(text');
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: at, end: at }, context: { diagnostics: [], only: ['assistant.explain'] } });
  const action = actions.find((a) => a.title === 'Assistant: Explain function parseEntries');
  expect(action, JSON.stringify(actions)).toBeDefined();
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
}

async function responseText(editor: TestEditor, interactionId: string): Promise<string> {
  const trace = await editor.request<TraceResult>('assistant/trace', { id: interactionId });
  return trace.interactions[0]!.responses[0]!.text;
}

/** `src/main.ts:5` for a location, as the message and the document name places. */
function reference(editor: TestEditor, location: AnswerLocation): string {
  return `${path.relative(editor.root, fileURLToPath(location.uri)).split(path.sep).join('/')}:${location.range.start.line + 1}`;
}

function lineAt(editor: TestEditor, location: AnswerLocation): string {
  return fs.readFileSync(fileURLToPath(location.uri), 'utf8').split('\n')[location.range.start.line] ?? '';
}

describe('text answers reach the user whole', () => {
  it('go to a client that declares experimental.assistant.showAnswer as assistant/showAnswer, with the explained code and its callers as locations', async () => {
    const { editor, answers } = await start('explain', NOTIFYING);
    const result = await explainParseEntries(editor);
    expect(result).toMatchObject({ applied: false, outcome: 'shown' });
    await until(() => answers.length > 0, 5000, 'assistant/showAnswer');
    const answer = answers[0]!;
    expect(answer).toMatchObject({ interactionId: result.interactionId, responseId: result.responseId, task: 'explain', title: 'Explain parseEntries' });
    expect(answer.text).toBe(await responseText(editor, result.interactionId));
    expect(answer.text).toContain('cyclomatic complexity 6');
    // The code explained first, the cursor on its name; then each use in main.ts, on the name used.
    const parser = pathToFileURL(path.join(editor.root, 'src', 'parser.ts')).href;
    expect(answer.locations[0]).toMatchObject({ uri: parser, label: 'function parseEntries (explained)' });
    expect(lineAt(editor, answer.locations[0]!).slice(answer.locations[0]!.range.start.character, answer.locations[0]!.range.end.character)).toBe('parseEntries');
    const uses = answer.locations.filter((l) => l.uri.endsWith('/src/main.ts'));
    expect(uses.map((l) => [reference(editor, l), l.label])).toEqual([
      ['src/main.ts:5', 'used by countKeys'],
      ['src/main.ts:9', 'used by main'],
      ['src/main.ts:14', 'used at the top level'],
    ]);
    for (const use of uses) expect(lineAt(editor, use).slice(use.range.start.character, use.range.end.character)).toBe('parseEntries');
    expect(answer.locations.map((l) => [reference(editor, l), l.label])).toContainEqual(['src/parser.ts:31', 'used by loadEntries']);
    // Nothing else carries the answer: no document, no message with its text.
    expect(editor.shownDocuments).toEqual([]);
    expect(fs.existsSync(path.join(editor.root, '.assistant', 'answers'))).toBe(false);
    expect(editor.messages.filter((m) => m.message.includes('parseEntries'))).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
  });

  it('open as a markdown document under .assistant/answers/ with window/showDocument otherwise, the places listed after the text', async () => {
    const { editor, answers } = await start('explain', FULL_CAPABILITIES);
    const result = await explainParseEntries(editor);
    expect(result.outcome).toBe('shown');
    expect(editor.shownDocuments).toHaveLength(1);
    const file = fileURLToPath(editor.shownDocuments[0]!);
    expect(path.relative(editor.root, file)).toBe(path.join('.assistant', 'answers', `${result.interactionId}.md`));
    expect(result.message).toBe(`Opened ${file}.`);
    const markdown = fs.readFileSync(file, 'utf8');
    const text = await responseText(editor, result.interactionId);
    expect(markdown.startsWith(`# Explain parseEntries\n\n${text}\n\n## Places\n\n`)).toBe(true);
    expect(markdown).toContain('\n- src/parser.ts:15 — function parseEntries (explained)\n');
    expect(markdown).toContain('\n- src/main.ts:5 — used by countKeys\n');
    expect(answers).toEqual([]);
    expect(editor.messages.filter((m) => m.message.includes('parseEntries'))).toEqual([]);
  });

  it('come as one window/showMessage with the whole text and the places as path:line lines when the client opens no documents', async () => {
    const { editor, answers } = await start('explain', NO_DOCUMENTS);
    const result = await explainParseEntries(editor);
    expect(result.outcome).toBe('shown');
    const text = await responseText(editor, result.interactionId);
    // Longer than any limit a cut would use: the point is that none is applied.
    expect(text.length).toBeGreaterThan(800);
    await until(() => editor.messages.some((m) => m.message.includes('parseEntries')), 5000, 'the message');
    const shown = editor.messages.filter((m) => m.message.includes('parseEntries'));
    expect(shown).toHaveLength(1);
    expect(shown[0]!.type).toBe(3);
    expect(shown[0]!.message.startsWith(`Explain parseEntries\n\n${text}\n\nPlaces:\n`)).toBe(true);
    expect(shown[0]!.message).toContain('\nsrc/main.ts:9 — used by main\n');
    expect(editor.shownDocuments).toEqual([]);
    expect(fs.existsSync(path.join(editor.root, '.assistant', 'answers'))).toBe(false);
    expect(answers).toEqual([]);
  });

  it('answers a workspace question from the assistant.question command with its ranked places, which the text already names', async () => {
    const { editor, answers } = await start('question', NOTIFYING);
    const question = 'where is the retry logic implemented?';
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: 'assistant.question', arguments: [{ parameters: { question } }] });
    expect(result.outcome).toBe('shown');
    await until(() => answers.length > 0, 5000, 'assistant/showAnswer');
    const answer = answers[0]!;
    expect(answer).toMatchObject({ task: 'question', title: `Question: ${question}` });
    expect(answer.locations.length).toBeGreaterThan(1);
    const withRetry = answer.locations.find((l) => l.label === 'function withRetry')!;
    expect(reference(editor, withRetry)).toMatch(/^src\/retry\.ts:\d+$/);
    expect(lineAt(editor, withRetry)).toContain('export async function withRetry');
    expect(lineAt(editor, withRetry).slice(withRetry.range.start.character, withRetry.range.end.character)).toBe('withRetry');
    // Each place is in the ranked list of the text, in the same order.
    const listed = answer.text.split('\n').filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/^\d+\. /, ''));
    expect(answer.locations.map((l) => `${reference(editor, l)} — ${l.label}`)).toEqual(listed);
  });
});

describe('assistant/ask', () => {
  it('returns the places of a text answer as locations, and none for an edit', async () => {
    const { editor } = await start('question', FULL_CAPABILITIES);
    const asked = await editor.request<AskResult>('assistant/ask', { text: 'where is the retry logic implemented?' });
    expect(asked.task).toBe('question');
    const locations = asked.responses[0]!.locations!;
    expect(locations[0]).toMatchObject({ label: expect.stringMatching(/^\w+ \w+/) });
    expect(locations.map((l) => reference(editor, l))[0]).toMatch(/^src\/retry\.ts:\d+$/);

    const { editor: basic } = await start('basic', FULL_CAPABILITIES);
    const doc = await basic.open('src/config.ts');
    const documented = await basic.request<AskResult>('assistant/ask', { text: 'write documentation for the load method', textDocument: { uri: doc.uri } });
    expect(documented.responses[0]!.edit).toBeDefined();
    expect(documented.responses[0]!.locations).toBeUndefined();
  });

  it('explains the function around the cursor for "explain this function" with an empty range', async () => {
    const { editor } = await start('explain', FULL_CAPABILITIES);
    const doc = await editor.open('src/main.ts');
    const inside = editor.position(doc.uri, 'args.length > 0');
    const asked = await editor.request<AskResult>('assistant/ask', { text: 'explain this function', textDocument: { uri: doc.uri }, range: { start: inside, end: inside } });
    expect(asked.task).toBe('explain');
    const response = asked.responses[0]!;
    expect(response.text).toContain('**function `main`** in `src/main.ts`');
    expect(response.locations![0]).toMatchObject({ label: 'function main (explained)', range: { start: { line: 7 } } });
    // What it calls in the workspace, at their declarations.
    expect(response.locations!.map((l) => [reference(editor, l), l.label])).toEqual(expect.arrayContaining([
      ['src/parser.ts:15', 'calls parseEntries'],
      ['src/parser.ts:30', 'calls loadEntries'],
    ]));
  });
});
