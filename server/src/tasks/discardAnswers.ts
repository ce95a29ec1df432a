// Records that the user chose none of an interaction's answers, as amendments every reader of the trace applies.
import type { DiscardParams, DiscardResult, Interaction, TraceResponse } from '../protocol.js';
import { AssistantError } from '../assistantError.js';
import type { TraceStore } from '../trace/traceStore.js';

/** An answer of the interaction that was applied (whatever became of it since) or shown. */
function usedAnswer(interaction: Interaction): TraceResponse | undefined {
  return interaction.responses.find((r) => r.used || r.outcome === 'shown' || r.insertedAt?.length);
}

/**
 * Marks the answers the user was offered (`offered`, else every usable one: status `ok`) as discarded in the choice.
 * An interaction one of whose answers was applied or shown is left as it is, and says so: the user did use it.
 * Answers already marked are not written again, so a client may say it twice.
 */
export async function discardAnswers(trace: TraceStore, params: DiscardParams, offered?: readonly string[]): Promise<DiscardResult> {
  if (typeof params?.interactionId !== 'string') throw new AssistantError('invalid-params', 'assistant/discard needs "interactionId" (a string).');
  const interaction = trace.get(params.interactionId);
  if (!interaction) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
  const used = usedAnswer(interaction);
  if (used) {
    const how = used.outcome === 'shown' ? 'shown' : 'applied';
    return { discarded: false, outcome: 'used', message: `The answer of ${used.agent.name} was already ${how}, so the interaction is not marked discarded.` };
  }
  const answers = interaction.responses.filter((r) => (offered ? offered.includes(r.id) : r.status === 'ok'));
  if (answers.length === 0) return { discarded: false, outcome: 'no-answer', message: 'This interaction has no answer to discard.' };
  const fresh = answers.filter((r) => r.choiceDiscardedAt === undefined);
  if (fresh.length === 0) return { discarded: true, outcome: 'already-discarded', message: `The answers were already discarded at ${answers[0]?.choiceDiscardedAt}.` };
  const at = new Date().toISOString();
  await trace.amendResponses(fresh.map((r) => ({ interactionId: interaction.id, responseId: r.id, patch: { choiceDiscardedAt: at } })));
  return { discarded: true, outcome: 'discarded', message: `Discarded ${answers.length === 1 ? 'the answer' : `the ${answers.length} answers`}; nothing was applied.` };
}
