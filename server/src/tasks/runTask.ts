// Runs one task on one target: records the interaction, asks every agent, checks and converts each answer, retries rejected model answers.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AnswerLocation, AssistantSettings, CandidateStrategy, Interaction, PreviewPolicy, TaskId, TraceResource, TraceResponse } from '../protocol.js';
import type { Agent, AgentAnswer, AgentRequest, PipelineReplay } from '../agents/agent.js';
import type { AgentRegistry } from '../agents/registry.js';
import { runAgents } from '../agents/orchestrator.js';
import { modelStrategy } from '../agents/modelTasks.js';
import type { AgentOutcome } from '../agents/orchestrator.js';
import type { Workspace } from '../workspace/workspace.js';
import type { TraceStore } from '../trace/traceStore.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { offsetsToRange } from '../edits/textEdits.js';
import type { Proposal } from '../edits/proposal.js';
import { proposalToWorkspaceEdit } from '../edits/proposal.js';
import type { ProgressSink } from '../editorPort.js';
import { taskDefinition } from './catalogue.js';
import { answerLocations } from './answerLocations.js';
import { AgentsProgress } from './agentsProgress.js';
import { noAnswerMessage, REJECTED_BY_CHECK } from './failures.js';
import { protectedValues } from '../privacy/workspaceSecrets.js';
import { renderRequestContext } from '../context/contextRendering.js';
import { buildRequestContext } from '../context/requestContext.js';
import type { RecentPositions } from '../context/recentPositions.js';
import type { TaskDefinition, TaskRunView, TaskTarget } from './task.js';

/** What runTask needs from the running server. */
export interface TaskEnvironment {
  root: string;
  /**
   * The workspace's state (files, documents, projects, index): what every feature asks. A task on a document works
   * in the project whose config governs it.
   */
  workspace: Workspace;
  registry: AgentRegistry;
  trace: TraceStore;
  sessionId: string;
  user: string;
  role: Interaction['role'];
  agentTimeoutMs: number;
  /** Times a model agent is asked when the oracle rejects its proposal. */
  maxAttempts: number;
  /** Whether the user chooses among usable answers or the best passing one is taken. */
  strategy: CandidateStrategy;
  oracle: AssistantSettings['oracle'];
  /** Budgets of the multi-step pipelines (issue, class). */
  pipelines: AssistantSettings['pipelines'];
  /** The editor's documents (falling back to the disk), for agents that patch several files. */
  documents?: DocumentSource;
  /** The places the user worked at last (from the ranges of the client's requests). */
  recent?: RecentPositions;
  annotations: boolean;
  /** Which edits the editor is asked to show for the user to accept or discard before they land. */
  preview: PreviewPolicy;
  /** Proposals by response id, kept so a later apply can move them onto the current text. */
  plans: PlanCache;
}

export interface TaskRun {
  task: TaskId;
  document: DocumentSnapshot;
  target: TaskTarget;
  /** Task-specific inputs, e.g. `newName` for a rename. */
  parameters?: Record<string, string>;
  text: string;
  source: Interaction['source'];
  /**
   * Return once the run's record is written (in the file: it outlives this process and every reader sees it) rather
   * than once it is durable, and leave the wait for the disk to the caller through `TaskResult.durable`. For a flow
   * that applies the edit itself: the flush then overlaps the editor's round trip, and the flow answers after both.
   */
  returnWhenWritten?: boolean;
  /** Pre-classified interactions (ask) pass their classification along. */
  classification?: Interaction['classification'];
  interactionId?: string;
  /** Only this agent runs (the user already chose it). */
  agent?: string;
  /** Replay a recorded pipeline run from one of its steps, with feedback (only the agent that made it runs). */
  replay?: PipelineReplay;
  /** Workspace context for model prompts (set by runTask). */
  context?: string;
  /** The document's values to redact, gathered with the context (set by runTask). */
  knownSecrets?: ReadonlyMap<string, string>;
}

