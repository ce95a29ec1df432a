// Unit tests of moving edits onto a changed document: moved with untouched lines, refused when their lines changed.
import { describe, expect, it } from 'vitest';
import { rebaseEdits } from '../../server/src/edits/rebase.js';
import { applyOffsetEdits, insertedRanges, offsetToPosition, positionToOffset } from '../../server/src/edits/textEdits.js';

const base = ['import x from "x";', '', 'export function f(a: number) {', '  return a;', '}', ''].join('\n');
const insertAt = base.indexOf('export function');
const insertion = { start: insertAt, end: insertAt, newText: '/** Doc. */\n' };

describe('rebaseEdits', () => {
  it('keeps edits on identical text', () => {
    expect(rebaseEdits(base, base, [insertion])).toEqual({ ok: true, edits: [insertion], moved: false });
  });

  it('moves an insertion below lines the user added above', () => {
    const current = `// header\n// more\n${base}`;
    const result = rebaseEdits(base, current, [insertion]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(applyOffsetEdits(current, result.edits)).toBe(`// header\n// more\n${applyOffsetEdits(base, [insertion])}`);
  });

  it('keeps an insertion in place when the user changed lines below it', () => {
    const current = base.replace('  return a;', '  return a + 1;');
    const result = rebaseEdits(base, current, [insertion]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(applyOffsetEdits(current, result.edits)).toBe(applyOffsetEdits(base, [insertion]).replace('  return a;', '  return a + 1;'));
  });

  it('refuses when the line the insertion precedes was changed', () => {
    const current = base.replace('export function f(a: number)', 'export function g(a: number)');
    expect(rebaseEdits(base, current, [insertion])).toMatchObject({ ok: false });
  });

  it('refuses a replacement whose lines were edited', () => {
    const start = base.indexOf('return a;');
    const replace = { start, end: start + 'return a;'.length, newText: 'return -a;' };
    expect(rebaseEdits(base, base.replace('return a;', 'return 2 * a;'), [replace])).toMatchObject({ ok: false });
  });

  it('refuses when the whole text was replaced', () => {
    expect(rebaseEdits(base, 'something else entirely\n', [insertion])).toMatchObject({ ok: false });
  });
});

describe('UTF-16 positions', () => {
  const text = 'const s = "😀";\nlet é = 1;\r\nend';
  it('counts characters in UTF-16 code units and handles CRLF', () => {
    const offset = text.indexOf('";');
    expect(offsetToPosition(text, offset)).toEqual({ line: 0, character: 13 });
    expect(positionToOffset(text, { line: 0, character: 13 })).toBe(offset);
    expect(offsetToPosition(text, text.indexOf('end'))).toEqual({ line: 2, character: 0 });
  });

  it('clamps positions past the end of a line or of the text, as the specification says', () => {
    expect(positionToOffset(text, { line: 1, character: 999 })).toBe(text.indexOf('\r\n'));
    expect(positionToOffset(text, { line: 99, character: 0 })).toBe(text.length);
  });

  it('reports where inserted text lands', () => {
    expect(insertedRanges(base, [insertion])).toEqual([{ start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }]);
  });

  it('reports where inserted text lands exactly as in the edited text, for seeded random edits (LF and CRLF)', () => {
    let seed = 20261122;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['a', 'bc', 'é', '😀', ' ', '\n', '\n\n', 'x\ny'];
    for (let round = 0; round < 400; round++) {
      const eol = round % 2 === 0 ? '\n' : '\r\n';
      const piece = (): string => (pieces[next(pieces.length)] as string).replace(/\n/g, eol);
      let baseText = '';
      for (let i = next(30); i >= 0; i--) baseText += piece();
      // Non-overlapping edits, cut on piece boundaries so a CRLF is never split.
      const cuts = [...new Set(Array.from({ length: next(6) * 2 }, () => next(baseText.length + 1)))].sort((a, b) => a - b).filter((cut) => !(baseText[cut - 1] === '\r' && baseText[cut] === '\n'));
      const edits = [];
      for (let i = 0; i + 1 < cuts.length; i += 2) {
        let newText = '';
        for (let j = next(4); j > 0; j--) newText += piece();
        edits.push({ start: cuts[i] as number, end: cuts[i + 1] as number, newText });
      }
      const after = applyOffsetEdits(baseText, edits);
      let shift = 0;
      const expected = edits.map((edit) => {
        const start = edit.start + shift;
        shift += edit.newText.length - (edit.end - edit.start);
        return { start: offsetToPosition(after, start), end: offsetToPosition(after, start + edit.newText.length) };
      });
      expect(insertedRanges(baseText, [...edits].reverse())).toEqual(expected);
    }
  });
});
