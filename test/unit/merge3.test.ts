// Unit tests of merging a proposal onto a changed document: line hunks, declarations when lines conflict, conflicts named, and minimal edits.
import { describe, expect, it } from 'vitest';
import { editsBetween, mergeLines, mergeThreeWay } from '../../server/src/edits/merge3.js';
import type { MergeResult } from '../../server/src/edits/merge3.js';
import { mergeDeclarations } from '../../server/src/edits/declarationMerge.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import { prng, testSeed } from '../support/rawLsp.js';

const base = [
  "import { price } from './price.js';",
  '',
  'export class Cart {',
  '  items: number[] = [];',
  '  discount = 0;',
  '',
  '  total(): number {',
  '    return this.items.reduce((a, b) => a + price(b), 0) - this.discount;',
  '  }',
  '',
  '  count(): number {',
  '    return this.items.length;',
  '  }',
  '}',
  '',
  'export function format(n: number): string {',
  '  const rounded = Math.round(n * 100) / 100;',
  '  const text = rounded.toFixed(2);',
  '  const padded = text.padStart(8);',
  '  const marked = `$${padded}`;',
  '  return marked;',
  '}',
  '',
  'export function parse(s: string): number {',
  '  return Number(s);',
  '}',
  '',
].join('\n');

function edit(text: string, from: string, to: string): string {
  expect(text.includes(from), `fixture contains ${JSON.stringify(from)}`).toBe(true);
  return text.replace(from, to);
}

function merged(result: MergeResult): { text: string; level: string } {
  if (!result.ok) throw new Error(`expected a merge, got conflicts: ${result.conflicts.map((c) => c.description).join('; ')}`);
  return { text: result.text, level: result.level };
}

describe('mergeThreeWay: trivial cases', () => {
  it('returns the proposal when the editor did not change the text', () => {
    const theirs = edit(base, 'return Number(s);', 'return Number.parseFloat(s);');
    expect(mergeThreeWay(base, base, theirs)).toEqual({ ok: true, text: theirs, level: 'unchanged' });
  });

  it("returns the editor's text when the proposal changes nothing or the same thing", () => {
    const ours = edit(base, 'return Number(s);', 'return +s;');
    expect(mergeThreeWay(base, ours, base)).toEqual({ ok: true, text: ours, level: 'unchanged' });
    expect(mergeThreeWay(base, ours, ours)).toEqual({ ok: true, text: ours, level: 'unchanged' });
  });

  it('merges empty files and insertions into an empty base', () => {
    expect(mergeThreeWay('', '', 'a\n')).toEqual({ ok: true, text: 'a\n', level: 'unchanged' });
    expect(mergeThreeWay('', 'a\n', 'a\n')).toMatchObject({ ok: true, text: 'a\n' });
    expect(mergeThreeWay('', 'a\n', 'b\n', { fileName: 'notes.txt' })).toMatchObject({ ok: false });
  });
});

