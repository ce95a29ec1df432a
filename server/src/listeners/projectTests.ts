// Runs a project's test suite (or some of its test files) in a scratch copy of the workspace and reads the runner's machine-readable report.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failureLines } from '../oracle/testRunner.js';
import { redactSecrets } from '../privacy/secrets.js';
import { detectTestConvention, packageRootOf } from '../repo/testFramework.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { parseJestJson, parseMochaJson, parseNodeTestTap, parseVitestDetails, parseVitestJson, stripAnsi, withDetails } from './testReport.js';
import type { ParsedTestReport, ReportPaths, TestFailure, TestReport } from './testReport.js';

export interface ProjectTestRequest {
  /** The workspace folder: copied whole, except dependencies (linked) and version control. */
  workspaceRoot: string;
  /** The package whose tests run (its folder is the run's working folder); by default the one holding the first test file, else the workspace. */
  packageRoot?: string;
  /** The editor's unsaved buffers, written into the copy. */
  files?: readonly { path: string; text: string }[];
  /** Absolute paths of the test files to run; the whole suite when absent. */
  testFiles?: readonly string[];
  /** By default the framework the project uses (`detectTestConvention`). */
  framework?: TestFrameworkName;
  timeoutMs: number;
}

/** Folders never copied: dependencies are linked instead, the rest is history, caches or the assistant's own data. */
const NOT_COPIED = new Set(['.git', '.hg', '.svn', 'node_modules', '.assistant', 'coverage', '.cache', '.turbo', '.next']);
const MAX_OUTPUT = 200_000;
/** How much of the output a report keeps for messages. */
const OUTPUT_TAIL = 8_000;
/** How long a killed run may take to close its pipes before the copy is removed regardless. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Runs the tests with the project's framework in a scratch copy of the workspace (so nothing a test writes reaches
 * the project), with the editor's unsaved buffers written into the copy and a machine-readable reporter writing to a
 * file beside it, within `timeoutMs`. A run past its time limit is killed (with its whole process group) and reported
 * with `timedOut` and whatever finished before. Aborting `signal` kills the run and rejects with `signal.reason`.
 * Messages, stacks and output are redacted.
 */
export async function runProjectTests(request: ProjectTestRequest, signal: AbortSignal): Promise<TestReport> {
  signal.throwIfAborted();
  const workspace = path.resolve(request.workspaceRoot);
  const inside = (p: string): boolean => {
    const relative = path.relative(workspace, path.resolve(p));
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  const testFiles = (request.testFiles ?? []).map((f) => path.resolve(f));
  const packageRoot = path.resolve(request.packageRoot ?? (testFiles[0] ? packageRootOf(testFiles[0], workspace) : workspace));
  if (!inside(packageRoot)) return unavailableReport(request.framework ?? detectTestConvention(path.join(workspace, 'package.json'), workspace).framework, 'the package is outside the workspace');
  const framework = request.framework ?? detectTestConvention(path.join(packageRoot, 'package.json'), workspace).framework;
  if (testFiles.some((f) => !inside(f) || f === workspace)) return unavailableReport(framework, 'a test file is outside the workspace');

  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'assistant-ls-suite-'));
  try {
    const copy = path.join(scratch, path.basename(workspace) || 'workspace');
    const reports = path.join(scratch, 'report');
    await fs.promises.mkdir(reports);
    await copyWorkspace(workspace, copy, signal);
    for (const file of request.files ?? []) {
      if (!inside(file.path)) continue;
      const target = path.join(copy, path.relative(workspace, path.resolve(file.path)));
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, file.text);
    }
    signal.throwIfAborted();
    const cwd = path.join(copy, path.relative(workspace, packageRoot));
    const relativeTests = testFiles.map((f) => path.relative(packageRoot, f).split(path.sep).join('/'));
    const command = await commandFor(framework, workspace, packageRoot, relativeTests, reports);
    if ('unavailable' in command) return unavailableReport(framework, command.unavailable);
    const run = await runProcess(command.program, command.args, cwd, request.timeoutMs, signal);
    const realCopy = await fs.promises.realpath(copy).catch(() => copy);
    const paths: ReportPaths = { root: workspace, runRoots: [copy, realCopy] };
    const parsed = await readReport(framework, reports, paths, run.timedOut, request.timeoutMs);
    const output = redactSecrets(run.output.slice(-OUTPUT_TAIL));
    const base = { framework, command: [path.basename(command.program), ...command.args.map((a) => a.split(`${scratch}${path.sep}`).join(''))].join(' '), timedOut: run.timedOut, exitCode: run.exitCode, output };
    if (!parsed) {
      const error = run.timedOut ? undefined : `${framework} exited with code ${run.exitCode ?? 'none'} without a report: ${failureLines(run.output).slice(0, 5).join(' / ')}`;
      return { ...base, passed: 0, failed: 0, skipped: 0, failures: [], ...(error ? { error: redactSecrets(error) } : {}) };
    }
    return { ...base, ...redactReport(parsed) };
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

