// Free-text requests: classify into a task, find the code it is about, run the agents, return candidates unapplied.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TASK_DESCRIPTIONS, TASK_IDS, isTaskId } from '../protocol.js';
import type { AskParams, AskResponse, AskResult, Interaction, TaskId, TaskOrNone } from '../protocol.js';
import { AssistantError } from '../assistantError.js';
import { classifyIntent, extractNamedSymbols, requestForm } from '../agents/intentClassifier.js';
import { hasOfflineAgent } from '../agents/registry.js';
import type { ProgressSink } from '../editorPort.js';
import { isRange, lineStarts, positionToOffset } from '../edits/textEdits.js';
import { listDeclarations } from '../repo/declarations.js';
import { bindingsNamed, findDeclarations } from '../repo/findSymbol.js';
import { diagnosticsOf, projectPathOf } from '../oracle/typeCheck.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { isSupportedLanguage, syntaxFileName, workspaceSnapshot } from '../workspace/documentSnapshot.js';
import { taskDefinition } from './catalogue.js';
import { cursorContextAt } from './cursorContext.js';
import { runTask } from './runTask.js';
import { failureLines } from './failures.js';
import { answerSummary } from './answerSummary.js';
import type { Candidate, TaskEnvironment } from './runTask.js';
import type { DiagnosticInfo, TaskTarget } from './task.js';
import { wholeWorkspaceTarget } from './task.js';

export interface AskContext {
  env: TaskEnvironment;
  documents: DocumentSource;
  threshold: number;
  log: (message: string) => void;
  /**
   * The server's diagnostics of a document already known for its version (the background type-check's, the
   * listeners'), or undefined when the type-check has not seen this version: then the request checks it itself.
   */
  diagnostics?: (document: DocumentSnapshot) => DiagnosticInfo[] | undefined;
}

/** Diagnostics checked here because the background check had not seen the version, per exact snapshot. */
const checkedHere = new WeakMap<DocumentSnapshot, DiagnosticInfo[]>();

/**
 * A document's diagnostics from the server's own type-check, so "fix this error" never depends on what the client
 * sent: the background check's for this version, else checked now through the project that governs the file.
 */
export function documentDiagnostics(context: Pick<AskContext, 'env' | 'diagnostics'>, document: DocumentSnapshot): DiagnosticInfo[] {
  const known = context.diagnostics?.(document);
  if (known !== undefined) return known;
  let checked = checkedHere.get(document);
  if (checked === undefined) {
    const projects = context.env.workspace.projects;
    const fsPath = projectPathOf(projects.workspace, document.uri, document.languageId);
    try {
      checked = isSupportedLanguage(document.languageId) ? diagnosticsOf(projects.forFile(fsPath), fsPath, document.text) : [];
    } catch {
      // A document the compiler cannot take (a name no file system accepts) has no diagnostics to fix.
      checked = [];
    }
    checkedHere.set(document, checked);
  }
  return checked;
}

/** A question about where something is or which thing does it: asked in an editor, it is about the code. */
const PLACE_QUESTION = /^\s*(?:where|which)\b/i;

export type Classification = NonNullable<Interaction['classification']> & { task: TaskOrNone };

/**
 * The offline classifier's answer, but for a request it found about the code without telling which task it asks for
 * (none, with some confidence): that one goes to the model classifier, when one is configured and names a task or
 * none (a model that fails or names nothing leaves the offline answer). The offline classifier reads the code at the
 * cursor and the names the workspace declares, which a model is not sent: on the intent tuning sets its tasks were
 * right for 206 of 212 requests, while the small local model named the right task for about one in ten of the same
 * requests, and put out-of-scope requests ("book me a table") to tasks. A plain request costs no model call. The
 * evaluation classifies its questions through it too, so a question it would send elsewhere scores as the user's.
 */
export async function classifyRequest(context: Pick<AskContext, 'env' | 'threshold' | 'log' | 'diagnostics'>, text: string, document: DocumentSnapshot | undefined, signal: AbortSignal, cursor?: { start: number; end: number }): Promise<Classification> {
  const offline = await classifyOffline(context, text, document, signal, cursor);
  if (offline.task !== 'none' || offline.confidence === 0) return offline;
  const model = context.env.registry.classifier();
  if (model) {
    try {
      const task = await model.classify(text, TASK_IDS.map((id) => ({ id, description: TASK_DESCRIPTIONS[id] })), signal);
      if (task !== undefined && (task === 'none' || isTaskId(task))) return { task, confidence: 1, by: model.descriptor.name };
    } catch (error) {
      signal.throwIfAborted();
      context.log(`classifier ${model.descriptor.name} failed, using the offline classifier: ${(error as Error).message}`);
    }
  }
  return offline;
}

