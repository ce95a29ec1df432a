// Compiled copies told from sources by path: beside them, above them in a published package, never across packages.
import { describe, expect, it } from 'vitest';
import { compiledCopies } from '../../server/src/workspace/builtOutput.js';

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
