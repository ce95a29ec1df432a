// What a model's completion becomes before it is shown: one line or a block as the cursor's place calls for, cut where it repeats the text after the cursor or leaves the block.

/** Whether a completion is one line (the cursor mid-line or after text) or may be a block (an empty line, after an opening bracket). */
export type CompletionShape = 'line' | 'block';

/**
 * The shape the cursor's place calls for: a block on a line with nothing but white space before the cursor, or right
 * after an opening bracket or an arrow with nothing but closers after it; one line otherwise (mid-line, after text).
 */
export function shapeAt(prefix: string, suffix: string): CompletionShape {
  const before = prefix.slice(prefix.lastIndexOf('\n') + 1);
  const newline = suffix.indexOf('\n');
  const after = newline < 0 ? suffix : suffix.slice(0, newline);
  // Something other than closing brackets and punctuation after the cursor: the user is inside a line.
  if (!/^[\s)\]}>;,'"`]*$/.test(after)) return 'line';
  if (before.trim() === '') return 'block';
  return /(?:[{([]|=>)\s*$/.test(before) ? 'block' : 'line';
}

/** The stop sequences a request of this shape adds to the user's: a line ends at its line break. */
export function stopsFor(shape: CompletionShape, userStops: readonly string[]): string[] {
  return [...new Set([...(shape === 'line' ? ['\n'] : []), ...userStops])].slice(0, 4);
}

function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)?.[0].length ?? 0;
}

/**
 * The part of a completion worth inserting: its first line alone for a line; for a block, the lines up to where it
 * repeats the text after the cursor or returns to an indentation left of the cursor's line (code after the block);
 * then, within the last line, what the rest of the cursor's line already holds is cut off. Empty when nothing is left.
 */
export function shapeCompletion(text: string, prefix: string, suffix: string, shape: CompletionShape): string {
  let out = text.replace(/\r\n/g, '\n');
  const restOfLine = suffix.slice(0, suffix.indexOf('\n') < 0 ? suffix.length : suffix.indexOf('\n'));
  if (shape === 'line') {
    out = out.slice(0, out.indexOf('\n') < 0 ? out.length : out.indexOf('\n'));
  } else {
    const lines = out.split('\n');
    const cursorLine = prefix.slice(prefix.lastIndexOf('\n') + 1);
    // On a blank line the cursor's column is the block's indentation; after text, the line's own.
    const base = cursorLine.trim() === '' ? cursorLine.length : indentOf(cursorLine);
    const following = suffix
      .split('\n')
      .slice(restOfLine.trim() === '' ? 1 : 0)
      .filter((line) => line.trim() !== '');
    const closing = unclosedBlockIndent(prefix, base, following);
    let end = lines.length;
    for (let j = 1; j < lines.length; j++) {
      const line = lines[j] as string;
      if (line.trim() === '') continue;
      if (repeatsSuffix(lines.slice(j), following)) {
        end = j;
        break;
      }
      if (indentOf(line) < base) {
        // The closer of the block the cursor is in, when nothing after the cursor closes it, ends the completion.
        end = closing !== undefined && indentOf(line) === closing && CLOSERS_ONLY.test(line) ? j + 1 : j;
        break;
      }
    }
    out = lines.slice(0, end).join('\n').replace(/\s+$/, '');
  }
  out = trimRestOfLine(out.replace(/[ \t]+$/, ''), restOfLine);
  return shape === 'line' ? withoutUnopenedClosers(out, restOfLine) : out;
}

/** A line of closing brackets and their punctuation only: `}`, `})`, `);`. */
const CLOSERS_ONLY = /^\s*[)\]}]+[;,]?\s*$/;

/**
 * The indentation of the line that opened the block the cursor is in (the last line before it left of `base`), when
 * the code after the cursor does not close that block: its first line left of `base` is not a closer (the next
 * declaration, or nothing). Undefined when the block is closed after the cursor or no such line is known.
 */
function unclosedBlockIndent(prefix: string, base: number, following: readonly string[]): number | undefined {
  const outer = following.find((line) => indentOf(line) < base);
  if (outer !== undefined && CLOSERS_ONLY.test(outer)) return undefined;
  const before = prefix.split('\n').slice(0, -1).reverse();
  const opener = before.find((line) => line.trim() !== '' && indentOf(line) < base);
  return opener !== undefined && /[{([]\s*$/.test(opener) ? indentOf(opener) : undefined;
}

/**
 * Mid-line, when the rest of the line closes brackets opened before the cursor (`Math.max(u|, 0)`), a completion
 * that ends by closing one it did not open (`pdatedAt / 1000)`) would leave the rest's closer unmatched: such closers
 * at its end are taken off. One in its middle is the completion's own structure and stays.
 */
function withoutUnopenedClosers(text: string, restOfLine: string): string {
  if (bracketBalance(restOfLine) >= 0) return text;
  let out = text;
  for (let depth = bracketBalance(out); depth < 0; depth++) {
    const closer = /[)\]}][;,]?[ \t]*$/.exec(out);
    if (!closer) break;
    out = out.slice(0, closer.index).replace(/[ \t]+$/, '');
  }
  return out;
}

