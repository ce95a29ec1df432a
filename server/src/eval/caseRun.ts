// Runs one case with one agent through the product's runTask, exactly as the editor would, and picks the proposal to score.
import fs from 'node:fs';
import type { TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { runTask } from '../tasks/runTask.js';
import type { TaskEnvironment, TaskRun } from '../tasks/runTask.js';
import { noProgress } from '../editorPort.js';
import type { Proposal } from '../edits/proposal.js';
import { lineStarts, positionToOffset } from '../edits/textEdits.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import type { CaseRun } from './scenario.js';

/** How a response's status reads in a failure reason. */
const STATUS_WORDS: Record<string, string> = { empty: 'no answer', error: 'agent error', timeout: 'timed out', cancelled: 'cancelled' };

/**
 * Runs the task with only `agent` and returns the proposal to score: the best-ranked usable one (passing the product's
 * oracle first), else a proposal the oracle rejected (rebuilt from the recorded edit, so it can still be measured),
 * else none, with the reason the product gave.
 */
export async function runCaseTask(env: TaskEnvironment, run: Omit<TaskRun, 'agent' | 'interactionId' | 'source'>, agent: string, interactionId: string, signal: AbortSignal): Promise<CaseRun> {
  const started = Date.now();
  const result = await runTask(env, { ...run, agent, interactionId, source: 'command' }, signal, noProgress);
  const durationMs = Date.now() - started;
  const usable = result.candidates.find((c) => c.proposal);
  if (usable?.proposal) {
    const verdict = usable.response.verdict;
    return { interactionId, response: usable.response, proposal: usable.proposal, oraclePassed: verdict ? verdict.passed : undefined, durationMs };
  }
  const rejected = result.candidates.find((c) => c.response.edit);
  if (rejected?.response.edit) {
    const proposal = proposalFromEdit(rejected.response.edit, run.document);
    if (proposal) return { interactionId, response: rejected.response, proposal, oraclePassed: false, durationMs };
  }
  const first = result.candidates[0]?.response;
  const failure = first ? `${STATUS_WORDS[first.status] ?? first.status}: ${first.error ?? 'no usable answer'}` : (result.interaction.message ?? 'no answer');
  return { interactionId, response: first, proposal: undefined, oraclePassed: undefined, failure, durationMs };
}

/**
 * A recorded workspace edit back as a proposal: the run's document on the text it was computed on, other documents on
 * their text in the scratch copy (agents never write it), created files with their content. Undefined if unreadable.
 */
export function proposalFromEdit(edit: WorkspaceEdit, document: DocumentSnapshot): Proposal | undefined {
  const proposal: Proposal = { documents: [], creates: [] };
  const created = new Set<string>();
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      if (change.kind !== 'create') return undefined;
      created.add(change.uri);
      proposal.creates.push({ uri: change.uri, text: '' });
      continue;
    }
    const textEdit = change as TextDocumentEdit;
    const uri = textEdit.textDocument.uri;
    if (created.has(uri)) {
      const creation = proposal.creates.find((c) => c.uri === uri);
      if (creation) creation.text += textEdit.edits.map(newTextOf).join('');
      continue;
    }
    let baseText: string;
    if (uri === document.uri) baseText = document.text;
    else {
      const fsPath = uriToPath(uri);
      if (!fsPath) return undefined;
      try {
        baseText = fs.readFileSync(fsPath, 'utf8');
      } catch {
        return undefined;
      }
    }
    const starts = lineStarts(baseText);
    proposal.documents.push({
      uri,
      version: textEdit.textDocument.version,
      baseText,
      edits: textEdit.edits.map((e) => ({ start: positionToOffset(baseText, e.range.start, starts), end: positionToOffset(baseText, e.range.end, starts), newText: newTextOf(e) })),
    });
  }
  return proposal.documents.length > 0 || proposal.creates.length > 0 ? proposal : undefined;
}

/** The inserted text of an edit (a snippet edit, which the product never produces, counts as its snippet's text). */
function newTextOf(edit: TextDocumentEdit['edits'][number]): string {
  return 'newText' in edit ? edit.newText : edit.snippet.value;
}
