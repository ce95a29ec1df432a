// End-to-end, what a model's prompt holds over --stdio: the declarations the code uses through its imports (not another copy of the name), no span twice, no annotation, nothing from unrelated files, and an issue's starting files without locale or test noise.
import { describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import type { AskResult } from '../../protocol/src/index.js';
import { TestEditor, handleFiles } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';

const suite = scriptedSuite();

/** The user messages of the nth chat request, joined. */
function userPrompt(n = 0): string {
  const chats = suite.model.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const messages = (chats[n]?.body.messages ?? []) as { role: string; content: string }[];
  return messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The fixture open in an editor, after the user looked at an unrelated file and at the errors module. */
async function session(): Promise<{ editor: TestEditor; errors: string }> {
  const root = suite.workspace('promptcontext', { link: false });
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-writer' },
    initializationOptions: { assistant: { disabledAgents: ['doc-offline', 'fix-offline', 'test-scaffold-offline', 'rename-offline'], annotations: { enabled: false } } },
  });
  suite.track(editor);
  handleFiles(editor);
  const errors = await editor.open('src/v4/errors.ts');
  const palette = await editor.open('src/colors/palette.ts');
  const at = (uri: string, needle: string) => ({ start: editor.position(uri, needle), end: editor.position(uri, needle) });
  for (const [uri, needle] of [[palette.uri, 'blend('], [palette.uri, 'shade('], [errors.uri, 'summarize(']] as const) {
    await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: at(uri, needle), context: { diagnostics: [] } });
  }
  return { editor, errors: errors.uri };
}

describe('prompt context', { timeout: 120_000 }, () => {
  it('gives the declarations the code uses through its imports, and no unrelated open document or recent place', async () => {
    const { editor, errors } = await session();
    suite.model.enqueue({ kind: 'text', content: '/** Each issue on a line of its own. */' });
    const position = editor.position(errors, 'prettify(error');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document this function', task: 'document', textDocument: { uri: errors }, range: { start: position, end: position } });
    expect(answer.responses[0]?.status).toBe('ok');
    const prompt = userPrompt();
    // `StandardSchemaV1.FailureResult` through `./index.js`'s re-export: v4's namespace member, not v3's copy.
    expect(prompt).toContain('The result when validation fails (current v4).');
    // The type of `error.issues`, which the code reads without naming it.
    expect(prompt).toContain('One problem found (current v4).');
    expect(prompt).not.toMatch(/legacyV3/);
    expect(prompt).toMatch(/#### function `joinPath` \(src\/v4\/paths\.ts:3-6\)/);
    // The palette was open and visited, but the function has nothing to do with it.
    expect(prompt).not.toContain('palette');
    expect(prompt).not.toContain('unrelatedPaletteMarker');
  });

  it('sends a long function once for a one-line fix, and never an annotation', async () => {
    const { editor, errors } = await session();
    const text = editor.buffer(errors).text;
    await editor.setText(errors, text.replace('lines.push(`  ${where}`);', 'lines.push(`  ${whre}`);'));
    const start = editor.position(errors, 'whre');
    const diagnostic: Diagnostic = { range: { start, end: { line: start.line, character: start.character + 4 } }, severity: 1, code: 2552, source: 'ts', message: "Cannot find name 'whre'. Did you mean 'where'?" };
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: errors }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
    const fix = actions.find((a) => a.command?.command === 'assistant.fix');
    expect(fix).toBeDefined();
    suite.model.enqueue({ kind: 'text', content: '```ts\nexport function summarize(): string {\n  return "";\n}\n```' });
    await editor.request('workspace/executeCommand', { command: fix!.command!.command, arguments: fix!.command!.arguments });
    const prompt = userPrompt();
    expect(prompt).toContain('lines.push(`  ${whre}`);');
    // Lines of the function the fix is in, anywhere else than the function itself, would be a second copy.
    for (const line of ['const byPath = new Map<string, string[]>();', 'const rule = \'-\'.repeat(Math.min(longest, 72));', 'if (unplaced > 0) {']) expect(occurrences(prompt, line)).toBe(1);
    // The imports, for a fix that needs one; `prettify`, which it calls, with its doc comment but not its annotation.
    expect(prompt).toContain("import { joinPath } from './paths.js';");
    expect(prompt).toContain('Each issue of a failed validation on a line of its own');
    expect(prompt).not.toContain('@assistant');
    expect(prompt).not.toContain('annotation-canary-41');
  });

  it('gives a test prompt the types the code uses, not its whole module', async () => {
    const { editor, errors } = await session();
    suite.model.enqueue({ kind: 'text', content: "```ts\nimport { describe, it } from 'vitest';\ndescribe('prettify', () => { it('runs', () => {}); });\n```" });
    const position = editor.position(errors, 'prettify(error');
    await editor.request<AskResult>('assistant/ask', { text: 'write tests for prettify', task: 'test', textDocument: { uri: errors }, range: { start: position, end: position } });
    const prompt = userPrompt();
    expect(prompt).toContain('The result when validation fails (current v4).');
    // The rest of the module (`summarize`, which `prettify` does not use) is not sent for its types.
    expect(prompt).not.toContain("const rule = '-'.repeat(Math.min(longest, 72));");
    expect(prompt).not.toContain('issue(s) without a path');
    expect(prompt).not.toContain('@assistant');
  });

  it("lists an issue's starting files without locales and tests unless the issue points there", async () => {
    const { editor, errors } = await session();
    suite.model.enqueue({ kind: 'text', content: '{"locations": []}' }, { kind: 'text', content: '{"locations": []}' });
    await editor.request<AskResult>('assistant/ask', { text: 'prettify should put issues without a path first', task: 'issue', textDocument: { uri: errors } });
    const listed = userPrompt().split('Some files of the repository:\n')[1] ?? '';
    expect(listed).toContain('src/v4/errors.ts');
    expect(listed).not.toMatch(/locales\//);
    expect(listed).not.toMatch(/\.test\.ts/);

    suite.model.enqueue({ kind: 'text', content: '{"locations": []}' }, { kind: 'text', content: '{"locations": []}' });
    const before = suite.model.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    await editor.request<AskResult>('assistant/ask', { text: 'the French locale message for required is wrong', task: 'issue', textDocument: { uri: errors } });
    expect(userPrompt(before).split('Some files of the repository:\n')[1]).toMatch(/src\/v4\/locales\/fr\.ts/);
  });
});
