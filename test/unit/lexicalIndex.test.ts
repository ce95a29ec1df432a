// Unit tests of the lexical index: tokenisation, ignore rules, ranking and MRR on the question fixture, secrets, refresh, limits.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { extractDocuments, extractDocumentsReusing } from '../../server/src/repo/lexical/documentExtraction.js';
import { LexicalIndex } from '../../server/src/repo/lexical/lexicalIndex.js';
import { lineStartsOf, movedLineStarts } from '../../server/src/repo/lexical/lineStarts.js';
import { splitIdentifier, stem, terms } from '../../server/src/repo/lexical/terms.js';
import { changedSpan } from '../../server/src/edits/textEdits.js';
import type { StatementMemo } from '../../server/src/repo/lexical/documentExtraction.js';
import { withSyntaxTree } from '../../server/src/repo/declarations.js';
import { ts } from 'ts-morph';
import { IgnoreRules, isSecretPath } from '../../server/src/privacy/exclusion.js';
import { redactSecrets } from '../../server/src/privacy/secrets.js';
import { WorkspaceFiles } from '../../server/src/workspace/workspaceFiles.js';
import { copyFixture } from '../support/lspClient.js';

/** A fresh copy of the question fixture, with the git-ignored folder the repository cannot commit. */
function workspace(): string {
  const root = copyFixture('question');
  fs.mkdirSync(path.join(root, 'generated'));
  fs.writeFileSync(
    path.join(root, 'generated', 'retryClient.ts'),
    '// CANARY_GENERATED_77e2: generated retry backoff client, ignored through .gitignore.\n/** Retry with backoff, generated. */\nexport function generatedRetryBackoff(): string {\n  return "retry backoff config loader";\n}\n',
  );
  // A dot-file with a source extension: only the `.env*` rule keeps it out.
  fs.writeFileSync(path.join(root, 'src', '.env.local.ts'), '// CANARY_ENV_TS_3c4d\nexport const retryBackoffConfigLoader = "CANARY_ENV_TS_3c4d";\n');
  return root;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('tokenisation', () => {
  it('splits identifiers by case, acronyms, digits and underscores', () => {
    expect(splitIdentifier('parseHTTPConfig_v2')).toEqual(['parse', 'http', 'config', 'v', '2']);
    expect(splitIdentifier('DEFAULT_RETRY')).toEqual(['default', 'retry']);
    expect(splitIdentifier('LruCache')).toEqual(['lru', 'cache']);
  });

  it('stems variants onto one term, the same for code and questions', () => {
    expect(new Set(['retry', 'retries', 'retrying', 'retried'].map(stem))).toEqual(new Set(['retry']));
    expect(new Set(['load', 'loads', 'loaded', 'loading', 'loader'].map(stem))).toEqual(new Set(['load']));
    expect(new Set(['cache', 'caches', 'cached', 'caching'].map(stem)).size).toBe(1);
    expect(terms('where is the configuration loaded?', 'query')).toEqual(['config', 'load']);
    expect(terms('const cfg = loadConfig()')).toEqual(['config', 'load', 'config', 'loadconfig']);
  });

  it('drops stop words, question wording and keywords standing alone, but keeps them inside identifiers', () => {
    expect(terms('where is the retry logic implemented?', 'query')).toEqual(['retry']);
    expect(terms('export default function getUser() { return this.default; }')).toEqual(['get', 'user', 'getuser']);
  });
});

describe('ignore rules and secrets', () => {
  it('follows the .gitignore subset: any depth, anchoring, directories, globs, negation', () => {
    const rules = new IgnoreRules('generated/\n*.log\n/build-*.ts\n!keep.log\nsrc/**/fixtures/\n# comment\n');
    expect(rules.ignores('generated/a.ts')).toBe(true);
    expect(rules.ignores('pkg/generated/deep/a.ts')).toBe(true);
    expect(rules.ignores('generated.ts')).toBe(false);
    expect(rules.ignores('logs/a.log')).toBe(true);
    expect(rules.ignores('keep.log')).toBe(false);
    expect(rules.ignores('build-x.ts')).toBe(true);
    expect(rules.ignores('src/build-x.ts')).toBe(false);
    expect(rules.ignores('src/a/b/fixtures/x.ts')).toBe(true);
  });

  it('recognises secret files and redacts secret-looking values', () => {
    for (const file of ['.env', '.env.local.ts', 'config/.env.production', 'src/secrets.ts', 'id_rsa', 'certs/server.pem', '.npmrc']) expect(isSecretPath(file), file).toBe(true);
    for (const file of ['src/env.ts', 'src/config.ts', 'src/secretary.ts']) expect(isSecretPath(file), file).toBe(false);
    const redacted = redactSecrets('const apiKey = "abcdef123456";\nconst key = "sk-abcdefghijklmnopqrstuv";\nconst token: string = load();');
    expect(redacted).not.toContain('abcdef123456');
    expect(redacted).not.toContain('sk-abcdefghijklmnopqrstuv');
    expect(redacted).toContain('const token: string = load();');
  });
});

describe('ranking on the question fixture', () => {
  it('puts the defining file first for the issue’s example questions', async () => {
    const index = new LexicalIndex(workspace());
    const retry = await index.search('where is the retry backoff implemented?');
    expect(retry[0]).toMatchObject({ path: 'src/retry.ts' });
    const config = await index.search('how is the config loaded');
    expect(config[0]).toMatchObject({ path: 'src/config.ts', name: 'loadConfig', kind: 'function' });
    const parse = await index.search('parse config');
    expect(parse[0]).toMatchObject({ path: 'src/config.ts', name: 'parseConfig' });
    expect(parse[0]!.snippet).toContain('export function parseConfig(text: string): AppConfig {');
    expect(parse[0]!.startLine).toBe(fs.readFileSync(path.join(index.root, 'src/config.ts'), 'utf8').split('\n').findIndex((l) => l.includes('function parseConfig')) + 1);
  });

  it('names class members with their class and limits results per file', async () => {
    const index = new LexicalIndex(workspace());
    const hits = await index.search('where are expired cache entries removed?', { limit: 5, maxPerFile: 2 });
    expect(hits[0]).toMatchObject({ path: 'src/cache.ts', kind: 'method', name: 'LruCache.purgeExpired' });
    expect(hits.filter((h) => h.path === 'src/cache.ts')).toHaveLength(2);
    expect(hits.length).toBeLessThanOrEqual(5);
  });

  it('reaches an MRR of at least 0.8 on a labelled question set', async () => {
    const index = new LexicalIndex(workspace());
    const labelled: [question: string, file: string][] = [
      ['where is the retry backoff implemented?', 'src/retry.ts'],
      ['where is the retry logic implemented?', 'src/retry.ts'],
      ['how long do we wait between retries?', 'src/retry.ts'],
      ['how is the jitter computed for the delay between attempts?', 'src/retry.ts'],
      ['how is the config loaded', 'src/config.ts'],
      ['parse config', 'src/config.ts'],
      ['where is the default configuration defined?', 'src/config.ts'],
      ['what happens when the config file is missing?', 'src/config.ts'],
      ['which class caches values and evicts the least recently used entry?', 'src/cache.ts'],
      ['where are expired cache entries removed?', 'src/cache.ts'],
      ['how are HTTP requests sent?', 'src/httpClient.ts'],
      ['where is the request timeout handled?', 'src/httpClient.ts'],
      ['how do we decide whether an error is transient and worth retrying?', 'src/httpClient.ts'],
      ['which error does the HTTP client throw for a bad status code?', 'src/httpClient.ts'],
      ['where are users fetched and cached?', 'src/userService.ts'],
      ['where is the admin user looked up at startup?', 'src/main.ts'],
      ['what is the entry point of the application?', 'src/main.ts'],
      ['how is the log level filtered?', 'src/logger.ts'],
      ['are there tests for the retry helper?', 'test/retry.test.ts'],
    ];
    const ranks: number[] = [];
    for (const [question, file] of labelled) {
      const hits = await index.search(question, { limit: 10 });
      ranks.push(hits.findIndex((h) => h.path === file) + 1);
    }
    const mrr = ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length;
    console.log(`lexical index MRR over ${labelled.length} questions: ${mrr.toFixed(3)} (ranks ${ranks.join(', ')})`);
    expect(mrr).toBeGreaterThanOrEqual(0.8);
  });
});

describe('what is never indexed', () => {
  it('leaves out .gitignore and .assistantignore matches, .env* files and secret-looking files', async () => {
    const index = new LexicalIndex(workspace());
    const questions = ['retry backoff', 'config loader', 'canary generated legacy secret token env', 'retryBackoffConfigLoader', 'generatedRetryBackoff', 'retryWithBackoff'];
    for (const question of questions) {
      for (const hit of await index.search(question, { limit: 50 })) {
        expect(hit.path).not.toMatch(/^(generated|legacy)\/|(^|\/)\.env|secrets\.ts$/);
        expect(hit.snippet).not.toContain('CANARY');
      }
    }
    expect(index.relativePath(path.join(index.root, '.env'))).toBeUndefined();
    expect(index.relativePath(path.join(index.root, 'legacy', 'oldRetry.ts'))).toBeUndefined();
    expect(index.relativePath(path.join(index.root, 'generated', 'retryClient.ts'))).toBeUndefined();
    expect(index.relativePath(path.join(index.root, '..', 'outside.ts'))).toBeUndefined();
    // An ignored file cannot come in through the editor either.
    expect(index.updateDocument(path.join(index.root, 'legacy', 'oldRetry.ts'), 'export function legacyOnly() {}')).toBe(false);
    expect(await index.search('legacyOnly')).toEqual([]);
  });

  it('follows changes to the ignore files', async () => {
    const index = new LexicalIndex(workspace(), { refreshIntervalMs: 0 });
    expect((await index.search('log level filtered'))[0]?.path).toBe('src/logger.ts');
    fs.appendFileSync(path.join(index.root, '.assistantignore'), 'src/logger.ts\n');
    expect((await index.search('log level filtered')).some((h) => h.path === 'src/logger.ts')).toBe(false);
  });
});

describe('refreshing', () => {
  it('re-reads only the file whose mtime changed, and drops deleted files', async () => {
    const index = new LexicalIndex(workspace(), { refreshIntervalMs: 0 });
    expect(await index.search('fooBarBazQux')).toEqual([]);
    const files = index.stats().files;
    const cache = path.join(index.root, 'src', 'cache.ts');
    fs.appendFileSync(cache, '\n/** Counts the hits. */\nexport function fooBarBazQux(): number {\n  return 1;\n}\n');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(cache, later, later);
    const reads = vi.spyOn(fs, 'readFileSync');
    const hits = await index.search('fooBarBazQux');
    const sourceReads = reads.mock.calls.map((call) => String(call[0])).filter((file) => /\.ts$/.test(file));
    expect(hits[0]).toMatchObject({ path: 'src/cache.ts', name: 'fooBarBazQux', kind: 'function' });
    // The snippet is read from disk too: cache.ts twice at most, no other file.
    expect(new Set(sourceReads)).toEqual(new Set([cache]));
    expect(index.stats().files).toBe(files);

    fs.rmSync(cache);
    expect(await index.search('fooBarBazQux')).toEqual([]);
    expect(index.stats().files).toBe(files - 1);
  });

  it('uses an open document’s unsaved text until the file changes on disk', async () => {
    const index = new LexicalIndex(workspace(), { refreshIntervalMs: 0 });
    await index.refresh();
    const logger = path.join(index.root, 'src', 'logger.ts');
    const unsaved = `${fs.readFileSync(logger, 'utf8')}\n/** Sends log lines to a remote collector. */\nexport function remoteCollectorSink(url: string): void {\n  void url;\n}\n`;
    expect(index.updateDocument(logger, unsaved)).toBe(true);
    const hits = await index.search('remote collector sink');
    expect(hits[0]).toMatchObject({ path: 'src/logger.ts', name: 'remoteCollectorSink' });
    expect(hits[0]!.snippet).toContain('export function remoteCollectorSink(url: string): void {');
    // A new, never-saved file counts too.
    expect(index.updateDocument(path.join(index.root, 'src', 'draft.ts'), 'export function unsavedDraftHelper() {}\n')).toBe(true);
    expect((await index.search('unsaved draft helper'))[0]?.path).toBe('src/draft.ts');
    // Saving something else to disk replaces the editor's text.
    fs.writeFileSync(logger, 'export const onlyOnDisk = 1;\n');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(logger, later, later);
    expect((await index.search('remote collector sink')).some((h) => h.name === 'remoteCollectorSink')).toBe(false);
    expect((await index.search('only on disk'))[0]).toMatchObject({ path: 'src/logger.ts', name: 'onlyOnDisk' });
  });

  it('looks declarations up by simple name from one bucket, the same as a scan, through edits and deletions', async () => {
    const index = new LexicalIndex(workspace(), { refreshIntervalMs: 0 });
    await index.refresh();
    const scan = (simple: string): string[] =>
      index
        .declarations((name) => name === simple || name.endsWith(`.${simple}`))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine))
        .map((d) => `${d.path}:${d.startLine} ${d.name}`);
    const bucket = (simple: string): string[] => index.declarations(() => true, 200, simple).map((d) => `${d.path}:${d.startLine} ${d.name}`);
    const all = index.declarations(() => true, 10_000);
    const simples = [...new Set(all.map((d) => d.name.split('.').pop() as string))];
    expect(simples.length).toBeGreaterThan(10);
    for (const simple of simples) expect(bucket(simple)).toEqual(scan(simple));
    // Sorted by path and line, limited, filtered by the predicate.
    const logger = path.join(index.root, 'src', 'logger.ts');
    index.updateDocument(logger, 'export function twinName(): void {}\nexport class Holder {\n  twinName(): void {}\n}\n');
    index.updateDocument(path.join(index.root, 'src', 'another.ts'), 'export function twinName(): number {\n  return 1;\n}\n');
    expect(bucket('twinName')).toEqual(['src/another.ts:1 twinName', 'src/logger.ts:1 twinName', 'src/logger.ts:3 Holder.twinName']);
    expect(index.declarations((name) => name.startsWith('Holder.'), 200, 'twinName').map((d) => d.name)).toEqual(['Holder.twinName']);
    expect(index.declarations(() => true, 1, 'twinName')).toHaveLength(1);
    // A new version of a file replaces its entries; a file gone from the disk leaves its bucket.
    index.updateDocument(logger, 'export const nothingHere = 1;\n');
    expect(bucket('twinName')).toEqual(['src/another.ts:1 twinName']);
    fs.rmSync(logger);
    await index.refresh();
    expect(bucket('nothingHere')).toEqual([]);
    expect(bucket('missingEverywhere')).toEqual([]);
  });

  it('stops at an aborted signal', async () => {
    const index = new LexicalIndex(workspace());
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(index.search('retry', {}, controller.signal)).rejects.toThrow('cancelled');
  });
});

