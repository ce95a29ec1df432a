// Unit tests for the harness's statistics: seeded shuffles, the paired bootstrap interval, and per-agent summaries and comparisons from records.
import { describe, expect, it } from 'vitest';
import { deriveSeed, mean, median, pairedBootstrap, quantile, seededRandom, shuffled } from '../../server/src/eval/stats.js';
import { compare, summarize } from '../../server/src/eval/report.js';
import type { ScenarioReport } from '../../server/src/eval/report.js';
import type { EvalRecord } from '../../server/src/eval/records.js';

describe('seeded randomness', () => {
  it('repeats for a seed and differs between seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    const c = seededRandom(8);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
    for (const x of first) expect(x >= 0 && x < 1).toBe(true);
  });

  it('shuffles into a permutation that depends only on the seed', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const once = shuffled(items, 3);
    expect(shuffled(items, 3)).toEqual(once);
    expect([...once].sort((x, y) => x - y)).toEqual(items);
    expect(once).not.toEqual(items);
    expect(shuffled(items, 4)).not.toEqual(once);
    expect(items[0]).toBe(0);
    expect(deriveSeed(1, 'doc')).not.toBe(deriveSeed(1, 'fix'));
    expect(deriveSeed(1, 'doc')).toBe(deriveSeed(1, 'doc'));
  });

  it('computes means, medians and quantiles', () => {
    expect(mean([])).toBeNull();
    expect(mean([1, 0, 0, 1])).toBe(0.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(quantile([0, 10], 0.25)).toBe(2.5);
  });
});

describe('paired bootstrap', () => {
  it('gives a point interval when every pair differs by the same amount', () => {
    expect(pairedBootstrap([1, 1, 1], [1, 1, 1], { seed: 1 })).toMatchObject({ n: 3, difference: 0, interval: [0, 0] });
    expect(pairedBootstrap([1, 1, 1, 1], [0, 0, 0, 0], { seed: 1 })).toMatchObject({ n: 4, meanA: 1, meanB: 0, difference: 1, interval: [1, 1], shareAtMostZero: 0 });
  });

  it('brackets the observed difference, is reproducible per seed, and narrows with more cases', () => {
    const random = seededRandom(42);
    const a = Array.from({ length: 200 }, () => (random() < 0.8 ? 1 : 0));
    const b = a.map((value) => (random() < 0.3 ? 1 - value : value));
    const result = pairedBootstrap(a, b, { seed: 9 })!;
    expect(result.interval[0]).toBeLessThanOrEqual(result.difference);
    expect(result.interval[1]).toBeGreaterThanOrEqual(result.difference);
    expect(pairedBootstrap(a, b, { seed: 9 })).toEqual(result);
    // The interval is close to the normal approximation: mean ± 1.96 · sd / √n of the differences.
    const d = a.map((x, i) => x - b[i]!);
    const m = d.reduce((s, x) => s + x, 0) / d.length;
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (d.length - 1));
    const half = (1.96 * sd) / Math.sqrt(d.length);
    expect(Math.abs(result.interval[0] - (m - half))).toBeLessThan(0.02);
    expect(Math.abs(result.interval[1] - (m + half))).toBeLessThan(0.02);
    const small = pairedBootstrap(a.slice(0, 20), b.slice(0, 20), { seed: 9 })!;
    expect(small.interval[1] - small.interval[0]).toBeGreaterThan(result.interval[1] - result.interval[0]);
  });

  it('needs one score per case on both sides', () => {
    expect(pairedBootstrap([], [], { seed: 1 })).toBeUndefined();
    expect(() => pairedBootstrap([1], [1, 0], { seed: 1 })).toThrow(RangeError);
  });
});