function unavailableReport(framework: TestFrameworkName, reason: string): TestReport {
  return { framework, command: '', passed: 0, failed: 0, skipped: 0, failures: [], timedOut: false, exitCode: null, unavailable: reason, output: '' };
}

function redactReport(report: ParsedTestReport): ParsedTestReport {
  const failures = report.failures.map((f): TestFailure => ({
    ...f,
    message: redactSecrets(f.message),
    ...(f.expected !== undefined ? { expected: redactSecrets(f.expected) } : {}),
    ...(f.actual !== undefined ? { actual: redactSecrets(f.actual) } : {}),
    stack: f.stack.map(redactSecrets),
  }));
  return { ...report, failures };
}

// ---------------------------------------------------------------------------------------------------------------
// The copy

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
// Commands and reports

type Command = { program: string; args: string[] } | { unavailable: string };

const REPORT_FILE: Record<TestFrameworkName, string> = { vitest: 'vitest.json', jest: 'jest.json', mocha: 'mocha.json', 'node:test': 'node-test.tap' };
const VITEST_DETAILS = 'vitest-details.jsonl';

/** The framework's own command with a machine-readable reporter writing into `reports`: the project's installed binary, never a download. */
async function commandFor(framework: TestFrameworkName, workspace: string, packageRoot: string, testFiles: string[], reports: string): Promise<Command> {
  const report = path.join(reports, REPORT_FILE[framework]);
  if (framework === 'node:test') return nodeTestCommand(packageRoot, testFiles, report);
  const program = findBin(framework, workspace, packageRoot);
  if (!program) return { unavailable: `${framework} is not installed in the workspace (run npm install)` };
  if (framework === 'vitest') {
    const reporter = path.join(reports, 'vitest-details-reporter.mjs');
    await fs.promises.writeFile(reporter, vitestDetailsReporter(path.join(reports, VITEST_DETAILS)));
    return { program, args: ['run', ...testFiles, '--watch=false', '--includeTaskLocation', '--coverage.enabled=false', '--reporter=json', `--outputFile.json=${report}`, `--reporter=${reporter}`] };
  }
  if (framework === 'jest') return { program, args: ['--ci', '--watchAll=false', '--coverage=false', '--json', `--outputFile=${report}`, '--testLocationInResults', ...(testFiles.length > 0 ? ['--runTestsByPath', ...testFiles] : [])] };
  return { program, args: ['--reporter', 'json', '--reporter-option', `output=${report}`, ...testFiles] };
}

/**
 * A reporter module added to vitest's: one JSON line when a test starts and one with its result, carrying the
 * error's expected and actual values, which vitest's JSON report leaves out. Lines are appended as tests finish, so a
 * run stopped half-way still tells what finished and what was running. Reporter hooks of vitest 3 and later.
 */
