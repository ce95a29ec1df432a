// Where an interaction leads in the code (its code, what it was about, what its answer cites, where it was asked), decided once for every client and the trace CLI.
import type { Interaction, TracedInteraction, TracePlace, TraceResponse } from '../protocol.js';

const START = { line: 0, character: 0 };

/** See `TracePlace` in protocol/src/trace.ts for the order; undefined when the interaction leads nowhere in the code. */
export function tracePlaceOf(interaction: Interaction): TracePlace | undefined {
  const used: TraceResponse | undefined = interaction.responses.find((response) => response.used);
  const withCode = [used, ...interaction.responses].find((response) => response?.insertedAt?.length);
  const insertion = withCode?.insertedAt?.[0];
  if (insertion) return { kind: 'code', uri: insertion.uri, range: insertion.range };
  const { resource, fragment, askedFrom } = interaction.context;
  if (resource) return { kind: 'about', uri: resource.uri, range: fragment?.range ?? { start: START, end: START } };
  const citing = [used, ...interaction.responses.filter((response) => response.status === 'ok')].find((response) => response?.locations?.length);
  const cited = citing?.locations ?? [];
  const first = cited[0];
  if (first) return { kind: 'cited', uri: first.uri, range: first.range, label: first.label, more: cited.length - 1 };
  if (askedFrom) return { kind: 'askedFrom', uri: askedFrom.uri, range: { start: START, end: START } };
  return undefined;
}

/** The interaction with where it leads, for the `assistant/trace` answer. */
export function withPlace(interaction: Interaction): TracedInteraction {
  const place = tracePlaceOf(interaction);
  return place ? { ...interaction, place } : interaction;
}
