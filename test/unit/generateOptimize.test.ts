// Unit tests for the Generate and Optimize tasks: where they are offered, how free text picks the target, and how a model's code replaces only the target.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { generateTask, todoCommentAt } from '../../server/src/tasks/generateTask.js';
import { goalOf, optimizeTask } from '../../server/src/tasks/optimizeTask.js';
import { declaresName } from '../../server/src/tasks/replaceCode.js';
import { rankCandidates } from '../../server/src/tasks/runTask.js';
import type { Candidate } from '../../server/src/tasks/runTask.js';
import type { TaskAnswer, TaskRunView } from '../../server/src/tasks/task.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import type { Proposal } from '../../server/src/edits/proposal.js';
import { Workspace } from '../../server/src/workspace/workspace.js';

/** The conversions here read nothing of the workspace; a run still names one. */
const ws = new Workspace(os.tmpdir());

const TEXT = [
  "import { clamp } from './clamp.js';",
  '',
  '/** The middle value. */',
  'export function median(values: number[]): number {}',
  '',
  'export class Stats {',
  '  mean(values: number[]): number {',
  "    throw new Error('Not implemented');",
  '  }',
  '',
  '  spread(values: number[]): number {',
  '    let lo = Infinity;',
  '    let hi = -Infinity;',
  '    for (const v of values) {',
  '      if (v < lo) lo = v;',
  '      if (v > hi) hi = v;',
  '    }',
  '    return hi - lo;',
  '  }',
  '}',
  '',
  'export function report(values: number[]): string {',
  '  // TODO: format the spread with two decimals',
  '  // and append the unit',
  "  return '';",
  '}',
  '',
  'const tiny = (x: number) => x;',
  '',
  'const ready = (v: { a: boolean; b: boolean; c: boolean }) =>',
  '  v.a &&',
  '  v.b &&',
  '  v.c;',
  '',
].join('\n');

const document: DocumentSnapshot = { uri: 'file:///ws/src/stats.ts', fsPath: '/ws/src/stats.ts', languageId: 'typescript', version: 3, text: TEXT };

function at(needle: string, delta = 0): number {
  const offset = TEXT.indexOf(needle);
  if (offset < 0) throw new Error(needle);
  return offset + delta;
}

function offers(task: typeof generateTask, start: number, end = start): string[] {
  return task.offersAt({ document, start, end, diagnostics: [] }).map((o) => o.title);
}

function applied(answer: TaskAnswer): string {
  if (!answer.ok || answer.kind !== 'edit') throw new Error(answer.ok ? 'text answer' : answer.reason);
  const plan = (answer.proposal as Proposal).documents[0]!;
  return applyOffsetEdits(plan.baseText, plan.edits);
}

describe('Generate: offers', () => {
  it('offers the body of a function or method with an empty or not-implemented body', () => {
    expect(offers(generateTask, at('median'))).toEqual(['Assistant: Write the body of function median']);
    expect(offers(generateTask, at('mean('))).toEqual(['Assistant: Write the body of method Stats.mean']);
  });

  it('offers the code a TODO comment asks for, continuation lines included', () => {
    expect(offers(generateTask, at('// TODO', 5))).toEqual(['Assistant: Write the code for "TODO: format the spread with two decimals and app…"']);
    const todo = todoCommentAt(TEXT, at('// TODO'));
    expect(TEXT.slice(todo!.start, todo!.end)).toBe('// TODO: format the spread with two decimals\n  // and append the unit');
  });

  it('offers nothing on a written function, a class name or plain code', () => {
    expect(offers(generateTask, at('spread('))).toEqual([]);
    expect(offers(generateTask, at('tiny'))).toEqual([]);
    expect(offers(generateTask, at('import'))).toEqual([]);
  });

  it('takes free text at a blank line as an insertion there, and on a written line as a new line after it', () => {
    const blank = generateTask.askTarget!(document, at('\n\nexport class', 1), at('\n\nexport class', 1), 'write a function that sums values');
    expect(blank).toMatchObject({ target: { name: 'the cursor' }, parameters: { mode: 'insert' } });
    const after = generateTask.askTarget!(document, at('const tiny'), at('const tiny'), 'add a function that doubles');
    expect(after).toMatchObject({ parameters: { mode: 'insert-after' } });
    expect(after!.target.start).toBe(at('x;', 2));
    const selection = generateTask.askTarget!(document, at('  let lo'), at('  let hi'), 'use reduce');
    expect(selection).toMatchObject({ target: { name: 'the selection' }, parameters: { mode: 'replace' } });
  });
});

