// The built server loads ts-morph through its code cache: a copy of the bundle writes the cache on its first start, on the main thread or the type-check worker, and its next start reads it without writing again; no chunk carries a copy of TypeScript of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { codeCacheFile } from '../../server/src/codeCache.js';
import { REPO_ROOT, TestEditor, copyFixture } from '../support/lspClient.js';

const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bundle-'));
afterAll(() => fs.rmSync(bundle, { recursive: true, force: true }));

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

/** Starts the copied bundle on a copy of the fix fixture and waits for the worker's type-check to offer a Fix. */
async function fixOffered(): Promise<TestEditor> {
  const { editor } = await TestEditor.start({ root: copyFixture('fix'), bin: path.join(bundle, 'assistant-ls.mjs') });
  editors.push(editor);
  const doc = await editor.open('src/main.ts');
  expect(await editor.quickfixesOnceChecked(doc.uri, 'mesage')).toEqual([`Assistant: Fix "Cannot find name 'mesage'. Did you mean 'message'?"`]);
  expect(editor.logs.filter((line) => /type-check/.test(line))).toEqual([]);
  return editor;
}

describe('the bundle and its code cache', () => {
  it('writes the cache beside ts-morph on the first start and reads it on the next', async () => {
    // The bundle's code without its maps or any cache a test already wrote.
    const built = path.join(REPO_ROOT, 'dist', 'bundle');
    for (const name of fs.readdirSync(built).filter((n) => n.endsWith('.mjs') || n.endsWith('.cjs'))) fs.copyFileSync(path.join(built, name), path.join(bundle, name));
    const vendor = path.join(bundle, 'ts-morph.cjs');
    const cache = codeCacheFile(vendor);
    expect(fs.existsSync(vendor)).toBe(true);
    expect(fs.existsSync(cache)).toBe(false);

    const first = await fixOffered();
    expect(await first.shutdownAndExit()).toBe(0);
    expect(fs.existsSync(cache)).toBe(true);
    const stat = fs.statSync(vendor);
    const bytes = fs.readFileSync(cache);
    expect(JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString('utf8'))).toEqual({ size: stat.size, mtimeMs: stat.mtimeMs });
    const written = fs.statSync(cache).mtimeMs;

    const second = await fixOffered();
    expect(await second.shutdownAndExit()).toBe(0);
    // Both threads of the second server took the cache as it was; neither wrote another.
    expect(fs.statSync(cache).mtimeMs).toBe(written);
    expect(fs.readdirSync(bundle).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('loads ts-morph from the vendor file alone, through the cache', () => {
    const built = path.join(REPO_ROOT, 'dist', 'bundle');
    const chunks = fs.readdirSync(built).filter((n) => n.endsWith('.mjs')).map((name) => fs.readFileSync(path.join(built, name), 'utf8'));
    // One module loads the vendor file; a chunk that held TypeScript's compiler would compile it again, uncached.
    expect(chunks.filter((text) => /loadWithCodeCache\w*\([^\n]*ts-morph\.cjs/.test(text))).toHaveLength(1);
    expect(chunks.filter((text) => text.includes('function createSourceFile('))).toEqual([]);
    expect(fs.readFileSync(path.join(built, 'ts-morph.cjs'), 'utf8')).toContain('function createSourceFile(');
  });
});
