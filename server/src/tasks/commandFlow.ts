// Task commands from code actions: locate the target again, run the agents, let the user choose, then apply or show.
import type { TaskCommandArgs, TaskCommandResult, TaskId } from '../protocol.js';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import { AssistantError } from '../assistantError.js';
import type { EditorPort, ProgressSink } from '../editorPort.js';
import { noProgress } from '../editorPort.js';
import { declarationsNamed } from '../repo/declarations.js';
import { isRange, lineStarts, positionToOffset } from '../edits/textEdits.js';
import { proposalToWorkspaceEdit } from '../edits/proposal.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { workspaceSnapshot } from '../workspace/documentSnapshot.js';
import { menuRange, taskDefinition } from './catalogue.js';
import { applyResponse, proposalOnCurrentText, recordOutcome, refusal } from './applyResponse.js';
import { runTask } from './runTask.js';
import { answerTitle, presentAnswer } from './presentAnswer.js';
import { answerSummary } from './answerSummary.js';
import { discardAnswers } from './discardAnswers.js';
import type { Candidate, TaskEnvironment, TaskResult } from './runTask.js';
import type { TaskTarget } from './task.js';
import { wholeWorkspaceTarget } from './task.js';
import { diagnosticFromLsp } from './diagnostics.js';
import { failureLines, failureNotice, noAnswerMessage } from './failures.js';

export interface FlowContext {
  env: TaskEnvironment;
  documents: DocumentSource;
}

/** A resolved code action: the edit to put in it and the ids its follow-up command reports back. */
export type ResolvedTask =
  | { kind: 'edit'; edit: WorkspaceEdit; interactionId: string; responseId: string }
  | { kind: 'shown'; interactionId: string }
  | { kind: 'none'; interactionId: string; message: string };

/**
 * The target the code action was offered on, found again in the current text: by asking the task for its offers
 * at the same range, or, when the document changed since, at the same-named declaration nearest the old place.
 */
export function locateCommandTarget(documents: DocumentSource, task: TaskId, args: TaskCommandArgs, root: string): { document: DocumentSnapshot; target: TaskTarget; parameters: Record<string, string> } {
  const definition = taskDefinition(task);
  if (!definition) throw new AssistantError('unavailable', `The ${task} task is not available.`);
  if (definition.workspaceWide) {
    // Workspace-wide tasks (questions) need no place in a document: the question is what they are about.
    const question = typeof args?.parameters?.question === 'string' ? args.parameters.question.trim() : '';
    if (!question) throw new AssistantError('invalid-params', `The ${task} command needs parameters.question.`);
    const given = args?.textDocument?.uri ? documents.get(args.textDocument.uri) : undefined;
    const document: DocumentSnapshot = given ?? workspaceSnapshot(root);
    return { document, target: wholeWorkspaceTarget(), parameters: { ...args.parameters, question } };
  }
  if (!args?.textDocument?.uri || !isRange(args.range)) throw new AssistantError('invalid-params', 'The command needs a document and a range.');
  const document = documents.get(args.textDocument.uri);
  if (!document) throw new AssistantError('invalid-params', `Cannot read ${args.textDocument.uri}.`);
  const starts = lineStarts(document.text);
  let start = positionToOffset(document.text, args.range.start, starts);
  let end = positionToOffset(document.text, args.range.end, starts);
  // A file read from disk has no version; its code actions carry 0 (lsp/codeAction.ts).
  const stale = typeof args.textDocument.version === 'number' && (document.version ?? 0) !== args.textDocument.version;
  if (stale && args.symbol) {
    const line = (offset: number): number => document.text.slice(0, offset).split('\n').length - 1;
    const nearest = declarationsNamed(document.fsPath ?? document.uri, document.text, args.symbol).sort((a, b) => Math.abs(line(a.start) - args.range.start.line) - Math.abs(line(b.start) - args.range.start.line))[0];
    if (!nearest) throw new AssistantError('stale', `${args.symbol} is no longer in the document; ask for the code actions again.`);
    start = nearest.start;
    end = nearest.start;
  }
  const diagnostics = args.diagnostic && !stale ? [diagnosticFromLsp(document.text, args.diagnostic, starts)] : [];
  // The same range the menu was offered on, so the action finds the target its title named.
  const offers = definition.offersAt({ document, ...menuRange(document.text, start, end), diagnostics });
  const offer = offers.find((o) => !args.symbol || o.target.name === args.symbol) ?? offers[0];
  if (!offer) throw new AssistantError(stale ? 'stale' : 'invalid-params', notOfferedReason(task, args, stale));
  const parameters = { ...offer.parameters, ...args.parameters };
  const invalid = definition.invalidParameters?.(parameters);
  if (invalid) throw new AssistantError('invalid-params', invalid);
  return { document, target: offer.target, parameters };
}

