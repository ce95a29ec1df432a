// Where each indexed file stands in the workspace's import graph: reached from the package's main entry, from another of its entries only, or from none, and how many files import it; the lexical ranking weighs files by it.
import fs from 'node:fs';
import path from 'node:path';

/** What the reach is computed from: each indexed file's relative imports (`./x.js`), by workspace-relative path. */
export type ImportsOf = ReadonlyMap<string, readonly string[]>;

/** Weights of a file's documents by where it stands; a user asking about a package means the code it ships. */
const MAIN_REACH = 1;
/** Reached from a subpath export only (`zod/v3`, `zod/mini`): supported, but not what a plain question is about. */
const OTHER_REACH = 0.8;
/** Reached from no entry: legacy, benchmarks, scripts. Lower, never hidden. */
const UNREACHED = 0.6;
/** The code the open document uses, directly or not: what a name in the question most likely means there. */
const NEAR_GAIN = 1.25;
/**
 * A file outside the main entry's reach whose declarations the main code declares again (zod's `v3/` beside `v4/`, a
 * `mini` build of the same API; names compared case aside and without a leading `$` or `_`) is a copy of it, and a
 * plain question means the main one: it weighs this much less when all of its names are the main code's, in
 * proportion below that. Files declaring fewer names than
 * `MIN_COPY_NAMES` say too little to be called a copy.
 */
const COPY_PENALTY = 0.8;
const MIN_COPY_NAMES = 3;
/** Files many others import are the code's core: up to this much more. */
const MAX_CENTRALITY_GAIN = 0.1;

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
/** Paths that are tests: they are reached from no entry by nature, and the ranking weighs them on its own. */
export const TEST_PATH = /(^|\/)(test|tests|__tests__|spec|specs|e2e)\/|\.(test|spec)\.[cm]?[jt]sx?$/i;

/** A name as a copy of it would declare it: `$ZodString`, `_zodString` and `ZodString` are one. */
function copyKey(name: string): string {
  return name.replace(/^[$_]+/, '').toLowerCase();
}

/** The folder of a path, `''` for the root. */
function folderOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

/** Where an import from `from` of `specifier` lands among `files`, as TypeScript resolves a relative module. */
export function resolveImport(from: string, specifier: string, files: { has(relative: string): boolean }): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (target.startsWith('..')) return undefined;
  const bare = target.replace(/\.(?:[cm]?js|jsx)$/i, '');
  const candidates = [target, ...SOURCE_EXTENSIONS.map((extension) => bare + extension), ...SOURCE_EXTENSIONS.map((extension) => `${target}/index${extension}`)];
  return candidates.find((candidate) => files.has(candidate));
}