describe('open documents', () => {
  it('extracts the same documents from the code-action path\'s tree of a text as from a parse of its own, on a file being edited too', () => {
    const repo = path.resolve(__dirname, '..', '..');
    for (const relative of ['server/src/context/programSymbols.ts', 'server/src/repo/lexical/lexicalIndex.ts', 'test/e2e/documentAction.test.ts', 'bench/run.mjs']) {
      const text = fs.readFileSync(path.join(repo, relative), 'utf8');
      const fileName = path.join('/virtual/overlay', relative);
      const edited = `${text.slice(0, 400)}\n// typed\n${text.slice(400)}`;
      for (const version of [text, edited]) {
        const shared = withSyntaxTree(fileName, version, (source) => extractDocuments(relative, version, source));
        expect(shared).toEqual(extractDocuments(relative, version));
        expect(shared.length).toBeGreaterThan(3);
      }
    }
  });
});

describe('what an extraction finds', () => {
  /** Declarations nested in function bodies, of every kind the extraction records, and bodies that declare nothing. */
  const NESTED = [
    'export function outer(a: number): number {',
    '  function inner(): number { return a; }',
    '  class Local { run(): number { return inner(); } }',
    '  interface Shape { area: number }',
    '  type /* a comment first */ Alias = Shape;',
    '  enum Mode { On, Off }',
    '  const made = () => class Named { size = 1; };',
    '  const plain = (x: number) => ({ type: x, kind: x });',
    '  return new Local().run() + made.length + plain(1).type;',
    '}',
    'declare global {',
    '  interface Window { added: number }',
    '}',
    // A body whose one declaring word is `type`, a comment before the alias's name.
    'export function aliasOnly(): number { type/* first */Only = number; const o: Only = 1; return o; }',
    'namespace Top {',
    '  export function helper(): void { namespace Inside { export const z = 1; } }',
    '}',
    'export class Outer {',
    '  method(): void {',
    '    const f = function named() { return 1; };',
    '    function deep() { enum Deeper { A } return Deeper.A; }',
    '    void f; void deep;',
    '  }',
    '}',
  ].join('\n');

  it('finds every declaration a walk of the whole tree finds, in function bodies too', () => {
    const repo = path.resolve(__dirname, '..', '..');
    const files = [['nested.ts', NESTED], ...['server/src/context/programSymbols.ts', 'server/src/repo/lexical/lexicalIndex.ts', 'server/src/trace/traceStore.ts', 'test/e2e/documentAction.test.ts', 'bench/run.mjs'].map((relative) => [relative, fs.readFileSync(path.join(repo, relative), 'utf8')])];
    for (const [relative, text] of files as [string, string][]) {
      const source = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true);
      const walked: string[] = [];
      const visit = (node: ts.Node): void => {
        const named = (node as { name?: ts.Node }).name;
        if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || (ts.isClassExpression(node) && node.name) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name))) {
          walked.push(`${named && ts.isIdentifier(named) ? named.text : 'default'}@${node.getStart(source)}`);
        }
        // A top-level variable is a document of its own, its initializer's insides are not (the extraction's rule).
        if (ts.isVariableStatement(node) && (ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent))) return;
        ts.forEachChild(node, visit);
      };
      visit(source);
      const extracted = new Set(extractDocuments(relative, text).map((draft) => `${draft.name.split('.').pop()}@${draft.start}`));
      expect(walked.length, relative).toBeGreaterThan(3);
      expect(walked.filter((found) => !extracted.has(found)), relative).toEqual([]);
    }
  });
});

