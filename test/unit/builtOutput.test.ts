// Compiled copies told from sources by path: beside them, above them in a published package, never across packages.
import { describe, expect, it } from 'vitest';
import { compiledCopies, isCompiledCopyOf } from '../../server/src/workspace/builtOutput.js';

describe('compiledCopies', () => {
  it('finds a published package’s build beside and above its sources, subpath package.json files included', () => {
    const files = ['src/v4/core/schemas.ts', 'v4/core/schemas.cjs', 'v4/core/schemas.js', 'v4/core/schemas.d.cts', 'v4/core/schemas.d.ts', 'src/util.ts', 'src/util.js', 'index.cjs', 'src/index.ts', 'scripts/release.js'];
    expect([...compiledCopies(files, new Set(['', 'v4']))].sort()).toEqual(['index.cjs', 'src/util.js', 'v4/core/schemas.cjs', 'v4/core/schemas.d.cts', 'v4/core/schemas.d.ts', 'v4/core/schemas.js']);
  });

  it('keeps JavaScript with no TypeScript source, and a JavaScript package beside a TypeScript one', () => {
    expect(compiledCopies(['lib/a.js', 'lib/b.cjs'], new Set(['']))).toEqual(new Set());
    expect(compiledCopies(['packages/a/src/index.ts', 'packages/b/index.js'], new Set(['', 'packages/a', 'packages/b']))).toEqual(new Set());
  });
});

describe('isCompiledCopyOf', () => {
  it('pairs a source with its copy beside or above it, and with an outDir’s copy of a rootDir file, in the same package only', () => {
    const packages = new Set(['', 'v4', 'packages/lib', 'packages/app']);
    expect(isCompiledCopyOf('v4/core/errors.d.cts', 'src/v4/core/errors.ts', packages)).toBe(true);
    expect(isCompiledCopyOf('src/util.d.ts', 'src/util.ts', packages)).toBe(true);
    expect(isCompiledCopyOf('packages/lib/dist/a/b.d.ts', 'packages/lib/src/a/b.ts', packages)).toBe(true);
    expect(isCompiledCopyOf('packages/lib/dist/b.d.ts', 'packages/lib/src/a/b.ts', packages)).toBe(false);
    expect(isCompiledCopyOf('packages/app/dist/a/b.d.ts', 'packages/lib/src/a/b.ts', packages)).toBe(false);
    expect(isCompiledCopyOf('packages/lib/src/a/b.ts', 'packages/lib/src/a/b.ts', packages)).toBe(false);
  });
});
