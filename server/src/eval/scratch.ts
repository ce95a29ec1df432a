// The scratch copy an evaluation runs in: the repository copied to a temporary folder, proposals applied there, the original never touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Proposal } from '../edits/proposal.js';
import { applyOffsetEdits } from '../edits/textEdits.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

/** Compiler flags `--strict-flags` turns on when none are named: each surfaces diagnostics a default build hides. */
export const DEFAULT_STRICT_FLAGS = ['strict', 'noUnusedLocals', 'noUnusedParameters', 'noImplicitReturns', 'noFallthroughCasesInSwitch', 'noImplicitOverride'] as const;

/** One file of an applied proposal: its text before (undefined for a created file) and as read back from the copy. */
export interface AppliedFile {
  fsPath: string;
  uri: string;
  before: string | undefined;
  after: string;
  created: boolean;
}

export type ApplyResult = { ok: true; files: AppliedFile[] } | { ok: false; reason: string };

export interface ScratchOptions {
  /** Absolute paths inside the repository not to copy (the run's own output, if the user put it there). */
  skip?: readonly string[];
  /** Compiler flags to turn on in the copy's tsconfig.json (`--strict-flags`). */
  strictFlags?: readonly string[];
  /** Parent folder of the copy; the system's temporary folder by default. */
  parent?: string;
}

export class ScratchCopy {
  private constructor(
    /** The folder holding the copy (removed by `dispose`). */
    readonly folder: string,
    /** The copy's root, named like the repository. */
    readonly root: string,
    /** The repository copied. */
    readonly source: string,
  ) {}

