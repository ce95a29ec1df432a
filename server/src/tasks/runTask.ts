// Runs one task on one declaration: records the interaction, asks every agent, and turns each answer into an edit plan.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Interaction, TaskId, TraceResponse } from '../protocol.js';
import type { AgentRegistry } from '../agents/registry.js';
import { runAgents } from '../agents/orchestrator.js';
import type { WorkspaceProject } from '../repo/workspaceProject.js';
import type { TraceStore } from '../trace/traceStore.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { offsetsToRange } from '../edits/textEdits.js';
import type { Proposal } from '../edits/proposal.js';
import { proposalToWorkspaceEdit } from '../edits/proposal.js';
import type { ProgressSink } from '../editorPort.js';
import { taskDefinition } from './catalogue.js';
import type { TaskTarget } from './task.js';

/** What runTask needs from the running server. */
export interface TaskEnvironment {
  root: string;
  project: WorkspaceProject;
  registry: AgentRegistry;
  trace: TraceStore;
  sessionId: string;
  user: string;
  role: Interaction['role'];
  agentTimeoutMs: number;
  annotations: boolean;
  /** Edit plans by response id, kept so a later apply can move them onto the current text. */
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
  /** Pre-classified interactions (ask) pass their classification along. */
  classification?: Interaction['classification'];
  interactionId?: string;
}

export interface Candidate {
  response: TraceResponse;
  /** What applying this candidate changes; absent for text answers and failures. */
  proposal?: Proposal;
  /** A usable text answer (explanations, questions), shown rather than applied. */
  shown?: boolean;
}

export interface TaskResult {
  interaction: Interaction;
  candidates: Candidate[];
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

/**
 * The interaction is recorded before any agent runs and again with every answer, so the trace
 * holds it even if the server dies mid-way; each write is durable before this resolves.
 */
export async function runTask(env: TaskEnvironment, run: TaskRun, signal: AbortSignal, progress: ProgressSink): Promise<TaskResult> {
  const definition = taskDefinition(run.task);
  const agents = env.registry.forTask(run.task);
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
  await env.trace.add(interaction);
  if (!definition || agents.length === 0) {
    const message = `No agent serves the ${run.task} task yet.`;
    await env.trace.update(interaction.id, (i) => (i.message = message));
    return { interaction: { ...interaction, message }, candidates: [] };
  }

  progress.report(`${agents.length} agent${agents.length > 1 ? 's' : ''} working on ${run.target.name}`, 5);
  const outcomes = await runAgents(
    agents,
    { task: run.task, interactionId: interaction.id, text: run.text, document: run.document, target: run.target, parameters: run.parameters ?? {}, project: env.project },
    { agentTimeoutMs: env.agentTimeoutMs, signal, onProgress: (m) => progress.report(m) },
  );

  const at = new Date().toISOString();
  const candidates: Candidate[] = outcomes.map((outcome) => {
    const response: TraceResponse = {
      id: outcome.responseId,
      agent: outcome.agent.descriptor,
      status: outcome.status,
      text: outcome.text,
      used: false,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    if (outcome.status !== 'ok') return { response };
    const annotation = env.annotations ? { task: run.task, agent: outcome.agent.descriptor.name, interactionId: interaction.id, at } : undefined;
    const answer = definition.convertAnswer({ text: outcome.text, ...(outcome.proposal ? { proposal: outcome.proposal } : {}) }, { document: run.document, target: run.target, parameters: run.parameters ?? {} }, annotation);
    if (!answer.ok) return { response: { ...response, status: 'empty', error: answer.reason } };
    if (answer.kind === 'text') return { response: { ...response, text: answer.text }, shown: true };
    env.plans.set(response.id, answer.proposal);
    return { response: { ...response, text: answer.text, edit: proposalToWorkspaceEdit(answer.proposal) }, proposal: answer.proposal };
  });
  const responses = candidates.map((c) => c.response);
  const usable = candidates.filter((c) => c.proposal || c.shown);
  const message = usable.length === 0 ? noAnswerMessage(run, responses) : undefined;
  const stored = await env.trace.update(interaction.id, (i) => {
    i.responses = responses;
    if (message) i.message = message;
  });
  signal.throwIfAborted();
  return { interaction: stored, candidates };
}

function noAnswerMessage(run: TaskRun, responses: TraceResponse[]): string {
  const reasons = responses.map((r) => `${r.agent.name}: ${r.error ?? r.status}`).join('; ');
  return `No usable answer for ${run.task} on ${run.target.name}${reasons ? ` (${reasons})` : ''}.`;
}

function contextOf(root: string, document: DocumentSnapshot, target: TaskTarget): Interaction['context'] {
  const fullPath = document.fsPath ?? document.uri;
  return {
    resource: {
      uri: document.uri,
      fileName: path.basename(fullPath),
      fullPath,
      relativePath: document.fsPath ? path.relative(root, document.fsPath).split(path.sep).join('/') : document.uri,
      project: path.basename(root),
    },
    ...(document.version !== null ? { version: document.version } : {}),
    fragment: { range: offsetsToRange(document.text, target.start, target.end), text: document.text.slice(target.start, target.end) },
    symbol: target.name,
  };
}