export interface Candidate {
  response: TraceResponse;
  /** What applying this candidate changes; absent for text answers and failures. */
  proposal?: Proposal;
  /** A usable text answer (explanations, questions), shown rather than applied. */
  shown?: boolean;
  /** The places a text answer names, best first, for the client to list and jump to. */
  locations?: AnswerLocation[];
}

export interface TaskResult {
  /** The interaction with the run's responses, as it is (or will be) recorded. */
  interaction: Interaction;
  candidates: Candidate[];
  /** Settles once the record is durable: already when `returnWhenWritten` was not asked for. */
  durable: Promise<void>;

}

/** The interaction's message in the trace when the user cancelled the run. */
export const CANCELLED_MESSAGE = 'Cancelled before an answer was chosen.';

/** Most tokens of workspace context a model prompt carries besides its target. */
const CONTEXT_BUDGET_TOKENS = 1_500;
// Symbols are resolved through the import graph and the lexical index, not the type checker: after each edit the
// checker would rebuild the program first (tens of milliseconds on a 5,000-line file, measured), which every task would pay before its model call.

/**
 * The context model agents get with a task on code in a document; undefined when no model agent runs, for
 * workspace-wide tasks (which retrieve their own), or when it cannot be built (the task goes on without it).
 */
async function enrichmentFor(env: TaskEnvironment, run: TaskRun, agents: readonly Agent[], definition: TaskDefinition, signal: AbortSignal): Promise<{ text: string; tokens: number; omitted: string[]; knownSecrets?: ReadonlyMap<string, string> } | undefined> {
  if (definition.workspaceWide || !agents.some((a) => a.descriptor.isLLM) || !run.document.fsPath || run.document.text === '') return undefined;
  const open = env.documents ? env.documents.openUris().flatMap((uri) => env.documents?.get(uri) ?? []) : [];
  try {
    // Gathered once for the task: the context is redacted with them, and the model agents send with them.
    const knownSecrets = protectedValues(env.workspace, { fsPath: run.document.fsPath, text: run.document.text });
    // What the task's prompt carries of the document besides the target (a fix's imports) is not repeated.
    const shown = modelStrategy(definition.id)?.shows?.(run.document, run.target) ?? [];
    const context = await buildRequestContext(
      { workspace: env.workspace, document: run.document, target: { start: run.target.start, end: run.target.end, name: run.target.name }, text: run.text, openDocuments: open, recent: env.recent?.list() ?? [], project: env.workspace.projects.forFile(run.document.fsPath), budgetTokens: CONTEXT_BUDGET_TOKENS, resolve: 'index', knownSecrets, shown },
      signal,
    );
    return { text: renderRequestContext(context), tokens: context.tokens, omitted: context.omitted, knownSecrets };
  } catch (error) {
    signal.throwIfAborted();
    return { text: '', tokens: 0, omitted: [`no context: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

/**
 * How long a run may go unrecorded: a run still working after this is written to the trace (so a crash leaves its
 * record), while a quick one is written once, with its answers, which keeps a durable write off the fast path.
 */
const PROVISIONAL_RECORD_MS = 50;

/** A run's record once written: the interaction as stored, and the wait for it to be durable. */
interface Recorded {
  interaction: Interaction;
  durable: Promise<void>;
}

/** Writes one run's interaction: provisionally once it has run for a while, completely when asked to. */
class RunRecorder {
  private added: Promise<void> | undefined;
  private completed: Promise<Recorded> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly trace: TraceStore,
    private readonly interaction: Interaction,
  ) {
    this.timer = setTimeout(() => void this.addProvisionally().catch(() => undefined), PROVISIONAL_RECORD_MS);
  }

  private addProvisionally(): Promise<void> {
    return (this.added ??= this.trace.add(this.interaction));
  }

  /**
   * Records the run with its responses, once: the provisional record is completed, or the whole run written now.
   * Resolves once the record is in the file, with the wait for the disk (which nobody has to take up).
   */
  record(responses: TraceResponse[], message: string | undefined, selection?: Interaction['selection']): Promise<Recorded> {
    if (this.completed) return this.completed;
    clearTimeout(this.timer);
    const whole: Interaction = { ...this.interaction };
    const complete = (i: Interaction): void => {
      i.responses = responses;
      // Learnt after a provisional record may have been written.
      if (this.interaction.context.enrichment) i.context.enrichment = this.interaction.context.enrichment;
      if (message) i.message = message;
      if (selection) i.selection = selection;
    };
    complete(whole);
    let onWritten = (): void => undefined;
    const written = new Promise<void>((resolve) => (onWritten = resolve));
    const durable = (async () => {
      if (this.added) {
        await this.added;
        await this.trace.update(this.interaction.id, complete, { onWritten });
        return;
      }
      this.added = this.trace.add(whole, { onWritten });
      await this.added;
    })();
    durable.catch(() => undefined);
    // A write that fails rejects `durable` without ever calling `onWritten`.
    this.completed = Promise.race([written, durable]).then(() => ({ interaction: this.trace.get(this.interaction.id) ?? whole, durable }));
    return this.completed;
  }
}

/** Proposals of recent responses; bounded so a long session does not grow without end. */
export class PlanCache {
  private readonly plans = new Map<string, Proposal>();
  constructor(private readonly capacity = 500) {}
  set(responseId: string, plan: Proposal): void {
    this.plans.set(responseId, plan);
    if (this.plans.size > this.capacity) {
      const oldest = this.plans.keys().next().value;
      if (oldest !== undefined) this.plans.delete(oldest);
    }
  }
  get(responseId: string): Proposal | undefined {
    return this.plans.get(responseId);
  }
}

interface Evaluated {
  candidate: Candidate;
  /** Set when the oracle rejected a proposal: the feedback for another attempt. */
  rejection?: string;
}

/**
 * The interaction is recorded provisionally once the run has lasted PROVISIONAL_RECORD_MS (so a crash during a long
 * model call leaves its record), and completely with its answers, durably, before this resolves (a quick run in one
 * write). A cancelled or failed run is recorded too, saying so.
 */
export async function runTask(env: TaskEnvironment, run: TaskRun, signal: AbortSignal, progress: ProgressSink): Promise<TaskResult> {
  const definition = taskDefinition(run.task);
  const agents = env.registry.forTask(run.task).filter((agent) => run.agent === undefined || agent.descriptor.name === run.agent);
  const interaction: Interaction = {
    id: run.interactionId ?? randomUUID(),
    sessionId: env.sessionId,
    timestamp: new Date().toISOString(),
    role: env.role,
    user: env.user,
    source: run.source,
    text: run.text,
    task: run.task,
    ...(run.classification ? { classification: run.classification } : {}),
    context: contextOf(env.root, run.document, run.target),
    responses: [],
  };
  const recorder = new RunRecorder(env.trace, interaction);
  const refusal = outsideRefusal(env.workspace, run.document);
  if (refusal) {
    // No agent runs on it (an offline one would edit a file outside the workspace), and nothing of it is sent.
    const { interaction: stored, durable } = await recorder.record([], refusal);
    if (!run.returnWhenWritten) await durable;
    return { interaction: stored, candidates: [], durable };
  }
  if (definition && agents.length > 0) {
    const enrichment = await enrichmentFor(env, run, agents, definition, signal);
    if (enrichment) {
      interaction.context.enrichment = { tokens: enrichment.tokens, omitted: enrichment.omitted };
      run = { ...run, ...(enrichment.text ? { context: enrichment.text } : {}), ...(enrichment.knownSecrets ? { knownSecrets: enrichment.knownSecrets } : {}) };
    }
  }
  if (!definition || agents.length === 0) {
    const message = `No agent serves the ${run.task} task yet.`;
    const { interaction: stored, durable } = await recorder.record([], message);
    if (!run.returnWhenWritten) await durable;
    return { interaction: stored, candidates: [], durable };
  }
  try {
    return await runAgentsAndCheck(env, run, definition, agents, interaction, recorder, signal, progress);
  } catch (error) {
    // Cancelled or failed: the interaction is still recorded, saying so.
    const message = signal.aborted ? CANCELLED_MESSAGE : `Failed: ${error instanceof Error ? error.message : String(error)}`;
    await recorder.record([], message).then(({ durable }) => durable).catch(() => undefined);
    throw error;
  }
}

async function runAgentsAndCheck(env: TaskEnvironment, run: TaskRun, definition: TaskDefinition, agents: Agent[], interaction: Interaction, recorder: RunRecorder, signal: AbortSignal, progress: ProgressSink): Promise<TaskResult> {
  const view: TaskRunView = { workspace: env.workspace, document: run.document, target: run.target, parameters: run.parameters ?? {} };
  const base: AgentRequest = {
    task: run.task,
    interactionId: interaction.id,
    text: run.text,
    document: run.document,
    target: run.target,
    parameters: view.parameters,
    workspace: env.workspace,
    project: env.workspace.projects.forFile(run.document.fsPath),
    history: [],
    pipeline: { settings: env.pipelines, oracle: env.oracle },
    ...(env.documents ? { documents: env.documents } : {}),
    ...(run.replay ? { replay: run.replay } : {}),
    ...(run.context ? { context: run.context } : {}),
    ...(run.knownSecrets ? { knownSecrets: run.knownSecrets } : {}),
  };
  const tracker = new AgentsProgress(
    agents.map((a) => a.descriptor.name),
    progress,
  );
  // Pipeline steps reach the editor as the agent's line of the progress and, for clients that render runs, as step notifications.
  const stepsOf = (agent: Agent): AgentRequest['onStep'] => (step, pipeline) => {
    tracker.activity(agent.descriptor.name, `${step.name} ${step.status === 'running' ? (step.summary ?? 'running') : step.status}${step.status !== 'running' && step.summary ? `: ${step.summary}` : ''}`);
    progress.step?.({ interactionId: interaction.id, agent: agent.descriptor.name, pipeline, step });
  };
  const at = new Date().toISOString();
  // Each agent goes through its attempts on its own: a rejected proposal is asked again at once, not after the
  // slowest of the other agents.
  const attemptsOf = async (agent: Agent): Promise<Candidate[]> => {
    const name = agent.descriptor.name;
    let history: AgentRequest['history'] = [];
    for (let attempt = 1; ; attempt++) {
      const [outcome] = await runAgents([agent], { ...base, history, onStep: stepsOf(agent) }, { agentTimeoutMs: env.agentTimeoutMs, signal, onActivity: (_agent, update) => (typeof update === 'string' ? tracker.activity(name, update) : tracker.written(name, update.written)) });
      if (definition.check && outcome?.status === 'ok') tracker.activity(name, 'checking the answer');
      const evaluated = await evaluateOutcome(env, definition, view, interaction.id, outcome as AgentOutcome, at, attempt, signal).catch((error: unknown): Evaluated[] => {
        // Cancelled while the oracle checked it: the trace keeps the answer, marked cancelled like the others.
        if (!signal.aborted) throw error;
        return [{ candidate: { response: cancelledResponse(outcome as AgentOutcome, attempt) } }];
      });
      const rejected = evaluated.filter((e) => e.rejection !== undefined);
      // A pipeline corrects itself (self-fix, patch retries); running it again whole would only repeat that work.
      const retry = !signal.aborted && agent.descriptor.isLLM && !definition.selfCorrecting && attempt < env.maxAttempts && rejected.length > 0 && rejected.length === evaluated.length;
      if (!retry) {
        // A cancelled agent is not done: the progress ends saying the work was cancelled.
        if (!signal.aborted) tracker.done(name);
        return evaluated.map((e) => e.candidate);
      }
      const first = rejected[0] as Evaluated;
      history = [...history, { answer: first.candidate.response.text, feedback: first.rejection as string }];
      tracker.activity(name, `attempt ${attempt + 1} (the last was rejected)`);
    }
  };
  tracker.start();
  let final: Candidate[];
  try {
    final = (await Promise.all(agents.map(attemptsOf))).flat();
  } finally {
    tracker.stop();
  }
  if (signal.aborted) {
    // The trace says what each agent had got to: answers that came in, and the agents cancelled on their way.
    await recorder.record(final.map((c) => c.response), CANCELLED_MESSAGE).then(({ durable }) => durable).catch(() => undefined);
    signal.throwIfAborted();
  }

  const ranked = rankCandidates(final);
  const responses = ranked.map((c) => c.response);
  const usable = ranked.filter((c) => c.proposal || c.shown);
  const message = usable.length === 0 ? noAnswerMessage(`${run.task} on ${run.target.name}`, responses) : undefined;
  // Every answer stays in the trace; with `best-passing` only the best usable one is offered.
  const candidates = env.strategy === 'best-passing' && usable.length > 1 ? ranked.filter((c) => c === usable[0] || !(c.proposal || c.shown)) : ranked;
  const selection = usable[0] && usable.length > 0 ? { responseId: usable[0].response.id, reason: selectionReason(usable[0], ranked) } : undefined;
  // Written before anything is applied or shown: annotations in inserted code point at this record.
  const { interaction: stored, durable } = await recorder.record(responses, message, selection);
  if (!run.returnWhenWritten) await durable;
  signal.throwIfAborted();
  return { interaction: stored, candidates, durable };
}

/**
 * Best first: proposals the oracle passed (those whose verdict rests on a test run before those only type-checked),
 * then unchecked proposals, then text answers, then the rest; the registry's order within each group.
 */
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  const rank = (c: Candidate): number => {
    if (c.proposal) {
      const verdict = c.response.verdict;
      if (!verdict) return 2;
      if (!verdict.passed) return 4;
      return verdict.testsPassed ? 0 : 1;
    }
    return c.shown ? 3 : 5;
  };
  return candidates.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i).map(({ c }) => c);
}

/** Why the first usable candidate ranks first, in words: its verdict, and what the others lacked. */
export function selectionReason(best: Candidate, ranked: readonly Candidate[]): string {
  const verdict = best.response.verdict;
  const own = best.shown ? 'a text answer' : !verdict ? 'not checked by an oracle' : verdict.testsPassed ? `passed its tests (${verdict.summary})` : `passed the oracle (${verdict.summary})`;
  const others = ranked.filter((c) => c !== best);
  const behind = others.map((c) => `${c.response.agent.name}: ${c.response.error ?? (c.response.verdict ? c.response.verdict.summary : c.response.status)}`);
  return `${best.response.agent.name} ${own}${behind.length > 0 ? `; ranked after it: ${behind.join('; ')}` : ''}`;
}

/** One outcome (and its alternatives) converted, checked by the oracle, and turned into candidates. */
async function evaluateOutcome(env: TaskEnvironment, definition: TaskDefinition, view: TaskRunView, interactionId: string, outcome: AgentOutcome, at: string, attempt: number, signal: AbortSignal): Promise<Evaluated[]> {
  const answers: (AgentAnswer & { id: string })[] = [
    { text: outcome.text, ...(outcome.proposal ? { proposal: outcome.proposal } : {}), ...(outcome.places ? { places: outcome.places } : {}), id: outcome.responseId },
    ...(outcome.alternatives ?? []).map((a) => ({ ...a, id: randomUUID() })),
  ];
  const evaluated: Evaluated[] = [];
  for (const answer of answers) {
    const response: TraceResponse = {
      id: answer.id,
      agent: outcome.agent.descriptor,
      status: outcome.status,
      text: answer.text,
      used: false,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      attempts: attempt,
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.errorDetail ? { errorDetail: outcome.errorDetail } : {}),
      ...(outcome.pipeline && answer.id === outcome.responseId ? { pipeline: outcome.pipeline } : {}),
    };
    if (outcome.status !== 'ok') {
      evaluated.push({ candidate: { response } });
      continue;
    }
    const annotation = env.annotations ? { task: definition.id, agent: outcome.agent.descriptor.name, interactionId, at } : undefined;
    const converted = definition.convertAnswer(answer, view, annotation);
    if (!converted.ok) {
      evaluated.push({ candidate: { response: { ...response, status: 'empty', error: converted.reason } }, rejection: converted.reason });
      continue;
    }
    if (converted.kind === 'text') {
      const locations = answerLocations(converted.places, env.documents);
      // The places go into the trace with the answer: what a workspace question is about.
      evaluated.push({ candidate: { response: { ...response, text: converted.text, ...(locations.length ? { locations } : {}) }, shown: true, ...(locations.length ? { locations } : {}) } });
      continue;
    }
    const withEdit: TraceResponse = { ...response, text: converted.text, edit: proposalToWorkspaceEdit(converted.proposal) };
    if (definition.check) {
      const verdict = await definition.check(converted.proposal, view, { root: env.root, project: env.workspace.projects.forFile(view.document.fsPath), oracle: env.oracle }, signal);
      if (!verdict.passed) {
        evaluated.push({ candidate: { response: { ...withEdit, verdict, status: 'empty', error: `${REJECTED_BY_CHECK}${verdict.summary}` } }, rejection: [verdict.summary, ...(verdict.details ?? [])].join('\n') });
        continue;
      }
      withEdit.verdict = verdict;
    } else if (outcome.verdict) {
      // The pipeline checked its own proposal (type-check, tests, review): a failing verdict is not offered.
      if (!outcome.verdict.passed) {
        evaluated.push({ candidate: { response: { ...withEdit, verdict: outcome.verdict, status: 'empty', error: `${REJECTED_BY_CHECK}${outcome.verdict.summary}` } }, rejection: outcome.verdict.summary });
        continue;
      }
      withEdit.verdict = outcome.verdict;
    }
    env.plans.set(withEdit.id, converted.proposal);
    evaluated.push({ candidate: { response: withEdit, proposal: converted.proposal } });
  }
  return evaluated;
}

/** An agent's answer that was still being checked when the run was cancelled. */
function cancelledResponse(outcome: AgentOutcome, attempt: number): TraceResponse {
  return { id: outcome.responseId, agent: outcome.agent.descriptor, status: 'cancelled', text: outcome.text, error: 'cancelled', used: false, startedAt: outcome.startedAt, durationMs: outcome.durationMs, attempts: attempt };
}

/**
 * Why a task will not run on a document: its path is in the workspace but a symlink on it leads outside, as the
 * repository tools and the workspace's listing never see it either. Undefined for every other document.
 */
function outsideRefusal(workspace: Workspace, document: DocumentSnapshot): string | undefined {
  const excluded = document.fsPath ? workspace.exclusion.check(document.fsPath) : undefined;
  if (excluded?.why !== 'outside') return undefined;
  return `${excluded.path} leads outside the workspace (it is really ${excluded.target ?? 'elsewhere'}): the assistant works only on the workspace's own files.`;
}

/**
 * What the interaction is about: the document and the code range the task runs on. A request about the whole
 * workspace is about none of the document's code: the document is recorded as where it was asked from, with no range,
 * and none when no document was open.
 */
function contextOf(root: string, document: DocumentSnapshot, target: TaskTarget): Interaction['context'] {
  const version = document.version !== null ? { version: document.version } : {};
  if (target.wholeWorkspace) {
    const noDocument = document.fsPath !== undefined && path.resolve(document.fsPath) === path.resolve(root);
    return noDocument ? {} : { askedFrom: resourceOf(root, document), ...version };
  }
  return {
    resource: resourceOf(root, document),
    ...version,
    fragment: { range: offsetsToRange(document.text, target.start, target.end), text: document.text.slice(target.start, target.end) },
    symbol: target.name,
  };
}

function resourceOf(root: string, document: DocumentSnapshot): TraceResource {
  const fullPath = document.fsPath ?? document.uri;
  return {
    uri: document.uri,
    fileName: path.basename(fullPath),
    fullPath,
    relativePath: document.fsPath ? path.relative(root, document.fsPath).split(path.sep).join('/') : document.uri,
    project: path.basename(root),
  };
}

export type { Agent };
