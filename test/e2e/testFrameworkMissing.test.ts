// Generate tests in a project whose test framework is not installed, over --stdio: the refusal names that cause, not the type errors it makes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, handleFiles } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

describe('Generate tests without the test framework installed', () => {
  it('refuses the scaffold saying that vitest is not installed, with the type errors kept as details', async () => {
    // The fixture names vitest in package.json, and nothing installed it: no node_modules anywhere above.
    const root = copyFixture('tests-vitest');
    expect(fs.existsSync(path.join(root, 'node_modules'))).toBe(false);
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    handleFiles(editor);
    const doc = await editor.open('src/math/clamp.ts');
    const position = editor.position(doc.uri, 'clamp(value');
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['source.assistant.test'] } });
    expect(actions.map((a) => a.title)).toEqual(['Assistant: Generate tests for clamp']);
    const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: actions[0]!.command!.command, arguments: actions[0]!.command!.arguments });

    const cause = 'vitest is not installed in this project (no node_modules/vitest): install it to run the generated tests';
    expect(result.applied).toBe(false);
    expect(result.message).toContain(cause);
    expect(result.message).not.toMatch(/type error/);
    // What the user reads is the same.
    expect(editor.messages.map((m) => m.message).join('\n')).toContain(cause);
    expect(editor.applied).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    const verdict = trace.interactions[0]!.responses[0]!.verdict!;
    expect(verdict).toMatchObject({ passed: false, summary: cause });
    expect(verdict.details?.join('\n')).toMatch(/TS2307 Cannot find module 'vitest'/);
  });
});
