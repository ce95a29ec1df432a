// The editor's open documents (incremental sync, UTF-16 positions) as a DocumentSource, falling back to the disk.
import fs from 'node:fs';
import { TextDocuments } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { languageIdForPath, uriToPath } from '../workspace/documentSnapshot.js';

const MAX_DISK_BYTES = 5_000_000;

export class LspDocuments implements DocumentSource {
  private readonly documents = new TextDocuments(TextDocument);

  listen(connection: Connection): void {
    this.documents.listen(connection);
  }

  /** The open document, or the file on disk (version null) when the editor does not have it open. */
  get(uri: string): DocumentSnapshot | undefined {
    const open = this.documents.get(uri);
    const fsPath = uriToPath(uri);
    if (open) return { uri, fsPath, languageId: open.languageId, version: open.version, text: open.getText() };
    if (!fsPath) return undefined;
    try {
      const stat = fs.statSync(fsPath);
      if (!stat.isFile() || stat.size > MAX_DISK_BYTES) return undefined;
      return { uri, fsPath, languageId: languageIdForPath(fsPath), version: null, text: fs.readFileSync(fsPath, 'utf8') };
    } catch {
      return undefined;
    }
  }

  /** Calls `listener` with the URI of every document opened or changed in the editor. */
  onDidChange(listener: (uri: string) => void): void {
    this.documents.onDidChangeContent((event) => listener(event.document.uri));
  }

  onDidClose(listener: (uri: string) => void): void {
    this.documents.onDidClose((event) => listener(event.document.uri));
  }

  openUris(): string[] {
    return this.documents.keys();
  }

  /** Whether the editor has the document open (edits to it must carry its version). */
  isOpen(uri: string): boolean {
    return this.documents.get(uri) !== undefined;
  }
}
