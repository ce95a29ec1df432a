// Renders interactions as a markdown report a person can read in the editor.
import type { Interaction, TraceResponse } from '../protocol.js';

function fence(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function responseSection(response: TraceResponse, index: number): string {
  const agent = response.agent;
  const facts = [
    `agent **${agent.name}** (${agent.technology}${agent.model ? `, model ${agent.model}` : ''})`,
    `status ${response.status}`,
    response.used ? 'used' : 'not used',
    response.outcome ? `outcome ${response.outcome}` : undefined,
    response.rating ? `rated ${response.rating}` : undefined,
    response.revertedAt ? `reverted ${response.revertedAt}` : undefined,
    response.revertsDiscardedAt?.length ? `revert discarded ${response.revertsDiscardedAt.join(', ')}` : undefined,
    `${response.durationMs} ms`,
  ].filter(Boolean);
  const lines = [`### Response ${index + 1}`, '', facts.join(' · '), ''];
  if (response.error) lines.push(`Error: ${response.error}`, '');
  if (response.text) lines.push(fence(response.text), '');
  for (const insertion of response.insertedAt ?? []) lines.push(`Inserted at line ${insertion.range.start.line + 1} of ${insertion.uri} (${insertion.at}).`, '');
  for (const remark of response.feedback ?? []) lines.push(`> ${remark}`, '');
  return lines.join('\n');
}

export function renderInteractions(interactions: readonly Interaction[]): string {
  const parts = interactions.map((interaction) => {
    const { resource, askedFrom } = interaction.context;
    const where = resource ? `${resource.relativePath}${interaction.context.symbol ? ` · ${interaction.context.symbol}` : ''}` : askedFrom ? `the workspace, asked in ${askedFrom.relativePath}` : 'no document';
    return [
      `## ${interaction.task}: ${interaction.text}`,
      '',
      `Interaction \`${interaction.id}\` · ${interaction.timestamp} · ${interaction.role} ${interaction.user} · from ${interaction.source} · ${where}`,
      interaction.classification ? `Classified by ${interaction.classification.by} (confidence ${interaction.classification.confidence.toFixed(2)}).` : '',
      interaction.message ? `\n${interaction.message}` : '',
      '',
      ...interaction.responses.map(responseSection),
    ].join('\n');
  });
  return `# Assistant interactions\n\n${parts.join('\n---\n\n')}\n`;
}