  /**
   * Copies `repository` into a new temporary folder. `.git` is left out; every `node_modules` folder becomes a
   * symlink to the original (read-only use: resolving packages), so a large install costs nothing to copy.
   */
  static create(repository: string, options: ScratchOptions = {}): ScratchCopy {
    const source = fs.realpathSync(path.resolve(repository));
    const folder = fs.mkdtempSync(path.join(options.parent ?? os.tmpdir(), 'assistant-eval-'));
    const root = path.join(folder, path.basename(source) || 'repo');
    const skip = new Set((options.skip ?? []).map((p) => path.resolve(p)));
    fs.cpSync(source, root, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (from, to) => {
        const name = path.basename(from);
        if (from !== source && (name === '.git' || skip.has(from))) return false;
        if (name === 'node_modules' && fs.statSync(from).isDirectory()) {
          fs.mkdirSync(path.dirname(to), { recursive: true });
          fs.symlinkSync(from, to, 'junction');
          return false;
        }
        return true;
      },
    });
    const copy = new ScratchCopy(fs.realpathSync(folder), fs.realpathSync(root), source);
    if (options.strictFlags && options.strictFlags.length > 0) copy.enableCompilerFlags(options.strictFlags);
    return copy;
  }

  /** The copy's path of a workspace-relative path. */
  pathOf(relative: string): string {
    return path.join(this.root, ...relative.split('/'));
  }

  /** The workspace-relative path (with `/`) of a path in the copy. */
  relativeOf(fsPath: string): string {
    return path.relative(this.root, fsPath).split(path.sep).join('/');
  }

  /**
   * Turns compiler flags on in the copy's tsconfig.json (comments and trailing commas are read as TypeScript reads
   * them; the file is rewritten as plain JSON). Without a tsconfig, one is written with the options the project
   * would use by default plus the flags.
   */
  enableCompilerFlags(flags: readonly string[]): void {
    const file = path.join(this.root, 'tsconfig.json');
    let config: Record<string, unknown> = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, allowJs: true, checkJs: false, noEmit: true } };
    if (fs.existsSync(file)) {
      const read = ts.readConfigFile(file, (f) => fs.readFileSync(f, 'utf8'));
      if (read.error) throw new Error(`cannot read tsconfig.json to turn on ${flags.join(', ')}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`);
      config = read.config as Record<string, unknown>;
    }
    const options = { ...((config.compilerOptions as Record<string, unknown> | undefined) ?? {}) };
    for (const flag of flags) options[flag] = true;
    fs.writeFileSync(file, `${JSON.stringify({ ...config, compilerOptions: options }, null, 2)}\n`);
  }

  /**
   * Applies a proposal to the copy's files, reads the results back, and restores the copy, all synchronously: no
   * other work of the run (agents reading the copy through the TypeScript project) can observe the applied state.
   * Paths outside the copy, inside `.git` or `node_modules`, or through a symlink out of the copy are refused, as is
   * creating a file that exists.
   */
  applyAndReadBack(proposal: Proposal): ApplyResult {
    const planned: Array<{ fsPath: string; uri: string; before: string | undefined; after: string; created: boolean }> = [];
    for (const plan of proposal.documents) {
      const fsPath = uriToPath(plan.uri);
      const refusal = fsPath ? this.refusal(fsPath) : `${plan.uri} is not a file`;
      if (refusal || !fsPath) return { ok: false, reason: refusal ?? 'not a file' };
      planned.push({ fsPath, uri: plan.uri, before: plan.baseText, after: applyOffsetEdits(plan.baseText, plan.edits), created: false });
    }
    for (const creation of proposal.creates) {
      const fsPath = uriToPath(creation.uri);
      const refusal = fsPath ? this.refusal(fsPath) : `${creation.uri} is not a file`;
      if (refusal || !fsPath) return { ok: false, reason: refusal ?? 'not a file' };
      if (fs.existsSync(fsPath)) return { ok: false, reason: `the proposal creates ${this.relativeOf(fsPath)}, which exists` };
      planned.push({ fsPath, uri: creation.uri, before: undefined, after: creation.text, created: true });
    }
    const originals = new Map<string, string | undefined>();
    const madeDirectories: string[] = [];
    try {
      for (const file of planned) {
        if (!originals.has(file.fsPath)) originals.set(file.fsPath, fs.existsSync(file.fsPath) ? fs.readFileSync(file.fsPath, 'utf8') : undefined);
        madeDirectories.push(...makeDirectories(path.dirname(file.fsPath)));
        fs.writeFileSync(file.fsPath, file.after);
      }
      return { ok: true, files: planned.map((file) => ({ ...file, after: fs.readFileSync(file.fsPath, 'utf8') })) };
    } catch (error) {
      return { ok: false, reason: `the proposal could not be written to the scratch copy: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      for (const [fsPath, text] of originals) {
        if (text === undefined) fs.rmSync(fsPath, { force: true });
        else fs.writeFileSync(fsPath, text);
      }
      for (const directory of madeDirectories.reverse()) fs.rmSync(directory, { recursive: true, force: true });
    }
  }

  /** Why the copy may not be written at `fsPath`, or undefined. */
  private refusal(fsPath: string): string | undefined {
    const resolved = path.resolve(fsPath);
    const relative = path.relative(this.root, resolved);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return `the proposal writes outside the repository (${fsPath})`;
    const parts = relative.split(path.sep);
    if (parts.includes('.git') || parts.includes('node_modules')) return `the proposal writes into ${parts.includes('.git') ? '.git' : 'node_modules'} (${relative})`;
    // The nearest existing folder must still be inside the copy once symlinks are resolved.
    let existing = path.dirname(resolved);
    while (!fs.existsSync(existing)) existing = path.dirname(existing);
    const real = fs.realpathSync(existing);
    const realRelative = path.relative(this.root, real);
    if (realRelative.startsWith('..') || path.isAbsolute(realRelative)) return `the proposal writes through a symlink out of the repository (${relative})`;
    if (fs.existsSync(resolved) && fs.lstatSync(resolved).isSymbolicLink()) return `the proposal writes through a symlink (${relative})`;
    return undefined;
  }

  /** Removes the copy (the original's node_modules, linked into it, is left alone). */
  dispose(): void {
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

/** Creates the missing folders of `directory`, returning the ones made, outermost first. */
function makeDirectories(directory: string): string[] {
  const missing: string[] = [];
  for (let current = directory; !fs.existsSync(current); current = path.dirname(current)) missing.unshift(current);
  if (missing.length > 0) fs.mkdirSync(directory, { recursive: true });
  return missing.slice(0, 1);
}
