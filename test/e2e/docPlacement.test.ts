// Where Document puts a comment, over --stdio: on the first overload, above the `//` lines over the code, directives left where they govern.
import { Project, ts } from 'ts-morph';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { TaskCommandResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

async function start(file: string) {
  const { editor } = await TestEditor.start({ root: copyFixture('placement'), initializationOptions: { assistant: { annotations: { enabled: false } } } });
  editors.push(editor);
  const doc = await editor.open(file);
  return { editor, doc };
}

async function documentActions(editor: TestEditor, uri: string, needle: string): Promise<CodeAction[]> {
  const position = editor.position(uri, needle);
  return editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
}

/** Runs the one Document action at `needle` as the editor would, and returns the buffer after it. */
async function documentAt(editor: TestEditor, uri: string, needle: string, title: string): Promise<string> {
  const actions = await documentActions(editor, uri, needle);
  expect(actions.map((a) => a.title)).toEqual([title]);
  const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: actions[0]!.command!.command, arguments: actions[0]!.command!.arguments });
  expect(result).toMatchObject({ applied: true, outcome: 'applied' });
  return editor.buffer(uri).text;
}

/** The doc comment inserted into `before` to give `after`, and the line it was inserted at (0-based). */
function inserted(before: string, after: string): { comment: string; line: number } {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  start = before.lastIndexOf('\n', start - 1) + 1;
  const length = after.length - before.length;
  expect(after.slice(0, start) + after.slice(start + length)).toBe(before);
  return { comment: after.slice(start, start + length), line: before.slice(0, start).split('\n').length - 1 };
}

