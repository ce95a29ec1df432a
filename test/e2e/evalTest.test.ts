// End-to-end `assistant-ls eval --scenarios test` with the built CLI on a copy of test/fixtures/eval-test-repo: the offline test scaffold agent, then a model agent on the scripted endpoint; the repository is never written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptStep } from '../support/scriptedModel.js';
import type { EvalReport } from '../../server/src/eval/runner.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { RECORD_FIELDS, evalCli, treeHash } from '../support/evalSupport.js';

const OFFLINE = 'test-scaffold-offline';
const CASES = ['test:src/math.ts:4:clamp', 'test:src/math.ts:11:average', 'test:src/words.ts:9:slugify'];
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

/** A copy of the fixture with the dependencies "installed" (node_modules linked to this repository's). */
function fixtureRepository(): string {
  const root = linkModules(copyFixture('eval-test-repo'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

function outputFile(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-eval-test-out-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, name);
}

/** Every field the other scenarios' records have, consistent with each other. */
function expectComplete(record: EvalRecord): void {
  for (const field of RECORD_FIELDS) expect(record[field], `${record.caseId} ${record.agent}: ${field}`).not.toBeUndefined();
  expect(Object.keys(record).sort()).toEqual([...RECORD_FIELDS].sort());
  expect(record).toMatchObject({ scenario: 'test', sample: 0, proposed: true });
  expect(record.contextChars).toBeGreaterThan(0);
  expect(record.durationMs).toBeGreaterThanOrEqual(0);
  expect(record.attempts).toBeGreaterThanOrEqual(1);
  expect(Object.keys(record.metrics).sort()).toEqual(['syntax', 'tests']);
  if (record.status === 'passed') expect(record.failure).toBeNull();
  else expect(record.failure).toMatch(/\w/);
  expect(record.details).toMatchObject({ testFile: expect.stringMatching(/^src\/(math|words)\.test\.ts$/), appended: record.caseId.endsWith(':slugify') });
  if (record.isLLM) {
    expect(record.promptChars).toBeGreaterThan(0);
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.completionTokens).toBeGreaterThan(0);
  } else {
    expect(record.promptChars).toBeNull();
    expect(record.promptTokens).toBeNull();
  }
}

function readReport(json: string): EvalReport {
  return JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
}

describe('assistant-ls eval --scenarios test', () => {
  it('runs the offline test scaffold agent: its smoke tests pass on the original code, complete records, the repository untouched', async () => {
    const repo = fixtureRepository();
    const before = treeHash(repo);
    const json = outputFile('offline.json');
    const result = await evalCli([repo, '--scenarios', 'test', '--agents', OFFLINE, '--json', json], {});
    expect(result.code, result.stderr).toBe(0);
    expect(treeHash(repo)).toBe(before);
    expect(result.stderr).toContain('test: 3 cases (2 source files; left out: 4 functions of fewer than 2 statements; 1 function the Test task is not offered on (not exported); 1 generated and 0 minified files)');

    const report = readReport(json);
    expect(report.complete).toBe(true);
    const [scenario] = report.scenarios;
    expect(scenario).toMatchObject({ id: 'test', cases: 3, agents: [OFFLINE], primaryMetric: 'tests' });
    expect(scenario!.summary).toEqual([expect.objectContaining({ agent: OFFLINE, runs: 3, cases: 3, proposed: 1, metrics: { syntax: 1, tests: 1 }, passAtK: { '1': 1 } })]);
    expect(result.stdout).toMatch(/agent\s+runs\s+syntax correctness\s+generated-test pass rate\s+pass@1\s+proposed/);
    expect(result.stdout).toMatch(/test-scaffold-offline\s+3\s+100\.0%\s+100\.0%\s+100\.0%\s+100\.0%/);

    expect(report.records.map((r) => r.caseId).sort()).toEqual([...CASES].sort());
    for (const record of report.records) {
      expectComplete(record);
      // The scaffold's smoke call runs; its todos do not count as tests.
      expect(record).toMatchObject({ agent: OFFLINE, isLLM: false, model: null, status: 'passed', oraclePassed: true, attempts: 1, metrics: { syntax: 1, tests: 1 }, details: { tests: 1, exitCode: 0, timedOut: false, failures: [] } });
      expect(record.answer).toMatch(/\.todo\(/);
    }
    // Appended to the existing test file, whose own test ran with it.
    expect(report.records.find((r) => r.caseId.endsWith(':slugify'))).toMatchObject({ details: { testFile: 'src/words.test.ts', appended: true, command: 'vitest run src/words.test.ts --watch=false' } });
    expect(fs.existsSync(path.join(repo, 'src', 'math.test.ts'))).toBe(false);
  }, 60_000);

  it('scores a model agent on the scripted endpoint: one passing test file, one asserting a wrong value, one that never parses', async () => {
    const model = await startScriptedModel();
    cleanup.push(() => model.close());
    model.setDefault({ kind: 'dynamic', respond: scriptedTests });
    const repo = fixtureRepository();
    const before = treeHash(repo);
    const json = outputFile('model.json');
    const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
    const agent = `scripted-coder@${new URL(model.baseURL).host}`;

    const result = await evalCli([repo, '--scenarios', 'test', '--agents', agent, '--json', json], env);
    expect(result.code, result.stderr).toBe(0);
    expect(treeHash(repo)).toBe(before);

    const report = readReport(json);
    const [scenario] = report.scenarios;
    expect(scenario).toMatchObject({ id: 'test', cases: 3, agents: [agent] });
    // Syntax over the 3 proposals: 2/3 (slugify's never parses); generated-test pass rate over the 3 runs: 1/3 (clamp's).
    const summary = scenario!.summary[0]!;
    expect(summary).toMatchObject({ agent, runs: 3, cases: 3, proposed: 1 });
    expect(summary.metrics.syntax).toBeCloseTo(2 / 3, 12);
    expect(summary.metrics.tests).toBeCloseTo(1 / 3, 12);
    expect(summary.passAtK).toEqual({ '1': expect.closeTo(1 / 3, 12) });
    expect(result.stdout).toMatch(new RegExp(`${agent.replace(/[.]/g, '\\.')}\\s+3\\s+66\\.7%\\s+33\\.3%\\s+33\\.3%\\s+100\\.0%`));

    const records = report.records;
    expect(records.map((r) => r.caseId).sort()).toEqual([...CASES].sort());
    for (const record of records) {
      expectComplete(record);
      expect(record).toMatchObject({ agent, isLLM: true, model: 'scripted-coder' });
    }
    const byName = (name: string): EvalRecord => records.find((r) => r.caseId.endsWith(`:${name}`))!;
    expect(byName('clamp')).toMatchObject({ status: 'passed', oraclePassed: true, attempts: 1, metrics: { syntax: 1, tests: 1 }, failure: null, details: { testFile: 'src/math.test.ts', appended: false, tests: 2, exitCode: 0 } });
    const average = byName('average');
    expect(average).toMatchObject({ status: 'failed', oraclePassed: true, attempts: 1, metrics: { syntax: 1, tests: 0 }, details: { testFile: 'src/math.test.ts', exitCode: 1, timedOut: false } });
    expect(average.failure).toMatch(/^src\/math\.test\.ts fails on the original code: FAIL src\/math\.test\.ts > average > is the mean of the values \| AssertionError: expected 2 to be 3/);
    // The product refused the unparsable answer each time and asked again; the harness still scores what was written.
    const slugify = byName('slugify');
    expect(slugify).toMatchObject({ status: 'failed', oraclePassed: false, attempts: 3, metrics: { syntax: 0, tests: 0 }, details: { testFile: 'src/words.test.ts', appended: true } });
    expect(slugify.failure).toMatch(/^src\/words\.test\.ts does not parse: TS1005/);

    // What the model was asked: the function in its file, where the tests go, and that slugify's file exists.
    const prompts = model.requests.map(userMessage);
    expect(prompts.filter((p) => p.includes('Write the test file src/math.test.ts for the function `clamp`'))).toHaveLength(1);
    const slugifyPrompts = prompts.filter((p) => p.includes('Write the test file src/words.test.ts for the function `slugify`'));
    expect(slugifyPrompts).toHaveLength(3);
    expect(slugifyPrompts[0]).toContain('The test file exists already');
  }, 60_000);
});

function userMessage(request: RecordedRequest): string {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  return String(messages.find((m) => m.role === 'user')?.content ?? '');
}

/** Test files a model "writes" for the fixture's functions: right for clamp, a wrong expected value for average, and for slugify one that never parses. */
const TESTS: Record<string, string> = {
  clamp: `import { describe, expect, it } from 'vitest';
import { clamp } from './math.js';

describe('clamp', () => {
  it('returns the bound a value passes', () => {
    expect(clamp(-3, 0, 10)).toBe(0);
    expect(clamp(15, 0, 10)).toBe(10);
  });
  it('keeps a value inside the bounds', () => {
    expect(clamp(4, 0, 10)).toBe(4);
  });
});`,
  average: `import { describe, expect, it } from 'vitest';
import { average } from './math.js';

describe('average', () => {
  it('is the mean of the values', () => {
    expect(average([1, 2, 3])).toBe(3);
  });
});`,
  slugify: `import { describe, expect, it } from 'vitest';
import { slugify } from './words.js';

describe('slugify', () => {
  it('joins lowercase words with dashes', () => {
    expect(slugify('Hello World').toBe('hello-world');
  });
});`,
};

function scriptedTests(request: RecordedRequest): ScriptStep {
  const symbol = /Write the test file \S+ for the .+? `([^`]+)`/.exec(userMessage(request))?.[1] ?? '';
  const code = TESTS[symbol] ?? `import { it } from 'vitest';\nit('${symbol}', () => {});`;
  return { kind: 'text', content: `Here are the tests.\n\`\`\`typescript\n${code}\n\`\`\`` };
}
