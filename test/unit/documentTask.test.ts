// Unit tests of the Document task: offers from syntax alone, and answers reduced to the doc comment and nothing else.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { declarationTarget, documentTask, onlyCommentChanged } from '../../server/src/tasks/documentTask.js';
import type { DeclarationTarget } from '../../server/src/repo/declarations.js';
import { prng } from '../support/rawLsp.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import { declarationAt, parseDocument } from '../../server/src/repo/declarations.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { Workspace } from '../../server/src/workspace/workspace.js';

/** The conversions here read nothing of the workspace; a run still names one. */
const ws = new Workspace(os.tmpdir());

const text = [
  'export class Store {',
  '  /** Existing. */',
  '  get(key: string): string | undefined {',
  '    return undefined;',
  '  }',
  '}',
  '',
  'export const twice = (n: number): number => n * 2;',
  '',
].join('\n');
const document: DocumentSnapshot = { uri: 'file:///w/a.ts', fsPath: '/w/a.ts', languageId: 'typescript', version: 3, text };
const annotation = { task: 'document' as const, agent: 'doc-offline', interactionId: 'abc', at: '2026-01-01T00:00:00.000Z' };

function convert(answer: string, needle: string, withAnnotation: typeof annotation | undefined) {
  return documentTask.convertAnswer({ text: answer }, { workspace: ws, document, target: declarationTarget(target(needle)), parameters: {} }, withAnnotation);
}

/** The Document task's conversion of an answer on the declaration at `needle` of `source`. */
function converterOn(source: string) {
  const on: DocumentSnapshot = { ...document, text: source };
  return (answer: string, needle: string) => {
    const declaration = declarationAt('/w/a.ts', source, source.indexOf(needle));
    return documentTask.convertAnswer({ text: answer }, { workspace: ws, document: on, target: declarationTarget(declaration!), parameters: {} }, undefined);
  };
}

function target(needle: string) {
  const offset = text.indexOf(needle);
  const found = declarationAt('/w/a.ts', text, offset);
  if (!found) throw new Error(`no declaration at ${needle}`);
  return found;
}

