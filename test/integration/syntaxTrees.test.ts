// Unit tests of the syntax trees the code-action path reads: incremental parses of edited files match whole parses, never move a tree someone holds, and the walks of only the nodes near a position answer as the walks of the whole file.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ts } from 'ts-morph';
import { changeBetween, declarationAt, declarationStartingAt, declarationsContaining, forgetSyntaxTrees, listDeclarations, noteTextEdits, parseDocument, withSyntaxTree } from '../../server/src/repo/declarations.js';
import type { TextEditStep } from '../../server/src/repo/declarations.js';
import { renameableAt, renameableNames } from '../../server/src/tasks/renameTask.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { prng } from '../support/rawLsp.js';

// Real files of this repository, frozen as they were on 28 November 2026: the random edits below land where their text
// says, and TypeScript's own incremental parser, step by step, disagrees with a whole parse at a few of the places a
// later version of a file would give them (a parse error's code at one offset), which is not what these tests are about.
const FROZEN = path.resolve(__dirname, '..', 'fixtures', 'syntaxTrees');
const SOURCES = ['testReport.ts', 'declarations.ts', 'renameTask.ts', 'traceStore.ts'].map((name) => fs.readFileSync(path.join(FROZEN, `${name}.txt`), 'utf8'));

/** Every node's kind and extent, in walk order, with the file's parse errors: what must match between two parses. */
function shape(source: ts.SourceFile): string {
  const out: string[] = [];
  const visit = (node: ts.Node, depth: number): void => {
    out.push(`${depth}:${ts.SyntaxKind[node.kind]}:${node.pos}-${node.end}`);
    ts.forEachChild(node, (child) => visit(child, depth + 1));
  };
  visit(source, 0);
  const errors = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map((d) => `${d.start}:${d.code}`);
  return `${out.join('\n')}\n${errors.join(',')}`;
}

function wholeParse(fileName: string, text: string): string {
  return shape(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
}

const TYPED = ['x', ' ', '\n', '{', '}', '(', ')', ';', '/**', '*/', '`', "'", 'const a = 1;', 'function f() {', '// note', '<T>'];

/** One random edit as typing makes them: a few characters typed, or a few deleted, somewhere in the text. */
function typing(text: string, random: ReturnType<typeof prng>): string {
  const at = random.int(text.length + 1);
  if (random.chance(0.35) && at < text.length) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + random.int(6)));
  return text.slice(0, at) + random.pick(TYPED) + text.slice(at);
}

describe('changeBetween', () => {
  it('spans what differs, and nothing of the common start and end', () => {
    const range = changeBetween('abcXYdef', 'abcQdef');
    expect(range.span).toEqual({ start: 3, length: 2 });
    expect(range.newLength).toBe(1);
    expect(changeBetween('same', 'same')).toEqual({ span: { start: 4, length: 0 }, newLength: 0 });
    // An insertion of a repeated character is placed after the common start, within both texts.
    expect(changeBetween('aaa', 'aaaa')).toEqual({ span: { start: 3, length: 0 }, newLength: 1 });
  });
});

