// How a structure shows code and places: 1-based lines, workspace-relative paths, code quoted on one line.
import path from 'node:path';
import type { ts } from 'ts-morph';

/** Longest piece of code quoted in a structure. */
export const MAX_QUOTE = 72;

/** The text of a `return;` that gives no value, among a declaration's or selection's return points. */
export const NO_VALUE = '(nothing)';

export function lineOf(source: ts.SourceFile, offset: number): number {
  return source.getLineAndCharacterOfPosition(offset).line + 1;
}

export function relativePath(root: string, fileName: string): string {
  const relative = path.relative(root, fileName);
  return (relative.startsWith('..') || path.isAbsolute(relative) ? fileName : relative).split(path.sep).join('/');
}

export function oneLine(text: string, max = MAX_QUOTE): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** A node's code on one line, shortened for quoting. */
export function quote(node: ts.Node, source: ts.SourceFile): string {
  return oneLine(node.getText(source));
}

/** Inline markdown code that survives backticks inside it. */
export function code(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}
