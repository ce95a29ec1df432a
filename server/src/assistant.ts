// The assistant core behind the LSP layer: a facade over the flows, in plain parameters and AbortSignals.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Position, Range } from 'vscode-languageserver-protocol';
import type {
  AcceptCompletionArgs,
  AcceptCompletionResult,
  AgentsResult,
  ApplyParams,
  ApplyResult,
  ApplyPatchArgs,
  ApplyPatchResult,
  AskParams,
  AskResult,
  DiscardParams,
  DiscardResult,
  FixAllArgs,
  FixAllResult,
  ListenerRunResult,
  FeedbackParams,
  FeedbackResult,
  PipelineStep,
  AssistantSettings,
  Interaction,
  RateParams,
  RateResult,
  RevertParams,
  RevertResult,
  ShowInteractionArgs,
  ShowInteractionResult,
  TaskCommandArgs,
  TaskCommandResult,
  TaskId,
  TraceParams,
  TraceResponse,
  TraceResult,
  TraceSession,
} from './protocol.js';
import { buildRegistry } from './agents/registry.js';
import { TraceStore } from './trace/traceStore.js';
import { interactionsAt } from './trace/positionLookup.js';
import { withPlace } from './trace/tracePlace.js';
import { InsertionTracker } from './trace/insertionTracker.js';
import { renderInteractions } from './trace/interactionReport.js';
import { offersAt } from './tasks/catalogue.js';
import type { DiagnosticInfo, TaskOffer } from './tasks/task.js';
import { PlanCache } from './tasks/runTask.js';
import type { TaskEnvironment } from './tasks/runTask.js';
import { applyResponse, recordOutcome } from './tasks/applyResponse.js';
import { revertResponse } from './tasks/revertResponse.js';
import { discardAnswers } from './tasks/discardAnswers.js';
import { failureNotice } from './tasks/failures.js';
import { resolveCommandFlow, runCommandFlow } from './tasks/commandFlow.js';
import type { FlowContext, ResolvedTask } from './tasks/commandFlow.js';
import { askFlow, workspaceRelative } from './tasks/askFlow.js';
import { feedbackFlow } from './tasks/feedbackFlow.js';
import { applyPatchFlow } from './tasks/applyPatchFlow.js';
import { Listeners } from './listeners/listeners.js';
import { RecentPositions } from './context/recentPositions.js';
import type { PublishProblems } from './listeners/listeners.js';
import { diagnosticsFromLsp } from './tasks/diagnostics.js';
import { findCheckerScript } from './oracle/checkerThread.js';
import { mergeDiagnostics, projectDiagnosticsCache } from './oracle/diagnosticsCache.js';
import type { DiagnosticsCache } from './oracle/diagnosticsCache.js';
import { isPosition, isRange, lineStarts, positionToOffset } from './edits/textEdits.js';
import type { DocumentSnapshot, DocumentSource } from './workspace/documentSnapshot.js';
import { uriToPath } from './workspace/documentSnapshot.js';
import { insideAssistantFolder, keepAssistantFolderOutOfGit, writeAssistantFile } from './workspace/assistantFiles.js';
import { reportListingLimits } from './workspace/workspaceFiles.js';
import { traceDirectoryOf } from './workspace/confinement.js';
import { userDataDirectory } from './workspace/userCache.js';
import { DEFAULT_SETTINGS } from './protocol.js';
import type { FileEvent } from './workspace/workspaceFiles.js';
import { Session } from './workspace/session.js';
import type { DocumentEdit, Workspace } from './workspace/workspace.js';
import type { EditorPort, ProgressSink } from './editorPort.js';
import { AssistantError } from './assistantError.js';
import { InlineCompletions } from './completion/inlineCompletions.js';
import type { CompletionEnvironment, CompletionTiming } from './completion/inlineCompletions.js';
import { acceptCompletion } from './completion/acceptCompletion.js';
import type { InlineCompletionList } from 'vscode-languageserver-protocol';

export { AssistantError } from './assistantError.js';
export type { ResolvedTask } from './tasks/commandFlow.js';