describe('withSyntaxTree', () => {
  it('parses a file being edited incrementally, and every tree matches a whole parse of its text', () => {
    const random = prng(8);
    const fileName = '/virtual/edited/testReport.ts';
    let text = SOURCES[0] as string;
    parseDocument(fileName, text);
    let reused = 0;
    let previous: readonly ts.Statement[] = [];
    for (let step = 0; step < 40; step++) {
      text = typing(text, random);
      const [got, statements] = withSyntaxTree(fileName, text, (source) => [shape(source), [...source.statements]] as const);
      expect(got, `step ${step}`).toBe(wholeParse(fileName, text));
      // Holding nodes breaks the contract on purpose here: it shows the new tree reuses the previous one's nodes.
      if (statements.some((s) => previous.includes(s))) reused += 1;
      previous = statements;
    }
    // The first edit starts the file's own tree with a whole parse; the next ones reuse it.
    expect(reused).toBeGreaterThanOrEqual(38);
  });

  it('never moves a tree that parseDocument handed out', () => {
    const random = prng(21);
    const fileName = '/virtual/held/declarations.ts';
    let text = SOURCES[1] as string;
    const held: { source: ts.SourceFile; text: string; shape: string }[] = [];
    const hold = (): void => {
      const source = parseDocument(fileName, text);
      held.push({ source, text, shape: shape(source) });
    };
    hold();
    for (let step = 0; step < 30; step++) {
      text = typing(text, random);
      withSyntaxTree(fileName, text, (source) => source.statements.length);
      // A task's context parses the text now and then, between the code-action requests.
      if (step % 7 === 3) hold();
    }
    expect(held.length).toBeGreaterThan(3);
    for (const h of held) {
      expect(h.source.text).toBe(h.text);
      expect(shape(h.source)).toBe(h.shape);
    }
  });

  it('starts the incremental parses from the shared tree when only lent calls ever had it', () => {
    const fileName = '/virtual/lent/traceStore.ts';
    const first = SOURCES[3] as string;
    const before = withSyntaxTree(fileName, first, (source) => [...source.statements]);
    const second = `${first.slice(0, 200)}x${first.slice(200)}`;
    const [got, after] = withSyntaxTree(fileName, second, (source) => [shape(source), [...source.statements]] as const);
    expect(got).toBe(wholeParse(fileName, second));
    // Nodes of the first tree carry on in the second: no whole parse at the first edit.
    expect(after.filter((s) => before.includes(s)).length).toBeGreaterThan(after.length / 2);
  });

  it('leaves a shared tree alone while a call has it on loan, even one never handed out', () => {
    const fileName = '/virtual/loaned/traceStore.ts';
    const first = SOURCES[3] as string;
    const second = `// header\n${first}`;
    const outcome = withSyntaxTree(fileName, first, (outer) => {
      const inner = withSyntaxTree(fileName, second, (source) => shape(source));
      return { inner, outer: shape(outer), text: outer.text };
    });
    expect(outcome.inner).toBe(wholeParse(fileName, second));
    expect(outcome.outer).toBe(wholeParse(fileName, first));
    expect(outcome.text).toBe(first);
  });

  it('gives a call that asks about another text of the same file a parse of its own, and leaves the lent tree alone', () => {
    const fileName = '/virtual/nested/renameTask.ts';
    const first = SOURCES[2] as string;
    parseDocument(fileName, first);
    const second = `${first}\nexport function added(): void {}\n`;
    const third = `// header\n${second}`;
    withSyntaxTree(fileName, second, () => undefined);
    const outcome = withSyntaxTree(fileName, second, (outer) => {
      const inner = withSyntaxTree(fileName, third, (source) => shape(source));
      return { inner, outer: shape(outer) };
    });
    expect(outcome.inner).toBe(wholeParse(fileName, third));
    expect(outcome.outer).toBe(wholeParse(fileName, second));
    // The file's own tree is still at `second`, and goes on from there.
    const fourth = `${second}// end\n`;
    expect(withSyntaxTree(fileName, fourth, (source) => shape(source))).toBe(wholeParse(fileName, fourth));
  });
});

/** Makes `text` the latest text of a file being edited (a keystroke away from an earlier one), as the editor makes it. */
function edited(fileName: string, text: string): void {
  parseDocument(fileName, `${text}\n// an earlier text`);
  expect(withSyntaxTree(fileName, text, (_source, isEdited) => isEdited)).toBe(true);
}

describe('a task asking for the text being edited', () => {
  it('takes the tree of edits instead of a whole parse; the tree is never moved again, and the keystrokes after go to a tree of edits of their own', async () => {
    const fileName = '/virtual/adopted/testReport.ts';
    const random = prng(34);
    const first = SOURCES[0] as string;
    withSyntaxTree(fileName, first, () => undefined);
    const second = `${first.slice(0, 900)}x${first.slice(900)}`;
    // Kept here only to compare identity: code outside tests never keeps a lent tree.
    const lent = withSyntaxTree(fileName, second, (source) => source);
    const taken = parseDocument(fileName, second);
    expect(taken).toBe(lent);
    expect(parseDocument(fileName, second)).toBe(taken);
    // Still a file being edited: the walks on its tree stay near the position asked about.
    expect(withSyntaxTree(fileName, second, (source, edited) => source === taken && edited)).toBe(true);
    // Soon after (50 ms), the file has a tree of edits again (a parse of the same text), so the keystrokes leave the
    // task's tree where it is, in the shared cache.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let text = second;
    for (let i = 0; i < 20; i++) {
      text = typing(text, random);
      expect(withSyntaxTree(fileName, text, (source, edited) => edited && shape(source) === wholeParse(fileName, text))).toBe(true);
    }
    expect(parseDocument(fileName, second)).toBe(taken);
    expect(taken.text).toBe(second);
    expect(shape(taken)).toBe(wholeParse(fileName, second));
  });
});

