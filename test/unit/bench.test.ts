// Smoke test of `npm run bench`: a quick run on a small generated project writes every section with numbers (no timing is asserted).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/lspClient.js';

interface Stats {
  n: number;
  median: number;
  p95: number;
  p99: number;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function runBench(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'bench', 'run.mjs'), ...args], { cwd: dir, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

function expectStats(value: unknown, where: string): void {
  const stats = value as Stats | undefined;
  expect(stats, where).toBeDefined();
  expect(stats!.n, `${where}.n`).toBeGreaterThan(0);
  expect(typeof stats!.median, `${where}.median`).toBe('number');
  expect(typeof stats!.p99, `${where}.p99`).toBe('number');
  // Nearest-rank quantiles of one sorted list: they cannot cross.
  expect(stats!.p95, `${where}.p95`).toBeGreaterThanOrEqual(stats!.median);
  expect(stats!.p99, `${where}.p99`).toBeGreaterThanOrEqual(stats!.p95);
}

/** Every `error` left by a section that failed, with its path. */
function errorsIn(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => (key === 'error' ? [`${at}: ${String(inner)}`] : errorsIn(inner, `${at}.${key}`)));
}

describe('the bench client', () => {
  it('undoes an applied edit with one ranged change that gives back the text exactly', async () => {
    type Range = { start: { line: number; character: number }; end: { line: number; character: number } };
    const client = (await import(pathToFileURL(path.join(REPO_ROOT, 'bench', 'lspClient.mjs')).href)) as {
      applyTextEdits: (text: string, edits: { range: Range; newText: string }[]) => { text: string };
      restoringChange: (current: string, target: string) => { range: Range; text: string };
    };
    const original = 'export function a() {}\n\nexport function b() {\n  return 1;\n}\n';
    const cases = [
      [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, newText: '/**\n * B.\n */\n' }],
      [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '// head\n' }],
      [{ range: { start: { line: 3, character: 2 }, end: { line: 3, character: 11 } }, newText: '' }],
      [{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, newText: 'tail\n' }],
    ];
    for (const edits of cases) {
      const edited = client.applyTextEdits(original, edits).text;
      expect(edited).not.toBe(original);
      const change = client.restoringChange(edited, original);
      expect(client.applyTextEdits(edited, [{ range: change.range, newText: change.text }]).text).toBe(original);
      // Only the part that differs: never the whole text.
      expect(change.text.length + (change.range.end.line - change.range.start.line)).toBeLessThan(original.length / 2);
    }
  });
});

