// Unit tests of what ranks a workspace question's locations beyond word matches: the package's entries and import graph, overloads, identifiers a question spells in words, misspelt, split or in other words, names written as declared or as code, bodies against declarations' own words, wrappers against the code they hand their work to, and options' comments against the code that reads them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractFile, titleSubject } from '../../server/src/repo/lexical/documentExtraction.js';
import { LexicalIndex } from '../../server/src/repo/lexical/lexicalIndex.js';
import { FileReach, packageEntries } from '../../server/src/repo/lexical/fileReach.js';
import { codeWrittenWords, queryCompounds, stem, terms, wordHalves } from '../../server/src/repo/lexical/terms.js';
import { relatedWords } from '../../server/src/repo/lexical/relatedWords.js';
import { relatedTermsOf } from '../../server/src/repo/lexical/bm25f.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A workspace of the given files (workspace-relative path → text). */
function workspaceOf(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ranking-'));
  roots.push(root);
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  return root;
}

/** A second index of `root` that reads every file from what a first one saved. */
async function reloadedIndex(root: string): Promise<LexicalIndex> {
  // A file read moments after its last change is not saved (`fileTimes.ts`).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const cacheFile = path.join(root, '..', `${path.basename(root)}.index`);
  roots.push(cacheFile);
  const first = new LexicalIndex(root, {}, { cacheFile });
  await first.refresh();
  await first.saveNow();
  return new LexicalIndex(root, {}, { cacheFile });
}

async function ranked(root: string, question: string, options: { near?: string; cacheFile?: string } = {}): Promise<string[]> {
  const index = new LexicalIndex(root, {}, options.cacheFile ? { cacheFile: options.cacheFile } : {});
  const locations = await index.search(question, { limit: 10, ...(options.near ? { near: options.near } : {}) });
  if (options.cacheFile) await index.saveNow();
  return locations.map((l) => `${l.path}:${l.startLine} ${l.name}`);
}

/**
 * The same parser twice: the package's current one, reached from its entry, and a legacy copy reached from none, tied
 * with it on words (its folder's name adds none) and imported as often, and first by path.
 */
