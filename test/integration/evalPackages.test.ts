// Integration tests for the evaluation packages (tar runs as a child process): pinned specs, and the cache that refuses a tarball not matching its integrity.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVAL_PACKAGES, pinnedPackage } from '../../server/src/eval/evalSets.js';
import type { EvalPackage } from '../../server/src/eval/evalSets.js';
import { integrityOf, preparePackage } from '../../server/src/eval/packageCache.js';

let folder: string;

beforeAll(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-packages-'));
});

afterAll(() => {
  fs.rmSync(folder, { recursive: true, force: true });
});

/** A tarball laid out as npm packs one (`package/…`), with the given files. */
function packTarball(name: string, files: Record<string, string>): string {
  const staging = fs.mkdtempSync(path.join(folder, 'staging-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(staging, 'package', file)), { recursive: true });
    fs.writeFileSync(path.join(staging, 'package', file), text);
  }
  const tarball = path.join(folder, name);
  execFileSync('tar', ['-czf', tarball, '-C', staging, 'package']);
  return tarball;
}

describe('evaluation sets', () => {
  it('has a tuning set and a held-out set of at least four packages, each pinned by sha512', () => {
    expect(EVAL_PACKAGES.length).toBeGreaterThanOrEqual(4);
    expect(new Set(EVAL_PACKAGES.map((p) => p.set))).toEqual(new Set(['tuning', 'held-out']));
    for (const p of EVAL_PACKAGES) expect(p.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it('resolves npm:NAME and npm:NAME@VERSION only for pinned packages', () => {
    expect(pinnedPackage('npm:@tanstack/query-core')).toMatchObject({ name: '@tanstack/query-core', set: 'tuning' });
    expect(pinnedPackage('npm:immer@10.1.1')).toMatchObject({ name: 'immer', set: 'held-out' });
    expect(pinnedPackage('npm:immer@9.0.0')).toEqual({ error: expect.stringMatching(/^immer is pinned at 10\.1\.1, not 9\.0\.0; the pinned ones are /) });
    expect(pinnedPackage('npm:left-pad')).toEqual({ error: expect.stringMatching(/^left-pad is not an evaluation package/) });
  });
});

describe('the package cache', () => {
  it('unpacks a cached tarball matching its integrity, with a tsconfig over its sources, and reuses it', async () => {
    const cache = path.join(folder, 'cache-ok');
    fs.mkdirSync(cache);
    const tarball = packTarball('demo@1.0.0.tgz', { 'package.json': '{"name":"demo"}', 'src/index.ts': 'export const a = 1;\n', 'src/tests/a.test.ts': '' });
    fs.renameSync(tarball, path.join(cache, 'demo@1.0.0.tgz'));
    const pkg: EvalPackage = { name: 'demo', version: '1.0.0', integrity: integrityOf(path.join(cache, 'demo@1.0.0.tgz')), include: ['src/**/*.ts'], set: 'tuning' };
    const root = await preparePackage(pkg, cache, new AbortController().signal);
    expect(root).toBe(path.join(cache, 'demo@1.0.0'));
    expect(fs.readFileSync(path.join(root, 'src', 'index.ts'), 'utf8')).toBe('export const a = 1;\n');
    const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as { include: string[]; exclude: string[] };
    expect(tsconfig.include).toEqual(['src/**/*.ts']);
    expect(tsconfig.exclude).toContain('**/tests/**');
    fs.writeFileSync(path.join(root, 'src', 'index.ts'), 'changed');
    expect(await preparePackage(pkg, cache, new AbortController().signal)).toBe(root);
    expect(fs.readFileSync(path.join(root, 'src', 'index.ts'), 'utf8')).toBe('changed');
  });

  it('refuses a download whose integrity differs from the pin, removes it and unpacks nothing', async () => {
    const cache = path.join(folder, 'cache-bad');
    fs.mkdirSync(cache);
    const pinned = integrityOf(packTarball('good.tgz', { 'src/index.ts': 'export const a = 1;\n' }));
    const tampered = packTarball('bad.tgz', { 'src/index.ts': 'export const a = 2;\n' });
    const pkg: EvalPackage = { name: '@scope/demo', version: '1.0.0', integrity: pinned, include: ['src/**/*.ts'], set: 'tuning' };
    const notes: string[] = [];
    const download = async (_pkg: EvalPackage, into: string): Promise<string> => {
      fs.copyFileSync(tampered, path.join(into, 'scope-demo-1.0.0.tgz'));
      return path.join(into, 'scope-demo-1.0.0.tgz');
    };
    await expect(preparePackage(pkg, cache, new AbortController().signal, { download, note: (m) => notes.push(m) })).rejects.toThrow(/^@scope\/demo@1\.0\.0 does not match its pinned integrity \(sha512-.+ instead of sha512-.+\); the download was removed$/);
    expect(notes).toEqual([`downloading @scope/demo@1.0.0 with npm pack into ${cache}`]);
    expect(fs.readdirSync(cache)).toEqual([]);
  });
});
