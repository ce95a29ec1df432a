// Runs one test file with the project's framework in a scratch copy of the workspace, so nothing a test writes reaches the project.
import path from 'node:path';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { binCommand, failureLines, isInside, nodeTestCommand, runProcess, withWorkspaceCopy } from './testProcess.js';
import type { TestCommand } from './testProcess.js';

// The oracle's callers and tests read the failure lines from here.
export { failureLines } from './testProcess.js';

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

/**
 * Copies the workspace to a temporary folder (symlinking every `node_modules` so dependencies resolve), writes the
 * given files into the copy, runs the framework on the one test file there within the time limit, and deletes the
 * copy. Aborting `signal` kills the run (its whole process group) and rejects.
 */
export async function runTestFile(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
  signal.throwIfAborted();
  const workspace = path.resolve(request.workspaceRoot);
  const packageRoot = path.resolve(request.packageRoot);
  if (!isInside(workspace, request.testFile) || (packageRoot !== workspace && !isInside(workspace, packageRoot))) {
    return unavailable('the test file is outside the workspace');
  }
  return withWorkspaceCopy(workspace, { prefix: 'assistant-ls-testrun-', files: request.files }, signal, async ({ copy }) => {
    const cwd = path.join(copy, path.relative(workspace, packageRoot));
    const testFile = path.relative(packageRoot, path.resolve(request.testFile)).split(path.sep).join('/');
    const command = commandFor(request.framework, workspace, packageRoot, testFile);
    if ('unavailable' in command) return unavailable(command.unavailable);
    return run(command.program, command.args, cwd, request.timeoutMs, signal);
  });
}

function unavailable(reason: string): TestRunResult {
  return { passed: false, exitCode: null, timedOut: false, command: '', output: '', failures: [reason], unavailable: reason };
}

/** Why the package's test runner cannot run (not installed), or undefined when it can. */
export function runnerUnavailable(framework: TestFrameworkName, workspaceRoot: string, packageRoot: string): string | undefined {
  const command = commandFor(framework, path.resolve(workspaceRoot), path.resolve(packageRoot), path.join(packageRoot, 'probe.test.ts'));
  return 'unavailable' in command ? command.unavailable : undefined;
}

/** The framework's own command for one file. */
function commandFor(framework: TestFrameworkName, workspace: string, packageRoot: string, testFile: string): TestCommand {
  if (framework === 'node:test') return nodeTestCommand(packageRoot, [testFile], []);
  if (framework === 'vitest') return binCommand('vitest', workspace, packageRoot, ['run', testFile, '--watch=false']);
  if (framework === 'jest') return binCommand('jest', workspace, packageRoot, ['--ci', '--watchAll=false', '--runTestsByPath', testFile]);
  return binCommand('mocha', workspace, packageRoot, [testFile]);
}

async function run(program: string, args: string[], cwd: string, timeoutMs: number, signal: AbortSignal): Promise<TestRunResult> {
  const command = [path.basename(program), ...args].join(' ');
  const { exitCode, timedOut, output } = await runProcess(program, args, cwd, timeoutMs, signal);
  const failures = timedOut ? [`the test run took longer than ${timeoutMs} ms and was stopped`, ...failureLines(output)] : exitCode === 0 ? [] : failureLines(output);
  return { passed: exitCode === 0 && !timedOut, exitCode, timedOut, command, output, failures };
}