/** The code without the cursor's indentation (`current`, the blank line before the cursor) written again before it. */
function withoutCursorIndent(code: string, current: string): string {
  return code.replace(new RegExp(`^[ \\t]{0,${current.length}}`), '');
}

/**
 * A filled-in middle's answer cut to the insertion: on a blank line the cursor already stands at its indentation,
 * and a model that writes it again (small ones do) would indent the first line twice.
 */
export function insertionFromFill(answer: string, prefix: string, suffix: string, shape: CompletionShape): string {
  const current = prefix.slice(prefix.lastIndexOf('\n') + 1);
  return shapeCompletion(current.trim() === '' && shape === 'block' ? withoutCursorIndent(answer, current) : answer, prefix, suffix, shape);
}

/** Whether the completion's lines from here are the suffix's next non-blank lines (as far as both go, two at most). */
function repeatsSuffix(lines: readonly string[], following: readonly string[]): boolean {
  const ahead = lines.filter((line) => line.trim() !== '').slice(0, 2);
  const expected = following.slice(0, ahead.length);
  return ahead.length > 0 && expected.length === ahead.length && ahead.every((line, i) => line.trim() === (expected[i] as string).trim());
}

/**
 * Cuts the end of the completion's last line that the rest of the cursor's line already holds (`a, b);` before `);`
 * becomes `a, b`): the earliest tail that the rest of the line starts with.
 */
export function trimRestOfLine(text: string, restOfLine: string): string {
  const rest = restOfLine.trim();
  if (rest === '') return text;
  const lastLineStart = text.lastIndexOf('\n') + 1;
  for (let i = lastLineStart; i < text.length; i++) {
    const tail = text.slice(i).trim();
    if (tail === '' || !rest.startsWith(tail)) continue;
    // Not from inside a word: `count` before `er)` stays whole.
    if (i > 0 && /\w/.test(text[i - 1] as string) && /\w/.test(text[i] as string)) continue;
    const kept = text.slice(0, i);
    // A closer the completion opened itself stays: `foo()` before `)` is a call inside the user's parentheses.
    if (bracketBalance(text.slice(lastLineStart, i)) > 0) continue;
    return i === lastLineStart ? kept.trimEnd() : kept.replace(/[ \t]+$/, '');
  }
  return text;
}

/** Openers minus closers. */
function bracketBalance(text: string): number {
  let depth = 0;
  for (const c of text) {
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return depth;
}

/** The code of a chat answer: the first fenced block when there is one, else the answer; without the cursor marker. */
function codeOf(answer: string, marker: string): string {
  const fenced = /```[\w+-]*[ \t]*\n([\s\S]*?)(?:\n```|$)/.exec(answer);
  return (fenced ? (fenced[1] as string) : answer).split(marker).join('');
}

/**
 * A chat model's answer cut to the insertion: its code, without what it repeats of the text before the cursor (the
 * model may write the whole line, or the lines around it, again), shaped like any completion.
 */
export function insertionFromChat(answer: string, prefix: string, suffix: string, shape: CompletionShape, marker: string): string {
  let code = codeOf(answer.replace(/\r\n/g, '\n'), marker);
  const lines = prefix.split('\n');
  const current = lines[lines.length - 1] as string;
  // The longest tail of the prefix (up to three lines, the cursor's partial line included) that the answer repeats.
  for (let count = Math.min(3, lines.length); count >= 1; count--) {
    const tail = lines.slice(-count).join('\n');
    if (tail.trim() === '') continue;
    const at = code.indexOf(tail);
    if (at >= 0 && code.slice(0, at).trim() === '') {
      code = code.slice(at + tail.length);
      break;
    }
    const trimmed = tail.trimStart();
    const loose = code.indexOf(trimmed);
    if (count === 1 && trimmed !== '' && loose >= 0 && code.slice(0, loose).trim() === '') {
      code = code.slice(loose + trimmed.length);
      break;
    }
  }
  // A block answer on a blank line is written without the cursor's indentation, or with it: it starts at the cursor.
  if (current.trim() === '' && shape === 'block') code = withoutCursorIndent(code.replace(/^\n+/, ''), current);
  return shapeCompletion(code, prefix, suffix, shape);
}