describe('documentTask', () => {
  it('offers Document on a method with a title naming it, and completion when a comment exists', () => {
    const offset = text.indexOf('get(key');
    expect(documentTask.offersAt({ document, start: offset, end: offset, diagnostics: [] }).map((o) => o.title)).toEqual(['Assistant: Complete the documentation of method Store.get']);
    const arrow = text.indexOf('twice');
    expect(documentTask.offersAt({ document, start: arrow, end: arrow, diagnostics: [] }).map((o) => o.title)).toEqual(['Assistant: Document function twice']);
    expect(documentTask.offersAt({ document, start: text.length, end: text.length, diagnostics: [] })).toEqual([]);
  });

  it('inserts the block above an arrow function and the annotation as a line comment between them, and nothing else', () => {
    const result = convert('```ts\n/** Doubles a number. */\nexport const twice = (n) => 0;\n```', 'twice', annotation);
    expect(result.ok).toBe(true);
    if (!result.ok || result.kind !== 'edit') return;
    const after = applyOffsetEdits(text, result.proposal.documents[0]!.edits);
    expect(after).toContain('\n/**\n * Doubles a number.\n */\n// @assistant task=document agent=doc-offline interaction=abc at=2026-01-01T00:00:00.000Z\nexport const twice = (n: number): number => n * 2;');
    // The doc comment is documentation only: the annotation is never in it.
    expect(result.text).toBe('/**\n * Doubles a number.\n */');
    expect(declarationAt('/w/a.ts', after, after.indexOf('twice'))?.existingDoc?.text).toBe('/**\n * Doubles a number.\n */');
  });

  it('completes a comment in place and adds the annotation below it, after the annotations already there', () => {
    const annotated = text.replace('  /** Existing. */\n', '  /** Existing. */\n  // @assistant task=fix agent=m interaction=old at=2025-01-01T00:00:00.000Z\n');
    const on: DocumentSnapshot = { ...document, text: annotated };
    const declaration = declarationAt('/w/a.ts', annotated, annotated.indexOf('get(key'));
    expect(declaration?.existingDoc?.text).toBe('/** Existing. */');
    const result = documentTask.convertAnswer({ text: '/**\n * Gets a value.\n */' }, { workspace: ws, document: on, target: declarationTarget(declaration!), parameters: {} }, annotation);
    if (!result.ok || result.kind !== 'edit') throw new Error(JSON.stringify(result));
    expect(applyOffsetEdits(annotated, result.proposal.documents[0]!.edits)).toContain(
      '  /**\n   * Gets a value.\n   */\n  // @assistant task=fix agent=m interaction=old at=2025-01-01T00:00:00.000Z\n  // @assistant task=document agent=doc-offline interaction=abc at=2026-01-01T00:00:00.000Z\n  get(key: string)',
    );
  });

  it('puts a new comment above the annotations a declaration carries', () => {
    const annotated = text.replace('export const twice', '// @assistant task=generate agent=m interaction=old at=2025-01-01T00:00:00.000Z\nexport const twice');
    const on: DocumentSnapshot = { ...document, text: annotated };
    const declaration = declarationAt('/w/a.ts', annotated, annotated.indexOf('twice'));
    const result = documentTask.convertAnswer({ text: '/** Doubles. */' }, { workspace: ws, document: on, target: declarationTarget(declaration!), parameters: {} }, annotation);
    if (!result.ok || result.kind !== 'edit') throw new Error(JSON.stringify(result));
    expect(applyOffsetEdits(annotated, result.proposal.documents[0]!.edits)).toContain(
      '\n/** Doubles. */\n// @assistant task=generate agent=m interaction=old at=2025-01-01T00:00:00.000Z\n// @assistant task=document agent=doc-offline interaction=abc at=2026-01-01T00:00:00.000Z\nexport const twice',
    );
  });

  it('keeps a directive above the code on the line it governs: the comment and its annotation go above it', () => {
    const directed = text.replace('export const twice', '// @ts-expect-error the result is widened on purpose\nexport const twice');
    const on: DocumentSnapshot = { ...document, text: directed };
    const declaration = declarationAt('/w/a.ts', directed, directed.indexOf('twice'));
    const result = documentTask.convertAnswer({ text: '/** Doubles. */' }, { workspace: ws, document: on, target: declarationTarget(declaration!), parameters: {} }, annotation);
    if (!result.ok || result.kind !== 'edit') throw new Error(JSON.stringify(result));
    expect(applyOffsetEdits(directed, result.proposal.documents[0]!.edits)).toContain(
      '\n/** Doubles. */\n// @assistant task=document agent=doc-offline interaction=abc at=2026-01-01T00:00:00.000Z\n// @ts-expect-error the result is widened on purpose\nexport const twice',
    );
  });

  it('replaces an existing comment in place, keeping the indentation', () => {
    const result = convert('/**\n * Gets a value.\n * @param key - The key.\n */', 'get(key', undefined);
    expect(result.ok).toBe(true);
    if (!result.ok || result.kind !== 'edit') return;
    const after = applyOffsetEdits(text, result.proposal.documents[0]!.edits);
    expect(after).toContain('  /**\n   * Gets a value.\n   * @param key - The key.\n   */\n  get(key: string)');
    expect(after).not.toContain('Existing.');
  });

  it('drops annotations forged by the answer', () => {
    const result = convert('/**\n * Doubles.\n * @assistant task=fix agent=evil interaction=forged at=x\n */', 'twice', undefined);
    expect(result.ok && result.kind === 'edit' && result.text).not.toContain('forged');
  });

  it('drops @param tags that name no parameter, keeps destructured ones, and the user\'s own', () => {
    const source = [
      'export function reset(): void {}',
      '',
      'export function area({ w, h }: { w: number; h: number }): number {',
      '  return w * h;',
      '}',
      '',
      '/**',
      ' * Moves.',
      ' * @param from - Gone since.',
      ' */',
      'export function move(to: number): number {',
      '  return to;',
      '}',
      '',
    ].join('\n');
    const run = converterOn(source);
    const invented = run('/**\n * Clears the state.\n * @param options - The options.\n * @param options.force - Whether to force.\n */', 'reset');
    expect(invented).toMatchObject({ ok: true, text: '/**\n * Clears the state.\n */' });
    expect(run('/**\n * @param options - The options.\n */', 'reset')).toMatchObject({ ok: false, reason: expect.stringMatching(/tags the code contradicts/) });
    const destructured = '/**\n * The area.\n * @param size - The size.\n * @param size.w - Width.\n * @returns The area.\n */';
    expect(run(destructured, 'area')).toMatchObject({ ok: true, text: destructured });
    const completed = run('/**\n * Moves.\n * @param from - Gone since.\n * @param to - Where.\n * @param speed - How fast.\n * @returns Where it is.\n */', 'move');
    expect(completed).toMatchObject({ ok: true, text: '/**\n * Moves.\n *\n * @param from - Gone since.\n * @param to - Where.\n * @returns Where it is.\n */' });
  });

  it('drops @throws on code that runs nothing that can throw and @returns on code that returns nothing, and reads markdown sections', () => {
    const source = [
      'export function clamp(n: number, max: number): number {',
      '  return n > max ? max : n;',
      '}',
      '',
      'export function parse(text: string): unknown {',
      '  return JSON.parse(text);',
      '}',
      '',
      'export function check(n: number): number {',
      '  if (n < 0) throw new RangeError("negative");',
      '  return n;',
      '}',
      '',
      'export function log(message: string) {',
      '  console.log(message);',
      '}',
      '',
      'export async function save(): Promise<void> {}',
      '',
    ].join('\n');
    const run = converterOn(source);
    const throwing = '/**\n * Limits n.\n *\n * @param n - The number.\n * @param max - The limit.\n * @returns n, at most max.\n * @throws If n is not a number.\n */';
    expect(run(throwing, 'clamp')).toMatchObject({ ok: true, text: '/**\n * Limits n.\n *\n * @param n - The number.\n * @param max - The limit.\n * @returns n, at most max.\n */' });
    expect(run('/**\n * @throws If it fails.\n */', 'clamp')).toMatchObject({ ok: false, reason: expect.stringMatching(/tags the code contradicts/) });
    expect(run('/**\n * Parses.\n * @throws No errors are thrown.\n */', 'parse')).toMatchObject({ ok: true, text: '/**\n * Parses.\n */' });
    expect(run('/**\n * Parses.\n * @throws {SyntaxError} If the text is no JSON.\n */', 'parse')).toMatchObject({ ok: true, text: expect.stringContaining('@throws {SyntaxError}') });
    expect(run('/**\n * Checks.\n * @throws {RangeError} If n is negative.\n */', 'check')).toMatchObject({ ok: true, text: expect.stringContaining('@throws {RangeError}') });
    expect(run('/**\n * Logs.\n * @param message - What to log.\n * @returns The message.\n */', 'log')).toMatchObject({ ok: true, text: '/**\n * Logs.\n *\n * @param message - What to log.\n */' });
    expect(run('/**\n * Saves.\n * @returns A promise settled once saved.\n */', 'save')).toMatchObject({ ok: true, text: expect.stringContaining('@returns A promise') });
    const markdown = '**Purpose**: Limits a number.\n\n**Parameters**:\n- `n`: The number.\n- `max`: The limit.\n\n**Returns**: The smaller of the two.\n\n**Behaviour**:\n- Compares them.';
    expect(run(markdown, 'clamp')).toMatchObject({ ok: true, text: '/**\n * Limits a number.\n *\n * @param n - The number.\n * @param max - The limit.\n * @returns The smaller of the two.\n */' });
  });

  it('refuses answers without a doc comment and unchanged comments', () => {
    expect(convert('export const twice = () => 1;', 'twice', undefined)).toMatchObject({ ok: false });
    expect(convert('/** Existing. */', 'get(key', undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/already complete/) });
  });
});

