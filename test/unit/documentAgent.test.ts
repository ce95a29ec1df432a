// Unit tests for the offline Document agent: real fixtures on disk, a real ts-morph project, real abort signals.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ts } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineDocumentAgent, documentDeclaration } from '../../server/src/agents/offline/documentAgent.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import { declarationAt, listDeclarations } from '../../server/src/repo/declarations.js';
import type { DeclarationTarget } from '../../server/src/repo/declarations.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { indentBlock, parseJsDoc, renderJsDoc } from '../../server/src/edits/jsdoc.js';

let workspace: string;
let project: WorkspaceProject;
let ws: Workspace;
const agent = new OfflineDocumentAgent();

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'document-agent-'));
  fs.writeFileSync(
    path.join(workspace, 'config.ts'),
    'export interface Config { port: number }\nexport async function readConfig(file: string): Promise<Config> { return { port: Number(file.length) }; }\n',
  );
  ws = new Workspace(workspace);
  project = ws.projects.workspace;
});

afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

function writeFixture(fileName: string, text: string): string {
  const fsPath = path.join(workspace, fileName);
  fs.writeFileSync(fsPath, text);
  return fsPath;
}

function targetNamed(fsPath: string, text: string, name: string): DeclarationTarget {
  const target = listDeclarations(fsPath, text).find((candidate) => candidate.name === name);
  if (!target) throw new Error(`no declaration named ${name}`);
  return target;
}

function requestFor(fsPath: string | undefined, text: string, target: DeclarationTarget, languageId = 'typescript'): AgentRequest {
  return {
    task: 'document',
    interactionId: 'test',
    text: 'document this',
    document: { uri: fsPath ? `file://${fsPath}` : 'untitled:Untitled-1', fsPath, languageId, version: 1, text },
    target: declarationTarget(target),
    parameters: {},
    history: [],
    workspace: ws,
    project,
  };
}

/** Documents the declaration `name` in a fixture file and checks the result re-parses as that declaration's only JSDoc. */
async function documentNamed(fileName: string, text: string, name: string): Promise<string> {
  const fsPath = writeFixture(fileName, text);
  const target = targetNamed(fsPath, text, name);
  const languageId = /\.js$/.test(fileName) ? 'javascript' : 'typescript';
  const answer = await agent.run(requestFor(fsPath, text, target, languageId), new AbortController().signal);
  expectWellFormed(answer.text);
  expectTypeScriptSeesIt(fileName, text, target, answer.text);
  return answer.text;
}

function expectWellFormed(doc: string): void {
  const lines = doc.split('\n');
  expect(lines[0]).toBe('/**');
  expect(lines[lines.length - 1]).toBe(' */');
  for (const line of lines.slice(1, -1)) expect(line === ' *' || line.startsWith(' * ')).toBe(true);
  expect(doc.indexOf('*/')).toBe(doc.length - 2);
}