describe('an open document being edited', () => {
  const repo = path.resolve(__dirname, '..', '..');
  /** Edits of every kind that moves statements: typing, deleting, comments and statements put first, top-level await. */
  const pieces = [' ', '\n', '// a note about retries here\n', '/** Loads the whole configuration. */\n', 'function typedHere() {}\n', 'x', '}', '{', '`', '/*', 'export const q = 1;', '\n\n', 'class K { m() {} }\n', 'await ready();\n', "import x from 'y';\n", '  extra(): void {}\n', '  /** A member typed in. */\n', '  field = () => 1;\n'];

  /** Every extraction whose text the memo's strings come from, its statements' and its members' parts together. */
  const heldGenerations = (memo: StatementMemo): Set<number> => new Set([...[...memo.parts.values()].flatMap((part) => part.generations), ...[...memo.members.values()].map((part) => part.generation)]);

  it('takes the statements it did not change from the last version, and extracts what a whole extraction does', () => {
    let seed = 11;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (const relative of ['server/src/context/programSymbols.ts', 'test/e2e/documentAction.test.ts', 'bench/run.mjs', 'server/src/trace/traceStore.ts', 'server/src/repo/lexical/lexicalIndex.ts']) {
      let text = fs.readFileSync(path.join(repo, relative), 'utf8');
      let memo: StatementMemo | undefined;
      for (let i = 0; i < 30; i++) {
        const kind = next(10);
        if (kind < 6) {
          const at = next(text.length + 1);
          text = text.slice(0, at) + (pieces[next(pieces.length)] as string) + text.slice(at);
        } else if (kind < 8) {
          const at = next(text.length);
          text = text.slice(0, at) + text.slice(at + next(40));
        } else if (kind < 9) text = (pieces[next(pieces.length)] as string) + text;
        else text = text.replace(/^[^\n]*\n/, '');
        const reused = extractDocumentsReusing(relative, text, undefined, memo);
        expect(reused.drafts).toEqual(extractDocuments(relative, text));
        memo = reused.memo;
      }
    }
    // A script becomes a module: in the same block, `await` followed by a function was a name and a declaration, and
    // is now one await.
    const script = '{\n  await\n  function helperAwaited() {\n    return 1;\n  }\n}\n';
    const { memo: scriptMemo } = extractDocumentsReusing('script.ts', script, undefined, undefined);
    const module = `${script}export {};\n`;
    expect(extractDocumentsReusing('script.ts', module, undefined, scriptMemo).drafts).toEqual(extractDocuments('script.ts', module));
    expect(extractDocuments('script.ts', script).map((draft) => draft.name)).toContain('helperAwaited');
    expect(extractDocuments('script.ts', module).map((draft) => draft.name)).not.toContain('helperAwaited');
  });

  it('finds the declarations and their lines a fresh index finds, version after version, the lines moved rather than found again', async () => {
    const root = workspace();
    const file = path.join(root, 'src', 'edited.ts');
    let text = fs.readFileSync(path.join(repo, 'server/src/trace/traceStore.ts'), 'utf8');
    const edited = new LexicalIndex(root);
    await edited.refresh();
    edited.updateDocument(file, text);
    const change = async (after: string): Promise<void> => {
      expect(movedLineStarts(lineStartsOf(text), changedSpan(text, after), after)).toEqual(lineStartsOf(after));
      text = after;
      edited.updateDocument(file, text);
      const fresh = new LexicalIndex(root);
      await fresh.refresh();
      fresh.updateDocument(file, text);
      expect(edited.declarations(() => true, 5_000)).toEqual(fresh.declarations(() => true, 5_000));
    };
    // A character replaced by another (the same length) near the end of a statement: the statement is read again.
    await change(`${text}export const retries = 3;\n`);
    await change(text.replace(/= 3;\n$/, '= 4;\n'));
    expect(edited.declarations(() => true, 5_000).find((d) => d.name === 'retries')?.signature).toContain('= 4');
    let seed = 5;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let i = 0; i < 40; i++) {
      const at = next(text.length + 1);
      // Typing, new lines, deleting across lines, and a change at the very start or end of the file.
      const kind = next(5);
      if (kind === 0) await change(`${text.slice(0, at)}${pieces[next(pieces.length)] as string}${text.slice(at)}`);
      else if (kind === 1) await change(`${text.slice(0, at)}\n\n${text.slice(at)}`);
      else if (kind === 2) await change(text.slice(0, at) + text.slice(at + next(300)));
      else if (kind === 3) await change(`/** Where the trace lives. */\n${text}`);
      else await change(`${text}\nexport const tail${i} = ${i};\n`);
    }
    expect(edited.declarations(() => true, 5_000).length).toBeGreaterThan(30);
  });

  it('finds the one span where two texts differ, blocks and characters alike', () => {
    const text = fs.readFileSync(path.join(repo, 'server/src/trace/traceStore.ts'), 'utf8');
    expect(text.length).toBeGreaterThan(3 * 2_048);
    for (const [before, after] of [
      [text, text],
      [text, `${text.slice(0, 5_000)}x${text.slice(5_000)}`],
      [text, `${text.slice(0, 4_096)}${text.slice(4_097)}`],
      [text, `Z${text.slice(1)}`],
      [text, `${text.slice(0, -1)}Z`],
      [`${text}${text}`, `${text}!${text}`],
      ['', text],
      ['aaaa', 'aaaaaa'],
    ] as const) {
      const span = changedSpan(before, after);
      expect(before.slice(0, span.start)).toBe(after.slice(0, span.start));
      expect(before.slice(span.beforeEnd)).toBe(after.slice(span.afterEnd));
      expect(before.slice(0, span.start) + after.slice(span.start, span.afterEnd) + before.slice(span.beforeEnd)).toBe(after);
      // As short as it can be: one character fewer at either end would leave a difference out.
      if (span.start < span.beforeEnd && span.start < span.afterEnd) expect(before[span.start]).not.toBe(after[span.start]);
      if (span.beforeEnd > span.start && span.afterEnd > span.start) expect(before[span.beforeEnd - 1]).not.toBe(after[span.afterEnd - 1]);
    }
  });

  it('reads again only the statements typed in, and keeps the parts of at most eight versions', () => {
    const relative = 'server/src/listeners/testReport.ts';
    let text = fs.readFileSync(path.join(repo, relative), 'utf8');
    let memo = extractDocumentsReusing(relative, text, undefined, undefined).memo;
    const statements = memo.parts.size;
    expect(statements).toBeGreaterThan(30);
    // The extraction each part was last made in.
    const generations = (): number[] => [...memo.parts.values()].map((part) => Math.max(...part.generations));
    const held = (): Set<number> => heldGenerations(memo);
    const typeAt = (at: number): void => {
      text = `${text.slice(0, at)} ${text.slice(at)}`;
      memo = extractDocumentsReusing(relative, text, undefined, memo).memo;
      expect(generations()).toHaveLength(statements);
    };
    // Typing in one function, version after version: that function alone is read again, and looked for by its text
    // (the others are found by their place).
    for (let version = 2; version <= 12; version++) {
      typeAt(text.indexOf('function parseVitestJson'));
      expect(memo.byText).toBe(1);
      expect(generations().filter((made) => made === version)).toHaveLength(1);
      expect(generations().filter((made) => made === 1)).toHaveLength(statements - 1);
    }
    // Typing in a different function each time: the versions held stay at eight, and each reads again at most the
    // parts of the version with the fewest, which is at most an eighth of the file.
    const names = [...text.matchAll(/^(?:export )?(?:async )?function (\w+)/gm)].map((match) => match[0]).slice(1, 15);
    expect(names).toHaveLength(14);
    for (const [i, name] of names.entries()) {
      typeAt(text.indexOf(name));
      const made = generations();
      expect(held().size).toBeLessThanOrEqual(8);
      expect(made.filter((generation) => generation === 13 + i).length).toBeLessThanOrEqual(Math.ceil(statements / 8) + 1);
      expect(made.filter((generation) => generation === 1).length).toBeGreaterThanOrEqual(statements - 15);
    }
  });

  it("reads a detached comment's prose once while its statement is unchanged, and again when it changes", () => {
    const relative = 'src/notes.ts';
    const note = '// The retry budget resets at midnight, for every account holder alike.\n\n';
    let text = `${note}export function first(): number {\n  return 1;\n}\n\n${note}export function second(): number {\n  return 2;\n}\n`;
    const comments = (drafts: { kind: string; fields: string[] }[]): (string | undefined)[] => drafts.filter((d) => d.kind === 'comment').map((d) => d.fields[2]);
    let { drafts, memo } = extractDocumentsReusing(relative, text, undefined, undefined);
    expect(comments(drafts)).toEqual(['The retry budget resets at midnight, for every account holder alike.', 'The retry budget resets at midnight, for every account holder alike.']);
    const blocksOf = (): { prose?: string }[] => [...memo.at.values()].flatMap((part) => part.detached);
    const read = blocksOf();
    expect(read.map((block) => block.prose)).toEqual(comments(drafts));
    // Typing in the first function: the second statement's part, and its comment block as read, are the same objects.
    text = text.replace('return 1;', 'return 11;');
    ({ drafts, memo } = extractDocumentsReusing(relative, text, undefined, memo));
    expect(drafts).toEqual(extractDocuments(relative, text));
    expect(blocksOf()[1]).toBe(read[1]);
    // Typing in the second comment: read again, the new prose.
    text = text.replace('alike.\n\nexport function second', 'alike, weekends too.\n\nexport function second');
    ({ drafts, memo } = extractDocumentsReusing(relative, text, undefined, memo));
    expect(drafts).toEqual(extractDocuments(relative, text));
    expect(comments(drafts)[1]).toBe('The retry budget resets at midnight, for every account holder alike, weekends too.');
    expect(blocksOf()[1]).not.toBe(read[1]);
  });

  it('reads again only the class member typed in, renamed classes whole, and keeps members of at most eight versions', () => {
    // A real class of more than thirty members.
    const relative = 'test/support/rawLsp.ts';
    let text = fs.readFileSync(path.join(repo, relative), 'utf8');
    let memo = extractDocumentsReusing(relative, text, undefined, undefined).memo;
    const members = memo.members.size;
    expect(members).toBeGreaterThan(30);
    const made = (): number[] => [...memo.members.values()].map((part) => part.generation);
    const held = (): Set<number> => heldGenerations(memo);
    const next = (edit: (before: string) => string): void => {
      text = edit(text);
      const reused = extractDocumentsReusing(relative, text, undefined, memo);
      expect(reused.drafts).toEqual(extractDocuments(relative, text));
      memo = reused.memo;
    };
    const typeAt = (needle: string): void => next((before) => `${before.slice(0, before.indexOf(needle))} ${before.slice(before.indexOf(needle))}`);
    // Typing in one method, version after version: that method alone is read again; the class is put together.
    for (let version = 2; version <= 10; version++) {
      typeAt('  request(method: string');
      expect(made().filter((generation) => generation === version)).toHaveLength(1);
      expect(made().filter((generation) => generation === 1)).toHaveLength(members - 1);
      expect(made()).toHaveLength(members);
    }
    // Typing in a different method each time: at most eight versions are held, members and statements together.
    const methods = [...text.matchAll(/^ {2}(?:(?:private|static|async|get|set) )*[A-Za-z#]\w*\(/gm)].map((match) => match[0]).filter((line, i, all) => all.indexOf(line) === i).slice(0, 14);
    expect(methods).toHaveLength(14);
    for (const method of methods) {
      typeAt(method);
      expect(held().size).toBeLessThanOrEqual(8);
      expect(made().filter((generation) => generation === memo.generation).length).toBeLessThanOrEqual(Math.ceil(members / 4));
    }
    // A renamed class: its members' names and context change, so every one of them is read again.
    next((before) => before.replace('export class RawServer {', 'export class RawLedger {'));
    expect(made().every((generation) => generation === memo.generation)).toBe(true);
    expect(extractDocuments(relative, text).map((draft) => draft.name)).toContain('RawLedger.request');
  });

  it('ranks and finds from the terms it kept as a fresh index does from the same texts', async () => {
    const root = workspace();
    const file = path.join(root, 'src', 'edited.ts');
    const before = '// Settings, retries and the cache of one client.\n\n// Section: reading the retry settings from disk.\n\n/** Reads the retry settings. */\nexport function readSettings(): number {\n  return 3;\n}\n\n/** Sends one request with backoff. */\nexport function sendWithBackoff(): void {\n  const attempts = 2;\n}\n\nexport class Cache {\n  /** Evicts the oldest entry. */\n  evictOldest(): void {}\n}\n';
    const after = before.replace('const attempts = 2;', 'const attempts = 2;\n  const jitterMilliseconds = 40;').replace('evictOldest(): void {}', 'evictOldest(): void {}\n  /** Warms the cache from the disk. */\n  warmFromDisk(): void {}\n');
    const edited = new LexicalIndex(root);
    await edited.refresh();
    edited.updateDocument(file, before);
    edited.updateDocument(file, after);
    const fresh = new LexicalIndex(root);
    await fresh.refresh();
    fresh.updateDocument(file, after);
    expect(edited.stats()).toEqual(fresh.stats());
    for (const query of ['section reading from disk', 'one client', 'jitter milliseconds', 'retry settings', 'warm the cache from disk', 'send request backoff', 'evict oldest entry']) {
      expect(edited.lookup(query)).toEqual(fresh.lookup(query));
    }
    // The typed-in body is found (a declaration documented for jitter, in another file, may rank above it).
    expect(edited.lookup('jitter milliseconds')).toContainEqual(expect.objectContaining({ name: 'sendWithBackoff', startLine: 11 }));
    expect(edited.lookup('section reading from disk')[0]).toMatchObject({ kind: 'comment', startLine: 3 });
    expect(edited.lookup('warm the cache from disk')[0]).toMatchObject({ name: 'Cache.warmFromDisk' });
    expect(edited.declarations(() => true, 1_000)).toEqual(fresh.declarations(() => true, 1_000));
  });
});

describe('bounds', () => {
  it('stops at the file, document and term limits', async () => {
    const root = workspace();
    const small = new LexicalIndex(root, {}, { files: new WorkspaceFiles(root, { maxFiles: 3 }) });
    await small.refresh();
    expect(small.stats()).toMatchObject({ files: 3, truncated: true });

    const few = new LexicalIndex(workspace(), { maxDocuments: 10 });
    await few.refresh();
    expect(few.stats().documents).toBeLessThanOrEqual(10);
    expect(few.stats().truncated).toBe(true);

    const other = workspace();
    const big = `export function huge() {\n${Array.from({ length: 2_000 }, (_, i) => `  const word${i}Alpha${i} = ${i};`).join('\n')}\n}\n`;
    fs.writeFileSync(path.join(other, 'src', 'huge.ts'), big);
    const capped = new LexicalIndex(other, { maxTermsPerDocument: 64 });
    const hits = await capped.search('huge');
    expect(hits[0]).toMatchObject({ path: 'src/huge.ts', name: 'huge' });
    expect(capped.stats().terms).toBeLessThan(400);
  });
});
