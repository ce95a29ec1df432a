// Turns records into the report: per-agent means per metric, paired comparisons with bootstrap intervals, and the terminal table.
import type { EvalRecord } from './records.js';
import type { MetricSpec } from './scenario.js';
import { deriveSeed, mean, meanPassAtK, median, pairedBootstrap } from './stats.js';
import type { PairedDifference } from './stats.js';

export interface AgentSummary {
  scenario: string;
  agent: string;
  model: string | null;
  isLLM: boolean;
  /** Records (cases × samples). */
  runs: number;
  cases: number;
  /** Mean of each metric over the runs (over the runs with a proposal for metrics over proposals). */
  metrics: Record<string, number | null>;
  /** Share of runs with a proposal. */
  proposed: number | null;
  errors: number;
  meanDurationMs: number | null;
  medianDurationMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  meanPromptChars: number | null;
  meanContextChars: number | null;
  /**
   * Pass@k of the scenario's metric marked `passAtK`, keyed by k: k = 1 and k = the most samples a case has, each only
   * when every case has at least k samples. Absent for scenarios without such a metric.
   */
  passAtK?: Record<string, number>;
}

export interface MetricComparison extends PairedDifference {
  scenario: string;
  metric: string;
  a: string;
  b: string;
}

export interface ScenarioReport {
  id: string;
  title: string;
  metrics: readonly MetricSpec[];
  primaryMetric: string;
  cases: number;
  agents: string[];
  /** The scenario's own lines below its table (see `Scenario.breakdown`). */
  breakdown?: string;
}

/** The mean of every metric per agent, in the order agents were given. */
export function summarize(scenario: ScenarioReport, records: readonly EvalRecord[]): AgentSummary[] {
  const passMetric = scenario.metrics.find((m) => m.passAtK);
  return scenario.agents.map((agent) => {
    const mine = records.filter((r) => r.scenario === scenario.id && r.agent === agent);
    const metrics: Record<string, number | null> = {};
    for (const metric of scenario.metrics) metrics[metric.id] = mean(valuesOf(mine, metric));
    const sum = (pick: (r: EvalRecord) => number | null): number | null => (mine.some((r) => pick(r) !== null) ? mine.reduce((s, r) => s + (pick(r) ?? 0), 0) : null);
    const charRecords = mine.filter((r) => r.promptChars !== null).map((r) => r.promptChars as number);
    return {
      scenario: scenario.id,
      agent,
      model: mine[0]?.model ?? null,
      isLLM: mine[0]?.isLLM ?? false,
      runs: mine.length,
      cases: new Set(mine.map((r) => r.caseId)).size,
      metrics,
      proposed: mean(mine.map((r) => (r.proposed ? 1 : 0))),
      errors: mine.filter((r) => r.status === 'error').length,
      meanDurationMs: mean(mine.map((r) => r.durationMs)),
      medianDurationMs: median(mine.map((r) => r.durationMs)),
      promptTokens: sum((r) => r.promptTokens),
      completionTokens: sum((r) => r.completionTokens),
      meanPromptChars: mean(charRecords),
      meanContextChars: mean(mine.map((r) => r.contextChars)),
      ...(passMetric ? { passAtK: passAtKOf(mine, passMetric) } : {}),
    };
  });
}

/** The ks Pass@k is given for, and its values, from one agent's records of a scenario (samples of a case grouped by case id). */
export function passAtKOf(records: readonly EvalRecord[], metric: MetricSpec): Record<string, number> {
  const byCase = new Map<string, { n: number; c: number }>();
  for (const r of records) {
    const entry = byCase.get(r.caseId) ?? { n: 0, c: 0 };
    entry.n++;
    if (valueOf(r, metric) === 1) entry.c++;
    byCase.set(r.caseId, entry);
  }
  const cases = [...byCase.values()];
  if (cases.length === 0) return {};
  const fewest = Math.min(...cases.map((e) => e.n));
  // The most samples a case has is the run's --samples; an interrupted run leaves some cases with fewer, and k may not exceed those.
  const ks = [...new Set([1, Math.max(...cases.map((e) => e.n))])].filter((k) => k <= fewest);
  return Object.fromEntries(ks.map((k) => [String(k), meanPassAtK(cases, k) as number]));
}

/**
 * Every pair of agents on every metric: the mean difference over the cases both were scored on (samples of one
 * case averaged first, so a case counts once) and its paired bootstrap interval, seeded per comparison.
 */
export function compare(scenario: ScenarioReport, records: readonly EvalRecord[], seed: number, resamples = 2000): MetricComparison[] {
  const out: MetricComparison[] = [];
  const perCase = (agent: string, metric: MetricSpec): Map<string, number> => {
    const sums = new Map<string, { total: number; n: number }>();
    for (const r of records) {
      if (r.scenario !== scenario.id || r.agent !== agent) continue;
      const value = valueOf(r, metric);
      if (value === null) continue;
      const entry = sums.get(r.caseId) ?? { total: 0, n: 0 };
      entry.total += value;
      entry.n++;
      sums.set(r.caseId, entry);
    }
    return new Map([...sums].map(([id, { total, n }]) => [id, total / n]));
  };
  for (let i = 0; i < scenario.agents.length; i++) {
    for (let j = i + 1; j < scenario.agents.length; j++) {
      const a = scenario.agents[i] as string;
      const b = scenario.agents[j] as string;
      for (const metric of scenario.metrics) {
        const left = perCase(a, metric);
        const right = perCase(b, metric);
        const shared = [...left.keys()].filter((id) => right.has(id)).sort();
        const result = pairedBootstrap(
          shared.map((id) => left.get(id) as number),
          shared.map((id) => right.get(id) as number),
          { seed: deriveSeed(seed, `${scenario.id}/${metric.id}/${a}/${b}`), resamples },
        );
        if (result) out.push({ scenario: scenario.id, metric: metric.id, a, b, ...result });
      }
    }
  }
  return out;
}

