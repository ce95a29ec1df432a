// End-to-end Implement task over --stdio: the code action, the new class file as CreateFile plus its content, revert, and the model retried until every member is written.
import fs from 'node:fs';
import path from 'node:path';
import { Project } from 'ts-morph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { RevertResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, handleFiles } from '../support/lspClient.js';
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


async function start(options: { model?: boolean } = {}): Promise<{ editor: TestEditor; root: string }> {
  const root = copyFixture('implement');
  roots.push(root);
  const { editor } = await TestEditor.start({
    root,
    env: options.model ? { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-classes' } : {},
    initializationOptions: { assistant: { disabledAgents: options.model ? ['implement-offline'] : [], orchestrator: { agentTimeoutMs: 90_000, maxAttempts: 3 } } },
  });
  editors.push(editor);
  handleFiles(editor);
  return { editor, root };
}

async function implementAction(editor: TestEditor, uri: string, needle: string): Promise<CodeAction> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor'] } });
  const implement = actions.filter((a) => a.kind === 'refactor.assistant.implement');
  expect(implement).toHaveLength(1);
  return implement[0]!;
}

function run(editor: TestEditor, action: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
}

/** Type errors of one file, plus `usage` appended, in a program over the whole workspace as its tsconfig describes it. */
function typeErrors(root: string, file: string, usage = ''): string[] {
  const project = new Project({ tsConfigFilePath: path.join(root, 'tsconfig.json') });
  const source = project.createSourceFile(file, `${fs.readFileSync(file, 'utf8')}${usage}`, { overwrite: true });
  return source.getPreEmitDiagnostics().map((d) => `${d.getLineNumber() ?? 0}: TS${d.getCode()}`);
}

const written = [
  "import type { Config, Listener } from './config.js';",
  "import type { Store } from './store.js';",
  '',
  'export class MemoryStore<T extends { id: string }> implements Store<T> {',
  "  readonly name = 'memory';",
  '  count = 0;',
  '  label?: string;',
  '  private readonly items = new Map<string, T>();',
  '  private readonly listeners: Listener<T>[] = [];',
  '',
  '  get(id: string): T | undefined {',
  '    return this.items.get(id);',
  '  }',
  '',
  '  async put(item: T): Promise<void> {',
  '    this.items.set(item.id, item);',
  '    this.count = this.items.size;',
  '    for (const listener of this.listeners) listener(item);',
  '  }',
  '',
  '  config(): Config {',
  "    return { host: 'localhost', port: 0 };",
  '  }',
  '',
  '  on(listener: Listener<T>): () => void {',
  '    this.listeners.push(listener);',
  '    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);',
  '  }',
  '',
  '  get size(): number {',
  '    return this.items.size;',
  '  }',
  '}',
].join('\n');

describe('assistant.implement offline', { timeout: 120_000 }, () => {
  it('creates the class file with every member filled by TypeScript, which type-checks, and reverts it', async () => {
    const { editor, root } = await start();
    const doc = await editor.open('src/store.ts');
    const action = await implementAction(editor, doc.uri, 'interface Store');
    expect(action.title).toBe('Assistant: Implement Store in a new class');
    const result = await run(editor, action);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });

    const uri = editor.uri('src/StoreImpl.ts');
    const changes = editor.applied[0]!.edit.documentChanges!;
    expect(changes[0]).toEqual({ kind: 'create', uri, options: { overwrite: false, ignoreIfExists: false } });
    expect((changes[1] as TextDocumentEdit).textDocument).toEqual({ uri, version: null });
    const file = path.join(root, 'src', 'StoreImpl.ts');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(new RegExp(`// @assistant task=implement agent=implement-offline interaction=${result.interactionId} at=\\S+\\nexport class StoreImpl<T extends \\{ id: string \\}> implements Store<T> \\{`));
    for (const member of ['name!: string;', 'count!: number;', 'label?: string | undefined;', 'get(_id: string): T | undefined {', 'put(_item: T): Promise<void> {', 'close?(): void {', 'config(): Config {', 'on(_listener: Listener<T>): () => void {', 'get size(): number {']) {
      expect(text).toContain(member);
    }
    expect(typeErrors(root, file, '\nexport const made: Store<{ id: string }> = new StoreImpl();\n')).toEqual([]);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, verdict: { passed: true, summary: 'src/StoreImpl.ts type-checks; 9 members, to be written' } });

    const reverted = await editor.request<RevertResult>('assistant/revert', { interactionId: result.interactionId });
    expect(reverted).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(editor.applied.at(-1)!.edit.documentChanges).toEqual([{ kind: 'delete', uri }]);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('creates a subclass of an abstract class with a protected constructor', async () => {
    const { editor, root } = await start();
    const doc = await editor.open('src/shape.ts');
    const result = await run(editor, await implementAction(editor, doc.uri, 'abstract area'));
    expect(result.applied).toBe(true);
    const file = path.join(root, 'src', 'ConcreteShape.ts');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('export class ConcreteShape extends Shape {\n  constructor(label: string, options?: ShapeOptions) {');
    expect(text).toContain('protected override describe(_unit: Unit): string {');
    expect(typeErrors(root, file, "\nexport const made = new ConcreteShape('square');\n")).toEqual([]);
  });
});

describe('assistant.implement with a model', { timeout: 120_000 }, () => {
  it('rejects a class that leaves members unwritten, asks again, and applies the written one', async () => {
    const { editor, root } = await start({ model: true });
    const doc = await editor.open('src/store.ts');
    const placeholder = written.replace('  get(id: string): T | undefined {\n    return this.items.get(id);\n  }', "  get(_id: string): T | undefined {\n    throw new Error('Method not implemented.');\n  }");
    model.enqueue({ kind: 'text', content: `\`\`\`typescript\n${placeholder}\n\`\`\`` }, { kind: 'text', content: `\`\`\`typescript\n${written}\n\`\`\`` });
    const result = await run(editor, await implementAction(editor, doc.uri, 'interface Store'));
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(model.requests).toHaveLength(2);
    // The prompt carries the skeleton TypeScript's fixes wrote.
    const prompt = JSON.stringify(model.requests[0]!.body.messages);
    expect(prompt).toContain('export class StoreImpl<T extends { id: string }> implements Store<T>');
    expect(prompt).toContain('Method not implemented.');
    const retry = model.requests[1]!.body.messages as { role: string; content: string }[];
    expect(retry.at(-1)!.content).toContain('1 member is not written yet\nget still throws "not implemented": write its body');

    const file = path.join(root, 'src', 'MemoryStore.ts');
    expect(fs.readFileSync(file, 'utf8')).toContain('return this.items.get(id);');
    expect(typeErrors(root, file)).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, attempts: 2, verdict: { passed: true, summary: 'src/MemoryStore.ts type-checks; 10 members written' } });
  });
});
