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
    // Nothing in the body says what loading means: no summary is guessed from the name, the tags say what the body
    // does with each parameter, past the early throw.
    expect(doc).toBe(
      [
        '/**',
        ' * @param filePath - Its `length` is read unless `timeoutMs < 0`.',
        ' * @param timeoutMs - Compared with `0`.',
        ' * @returns A promise that resolves to the config.',
        ' * @throws {RangeError} If `timeoutMs < 0`.',
        ' */',
      ].join('\n'),
    );
  });

  it('uses the checker for inferred return types of imported functions', async () => {
    const text = "import { readConfig } from './config.js';\nexport function fetchSettings(file: string) {\n  return readConfig(file);\n}\n";
    const doc = await documentNamed('inferred.ts', text, 'fetchSettings');
    expect(summaryOf(doc)).toBe('Delegates to `readConfig`.');
    expect(doc).toContain('@returns The result of `readConfig(file)`.');
    const longer = "import { readConfig } from './config.js';\nexport function fetchSettings(file: string, fallbackFileName: string) {\n  return readConfig(file.length > 0 ? file : fallbackFileName.trim().toLowerCase());\n}\n";
    expect(await documentNamed('inferred2.ts', longer, 'fetchSettings')).toContain('@returns A promise that resolves to the config.');
  });

  it('documents a destructured parameter with TypeScript-style names', async () => {
    const text = [
      'export function connect({ host, port = 80, tls: { enabled } }: { host: string; port?: number; tls: { enabled: boolean } }, retries: number): void {',
      '  openSocket(host, port, enabled, retries);',
      '}',
      'declare function openSocket(host: string, port: number, tls: boolean, retries: number): void;',
    ].join('\n');
    const doc = await documentNamed('connect.ts', text, 'connect');
    const names = parseJsDoc(doc).tags.filter((tag) => tag.tag === 'param').map((tag) => tag.name);
    expect(names).toEqual(['root0', 'root0.host', 'root0.port', 'root0.tls', 'root0.tls.enabled', 'retries']);
    expect(doc).toContain('@param root0.port - Passed to `openSocket`. Defaults to `80`.');
    expect(doc).toContain('@param root0.tls.enabled - Passed to `openSocket`.');
    // The patterns themselves are only listed: nothing is done with them as a whole.
    expect(doc).toContain(' * @param root0\n');
    expect(doc).toContain(' * @param root0.tls\n');
    expect(doc).not.toContain('@returns');
  });

  it('documents rest, optional and default parameters', async () => {
    const text = 'export function joinPaths(separator = "/", verbose?: boolean, ...segments: string[]): string {\n  return verbose ? segments.filter(Boolean).join(separator) : "";\n}\n';
    const doc = await documentNamed('join.ts', text, 'joinPaths');
    // Neither the name nor the signature's `?` and default are restated; what the body does with `segments` is said.
    expect(doc).toContain(' * @param separator\n');
    expect(doc).toContain(' * @param verbose\n');
    expect(doc).toContain('@param segments - Its `filter` method is called when `verbose`.');
    expect(doc).not.toContain('...segments');
    expect(summaryOf(doc)).toBe('May call `segments.filter`.');
    expect(doc).toContain('@returns The value of `verbose ? segments.filter(Boolean).join(separator) : ""`.');
  });

  it('adds no @returns for an async function returning Promise<void>', async () => {
    const text = 'export async function saveUsers(users: string[]): Promise<void> {\n  await writeAll(users);\n}\ndeclare function writeAll(items: string[]): Promise<void>;\n';
    const doc = await documentNamed('save.ts', text, 'saveUsers');
    expect(summaryOf(doc)).toBe('Delegates to `writeAll`.');
    expect(doc).not.toContain('@returns');
  });

  it('documents type parameters with their constraints', async () => {
    const text = 'export function firstOf<T extends object>(items: readonly T[]): T | undefined {\n  return items.find((item) => item !== null);\n}\n';
    const doc = await documentNamed('first.ts', text, 'firstOf');
    expect(doc).toContain('@template T - The type of the elements of `items`. Must extend `object`.');
    expect(doc).toContain('@returns');
    expect(doc.indexOf('@template')).toBeLessThan(doc.indexOf('@param'));
  });

  it('summarises a class or interface from what its base is documented as and how the project uses it, or declines', async () => {
    writeFixture('removable.ts', '/** Removes itself from its cache after `gcTime` without observers. */\nexport abstract class Removable {\n  gcTime = 0;\n}\n');
    const text = [
      "import { Removable } from './removable.js';",
      'export interface Listener {',
      '  notify(): void;',
      '}',
      'export class QueryCache extends Removable implements Listener {',
      '  notify(): void {}',
      '}',
      'export class Orphan {',
      '  size = 0;',
      '}',
      'export class QueryClient {',
      '  #cache: QueryCache;',
      '  constructor() {',
      '    this.#cache = new QueryCache();',
      '  }',
      '}',
    ].join('\n');
    // Not "Represents a query cache, extending `Removable`": the header says that much.
    expect(await documentNamed('queryCache.ts', text, 'QueryCache')).toBe(
      ['/**', ' * Extends `Removable`, documented as “Removes itself from its cache after `gcTime` without observers.” Constructed by `QueryClient.constructor`.', ' */'].join('\n'),
    );
    expect(await documentNamed('queryCache.ts', text, 'Listener')).toBe(['/**', ' * Implemented by `QueryCache`.', ' */'].join('\n'));
    const fsPath = writeFixture('queryCache.ts', text);
    const orphan = await agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, 'Orphan')), new AbortController().signal);
    expect(orphan).toMatchObject({ text: '', reason: expect.stringContaining('Orphan') });
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
    expect(method).toBe(['/**', ' * Delegates to `this.entries.has`.', ' *', ' * @param user - Passed to `this.entries.has`.', ' * @returns `true` when `this.entries.has(user)`, otherwise `false`.', ' */'].join('\n'));
    const getter = await documentNamed('cache.ts', text, 'UserCache.isFull');
    expect(getter).toBe(['/**', ' * @returns `true` when `this.entries.size >= this.capacity`, otherwise `false`.', ' */'].join('\n'));
    // Setting `this.capacity` from `capacity` says nothing the signature does not.
    const fsPath = writeFixture('cache.ts', text);
    const constructorAnswer = await agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, 'UserCache.constructor')), new AbortController().signal);
    expect(constructorAnswer).toMatchObject({ text: '', reason: expect.stringContaining('UserCache.constructor') });
  });

  it('documents an arrow function stored in a variable', async () => {
    const text = 'export const isValidEmail = (email: string): boolean => /@/.test(email);\n';
    const doc = await documentNamed('email.ts', text, 'isValidEmail');
    expect(doc).toBe(['/**', ' * @param email', ' * @returns `true` when `/@/.test(email)`, otherwise `false`.', ' */'].join('\n'));
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
        ' * @param timeoutMs Returned unchanged unless `timeoutMs < 0` or `!path`. Compared with `0`.',
        ' * @returns A promise that resolves to the resulting number.',
        ' * @throws {RangeError} When the timeout is negative.',
        ' * @throws {TypeError} If `!path`.',
        ' */',
      ].join('\n'),
    );
  });

  it('adds a summary to an existing comment without a description', async () => {
    const text = 'export class Box {\n  #content = "";\n  /**\n   * @param value - The new value.\n   */\n  set content(value: string) {\n    this.#content = value.trim();\n  }\n}\n';
    const doc = await documentNamed('box.ts', text, 'Box.content');
    expect(doc).toBe('/**\n * Sets `this.#content` and calls `value.trim`.\n *\n * @param value - The new value.\n */');
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
    expect(doc).toContain(' * @param options.port\n');
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
    expect(doc).toContain(' * @param {*} file\n');
    expect(doc).toContain(' * @param {object} [root0={}]\n');
    expect(doc).toContain(' * @param {boolean} [root0.strict=false]\n');
    expect(doc).toContain('@param {...*} extra - Its `length` is read when `file`.');
    expect(doc).toMatch(/@returns \{Promise<.+>\} A promise that resolves to the result\./);
    expect(doc).toContain('@throws {TypeError} If `!file`.');
    const scale = await documentNamed('settings.js', text, 'scaleAll');
    expect(summaryOf(scale)).toBe('Delegates to `values.map`.');
    expect(scale).toContain(' * @param {number} [factor=2]\n');
    expect(scale).toContain('@param {number[]} [values=[1, 2]] - Its `map` method is called.');
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

  it('declines, saying why, when nothing beyond the signature can be said without guessing from the name', async () => {
    const text = 'export function distance(a: number, b: number): number {\n  const d = a - b;\n  return d < 0 ? -d : d;\n}\n';
    const fsPath = writeFixture('distance.ts', text);
    const answer = await agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, 'distance')), new AbortController().signal);
    expect(answer).toEqual({ text: '', reason: expect.stringMatching(/^nothing true to add to the signature of distance: /) });
  });

  it('says in a decline what the code does that a comment cannot say, never that it returns nothing', async () => {
    // The shape of zod's treeifyError: a local object filled by a local function, then returned.
    const text = [
      'export interface Tree { errors: string[]; properties?: Record<string, Tree> }',
      'export function treeify(issues: { path: string[]; message: string }[]): Tree {',
      '  const result: Tree = { errors: [] };',
      '  const processError = (list: { path: string[]; message: string }[]) => {',
      '    for (const issue of list) {',
      '      let node = result;',
      '      for (const key of issue.path) node = (node.properties ??= {})[key] ??= { errors: [] };',
      '      node.errors.push(issue.message);',
      '    }',
      '  };',
      '  processError(issues);',
      '  return result;',
      '}',
      'export const messages = () => {',
      '  const units: Record<string, string> = { string: "characters" };',
      '  return (origin: string) => units[origin] ?? origin;',
      '};',
      'export class Schema {',
      '  constructor(readonly checks: string[]) {}',
      '  lower(): Schema {',
      '    return new Schema([...this.checks, "lower"]);',
      '  }',
      '}',
    ].join('\n');
    const fsPath = writeFixture('treeify.ts', text);
    const decline = async (name: string): Promise<string | undefined> => {
      const answer = await agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, name)), new AbortController().signal);
      expect(answer.text).toBe('');
      return answer.reason;
    };
    const treeify = await decline('treeify');
    expect(treeify).toBe('nothing true to add to the signature of treeify: it calls `processError` and returns `result`, names local to its body that a caller never sees; no overload or inherited member is documented, so a comment would only repeat its name and types');
    expect(await decline('Schema.lower')).toContain(': it returns a new `Schema`, which its signature already names;');
    expect(await decline('messages')).toContain(': it returns a function that uses `units`, a name local to its body that a caller never sees;');
  });

  it('does not restate names on real-code shapes: predicates, chained schema methods, codecs, replaced data', async () => {
    const stale = [
      'export class Query {',
      '  state = { dataUpdatedAt: 0, isInvalidated: false };',
      '  isStaleByTime(staleTime = 0): boolean {',
      '    return this.state.isInvalidated || this.state.dataUpdatedAt + staleTime < Date.now();',
      '  }',
      '}',
    ].join('\n');
    const staleDoc = await documentNamed('query.ts', stale, 'Query.isStaleByTime');
    expect(staleDoc).not.toMatch(/stale by/);
    expect(staleDoc).toContain('@returns `true` when `this.state.isInvalidated || this.state.dataUpdatedAt + staleTime < Date.now()`, otherwise `false`.');
    const schema = [
      'export class ZodString {',
      '  constructor(readonly checks: string[]) {}',
      '  _addCheck(check: string): ZodString {',
      '    return new ZodString([...this.checks, check]);',
      '  }',
      '  datetime(options?: { offset?: boolean; precision?: number | null }): ZodString {',
      "    return this._addCheck(options?.offset ? 'datetime-offset' : 'datetime');",
      '  }',
      '}',
    ].join('\n');
    const datetime = await documentNamed('schema.ts', schema, 'ZodString.datetime');
    expect(summaryOf(datetime)).toBe('Delegates to `this._addCheck`.');
    expect(datetime).toContain('@returns The zod string.');
    expect(datetime).not.toMatch(/Computes the datetime|The datetime\./);
    // A codec made from nothing the caller can see: declined rather than "@returns The string.".
    const codec = 'class ZodCodec { constructor(readonly from: string, readonly to: string) {} }\nexport function stringToInt(name: string) {\n  const codec = new ZodCodec(name, "int");\n  return codec;\n}\n';
    const codecPath = writeFixture('codec.ts', codec);
    const codecAnswer = await agent.run(requestFor(codecPath, codec, targetNamed(codecPath, codec, 'stringToInt')), new AbortController().signal);
    expect(codecAnswer).toMatchObject({ text: '', reason: expect.stringContaining('stringToInt') });
    const replace = 'export function replaceData(prevData: unknown, data: unknown, structuralSharing: boolean): unknown {\n  if (!structuralSharing) return data;\n  return merge(prevData, data);\n}\ndeclare function merge(a: unknown, b: unknown): unknown;\n';
    const replaceDoc = await documentNamed('replace.ts', replace, 'replaceData');
    expect(replaceDoc).toContain('@param prevData - Passed to `merge` when `structuralSharing`.');
    expect(replaceDoc).toContain('@param data - Returned unchanged unless `structuralSharing`. Passed to `merge` when `structuralSharing`.');
    expect(replaceDoc).not.toContain('to replace');
  });

  it('declines when what the body names is only what the signature already names', async () => {
    const text = 'export interface ZodCheck { run(value: unknown): boolean }\ndeclare function _check(fn: (value: unknown) => boolean): ZodCheck;\nexport function _superRefine(fn: (value: unknown) => boolean): ZodCheck {\n  const check = _check(fn);\n  return check;\n}\n';
    const fsPath = writeFixture('refine.ts', text);
    const answer = await agent.run(requestFor(fsPath, text, targetNamed(fsPath, text, '_superRefine')), new AbortController().signal);
    expect(answer).toMatchObject({ text: '', reason: expect.stringContaining('_superRefine') });
    // The same body calling something the signature does not name says something.
    const other = text.replace(/_check\b/g, 'compileRule');
    expect(summaryOf(await documentNamed('refine2.ts', other, '_superRefine'))).toBe('Calls `compileRule`.');
  });

  it('says what a function returns in each case of its early returns', async () => {
    const text = 'export function clamp(value: number, min: number, max: number): number {\n  if (value < min) return min;\n  if (value > max) return max;\n  return value;\n}\n';
    const doc = await documentNamed('clamp.ts', text, 'clamp');
    expect(doc).toBe(['/**', ' * @param value - Returned unchanged unless `value < min` or `value > max`. Compared with `min`.', ' * @param min - Returned unchanged when `value < min`. Compared with `value`.', ' * @param max - May be returned unchanged. Compared with `value` unless `value < min`.', ' * @returns `min` if `value < min`, `max` if `value > max`, otherwise `value`.', ' */'].join('\n'));
  });

  it('says the one value returned when every case returns the same code, as a cache does', async () => {
    const text = 'export class Store {\n  private cached: string | undefined;\n  async load(read: () => Promise<string>): Promise<string> {\n    if (this.cached) return this.cached;\n    this.cached = await read();\n    return this.cached;\n  }\n}\n';
    const doc = await documentNamed('store.ts', text, 'Store.load');
    expect(doc).toContain(' * @returns The value of `this.cached`.');
    expect(doc).not.toContain('otherwise');
  });

  it('keeps a @throws condition out of the comment when it names a local variable', async () => {
    const text = 'export function parsePort(text: string): number {\n  const port = Number(text);\n  if (!Number.isInteger(port)) throw new RangeError(text);\n  if (text.length > 5) throw new TypeError(text);\n  return port;\n}\n';
    const doc = await documentNamed('port.ts', text, 'parsePort');
    expect(doc).toContain(' * @throws {RangeError}\n');
    expect(doc).toContain('@throws {TypeError} If `text.length > 5`.');
    expect(doc).not.toContain('port)');
  });

  it('inherits the documentation of the interface member a method implements, and of a documented overload', async () => {
    const text = [
      'export interface Store {',
      '  /**',
      '   * Removes every entry older than the cut-off.',
      '   * @param cutoffMs - Entries last written before this time are removed.',
      '   * @returns How many entries were removed.',
      '   */',
      '  prune(cutoffMs: number): number;',
      '}',
      'export class MemoryStore implements Store {',
      '  private entries = new Map<string, number>();',
      '  prune(cutoffMs: number): number {',
      '    let removed = 0;',
      '    for (const [key, at] of this.entries) if (at < cutoffMs) { this.entries.delete(key); removed++; }',
      '    return removed;',
      '  }',
      '}',
      '/**',
      ' * Formats an amount in the account currency.',
      ' * @param amount - In cents.',
      ' */',
      'export function format(amount: number): string;',
      'export function format(amount: bigint): string;',
      'export function format(amount: number | bigint): string {',
      '  return String(amount);',
      '}',
    ].join('\n');
    const prune = await documentNamed('store.ts', text, 'MemoryStore.prune');
    expect(prune).toBe(['/**', ' * Removes every entry older than the cut-off.', ' *', ' * @param cutoffMs - Entries last written before this time are removed.', ' * @returns How many entries were removed.', ' */'].join('\n'));
    const fsPath = writeFixture('store.ts', text);
    const implementation = listDeclarations(fsPath, text).filter((d) => d.name === 'format').pop()!;
    const answer = await agent.run(requestFor(fsPath, text, implementation), new AbortController().signal);
    expect(answer.text).toBe(['/**', ' * Formats an amount in the account currency.', ' *', ' * @param amount - In cents.', ' * @returns The result of `String(amount)`.', ' */'].join('\n'));
  });

  it('documents an untitled buffer through a synthetic path', async () => {
    const text = 'export function readFlag(name: string): boolean { return name === "x"; }\n';
    const target = declarationAt('untitled.ts', text, text.indexOf('readFlag'));
    if (!target) throw new Error('no target');
    const answer = await agent.run(requestFor(undefined, text, target), new AbortController().signal);
    expect(answer.text).toContain('@param name - Compared with `"x"`.');
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
    const doc = documentDeclaration(project.sourceFile(fsPath, text), targetNamed(fsPath, text, 'countWords'), { javascript: false }).text;
    expect(doc).toBe(['/**', ' * Calls `text.split`.', ' *', ' * @param text - Its `split` method is called.', ' * @returns The value of `text.split(" ").length`.', ' */'].join('\n'));
    expect(renderJsDoc(parseJsDoc(doc))).toBe(doc);
  });
});
