// How `assistant-ls trace` shows the trace in a terminal: one line per interaction, and one interaction in full.
import path from 'node:path';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { InsertionRecord, Interaction, TraceResponse } from '../protocol.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import { tracePlaceOf } from '../trace/tracePlace.js';

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** An ISO time as the local `YYYY-MM-DD HH:MM` (with `:SS` when asked); a time that does not parse as it is. */
export function localTime(iso: string | undefined, seconds = false): string {
  if (iso === undefined) return '?';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())}`;
  return `${day} ${pad2(date.getHours())}:${pad2(date.getMinutes())}${seconds ? `:${pad2(date.getSeconds())}` : ''}`;
}

/** A file's path relative to the workspace when inside it; the URI itself when it names no file. */
export function displayPath(uri: string, root: string): string {
  const fsPath = uriToPath(uri);
  if (fsPath === undefined) return uri;
  const relative = path.relative(root, fsPath);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? fsPath : relative.split(path.sep).join('/');
}

/** One line of text, cut to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(1, max - 1))}…`;
}

function usedResponse(interaction: Interaction): TraceResponse | undefined {
  return interaction.responses.find((response) => response.used);
}

/** The agents that answered, the one whose answer was used first. */
export function agentsOf(interaction: Interaction): string {
  const used = usedResponse(interaction);
  const names = [...new Set([...(used ? [used.agent.name] : []), ...interaction.responses.map((response) => response.agent.name)])];
  return names.length === 0 ? 'no agent' : names.join(',');
}

/**
 * Where an interaction leads (`tracePlaceOf`, as the editors' trace listings jump): where the code it produced is (as
 * `path:line`), else the document it was about, else the first place its answer cites (a workspace question's), with
 * how many more it cites; `-` for none, and for a question that cites nothing (the file it was asked in is no code of it).
 */
export function placeOf(interaction: Interaction, root: string): string {
  const place = tracePlaceOf(interaction);
  if (!place || place.kind === 'askedFrom') return '-';
  const resource = interaction.context.resource;
  if (place.kind === 'about' && resource?.relativePath) return interaction.context.fragment ? `${resource.relativePath}:${place.range.start.line + 1}` : resource.relativePath;
  return `${displayPath(place.uri, root)}:${place.range.start.line + 1}${place.more ? ` +${place.more}` : ''}`;
}

const FAILED_OUTCOMES = new Set(['refused', 'stale', 'failed', 'rejected-by-client']);

/** What became of an interaction, in the words of the list: used, shown, discarded, reverted, …, and its ratings. */
export function outcomeOf(interaction: Interaction): string {
  const responses = interaction.responses;
  const used = usedResponse(interaction);
  let outcome: string;
  if (responses.length === 0) outcome = 'no answer';
  else if (responses.some((response) => response.revertedAt !== undefined)) outcome = 'reverted';
  else if (used) outcome = used.outcome === 'shown' ? 'shown' : used.removedAt !== undefined ? 'used, then removed' : used.keptAt !== undefined ? 'used, kept' : 'used';
  else if (responses.some((response) => response.outcome === 'discarded-after-apply')) outcome = 'discarded after apply';
  else if (responses.some((response) => response.outcome === 'discarded')) outcome = 'discarded';
  else {
    const failed = responses.find((response) => response.outcome !== undefined && FAILED_OUTCOMES.has(response.outcome));
    // An agent's answer is cancelled only when the user stopped the run, though another agent may have answered by then.
    outcome = failed?.outcome ?? (responses.some((response) => response.status === 'cancelled') ? 'cancelled' : responses.some((response) => response.status === 'ok') ? 'not used' : responses.some((response) => response.status === 'error' || response.status === 'timeout') ? 'agents failed' : 'no answer');
  }
  const ratings = [...new Set(responses.flatMap((response) => (response.rating ? [`rated ${response.rating}`] : [])))];
  return [outcome, ...ratings].join(', ');
}

/** The start of an id, long enough to tell interactions apart in practice; `show` takes it. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

const HEADER = ['ID', 'WHEN', 'TASK', 'AGENT', 'CODE', 'OUTCOME', 'REQUEST'];
/** Widest a column other than the request grows, so one long value does not push the request off the screen. */
const COLUMN_MAX = [8, 16, 9, 28, 40, 24];

/** How much of the request a line shows when the output is no terminal (a pipe, a file). */
const REQUEST_WIDTH = 72;

