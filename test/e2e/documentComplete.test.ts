// "Complete the documentation" over --stdio: offered only where a comment lacks something, never on a complete one.
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const COMPLETE = ['/**', ' * Reads the configuration text.', ' *', ' * @param text - JSON source.', ' * @param defaults - Values for the keys the text leaves out.', ' * @returns The configuration.', ' * @throws {RangeError} If the timeout is negative.', ' */'].join('\n');

async function start(replace: Record<string, string>) {
  const { editor } = await TestEditor.start({ root: copyFixture('basic') });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  let text = doc.text;
  for (const [before, after] of Object.entries(replace)) text = text.replace(before, after);
  await editor.setText(doc.uri, text);
  return { editor, uri: doc.uri };
}

async function documentTitles(editor: TestEditor, uri: string, needle: string): Promise<string[]> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  return actions.map((a) => a.title);
}

describe('Complete the documentation', () => {
  it('is not offered on a comment with a description, every parameter and the return', async () => {
    const { editor, uri } = await start({ 'export function parseConfig': `${COMPLETE}\nexport function parseConfig`, 'export class ConfigStore': '/** Keeps the configuration read from a file. */\nexport class ConfigStore', '  async load()': '  /**\n   * Reads the file once.\n   * @returns The configuration.\n   */\n  async load()' });
    expect(await documentTitles(editor, uri, 'parseConfig(text')).toEqual([]);
    expect(await documentTitles(editor, uri, 'Reads the configuration text')).toEqual([]);
    expect(await documentTitles(editor, uri, 'class ConfigStore')).toEqual([]);
    expect(await documentTitles(editor, uri, 'async load')).toEqual([]);
  });

  it('is offered where something is missing: a parameter, the return, a description, a parameter\'s words', async () => {
    const cases: Array<[string, string]> = [
      [COMPLETE.replace(' * @param defaults - Values for the keys the text leaves out.\n', ''), 'a parameter'],
      [COMPLETE.replace(' * @returns The configuration.\n', ''), 'the return'],
      [COMPLETE.replace(' * Reads the configuration text.\n *\n', ''), 'the description'],
      [COMPLETE.replace(' * @param text - JSON source.', ' * @param text'), "a parameter's words"],
    ];
    for (const [comment, missing] of cases) {
      const { editor, uri } = await start({ 'export function parseConfig': `${comment}\nexport function parseConfig` });
      expect(await documentTitles(editor, uri, 'parseConfig(text'), missing).toEqual(['Assistant: Complete the documentation of function parseConfig']);
    }
  });

  it('still runs when asked for in words, and says the comment is complete', async () => {
    const { editor, uri } = await start({ 'export function parseConfig': `${COMPLETE}\nexport function parseConfig` });
    const position = editor.position(uri, 'parseConfig(text');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'write documentation for parseConfig', textDocument: { uri }, range: { start: position, end: position } });
    expect(answer.task).toBe('document');
    expect(answer.responses.map((r) => [r.agent.name, r.error])).toEqual([['doc-offline', 'the documentation is already complete']]);
  });
});
