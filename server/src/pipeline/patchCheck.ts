// The oracle of patches over several files: nothing new in the type-check, and, when tests may run, the touched files' tests no worse than before.
import fs from 'node:fs';
import path from 'node:path';
import type { AssistantSettings, Verdict } from '../protocol.js';
import type { Proposal } from '../edits/proposal.js';
import { applyOffsetEdits } from '../edits/textEdits.js';
import { noNewDiagnosticsRule, typeCheckProposal } from '../oracle/typeCheck.js';
import { editorBuffers } from '../oracle/typeCheck.js';
import { runTestFile } from '../oracle/testRunner.js';
import type { TestRunResult } from '../oracle/testRunner.js';
import { existingTestFileFor } from '../tasks/rewriteCheck.js';
import type { TestConvention } from '../repo/testFramework.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { Workspace } from '../workspace/workspace.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

/** Most test files run for one patch: enough for the files it touches, bounded so a review stays minutes, not hours. */
const MAX_TEST_FILES = 4;

const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;

/** The files as the patch leaves them (absolute paths), and as they were. */
function textsOf(proposal: Proposal): { after: Map<string, string>; before: Map<string, string> } {
  const after = new Map<string, string>();
  const before = new Map<string, string>();
  for (const plan of proposal.documents) {
    const file = uriToPath(plan.uri);
    if (!file) continue;
    after.set(file, applyOffsetEdits(plan.baseText, plan.edits));
    before.set(file, plan.baseText);
  }
  for (const create of proposal.creates) {
    const file = uriToPath(create.uri);
    if (file) after.set(file, create.text);
  }
  return { after, before };
}

/** The test files that speak for a patch: those named (a failing test it must fix), those it touches, and the existing test files of the sources it touches. */
function testFilesOf(workspace: Workspace, files: Iterable<string>, named: readonly string[]): { path: string; convention: TestConvention }[] {
  const found = new Map<string, TestConvention>();
  for (const file of named) if (fs.existsSync(file)) found.set(file, workspace.testConvention(file));
  for (const file of files) {
    if (TEST_FILE.test(file)) {
      found.set(file, workspace.testConvention(file));
      continue;
    }
    const existing = existingTestFileFor(workspace, file);
    if (existing) found.set(existing.path, existing.convention);
  }
  return [...found].slice(0, MAX_TEST_FILES).map(([file, convention]) => ({ path: file, convention }));
}

/** The workspace test files a text names (`src/cart.test.ts:15`), as absolute paths: the failing tests an issue is about. */
export function testFilesNamedIn(text: string, root: string): string[] {
  const named = new Set<string>();
  for (const match of text.matchAll(/(?:^|[\s(`'"])((?:[\w@.-]+\/)*[\w@.-]+\.(?:test|spec)\.[cm]?[jt]sx?)\b/g)) {
    const relative = match[1] as string;
    if (relative.split('/').includes('..')) continue;
    named.add(path.join(root, relative));
  }
  return [...named];
}

/**
 * Type-checks the patch in memory (no new diagnostic in any touched file); then, with `oracle.runTests`, runs the
 * test files that speak for it in a scratch copy (the tests the issue names first). A test file that fails after the patch rejects it only if it
 * passed before (a test the patch adds must pass).
 */
export async function checkPatch(workspace: Workspace, project: WorkspaceProject, proposal: Proposal, oracle: AssistantSettings['oracle'], signal: AbortSignal, namedTests: readonly string[] = []): Promise<Verdict> {
  const typed = await typeCheckProposal(project, proposal, signal, noNewDiagnosticsRule);
  if (!typed.passed) return typed;
  if (!oracle.runTests) return { ...typed, summary: `${typed.summary} (tests not run: oracle.runTests is off)` };
  const { after, before } = textsOf(proposal);
  const tests = testFilesOf(workspace, after.keys(), namedTests);
  if (tests.length === 0) return { ...typed, summary: `${typed.summary} (no test file to run)` };
  const buffers = editorBuffers(project).filter((b) => !after.has(path.resolve(b.path)));
  const run = (test: { path: string; convention: TestConvention }, texts: Map<string, string>): Promise<TestRunResult> =>
    runTestFile(
      {
        workspaceRoot: workspace.root,
        packageRoot: test.convention.root,
        framework: test.convention.framework,
        testFile: test.path,
        files: [...buffers, ...[...texts].map(([file, text]) => ({ path: file, text }))],
        timeoutMs: oracle.testTimeoutMs,
      },
      signal,
    );
  const passedNotes: string[] = [];
  for (const test of tests) {
    const label = path.relative(workspace.root, test.path).split(path.sep).join('/');
    const result = await run(test, after);
    if (result.unavailable) {
      passedNotes.push(`${label} not run: ${result.unavailable}`);
      continue;
    }
    if (result.passed) {
      passedNotes.push(`${label} passes`);
      continue;
    }
    const existedBefore = fs.existsSync(test.path) && !proposal.creates.some((c) => uriToPath(c.uri) === test.path);
    const earlier = existedBefore ? await run(test, before) : undefined;
    if (earlier && !earlier.passed && !earlier.unavailable) {
      passedNotes.push(`${label} fails, as it did before the patch`);
      continue;
    }
    const why = result.timedOut ? `timed out after ${oracle.testTimeoutMs} ms` : `exited with ${result.exitCode ?? 'an error'}`;
    return { passed: false, summary: `${label} ${existedBefore ? 'passed before the patch and fails after it' : 'fails'} (${result.command} ${why})`, details: result.failures.slice(0, 30) };
  }
  const ran = passedNotes.some((note) => note.endsWith(' passes'));
  return { ...typed, ...(ran ? { testsPassed: true } : {}), summary: `${typed.summary}; ${passedNotes.join('; ')}` };
}
