// Tests of the listeners' core on a copy of the listeners fixture: the project type-check, real test runs (vitest, node --test) and the project's ESLint.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { projectTypeCheck } from '../../server/src/listeners/projectTypeCheck.js';
import { runProjectTests } from '../../server/src/listeners/projectTests.js';
import { toProblems } from '../../server/src/listeners/testReport.js';
import type { TestReport } from '../../server/src/listeners/testReport.js';
import { lintProblems, lintRecheck, LintQueue } from '../../server/src/listeners/lintQueue.js';
import { WorkspaceProjects } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';

const root = linkModules(copyFixture('listeners'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const workspace = new Workspace(root);

const file = (...parts: string[]): string => path.join(root, 'src', ...parts);
const read = (fsPath: string): string => fs.readFileSync(fsPath, 'utf8');
/** The zero-based line and character of the first occurrence of `needle` in a file's text. */
function positionOf(text: string, needle: string): { line: number; character: number } {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`${needle} not found`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: (before[before.length - 1] as string).length };
}
const never = new AbortController().signal;

describe('projectTypeCheck', () => {
  it('reports the type error of the project at its place, and nothing in the clean files', async () => {
    const result = await projectTypeCheck(new WorkspaceProjects(root), never);
    expect(result.files).toBe(3);
    expect(result.truncated).toBe(0);
    expect(result.problems).toHaveLength(1);
    const [problem] = result.problems;
    const at = positionOf(read(file('paging.ts')), 'size: number');
    expect(problem).toMatchObject({
      fsPath: file('paging.ts'),
      uri: pathToUri(file('paging.ts')),
      range: { start: at, end: { line: at.line, character: at.character + 'size'.length } },
      message: "Type 'string' is not assignable to type 'number'.",
      code: 2322,
      severity: 1,
      source: 'typescript',
    });
  });

  it("checks the editor's unsaved text, picks up files created on disk since, and bounds the problems", async () => {
    const projects = new WorkspaceProjects(root);
    await projectTypeCheck(projects, never);
    const cart = file('cart.ts');
    const unsaved = read(cart).replace('let sum = 0;', "let sum = 0;\n  const label: string = sum;");
    projects.forFile(cart).sourceFile(cart, unsaved);
    const added = file('added.ts');
    fs.writeFileSync(added, 'export const flag: boolean = 1;\n');
    try {
      const result = await projectTypeCheck(projects, never);
      expect(result.files).toBe(4);
      expect(result.problems.map((p) => [path.basename(p.fsPath), p.range.start, p.code])).toEqual([
        ['added.ts', { line: 0, character: 13 }, 2322],
        ['cart.ts', positionOf(unsaved, 'label'), 2322],
        ['paging.ts', positionOf(read(file('paging.ts')), 'size: number'), 2322],
      ]);
      expect(read(cart)).not.toContain('label');

      const bounded = await projectTypeCheck(projects, never, { maxProblems: 1 });
      expect(bounded.problems).toHaveLength(1);
      expect(bounded.truncated).toBe(2);

      const paging = file('paging.ts');
      const fixed = await projectTypeCheck(projects, never, { unsaved: [{ fsPath: paging, text: read(paging).replace('const size: number = requested;', 'const size = Number(requested);') }] });
      expect(fixed.problems.map((p) => path.basename(p.fsPath))).toEqual(['added.ts', 'cart.ts']);
    } finally {
      fs.rmSync(added);
    }
  });

  it('rejects with the reason when aborted, before or during the check', async () => {
    const reason = new Error('stop');
    const before = new AbortController();
    before.abort(reason);
    await expect(projectTypeCheck(new WorkspaceProjects(root), before.signal)).rejects.toBe(reason);

    const during = new AbortController();
    const running = projectTypeCheck(new WorkspaceProjects(root), during.signal);
    setImmediate(() => during.abort(reason));
    await expect(running).rejects.toBe(reason);
  });
});

/** The live processes (zombies are dead, only not yet reaped): ids, groups and command lines. */
function processes(): { pid: number; pgid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    return match && !(match[3] as string).startsWith('Z') ? [{ pid: Number(match[1]), pgid: Number(match[2]), args: match[4] as string }] : [];
  });
}
function scratchFolders(): Set<string> {
  return new Set(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('assistant-ls-suite-')));
}

