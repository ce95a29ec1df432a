// Unit tests of reading test runners' reports (captured vitest and node --test output, hand-written jest and mocha JSON), of failures as problems, and of the lint queue.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/lspClient.js';
import { parseJestJson, parseMochaJson, parseNodeTestTap, parseStackFrame, parseVitestDetails, parseVitestJson, toProblems, valuesFromMessage, withDetails } from '../../server/src/listeners/testReport.js';
import type { TestReport } from '../../server/src/listeners/testReport.js';
import { findSameProblem, LintQueue } from '../../server/src/listeners/lintQueue.js';
import type { LintQueueItem } from '../../server/src/listeners/lintQueue.js';
import type { Problem } from '../../server/src/listeners/projectTypeCheck.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';

/**
 * The reports in test/fixtures/listeners/reports: vitest's and node's captured from real runs in a scratch folder
 * (`/tmp/assistant-ls-tests-<id>/shop`), jest's and mocha's written by hand after their documented formats since
 * neither runner is installed here. Every path is read back as a path of the workspace `/home/dev/shop`.
 */
const reports = path.join(REPO_ROOT, 'test', 'fixtures', 'listeners', 'reports');
const report = (name: string): string => fs.readFileSync(path.join(reports, name), 'utf8');
const root = '/home/dev/shop';
const paths = (run: string) => ({ root, runRoots: [`/tmp/assistant-ls-tests-${run}/shop`] });
const at = (file: string, line: number, column: number) => ({ fsPath: `${root}/${file}`, line, column });

describe('parseVitestJson and the detail lines', () => {
  const json = parseVitestJson(report('vitest.json'), paths('Cap3v1'));
  const details = parseVitestDetails(report('vitest-details.jsonl'), paths('Cap3v1'));

  it('counts the tests, names failures by suite, and places each at its assertion in the workspace', () => {
    expect(json).toMatchObject({ passed: 1, failed: 5, skipped: 1 });
    expect(json.failures.map((f) => [f.kind, f.testName])).toEqual([
      ['file', 'src/broken.test.ts'],
      ['test', 'total > adds every item'],
      ['test', 'total > nested > keeps objects'],
      ['test', 'parses a price'],
      ['test', 'connects'],
    ]);
    expect(json.failures[0]).toEqual({ testFile: `${root}/src/broken.test.ts`, testName: 'src/broken.test.ts', kind: 'file', message: `Cannot find module './nope.js' imported from ${root}/src/broken.test.ts`, stack: [] });
    expect(json.failures[1]).toEqual({
      testFile: `${root}/src/price.test.ts`,
      testName: 'total > adds every item',
      kind: 'test',
      message: 'AssertionError: expected 5 to be 6 // Object.is equality',
      expected: '6',
      actual: '5',
      stack: [`at ${root}/src/price.test.ts:6:30`],
      location: at('src/price.test.ts', 6, 30),
      testLocation: at('src/price.test.ts', 5, 3),
    });
    // Thrown in the code under test: the stack keeps both workspace frames, the place is the test file's.
    expect(json.failures[3]).toMatchObject({ message: 'TypeError: not a price: 12,50', stack: [`at parsePrice (${root}/src/price.ts:9:34)`, `at ${root}/src/price.test.ts:20:10`], location: at('src/price.test.ts', 20, 10) });
  });

  it("reads chai's message for the values, and the detail lines' own values when they are there", () => {
    expect(json.failures[2]).toMatchObject({ expected: '{ a: 1, b: [ 1, 3 ] }', actual: '{ a: 1, b: [ 1, 2 ] }' });
    const merged = withDetails(json, details);
    expect(merged.failures[2]).toMatchObject({ expected: '{\n  "a": 1,\n  "b": [\n    1,\n    3,\n  ],\n}', actual: '{\n  "a": 1,\n  "b": [\n    1,\n    2,\n  ],\n}' });
    expect(merged.failures[3]?.expected).toBeUndefined();
  });

  it('tells from the detail lines of a stopped run what finished and what was still running', () => {
    expect(details).toMatchObject({ passed: 1, failed: 4, skipped: 1, unfinished: [] });
    const lines = report('vitest-details.jsonl').split('\n');
    // Killed while "keeps objects" ran, its result line half written.
    const cut = lines.findIndex((l) => l.includes('"result"') && l.includes('keeps objects'));
    const partial = parseVitestDetails([...lines.slice(0, cut), (lines[cut] as string).slice(0, 40)].join('\n'), paths('Cap3v1'));
    expect(partial).toMatchObject({ passed: 1, failed: 1, skipped: 1 });
    expect(partial.unfinished).toEqual([{ testFile: `${root}/src/price.test.ts`, testName: 'total > nested > keeps objects', testLocation: at('src/price.test.ts', 13, 5) }]);
  });
});

