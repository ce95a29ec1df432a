// What the user is told once an answer was applied or not: nothing for a discard in the preview, which was their own choice.
import type { ApplyResult } from './protocol.js';

export interface Notice {
  level: 'info' | 'warning';
  text: string;
}

export function applyNotice(result: ApplyResult): Notice | undefined {
  if (result.outcome === 'discarded') return undefined;
  if (!result.applied) return { level: 'warning', text: `Assistant: not applied (${result.outcome})${result.message ? `: ${result.message}` : ''}` };
  return result.message ? { level: 'info', text: `Assistant: ${result.message}` } : undefined;
}