/** Why a command found no target: the code changed, or its arguments do not name what the task is offered on. */
function notOfferedReason(task: TaskId, args: TaskCommandArgs, stale: boolean): string {
  if (stale) return 'That code is no longer there; ask for the code actions again.';
  if (task === 'fix' && !args.diagnostic) return 'The fix command needs the diagnostic it fixes, and its arguments carry none; ask for the code actions again at the error.';
  return `The ${task} task is not offered at that place; ask for the code actions again.`;
}

type Choice = { kind: 'one'; candidate: Candidate } | { kind: 'none'; message: string; discarded: boolean };

/** One usable candidate is taken as is; several are offered to the user with Discard. */
export async function chooseCandidate(candidates: Candidate[], targetName: string, port: EditorPort, signal: AbortSignal, progress: ProgressSink = noProgress): Promise<Choice> {
  const usable = candidates.filter((c) => c.proposal || c.shown);
  if (usable.length === 0) {
    return { kind: 'none', message: noAnswerMessage(targetName, candidates.map((c) => c.response)), discarded: false };
  }
  if (usable.length === 1) return { kind: 'one', candidate: usable[0] as Candidate };
  // Several answers of one agent (suggested names, compiler fixes) need titles of their own to be told apart.
  const titles = usable.map((c, i) => (usable.filter((u) => u.response.agent.name === c.response.agent.name).length > 1 ? `${i + 1}. ${c.response.agent.name}: ${answerSummary(c.response.text, 50)}` : `Use ${c.response.agent.name}`));
  const preview = usable.map((c, i) => `${i + 1}. ${c.response.agent.name}: ${answerSummary(c.response.text)}`).join('\n');
  // The agents that failed are named below the answers, never offered as choices.
  const failed = failureLines(candidates.map((c) => c.response));
  // The progress stays up while the user chooses: it says what it waits for, not the agents it waited for before.
  progress.report(`${usable.length} answers ready: waiting for your choice`);
  const picked = await port.choose(`${usable.length} answers for ${targetName}:\n${preview}${failed.length > 0 ? `\n${failed.join('\n')}` : ''}`, [...titles, 'Discard']);
  signal.throwIfAborted();
  const index = picked === undefined ? -1 : titles.indexOf(picked);
  if (index < 0) return { kind: 'none', message: `Discarded the answers for ${targetName}.`, discarded: true };
  return { kind: 'one', candidate: usable[index] as Candidate };
}

/** The answers the user was offered and turned down, recorded as discarded in the choice (not merely unused). */
async function recordDiscard(env: TaskEnvironment, result: TaskResult): Promise<void> {
  const offered = result.candidates.filter((c) => c.proposal || c.shown).map((c) => c.response.id);
  await discardAnswers(env.trace, { interactionId: result.interaction.id }, offered);
}

/** A run that ran no agent says why in its message (a refusal, no agent for the task); otherwise the user chooses. */
function chooseFromRun(result: TaskResult, targetName: string, port: EditorPort, signal: AbortSignal, progress: ProgressSink): Promise<Choice> {
  if (result.candidates.length === 0 && result.interaction.message) return Promise.resolve({ kind: 'none', message: result.interaction.message, discarded: false });
  return chooseCandidate(result.candidates, targetName, port, signal, progress);
}

/** The heading of a shown answer: a workspace question's own words, else the task and its target. */
function titleOf(task: TaskId, targetName: string, result: TaskResult): string {
  return answerTitle(task, targetName, taskDefinition(task)?.workspaceWide ? result.interaction.text : undefined);
}

