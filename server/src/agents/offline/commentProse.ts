// The prose of the `//` lines over a declaration, as a summary: without its TODOs, directives and commented-out code.

/**
 * A line that tells a tool something (lint, type checker, formatter, coverage, bundler, the assistant's own
 * annotation): `eslint-disable-next-line`, `@ts-expect-error`, `prettier-ignore`, `@__NO_SIDE_EFFECTS__`, `#region`.
 */
const DIRECTIVE = /^(?:eslint(?:-disable|-enable)?\b|eslint-env\b|global\s|globals\s|exported\s|prettier-ignore|biome-ignore|deno-(?:lint|fmt)-ignore|dprint-ignore|tslint:|jshint\b|jscs:|istanbul\s+ignore|[cv]8\s+ignore|noinspection\b|NOSONAR|cspell:|spell-checker:|webpack[A-Z]|@|#|<)/i;

/** A note for the developer rather than a description of the code. */
const TODO = /^(?:TODO|FIXME|XXX|HACK|BUG|TBD)\b|^(?:todo|fixme|hack)\s*[:(]/;

/** Commented-out code: a line ending as statements and blocks end, an arrow, a call standing alone, a union. */
const CODE = /[;{}=]\s*$|=>|^(?:const|let|var|import|export|return|if|for|while|function|type|interface|class|await)\s+[^\s.,]+\s*[=(<{:]|^[\w$.]+\(.*\)\s*$|^[\w$.'"]+(?:\s*\|\s*[\w$.'"]+)+$/;

/**
 * The summary the `//` lines directly over a declaration give, or undefined when they give none: their prose, joined
 * into sentences (a blank `//` line starts a paragraph), without directives, TODOs (and their continuation lines) and
 * commented-out code (a paragraph of mostly code; prose may quote code on a line of its own). Fewer than four words
 * (`// helpers`, `// ZodUUIDv6`, `// Codec utility functions`) is a label, not a summary.
 */
export function summaryFromComments(comments: readonly string[]): string | undefined {
  const paragraphs: string[][] = [[]];
  let skipping = false;
  for (const comment of comments) {
    if (!comment.startsWith('//') || comment.startsWith('///')) continue;
    const raw = comment.slice(2);
    const line = raw.trim();
    if (line === '') {
      skipping = false;
      if ((paragraphs[paragraphs.length - 1] as string[]).length > 0) paragraphs.push([]);
      continue;
    }
    if (DIRECTIVE.test(line) || TODO.test(line)) {
      skipping = true;
      continue;
    }
    // A TODO's next lines go on with it while they are indented under it or start in lower case.
    if (skipping && (/^\s{2,}/.test(raw) || /^[a-z]/.test(line))) continue;
    skipping = false;
    (paragraphs[paragraphs.length - 1] as string[]).push(line);
  }
  const prose = paragraphs.filter((lines) => lines.length > 0 && lines.filter((line) => CODE.test(line)).length * 2 < lines.length && lines.some((line) => /\p{L}/u.test(line)));
  const texts = prose.map((lines) => asSentence(lines.join(' ').replace(/\s+/g, ' ')));
  const words = texts.join(' ').split(' ').filter((word) => /[\p{L}\p{N}]/u.test(word));
  return words.length >= 4 ? texts.join('\n\n') : undefined;
}

/** The text with a capital first letter and a closing full stop (a trailing colon or comma becomes one). */
function asSentence(text: string): string {
  const trimmed = text.trim().replace(/[:,;]$/, '');
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