describe('mergeThreeWay: lines', () => {
  it('keeps a user edit in one function and a proposal edit in another', () => {
    const ours = edit(base, 'return Number(s);', 'return Number(s.trim());');
    const theirs = edit(base, '  return marked;', '  return marked.trim();');
    const result = merged(mergeThreeWay(base, ours, theirs, { fileName: 'src/cart.ts' }));
    expect(result.level).toBe('lines');
    expect(result.text).toBe(edit(ours, '  return marked;', '  return marked.trim();'));
  });

  it('keeps non-overlapping edits to the same function from each side', () => {
    const ours = edit(base, 'const rounded = Math.round(n * 100) / 100;', 'const rounded = Math.round(n * 1000) / 1000;');
    const theirs = edit(base, 'return marked;', 'return marked.trimEnd();');
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result.level).toBe('lines');
    expect(result.text).toContain('Math.round(n * 1000) / 1000');
    expect(result.text).toContain('return marked.trimEnd();');
  });

  it('counts an identical change on both sides once', () => {
    const change = (text: string): string => edit(edit(text, 'return Number(s);', 'return Number(s) || 0;'), '  return marked;', '  return marked; // ok');
    const ours = change(base);
    const theirs = edit(change(base), "import { price } from './price.js';", "import { price } from './price.js';\nimport { log } from './log.js';");
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result.level).toBe('lines');
    expect(result.text).toBe(theirs);
    expect(result.text.match(/\|\| 0/g)).toHaveLength(1);
  });

  it('takes insertions at the very start on one side and the very end on the other', () => {
    const ours = `// Copyright\n${base}`;
    const theirs = `${base}export const VERSION = 1;\n`;
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result).toEqual({ level: 'lines', text: `// Copyright\n${base}export const VERSION = 1;\n` });
  });

  it('keeps the missing final newline unless a side changes it', () => {
    const noNewline = base.slice(0, -1);
    const ours = edit(noNewline, 'return Number(s);', 'return +s;');
    const theirs = edit(noNewline, 'discount = 0;', 'discount = 1;');
    expect(merged(mergeThreeWay(noNewline, ours, theirs)).text).toBe(edit(ours, 'discount = 0;', 'discount = 1;'));
    const theirsWithNewline = `${theirs}\n`;
    expect(merged(mergeThreeWay(noNewline, ours, theirsWithNewline)).text).toBe(`${edit(ours, 'discount = 0;', 'discount = 1;')}\n`);
  });

  it("keeps the editor's CRLF line endings, also for lines the proposal wrote with LF", () => {
    const crlf = base.replace(/\n/g, '\r\n');
    const ours = edit(crlf, 'return Number(s);', 'return Number(s.trim());');
    const theirsLf = edit(base, '  return marked;', '  const done = marked;\n  return done;');
    const result = merged(mergeThreeWay(crlf, ours, theirsLf));
    expect(result.level).toBe('lines');
    expect(result.text).toBe(edit(ours, '  return marked;', '  const done = marked;\r\n  return done;'));
    expect(result.text.replace(/\r\n/g, '')).not.toContain('\n');
    const theirsCrlf = theirsLf.replace(/\n/g, '\r\n');
    expect(merged(mergeThreeWay(crlf, ours, theirsCrlf)).text).toBe(result.text);
    expect(merged(mergeThreeWay(crlf, crlf, theirsLf)).text).toBe(theirsCrlf);
  });

  it('conflicts on overlapping changes in a file that is not code, without forcing either side', () => {
    const text = 'one\ntwo\nthree\nfour\nfive\n';
    const result = mergeThreeWay(text, text.replace('three', 'THREE'), text.replace('three', '3'), { fileName: 'notes.md' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts).toHaveLength(1);
    expect(result.conflicts[0]).toMatchObject({
      base: { start: 2, end: 3, text: 'three\n' },
      ours: { start: 2, end: 3, text: 'THREE\n' },
      theirs: { start: 2, end: 3, text: '3\n' },
      description: 'line 3: both the editor and the proposal changed these lines',
    });
  });

  it('treats a deletion next to an insertion on the other side as a conflict (the insertion may belong to the deleted lines)', () => {
    const text = 'a\nb\nc\nd\ne\n';
    const result = mergeThreeWay(text, 'a\nd\ne\n', 'a\nb\nc\nnew\nd\ne\n', { fileName: 'notes.txt' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts[0]?.description).toBe('at line 2: the editor deleted these lines, which the proposal changes');
    expect(result.conflicts[0]?.ours).toEqual({ start: 1, end: 1, text: '' });
  });

  it('conflicts on different insertions at the same place', () => {
    const text = 'a\nb\n';
    const result = mergeLines(text, 'a\nx\nb\n', 'a\ny\nb\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts[0]?.description).toBe('line 2: the editor and the proposal both insert different lines here');
  });

  it('merges any two edits separated by untouched lines, as applying both would (seeded)', () => {
    const seed = testSeed(20240611);
    const r = prng(seed);
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: 8 + r.int(30) }, (_, k) => `line ${k} ${r.pick(['a', 'b', '', 'x y'])}`);
      const cut = 2 + r.int(lines.length - 4);
      const mutate = (from: number, to: number, tag: string): string[] => {
        const copy = [...lines];
        const at = from + r.int(Math.max(1, to - from));
        const kind = r.int(3);
        if (kind === 0) copy.splice(at, 1, `${tag} changed`);
        else if (kind === 1) copy.splice(at, 0, `${tag} inserted`, `${tag} inserted 2`);
        else copy.splice(at, 1);
        return copy;
      };
      // Ours changes strictly above `cut - 1`, theirs strictly below `cut + 1`: at least one untouched line between.
      const ours = mutate(0, cut - 1, 'ours');
      const theirs = mutate(cut + 1, lines.length, 'theirs');
      const oursText = `${ours.join('\n')}\n`;
      const theirsText = `${theirs.join('\n')}\n`;
      const result = mergeLines(`${lines.join('\n')}\n`, oursText, theirsText);
      expect(result.ok, `seed ${seed} round ${round}`).toBe(true);
      if (!result.ok) return;
      const expected = [...ours.slice(0, ours.length - (lines.length - cut)), ...theirs.slice(cut)];
      expect(result.text, `seed ${seed} round ${round}`).toBe(`${expected.join('\n')}\n`);
    }
  });
});

