// Turns documentation a model wrote as markdown sections ("**Parameters**:", "### Returns") into a JSDoc block with tags, and closes a block cut off at the model's token limit.
import { commentContentLines, renderJsDoc } from './jsdoc.js';
import type { JsDocTag } from './jsdoc.js';

type Section = 'summary' | 'params' | 'returns' | 'throws' | 'templates' | 'other' | 'title';

/** Section headings models write, by what they hold; anything else headed (behaviour, notes, examples) is left out. */
const HEADINGS: ReadonlyArray<[RegExp, Section]> = [
  [/^(purpose|summary|description|overview|what it does)$/i, 'summary'],
  [/^(param(eter)?s?|arguments?|args|inputs?)$/i, 'params'],
  [/^(returns?|return values?|returned values?|outputs?|result)$/i, 'returns'],
  [/^(throws|exceptions?|errors?|raises)$/i, 'throws'],
  [/^(type param(eter)?s?|templates?|generics?)$/i, 'templates'],
  [/^(function|method|class|constructor)\b.*$/i, 'title'],
];

/** `**Heading**:`, `**Heading:**`, `### Heading`, `Heading:` alone on a line, or as a list item; the rest of the line is the section's first text. */
const HEADING_LINE = /^(?:[-*+]\s+)?(?:#{1,6}\s+)?(?:\*\*|__)([^*_]+?):?(?:\*\*|__):?\s*(.*)$|^(?:[-*+]\s+)?#{1,6}\s+(.+?):?\s*$|^([A-Z][A-Za-z ]{2,24}):\s*$/;

interface Heading {
  section: Section;
  rest: string;
}

function headingOf(line: string): Heading | undefined {
  const match = HEADING_LINE.exec(line.trim());
  if (!match) return undefined;
  const title = (match[1] ?? match[3] ?? match[4] ?? '').replace(/`/g, '').trim();
  const section = HEADINGS.find(([pattern]) => pattern.test(title))?.[1];
  // An unknown bold phrase at the start of a line is emphasis in prose unless it stands alone as a heading.
  if (!section) return match[2] === undefined || match[2] === '' ? { section: 'other', rest: '' } : undefined;
  return { section, rest: match[2] ?? '' };
}

/** Markdown emphasis and list marks off a line of prose; code spans stay. */
function plain(text: string): string {
  return text
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `` `name`: text ``, `` **`name`: Type**: text ``, `name (Type): text`, `name - text`: the name and the text. */
function parameterItem(item: string): { name: string; text: string } | undefined {
  const bare = item.replace(/\*\*|__/g, '');
  const match = /^`?((?:\.\.\.)?[\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*)`?\s*(?:\(([^)]*)\)|:\s*`?[^:`]*`?(?=:))?\s*(?::|-|–|—)\s*(.*)$/u.exec(bare);
  if (!match) return undefined;
  return { name: (match[1] as string).replace(/^\.\.\./, ''), text: plain(match[3] ?? '') };
}

/** A returns item's leading type in bold or code (`` **`string`:** ``) says nothing the checker does not. */
function returnsText(text: string): string {
  return plain(text.replace(/^\s*(?:[-*+]\s+)?(?:\*\*)?`[^`]+`:?(?:\*\*)?:?\s*/, ''));
}

interface Collected {
  summary: string[];
  params: Array<{ name: string; text: string[] }>;
  returns: string[];
  throws: string[][];
  templates: Array<{ name: string; text: string[] }>;
  headings: number;
}

function collect(lines: readonly string[]): Collected {
  const out: Collected = { summary: [], params: [], returns: [], throws: [], templates: [], headings: 0 };
  let section: Section = 'summary';
  let sawHeading = false;
  const listItem = (line: string): boolean => /^\s*(?:[-*+]|\d+[.)])\s+/.test(line);
  for (const line of lines) {
    if (line.trim() === '') continue;
    const heading = headingOf(line);
    if (heading) {
      section = heading.section;
      if (section !== 'title' && section !== 'other') out.headings++;
      sawHeading = true;
      if (!heading.rest) continue;
      if (section === 'params' || section === 'templates' || section === 'throws') {
        // "**Parameters**: `x`: text" on one line starts the list.
        addItem(out, section, heading.rest, true);
      } else if (section === 'summary') out.summary.push(plain(heading.rest));
      else if (section === 'returns') out.returns.push(returnsText(heading.rest));
      continue;
    }
    if (section === 'title' || section === 'other') {
      // Prose before any heading is the summary; after a heading of its own it belongs to that section.
      if (!sawHeading) out.summary.push(plain(line));
      continue;
    }
    if (section === 'summary') out.summary.push(plain(line));
    else if (section === 'returns') out.returns.push(returnsText(line));
    else addItem(out, section, line, listItem(line));
  }
  return out;
}

function addItem(out: Collected, section: 'params' | 'templates' | 'throws', line: string, starts: boolean): void {
  if (section === 'throws') {
    if (starts || out.throws.length === 0) out.throws.push([plain(line)]);
    else out.throws[out.throws.length - 1]?.push(plain(line));
    return;
  }
  const list = section === 'params' ? out.params : out.templates;
  const item = starts ? parameterItem(plain(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ''))) ?? parameterItem(line.trim().replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')) : undefined;
  if (item) list.push({ name: item.name, text: item.text ? [item.text] : [] });
  else list[list.length - 1]?.text.push(plain(line));
}

/**
 * The JSDoc block for documentation written as markdown sections (a summary, then headed parameters, returns,
 * throws), bare or inside a `/** … *\/` block; undefined when the text is not sectioned that way (fewer than two
 * known headings, or it already uses tags). Sections the tags cannot hold (behaviour, notes, examples) are left out:
 * they mostly retell the code.
 */
export function sectionedDocBlock(text: string): string | undefined {
  const inner = /^\s*\/\*\*/.test(text) ? commentContentLines(text.trim()) : text.split(/\r?\n/);
  if (inner.some((line) => /^\s*@[A-Za-z]/.test(line))) return undefined;
  const collected = collect(inner);
  if (collected.headings < 2) return undefined;
  const description = collected.summary.filter(Boolean).join(' ').trim();
  if (!/\p{L}/u.test(description)) return undefined;
  const tags: JsDocTag[] = [];
  const tag = (fields: Omit<JsDocTag, 'raw'>): JsDocTag => ({ ...fields, raw: '' });
  for (const t of collected.templates) tags.push(tag({ tag: 'template', name: t.name, text: t.text.join(' ') }));
  for (const p of collected.params) tags.push(tag({ tag: 'param', name: p.name, text: p.text.join(' ') }));
  const returns = collected.returns.filter(Boolean).join(' ').trim();
  if (returns) tags.push(tag({ tag: 'returns', text: returns }));
  for (const t of collected.throws) tags.push(tag({ tag: 'throws', text: t.filter(Boolean).join(' ') }));
  return renderJsDoc({ description: wrapped(description), tags });
}

/** Prose joined from a section's lines, wrapped again at about 100 columns like hand-written comments. */
function wrapped(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/**
 * What can be kept of an answer cut off at the model's token limit: a doc block that closed before the cut, else the
 * complete part of one left open (its last paragraph or tag, which the cut may have ended mid-sentence, dropped), or
 * of markdown sections. Undefined when nothing whole is left.
 */
export function salvageCutDoc(partial: string): string | undefined {
  const start = partial.indexOf('/**');
  if (start >= 0 && partial.indexOf('*/', start) > 0) return partial.slice(start, partial.indexOf('*/', start) + 2);
  const body = start >= 0 ? partial.slice(start + 3) : partial;
  const lines = body.split(/\r?\n/).map((line) => (start >= 0 ? line.replace(/^\s*\*(?!\*)\s?/, '') : line));
  // The last line was being written when the cut came; so was the paragraph, item or tag it continues.
  const starts = (line: string): boolean => /^\s*(@|[-*+]\s|\d+[.)]\s|\*\*|#)/.test(line);
  let cut = lines.pop();
  while (cut !== undefined && !starts(cut) && lines.length > 0 && lines[lines.length - 1]?.trim() !== '') cut = lines.pop();
  const kept = lines.join('\n').replace(/^\s*\n/, '').trimEnd();
  if (!/\p{L}/u.test(kept)) return undefined;
  const sectioned = sectionedDocBlock(kept);
  if (sectioned) return sectioned;
  if (start < 0) return undefined;
  return `/**\n${kept.split('\n').map((line) => (line ? ` * ${line}` : ' *')).join('\n')}\n */`;
}
