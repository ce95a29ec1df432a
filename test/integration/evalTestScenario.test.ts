// Unit tests for the test scenario: case building on the eval-test-repo fixture (which functions become cases, which are left out and why) and scoring generated test files against the original code.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { runnableTests, testScenario } from '../../server/src/eval/testScenario.js';
import type { TestCase } from '../../server/src/eval/testScenario.js';
import { ScratchCopy } from '../../server/src/eval/scratch.js';
import type { BuildContext, CaseRun, ScoreContext } from '../../server/src/eval/scenario.js';
import type { TaskEnvironment } from '../../server/src/tasks/runTask.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { testFileProposal } from '../../server/src/tasks/testTask.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { treeHash } from '../support/evalSupport.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanup.splice(0).reverse()) undo();
});

/** The fixture copied with node_modules linked (`prepare` may change the copy first), its scratch copy, and what the scenario reads of the environment. */
function setUp(prepare?: (repo: string) => void): { repo: string; scratch: ScratchCopy; build: BuildContext; scoring: ScoreContext; notes: string[] } {
  const repo = linkModules(copyFixture('eval-test-repo'));
  cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
  prepare?.(repo);
  const scratch = ScratchCopy.create(repo);
  cleanup.push(() => scratch.dispose());
  // Building and scoring read only the workspace and the oracle's test time limit from the environment.
  const env = { root: scratch.root, workspace: new Workspace(scratch.root), oracle: { runTests: false, testTimeoutMs: 60_000 } } as unknown as TaskEnvironment;
  const notes: string[] = [];
  return { repo, scratch, notes, build: { scratch, env, eslint: undefined, note: (m) => notes.push(m) }, scoring: { scratch, env, eslint: undefined } };
}

/** A run whose proposal is the test file the product's Test task makes of `code` for the case. */
function proposing(evalCase: TestCase, code: string): CaseRun {
  return { interactionId: 'i', response: undefined, proposal: testFileProposal(evalCase.testFile, code, undefined).proposal, oraclePassed: true, durationMs: 1 };
}

const CLAMP_TESTS = (expected: number): string => `import { describe, expect, it } from 'vitest';
import { clamp } from './math.js';

describe('clamp', () => {
  it('keeps values inside the bounds', () => {
    expect(clamp(-3, 0, 10)).toBe(0);
    expect(clamp(15, 0, 10)).toBe(${expected});
    expect(clamp(4, 0, 10)).toBe(4);
  });
});
`;

describe('test cases', () => {
  it('takes exported functions and function consts with two or more statements, in packages with a test runner', async () => {
    const { scratch, build, notes } = setUp();
    const before = treeHash(scratch.root);
    const cases = await testScenario.buildCases(build, new AbortController().signal);
    expect(cases.map((c) => c.id)).toEqual(['test:src/math.ts:4:clamp', 'test:src/math.ts:11:average', 'test:src/words.ts:9:slugify']);
    // Left out: double, halve, percentages (an expression body) and capitalize are too short; scale is not exported;
    // WordCounter is a class; table.ts is generated.
    expect(notes).toEqual(['test: 3 cases (2 source files; left out: 4 functions of fewer than 2 statements; 1 function the Test task is not offered on (not exported); 1 generated and 0 minified files)']);

    const [clamp, average, slugify] = cases as [TestCase, TestCase, TestCase];
    expect(clamp).toMatchObject({ file: 'src/math.ts', line: 4, target: 'function clamp', testFile: path.join(scratch.root, 'src', 'math.test.ts'), testFileExists: false, packageRoot: scratch.root, framework: 'vitest' });
    expect(clamp.taskTarget).toMatchObject({ name: 'clamp', start: clamp.declaration.start, end: clamp.declaration.end });
    expect(clamp.text).toBe(fs.readFileSync(clamp.fsPath, 'utf8'));
    expect(average).toMatchObject({ target: 'function average', testFileExists: false });
    expect(average.declaration.kind).toBe('arrow-function');
    expect(slugify).toMatchObject({ testFile: path.join(scratch.root, 'src', 'words.test.ts'), testFileExists: true });
    expect(testScenario.contextChars(clamp)).toBe(clamp.declaration.end - clamp.declaration.start);
    expect(new Set(cases.map((c) => c.contentHash)).size).toBe(3);
    expect(treeHash(scratch.root)).toBe(before);
  });

  it('leaves out files with syntax errors, and every file of a package where no test runner is detected', async () => {
    const broken = setUp((repo) => fs.writeFileSync(path.join(repo, 'src', 'broken.ts'), 'export function broken(value: number {\n  return value;\n}\n'));
    const withBroken = await testScenario.buildCases(broken.build, new AbortController().signal);
    expect(withBroken).toHaveLength(3);
    expect(broken.notes[0]).toMatch(/^test: 3 cases \(3 source files; left out: .*; 1 file with syntax errors; 1 generated and 0 minified files\)$/);

    // No vitest in package.json and no test importing it: node:test would be a guess, so nothing is a case.
    const bare = setUp((repo) => {
      const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ ...pkg, scripts: {}, devDependencies: {} }));
      fs.rmSync(path.join(repo, 'src', 'words.test.ts'));
    });
    expect(await testScenario.buildCases(bare.build, new AbortController().signal)).toEqual([]);
    expect(bare.notes).toEqual(['test: 0 cases (2 source files; left out: 2 files in packages with no test runner detected; 1 generated and 0 minified files)']);
  });
});

