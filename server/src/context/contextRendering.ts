// A request's context rendered as a prompt section, and the length of that rendering without building it.
import path from 'node:path';
import type { ContextSnippet, RequestContext } from './contextShapes.js';

/**
 * The context as a prompt section: markdown headings with `file:line` (1-based, as people write them) and fenced
 * code, in a fixed order (enclosing, symbols with their references, recent positions, open documents). The same
 * context always renders the same text; an empty one renders nothing. The omissions are not rendered: they are for
 * the user and the trace, and a path is all they would tell a model.
 */
export function renderRequestContext(context: RequestContext): string {
  const sections = sectionsOf(context).map(({ heading, blocks }) => [...(heading ? [heading] : []), ...blocks.map((b) => `${b.head}\n${fenced(b.snippet)}`)].join('\n\n'));
  return sections.length > 0 ? `## Context\n\n${sections.join('\n\n')}\n` : '';
}

/**
 * `renderRequestContext(context).length`, without building the text: the budget is checked after each piece placed
 * (and each cut tried), and rendering the whole context every time made that quadratic. The same parts, counted;
 * each snippet's fenced block is measured once.
 */
export function renderedLength(context: RequestContext): number {
  const sections = sectionsOf(context).map(({ heading, blocks }) => blocks.reduce((sum, b) => sum + b.head.length + 1 + fencedLength(b.snippet), heading ? heading.length + 2 : 0) + 2 * (blocks.length - 1));
  return sections.length > 0 ? '## Context\n\n'.length + sections.reduce((sum, section) => sum + section, 0) + 2 * (sections.length - 1) + 1 : 0;
}

/**
 * What the context renders, in order: its sections, each an optional heading and its blocks (a heading line over one
 * snippet's fenced code). Both the rendering and its length are made from these.
 */
function sectionsOf(context: RequestContext): { heading?: string; blocks: { head: string; snippet: ContextSnippet }[] }[] {
  const sections: { heading?: string; blocks: { head: string; snippet: ContextSnippet }[] }[] = [];
  if (context.enclosing) sections.push({ blocks: [{ head: `### Enclosing ${context.enclosing.kind} \`${context.enclosing.name}\` (${where(context.enclosing)})`, snippet: context.enclosing }] });
  if (context.symbols.length > 0) {
    const blocks: { head: string; snippet: ContextSnippet }[] = [];
    for (const symbol of context.symbols) {
      blocks.push({ head: `#### ${symbol.kind} \`${symbol.name}\` (${where(symbol.declaration)})`, snippet: symbol.declaration });
      for (const reference of symbol.references) blocks.push({ head: `Used at ${where(reference)}${inLabel(reference)}:`, snippet: reference });
    }
    sections.push({ heading: '### Symbols the request names or the code uses', blocks });
  }
  const listed = (snippet: ContextSnippet): { head: string; snippet: ContextSnippet } => ({ head: `#### ${where(snippet)}${inLabel(snippet)}`, snippet });
  if (context.recent.length > 0) sections.push({ heading: '### Recently visited', blocks: context.recent.map(listed) });
  if (context.openDocuments.length > 0) sections.push({ heading: '### Other open documents', blocks: context.openDocuments.map(listed) });
  return sections;
}

/** `fenced(snippet).length` by snippet, with the text and file it was measured on (so a changed snippet is measured again). */
const fencedLengths = new WeakMap<ContextSnippet, { text: string; file: string; length: number }>();

function fencedLength(snippet: ContextSnippet): number {
  const known = fencedLengths.get(snippet);
  if (known && known.text === snippet.text && known.file === snippet.file) return known.length;
  const length = fenced(snippet).length;
  fencedLengths.set(snippet, { text: snippet.text, file: snippet.file, length });
  return length;
}

function where(snippet: ContextSnippet): string {
  return snippet.endLine > snippet.startLine ? `${snippet.file}:${snippet.startLine + 1}-${snippet.endLine + 1}` : `${snippet.file}:${snippet.startLine + 1}`;
}

function inLabel(snippet: ContextSnippet): string {
  return snippet.label ? ` in \`${snippet.label}\`` : '';
}

const FENCE_LANGUAGES: Record<string, string> = { ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'jsx', json: 'json', md: 'markdown' };

/** A fence longer than any run of backticks in the text, so code holding a fence of its own cannot close it early. */
function fenced(snippet: ContextSnippet): string {
  const longest = Math.max(0, ...[...snippet.text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const language = FENCE_LANGUAGES[path.posix.extname(snippet.file).slice(1).toLowerCase()] ?? '';
  return `${fence}${language}\n${snippet.text}\n${fence}`;
}