const LEGACY_PACKAGE = {
  'package.json': JSON.stringify({ name: 'shapes', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' } }),
  'src/index.ts': "export { parseShape } from './parse.js';\n",
  'src/parse.ts': '/** Parses a shape. */\nexport function parseShape(input: string): string {\n  return input.trim();\n}\n',
  'src/1/index.ts': "export { parseShape } from './parse.js';\n",
  'src/1/parse.ts': '/** Parses a shape. */\nexport function parseShape(input: string): string {\n  return input.trim();\n}\n',
};

describe('the package entries and the import graph', () => {
  it('ranks the code the package exports above a legacy copy it does not reach, which stays in the answer', async () => {
    const root = workspaceOf(LEGACY_PACKAGE);
    const found = await ranked(root, 'how is a shape parsed');
    expect(found[0]).toBe('src/parse.ts:2 parseShape');
    expect(found).toContain('src/1/parse.ts:2 parseShape');
  });

  it('reads the imports back from a saved index', async () => {
    // The second index takes every file from the saved one, imports included, as the first read them.
    const second = await reloadedIndex(workspaceOf(LEGACY_PACKAGE));
    const found = await second.search('how is a shape parsed');
    expect(second.stats().fromCache).toBe(Object.keys(LEGACY_PACKAGE).length - 1);
    expect(`${found[0]?.path}:${found[0]?.startLine}`).toBe('src/parse.ts:2');
  });

  it('weighs a subpath export between the main entry and unreached code, and the open document’s imports as the main entry', () => {
    const root = workspaceOf({ 'package.json': JSON.stringify({ main: './dist/cjs/index.js', exports: { '.': './dist/index.js', './old': './dist/old/index.js' } }) });
    const reach = new FileReach(
      root,
      new Map([
        ['src/index.ts', ['./core.js']],
        ['src/core.ts', []],
        ['src/old/index.ts', ['./v1']],
        ['src/old/v1.ts', []],
        ['src/bench/run.ts', ['../old/v1.js']],
        ['src/tests/core.test.ts', ['../core.js']],
      ]),
    );
    expect(reach.weight('src/core.ts')).toBeGreaterThan(reach.weight('src/old/v1.ts'));
    expect(reach.weight('src/old/v1.ts')).toBeGreaterThan(reach.weight('src/bench/run.ts'));
    expect(reach.weight('src/tests/core.test.ts')).toBeGreaterThanOrEqual(1);
    expect(reach.weight('src/old/v1.ts', reach.importedBy('src/bench/run.ts'))).toBeGreaterThanOrEqual(1);
    expect(packageEntries(root)).toEqual([
      { target: 'dist/cjs/index.js', main: true },
      { target: 'dist/index.js', main: true },
      { target: 'dist/old/index.js', main: false },
    ]);
  });

  it('weighs a copy of the main code below other code of a subpath export, and tests as the code beside them', () => {
    const root = workspaceOf({ 'package.json': JSON.stringify({ exports: { '.': './src/index.ts', './old': './src/old/index.ts', './extra': './src/extra/index.ts' } }) });
    const imports = new Map<string, string[]>([
      ['src/index.ts', ['./schemas.js']],
      ['src/schemas.ts', []],
      ['src/old/index.ts', ['./schemas.js']],
      ['src/old/schemas.ts', []],
      ['src/old/tests/parse.test.ts', []],
      ['src/tests/parse.test.ts', []],
      ['src/extra/index.ts', ['./colors.js']],
      ['src/extra/colors.ts', []],
    ]);
    const declared = new Map<string, string[]>([
      ['src/schemas.ts', ['$ZodString', 'ZodNumber', 'object', 'union']],
      ['src/old/schemas.ts', ['ZodString', 'ZodNumber', 'object', 'union', 'oldHelper']],
      ['src/extra/colors.ts', ['red', 'green', 'blue', 'mix']],
    ]);
    const withNames = new FileReach(root, imports, declared);
    const withoutNames = new FileReach(root, imports);
    // Both are reached from a subpath export only; the copy declares what the main code declares.
    expect(withoutNames.weight('src/old/schemas.ts')).toBeCloseTo(withoutNames.weight('src/extra/colors.ts'), 5);
    expect(withNames.weight('src/old/schemas.ts')).toBeLessThan(withNames.weight('src/extra/colors.ts') * 0.9);
    expect(withNames.weight('src/extra/colors.ts')).toBeCloseTo(withoutNames.weight('src/extra/colors.ts'), 5);
    // The copy's tests weigh as the copy; the main code's as the main code.
    expect(withNames.weight('src/old/tests/parse.test.ts')).toBeCloseTo((withNames.weight('src/old/schemas.ts') + withNames.weight('src/old/index.ts')) / 2, 5);
    expect(withNames.weight('src/old/tests/parse.test.ts')).toBeLessThan(withNames.weight('src/extra/colors.ts'));
    expect(withNames.weight('src/tests/parse.test.ts')).toBe(1);
  });

  it('prefers the declaration the open document imports when two files declare the name', async () => {
    const root = workspaceOf({
      'src/a/retry.ts': '/** Retries a call with a fixed delay between attempts. */\nexport function retryCall(): void {}\n',
      'src/b/retry.ts': '/** Retries a call with a fixed delay between attempts: the fixed delay retry. */\nexport function retryCall(): void {}\n',
      'src/app.ts': "import { retryCall } from './a/retry.js';\nexport const run = () => retryCall();\n",
    });
    const question = 'where is retryCall with a fixed delay';
    expect((await ranked(root, question))[0]).toBe('src/b/retry.ts:2 retryCall');
    expect((await ranked(root, question, { near: 'src/app.ts' }))[0]).toBe('src/a/retry.ts:2 retryCall');
  });
});

/** Declarations about something else, so that the words of a question are rare as in a real code base. */
const TEXT_HELPERS =
  '/** Trims a text. */\nexport function trimText(text: string): string {\n  return text.trim();\n}\n/** Joins lines of text. */\nexport function joinLines(lines: string[]): string {\n  return lines.join("\\n");\n}\n/** Counts the words of a text. */\nexport function countWords(text: string): number {\n  return text.split(" ").length;\n}\n';

describe('what a location is', () => {
  it('shows a function’s overload signatures and implementation as one place, at the implementation', async () => {
    const root = workspaceOf({
      'src/widget.ts':
        '/** Converts a record to a widget. */\nexport function toWidget(value: string): number;\n/** Converts a record list to widgets. */\nexport function toWidget(value: string[]): number[];\nexport function toWidget(value: string | string[]): number | number[] {\n  return Array.isArray(value) ? value.map((v) => v.length) : value.length;\n}\n',
    });
    const found = (await ranked(root, 'convert a record to a widget')).filter((l) => l.endsWith(' toWidget'));
    expect(found).toEqual(['src/widget.ts:5 toWidget']);
  });

  it('ranks the code that does the work above the options interface that describes it, unless asked about options', async () => {
    const root = workspaceOf({
      'src/cache.ts':
        '/** Options of the cache. */\nexport interface CacheOptions {\n  /** After how long an unused entry is evicted from the cache, in milliseconds. */\n  evictAfterMs: number;\n}\n/** Evicts the unused entries. */\nexport function sweep(entries: Map<string, number>, now: number): void {\n  for (const [key, at] of entries) if (now - at > 1000) entries.delete(key);\n}\n',
    });
    expect((await ranked(root, 'how are unused entries evicted'))[0]).toBe('src/cache.ts:7 sweep');
    expect((await ranked(root, 'which option says when unused entries are evicted'))[0]).toBe('src/cache.ts:2 CacheOptions');
  });

  it('ranks the code above a result type whose comments say the question\'s words more often', async () => {
    const root = workspaceOf({
      'src/fetch.ts':
        '/** The state of a fetch: whether its data is stale, and since when it is stale. */\nexport interface FetchState {\n  /** Whether the data is stale. */\n  stale: boolean;\n  staleSince: number;\n}\n/** Whether data fetched at `at` is stale after `staleTime`. */\nexport function isStale(at: number, staleTime: number, now: number): boolean {\n  return now - at > staleTime;\n}\n',
    });
    expect((await ranked(root, 'when is fetched data considered stale'))[0]).toBe('src/fetch.ts:8 isStale');
  });

  it('ranks the code above a definition whose name is a data word when the question asks how it behaves', async () => {
    const root = workspaceOf({
      'src/union.ts':
        '/** The options of a union: each option is tried in turn, and the first that matches is picked. */\nexport interface UnionOptions {\n  /** Each option of the union. */\n  options: string[];\n}\n/** Tries each option of a union in turn and picks the first that matches. */\nexport function runUnion(def: UnionOptions, value: string): string | undefined {\n  return def.options.find((candidate) => candidate === value);\n}\n',
    });
    expect((await ranked(root, 'how does a union pick which option matched'))[0]).toBe('src/union.ts:7 runUnion');
    expect((await ranked(root, 'which option of a union is tried first'))[0]).toBe('src/union.ts:2 UnionOptions');
  });

  it('ranks the code whose body uses a name above the types that mention it, for a question about where it is used', async () => {
    const root = workspaceOf({
      'src/types.ts': '/** Settings of a mutation: its mutationFn, and how often it is retried. */\nexport interface MutationSettings {\n  /** Attempts after the first. */\n  retries: number;\n}\n',
      'src/mutation.ts': '/** A change sent to the server. */\nexport class Mutation {\n  constructor(private readonly options: { mutationFn: () => Promise<void> }) {}\n  /** Sends the change. */\n  async execute(): Promise<void> {\n    await this.options.mutationFn();\n  }\n}\n',
    });
    const found = await ranked(root, 'where does a mutation call mutationFn');
    expect(found.indexOf('src/mutation.ts:5 Mutation.execute')).toBeGreaterThanOrEqual(0);
    expect(found.indexOf('src/mutation.ts:5 Mutation.execute')).toBeLessThan(found.indexOf('src/types.ts:2 MutationSettings'));
  });

  it('counts neither the verb that asks where a name is used nor the types that declare it as a use', async () => {
    const root = workspaceOf({
      'src/types.ts':
        '/** What a worker is given: runTask, and the callback called when it ends. */\nexport interface WorkerSettings {\n  runTask: () => Promise<void>;\n  onEnd: () => void;\n}\n/** A callback called with the result of a call. */\nexport type CallCallback = (result: unknown) => void;\n',
      'src/job.ts': "import type { WorkerSettings } from './types.js';\n/** A unit of work a queue runs. */\nexport class Job {\n  constructor(private readonly settings: WorkerSettings) {}\n  /** Starts the work. */\n  async start(): Promise<void> {\n    await this.settings.runTask();\n  }\n}\n",
      'src/text.ts': TEXT_HELPERS,
    });
    const found = await ranked(root, 'where does a job call runTask');
    const start = found.indexOf('src/job.ts:6 Job.start');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(found.slice(0, start).filter((place) => place.startsWith('src/types.ts'))).toEqual([]);
    // "call" asks where runTask is used: a type named for calls is no answer.
    expect(found).not.toContain('src/types.ts:7 CallCallback');
  });

  it('ranks a declaration the question names as declared above one that mentions it more', async () => {
    const root = workspaceOf({
      'src/ops.ts':
        '/** Maps each value to an inner stream, dropping the last one. */\nexport function switchMap(): void {}\n/** Like switchMap, to a constant inner stream: switchMap with the previous inner stream dropped. */\nexport function switchMapTo(): void {}\n',
      'src/text.ts': TEXT_HELPERS,
    });
    expect((await ranked(root, 'how does switchMap drop the previous inner stream'))[0]).toBe('src/ops.ts:2 switchMap');
  });

  it('counts a word all over a body for less than a declaration named and documented for it', async () => {
    const root = workspaceOf({
      'src/store.ts':
        '/** Takes the current state of a draft. */\nexport function snapshot(value: object): object {\n  return { ...value };\n}\ntype Holder = any;\nexport function readTrap(h: Holder) {\n  const draft = h.state.draft;\n  const current = h.state.current;\n  return current ?? draft ?? h.state.current ?? h.state.draft ?? h.state;\n}\n',
    });
    expect((await ranked(root, 'the current state of a draft'))[0]).toBe('src/store.ts:2 snapshot');
  });
});

/** Factories, a constructor function and a caller of a batcher, each with the code it hands its work to (`test/fixtures/delegation`). */
const DELEGATION = path.resolve('test/fixtures/delegation');

/** An options interface whose member's comment says what the option does, and the code that reads the option. */
const POLLER = {
  'src/types.ts':
    '/** Options of a poller. */\nexport interface PollerOptions {\n  /**\n   * How often, in milliseconds, the data is fetched again while the page stays open.\n   * Defaults to never.\n   */\n  refreshEvery?: number;\n  label?: string;\n\n  /** Detached from the member below by a blank line. */\n\n  quiet?: boolean;\n}\n',
  'src/poller.ts':
    "import type { PollerOptions } from './types.js';\n/** Starts the timer of a poller. */\nexport function startTimer(options: PollerOptions, run: () => void): () => void {\n  if (!options.refreshEvery) return () => {};\n  const id = setInterval(run, options.refreshEvery);\n  return () => clearInterval(id);\n}\n/** Loads the data once, when the page opens. */\nexport function loadOnce(run: () => void): void {\n  run();\n}\n",
};

describe('options and the code that reads them', () => {
  it('reads an interface member with a comment of its own as a document of that comment', () => {
    const drafts = extractFile('src/types.ts', POLLER['src/types.ts']).drafts;
    const members = drafts.filter((draft) => draft.kind === 'property');
    expect(members.map((draft) => [draft.name, draft.fields[2]])).toEqual([['PollerOptions.refreshEvery', 'How often, in milliseconds, the data is fetched again while the page stays open.\nDefaults to never.']]);
    // The interface keeps its members' words, and no member's comment is a comment document of its own.
    expect(drafts.find((draft) => draft.name === 'PollerOptions')?.fields[4]).toContain('fetched again');
    expect(drafts.filter((draft) => draft.kind === 'comment')).toEqual([]);
    // So is a member of an object type alias, but not one of a parameter's object type.
    const retry = 'export type RetryOptions = {\n  /** How many times a failed call is tried again. */\n  times?: number;\n};\nexport function retry(options: {\n  /** Whether the call is logged each time. */\n  verbose?: boolean;\n}): void {\n  void options;\n}\n';
    const aliased = extractFile('src/retry.ts', retry).drafts.filter((draft) => draft.kind === 'property');
    expect(aliased.map((draft) => [draft.name, draft.fields[2], draft.start])).toEqual([['RetryOptions.times', 'How many times a failed call is tried again.', retry.indexOf('times?')]]);
  });

  it('ranks the code that reads an option the question describes above the option, though it says none of its words', async () => {
    const root = workspaceOf(POLLER);
    const found = await ranked(root, 'how often is the data fetched again');
    expect(found[0]).toBe('src/poller.ts:3 startTimer');
    expect(found.indexOf('src/types.ts:7 PollerOptions.refreshEvery')).toBeGreaterThan(0);
    // Asked about the options, the options interface comes first still.
    expect((await ranked(root, 'which option says how often the data is fetched again'))[0]).toBe('src/types.ts:2 PollerOptions');
  });
});

describe('wrappers and the code they hand their work to', () => {
  it('reads what a declaration hands all its work to from its code', () => {
    const delegates = (file: string): Record<string, string | undefined> => {
      const text = fs.readFileSync(path.join(DELEGATION, file), 'utf8');
      return Object.fromEntries(extractFile(file, text).drafts.filter((d) => d.kind !== 'comment' && d.kind !== 'module').map((d) => [d.name, d.delegate]));
    };
    // A class given as a parameter is the type the factory says it returns.
    expect(delegates('src/api.ts')).toEqual({ tuple: 'schemas.TupleSchema', makeTuple: 'schemas.TupleSchema' });
    // A function with code of its own, and a value made by a plain call, hand nothing on.
    expect(delegates('src/batching.ts')).toEqual({ createBatcher: undefined, batcher: undefined });
    expect(delegates('src/store.ts')).toMatchObject({ 'Store.set': undefined, 'Store.#announce': 'batcher.run' });
    // A constructor function that forwards its parameters to the initialiser of one named like it; not the base of all.
    expect(delegates('src/pipes.ts')).toMatchObject({ define: undefined, $Pipe: undefined, Pipe: '$Pipe.init' });
    expect(delegates('src/operators.ts')).toMatchObject({ operate: undefined, settle: 'operate' });
  });

  it('lists the class a factory makes in the factory’s place, the factory right after it', async () => {
    const found = await ranked(DELEGATION, 'how are tuples validated');
    expect(found.slice(0, 2)).toEqual(['src/schemas.ts:9 TupleSchema', 'src/api.ts:5 tuple']);
  });

  it('keeps a factory the question names as declared first, the class it makes right after it', async () => {
    const found = await ranked(DELEGATION, 'how does tuple validate its values');
    expect(found.slice(0, 2)).toEqual(['src/api.ts:5 tuple', 'src/schemas.ts:9 TupleSchema']);
  });

  it('lists the batcher a method hands its work to above the method, and a constructor function’s base named like it', async () => {
    expect((await ranked(DELEGATION, 'how are store subscribers told of changes in a batch')).slice(0, 2)).toEqual(['src/batching.ts:28 batcher', 'src/store.ts:14 Store.#announce']);
    expect((await ranked(DELEGATION, 'how does a pipe pass each stage output on')).slice(0, 2)).toEqual(['src/pipes.ts:14 $Pipe', 'src/pipes.ts:23 Pipe']);
  });

  it('leaves a wrapper first when its call says none of the question’s words: plumbing every operator shares', async () => {
    expect((await ranked(DELEGATION, 'how are rapid events dropped until a pause'))[0]).toBe('src/operators.ts:14 settle');
  });

  it('reads what a declaration hands its work to back from a saved index', async () => {
    const second = await reloadedIndex(workspaceOf(Object.fromEntries(['package.json', 'src/schemas.ts', 'src/api.ts'].map((file) => [file, fs.readFileSync(path.join(DELEGATION, file), 'utf8')]))));
    const found = (await second.search('how are tuples validated')).map((l) => `${l.path}:${l.startLine} ${l.name}`);
    expect(second.stats().fromCache).toBe(2);
    expect(found.slice(0, 2)).toEqual(['src/schemas.ts:9 TupleSchema', 'src/api.ts:5 tuple']);
  });
});

describe('the words of a question', () => {
  it('joins the words that spell an identifier, a leading function word only with two more', () => {
    expect(queryCompounds('convert a schema to JSON Schema')).toEqual(expect.arrayContaining(['jsonschema', 'tojsonschema']));
    expect(queryCompounds('flatten errors into field errors')).toEqual(expect.arrayContaining(['fielderrors', 'fielderror']));
    expect(queryCompounds('where is email validated?')).not.toContain('isemail');
    // An abbreviation code uses for what questions spell out.
    expect(terms('where are unused queries garbage collected')).toContain(terms('scheduleGc')[1]);
  });

  it('reads a noun in -ification as its verb in -ify', () => {
    expect(stem('notifications')).toBe(stem('notify'));
    expect(terms('how are listeners notified')).toContain(stem('notification'));
  });

  it('reads an adjective in -ive as its noun in -ion', () => {
    expect(stem('recursive')).toBe(stem('recursion'));
    expect(stem('relative')).toBe(stem('relation'));
    // A short word keeps its ending: `active` is no `act`.
    expect(stem('active')).not.toBe(stem('act'));
  });

  it('reads an adjective in -ical, and its adverb, as the one in -ic', () => {
    expect(stem('automatically')).toBe(stem('automatic'));
    expect(stem('logical')).toBe(stem('logic'));
    expect(terms('stop a query from fetching automatically', 'query')).toContain(terms('disables automatic refetching')[1]);
  });

  it('drops light verbs and counting words from a question, but not from code', () => {
    expect(terms('how do I make a field optional', 'query')).toEqual(['field', 'optional']);
    // Every form of a light verb: "made" is no word of the code's (stemmed, it was `mad`).
    expect(terms('what happens to changes made while offline', 'query')).toEqual(terms('changes offline', 'query'));
    expect(terms('the value we got back', 'query')).toEqual(terms('value back', 'query'));
    expect(terms('combine two object schemas into one', 'query')).not.toEqual(expect.arrayContaining(['two']));
    expect(terms('combine two object schemas into one', 'query')).not.toContain('one');
    expect(terms('makeRequired(two)')).toEqual(expect.arrayContaining(['mak', 'two']));
  });

  it('weighs the words of a trailing clause of time below what the question asks for', async () => {
    const root = workspaceOf({
      'src/store.ts': '/** Writes a value into the store by hand, in place of the one there. */\nexport function setStoredValue(store: Map<string, unknown>, key: string, value: unknown): void {\n  store.set(key, value);\n}\n',
      'src/save.ts': '/** Saves the stored draft, and updates its save state. */\nexport function save(draft: unknown): void {\n  void draft;\n}\n',
    });
    expect((await ranked(root, 'update the stored value by hand after a save'))[0]).toBe('src/store.ts:2 setStoredValue');
    // Where the clause is all the question says, its words weigh in full.
    expect((await ranked(root, 'what runs after a save'))[0]).toBe('src/save.ts:2 save');
  });

  it('finds the function a question spells in words, and the nouns of its verbs', async () => {
    const root = workspaceOf({
      'src/schema.ts':
        '/** Converts a JSON value to a schema. */\nexport function fromValue(value: object): object {\n  return value;\n}\nexport function toJSONSchema(schema: object): object {\n  return { ...schema };\n}\n',
      'src/regexes.ts': '/** Practical email validation. */\nexport const email = /^[^@]+@[^@]+$/;\n/** Validates the phone number of a user. */\nexport function validatePhone(): void {}\n',
    });
    expect((await ranked(root, 'convert a schema to JSON Schema'))[0]).toBe('src/schema.ts:5 toJSONSchema');
    expect(stem('validation')).toBe(stem('validated'));
    expect((await ranked(root, 'where is email validated?'))[0]).toBe('src/regexes.ts:2 email');
  });
});

describe('words the code does not use', () => {
  /** Two checks of a text: one that says nothing of cases, one that lower-cases its input, and noise that shares words. */
  const CHECKS = {
    'src/checks.ts': [
      '/** Checks that the text matches the pattern. */\nexport function matchPattern(text: string, pattern: RegExp): boolean {\n  return pattern.test(text);\n}',
      '/** Checks that the text matches the pattern, whatever its case. */\nexport function matchAnyCase(text: string, pattern: RegExp): boolean {\n  return pattern.test(text.toLowerCase());\n}',
      'export function toLowerCase(text: string): string {\n  return text.toLowerCase();\n}',
      '/** Empties everything it holds. */\nexport function clearStore(store: Map<string, unknown>): void {\n  store.clear();\n}',
      '/** Stores the text of the input in the store, beside what the store holds. */\nexport function storeInput(store: Map<string, unknown>, text: string): void {\n  store.set("input", text);\n}',
      '/** The last part of a path. */\nexport function baseFileName(path: string): string {\n  return path.slice(path.lastIndexOf("/") + 1);\n}',
      '/** Joins the parts of a path into one path, each part of the path once. */\nexport function joinPath(parts: string[]): string {\n  return parts.join("/");\n}',
      '/** The text of the match, as a store key. */\nexport function keyOfMatch(text: string): string {\n  return `match:${text}`;\n}',
      '/** Matches the text with another and reports both. */\nexport function matchBoth(text: string, other: string): boolean {\n  return text === other;\n}',
    ].join('\n'),
    'src/schema.ts': 'export class Schema {\n  /** The intersection of this one with another. */\n  and(other: this): this {\n    return other;\n  }\n  /** Checks the value against the schema. */\n  check(value: unknown): boolean {\n    return value !== undefined && value !== null;\n  }\n}\n/** The schema of a value, made of the schemas of its parts. */\nexport function schemaOf(value: unknown): Schema {\n  return new Schema();\n}\n',
  };

  it('reads a misspelt word as the word the code uses most within an edit of it', async () => {
    const root = workspaceOf(CHECKS);
    // `mach` is no word of the code's; `match` is, in four documents.
    expect((await ranked(root, 'text has to mach the pattern')).slice(0, 2)).toEqual(expect.arrayContaining(['src/checks.ts:2 matchPattern']));
    expect(await ranked(root, 'text has to mach the pattern')).toEqual(await ranked(root, 'text has to match the pattern'));
  });

  it('reads a word the code writes as two, both halves', async () => {
    expect(wordHalves('lowercase', (term) => ['low', 'lower', 'cas', 'case'].includes(term))).toEqual([[stem('lower'), stem('case')]]);
    // Halves under four letters are mostly noise: `current` is no `curr` and `ent`.
    expect(wordHalves('current', () => true)).toEqual([]);
    const root = workspaceOf(CHECKS);
    expect((await ranked(root, 'the filename of a path'))[0]).toBe('src/checks.ts:21 baseFileName');
  });

  it('reads a word the code never uses as the words code uses for the same thing, and leaves a word it uses alone', async () => {
    expect(relatedWords('wiped')).toContain('clear');
    expect(relatedWords('Older')).toContain('previous');
    // Only a word the code never uses is read as others: here the code says `store` and not `wipe`.
    const live = (term: string): boolean => terms('store clear').includes(term);
    expect([...relatedTermsOf('wipe the store', live)]).toEqual(expect.arrayContaining(terms('clear')));
    expect([...relatedTermsOf('store the input', live)]).toEqual([]);
    const root = workspaceOf(CHECKS);
    expect((await ranked(root, 'wipe the store'))[0]).toBe('src/checks.ts:13 clearStore');
    // The code says `store`, which is related to `save`: a question saying "store" means the code's store.
    expect((await ranked(root, 'store the input'))[0]).toBe('src/checks.ts:17 storeInput');
  });

  it('finds a declaration a question writes as code though its name is a word prose drops', async () => {
    expect(codeWrittenWords('what does .and() do, and `or`, after z.not or e.g. this')).toEqual(['and', 'or', 'not']);
    const root = workspaceOf(CHECKS);
    expect((await ranked(root, 'what does .and() do to a schema'))[0]).toBe('src/schema.ts:3 Schema.and');
  });
});

describe('test titles', () => {
  it('reads the declaration a title names: a word written as code, else the one its file is named for', () => {
    expect(titleSubject('recursion with z.lazy', 'src/tests/index.test.ts')).toBe('lazy');
    expect(titleSubject('.partial() makes keys optional', 'src/tests/index.test.ts')).toBe('partial');
    expect(titleSubject('safeParse never throws', 'src/tests/index.test.ts')).toBe('safeParse');
    expect(titleSubject('mutual recursion', 'src/tests/lazy.test.ts')).toBe('lazy');
    expect(titleSubject('mutual recursion', 'src/tests/recursive-types.test.ts')).toBeUndefined();
    expect(titleSubject('mutual recursion', 'src/tests/helpers.ts')).toBeUndefined();
  });

  it('ranks the declaration tests describe in the question’s words above the tests, which a question about tests finds', async () => {
    const root = workspaceOf({
      'package.json': JSON.stringify({ name: 'shapes', exports: { '.': './src/index.ts' } }),
      'src/index.ts': "export * from './schemas.js';\n",
      'src/schemas.ts':
        '/** A list of values. */\nexport function list(item: object): object {\n  return { item };\n}\n/** Writes a value as text. */\nexport function toText(value: object): string {\n  return JSON.stringify(value);\n}\n/** A value whose inner value is made on first use. */\nexport function lazy(getter: () => object): object {\n  return { get inner() { return getter(); } };\n}\n',
      'src/tests/lazy.test.ts':
        'import { test, expect } from "vitest";\nimport * as s from "shapes";\n\ntest("recursion with s.lazy", () => {\n  const tree: object = s.lazy(() => s.list(tree));\n  expect(tree).toBeDefined();\n});\n\ntest("mutual recursion", () => {\n  const a: object = s.lazy(() => b);\n  const b: object = s.list(a);\n  expect(b).toBeDefined();\n});\n',
      'src/tests/list.test.ts': 'import { test, expect } from "vitest";\nimport * as s from "shapes";\n\ntest("a list of schemas", () => {\n  expect(s.list({})).toBeDefined();\n});\n',
      // Code about other things, so that the question's words are as rare as in a real package.
      'src/text.ts': TEXT_HELPERS,
      'src/numbers.ts': TEXT_HELPERS.replace(/text/gi, 'number').replace(/Words|Lines/g, 'Digits'),
      'src/dates.ts': TEXT_HELPERS.replace(/text/gi, 'date').replace(/Words|Lines/g, 'Days'),
    });
    const found = await ranked(root, 'how do I define a recursive schema');
    expect(found[0]).toBe('src/schemas.ts:10 lazy');
    // The titles are evidence, not answers, unless the question is about tests.
    expect(found.some((place) => place.includes('recursion'))).toBe(false);
    expect(await ranked(root, 'which tests cover mutual recursion')).toContain('src/tests/lazy.test.ts:9 mutual recursion');
  });
});