/** The offline intent classifier on the request, the names the document and the workspace declare, and the code at the cursor. */
async function classifyOffline(context: Pick<AskContext, 'env' | 'threshold' | 'diagnostics'>, text: string, document: DocumentSnapshot | undefined, signal: AbortSignal, cursor?: { start: number; end: number }): Promise<Classification> {
  // The names declared in the document let "make spread faster" count as a request about code, and so do the
  // workspace's: "where is email validated?" asks about the `email` the code declares.
  const own = new Set(document ? listDeclarations(syntaxFileName(document), document.text).map((d) => d.simpleName) : []);
  const index = context.env.workspace.index;
  if (!index.walked()) await index.current(signal);
  // Two words the code itself uses say the request is about it as well ("where are patches generated?", or with a
  // file open "how does the cache decide data is stale?"); one common word ("what time is it") does not. Asking where or which of something the code names ("where is the quantity
  // checked?"), or saying what it must do ("the checkout should refuse empty carts"), is about the code too.
  const used = index.usedWords(text).length;
  const form = requestForm(text);
  const aboutWorkspace = ((document === undefined || form.aboutBehaviour) && used >= 2) || ((PLACE_QUESTION.test(text) || form.requirement) && used >= 1);
  const symbols = { has: (word: string): boolean => aboutWorkspace || own.has(word) || (word.length >= 3 && index.declarations(() => true, 1, word).length > 0) };
  // Interfaces and abstract classes: naming one ("a Map-backed Repo") points at it as the cursor on it would.
  const declared = document ? listDeclarations(syntaxFileName(document), document.text) : [];
  const implementable = {
    has: (word: string): boolean =>
      declared.some((d) => d.simpleName === word && d.kind === 'interface') ||
      index.declarations((_name, kind) => kind === 'interface', 1, word).some((d) => d.name === word) ||
      index.declarations((_name, kind) => kind === 'class', 1, word).some((d) => d.name === word && /\babstract\b/.test(d.signature ?? '')),
  };
  // Functions, methods and classes by their exact name: saying one ("the catch in retry") names code, where a word the
  // code also declares as data ("data", "window") may be the user's own.
  const callables = {
    has: (word: string): boolean =>
      declared.some((d) => d.simpleName === word && d.kind !== 'interface') || index.declarations((_name, kind) => kind === 'function' || kind === 'method' || kind === 'class', 1, word).some((d) => d.name === word || d.name.endsWith(`.${word}`)),
  };
  // The code at the cursor is context: "correct it" on an error, "fill this in" in an empty body.
  const at = document && cursor ? cursorContextAt(document, cursor.start, cursor.end, documentDiagnostics(context, document)) : undefined;
  const result = classifyIntent(text, { threshold: context.threshold, symbols, implementable, callables, ...(at ? { cursor: at } : {}) });
  return { task: result.task, confidence: result.confidence, by: 'intent-offline' };
}

interface Found {
  document: DocumentSnapshot;
  target: TaskTarget;
  parameters: Record<string, string>;
}

function targetAt(context: Pick<AskContext, 'env' | 'diagnostics'>, task: TaskId, document: DocumentSnapshot, start: number, end: number, text: string): Found | undefined {
  const definition = taskDefinition(task);
  if (!definition) return undefined;
  // Only a fix looks at diagnostics; checking a file for the others would cost a type-check for nothing.
  const diagnostics = task === 'fix' ? documentDiagnostics(context, document) : [];
  const asked = definition.askTarget?.(document, start, end, text, diagnostics);
  if (asked) return { document, target: asked.target, parameters: asked.parameters ?? {} };
  const offer = definition.offersAt({ document, start, end, diagnostics })[0];
  return offer ? { document, target: offer.target, parameters: offer.parameters ?? {} } : undefined;
}

/**
 * A real selection first; then the symbols the text names; then the cursor (an empty range, which says less than
 * a name in the text); then plain words naming a declaration of the document.
 */