/** The interactions as a table: a header, then one line each; the request is cut to what a terminal's `width` leaves of the line. */
export function interactionTable(interactions: readonly Interaction[], root: string, width: number | undefined): string[] {
  const rows = interactions.map((interaction) => [shortId(interaction.id), localTime(interaction.timestamp), interaction.task, agentsOf(interaction), placeOf(interaction, root), outcomeOf(interaction)]);
  const widths = COLUMN_MAX.map((max, column) => Math.min(max, Math.max((HEADER[column] as string).length, ...rows.map((row) => (row[column] as string).length))));
  const cell = (value: string, column: number): string => shorten(value, widths[column] as number).padEnd(widths[column] as number);
  const used = widths.reduce((sum, w) => sum + w + 2, 0);
  const textWidth = width === undefined ? REQUEST_WIDTH : Math.max(20, width - used);
  const line = (cells: string[], text: string): string => `${cells.map(cell).join('  ')}  ${text}`.trimEnd();
  return [line(HEADER.slice(0, -1), HEADER.at(-1) as string), ...rows.map((row, n) => line(row, shorten((interactions[n] as Interaction).text, textWidth)))];
}

/** Lines indented under a label, so a multi-line value stays readable. */
function block(label: string, text: string): string[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.map((line, n) => `  ${(n === 0 ? label : '').padEnd(10)}${line}`.trimEnd());
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The code an edit inserted where it was applied, as a diff of what it replaced. */
function insertionDiff(insertion: InsertionRecord, root: string): string[] {
  const lines = [`${displayPath(insertion.uri, root)}:${(insertion.appliedRange ?? insertion.range).start.line + 1}${insertion.created ? ' (new file)' : ''}`];
  if (insertion.replaced !== '') lines.push(...insertion.replaced.replace(/\n$/, '').split('\n').map((line) => `- ${line}`));
  if (insertion.text !== '') lines.push(...insertion.text.replace(/\n$/, '').split('\n').map((line) => `+ ${line}`));
  return lines;
}

/** Where inserted code is now and what became of it; of a reverted response, where it was. */
function insertionState(insertion: InsertionRecord, root: string, reverted: boolean): string {
  const where = `${displayPath(insertion.uri, root)}:${insertion.range.start.line + 1}`;
  if (reverted) return `reverted (was at ${where})`;
  const facts = [insertion.state === 'removed' ? `removed (was at ${where})` : `${where}${insertion.state === 'edited' ? ', edited since' : ''}`];
  if (insertion.appliedRange && insertion.state !== 'removed') facts.push(`moved from line ${insertion.appliedRange.start.line + 1}`);
  if (insertion.fate === 'kept') facts.push(`kept on disk${insertion.fateAt ? ` ${localTime(insertion.fateAt, true)}` : ''}`);
  if (insertion.fate === 'discarded') facts.push(`discarded${insertion.fateAt ? ` ${localTime(insertion.fateAt, true)}` : ''}`);
  return facts.join(', ');
}

/** A proposed edit that was not applied, as the new text of each range it replaces. */
function proposedEdit(edit: WorkspaceEdit, root: string): string[] {
  const lines: string[] = [];
  const textEdits = (uri: string, edits: readonly { range: { start: { line: number }; end: { line: number } }; newText?: string }[]): void => {
    for (const one of edits) {
      const { start, end } = one.range;
      lines.push(`${displayPath(uri, root)}:${start.line + 1}${end.line > start.line ? `-${end.line + 1} replaced` : ''}`);
      if (one.newText) lines.push(...one.newText.replace(/\n$/, '').split('\n').map((line) => `+ ${line}`));
    }
  };
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) lines.push(`${change.kind} ${displayPath('uri' in change ? change.uri : change.newUri, root)}`);
    else textEdits(change.textDocument.uri, change.edits);
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) textEdits(uri, edits);
  return lines;
}

/** What happened to a response after it was answered: applied, kept, discarded, rated, reverted. */
function afterwards(response: TraceResponse): string[] {
  const facts: string[] = [];
  if (response.outcome) facts.push(`${response.outcome.replace(/-/g, ' ')}${response.outcomeReason ? `: ${response.outcomeReason}` : ''}`);
  if (response.keptAt) facts.push(`kept on disk ${localTime(response.keptAt, true)}`);
  if (response.removedAt) facts.push(`removed from the file ${localTime(response.removedAt, true)}`);
  if (response.discardedAt) facts.push(`discarded ${localTime(response.discardedAt, true)}`);
  if (response.rating) facts.push(`rated ${response.rating}`);
  for (const remark of response.feedback ?? []) facts.push(`feedback: ${remark}`);
  if (response.revertedAt) facts.push(`reverted ${localTime(response.revertedAt, true)}`);
  for (const at of response.revertsDiscardedAt ?? []) facts.push(`a revert shown ${localTime(at, true)} and discarded`);
  return facts;
}

