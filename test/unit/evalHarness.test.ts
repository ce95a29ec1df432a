// Unit tests for the harness's machinery: the scratch copy (the original never written), resumable records, the command line, progress lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScratchCopy } from '../../server/src/eval/scratch.js';
import { RecordStore, serverBuild, writeFileAtomically } from '../../server/src/eval/records.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { parseEvalArguments } from '../../server/src/eval/cli.js';
import { EVAL_PACKAGES } from '../../server/src/eval/evalSets.js';
import { questionsOf } from '../../server/src/eval/questions/questionSet.js';
import type { QuestionSets } from '../../server/src/eval/questions/questionSet.js';
import { EvalUsageError } from '../../server/src/eval/runner.js';
import { Progress } from '../../server/src/eval/progress.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function repository(): string {
  const root = tempDir('eval-repo-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: main\n');
  fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(root, 'tsconfig.json'), '{\n  // comment\n  "compilerOptions": { "strict": false, },\n  "include": ["src"]\n}\n');
  return root;
}

function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(root, full), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return out;
}

describe('scratch copy', () => {
  it('copies the repository without .git, links node_modules, and turns compiler flags on in the copy only', () => {
    const root = repository();
    const before = snapshot(root);
    const scratch = ScratchCopy.create(root, { strictFlags: ['strict', 'noUnusedLocals'] });
    cleanup.push(() => scratch.dispose());
    expect(scratch.root).not.toBe(root);
    expect(fs.readFileSync(path.join(scratch.root, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(fs.existsSync(path.join(scratch.root, '.git'))).toBe(false);
    expect(fs.lstatSync(path.join(scratch.root, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(scratch.root, 'node_modules', 'dep', 'index.js'), 'utf8')).toContain('module.exports');
    const config = JSON.parse(fs.readFileSync(path.join(scratch.root, 'tsconfig.json'), 'utf8'));
    expect(config).toEqual({ compilerOptions: { strict: true, noUnusedLocals: true }, include: ['src'] });
    scratch.dispose();
    expect(snapshot(root)).toEqual(before);
    expect(fs.existsSync(path.join(root, 'node_modules', 'dep', 'index.js'))).toBe(true);
  });

  it('applies a proposal, reads the files back, restores the copy, and refuses paths outside it', () => {
    const root = repository();
    const scratch = ScratchCopy.create(root);
    cleanup.push(() => scratch.dispose());
    const file = path.join(scratch.root, 'src', 'a.ts');
    const created = path.join(scratch.root, 'src', 'new', 'b.ts');
    const result = scratch.applyAndReadBack({
      documents: [{ uri: pathToUri(file), version: 1, baseText: 'export const a = 1;\n', edits: [{ start: 17, end: 18, newText: '2' }] }],
      creates: [{ uri: pathToUri(created), text: 'export const b = 2;\n' }],
    });
    expect(result).toMatchObject({ ok: true, files: [{ fsPath: file, after: 'export const a = 2;\n', created: false }, { fsPath: created, before: undefined, after: 'export const b = 2;\n', created: true }] });
    // Restored at once.
    expect(fs.readFileSync(file, 'utf8')).toBe('export const a = 1;\n');
    expect(fs.existsSync(path.join(scratch.root, 'src', 'new'))).toBe(false);

    const outside = (uri: string): ReturnType<ScratchCopy['applyAndReadBack']> => scratch.applyAndReadBack({ documents: [{ uri, version: null, baseText: '', edits: [{ start: 0, end: 0, newText: 'x' }] }], creates: [] });
    expect(outside(pathToUri(path.join(root, 'src', 'a.ts')))).toMatchObject({ ok: false, reason: expect.stringContaining('outside the repository') });
    expect(outside(pathToUri(path.join(scratch.root, 'node_modules', 'dep', 'index.js')))).toMatchObject({ ok: false, reason: expect.stringContaining('node_modules') });
    fs.symlinkSync(os.tmpdir(), path.join(scratch.root, 'escape'));
    expect(outside(pathToUri(path.join(scratch.root, 'escape', 'x.ts')))).toMatchObject({ ok: false, reason: expect.stringContaining('symlink') });
    expect(scratch.applyAndReadBack({ documents: [], creates: [{ uri: pathToUri(file), text: 'x' }] })).toMatchObject({ ok: false, reason: expect.stringContaining('exists') });
    expect(fs.readFileSync(path.join(root, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
  });
});

describe('record store', () => {
  it('keys records by the build that ran: a rebuilt code file is another build', () => {
    const file = path.join(tempDir('eval-build-'), 'bundle.mjs');
    fs.writeFileSync(file, 'export {};\n');
    fs.utimesSync(file, new Date(2026, 0, 1), new Date(2026, 0, 1));
    const before = serverBuild(file);
    expect(serverBuild(file)).toBe(before);
    fs.writeFileSync(file, 'export const x = 1;\n');
    expect(serverBuild(file)).not.toBe(before);
    expect(serverBuild()).toMatch(/^\d+:\d+$/);
  });


  it('appends one line per record, reads them back by key, and ignores a torn last line', () => {
    const dir = tempDir('eval-records-');
    const file = RecordStore.fileFor(path.join(dir, 'out', 'results.json'));
    expect(file).toBe(path.join(dir, 'out', 'results.records.jsonl'));
    const store = RecordStore.open(file);
    const record = { key: 'k1', metrics: { format: 1 } } as unknown as EvalRecord;
    store.add(record);
    store.add({ ...record, key: 'k2' });
    fs.appendFileSync(file, '{"key":"k3","metr');
    const again = RecordStore.open(file);
    expect(again.get('k1')).toEqual(record);
    expect(again.get('k2')).toBeDefined();
    expect(again.get('k3')).toBeUndefined();
    expect(RecordStore.open(undefined).get('k1')).toBeUndefined();
    writeFileAtomically(path.join(dir, 'out', 'r.json'), '{}\n');
    expect(fs.readdirSync(path.join(dir, 'out')).sort()).toEqual(['r.json', 'results.records.jsonl']);
  });
});

describe('command line', () => {
  it('reads every option, with values inline or separate, and defaults', () => {
    const parsed = parseEvalArguments(['repo', '--scenarios', 'doc,fix', '--agents=doc-offline,gpt', '--limit', '5', '--samples=3', '--seed', '0', '--jobs', '2', '--json', 'out.json', '--strict-flags', '--no-eslint', '--attempts', '1', '--keep-scratch']);
    expect(parsed).toEqual({
      help: false,
      options: { repository: 'repo', scenarios: ['doc', 'fix'], agents: ['doc-offline', 'gpt'], limit: 5, samples: 3, seed: 0, jobs: 2, json: 'out.json', eslint: false, strictFlags: ['strict', 'noUnusedLocals', 'noUnusedParameters', 'noImplicitReturns', 'noFallthroughCasesInSwitch', 'noImplicitOverride'], attempts: 1, keepScratch: true },
    });
    expect(parseEvalArguments(['repo', '--strict-flags=noUnusedLocals'])).toMatchObject({ options: { strictFlags: ['noUnusedLocals'], scenarios: ['doc', 'fix', 'workspace'], samples: 1, seed: 1, jobs: 1, eslint: true } });
    expect(parseEvalArguments(['repo', '--questions', 'q.json'])).toMatchObject({ options: { questions: path.resolve('q.json') } });
    expect(parseEvalArguments(['--help'])).toEqual({ help: true });
    expect(parseEvalArguments(['repo', '--settings', 's.json'])).toMatchObject({ settingsFile: 's.json' });
  });

  it('rejects mistakes with a reason', () => {
    const mistake = (argv: string[]): string => {
      try {
        parseEvalArguments(argv);
      } catch (error) {
        expect(error).toBeInstanceOf(EvalUsageError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(mistake([])).toContain('which repository');
    expect(mistake(['a', 'b'])).toContain('one repository');
    expect(mistake(['repo', '--limit', '0'])).toContain('--limit');
    expect(mistake(['repo', '--limit'])).toContain('needs a value');
    expect(mistake(['repo', '--jobs', 'two'])).toContain('--jobs');
    expect(mistake(['repo', '--frobnicate'])).toContain('unknown option --frobnicate');
    expect(mistake(['repo', '--strict-flags=no-way'])).toContain('--strict-flags');
    expect(mistake(['npm:zod', '--question-set', 'held-out-3'])).toBe('--question-set is tuning, held-out, held-out-2, tuning-3 or all, not "held-out-3"');
    expect(mistake(['repo', '--question-set', 'tuning'])).toContain('for a pinned package');
  });

  it('picks a pinned package\'s question set, the second held-out and third tuning ones included', () => {
    for (const set of ['tuning', 'held-out', 'held-out-2', 'tuning-3', 'all'] as const) {
      expect(parseEvalArguments(['npm:zod', `--question-set=${set}`])).toMatchObject({ questionSet: set });
    }
    const entry = (query: string): QuestionSets['tuning'][number] => ({ query, expected: { file: 'a.ts' } });
    const sets: QuestionSets = { tuning: [entry('t')], heldOut: [entry('h')], heldOut2: [entry('h2')], tuning3: [entry('t3')] };
    expect(questionsOf(sets, 'held-out-2').map((q) => q.query)).toEqual(['h2']);
    expect(questionsOf(sets, 'held-out').map((q) => q.query)).toEqual(['h']);
    expect(questionsOf(sets, 'tuning-3').map((q) => q.query)).toEqual(['t3']);
    expect(questionsOf(sets, 'tuning').map((q) => q.query)).toEqual(['t']);
    expect(questionsOf(sets, 'all').map((q) => q.query)).toEqual(['t', 'h', 'h2', 't3']);
    const without: QuestionSets = { tuning: [entry('t')], heldOut: [entry('h')] };
    expect(questionsOf(without, 'held-out-2')).toEqual([]);
    expect(questionsOf(without, 'tuning-3')).toEqual([]);
    expect(questionsOf(without, 'all').map((q) => q.query)).toEqual(['t', 'h']);
  });

  it('gives every package with questions a second held-out set of new questions', () => {
    const withQuestions = EVAL_PACKAGES.filter((p) => p.questions);
    expect(withQuestions.map((p) => p.name).sort()).toEqual(['@tanstack/query-core', 'immer', 'rxjs', 'zod']);
    for (const p of withQuestions) {
      const sets = p.questions as QuestionSets;
      const second = (sets.heldOut2 ?? []).map((q) => q.query.toLowerCase());
      expect(second, p.name).toHaveLength(10);
      expect(new Set(second).size, p.name).toBe(second.length);
      const earlier = new Set([...sets.tuning, ...sets.heldOut].map((q) => q.query.toLowerCase()));
      expect(second.filter((q) => earlier.has(q)), p.name).toEqual([]);
    }
  });

  it('gives every package with questions a third tuning set of twelve questions new to it', () => {
    for (const p of EVAL_PACKAGES.filter((q) => q.questions)) {
      const sets = p.questions as QuestionSets;
      const third = (sets.tuning3 ?? []).map((q) => q.query.toLowerCase());
      expect(third, p.name).toHaveLength(12);
      expect(new Set(third).size, p.name).toBe(third.length);
      const earlier = new Set([...sets.tuning, ...sets.heldOut, ...(sets.heldOut2 ?? [])].map((q) => q.query.toLowerCase()));
      expect(third.filter((q) => earlier.has(q)), p.name).toEqual([]);
    }
  });
});

describe('progress', () => {
  it('writes a line per tenth without a terminal, once each', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = new Progress({ write: (text: string) => lines.push(text), isTTY: false }, () => clock);
    progress.start(20, 0);
    for (let i = 0; i < 20; i++) {
      progress.working(`case ${i}`);
      progress.step(i !== 3);
      clock += 10;
    }
    progress.finish();
    expect(lines[0]).toBe('eval: 0/20 done\n');
    expect(lines.at(-1)).toBe('eval: 20/20 (1 not passed) done\n');
    expect(lines.length).toBe(11);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('redraws one bar on a terminal', () => {
    let written = '';
    const progress = new Progress({ write: (text: string) => (written += text), isTTY: true, columns: 80 }, () => 0);
    progress.start(4, 1);
    progress.note('building');
    progress.finish();
    expect(written).toContain('\r\x1b[K[######..................] 1/4');
    expect(written).toContain('eval: building\n');
    expect(written.endsWith('\n')).toBe(true);
  });
});