describe('mergeThreeWay: declarations', () => {
  it('merges changes to different class members on adjacent lines', () => {
    const ours = edit(base, 'items: number[] = [];', 'items: number[] = [1, 2];');
    const theirs = edit(base, 'discount = 0;', 'discount = 0.1;');
    expect(mergeLines(base, ours, theirs).ok).toBe(false);
    const result = merged(mergeThreeWay(base, ours, theirs, { fileName: 'src/cart.ts' }));
    expect(result.level).toBe('declarations');
    expect(result.text).toBe(edit(ours, 'discount = 0;', 'discount = 0.1;'));
  });

  it('merges one-line methods edited on adjacent lines of the same class', () => {
    const small = 'export class Box {\n  width(): number { return 1; }\n  height(): number { return 2; }\n}\n';
    const ours = small.replace('return 1;', 'return 10;');
    const theirs = small.replace('return 2;', 'return 20;');
    const result = merged(mergeThreeWay(small, ours, theirs));
    expect(result).toEqual({ level: 'declarations', text: 'export class Box {\n  width(): number { return 10; }\n  height(): number { return 20; }\n}\n' });
  });

  it('keeps two methods added at the end of the same class, the editor’s first', () => {
    const ours = edit(base, '    return this.items.length;\n  }\n', '    return this.items.length;\n  }\n\n  clear(): void {\n    this.items = [];\n  }\n');
    const theirs = edit(base, '    return this.items.length;\n  }\n', '    return this.items.length;\n  }\n\n  isEmpty(): boolean {\n    return this.items.length === 0;\n  }\n');
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result.level).toBe('declarations');
    expect(result.text).toBe(
      edit(base, '    return this.items.length;\n  }\n', '    return this.items.length;\n  }\n\n  clear(): void {\n    this.items = [];\n  }\n\n  isEmpty(): boolean {\n    return this.items.length === 0;\n  }\n'),
    );
  });

  it('names the declaration when both sides change the same line differently', () => {
    const ours = edit(base, 'return this.items.length;', 'return this.items.filter(Boolean).length;');
    const theirs = edit(base, 'return this.items.length;', 'return this.items.length || 0;');
    const result = mergeThreeWay(base, ours, theirs, { fileName: 'src/cart.ts' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts).toHaveLength(1);
    const conflict = result.conflicts[0];
    expect(conflict?.description).toBe('line 12: both the editor and the proposal changed `Cart.count`');
    expect(conflict?.ours).toEqual({ start: 11, end: 12, text: '    return this.items.filter(Boolean).length;\n' });
    expect(conflict?.theirs).toEqual({ start: 11, end: 12, text: '    return this.items.length || 0;\n' });
    expect(conflict?.base.text).toBe('    return this.items.length;\n');
  });

  it('conflicts when one side deletes a function the other edits', () => {
    const ours = edit(base, '\nexport function parse(s: string): number {\n  return Number(s);\n}\n', '');
    const theirs = edit(base, 'return Number(s);', 'return Number.parseFloat(s);');
    const result = mergeThreeWay(base, ours, theirs);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts.map((c) => c.description)).toEqual(['at line 23: the editor deleted `parse`, which the proposal changes']);
    expect(result.conflicts[0]?.theirs.text).toContain('Number.parseFloat');
    const reversed = mergeThreeWay(base, theirs, ours);
    expect(reversed.ok).toBe(false);
    if (reversed.ok) return;
    expect(reversed.conflicts[0]?.description).toBe('lines 24-26: the proposal deletes `parse`, which the editor changed');
  });

  it('deletes a declaration one side removed when the other only added next to it', () => {
    const ours = edit(base, '\nexport function parse(s: string): number {\n  return Number(s);\n}\n', '');
    const theirs = `${base}\nexport function clamp(n: number): number {\n  return Math.max(0, n);\n}\n`;
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result.level).toBe('declarations');
    expect(result.text).toBe(`${ours}\nexport function clamp(n: number): number {\n  return Math.max(0, n);\n}\n`);
  });

  it('keeps imports both sides added, once each, and merges names added to one import', () => {
    const ours = edit(base, "import { price } from './price.js';", "import { price, tax } from './price.js';\nimport { log } from './log.js';");
    const theirs = edit(base, "import { price } from './price.js';", "import { price, discount } from './price.js';\nimport { log } from './log.js';\nimport { clamp } from './math.js';");
    const result = merged(mergeThreeWay(base, ours, theirs));
    expect(result.level).toBe('declarations');
    expect(result.text).toBe(edit(base, "import { price } from './price.js';", "import { price, tax, discount } from './price.js';\nimport { log } from './log.js';\nimport { clamp } from './math.js';"));
  });

  it('merges a named import removed on one side and extended on the other, multi-line', () => {
    const b = "import {\n  a,\n  b,\n} from 'm';\n\nexport const x = a + b;\n";
    const ours = "import {\n  a,\n} from 'm';\n\nexport const x = a;\n";
    const theirs = "import {\n  a,\n  b,\n  c,\n} from 'm';\n\nexport const x = a + b + c;\n";
    const result = mergeDeclarations(b, ours, theirs, 'x.ts');
    expect(result.ok).toBe(false); // `x` itself changed on both sides
    const theirsOnlyImport = "import {\n  a,\n  b,\n  c,\n} from 'm';\n\nexport const x = a + b;\n";
    expect(merged(mergeDeclarations(b, ours, theirsOnlyImport, 'x.ts')).text).toBe("import {\n  a,\n  c,\n} from 'm';\n\nexport const x = a;\n");
  });

  it('pairs an edited statement with its original instead of keeping both versions', () => {
    const b = 'function main(n: number) {\n  return n;\n}\n\nmain(1);\n';
    const ours = 'function main(n: number) {\n  return n * 2;\n}\n\nmain(1);\n\n// end\n';
    const theirs = 'function main(n: number) {\n  return n;\n}\n\nmain(2);\n';
    expect(merged(mergeThreeWay(b, ours, theirs)).text).toBe('function main(n: number) {\n  return n * 2;\n}\n\nmain(2);\n\n// end\n');
    const conflicting = mergeThreeWay(b, b.replace('main(1);', 'main(3);'), theirs);
    expect(conflicting.ok).toBe(false);
  });

  it('keeps doc comments with the declaration they precede', () => {
    const b = 'export function a() {\n  return 1;\n}\nexport function b() {\n  return 2;\n}\n';
    const ours = b.replace('export function b', '/** B. */\nexport function b');
    const theirs = b.replace('return 1;', 'return 11;').replace('}\nexport function b', '}\n\nexport function c() {\n  return 3;\n}\nexport function b');
    const result = merged(mergeThreeWay(b, ours, theirs));
    expect(result.text).toBe('export function a() {\n  return 11;\n}\n\nexport function c() {\n  return 3;\n}\n/** B. */\nexport function b() {\n  return 2;\n}\n');
  });

  it('merges with CRLF and reports the level of the declarations merge', () => {
    const crlf = base.replace(/\n/g, '\r\n');
    const ours = edit(crlf, 'items: number[] = [];', 'items: number[] = [1];');
    const theirs = edit(base, 'discount = 0;', 'discount = 2;');
    const result = merged(mergeThreeWay(crlf, ours, theirs));
    expect(result.level).toBe('declarations');
    expect(result.text).toBe(edit(ours, 'discount = 0;', 'discount = 2;'));
  });

  it('reports a merge that would break the syntax instead of returning it', () => {
    const b = 'function f() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  const d = 4;\n  const e = 5;\n}\n';
    const ours = b.replace('  const a = 1;', '  /* const a = 1;').replace('  const e = 5;', '  const e = 5; */');
    const theirs = b.replace('  const c = 3;', "  const c = '*/';");
    expect(mergeLines(b, ours, theirs).ok).toBe(true);
    const result = mergeThreeWay(b, ours, theirs, { fileName: 'f.js' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts[0]?.description).toMatch(/syntax error neither version has/);
    expect(result.conflicts[0]?.theirs.text).toContain("'*/'");
    expect(result.conflicts[0]?.ours.text).toContain('/* const a');
    expect(result.conflicts[0]?.base).toMatchObject({ start: 1, end: 4 });
    // The same texts as plain text merge, since nothing says they are code.
    expect(mergeThreeWay(b, ours, theirs, { fileName: 'f.txt' }).ok).toBe(true);
  });

  it('does not block a merge on syntax errors the editor already had', () => {
    const ours = edit(base, 'return Number(s);', 'return Number(s');
    const theirs = edit(base, '  return marked;', '  return marked.trim();');
    expect(merged(mergeThreeWay(base, ours, theirs)).text).toBe(edit(ours, '  return marked;', '  return marked.trim();'));
  });
});

