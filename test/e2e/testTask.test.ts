// End-to-end Test task over --stdio: the code action, the new test file as CreateFile plus its content, appending, revert, and the model retried until its tests pass.
import fs from 'node:fs';
import path from 'node:path';
import { Project } from 'ts-morph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { RevertResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, linkModules, handleFiles } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
const editors: TestEditor[] = [];
const roots: string[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model.close();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** The vitest fixture with the repository's node_modules linked in, so vitest's types (and vitest itself) resolve. */
function workspace(): string {
  const root = copyFixture('tests-vitest');
  roots.push(root);
  linkModules(root);
  return root;
}


async function start(root: string, options: { model?: boolean; runTests?: boolean } = {}): Promise<TestEditor> {
  const { editor } = await TestEditor.start({
    root,
    env: options.model ? { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-tests' } : {},
    initializationOptions: {
      assistant: {
        disabledAgents: options.model ? ['test-scaffold-offline'] : [],
        orchestrator: { agentTimeoutMs: 90_000, maxAttempts: 3 },
        oracle: { runTests: options.runTests ?? false, testTimeoutMs: 60_000 },
      },
    },
  });
  editors.push(editor);
  handleFiles(editor);
  return editor;
}

async function testAction(editor: TestEditor, uri: string, needle: string): Promise<CodeAction> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['source.assistant.test'] } });
  expect(actions).toHaveLength(1);
  return actions[0]!;
}

function run(editor: TestEditor, action: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
}

/** Type errors of one file in a program over the whole workspace, as its tsconfig describes it. */
function typeErrors(root: string, file: string): string[] {
  const project = new Project({ tsConfigFilePath: path.join(root, 'tsconfig.json') });
  return project.getSourceFileOrThrow(file).getPreEmitDiagnostics().map((d) => `${d.getLineNumber() ?? 0}: TS${d.getCode()}`);
}

const header = "import { describe, expect, it } from 'vitest';\nimport { clamp } from '../../src/math/clamp.js';\n\n";
const wrongType = `${header}describe('clamp', () => {\n  it('keeps values inside the range', () => {\n    expect(clamp('5', 0, 10)).toBe(5);\n  });\n});\n`;
const wrongResult = `${header}describe('clamp', () => {\n  it('raises values to the minimum', () => {\n    expect(clamp(-5, 0, 10)).toBe(-5);\n  });\n});\n`;
const right = `${header}describe('clamp', () => {\n  it('keeps values inside the range', () => {\n    expect(clamp(5, 0, 10)).toBe(5);\n  });\n  it('raises values to the minimum', () => {\n    expect(clamp(-5, 0, 10)).toBe(0);\n  });\n  it('throws RangeError when min > max', () => {\n    expect(() => clamp(1, 2, 0)).toThrow(RangeError);\n  });\n});\n`;
const fenced = (code: string): string => `Here are the tests.\n\n\`\`\`ts\n${code}\`\`\`\n`;