export interface AssistantOptions {
  root: string;
  /** The editor's open documents (the disk is the workspace's to read). */
  documents: DocumentSource;
  settings: AssistantSettings;
  settingsProblems: string[];
  env: NodeJS.ProcessEnv;
  client?: { name: string; version?: string };
  /** The client runs no other TypeScript server beside this one, so `diagnostics.publish: auto` publishes type errors. */
  wantsTypeErrors?: boolean;
  /** The client declared inline completion: a local model serving it is loaded before the first request. */
  showsInlineCompletions?: boolean;
  log: (message: string) => void;
  /** Publishes the listeners' problems of a document (the LSP layer sends them as diagnostics). */
  publishProblems?: PublishProblems;
}

/** How many asks remember the document they were typed in (see `Assistant.askedFrom`). */
const ASKED_FROM_KEPT = 200;

export class Assistant {
  private readonly env: TaskEnvironment;
  private classifierThreshold: number;
  /** The server's own diagnostics of open documents, computed in the background per version. */
  private readonly ownDiagnostics: DiagnosticsCache;
  /** Whether the compiler's errors of open documents are published (the setting `diagnostics.publish`). */
  private publishTypeErrors: boolean;
  /** Pipeline runs being replayed after feedback, by response id. */
  private readonly replaying = new Map<string, PipelineStep>();
  /** The document each recent `assistant/ask` with answers was typed in, so applying says when the edit went elsewhere. */
  private readonly askedFrom = new Map<string, string | undefined>();
  /** The check commands' results (type-check, tests, lint) and the lint queue. */
  private readonly listeners: Listeners;
  /** Where the code the assistant inserted is now, and whether applied edits reached the disk. */
  private readonly insertions: InsertionTracker;
  /** The workspaces of this editor session: the one owner of their files, documents, projects and index. */
  private readonly workspaces: Session;
  /** The workspace folder the editor opened. */
  private readonly workspace: Workspace;
  /** Inline completions: supersession, debounce and the cache of suggestions being typed through. */
  private readonly completions = new InlineCompletions();
  private completionSettings: AssistantSettings['completion'];
  /** Why the configured `trace.directory` was refused, for the user to see (undefined: it was not). */
  traceDirectoryProblem: string | undefined;

  private constructor(
    private readonly options: AssistantOptions,
    readonly session: TraceSession,
    trace: TraceStore,
    workspaces: Session,
  ) {
    const registry = buildRegistry(options.settings, options.env, options.settingsProblems);
    this.workspaces = workspaces;
    this.workspace = this.workspaces.workspace(options.root);
    this.env = {
      root: this.workspace.root,
      workspace: this.workspace,
      registry,
      trace,
      sessionId: session.id,
      user: session.user,
      role: session.role,
      agentTimeoutMs: options.settings.orchestrator.agentTimeoutMs,
      maxAttempts: options.settings.orchestrator.maxAttempts,
      strategy: options.settings.orchestrator.strategy,
      oracle: options.settings.oracle,
      pipelines: options.settings.pipelines,
      documents: this.workspace.documents,
      recent: new RecentPositions(),
      annotations: options.settings.annotations.enabled,
      preview: options.settings.preview,
      plans: new PlanCache(),
    };
    this.classifierThreshold = options.settings.classifier.threshold;
    this.completionSettings = options.settings.completion;
    this.publishTypeErrors = publishesTypeErrors(options.settings, options.wantsTypeErrors === true);
    this.insertions = new InsertionTracker(trace, (uri) => options.documents.get(uri)?.text, readFileOf, options.log);
    this.listeners = new Listeners(this.env, this.workspace.documents, options.publishProblems ?? (() => undefined));
    const checker = findCheckerScript();
    if (!checker) options.log('background type-checks run on the main thread: the worker script diagnosticsWorker.js is not beside the server');
    this.ownDiagnostics = projectDiagnosticsCache(this.workspace.projects, {
      script: checker ?? null,
      onError: (uri, e) => options.log(`diagnostics of ${uri}: ${e instanceof Error ? e.message : String(e)}`),
      onComputed: (uri, version, diagnostics) => {
        const document = this.workspace.documents.get(uri);
        if (document && document.version === version) this.listeners.typeErrorsChecked(document, diagnostics, this.publishTypeErrors);
      },
    });
    reportListingLimits((root, message) => options.log(`workspace files of ${root}: ${message}`));
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
    const confined = traceDirectoryOf(options.root, settings.trace.directory, DEFAULT_SETTINGS.trace.directory, userDataDirectory(options.env));
    const directory = confined.directory;
    // Listed with the other settings problems (logged, and answered by assistant/agents).
    if (confined.problem) options.settingsProblems.push(confined.problem);
    // The trace is the server's first write into `.assistant/`: its .gitignore comes first.
    await keepTraceOutOfGit(options.root, directory, settings.trace.commit, options.log);
    const workspaces = new Session(options.documents);
    // The trace leaves out the code of files the workspace keeps from models, by the workspace's own rule.
    const exclusion = workspaces.workspace(options.root).exclusion;
    const trace = await TraceStore.open({ directory, session, segmentSize: settings.trace.segmentSize, exclusion, onWarning: (m) => options.log(`trace: ${m}`) });
    const assistant = new Assistant(options, session, trace, workspaces);
    assistant.traceDirectoryProblem = confined.problem;
    return assistant;
  }

