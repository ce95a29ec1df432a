// The code cache loader: a CommonJS file runs as `require` would run it, from its cache when the cache was made from that very file, and from source otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCacheFile, type CodeCacheOutcome } from '../../server/src/codeCache.js';
import { REPO_ROOT } from '../support/lspClient.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-code-cache-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A module of `lines` functions (enough code for V8 to cache), answering `answer`, that requires a sibling and a builtin. */
function moduleText(answer: string, lines = 200): string {
  const functions = Array.from({ length: lines }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n');
  return `${functions}\nconst sibling = require('./sibling.cjs');\nconst os = require('node:os');\nmodule.exports = { answer: ${JSON.stringify(answer)}, sibling, eol: os.EOL, file: __filename, dir: __dirname, sum: f${lines - 1}(1), self: this === module.exports };\n`;
}

/**
 * Loads the file in a new Node process, as a server start does: within one process V8 reuses what it compiled
 * already and never reads the cache, so only a fresh process shows what the cache does. Runs the build's module.
 */
function loadWithCodeCache(file: string): { exports: unknown; cache: CodeCacheOutcome } {
  const loader = pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', 'codeCache.js')).href;
  const script = `const { loadWithCodeCache } = await import(${JSON.stringify(loader)}); process.stdout.write(JSON.stringify(loadWithCodeCache(process.argv[1])));`;
  try {
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as { exports: unknown; cache: CodeCacheOutcome };
  } catch (error) {
    throw new Error(String((error as { stderr?: string }).stderr ?? error), { cause: error });
  }
}

function writeModule(folder: string, answer: string): string {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'sibling.cjs'), "module.exports = 'sibling';\n");
  const file = path.join(folder, 'vendor.cjs');
  fs.writeFileSync(file, moduleText(answer));
  return file;
}

describe('loadWithCodeCache', () => {
  it('runs the file as require would, writes the cache, then compiles from it', () => {
    const file = writeModule(path.join(dir, 'plain'), 'first');
    const first = loadWithCodeCache(file);
    expect(first.cache).toBe('miss');
    expect(first.exports).toEqual({ answer: 'first', sibling: 'sibling', eol: os.EOL, file, dir: path.dirname(file), sum: 200, self: true });
    const cacheFile = codeCacheFile(file);
    expect(fs.existsSync(cacheFile)).toBe(true);
    const written = fs.statSync(cacheFile).mtimeMs;
    const second = loadWithCodeCache(file);
    expect(second.cache).toBe('hit');
    expect(second.exports).toEqual(first.exports);
    // A hit leaves the cache as it was.
    expect(fs.statSync(cacheFile).mtimeMs).toBe(written);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['sibling.cjs', 'vendor.cjs', path.basename(cacheFile)].sort());
  });

  it('never runs the old code of a file rebuilt to the same length (which V8 alone would accept)', () => {
    const file = writeModule(path.join(dir, 'rebuilt'), 'old');
    expect(loadWithCodeCache(file).cache).toBe('miss');
    const before = fs.statSync(file);
    fs.writeFileSync(file, moduleText('new'));
    // Same length, a later mtime: what a rebuild leaves.
    fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 5_000));
    expect(fs.statSync(file).size).toBe(before.size);
    const rebuilt = loadWithCodeCache(file);
    expect(rebuilt.cache).toBe('stale');
    expect((rebuilt.exports as { answer: string }).answer).toBe('new');
    expect(loadWithCodeCache(file).cache).toBe('hit');
  });

  it('compiles from source when the cache is damaged, and replaces it', () => {
    const file = writeModule(path.join(dir, 'damaged'), 'intact');
    loadWithCodeCache(file);
    const cacheFile = codeCacheFile(file);
    const bytes = fs.readFileSync(cacheFile);
    const newline = bytes.indexOf(0x0a);
    // The identity line kept, V8's data replaced by noise: V8 rejects it.
    fs.writeFileSync(cacheFile, Buffer.concat([bytes.subarray(0, newline + 1), Buffer.alloc(bytes.length - newline - 1, 0x5a)]));
    const loaded = loadWithCodeCache(file);
    expect(loaded.cache).toBe('stale');
    expect((loaded.exports as { answer: string }).answer).toBe('intact');
    expect(loadWithCodeCache(file).cache).toBe('hit');
    // A cache file without the identity line at all.
    fs.writeFileSync(cacheFile, 'not a cache');
    expect(loadWithCodeCache(file).cache).toBe('stale');
    expect(loadWithCodeCache(file).cache).toBe('hit');
  });

  it('loads uncached, leaving nothing behind, where the cache cannot be written', () => {
    const file = writeModule(path.join(dir, 'unwritable'), 'still');
    // A non-empty folder where the cache would go: no rename can replace it, whoever runs the test.
    fs.mkdirSync(codeCacheFile(file));
    fs.writeFileSync(path.join(codeCacheFile(file), 'keep'), '');
    for (let i = 0; i < 2; i++) {
      const loaded = loadWithCodeCache(file);
      expect((loaded.exports as { answer: string }).answer).toBe('still');
      // Unreadable counts as absent, and the next start tries again.
      expect(loaded.cache).toBe('miss');
    }
    expect(fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('throws the error of a file that fails to load, as require would', () => {
    const folder = path.join(dir, 'throws');
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'vendor.cjs');
    fs.writeFileSync(file, "throw new Error('broken vendor');\n");
    expect(() => loadWithCodeCache(file)).toThrow('broken vendor');
    expect(() => loadWithCodeCache(path.join(folder, 'missing.cjs'))).toThrow(/ENOENT/);
  });
});
