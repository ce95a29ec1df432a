// The evaluation run: a scratch copy, the product's agents and task flow in-process, cases built and sampled, run in parallel, scored, recorded, summarized.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentInfo, AssistantSettings, TaskId } from '../protocol.js';
import { resolveSettings } from '../config/settings.js';
import { AgentRegistry, buildRegistry, localAgentName } from '../agents/registry.js';
import type { Agent } from '../agents/agent.js';
import { TraceStore } from '../trace/traceStore.js';
import { Workspace } from '../workspace/workspace.js';
import { PlanCache } from '../tasks/runTask.js';
import type { TaskEnvironment } from '../tasks/runTask.js';
import { CostLedger, MeasuredAgent } from './measuredAgent.js';
import { ScratchCopy } from './scratch.js';
import { EslintRunner } from './eslintRunner.js';
import { MAX_ANSWER_CHARS, RecordStore, serverBuild, writeFileAtomically } from './records.js';
import type { EvalRecord } from './records.js';
import { compare, renderScenario, summarize } from './report.js';
import type { AgentSummary, MetricComparison, ScenarioReport } from './report.js';
import { Progress } from './progress.js';
import type { ProgressStream } from './progress.js';
import { deriveSeed, shuffled } from './stats.js';
import { SCENARIOS } from './scenarios.js';
import { isScenarioId, SCENARIO_IDS } from './scenario.js';
import type { EvalCase, Scenario, ScenarioId, ScoreContext } from './scenario.js';

export const EVAL_FORMAT_VERSION = 1;

export interface EvalOptions {
  repository: string;
  scenarios: string[];
  /** Agent names; all agents serving each scenario's task when absent. */
  agents?: string[];
  /** Cases per scenario, after the seeded shuffle. */
  limit?: number;
  /** Runs per case for model agents (offline agents are deterministic and run once). */
  samples: number;
  seed: number;
  jobs: number;
  json?: string;
  /** Compiler flags turned on in the scratch copy (`--strict-flags`); undefined leaves the tsconfig as it is. */
  strictFlags?: string[];
  /** The workspace scenario's questions (`--questions`); by default `.assistant/questions.json` in the repository. */
  questions?: string;
  /** Use ESLint for fix cases when the repository configures it (default true). */
  eslint: boolean;
  /** The `assistant` settings (agents, orchestrator, …), as in the editor's configuration. */
  settings?: unknown;
  /** Times a model agent is asked when the product's oracle rejects its proposal; the settings' value by default. */
  attempts?: number;
  keepScratch?: boolean;
  resamples?: number;
}

export interface EvalIO {
  /** The report (stdout). */
  out: (text: string) => void;
  /** Progress and notes (stderr). */
  progress: ProgressStream;
  env: NodeJS.ProcessEnv;
}

/** A mistake in the command line or settings: reported, with exit code 2. */
export class EvalUsageError extends Error {}

export interface EvalReport {
  tool: 'assistant-ls eval';
  formatVersion: number;
  repository: string;
  startedAt: string;
  finishedAt: string;
  /** False when the run was interrupted: what finished is reported, the rest runs on the next invocation. */
  complete: boolean;
  options: {
    scenarios: string[];
    agents: string[] | null;
    limit: number | null;
    samples: number;
    seed: number;
    jobs: number;
    strictFlags: string[] | null;
    eslint: string;
    attempts: number;
    agentTimeoutMs: number;
  };
  notes: string[];
  agents: AgentInfo[];
  scenarios: Array<ScenarioReport & { summary: AgentSummary[]; comparisons: MetricComparison[] }>;
  records: EvalRecord[];
  recordsFile: string | null;
  traceDirectory: string | null;
}

interface WorkItem {
  scenario: Scenario<EvalCase>;
  evalCase: EvalCase;
  agent: AgentInfo;
  sample: number;
  key: string;
}

