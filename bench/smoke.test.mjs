// Smoke check of `npm run bench`, run by node's own test runner after vitest: a quick run on a small generated project writes every section with numbers (no timing is asserted).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-test-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function runBench(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'bench', 'run.mjs'), ...args], { cwd: dir, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** A check that a value is a string holding `part`. */
const including = (part) => (value) => typeof value === 'string' && value.includes(part);

/** Whether `actual` has every property of `expected` with an equal value (deeply, for plain objects). */
function assertHas(actual, expected, message) {
  for (const [key, value] of Object.entries(expected)) {
    if (value instanceof Function) assert.ok(value(actual?.[key]), `${message ?? ''} ${key}`);
    else if (value !== null && typeof value === 'object') assertHas(actual?.[key], value, `${message ?? ''} ${key}`);
    else assert.equal(actual?.[key], value, `${message ?? ''} ${key}`);
  }
}

function expectStats(value, where) {
  const stats = value;
  assert.notEqual(stats, undefined, where);
  assert.ok(stats.n > 0, `${where}.n`);
  assert.equal(typeof stats.median, 'number', `${where}.median`);
  assert.equal(typeof stats.p99, 'number', `${where}.p99`);
  // Nearest-rank quantiles of one sorted list: they cannot cross.
  assert.ok(stats.p95 >= stats.median, `${where}.p95`);
  assert.ok(stats.p99 >= stats.p95, `${where}.p99`);
}

/** Every `error` left by a section that failed, with its path. */
function errorsIn(value, at = '') {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === 'error' ? [`${at}: ${String(inner)}`] : errorsIn(inner, `${at}.${key}`)));
}

describe('the bench client', () => {
  it('undoes an applied edit with one ranged change that gives back the text exactly', async () => {
    const client = await import(pathToFileURL(path.join(REPO_ROOT, 'bench', 'lspClient.mjs')).href);
    const original = 'export function a() {}\n\nexport function b() {\n  return 1;\n}\n';
    const cases = [
      [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, newText: '/**\n * B.\n */\n' }],
      [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '// head\n' }],
      [{ range: { start: { line: 3, character: 2 }, end: { line: 3, character: 11 } }, newText: '' }],
      [{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, newText: 'tail\n' }],
    ];
    for (const edits of cases) {
      const edited = client.applyTextEdits(original, edits).text;
      assert.notEqual(edited, original);
      const change = client.restoringChange(edited, original);
      assert.equal(client.applyTextEdits(edited, [{ range: change.range, newText: change.text }]).text, original);
      // Only the part that differs: never the whole text.
      assert.ok(change.text.length + (change.range.end.line - change.range.start.line) < original.length / 2);
    }
  });
});

