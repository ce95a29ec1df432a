// Builds the trace view's tree (sessions → interactions) from `assistant/trace` pages, with labels, tooltips and where each leads.
import type { Interaction, TracedInteraction, TraceResponse } from './protocol.js';
import type { Pos } from './assistantApi.js';

/** Where selecting an interaction goes: the place the server gives it (see `interactionTarget`). */
export interface Location {
  uri: string;
  range: { start: Pos; end: Pos };
}

export interface InteractionNode {
  kind: 'interaction';
  interaction: TracedInteraction;
  /** Task and symbol, e.g. `document ConfigStore.load`. */
  label: string;
  /** Agent, use and time, e.g. `doc-offline · used · 14:03`. */
  description: string;
  /** Markdown. */
  tooltip: string;
  target?: Location;
}

export interface SessionNode {
  kind: 'session';
  sessionId: string;
  label: string;
  description: string;
  tooltip: string;
  children: InteractionNode[];
}

/** Says that the view shows only the newest interactions. */
export interface MoreNode {
  kind: 'more';
  label: string;
}

export type TraceNode = SessionNode | InteractionNode | MoreNode;

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM` in local time. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `HH:MM` in local time. */
export function formatTime(iso: string): string {
  return formatDateTime(iso).slice(11) || iso;
}

/** The response that stands for the interaction: the used one, else the first that answered, else the first. */
export function mainResponse(interaction: Interaction): TraceResponse | undefined {
  return interaction.responses.find((r) => r.used) ?? interaction.responses.find((r) => r.status === 'ok') ?? interaction.responses[0];
}

function useState(response: TraceResponse | undefined): string {
  if (!response) return 'no answer';
  if (response.revertedAt) return 'reverted';
  if (response.used) return 'used';
  if (response.outcome && response.outcome !== 'applied') return response.outcome;
  return response.status === 'ok' ? 'not used' : response.status;
}

export function interactionLabel(interaction: Interaction): string {
  const symbol = interaction.context.symbol;
  if (symbol) return `${interaction.task} ${symbol}`;
  const text = interaction.text.length > 60 ? `${interaction.text.slice(0, 57)}…` : interaction.text;
  return `${interaction.task}: ${text}`;
}

export function interactionDescription(interaction: TracedInteraction): string {
  const response = mainResponse(interaction);
  const agents = response ? response.agent.name + (interaction.responses.length > 1 ? ` +${interaction.responses.length - 1}` : '') : '';
  return [agents, useState(response), placeNote(interaction), formatTime(interaction.timestamp)].filter(Boolean).join(' · ');
}

/**
 * Where selecting the interaction leads: the `place` the server gives each interaction in the trace (its code where it
 * is now, else the code it was about, else the first place a workspace question's answer cites, else the file it was
 * asked in), so every client leads to the same place.
 */
export function interactionTarget(interaction: TracedInteraction): Location | undefined {
  const place = interaction.place;
  return place ? { uri: place.uri, range: place.range } : undefined;
}

/**
 * What the place is when it is not the interaction's own code: `cites function withRetry +4` (a workspace question
 * leads to the first place its answer cites), `asked in src/main.ts, cites nothing`.
 */
export function placeNote(interaction: TracedInteraction): string | undefined {
  const place = interaction.place;
  if (place?.kind === 'cited') return `cites ${place.label ?? 'a place'}${place.more ? ` +${place.more}` : ''}`;
  if (place?.kind === 'askedFrom') return `asked in ${interaction.context.askedFrom?.relativePath ?? 'the file open then'}, cites nothing`;
  return undefined;
}

const escapeMarkdown = (text: string): string => text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');

export function interactionTooltip(interaction: TracedInteraction): string {
  const lines = [`**${escapeMarkdown(interactionLabel(interaction))}**`, ''];
  lines.push(`"${escapeMarkdown(interaction.text)}"`, '');
  const classified = interaction.classification ? ` (${interaction.classification.by}, ${Math.round(interaction.classification.confidence * 100)}%)` : '';
  lines.push(`- task: ${interaction.task}${escapeMarkdown(classified)}`);
  lines.push(`- asked by ${escapeMarkdown(interaction.user)} (${interaction.role}) through a ${interaction.source} at ${formatDateTime(interaction.timestamp)}`);
  const { resource, fragment, askedFrom } = interaction.context;
  if (resource) lines.push(`- in ${escapeMarkdown(resource.relativePath)}${fragment ? `:${fragment.range.start.line + 1}` : ''}`);
  if (askedFrom) lines.push(`- asked in ${escapeMarkdown(askedFrom.relativePath)}, about the workspace`);
  const cited = interaction.place?.kind === 'cited' ? interaction.place : undefined;
  if (cited) lines.push(`- opens ${escapeMarkdown(cited.label ?? 'a place')}, the first of ${(cited.more ?? 0) + 1} place${cited.more ? 's' : ''} its answer cites`);
  for (const r of interaction.responses) {
    const extras = [useState(r), r.rating ? `rated ${r.rating}` : '', `${r.durationMs} ms`].filter(Boolean).join(', ');
    lines.push(`- ${escapeMarkdown(r.agent.name)} (${r.agent.technology}): ${extras}${r.error ? ` — ${escapeMarkdown(r.error)}` : ''}`);
    for (const remark of r.feedback ?? []) lines.push(`  - "${escapeMarkdown(remark)}"`);
  }
  if (interaction.message) lines.push('', escapeMarkdown(interaction.message));
  lines.push('', `\`${interaction.id}\``);
  return lines.join('\n');
}

export function interactionNode(interaction: TracedInteraction): InteractionNode {
  const node: InteractionNode = {
    kind: 'interaction',
    interaction,
    label: interactionLabel(interaction),
    description: interactionDescription(interaction),
    tooltip: interactionTooltip(interaction),
  };
  const target = interactionTarget(interaction);
  if (target) node.target = target;
  return node;
}

/**
 * Groups interactions (newest first, as `assistant/trace` returns them) by session, newest session first, and
 * adds a note when `total` says the trace holds more than were fetched.
 */
export function buildTraceTree(interactions: readonly TracedInteraction[], total: number): TraceNode[] {
  const sessions = new Map<string, TracedInteraction[]>();
  for (const interaction of interactions) {
    const list = sessions.get(interaction.sessionId) ?? [];
    list.push(interaction);
    sessions.set(interaction.sessionId, list);
  }
  const nodes: TraceNode[] = [...sessions].map(([sessionId, list]) => {
    const oldest = list[list.length - 1] as Interaction;
    const newest = list[0] as Interaction;
    const users = [...new Set(list.map((i) => i.user))].join(', ');
    const count = `${list.length} interaction${list.length === 1 ? '' : 's'}`;
    return {
      kind: 'session',
      sessionId,
      label: `Session ${formatDateTime(oldest.timestamp)}`,
      description: `${count} · ${users}`,
      tooltip: `Session \`${sessionId}\`: ${count} from ${formatDateTime(oldest.timestamp)} to ${formatDateTime(newest.timestamp)}, by ${escapeMarkdown(users)}`,
      children: list.map(interactionNode),
    };
  });
  if (total > interactions.length) nodes.push({ kind: 'more', label: `${total - interactions.length} older interactions not shown` });
  return nodes;
}
