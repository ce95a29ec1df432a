// "Apply a patch": a unified diff the user pasted, applied to the files as they are now (hunks located by their context), recorded in the trace like any answer.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ApplyPatchArgs, ApplyPatchResult, Interaction, TraceResponse } from '../protocol.js';
import { AssistantError } from '../assistantError.js';
import type { EditorPort } from '../editorPort.js';
import { proposalToWorkspaceEdit, touchedUris } from '../edits/proposal.js';
import { applyModelPatch, proposalOf, workspaceReader } from '../pipeline/modelPatch.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import { applyResponse } from './applyResponse.js';
import type { TaskEnvironment } from './runTask.js';

/** Longest pasted patch accepted. */
const MAX_PATCH_CHARS = 2_000_000;

export async function applyPatchFlow(env: TaskEnvironment, documents: DocumentSource, port: EditorPort, args: ApplyPatchArgs): Promise<ApplyPatchResult> {
  if (typeof args?.patch !== 'string' || args.patch.trim() === '') throw new AssistantError('invalid-params', 'assistant.applyPatch needs { patch }: the unified diff to apply.');
  if (args.patch.length > MAX_PATCH_CHARS) throw new AssistantError('invalid-params', `assistant.applyPatch: the patch is over ${MAX_PATCH_CHARS.toLocaleString('en-US')} characters.`);
  const startedAt = new Date();
  const applied = applyModelPatch(args.patch, workspaceReader(env.root, documents));
  const interaction: Interaction = {
    id: randomUUID(),
    sessionId: env.sessionId,
    timestamp: startedAt.toISOString(),
    role: env.role,
    user: env.user,
    source: 'command',
    text: 'Apply a pasted patch',
    task: 'patch',
    context: {},
    responses: [],
  };
  if (!applied.ok) {
    const message = `The patch was not applied: ${applied.reason}.`;
    await env.trace.add({ ...interaction, message });
    return { applied: false, interactionId: interaction.id, files: [], message };
  }
  const proposal = proposalOf(env.root, documents, applied.changes);
  const response: TraceResponse = {
    id: randomUUID(),
    agent: { name: 'pasted-patch', technology: 'rule', isLLM: false },
    status: 'ok',
    text: args.patch,
    edit: proposalToWorkspaceEdit(proposal),
    used: false,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
  // Recorded before the editor applies it, so the code it inserts leads back to this record.
  await env.trace.add({ ...interaction, responses: [response] });
  env.plans.set(response.id, proposal);
  const files = touchedUris(proposal).map((uri) => path.relative(env.root, uriToPath(uri) ?? uri).split(path.sep).join('/'));
  const result = await applyResponse(env, documents, port, interaction.id, response.id, 'Assistant: apply a patch');
  return { applied: result.applied, interactionId: interaction.id, files, outcome: result.outcome, message: result.applied ? `Applied to ${files.join(', ')}.${result.message ? ` ${result.message}` : ''}` : (result.message ?? 'The patch was not applied.') };
}