/** Runs a task command, lets the user choose among candidates, and applies (or shows) the choice. */
export async function runCommandFlow(context: FlowContext, task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<TaskCommandResult> {
  const { document, target, parameters } = locateCommandTarget(context.documents, task, args, context.env.root);
  // The record is in the file before anything is applied or shown; its flush to the disk overlaps the editor's
  // round trip, and the command answers only once it is durable.
  const result = await runTask(context.env, { task, document, target, parameters, text: parameters.question ?? `${task} ${target.name}`, source: 'command', returnWhenWritten: true, ...(typeof args.agent === 'string' ? { agent: args.agent } : {}) }, signal, progress);
  try {
    return await finishCommand(context, task, target.name, result, signal, progress, port);
  } finally {
    await result.durable;
  }
}

/** Lets the user choose among the run's answers, then applies the chosen edit or shows the chosen text. */
async function finishCommand(context: FlowContext, task: TaskId, targetName: string, result: TaskResult, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<TaskCommandResult> {
  const interactionId = result.interaction.id;
  const chosen = await chooseFromRun(result, targetName, port, signal, progress);
  if (chosen.kind === 'none') {
    if (chosen.discarded) await recordDiscard(context.env, result);
    port.showMessage(chosen.discarded ? 'info' : 'warning', chosen.message);
    return { interactionId, applied: false, message: chosen.message, ...(chosen.discarded ? { outcome: 'discarded' as const } : {}) };
  }
  signal.throwIfAborted();
  const responseId = chosen.candidate.response.id;
  if (chosen.candidate.shown) {
    const shown = await presentAnswer(context.env, port, interactionId, task, titleOf(task, targetName, result), chosen.candidate);
    warnOfFailures(port, result.candidates, chosen.candidate);
    return { interactionId, applied: false, outcome: 'shown', responseId, ...(shown.message ? { message: shown.message } : {}) };
  }
  progress.report('applying the edit');
  const applied = await applyResponse(context.env, context.documents, port, interactionId, responseId, `Assistant: ${task} ${targetName}`);
  // A discard in the preview was the user's own choice: nothing to warn them of.
  if (!applied.applied && applied.outcome !== 'discarded' && applied.message) port.showMessage('warning', applied.message);
  if (applied.applied) warnOfFailures(port, result.candidates, chosen.candidate);
  return { interactionId, applied: applied.applied, outcome: applied.outcome, responseId, ...(applied.message ? { message: applied.message } : {}) };
}

/** For `codeAction/resolve`: runs the task and returns the chosen edit for the client to apply. */
export async function resolveCommandFlow(context: FlowContext, task: TaskId, args: TaskCommandArgs, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<ResolvedTask> {
  const { document, target, parameters } = locateCommandTarget(context.documents, task, args, context.env.root);
  const result = await runTask(context.env, { task, document, target, parameters, text: parameters.question ?? `${task} ${target.name}`, source: 'command', ...(typeof args.agent === 'string' ? { agent: args.agent } : {}) }, signal, progress);
  const interactionId = result.interaction.id;
  const chosen = await chooseFromRun(result, target.name, port, signal, progress);
  if (chosen.kind === 'none') {
    if (chosen.discarded) await recordDiscard(context.env, result);
    return { kind: 'none', interactionId, message: chosen.message };
  }
  const responseId = chosen.candidate.response.id;
  if (chosen.candidate.shown || !chosen.candidate.proposal) {
    await presentAnswer(context.env, port, interactionId, task, titleOf(task, target.name, result), chosen.candidate);
    warnOfFailures(port, result.candidates, chosen.candidate);
    return { kind: 'shown', interactionId };
  }
  const current = proposalOnCurrentText(chosen.candidate.proposal, context.documents);
  if (!current.ok) {
    const message = `Not applied: ${current.reason}. Run the task again on the current text.`;
    await recordOutcome(context.env, interactionId, responseId, { applied: false, outcome: 'stale', message });
    return { kind: 'none', interactionId, message };
  }
  const refused = await refusal(context.env, port, current.proposal);
  if (refused) {
    await recordOutcome(context.env, interactionId, responseId, refused);
    return { kind: 'none', interactionId, message: refused.message ?? 'Not applied.' };
  }
  // Kept so the follow-up command can record where the edit landed.
  context.env.plans.set(responseId, current.proposal);
  return { kind: 'edit', edit: proposalToWorkspaceEdit(current.proposal), interactionId, responseId };
}

/** Tells the user which other agents failed, once an answer is applied or shown (an edit the client applies itself is
 * told of when it reports it applied: `Assistant.responseApplied`). */
function warnOfFailures(port: EditorPort, candidates: readonly Candidate[], used: Candidate): void {
  const notice = failureNotice(
    candidates.map((c) => c.response),
    used.response,
  );
  if (notice) port.showMessage('warning', notice);
}
