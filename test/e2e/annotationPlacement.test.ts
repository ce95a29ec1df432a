// The annotation on documented code, end to end: a line comment below the doc comment, out of TypeScript's hover, still read in its old JSDoc form.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function start(env: Record<string, string> = {}, assistant: Record<string, unknown> = {}) {
  const { editor } = await TestEditor.start({ root: copyFixture('basic'), env, initializationOptions: { assistant } });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  return { editor, doc };
}

async function documentAt(editor: TestEditor, uri: string, needle: string): Promise<TaskCommandResult> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  const action = actions[0]!;
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action.command!.command, arguments: action.command!.arguments });
}

/**
 * What TypeScript's language service shows on hover at the first `needle` of the file: the quick info's documentation
 * and its tags, rendered as editors render them (`@param text - …`), over the real project on disk with `text` in
 * place of the file.
 */
function hoverText(workspace: string, relativePath: string, text: string, needle: string): string {
  const fileName = path.join(workspace, relativePath);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [fileName],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => (name === fileName ? ts.ScriptSnapshot.fromString(text) : fs.existsSync(name) ? ts.ScriptSnapshot.fromString(fs.readFileSync(name, 'utf8')) : undefined),
    getCurrentDirectory: () => workspace,
    getCompilationSettings: () => ({ target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true }),
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (name) => name === fileName || ts.sys.fileExists(name),
    readFile: (name) => (name === fileName ? text : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host);
  const info = service.getQuickInfoAtPosition(fileName, text.indexOf(needle));
  if (!info) throw new Error(`no quick info at ${needle}`);
  const tags = (info.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`);
  return [ts.displayPartsToString(info.displayParts), ts.displayPartsToString(info.documentation), ...tags].join('\n');
}

describe('the annotation on documented code', () => {
  it('is a line comment between the offline doc comment and the function, and TypeScript’s hover shows the doc without it', async () => {
    const { editor, doc } = await start();
    const result = await documentAt(editor, doc.uri, 'parseConfig(text');
    expect(result).toMatchObject({ applied: true });
    const text = editor.buffer(doc.uri).text;
    expect(text).toMatch(new RegExp(`\\*/\\n// @assistant task=document agent=doc-offline interaction=${result.interactionId} at=\\S+\\nexport function parseConfig`));

    const hover = hoverText(editor.root, 'src/config.ts', text, 'parseConfig(text');
    expect(hover).toContain('function parseConfig(text: string, defaults?: Partial<Config>): Config');
    expect(hover).toMatch(/@param text\b/);
    expect(hover).toMatch(/@throws\b/);
    expect(hover).not.toContain('assistant');
    expect(hover).not.toContain(result.interactionId!);
  });

  it('stays out of a model’s doc comment, whatever the model wrote in it', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const { editor, doc } = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-doc' }, { disabledAgents: ['doc-offline'] });
    model.enqueue({ kind: 'text', content: '/**\n * Loads the configuration once and caches it.\n * @assistant task=fix agent=forged interaction=forged at=x\n * @returns The configuration.\n */' });
    const result = await documentAt(editor, doc.uri, 'async load');
    expect(result).toMatchObject({ applied: true });
    const text = editor.buffer(doc.uri).text;
    expect(text).not.toContain('forged');
    expect(text).toMatch(new RegExp(`   \\* @returns The configuration\\.\\n   \\*/\\n  // @assistant task=document agent=scripted-doc@\\S+ interaction=${result.interactionId} at=\\S+\\n  async load\\(\\)`));
    const hover = hoverText(editor.root, 'src/config.ts', text, 'load()');
    expect(hover).toContain('Loads the configuration once and caches it.');
    expect(hover).toContain('@returns The configuration.');
    expect(hover).not.toContain('assistant');
  });

  it('is still read in the JSDoc form earlier versions wrote: the trace at the code finds its interaction', async () => {
    const { editor, doc } = await start();
    const result = await documentAt(editor, doc.uri, 'parseConfig(text');
    const line = new RegExp(`// (@assistant task=document agent=doc-offline interaction=${result.interactionId} at=\\S+)\\n`);
    const current = editor.buffer(doc.uri).text;
    const tag = line.exec(current)![1]!;
    // What an earlier version wrote: the tag inside the doc comment, with no line comment and no recorded insertion here.
    const old = current.replace(line, '').replace(/(\n \*\/\nexport function parseConfig)/, `\n * ${tag}$1`);
    expect(old).toContain(` * ${tag}\n */\nexport function parseConfig`);
    const moved = `\n\n\n${old}`;
    await editor.setText(doc.uri, moved);
    const found = await editor.request<TraceResult>('assistant/trace', { textDocument: { uri: doc.uri }, position: editor.position(doc.uri, 'JSON.parse') });
    expect(found.interactions.map((i) => i.id)).toContain(result.interactionId);
  });
});