describe('runProjectTests with vitest', { timeout: 120_000 }, () => {
  const testFile = file('cart.test.ts');
  const testText = read(testFile);
  let report: TestReport;
  let elapsed = 0;

  beforeAll(async () => {
    const started = Date.now();
    report = await runProjectTests({ workspace, timeoutMs: 60_000 }, never);
    elapsed = Date.now() - started;
  }, 120_000);

  it('reports the failing test with its name, values and the place of its assertion, and counts the passing one', () => {
    expect(report).toMatchObject({ framework: 'vitest', passed: 1, failed: 1, skipped: 0, timedOut: false, exitCode: 1 });
    expect(report.unavailable).toBeUndefined();
    expect(report.command).toMatch(/^vitest run --watch=false --includeTaskLocation .*--reporter=json --outputFile\.json=report\/vitest\.json/);
    expect(report.failures).toHaveLength(1);
    const [failure] = report.failures;
    const assertion = positionOf(testText, 'toBe(400)');
    expect(failure).toMatchObject({
      testFile,
      testName: 'cart > adds every price',
      kind: 'test',
      message: 'AssertionError: expected 300 to be 400 // Object.is equality',
      expected: '400',
      actual: '300',
      location: { fsPath: testFile, line: assertion.line + 1, column: assertion.character + 1 },
      testLocation: { fsPath: testFile, line: positionOf(testText, "it('adds").line + 1 },
    });
    expect(failure?.stack[0]).toBe(`at ${testFile}:${assertion.line + 1}:${assertion.character + 1}`);
    expect(failure?.stack.every((frame) => !frame.includes('node_modules'))).toBe(true);
    console.log(`vitest run of the fixture: ${elapsed} ms`);
  });

  it('publishes the failure as a problem on the assertion line, pointing at the test', () => {
    const problems = toProblems(report);
    expect(problems).toHaveLength(1);
    const assertion = positionOf(testText, 'toBe(400)');
    const line = testText.split('\n')[assertion.line] as string;
    expect(problems[0]).toMatchObject({
      uri: pathToUri(testFile),
      range: { start: assertion, end: { line: assertion.line, character: line.trimEnd().length } },
      message: 'cart > adds every price: AssertionError: expected 300 to be 400 // Object.is equality\nexpected: 400\nactual: 300',
      severity: 1,
      source: 'vitest',
      data: { testName: 'cart > adds every price', expected: '400', actual: '300', kind: 'test' },
    });
    expect(problems[0]?.related).toEqual([{ location: { uri: pathToUri(testFile), fsPath: testFile, range: { start: positionOf(testText, "it('adds"), end: { line: positionOf(testText, "it('adds").line, character: (testText.split('\n')[positionOf(testText, "it('adds").line] as string).length } } }, message: "the test 'cart > adds every price'" }]);
  });

  it("runs the given test files with the editor's unsaved buffers, leaving the workspace untouched", async () => {
    const before = fs.readdirSync(root).sort();
    const fixed = read(file('cart.ts')).replace('let i = 1', 'let i = 0');
    const result = await runProjectTests({ workspace, files: [{ path: file('cart.ts'), text: fixed }], testFiles: [testFile], timeoutMs: 60_000 }, never);
    expect(result).toMatchObject({ passed: 2, failed: 0, failures: [], exitCode: 0, timedOut: false });
    expect(result.command).toContain('vitest run src/cart.test.ts ');
    expect(read(file('cart.ts'))).toContain('let i = 1');
    expect(fs.readdirSync(root).sort()).toEqual(before);
  });

  const hanging = `import { expect, it } from 'vitest';\n\nit('finishes', () => {\n  expect(1).toBe(1);\n});\n\nit('waits a little', async () => {\n  await new Promise((resolve) => setTimeout(resolve, 500));\n});\n\nit('hangs', () => {\n  while (Date.now() > 0) {\n    // never ends\n  }\n});\n`;

  it('stops a run past its time limit and says so, with what finished before', async () => {
    const hang = file('hang.test.ts');
    const started = Date.now();
    const result = await runProjectTests({ workspace, files: [{ path: hang, text: hanging }], testFiles: [hang], timeoutMs: 4_000 }, never);
    const took = Date.now() - started;
    expect(result).toMatchObject({ timedOut: true, exitCode: null, failed: 0, failures: [] });
    expect(result.error).toBeUndefined();
    // Vitest reports results in batches while the worker is free, so the tests before the hang are usually, not always, known.
    expect(result.passed).toBeLessThanOrEqual(2);
    expect(took).toBeLessThan(4_000 + 4_000);
    expect(fs.existsSync(hang)).toBe(false);
    console.log(`vitest run stopped by its time limit: ${took} ms, ${result.passed} passed before`);
  });

  it('kills the whole process group promptly when aborted and rejects with the reason', async () => {
    const hang = file('hang.test.ts');
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const running = runProjectTests({ workspace, files: [{ path: hang, text: hanging }], testFiles: [hang], timeoutMs: 60_000 }, controller.signal);
    // The runner's command line names its reporter in this run's scratch folder, and the test file; its workers share
    // its process group. (Other test files may run project tests at the same time, in folders of their own.)
    let runner: { pgid: number; args: string } | undefined;
    for (let waited = 0; runner === undefined && waited < 20_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      runner = processes().find((p) => p.args.includes('assistant-ls-suite-') && p.args.includes('--includeTaskLocation') && p.args.includes('hang.test.ts'));
    }
    const group = runner?.pgid;
    const folder = /assistant-ls-suite-[^/\s]+/.exec(runner?.args ?? '')?.[0];
    expect(group).toBeDefined();
    expect(folder && scratchFolders().has(folder)).toBe(true);
    // Long enough for the worker to be inside the endless test.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(processes().filter((p) => p.pgid === group).length).toBeGreaterThan(1);
    const aborted = Date.now();
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    const took = Date.now() - aborted;
    expect(took).toBeLessThan(1_500);
    expect(processes().filter((p) => p.pgid === group)).toEqual([]);
    expect(scratchFolders().has(folder as string)).toBe(false);
    console.log(`vitest run aborted: settled ${took} ms after the abort`);
  });
});