describe('assistant.test offline', { timeout: 120_000 }, () => {
  it('creates the test file with CreateFile and its content, a scaffold that type-checks, and reverts it', async () => {
    const root = workspace();
    const editor = await start(root);
    const doc = await editor.open('src/config.ts');
    const action = await testAction(editor, doc.uri, 'parseConfig(text');
    expect(action).toMatchObject({ title: 'Assistant: Generate tests for parseConfig', kind: 'source.assistant.test' });
    const result = await run(editor, action);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });

    const testFile = path.join(root, 'test', 'config.test.ts');
    const testUri = editor.uri('test/config.test.ts');
    const changes = editor.applied[0]!.edit.documentChanges!;
    expect(changes[0]).toEqual({ kind: 'create', uri: testUri, options: { overwrite: false, ignoreIfExists: false } });
    const fill = changes[1] as TextDocumentEdit;
    expect(fill.textDocument).toEqual({ uri: testUri, version: null });
    const text = fs.readFileSync(testFile, 'utf8');
    const edit = fill.edits[0]!;
    expect(text).toBe('newText' in edit ? edit.newText : undefined);
    expect(text).toContain("import { parseConfig } from '../src/config.js';");
    expect(text).toMatch(new RegExp(`// @assistant task=test agent=test-scaffold-offline interaction=${result.interactionId} at=\\S+\\ndescribe\\('parseConfig', \\(\\) => \\{`));
    expect(text).toContain("  it.todo('throws RangeError when timeoutMs < 0');");
    expect(typeErrors(root, testFile)).toEqual([]);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, agent: { name: 'test-scaffold-offline', technology: 'rule' }, verdict: { passed: true, summary: 'the scaffold type-checks (not run: oracle.runTests is off)' } });

    const reverted = await editor.request<RevertResult>('assistant/revert', { interactionId: result.interactionId });
    expect(reverted).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(editor.applied.at(-1)!.edit.documentChanges).toEqual([{ kind: 'delete', uri: testUri }]);
    expect(fs.existsSync(testFile)).toBe(false);
  });

  it('appends a describe to the existing test file, merging its imports', async () => {
    const root = workspace();
    const editor = await start(root);
    const doc = await editor.open('src/util/strings.ts');
    const testFile = path.join(root, 'test', 'util', 'strings.test.ts');
    const before = fs.readFileSync(testFile, 'utf8');
    const result = await run(editor, await testAction(editor, doc.uri, 'capitalize(word'));
    expect(result.applied).toBe(true);
    const changes = editor.applied[0]!.edit.documentChanges!;
    expect(changes).toHaveLength(1);
    expect((changes[0] as TextDocumentEdit).textDocument).toEqual({ uri: editor.uri('test/util/strings.test.ts'), version: null });
    const after = fs.readFileSync(testFile, 'utf8');
    expect(after.startsWith(before.replace("import { slugify } from '../../src/util/strings.js';", "import { slugify, capitalize } from '../../src/util/strings.js';"))).toBe(true);
    expect(after).toContain("describe('capitalize', () => {");
    expect(typeErrors(root, testFile)).toEqual([]);
  });
});

describe('assistant.test with a model', { timeout: 180_000 }, () => {
  it('rejects a test file that does not type-check, asks again with the errors, and applies the one that does', async () => {
    const root = workspace();
    const editor = await start(root, { model: true });
    const doc = await editor.open('src/math/clamp.ts');
    model.enqueue({ kind: 'text', content: fenced(wrongType) }, { kind: 'text', content: fenced(right) });
    const result = await run(editor, await testAction(editor, doc.uri, 'clamp(value'));
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(model.requests).toHaveLength(2);
    const first = JSON.stringify(model.requests[0]!.body.messages);
    expect(first).toContain('test/math/clamp.test.ts');
    expect(first).toContain('vitest');
    expect(first).toContain('throws RangeError when min > max');
    const retry = model.requests[1]!.body.messages as { role: string; content: string }[];
    expect(retry.at(-1)!.content).toMatch(/That was rejected:\n1 type error in test\/math\/clamp\.test\.ts\ntest\/math\/clamp\.test\.ts:\d+:\d+ TS2345 Argument of type .string. is not assignable/);

    const testFile = path.join(root, 'test', 'math', 'clamp.test.ts');
    const text = fs.readFileSync(testFile, 'utf8');
    expect(text).toContain("it('throws RangeError when min > max'");
    expect(text).toContain('// @assistant task=test agent=scripted-tests@');
    expect(typeErrors(root, testFile)).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, attempts: 2, verdict: { passed: true, summary: 'the tests type-check (not run: oracle.runTests is off)' } });
  });

  it('runs the tests when oracle.runTests is on, and retries with the failures until they pass', async () => {
    const root = workspace();
    const editor = await start(root, { model: true, runTests: true });
    const doc = await editor.open('src/math/clamp.ts');
    model.enqueue({ kind: 'text', content: fenced(wrongResult) }, { kind: 'text', content: fenced(right) });
    const result = await run(editor, await testAction(editor, doc.uri, 'clamp(value'));
    expect(result.applied).toBe(true);
    const retry = model.requests[1]!.body.messages as { role: string; content: string }[];
    expect(retry.at(-1)!.content).toContain('the tests fail (vitest run test/math/clamp.test.ts --watch=false exited with 1)');
    expect(retry.at(-1)!.content).toMatch(/expected \+?0 to be -5/);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ attempts: 2, verdict: { passed: true, summary: 'the tests type-check and pass (vitest run test/math/clamp.test.ts --watch=false)' } });
  });
});
