// End-to-end `assistant-ls eval` with the built CLI on copies of test/fixtures/eval-repo and eval-gen-repo: offline agents, then model agents on the scripted endpoint (compared, resumed across runs, sampled for Pass@k); the repository is never written.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, copyFixture, linkModules } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptStep } from '../support/scriptedModel.js';
import type { EvalReport } from '../../server/src/eval/runner.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { RECORD_FIELDS, evalCli, treeHash } from '../support/evalSupport.js';

const BIN = path.join(REPO_ROOT, 'bin', 'assistant-ls.js');
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

/** A copy of the fixture, with the dependencies "installed" (node_modules linked to this repository's). */
function fixtureRepository(): string {
  const root = copyFixture('eval-repo');
  linkModules(root);
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

function outputDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-eval-out-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function expectComplete(record: EvalRecord): void {
  for (const field of RECORD_FIELDS) expect(record[field], `${record.caseId} ${record.agent}: ${field}`).not.toBeUndefined();
  expect(record.contextChars).toBeGreaterThan(0);
  expect(record.durationMs).toBeGreaterThanOrEqual(0);
  expect(record.attempts).toBeGreaterThanOrEqual(1);
  expect(Object.keys(record.metrics).sort()).toEqual(record.scenario === 'doc' ? ['agreement', 'contradiction', 'format', 'paramBare', 'paramRestatement', 'restatement', 'summaryRestatement', 'syntax'] : ['evasive', 'fix', 'syntax']);
  expect(record.metrics.syntax === null).toBe(!record.proposed);
  if (record.status === 'passed') expect(record.failure).toBeNull();
  else expect(record.failure).toMatch(/\w/);
  if (record.isLLM) {
    expect(record.promptChars).toBeGreaterThan(0);
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.completionTokens).toBeGreaterThan(0);
  } else {
    expect(record.promptChars).toBeNull();
    expect(record.promptTokens).toBeNull();
  }
}

