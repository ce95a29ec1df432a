// Parses and renders JSDoc blocks so generated and model-written doc comments can be merged without losing what a person wrote.

/** One block tag of a JSDoc comment, e.g. `@param {string} path - The file to read.` */
export interface JsDocTag {
  /** The tag name without `@`: `param`, `returns`, `throws`, … */
  tag: string;
  /** The text between braces after the tag name, without the braces. */
  type?: string;
  /** The name of a `@param`, `@property`, `@template`, `@typedef` or `@callback` tag, without brackets. */
  name?: string;
  /** Whether the name was written in brackets (`[name]` or `[name=default]`). */
  optional?: boolean;
  /** The default value written as `[name=default]`. */
  defaultValue?: string;
  /** The tag's text, without a leading `- ` separator; continuation lines are joined with `\n`. */
  text: string;
  /**
   * The tag's original lines without their ` * ` prefixes, joined with `\n`.
   * Rendering keeps them verbatim as long as the other fields still describe them.
   */
  raw: string;
}

/** A parsed JSDoc comment: the free text before the first tag, then the tags in order. */
export interface JsDocBlock {
  description: string;
  tags: JsDocTag[];
}

/** Tags whose first word after the optional `{type}` is a name. */
const NAMED_TAGS = new Set(['param', 'arg', 'argument', 'property', 'prop', 'template', 'typedef', 'callback', 'typeParam', 'typeparam']);

/** Named tags whose text is conventionally separated from the name by ` - `. */
const HYPHENATED_TAGS = new Set(['param', 'arg', 'argument', 'property', 'prop', 'template', 'typeParam', 'typeparam']);

