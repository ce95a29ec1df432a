// The oracle of tasks that rewrite or add code in place (generate, optimize): no new diagnostic, and, when tests may run, the file's own tests no worse than before.
import fs from 'node:fs';
import path from 'node:path';
import type { Verdict } from '../protocol.js';
import type { Proposal } from '../edits/proposal.js';
import { applyOffsetEdits } from '../edits/textEdits.js';
import { noNewDiagnosticsRule, typeCheckProposal } from '../oracle/typeCheck.js';
import { editorBuffers } from '../oracle/typeCheck.js';
import { runTestFile } from '../oracle/testRunner.js';
import type { TestRunResult } from '../oracle/testRunner.js';
import { testFilePath } from '../repo/testFramework.js';
import type { TestConvention } from '../repo/testFramework.js';
import type { CheckContext, TaskRunView } from './task.js';
import type { Workspace } from '../workspace/workspace.js';

/** The existing test file of a source file (an absolute path), by the project's convention (either infix), if there is one on disk. */
export function existingTestFileFor(workspace: Workspace, sourcePath: string): { path: string; convention: TestConvention } | undefined {
  const convention = workspace.testConvention(sourcePath);
  const preferred = testFilePath(convention, sourcePath);
  const other = preferred.replace(/\.(test|spec)(\.[cm]?[jt]sx?)$/, (_all, infix: string, ext: string) => `.${infix === 'test' ? 'spec' : 'test'}${ext}`);
  const found = [preferred, other].find((candidate) => fs.existsSync(candidate));
  return found ? { path: found, convention } : undefined;
}

/** The existing test file of the run's document, if there is one on disk. */
export function existingTestFile(run: TaskRunView): { path: string; convention: TestConvention } | undefined {
  return run.document.fsPath ? existingTestFileFor(run.workspace, run.document.fsPath) : undefined;
}

/**
 * Type-checks the proposal in memory (nothing new may appear); then, with `oracle.runTests`, runs the document's
 * own test file in a scratch copy with the proposed text. Tests that passed before must still pass: a failing run
 * is compared with a run on the text as it was, and only a regression rejects the proposal.
 */
export async function checkRewrite(proposal: Proposal, run: TaskRunView, context: CheckContext, signal: AbortSignal): Promise<Verdict> {
  const typed = await typeCheckProposal(context.project, proposal, signal, noNewDiagnosticsRule);
  if (!typed.passed) return typed;
  if (!context.oracle.runTests) return { ...typed, summary: `${typed.summary} (tests not run: oracle.runTests is off)` };
  const testFile = existingTestFile(run);
  const plan = proposal.documents.find((d) => d.uri === run.document.uri);
  if (!testFile || !plan || !run.document.fsPath) return { ...typed, summary: `${typed.summary} (no test file to run)` };
  const label = path.relative(context.root, testFile.path).split(path.sep).join('/');
  const buffers = editorBuffers(context.project).filter((b) => path.resolve(b.path) !== path.resolve(run.document.fsPath as string));
  const runWith = (text: string): Promise<TestRunResult> =>
    runTestFile(
      { workspaceRoot: context.root, packageRoot: testFile.convention.root, framework: testFile.convention.framework, testFile: testFile.path, files: [...buffers, { path: run.document.fsPath as string, text }], timeoutMs: context.oracle.testTimeoutMs },
      signal,
    );
  const after = await runWith(applyOffsetEdits(plan.baseText, plan.edits));
  if (after.unavailable) return { ...typed, summary: `${typed.summary}; ${label} not run: ${after.unavailable}` };
  if (after.passed) return { ...typed, testsPassed: true, summary: `${typed.summary}; ${label} passes (${after.command})` };
  const before = await runWith(plan.baseText);
  if (!before.passed) return { ...typed, summary: `${typed.summary}; ${label} fails, as it did before the change` };
  const why = after.timedOut ? `timed out after ${context.oracle.testTimeoutMs} ms` : `exited with ${after.exitCode ?? 'an error'}`;
  return { passed: false, summary: `${label} passed before the change and fails after it (${after.command} ${why})`, details: after.failures.slice(0, 30) };
}
