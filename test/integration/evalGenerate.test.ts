// Unit tests for the generate scenario: the Pass@k estimator and its report, case building on the eval-gen-repo fixture (tests run once on the original), and scoring a body in memory.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { meanPassAtK, passAtK } from '../../server/src/eval/stats.js';
import { passAtKOf, renderScenario, summarize } from '../../server/src/eval/report.js';
import type { ScenarioReport } from '../../server/src/eval/report.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { generateScenario, MIN_STATEMENTS, statementCount } from '../../server/src/eval/generateScenario.js';
import type { GenerateCase } from '../../server/src/eval/generateScenario.js';
import { ScratchCopy } from '../../server/src/eval/scratch.js';
import type { BuildContext, CaseRun, ScoreContext } from '../../server/src/eval/scenario.js';
import type { TaskEnvironment } from '../../server/src/tasks/runTask.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { functionIn } from '../../server/src/tasks/generateTask.js';
import { parseDocument } from '../../server/src/repo/declarations.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { treeHash } from '../support/evalSupport.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanup.splice(0).reverse()) undo();
});

describe('Pass@k', () => {
  it('matches 1 − C(n−c, k)/C(n, k) computed by hand', () => {
    // n = 5, c = 2: k = 1 is c/n; k = 2 is 1 − C(3,2)/C(5,2) = 1 − 3/10.
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    // n = 10, c = 3, k = 5: 1 − C(7,5)/C(10,5) = 1 − 21/252.
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    // n = 4, c = 1, k = 3: 1 − C(3,3)/C(4,3) = 1 − 1/4.
    expect(passAtK(4, 1, 3)).toBeCloseTo(0.75, 12);
  });

  it('is 1 at k = n with one pass, 0 with none, 1 when all pass', () => {
    expect(passAtK(3, 1, 3)).toBe(1);
    expect(passAtK(3, 0, 3)).toBe(0);
    expect(passAtK(3, 0, 1)).toBe(0);
    expect(passAtK(3, 3, 1)).toBe(1);
    expect(passAtK(3, 3, 3)).toBe(1);
    expect(passAtK(1, 1, 1)).toBe(1);
    // Large n stays finite where binomials would overflow.
    expect(passAtK(2000, 1000, 2)).toBeCloseTo(1 - (1000 * 999) / (2000 * 1999), 12);
  });

  it('refuses k beyond the samples and impossible counts', () => {
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
    expect(() => passAtK(2, 3, 1)).toThrow(RangeError);
    expect(() => passAtK(2, 1, 0)).toThrow(RangeError);
  });

  it('averages over cases, each case once', () => {
    expect(meanPassAtK([{ n: 2, c: 2 }, { n: 2, c: 1 }, { n: 2, c: 0 }], 1)).toBeCloseTo(0.5, 12);
    expect(meanPassAtK([{ n: 2, c: 2 }, { n: 2, c: 1 }, { n: 2, c: 0 }], 2)).toBeCloseTo(2 / 3, 12);
    expect(meanPassAtK([], 1)).toBeNull();
  });
});