describe('runProjectTests with node --test and without a runner', { timeout: 60_000 }, () => {
  let folder: string;
  let tests: Workspace;
  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-node-test-'));
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'node-test-fixture', private: true, type: 'module', scripts: { test: 'node --test' } }));
    fs.writeFileSync(path.join(folder, 'sum.js'), 'export function sum(values) {\n  return values.slice(1).reduce((a, b) => a + b, 0);\n}\n');
    fs.mkdirSync(path.join(folder, 'test'));
    fs.writeFileSync(
      path.join(folder, 'test', 'sum.test.js'),
      "import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from '../sum.js';\n\ndescribe('sum', () => {\n  it('adds all values', () => {\n    assert.equal(sum([1, 2, 3]), 6);\n  });\n  it('is zero for none', () => {\n    assert.equal(sum([]), 0);\n  });\n});\n",
    );
    tests = new Workspace(folder);
  });
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('reads the TAP report of node --test', async () => {
    const report = await runProjectTests({ workspace: tests, timeoutMs: 30_000 }, never);
    const testFile = path.join(folder, 'test', 'sum.test.js');
    expect(report).toMatchObject({ framework: 'node:test', passed: 1, failed: 1, skipped: 0, timedOut: false, exitCode: 1 });
    expect(report.failures).toEqual([
      {
        testFile,
        testName: 'sum > adds all values',
        kind: 'test',
        message: 'AssertionError: Expected values to be strictly equal:\n\n5 !== 6',
        expected: '6',
        actual: '5',
        stack: [`at TestContext.<anonymous> (${testFile}:7:12)`],
        location: { fsPath: testFile, line: 7, column: 12 },
        testLocation: { fsPath: testFile, line: 6, column: 3 },
      },
    ]);
    expect(report.output).toContain('✖ adds all values');
  });

  it('says why when the framework is not installed or a file is outside the workspace', async () => {
    const jest = await runProjectTests({ workspace: tests, framework: 'jest', timeoutMs: 10_000 }, never);
    expect(jest).toMatchObject({ framework: 'jest', unavailable: 'jest is not installed in the workspace (run npm install)', failures: [] });
    const outside = await runProjectTests({ workspace: tests, testFiles: ['/etc/passwd.test.js'], timeoutMs: 10_000 }, never);
    expect(outside.unavailable).toBe('a test file is outside the workspace');
  });
});