  /** Applies new settings without a restart (the trace location stays until the next start). */
  reconfigure(settings: AssistantSettings, problems: string[]): void {
    void keepTraceOutOfGit(this.options.root, this.env.trace.directory, settings.trace.commit, this.options.log);
    const confined = traceDirectoryOf(this.options.root, settings.trace.directory, this.env.trace.directory, userDataDirectory(this.options.env));
    this.traceDirectoryProblem = confined.problem;
    const previous = this.env.registry;
    this.env.registry = buildRegistry(settings, this.options.env, confined.problem ? [...problems, confined.problem] : problems, previous);
    void previous.dispose(this.env.registry);
    this.env.agentTimeoutMs = settings.orchestrator.agentTimeoutMs;
    this.env.maxAttempts = settings.orchestrator.maxAttempts;
    this.env.strategy = settings.orchestrator.strategy;
    this.env.oracle = settings.oracle;
    this.env.pipelines = settings.pipelines;
    this.env.annotations = settings.annotations.enabled;
    this.env.preview = settings.preview;
    this.classifierThreshold = settings.classifier.threshold;
    this.completionSettings = settings.completion;
    this.publishTypeErrors = publishesTypeErrors(settings, this.options.wantsTypeErrors === true);
    this.completions.reset();
  }

  /** The problems of the settings applied last, each once: the LSP layer logs and shows them when they change. */
  settingsProblems(): readonly string[] {
    return this.env.registry.problems;
  }

  /** Tasks offered at a range: syntax only, no model, no type checker. */
  /** A document as the editor has it, else as the disk has it. */
  document(uri: string): DocumentSnapshot | undefined {
    return this.workspace.documents.get(uri);
  }

  offers(uri: string, range: Range, diagnostics: unknown = []): TaskOffer[] {
    const document = this.workspace.documents.get(uri);
    if (!document) return [];
    // Where the editor asks for actions is where the user works: the last such places go with model requests.
    this.env.recent?.record(uri, range, document.version);
    const starts = lineStarts(document.text);
    const start = positionToOffset(document.text, range.start, starts);
    const end = positionToOffset(document.text, range.end, starts);
    const own = [...(document.version === null ? [] : (this.ownDiagnostics.get(uri, document.version) ?? [])), ...this.listeners.diagnosticsOf(uri, document.text)];
    const context = { document, start: Math.min(start, end), end: Math.max(start, end), diagnostics: mergeDiagnostics(diagnosticsFromLsp(document.text, diagnostics), own) };
    return offersAt(context, (task, needsModel) => (needsModel ? this.env.registry.forTask(task).some((agent) => agent.descriptor.isLLM) : this.env.registry.serves(task)));
  }

  /** Names of the agents that serve a task, in registry order. */
  agentsFor(task: TaskId): string[] {
    return this.env.registry.forTask(task).map((agent) => agent.descriptor.name);
  }

