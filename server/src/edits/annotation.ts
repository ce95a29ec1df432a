// The annotation that links inserted code back to its interaction: its format, and reading it back from code.
import type { TaskId } from '../protocol.js';

export interface Annotation {
  task: TaskId;
  agent: string;
  interactionId: string;
  /** ISO 8601 time of insertion. */
  at: string;
}

const TAG = '@assistant';
const PATTERN = /@assistant\s+task=(\S+)\s+agent=(\S+)\s+interaction=(\S+)\s+at=(\S+)/g;

/** The annotation's text, without comment markers: `@assistant task=… agent=… interaction=… at=…`. */
export function formatAnnotation(a: Annotation): string {
  return `${TAG} task=${a.task} agent=${a.agent.replace(/\s+/g, '-')} interaction=${a.interactionId} at=${a.at}`;
}

/** Every annotation found in a piece of text (a comment or a whole declaration), in order. */
export function parseAnnotations(text: string): Annotation[] {
  const out: Annotation[] = [];
  for (const m of text.matchAll(PATTERN)) {
    out.push({ task: m[1] as TaskId, agent: m[2] ?? '', interactionId: m[3] ?? '', at: (m[4] ?? '').replace(/\*\/$/, '') });
  }
  return out;
}

/** Removes annotation lines from a JSDoc block, so a model or an old run cannot forge or duplicate them. */
export function stripAnnotationLines(block: string): string {
  return block
    .split('\n')
    .filter((line) => !/^\s*\*?\s*@assistant\b/.test(line))
    .join('\n');
}
