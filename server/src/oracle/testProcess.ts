// Runs a project's test runner in a scratch copy of the workspace: the copy, the runner's command and the bounded, killable process that the oracle's one-file runs and the check commands' suite runs share.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders never copied: dependencies are linked instead, the rest is history, caches or the assistant's own data. */
const NOT_COPIED = new Set(['.git', '.hg', '.svn', 'node_modules', '.assistant', 'coverage', '.cache', '.turbo', '.next']);
const MAX_OUTPUT = 200_000;
/** How long a killed run may take to close its pipes before the copy is removed regardless. */
const CLOSE_GRACE_MS = 2_000;

/** Whether `p` lies below `root`; `root` itself is not inside, since no test or buffer can be the folder. */
export function isInside(root: string, p: string): boolean {
  const relative = path.relative(root, path.resolve(p));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

export interface WorkspaceCopy {
  /** The temporary folder, removed when the run ends. */
  scratch: string;
  /** The workspace's copy: `scratch` itself, or the folder `copyName` in it. */
  copy: string;
}

export interface WorkspaceCopyOptions {
  /** The beginning of the temporary folder's name. */
  prefix: string;
  /** Copies into a folder of that name inside the scratch folder, leaving room beside it for files that are no part of the project. */
  copyName?: string;
  /** Files whose text in the copy differs from the disk (those outside the workspace are skipped). */
  files: readonly { path: string; text: string }[];
}

/**
 * Calls `use` with a fresh copy of `workspace` holding the given files, and removes the copy afterwards whatever
 * happens, so nothing a test writes reaches the project and no copy outlives its run.
 */
export async function withWorkspaceCopy<T>(workspace: string, options: WorkspaceCopyOptions, signal: AbortSignal, use: (copy: WorkspaceCopy) => Promise<T>): Promise<T> {
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), options.prefix));
  try {
    const copy = options.copyName ? path.join(scratch, options.copyName) : scratch;
    await copyWorkspace(workspace, copy, signal);
    for (const file of options.files) {
      if (!isInside(workspace, file.path)) continue;
      const target = path.join(copy, path.relative(workspace, path.resolve(file.path)));
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, file.text);
    }
    signal.throwIfAborted();
    return await use({ scratch, copy });
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Copies the workspace, checking for an abort between entries. Every `node_modules` becomes a real folder of links to
 * its entries, so dependencies resolve while caches a runner writes there (node_modules/.vite) stay in the copy.
 */
async function copyWorkspace(from: string, to: string, signal: AbortSignal): Promise<void> {
  const links: { source: string; target: string }[] = [];
  await fs.promises.cp(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      // Once aborted, the rest is skipped so the copy ends quickly.
      if (signal.aborted) return false;
      const name = path.basename(source);
      if (source === from || !NOT_COPIED.has(name)) return true;
      if (name === 'node_modules') links.push({ source, target: path.join(to, path.relative(from, source)) });
      return false;
    },
  });
  signal.throwIfAborted();
  for (const link of links) {
    await fs.promises.mkdir(link.target, { recursive: true });
    for (const entry of await fs.promises.readdir(link.source)) {
      if (entry === '.vite' || entry === '.cache') continue;
      await fs.promises.symlink(path.join(link.source, entry), path.join(link.target, entry), 'junction').catch(() => undefined);
    }
  }
  signal.throwIfAborted();
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

export type TestCommand = { program: string; args: string[] } | { unavailable: string };

/** The project's installed binary `name` with `args`: never a download, so a missing runner is said rather than fetched. */
export function binCommand(name: string, workspace: string, packageRoot: string, args: string[]): TestCommand {
  const program = findBin(name, workspace, packageRoot);
  if (!program) return { unavailable: `${name} is not installed in the workspace (run npm install)` };
  return { program, args };
}

/** `node_modules/.bin/<name>` in the package or a folder above it, up to the workspace. */
function findBin(name: string, workspace: string, packageRoot: string): string | undefined {
  for (let dir = packageRoot; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
    if (fs.existsSync(candidate)) return candidate;
    if (dir === workspace || path.dirname(dir) === dir) return undefined;
  }
}

const LOADER_FLAG = /^(--import|--loader|--experimental-loader|-r|--require)$/;