describe('Generate: answers', () => {
  const bodyRun = (): TaskRunView => {
    const offer = generateTask.offersAt({ document, start: at('median'), end: at('median'), diagnostics: [] })[0]!;
    return { workspace: ws, document, target: offer.target, parameters: offer.parameters ?? {} };
  };

  it("replaces only the function with the model's version, keeping the doc comment once", () => {
    const answer = '```ts\n/** The middle value. */\nexport function median(values: number[]): number {\n  const sorted = [...values].sort((a, b) => a - b);\n  return sorted[Math.floor(sorted.length / 2)] ?? NaN;\n}\n```';
    const text = applied(generateTask.convertAnswer({ text: answer }, bodyRun(), undefined));
    expect(text).toContain('/** The middle value. */\nexport function median(values: number[]): number {\n  const sorted');
    expect(text.match(/The middle value/g)).toHaveLength(1);
    expect(text.slice(text.indexOf('export class Stats'))).toBe(TEXT.slice(TEXT.indexOf('export class Stats')));
  });

  it('refuses a body under another name', () => {
    const answer = '```ts\nexport function middle(values: number[]): number {\n  return values[0] ?? 0;\n}\n```';
    expect(generateTask.convertAnswer({ text: answer }, bodyRun(), undefined)).toEqual({ ok: false, reason: 'the answer must declare `median` again, with the same name' });
  });

  it('replaces the TODO comment with the code, indented like it', () => {
    const offer = generateTask.offersAt({ document, start: at('// TODO'), end: at('// TODO'), diagnostics: [] })[0]!;
    const run: TaskRunView = { workspace: ws, document, target: offer.target, parameters: offer.parameters ?? {} };
    const text = applied(generateTask.convertAnswer({ text: '```ts\nconst spread = Math.max(...values) - Math.min(...values);\nreturn `${spread.toFixed(2)} cm`;\n```' }, run, undefined));
    expect(text).toContain("export function report(values: number[]): string {\n  const spread = Math.max(...values) - Math.min(...values);\n  return `${spread.toFixed(2)} cm`;\n  return '';\n}");
    expect(text).not.toContain('TODO');
  });

  it('inserts code on a new line after a written line, annotated', () => {
    const asked = generateTask.askTarget!(document, at('const tiny'), at('const tiny'), 'add double')!;
    const run: TaskRunView = { workspace: ws, document, target: asked.target, parameters: asked.parameters ?? {} };
    const text = applied(generateTask.convertAnswer({ text: '```ts\nconst double = (x: number) => x * 2;\n```' }, run, { task: 'generate', agent: 'm', interactionId: 'i1', at: '2026-11-22T00:00:00.000Z' }));
    expect(text).toMatch(/const tiny = \(x: number\) => x;\n\/\/ @assistant task=generate agent=m interaction=i1 at=\S+\nconst double = \(x: number\) => x \* 2;\n/);
  });
});

