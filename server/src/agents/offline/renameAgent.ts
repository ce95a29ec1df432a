// The offline Rename agent: renames a symbol to the name the user gave, through TypeScript's rename locations in every file.
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import { normaliseNewName, planRename, renameAnchor } from '../../repo/renameSymbol.js';

/** Renames exactly as the type checker sees references: no guessing, no text search, and a reason when it cannot. */
export class OfflineRenameAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'rename-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['rename'];
  readonly description = 'Renames a symbol to a given name at every reference in the project, through the TypeScript rename locations; checks the name first.';

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const anchor = renameAnchor(request.target);
    const oldName = request.document.text.slice(anchor.start, anchor.end) || request.target.name;
    const given = request.parameters.newName?.trim();
    // Without a name there is nothing honest to do offline; the text tells the user how to give one.
    if (!given) return { text: `the offline agent needs a new name: use assistant/ask "rename ${oldName} to <new name>"` };
    const planned = planRename(request.project, request.document, anchor.start, given, signal);
    signal.throwIfAborted();
    if (!planned.ok) return { text: `cannot rename ${oldName} to ${given}: ${planned.reason}` };
    const newName = normaliseNewName(given, planned.value.prepared.oldName);
    const note = planned.value.prepared.truncated ? '\nThe workspace has more files than a rename loads; references in the others are not renamed.' : '';
    return { text: `Rename ${planned.value.prepared.oldName} to ${newName}${note}`, proposal: planned.value.proposal };
  }
}