describe('npm run bench -- --quick', () => {
  it('writes JSON with every section and prints the table', async () => {
    const json = path.join(dir, 'results.json');
    const { stdout } = await runBench(['--quick', '--project', 'synthetic', '--synthetic-lines', '2000', '--big-file-lines', '400', '--trace-sizes', '100,300', '--json', json]);
    assert.ok(stdout.includes('| measure (ms)'), '| measure (ms)');
    assert.ok(stdout.includes('| target'), '| target');
    const results = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.deepEqual(errorsIn(results), []);
    assert.equal(results.meta.mode, 'quick');
    for (const when of ['before', 'after']) assert.ok(results.meta.machineSpeed[when] > 0, `machine speed ${when}`);
    assert.match(stdout, /Machine speed \(a fixed parse, ms; lower is faster\): [\d.]+ at the start, [\d.]+ at the end; around each project: synthetic [\d.]+ → [\d.]+\./);
    assert.equal(results.projects.length, 1);
    const project = results.projects[0];
    for (const when of ['before', 'after']) assert.ok(project.machineSpeed[when] > 0, `the project's machine speed ${when}`);
    assert.ok(project.lines > 1_000);
    for (const server of ['assistant-ls', 'typescript-language-server']) {
      const lsp = project.lsp[server];
      expectStats(lsp.startup.initialize, `${server} initialize`);
      expectStats(lsp.startup.firstCodeAction, `${server} first code action`);
      expectStats(lsp.positions.codeAction, `${server} code actions`);
      assert.ok(lsp.positions.peakRssMB > 0);
      expectStats(lsp.afterEdits.codeAction, `${server} code actions after typing`);
      assert.equal(lsp.afterEdits.edits, results.meta.runs.edits);
      expectStats(lsp.duringPauses.codeAction, `${server} code actions during pauses in typing`);
      assert.equal(lsp.duringPauses.worstPerRound.length, results.meta.runs.pauses);
    }
    for (const key of ['initializeMedian', 'codeActionMedian', 'codeActionP95', 'codeActionP99', 'codeActionAfterEditMedian', 'codeActionAfterEditP99', 'codeActionDuringPausesP99', 'peakRss']) assert.equal(typeof project.lsp.ratios[key], 'number', key);
    expectStats(project.repositoryTools.build, 'tools index build');
    for (const tool of ['search_class', 'search_method', 'search_code', 'get_class_info', 'get_signature', 'get_method_body', 'get_imports', 'get_relevant_code']) {
      expectStats(project.repositoryTools[tool].warm, `${tool} warm`);
      assert.equal(typeof project.repositoryTools[tool].cold, 'number', `${tool} cold`);
      assert.ok(project.repositoryTools[tool].maxAnswerChars <= 4_000, `${tool} answer size`);
    }
    expectStats(project.repositoryTools.retrievalIndex.build, 'index build');
    expectStats(project.repositoryTools.retrievalIndex.query, 'index query');
    expectStats(project.oracle.cold, 'oracle cold');
    expectStats(project.oracle.warm, 'oracle warm');
    expectStats(project.orchestration.overhead, 'orchestration overhead');
    expectStats(project.orchestration.promptTokens, 'prompt tokens');
    // Where the overhead goes: one sample per measured task, the server's main thread busy for part of each.
    expectStats(project.orchestration.serverMainThreadCpu, 'server main-thread CPU per task');
    expectStats(project.orchestration.benchProcessCpu, 'bench process CPU per task');
    assert.equal(project.orchestration.serverMainThreadCpu.n, project.orchestration.tasks);
    assert.ok(project.orchestration.serverMainThreadCpu.min > 0);
    assert.ok(project.orchestration.serverMainThreadCpu.median <= project.orchestration.wall.max);
    assert.ok(project.orchestration.wholeFileTokens > 0);
    assert.ok(project.orchestration.applied > 0);
    // The same tasks right after typing: as many measured, each with its server CPU.
    assert.equal(project.orchestration.afterTyping.tasks, project.orchestration.tasks);
    expectStats(project.orchestration.afterTyping.overhead, 'orchestration overhead after typing');
    assert.equal(project.orchestration.afterTyping.serverMainThreadCpu.n, project.orchestration.afterTyping.tasks);
    assert.ok(stdout.includes('orchestration overhead per task right after typing'), 'orchestration overhead per task right after typing');
    // A fresh session's first answers on the large file, each against typescript-language-server's first code action.
    const first = project.firstResponses;
    assert.equal(first.file, project.largeFile.path);
    expectStats(first.tslsFirstCodeAction, 'typescript-language-server first code action');
    expectStats(first.documentTask.total, 'first Document task');
    assert.ok(first.documentTask.list.median < first.documentTask.total.median);
    expectStats(first.question.ask, 'first workspace question');
    assert.ok(first.question.locations > 0);
    assert.equal(first.ratios.documentTask, Math.round((first.documentTask.total.median / first.tslsFirstCodeAction.median) * 100) / 100);
    assert.deepEqual(first.targets, { documentTask: 0.15, question: 0.3 });
    for (const row of ['first offline Document task after opening a file ≤ 0.15×', 'first workspace question, cold index ≤ 0.3×']) {
      const target = results.targets.find((t) => t.target.startsWith(row));
      assertHas(target, { project: 'synthetic', unit: '×' }, row);
      assert.ok(['pass', 'FAIL'].includes(target.pass));
      assert.ok(stdout.includes(row), row);
    }
    assert.deepEqual(results.trace.map((t) => t.size), [100, 300]);
    for (const trace of results.trace) {
      expectStats(trace.append, 'trace append');
      expectStats(trace.queryByTask, 'trace query by task');
      expectStats(trace.queryByPosition, 'trace query by position');
      assert.equal(typeof trace.appendMaxStallMs, 'number');
      assert.ok(trace.peakRssMB > 0);
    }
    for (const key of ['repeated', 'newTarget', 'afterEdit', 'classify']) expectStats(results.context[key], `context ${key}`);
    // Inline completion: the server's own time, and typing at 10 cps with every model request answered or closed.
    expectStats(results.completion.ownTime, 'completion own time');
    assert.equal(results.completion.fileLines >= 5_000 - 1, true);
    for (const typing of [results.completion.typingOther, results.completion.typingThrough]) {
      assert.ok(typing.requests > 0 && typing.reachedModel <= typing.requests);
      assert.equal(typing.leftOpen, 0);
    }
    assert.ok(results.completion.typingThrough.reachedModel < results.completion.typingOther.reachedModel, 'typing through a suggestion is served from the cache');
    assert.equal(typeof results.hostile.askMegabyteSlowestMs, 'number');
    expectStats(results.hostile.codeActionBehindMegabyte, 'code action behind a megabyte request');
    assert.ok(results.hostile.storm.rssAfterMB > 0);
    assert.ok(results.targets.length > 5);
    for (const target of results.targets) assert.ok(['pass', 'FAIL', 'n/a'].includes(target.pass));
  });

  it('skips the first-response rows, with a note, on a project without the file named', async () => {
    const json = path.join(dir, 'skipped.json');
    const { stdout } = await runBench(['--quick', '--only', 'first', '--project', 'synthetic', '--synthetic-lines', '500', '--big-file-lines', '100', '--first-file', 'src/absent.ts', '--trace-sizes', '100', '--json', json]);
    const results = JSON.parse(fs.readFileSync(json, 'utf8'));
    assertHas(results.projects[0].firstResponses, { file: 'src/absent.ts', skipped: including('no src/absent.ts in ') });
    const rows = results.targets.filter((t) => t.target.startsWith('first '));
    assert.equal(rows.length, 2);
    for (const row of rows) assertHas(row, { value: null, pass: 'n/a', note: including('no src/absent.ts') });
    assert.ok(stdout.includes('— (no src/absent.ts in '), '— (no src/absent.ts in ');
  });

  it('refuses --first-file before any --project', async () => {
    await assert.rejects(runBench(['--first-file', 'src/a.ts']), (error) => error.message.includes('--first-file names a file of the --project given before it'));
  });
});
