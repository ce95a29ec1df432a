// Unit tests of the saved lexical index: a later process takes unchanged files from it, reads changed ones, and never trusts a stale or damaged one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LexicalIndex } from '../../server/src/repo/lexical/lexicalIndex.js';
import { savedIndexFile } from '../../server/src/repo/lexical/savedIndex.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { pruneCacheFolder, userCacheDirectory, workspaceCacheFile } from '../../server/src/workspace/userCache.js';
import { copyFixture } from '../support/lspClient.js';

const QUERIES = ['where is the retry logic implemented?', 'parse the configuration', 'backoff delay', 'load settings from a file', 'evict the least recently used cache entry'];

const folders: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** Past the moment a file's times may still not move on its next change (`fileTimes.ts`): what was read then is saved. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 120));

function cacheFileIn(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'saved-index-'));
  folders.push(folder);
  return path.join(folder, 'cache', 'lexical-index');
}

/** What an index answers: every query's locations, and its declarations. */
function answers(index: LexicalIndex): unknown {
  return { queries: QUERIES.map((q) => index.lookup(q, { limit: 10 })), declarations: index.declarations(() => true, 1_000) };
}

/** A fresh index over `root` saved at `cacheFile`, refreshed; the source files it read from disk while refreshing (not the ignore files). */
async function walked(root: string, cacheFile: string, limits: ConstructorParameters<typeof LexicalIndex>[1] = {}): Promise<{ index: LexicalIndex; read: string[] }> {
  const index = new LexicalIndex(root, limits, { cacheFile });
  const spy = vi.spyOn(fs, 'readFileSync');
  try {
    await index.refresh();
    return { index, read: spy.mock.calls.map(([file]) => String(file)).filter((file) => file.startsWith(root) && /\.[cm]?[jt]sx?$/.test(file)) };
  } finally {
    spy.mockRestore();
  }
}

/** A fresh copy of the question fixture, indexed once (settled) and saved. */
async function savedOnce(): Promise<{ root: string; cacheFile: string; first: Awaited<ReturnType<typeof walked>>; files: number }> {
  const root = copyFixture('question');
  const cacheFile = cacheFileIn();
  await settle();
  const first = await walked(root, cacheFile);
  await first.index.saveNow();
  return { root, cacheFile, first, files: first.index.stats().files };
}

