// Runs a project's test suite (or some of its test files) in a scratch copy of the workspace and reads the runner's machine-readable report.
import fs from 'node:fs';
import path from 'node:path';
import { binCommand, failureLines, isInside, nodeTestCommand, runProcess, withWorkspaceCopy } from '../oracle/testProcess.js';
import type { TestCommand } from '../oracle/testProcess.js';
import { redactSecrets } from '../privacy/secrets.js';
import { packageRootOf } from '../repo/testFramework.js';
import type { Workspace } from '../workspace/workspace.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { parseJestJson, parseMochaJson, parseNodeTestTap, parseVitestDetails, parseVitestJson, withDetails } from './testReport.js';
import type { ParsedTestReport, ReportPaths, TestFailure, TestReport } from './testReport.js';

export interface ProjectTestRequest {
  /** The workspace: its folder is copied whole, except dependencies (linked) and version control. */
  workspace: Workspace;
  /** The package whose tests run (its folder is the run's working folder); by default the one holding the first test file, else the workspace. */
  packageRoot?: string;
  /** The editor's unsaved buffers, written into the copy. */
  files?: readonly { path: string; text: string }[];
  /** Absolute paths of the test files to run; the whole suite when absent. */
  testFiles?: readonly string[];
  /** By default the framework the project uses (`Workspace.testConvention`). */
  framework?: TestFrameworkName;
  timeoutMs: number;
}

/** How much of the output a report keeps for messages. */
const OUTPUT_TAIL = 8_000;

/**
 * Runs the tests with the project's framework in a scratch copy of the workspace (so nothing a test writes reaches
 * the project), with the editor's unsaved buffers written into the copy and a machine-readable reporter writing to a
 * file beside it, within `timeoutMs`. A run past its time limit is killed (with its whole process group) and reported
 * with `timedOut` and whatever finished before. Aborting `signal` kills the run and rejects with `signal.reason`.
 * Messages, stacks and output are redacted.
 */
export async function runProjectTests(request: ProjectTestRequest, signal: AbortSignal): Promise<TestReport> {
  signal.throwIfAborted();
  const workspace = request.workspace.root;
  const testFiles = (request.testFiles ?? []).map((f) => path.resolve(f));
  const packageRoot = path.resolve(request.packageRoot ?? (testFiles[0] ? packageRootOf(testFiles[0], workspace) : workspace));
  if (packageRoot !== workspace && !isInside(workspace, packageRoot)) return unavailableReport(request.framework ?? request.workspace.testConvention(path.join(workspace, 'package.json')).framework, 'the package is outside the workspace');
  const framework = request.framework ?? request.workspace.testConvention(path.join(packageRoot, 'package.json')).framework;
  if (testFiles.some((f) => !isInside(workspace, f))) return unavailableReport(framework, 'a test file is outside the workspace');

  // The copy in a folder of its own, so the reports and the reporter module written beside it stay out of the project the runner sees.
  const copyOptions = { prefix: 'assistant-ls-suite-', copyName: path.basename(workspace) || 'workspace', files: request.files ?? [] };
  return withWorkspaceCopy(workspace, copyOptions, signal, async ({ scratch, copy }) => {
    const reports = path.join(scratch, 'report');
    await fs.promises.mkdir(reports, { recursive: true });
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
  });
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
// Commands and reports

const REPORT_FILE: Record<TestFrameworkName, string> = { vitest: 'vitest.json', jest: 'jest.json', mocha: 'mocha.json', 'node:test': 'node-test.tap' };
const VITEST_DETAILS = 'vitest-details.jsonl';

/** The framework's own command with a machine-readable reporter writing into `reports`: the project's installed binary, never a download. */
async function commandFor(framework: TestFrameworkName, workspace: string, packageRoot: string, testFiles: string[], reports: string): Promise<TestCommand> {
  const report = path.join(reports, REPORT_FILE[framework]);
  // TAP into the report file for us, the spec reporter on stdout for the output kept for messages.
  if (framework === 'node:test') return nodeTestCommand(packageRoot, testFiles, ['--test-reporter=tap', `--test-reporter-destination=${report}`, '--test-reporter=spec', '--test-reporter-destination=stdout']);
  if (framework === 'vitest') {
    const reporter = path.join(reports, 'vitest-details-reporter.mjs');
    await fs.promises.writeFile(reporter, vitestDetailsReporter(path.join(reports, VITEST_DETAILS)));
    return binCommand('vitest', workspace, packageRoot, ['run', ...testFiles, '--watch=false', '--includeTaskLocation', '--coverage.enabled=false', '--reporter=json', `--outputFile.json=${report}`, `--reporter=${reporter}`]);
  }
  if (framework === 'jest') return binCommand('jest', workspace, packageRoot, ['--ci', '--watchAll=false', '--coverage=false', '--json', `--outputFile=${report}`, '--testLocationInResults', ...(testFiles.length > 0 ? ['--runTestsByPath', ...testFiles] : [])]);
  return binCommand('mocha', workspace, packageRoot, ['--reporter', 'json', '--reporter-option', `output=${report}`, ...testFiles]);
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