/**
 * `node --test` on `testFiles` with the flags the project's own test script passes to node (loaders such as
 * `--import tsx`, conditions), then `reporterArgs`. The script's reporter flags are dropped: the caller reads the
 * output, so it decides where the report goes.
 */
export function nodeTestCommand(packageRoot: string, testFiles: readonly string[], reporterArgs: readonly string[]): TestCommand {
  const flags: string[] = [];
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const tokens = (pkg.scripts?.test ?? '').split(/\s+/);
    const node = tokens.indexOf('node');
    if (node >= 0 && tokens.includes('--test')) {
      for (let i = node + 1; i < tokens.length; i++) {
        const token = tokens[i] as string;
        if (!token.startsWith('-')) break;
        if (token === '--test' || token.startsWith('--test-reporter')) continue;
        flags.push(token);
        if (LOADER_FLAG.test(token) && tokens[i + 1]) flags.push(tokens[++i] as string);
      }
    }
  } catch {
    // No package.json or no test script: plain node --test.
  }
  const typescript = testFiles.some((f) => /\.[cm]?tsx?$/.test(f));
  const loader = flags.some((f) => LOADER_FLAG.test(f) || f === '--experimental-strip-types');
  if (typescript && !loader) {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    if (major > 22 || (major === 22 && minor >= 6)) flags.push('--experimental-strip-types');
    else return { unavailable: `Node ${process.versions.node} cannot run TypeScript tests without a loader; add one (e.g. --import tsx) to the test script` };
  }
  return { program: process.execPath, args: [...flags, '--test', ...reporterArgs, ...testFiles] };
}

// ---------------------------------------------------------------------------------------------------------------
// The process

export interface ProcessResult {
  /** Null when the run was stopped (time limit) or could not start. */
  exitCode: number | null;
  timedOut: boolean;
  /** The end of stdout and stderr together, without colours. */
  output: string;
}

/**
 * Runs `program` within `timeoutMs`; past it the run is killed and reported `timedOut`. Aborting `signal` kills the
 * run and rejects with the abort's reason (an Error in any case, so callers' error handling holds).
 */
export function runProcess(program: string, args: string[], cwd: string, timeoutMs: number, signal: AbortSignal): Promise<ProcessResult> {
  return new Promise<ProcessResult>((resolve, reject) => {
    // Its own process group, so a timeout or cancel also ends the workers the runner starts.
    const child = spawn(program, args, {
      cwd,
      detached: process.platform !== 'win32',
      shell: process.platform === 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let output = '';
    const collect = (chunk: Buffer | string): void => {
      output += String(chunk);
      if (output.length > MAX_OUTPUT * 2) output = output.slice(-MAX_OUTPUT);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    let timedOut = false;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const kill = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
      // A grandchild holding the pipes open would delay 'close'; the run is over either way.
      grace ??= setTimeout(() => finish(null), CLOSE_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = (): void => kill();
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        return;
      }
      resolve({ exitCode: timedOut ? null : exitCode, timedOut, output: stripAnsi(output).slice(-MAX_OUTPUT) });
    };
    child.on('error', (error) => {
      output += `\n${error.message}`;
      finish(null);
    });
    child.on('close', (code) => finish(code));
    // An abort before the listener was added would never fire it.
    if (signal.aborted) kill();
  });
}

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex -- escape sequences are what is being removed.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

const FAILURE_LINE = /(FAIL\b|×|✗|✕|✖|●|\bnot ok\b|AssertionError|(?<!\w)\w*Error\b:|\bExpected\b|\bReceived\b|\bexpected\b|\bactual:|^\s*\d+\) |No test files? found|Cannot find module)/;

/** The lines that name what failed and why, at most 40; the output's last lines when none matches. */
export function failureLines(output: string): string[] {
  const lines = output.split(/\r?\n/).map((l) => l.trimEnd());
  const picked: string[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    if (!FAILURE_LINE.test(line)) continue;
    const trimmed = line.trim().slice(0, 300);
    if (!trimmed || seen.has(trimmed)) continue;
    seen.add(trimmed);
    picked.push(trimmed);
    if (picked.length >= 40) break;
  }
  if (picked.length > 0) return picked;
  return lines.filter((l) => l.trim()).slice(-20).map((l) => l.trim().slice(0, 300));
}
