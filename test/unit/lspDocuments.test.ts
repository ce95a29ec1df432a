// Unit tests of the editor's documents as the LSP layer keeps them: where each incremental change was, in offsets, for the trees of edits.
import { describe, expect, it } from 'vitest';
import type { Connection, DidChangeTextDocumentParams, DidOpenTextDocumentParams } from 'vscode-languageserver/node';
import { LspDocuments } from '../../server/src/lsp/documents.js';
import type { TextEditStep } from '../../server/src/repo/declarations.js';

type Handler = (params: unknown) => void;

/** Document sync as the library listens to it, driven by the test. */
function documentsWithSync(): { documents: LspDocuments; open: (text: string) => void; change: (params: DidChangeTextDocumentParams['contentChanges']) => void; heard: { uri: string; edit?: { before: string; steps?: TextEditStep[]; after: string } }[] } {
  const handlers = new Map<string, Handler>();
  const on = (name: string) => (handler: Handler) => (handlers.set(name, handler), { dispose: () => undefined });
  const connection = {
    onDidOpenTextDocument: on('open'),
    onDidChangeTextDocument: on('change'),
    onDidCloseTextDocument: on('close'),
    onWillSaveTextDocument: on('willSave'),
    onWillSaveTextDocumentWaitUntil: on('willSaveWaitUntil'),
    onDidSaveTextDocument: on('save'),
    console: { log: () => undefined },
  } as unknown as Connection;
  const documents = new LspDocuments();
  documents.listen(connection);
  const heard: { uri: string; edit?: { before: string; steps?: TextEditStep[]; after: string } }[] = [];
  documents.onDidChange((uri, edit) => heard.push({ uri, ...(edit ? { edit } : {}) }));
  const uri = 'file:///w/a.ts';
  let version = 1;
  return {
    documents,
    heard,
    open: (text) => handlers.get('open')?.({ textDocument: { uri, languageId: 'typescript', version: 1, text } } satisfies DidOpenTextDocumentParams),
    change: (contentChanges) => handlers.get('change')?.({ textDocument: { uri, version: ++version }, contentChanges } satisfies DidChangeTextDocumentParams),
  };
}

function applySteps(text: string, steps: readonly TextEditStep[]): string {
  return steps.reduce((current, step) => current.slice(0, step.start) + step.text + current.slice(step.end), text);
}

describe('LspDocuments', () => {
  it('says where each ranged change was, in offsets, for one change or several sent last first', () => {
    const sync = documentsWithSync();
    sync.open('line one\nline two\nline three\n');
    expect(sync.heard).toEqual([{ uri: 'file:///w/a.ts' }]);
    sync.change([{ range: { start: { line: 1, character: 5 }, end: { line: 1, character: 8 } }, text: 'TWO' }]);
    expect(sync.heard[1]?.edit).toEqual({ before: 'line one\nline two\nline three\n', steps: [{ start: 14, end: 17, text: 'TWO' }], after: 'line one\nline TWO\nline three\n' });
    // One edit's changes, last first (as editors send them): every range reads the same on the text before.
    sync.change([
      { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 4 } }, text: 'LINE' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// head\n' },
    ]);
    const edit = sync.heard[2]?.edit;
    expect(edit?.steps).toEqual([
      { start: 18, end: 22, text: 'LINE' },
      { start: 0, end: 0, text: '// head\n' },
    ]);
    expect(edit && applySteps(edit.before, edit.steps ?? [])).toBe(edit?.after);
    expect(edit?.after).toBe('// head\nline one\nline TWO\nLINE three\n');
  });

  it('says where changes sent first first were, each on the text the ones before it left, as keys typed between two notifications', () => {
    const sync = documentsWithSync();
    sync.open('abc\ndef\n');
    sync.change([
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: 'A' },
      { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: 'D' },
    ]);
    // `ret` typed a key at a time on the second line, then the first key of the first line taken out.
    sync.change([
      { range: { start: { line: 1, character: 3 }, end: { line: 1, character: 3 } }, text: 'r' },
      { range: { start: { line: 1, character: 4 }, end: { line: 1, character: 4 } }, text: 'e' },
      { range: { start: { line: 1, character: 5 }, end: { line: 1, character: 5 } }, text: 't' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: '' },
    ]);
    const [first, second] = sync.heard.slice(1).map((h) => h.edit);
    expect(first).toEqual({ before: 'abc\ndef\n', steps: [{ start: 0, end: 1, text: 'A' }, { start: 4, end: 5, text: 'D' }], after: 'Abc\nDef\n' });
    expect(second?.steps).toEqual([
      { start: 7, end: 7, text: 'r' },
      { start: 8, end: 8, text: 'e' },
      { start: 9, end: 9, text: 't' },
      { start: 0, end: 1, text: '' },
    ]);
    for (const edit of [first, second]) expect(edit && applySteps(edit.before, edit.steps ?? [])).toBe(edit?.after);
    expect(second?.after).toBe('bc\nDefret\n');
  });

  it('says only the text before, not where, for a whole text or a reversed range', () => {
    const sync = documentsWithSync();
    sync.open('abc\ndef\n');
    sync.change([{ text: 'whole\n' }]);
    sync.change([{ range: { start: { line: 0, character: 3 }, end: { line: 0, character: 1 } }, text: '' }]);
    expect(sync.heard.slice(1)).toEqual([
      { uri: 'file:///w/a.ts', edit: { before: 'abc\ndef\n', after: 'whole\n' } },
      { uri: 'file:///w/a.ts', edit: { before: 'whole\n', after: 'wle\n' } },
    ]);
    // The library reads a reversed range the right way round.
    expect(sync.documents.get('file:///w/a.ts')?.text).toBe('wle\n');
  });
});