describe('parseJestJson (hand-written after the documented --json format)', () => {
  const parsed = parseJestJson(report('jest.json'), paths('Jx1'));

  it("counts pending and todo as skipped, takes the matcher's values, and strips colours", () => {
    expect(parsed).toMatchObject({ passed: 1, failed: 3, skipped: 2 });
    expect(parsed.failures[0]).toEqual({
      testFile: `${root}/src/sum.test.js`,
      testName: 'sum > adds every value',
      kind: 'test',
      message: 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 6\nReceived: 5',
      expected: '6',
      actual: '5',
      stack: [`at Object.toBe (${root}/src/sum.test.js:6:30)`],
      location: at('src/sum.test.js', 6, 30),
      testLocation: at('src/sum.test.js', 5, 3),
    });
    expect(parsed.failures[1]).toMatchObject({ testName: 'parses numbers', stack: [`at parse (${root}/src/sum.js:8:11)`, `at Object.<anonymous> (${root}/src/sum.test.js:16:10)`], location: at('src/sum.test.js', 16, 10) });
  });

  it('reports a suite that failed to run as a failure of the file', () => {
    expect(parsed.failures[2]).toEqual({ testFile: `${root}/src/broken.test.js`, testName: 'src/broken.test.js', kind: 'file', message: "Error: Cannot find module './nope' from 'src/broken.test.js'", stack: [`at Object.require (${root}/src/broken.test.js:1:23)`], location: at('src/broken.test.js', 1, 23) });
  });
});

describe('parseMochaJson (hand-written after the documented json reporter format)', () => {
  it("reads failures with mocha's stringified values, hooks included, at their place in the test file", () => {
    const parsed = parseMochaJson(report('mocha.json'), paths('Mo2'));
    expect(parsed).toMatchObject({ passed: 1, failed: 2, skipped: 1 });
    expect(parsed.failures).toEqual([
      {
        testFile: `${root}/test/sum.spec.js`,
        testName: 'math sum > adds every value',
        kind: 'test',
        message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n5 !== 6',
        expected: '6',
        actual: '5',
        stack: [`at Context.<anonymous> (${root}/test/sum.spec.js:7:14)`],
        location: at('test/sum.spec.js', 7, 14),
      },
      {
        testFile: `${root}/test/parse.spec.js`,
        testName: 'parse > "before each" hook for "parses numbers"',
        kind: 'test',
        message: 'Error: could not connect to postgres://admin:s3cr3tPassw0rd@db.internal:5432/shop',
        stack: [`at connect (${root}/src/db.js:4:9)`, `at Context.<anonymous> (${root}/test/parse.spec.js:6:5)`],
        location: at('test/parse.spec.js', 6, 5),
      },
    ]);
  });
});

