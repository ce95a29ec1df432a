// Unit tests of running one test file in a scratch copy of the workspace, and of the Test task's oracle when tests are run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, REPO_ROOT, linkModules } from '../support/lspClient.js';
import { runTestFile, failureLines } from '../../server/src/oracle/testRunner.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { exportedTestTarget, testTask } from '../../server/src/tasks/testTask.js';
import { OfflineTestScaffoldAgent } from '../../server/src/agents/offline/testScaffoldAgent.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

const root = copyFixture('tests-vitest');
linkModules(root);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const testFile = path.join(root, 'test', 'math', 'clamp.test.ts');
const header = "import { describe, expect, it } from 'vitest';\nimport { clamp } from '../../src/math/clamp.js';\n\n";
const passing = `${header}describe('clamp', () => {\n  it('keeps values inside the range', () => {\n    expect(clamp(5, 0, 10)).toBe(5);\n  });\n});\n`;
const failing = `${header}describe('clamp', () => {\n  it('raises values to the minimum', () => {\n    expect(clamp(-5, 0, 10)).toBe(-5);\n  });\n});\n`;

function run(text: string, timeoutMs = 60_000) {
  return runTestFile({ workspaceRoot: root, packageRoot: root, framework: 'vitest', testFile, files: [{ path: testFile, text }], timeoutMs }, new AbortController().signal);
}

describe('runTestFile', { timeout: 90_000 }, () => {
  it('passes a passing file, run alone in a copy that leaves the workspace untouched', async () => {
    const result = await run(passing);
    expect(result).toMatchObject({ passed: true, exitCode: 0, timedOut: false, failures: [] });
    expect(result.command).toBe('vitest run test/math/clamp.test.ts --watch=false');
    expect(fs.existsSync(testFile)).toBe(false);
    expect(fs.existsSync(path.join(root, 'node_modules', '.vite'))).toBe(fs.existsSync(path.join(REPO_ROOT, 'node_modules', '.vite')));
  });

  it('fails a failing file and reports the failing test and the assertion', async () => {
    const result = await run(failing);
    expect(result.passed).toBe(false);
    expect(result.exitCode).not.toBe(0);
    const failures = result.failures.join('\n');
    expect(failures).toContain('raises values to the minimum');
    expect(failures).toMatch(/expected \+?0 to be -5/);
  });

  it('stops a run that outlives its time limit', async () => {
    const result = await run(`${header}while (Date.now() > 0) clamp(1, 0, 2);\n`, 2500);
    expect(result).toMatchObject({ passed: false, timedOut: true });
    expect(result.failures[0]).toBe('the test run took longer than 2500 ms and was stopped');
  });

  it('says so when the framework is not installed, and refuses files outside the workspace', async () => {
    const jest = copyFixture('tests-jest');
    try {
      const result = await runTestFile({ workspaceRoot: jest, packageRoot: jest, framework: 'jest', testFile: path.join(jest, 'src', 'sum.spec.ts'), files: [], timeoutMs: 10_000 }, new AbortController().signal);
      expect(result).toMatchObject({ passed: false, unavailable: 'jest is not installed in the workspace (run npm install)' });
      const outside = await runTestFile({ workspaceRoot: jest, packageRoot: jest, framework: 'jest', testFile: '/etc/passwd.test.ts', files: [], timeoutMs: 10_000 }, new AbortController().signal);
      expect(outside.unavailable).toBe('the test file is outside the workspace');
    } finally {
      fs.rmSync(jest, { recursive: true, force: true });
    }
  });

  it('picks the lines that say what failed', () => {
    expect(failureLines('RUN\n ✓ a\n × b > fails\n   AssertionError: expected 1 to be 2\n done')).toEqual(['× b > fails', 'AssertionError: expected 1 to be 2']);
    expect(failureLines('one\ntwo\n')).toEqual(['one', 'two']);
  });
});

describe('the Test oracle with oracle.runTests', { timeout: 120_000 }, () => {
  const workspace = new Workspace(root);
  const project = workspace.projects.workspace;
  const fsPath = path.join(root, 'src', 'math', 'clamp.ts');
  const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
  const at = document.text.indexOf('clamp(');
  const view = { workspace, document, target: declarationTarget(exportedTestTarget(document, at, at)!), parameters: {} };
  const context = { root, project, oracle: { runTests: true, testTimeoutMs: 60_000 } };

  async function verdictOf(answer: { text: string; proposal?: never }) {
    const converted = testTask.convertAnswer(answer, view, undefined);
    if (!converted.ok || converted.kind !== 'edit') throw new Error('not converted');
    return testTask.check!(converted.proposal, view, context, new AbortController().signal);
  }

  it('rejects model tests that fail when run, with the failures as details', async () => {
    const verdict = await verdictOf({ text: failing });
    expect(verdict.passed).toBe(false);
    expect(verdict.summary).toMatch(/^the tests type-check; the tests fail \(vitest run test\/math\/clamp\.test\.ts --watch=false exited with 1\)$/);
    expect(verdict.details?.join('\n')).toMatch(/expected \+?0 to be -5/);
  });

  it('accepts model tests that pass', async () => {
    expect(await verdictOf({ text: passing })).toEqual({ passed: true, testsPassed: true, summary: 'the tests type-check and pass (vitest run test/math/clamp.test.ts --watch=false)' });
  });

  it('records the run of the offline scaffold without holding its guessed smoke call against it', async () => {
    const answer = await new OfflineTestScaffoldAgent().run({ task: 'test', interactionId: 'i', text: 'test clamp', document, target: view.target, parameters: {}, workspace, project, history: [] }, new AbortController().signal);
    const converted = testTask.convertAnswer(answer, view, undefined);
    if (!converted.ok || converted.kind !== 'edit') throw new Error('not converted');
    const verdict = await testTask.check!(converted.proposal, view, context, new AbortController().signal);
    // clamp(0, 0, 0) returns a number: the scaffold's tests pass (the todos are skipped).
    expect(verdict).toEqual({ passed: true, testsPassed: true, summary: 'the scaffold type-checks and its tests pass (vitest run test/math/clamp.test.ts --watch=false)' });
  });
});
