// The contract of an evaluation scenario: build cases from a repository, run one case with one agent, score what it proposed.
import type { TaskId, TraceResponse } from '../protocol.js';
import type { TaskEnvironment } from '../tasks/runTask.js';
import type { Proposal } from '../edits/proposal.js';
import type { ScratchCopy } from './scratch.js';
import type { EslintRunner } from './eslintRunner.js';
import type { EvalRecord } from './records.js';

/** Scenario names the command line accepts (each one is in `scenarios.ts`). */
export const SCENARIO_IDS = ['doc', 'doc-types', 'fix', 'repair', 'generate', 'test', 'workspace', 'class'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];
/**
 * The scenarios run when none are named: those that never run the repository's tests. Generate, test and class run
 * a test file per case (seconds each, hours on a large repository), so they run when asked for.
 */
export const DEFAULT_SCENARIOS: readonly ScenarioId[] = ['doc', 'fix', 'workspace'];

export function isScenarioId(value: string): value is ScenarioId {
  return (SCENARIO_IDS as readonly string[]).includes(value);
}

/** One metric of a scenario: a 0/1 score per run, averaged over runs. */
export interface MetricSpec {
  id: string;
  /** The name the papers give it, for the table. */
  label: string;
  /**
   * Measured on proposals only (syntax correctness): a run without a proposal has no value (null) rather than 0, so
   * the metric says how well-formed what the agent proposes is; the share of runs with a proposal is reported beside it.
   */
  overProposals?: boolean;
  /** A value between 0 and 1 that is not a rate (mean reciprocal rank): shown as a number, not a percentage. */
  ratio?: boolean;
  /**
   * A run passes when this metric is 1: the report gives Pass@k of it per agent (the unbiased estimator over each
   * case's samples), for k = 1 and k = the samples every case has. Only one metric of a scenario should carry it.
   */
  passAtK?: boolean;
  /**
   * Reported beside the others but not part of whether a run passes: content measures such as the restatement rate,
   * where lower is better, or agreement with a reference, which is rarely 1.
   */
  informational?: boolean;
  /** Lower values are better (a restatement or contradiction rate); the table says so. */
  lowerIsBetter?: boolean;
}

/** What every case carries, whatever its scenario. */
export interface EvalCase {
  /** Stable within a repository: scenario, file, line and target (e.g. `doc:src/a.ts:12:Vector.add`). */
  id: string;
  /** Workspace-relative path with `/` separators. */
  file: string;
  /** One-based line of the target. */
  line: number;
  /** Display name of what the case is about: a declaration, a diagnostic. */
  target: string;
  /** Hash of everything the case's outcome depends on in the repository (its text, its target). */
  contentHash: string;
}

/** Everything a scenario may use while building its cases. */
export interface BuildContext {
  scratch: ScratchCopy;
  env: TaskEnvironment;
  /** Present when ESLint is configured in the repository, installed, and not turned off. */
  eslint: EslintRunner | undefined;
  /** Progress and notes for the terminal (stderr). */
  note: (message: string) => void;
  /** The workspace scenario's questions file (JSON), absolute. */
  questionsFile?: string;
  /** Most test files the generate scenario runs while building cases; `MAX_BUILD_TEST_RUNS` by default (tests use a small cap). */
  maxBuildTestRuns?: number;
}

/** What a case run produced: the agent's best proposal (if any) and how the run went. */
export interface CaseRun {
  interactionId: string;
  /** The response the score is about: the best-ranked one with a proposal, else the first. */
  response: TraceResponse | undefined;
  /** The chosen proposal; rejected by the product's oracle or not. */
  proposal: Proposal | undefined;
  /** Whether the product's own oracle accepted the proposal (undefined when the task has no oracle or nothing was proposed). */
  oraclePassed: boolean | undefined;
  /** Why there is no proposal, in words. */
  failure?: string;
  durationMs: number;
  /** What the run learnt beyond the response, for the score (how the workspace scenario's question was classified). */
  details?: Record<string, unknown>;
}

/** A case's scores, 0 or 1 per metric (null for a metric over proposals when there is none), with the reason when one is 0. */
export interface Score {
  metrics: Record<string, number | null>;
  failure?: string;
  /** Scenario-specific facts kept in the record (diagnostic counts, the problems found in a doc comment). */
  details?: Record<string, unknown>;
}

export interface ScoreContext {
  scratch: ScratchCopy;
  env: TaskEnvironment;
  eslint: EslintRunner | undefined;
}

export interface Scenario<C extends EvalCase = EvalCase> {
  readonly id: ScenarioId;
  /** The product task whose agents serve the scenario. */
  readonly task: TaskId;
  readonly title: string;
  readonly metrics: readonly MetricSpec[];
  /** The metric the table leads with and comparisons are ordered by (e.g. format correctness, fix rate). */
  readonly primaryMetric: string;
  /** Every case of the repository, in a stable order (the harness shuffles and limits them). */
  buildCases(context: BuildContext, signal: AbortSignal): Promise<C[]>;
  /** Runs the case with one agent through the product's own task flow; `interactionId` names the run in the trace. */
  run(env: TaskEnvironment, evalCase: C, agent: string, interactionId: string, signal: AbortSignal): Promise<CaseRun>;
  /** Scores a run: the proposal applied in the scratch copy and measured. Never throws for a bad proposal. */
  score(context: ScoreContext, evalCase: C, run: CaseRun, signal: AbortSignal): Promise<Score>;
  /** Characters of the code the agent is given to work on (the target), for the records. */
  contextChars(evalCase: C): number;
  /** Lines the report adds below the scenario's table (the fix rate per diagnostic code), from its records. */
  breakdown?(records: readonly EvalRecord[]): string | undefined;
}