describe('parseNodeTestTap', () => {
  const tap = report('node-test.tap');

  it('reads nested names, the YAML values (strings quoted, objects as YAML) and the summary counts', () => {
    const parsed = parseNodeTestTap(tap, paths('Nt4w2'));
    expect(parsed).toMatchObject({ passed: 2, failed: 6, skipped: 1 });
    expect(parsed.failures.map((f) => [f.testName, f.expected, f.actual])).toEqual([
      ['test/broken.test.js', undefined, undefined],
      ['total > adds every item', '6', '5'],
      ['total > nested > deep objects', 'a: 1\nb:\n  0: 1\n  1: 3', 'a: 1\nb:\n  0: 1\n  1: 2'],
      ['parse throws', undefined, undefined],
      ['connects', undefined, undefined],
      ['strings', '6', '"6"'],
    ]);
    expect(parsed.failures[1]).toEqual({
      testFile: `${root}/test/lib.test.js`,
      testName: 'total > adds every item',
      kind: 'test',
      message: 'AssertionError: Expected values to be strictly equal:\n\n5 !== 6',
      expected: '6',
      actual: '5',
      stack: [`at TestContext.<anonymous> (${root}/test/lib.test.js:7:12)`],
      location: at('test/lib.test.js', 7, 12),
      testLocation: at('test/lib.test.js', 6, 3),
    });
    expect(parsed.failures[3]).toMatchObject({ message: 'TypeError: empty input', stack: [`at parse (${root}/lib.js:7:20)`, `at TestContext.<anonymous> (${root}/test/lib.test.js:21:3)`], location: at('test/lib.test.js', 21, 3) });
  });

  it('reports a test file that did not load with the error it printed', () => {
    const [broken] = parseNodeTestTap(tap, paths('Nt4w2')).failures;
    expect(broken).toMatchObject({ testFile: `${root}/test/broken.test.js`, kind: 'file', message: `Error [ERR_MODULE_NOT_FOUND]: Cannot find module '${root}/nope.js' imported from ${root}/test/broken.test.js`, location: at('test/broken.test.js', 1, 1) });
    expect(broken?.stack[0]).toBe('at finalizeResolution (node:internal/modules/esm/resolve:283:11)');
  });

  it('counts the test points of a run stopped before its summary', () => {
    const cut = tap.slice(0, tap.indexOf('# Subtest: parse throws'));
    const parsed = parseNodeTestTap(cut, paths('Nt4w2'));
    expect(parsed).toMatchObject({ passed: 1, failed: 3, skipped: 1 });
    expect(parsed.failures.map((f) => f.testName)).toEqual(['test/broken.test.js', 'total > adds every item', 'total > nested > deep objects']);
  });
});

describe('report helpers', () => {
  it('reads expected and actual values from chai and jest messages only', () => {
    expect(valuesFromMessage('AssertionError: expected 300 to be 400 // Object.is equality')).toEqual({ expected: '400', actual: '300' });
    expect(valuesFromMessage("expected 'to be or not' to equal 'x'")).toEqual({ expected: "'x'", actual: "'to be or not'" });
    expect(valuesFromMessage('expect(received).toEqual(expected)\n\nExpected: "a"\nReceived: "b"')).toEqual({ expected: '"a"', actual: '"b"' });
    expect(valuesFromMessage('expected 5 not to be 5')).toEqual({});
    expect(valuesFromMessage('TypeError: x is not a function')).toEqual({});
  });

  it('parses the stack frame shapes of V8 and of node TAP', () => {
    expect(parseStackFrame('    at Object.toBe (/a/b.test.js:6:30)')).toEqual({ fn: 'Object.toBe', file: '/a/b.test.js', line: 6, column: 30 });
    expect(parseStackFrame('at /a/b.test.ts:6:30')).toEqual({ file: '/a/b.test.ts', line: 6, column: 30 });
    expect(parseStackFrame('at async run (file:///a/b.js:1:2)')).toEqual({ fn: 'run', file: 'file:///a/b.js', line: 1, column: 2 });
    expect(parseStackFrame('TestContext.<anonymous> (file:///a/b.js:7:12)')).toEqual({ fn: 'TestContext.<anonymous>', file: 'file:///a/b.js', line: 7, column: 12 });
    expect(parseStackFrame('at new Promise (<anonymous>)')).toBeUndefined();
  });
});

