// The editor's open documents (incremental sync, UTF-16 positions) as a DocumentSource: the overlays the core's workspace puts over the disk.
import { TextDocuments } from 'vscode-languageserver/node';
import type { Connection, DidChangeTextDocumentParams, DidOpenTextDocumentParams, Position } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { isRange } from '../edits/textEdits.js';
import type { TextEditStep } from '../repo/declarations.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

type TextDocumentConnection = Parameters<TextDocuments<TextDocument>['listen']>[0];

/** Whether position `a` comes after `b`. */
function isAfter(a: Position, b: Position): boolean {
  return a.line > b.line || (a.line === b.line && a.character > b.character);
}

function hasUri(params: unknown): boolean {
  const document = (params as { textDocument?: { uri?: unknown } } | null | undefined)?.textDocument;
  return typeof document?.uri === 'string';
}

function validOpen(params: DidOpenTextDocumentParams | null | undefined): boolean {
  const document = params?.textDocument;
  return hasUri(params) && typeof document?.languageId === 'string' && Number.isInteger(document.version) && typeof document.text === 'string';
}

function validChange(params: DidChangeTextDocumentParams | null | undefined): boolean {
  return (
    hasUri(params) &&
    Number.isInteger(params?.textDocument.version) &&
    Array.isArray(params?.contentChanges) &&
    params.contentChanges.every((change: unknown) => {
      const c = change as { text?: unknown; range?: unknown } | null;
      return typeof c?.text === 'string' && (c.range === undefined || isRange(c.range));
    })
  );
}

/**
 * What one `didChange` did to a document: `steps`, in order, each on the text the ones before it left (as the
 * protocol has it), took `before` to the text it has now; without them (a whole-text change, or a reversed range),
 * only the text before is known.
 */
export interface DocumentEdit {
  before: string;
  steps?: TextEditStep[];
}

export class LspDocuments implements DocumentSource {
  private readonly documents = new TextDocuments(TextDocument);
  /** The change being applied, while the library applies it (its content event comes from inside). */
  private changing: ({ uri: string } & Partial<DocumentEdit>) | undefined;

  /**
   * The offsets of a notification's ranged changes, each on the text the ones before it left: editors send the
   * changes of one edit last first (each then reads the same on the text before), and the keys typed between two
   * notifications first first. A whole-text change or a reversed range says nothing about where it changed.
   */
  private editOf(params: DidChangeTextDocumentParams): Partial<DocumentEdit> {
    const document = this.documents.get(params.textDocument.uri);
    if (!document) return {};
    const before = document.getText();
    const changes = params.contentChanges;
    if (changes.length === 0) return { before };
    const steps: TextEditStep[] = [];
    // The text after the changes so far: the document itself while they all read the same on it (the library changes
    // the document only after this), else a copy brought through them.
    let current: TextDocument = document;
    for (const [index, change] of changes.entries()) {
      if (!('range' in change) || !change.range) return { before };
      const start = current.offsetAt(change.range.start);
      const end = current.offsetAt(change.range.end);
      if (end < start) return { before };
      steps.push({ start, end, text: change.text });
      const next = changes[index + 1];
      if (next && 'range' in next && next.range && current === document && !isAfter(next.range.end, change.range.start)) continue;
      if (!next) break;
      // The changes so far, on a copy (`update` changes the document it is given).
      current = current === document ? TextDocument.update(TextDocument.create(document.uri, document.languageId, 0, before), changes.slice(0, index + 1), 1) : TextDocument.update(current, [change], current.version + 1);
    }
    return { before, steps };
  }

  /**
   * Listens to document sync, dropping notifications that do not have the protocol's shape (a document with no
   * string uri or text, a change with a broken range): the rest of the server can then trust every open document.
   */
  listen(connection: Connection): void {
    const onlyIf =
      <P, R>(valid: (params: P) => boolean, method: string, handler: (params: P) => R) =>
      (params: P): R | undefined => {
        if (valid(params)) return handler(params);
        connection.console.log(`${method}: ignored a notification whose parameters do not have the protocol's shape`);
        return undefined;
      };
    const filtered: TextDocumentConnection = {
      onDidOpenTextDocument: (handler) => connection.onDidOpenTextDocument(onlyIf(validOpen, 'textDocument/didOpen', handler)),
      onDidChangeTextDocument: (handler) =>
        connection.onDidChangeTextDocument(
          onlyIf(validChange, 'textDocument/didChange', (params) => {
            // `validChange` let it through: it has the protocol's shape.
            const checked = params as DidChangeTextDocumentParams;
            this.changing = { uri: checked.textDocument.uri, ...this.editOf(checked) };
            try {
              return handler(checked);
            } finally {
              this.changing = undefined;
            }
          }),
        ),
      onDidCloseTextDocument: (handler) => connection.onDidCloseTextDocument(onlyIf(hasUri, 'textDocument/didClose', handler)),
      onWillSaveTextDocument: (handler) => connection.onWillSaveTextDocument(onlyIf(hasUri, 'textDocument/willSave', handler)),
      onWillSaveTextDocumentWaitUntil: (handler) => connection.onWillSaveTextDocumentWaitUntil((params, token) => (hasUri(params) ? handler(params, token) : [])),
      onDidSaveTextDocument: (handler) => connection.onDidSaveTextDocument(onlyIf(hasUri, 'textDocument/didSave', handler)),
    };
    this.documents.listen(filtered);
  }

  /** The open document; undefined when the editor does not have it open (the core's workspace reads the disk). */
  get(uri: string): DocumentSnapshot | undefined {
    // Clients send URIs inside arbitrary JSON: anything but a string names no document.
    if (typeof uri !== 'string') return undefined;
    const open = this.documents.get(uri);
    return open ? { uri, fsPath: uriToPath(uri), languageId: open.languageId, version: open.version, text: open.getText() } : undefined;
  }

  /**
   * Calls `listener` with the URI of every document opened or changed in the editor, and for a change, the text before
   * it and where it changed when that is known (see `editOf`).
   */
  onDidChange(listener: (uri: string, edit?: DocumentEdit & { after: string }) => void): void {
    this.documents.onDidChangeContent((event) => {
      const uri = event.document.uri;
      const changing = this.changing?.uri === uri ? this.changing : undefined;
      listener(uri, changing?.before !== undefined ? { before: changing.before, ...(changing.steps ? { steps: changing.steps } : {}), after: event.document.getText() } : undefined);
    });
  }

  /** Calls `listener` with the URI of every document the editor opens. */
  onDidOpen(listener: (uri: string) => void): void {
    this.documents.onDidOpen((event) => listener(event.document.uri));
  }

  /** Calls `listener` with the URI of every document the editor saves. */
  onDidSave(listener: (uri: string) => void): void {
    this.documents.onDidSave((event) => listener(event.document.uri));
  }

  /** Calls `listener` with every document the editor closes, as it was last (its URI and language). */
  onDidClose(listener: (document: { uri: string; languageId: string }) => void): void {
    this.documents.onDidClose((event) => listener({ uri: event.document.uri, languageId: event.document.languageId }));
  }

  openUris(): string[] {
    return this.documents.keys();
  }

  /** Whether the editor has the document open (edits to it must carry its version). */
  isOpen(uri: string): boolean {
    return typeof uri === 'string' && this.documents.get(uri) !== undefined;
  }
}
