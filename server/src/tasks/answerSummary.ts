// One line of plain text that says what an answer is, for choice lists and pickers: no markdown, no comment marks, no code fence.

/** A fence line: ``` or ~~~, with or without a language. */
const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * The first line of `text` that says something, as plain text of at most `max` characters: prose before code, so an
 * explanation gives its first sentence and a model's fenced answer the doc comment or code inside its fence (never
 * the fence line itself). Markdown (headings, bullets, emphasis, inline code, links) and comment marks (`/**`, ` *`,
 * `//`) are taken off. Empty when nothing in the text has a letter or digit.
 */
export function answerSummary(text: string, max = 80): string {
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const marker = FENCE.exec(raw)?.[1];
    if (marker && (fence === undefined || raw.trim().startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const line = fence === undefined ? plainMarkdown(withoutCommentMarks(raw)) : withoutCommentMarks(raw).trim();
    if (/[\p{L}\p{N}]/u.test(line)) (fence === undefined ? prose : code).push(line);
  }
  return shortened(prose[0] ?? code[0] ?? '', max);
}

/** A line without the marks of the comment it is in: `/**`, `*\/`, a leading `*` or `//`. */
function withoutCommentMarks(line: string): string {
  return line
    .replace(/^\s*\/\*\*?/, '')
    .replace(/\*\/\s*$/, '')
    .replace(/^\s*\*(?=\s|$)/, '')
    .replace(/^\s*\/\/+/, '');
}

/** The text a line of markdown shows: no heading, quote or bullet mark, emphasis, inline-code ticks or link targets. */
function plainMarkdown(line: string): string {
  return line
    .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/[*_`]{2,}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** At most `max` characters, cut at a word with `…`. */
function shortened(line: string, max: number): string {
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
