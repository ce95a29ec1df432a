// Applies one chosen response through the editor: every document moved onto its current text or the whole refused, then recorded.
import type { ApplyResult, InsertionRecord, PreviewPolicy } from '../protocol.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import type { EditPreview, EditorPort } from '../editorPort.js';
import path from 'node:path';
import { rebaseEdits } from '../edits/rebase.js';
import { editsBetween, mergeThreeWay } from '../edits/merge3.js';
import { applyOffsetEdits, insertedRanges } from '../edits/textEdits.js';
import type { DocumentEditPlan } from '../edits/textEdits.js';
import { proposalToWorkspaceEdit } from '../edits/proposal.js';
import type { Proposal } from '../edits/proposal.js';
import type { TaskEnvironment } from './runTask.js';
import { confine } from '../workspace/confinement.js';

/** The proposal moved onto the documents as they are now, or why it cannot be. */
export type ProposalOnCurrent = { ok: true; proposal: Proposal; moved: boolean; merged: boolean } | { ok: false; reason: string };

/** Most conflicts named in one message; the rest are counted. */
const MAX_CONFLICTS_NAMED = 5;

/**
 * The plan on the document's current text: unchanged; moved with the lines it touches when the user edited elsewhere;
 * or, when the user edited the same lines, merged three ways (base: the text the proposal was computed on; the user's
 * text; the proposal's result), line by line and then declaration by declaration. A conflict neither merge settles
 * is reported, naming where, never dropped or forced.
 */
function planOnCurrentText(plan: DocumentEditPlan, documents: DocumentSource): { ok: true; plan: DocumentEditPlan; moved: boolean; merged?: string } | { ok: false; reason: string } {
  const current = documents.get(plan.uri);
  if (!current) return { ok: false, reason: `${plan.uri} is no longer available` };
  if (current.version === plan.version && current.text === plan.baseText) return { ok: true, plan, moved: false };
  const rebased = rebaseEdits(plan.baseText, current.text, plan.edits);
  if (rebased.ok) return { ok: true, plan: { uri: plan.uri, version: current.version, baseText: current.text, edits: rebased.edits }, moved: rebased.moved };
  const merged = mergeThreeWay(plan.baseText, current.text, applyOffsetEdits(plan.baseText, plan.edits), { fileName: current.fsPath ?? plan.uri });
  if (!merged.ok) {
    const named = merged.conflicts.slice(0, MAX_CONFLICTS_NAMED).map((c) => c.description);
    const more = merged.conflicts.length > named.length ? `; and ${merged.conflicts.length - named.length} more` : '';
    return { ok: false, reason: `${path.basename(current.fsPath ?? plan.uri)} was changed in the editor where the edit applies, and the changes conflict (${named.join('; ')}${more})` };
  }
  return { ok: true, plan: { uri: plan.uri, version: current.version, baseText: current.text, edits: editsBetween(current.text, merged.text) }, moved: true, merged: merged.level };
}

/** All or nothing: one document that cannot take its edits refuses the whole proposal. */
export function proposalOnCurrentText(proposal: Proposal, documents: DocumentSource): ProposalOnCurrent {
  const moved: DocumentEditPlan[] = [];
  let anyMoved = false;
  let anyMerged = false;
  for (const plan of proposal.documents) {
    const current = planOnCurrentText(plan, documents);
    if (!current.ok) return current;
    moved.push(current.plan);
    anyMoved ||= current.moved;
    anyMerged ||= current.merged !== undefined;
  }
  for (const create of proposal.creates) {
    if (documents.get(create.uri)) return { ok: false, reason: `${create.uri} already exists` };
  }
  return { ok: true, proposal: { documents: moved, creates: proposal.creates }, moved: anyMoved, merged: anyMerged };
}

function insertionsOf(proposal: Proposal, at: string): InsertionRecord[] {
  const records: InsertionRecord[] = [];
  for (const create of proposal.creates) {
    const lines = create.text.split('\n');
    const end = { line: lines.length - 1, character: (lines[lines.length - 1] ?? '').length };
    records.push({ uri: create.uri, range: { start: { line: 0, character: 0 }, end }, text: create.text, replaced: '', created: true, at });
  }
  for (const plan of proposal.documents) {
    const sorted = [...plan.edits].sort((a, b) => a.start - b.start);
    insertedRanges(plan.baseText, sorted).forEach((range, i) => {
      const edit = sorted[i];
      if (!edit) return;
      records.push({ uri: plan.uri, range, text: edit.newText, replaced: plan.baseText.slice(edit.start, edit.end), at, ...(plan.version !== null ? { version: plan.version } : {}) });
    });
  }
  return records;
}

