// End-to-end free-text flows: "fix this error" at the cursor, names in the request, the current document's names first, and what needs a model.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateFile, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, handleFiles } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

/** The intent evaluation's workspace (a cart with type errors on purpose), plus any extra files. */
async function start(extra: Record<string, string> = {}): Promise<TestEditor> {
  const root = copyFixture('intents');
  for (const [file, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  const { editor } = await TestEditor.start({ root });
  editors.push(editor);
  return editor;
}

/** Asks with the cursor (an empty range) at the start of `needle`. */
async function askAt(editor: TestEditor, file: string, needle: string, text: string): Promise<AskResult> {
  const doc = await editor.open(file);
  const at = editor.position(doc.uri, needle);
  return editor.request<AskResult>('assistant/ask', { text, textDocument: { uri: doc.uri }, range: { start: at, end: at } });
}

function editedTexts(answer: AskResult): string {
  return answer.responses.flatMap((r) => (r.edit?.documentChanges ?? []).flatMap((change) => ('edits' in change ? (change as TextDocumentEdit).edits.map((e) => ('newText' in e ? e.newText : '')) : []))).join('\n');
}

describe('free-text flows', () => {
  it('"fix this error" with the cursor on an error fixes that diagnostic, from the server\'s own type-check', async () => {
    const editor = await start();
    // Asked at once after opening: the client sent no diagnostics and the background check has not run.
    const answer = await askAt(editor, 'src/cart.ts', 'lenght', 'fix this error');
    expect(answer.task).toBe('fix');
    expect(answer.message).toMatch(/for fix on TS2551/);
    expect(answer.responses.some((r) => r.status === 'ok')).toBe(true);
    expect(editedTexts(answer)).toContain('length');
  });

  it('"make the red squiggle go away" a few lines from the error picks the nearest diagnostic', async () => {
    const editor = await start();
    // The cursor is on the method's signature, two lines above `this.items.lenght`.
    const answer = await askAt(editor, 'src/cart.ts', 'countItems(): number', 'make the red squiggle go away');
    expect(answer.task).toBe('fix');
    expect(answer.message).toMatch(/TS2551/);
    expect(editedTexts(answer)).toContain('length');
  });

  it('"fix this" where there is no error says so, instead of "Which code is this about?"', async () => {
    const editor = await start();
    const answer = await askAt(editor, 'src/util.ts', 'slugify(text', 'fix this error');
    expect(answer.task).toBe('fix');
    expect(answer.responses).toEqual([]);
    expect(answer.message).toMatch(/^No error or warning at or near the cursor/);
  });

  it('a question about code elsewhere, asked with the cursor in a function, is a workspace question, not a rename', async () => {
    const unions = [
      '/** A union of shapes told apart by their `kind` field. */',
      "export type Shape = { kind: 'circle'; radius: number } | { kind: 'square'; side: number };",
      '',
      "/** Picks the member of a discriminated union whose discriminator matches the value's. */",
      'export function matchMember(members: Shape[], value: { kind: string }): Shape | undefined {',
      '  return members.find((member) => member.kind === value.kind);',
      '}',
      '',
    ].join('\n');
    const editor = await start({ 'src/unions.ts': unions });
    // The cursor on an identifier offers rename, and "matched" is a word of its phrases ("rename the argument to match
    // its meaning"); no word of naming is here.
    const answer = await askAt(editor, 'src/cart.ts', 'total = 0', 'how are discriminated unions matched');
    expect(answer.task).toBe('question');
    const response = answer.responses.find((r) => r.status === 'ok');
    expect(response?.text).toMatch(/1\. src\/unions\.ts:\d+ — function matchMember/);
  });

  it('with no file open, a request no agent can carry out gets the places in the code where it is done, saying why', async () => {
    const editor = await start();
    // A change to make, worded as one: the generate and issue tasks need a model, which this workspace has not.
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'take a discount off the price of every item in the cart' });
    expect(answer.task).toBe('question');
    const text = answer.responses.find((r) => r.status === 'ok')?.text ?? '';
    expect(text).toMatch(/^This needs a model agent: .* Meanwhile, where the code does what the request says:/);
    expect(text).toMatch(/1\. src\/cart\.ts:\d+ — function applyDiscount/);
    expect(answer.message).not.toMatch(/ in ;/);
  });

  it('"create a class named SchemaCache …" is the class task, and without a model says a model agent is needed', async () => {
    const editor = await start();
    const doc = await editor.open('src/util.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'create a class named SchemaCache that caches JSON schemas by id', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('class');
    expect(answer.message).toMatch(/^This needs a model agent: no offline agent can write a new class\. Configure one/);
  });

  it('an issue described in words ("fix the bug where …") goes to the issue task, which needs a model', async () => {
    const editor = await start();
    const answer = await askAt(editor, 'src/util.ts', 'slugify(text', 'fix the bug where slugify keeps accents');
    expect(answer.task).toBe('issue');
    expect(answer.message).toMatch(/^This needs a model agent/);
  });

  it('"create a class InMemoryRepo that implements Repo" names the new class InMemoryRepo', async () => {
    const editor = await start();
    const doc = await editor.open('src/cart.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'create a class InMemoryRepo that implements Repo', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('implement');
    const created = answer.responses.flatMap((r) => (r.edit?.documentChanges ?? []).filter((c): c is CreateFile => 'kind' in c && c.kind === 'create'));
    expect(created.map((c) => path.basename(c.uri))).toContain('InMemoryRepo.ts');
    expect(editedTexts(answer)).toMatch(/class InMemoryRepo\b.*implements Repo\b/);
  });

  it('a name the current document binds wins over a declaration of it in another file', async () => {
    const editor = await start({
      'src/v3/types.ts': 'export class ZodType {\n  safeParse(data: unknown): { success: boolean } {\n    return { success: data !== undefined };\n  }\n}\n',
      'src/v4/parse.ts': [
        'const makeSafeParse = (strict: boolean) => (data: unknown): { success: boolean } => ({ success: strict ? data !== null && data !== undefined : true });',
        'export const safeParse = makeSafeParse(true);',
        '',
      ].join('\n'),
    });
    const doc = await editor.open('src/v4/parse.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'explain safeParse', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('explain');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.context.resource?.uri).toBe(doc.uri);
    expect(answer.message).not.toMatch(/v3/);
  });

  it('a name declared in several files means the one the package uses, not a legacy copy first by path', async () => {
    const editor = await start({
      'package.json': JSON.stringify({ name: 'shapes', exports: { '.': './dist/index.js' } }),
      'src/index.ts': "export { safeParse } from './v4/parse.js';\nexport { describeError } from './v4/errors.js';\n",
      'src/v3/types.ts': 'export class ZodType {\n  safeParse(data: unknown): { success: boolean } {\n    return { success: data !== undefined };\n  }\n}\n',
      'src/v4/parse.ts': 'export function safeParse(data: unknown): { success: boolean; data?: unknown } {\n  return data === undefined ? { success: false } : { success: true, data };\n}\n',
      'src/v4/errors.ts': 'export function describeError(message: string): string {\n  return `error: ${message}`;\n}\n',
    });
    // Asked from a file of the package that imports neither: `src/v3/types.ts` comes first by path, and is not what
    // the package exports.
    const doc = await editor.open('src/v4/errors.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'what does safeParse return', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('explain');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.context.resource?.uri).toMatch(/src\/v4\/parse\.ts$/);
  });

  it('an edit that lands in another file than the current one names that file, when proposed and when applied', async () => {
    const editor = await start();
    handleFiles(editor);
    const doc = await editor.open('src/util.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'create a class InMemoryRepo that implements Repo', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('implement');
    expect(answer.message).toMatch(/on Repo in src\/cart\.ts;/);
    const response = answer.responses.find((r) => r.edit)!;
    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(applied).toMatchObject({ applied: true, outcome: 'applied' });
    expect(applied.message).toBe('Edited src/InMemoryRepo.ts.');
  });
});