/** Puts the doc above (or in place of) the declaration's comment and asks TypeScript what it sees. */
function expectTypeScriptSeesIt(fileName: string, text: string, target: DeclarationTarget, doc: string): void {
  const indented = indentBlock(doc, target.indent);
  const updated = target.existingDoc
    ? text.slice(0, target.existingDoc.start) + indented.slice(target.indent.length).replace(/\n$/, '') + text.slice(target.existingDoc.end)
    : text.slice(0, target.lineStart) + indented + text.slice(target.lineStart);
  const kind = /\.js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, updated, ts.ScriptTarget.Latest, true, kind);
  expect((source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
  const updatedTarget = listDeclarations(fileName, updated).find((candidate) => candidate.name === target.name);
  expect(updatedTarget?.existingDoc?.text).toBe(indented.slice(target.indent.length).replace(/\n$/, ''));
  const node = findDeclarationNode(source, target.simpleName, target.kind);
  if (!node) throw new Error(`TypeScript cannot find ${target.name}`);
  const jsDocs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  expect(jsDocs).toHaveLength(1);
  const parameters = ts.isFunctionLike(node) ? node.parameters.filter((parameter) => parameter.name.getText(source) !== 'this') : [];
  const parameterTags = ts.getJSDocTags(node).filter(ts.isJSDocParameterTag);
  const topLevelTags = parameterTags.filter((tag) => !tag.name.getText(source).includes('.'));
  expect(topLevelTags).toHaveLength(parameters.length);
  parameters.forEach((parameter, index) => {
    if (ts.isIdentifier(parameter.name)) {
      expect(ts.getJSDocParameterTags(parameter).map((tag) => tag.name.getText(source))).toEqual([parameter.name.text]);
    } else {
      expect(topLevelTags[index]?.name.getText(source)).toMatch(/^\w+$/);
    }
  });
}

function findDeclarationNode(source: ts.SourceFile, simpleName: string, kind: DeclarationTarget['kind']): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (kind === 'constructor' && ts.isConstructorDeclaration(node)) found = node;
    else if (kind === 'arrow-function' && ts.isVariableDeclaration(node) && node.name.getText(source) === simpleName && node.initializer) found = node.initializer;
    else if (kind !== 'arrow-function' && kind !== 'constructor' && 'name' in node && (node as ts.NamedDeclaration).name?.getText(source) === simpleName && (ts.isFunctionLike(node) || ts.isClassLike(node) || ts.isInterfaceDeclaration(node))) found = node;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function summaryOf(doc: string): string {
  return parseJsDoc(doc).description;
}

describe('OfflineDocumentAgent', () => {
  it('describes itself', () => {
    expect(agent.descriptor).toEqual({ name: 'doc-offline', technology: 'rule', isLLM: false });
    expect(agent.tasks).toEqual(['document']);
    expect(agent.description).toMatch(/\.$/);
  });

  it('documents a function with parameters, a return value and a throw inside an if', async () => {
    const text = [
      "import type { Config } from './config.js';",
      'export async function loadConfig(filePath: string, timeoutMs: number): Promise<Config> {',
      '  if (timeoutMs < 0) {',
      "    throw new RangeError('negative timeout');",
      '  }',
      '  return { port: filePath.length };',
      '}',
    ].join('\n');
    const doc = await documentNamed('load.ts', text, 'loadConfig');
    expect(doc).toBe(
      [
        '/**',
        ' * Loads the config.',
        ' *',
        ' * @param filePath - The file path.',
        ' * @param timeoutMs - The timeout in milliseconds.',
        ' * @returns A promise that resolves to the config.',
        ' * @throws {RangeError} If `timeoutMs < 0`.',
        ' */',
      ].join('\n'),
    );
  });

  it('uses the checker for inferred return types of imported functions', async () => {
    const text = "import { readConfig } from './config.js';\nexport function fetchSettings(file: string) {\n  return readConfig(file);\n}\n";
    const doc = await documentNamed('inferred.ts', text, 'fetchSettings');
    expect(doc).toContain('@returns A promise that resolves to the settings.');
  });

  it('documents a destructured parameter with TypeScript-style names', async () => {
    const text = [
      'export function connect({ host, port = 80, tls: { enabled } }: { host: string; port?: number; tls: { enabled: boolean } }, retries: number): void {',
      '  void host; void port; void enabled; void retries;',
      '}',
    ].join('\n');
    const doc = await documentNamed('connect.ts', text, 'connect');
    const names = parseJsDoc(doc).tags.filter((tag) => tag.tag === 'param').map((tag) => tag.name);
    expect(names).toEqual(['root0', 'root0.host', 'root0.port', 'root0.tls', 'root0.tls.enabled', 'retries']);
    expect(doc).toContain('@param root0.port - The port. Defaults to `80`.');
    expect(doc).toContain('@param root0.tls.enabled - Whether TLS is enabled.');
    expect(doc).not.toContain('@returns');
  });

  it('documents rest, optional and default parameters', async () => {
    const text = 'export function joinPaths(separator = "/", verbose?: boolean, ...segments: string[]): string {\n  return verbose ? segments.join(separator) : "";\n}\n';
    const doc = await documentNamed('join.ts', text, 'joinPaths');
    expect(doc).toContain('@param separator - The separator. Defaults to `"/"`.');
    expect(doc).toContain('@param verbose - Whether verbose mode is enabled. Optional.');
    expect(doc).toContain('@param segments - The segments.');
    expect(doc).not.toContain('...segments');
    expect(doc).toContain('@returns The joined paths.');
  });

  it('adds no @returns for an async function returning Promise<void>', async () => {
    const text = 'export async function saveUsers(users: string[]): Promise<void> {\n  await Promise.resolve(users);\n}\n';
    const doc = await documentNamed('save.ts', text, 'saveUsers');
    expect(summaryOf(doc)).toBe('Saves the users.');
    expect(doc).not.toContain('@returns');
  });

  it('documents type parameters with their constraints', async () => {
    const text = 'export function firstOf<T extends object>(items: readonly T[]): T | undefined {\n  return items[0];\n}\n';
    const doc = await documentNamed('first.ts', text, 'firstOf');
    expect(doc).toContain('@template T - The type of the elements of `items`. Must extend `object`.');
    expect(doc).toContain('@returns');
    expect(doc.indexOf('@template')).toBeLessThan(doc.indexOf('@param'));
  });

  it('documents a class with extends and implements', async () => {
    const text = 'export class HttpError extends Error implements Disposable {\n  [Symbol.dispose](): void {}\n}\n';
    const doc = await documentNamed('httpError.ts', text, 'HttpError');
    expect(doc).toBe('/**\n * Represents an HTTP error, extending `Error` and implementing `Disposable`.\n */');
  });

  it('documents a method, a getter and a constructor in a class', async () => {
    const text = [
      'export class UserCache {',
      '  private readonly entries = new Map<string, string>();',
      '  constructor(private readonly capacity: number, label?: string) {',
      '    void label;',
      '  }',
      '  hasUser(user: string): boolean {',
      '    return this.entries.has(user);',
      '  }',
      '  get isFull(): boolean {',
      '    return this.entries.size >= this.capacity;',
      '  }',
      '}',
    ].join('\n');
    const method = await documentNamed('cache.ts', text, 'UserCache.hasUser');
    expect(method).toBe(
      ['/**', ' * Checks whether the user cache has the given user.', ' *', ' * @param user - The user.', ' * @returns `true` if the user cache has the given user, otherwise `false`.', ' */'].join('\n'),
    );
    const getter = await documentNamed('cache.ts', text, 'UserCache.isFull');
    expect(summaryOf(getter)).toBe('Checks whether the user cache is full.');
    const constructorDoc = await documentNamed('cache.ts', text, 'UserCache.constructor');
    expect(constructorDoc).toBe(['/**', ' * Creates a new `UserCache`.', ' *', ' * @param capacity - The capacity.', ' * @param label - The label. Optional.', ' */'].join('\n'));
  });

  it('documents an arrow function stored in a variable', async () => {
    const text = 'export const isValidEmail = (email: string): boolean => /@/.test(email);\n';
    const doc = await documentNamed('email.ts', text, 'isValidEmail');
    expect(doc).toBe(['/**', ' * Checks whether the given email is valid.', ' *', ' * @param email - The email.', ' * @returns `true` if the given email is valid, otherwise `false`.', ' */'].join('\n'));
  });

  it('completes an existing partial comment, keeping its description and tags verbatim', async () => {
    const text = [
      'export class Store {',
      '  /**',
      '   * Loads the configuration from disk,',
      '   *   merging in the defaults.',
      '   * @param   path   Where the file lives (absolute).',
      '   * @throws {RangeError} When the timeout is negative.',
      '   */',
      '  async load(path: string, timeoutMs: number): Promise<number> {',
      "    if (timeoutMs < 0) throw new RangeError('negative');",
      "    if (!path) throw new TypeError('empty path');",
      '    return timeoutMs;',
      '  }',
      '}',
    ].join('\n');
    const doc = await documentNamed('store.ts', text, 'Store.load');
    expect(doc).toBe(
      [
        '/**',
        ' * Loads the configuration from disk,',
        ' *   merging in the defaults.',
        ' *',
        ' * @param   path   Where the file lives (absolute).',
        ' * @param timeoutMs The timeout in milliseconds.',
        ' * @returns A promise that resolves to the resulting number.',
        ' * @throws {RangeError} When the timeout is negative.',
        ' * @throws {TypeError} If `!path`.',
        ' */',
      ].join('\n'),
    );
  });

  it('adds a summary to an existing comment without a description', async () => {
    const text = 'export class Box {\n  /**\n   * @param value - The new value.\n   */\n  set content(value: string) {\n    void value;\n  }\n}\n';
    const doc = await documentNamed('box.ts', text, 'Box.content');
    expect(doc).toBe('/**\n * Sets the content.\n *\n * @param value - The new value.\n */');
  });

  it('returns a complete comment unchanged', async () => {
    const existing = ['/**', '   * Adds two numbers.', '   * @param a - The first number.', '   * @param b - The second number.', '   * @returns The sum.', '   */'];
    const text = ['  ' + existing.join('\n'), '  export function add(a: number, b: number): number {', '    return a + b;', '  }'].join('\n');
    const doc = await documentNamed('add.ts', text, 'add');
    expect(doc).toBe(['/**', ' * Adds two numbers.', ' * @param a - The first number.', ' * @param b - The second number.', ' * @returns The sum.', ' */'].join('\n'));
  });

  it('reuses the name an existing comment gives a destructured parameter', async () => {
    const text = '/**\n * Starts it.\n * @param options - The options.\n */\nexport function start({ port }: { port: number }, verbose: boolean): void {\n  void port; void verbose;\n}\n';
    const doc = await documentNamed('start.ts', text, 'start');
    expect(doc).toContain('@param options.port - The port.');
    expect(doc).not.toContain('root0');
  });

  it('writes {type}s in JavaScript files', async () => {
    const text = [
      'export async function readSettings(file, { strict = false } = {}, ...extra) {',
      "  if (!file) throw new TypeError('file required');",
      "  return { file, strict, count: extra.length, name: 'x' };",
      '}',
      'export function scaleAll(values = [1, 2], factor = 2) {',
      '  return values.map((value) => value * factor);',
      '}',
    ].join('\n');
    const doc = await documentNamed('settings.js', text, 'readSettings');
    expect(doc).toContain('@param {*} file - The file.');
    expect(doc).toContain('@param {object} [root0={}] - The options object. Defaults to `{}`.');
    expect(doc).toContain('@param {boolean} [root0.strict=false] - Whether strict mode is enabled. Defaults to `false`.');
    expect(doc).toContain('@param {...*} extra - The extras.');
    expect(doc).toMatch(/@returns \{Promise<.+>\} A promise that resolves to the settings\./);
    expect(doc).toContain('@throws {TypeError} If `!file`.');
    const scale = await documentNamed('settings.js', text, 'scaleAll');
    expect(summaryOf(scale)).toBe('Scales all values.');
    expect(scale).toContain('@param {number} [factor=2] - The factor. Defaults to `2`.');
    expect(scale).toMatch(/@returns \{number\[\]\} /);
  });

  it('does not list throws from nested functions or classes', async () => {
    const text = [
      'export function parseList(input: string): string[] {',
      "  const fail = () => { throw new SyntaxError('nested'); };",
      "  class Local { constructor() { throw new EvalError('nested'); } }",
      "  if (!input) throw new TypeError('empty');",
      '  void fail; void Local;',
      "  return input.split(',');",
      '}',
    ].join('\n');
    const doc = await documentNamed('parse.ts', text, 'parseList');
    expect(doc).toContain('@throws {TypeError} If `!input`.');
    expect(doc).not.toContain('SyntaxError');
    expect(doc).not.toContain('EvalError');
  });

  it('deduplicates identical throws and names rethrown variables', async () => {
    const text = [
      'export function check(value: number): void {',
      "  if (value < 0) throw new RangeError('a');",
      "  if (value < 0) throw new RangeError('b');",
      '  const overflow = new RangeError(\'too big\');',
      '  if (value > 10) throw overflow;',
      '  try {',
      '    void value;',
      '  } catch (error) {',
      '    throw error;',
      '  }',
      '}',
    ].join('\n');
    const doc = await documentNamed('check.ts', text, 'check');
    expect(doc.match(/@throws \{RangeError\} If `value < 0`\./g)).toHaveLength(1);
    expect(doc).toContain('@throws {RangeError} If `value > 10`.');
    expect(doc).toContain('@throws Rethrows the error raised in the `try` block.');
  });

  it('writes plain-English summaries, never the identifier', async () => {
    const cases: Array<[string, string, string]> = [
      ['getUserName', 'export function getUserName(id: string): string { return id; }', 'Gets the user name.'],
      ['createSession', 'export function createSession(user: string) { return { user }; }', 'Creates a session.'],
      ['parseHeaders', 'export function parseHeaders(raw: string): Map<string, string> { return new Map([[raw, raw]]); }', 'Parses the headers.'],
      ['toSnakeCase', 'export function toSnakeCase(text: string): string { return text; }', 'Converts the given text to snake case.'],
      ['onConnectionClosed', 'export function onConnectionClosed(reason: string): void { void reason; }', 'Handles the connection closed event.'],
      ['validateInput', 'export function validateInput(input: string): void { void input; }', 'Validates the input.'],
      ['distance', 'export function distance(a: number, b: number): number { return a - b; }', 'Computes the distance.'],
      ['ServerOptions', 'export interface ServerOptions { port: number }', 'Describes the shape of the server options.'],
    ];
    for (const [name, text, summary] of cases) {
      const doc = await documentNamed(`${name}.ts`, text, name);
      expect(summaryOf(doc)).toBe(summary);
      // A camelCase name must come out as words.
      if (/[a-z][A-Z]/.test(name)) expect(summaryOf(doc)).not.toContain(name);
    }
  });

  it('documents an untitled buffer through a synthetic path', async () => {
    const text = 'export function readFlag(name: string): boolean { return name === "x"; }\n';
    const target = declarationAt('untitled.ts', text, text.indexOf('readFlag'));
    if (!target) throw new Error('no target');
    const answer = await agent.run(requestFor(undefined, text, target), new AbortController().signal);
    expect(answer.text).toContain('@param name - The name.');
  });

  it('returns an empty text when the target is not in the document', async () => {
    const text = 'export const x = 1;\n';
    const fsPath = writeFixture('missing.ts', text);
    const target: DeclarationTarget = { kind: 'function', name: 'gone', simpleName: 'gone', start: 0, end: 5, lineStart: 0, docLineStart: 0, indent: '', nameStart: 13, nameEnd: 14 };
    const answer = await agent.run(requestFor(fsPath, text, target), new AbortController().signal);
    expect(answer).toEqual({ text: '' });
  });

  it('rejects with the signal reason when aborted', async () => {
    const text = 'export function stop(): void {}\n';
    const fsPath = writeFixture('stop.ts', text);
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    controller.abort(reason);
    await expect(agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, 'stop')), controller.signal)).rejects.toBe(reason);
  });

  it('exposes the pure function for the evaluation harness', () => {
    const text = 'export function countWords(text: string): number { return text.split(" ").length; }\n';
    const fsPath = writeFixture('count.ts', text);
    const doc = documentDeclaration(project.sourceFile(fsPath, text), targetNamed(fsPath, text, 'countWords'), { javascript: false });
    expect(doc).toBe(['/**', ' * Counts the words.', ' *', ' * @param text - The text.', ' * @returns The number of words.', ' */'].join('\n'));
    expect(renderJsDoc(parseJsDoc(doc))).toBe(doc);
  });
});