describe('assistant-ls eval', () => {
  it('runs the workspace scenario from a questions file: MRR and keyword detection for the offline question agent', async () => {
    const repo = fixtureRepository();
    const json = path.join(outputDir(), 'workspace.json');
    const result = await evalCli([repo, '--scenarios', 'workspace', '--questions', path.join(repo, 'eval-questions.json'), '--json', json], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/1 entry of eval-questions\.json without a query/);
    expect(result.stderr).toMatch(/1 expected place not in the repository \(src\/missing\.ts\)/);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    const [workspace] = report.scenarios;
    expect(workspace).toMatchObject({ id: 'workspace', cases: 6 });
    const offline = workspace!.summary.find((a) => a.agent === 'question-offline')!;
    expect(offline.metrics.mrr).toBeGreaterThanOrEqual(0.75);
    expect(offline.metrics.keywords).toBeGreaterThanOrEqual(0.75);
    expect(result.stdout).toMatch(/mean reciprocal rank/);
    expect(result.stdout).toMatch(/question-offline\s+6\s+[01]\.\d{3}\s+[01]\.\d{3}\s+\d+\.\d%/);
    expect(offline.metrics.mrrForced).toBeGreaterThanOrEqual(offline.metrics.mrr!);
    const records = fs.readFileSync(`${json.replace(/\.json$/, '')}.records.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as EvalRecord);
    expect(records).toHaveLength(6);
    for (const record of records) expect(record.details).toMatchObject({ rank: expect.any(Number), locations: expect.any(Number), routedTo: expect.any(String) });
  });

  it('runs the repair scenario: defects put into the code, fixed back to the original by the offline agent, the repository untouched', async () => {
    const repo = fixtureRepository();
    const before = treeHash(repo);
    const json = path.join(outputDir(), 'repair.json');
    const result = await evalCli([repo, '--scenarios', 'repair', '--no-eslint', '--json', json], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/repair: \d+ cases \(\d+ defects tried in \d+ source files/);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    const [repair] = report.scenarios;
    expect(repair!.cases).toBeGreaterThanOrEqual(3);
    const offline = repair!.summary.find((a) => a.agent === 'fix-offline')!;
    // Misspelt names are the compiler's own spelling fixes: most come back exactly as they were.
    expect(offline.metrics.restored).toBeGreaterThan(0.5);
    expect(offline.metrics.fix).toBeGreaterThanOrEqual(offline.metrics.restored!);
    expect(result.stdout).toMatch(/Fixed per diagnostic code/);
    for (const record of report.records) expect(['misspelt member', 'misspelt name', 'dropped import']).toContain(record.details.defect);
    expect(treeHash(repo)).toBe(before);
  });

  it('runs the doc and fix scenarios offline: doc format and content metrics, a fix rate, complete records, the repository untouched', async () => {
    const repo = fixtureRepository();
    const before = treeHash(repo);
    const out = outputDir();
    const json = path.join(out, 'offline.json');
    const result = await evalCli([repo, '--scenarios', 'doc,fix,generate', '--json', json], {});
    expect(result.code, result.stderr).toBe(0);
    expect(treeHash(repo)).toBe(before);
    expect(result.stderr).toContain('generate: no agent serves the generate task; skipped');
    expect(result.stderr).toMatch(/eval: \d+\/\d+ .*done/);

    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    expect(report.complete).toBe(true);
    const [doc, fix] = report.scenarios;
    expect(doc).toMatchObject({ id: 'doc', agents: ['doc-offline'], summary: [{ agent: 'doc-offline', metrics: { syntax: 1, contradiction: 0 } }] });
    expect(doc!.cases).toBeGreaterThanOrEqual(15);
    // The offline agent declines where the code says nothing beyond the signature, and what it proposes adds to it.
    const offlineDoc = doc!.summary[0]!;
    expect(offlineDoc.proposed!).toBeGreaterThan(0.3);
    expect(offlineDoc.proposed!).toBeLessThan(1);
    expect(offlineDoc.metrics.restatement!).toBeLessThanOrEqual(0.15);
    expect(offlineDoc.metrics.format!).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/\(lower is better: restatement, summary restatement, @param restatement, contradicted;/);
    expect(fix).toMatchObject({ id: 'fix', agents: ['fix-offline'] });
    const fixRate = fix!.summary[0]!.metrics.fix!;
    expect(fixRate).toBeGreaterThan(0);
    expect(fixRate).toBeLessThan(1);
    expect(result.stdout).toMatch(new RegExp(`doc-offline\\s+\\d+\\s+100\\.0%\\s+${(offlineDoc.metrics.format! * 100).toFixed(1)}%`));
    expect(result.stdout).toContain(`fix-offline`);
    expect(result.stdout).toContain(`${(fixRate * 100).toFixed(1)}%`);
    // The fix rate per diagnostic code, whose fixed counts add up to the fix rate.
    const byCode = result.stdout.split('Fixed per diagnostic code')[1]?.split('\n\n')[0] ?? '';
    const fixedByCode = [...byCode.matchAll(/^(?:TS\d+|[\w@/-]+)\s+\d+\s+(\d+)\/\d+/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(fixedByCode).toBe(Math.round(fixRate * fix!.summary[0]!.runs));

    // Cases: long functions and methods only, the documented one without its comment; diagnostics but no import,
    // configuration, generated or minified ones; ESLint findings next to the compiler's.
    const records = report.records;
    expect(records.length).toBe(doc!.cases + fix!.cases);
    for (const record of records) expectComplete(record);
    const docIds = records.filter((r) => r.scenario === 'doc').map((r) => r.caseId);
    expect(docIds).toEqual(expect.arrayContaining(['doc:src/geometry.ts:24:Vector.scale', 'doc:src/geometry.ts:8:Vector.constructor', 'doc:src/geometry.ts:13:Vector.length', 'doc:src/geometry.ts:32:area']));
    expect(docIds.some((id) => id.includes('identity'))).toBe(false);
    expect(records.find((r) => r.caseId === 'doc:src/geometry.ts:32:area')?.details).toMatchObject({ hadDoc: true, human: { restates: false, contradictions: [] } });
    expect(records.find((r) => r.caseId === 'doc:src/math.ts:2:clamp')).toMatchObject({ proposed: true, metrics: { restatement: 0, contradiction: 0 } });
    expect(records.find((r) => r.caseId === 'doc:src/math.ts:2:clamp')?.answer).toContain('@returns `min` if `value < min`, `max` if `value > max`, otherwise `value`.');
    expect(records.find((r) => r.caseId === 'doc:src/geometry.ts:18:Vector.add')).toMatchObject({ proposed: false, failure: expect.stringMatching(/nothing true to add to the signature of Vector\.add/) });
    const fixIds = records.filter((r) => r.scenario === 'fix').map((r) => r.caseId);
    expect(fixIds).toEqual(expect.arrayContaining(['fix:src/text.ts:12:15:TS2551', 'fix:src/inventory.ts:17:16:TS2339', 'fix:src/inventory.ts:22:22:TS2552', 'fix:src/text.ts:16:9:TS2322', 'fix:src/inventory.ts:33:7:eslint:prefer-const', 'fix:src/inventory.ts:34:21:eslint:eqeqeq']));
    expect(fixIds.filter((id) => /TS2307|TS2305|TS2724|TS2584|generated|compact/.test(id))).toEqual([]);
    expect(records.find((r) => r.caseId === 'fix:src/text.ts:12:15:TS2551')).toMatchObject({ status: 'passed', answer: "Change spelling to 'length'", details: { typescript: { new: 0 } } });
    expect(records.find((r) => r.caseId === 'fix:src/text.ts:16:9:TS2322')).toMatchObject({ status: 'failed', proposed: false, metrics: { syntax: null, fix: 0 }, failure: expect.stringContaining('no code fix for TS2322') });
    // Syntax correctness is over proposals: the compiler's fixes are always well-formed.
    expect(fix!.summary[0]!.metrics.syntax).toBe(1);
    expect(report.notes.join('\n')).toMatch(/left out: 2 import and 1 configuration diagnostics/);

    // Records as they finished, and the run's own trace, next to the JSON; nothing in the repository.
    expect(fs.readFileSync(path.join(out, 'offline.records.jsonl'), 'utf8').trim().split('\n')).toHaveLength(records.length);
    expect(fs.existsSync(path.join(out, 'offline.trace'))).toBe(true);
    expect(fs.existsSync(path.join(repo, '.assistant'))).toBe(false);
  }, 60_000);

  it('evaluates a model agent on the scripted endpoint next to the offline agents, compares them, and resumes without repeating cases', async () => {
    const model = await startScriptedModel();
    cleanup.push(() => model.close());
    model.setDefault({ kind: 'dynamic', respond: scriptedAnswer });
    const repo = fixtureRepository();
    const before = treeHash(repo);
    const out = outputDir();
    const json = path.join(out, 'model.json');
    const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
    const agent = `scripted-coder@${new URL(model.baseURL).host}`;

    const first = await evalCli([repo, '--scenarios', 'doc,fix', '--limit', '2', '--json', json], env);
    expect(first.code, first.stderr).toBe(0);
    const firstReport = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    expect(firstReport.records.filter((r) => r.agent === agent)).toHaveLength(4);
    const firstSubjects = new Set(model.requests.map(subjectOf));
    const firstCount = model.requests.length;
    expect(firstCount).toBeGreaterThanOrEqual(4);

    const second = await evalCli([repo, '--scenarios', 'doc,fix', '--json', json], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming: 8 of \d+ runs already recorded/);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    // The cases of the first run were not asked again, and their records are the first run's.
    const secondRequests = model.requests.slice(firstCount);
    expect(secondRequests.filter((r) => firstSubjects.has(subjectOf(r)))).toEqual([]);
    for (const old of firstReport.records) expect(report.records.find((r) => r.key === old.key)).toEqual(old);
    const docCases = report.scenarios[0]!.cases;
    expect(secondRequests.filter((r) => subjectOf(r).startsWith('doc ')).length).toBe(docCases - 2);

    expect(treeHash(repo)).toBe(before);
    const [doc, fix] = report.scenarios;
    expect(doc!.agents).toEqual(['doc-offline', agent]);
    expect(fix!.agents).toEqual(['fix-offline', agent]);
    for (const record of report.records) expectComplete(record);

    // The model's doc comments are complete except the one that leaves out a parameter.
    const modelDoc = doc!.summary.find((s) => s.agent === agent)!;
    expect(modelDoc.metrics).toMatchObject({ syntax: 1, format: (docCases - 1) / docCases });
    expect(report.records.find((r) => r.agent === agent && r.caseId === 'doc:src/math.ts:2:clamp')).toMatchObject({ status: 'failed', metrics: { syntax: 1, format: 0 }, failure: 'no @param for max' });
    const format = doc!.comparisons.find((c) => c.metric === 'format')!;
    const offlineFormat = doc!.summary.find((s) => s.agent === 'doc-offline')!.metrics.format!;
    expect(format).toMatchObject({ a: 'doc-offline', b: agent, n: docCases });
    expect(format.meanA).toBeCloseTo(offlineFormat, 10);
    expect(format.difference).toBeCloseTo(offlineFormat - (docCases - 1) / docCases, 10);
    expect(format.interval[0]).toBeLessThanOrEqual(format.difference);
    expect(format.interval[1]).toBeGreaterThanOrEqual(format.difference);
    expect(second.stdout).toContain('Differences (A − B; percentage points for rates), paired bootstrap 95% interval over cases:');
    const points = (format.difference * 100).toFixed(1).replace('-', '−');
    expect(second.stdout).toMatch(new RegExp(`format correctness\\s+doc-offline\\s+${agent.replace(/[.]/g, '\\.')}\\s+${docCases}\\s+${format.difference >= 0 ? '\\+' : ''}${points}`));

    // The model fixes what the compiler cannot, except the bad fix the oracle sent back twice.
    const modelFix = fix!.summary.find((s) => s.agent === agent)!;
    const offlineFix = fix!.summary.find((s) => s.agent === 'fix-offline')!;
    expect(modelFix.metrics.fix!).toBeGreaterThan(offlineFix.metrics.fix!);
    const bad = report.records.find((r) => r.agent === agent && r.caseId === 'fix:src/inventory.ts:27:37:TS7006')!;
    expect(bad).toMatchObject({ status: 'failed', proposed: true, oraclePassed: false, attempts: 3, metrics: { syntax: 1, fix: 0 } });
    expect(bad.failure).toMatch(/new diagnostic/);
    expect(report.records.find((r) => r.agent === agent && r.caseId === 'fix:src/inventory.ts:33:7:eslint:prefer-const')).toMatchObject({ status: 'passed', details: { eslint: { new: 0 } } });
    expect(fix!.comparisons.map((c) => c.metric)).toEqual(['syntax', 'fix', 'evasive']);
  }, 60_000);

  it('stops on Ctrl-C keeping the finished cases, and the next run does only the rest', async () => {
    const model = await startScriptedModel();
    cleanup.push(() => model.close());
    // Each answer takes 150 ms (one streamed chunk), so the run is still going when it is interrupted.
    model.setDefault({ kind: 'dynamic', respond: (request) => ({ ...(scriptedAnswer(request) as { kind: 'text'; content: string }), chunkSize: 100_000, delayMs: 150 }) });
    const repo = fixtureRepository();
    const out = outputDir();
    const json = path.join(out, 'stopped.json');
    const records = path.join(out, 'stopped.records.jsonl');
    const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
    const agent = `scripted-coder@${new URL(model.baseURL).host}`;
    const args = [repo, '--scenarios', 'doc', '--agents', agent, '--json', json];

    const child = spawn(process.execPath, [BIN, 'eval', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = (): number => (fs.existsSync(records) ? fs.readFileSync(records, 'utf8').trim().split('\n').filter(Boolean).length : 0);
    for (let waited = 0; lines() < 3 && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain('eval: stopping; the finished cases are kept');
    const partial = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    expect(partial.complete).toBe(false);
    const kept = lines();
    expect(kept).toBeGreaterThanOrEqual(3);
    expect(partial.records).toHaveLength(kept);
    const cases = partial.scenarios[0]!.cases;
    expect(kept).toBeLessThan(cases);
    const asked = model.requests.length;

    const rest = await evalCli(args, env);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toContain(`resuming: ${kept} of ${cases} runs already recorded`);
    // The interrupted case (if one was in flight) is asked again; the finished ones are not.
    const done = new Set(partial.records.map((r) => `doc ${r.target.replace(/^\S+ /, '')}`));
    expect(model.requests.slice(asked).filter((r) => done.has(subjectOf(r)))).toEqual([]);
    expect(model.requests.length - asked).toBe(cases - kept);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    expect(report.complete).toBe(true);
    expect(report.records).toHaveLength(cases);
  }, 60_000);

  it('runs the generate scenario with two samples on the scripted endpoint: syntax correctness, test pass rate, pass@1 and pass@2, the repository untouched', async () => {
    const model = await startScriptedModel();
    cleanup.push(() => model.close());
    const generated = scriptedBodies();
    model.setDefault({ kind: 'dynamic', respond: generated.respond });
    const repo = copyFixture('eval-gen-repo');
    linkModules(repo);
    cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
    const before = treeHash(repo);
    const json = path.join(outputDir(), 'generate.json');
    const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
    const agent = `scripted-coder@${new URL(model.baseURL).host}`;

    const result = await evalCli([repo, '--scenarios', 'generate', '--samples', '2', '--jobs', '4', '--json', json], env);
    expect(result.code, result.stderr).toBe(0);
    expect(treeHash(repo)).toBe(before);
    expect(result.stderr).toMatch(/generate: 5 cases \(5 source files; 4 test files run on the original code; left out: 1 file without a test file; 1 file whose tests fail before any change \(src\/ledger\.test\.ts\)\)/);

    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    const [generate] = report.scenarios;
    expect(generate).toMatchObject({ id: 'generate', cases: 5, agents: [agent], primaryMetric: 'tests' });
    // Per case (2 samples): clamp and WordCounter.add pass twice, average once, slugify never, toCelsius never parses.
    // Syntax over the 10 proposals: 8/10. Tests over runs: 5/10. pass@1 = (1 + 1/2 + 0 + 1 + 0)/5; pass@2 = (1 + 1 + 0 + 1 + 0)/5.
    const summary = generate!.summary[0]!;
    expect(summary).toMatchObject({ agent, runs: 10, cases: 5, proposed: 1 });
    expect(summary.metrics.syntax).toBeCloseTo(0.8, 12);
    expect(summary.metrics.tests).toBeCloseTo(0.5, 12);
    expect(summary.passAtK).toEqual({ '1': expect.closeTo(0.5, 12), '2': expect.closeTo(0.6, 12) });
    expect(result.stdout).toMatch(/agent\s+runs\s+syntax correctness\s+test pass rate\s+pass@1\s+pass@2\s+proposed/);
    expect(result.stdout).toMatch(new RegExp(`${agent.replace(/[.]/g, '\\.')}\\s+10\\s+80\\.0%\\s+50\\.0%\\s+50\\.0%\\s+60\\.0%\\s+100\\.0%`));

    const records = report.records;
    expect(records).toHaveLength(10);
    expect(new Set(records.map((r) => r.caseId))).toEqual(new Set(['generate:src/math.ts:4:clamp', 'generate:src/math.ts:11:average', 'generate:src/words.ts:4:slugify', 'generate:src/words.ts:14:WordCounter.add', 'generate:src/units.ts:4:toCelsius']));
    const passes = (caseId: string): number => records.filter((r) => r.caseId.endsWith(caseId) && r.metrics.tests === 1).length;
    expect([passes(':clamp'), passes(':average'), passes(':slugify'), passes(':WordCounter.add'), passes(':toCelsius')]).toEqual([2, 1, 0, 2, 0]);
    for (const record of records) {
      expect(Object.keys(record.metrics).sort()).toEqual(['syntax', 'tests']);
      expect(record).toMatchObject({ isLLM: true, proposed: true, details: { testFile: expect.stringMatching(/^src\/\w+\.test\.ts$/) } });
      expect(record.promptTokens).toBeGreaterThan(0);
      if (record.status !== 'passed') expect(record.failure).toMatch(/\w/);
    }
    const wrong = records.find((r) => r.caseId.endsWith(':slugify'))!;
    expect(wrong).toMatchObject({ status: 'failed', oraclePassed: true, attempts: 1, metrics: { syntax: 1, tests: 0 } });
    expect(wrong.failure).toMatch(/^src\/words\.test\.ts fails with the generated body: FAIL src\/words\.test\.ts > slugify > lowercases and joins words with dashes \| AssertionError: expected '--hello,-world!-' to be 'hello-world'/);
    // The broken body: the product's oracle sent it back twice, and the last proposal is scored.
    const broken = records.find((r) => r.caseId.endsWith(':toCelsius'))!;
    expect(broken).toMatchObject({ status: 'failed', oraclePassed: false, attempts: 3, metrics: { syntax: 0, tests: 0 } });
    expect(broken.failure).toMatch(/^the edited file does not parse/);
    // The model saw each function with its body emptied, never the body itself.
    const averagePrompts = model.requests.map((r) => userMessage(r)).filter((m) => m.includes('Write the body of the function `average`'));
    expect(averagePrompts).toHaveLength(2);
    for (const prompt of averagePrompts) {
      expect(prompt).toContain('// your code here');
      expect(prompt).not.toContain('total / values.length');
    }
  }, 60_000);

  it('says no agent serves the generate scenario when only offline agents exist, running no test', async () => {
    const repo = copyFixture('eval-gen-repo');
    cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
    const result = await evalCli([repo, '--scenarios', 'generate'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('generate: no agent serves the generate task; skipped');
    expect(result.stderr).not.toContain('generate: running');
    expect(result.stdout).toContain('Nothing was run.');
  });
});

/** What a model request is about: `doc <symbol>` or `fix <file>:<line>: <diagnostic>`. */
function subjectOf(request: RecordedRequest): string {
  const user = String((request.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content ?? '');
  const doc = /Write the JSDoc comment for the .+? `([^`]+)`/.exec(user);
  if (doc) return `doc ${doc[1]}`;
  const fix = /Fix this diagnostic in (\S+):\nline (\d+): (.+)/.exec(user);
  return fix ? `fix ${fix[1]}:${fix[2]}: ${fix[3]}` : 'other';
}

/** Fixes a model "knows" for the fixture's declarations (the last one is wrong: it adds an error). */
const FIXES: Array<[string, string]> = [
  ['text.lenght', 'text.length'],
  ["const padding: number = ' ';", "const padding: string = ' ';"],
  ['const items = loadItems();', 'const items = await loadItems();'],
  ['let label = item.name;', 'const label = item.name;'],
  ['item.quantity == 0', 'item.quantity === 0'],
  ['this.itemCount()', 'this.items.length'],
  ['discount) {', 'discount: string) {'],
];

/** The scripted model: a doc comment built from the code it is shown (one with a parameter left out), or the code with known fixes applied. */
function scriptedAnswer(request: RecordedRequest): ScriptStep {
  const user = String((request.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content ?? '');
  const code = /```typescript\n([\s\S]*?)\n```/.exec(user)?.[1] ?? '';
  const subject = subjectOf(request);
  if (subject.startsWith('doc ')) {
    const symbol = subject.slice(4);
    const { parameters, returns } = signatureOf(code, symbol);
    const documented = symbol === 'clamp' ? parameters.slice(0, -1) : parameters;
    const lines = ['/**', ` * Handles ${symbol}.`, ' *', ...documented.map((p) => ` * @param ${p} - The ${p}.`), ...(returns ? [' * @returns The result.'] : []), ' */'];
    return { kind: 'text', content: lines.join('\n') };
  }
  let fixed = code;
  if (/\bclamp\(/.test(code) && !code.includes('function clamp')) fixed = `import { clamp } from './math.js';\n${code}`;
  for (const [from, to] of FIXES) fixed = fixed.split(from).join(to);
  return { kind: 'text', content: `Here is the fix.\n\`\`\`typescript\n${fixed}\n\`\`\`` };
}

/** Parameter names (destructured ones as `options`) and whether a value is returned, read from a declaration's first lines. */
function signatureOf(code: string, symbol: string): { parameters: string[]; returns: boolean } {
  const open = code.indexOf('(');
  let depth = 0;
  let close = open;
  for (let i = open; i < code.length; i++) {
    if ('([{'.includes(code[i]!)) depth++;
    if (')]}'.includes(code[i]!)) depth--;
    if (depth === 0) {
      close = i;
      break;
    }
  }
  const parts: string[] = [];
  let current = '';
  depth = 0;
  for (const char of code.slice(open + 1, close)) {
    if ('([{<'.includes(char)) depth++;
    if (')]}>'.includes(char)) depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  const parameters = parts
    .map((p) => p.trim().replace(/^(readonly|private|public|protected)\s+/, ''))
    .filter((p) => p !== '' && !p.startsWith('this'))
    .map((p) => (/^[{[]/.test(p) ? 'options' : (/^(?:\.\.\.)?([\w$]+)/.exec(p)?.[1] ?? 'value')));
  const annotation = /^\s*:\s*([^{=]+?)\s*(?:=>\s*)?\{/.exec(code.slice(close + 1))?.[1]?.trim();
  const returns = !symbol.endsWith('constructor') && !/^\s*(?:export\s+)?set\s/.test(code) && annotation !== 'void' && annotation !== 'Promise<void>';
  return { parameters, returns };
}

function userMessage(request: RecordedRequest): string {
  return String((request.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content ?? '');
}

/**
 * The scripted model of the generate scenario: the function it is shown with its placeholder replaced by a body it
 * "knows": right for clamp and WordCounter.add, right on the first request for average and wrong after, wrong but
 * well-typed for slugify, and for toCelsius one that does not parse.
 */
function scriptedBodies(): { respond: (request: RecordedRequest) => ScriptStep } {
  const right: Record<string, string[]> = {
    clamp: ['if (value < min) return min;', 'if (value > max) return max;', 'return value;'],
    average: ['if (values.length === 0) return 0;', 'const total = values.reduce((sum, v) => sum + v, 0);', 'return total / values.length;'],
    'WordCounter.add': ['for (const word of text.split(/\\s+/)) {', '  if (word === \'\') continue;', '  this.counts.set(word, (this.counts.get(word) ?? 0) + 1);', '}'],
  };
  const wrong: Record<string, string[]> = {
    average: ['const total = values.reduce((sum, v) => sum + v, 0);', 'return total;'],
    slugify: ['const lower = title.toLowerCase();', "return lower.split(' ').join('-');"],
    toCelsius: ['const celsius = ((fahrenheit - 32) * 5) / 9;', 'return Math.round(celsius * 10 / 10;'],
  };
  const asked = new Map<string, number>();
  return {
    respond(request) {
      const user = userMessage(request);
      const symbol = /Write the body of the .+? `([^`]+)`/.exec(user)?.[1] ?? '';
      const code = /```typescript\n([\s\S]*?)\n```/.exec(user)?.[1] ?? '';
      // Only average's answer depends on the count, and its answers type-check, so the product never asks it again.
      const n = (asked.get(symbol) ?? 0) + 1;
      asked.set(symbol, n);
      const body = symbol === 'average' ? (n === 1 ? right.average : wrong.average) : (right[symbol] ?? wrong[symbol] ?? ['return undefined as never;']);
      const filled = code.replace(/^([ \t]*)\/\/ your code here$/m, (_line, indent: string) => body!.map((l) => `${indent}${l}`).join('\n'));
      return { kind: 'text', content: `Here is the body.\n\`\`\`typescript\n${filled}\n\`\`\`` };
    },
  };
}
