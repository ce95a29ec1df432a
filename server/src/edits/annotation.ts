// The annotation that links inserted code back to its interaction: its format, where it goes, and reading it back from code.
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
/** A `//` line holding nothing but an annotation. */
const ANNOTATION_LINE = /^[ \t]*\/\/[ \t]*@assistant\b[^\n]*$/;

/** The annotation's text, without comment markers: `@assistant task=… agent=… interaction=… at=…`. */
export function formatAnnotation(a: Annotation): string {
  return `${TAG} task=${a.task} agent=${a.agent.replace(/\s+/g, '-')} interaction=${a.interactionId} at=${a.at}`;
}

/**
 * The annotation as the line comment it is written as, directly above the declaration (below its doc comment): a `//`
 * comment is not documentation, so TypeScript leaves it out of hovers and doc generators leave it out of the docs.
 */
export function annotationComment(a: Annotation): string {
  return `// ${formatAnnotation(a)}`;
}

/** Whether a line (or a `//` comment's text) is an annotation comment and nothing else. */
export function isAnnotationComment(line: string): boolean {
  return ANNOTATION_LINE.test(line);
}

/**
 * Code without its annotation lines: what a model is sent. The annotations are the trace's links, nothing a model
 * should read, copy or answer with.
 */
export function withoutAnnotationLines(code: string): string {
  if (!code.includes(TAG)) return code;
  return code
    .split('\n')
    .filter((line) => !isAnnotationComment(line.replace(/\r$/, '')))
    .join('\n');
}

/** The start of the first line from `lineStart` on that is not an annotation comment. */
export function afterAnnotationLines(text: string, lineStart: number): number {
  let at = lineStart;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const next = end < 0 ? text.length : end + 1;
    if (!isAnnotationComment(text.slice(at, end < 0 ? text.length : end).replace(/\r$/, '').trim())) break;
    at = next;
  }
  return at;
}

/**
 * Every annotation found in a piece of text (a comment or a whole declaration), in order: the `//` lines written now
 * and the `@assistant` lines inside doc comments that earlier versions wrote.
 */
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
    .filter((line) => !/^\s*(?:\*\s*)?@assistant\b/.test(line))
    .join('\n');
}
