// Unit tests of the fix scenario's evasion check: fixes that widen to any, suppress, or delete code are told apart from real fixes.
import { describe, expect, it } from 'vitest';
import { evasionOf, isTestPath } from '../../server/src/eval/fixEvasion.js';
import { fixRateByCode } from '../../server/src/eval/fixScenario.js';
import type { EvalRecord } from '../../server/src/eval/records.js';

const before = ['export function area(shape: Shape): number {', '  return shape.width * shape.heigth;', '}', ''].join('\n');

describe('evasionOf', () => {
  it('passes a fix that changes the code to satisfy the diagnostic', () => {
    expect(evasionOf(before, before.replace('heigth', 'height'), 2551, false)).toBeUndefined();
  });

  it('flags a type widened to any or unknown, as annotation or assertion', () => {
    expect(evasionOf(before, before.replace('shape: Shape', 'shape: any'), 2551, false)).toBe('widens to any');
    expect(evasionOf(before, before.replace('shape.heigth', '(shape as any).heigth'), 2551, false)).toBe('widens to any');
    expect(evasionOf(before, before.replace('shape: Shape', 'shape: Record<string, unknown>'), 2551, false)).toBe('widens to any');
  });

  it('does not count an any the code already had', () => {
    const loose = before.replace('shape: Shape', 'shape: any');
    expect(evasionOf(loose, loose.replace('heigth', 'height'), 2551, false)).toBeUndefined();
  });

  it('flags a suppression comment', () => {
    expect(evasionOf(before, before.replace('  return', '  // @ts-expect-error\n  return'), 2551, false)).toBe('suppresses');
    expect(evasionOf(before, `/* eslint-disable */\n${before}`, 'no-undef', false)).toBe('suppresses');
  });

  it('flags deleted code, unless the diagnostic is about unused or unreachable code', () => {
    const checks = `${before}const _check: Assert<Equals<A, B>> = true;\n`;
    expect(evasionOf(checks, before, 2322, false)).toBe('deletes code');
    expect(evasionOf(checks, before, 6133, false)).toBeUndefined();
    expect(evasionOf(checks, before, '@typescript-eslint/no-unused-vars', false)).toBeUndefined();
  });

  it('flags any net loss of code lines in a test file', () => {
    const spec = "it('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(2, 2)).toBe(4);\n});\n";
    expect(evasionOf(spec, spec.replace('  expect(add(2, 2)).toBe(4);\n', ''), 2345, true)).toBe('deletes tests');
    expect(evasionOf(spec, spec.replace('add(2, 2)', 'add(2, 3)'), 2345, true)).toBeUndefined();
  });

  it('knows test files by the runners\' conventions', () => {
    expect(['src/a.test.ts', 'test/a.ts', 'src/__tests__/a.ts', 'a.spec.mts'].map(isTestPath)).toEqual([true, true, true, true]);
    expect(['src/testing.ts', 'src/contest.ts'].map(isTestPath)).toEqual([false, false]);
  });
});

describe('fixRateByCode', () => {
  const record = (caseId: string, agent: string, code: number, fix: number, evasive: number | null): EvalRecord =>
    ({ caseId, agent, scenario: 'fix', metrics: { syntax: 1, fix, evasive }, details: { diagnostic: { analyzer: 'typescript', code } } }) as unknown as EvalRecord;

  it('counts fixes and evasions per code and agent, most frequent code first', () => {
    const text = fixRateByCode([record('a', 'fix-offline', 2551, 1, 0), record('b', 'fix-offline', 2322, 0, 1), record('c', 'fix-offline', 2322, 0, null), record('a', 'local', 2551, 0, 1)])!;
    const rows = text.split('\n').slice(3).map((line) => line.split(/\s{2,}/));
    expect(rows).toEqual([
      ['TS2322', '2', '0/2 (1 evasive)', '0/0'],
      ['TS2551', '1', '1/1', '0/1 (1 evasive)'],
    ]);
  });
});
