// Reads the JSON objects models write as they write them: fenced or bare, amid prose, JavaScript-style (single quotes, bare keys, trailing commas, comments), or cut off at a token limit.
import type { ToolCall } from './modelClient.js';


/** A JSON object found in a model's answer, and whether it had to be completed (the answer stopped inside it). */
export interface FoundObject {
  value: Record<string, unknown>;
  /** True when the text ended inside the object and it was closed here. */
  cutOff: boolean;
}

/** The fenced blocks of an answer, in order (any info string: json, js, ts, none). */
function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/```[\w-]*[ \t]*\r?\n([\s\S]*?)(?:```|$)/g)].map((match) => match[1] ?? '');
}

/**
 * The objects of an answer, first the fenced ones, then those in the whole text, each at most once. Each `{` that
 * starts an object is read to its balanced end (strings and comments respected), so prose braces after it do not
 * spoil it; an object the text ends inside is completed.
 */
export function objectsIn(text: string): FoundObject[] {
  const found: FoundObject[] = [];
  const seen = new Set<string>();
  for (const candidate of [...fencedBlocks(text), text]) {
    for (let at = candidate.indexOf('{'); at >= 0; ) {
      const span = balanced(candidate, at);
      const value = parseLenient(span.text, span.cutOff);
      if (value !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        const key = JSON.stringify(value);
        if (!seen.has(key)) {
          seen.add(key);
          found.push({ value: value as Record<string, unknown>, cutOff: span.cutOff });
        }
        at = candidate.indexOf('{', at + span.text.length);
      } else {
        at = candidate.indexOf('{', at + 1);
      }
    }
  }
  return found;
}

/** The first object of an answer for which `wanted` holds (the first object at all without it), or undefined. */
export function firstObject(text: string, wanted: (value: Record<string, unknown>) => boolean = () => true): Record<string, unknown> | undefined {
  return objectsIn(text).find((found) => wanted(found.value))?.value;
}

/** The text from `start` (a `{` or `[`) to its matching close, or to the end when the text stops first. */
function balanced(text: string, start: number): { text: string; cutOff: boolean } {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      i = stringEnd(text, i);
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return { text: text.slice(start, i + 1), cutOff: false };
    }
  }
  return { text: text.slice(start), cutOff: true };
}

/** The index of the quote closing the string that opens at `start` (the text's last index when none does). */
function stringEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
    else if (text[i] === '\n' && quote !== '`') return i - 1;
  }
  return text.length - 1;
}

/**
 * Parses JSON, or failing that a JavaScript object literal of plain data, rewritten as JSON: strings in any quotes,
 * bare keys, trailing commas, comments, `undefined`. With `cutOff`, what the text stopped inside (a string, a
 * key without its value, open brackets) is closed first. Undefined when it still cannot be read.
 */
export function parseLenient(text: string, cutOff = false): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not strict JSON: rewrite it below.
  }
  const rewritten = rewrite(text, cutOff);
  if (rewritten === undefined) return undefined;
  try {
    return JSON.parse(rewritten);
  } catch {
    return undefined;
  }
}

type Token = { kind: 'punct'; text: string } | { kind: 'string'; text: string; unterminated?: boolean } | { kind: 'word'; text: string };

function tokens(text: string): Token[] | undefined {
  const out: Token[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if ('{}[]:,'.includes(c)) {
      out.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"' || c === "'" || c === '`') {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\\' && j + 1 < text.length) {
          const next = text[++j]!;
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
        } else value += text[j];
      }
      out.push({ kind: 'string', text: value, ...(j >= text.length ? { unterminated: true } : {}) });
      i = j + 1;
    } else {
      const word = /^[\w$.+-]+/.exec(text.slice(i))?.[0];
      if (!word) return undefined;
      out.push({ kind: 'word', text: word });
      i += word.length;
    }
  }
  return out;
}

function rewrite(text: string, cutOff: boolean): string | undefined {
  const list = tokens(text);
  if (!list) return undefined;
  let out = '';
  const stack: string[] = [];
  /** Where the output stood before the current unfinished member, to drop it when the text stops inside it. */
  let memberStart = 0;
  for (const [i, token] of list.entries()) {
    const next = list[i + 1];
    if (token.kind === 'punct') {
      if (token.text === '{' || token.text === '[') {
        stack.push(token.text === '{' ? '}' : ']');
        out += token.text;
        memberStart = out.length;
      } else if (token.text === '}' || token.text === ']') {
        stack.pop();
        out = out.replace(/,\s*$/, '') + token.text;
        memberStart = out.length;
      } else if (token.text === ',') {
        // A trailing comma is left out: the next token closes.
        if (next && next.kind === 'punct' && (next.text === '}' || next.text === ']')) continue;
        out += ',';
        memberStart = out.length;
      } else out += ':';
      continue;
    }
    const inObject = stack.at(-1) === '}';
    const isKey = inObject && next?.kind === 'punct' && next.text === ':';
    if (token.kind === 'string') out += JSON.stringify(token.text);
    else if (isKey) out += JSON.stringify(token.text);
    else if (token.text === 'undefined') out += 'null';
    else if (/^(true|false|null)$/.test(token.text) || /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(token.text)) out += token.text.replace(/^\+/, '');
    else return undefined;
  }
  if (stack.length === 0) return out;
  if (!cutOff) return undefined;
  // The text stopped inside: drop the member it was writing unless it is complete, then close what is open.
  const last = list.at(-1);
  const tail = out.slice(memberStart);
  const complete = !(last?.kind === 'string' && last.unterminated) && /^("(?:[^"\\]|\\.)*"\s*:\s*)?("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)$/.test(tail.trim());
  if (!complete) out = out.slice(0, memberStart);
  out = out.replace(/[,:]\s*$/, '');
  return out + stack.reverse().join('');
}

/**
 * Calls a model wrote as JSON in its text (`{"name": "<tool>", "arguments": {...}}`, fenced or not) when offered
 * function calling: small models often do. Only objects naming an offered tool count, so an answer is never taken
 * for a call.
 */
export function writtenCalls(text: string, allowed: ReadonlySet<string>): ToolCall[] {
  return objectsIn(text)
    .map((found) => found.value)
    .filter((value) => typeof value.name === 'string' && allowed.has(value.name) && (value.arguments === undefined || (typeof value.arguments === 'object' && value.arguments !== null)))
    .map((value, i) => ({ id: `written_${i}`, name: value.name as string, arguments: JSON.stringify(value.arguments ?? {}) }));
}
