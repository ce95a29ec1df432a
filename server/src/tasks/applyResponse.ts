// Applies one chosen response through the editor: moved onto the document's current text or refused, then recorded.
import type { ApplyResult, InsertionRecord } from '../protocol.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import type { EditorPort } from '../editorPort.js';
import { rebaseEdits } from '../edits/rebase.js';
import { insertedRanges, toWorkspaceEdit } from '../edits/textEdits.js';
import type { DocumentEditPlan } from '../edits/textEdits.js';
import type { TaskEnvironment } from './runTask.js';

/** The plan moved onto the document as it is now, or why it cannot be. */
export type PlanOnCurrent = { ok: true; plan: DocumentEditPlan; moved: boolean } | { ok: false; reason: string };

export function planOnCurrentText(plan: DocumentEditPlan, documents: DocumentSource): PlanOnCurrent {
  const current = documents.get(plan.uri);
  if (!current) return { ok: false, reason: 'the document is no longer available' };
  if (current.version === plan.version && current.text === plan.baseText) return { ok: true, plan, moved: false };
  const rebased = rebaseEdits(plan.baseText, current.text, plan.edits);
  if (!rebased.ok) return { ok: false, reason: rebased.reason };
  return { ok: true, plan: { uri: plan.uri, version: current.version, baseText: current.text, edits: rebased.edits }, moved: rebased.moved };
}

/** Records how applying a response ended; `used` only when the editor applied it. */
export async function recordOutcome(env: TaskEnvironment, interactionId: string, responseId: string, result: ApplyResult, plan?: DocumentEditPlan): Promise<void> {
  const at = new Date().toISOString();
  await env.trace.update(interactionId, (interaction) => {
    for (const response of interaction.responses) {
      if (response.id !== responseId) continue;
      response.outcome = result.outcome;
      if (result.message) response.outcomeReason = result.message;
      if (result.applied && plan) {
        response.used = true;
        const sorted = [...plan.edits].sort((a, b) => a.start - b.start);
        const insertedAt: InsertionRecord[] = insertedRanges(plan.baseText, sorted).map((range, i) => ({
          uri: plan.uri,
          range,
          text: sorted[i]?.newText ?? '',
          replaced: plan.baseText.slice(sorted[i]?.start ?? 0, sorted[i]?.end ?? 0),
          at,
          ...(plan.version !== null ? { version: plan.version } : {}),
        }));
        response.insertedAt = insertedAt;
      }
    }
  });
}

/**
 * Applies a response the user chose. The edit goes to the editor as a versioned TextDocumentEdit on
 * the current version; a client that finds the document changed again refuses it, which is recorded.
 */
export async function applyResponse(env: TaskEnvironment, documents: DocumentSource, port: EditorPort, interactionId: string, responseId: string, label: string): Promise<ApplyResult> {
  const plan = env.plans.get(responseId);
  if (!plan) {
    return { applied: false, outcome: 'failed', message: 'This answer was computed before the server restarted (or too long ago); run the task again.' };
  }
  const current = planOnCurrentText(plan, documents);
  if (!current.ok) {
    const result: ApplyResult = { applied: false, outcome: 'stale', message: `Not applied: ${current.reason}. Run the task again on the current text.` };
    await recordOutcome(env, interactionId, responseId, result);
    return result;
  }
  const outcome = await port.applyEdit(label, toWorkspaceEdit(current.plan));
  const result: ApplyResult = outcome.applied
    ? { applied: true, outcome: 'applied', ...(current.moved ? { message: 'The document had changed; the edit was moved onto the current text.' } : {}) }
    : { applied: false, outcome: 'rejected-by-client', message: `The editor did not apply the edit${outcome.failureReason ? `: ${outcome.failureReason}` : ''}.` };
  await recordOutcome(env, interactionId, responseId, result, current.plan);
  return result;
}