/** A run's value of a metric: null when it is measured over proposals and the run had none; a missing value counts as 0 otherwise. */
function valueOf(record: EvalRecord, metric: MetricSpec): number | null {
  const value = record.metrics[metric.id];
  if (value === null || value === undefined) return metric.overProposals ? null : 0;
  return value;
}

function valuesOf(records: readonly EvalRecord[], metric: MetricSpec): number[] {
  return records.map((r) => valueOf(r, metric)).filter((v): v is number => v !== null);
}

const percent = (value: number | null): string => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
const duration = (ms: number | null): string => (ms === null ? '—' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const count = (value: number | null): string => (value === null ? '—' : Math.round(value).toLocaleString('en-US'));
const points = (value: number): string => `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}`;
/** A metric's value: a percentage for rates, a plain number for ratios such as the mean reciprocal rank. */
const valueText = (metric: MetricSpec, value: number | null): string => (metric.ratio ? (value === null ? '—' : value.toFixed(3)) : percent(value));
/** A difference of a metric: percentage points for rates, plain for ratios. */
const differenceText = (metric: MetricSpec | undefined, value: number): string => (metric?.ratio ? `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}` : points(value));

/** A plain-text table: columns padded to their widest cell, numbers right-aligned. */
export function table(header: string[], rows: string[][], rightAligned: (column: number) => boolean = (c) => c > 0): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]): string => cells.map((cell, c) => (rightAligned(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The terminal report of one scenario: its table of agents, then its comparisons. */
export function renderScenario(scenario: ScenarioReport, summaries: readonly AgentSummary[], comparisons: readonly MetricComparison[]): string {
  const lines: string[] = [`${scenario.id}: ${scenario.title} (${scenario.cases} ${scenario.cases === 1 ? 'case' : 'cases'})`];
  const passMetric = scenario.metrics.find((m) => m.passAtK);
  // pass@1 always for such a scenario, and pass@k for every other k some agent has (model agents with --samples k).
  const ks = passMetric ? [...new Set([1, ...summaries.flatMap((s) => Object.keys(s.passAtK ?? {}).map(Number))])].sort((a, b) => a - b) : [];
  const header = ['agent', 'runs', ...scenario.metrics.map((m) => m.label), ...ks.map((k) => `pass@${k}`), 'proposed', 'errors', 'time/case', 'tokens in/out', 'prompt chars'];
  const rows = summaries.map((s) => [
    s.agent,
    String(s.runs),
    ...scenario.metrics.map((m) => valueText(m, s.metrics[m.id] ?? null)),
    ...ks.map((k) => percent(s.passAtK?.[String(k)] ?? null)),
    percent(s.proposed),
    String(s.errors),
    duration(s.meanDurationMs),
    s.promptTokens === null && s.completionTokens === null ? '—' : `${count(s.promptTokens)} / ${count(s.completionTokens)}`,
    s.meanPromptChars === null ? '—' : count(s.meanPromptChars),
  ]);
  lines.push(table(header, rows));
  const overProposals = scenario.metrics.filter((m) => m.overProposals).map((m) => m.label);
  if (overProposals.length > 0) lines.push(`(${overProposals.join(' and ')} over the runs with a proposal; the other metrics over all runs)`);
  const lower = scenario.metrics.filter((m) => m.lowerIsBetter).map((m) => m.label);
  if (lower.length > 0) lines.push(`(lower is better: ${lower.join(', ')}; ${scenario.metrics.filter((m) => m.informational).map((m) => m.label).join(', ')} do not decide whether a run passes)`);
  if (scenario.breakdown) lines.push('', scenario.breakdown);
  if (passMetric) lines.push(`(pass@k: the chance that one of k samples of a case passes the ${passMetric.label}, estimated without bias from each case's samples and averaged over cases)`);
  if (comparisons.length > 0) {
    lines.push('', 'Differences (A − B; percentage points for rates), paired bootstrap 95% interval over cases:');
    const metricOf = (id: string): MetricSpec | undefined => scenario.metrics.find((m) => m.id === id);
    const labelOf = (id: string): string => metricOf(id)?.label ?? id;
    lines.push(
      table(
        ['metric', 'A', 'B', 'cases', 'A − B', '95% interval', ''],
        comparisons.map((c) => [
          labelOf(c.metric),
          c.a,
          c.b,
          String(c.n),
          differenceText(metricOf(c.metric), c.difference),
          `[${differenceText(metricOf(c.metric), c.interval[0])}, ${differenceText(metricOf(c.metric), c.interval[1])}]`,
          c.interval[0] > 0 || c.interval[1] < 0 ? 'differs' : 'no clear difference',
        ]),
        (column) => column === 3 || column === 4 || column === 5,
      ),
    );
  }
  return lines.join('\n');
}
