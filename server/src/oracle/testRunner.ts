// Runs one test file with the project's framework in a scratch copy of the workspace, so nothing a test writes reaches the project.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestFrameworkName } from '../repo/testFramework.js';

export interface TestRunRequest {
  /** The workspace folder: copied whole, except dependencies and version control. */
  workspaceRoot: string;
  /** The package (inside the workspace) whose framework runs: the run's working folder. */
  packageRoot: string;
  framework: TestFrameworkName;
  /** The test file, as an absolute path in the workspace. */
  testFile: string;
  /** Files whose text in the copy differs from the disk: the proposal's new files and the editor's unsaved buffers. */
  files: readonly { path: string; text: string }[];
  timeoutMs: number;
}

export interface TestRunResult {
  /** Only when the runner exited with 0. */
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The command line, for messages. */
  command: string;
  /** The run's output (its end, when long), without colours. */
  output: string;
  /** The lines of the output that say what failed, for the verdict and the model's next attempt. */
  failures: string[];
  /** Set when the run could not start (no runner installed, a file outside the workspace). */
  unavailable?: string;
}

/** Folders never copied: dependencies are linked instead, the rest is history, caches or the assistant's own data. */
const NOT_COPIED = new Set(['.git', '.hg', '.svn', 'node_modules', '.assistant', 'coverage', '.cache', '.turbo', '.next']);
const MAX_OUTPUT = 200_000;

/**
 * Copies the workspace to a temporary folder (symlinking every `node_modules` so dependencies resolve), writes the
 * given files into the copy, runs the framework on the one test file there within the time limit, and deletes the
 * copy. Aborting `signal` kills the run (its whole process group) and rejects.
 */
export async function runTestFile(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
  signal.throwIfAborted();
  const workspace = path.resolve(request.workspaceRoot);
  const inside = (p: string): boolean => {
    const relative = path.relative(workspace, path.resolve(p));
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  const packageRoot = path.resolve(request.packageRoot);
  if (!inside(request.testFile) || (packageRoot !== workspace && !inside(packageRoot))) {
    return unavailable('the test file is outside the workspace');
  }
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'assistant-ls-testrun-'));
  try {
    await copyWorkspace(workspace, scratch, signal);
    for (const file of request.files) {
      if (!inside(file.path)) continue;
      const target = path.join(scratch, path.relative(workspace, path.resolve(file.path)));
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, file.text);
    }
    signal.throwIfAborted();
    const cwd = path.join(scratch, path.relative(workspace, packageRoot));
    const testFile = path.relative(packageRoot, path.resolve(request.testFile)).split(path.sep).join('/');
    const command = commandFor(request.framework, workspace, packageRoot, testFile);
    if ('unavailable' in command) return unavailable(command.unavailable);
    return await run(command.program, command.args, cwd, request.timeoutMs, signal);
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

function unavailable(reason: string): TestRunResult {
  return { passed: false, exitCode: null, timedOut: false, command: '', output: '', failures: [reason], unavailable: reason };
}

async function copyWorkspace(from: string, to: string, signal: AbortSignal): Promise<void> {
  const links: { source: string; target: string }[] = [];
  await fs.promises.cp(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      const name = path.basename(source);
      if (source === from || !NOT_COPIED.has(name)) return true;
      if (name === 'node_modules') links.push({ source, target: path.join(to, path.relative(from, source)) });
      return false;
    },
  });
  signal.throwIfAborted();
  // A real folder of links rather than one link, so caches the runner writes there (node_modules/.vite) stay in the copy.
  for (const link of links) {
    await fs.promises.mkdir(link.target, { recursive: true });
    for (const entry of await fs.promises.readdir(link.source)) {
      if (entry === '.vite' || entry === '.cache') continue;
      await fs.promises.symlink(path.join(link.source, entry), path.join(link.target, entry), 'junction').catch(() => undefined);
    }
  }
}

type Command = { program: string; args: string[] } | { unavailable: string };

/** The framework's own command for one file: the project's installed binary, never a download. */
function commandFor(framework: TestFrameworkName, workspace: string, packageRoot: string, testFile: string): Command {
  if (framework === 'node:test') return nodeTestCommand(packageRoot, testFile);
  const bin = { vitest: 'vitest', jest: 'jest', mocha: 'mocha' }[framework];
  const program = findBin(bin, workspace, packageRoot);
  if (!program) return { unavailable: `${bin} is not installed in the workspace (run npm install)` };
  if (framework === 'vitest') return { program, args: ['run', testFile, '--watch=false'] };
  if (framework === 'jest') return { program, args: ['--ci', '--watchAll=false', '--runTestsByPath', testFile] };
  return { program, args: [testFile] };
}

/** `node_modules/.bin/<name>` in the package or a folder above it, up to the workspace. */
function findBin(name: string, workspace: string, packageRoot: string): string | undefined {
  for (let dir = packageRoot; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
    if (fs.existsSync(candidate)) return candidate;
    if (dir === workspace || path.dirname(dir) === dir) return undefined;
  }
}

/** `node --test` with the loader flags the project's own test script uses (e.g. `--import tsx`). */
function nodeTestCommand(packageRoot: string, testFile: string): Command {
  const flags: string[] = [];
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const script = pkg.scripts?.test ?? '';
    const tokens = script.split(/\s+/);
    const node = tokens.indexOf('node');
    if (node >= 0 && tokens.includes('--test')) {
      for (let i = node + 1; i < tokens.length; i++) {
        const token = tokens[i] as string;
        if (!token.startsWith('-')) break;
        if (token === '--test') continue;
        flags.push(token);
        if (/^(--import|--loader|--experimental-loader|-r|--require)$/.test(token) && tokens[i + 1]) flags.push(tokens[++i] as string);
      }
    }
  } catch {
    // No package.json or no test script: plain node --test.
  }
  const typescript = /\.[cm]?tsx?$/.test(testFile);
  const loader = flags.some((f) => /^(--import|--loader|--experimental-loader|-r|--require|--experimental-strip-types)$/.test(f));
  if (typescript && !loader) {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    if (major > 22 || (major === 22 && minor >= 6)) flags.push('--experimental-strip-types');
    else return { unavailable: `Node ${process.versions.node} cannot run TypeScript tests without a loader; add one (e.g. --import tsx) to the test script` };
  }
  return { program: process.execPath, args: [...flags, '--test', testFile] };
}

function run(program: string, args: string[], cwd: string, timeoutMs: number, signal: AbortSignal): Promise<TestRunResult> {
  const command = [path.basename(program), ...args].join(' ');
  return new Promise<TestRunResult>((resolve, reject) => {
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
    const kill = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = (): void => kill();
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        return;
      }
      const clean = stripAnsi(output).slice(-MAX_OUTPUT);
      const failures = timedOut ? [`the test run took longer than ${timeoutMs} ms and was stopped`, ...failureLines(clean)] : exitCode === 0 ? [] : failureLines(clean);
      resolve({ passed: exitCode === 0 && !timedOut, exitCode, timedOut, command, output: clean, failures });
    };
    child.on('error', (error) => {
      output += `\n${error.message}`;
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex -- escape sequences are what is being removed.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

const FAILURE_LINE = /(FAIL\b|×|✗|✕|✖|●|\bnot ok\b|AssertionError|\w*Error\b:|\bExpected\b|\bReceived\b|\bexpected\b|\bactual:|^\s*\d+\) |No test files? found|Cannot find module)/;

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
