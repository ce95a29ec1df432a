// Loads a bundled CommonJS file through a V8 code cache kept beside it, so each server start (and each type-check worker) skips compiling TypeScript's 14 MB again.
import fs from 'node:fs';
import { createRequire, Module } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import vm from 'node:vm';

/** What became of the cache: `hit` used it, `miss` found none and wrote one, `stale` found one that did not fit and wrote a new one. */
export type CodeCacheOutcome = 'hit' | 'miss' | 'stale';

/**
 * The file's identity the cache was made from. V8 checks only the source's length and its own version and flags, so a
 * file rebuilt to the same length would otherwise run the old code: the cache names the size and mtime it belongs to.
 */
function identityOf(stat: fs.Stats): string {
  return JSON.stringify({ size: stat.size, mtimeMs: stat.mtimeMs });
}

/** The cache's file: one per Node version and architecture, so two Node versions on one installation do not undo each other's. */
export function codeCacheFile(file: string): string {
  return `${file}.${process.version}-${process.arch}.v8cache`;
}

/** The cached data when the cache file was made from this very file; `absent` when there is none, `other` when it was made from another. Layout: identity, newline, V8's data. */
function readCache(cacheFile: string, identity: string): Buffer | 'absent' | 'other' {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(cacheFile);
  } catch {
    return 'absent';
  }
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || bytes.subarray(0, newline).toString('utf8') !== identity) return 'other';
  return bytes.subarray(newline + 1);
}

/**
 * Writes the cache whole or not at all (a temporary file renamed over it: two servers starting at once each write a
 * complete one). An installation the user cannot write to keeps working uncached.
 */
function writeCache(cacheFile: string, identity: string, data: Buffer): void {
  const temporary = `${cacheFile}.${process.pid}-${threadId}.tmp`;
  try {
    fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${identity}\n`, 'utf8'), data]));
    fs.renameSync(temporary, cacheFile);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Runs a CommonJS file as `require` would (its own `require`, `module`, `__filename` and `__dirname`) and returns its
 * exports, compiling it from the code cache beside it when that cache was made from this file by this Node: the one
 * entry to the cache, called by the bundle's `ts-morph` module (`scripts/bundleServer.mjs`). Otherwise
 * compiles it from source and writes the cache after running it, so the functions its loading compiled are in it.
 * The cache is only ever read from beside the file: code loaded from a folder others can write would be theirs.
 */
export function loadWithCodeCache(file: string): { exports: unknown; cache: CodeCacheOutcome } {
  // The identity and the text from one open file, so a file replaced in between cannot pair with the other's cache.
  const fd = fs.openSync(file, 'r');
  let source: string;
  let identity: string;
  try {
    identity = identityOf(fs.fstatSync(fd));
    source = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  const cacheFile = codeCacheFile(file);
  const found = readCache(cacheFile, identity);
  const cachedData = typeof found === 'string' ? undefined : found;
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (this: unknown, exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const cache: CodeCacheOutcome = found === 'absent' ? 'miss' : found === 'other' || script.cachedDataRejected === true ? 'stale' : 'hit';
  if (cache !== 'hit') writeCache(cacheFile, identity, script.createCachedData());
  return { exports: module.exports, cache };
}
