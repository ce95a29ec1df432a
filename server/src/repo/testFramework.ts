// How a project tests its code: the framework, where test files live and how they are named, and how imports are written.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import type { WorkspaceFiles } from '../workspace/workspaceFiles.js';

export type TestFrameworkName = 'vitest' | 'jest' | 'mocha' | 'node:test';

/** Where the test of `<dir>/<name>.ts` goes. Folders are package-relative, with `/` separators. */
export type TestPlacement =
  /** `<dir>/<name>.test.ts` */
  | { kind: 'beside' }
  /** `<dir>/__tests__/<name>.test.ts` */
  | { kind: 'subfolder'; folder: string }
  /**
   * `<testBase>/<path below sourceBase>/<name>.test.ts`; a source outside `sourceBase` (or every source, when
   * `sourceBase` is undefined: a flat test folder) gets `<testBase>/<name>.test.ts`.
   */
  | { kind: 'folder'; testBase: string; sourceBase?: string };

export interface TestConvention {
  /** The folder of the package.json that decided (else the folder detection started from). */
  root: string;
  framework: TestFrameworkName;
  /** Why this framework, for messages and prompts. */
  evidence: string;
  /** Nothing named a framework: `node:test` is assumed because it needs none. */
  assumed: boolean;
  /** `*.test.ts` or `*.spec.ts`. */
  infix: 'test' | 'spec';
  placement: TestPlacement;
  /** `"type": "module"` in package.json. */
  esm: boolean;
  /** How relative imports end: `.js` (NodeNext ESM), `.ts` (allowImportingTsExtensions) or nothing (bundlers, node10). */
  importSuffix: '.js' | '.ts' | '';
  /** jest only: describe/it/expect come from `@jest/globals` rather than globals. */
  jestGlobalsImport: boolean;
  /** Existing test files found (package-relative), newest convention evidence. */
  examples: string[];
}

/** The folders test files conventionally live in. */
const TEST_FOLDERS = new Set(['test', 'tests', '__tests__', 'spec', '__test__']);
/**
 * Folders whose files say nothing of the package's own convention (other projects' files, scratch files), among
 * those the workspace lists; what is never listed (dependencies, output, hidden folders) the listing leaves out.
 */
const NOT_CONVENTION_FOLDERS = new Set(['tmp', 'fixtures', '__fixtures__']);
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const SOURCE_FILE = /\.[cm]?[jt]sx?$/;
/** How long a package's convention is kept: one task asks several times; package.json and config files are not watched. */
const CACHE_MS = 5000;

/** The folder of the nearest package.json at or above `fsPath`'s folder, not going above `stopAt`. */
export function packageRootOf(fsPath: string, stopAt?: string): string {
  const start = path.dirname(fsPath);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if ((stopAt && path.resolve(dir) === path.resolve(stopAt)) || path.dirname(dir) === dir) return stopAt ?? start;
  }
}

/**
 * The test conventions of one workspace's packages (its owner keeps one, `Workspace.testConvention`). Detection
 * reads package.json files, the tsconfig and the package's files in the workspace's listing; a package's convention
 * is kept for CACHE_MS, and sooner detected again when the listing was walked again since.
 */
export class TestConventions {
  private readonly cache = new Map<string, { at: number; walkedAt: number; convention: TestConvention }>();

  constructor(private readonly files: WorkspaceFiles) {}

  /** The convention of the package holding `sourcePath`, looking no higher than the workspace folder. */
  of(sourcePath: string): TestConvention {
    const stopAt = this.files.root;
    const root = packageRootOf(sourcePath, stopAt);
    const walkedAt = this.files.list('script').walkedAt;
    const cached = this.cache.get(root);
    if (cached && cached.walkedAt === walkedAt && Date.now() - cached.at < CACHE_MS) return cached.convention;
    const convention = detectAt(this.files, root);
    this.cache.set(root, { at: Date.now(), walkedAt, convention });
    return convention;
  }
}

/** The package a framework's test files import (or take their globals' types from); node:test needs none. */
const FRAMEWORK_PACKAGES: Readonly<Record<TestFrameworkName, string | undefined>> = { vitest: 'vitest', jest: 'jest', mocha: 'mocha', 'node:test': undefined };