async function findTarget(context: Pick<AskContext, 'env' | 'diagnostics'>, task: TaskId, text: string, document: DocumentSnapshot | undefined, params: AskParams, signal: AbortSignal): Promise<Found | undefined> {
  const cursor = document ? cursorOf(document, params) : undefined;
  if (document && cursor && cursor.end > cursor.start) {
    const found = targetAt(context, task, document, cursor.start, cursor.end, text);
    if (found) return found;
  }
  for (const name of extractNamedSymbols(text)) {
    const hits = (await findDeclarations(name, context.env.workspace, document, signal)).map((hit) => ({ document: hit.document, start: hit.target.start, end: hit.target.start }));
    // A name the current document binds (a constant made by a call, which is no declaration to the index) is the one
    // the user means: another file's declaration of the same name is never taken over it.
    const own = document && hits[0]?.document.uri !== document.uri ? bindingsNamed(document, name).map((binding) => ({ document, ...binding })) : [];
    for (const hit of own.length > 0 ? own : hits) {
      const found = targetAt(context, task, hit.document, hit.start, hit.end, text);
      if (found) return found;
    }
    if (own.length > 0) break;
  }
  if (document && cursor) {
    const found = targetAt(context, task, document, cursor.start, cursor.end, text);
    if (found) return found;
  }
  if (document) {
    const words = new Set(text.toLowerCase().match(/[a-z_$][\w$]*/g) ?? []);
    const named = listDeclarations(document.fsPath ?? document.uri, document.text).find((t) => words.has(t.simpleName.toLowerCase()));
    if (named) return targetAt(context, task, document, named.start, named.start, text);
  }
  return undefined;
}

/** The request's range as offsets into the document, start before end. */
function cursorOf(document: DocumentSnapshot, params: AskParams): { start: number; end: number } | undefined {
  if (!params.range) return undefined;
  const starts = lineStarts(document.text);
  const start = positionToOffset(document.text, params.range.start, starts);
  const end = positionToOffset(document.text, params.range.end, starts);
  return { start: Math.min(start, end), end: Math.max(start, end) };
}

/** For workspace-wide tasks: the given document as context, or the workspace folder itself with no text. */
function workspaceTarget(root: string, document: DocumentSnapshot | undefined, text: string): Found {
  const snapshot: DocumentSnapshot = document ?? workspaceSnapshot(root);
  return { document: snapshot, target: wholeWorkspaceTarget(), parameters: { question: text } };
}

/**
 * Why nothing serves a task: a task with no offline agent needs a model agent, which the user can configure; one whose
 * offline agent is disabled in the settings is not available.
 */
function unservedMessage(task: TaskId): string {
  if (hasOfflineAgent(task)) return `The ${task} task is not available yet: no agent serves it (its agents are disabled in the settings).`;
  return `This needs a model agent: no offline agent can ${TASK_VERBS[task] ?? `do the ${task} task`}. Configure one (see "Models" in the README).`;
}

/** What a task does, as the needs-a-model message says it. */
const TASK_VERBS: Partial<Record<TaskId, string>> = {
  class: 'write a new class',
  issue: 'work on an issue or a bug described in words',
  generate: 'write new code',
  optimize: 'optimise code',
};

const NO_DIAGNOSTIC = 'No error or warning at or near the cursor: put the cursor on the problem, or describe the bug ("fix the bug where …", which needs a model agent).';

/** A request worded as a question: a question word first, or a question mark last. */
const QUESTION_FORM = /^\s*(?:how|where|which|what|when|why|who|whose|is there|are there)\b|\?\s*$/i;

/** Fewest words of a request, nearly all of them the code's, that make it a search when nothing else can answer it. */
const SEARCH_WORDS = 3;
/** The share of a request's words the code must use for it to read as a search: one everyday word ("by hand") in six is allowed. */
const SEARCH_SHARE = 0.8;

/**
 * Whether a request reads as a search of the code base typed as an instruction ("flatten errors into field errors",
 * "update cached data by hand after a mutation"): nearly every word it has beyond stop words is one the workspace's
 * code uses, and it has several. It is asked only of a request with no file at hand whose task found no code to work
 * on (it named none the workspace declares).
 */
function readsAsSearch(env: TaskEnvironment, intent: string): boolean {
  const index = env.workspace.index;
  const words = index.queryWords(intent);
  return words.length >= SEARCH_WORDS && index.usedWords(intent).length >= SEARCH_SHARE * words.length;
}