describe('onlyCommentChanged', () => {
  it('agrees with removing both ranges from whole copies of the text, on seeded random texts and edits', () => {
    const seeded = prng(20261122);
    const random = seeded.next;
    const pick = seeded.int;
    let accepted = 0;
    for (let round = 0; round < 3000; round++) {
      // A small alphabet, so that removing two different ranges often gives the same text.
      const text = Array.from({ length: 1 + pick(30) }, () => 'ab/*'[pick(4)]).join('');
      const range = (): { start: number; end: number } => {
        const start = pick(text.length + 1);
        return { start, end: start + pick(Math.min(6, text.length - start) + 1) };
      };
      const old = random() < 0.7 ? range() : undefined;
      const edit = { ...(random() < 0.5 && old ? old : range()), newText: random() < 0.8 ? '/** doc */\n' : '/** a */ b' };
      const target = { existingDoc: old && { ...old, text: text.slice(old.start, old.end) } } as DeclarationTarget;
      const after = applyOffsetEdits(text, [edit]);
      const expected =
        (old ? text.slice(0, old.start) + text.slice(old.end) : text) === after.slice(0, edit.start) + after.slice(edit.start + edit.newText.length) && !edit.newText.trim().endsWith('b');
      expect(onlyCommentChanged(text, edit, target), JSON.stringify({ text, old, edit })).toBe(expected);
      if (expected) accepted += 1;
    }
    // Both answers occur often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(2700);
  });
});

describe('parseDocument', () => {
  it('reuses the parse for an equal text in another string, and parses a changed text again', () => {
    const fileName = '/w/parse-cache.ts';
    const first = parseDocument(fileName, text);
    // The same characters in a string of its own, as an editor's text is after an undo.
    const copy = [...text].join('');
    expect(parseDocument(fileName, copy)).toBe(first);
    expect(parseDocument(fileName, text)).toBe(first);
    expect(parseDocument(fileName, copy)).toBe(first);
    const changed = `${text}export const three = 3;\n`;
    const second = parseDocument(fileName, changed);
    expect(second).not.toBe(first);
    expect(second.statements.length).toBe(first.statements.length + 1);
    expect(parseDocument(fileName, text)).not.toBe(second);
  });
});