describe('toProblems', () => {
  const testText = [
    "import { describe, expect, it } from 'vitest';",
    "import { parsePrice, total } from './price.js';",
    '',
    "describe('total', () => {",
    "  it('adds every item', () => {",
    '    expect(total([1, 2, 3])).toBe(6);',
    '  });',
  ].join('\n');
  const texts: Record<string, string> = { [`${root}/src/price.test.ts`]: `${testText}\n${'\n'.repeat(11)}it('parses a price', () => {\n  expect(parsePrice('12,50')).toBe(12.5);\n});\n\nit('connects', () => {\n  throw new Error('…');\n});\n`, [`${root}/src/price.ts`]: `${'\n'.repeat(8)}  if (Number.isNaN(value)) throw new TypeError(\`not a price: \${text}\`);  \n` };
  const parsed = withDetails(parseVitestJson(report('vitest.json'), paths('Cap3v1')), parseVitestDetails(report('vitest-details.jsonl'), paths('Cap3v1')));
  const full: TestReport = { ...parsed, framework: 'vitest', command: 'vitest run', timedOut: false, exitCode: 1, output: '' };
  const problems = toProblems(full, { textOf: (p) => texts[p] });
  const testUri = pathToUri(`${root}/src/price.test.ts`);
  /** The length of a line's code (without trailing blanks) in one of the texts. */
  const codeEnd = (file: string, line: number): number => (texts[`${root}/${file}`]?.split('\n')[line] ?? '').trimEnd().length;

  it('puts each failure on its assertion line, from its column to the end of the code, with the values in the message', () => {
    expect(problems).toHaveLength(5);
    expect(problems[1]).toEqual({
      uri: testUri,
      fsPath: `${root}/src/price.test.ts`,
      range: { start: { line: 5, character: 29 }, end: { line: 5, character: codeEnd('src/price.test.ts', 5) } },
      message: 'total > adds every item: AssertionError: expected 5 to be 6 // Object.is equality\nexpected: 6\nactual: 5',
      severity: 1,
      source: 'vitest',
      related: [{ location: { uri: testUri, fsPath: `${root}/src/price.test.ts`, range: { start: { line: 4, character: 2 }, end: { line: 4, character: codeEnd('src/price.test.ts', 4) } } }, message: "the test 'total > adds every item'" }],
      data: { kind: 'test', testFile: `${root}/src/price.test.ts`, testName: 'total > adds every item', expected: '6', actual: '5', stack: [`at ${root}/src/price.test.ts:6:30`] },
    });
  });

  it('relates the other workspace frames of the stack, and places a file that failed to load at its start', () => {
    expect(problems[3]?.range.start).toEqual({ line: 19, character: 9 });
    expect(problems[3]?.related?.[0]).toEqual({ location: { uri: pathToUri(`${root}/src/price.ts`), fsPath: `${root}/src/price.ts`, range: { start: { line: 8, character: 33 }, end: { line: 8, character: codeEnd('src/price.ts', 8) } } }, message: 'called from parsePrice' });
    expect(codeEnd('src/price.ts', 8)).toBeLessThan((texts[`${root}/src/price.ts`] as string).split('\n')[8]?.length as number);
    expect(problems[3]?.related?.[1]?.message).toBe("the test 'parses a price'");
    expect(problems[0]).toMatchObject({ fsPath: `${root}/src/broken.test.ts`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: `src/broken.test.ts failed to run: Cannot find module './nope.js' imported from ${root}/src/broken.test.ts`, data: { kind: 'file' } });
  });

  it('redacts secrets the output quotes', () => {
    expect(problems[4]?.message).toContain('postgres://admin:[redacted:');
    expect(JSON.stringify(problems)).not.toContain('s3cr3tPassw0rd');
  });
});

function problem(file: string, line: number, code: string, message = `${code} here`): Problem {
  const fsPath = `/w/${file}`;
  return { uri: pathToUri(fsPath), fsPath, range: { start: { line, character: 2 }, end: { line, character: 6 } }, message, severity: 1, code, source: 'eslint' };
}