describe('test scoring', () => {
  it('runs a created test file alone against the original code: right values pass, a wrong one fails with its failure line, an unparsable file is syntax 0', async () => {
    const { repo, scratch, build, scoring } = setUp();
    const repoBefore = treeHash(repo);
    const cases = await testScenario.buildCases(build, new AbortController().signal);
    const clamp = cases.find((c) => c.target === 'function clamp')!;
    const before = treeHash(scratch.root);
    const signal = new AbortController().signal;

    const right = await testScenario.score(scoring, clamp, proposing(clamp, CLAMP_TESTS(10)), signal);
    expect(right).toEqual({ metrics: { syntax: 1, tests: 1 }, details: { testFile: 'src/math.test.ts', appended: false, oraclePassed: true, tests: 1, command: expect.stringMatching(/^vitest run src\/math\.test\.ts/), exitCode: 0, timedOut: false, failures: [] } });

    const wrong = await testScenario.score(scoring, clamp, proposing(clamp, CLAMP_TESTS(11)), signal);
    expect(wrong.metrics).toEqual({ syntax: 1, tests: 0 });
    expect(wrong.failure).toMatch(/^src\/math\.test\.ts fails on the original code: FAIL src\/math\.test\.ts > clamp > keeps values inside the bounds \| AssertionError: expected 10 to be 11/);
    expect(wrong.details).toMatchObject({ exitCode: 1, timedOut: false, failures: expect.arrayContaining([expect.stringContaining('AssertionError')]) });

    const unparsable = await testScenario.score(scoring, clamp, proposing(clamp, CLAMP_TESTS(10).replace('toBe(4);', 'toBe(4;')), signal);
    expect(unparsable).toMatchObject({ metrics: { syntax: 0, tests: 0 }, failure: expect.stringMatching(/^src\/math\.test\.ts does not parse: TS1005: '\)' expected\.$/), details: { testFile: 'src/math.test.ts' } });

    const todos = await testScenario.score(scoring, clamp, proposing(clamp, "import { describe, it } from 'vitest';\nimport { clamp } from './math.js';\n\ndescribe('clamp', () => {\n  it.todo('clamps');\n  it.skip('later', () => clamp(1, 2, 3));\n});\n"), signal);
    expect(todos).toMatchObject({ metrics: { syntax: 1, tests: 0 }, failure: 'src/math.test.ts: the answer adds no test that runs (only todo or skipped ones)' });

    const none = await testScenario.score(scoring, clamp, { interactionId: 'i', response: undefined, proposal: undefined, oraclePassed: undefined, failure: 'no answer: empty', durationMs: 1 }, signal);
    expect(none).toMatchObject({ metrics: { syntax: null, tests: 0 }, failure: 'no answer: empty' });

    // A proposal that also changes the code under test is not a test of the original code.
    const sourceToo = proposing(clamp, CLAMP_TESTS(10));
    sourceToo.proposal!.documents.push({ uri: pathToUri(clamp.fsPath), version: 1, baseText: clamp.text, edits: [{ start: 0, end: 0, newText: '// changed\n' }] });
    expect(await testScenario.score(scoring, clamp, sourceToo, signal)).toMatchObject({ metrics: { syntax: 0, tests: 0 }, failure: 'the answer writes other files than its test file src/math.test.ts' });

    // Nothing was written: neither the scratch copy (the test files reached only the runner's own copies) nor the repository.
    expect(treeHash(scratch.root)).toBe(before);
    expect(treeHash(repo)).toBe(repoBefore);
  }, 60_000);

  it('runs the whole existing test file with the tests appended to it', async () => {
    const { scratch, build, scoring } = setUp();
    const cases = await testScenario.buildCases(build, new AbortController().signal);
    const slugify = cases.find((c) => c.target === 'function slugify')!;
    const before = treeHash(scratch.root);
    const signal = new AbortController().signal;
    const tests = (expected: string): string => `import { describe, expect, it } from 'vitest';\nimport { slugify } from './words.js';\n\ndescribe('slugify', () => {\n  it('joins lowercase words with dashes', () => {\n    expect(slugify('  Hello, World! ')).toBe('${expected}');\n  });\n});\n`;

    const run = proposing(slugify, tests('hello-world'));
    expect(run.proposal!.creates).toEqual([]);
    expect(runnableTests(run.proposal!)).toBe(1);
    const right = await testScenario.score(scoring, slugify, run, signal);
    expect(right).toMatchObject({ metrics: { syntax: 1, tests: 1 }, details: { testFile: 'src/words.test.ts', appended: true, tests: 1, exitCode: 0 } });

    // The existing capitalize test runs too: its describe is in the failure's context, and only slugify's assertion fails.
    const wrong = await testScenario.score(scoring, slugify, proposing(slugify, tests('Hello-World')), signal);
    expect(wrong.metrics).toEqual({ syntax: 1, tests: 0 });
    expect(wrong.failure).toMatch(/^src\/words\.test\.ts fails on the original code: FAIL src\/words\.test\.ts > slugify > joins lowercase words with dashes \| AssertionError: expected 'hello-world' to be 'Hello-World'/);
    expect(String((wrong.details as { failures: string[] }).failures)).not.toContain('capitalize >');
    expect(treeHash(scratch.root)).toBe(before);
  }, 60_000);

  it('leaves out the functions of a package whose runner is not installed, and says so when it goes missing later', async () => {
    const missing = setUp((repo) => fs.unlinkSync(path.join(repo, 'node_modules')));
    expect(await testScenario.buildCases(missing.build, new AbortController().signal)).toEqual([]);
    expect(missing.notes.at(-1)).toContain('whose tests could not run (vitest is not installed in the workspace (run npm install))');

    const { scratch, build, scoring } = setUp();
    const clamp = (await testScenario.buildCases(build, new AbortController().signal)).find((c) => c.target === 'function clamp')!;
    fs.unlinkSync(path.join(scratch.root, 'node_modules'));
    const score = await testScenario.score(scoring, clamp, proposing(clamp, CLAMP_TESTS(10)), new AbortController().signal);
    expect(score).toMatchObject({ metrics: { syntax: 1, tests: 0 }, failure: 'src/math.test.ts could not run: vitest is not installed in the workspace (run npm install)', details: { command: '', exitCode: null } });
  });

  it('counts the tests that run: it and test calls, with only and each, not todo or skip', () => {
    const created = (text: string): number => runnableTests({ documents: [], creates: [{ uri: 'file:///x.test.ts', text }] });
    expect(created("it('a', () => {}); test.only('b', () => {}); it.each([1, 2])('c %i', () => {});")).toBe(3);
    expect(created("describe('x', () => { it.todo('a'); test.skip('b', () => {}); });")).toBe(0);
  });
});