/** Runs an evaluation; the report is returned (and written as JSON when asked) even when the run was interrupted. */
export async function runEvaluation(options: EvalOptions, io: EvalIO, signal: AbortSignal): Promise<EvalReport> {
  const startedAt = new Date().toISOString();
  const progress = new Progress(io.progress);
  const notes: string[] = [];
  const note = (message: string): void => {
    notes.push(message);
    progress.note(message);
  };

  const repository = path.resolve(options.repository);
  if (!fs.existsSync(repository) || !fs.statSync(repository).isDirectory()) throw new EvalUsageError(`${options.repository} is not a folder`);
  const available = chooseScenarios(options.scenarios);
  if (available.length === 0) throw new EvalUsageError(`no scenario to run: the scenarios are ${SCENARIO_IDS.join(', ')}`);

  const { settings, problems } = resolveSettings(options.settings);
  for (const problem of problems) note(`settings: ${problem}`);
  settings.annotations.enabled = false;
  const attempts = options.attempts ?? settings.orchestrator.maxAttempts;
  const registry = buildRegistry(settings, io.env);
  for (const problem of registry.problems) note(`agents: ${problem}`);
  const known = registry.list();
  if (options.agents) {
    const unknown = options.agents.filter((name) => !known.some((a) => a.name === name));
    if (unknown.length > 0) throw new EvalUsageError(`unknown agent${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the agents are: ${known.map((a) => a.name).join(', ')}`);
  }
  const agentsFor = (task: TaskId): AgentInfo[] => {
    const serving = known.filter((a) => a.tasks.includes(task));
    return options.agents ? options.agents.flatMap((name) => serving.filter((a) => a.name === name)) : serving;
  };
  for (const name of options.agents ?? []) {
    if (!available.some((s) => agentsFor(s.task).some((a) => a.name === name))) note(`agent ${name} serves none of the scenarios run (${available.map((s) => s.id).join(', ')})`);
  }

  const json = options.json ? path.resolve(options.json) : undefined;
  const recordsFile = json ? RecordStore.fileFor(json) : undefined;
  const outputBase = json ? path.join(path.dirname(json), path.parse(json).name) : undefined;
  const traceFolder = outputBase ? `${outputBase}.trace` : undefined;
  const scratch = ScratchCopy.create(repository, { skip: [json, recordsFile, traceFolder].filter((p): p is string => p !== undefined), ...(options.strictFlags ? { strictFlags: options.strictFlags } : {}) });
  note(`scratch copy of ${repository} at ${scratch.root}${options.strictFlags ? ` (compiler flags on: ${options.strictFlags.join(', ')})` : ''}`);
  const traceDirectory = traceFolder ?? path.join(scratch.folder, 'trace');

  const records: EvalRecord[] = [];
  const scenarioReports: EvalReport['scenarios'] = [];
  let complete: boolean;
  let trace: TraceStore | undefined;
  let eslintState = options.eslint ? 'not configured' : 'off';
  try {
    let eslint: EslintRunner | undefined;
    if (options.eslint && available.some((s) => s.id === 'fix')) {
      const loaded = await EslintRunner.load(scratch.root);
      if (loaded instanceof EslintRunner) {
        eslint = loaded;
        eslintState = `ESLint ${loaded.version} (${loaded.configFile})`;
        note(`fix: ${eslintState} runs next to the type checker`);
      } else if (loaded) {
        eslintState = loaded.unavailable;
        note(`fix: ${loaded.unavailable}`);
      }
    }

    const session = { id: randomUUID(), startedAt, user: 'assistant-ls eval', role: 'developer' as const, workspace: scratch.root, pid: process.pid, client: { name: 'assistant-ls eval' } };
    // The copy is thrown away: its index is not worth a place in the user's cache folder.
    const workspace = new Workspace(scratch.root, { saveIndex: false });
    trace = await TraceStore.open({ directory: traceDirectory, session, segmentSize: settings.trace.segmentSize, history: 'background', exclusion: workspace.exclusion, onWarning: (m) => note(`trace: ${m}`) });
    const ledger = new CostLedger();
    const measured: Agent[] = known.map((info) => new MeasuredAgent(registry.byName(info.name) as Agent, ledger, (task) => promptOverride(settings, info.name, task)));
    const env: TaskEnvironment = {
      root: scratch.root,
      workspace,
      registry: new AgentRegistry(measured),
      trace,
      sessionId: session.id,
      user: session.user,
      role: 'developer',
      agentTimeoutMs: settings.orchestrator.agentTimeoutMs,
      maxAttempts: attempts,
      strategy: 'offer-all',
      // The product's oracle never runs tests here; scenarios that need a test run (generate) run it themselves in the copy.
      oracle: { ...settings.oracle, runTests: false },
      pipelines: settings.pipelines,
      annotations: false,
      // Nothing here reaches an editor: proposals are applied in the scratch copy.
      preview: 'never',
      plans: new PlanCache(),
    };
    const scoring: ScoreContext = { scratch, env, eslint };

    // Cases: built per scenario, shuffled with the seed, limited; the same seed gives the same cases in the same order.
    const plans: Array<{ scenario: Scenario<EvalCase>; cases: EvalCase[]; agents: AgentInfo[] }> = [];
    for (const scenario of available) {
      const agents = agentsFor(scenario.task);
      if (agents.length === 0) {
        note(`${scenario.id}: no agent serves the ${scenario.task} task${options.agents ? ` among ${options.agents.join(', ')}` : ''}; skipped`);
        continue;
      }
      progress.note(`${scenario.id}: building cases`);
      const all = await scenario.buildCases({ scratch, env, eslint, note, questionsFile: path.resolve(options.questions ?? path.join(repository, '.assistant', 'questions.json')) }, signal);
      const ordered = shuffled(all, deriveSeed(options.seed, scenario.id));
      plans.push({ scenario, cases: options.limit !== undefined ? ordered.slice(0, options.limit) : ordered, agents });
    }

    const runSettings = { attempts, agentTimeoutMs: settings.orchestrator.agentTimeoutMs, strictFlags: options.strictFlags ?? null, eslint: eslint ? `${eslint.version}:${eslint.configFile}` : null };
    const items: WorkItem[] = [];
    const build = serverBuild();
    for (const { scenario, cases, agents } of plans) {
      for (const evalCase of cases) {
        for (const agent of agents) {
          for (let sample = 0; sample < (agent.isLLM ? options.samples : 1); sample++) {
            const key = hashKey({ v: EVAL_FORMAT_VERSION, build, scenario: scenario.id, case: evalCase.id, content: evalCase.contentHash, agent: agentFingerprint(settings, agent), sample, run: runSettings });
            items.push({ scenario, evalCase, agent, sample, key });
          }
        }
      }
    }

    const store = RecordStore.open(recordsFile);
    const resultByKey = new Map<string, EvalRecord>();
    const todo = items.filter((item) => {
      const earlier = store.get(item.key);
      if (earlier) resultByKey.set(item.key, earlier);
      return !earlier;
    });
    if (resultByKey.size > 0) note(`resuming: ${resultByKey.size} of ${items.length} runs already recorded in ${recordsFile}`);
    progress.start(items.length, resultByKey.size);

    let next = 0;
    const worker = async (): Promise<void> => {
      while (!signal.aborted && next < todo.length) {
        const item = todo[next++] as WorkItem;
        progress.working(`${item.scenario.id} · ${item.agent.name} · ${item.evalCase.file}:${item.evalCase.line}`);
        const record = await runItem(item, env, scoring, ledger, signal);
        if (!record) break;
        store.add(record);
        resultByKey.set(item.key, record);
        progress.step(record.status === 'passed');
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, () => worker()));
    progress.finish();
    complete = !signal.aborted;
    if (!complete) note(`interrupted: ${resultByKey.size} of ${items.length} runs recorded${recordsFile ? `; run the same command again to finish` : ''}`);

    for (const item of items) {
      const record = resultByKey.get(item.key);
      if (record) records.push(record);
    }
    for (const { scenario, cases, agents } of plans) {
      const breakdown = scenario.breakdown?.(records.filter((r) => r.scenario === scenario.id));
      const report: ScenarioReport = { id: scenario.id, title: scenario.title, metrics: scenario.metrics, primaryMetric: scenario.primaryMetric, cases: cases.length, agents: agents.map((a) => a.name), ...(breakdown ? { breakdown } : {}) };
      scenarioReports.push({ ...report, summary: summarize(report, records), comparisons: compare(report, records, options.seed, options.resamples) });
    }
  } finally {
    progress.finish();
    // A local model's worker is stopped before the process ends, which it would not survive mid-call.
    await registry.dispose();
    await trace?.close().catch(() => undefined);
    if (options.keepScratch) note(`the scratch copy is kept at ${scratch.folder}`);
    else scratch.dispose();
  }

  const report: EvalReport = {
    tool: 'assistant-ls eval',
    formatVersion: EVAL_FORMAT_VERSION,
    repository,
    startedAt,
    finishedAt: new Date().toISOString(),
    complete,
    options: {
      scenarios: options.scenarios,
      agents: options.agents ?? null,
      limit: options.limit ?? null,
      samples: options.samples,
      seed: options.seed,
      jobs: options.jobs,
      strictFlags: options.strictFlags ?? null,
      eslint: eslintState,
      attempts,
      agentTimeoutMs: settings.orchestrator.agentTimeoutMs,
    },
    notes,
    agents: known,
    scenarios: scenarioReports,
    records,
    recordsFile: recordsFile ?? null,
    traceDirectory: traceFolder ?? null,
  };
  io.out(renderReport(report));
  if (json) writeFileAtomically(json, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/** The terminal report: a header line, then each scenario's table and comparisons. */
export function renderReport(report: EvalReport): string {
  const lines = [`assistant-ls eval ${report.repository} (seed ${report.options.seed}${report.options.limit !== null ? `, at most ${report.options.limit} cases per scenario` : ''}${report.options.samples > 1 ? `, ${report.options.samples} samples per case for model agents` : ''})${report.complete ? '' : ' — INTERRUPTED, partial results'}`];
  if (report.scenarios.length === 0) lines.push('', 'Nothing was run.');
  for (const scenario of report.scenarios) lines.push('', renderScenario(scenario, scenario.summary, scenario.comparisons));
  const failures = report.records.filter((r) => r.status !== 'passed' && r.failure);
  if (failures.length > 0) {
    const reasons = new Map<string, number>();
    for (const r of failures) {
      const reason = `${r.scenario} · ${r.agent}: ${(r.failure ?? '').split('\n')[0]?.slice(0, 120)}`;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    lines.push('', 'Most frequent failure reasons:');
    for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8)) lines.push(`  ${String(n).padStart(4)} × ${reason}`);
  }
  return `${lines.join('\n')}\n`;
}

function chooseScenarios(names: readonly string[]): Scenario<EvalCase>[] {
  const unknown = names.filter((name) => !isScenarioId(name));
  if (unknown.length > 0) throw new EvalUsageError(`unknown scenario${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the scenarios are ${SCENARIO_IDS.join(', ')}`);
  return ([...new Set(names)] as ScenarioId[]).map((id) => SCENARIOS[id] as Scenario<EvalCase>);
}

/** Runs and scores one item; undefined when cancelled (nothing is recorded then, so the next run does it again). */
async function runItem(item: WorkItem, env: TaskEnvironment, scoring: ScoreContext, ledger: CostLedger, signal: AbortSignal): Promise<EvalRecord | undefined> {
  const { scenario, evalCase, agent, sample, key } = item;
  const interactionId = randomUUID();
  const base = {
    key,
    scenario: scenario.id,
    caseId: evalCase.id,
    file: evalCase.file,
    line: evalCase.line,
    target: evalCase.target,
    agent: agent.name,
    model: agent.model ?? null,
    isLLM: agent.isLLM,
    sample,
    contextChars: scenario.contextChars(evalCase),
    interactionId,
  };
  const zero: Record<string, number | null> = Object.fromEntries(scenario.metrics.map((m) => [m.id, m.overProposals ? null : 0]));
  const costFields = (): Pick<EvalRecord, 'promptChars' | 'promptTokens' | 'completionTokens' | 'agentMs' | 'attempts'> => {
    const cost = ledger.take(interactionId);
    return { promptChars: cost.promptChars, promptTokens: cost.promptTokens, completionTokens: cost.completionTokens, agentMs: cost.agentMs, attempts: cost.calls };
  };
  const started = Date.now();
  let run;
  try {
    run = await scenario.run(env, evalCase, agent.name, interactionId, signal);
  } catch (error) {
    if (signal.aborted) {
      ledger.take(interactionId);
      return undefined;
    }
    const failure = `the run failed: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, status: 'error', metrics: zero, proposed: false, failure, ...costFields(), durationMs: Date.now() - started, oraclePassed: null, answer: null, details: {}, finishedAt: new Date().toISOString() };
  }
  let score;
  try {
    score = await scenario.score(scoring, evalCase, run, signal);
  } catch (error) {
    if (signal.aborted) {
      ledger.take(interactionId);
      return undefined;
    }
    score = { metrics: zero, failure: `scoring failed: ${error instanceof Error ? error.message : String(error)}`, details: {} };
  }
  const metrics = { ...zero, ...score.metrics };
  const passed = scenario.metrics.filter((m) => !m.informational).every((m) => metrics[m.id] === 1);
  // A metric over proposals is null without one, and a run without a proposal has not passed.
  const agentFailed = run.response?.status === 'error' || run.response?.status === 'timeout';
  const answer = run.response?.text ? run.response.text.slice(0, MAX_ANSWER_CHARS) : null;
  return {
    ...base,
    status: passed ? 'passed' : agentFailed ? 'error' : 'failed',
    metrics,
    proposed: run.proposal !== undefined,
    failure: passed ? null : (score.failure ?? 'not passed'),
    ...costFields(),
    durationMs: run.durationMs,
    oraclePassed: run.oraclePassed ?? null,
    answer,
    details: score.details ?? {},
    finishedAt: new Date().toISOString(),
  };
}

function hashKey(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

/** The model agent entry of the settings an agent came from, matched by name as the registry names them. */
function settingsEntry(settings: AssistantSettings, name: string): AssistantSettings['agents'][number] | undefined {
  return settings.agents.find((entry) => {
    if (entry.modelPath !== undefined) return localAgentName(entry.name, entry.modelPath) === name;
    let host = 'openai';
    try {
      if (entry.baseURL) host = new URL(entry.baseURL).host;
    } catch {
      return false;
    }
    return (entry.name ?? `${entry.model}@${host}`).trim().replace(/\s+/g, '-') === name;
  });
}

function promptOverride(settings: AssistantSettings, name: string, task: TaskId): string | undefined {
  return settingsEntry(settings, name)?.prompts?.[task];
}

/** What of an agent's configuration can change its answers (never its key). */
function agentFingerprint(settings: AssistantSettings, agent: AgentInfo): unknown {
  const entry = settingsEntry(settings, agent.name);
  const { apiKey: _key, apiKeyEnv: _env, ...rest } = entry ?? ({} as Partial<AssistantSettings['agents'][number]>);
  return { name: agent.name, technology: agent.technology, model: agent.model ?? null, endpoint: agent.endpoint ?? null, settings: entry ? rest : null };
}