/** Records how applying a response ended; `used` only when the editor applied it (or a text answer was shown). */
export async function recordOutcome(env: TaskEnvironment, interactionId: string, responseId: string, result: ApplyResult, proposal?: Proposal): Promise<void> {
  const at = new Date().toISOString();
  await env.trace.update(interactionId, (interaction) => {
    for (const response of interaction.responses) {
      if (response.id !== responseId) continue;
      response.outcome = result.outcome;
      if (result.message) response.outcomeReason = result.message;
      if (result.outcome === 'shown') response.used = true;
      if (result.applied && proposal) {
        response.used = true;
        response.insertedAt = insertionsOf(proposal, at);
      }
    }
  });
}

/**
 * Whether a proposal may be applied: refused when it touches a file outside the workspace; when it touches a
 * sensitive file (`.git/`, `.env*`, CI configuration, editor settings) only if the user says so. Undefined means go.
 */
export async function refusal(env: TaskEnvironment, port: EditorPort, proposal: Proposal): Promise<ApplyResult | undefined> {
  const judged = confine(env.root, proposal.documents.map((d) => d.uri), proposal.creates.map((c) => c.uri));
  if (!judged.ok) return { applied: false, outcome: 'refused', message: `Not applied: ${judged.reason}; the assistant only writes inside the workspace.` };
  if (judged.sensitive.length === 0) return undefined;
  const allow = 'Apply anyway';
  const answer = await port.choose(`This edit changes ${judged.sensitive.join(', ')}. Apply it?`, [allow, 'Cancel']);
  if (answer === allow) return undefined;
  return { applied: false, outcome: 'refused', message: `Not applied: it changes ${judged.sensitive.join(', ')}, and that was not confirmed.` };
}

/**
 * Whether the user sees an edit (or a revert) before it lands: with `multiFile`, when it changes more than the one
 * document or creates or deletes a file, since those changes happen out of sight; an edit of one document lands where
 * the user looks.
 */
export function needsPreview(policy: PreviewPolicy, documents: number, fileOperations: number): boolean {
  if (policy === 'always') return true;
  if (policy === 'never') return false;
  return fileOperations > 0 || documents > 1;
}

/** The preview's title and who wrote the edit, from the trace record of the response. */
function previewOf(env: TaskEnvironment, interactionId: string, responseId: string, label: string): EditPreview {
  const agent = env.trace.get(interactionId)?.responses.find((r) => r.id === responseId)?.agent;
  return { label, description: agent ? `by ${agent.name} (${agent.technology}${agent.model ? `, ${agent.model}` : ''})` : 'by the assistant' };
}

/**
 * Applies a response the user chose. The edit goes to the editor as versioned TextDocumentEdits on the current
 * versions; a client that finds a document changed again refuses it, which is recorded. When the preview setting asks
 * for it, the editor shows the edit first; one the user then discards is recorded as discarded, not as a failure.
 */
export async function applyResponse(env: TaskEnvironment, documents: DocumentSource, port: EditorPort, interactionId: string, responseId: string, label: string): Promise<ApplyResult> {
  const proposal = env.plans.get(responseId);
  if (!proposal) {
    const recorded = env.trace.get(interactionId)?.responses.find((r) => r.id === responseId);
    // An answer that was never usable has no plan either: say why, not that it is too old.
    if (recorded && recorded.status !== 'ok') return { applied: false, outcome: 'failed', message: `This answer cannot be applied: ${recorded.error ?? `its agent's status is ${recorded.status}`}.` };
    return { applied: false, outcome: 'failed', message: 'This answer was computed before the server restarted (or too long ago); run the task again.' };
  }
  const current = proposalOnCurrentText(proposal, documents);
  if (!current.ok) {
    const result: ApplyResult = { applied: false, outcome: 'stale', message: `Not applied: ${current.reason}. Run the task again on the current text.` };
    await recordOutcome(env, interactionId, responseId, result);
    return result;
  }
  const refused = await refusal(env, port, current.proposal);
  if (refused) {
    await recordOutcome(env, interactionId, responseId, refused);
    return refused;
  }
  const preview = needsPreview(env.preview, current.proposal.documents.length, current.proposal.creates.length) ? previewOf(env, interactionId, responseId, label) : undefined;
  const outcome = await port.applyEdit(label, proposalToWorkspaceEdit(current.proposal), preview);
  const result: ApplyResult = outcome.applied
    ? { applied: true, outcome: 'applied', ...(current.merged ? { message: 'The document had changed where the edit applies; both changes were merged.' } : current.moved ? { message: 'The document had changed; the edit was moved onto the current text.' } : {}) }
    : outcome.previewed && !outcome.failureReason
      ? // The user saw the edit and chose not to take it: their decision, not a failure.
        { applied: false, outcome: 'discarded', message: 'Discarded in the preview; nothing was changed.' }
      : { applied: false, outcome: 'rejected-by-client', message: `The editor did not apply the edit${outcome.failureReason ? `: ${outcome.failureReason}` : ''}.` };
  await recordOutcome(env, interactionId, responseId, result, current.proposal);
  return result;
}
