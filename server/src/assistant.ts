// The assistant core behind the LSP layer: offers, task runs, ask, apply and trace queries, in plain parameters and AbortSignals.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Position, Range } from 'vscode-languageserver-protocol';
import { TASK_DESCRIPTIONS, TASK_IDS, isTaskId } from './protocol.js';
import type { ShowInteractionArgs, ShowInteractionResult, RateParams, RateResult, RevertParams, RevertResult, AgentsResult, ApplyParams, ApplyResult, AskParams, AskResult, AssistantSettings, Interaction, TaskCommandArgs, TaskCommandResult, TaskId, TaskOrNone, TraceParams, TraceResult, TraceSession } from './protocol.js';
import { buildRegistry } from './agents/registry.js';
import type { AgentRegistry } from './agents/registry.js';
import { classifyIntent, extractNamedSymbols } from './agents/intentClassifier.js';
import { TraceStore } from './trace/traceStore.js';
import { interactionsAt } from './trace/positionLookup.js';
import { WorkspaceProject } from './repo/workspaceProject.js';
import { declarationAt, declarationsNamed, listDeclarations } from './repo/declarations.js';
import type { DeclarationTarget } from './repo/declarations.js';
import { findDeclarations } from './repo/findSymbol.js';
import { offersAt, taskDefinition } from './tasks/catalogue.js';
import type { TaskOffer } from './tasks/task.js';
import { PlanCache, runTask } from './tasks/runTask.js';
import type { Candidate, TaskEnvironment } from './tasks/runTask.js';
import { applyResponse, planOnCurrentText, recordOutcome } from './tasks/applyResponse.js';
import { revertResponse } from './tasks/revertResponse.js';
import { isPosition, isRange, positionToOffset, lineStarts, toWorkspaceEdit } from './edits/textEdits.js';
import { renderInteractions } from './trace/interactionReport.js';
import { pathToUri } from './workspace/documentSnapshot.js';
import fs from 'node:fs/promises';
import type { DocumentEditPlan } from './edits/textEdits.js';
import type { DocumentSnapshot, DocumentSource } from './workspace/documentSnapshot.js';
import type { EditorPort, ProgressSink } from './editorPort.js';
import { AssistantError } from './assistantError.js';

export { AssistantError } from './assistantError.js';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';

export interface AssistantOptions {
  root: string;
  documents: DocumentSource;
  settings: AssistantSettings;
  settingsProblems: string[];
  env: NodeJS.ProcessEnv;
  client?: { name: string; version?: string };
  log: (message: string) => void;
}

/** A resolved code action: the edit to put in it and the ids its follow-up command reports back. */
export type ResolvedTask = { kind: 'edit'; edit: WorkspaceEdit; interactionId: string; responseId: string } | { kind: 'none'; interactionId: string; message: string };

export class Assistant {
  private registry: AgentRegistry;
  private readonly env: TaskEnvironment;

  private constructor(
    private readonly options: AssistantOptions,
    readonly session: TraceSession,
    trace: TraceStore,
  ) {
    this.registry = buildRegistry(options.settings, options.env, options.settingsProblems);
    this.env = {
      root: options.root,
      project: new WorkspaceProject(options.root),
      registry: this.registry,
      trace,
      sessionId: session.id,
      user: session.user,
      role: session.role,
      agentTimeoutMs: options.settings.orchestrator.agentTimeoutMs,
      annotations: options.settings.annotations.enabled,
      plans: new PlanCache(),
    };
    for (const problem of this.registry.problems) options.log(`settings: ${problem}`);
  }

  static async create(options: AssistantOptions): Promise<Assistant> {
    const { settings } = options;
    const session: TraceSession = {
      id: randomUUID(),
      startedAt: new Date().toISOString(),
      user: settings.user.name ?? safeUserName(),
      role: settings.user.role,
      workspace: options.root,
      pid: process.pid,
      ...(options.client ? { client: options.client } : {}),
    };
    const directory = path.resolve(options.root, settings.trace.directory);
    const trace = await TraceStore.open({ directory, session, segmentSize: settings.trace.segmentSize, onWarning: (m) => options.log(`trace: ${m}`) });
    return new Assistant(options, session, trace);
  }