describe('Optimize', () => {
  it('is offered on functions with a body worth rewriting, and on multi-line selections', () => {
    expect(offers(optimizeTask, at('spread('))).toEqual(['Assistant: Optimize method Stats.spread']);
    expect(offers(optimizeTask, at('report'))).toEqual(['Assistant: Optimize function report']);
    expect(offers(optimizeTask, at('median'))).toEqual([]);
    expect(offers(optimizeTask, at('tiny'))).toEqual([]);
    // An arrow function whose body is one expression over three lines is a body worth rewriting too.
    expect(offers(optimizeTask, at('ready'))).toEqual(['Assistant: Optimize function ready']);
    expect(offers(optimizeTask, at('    for (const v'), at('    return hi'))).toEqual(['Assistant: Optimize the selection']);
  });

  it('reads the goal from the request', () => {
    expect(goalOf('make spread faster')).toBe('efficiency');
    expect(goalOf('reduce the nesting in this')).toBe('complexity');
    expect(goalOf('make it more readable')).toBe('readability');
    expect(goalOf('optimize spread')).toBe('general');
    expect(optimizeTask.askTarget!(document, at('spread('), at('spread('), 'make spread faster')).toMatchObject({ parameters: { goal: 'efficiency' } });
    expect(optimizeTask.invalidParameters!({ goal: 'speed' })).toMatch(/goal must be one of general, efficiency, readability, complexity/);
    expect(optimizeTask.invalidParameters!({ goal: 'efficiency' })).toBeUndefined();
  });

  it('replaces only the method; a rename or an unchanged answer is refused', () => {
    const offer = optimizeTask.offersAt({ document, start: at('spread('), end: at('spread('), diagnostics: [] })[0]!;
    const run: TaskRunView = { workspace: ws, document, target: offer.target, parameters: offer.parameters ?? {} };
    const better = '```ts\nspread(values: number[]): number {\n  return Math.max(...values) - Math.min(...values);\n}\n```';
    const text = applied(optimizeTask.convertAnswer({ text: better }, run, undefined));
    expect(text).toContain('  spread(values: number[]): number {\n    return Math.max(...values) - Math.min(...values);\n  }\n}');
    expect(text.slice(0, text.indexOf('  spread('))).toBe(TEXT.slice(0, TEXT.indexOf('  spread(')));
    const renamed = better.replace('spread(', 'range(');
    expect(optimizeTask.convertAnswer({ text: renamed }, run, undefined)).toMatchObject({ ok: false, reason: expect.stringContaining('`spread`') });
    const same = '```ts\n' + TEXT.slice(offer.target.start, offer.target.end) + '\n```';
    expect(optimizeTask.convertAnswer({ text: same }, run, undefined)).toEqual({ ok: false, reason: 'the answer leaves the code unchanged' });
  });

  it('finds declared names in functions, methods, classes and variables, not in bodies', () => {
    expect(declaresName('export function f() { const g = 1; }', 'a.ts', 'f')).toBe(true);
    expect(declaresName('m(x: number) {\n  return x;\n}', 'a.ts', 'm')).toBe(true);
    expect(declaresName('export const h = () => 1;', 'a.ts', 'h')).toBe(true);
    expect(declaresName('export function f() { const g = 1; }', 'a.ts', 'g')).toBe(false);
  });
});

describe('Candidate ranking', () => {
  const candidate = (id: string, extra: Partial<Candidate>, verdict?: Candidate['response']['verdict']): Candidate => ({
    response: { id, agent: { name: id, technology: 'llm', isLLM: true }, status: 'ok', text: id, used: false, ...(verdict ? { verdict } : {}) } as Candidate['response'],
    ...extra,
  });
  const proposal = {} as Proposal;

  it('puts tested proposals before type-checked ones, then unchecked, then text, then failures', () => {
    const ranked = rankCandidates([
      candidate('failed', {}),
      candidate('text', { shown: true }),
      candidate('unchecked', { proposal }),
      candidate('typed', { proposal }, { passed: true, summary: 'ok' }),
      candidate('tested', { proposal }, { passed: true, summary: 'ok', testsPassed: true }),
    ]);
    expect(ranked.map((c) => c.response.id)).toEqual(['tested', 'typed', 'unchecked', 'text', 'failed']);
  });
});