/** One random change as `typing` makes it, as the step the editor reports, and the text after it. */
function typedStep(text: string, random: ReturnType<typeof prng>): { step: TextEditStep; after: string } {
  const at = random.int(text.length + 1);
  const step = random.chance(0.35) && at < text.length ? { start: at, end: Math.min(text.length, at + 1 + random.int(6)), text: '' } : { start: at, end: at, text: random.pick(TYPED) };
  return { step, after: text.slice(0, step.start) + step.text + text.slice(step.end) };
}

describe('the changes the editor reports (noteTextEdits)', () => {
  it('parse each group of nearby changes on its own, and every tree matches a whole parse of its text', () => {
    const random = prng(21);
    const fileName = '/virtual/noted/traceStore.ts';
    let text = SOURCES[3] as string;
    withSyntaxTree(fileName, text, () => undefined);
    text = `${text}\n`;
    withSyntaxTree(fileName, text, () => undefined);
    for (let round = 0; round < 30; round++) {
      // Between two parses: up to four didChange notifications of up to three changes each, anywhere in the file.
      for (let notification = random.int(4) + 1; notification > 0; notification--) {
        const before = text;
        const steps: TextEditStep[] = [];
        for (let n = random.int(3) + 1; n > 0; n--) {
          const { step, after } = typedStep(text, random);
          steps.push(step);
          text = after;
        }
        noteTextEdits(fileName, before, steps, text);
      }
      expect(withSyntaxTree(fileName, text, (source) => shape(source)), `round ${round}`).toBe(wholeParse(fileName, text));
    }
  });

  it('keep the nodes of the code between two far-apart changes, which the one span between the texts would parse again', () => {
    const fileName = '/virtual/far/testReport.ts';
    const base = SOURCES[0] as string;
    const keptBetween = (noted: boolean): { kept: number; between: number } => {
      forgetSyntaxTrees(fileName, true);
      withSyntaxTree(fileName, base, () => undefined);
      // The file's own tree of edits starts with this change (made without a report).
      const first = `${base} `;
      const held = withSyntaxTree(fileName, first, (source) => [...source.statements]);
      // A comment typed above the third statement, and a keystroke in the third from the end, reported or not.
      const early = held[2] as ts.Statement;
      const late = held[held.length - 3] as ts.Statement;
      const steps: TextEditStep[] = [
        { start: early.getStart(), end: early.getStart(), text: '// a\n' },
        { start: late.getStart() + 5 + '// a\n'.length, end: late.getStart() + 5 + '// a\n'.length, text: 'x' },
      ];
      let next = first;
      for (const step of steps) next = next.slice(0, step.start) + step.text + next.slice(step.end);
      if (noted) noteTextEdits(fileName, first, steps, next);
      const between = held.slice(4, held.length - 4);
      const kept = withSyntaxTree(fileName, next, (source) => {
        expect(shape(source)).toBe(wholeParse(fileName, next));
        return source.statements.filter((statement) => between.includes(statement)).length;
      });
      return { kept, between: between.length };
    };
    const reported = keptBetween(true);
    expect(reported.between).toBeGreaterThan(20);
    expect(reported.kept).toBe(reported.between);
    // Unreported, the same two changes are parsed as one span, and the statements between them are made anew.
    expect(keptBetween(false).kept).toBe(0);
  });

  it('are set aside when they do not start from the text the tree has, or do not lead to the text asked for', () => {
    const fileName = '/virtual/mismatch/renameTask.ts';
    const base = SOURCES[2] as string;
    withSyntaxTree(fileName, base, () => undefined);
    const first = `${base}\n`;
    withSyntaxTree(fileName, first, () => undefined);
    // A report that starts from another text (a notification the trees did not hear of came first).
    const missed = `// missed\n${first}`;
    const reported = `${missed.slice(0, 20)}y${missed.slice(20)}`;
    noteTextEdits(fileName, missed, [{ start: 20, end: 20, text: 'y' }], reported);
    expect(withSyntaxTree(fileName, reported, (source) => shape(source))).toBe(wholeParse(fileName, reported));
    // Steps that do not lead to the text they claim (a client's wrong offsets): the text asked for wins.
    const claimed = `${reported}// end\n`;
    noteTextEdits(fileName, reported, [{ start: 0, end: 0, text: '// elsewhere\n' }], claimed);
    expect(withSyntaxTree(fileName, claimed, (source) => shape(source))).toBe(wholeParse(fileName, claimed));
    // Steps that lead to a text of the same length as the one claimed, which differs before the change or after it.
    let current = claimed;
    const at = current.indexOf('export');
    const typed = (text: string): string => `${text.slice(0, at)}z${text.slice(at)}`;
    const last = (text: string): number => text.lastIndexOf('}');
    for (const differ of [(text: string) => `{${text.slice(1)}`, (text: string) => `${text.slice(0, last(text))})${text.slice(last(text) + 1)}`]) {
      const wrong = differ(typed(current));
      expect(wrong.length).toBe(current.length + 1);
      noteTextEdits(fileName, current, [{ start: at, end: at, text: 'z' }], wrong);
      expect(withSyntaxTree(fileName, wrong, (source) => shape(source))).toBe(wholeParse(fileName, wrong));
      current = wrong;
    }
  });
});

