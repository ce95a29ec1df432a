// Unit tests of reading unified diffs as models and people write them, and applying them by context with reasons when they do not fit.
import { describe, expect, it } from 'vitest';
import { applyFilePatch, parseUnifiedDiff } from '../../server/src/edits/unifiedDiff.js';
import type { FilePatch } from '../../server/src/edits/unifiedDiff.js';

const cart = [
  "import { price } from './price.js';",
  '',
  'export class Cart {',
  '  items: number[] = [];',
  '',
  '  total(): number {',
  '    let sum = 0;',
  '    for (const item of this.items) sum += price(item);',
  '    return sum;',
  '  }',
  '',
  '  count(): number {',
  '    return this.items.length;',
  '  }',
  '}',
  '',
].join('\n');

function parseOne(text: string): FilePatch {
  const parsed = parseUnifiedDiff(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  expect(parsed.files).toHaveLength(1);
  const file = parsed.files[0];
  if (!file) throw new Error('no file');
  return file;
}

function applied(original: string, patch: FilePatch, options?: { maxOffset?: number }): { text: string; offsets: number[]; matched: string[] } {
  const result = applyFilePatch(original, patch, options);
  if (!result.ok) throw new Error(result.reason);
  return result;
}

const totalDiff = [
  '--- a/src/cart.ts',
  '+++ b/src/cart.ts',
  '@@ -6,5 +6,5 @@ export class Cart {',
  '   total(): number {',
  '     let sum = 0;',
  '     for (const item of this.items) sum += price(item);',
  '-    return sum;',
  '+    return Math.round(sum * 100) / 100;',
  '   }',
].join('\n');
const totalApplied = cart.replace('    return sum;', '    return Math.round(sum * 100) / 100;');

describe('parseUnifiedDiff', () => {
  it('reads a git diff with index and mode lines', () => {
    const parsed = parseUnifiedDiff(['diff --git a/src/cart.ts b/src/cart.ts', 'index 3b18e51..a9c2f4d 100644', totalDiff].join('\n'));
    expect(parsed).toEqual({
      ok: true,
      files: [
        {
          oldPath: 'src/cart.ts',
          newPath: 'src/cart.ts',
          isNew: false,
          isDeleted: false,
          hunks: [
            {
              oldStart: 6,
              oldLines: 5,
              newStart: 6,
              newLines: 5,
              header: '@@ -6,5 +6,5 @@ export class Cart {',
              numbered: true,
              lines: ['   total(): number {', '     let sum = 0;', '     for (const item of this.items) sum += price(item);', '-    return sum;', '+    return Math.round(sum * 100) / 100;', '   }'],
            },
          ],
        },
      ],
    });
  });

  it('recounts hunks whose header counts are wrong', () => {
    const file = parseOne(totalDiff.replace('@@ -6,5 +6,5 @@', '@@ -6,3 +6,9 @@'));
    expect(file.hunks[0]).toMatchObject({ oldStart: 6, oldLines: 5, newLines: 5 });
    expect(file.hunks[0]?.lines).toHaveLength(6);
    expect(applied(cart, file).text).toBe(totalApplied);
  });

  it('finds diffs inside markdown fences with prose around them, over several files', () => {
    const answer = [
      'Here is the fix. The total is rounded now:',
      '',
      '```diff',
      totalDiff,
      '```',
      '',
      'And the test:',
      '',
      '```diff',
      'diff --git a/test/cart.test.ts b/test/cart.test.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/test/cart.test.ts',
      '@@ -0,0 +1,2 @@',
      "+import { Cart } from '../src/cart.js';",
      '+',
      '```',
      '',
      '- It keeps two decimals.',
      '- Nothing else changes.',
    ].join('\n');
    const parsed = parseUnifiedDiff(answer);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.files.map((f) => [f.oldPath, f.newPath, f.isNew])).toEqual([
      ['src/cart.ts', 'src/cart.ts', false],
      [undefined, 'test/cart.test.ts', true],
    ]);
    expect(parsed.files[0]?.hunks[0]?.lines).toHaveLength(6);
    const created = parsed.files[1];
    if (!created) return;
    expect(applied('', created).text).toBe("import { Cart } from '../src/cart.js';\n\n");
  });

  it('reads CRLF diffs, plain --- +++ headers with timestamps, and headers without counts', () => {
    const text = ['--- src/cart.ts\t2024-05-01 10:00:00', '+++ src/cart.ts\t2024-05-02 10:00:00', '@@ -13 +13 @@', '-    return this.items.length;', '+    return this.items.length | 0;', ''].join('\r\n');
    const file = parseOne(text);
    expect(file).toMatchObject({ oldPath: 'src/cart.ts', newPath: 'src/cart.ts' });
    expect(applied(cart, file).text).toBe(cart.replace('return this.items.length;', 'return this.items.length | 0;'));
  });

  it('reads both file headers written on one line, as small models write them, over two files', () => {
    const text = [
      '```diff',
      '--- a/src/cart.ts +++ b/src/cart.ts',
      '@@ -13 +13 @@',
      '-    return this.items.length;',
      '+    return this.items.length | 0;',
      '--- /dev/null +++ b/src/note.ts',
      '@@ -0,0 +1 @@',
      "+export const note = 'x';",
      '```',
    ].join('\n');
    const parsed = parseUnifiedDiff(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.files.map((f) => [f.oldPath, f.newPath, f.isNew])).toEqual([
      ['src/cart.ts', 'src/cart.ts', false],
      [undefined, 'src/note.ts', true],
    ]);
    expect(applied(cart, parsed.files[0]!).text).toBe(cart.replace('return this.items.length;', 'return this.items.length | 0;'));
  });

  it('reads new and deleted files in git and plain form', () => {
    const created = parseOne(['diff --git a/docs/x.md b/docs/x.md', 'new file mode 100644', 'index 0000000..e69de29'].join('\n'));
    expect(created).toEqual({ newPath: 'docs/x.md', hunks: [], isNew: true, isDeleted: false });
    expect(applied('', created).text).toBe('');
    const deleted = parseOne(['--- a/old.ts', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-export const a = 1;', '-export const b = 2;'].join('\n'));
    expect(deleted).toMatchObject({ oldPath: 'old.ts', isDeleted: true, isNew: false });
    expect(deleted.newPath).toBeUndefined();
    expect(applyFilePatch('export const a = 1;\nexport const b = 2;\n', deleted)).toMatchObject({ ok: true, text: '' });
  });

  it('reads renames', () => {
    const file = parseOne(['diff --git a/src/a.ts b/src/b.ts', 'similarity index 100%', 'rename from src/a.ts', 'rename to src/b.ts'].join('\n'));
    expect(file).toMatchObject({ oldPath: 'src/a.ts', newPath: 'src/b.ts', hunks: [] });
  });

  it('treats empty lines inside a hunk as context and empty lines after it as the end', () => {
    const text = ['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ @@', '   }', '', '   count(): number {', '-    return this.items.length;', '+    return this.items.length + 0;', '', '', 'That is all.'].join('\n');
    const file = parseOne(text);
    expect(file.hunks[0]?.lines).toEqual(['   }', ' ', '   count(): number {', '-    return this.items.length;', '+    return this.items.length + 0;']);
    expect(file.hunks[0]?.numbered).toBe(false);
  });

  it('refuses a context line written without its space instead of dropping the changes after it', () => {
    const diff = ['```diff', '--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ @@', '     return this.items.length;', '   }', '}', '+// end', '```'].join('\n');
    expect(parseUnifiedDiff(diff)).toEqual({
      ok: false,
      reason: 'hunk 1 (@@ @@) of src/cart.ts: the line "}" has no prefix; every line of a hunk starts with " " (unchanged), "-" (removed) or "+" (added)',
    });
  });

  it('does not read a bullet list after an unfenced hunk as part of it', () => {
    const file = parseOne(['--- a/x.txt', '+++ b/x.txt', '@@ -1 +1 @@', '-a', '+b', 'This changes a to b:', '- it is shorter', '- it is clearer'].join('\n'));
    expect(file.hunks).toHaveLength(1);
    expect(file.hunks[0]?.lines).toEqual(['-a', '+b']);
  });

  it('rejects paths that leave the workspace or are absolute, saying why', () => {
    const outside = parseUnifiedDiff(['--- a/../secrets.env', '+++ b/../secrets.env', '@@ -1 +1 @@', '-a', '+b'].join('\n'));
    expect(outside).toEqual({ ok: false, reason: 'the diff names the path "../secrets.env", which leaves the workspace ("..")' });
    const nested = parseUnifiedDiff(['--- a/src/../../x.ts', '+++ b/src/../../x.ts', '@@ -1 +1 @@', '-a', '+b'].join('\n'));
    expect(nested.ok).toBe(false);
    const absolute = parseUnifiedDiff(['--- /etc/passwd', '+++ /etc/passwd', '@@ -1 +1 @@', '-a', '+b'].join('\n'));
    expect(absolute).toEqual({ ok: false, reason: 'the diff names the absolute path "/etc/passwd"; use paths relative to the workspace root' });
  });

  it('says when there is no diff at all, or a header without hunks', () => {
    const none = parseUnifiedDiff('I changed the total to round to cents.');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.reason).toMatch(/^no unified diff found/);
    const empty = parseUnifiedDiff('--- a/x.ts\n+++ b/x.ts\n');
    expect(empty).toMatchObject({ ok: false, reason: expect.stringContaining('has file headers but no hunks') });
  });

  it('records "No newline at end of file" per side', () => {
    const file = parseOne(['--- a/x.txt', '+++ b/x.txt', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+c', '\\ No newline at end of file'].join('\n'));
    expect(file.hunks[0]?.noNewlineAtEnd).toEqual({ old: true, new: true });
    expect(file.hunks[0]?.lines).toEqual([' a', '-b', '+c']);
  });

  it('strips a/ and b/ only when the diff uses that convention', () => {
    expect(parseOne(['--- a/x.ts', '+++ a/x.ts', '@@ -1 +1 @@', '-a', '+b'].join('\n'))).toMatchObject({ oldPath: 'a/x.ts', newPath: 'a/x.ts' });
    expect(parseOne(['--- a/x.ts', '+++ x.ts', '@@ -1 +1 @@', '-a', '+b'].join('\n'))).toMatchObject({ oldPath: 'x.ts', newPath: 'x.ts' });
    expect(parseOne(['diff --git "a/with space.ts" "b/with space.ts"', '--- "a/with space.ts"', '+++ "b/with space.ts"', '@@ -1 +1 @@', '-a', '+b'].join('\n'))).toMatchObject({ oldPath: 'with space.ts' });
  });

  it('accepts hunks without file headers (the caller knows the file)', () => {
    const file = parseOne(['```diff', '@@ -13 +13 @@', '-    return this.items.length;', '+    return 0;', '```'].join('\n'));
    expect(file.oldPath).toBeUndefined();
    expect(file.isNew).toBe(false);
    expect(applied(cart, file).text).toBe(cart.replace('return this.items.length;', 'return 0;'));
  });
});

describe('applyFilePatch', () => {
  it('applies at the stated line with offset 0', () => {
    expect(applied(cart, parseOne(totalDiff))).toEqual({ ok: true, text: totalApplied, offsets: [0], matched: ['exact'] });
  });

  it('finds a hunk 7 lines away from its header and moves later hunks by the same offset', () => {
    const shifted = `${Array.from({ length: 7 }, (_, k) => `// note ${k}`).join('\n')}\n${cart}`;
    const diff = [totalDiff, '@@ -12,3 +12,3 @@', '   count(): number {', '-    return this.items.length;', '+    return this.items.length | 0;', '   }'].join('\n');
    const result = applied(shifted, parseOne(diff));
    expect(result.offsets).toEqual([7, 7]);
    expect(result.text).toBe(shifted.replace('    return sum;', '    return Math.round(sum * 100) / 100;').replace('return this.items.length;', 'return this.items.length | 0;'));
  });

  it('refuses a hunk further away than maxOffset', () => {
    const shifted = `${'// x\n'.repeat(7)}${cart}`;
    const result = applyFilePatch(shifted, parseOne(totalDiff), { maxOffset: 5 });
    expect(result).toMatchObject({ ok: false, hunk: 0 });
    if (!result.ok) expect(result.reason).toBe('hunk 1 (@@ -6,5 +6,5 @@ export class Cart {) matches src/cart.ts only at line 13, 7 lines away from the line its header states (at most 5 allowed); check the line numbers');
  });

  it('prefers the nearest match, and the later one at equal distance', () => {
    const text = 'x\na\nb\nx\na\nb\nx\n';
    const patch: FilePatch = { hunks: [{ oldStart: 4, oldLines: 2, newStart: 4, newLines: 2, lines: [' a', '-b', '+B'] }], isNew: false, isDeleted: false };
    // Stated at line 4 (0-based 3): "a" is at 0-based 1 and 4, distances 2 and 1.
    expect(applied(text, patch).text).toBe('x\na\nb\nx\na\nB\nx\n');
    // Stated at 0-based 2, matches at 0 and 4 are both 2 lines away: the later one wins.
    const tie: FilePatch = { hunks: [{ oldStart: 3, oldLines: 2, newStart: 3, newLines: 2, lines: [' a', '-b', '+B'] }], isNew: false, isDeleted: false };
    expect(applied('a\nb\nq\nq\na\nb\n', tie)).toEqual({ ok: true, text: 'a\nb\nq\nq\na\nB\n', offsets: [2], matched: ['exact'] });
  });

  it('locates `@@ @@` hunks by context and refuses ambiguous ones', () => {
    const diff = ['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ ... @@', '     let sum = 0;', '-    for (const item of this.items) sum += price(item);', '+    for (const item of this.items) sum += price(item) * 1.2;'].join('\n');
    expect(applied(cart, parseOne(diff)).text).toBe(cart.replace('sum += price(item);', 'sum += price(item) * 1.2;'));
    const ambiguous = ['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ @@', '   }', '+  // more'].join('\n');
    const result = applyFilePatch(cart, parseOne(ambiguous));
    expect(result).toMatchObject({ ok: false, hunk: 0 });
    if (!result.ok) expect(result.reason).toBe('hunk 1 (@@ @@) has no line numbers and its lines match src/cart.ts in 2 places (lines 10, 14); give the header its line numbers or add context lines that occur once');
  });

  it('tolerates trailing and then surrounding whitespace differences, keeping the file’s own context lines', () => {
    const withTrailing = cart.replace('    let sum = 0;', '    let sum = 0;   ');
    const result = applied(withTrailing, parseOne(totalDiff));
    expect(result.matched).toEqual(['trailingWhitespace']);
    expect(result.text).toBe(totalApplied.replace('    let sum = 0;', '    let sum = 0;   '));
    const tabbed = cart.replace('    let sum = 0;', '\t\tlet sum = 0;');
    const loose = applied(tabbed, parseOne(totalDiff));
    expect(loose.matched).toEqual(['whitespace']);
    expect(loose.text).toContain('\t\tlet sum = 0;\n');
  });

  it('explains a hunk that does not match, clearly enough for a model to correct it', () => {
    const diff = [
      '--- a/src/cart.ts',
      '+++ b/src/cart.ts',
      '@@ -2,3 +2,3 @@',
      ' export class Cart {',
      '-  items: number[] = [];',
      '+  items: readonly number[] = [];',
      '@@ -10,4 +10,6 @@',
      '   }',
      ' ',
      '   count(): number {',
      '-    return this.items.size;',
      '+    return this.items.length;',
      '+    // counted',
    ].join('\n');
    const result = applyFilePatch(cart, parseOne(diff));
    expect(result).toEqual({
      ok: false,
      hunk: 1,
      reason: 'hunk 2 (@@ -10,4 +10,6 @@) does not match src/cart.ts: the line "    return this.items.size;" (line 4 of the hunk\'s old side) was not found: src/cart.ts has "    return this.items.length;" at line 13, after the hunk\'s first 3 lines',
    });
    const unknown = applyFilePatch(cart, parseOne(['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ -3 +3 @@', '-  list: number[] = [];', '+  list: number[] = [1];'].join('\n')));
    expect(unknown).toEqual({ ok: false, hunk: 0, reason: 'hunk 1 (@@ -3 +3 @@) does not match src/cart.ts: the line "  list: number[] = [];" was not found' });
  });

  it('says when the change seems to be made already', () => {
    const result = applyFilePatch(totalApplied, parseOne(totalDiff));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/the hunk's new lines are already there at line 6, so the change seems to be made already$/);
  });

  it('keeps hunks in order and does not reuse lines an earlier hunk changed', () => {
    const text = 'a\nb\nc\n';
    const patch: FilePatch = {
      hunks: [
        { oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-b', '+B'] },
        { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+A'] },
      ],
      isNew: false,
      isDeleted: false,
    };
    const result = applyFilePatch(text, patch);
    expect(result).toMatchObject({ ok: false, hunk: 1 });
    if (!result.ok) expect(result.reason).toContain('after hunk 1 (it occurs only before it; hunks must be in file order and must not overlap)');
  });

  it('handles "No newline at end of file" on either side', () => {
    const add = parseOne(['--- a/x.txt', '+++ b/x.txt', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+b'].join('\n'));
    expect(applied('a\nb', add).text).toBe('a\nb\n');
    const remove = parseOne(['--- a/x.txt', '+++ b/x.txt', '@@ -1,2 +1,2 @@', ' a', '-b', '+b', '\\ No newline at end of file'].join('\n'));
    expect(applied('a\nb\n', remove).text).toBe('a\nb');
    const append = parseOne(['--- a/x.txt', '+++ b/x.txt', '@@ -1,2 +1,3 @@', ' a', ' b', '+c'].join('\n'));
    expect(applied('a\nb', append).text).toBe('a\nb\nc');
  });

  it('writes added lines with the file’s CRLF line endings', () => {
    const crlf = cart.replace(/\n/g, '\r\n');
    expect(applied(crlf, parseOne(totalDiff)).text).toBe(totalApplied.replace(/\n/g, '\r\n'));
  });

  it('creates new files from the empty text and refuses to create over an existing one', () => {
    const created = parseOne(['--- /dev/null', '+++ b/src/new.ts', '@@ -0,0 +1,2 @@', '+export const a = 1;', '+export const b = 2;', '\\ No newline at end of file'].join('\n'));
    expect(created).toMatchObject({ isNew: true, newPath: 'src/new.ts' });
    expect(applied('', created).text).toBe('export const a = 1;\nexport const b = 2;');
    const exists = applyFilePatch('x\n', created);
    expect(exists).toMatchObject({ ok: false, reason: 'the diff creates src/new.ts (--- /dev/null), but the file already exists; write a diff against its current content' });
  });

  it('refuses a deletion whose lines do not match the file', () => {
    const deleted = parseOne(['--- a/old.ts', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-export const z = 1;'].join('\n'));
    expect(applyFilePatch('export const a = 1;\n', deleted)).toMatchObject({ ok: false, hunk: 0 });
  });

  it('inserts at the stated place when a hunk only adds lines', () => {
    const patch: FilePatch = { hunks: [{ oldStart: 1, oldLines: 0, newStart: 2, newLines: 1, lines: ['+inserted'] }], isNew: false, isDeleted: false };
    expect(applied('a\nb\n', patch).text).toBe('a\ninserted\nb\n');
    const tooFar: FilePatch = { hunks: [{ oldStart: 9, oldLines: 0, newStart: 10, newLines: 1, lines: ['+x'] }], isNew: false, isDeleted: false };
    expect(applyFilePatch('a\n', tooFar)).toMatchObject({ ok: false, reason: 'hunk 1 (@@ -9,0 +10,1 @@) adds lines after line 9, but the file has only 1 lines' });
  });

  it('falls back to the hunk without blank context lines a model added at its ends', () => {
    const diff = ['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ -12,3 +12,3 @@', ' ', '   count(): number {', '-    return this.items.length;', '+    return 0;', '   }', ' ', ' '].join('\n');
    expect(applied(cart, parseOne(diff)).text).toBe(cart.replace('return this.items.length;', 'return 0;'));
  });
});
