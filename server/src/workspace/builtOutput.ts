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