const TAG_START = /^@([A-Za-z][\w-]*)(?=[\s{]|$)/;

/** Parses a `/** … *\/` block (indented or not, single- or multi-line). */
export function parseJsDoc(block: string): JsDocBlock {
  const lines = commentContentLines(block);
  const descriptionLines: string[] = [];
  const tagLines: string[][] = [];
  let insideFence = false;
  for (const line of lines) {
    // A line starting with `@` inside an example's code fence is code, not a new tag.
    if (!insideFence && TAG_START.test(line)) {
      tagLines.push([line]);
    } else {
      const current = tagLines[tagLines.length - 1];
      if (current) current.push(line);
      else descriptionLines.push(line);
    }
    if (/^\s*(```|~~~)/.test(line)) insideFence = !insideFence;
  }
  const tags = tagLines.map((linesOfTag) => {
    const raw = trimBlankEdges(linesOfTag).join('\n');
    return { ...parseTagFields(raw), raw };
  });
  return { description: trimBlankEdges(descriptionLines).join('\n'), tags };
}

/**
 * Renders a block as `/**`, ` * …` lines and ` *\/`, without indentation.
 * Tags whose `raw` still matches their fields are emitted exactly as written.
 */
export function renderJsDoc(block: JsDocBlock): string {
  const lines: string[] = [];
  const description = trimBlankEdges(block.description.split(/\r?\n/).map((line) => line.trimEnd()));
  lines.push(...description);
  const tagLines = block.tags.flatMap((tag) => (rawDescribesTag(tag) ? tag.raw : renderTag(tag)).split(/\r?\n/).map((line) => line.trimEnd()));
  if (description.length > 0 && tagLines.length > 0) lines.push('');
  lines.push(...tagLines);
  const body = lines.map((line) => (line === '' ? ' *' : ` * ${neutraliseCommentEnd(line)}`));
  return ['/**', ...body, ' */'].join('\n');
}

/**
 * Renders one tag from its fields (ignoring `raw`) as content lines without ` * ` prefixes.
 * `hyphen: false` separates a name from its text with a space instead of ` - `.
 */
export function renderTag(tag: Omit<JsDocTag, 'raw'>, options: { hyphen?: boolean } = {}): string {
  let head = `@${tag.tag}`;
  if (tag.type !== undefined) head += ` {${tag.type}}`;
  if (tag.name) {
    const defaultPart = tag.defaultValue !== undefined ? `=${tag.defaultValue}` : '';
    head += ' ' + (tag.optional ? `[${tag.name}${defaultPart}]` : tag.name);
  }
  if (!tag.text) return head;
  const separator = tag.name && HYPHENATED_TAGS.has(tag.tag) && options.hyphen !== false ? ' - ' : ' ';
  return head + separator + tag.text;
}

/** Prefixes every line with `indent`; the result ends with a newline so it can be inserted at a line start. */
export function indentBlock(block: string, indent: string): string {
  const lines = block.replace(/\r?\n$/, '').split(/\r?\n/);
  return lines.map((line) => indent + line).join('\n') + '\n';
}

/**
 * Removes a declaration's indentation from the lines after the first of a doc comment taken from source.
 * With `indent`, exactly that prefix is removed where present (so an unchanged comment stays byte-identical);
 * without it, each ` *` line is re-aligned to one leading space.
 */
export function unindentBlock(block: string, indent?: string): string {
  const lines = block.split(/\r?\n/);
  return lines
    .map((line, index) => {
      if (index === 0) return line.trimStart();
      if (indent !== undefined) return line.startsWith(indent) ? line.slice(indent.length) : line.trimStart();
      const rest = line.trimStart();
      return rest.startsWith('*') ? ` ${rest}` : rest;
    })
    .join('\n');
}

/** Replaces `*\/` so text can never close the comment it is placed in. */
export function neutraliseCommentEnd(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/** The names a `@param` (or `@template`) tag documents; `@template T, U` documents two. */
export function tagNames(tag: JsDocTag): string[] {
  if (!tag.name) return [];
  return tag.name
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

export function commentContentLines(block: string): string[] {
  let body = block.trim();
  if (body.startsWith('/**')) body = body.slice(3);
  else if (body.startsWith('/*')) body = body.slice(2);
  if (body.endsWith('*/')) body = body.slice(0, -2);
  const rawLines = body.split(/\r?\n/);
  const lines = rawLines.map((line, index) => {
    if (index === 0) return line.trim();
    const starred = /^\s*\* ?/.exec(line);
    return (starred ? line.slice(starred[0].length) : line.trimStart()).trimEnd();
  });
  return lines;
}

function trimBlankEdges(lines: string[]): string[] {
  let first = 0;
  let last = lines.length;
  while (first < last && lines[first]?.trim() === '') first++;
  while (last > first && lines[last - 1]?.trim() === '') last--;
  return lines.slice(first, last);
}

function parseTagFields(raw: string): Omit<JsDocTag, 'raw'> {
  const tagMatch = TAG_START.exec(raw);
  const tag = tagMatch?.[1] ?? '';
  let rest = raw.slice(tagMatch ? tagMatch[0].length : 0).replace(/^[ \t]+/, '');
  const fields: Omit<JsDocTag, 'raw'> = { tag, text: '' };
  if (rest.startsWith('{')) {
    const close = matchingClose(rest, 0, '{', '}');
    if (close > 0) {
      fields.type = rest.slice(1, close).trim();
      rest = rest.slice(close + 1).replace(/^[ \t]+/, '');
    }
  }
  if (NAMED_TAGS.has(tag)) {
    if (rest.startsWith('[')) {
      const close = matchingClose(rest, 0, '[', ']');
      if (close > 0) {
        const inner = rest.slice(1, close).trim();
        const equals = inner.indexOf('=');
        fields.name = (equals >= 0 ? inner.slice(0, equals) : inner).trim();
        fields.optional = true;
        if (equals >= 0) fields.defaultValue = inner.slice(equals + 1).trim();
        rest = rest.slice(close + 1);
      }
    } else {
      const namePattern = tag === 'template' ? /^[\w$]+(?:\s*,\s*[\w$]+)*/ : /^[^\s]+/;
      const nameMatch = namePattern.exec(rest);
      if (nameMatch) {
        fields.name = nameMatch[0];
        rest = rest.slice(nameMatch[0].length);
      }
    }
    rest = rest.replace(/^[ \t]+/, '');
    if (fields.name && /^-(?:[ \t]|$)/.test(rest)) rest = rest.slice(1);
  }
  fields.text = rest.replace(/^\s+/, '').trimEnd();
  return fields;
}

/** The index of the bracket closing the one at `open`, or -1; nested pairs are skipped. */
function matchingClose(text: string, open: number, opening: string, closing: string): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === opening) depth++;
    else if (char === closing) {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function rawDescribesTag(tag: JsDocTag): boolean {
  if (!tag.raw.trim()) return false;
  const reparsed = parseTagFields(tag.raw);
  return (
    reparsed.tag === tag.tag &&
    reparsed.type === tag.type &&
    reparsed.name === tag.name &&
    Boolean(reparsed.optional) === Boolean(tag.optional) &&
    reparsed.defaultValue === tag.defaultValue &&
    reparsed.text === tag.text
  );
}