  /** Applies new settings without a restart (the trace location stays until the next start). */
  reconfigure(settings: AssistantSettings, problems: string[]): void {
    this.registry = buildRegistry(settings, this.options.env, problems);
    this.env.registry = this.registry;
    this.env.agentTimeoutMs = settings.orchestrator.agentTimeoutMs;
    this.env.annotations = settings.annotations.enabled;
    for (const problem of this.registry.problems) this.options.log(`settings: ${problem}`);
  }

  /** Tasks offered at a range: syntax only, no model, no type checker. */
  offers(uri: string, range: Range): TaskOffer[] {
    const document = this.options.documents.get(uri);
    if (!document) return [];
    const starts = lineStarts(document.text);
    const start = positionToOffset(document.text, range.start, starts);
    const end = positionToOffset(document.text, range.end, starts);
    return offersAt(document, Math.min(start, end), Math.max(start, end), (task) => this.registry.serves(task));
  }

  /** Runs a task command on a declaration, lets the user choose among candidates, and applies the choice. */
  async runCommand(task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<TaskCommandResult> {
    const { document, target } = this.commandTarget(args);
    const result = await runTask(this.env, { task, document, target, text: commandText(task, target), source: 'command' }, signal, progress);
    const interactionId = result.interaction.id;
    const chosen = await this.choose(result.candidates, target, port, signal);
    if (chosen.kind === 'none') {
      port.showMessage(chosen.discarded ? 'info' : 'warning', chosen.message);
      return { interactionId, applied: false, message: chosen.message, ...(chosen.discarded ? { outcome: 'discarded' as const } : {}) };
    }
    signal.throwIfAborted();
    progress.report('applying the edit', 95);
    const applied = await applyResponse(this.env, this.options.documents, port, interactionId, chosen.candidate.response.id, `Assistant: ${task} ${target.name}`);
    if (!applied.applied && applied.message) port.showMessage('warning', applied.message);
    return { interactionId, applied: applied.applied, outcome: applied.outcome, responseId: chosen.candidate.response.id, ...(applied.message ? { message: applied.message } : {}) };
  }

  /** For `codeAction/resolve`: runs the task and returns the chosen edit for the client to apply. */
  async resolveCommand(task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<ResolvedTask> {
    const { document, target } = this.commandTarget(args);
    const result = await runTask(this.env, { task, document, target, text: commandText(task, target), source: 'command' }, signal, progress);
    const interactionId = result.interaction.id;
    const chosen = await this.choose(result.candidates, target, port, signal);
    if (chosen.kind === 'none') return { kind: 'none', interactionId, message: chosen.message };
    const responseId = chosen.candidate.response.id;
    const current = planOnCurrentText(chosen.candidate.plan as DocumentEditPlan, this.options.documents);
    if (!current.ok) {
      const message = `Not applied: ${current.reason}. Run the task again on the current text.`;
      await recordOutcome(this.env, interactionId, responseId, { applied: false, outcome: 'stale', message });
      return { kind: 'none', interactionId, message };
    }
    // Kept so the follow-up command can record where the edit landed.
    this.env.plans.set(responseId, current.plan);
    return { kind: 'edit', edit: toWorkspaceEdit(current.plan), interactionId, responseId };
  }

  /** Records that the client applied a resolved code action's edit. */
  async responseApplied(interactionId: string, responseId: string): Promise<void> {
    const interaction = this.env.trace.get(interactionId);
    if (!interaction || !interaction.responses.some((r) => r.id === responseId)) throw new AssistantError('unknown-interaction', `No response ${responseId} in interaction ${interactionId}.`);
    await recordOutcome(this.env, interactionId, responseId, { applied: true, outcome: 'applied' }, this.env.plans.get(responseId));
  }

  async ask(params: AskParams, signal: AbortSignal, progress: ProgressSink): Promise<AskResult> {
    if (typeof params?.text !== 'string' || params.text.trim() === '') throw new AssistantError('invalid-params', 'assistant/ask needs a non-empty "text".');
    if (params.range !== undefined && !isRange(params.range)) throw new AssistantError('invalid-params', 'assistant/ask: "range" must be an LSP range.');
    const text = params.text.trim();
    progress.report('classifying the request', 2);
    const classification = await this.classify(text, signal);
    const document = params.textDocument?.uri ? this.options.documents.get(params.textDocument.uri) : undefined;
    if (params.textDocument?.uri && !document) throw new AssistantError('invalid-params', `assistant/ask: cannot read ${params.textDocument.uri}.`);

    const bare = async (task: TaskOrNone, message: string): Promise<AskResult> => {
      const interaction: Interaction = {
        id: randomUUID(),
        sessionId: this.session.id,
        timestamp: new Date().toISOString(),
        role: this.session.role,
        user: this.session.user,
        source: 'text',
        text,
        task,
        classification,
        context: {},
        responses: [],
        message,
      };
      await this.env.trace.add(interaction);
      return { interactionId: interaction.id, task, confidence: classification.confidence, message, responses: [] };
    };

    const task = classification.task;
    if (task === 'none') return bare('none', 'This request does not match any assistant task. Try e.g. "document the load method" or "explain this function".');
    if (!taskDefinition(task) || !this.registry.serves(task)) return bare(task, `The ${task} task is not available yet: no agent serves it.`);
    const found = this.askTarget(text, document, params.range, signal);
    if (!found) return bare(task, `Which code is this about? Select it, put the cursor on it, or name it (e.g. "document the load method").`);
    const result = await runTask(this.env, { task, document: found.document, target: found.target, text, source: 'text', classification }, signal, progress);
    const usable = result.candidates.filter((c) => c.plan).length;
    const message = result.interaction.message ?? `${usable} candidate${usable === 1 ? '' : 's'} for ${task} on ${found.target.name}; apply one with assistant/apply.`;
    return {
      interactionId: result.interaction.id,
      task,
      confidence: classification.confidence,
      message,
      responses: result.candidates.map((c) => ({
        id: c.response.id,
        agent: c.response.agent,
        status: c.response.status,
        text: c.response.text,
        ...(c.response.edit ? { edit: c.response.edit } : {}),
        ...(c.response.error ? { error: c.response.error } : {}),
      })),
    };
  }

  async apply(params: ApplyParams, port: EditorPort): Promise<ApplyResult> {
    if (typeof params?.interactionId !== 'string' || typeof params?.responseId !== 'string') throw new AssistantError('invalid-params', 'assistant/apply needs "interactionId" and "responseId".');
    const interaction = this.env.trace.get(params.interactionId);
    if (!interaction) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
    const response = interaction.responses.find((r) => r.id === params.responseId);
    if (!response) throw new AssistantError('unknown-interaction', `Interaction ${params.interactionId} has no response ${params.responseId}.`);
    if (!response.edit) throw new AssistantError('invalid-params', `Response ${params.responseId} has no edit to apply (${response.error ?? response.status}).`);
    if (interaction.sessionId !== this.session.id) throw new AssistantError('unavailable', 'This interaction belongs to another server session; run the task again here.');
    if (response.used) return { applied: false, outcome: 'failed', message: 'This response was already applied.' };
    return applyResponse(this.env, this.options.documents, port, interaction.id, response.id, `Assistant: ${interaction.task} ${interaction.context.symbol ?? ''}`.trim());
  }

  trace(params: TraceParams): TraceResult {
    const p = params ?? {};
    if (p.position !== undefined || p.textDocument !== undefined) {
      if (!p.textDocument?.uri || !p.position || !Number.isInteger(p.position.line) || !Number.isInteger(p.position.character)) {
        throw new AssistantError('invalid-params', 'assistant/trace: a position query needs "textDocument.uri" and "position".');
      }
      const document = this.options.documents.get(p.textDocument.uri);
      if (!document) throw new AssistantError('invalid-params', `assistant/trace: cannot read ${p.textDocument.uri}.`);
      const found = interactionsAt(this.env.trace, document, p.position);
      return { interactions: found.slice(0, p.limit ?? 50), total: found.length };
    }
    try {
      return this.env.trace.query(p);
    } catch (error) {
      if (error instanceof TypeError) throw new AssistantError('invalid-params', error.message);
      throw error;
    }
  }

  /** Whether the code at a position came from the assistant: offered as a code action, so it must stay cheap. */
  hasInteractionAt(uri: string, position: Position): boolean {
    const document = this.options.documents.get(uri);
    return document !== undefined && interactionsAt(this.env.trace, document, position).length > 0;
  }

  /** Shows the interactions behind the code at a position: a markdown report under `.assistant/`, or a message. */
  async showInteraction(args: ShowInteractionArgs, port: EditorPort): Promise<ShowInteractionResult> {
    if (!args?.textDocument?.uri || !isPosition(args.position)) throw new AssistantError('invalid-params', 'assistant.showInteraction needs a document and a position.');
    const document = this.options.documents.get(args.textDocument.uri);
    if (!document) throw new AssistantError('invalid-params', `Cannot read ${args.textDocument.uri}.`);
    const found = interactionsAt(this.env.trace, document, args.position);
    const interactionIds = found.map((i) => i.id);
    if (found.length === 0) {
      const message = 'No assistant interaction produced the code here.';
      port.showMessage('info', message);
      return { interactionIds, message };
    }
    const newest = found[0] as Interaction;
    const summary = `${newest.task} by ${newest.responses.find((r) => r.used)?.agent.name ?? newest.responses[0]?.agent.name ?? 'no agent'} at ${newest.timestamp} (interaction ${newest.id})`;
    const directory = path.join(this.options.root, '.assistant', 'interactions');
    const file = path.join(directory, `${newest.id}.md`);
    await fs.mkdir(directory, { recursive: true });
    await fs.writeFile(file, renderInteractions(found), 'utf8');
    const reportUri = pathToUri(file);
    if (await port.showDocument(reportUri)) return { interactionIds, reportUri, message: `Opened the report on ${summary}.` };
    const message = `This code comes from ${summary}${found.length > 1 ? ` and ${found.length - 1} earlier interaction(s)` : ''}. Report: ${file}`;
    port.showMessage('info', message);
    return { interactionIds, reportUri, message };
  }

  async rate(params: RateParams): Promise<RateResult> {
    if (typeof params?.interactionId !== 'string' || typeof params?.responseId !== 'string') throw new AssistantError('invalid-params', 'assistant/rate needs "interactionId" and "responseId".');
    if (params.rating !== 'up' && params.rating !== 'down' && params.rating !== null) throw new AssistantError('invalid-params', 'assistant/rate: "rating" must be "up", "down" or null.');
    if (params.comment !== undefined && typeof params.comment !== 'string') throw new AssistantError('invalid-params', 'assistant/rate: "comment" must be a string.');
    const interaction = this.env.trace.get(params.interactionId);
    if (!interaction) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
    if (!interaction.responses.some((r) => r.id === params.responseId)) throw new AssistantError('unknown-interaction', `Interaction ${params.interactionId} has no response ${params.responseId}.`);
    await this.env.trace.amendResponse(params.interactionId, params.responseId, { rating: params.rating, ...(params.comment?.trim() ? { feedback: params.comment.trim() } : {}) });
    return { interactionId: params.interactionId, responseId: params.responseId, rating: params.rating };
  }

  revert(params: RevertParams, port: EditorPort): Promise<RevertResult> {
    return revertResponse(this.env.trace, this.options.documents, port, params);
  }

  agents(): AgentsResult {
    return { agents: this.registry.list(), problems: [...this.registry.problems] };
  }

  async close(): Promise<void> {
    await this.env.trace.close();
  }

  private commandTarget(args: TaskCommandArgs): { document: DocumentSnapshot; target: DeclarationTarget } {
    if (!args?.textDocument?.uri || !isRange(args.range)) throw new AssistantError('invalid-params', 'The command needs a document and a range.');
    const document = this.options.documents.get(args.textDocument.uri);
    if (!document) throw new AssistantError('invalid-params', `Cannot read ${args.textDocument.uri}.`);
    const fileName = document.fsPath ?? document.uri;
    if (typeof args.textDocument.version === 'number' && document.version !== args.textDocument.version && args.symbol) {
      // The code action was offered on an older version: find the same declaration in the current text.
      const named = declarationsNamed(fileName, document.text, args.symbol);
      const wantedLine = args.range.start.line;
      const line = (t: DeclarationTarget): number => document.text.slice(0, t.start).split('\n').length - 1;
      const best = named.sort((a, b) => Math.abs(line(a) - wantedLine) - Math.abs(line(b) - wantedLine))[0];
      if (best) return { document, target: best };
      throw new AssistantError('stale', `${args.symbol} is no longer in the document; ask for the code actions again.`);
    }
    const starts = lineStarts(document.text);
    const target = declarationAt(fileName, document.text, positionToOffset(document.text, args.range.start, starts), positionToOffset(document.text, args.range.end, starts));
    if (!target) throw new AssistantError('stale', 'There is no declaration at that place any more; ask for the code actions again.');
    return { document, target };
  }

  private askTarget(text: string, document: DocumentSnapshot | undefined, range: Range | undefined, signal: AbortSignal): { document: DocumentSnapshot; target: DeclarationTarget } | undefined {
    if (document && range) {
      const starts = lineStarts(document.text);
      const target = declarationAt(document.fsPath ?? document.uri, document.text, positionToOffset(document.text, range.start, starts), positionToOffset(document.text, range.end, starts));
      if (target) return { document, target };
    }
    for (const name of extractNamedSymbols(text)) {
      const found = findDeclarations(name, this.options.root, this.options.documents, document, signal)[0];
      if (found) return found;
    }
    if (document) {
      // Plain words can name declarations too ("what load does"): match them against this document's names.
      const words = new Set(text.toLowerCase().match(/[a-z_$][\w$]*/g) ?? []);
      const named = listDeclarations(document.fsPath ?? document.uri, document.text).find((t) => words.has(t.simpleName.toLowerCase()));
      if (named) return { document, target: named };
    }
    return undefined;
  }

  private async classify(text: string, signal: AbortSignal): Promise<{ task: TaskOrNone; confidence: number; by: string }> {
    const model = this.registry.classifier();
    if (model) {
      try {
        const task = await model.classify(text, TASK_IDS.map((id) => ({ id, description: TASK_DESCRIPTIONS[id] })), signal);
        if (task !== undefined && (task === 'none' || isTaskId(task))) return { task, confidence: 1, by: model.descriptor.name };
      } catch (error) {
        signal.throwIfAborted();
        this.options.log(`classifier ${model.descriptor.name} failed, using the offline classifier: ${(error as Error).message}`);
      }
    }
    const result = classifyIntent(text, { threshold: this.options.settings.classifier.threshold });
    return { task: result.task, confidence: result.confidence, by: 'intent-offline' };
  }

  private async choose(candidates: Candidate[], target: DeclarationTarget, port: EditorPort, signal: AbortSignal): Promise<{ kind: 'one'; candidate: Candidate } | { kind: 'none'; message: string; discarded: boolean }> {
    const usable = candidates.filter((c) => c.plan);
    if (usable.length === 0) {
      const reasons = candidates.map((c) => `${c.response.agent.name}: ${c.response.error ?? c.response.status}`).join('; ');
      return { kind: 'none', message: `No usable answer for ${target.name}${reasons ? ` (${reasons})` : ''}.`, discarded: false };
    }
    if (usable.length === 1) return { kind: 'one', candidate: usable[0] as Candidate };
    const titles = usable.map((c) => `Use ${c.response.agent.name}`);
    const preview = usable.map((c, i) => `${i + 1}. ${c.response.agent.name}: ${firstLine(c.response.text)}`).join('\n');
    const picked = await port.choose(`${usable.length} answers for ${target.name}:\n${preview}`, [...titles, 'Discard']);
    signal.throwIfAborted();
    const index = picked === undefined ? -1 : titles.indexOf(picked);
    if (index < 0) {
      return { kind: 'none', message: `Discarded the answers for ${target.name}.`, discarded: true };
    }
    return { kind: 'one', candidate: usable[index] as Candidate };
  }
}

function commandText(task: TaskId, target: DeclarationTarget): string {
  return `${task} ${target.name}`;
}

function firstLine(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.replace(/^\s*(\/\*\*|\*\/|\*)\s?/, '').trim())
    .find((l) => l.length > 0);
  return (line ?? '').slice(0, 80);
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