describe('editsBetween', () => {
  it('trims edits to the changed characters', () => {
    const from = 'const a = 1;\nconst b = 2;\n';
    expect(editsBetween(from, 'const a = 10;\nconst b = 2;\n')).toEqual([{ start: 11, end: 11, newText: '0' }]);
    expect(editsBetween(from, from)).toEqual([]);
    expect(editsBetween('', 'x')).toEqual([{ start: 0, end: 0, newText: 'x' }]);
    expect(editsBetween('x\n', '')).toEqual([{ start: 0, end: 2, newText: '' }]);
  });

  it('does not split a surrogate pair', () => {
    const edits = editsBetween('a😀b\n', 'a😃b\n');
    expect(edits).toEqual([{ start: 1, end: 3, newText: '😃' }]);
  });

  it('turns `from` into `to` with sorted, non-overlapping edits (seeded random texts)', () => {
    const seed = testSeed(77);
    const r = prng(seed);
    const pieces = ['a', 'b', ' ', 'x', '\n', '\n', '\r\n', '😀', '😃', '{', '}', 'é'];
    const randomText = (length: number): string => Array.from({ length }, () => r.pick(pieces)).join('');
    for (let round = 0; round < 400; round++) {
      const from = randomText(r.int(60));
      let to = from;
      for (let n = r.int(4); n >= 0; n--) {
        const at = r.int(to.length + 1);
        const cut = r.int(Math.min(6, to.length - at) + 1);
        to = to.slice(0, at) + (r.chance(0.6) ? randomText(r.int(6)) : '') + to.slice(at + cut);
      }
      if (r.chance(0.1)) to = randomText(r.int(40));
      const edits = editsBetween(from, to);
      expect(applyOffsetEdits(from, edits), `seed ${seed} round ${round}`).toBe(to);
      for (let k = 0; k < edits.length; k++) {
        const e = edits[k];
        if (!e) continue;
        expect(e.start <= e.end && e.end <= from.length).toBe(true);
        expect(e.start !== e.end || e.newText !== '').toBe(true);
        const next = edits[k + 1];
        if (next) expect(e.end < next.start).toBe(true);
      }
    }
  });
});