  /**
   * A document opened or changed: the workspace hears where (`edit`, when the editor said it), the document's
   * background type-check is scheduled (only useful when some agent fixes diagnostics), and a local completion model
   * starts loading.
   */
  documentChanged(uri: string, edit?: DocumentEdit): void {
    this.workspace.documentChanged(uri, edit);
    const document = this.workspace.documents.get(uri);
    // Also checked where the type errors are published, or were reported by assistant.checkTypes: they follow the text.
    if (document && (this.env.registry.serves('fix') || this.publishTypeErrors || this.listeners.reportedTypeErrors(uri))) this.ownDiagnostics.request(document);
    if (edit) this.insertions.changed(uri, edit.after, edit.before, edit.steps);
    else if (document) this.insertions.changed(uri, document.text);
    // A local model serving completions starts loading with the first document, not with the first suggestion, in
    // clients that show completions (a client that never asks would reload it after every idle unload).
    if (document && (this.options.showsInlineCompletions === true || this.completions.asked)) this.completions.warm(this.completionEnvironment());
  }

  /** The editor opened a document. */
  documentOpened(uri: string): void {
    this.workspace.documentOpened(uri);
  }


  /** The editor reports files that came, changed or went. */
  filesChanged(events: readonly FileEvent[]): void {
    this.workspace.filesChanged(events);
  }

  /** The editor watches the workspace's files for the server: the workspace trusts its events. */
  watchingFiles(): void {
    this.workspace.watching();
  }

  /** The editor saved a document: the code the assistant inserted there reached the disk, or did not. */
  documentSaved(uri: string): void {
    this.workspace.documentSaved(uri);
    this.insertions.saved(uri);
  }

  /** The editor closed a document: what was kept of its versions goes, and what reached the disk decides what was kept. */
  documentClosed(uri: string, languageId: string): void {
    this.completions.forget(uri);
    this.insertions.closed(uri);
    this.ownDiagnostics.forget(uri);
    this.workspace.documentClosed(uri, languageId);
  }

  /** The server's own diagnostics of a document at its current version, when computed. */
  cachedDiagnostics(uri: string, version: number | null): DiagnosticInfo[] {
    return version === null ? [] : (this.ownDiagnostics.get(uri, version) ?? []);
  }