/**
 * The task a classified request goes to and what it is about, or why there is none. A request the classifier sent to
 * a task that needs code at hand, or to one no agent serves, becomes a question about the workspace when it reads as a
 * question and either came with no file at hand ("how does retry work") or nothing else can answer it; so does one
 * with no file at hand that nothing else can answer and that reads as a search of the code (`readsAsSearch`). A request
 * worded as an instruction about code it names keeps its task ("make parseConfig faster"), and a task the client chose
 * is never changed.
 */
export async function routeRequest(context: Pick<AskContext, 'env' | 'diagnostics'>, params: AskParams, classification: Classification, document: DocumentSnapshot | undefined, intent: string, signal: AbortSignal): Promise<{ task: TaskId; found: Found } | { task: TaskOrNone; message: string }> {
  const { env } = context;
  const task = classification.task;
  const asQuestion = (): { task: TaskId; found: Found } | undefined =>
    params.task === undefined && (QUESTION_FORM.test(intent) || (document === undefined && readsAsSearch(env, intent))) && env.registry.serves('question')
      ? { task: 'question', found: workspaceTarget(env.root, document, params.text.trim()) }
      : undefined;
  // With no file at hand, a request nothing here can carry out (no agent writes the new code or fixes the issue it
  // describes, or it names no code to work on) that asks something or says two things the code also says ("wipe the
  // cache when the user logs out") is still answered: with the places in the code where that is done. One naming a
  // declaration ("make parseConfig faster") keeps its task, whose message says what it needs.
  // Two words the code uses make a request about the code (as `classifyOffline` reads it too).
  const sharesCodeWords = (): boolean => env.workspace.index.usedWords(intent).length >= 2;
  const namesDeclaration = (): boolean => extractNamedSymbols(intent).some((name) => env.workspace.index.declarations(() => true, 1, name).length > 0);
  const placesInstead = (): { task: TaskId; found: Found } | undefined => {
    if (document !== undefined || params.task !== undefined || !env.registry.serves('question')) return undefined;
    if (!(requestForm(intent).asksOrSearches || sharesCodeWords()) || namesDeclaration()) return undefined;
    return { task: 'question', found: workspaceTarget(env.root, document, params.text.trim()) };
  };
  // The places answer a request whose task has no agent; the answer says first what that task would need.
  const saying = (unserved: string, routed: { task: TaskId; found: Found } | undefined): { task: TaskId; found: Found } | undefined => {
    if (routed) routed.found.parameters.instead = `${unserved} Meanwhile, where the code does what the request says:`;
    return routed;
  };
  // The offline classifier's none with some confidence is a request about code whose task it could not tell apart:
  // with no file at hand, or asked as a question about what code does in two words the code uses ("how are unions
  // matched"), the question task answers it from the whole workspace.
  const unsure = task === 'none' && classification.by === 'intent-offline' && classification.confidence > 0;
  const aboutCodeElsewhere = (): boolean => requestForm(intent).aboutBehaviour && sharesCodeWords();
  if (unsure && (document === undefined || aboutCodeElsewhere())) {
    const question = asQuestion();
    if (question) return question;
  }
  if (task === 'none') return { task, message: 'This request does not match any assistant task. Try e.g. "document the load method" or "explain this function".' };
  // A question typed with no file at hand is about the code base, even when it names a declaration to explain.
  if (document === undefined && QUESTION_FORM.test(intent) && !taskDefinition(task)?.workspaceWide) {
    const question = asQuestion();
    if (question) return question;
  }
  if (!taskDefinition(task) || !env.registry.serves(task)) return saying(unservedMessage(task), asQuestion() ?? placesInstead()) ?? { task, message: unservedMessage(task) };
  const found = taskDefinition(task)?.workspaceWide ? workspaceTarget(env.root, document, params.text.trim()) : await findTarget(context, task, intent, document, params, signal);
  if (!found) return asQuestion() ?? placesInstead() ?? { task, message: task === 'fix' ? NO_DIAGNOSTIC : 'Which code is this about? Select it, put the cursor on it, or name it (e.g. "document the load method").' };
  return { task, found };
}

/**
 * How much of a request is read for its task and target. A request says what it wants in its first sentences; what
 * follows (a pasted log, a stack trace, a file) is material for the task, which gets the whole text. Reading a
 * megabyte for its intent took seconds and changed nothing.
 */