function record(agent: string, caseId: string, format: number, sample = 0, extra: Partial<EvalRecord> = {}): EvalRecord {
  return {
    key: `${agent}/${caseId}/${sample}`,
    scenario: 'doc',
    caseId,
    file: 'a.ts',
    line: 1,
    target: caseId,
    agent,
    model: null,
    isLLM: agent !== 'offline',
    sample,
    status: format === 1 ? 'passed' : 'failed',
    metrics: { syntax: 1, format },
    proposed: true,
    failure: format === 1 ? null : 'no @returns',
    promptChars: agent === 'offline' ? null : 100,
    contextChars: 10,
    promptTokens: agent === 'offline' ? null : 30,
    completionTokens: agent === 'offline' ? null : 5,
    durationMs: 10,
    agentMs: 5,
    attempts: 1,
    oraclePassed: null,
    answer: '/** x */',
    details: {},
    interactionId: 'i',
    finishedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

describe('summaries and comparisons', () => {
  const scenario: ScenarioReport = { id: 'doc', title: 'Doc', metrics: [{ id: 'syntax', label: 'syntax' }, { id: 'format', label: 'format' }], primaryMetric: 'format', cases: 3, agents: ['offline', 'model'] };
  const records = [
    record('offline', 'c1', 1),
    record('offline', 'c2', 1),
    record('offline', 'c3', 1),
    // Two samples of c1 average to 0.5; c3 has no model record, so it is not paired.
    record('model', 'c1', 1, 0),
    record('model', 'c1', 0, 1),
    record('model', 'c2', 0),
  ];

  it('averages each metric per agent over its runs and sums tokens', () => {
    const [offline, model] = summarize(scenario, records);
    expect(offline).toMatchObject({ agent: 'offline', runs: 3, cases: 3, metrics: { syntax: 1, format: 1 }, promptTokens: null, meanPromptChars: null });
    expect(model).toMatchObject({ agent: 'model', runs: 3, cases: 2, metrics: { syntax: 1, format: 1 / 3 }, promptTokens: 90, completionTokens: 15, meanPromptChars: 100 });
  });

  it('pairs agents by case, averaging samples, with a seeded interval per metric', () => {
    const comparisons = compare(scenario, records, 1, 500);
    expect(comparisons.map((c) => [c.metric, c.a, c.b, c.n])).toEqual([
      ['syntax', 'offline', 'model', 2],
      ['format', 'offline', 'model', 2],
    ]);
    const format = comparisons[1]!;
    // Per case: c1 1 − 0.5, c2 1 − 0: a mean difference of 0.75.
    expect(format).toMatchObject({ meanA: 1, meanB: 0.25, difference: 0.75, resamples: 500 });
    expect(format.interval[0]).toBeGreaterThanOrEqual(0.5);
    expect(format.interval[1]).toBeLessThanOrEqual(1);
    expect(compare(scenario, records, 1, 500)).toEqual(comparisons);
  });

  it('measures a metric over proposals only on the runs that have one, and pairs only cases where both agents proposed', () => {
    const overProposals: ScenarioReport = { ...scenario, metrics: [{ id: 'syntax', label: 'syntax', overProposals: true }, { id: 'format', label: 'format' }] };
    const noProposal = (agent: string, caseId: string): EvalRecord => record(agent, caseId, 0, 0, { metrics: { syntax: null, format: 0 }, proposed: false });
    const mixed = [record('offline', 'c1', 1), noProposal('offline', 'c2'), noProposal('offline', 'c3'), record('model', 'c1', 1), record('model', 'c2', 1, 0, { metrics: { syntax: 0, format: 0 } }), noProposal('model', 'c3')];
    const [offline, model] = summarize(overProposals, mixed);
    expect(offline).toMatchObject({ metrics: { syntax: 1, format: 1 / 3 }, proposed: 1 / 3 });
    expect(model).toMatchObject({ metrics: { syntax: 0.5, format: 1 / 3 }, proposed: 2 / 3 });
    const [syntax, format] = compare(overProposals, mixed, 1, 200);
    expect(syntax).toMatchObject({ metric: 'syntax', n: 1, difference: 0 });
    expect(format).toMatchObject({ metric: 'format', n: 3, meanA: 1 / 3, meanB: 1 / 3 });
  });
});