  runCommand(task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<TaskCommandResult> {
    if (args?.textDocument?.uri && isRange(args.range)) this.env.recent?.record(args.textDocument.uri, args.range, args.textDocument.version ?? null);
    return runCommandFlow(this.flow(), task, args, signal, progress, port);
  }

  resolveCommand(task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<ResolvedTask> {
    return resolveCommandFlow(this.flow(), task, args, signal, progress, port);
  }

  /** Records that the client applied a resolved code action's edit, and names the agents that failed beside it. */
  async responseApplied(interactionId: string, responseId: string, port: EditorPort): Promise<void> {
    const interaction = this.env.trace.get(interactionId);
    const response = interaction?.responses.find((r) => r.id === responseId);
    if (!interaction || !response) throw new AssistantError('unknown-interaction', `No response ${responseId} in interaction ${interactionId}.`);
    await recordOutcome(this.env, interactionId, responseId, { applied: true, outcome: 'applied' }, this.env.plans.get(responseId));
    this.warnOfFailures(interaction, response, port);
  }

  /** A warning naming the interaction's failed agents, once another agent's answer was used. */
  private warnOfFailures(interaction: Interaction, used: TraceResponse, port: EditorPort): void {
    const notice = failureNotice(interaction.responses, used);
    if (notice) port.showMessage('warning', notice);
  }

  async ask(params: AskParams, signal: AbortSignal, progress: ProgressSink): Promise<AskResult> {
    if (params?.textDocument?.uri && isRange(params.range)) this.env.recent?.record(params.textDocument.uri, params.range);
    const result = await askFlow({ env: this.env, documents: this.workspace.documents, threshold: this.classifierThreshold, log: this.options.log, diagnostics: (d) => this.knownDiagnostics(d) }, params, signal, progress);
    if (result.responses.length > 0) {
      this.askedFrom.set(result.interactionId, params.textDocument?.uri);
      // Only the latest asks are applied; the oldest entries go.
      for (const key of this.askedFrom.keys()) {
        if (this.askedFrom.size <= ASKED_FROM_KEPT) break;
        this.askedFrom.delete(key);
      }
    }
    return result;
  }

  /** A document's diagnostics when the background type-check has this version (the listeners' beside them), else undefined. */
  private knownDiagnostics(document: DocumentSnapshot): DiagnosticInfo[] | undefined {
    const own = document.version === null ? undefined : this.ownDiagnostics.get(document.uri, document.version);
    return own && mergeDiagnostics(this.listeners.diagnosticsOf(document.uri, document.text), own);
  }

  /** Feedback on one step of a pipeline run: the run again from that step, as a new interaction with unapplied candidates. */
  feedback(params: FeedbackParams, signal: AbortSignal, progress: ProgressSink): Promise<FeedbackResult> {
    return feedbackFlow({ env: this.env, documents: this.workspace.documents, replaying: this.replaying }, params, signal, progress);
  }

  /** Type-checks the whole project and publishes the errors. */
  checkTypes(signal: AbortSignal, progress: ProgressSink): Promise<ListenerRunResult> {
    return this.listeners.typeCheck(signal, progress);
  }

  /** Runs the project's tests (asking first unless allowed) and publishes each failure at its assertion. */
  runTests(signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<ListenerRunResult> {
    return this.listeners.tests(signal, progress, port);
  }

  /** Lints the project with its own ESLint, publishes the problems and keeps them as the "fix all" queue. */
  lint(signal: AbortSignal, progress: ProgressSink): Promise<ListenerRunResult> {
    return this.listeners.lint(signal, progress);
  }

  /** Works through the lint queue (the given ids, or all), one item at a time. */
  fixAll(args: FixAllArgs | undefined, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<FixAllResult> {
    if (args?.ids !== undefined && !(Array.isArray(args.ids) && args.ids.every((id) => typeof id === 'string'))) throw new AssistantError('invalid-params', 'assistant.fixAll: "ids" must be a list of queue item ids.');
    return this.listeners.fixAll(args?.ids, signal, progress, port);
  }

  /** Applies a pasted unified diff to the files as they are now. */
  applyPatch(args: ApplyPatchArgs, port: EditorPort): Promise<ApplyPatchResult> {
    return applyPatchFlow(this.env, this.workspace.documents, port, args);
  }

  async apply(params: ApplyParams, port: EditorPort): Promise<ApplyResult> {
    if (typeof params?.interactionId !== 'string' || typeof params?.responseId !== 'string') throw new AssistantError('invalid-params', 'assistant/apply needs "interactionId" and "responseId".');
    const interaction = this.env.trace.get(params.interactionId);
    if (!interaction) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
    const response = interaction.responses.find((r) => r.id === params.responseId);
    if (!response) throw new AssistantError('unknown-interaction', `Interaction ${params.interactionId} has no response ${params.responseId}.`);
    if (interaction.sessionId !== this.session.id) throw new AssistantError('unavailable', 'This interaction belongs to another server session; run the task again here.');
    // A text answer the client showed (assistant/ask returns it whole): the trace learns that it was used.
    if (!response.edit && response.status === 'ok' && response.text.trim() !== '') {
      const shown: ApplyResult = { applied: false, outcome: 'shown' };
      if (!response.used) await recordOutcome(this.env, interaction.id, response.id, shown);
      return shown;
    }
    if (!response.edit) throw new AssistantError('invalid-params', `Response ${params.responseId} has no edit to apply (${response.error ?? response.status}).`);
    // Applied once is applied: a response discarded after that keeps its record (run the task again instead).
    if (response.used || response.insertedAt?.length) return { applied: false, outcome: 'failed', message: 'This response was already applied.' };
    const proposal = this.env.plans.get(response.id);
    const result = await applyResponse(this.env, this.workspace.documents, port, interaction.id, response.id, `Assistant: ${interaction.task} ${interaction.context.symbol ?? ''}`.trim());
    if (!result.applied) return result;
    this.warnOfFailures(interaction, response, port);
    // An edit that landed out of sight (another file than the one the user asked from) names where it went.
    const elsewhere = proposal ? [...proposal.documents.map((d) => d.uri), ...proposal.creates.map((c) => c.uri)].filter((uri) => uri !== this.askedFrom.get(interaction.id)) : [];
    if (elsewhere.length === 0) return result;
    const files = [...new Set(elsewhere)].map((uri) => { const fsPath = uriToPath(uri); return fsPath ? workspaceRelative(this.env.root, fsPath) : uri; });
    return { ...result, message: [`Edited ${files.join(', ')}.`, result.message].filter(Boolean).join(' ') };
  }

  /**
   * Inline completions at a position (`textDocument/inlineCompletion`): an empty list at once without a model agent;
   * see `completion/inlineCompletions.ts` for supersession, the debounce and the cache. For a request the user made
   * (`invoked`, a key rather than typing) an empty list for a reason they can act on comes with a message through
   * `port`.
   */
  inlineCompletion(uri: string, position: Position, signal: AbortSignal, invoked = false, port?: Pick<EditorPort, 'showMessage'>, timing?: CompletionTiming): Promise<InlineCompletionList> {
    const document = this.workspace.documents.get(uri);
    if (!document) throw new AssistantError('invalid-params', `textDocument/inlineCompletion: cannot read ${uri}.`);
    if (!isPosition(position)) throw new AssistantError('invalid-params', 'textDocument/inlineCompletion needs a "position".');
    const explain = invoked && port ? (message: string): void => port.showMessage('info', message) : undefined;
    return this.completions.complete({ ...this.completionEnvironment(), ...(explain ? { explain } : {}) }, document, position, signal, timing);
  }
  private completionEnvironment(): CompletionEnvironment {
    return { workspace: this.workspace, registry: this.env.registry, settings: this.completionSettings, recent: this.env.recent, log: this.options.log };
  }


  /** Records an accepted inline completion in the trace (`assistant.acceptCompletion`). */
  acceptCompletion(args: AcceptCompletionArgs): Promise<AcceptCompletionResult> {
    return acceptCompletion({ root: this.env.root, registry: this.env.registry, trace: this.env.trace, documents: this.workspace.documents, sessionId: this.env.sessionId, user: this.env.user, role: this.env.role }, args);
  }

  /**
   * Waits for every record and amendment issued before now (an acceptance the editor did not wait for, what saves
   * said of inserted code), so a question about the trace sees what the user just did.
   */
  private async traceSettled(): Promise<void> {
    await this.insertions.idle();
    await this.env.trace.flush();
  }

  /**
   * Answers from the trace with the positions of inserted code as they are now, once what was issued before is written,
   * and where each interaction leads (`place`).
   */
  async trace(params: TraceParams): Promise<TraceResult> {
    await this.traceSettled();
    const p = params ?? {};
    if (p.position !== undefined || p.textDocument !== undefined) {
      if (!p.textDocument?.uri || !isPosition(p.position)) throw new AssistantError('invalid-params', 'assistant/trace: a position query needs "textDocument.uri" and "position".');
      const document = this.workspace.documents.get(p.textDocument.uri);
      if (!document) throw new AssistantError('invalid-params', `assistant/trace: cannot read ${p.textDocument.uri}.`);
      const found = interactionsAt(this.env.trace, this.insertions, document, p.position);
      return { interactions: found.slice(0, p.limit ?? 50).map(withPlace), total: found.length };
    }
    try {
      const result = this.env.trace.query(p);
      // Where each leads is decided once the insertions are where they are now.
      return { ...result, interactions: result.interactions.map((interaction) => withPlace(this.insertions.overlay(interaction))) };
    } catch (error) {
      if (error instanceof TypeError) throw new AssistantError('invalid-params', error.message);
      throw error;
    }
  }

  /** Whether the code at a position came from the assistant: offered as a code action, so it must stay cheap. */
  hasInteractionAt(uri: string, position: Position): boolean {
    const document = this.workspace.documents.get(uri);
    return document !== undefined && interactionsAt(this.env.trace, this.insertions, document, position).length > 0;
  }

  /** Shows the interactions behind the code at a position: a markdown report under `.assistant/`, or a message. */
  async showInteraction(args: ShowInteractionArgs, port: EditorPort): Promise<ShowInteractionResult> {
    if (!args?.textDocument?.uri || !isPosition(args.position)) throw new AssistantError('invalid-params', 'assistant.showInteraction needs a document and a position.');
    await this.traceSettled();
    const document = this.workspace.documents.get(args.textDocument.uri);
    if (!document) throw new AssistantError('invalid-params', `Cannot read ${args.textDocument.uri}.`);
    const found = interactionsAt(this.env.trace, this.insertions, document, args.position);
    const interactionIds = found.map((i) => i.id);
    if (found.length === 0) {
      const message = 'No assistant interaction produced the code here.';
      port.showMessage('info', message);
      return { interactionIds, message };
    }
    const newest = found[0] as Interaction;
    const summary = `${newest.task} by ${newest.responses.find((r) => r.used)?.agent.name ?? newest.responses[0]?.agent.name ?? 'no agent'} at ${newest.timestamp} (interaction ${newest.id})`;
    const report = await writeAssistantFile(this.options.root, 'interactions', `${newest.id}.md`, renderInteractions(found));
    if (await port.showDocument(report.uri)) return { interactionIds, reportUri: report.uri, message: `Opened the report on ${summary}.` };
    const message = `This code comes from ${summary}${found.length > 1 ? ` and ${found.length - 1} earlier interaction(s)` : ''}. Report: ${report.path}`;
    port.showMessage('info', message);
    return { interactionIds, reportUri: report.uri, message };
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
    return revertResponse(this.env.trace, this.insertions, this.workspace.documents, port, params, this.env.root, this.env.preview);
  }

  /** Records that the user chose none of an `assistant/ask`'s answers (`assistant/discard`). */
  discard(params: DiscardParams): Promise<DiscardResult> {
    return discardAnswers(this.env.trace, params);
  }

  agents(): AgentsResult {
    return { agents: this.env.registry.list(), problems: [...this.env.registry.problems] };
  }

  async close(): Promise<void> {
    this.ownDiagnostics.dispose();
    const agents = this.env.registry.dispose();
    // What reached the disk decides which applied edits were kept, before the trace closes.
    const settled = this.insertions.close().catch((error: unknown) => this.options.log(`trace: ${error instanceof Error ? error.message : String(error)}`));
    await Promise.all([settled.then(() => this.env.trace.close()), this.workspaces.close(), agents]);
  }

  private flow(): FlowContext {
    return { env: this.env, documents: this.workspace.documents };
  }
}

/**
 * Writes `.assistant/.gitignore` when the trace lives in `.assistant/`, as `trace.commit` says (see
 * `workspace/assistantFiles.ts`); a folder the server cannot write to is reported and left, the trace says more.
 */
async function keepTraceOutOfGit(root: string, traceDirectory: string, commit: boolean, log: (message: string) => void): Promise<void> {
  const inside = insideAssistantFolder(root, traceDirectory);
  if (inside === undefined) return;
  try {
    await keepAssistantFolderOutOfGit(root, { ...(commit ? { commitTrace: inside } : {}), rewrite: true });
  } catch (error) {
    log(`could not write .assistant/.gitignore: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A file's text on disk, by URI; undefined when there is none (or it is not a file). */
function readFileOf(uri: string): string | undefined {
  const fsPath = uriToPath(uri);
  if (!fsPath) return undefined;
  try {
    return fs.readFileSync(fsPath, 'utf8');
  } catch {
    return undefined;
  }
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** `diagnostics.publish`: `auto` publishes only to a client that runs no other TypeScript server beside this one. */
function publishesTypeErrors(settings: AssistantSettings, clientWantsThem: boolean): boolean {
  return settings.diagnostics.publish === 'always' || (settings.diagnostics.publish === 'auto' && clientWantsThem);
}