const INTENT_CHARS = 4_000;

export async function askFlow(context: AskContext, params: AskParams, signal: AbortSignal, progress: ProgressSink): Promise<AskResult> {
  if (typeof params?.text !== 'string' || params.text.trim() === '') throw new AssistantError('invalid-params', 'assistant/ask needs a non-empty "text".');
  if (params.range !== undefined && !isRange(params.range)) throw new AssistantError('invalid-params', 'assistant/ask: "range" must be an LSP range.');
  const text = params.text.trim();
  progress.report('classifying the request');
  const document = params.textDocument?.uri ? context.documents.get(params.textDocument.uri) : undefined;
  if (params.textDocument?.uri && !document) throw new AssistantError('invalid-params', `assistant/ask: cannot read ${params.textDocument.uri}.`);
  if (params.task !== undefined && !isTaskId(params.task)) throw new AssistantError('invalid-params', `assistant/ask: "task" must be one of ${TASK_IDS.join(', ')}.`);
  const intent = text.length > INTENT_CHARS ? text.slice(0, INTENT_CHARS) : text;
  const cursor = document ? cursorOf(document, params) : undefined;
  const classification: Classification = params.task !== undefined ? { task: params.task, confidence: 1, by: 'client' } : await classifyRequest(context, intent, document, signal, cursor);
  const { env } = context;

  const unanswered = async (task: TaskOrNone, message: string): Promise<AskResult> => {
    const interaction: Interaction = {
      id: randomUUID(),
      sessionId: env.sessionId,
      timestamp: new Date().toISOString(),
      role: env.role,
      user: env.user,
      source: 'text',
      text,
      task,
      classification,
      context: {},
      responses: [],
      message,
    };
    await env.trace.add(interaction);
    return { interactionId: interaction.id, task, confidence: classification.confidence, message, responses: [] };
  };

  const routed = await routeRequest(context, params, classification, document, intent, signal);
  if ('message' in routed) return unanswered(routed.task, routed.message);
  const { task, found } = routed;
  const result = await runTask(env, { task, document: found.document, target: found.target, parameters: found.parameters, text, source: 'text', classification }, signal, progress);
  const usable = result.candidates.filter((c) => c.proposal || c.shown).length;
  // With usable answers, the agents that failed beside them are named too (without any, the record's message does).
  const failed = failureLines(result.candidates.map((c) => c.response));
  // A target in another file than the one the user looks at is named with its file, so they know where the edit goes.
  const elsewhereFile = found.document.uri !== document?.uri && found.document.fsPath ? workspaceRelative(env.root, found.document.fsPath) : '';
  const elsewhere = elsewhereFile ? ` in ${elsewhereFile}` : '';
  const message = result.interaction.message ?? `${usable} candidate${usable === 1 ? '' : 's'} for ${task} on ${found.target.name}${elsewhere}; apply one with assistant/apply.${failed.length > 0 ? ` ${failed.join('; ')}.` : ''}`;
  return {
    interactionId: result.interaction.id,
    task,
    confidence: classification.confidence,
    message,
    responses: askResponsesOf(result.candidates),
  };
}

/**
 * Candidates as `assistant/ask` returns them: unapplied, each with its edit or, for a text answer, the places it names.
 * An edit the oracle rejected stays in the trace but is not offered: it cannot be applied.
 */
export function askResponsesOf(candidates: readonly Candidate[]): AskResponse[] {
  return candidates.map((c) => ({
    id: c.response.id,
    agent: c.response.agent,
    status: c.response.status,
    text: c.response.text,
    ...summaryOf(c.response.text),
    ...(c.proposal && c.response.edit ? { edit: c.response.edit } : {}),
    ...(c.locations?.length ? { locations: c.locations } : {}),
    ...(c.response.error ? { error: c.response.error } : {}),
  }));
}

/** The `summary` field of a response: its plain one-line label, when its text has one. */
function summaryOf(text: string): { summary?: string } {
  const summary = answerSummary(text);
  return summary ? { summary } : {};
}

/** A path as the user reads it: relative to the workspace, with `/`. */
export function workspaceRelative(root: string, fsPath: string): string {
  const relative = path.relative(root, fsPath);
  return relative.startsWith('..') || path.isAbsolute(relative) ? fsPath : relative.split(path.sep).join('/');
}