function responseDetail(response: TraceResponse, index: number, count: number, root: string): string[] {
  const agent = response.agent;
  const heading = [`${agent.name} (${agent.technology}${agent.model ? `, model ${agent.model}` : ''})`, response.status, response.used ? 'used' : 'not used', `${response.durationMs} ms`];
  const lines = [`Response ${index + 1} of ${count}: ${heading.join(', ')}`];
  if (response.error) lines.push(...block(response.status === 'error' || response.status === 'timeout' ? 'Failed' : 'Reason', response.errorDetail && response.errorDetail !== response.error ? `${response.error}\n(${response.errorDetail})` : response.error));
  if (response.text) lines.push(...block('Answer', response.text));
  if (response.locations?.length) lines.push(...block('Cites', response.locations.map((location) => `${displayPath(location.uri, root)}:${location.range.start.line + 1} ${location.label}`).join('\n')));
  if (response.verdict) lines.push(...block('Verdict', [`${response.verdict.passed ? 'passed' : 'failed'}: ${response.verdict.summary}`, ...(response.verdict.details ?? [])].join('\n')));
  if (response.attempts !== undefined && response.attempts > 1) lines.push(...block('Attempts', String(response.attempts)));
  if (response.insertedAt?.length) {
    lines.push(...block('Diff', response.insertedAt.flatMap((insertion) => insertionDiff(insertion, root)).join('\n')));
    lines.push(...block('Code now', response.insertedAt.map((insertion) => insertionState(insertion, root, response.revertedAt !== undefined)).join('\n')));
  } else if (response.edit) {
    lines.push(...block('Edit', proposedEdit(response.edit, root).join('\n')));
  }
  const after = afterwards(response);
  if (after.length) lines.push(...block('After', after.join('\n')));
  for (const step of response.pipeline?.steps ?? []) {
    const facts = [`${step.index + 1}. ${step.name}`, step.status, `${step.durationMs} ms`, ...(step.summary ? [step.summary] : []), ...(step.error ? [`error: ${step.error}`] : [])];
    lines.push(...block(step.index === 0 ? 'Pipeline' : '', facts.join(', ')));
  }
  if (response.pipeline?.replayOf) lines.push(...block('Replays', `${response.pipeline.replayOf.interactionId} from step ${response.pipeline.replayOf.fromStep + 1}, with feedback: ${response.pipeline.replayOf.feedback}`));
  return lines;
}

/** One interaction in full: the request, how it was classified, each agent's answer and what happened to it. */
export function interactionDetail(interaction: Interaction, root: string): string {
  const lines = [`Interaction ${interaction.id}`];
  lines.push(...block('When', `${localTime(interaction.timestamp, true)}, session ${interaction.sessionId}, ${interaction.user} (${interaction.role}), from ${interaction.source === 'text' ? 'a request in words' : 'a command'}`));
  lines.push(...block('Request', interaction.text));
  const classification = interaction.classification;
  lines.push(...block('Task', `${interaction.task}${classification ? `, classified by ${classification.by} (confidence ${classification.confidence.toFixed(2)})` : ''}`));
  const resource = interaction.context.resource;
  if (resource?.relativePath) {
    const fragment = interaction.context.fragment;
    lines.push(...block('Code', `${resource.relativePath}${fragment ? `:${fragment.range.start.line + 1}` : ''}${interaction.context.symbol ? ` (${interaction.context.symbol})` : ''}`));
  }
  const askedFrom = interaction.context.askedFrom;
  if (askedFrom?.relativePath) lines.push(...block('Asked in', `${askedFrom.relativePath} (open in the editor; the request is about the workspace)`));
  const enrichment = interaction.context.enrichment;
  if (enrichment) lines.push(...block('Context', `${plural(enrichment.tokens, 'token')} besides the target${enrichment.omitted.length ? `; left out: ${enrichment.omitted.join(', ')}` : ''}`));
  if (interaction.completion) lines.push(...block('Offered', `${interaction.completion.offered}${interaction.completion.partial ? '\n(accepted in part)' : ''}`));
  if (interaction.message) lines.push(...block('Message', interaction.message));
  if (interaction.selection) {
    const chosen = interaction.responses.findIndex((response) => response.id === interaction.selection?.responseId);
    lines.push(...block('Ranked', `${chosen >= 0 ? `response ${chosen + 1}` : interaction.selection.responseId} first: ${interaction.selection.reason}`));
  }
  lines.push(...block('Outcome', outcomeOf(interaction)));
  if (interaction.responses.length === 0) lines.push('', 'No agent answered.');
  interaction.responses.forEach((response, index) => lines.push('', ...responseDetail(response, index, interaction.responses.length, root)));
  return `${lines.join('\n')}\n`;
}