describe('forgetSyntaxTrees', () => {
  it('drops the tree of a closed file being edited, and for a buffer with no file its shared parse too', () => {
    const fileName = '/virtual/closed/declarations.ts';
    const first = SOURCES[1] as string;
    const second = `${first}\nexport const added = 1;\n`;
    withSyntaxTree(fileName, first, () => undefined);
    expect(withSyntaxTree(fileName, second, (_source, edited) => edited)).toBe(true);
    forgetSyntaxTrees(fileName, false);
    // Its next text is that of a file seen once: a parse shared with parseDocument, no longer a tree of edits.
    const third = `${second}// saved\n`;
    expect(withSyntaxTree(fileName, third, (_source, edited) => edited)).toBe(false);
    const shared = parseDocument(fileName, third);
    forgetSyntaxTrees(fileName, false);
    expect(parseDocument(fileName, third)).toBe(shared);

    const untitled = '/__untitled__/untitled%3AUntitled-9.ts';
    const kept = parseDocument(untitled, first);
    forgetSyntaxTrees(untitled, true);
    const again = parseDocument(untitled, first);
    expect(again).not.toBe(kept);
    expect(shape(again)).toBe(shape(kept));
  });
});

describe('walks near a position, in a file being edited', () => {
  it('tells a settled text from one being edited', () => {
    const fileName = '/virtual/settled/file.ts';
    const text = SOURCES[2] as string;
    expect(withSyntaxTree(fileName, text, (_source, isEdited) => isEdited)).toBe(false);
    expect(withSyntaxTree(fileName, `${text}\n`, (_source, isEdited) => isEdited)).toBe(true);
  });

  it('declarationAt and declarationStartingAt answer as the list of the whole file does, at every kind of place', () => {
    const random = prng(5);
    SOURCES.forEach((text, i) => {
      const fileName = `/virtual/at/file${i}.ts`;
      edited(fileName, text);
      const places: [number, number][] = [];
      for (let offset = 0; offset <= text.length; offset += 11) places.push([offset, offset]);
      for (let n = 0; n < 300; n++) {
        const start = random.int(text.length + 1);
        places.push([start, Math.min(text.length, start + random.int(400))]);
      }
      // The same text under another name gives the whole list and leaves this file's tree unlisted: until this file's
      // declarations are listed, only the nodes near each place are walked.
      const all = listDeclarations(`${fileName}.copy.ts`, text);
      expect(all.length).toBeGreaterThan(10);
      const near = places.map(([start, end]) => declarationAt(fileName, text, start, end));
      const nearStarting = all.map((d) => declarationStartingAt(fileName, text, d.start, [d.kind]));
      expect(listDeclarations(fileName, text)).toEqual(all);
      const whole = places.map(([start, end]) => declarationAt(fileName, text, start, end));
      expect(near).toEqual(whole);
      expect(nearStarting).toEqual(all.map((d) => all.find((other) => other.start === d.start && other.kind === d.kind)));
      expect(near.filter((d) => d !== undefined).length).toBeGreaterThan(places.length / 2);
    });
  });

  it('declarationsContaining gives every declaration that contains a range, as the list of the whole file does', () => {
    const random = prng(21);
    const extra = '\nexport const outer = (a: number) => {\n  const inner = function (b: number) {\n    class Local { run() { return () => b; } }\n    return new Local();\n  };\n  return inner(a);\n};\n';
    SOURCES.forEach((source, i) => {
      const text = source + extra;
      const fileName = `/virtual/around/file${i}.ts`;
      edited(fileName, text);
      const all = listDeclarations(`${fileName}.copy.ts`, text);
      const ranges: [number, number][] = all.flatMap((d) => [[d.start, d.end], [d.nameStart, d.nameEnd], [d.lineStart, d.lineStart]] as [number, number][]);
      for (let n = 0; n < 400; n++) {
        const start = random.int(text.length + 1);
        ranges.push([start, Math.min(text.length, start + random.int(random.chance(0.5) ? 40 : 2_000))]);
      }
      const containing = (list: readonly { start: number; end: number }[], [from, to]: [number, number]) => list.filter((d) => d.start <= from && to <= d.end);
      // Until this file's declarations are listed, only the nodes around each range are walked.
      const walked = ranges.map((range) => containing(declarationsContaining(fileName, text, range[0], range[1]), range));
      expect(walked).toEqual(ranges.map((range) => containing(all, range)));
      expect(walked.filter((found) => found.length >= 2).length).toBeGreaterThan(5);
      // Once listed, the list answers.
      expect(listDeclarations(fileName, text)).toEqual(all);
      expect(ranges.map((range) => containing(declarationsContaining(fileName, text, range[0], range[1]), range))).toEqual(walked);
    });
  });

  it.each([
    ['being edited (the nodes of the line walked)', true],
    ['settled (the names of the file listed once)', false],
  ])('renameableAt finds what the names of the whole file give, in a file %s', (_label, isEdited) => {
    const random = prng(13);
    const text = `${SOURCES[3]}\nexport class Shapes {\n  radius = 2;\n  #hidden: number = 1;\n  area = () => this.radius;\n}\ninterface Point { x: number; readonly y: number }\n// Names at the start of their line:\ninterface Flat {\nwidth: number;\nheight: number }\nclass Bare {\nlength = 1;\ngrow() { return this.length; }\n}\n`;
    const fsPath = `/virtual/rename/${isEdited ? 'edited' : 'settled'}/traceStore.ts`;
    const document: DocumentSnapshot = { uri: `file://${fsPath}`, fsPath, languageId: 'typescript', version: 1, text };
    if (isEdited) edited(fsPath, text);
    else expect(withSyntaxTree(fsPath, text, (_source, edits) => edits)).toBe(false);
    // The rule renameableAt applies, over every name of the file.
    const expected = (start: number, end: number) => {
      const names = renameableNames(fsPath, text);
      const onName = names.filter((n) => n.nameStart <= start && end <= n.nameEnd);
      if (onName.length > 0) return onName[onName.length - 1];
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const newline = text.indexOf('\n', start);
      const lineEnd = newline < 0 ? text.length : newline;
      if (end > lineEnd) return undefined;
      const onLine = names.filter((n) => n.nameStart >= lineStart && n.nameEnd <= lineEnd);
      return onLine.filter((n) => n.nameStart <= start).pop() ?? onLine[0];
    };
    let found = 0;
    for (let n = 0; n < 1500; n++) {
      const start = random.int(text.length + 1);
      const end = random.chance(0.8) ? start : Math.min(text.length, start + random.int(30));
      const got = renameableAt(document, start, end);
      expect(got, `at ${start}-${end}`).toEqual(expected(start, end));
      if (got) found += 1;
    }
    expect(found).toBeGreaterThan(100);
    const names = renameableNames(fsPath, text).map((n) => n.target.name);
    expect(names).toEqual(expect.arrayContaining(['Shapes.radius', 'Shapes.#hidden', 'Shapes.area', 'Point.x', 'Point.y', 'Flat.width', 'Bare.length', 'Bare.grow']));
    // At the first character of a name that starts its line.
    for (const name of ['width', 'height', 'length', 'grow']) {
      const at = text.indexOf(`\n${name}`) + 1;
      expect(renameableAt(document, at, at)?.simpleName).toBe(name);
    }
  });
});