describe('npm run bench -- --quick', () => {
  it('writes JSON with every section and prints the table', async () => {
    const json = path.join(dir, 'results.json');
    const { stdout } = await runBench(['--quick', '--project', 'synthetic', '--synthetic-lines', '2000', '--big-file-lines', '400', '--trace-sizes', '100,300', '--json', json]);
    expect(stdout).toContain('| measure (ms)');
    expect(stdout).toContain('| target');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the results are plain JSON, checked field by field.
    const results = JSON.parse(fs.readFileSync(json, 'utf8')) as any;
    expect(errorsIn(results)).toEqual([]);
    expect(results.meta.mode).toBe('quick');
    for (const when of ['before', 'after']) expect(results.meta.machineSpeed[when], `machine speed ${when}`).toBeGreaterThan(0);
    expect(stdout).toMatch(/Machine speed \(a fixed parse, ms; lower is faster\): [\d.]+ at the start, [\d.]+ at the end; around each project: synthetic [\d.]+ → [\d.]+\./);
    expect(results.projects).toHaveLength(1);
    const project = results.projects[0];
    for (const when of ['before', 'after']) expect(project.machineSpeed[when], `the project's machine speed ${when}`).toBeGreaterThan(0);
    expect(project.lines).toBeGreaterThan(1_000);
    for (const server of ['assistant-ls', 'typescript-language-server']) {
      const lsp = project.lsp[server];
      expectStats(lsp.startup.initialize, `${server} initialize`);
      expectStats(lsp.startup.firstCodeAction, `${server} first code action`);
      expectStats(lsp.positions.codeAction, `${server} code actions`);
      expect(lsp.positions.peakRssMB).toBeGreaterThan(0);
      expectStats(lsp.afterEdits.codeAction, `${server} code actions after typing`);
      expect(lsp.afterEdits.edits).toBe(results.meta.runs.edits);
      expectStats(lsp.duringPauses.codeAction, `${server} code actions during pauses in typing`);
      expect(lsp.duringPauses.worstPerRound).toHaveLength(results.meta.runs.pauses);
    }
    for (const key of ['initializeMedian', 'codeActionMedian', 'codeActionP95', 'codeActionP99', 'codeActionAfterEditMedian', 'codeActionAfterEditP99', 'codeActionDuringPausesP99', 'peakRss']) expect(typeof project.lsp.ratios[key], key).toBe('number');
    expectStats(project.repositoryTools.build, 'tools index build');
    for (const tool of ['search_class', 'search_method', 'search_code', 'get_class_info', 'get_signature', 'get_method_body', 'get_imports', 'get_relevant_code']) {
      expectStats(project.repositoryTools[tool].warm, `${tool} warm`);
      expect(typeof project.repositoryTools[tool].cold, `${tool} cold`).toBe('number');
      expect(project.repositoryTools[tool].maxAnswerChars, `${tool} answer size`).toBeLessThanOrEqual(4_000);
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
    expect(project.orchestration.serverMainThreadCpu.n).toBe(project.orchestration.tasks);
    expect(project.orchestration.serverMainThreadCpu.min).toBeGreaterThan(0);
    expect(project.orchestration.serverMainThreadCpu.median).toBeLessThanOrEqual(project.orchestration.wall.max);
    expect(project.orchestration.wholeFileTokens).toBeGreaterThan(0);
    expect(project.orchestration.applied).toBeGreaterThan(0);
    // The same tasks right after typing: as many measured, each with its server CPU.
    expect(project.orchestration.afterTyping.tasks).toBe(project.orchestration.tasks);
    expectStats(project.orchestration.afterTyping.overhead, 'orchestration overhead after typing');
    expect(project.orchestration.afterTyping.serverMainThreadCpu.n).toBe(project.orchestration.afterTyping.tasks);
    expect(stdout).toContain('orchestration overhead per task right after typing');
    // A fresh session's first answers on the large file, each against typescript-language-server's first code action.
    const first = project.firstResponses;
    expect(first.file).toBe(project.largeFile.path);
    expectStats(first.tslsFirstCodeAction, 'typescript-language-server first code action');
    expectStats(first.documentTask.total, 'first Document task');
    expect(first.documentTask.list.median).toBeLessThan(first.documentTask.total.median);
    expectStats(first.question.ask, 'first workspace question');
    expect(first.question.locations).toBeGreaterThan(0);
    expect(first.ratios.documentTask).toBe(Math.round((first.documentTask.total.median / first.tslsFirstCodeAction.median) * 100) / 100);
    expect(first.targets).toEqual({ documentTask: 0.15, question: 0.3 });
    for (const row of ['first offline Document task after opening a file ≤ 0.15×', 'first workspace question, cold index ≤ 0.3×']) {
      const target = results.targets.find((t: { target: string }) => t.target.startsWith(row));
      expect(target, row).toMatchObject({ project: 'synthetic', unit: '×' });
      expect(['pass', 'FAIL']).toContain(target.pass);
      expect(stdout).toContain(row);
    }
    expect(results.trace.map((t: { size: number }) => t.size)).toEqual([100, 300]);
    for (const trace of results.trace) {
      expectStats(trace.append, 'trace append');
      expectStats(trace.queryByTask, 'trace query by task');
      expectStats(trace.queryByPosition, 'trace query by position');
      expect(typeof trace.appendMaxStallMs).toBe('number');
      expect(trace.peakRssMB).toBeGreaterThan(0);
    }
    expect(results.targets.length).toBeGreaterThan(5);
    for (const target of results.targets) expect(['pass', 'FAIL', 'n/a']).toContain(target.pass);
  }, 250_000);

  it('skips the first-response rows, with a note, on a project without the file named', async () => {
    const json = path.join(dir, 'skipped.json');
    const { stdout } = await runBench(['--quick', '--only', 'first', '--project', 'synthetic', '--synthetic-lines', '500', '--big-file-lines', '100', '--first-file', 'src/absent.ts', '--trace-sizes', '100', '--json', json]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the results are plain JSON, checked field by field.
    const results = JSON.parse(fs.readFileSync(json, 'utf8')) as any;
    expect(results.projects[0].firstResponses).toMatchObject({ file: 'src/absent.ts', skipped: expect.stringContaining('no src/absent.ts in ') });
    const rows = results.targets.filter((t: { target: string }) => t.target.startsWith('first '));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ value: null, pass: 'n/a', note: expect.stringContaining('no src/absent.ts') });
    expect(stdout).toContain('— (no src/absent.ts in ');
  }, 60_000);

  it('refuses --first-file before any --project', async () => {
    await expect(runBench(['--first-file', 'src/a.ts'])).rejects.toThrow('--first-file names a file of the --project given before it');
  });
});