function vitestDetailsReporter(out: string): string {
  return `// Written by assistant-ls for one test run.
import fs from 'node:fs';
const out = ${JSON.stringify(out)};
const write = (record) => { try { fs.appendFileSync(out, JSON.stringify(record) + '\\n'); } catch {} };
const text = (value) => (typeof value === 'string' ? value : undefined);
const errorOf = (e) => ({ name: text(e?.name), message: text(e?.message) ?? String(e), stack: text(e?.stack), expected: text(e?.expected), actual: text(e?.actual) });
export default class AssistantDetailsReporter {
  onTestCaseReady(test) { write({ event: 'ready', file: test.module?.moduleId, name: test.fullName, location: test.location }); }
  onTestCaseResult(test) {
    const result = test.result();
    write({ event: 'result', file: test.module?.moduleId, name: test.fullName, state: result?.state, location: test.location, errors: (result?.errors ?? []).map(errorOf) });
  }
}
`;
}

/** The report of a finished (or stopped) run, or undefined when the runner left none. */
async function readReport(framework: TestFrameworkName, reports: string, paths: ReportPaths, timedOut: boolean, timeoutMs: number): Promise<ParsedTestReport | undefined> {
  const read = (name: string): Promise<string | undefined> => fs.promises.readFile(path.join(reports, name), 'utf8').catch(() => undefined);
  const text = await read(REPORT_FILE[framework]);
  const parse = (body: string): ParsedTestReport | undefined => {
    try {
      if (framework === 'vitest') return parseVitestJson(body, paths);
      if (framework === 'jest') return parseJestJson(body, paths);
      if (framework === 'mocha') return parseMochaJson(body, paths);
      return parseNodeTestTap(body, paths);
    } catch {
      // A report cut short by a kill: what else was written decides.
      return undefined;
    }
  };
  if (framework !== 'vitest') return text !== undefined && text.trim() ? parse(text) : undefined;
  const detailLines = await read(VITEST_DETAILS);
  const details = detailLines !== undefined ? parseVitestDetails(detailLines, paths) : undefined;
  const report = text !== undefined ? parse(text) : undefined;
  if (report) return details ? withDetails(report, details) : report;
  if (!details) return undefined;
  // No JSON report: the run was stopped. What was still running is what the time limit caught.
  const unfinished: TestFailure[] = timedOut
    ? details.unfinished.map((t) => ({
        testFile: t.testFile,
        testName: t.testName,
        kind: 'unfinished',
        message: `did not finish: the run was stopped after ${timeoutMs} ms`,
        stack: [],
        ...(t.testLocation ? { location: t.testLocation, testLocation: t.testLocation } : {}),
      }))
    : [];
  return { passed: details.passed, failed: details.failed + unfinished.length, skipped: details.skipped, failures: [...details.failures, ...unfinished] };
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

/** `node --test` with the TAP reporter into the report file and the loader flags the project's own test script uses (e.g. `--import tsx`). */
function nodeTestCommand(packageRoot: string, testFiles: string[], report: string): Command {
  const flags: string[] = [];
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const tokens = (pkg.scripts?.test ?? '').split(/\s+/);
    const node = tokens.indexOf('node');
    if (node >= 0 && tokens.includes('--test')) {
      for (let i = node + 1; i < tokens.length; i++) {
        const token = tokens[i] as string;
        if (!token.startsWith('-')) break;
        // The reporter is ours; everything else (loaders, conditions) the tests may need.
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
  return { program: process.execPath, args: [...flags, '--test', '--test-reporter=tap', `--test-reporter-destination=${report}`, '--test-reporter=spec', '--test-reporter-destination=stdout', ...testFiles] };
}

// ---------------------------------------------------------------------------------------------------------------
// The process

interface ProcessResult {
  exitCode: number | null;
  timedOut: boolean;
  /** The end of stdout and stderr together, without colours. */
  output: string;
}

function runProcess(program: string, args: string[], cwd: string, timeoutMs: number, signal: AbortSignal): Promise<ProcessResult> {
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
        reject(signal.reason);
        return;
      }
      resolve({ exitCode: timedOut ? null : exitCode, timedOut, output: stripAnsi(output).slice(-MAX_OUTPUT) });
    };
    child.on('error', (error) => {
      output += `\n${error.message}`;
      finish(null);
    });
    child.on('close', (code) => finish(code));
    if (signal.aborted) kill();
  });
}
