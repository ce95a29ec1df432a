// Unit tests of the Explain task: offers on declarations and selections from syntax alone, and text answers cleaned or refused.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { cleanExplanation, EXPLAIN_KIND, explainTask } from '../../server/src/tasks/explainTask.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { Workspace } from '../../server/src/workspace/workspace.js';

/** The conversions here read nothing of the workspace; a run still names one. */
const ws = new Workspace(os.tmpdir());

const text = [
  'import { readFileSync } from "node:fs";',
  '',
  '/** A store. */',
  'export class Store {',
  '  constructor(private readonly path: string) {}',
  '',
  '  get(key: string): string | undefined {',
  '    const all = readFileSync(this.path, "utf8");',
  '    return all.includes(key) ? key : undefined;',
  '  }',
  '}',
  '',
  'export interface Entry {',
  '  key: string;',
  '}',
  '',
  'export const twice = (n: number): number => n * 2;',
  '',
].join('\n');
const document: DocumentSnapshot = { uri: 'file:///w/a.ts', fsPath: '/w/a.ts', languageId: 'typescript', version: 1, text };

function offersAt(start: number, end = start) {
  return explainTask.offersAt({ document, start, end, diagnostics: [] });
}

const at = (needle: string): number => {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`no ${needle}`);
  return offset;
};

describe('explainTask.offersAt', () => {
  it('offers Explain on each kind of declaration at the cursor, naming it', () => {
    expect(offersAt(at('get(key')).map((o) => o.title)).toEqual(['Assistant: Explain method Store.get']);
    expect(offersAt(at('class Store')).map((o) => o.title)).toEqual(['Assistant: Explain class Store']);
    expect(offersAt(at('interface Entry')).map((o) => o.title)).toEqual(['Assistant: Explain interface Entry']);
    expect(offersAt(at('twice')).map((o) => o.title)).toEqual(['Assistant: Explain function twice']);
    expect(offersAt(at('constructor(')).map((o) => o.title)).toEqual(['Assistant: Explain the constructor of Store']);
    const [offer] = offersAt(at('get(key'));
    expect(offer).toMatchObject({ task: 'explain', kind: EXPLAIN_KIND, target: { name: 'Store.get', declaration: { kind: 'method', simpleName: 'get' } } });
  });

  it('offers nothing at the cursor outside declarations, nor on a blank selection', () => {
    expect(offersAt(at('import'))).toEqual([]);
    expect(offersAt(text.length)).toEqual([]);
    const blank = at('\n\nexport interface');
    expect(offersAt(blank, blank + 2)).toEqual([]);
  });

  it('treats a selection of exactly a declaration, its doc comment included, or of just its name as that declaration', () => {
    const method = offersAt(at('get(key'), at('  }\n}') + 3);
    expect(method.map((o) => o.title)).toEqual(['Assistant: Explain method Store.get']);
    const withDoc = offersAt(at('/** A store. */'), at('}\n\nexport interface') + 1);
    expect(withDoc.map((o) => o.title)).toEqual(['Assistant: Explain class Store']);
    const name = offersAt(at('twice'), at('twice') + 'twice'.length);
    expect(name.map((o) => o.title)).toEqual(['Assistant: Explain function twice']);
    // Leading and trailing whitespace do not count.
    expect(offersAt(at('export const twice') - 1, text.length).map((o) => o.title)).toEqual(['Assistant: Explain function twice']);
  });

  it('offers "Explain the selection" on any other selection, on the selected code without its surrounding whitespace', () => {
    const start = at('    const all') + 1;
    const end = at('    return all') + '    return all'.length;
    const [offer, ...rest] = offersAt(start, end);
    expect(rest).toEqual([]);
    expect(offer).toMatchObject({ title: 'Assistant: Explain the selection', kind: EXPLAIN_KIND, target: { name: 'the selection', start: at('const all'), end } });
    expect(offer!.target.declaration).toBeUndefined();
  });
});

describe('explainTask.convertAnswer', () => {
  const run = { workspace: ws, document, target: { name: 'x', start: 0, end: 0 }, parameters: {} };

  it('turns any non-empty answer into a text to show, never an edit', () => {
    expect(explainTask.convertAnswer({ text: '  **Store** keeps entries.\n' }, run, undefined)).toEqual({ ok: true, kind: 'text', text: '**Store** keeps entries.' });
  });

  it('refuses an empty answer', () => {
    expect(explainTask.convertAnswer({ text: ' \n ' }, run, undefined)).toEqual({ ok: false, reason: 'the explanation is empty' });
    expect(explainTask.convertAnswer({ text: '<think>nothing to say</think>' }, run, undefined).ok).toBe(false);
  });

  it('removes a model reasoning block and a fence around the whole answer, but keeps code fences inside it', () => {
    expect(cleanExplanation('<think>\nLet me look.\n</think>\nIt parses.')).toBe('It parses.');
    expect(cleanExplanation('```markdown\nIt **parses**.\n```')).toBe('It **parses**.');
    expect(cleanExplanation('```\nIt parses.\n```')).toBe('It parses.');
    const inner = 'It calls:\n```ts\nparse(x)\n```\nthen returns.';
    expect(cleanExplanation(inner)).toBe(inner);
    expect(cleanExplanation('````md\nSee:\n```ts\nparse(x)\n```\n````')).toBe('See:\n```ts\nparse(x)\n```');
    // A whole answer that is code is not unwrapped: it is not markdown prose.
    expect(cleanExplanation('```ts\nparse(x)\n```')).toBe('```ts\nparse(x)\n```');
  });
});