/** What TypeScript shows in a hover at `needle` in `text`: the documentation and the tags. */
function hover(fileName: string, text: string, needle: string): string {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true, target: ts.ScriptTarget.ES2022 } });
  project.createSourceFile(fileName, text);
  const info = project.getLanguageService().compilerObject.getQuickInfoAtPosition(fileName, text.indexOf(needle));
  if (!info) throw new Error(`no hover at ${needle}`);
  const tags = (info.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`);
  return [ts.displayPartsToString(info.documentation), ...tags].join('\n');
}

/** The type errors of a file as TypeScript reports them, alone in a project. */
function typeErrors(fileName: string, text: string): string[] {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true, target: ts.ScriptTarget.ES2022 } });
  const file = project.createSourceFile(fileName, text);
  return file.getPreEmitDiagnostics().map((d) => `${d.getCode()}: ${ts.flattenDiagnosticMessageText(d.getMessageText() as string | ts.DiagnosticMessageChain, ' ')}`);
}

describe('Document on an overloaded function or method', () => {
  it('puts the comment on the first overload, from any of its signatures, with the parameters of every overload', async () => {
    const { editor, doc } = await start('src/overloads.ts');
    const before = doc.text;
    // Offered on each signature, as on the implementation.
    for (const needle of ['pad(text', 'pad(value', 'pad(input']) expect((await documentActions(editor, doc.uri, needle)).map((a) => a.title)).toEqual(['Assistant: Document function pad']);

    const after = await documentAt(editor, doc.uri, 'pad(value', 'Assistant: Document function pad');
    const { comment, line } = inserted(before, after);
    expect(line).toBe(before.split('\n').findIndex((l) => l.startsWith('export function pad(text')));
    expect(comment).toMatch(/^\/\*\*\n( \*.*\n)+ \*\/\n$/);
    // Each overload's parameters, once, saying which overload takes those not every one does.
    expect(comment).toContain(' * @param text - ');
    expect(comment).toMatch(/ \* @param width - [^\n]*\n/);
    expect(comment).not.toMatch(/@param width[^\n]*overload/);
    expect(comment).toMatch(/ \* @param text - (?:[^\n]* )?In the first overload only\.\n/);
    expect(comment).toMatch(/ \* @param value - (?:[^\n]* )?In the second overload only\.\n/);
    expect(comment).toMatch(/ \* @param fill - (?:[^\n]* )?In the second overload only\.\n/);
    expect(comment).not.toContain('@param input');
    expect(comment).toContain(' * @returns ');
    expect(comment).toContain(' * @throws {RangeError} If `width < 0`.');
    // TypeScript shows it for a call that picks the second overload.
    const shown = hover('overloads.ts', `${after}\npad(7, 3);\n`, 'pad(7');
    expect(shown).toContain('@param value');
    // The code says nothing a summary could rest on (the offline agent writes none then): the tags are what shows.
    expect(comment.split('\n')[1]).toMatch(/^ \* @param text - /);
    expect(shown).toContain('If `width < 0`.');
  });

  it('puts the comment on a method\'s first overload, indented as the class member it is', async () => {
    const { editor, doc } = await start('src/overloads.ts');
    const before = doc.text;
    const after = await documentAt(editor, doc.uri, 'lookup(key: string, fallback: number)', 'Assistant: Document method Registry.lookup');
    const { comment, line } = inserted(before, after);
    expect(line).toBe(before.split('\n').findIndex((l) => l === '  lookup(key: string): number | undefined;'));
    expect(comment.split('\n').slice(0, -1).every((l) => l.startsWith('  /**') || l.startsWith('   *'))).toBe(true);
    expect(comment).toMatch(/ {3}\* @param key - /);
    expect(comment).toMatch(/ {3}\* @param fallback - (?:[^\n]* )?In the second overload only\.\n/);
    expect(hover('overloads.ts', `${after}\nnew Registry().lookup('a', 1);\n`, "lookup('a'")).toContain('@param fallback');
  });
});

describe('Document on a declaration under `//` lines', () => {
  it('puts the comment above the notes, which stay on the code, and takes their prose but not the TODO as its summary', async () => {
    const { editor, doc } = await start('src/notes.ts');
    const before = doc.text;
    const after = await documentAt(editor, doc.uri, 'splitHeader(line', 'Assistant: Document function splitHeader');
    const { comment, line } = inserted(before, after);
    expect(line).toBe(before.split('\n').indexOf('// Splits a header line into its name and its value, both trimmed.'));
    expect(comment.split('\n')[1]).toBe(' * Splits a header line into its name and its value, both trimmed.');
    expect(comment).not.toMatch(/TODO|continuation/);
    expect(after).toContain(`${comment}// Splits a header line into its name and its value, both trimmed.\n// TODO: fold continuation lines\nexport function splitHeader(`);
  });

  it('leaves `// eslint-disable-next-line` directly above the function and does not restate it', async () => {
    const { editor, doc } = await start('src/notes.ts');
    const before = doc.text;
    const after = await documentAt(editor, doc.uri, 'looseParse(text', 'Assistant: Document function looseParse');
    const { comment } = inserted(before, after);
    expect(comment).not.toContain('eslint');
    expect(after).toContain(`${comment}// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport function looseParse(`);
  });

  it('leaves `// @ts-expect-error` on the line it governs: the documented file has no type error', async () => {
    const { editor, doc } = await start('src/notes.ts');
    const before = doc.text;
    expect(typeErrors('notes.ts', before)).toEqual([]);
    const after = await documentAt(editor, doc.uri, 'buildNumber', 'Assistant: Document function buildNumber');
    const { comment } = inserted(before, after);
    expect(comment).not.toMatch(/ts-expect-error|bundler/);
    expect(after).toMatch(/\n\/\/ @ts-expect-error [^\n]*\nexport const buildNumber = /);
    expect(typeErrors('notes.ts', after)).toEqual([]);
  });

  it('completes a doc comment above the notes in place rather than adding a second one under it', async () => {
    const { editor, doc } = await start('src/notes.ts');
    const text = doc.text.replace('// eslint-disable-next-line', '/** Parses JSON leniently. */\n// eslint-disable-next-line');
    await editor.setText(doc.uri, text);
    const after = await documentAt(editor, doc.uri, 'looseParse(text', 'Assistant: Complete the documentation of function looseParse');
    expect(after.match(/\/\*\*/g)).toHaveLength(1);
    expect(after).toMatch(/\/\*\*\n \* Parses JSON leniently\.\n \*\n \* @param text - [^\n]+\n \* @returns [^\n]+\n \*\/\n\/\/ eslint-disable-next-line [^\n]+\nexport function looseParse\(/);
  });
});
