// Unit tests of test-convention detection: the framework, where test files go, their name, and how imports are written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { frameworkImports, moduleSpecifier, testFilePath } from '../../server/src/repo/testFramework.js';
import type { TestConvention } from '../../server/src/repo/testFramework.js';
import { Workspace } from '../../server/src/workspace/workspace.js';

/** The convention of a file as the server finds it: by the workspace of the folder (a new one, so nothing is remembered). */
function conventionIn(root: string, fsPath: string): TestConvention {
  return new Workspace(root).testConvention(fsPath);
}

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A throwaway package with the given files (paths relative to it). */
function workspace(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-convention-'));
  temporary.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('Workspace.testConvention', () => {
  it('finds vitest, tests under test/ mirroring src/, and NodeNext .js imports in the vitest fixture', () => {
    const root = copyFixture('tests-vitest');
    temporary.push(root);
    const convention = conventionIn(root, path.join(root, 'src', 'config.ts'));
    expect(convention).toMatchObject({ root, framework: 'vitest', evidence: 'vitest in package.json', infix: 'test', esm: true, importSuffix: '.js', placement: { kind: 'folder', testBase: 'test', sourceBase: 'src' } });
    expect(convention.examples).toEqual(['test/util/strings.test.ts']);
    expect(path.relative(root, testFilePath(convention, path.join(root, 'src', 'config.ts')))).toBe(path.join('test', 'config.test.ts'));
    expect(path.relative(root, testFilePath(convention, path.join(root, 'src', 'math', 'clamp.ts')))).toBe(path.join('test', 'math', 'clamp.test.ts'));
    expect(moduleSpecifier(path.join(root, 'test', 'math', 'clamp.test.ts'), path.join(root, 'src', 'math', 'clamp.ts'), convention.importSuffix)).toBe('../../src/math/clamp.js');
    expect(frameworkImports(convention, { expect: true, assert: false })).toEqual(["import { describe, expect, it } from 'vitest';"]);
  });

  it('finds jest with globals, *.spec.ts beside the source, and imports without a suffix in the jest fixture', () => {
    const root = copyFixture('tests-jest');
    temporary.push(root);
    const convention = conventionIn(root, path.join(root, 'src', 'format.ts'));
    expect(convention).toMatchObject({ framework: 'jest', evidence: 'jest in package.json', infix: 'spec', esm: false, importSuffix: '', jestGlobalsImport: false, placement: { kind: 'beside' } });
    expect(testFilePath(convention, path.join(root, 'src', 'format.ts'))).toBe(path.join(root, 'src', 'format.spec.ts'));
    expect(moduleSpecifier(path.join(root, 'src', 'format.spec.ts'), path.join(root, 'src', 'format.ts'), convention.importSuffix)).toBe('./format');
    // Globals need no import at all.
    expect(frameworkImports(convention, { expect: true, assert: false })).toEqual([]);
  });

  it('imports from @jest/globals when the project does', () => {
    const root = workspace({
      'package.json': JSON.stringify({ devDependencies: { jest: '^29', '@jest/globals': '^29' } }),
      'src/a.ts': 'export const a = 1;\n',
      'src/__tests__/a.test.ts': "import { expect, it } from '@jest/globals';\nimport { a } from '../a';\nit('a', () => expect(a).toBe(1));\n",
    });
    const convention = conventionIn(root, path.join(root, 'src', 'b.ts'));
    expect(convention).toMatchObject({ framework: 'jest', jestGlobalsImport: true, placement: { kind: 'subfolder', folder: '__tests__' } });
    expect(testFilePath(convention, path.join(root, 'src', 'b.ts'))).toBe(path.join(root, 'src', '__tests__', 'b.test.ts'));
    expect(frameworkImports(convention, { expect: true, assert: false })).toEqual(["import { describe, expect, it } from '@jest/globals';"]);
  });

  it('finds mocha and defaults its tests to test/ mirroring src/', () => {
    const root = workspace({ 'package.json': JSON.stringify({ type: 'module', devDependencies: { mocha: '^10' } }), 'src/lib/a.ts': 'export const a = 1;\n' });
    const convention = conventionIn(root, path.join(root, 'src', 'lib', 'a.ts'));
    expect(convention).toMatchObject({ framework: 'mocha', placement: { kind: 'folder', testBase: 'test', sourceBase: 'src' } });
    expect(testFilePath(convention, path.join(root, 'src', 'lib', 'a.ts'))).toBe(path.join(root, 'test', 'lib', 'a.test.ts'));
    expect(frameworkImports(convention, { expect: false, assert: true })).toEqual(["import { strict as assert } from 'node:assert';"]);
  });

  it('finds node:test from a script, and falls back to it when nothing names a framework', () => {
    const scripted = workspace({ 'package.json': JSON.stringify({ scripts: { test: 'node --import tsx --test' } }), 'a.ts': '' });
    expect(conventionIn(scripted, path.join(scripted, 'a.ts'))).toMatchObject({ framework: 'node:test', evidence: 'a package.json script runs node --test', placement: { kind: 'beside' } });
    const bare = workspace({ 'lib/a.js': 'export const a = 1;\n' });
    const convention = conventionIn(bare, path.join(bare, 'lib', 'a.js'));
    expect(convention.framework).toBe('node:test');
    expect(testFilePath(convention, path.join(bare, 'lib', 'a.js'))).toBe(path.join(bare, 'lib', 'a.test.js'));
    expect(frameworkImports(convention, { expect: false, assert: true })).toEqual(["import { describe, it } from 'node:test';", "import { strict as assert } from 'node:assert';"]);
  });

  it('prefers vitest from a config file and reads import suffixes from the tsconfig when no file shows them', () => {
    const root = workspace({
      'package.json': JSON.stringify({ type: 'module' }),
      'vitest.config.ts': 'export default {};\n',
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
      'src/a.ts': 'export const a = 1;\n',
    });
    expect(conventionIn(root, path.join(root, 'src', 'a.ts'))).toMatchObject({ framework: 'vitest', evidence: 'vitest.config.ts', importSuffix: '.js' });
    const tsSuffix = workspace({ 'package.json': '{}', 'tsconfig.json': '{ "compilerOptions": { "allowImportingTsExtensions": true, "noEmit": true } }', 'src/a.ts': '' });
    expect(conventionIn(tsSuffix, path.join(tsSuffix, 'src', 'a.ts')).importSuffix).toBe('.ts');
    expect(moduleSpecifier('/w/test/a.test.ts', '/w/src/a.ts', '.ts')).toBe('../src/a.ts');
    expect(moduleSpecifier('/w/src/a.test.mts', '/w/src/a.mts', '')).toBe('./a.mjs');
  });

  it('puts tests in a flat folder when existing ones mirror no single source folder', () => {
    const root = workspace({
      'package.json': JSON.stringify({ devDependencies: { vitest: '^4' } }),
      'server/tasks/one.ts': '',
      'server/repo/two.ts': '',
      'test/unit/one.test.ts': '',
      'test/unit/two.test.ts': '',
    });
    const convention = conventionIn(root, path.join(root, 'server', 'edits', 'three.ts'));
    expect(convention.placement).toEqual({ kind: 'folder', testBase: 'test/unit' });
    expect(testFilePath(convention, path.join(root, 'server', 'edits', 'three.ts'))).toBe(path.join(root, 'test', 'unit', 'three.test.ts'));
  });
});
