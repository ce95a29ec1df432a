// Brings a pinned evaluation package into the user's cache: `npm pack`, the tarball checked against its integrity, unpacked with a tsconfig over its sources.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { userCacheDirectory } from '../workspace/userCache.js';
import { EVAL_EXCLUDE } from './evalSets.js';
import type { EvalPackage } from './evalSets.js';

const run = promisify(execFile);

/** A download or unpacking that failed, in words for the user. */
export class PackageCacheError extends Error {}

/** The cache folder of evaluation packages: `<user cache>/eval-packages`. */
export function evalPackageCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userCacheDirectory(env), 'eval-packages');
}

/** The SRI string (`sha512-…`) of a file's bytes. */
export function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

/**
 * The folder holding the package's files and a tsconfig naming its sources, downloaded on first use. The tarball is
 * fetched with the npm client (`npm pack`, so the user's registry settings apply) and refused unless its sha512
 * matches the pinned integrity; nothing is installed and no script runs.
 */
export async function preparePackage(pkg: EvalPackage, cache: string, signal: AbortSignal, options: PrepareOptions = {}): Promise<string> {
  const slug = `${pkg.name.replace(/^@/, '').replace(/\//g, '+')}@${pkg.version}`;
  const folder = path.join(cache, slug);
  const marker = path.join(folder, '.assistant-eval.json');
  if (fs.existsSync(marker) && readMarker(marker) === pkg.integrity) return folder;
  fs.mkdirSync(cache, { recursive: true });
  const tarball = path.join(cache, `${slug}.tgz`);
  if (!fs.existsSync(tarball) || integrityOf(tarball) !== pkg.integrity) {
    options.note?.(`downloading ${pkg.name}@${pkg.version} with npm pack into ${cache}`);
    const download = fs.mkdtempSync(path.join(cache, '.download-'));
    try {
      const fetched = await (options.download ?? npmPack)(pkg, download, signal);
      fs.renameSync(fetched, tarball);
    } catch (error) {
      if (signal.aborted || error instanceof PackageCacheError) throw error;
      throw new PackageCacheError(`cannot download ${pkg.name}@${pkg.version}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    } finally {
      fs.rmSync(download, { recursive: true, force: true });
    }
  }
  const actual = integrityOf(tarball);
  if (actual !== pkg.integrity) {
    fs.rmSync(tarball, { force: true });
    throw new PackageCacheError(`${pkg.name}@${pkg.version} does not match its pinned integrity (${actual} instead of ${pkg.integrity}); the download was removed`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', folder, '--strip-components=1', '--no-same-owner'], { signal });
  // The package's own tsconfigs extend files the tarball does not ship; this one names only its sources.
  const tsconfig = { compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, skipLibCheck: true, noEmit: true, lib: ['ES2022', 'DOM'] }, include: pkg.include, exclude: EVAL_EXCLUDE };
  fs.writeFileSync(path.join(folder, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  fs.writeFileSync(marker, `${JSON.stringify({ name: pkg.name, version: pkg.version, integrity: pkg.integrity })}\n`);
  return folder;
}

export interface PrepareOptions {
  note?: (message: string) => void;
  /** Fetches the package's tarball into a folder and returns its path; `npm pack` by default. */
  download?: (pkg: EvalPackage, folder: string, signal: AbortSignal) => Promise<string>;
}

async function npmPack(pkg: EvalPackage, folder: string, signal: AbortSignal): Promise<string> {
  const { stdout } = await run('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', folder, '--json', '--ignore-scripts'], { signal, cwd: folder, maxBuffer: 64 * 1024 * 1024 });
  const fileName = (JSON.parse(stdout) as Array<{ filename: string }>)[0]?.filename;
  if (!fileName) throw new PackageCacheError(`npm pack ${pkg.name}@${pkg.version} named no tarball`);
  return path.join(folder, path.basename(fileName));
}

function readMarker(file: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { integrity?: string }).integrity;
  } catch {
    return undefined;
  }
}
