// Compiled copies of a workspace's TypeScript sources (`x.cjs`, `x.js`, `x.d.cts` beside or above `src/x.ts`), found by path alone, so the walker can leave them out where no ignore file does.
import path from 'node:path';

/** What a compiler or bundler writes from a TypeScript source: scripts and declaration files. */
const EMITTED = /\.(?:d\.[cm]?ts|[cm]?js|jsx)$/i;
const SOURCE = /\.(?:[cm]?ts|tsx)$/i;
const DECLARATION = /\.d\.[cm]?ts$/i;

/** A path without its script or declaration extension: `v4/core/schemas.d.cts` → `v4/core/schemas`. */
function stemOf(relative: string): string {
  return relative.replace(/\.d\.[cm]?ts$|\.[cm]?[jt]sx?$/i, '');
}

/** The package folders above a file, deepest first: folders holding a package.json, and the root ('' ) last. */
function packagesOf(relative: string, packages: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (let folder = path.posix.dirname(relative); folder !== '.'; folder = path.posix.dirname(folder)) if (packages.has(folder)) found.push(folder);
  found.push('');
  return found;
}

function inside(pkg: string, relative: string): string {
  return pkg ? relative.slice(pkg.length + 1) : relative;
}

/**
 * The files among `relatives` that are compiled copies of a TypeScript source of the same package: an emitted file
 * (`.js`, `.cjs`, `.mjs`, `.jsx`, `.d.ts`, `.d.cts`, `.d.mts`) whose path inside its package, extension aside, ends a
 * source's path (`v4/core/schemas.cjs` of `src/v4/core/schemas.ts`; `x.js` beside `x.ts`). `packages` are the
 * folders holding a package.json, workspace-relative ('' for the root). A package without TypeScript sources keeps
 * its JavaScript; a compiled copy in a package nested in the sources' one (a subpath's package.json) is found too.
 */
export function compiledCopies(relatives: readonly string[], packages: ReadonlySet<string>): Set<string> {
  const sourceSuffixes = new Set<string>();
  for (const relative of relatives) {
    if (!SOURCE.test(relative) || DECLARATION.test(relative)) continue;
    const pkg = packagesOf(relative, packages)[0] as string;
    const parts = stemOf(inside(pkg, relative)).split('/');
    for (let i = 0; i < parts.length; i++) sourceSuffixes.add(`${pkg}\0${parts.slice(i).join('/')}`);
  }
  const copies = new Set<string>();
  if (sourceSuffixes.size === 0) return copies;
  for (const relative of relatives) {
    if (!EMITTED.test(relative)) continue;
    // A package.json that only points a subpath at its build (`v3/package.json` of zod) leaves the copy in the package above.
    if (packagesOf(relative, packages).some((pkg) => sourceSuffixes.has(`${pkg}\0${stemOf(inside(pkg, relative))}`))) copies.add(relative);
  }
  return copies;
}

/**
 * Whether `emitted` is a compiled copy of the TypeScript source `source` (both workspace-relative): by the rule of
 * `compiledCopies`, or as an outDir holds a rootDir's file, one folder of the package in place of another
 * (`dist/a/b.d.ts` of `src/a/b.ts`). The walker needs no second rule (it never walks `dist`, `build` or `out`), but
 * a program reaches such copies through a package's own name.
 */
export function isCompiledCopyOf(emitted: string, source: string, packages: ReadonlySet<string>): boolean {
  if (!EMITTED.test(emitted) || !SOURCE.test(source) || DECLARATION.test(source)) return false;
  if (compiledCopies([source, emitted], packages).has(emitted)) return true;
  const pkg = packagesOf(source, packages)[0] as string;
  if (pkg && !emitted.startsWith(`${pkg}/`)) return false;
  const [emittedFolder, ...emittedRest] = stemOf(inside(pkg, emitted)).split('/');
  const [sourceFolder, ...sourceRest] = stemOf(inside(pkg, source)).split('/');
  return emittedRest.length > 0 && emittedFolder !== sourceFolder && emittedRest.join('/') === sourceRest.join('/');
}