/**
 * Why the project cannot run tests in its framework: the framework's package is in no `node_modules` at or above
 * the package root, as Node and TypeScript look for it. Undefined when it is there, or when nothing needs installing.
 */
export function frameworkNotInstalled(convention: TestConvention): string | undefined {
  const name = FRAMEWORK_PACKAGES[convention.framework];
  if (!name) return undefined;
  for (let dir = convention.root; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules', name))) return undefined;
    if (path.dirname(dir) === dir) break;
  }
  return `${name} is not installed in this project (no node_modules/${name}): install it to run the generated tests`;
}

function detectAt(listing: WorkspaceFiles, root: string): TestConvention {
  const stopAt = listing.root;
  const files = packageFiles(listing, root, 'source');
  const tests = packageFiles(listing, root, 'test');
  const sources = new Map<string, string[]>();
  for (const file of files) {
    if (TEST_FILE.test(file)) continue;
    const base = path.posix.basename(file).replace(SOURCE_FILE, '');
    sources.set(base, [...(sources.get(base) ?? []), file]);
  }
  const testTexts = tests.slice(0, 20).map((t) => readText(path.join(root, t)));
  const { framework, evidence, pkg, assumed } = detectFramework(root, stopAt, testTexts);
  const specs = tests.filter((t) => /\.spec\./.test(t)).length;
  const infix = specs > tests.length - specs ? 'spec' : 'test';
  const placement = votePlacement(tests, sources) ?? defaultPlacement(framework, root);
  const deps = dependencies(pkg);
  const jestGlobalsImport = testTexts.some((t) => /from\s+['"]@jest\/globals['"]|require\(\s*['"]@jest\/globals['"]\s*\)/.test(t)) || ('@jest/globals' in deps && !('@types/jest' in deps));
  const esm = pkg?.type === 'module';
  const sampleSources = files.filter((f) => !TEST_FILE.test(f) && /\.[cm]?tsx?$/.test(f)).slice(0, 20);
  const importSuffix = detectImportSuffix(root, [...tests.slice(0, 20), ...sampleSources], esm);
  return { root, framework, evidence, assumed, infix, placement, esm, importSuffix, jestGlobalsImport, examples: tests.slice(0, 20) };
}

interface PackageJson {
  type?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

function dependencies(pkg: PackageJson | undefined): Record<string, string> {
  return { ...pkg?.peerDependencies, ...pkg?.dependencies, ...pkg?.devDependencies };
}

function readPackage(dir: string): PackageJson | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

/** The framework named by the nearest package.json that names one (monorepos keep test tools at the top). */
function detectFramework(root: string, stopAt: string | undefined, testTexts: string[]): { framework: TestFrameworkName; evidence: string; pkg: PackageJson | undefined; assumed: boolean } {
  const own = readPackage(root);
  for (let dir = root; ; dir = path.dirname(dir)) {
    const pkg = dir === root ? own : readPackage(dir);
    const found = pkg ? frameworkOfPackage(pkg) : undefined;
    if (found) return { ...found, pkg: own ?? pkg, assumed: false };
    const config = frameworkOfConfigFiles(dir);
    if (config) return { ...config, pkg: own, assumed: false };
    if ((stopAt && path.resolve(dir) === path.resolve(stopAt)) || path.dirname(dir) === dir || !stopAt) break;
  }
  for (const text of testTexts) {
    if (/from\s+['"]vitest['"]/.test(text)) return { framework: 'vitest', evidence: 'existing tests import vitest', pkg: own, assumed: false };
    if (/@jest\/globals/.test(text)) return { framework: 'jest', evidence: 'existing tests import @jest/globals', pkg: own, assumed: false };
    if (/['"]node:test['"]/.test(text)) return { framework: 'node:test', evidence: 'existing tests import node:test', pkg: own, assumed: false };
  }
  return { framework: 'node:test', evidence: 'no test framework found; node:test needs none', pkg: own, assumed: true };
}

function frameworkOfPackage(pkg: PackageJson): { framework: TestFrameworkName; evidence: string } | undefined {
  const deps = dependencies(pkg);
  if ('vitest' in deps) return { framework: 'vitest', evidence: 'vitest in package.json' };
  for (const name of ['jest', 'ts-jest', '@jest/globals', 'babel-jest', '@types/jest']) {
    if (name in deps) return { framework: 'jest', evidence: `${name} in package.json` };
  }
  for (const name of ['mocha', '@types/mocha']) {
    if (name in deps) return { framework: 'mocha', evidence: `${name} in package.json` };
  }
  const scripts = Object.values(pkg.scripts ?? {}).join('\n');
  if (/\bvitest\b/.test(scripts)) return { framework: 'vitest', evidence: 'a package.json script runs vitest' };
  if (/\bjest\b/.test(scripts)) return { framework: 'jest', evidence: 'a package.json script runs jest' };
  if (/\bmocha\b/.test(scripts)) return { framework: 'mocha', evidence: 'a package.json script runs mocha' };
  if (/\bnode\b[^\n]*\s--test\b/.test(scripts)) return { framework: 'node:test', evidence: 'a package.json script runs node --test' };
  return undefined;
}

function frameworkOfConfigFiles(dir: string): { framework: TestFrameworkName; evidence: string } | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const named = (pattern: RegExp): string | undefined => names.find((n) => pattern.test(n));
  const vitest = named(/^vitest\.(config|workspace)\.[cm]?[jt]s$/);
  if (vitest) return { framework: 'vitest', evidence: vitest };
  const jest = named(/^jest\.config\.[cm]?[jt]s(on)?$/);
  if (jest) return { framework: 'jest', evidence: jest };
  const mocha = named(/^\.mocharc(\.[cm]?js|\.json|\.ya?ml)?$/);
  if (mocha) return { framework: 'mocha', evidence: mocha };
  return undefined;
}

/**
 * Package-relative paths (with `/`) of the package's listed files of a kind, sorted: the workspace's listing below
 * the package's folder (none for a package outside the workspace), without nested packages (a folder two or more
 * levels down with a package.json of its own has its own conventions) and the folders in NOT_CONVENTION_FOLDERS.
 */
function packageFiles(listing: WorkspaceFiles, root: string, kind: 'source' | 'test'): string[] {
  const relativeRoot = path.relative(listing.root, root);
  if (relativeRoot.startsWith('..') || path.isAbsolute(relativeRoot)) return [];
  const prefix = relativeRoot.split(path.sep).join('/');
  const nested = new Map<string, boolean>();
  const isNested = (folder: string): boolean => {
    let found = nested.get(folder);
    if (found === undefined) {
      found = fs.existsSync(path.join(root, folder, 'package.json'));
      nested.set(folder, found);
    }
    return found;
  };
  const out: string[] = [];
  for (const file of listing.list(kind).files) {
    if (prefix && !file.relative.startsWith(`${prefix}/`)) continue;
    const relative = prefix ? file.relative.slice(prefix.length + 1) : file.relative;
    const folders = relative.split('/').slice(0, -1);
    if (folders.some((folder) => NOT_CONVENTION_FOLDERS.has(folder))) continue;
    let inNested = false;
    for (let depth = 2; depth <= folders.length && !inNested; depth++) inNested = isNested(folders.slice(0, depth).join('/'));
    if (!inNested) out.push(relative);
  }
  return out;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(0, 20_000);
  } catch {
    return '';
  }
}

/** The placement most existing tests follow, found by pairing each test with the source file of the same name. */
function votePlacement(tests: string[], sources: Map<string, string[]>): TestPlacement | undefined {
  const votes = new Map<string, { placement: TestPlacement; count: number }>();
  const folderSources = new Map<string, Set<string>>();
  const vote = (key: string, placement: TestPlacement): void => {
    const entry = votes.get(key) ?? { placement, count: 0 };
    entry.count++;
    votes.set(key, entry);
  };
  for (const test of tests) {
    const placement = placementOf(test, sources);
    if (!placement) continue;
    if (placement.kind === 'folder') {
      vote(`folder:${placement.testBase}`, placement);
      const seen = folderSources.get(placement.testBase) ?? new Set<string>();
      seen.add(placement.sourceBase ?? '');
      folderSources.set(placement.testBase, seen);
    } else {
      vote(placement.kind === 'beside' ? 'beside' : `subfolder:${placement.folder}`, placement);
    }
  }
  const best = [...votes.values()].sort((a, b) => b.count - a.count)[0];
  if (!best) return undefined;
  if (best.placement.kind !== 'folder') return best.placement;
  // Tests of sources in several unrelated folders side by side: a flat test folder.
  const bases = [...(folderSources.get(best.placement.testBase) ?? [])];
  return bases.length === 1 && bases[0] ? { kind: 'folder', testBase: best.placement.testBase, sourceBase: bases[0] } : { kind: 'folder', testBase: best.placement.testBase };
}

function placementOf(test: string, sources: Map<string, string[]>): TestPlacement | undefined {
  const name = path.posix.basename(test).replace(TEST_FILE, '');
  const testDir = path.posix.dirname(test);
  const candidates = sources.get(name) ?? [];
  if (candidates.some((s) => path.posix.dirname(s) === testDir)) return { kind: 'beside' };
  const testSegments = segments(testDir);
  for (const source of candidates) {
    const folder = testSegments[testSegments.length - 1];
    if (folder && TEST_FOLDERS.has(folder) && segments(path.posix.dirname(source)).join('/') === testSegments.slice(0, -1).join('/')) return { kind: 'subfolder', folder };
  }
  let best: { placement: TestPlacement; shared: number } | undefined;
  for (const source of candidates) {
    const sourceSegments = segments(path.posix.dirname(source));
    let shared = 0;
    while (shared < testSegments.length && shared < sourceSegments.length && testSegments[testSegments.length - 1 - shared] === sourceSegments[sourceSegments.length - 1 - shared]) shared++;
    const testBase = testSegments.slice(0, testSegments.length - shared);
    if (!testBase.some((s) => TEST_FOLDERS.has(s))) continue;
    if (!best || shared > best.shared) best = { placement: { kind: 'folder', testBase: testBase.join('/'), sourceBase: sourceSegments.slice(0, sourceSegments.length - shared).join('/') }, shared };
  }
  if (best) return best.placement;
  // A test without a source of its name still tells where tests live.
  const index = testSegments.findIndex((s) => TEST_FOLDERS.has(s));
  if (index < 0) return undefined;
  if (index === testSegments.length - 1 && index > 0) return { kind: 'subfolder', folder: testSegments[index] as string };
  return { kind: 'folder', testBase: testSegments.slice(0, index + 1).join('/') };
}

function segments(dir: string): string[] {
  return dir === '.' || dir === '' ? [] : dir.split('/');
}

function defaultPlacement(framework: TestFrameworkName, root: string): TestPlacement {
  // Mocha looks in ./test by default; the others find tests anywhere, and beside the source is the common choice.
  if (framework !== 'mocha') return { kind: 'beside' };
  return fs.existsSync(path.join(root, 'src')) ? { kind: 'folder', testBase: 'test', sourceBase: 'src' } : { kind: 'folder', testBase: 'test' };
}

/** How relative imports end in the project's files, else what its tsconfig requires. */
function detectImportSuffix(root: string, files: string[], esm: boolean): TestConvention['importSuffix'] {
  const counts = { '.js': 0, '.ts': 0, '': 0 };
  for (const file of files) {
    const text = readText(path.join(root, file));
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.\.?\/[^'"]*)['"]/g)) {
      const specifier = match[1] ?? '';
      if (/\.[cm]?js$/.test(specifier)) counts['.js']++;
      else if (/\.[cm]?tsx?$/.test(specifier)) counts['.ts']++;
      else if (!/\.(json|css|svg|png)$/.test(specifier)) counts['']++;
    }
  }
  const total = counts['.js'] + counts['.ts'] + counts[''];
  if (total > 0) {
    if (counts['.js'] >= counts['.ts'] && counts['.js'] >= counts['']) return '.js';
    return counts['.ts'] > counts[''] ? '.ts' : '';
  }
  const options = tsconfigOptions(root);
  if (options?.allowImportingTsExtensions) return '.ts';
  const nodeNext = (kind: number | undefined, ...wanted: number[]): boolean => kind !== undefined && wanted.includes(kind);
  if (esm && (nodeNext(options?.module, ts.ModuleKind.Node16, ts.ModuleKind.NodeNext) || nodeNext(options?.moduleResolution, ts.ModuleResolutionKind.Node16, ts.ModuleResolutionKind.NodeNext))) return '.js';
  // Plain Node ESM needs the suffix at run time even without TypeScript.
  return esm && !options ? '.js' : '';
}

/** The compiler options of the package's tsconfig.json (following `extends`), without listing its files. */
export function tsconfigOptions(root: string): ts.CompilerOptions | undefined {
  const file = path.join(root, 'tsconfig.json');
  if (!fs.existsSync(file)) return undefined;
  const read = ts.readConfigFile(file, (p) => ts.sys.readFile(p));
  if (read.error || !read.config) return undefined;
  // Listing the included files is the slow part of parsing a tsconfig, and nothing here needs them.
  const host: ts.ParseConfigHost = { useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames, readDirectory: () => [], fileExists: (p) => ts.sys.fileExists(p), readFile: (p) => ts.sys.readFile(p) };
  return ts.parseJsonConfigFileContent(read.config, host, root).options;
}

/** The test file for a source file under the convention (absolute). */
export function testFilePath(convention: TestConvention, sourcePath: string): string {
  const ext = path.extname(sourcePath);
  const name = path.basename(sourcePath, ext);
  const file = `${name}.${convention.infix}${ext === '.d.ts' ? '.ts' : ext}`;
  const dir = path.dirname(sourcePath);
  const placement = convention.placement;
  if (placement.kind === 'beside') return path.join(dir, file);
  if (placement.kind === 'subfolder') return path.join(dir, placement.folder, file);
  const relativeDir = path.relative(convention.root, dir).split(path.sep).join('/');
  const base = path.join(convention.root, ...segments(placement.testBase));
  if (placement.sourceBase !== undefined) {
    const sourceBase = placement.sourceBase;
    if (relativeDir === sourceBase) return path.join(base, file);
    if (sourceBase === '' || relativeDir.startsWith(`${sourceBase}/`)) return path.join(base, ...segments(sourceBase === '' ? relativeDir : relativeDir.slice(sourceBase.length + 1)), file);
  }
  return path.join(base, file);
}

/** The module specifier that imports `target` from `fromFile`, in the project's style. */
export function moduleSpecifier(fromFile: string, target: string, importSuffix: TestConvention['importSuffix']): string {
  let relative = path.relative(path.dirname(fromFile), target).split(path.sep).join('/');
  if (!relative.startsWith('.')) relative = `./${relative}`;
  const ext = path.extname(relative);
  const stem = relative.slice(0, relative.length - ext.length);
  if (importSuffix === '.ts') return relative;
  const jsExt: Record<string, string> = { '.ts': '.js', '.tsx': '.js', '.mts': '.mjs', '.cts': '.cjs', '.js': '.js', '.jsx': '.js', '.mjs': '.mjs', '.cjs': '.cjs' };
  // `.mjs`/`.cjs` (and their TypeScript sources) keep a suffix whatever the style: resolution needs it.
  if (importSuffix === '') return /^\.[cm][jt]s$/.test(ext) ? `${stem}${jsExt[ext] ?? ''}` : stem;
  return `${stem}${jsExt[ext] ?? '.js'}`;
}

/**
 * The import lines that bring the framework's functions into a test file. Always ESM syntax: the symbol under test is
 * exported with `export`, so the project already compiles or transforms that syntax.
 */
export function frameworkImports(convention: TestConvention, names: { expect: boolean; assert: boolean }): string[] {
  const line = (bindings: string, from: string): string => `import ${bindings} from '${from}';`;
  const lines: string[] = [];
  switch (convention.framework) {
    case 'vitest':
      lines.push(line(`{ ${['describe', ...(names.expect ? ['expect'] : []), 'it'].join(', ')} }`, 'vitest'));
      break;
    case 'jest':
      if (convention.jestGlobalsImport) lines.push(line(`{ ${['describe', ...(names.expect ? ['expect'] : []), 'it'].join(', ')} }`, '@jest/globals'));
      break;
    case 'mocha':
      if (names.assert) lines.push(`import { strict as assert } from 'node:assert';`);
      break;
    case 'node:test':
      lines.push(line('{ describe, it }', 'node:test'));
      if (names.assert) lines.push(`import { strict as assert } from 'node:assert';`);
      break;
  }
  return lines;
}
