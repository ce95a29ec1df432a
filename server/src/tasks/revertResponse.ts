// Undoes what a response inserted: only when the inserted text is still there as it was, restoring what it replaced.
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { PreviewPolicy, RevertParams, RevertResult } from '../protocol.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { needsPreview } from './applyResponse.js';
import type { ApplyEditOutcome, EditorPort } from '../editorPort.js';
import { lineStarts, positionToOffset, toWorkspaceEdit } from '../edits/textEdits.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import type { TraceStore } from '../trace/traceStore.js';
import type { InsertionTracker } from '../trace/insertionTracker.js';
import { AssistantError } from '../assistantError.js';
import { confine } from '../workspace/confinement.js';
import { MARKER } from '../privacy/secrets.js';

/** A placeholder the trace keeps for a secret (tested once, so not global like `MARKER`). */
const HAS_PLACEHOLDER = new RegExp(MARKER.source);

/**
 * The inserted text is looked for where it is now (its recorded place moved with every edit since), then as a unique
 * occurrence in the document; an insertion that cannot be found intact refuses the whole revert rather than undoing
 * part of it. The editor gets the revert as one edit, previewed under the same policy as an apply.
 */
export async function revertResponse(trace: TraceStore, insertions: InsertionTracker, documents: DocumentSource, port: EditorPort, params: RevertParams, root: string, policy: PreviewPolicy = 'multiFile'): Promise<RevertResult> {
  if (typeof params?.interactionId !== 'string') throw new AssistantError('invalid-params', 'assistant/revert needs "interactionId".');
  if (params.responseId !== undefined && params.responseId !== null && typeof params.responseId !== 'string') throw new AssistantError('invalid-params', 'assistant/revert: "responseId" must be a string.');
  const recorded = trace.getWithSecrets(params.interactionId);
  if (!recorded) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
  const interaction = insertions.overlay(recorded);
  const response = params.responseId ? interaction.responses.find((r) => r.id === params.responseId) : (interaction.responses.find((r) => r.used) ?? interaction.responses.find((r) => r.outcome === 'discarded-after-apply'));
  if (params.responseId && !response) throw new AssistantError('unknown-interaction', `Interaction ${params.interactionId} has no response ${params.responseId}.`);
  if (!response || !response.used || !response.insertedAt?.length) {
    const discarded = response?.outcome === 'discarded-after-apply';
    return { reverted: false, outcome: 'not-applied', message: discarded ? 'This edit was discarded after it was applied (it never reached the file), so there is nothing to revert.' : 'Nothing of this interaction was applied, so there is nothing to revert.' };
  }
  if (response.revertedAt) return { reverted: false, outcome: 'already-reverted', message: `Already reverted at ${response.revertedAt}.` };

  // A trace file is data anyone can commit: its records get no more reach than a fresh edit would.
  const judged = confine(root, response.insertedAt.filter((i) => !i.created).map((i) => i.uri), response.insertedAt.filter((i) => i.created).map((i) => i.uri));
  if (!judged.ok) return { reverted: false, outcome: 'refused', message: `Cannot revert: ${judged.reason}.` };
  if (judged.sensitive.length > 0) {
    const allow = 'Revert anyway';
    if ((await port.choose(`Reverting changes ${judged.sensitive.join(', ')}. Go ahead?`, [allow, 'Cancel'])) !== allow) {
      return { reverted: false, outcome: 'refused', message: `Not reverted: it changes ${judged.sensitive.join(', ')}, and that was not confirmed.` };
    }
  }

  const byUri = new Map<string, { document: DocumentSnapshot; edits: OffsetEdit[] }>();
  const deletions: string[] = [];
  for (const insertion of response.insertedAt) {
    const document = documents.get(insertion.uri);
    if (!document) return changed(`${insertion.uri} cannot be read`);
    if (insertion.created) {
      // A file the assistant created goes away, but only while it holds exactly what was written.
      if (!sameCreatedText(document.text, insertion.text)) return changed(`${insertion.uri} was edited since it was created`);
      deletions.push(insertion.uri);
      continue;
    }
    const starts = lineStarts(document.text);
    const recorded = positionToOffset(document.text, insertion.range.start, starts);
    let start = document.text.startsWith(insertion.text, recorded) ? recorded : -1;
    if (start < 0) {
      const first = document.text.indexOf(insertion.text);
      if (first >= 0 && insertion.text.length > 0 && document.text.indexOf(insertion.text, first + 1) < 0) start = first;
    }
    if (start < 0 && HAS_PLACEHOLDER.test(insertion.text + insertion.replaced)) return changed('the trace keeps the secrets in this edit as placeholders, and only the session that made it knew their values');
    if (start < 0) return changed('the inserted code was edited since');
    const edits = byUri.get(insertion.uri)?.edits ?? [];
    byUri.set(insertion.uri, { document, edits: [...edits, { start, end: start + insertion.text.length, newText: insertion.replaced }] });
  }
  // One edit for every file, so the editor takes the whole revert or none of it; previewed as an apply would be.
  const documentChanges: NonNullable<WorkspaceEdit['documentChanges']> = [];
  for (const [uri, { document, edits }] of byUri) {
    documentChanges.push(...(toWorkspaceEdit({ uri, version: document.version, baseText: document.text, edits }).documentChanges ?? []));
  }
  documentChanges.push(...deletions.map((uri) => ({ kind: 'delete' as const, uri })));
  const label = `Assistant: revert ${interaction.task === 'patch' ? 'the pasted patch' : `${interaction.task}${interaction.context.symbol ? ` ${interaction.context.symbol}` : ''}`}`;
  const preview = needsPreview(policy, byUri.size, deletions.length) ? { label, description: `what ${response.agent.name} inserted` } : undefined;
  // What the revert removes is reverted, not discarded: the tracker must know before the editor's change comes.
  insertions.reverting(interaction, response.id);
  let outcome: ApplyEditOutcome | undefined;
  try {
    outcome = await port.applyEdit(label, { documentChanges }, preview);
  } finally {
    insertions.reverting(interaction, response.id, outcome?.applied === true);
  }
  if (!outcome.applied) {
    if (outcome.previewed && !outcome.failureReason) {
      // The user looked at the revert and kept the code: part of the response's history, as a revert would be.
      await trace.amendResponse(interaction.id, response.id, { revertDiscardedAt: new Date().toISOString() });
      return { reverted: false, outcome: 'discarded', message: 'Discarded in the preview; nothing was reverted.' };
    }
    return { reverted: false, outcome: 'rejected-by-client', message: `The editor did not apply the revert${outcome.failureReason ? `: ${outcome.failureReason}` : ''}.` };
  }
  await trace.amendResponse(interaction.id, response.id, { revertedAt: new Date().toISOString() });
  const what = interaction.task === 'patch' ? 'the pasted patch' : `what ${response.agent.name} inserted for ${interaction.task}${interaction.context.symbol ? ` on ${interaction.context.symbol}` : ''}`;
  return { reverted: true, outcome: 'reverted', message: `Reverted ${what}.` };
}

/**
 * Whether a created file still holds what was written, but for the line breaks at its end: an editor that fills a new
 * buffer with the edit keeps the empty line the buffer began with (Neovim does), which is no change of the user's.
 */
function sameCreatedText(now: string, written: string): boolean {
  const trailing = /(?:\r?\n)+$/;
  return now === written || now.replace(trailing, '') === written.replace(trailing, '');
}

function changed(reason: string): RevertResult {
  return { reverted: false, outcome: 'changed', message: `Cannot revert: ${reason}; undo it by hand to keep your changes.` };
}