describe('the saved lexical index', () => {
  it('lets a later process take every unchanged file from it, reading none, with the same answers and scores', async () => {
    const root = copyFixture('question');
    const cacheFile = cacheFileIn();
    await settle();
    const first = await walked(root, cacheFile);
    expect(first.index.stats().fromCache).toBe(0);
    expect(first.read.length).toBe(first.index.stats().files);
    expect(fs.existsSync(cacheFile)).toBe(false);
    await first.index.saveNow();
    expect(fs.existsSync(cacheFile)).toBe(true);
    expect(fs.readdirSync(path.dirname(cacheFile))).toEqual(['lexical-index']);

    const second = await walked(root, cacheFile);
    expect(second.read).toEqual([]);
    expect(second.index.stats()).toEqual({ ...first.index.stats(), fromCache: first.index.stats().files });
    // The same answers, and answers at all: every query finds something.
    for (const query of QUERIES) expect(first.index.lookup(query, { limit: 10 }).length, query).toBeGreaterThan(0);
    expect(answers(second.index)).toEqual(answers(first.index));
    expect(second.index.lookup('retry logic', { limit: 1 })[0]?.path).toBe('src/retry.ts');
    // A header and a line per file; nothing changed, so it is not written again (a write replaces the file).
    expect(fs.readFileSync(cacheFile, 'utf8').split('\n').length).toBe(first.index.stats().files + 2);
    const inode = fs.statSync(cacheFile).ino;
    await second.index.saveNow();
    expect(fs.statSync(cacheFile).ino).toBe(inode);
  });

  it('reads again a file changed since the save, indexes a new one, drops a deleted one, and saves the result', async () => {
    const { root, cacheFile, first, files } = await savedOnce();

    const retry = path.join(root, 'src', 'retry.ts');
    fs.appendFileSync(retry, '\n/** Quenches the zorblax flux. */\nexport function quenchZorblax(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(root, 'src', 'added.ts'), '/** Grinds the flimwhistle. */\nexport function grindFlimwhistle(): void {}\n');
    const deleted = first.index.lookup('retry logic', { limit: 10 }).map((l) => l.path).find((p) => p !== 'src/retry.ts' && p.startsWith('src/'));
    expect(deleted).toBeDefined();
    fs.rmSync(path.join(root, deleted!));
    await settle();

    const second = await walked(root, cacheFile);
    expect(second.read.map((file) => path.relative(root, file).split(path.sep).join('/')).sort()).toEqual(['src/added.ts', 'src/retry.ts']);
    expect(second.index.stats()).toMatchObject({ files, fromCache: files - 2 });
    expect(second.index.lookup('zorblax flux', { limit: 1 })[0]).toMatchObject({ path: 'src/retry.ts', name: 'quenchZorblax' });
    expect(second.index.lookup('flimwhistle', { limit: 1 })[0]).toMatchObject({ path: 'src/added.ts', name: 'grindFlimwhistle' });
    expect(second.index.lookup('retry logic', { limit: 20 }).map((l) => l.path)).not.toContain(deleted);
    // The same answers as an index that read every file.
    const fresh = new LexicalIndex(root);
    await fresh.refresh();
    expect(second.index.lookup('zorblax flux', { limit: 10 })).toEqual(fresh.lookup('zorblax flux', { limit: 10 }));
    expect(second.index.lookup('retry logic', { limit: 10 })).toEqual(fresh.lookup('retry logic', { limit: 10 }));

    await second.index.saveNow();
    const third = await walked(root, cacheFile);
    expect(third.read).toEqual([]);
    expect(third.index.stats().fromCache).toBe(files);
    expect(third.index.lookup('zorblax flux', { limit: 1 })[0]?.name).toBe('quenchZorblax');
  });

  it('leaves out a file read within moments of its last change: the next process reads it again', async () => {
    const root = copyFixture('question');
    const cacheFile = cacheFileIn();
    await settle();
    const fresh = path.join(root, 'src', 'fresh.ts');
    fs.writeFileSync(fresh, '/** Polishes the snorkel. */\nexport function polishSnorkel(): void {}\n');
    // Changed "now" however long the walk takes to come: a modification time ahead of the clock.
    const ahead = new Date(Date.now() + 10 * 60_000);
    fs.utimesSync(fresh, ahead, ahead);
    const first = await walked(root, cacheFile);
    await first.index.saveNow();
    expect(fs.readFileSync(cacheFile, 'utf8')).not.toContain('"src/fresh.ts"');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(fresh, past, past);
    await settle();
    const second = await walked(root, cacheFile);
    expect(second.read.map((file) => path.relative(root, file))).toEqual([path.join('src', 'fresh.ts')]);
    expect(second.index.stats().fromCache).toBe(first.index.stats().files - 1);
    expect(second.index.lookup('snorkel', { limit: 1 })[0]?.name).toBe('polishSnorkel');
    // Read once settled, it is saved with the others.
    await second.index.saveNow();
    expect((await walked(root, cacheFile)).read).toEqual([]);
  });

  it('leaves out the unsaved text of open documents: the next process reads those files from disk', async () => {
    const root = copyFixture('question');
    const cacheFile = cacheFileIn();
    await settle();
    const first = new LexicalIndex(root, {}, { cacheFile });
    const retry = path.join(root, 'src', 'retry.ts');
    first.updateDocument(retry, `${fs.readFileSync(retry, 'utf8')}\nexport function unsavedQuibble(): void {}\n`);
    await first.refresh();
    expect(first.lookup('unsaved quibble', { limit: 1 })[0]?.name).toBe('unsavedQuibble');
    await first.saveNow();

    const second = await walked(root, cacheFile);
    expect(second.read.map((file) => path.relative(root, file))).toEqual([path.join('src', 'retry.ts')]);
    expect(second.index.stats().fromCache).toBe(second.index.stats().files - 1);
    expect(second.index.lookup('unsaved quibble', { limit: 5 }).some((l) => l.name === 'unsavedQuibble')).toBe(false);
  });

  it('ignores a saved index written by another build or with other limits, and reads again a damaged line', async () => {
    const { root, cacheFile, first, files } = await savedOnce();
    const [header, ...lines] = fs.readFileSync(cacheFile, 'utf8').split('\n');

    // Other limits: another key.
    const otherLimits = await walked(root, cacheFile, { maxTermsPerDocument: 8 });
    expect(otherLimits.index.stats().fromCache).toBe(0);
    expect(otherLimits.read.length).toBe(files);

    // Another build: the header names the module the index was written by.
    fs.writeFileSync(cacheFile, [header!.replace(/"build":"[^"]*"/, '"build":"1:2"'), ...lines].join('\n'));
    expect((await walked(root, cacheFile)).index.stats().fromCache).toBe(0);

    // A damaged line (cut in the middle) and a line whose shape is wrong: those two files are read again.
    const damaged = [...lines];
    damaged[0] = damaged[0]!.slice(0, Math.floor(damaged[0]!.length / 2));
    damaged[1] = damaged[1]!.replace(/\t\[.*$/, '\t[["function","x",1,2,1,"x",["a"],[1],[0,0,0,0,0]]]');
    fs.writeFileSync(cacheFile, [header, ...damaged].join('\n'));
    const repaired = await walked(root, cacheFile);
    expect(repaired.read).toHaveLength(2);
    expect(repaired.index.stats().fromCache).toBe(files - 2);
    expect(answers(repaired.index)).toEqual(answers(first.index));

    // Not an index at all.
    fs.writeFileSync(cacheFile, 'garbage\n\u0000\u0001');
    const fromGarbage = await walked(root, cacheFile);
    expect(fromGarbage.index.stats().fromCache).toBe(0);
    expect(answers(fromGarbage.index)).toEqual(answers(first.index));
    await fromGarbage.index.saveNow();
    expect(fs.readFileSync(cacheFile, 'utf8').split('\n')[0]).toBe(header);
  });

  it('keeps working where the saved index cannot be written, leaving no temporary file', async () => {
    const root = copyFixture('question');
    const blocked = cacheFileIn();
    // A folder with a file in it where the saved index should be: the temporary file is written, the rename fails.
    fs.mkdirSync(blocked, { recursive: true });
    fs.writeFileSync(path.join(blocked, 'keep'), '');
    const index = new LexicalIndex(root, {}, { cacheFile: blocked });
    await index.refresh();
    await index.saveNow();
    expect(index.lookup('retry logic', { limit: 1 })[0]?.path).toBe('src/retry.ts');
    expect(fs.readdirSync(path.dirname(blocked))).toEqual(['lexical-index']);
  });
});

describe('workspace indexes', () => {
  it('are saved in the user cache folder when the workspace closes, except those of a workspace that keeps none (the evaluation\'s copies)', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'saved-index-home-'));
    folders.push(home);
    vi.stubEnv('XDG_CACHE_HOME', home);
    const kept = copyFixture('question');
    const thrownAway = copyFixture('question');
    await settle();
    const keeping = new Workspace(kept);
    await keeping.index.refresh();
    await keeping.close();
    expect(fs.readdirSync(path.join(home, 'assistant-ls', 'lexical-index'))).toEqual([path.basename(savedIndexFile(kept))]);
    const throwaway = new Workspace(thrownAway, { saveIndex: false });
    await throwaway.index.refresh();
    await throwaway.close();
    expect(fs.readdirSync(path.join(home, 'assistant-ls', 'lexical-index'))).toEqual([path.basename(savedIndexFile(kept))]);
  });
});

describe('the user cache folder', () => {
  it('follows XDG_CACHE_HOME, and gives each workspace folder a file of its own', () => {
    expect(userCacheDirectory({ XDG_CACHE_HOME: '/var/cache/me' })).toBe(path.join('/var/cache/me', 'assistant-ls'));
    expect(userCacheDirectory({ XDG_CACHE_HOME: 'relative/path' })).not.toContain('relative');
    const env = { XDG_CACHE_HOME: '/c' };
    const a = workspaceCacheFile('lexical-index', '/work/one/app', env);
    const b = workspaceCacheFile('lexical-index', '/work/two/app', env);
    expect(a).not.toBe(b);
    expect(path.dirname(a)).toBe(path.join('/c', 'assistant-ls', 'lexical-index'));
    expect(path.basename(a)).toMatch(/^app-[0-9a-f]{16}$/);
    expect(workspaceCacheFile('lexical-index', '/work/one/app/', env)).toBe(a);
  });

  it('keeps the files written last when pruning', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-prune-'));
    folders.push(folder);
    for (let i = 0; i < 5; i++) {
      const file = path.join(folder, `w${i}`);
      fs.writeFileSync(file, String(i));
      fs.utimesSync(file, new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
    }
    await pruneCacheFolder(folder, 3);
    expect(fs.readdirSync(folder).sort()).toEqual(['w2', 'w3', 'w4']);
  });
});
