// Chooses what "the code at the cursor" means for rate and revert: which interaction, and which of its responses.
import type { Interaction, TraceResponse } from './protocol.js';

/** One response of one interaction, as rate and revert act on them. */
export interface ResponseTarget {
  interaction: Interaction;
  response: TraceResponse;
  /** For a quick pick when several qualify. */
  label: string;
  description: string;
}

function target(interaction: Interaction, response: TraceResponse): ResponseTarget {
  const what = [interaction.task, interaction.context.symbol].filter(Boolean).join(' ');
  const state = response.revertedAt ? 'reverted' : response.used ? 'applied' : (response.outcome ?? response.status);
  return {
    interaction,
    response,
    label: `${what || interaction.text} · ${response.agent.name}`,
    description: `${state} · ${interaction.timestamp.replace('T', ' ').slice(0, 16)}`,
  };
}

/**
 * Responses that can be rated, from the interactions `assistant/trace` found at a position (innermost first):
 * the used response of each interaction, or all its answered ones when none was used.
 */
export function rateTargets(interactions: readonly Interaction[]): ResponseTarget[] {
  return interactions.flatMap((interaction) => {
    const used = interaction.responses.filter((r) => r.used);
    const candidates = used.length ? used : interaction.responses.filter((r) => r.status === 'ok');
    return candidates.map((r) => target(interaction, r));
  });
}

/** Responses whose insertion can still be reverted: applied and not yet reverted. */
export function revertTargets(interactions: readonly Interaction[]): ResponseTarget[] {
  return interactions.flatMap((interaction) => interaction.responses.filter((r) => r.used && !r.revertedAt).map((r) => target(interaction, r)));
}