describe('lintProblems', { timeout: 60_000 }, () => {
  it("finds the fixture's violations with the project's own ESLint, in the editor's text where given", async () => {
    const greeting = file('greeting.js');
    const text = read(greeting);
    const result = await lintProblems(workspace, undefined, never);
    expect(result.unavailable).toBeUndefined();
    expect(result.problems.map((p) => [path.basename(p.fsPath), p.code, p.severity, p.range.start])).toEqual([
      ['greeting.js', 'prefer-const', 2, positionOf(text, 'greeting =')],
      ['greeting.js', 'no-unused-vars', 1, positionOf(text, 'unused =')],
    ]);
    expect(result.problems[1]).toMatchObject({ source: 'eslint', message: "'unused' is assigned a value but never used.", uri: pathToUri(greeting), data: { ruleId: 'no-unused-vars' } });

    const edited = text.replace('  const unused = 42;\n', '');
    const again = await lintProblems(workspace, [greeting], never, { textOf: (p) => (p === greeting ? edited : undefined) });
    expect(again.problems.map((p) => p.code)).toEqual(['prefer-const']);
  });

  it('is unavailable, with the reason, without ESLint or without a configuration', async () => {
    const bare = copyFixture('listeners');
    try {
      const missing = await lintProblems(new Workspace(bare), undefined, never);
      expect(missing).toMatchObject({ problems: [], unavailable: expect.stringMatching(/ESLint is configured \(eslint\.config\.js\) but not installed/) as unknown });
      fs.rmSync(path.join(bare, 'eslint.config.js'));
      const unconfigured = await lintProblems(new Workspace(bare), undefined, never);
      expect(unconfigured.unavailable).toMatch(/no ESLint configuration/);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('feeds a queue whose recheck lints the file again and finds fixed problems gone', async () => {
    const greeting = file('greeting.js');
    const buffers = new Map<string, string>();
    const textOf = (p: string): string | undefined => buffers.get(p);
    const { problems } = await lintProblems(workspace, [greeting], never, { textOf });
    const queue = new LintQueue(problems);
    const summary = await queue.run(
      async (item) => {
        // A fix of the first item that happens to remove the second problem too.
        buffers.set(greeting, read(greeting).replace('let greeting', 'const greeting').replace('  const unused = 42;\n', ''));
        return { outcome: 'fixed', detail: `fixed ${String(item.problem.code)}` };
      },
      never,
      undefined,
      lintRecheck(workspace, { textOf }),
    );
    expect(summary.items.map((i) => [i.problem.code, i.outcome])).toEqual([
      ['prefer-const', 'fixed'],
      ['no-unused-vars', 'gone'],
    ]);
  });

  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const running = lintProblems(workspace, undefined, controller.signal);
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });
});