function record(agent: string, caseId: string, tests: number, sample: number): EvalRecord {
  return {
    key: `${agent}/${caseId}/${sample}`,
    scenario: 'generate',
    caseId,
    file: 'src/a.ts',
    line: 1,
    target: caseId,
    agent,
    model: 'm',
    isLLM: true,
    sample,
    status: tests === 1 ? 'passed' : 'failed',
    metrics: { syntax: 1, tests },
    proposed: true,
    failure: tests === 1 ? null : 'src/a.test.ts fails with the generated body',
    promptChars: 100,
    contextChars: 10,
    promptTokens: 30,
    completionTokens: 5,
    durationMs: 10,
    agentMs: 5,
    attempts: 1,
    oraclePassed: true,
    answer: 'x',
    details: {},
    interactionId: 'i',
    finishedAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('Pass@k in the report', () => {
  const scenario: ScenarioReport = {
    id: 'generate',
    title: 'Generate',
    metrics: [
      { id: 'syntax', label: 'syntax correctness', overProposals: true },
      { id: 'tests', label: 'test pass rate', passAtK: true },
    ],
    primaryMetric: 'tests',
    cases: 3,
    agents: ['model'],
  };
  // Three samples: c1 passes 3 times, c2 once, c3 never.
  const records = [0, 1, 2].flatMap((s) => [record('model', 'c1', 1, s), record('model', 'c2', s === 1 ? 1 : 0, s), record('model', 'c3', 0, s)]);

  it('gives pass@1 and pass@n per agent in the summary, and the columns in the table', () => {
    const [model] = summarize(scenario, records);
    // pass@1 = (1 + 1/3 + 0)/3; pass@3 = (1 + 1 + 0)/3.
    expect(model!.passAtK).toEqual({ '1': expect.closeTo(4 / 9, 12), '3': expect.closeTo(2 / 3, 12) });
    expect(model!.metrics.tests).toBeCloseTo(4 / 9, 12);
    const text = renderScenario(scenario, [model!], []);
    expect(text).toMatch(/agent\s+runs\s+syntax correctness\s+test pass rate\s+pass@1\s+pass@3\s+proposed/);
    expect(text).toMatch(/model\s+9\s+100\.0%\s+44\.4%\s+44\.4%\s+66\.7%\s+100\.0%/);
    expect(text).toContain('(pass@k: the chance that one of k samples of a case passes the test pass rate');
  });

  it('leaves out a k some case has too few samples for (an interrupted run), and pass@k for other scenarios', () => {
    const partial = records.filter((r) => !(r.caseId === 'c3' && r.sample === 2));
    expect(passAtKOf(partial, scenario.metrics[1]!)).toEqual({ '1': expect.closeTo((1 + 1 / 3 + 0) / 3, 12) });
    const one = [record('model', 'c1', 1, 0), record('model', 'c2', 0, 0)];
    expect(passAtKOf(one, scenario.metrics[1]!)).toEqual({ '1': 0.5 });
    const text = renderScenario(scenario, summarize(scenario, one), []);
    expect(text).toMatch(/pass@1\s+proposed/);
    expect(text).not.toContain('pass@2');
    const doc: ScenarioReport = { ...scenario, id: 'doc', metrics: [{ id: 'syntax', label: 'syntax' }, { id: 'format', label: 'format' }] };
    const [summary] = summarize(doc, []);
    expect(summary!.passAtK).toBeUndefined();
    expect(renderScenario(doc, [summary!], [])).not.toContain('pass@');
  });
});

describe('statements of a body', () => {
  it('counts statements at every depth, not lines', () => {
    const count = (code: string): number => {
      const source = parseDocument('/x.ts', code);
      return statementCount(functionIn(source, 0, code.length)!.body);
    };
    expect(count('function f(a: number) {\n  return (\n    a * 2\n  );\n}')).toBe(1);
    expect(count('function f(xs: number[]) { for (const x of xs) { if (x) continue; } }')).toBe(3);
    expect(count('function f() {\n  ;\n  // a comment\n}')).toBe(0);
    expect(MIN_STATEMENTS).toBe(2);
  });
});

/** The fixture copied with node_modules linked, its scratch copy, and what the scenario reads of the environment. */
function setUp(): { scratch: ScratchCopy; build: BuildContext; scoring: ScoreContext; notes: string[] } {
  const repo = linkModules(copyFixture('eval-gen-repo'));
  cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
  const scratch = ScratchCopy.create(repo);
  cleanup.push(() => scratch.dispose());
  // Building and scoring read only the workspace and the oracle's test time limit from the environment.
  const env = { root: scratch.root, workspace: new Workspace(scratch.root), oracle: { runTests: false, testTimeoutMs: 60_000 } } as unknown as TaskEnvironment;
  const notes: string[] = [];
  return { scratch, notes, build: { scratch, env, eslint: undefined, note: (m) => notes.push(m) }, scoring: { scratch, env, eslint: undefined } };
}

describe('generate cases', () => {

  it('takes functions named in passing tests, with two or more statements, the body replaced by the comment', async () => {
    const { scratch, build, notes } = setUp();
    const before = treeHash(scratch.root);
    const cases = await generateScenario.buildCases(build, new AbortController().signal);
    expect(cases.map((c) => c.id).sort()).toEqual(['generate:src/math.ts:11:average', 'generate:src/math.ts:4:clamp', 'generate:src/units.ts:4:toCelsius', 'generate:src/words.ts:14:WordCounter.add', 'generate:src/words.ts:4:slugify']);
    const summary = notes.find((n) => n.startsWith('generate: 5 cases'))!;
    expect(summary).toContain('4 test files run on the original code');
    expect(summary).toContain('1 file whose tests fail before any change (src/ledger.test.ts)');
    expect(summary).toContain('1 file without a test file');
    expect(treeHash(scratch.root)).toBe(before);

    const add = cases.find((c) => c.target === 'method WordCounter.add')!;
    expect(add.text).toContain('  add(text: string): void {\n    // your code here\n  }\n');
    expect(add.originalBody).toMatch(/^\{\n {4}for \(const word of text\.split/);
    expect(add.parameters).toEqual({ mode: 'body' });
    expect(add.taskTarget).toMatchObject({ name: 'WordCounter.add', start: add.declaration.start });
    expect(add.testFile).toBe(path.join(scratch.root, 'src', 'words.test.ts'));
    expect(add.framework).toBe('vitest');
    // Everything but the body is the file as it is.
    const original = fs.readFileSync(add.fsPath, 'utf8');
    expect(add.text.replace('{\n    // your code here\n  }', add.originalBody)).toBe(original);
    // Covered only by a test file that imports it.
    expect(cases.find((c) => c.target === 'function toCelsius')!.testFile).toBe(path.join(scratch.root, 'src', 'conversions.test.ts'));
    expect(generateScenario.contextChars(add)).toBe(add.declaration.end - add.declaration.start);
  }, 60_000);

  it('scores a body in memory: the original passes the covering test, a wrong one fails it with the first failure lines, a broken one does not parse', async () => {
    const { scratch, build, scoring } = setUp();
    const cases = await generateScenario.buildCases(build, new AbortController().signal);
    const clamp = cases.find((c) => c.target === 'function clamp')!;
    const before = treeHash(scratch.root);
    const withBody = (evalCase: GenerateCase, body: string): CaseRun => {
      const start = evalCase.text.indexOf('{\n  // your code here\n}');
      const proposal = { documents: [{ uri: pathToUri(evalCase.fsPath), version: 1, baseText: evalCase.text, edits: [{ start, end: start + '{\n  // your code here\n}'.length, newText: body }] }], creates: [] };
      return { interactionId: 'i', response: undefined, proposal, oraclePassed: true, durationMs: 1 };
    };
    const signal = new AbortController().signal;
    const right = await generateScenario.score(scoring, clamp, withBody(clamp, clamp.originalBody), signal);
    expect(right).toMatchObject({ metrics: { syntax: 1, tests: 1 }, details: { testFile: 'src/math.test.ts', exitCode: 0 } });
    expect(right.failure).toBeUndefined();
    const wrong = await generateScenario.score(scoring, clamp, withBody(clamp, '{\n  return value;\n}'), signal);
    expect(wrong.metrics).toEqual({ syntax: 1, tests: 0 });
    expect(wrong.failure).toMatch(/^src\/math\.test\.ts fails with the generated body: FAIL src\/math\.test\.ts > clamp > keeps values inside the bounds \| AssertionError: expected -3 to be \+0/);
    expect(wrong.details).toMatchObject({ exitCode: 1, timedOut: false, failures: expect.arrayContaining([expect.stringContaining('AssertionError')]) });
    const broken = await generateScenario.score(scoring, clamp, withBody(clamp, '{\n  return (value;\n}'), signal);
    expect(broken).toMatchObject({ metrics: { syntax: 0, tests: 0 }, failure: expect.stringMatching(/^the edited file does not parse: TS1005/) });
    const none = await generateScenario.score(scoring, clamp, { interactionId: 'i', response: undefined, proposal: undefined, oraclePassed: undefined, failure: 'no answer: empty', durationMs: 1 }, signal);
    expect(none).toMatchObject({ metrics: { syntax: null, tests: 0 }, failure: 'no answer: empty' });
    // The scratch copy's files were never written: the bodies reached only the test runs' own copies.
    expect(treeHash(scratch.root)).toBe(before);
  }, 60_000);
});

describe('generate cases beyond the test-run cap', () => {
  it('runs at most the cap of test files while building, leaving the sources of the others out with a note saying so', async () => {
    const { build, notes } = setUp();
    // Test files in source order: ledger.test.ts and math.test.ts run; conversions.test.ts (units.ts) and words.test.ts do not.
    const cases = await generateScenario.buildCases({ ...build, maxBuildTestRuns: 2 }, new AbortController().signal);
    expect(cases.map((c) => c.id).sort()).toEqual(['generate:src/math.ts:11:average', 'generate:src/math.ts:4:clamp']);
    expect(notes).toContain('generate: running 2 test files on the original code, to keep the functions whose tests pass');
    expect(notes).toContain('generate: 2 cases (5 source files; 2 test files run on the original code; left out: 1 file without a test file; 1 file whose tests fail before any change (src/ledger.test.ts); 2 files beyond the 2 test files run while building cases)');
  }, 60_000);
});
