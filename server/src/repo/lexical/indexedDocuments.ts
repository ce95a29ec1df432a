// What the lexical index holds of each file, and of each document in it.
import type { DocumentDraft, LocationKind, StatementMemo } from './documentExtraction.js';

export interface IndexedDocument {
  id: number;
  file: string;
  kind: LocationKind;
  name: string;
  startLine: number;
  endLine: number;
  commentLine: number;
  /** The declaration up to its body, on one line: what the repository tools print. */
  signature: string;
  /** An open document's documents keep the fields they were made of: its next version keeps those it did not change. */
  fields?: DocumentDraft['fields'];
  /** Term ids, ascending, for binary search. */
  terms: Uint32Array;
  /** FIELD_COUNT counts per term (`bm25f.ts`). */
  counts: Uint16Array;
  lengths: Uint16Array;
  /** The callee the declaration hands all its work to, or the declaration a test's title describes (`DocumentDraft.delegate`). */
  delegate?: string;
}

export interface IndexedFile {
  relativePath: string;
  fsPath: string;
  mtimeMs: number;
  size: number;
  /**
   * The rest of the stamp the saved index checks (status-change time and inode), when the text was read from disk once
   * the file's times had settled (see `fileTimes.ts`); a file read sooner after its last change is not saved.
   */
  savedStamp?: string;
  /** The editor's text, when an open document was given; it wins over the disk until the file changes on disk. */
  overlay?: string;
  documents: IndexedDocument[];
  /** The relative modules the file imports or re-exports (`./x.js`), for the import graph (`fileReach.ts`). */
  imports: string[];
  /**
   * An open document's documents by their body: its next version keeps every document whose kind, name and fields it
   * did not change, as it is, with its lines updated, instead of tokenising the whole file again. The statements it
   * did not change give the very same field strings, so the lookup compares them by identity.
   */
  byBody?: Map<string, IndexedDocument[]>;
  /** An open document's top-level statements as last read, for its next version to take those it did not change. */
  statements?: StatementMemo;
  /** An open document's line starts (`lineStartsOf`), for its next version to move rather than find again. */
  starts?: number[];
}