describe('LintQueue', () => {
  const problems = [problem('b.js', 3, 'prefer-const'), problem('a.js', 9, 'no-unused-vars'), problem('a.js', 1, 'eqeqeq'), problem('c.js', 0, 'no-var')];
  const order = (items: LintQueueItem[]): string[] => items.map((i) => `${path.basename(i.problem.fsPath)}:${i.problem.range.start.line}`);
  const never = new AbortController().signal;

  it('orders items by file and position and works through the selected ones one at a time, with progress', async () => {
    const queue = new LintQueue(problems);
    expect(order(queue.items())).toEqual(['a.js:1', 'a.js:9', 'b.js:3', 'c.js:0']);
    const ids = queue.items().map((i) => i.id);
    queue.select([ids[3] as string, ids[0] as string, ids[2] as string]);
    expect(queue.selection()).toEqual([ids[0], ids[2], ids[3]]);
    expect(() => queue.select(['nope'])).toThrow(RangeError);

    const seen: string[] = [];
    let active = 0;
    const progress: [number, number, string][] = [];
    const summary = await queue.run(
      async (item) => {
        active++;
        expect(active).toBe(1);
        seen.push(item.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        if (item.problem.code === 'no-var') throw new Error('the model gave up');
        return item.problem.code === 'prefer-const' ? { outcome: 'skipped', detail: 'no safe fix' } : { outcome: 'fixed' };
      },
      never,
      (done, total, itemId) => progress.push([done, total, itemId]),
    );
    expect(seen).toEqual([ids[0], ids[2], ids[3]]);
    expect(progress).toEqual([
      [0, 3, ids[0]],
      [1, 3, ids[2]],
      [2, 3, ids[3]],
    ]);
    expect(summary).toMatchObject({ total: 3, fixed: 1, skipped: 1, failed: 1, cancelled: 0, gone: 0 });
    expect(queue.items().map((i) => [i.outcome, i.detail])).toEqual([['fixed', undefined], [undefined, undefined], ['skipped', 'no safe fix'], ['failed', 'the model gave up']]);
  });

  it('marks items whose problem is gone on recheck, and works on the problem where it is now', async () => {
    const queue = new LintQueue(problems);
    const moved = { ...problems[0], range: { start: { line: 5, character: 2 }, end: { line: 5, character: 6 } } } as Problem;
    const worked: Problem[] = [];
    const summary = await queue.run(
      async (item) => {
        worked.push(item.problem);
        return { outcome: 'fixed' };
      },
      never,
      undefined,
      async (item) => (item.problem.code === 'eqeqeq' ? false : item.problem.code === 'prefer-const' ? moved : true),
    );
    expect(summary).toMatchObject({ total: 4, fixed: 3, gone: 1 });
    expect(summary.items.map((i) => i.outcome)).toEqual(['gone', 'fixed', 'fixed', 'fixed']);
    expect(worked.map((p) => p.range.start.line)).toEqual([9, 5, 0]);
    expect(findSameProblem(problems[0] as Problem, [problem('b.js', 30, 'prefer-const'), moved, problem('a.js', 3, 'prefer-const', 'prefer-const here')])).toBe(moved);
    expect(findSameProblem(problems[0] as Problem, [problem('b.js', 3, 'prefer-const', 'another message')])).toBeUndefined();
  });

  it('cancels the item in hand and the rest on abort, at once, and a later run resumes with them', async () => {
    const queue = new LintQueue(problems);
    const controller = new AbortController();
    const started: string[] = [];
    const summary = await queue.run(async (item, signal) => {
      started.push(item.id);
      if (started.length === 1) return { outcome: 'fixed' };
      controller.abort(new Error('stop'));
      // A fix that ignores the signal does not hold the run up.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return { outcome: signal.aborted ? 'cancelled' : 'fixed' };
    }, controller.signal);
    expect(started).toHaveLength(2);
    expect(summary).toMatchObject({ total: 4, fixed: 1, cancelled: 3 });
    expect(summary.items.map((i) => i.outcome)).toEqual(['fixed', 'cancelled', 'cancelled', 'cancelled']);

    const resumed = await queue.run(async () => ({ outcome: 'fixed' }), never);
    expect(resumed).toMatchObject({ total: 3, fixed: 3 });
    expect(queue.items().every((i) => i.outcome === 'fixed')).toBe(true);
  });

  it('refuses a second run while one is going', async () => {
    const queue = new LintQueue(problems);
    const first = queue.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { outcome: 'fixed' };
    }, never);
    await expect(queue.run(async () => ({ outcome: 'fixed' }), never)).rejects.toThrow('already running');
    await expect(first).resolves.toMatchObject({ fixed: 4 });
  });
});