/** Every path string a package.json's `exports` value holds, with whether it is the package's main export (`.`). */
function exportTargets(exports: unknown, main: boolean, out: { target: string; main: boolean }[]): void {
  if (typeof exports === 'string') out.push({ target: exports, main });
  else if (Array.isArray(exports)) for (const item of exports) exportTargets(item, main, out);
  else if (exports && typeof exports === 'object') {
    const entries = Object.entries(exports as Record<string, unknown>);
    // `{ ".": …, "./v3": … }` maps subpaths; `{ "import": …, "types": … }` maps conditions of one export.
    const subpaths = entries.some(([key]) => key.startsWith('.'));
    for (const [key, value] of entries) {
      if (key.includes('*') || key === './package.json') continue;
      exportTargets(value, subpaths ? main && key === '.' : main, out);
    }
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The package's entry files as paths in the workspace, with whether each is a main one: package.json's `main`,
 * `module`, `types`, `typings`, `source` and `exports` (every condition, `.` the main one), and the root tsconfig's
 * `files`. Built paths (`./index.cjs`, `./dist/cjs/index.js`) stand for their source (`src/index.ts`).
 */
export function packageEntries(root: string): { target: string; main: boolean }[] {
  const entries: { target: string; main: boolean }[] = [];
  const manifest = readJson(path.join(root, 'package.json'));
  if (manifest) {
    for (const field of ['main', 'module', 'types', 'typings', 'source']) if (typeof manifest[field] === 'string') entries.push({ target: manifest[field] as string, main: true });
    exportTargets(manifest.exports, true, entries);
  }
  const tsconfig = readJson(path.join(root, 'tsconfig.json'));
  if (Array.isArray(tsconfig?.files)) for (const file of tsconfig.files) if (typeof file === 'string') entries.push({ target: file, main: true });
  return entries.map(({ target, main }) => ({ target: path.posix.normalize(target.replace(/\\/g, '/')).replace(/^\.\//, ''), main })).filter(({ target }) => !target.startsWith('..') && !target.includes('*'));
}

/** A path without its script or declaration extension. */
function stemOf(relative: string): string {
  return relative.replace(/\.d\.[cm]?ts$|\.[cm]?[jt]sx?$/i, '');
}

/**
 * The indexed source an entry stands for: itself, else the source whose path, extension aside, is the entry's with
 * leading folders dropped (`dist/cjs/index.js` → `index` → `src/index.ts`), at most one folder deep (`src/`), the
 * shortest when several are.
 */
export function entrySource(entry: string, stems: ReadonlyMap<string, string[]>, files: { has(relative: string): boolean }): string | undefined {
  if (files.has(entry)) return entry;
  const parts = stemOf(entry).split('/');
  for (let i = 0; i < parts.length; i++) {
    const found = stems.get(parts.slice(i).join('/'));
    if (found && found.length > 0) return [...found].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0];
  }
  return undefined;
}

/** The files reached from `starts` through `edges`, the starts included. */
function reachedFrom(starts: Iterable<string>, edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const reached = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (reached.has(file)) continue;
    reached.add(file);
    for (const next of edges.get(file) ?? []) if (!reached.has(next)) queue.push(next);
  }
  return reached;
}

/**
 * Each file's weight by its place in the import graph. With no entry found (an application, a monorepo's root), every
 * file is as reached as any other, and only centrality counts.
 */
export class FileReach {
  private readonly edges = new Map<string, string[]>();
  private readonly weights = new Map<string, number>();
  private readonly entryFound: boolean;

  /**
   * `declared`: the names each file declares at its top level, when known; they tell a copy of the main code from code
   * of its own (`COPY_PENALTY`).
   */
  constructor(root: string, imports: ImportsOf, declared?: ReadonlyMap<string, readonly string[]>) {
    const files = { has: (relative: string) => imports.has(relative) };
    const importers = new Map<string, number>();
    for (const [file, specifiers] of imports) {
      const targets = [...new Set(specifiers.map((specifier) => resolveImport(file, specifier, files)).filter((t): t is string => t !== undefined && t !== file))];
      this.edges.set(file, targets);
      for (const target of targets) importers.set(target, (importers.get(target) ?? 0) + 1);
    }
    // Sources by their stem and by the stem below one leading folder (`src/index.ts` under `src/index` and `index`).
    const stems = new Map<string, string[]>();
    const addStem = (stem: string, file: string): void => void (stems.get(stem)?.push(file) ?? stems.set(stem, [file]));
    for (const file of imports.keys()) {
      const stem = stemOf(file);
      addStem(stem, file);
      const slash = stem.indexOf('/');
      if (slash > 0) addStem(stem.slice(slash + 1), file);
    }
    const mainStarts = new Set<string>();
    const otherStarts = new Set<string>();
    for (const { target, main } of packageEntries(root)) {
      const source = entrySource(target, stems, files);
      if (source) (main ? mainStarts : otherStarts).add(source);
    }
    this.entryFound = mainStarts.size + otherStarts.size > 0;
    const main = reachedFrom(mainStarts, this.edges);
    const any = reachedFrom([...mainStarts, ...otherStarts], this.edges);
    const mainNames = new Set<string>();
    if (this.entryFound) for (const file of main) for (const name of declared?.get(file) ?? []) mainNames.add(copyKey(name));
    for (const file of imports.keys()) {
      if (TEST_PATH.test(file)) continue;
      let reach = !this.entryFound || main.has(file) ? MAIN_REACH : any.has(file) ? OTHER_REACH : UNREACHED;
      const names = declared?.get(file) ?? [];
      if (reach < MAIN_REACH && names.length >= MIN_COPY_NAMES) reach *= 1 - (COPY_PENALTY * names.filter((name) => mainNames.has(copyKey(name))).length) / names.length;
      const centrality = 1 + Math.min(MAX_CENTRALITY_GAIN, (MAX_CENTRALITY_GAIN * Math.log2(1 + (importers.get(file) ?? 0))) / 5);
      this.weights.set(file, reach * centrality);
    }
    // A test weighs as the code beside it: the mean of the nearest folder above it with code that is not tests
    // (`v3/tests/` as `v3/`), so the tests of a legacy copy do not come above the main code's; MAIN_REACH when there is none.
    const sums = new Map<string, { sum: number; count: number }>();
    for (const [file, weight] of this.weights) {
      const folder = folderOf(file);
      const sum = sums.get(folder) ?? { sum: 0, count: 0 };
      sums.set(folder, { sum: sum.sum + weight, count: sum.count + 1 });
    }
    const byFolder = new Map([...sums].map(([folder, { sum, count }]) => [folder, sum / count]));
    for (const file of imports.keys()) {
      if (!TEST_PATH.test(file)) continue;
      let folder = folderOf(file);
      let beside: number | undefined;
      for (;;) {
        beside = byFolder.get(folder);
        if (beside !== undefined || folder === '') break;
        folder = folderOf(folder);
      }
      this.weights.set(file, Math.min(MAIN_REACH, beside ?? MAIN_REACH));
    }
  }

  /** A file's weight; `near`, the files the open document reaches, weigh more than the main entry's. */
  weight(file: string, near?: ReadonlySet<string>): number {
    const weight = this.weights.get(file) ?? 1;
    return near?.has(file) ? Math.max(weight, MAIN_REACH) * NEAR_GAIN : weight;
  }

  /** The files `file` imports, directly or not, itself included: the code an open document uses. */
  importedBy(file: string): Set<string> {
    return reachedFrom([file], this.edges);
  }
}
