// The one owner of a workspace folder's state: its files, the editor's texts over the disk's, its projects and index, and when each goes stale.
import path from 'node:path';
import type { DocumentSnapshot, DocumentSource } from './documentSnapshot.js';
import { languageIdForPath, pathToUri, resolvePath, syntaxFileName, uriToPath } from './documentSnapshot.js';
import { DiskTexts } from './diskTexts.js';
import { WorkspaceFiles } from './workspaceFiles.js';
import type { FileEvent } from './workspaceFiles.js';
import { WorkspaceProjects } from './workspaceProject.js';
import { WorkspaceExclusion } from '../privacy/exclusion.js';
import { WorkspaceSecrets } from '../privacy/workspaceSecrets.js';
import { WorkspaceEslint } from './workspaceEslint.js';
import { forgetSyntaxTrees, noteTextEdits } from '../repo/declarations.js';
import type { TextEditStep } from '../repo/declarations.js';
import { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { savedIndexFile } from '../repo/lexical/savedIndex.js';
import { TestConventions } from '../repo/testFramework.js';
import type { TestConvention } from '../repo/testFramework.js';

/** Largest file read from the disk as a document (a bundle or a data file past it is no document anyone edits). */
const MAX_DISK_DOCUMENT_BYTES = 5_000_000;

/** What the editor said changed in a document: `steps`, in order, took `before` to `after`. */
export interface DocumentEdit {
  before: string;
  steps?: TextEditStep[];
  after: string;
}

/** How a workspace is made: the editor's buffers over it. */
export interface WorkspaceOptions {
  /** The editor's open documents (the overlays); a workspace nobody edits (an evaluation's copy) has none. */
  overlays?: DocumentSource;
  /**
   * Whether the index is kept in the user's cache folder for the next process (the default); an evaluation's
   * throwaway copies would crowd the user's workspaces out of it.
   */
  saveIndex?: boolean;
}

/** No open documents. */
const NO_OVERLAYS: DocumentSource = { get: () => undefined, openUris: () => [] };

/**
 * One workspace folder as every feature sees it, in the manner of a gopls view: the one listing of its files under
 * the one exclusion rule (`files`, `exclusion`), documents as the editor has them over the files on disk
 * (`documents`), the TypeScript projects of its tsconfigs (`projects`), its lexical index (`index`), and the entry
 * points through which the editor's notifications make each of them stale. Features are handed it (the task
 * environment carries it); none keeps its own copy of this state or its own walk of the disk.
 */
export class Workspace {
  readonly root: string;
  /** The ignore rules (`.gitignore`, `.assistantignore`, `.git/info/exclude`), read again when they change. */
  readonly exclusion: WorkspaceExclusion;
  /** The one listing of the workspace's files: one walk, one rule, one pair of limits. */
  readonly files: WorkspaceFiles;
  /** The ts-morph projects, one per tsconfig that governs a file asked about. */
  readonly projects: WorkspaceProjects;
  /** The editor's open documents, else the file on disk (version null). */
  readonly documents: DocumentSource;
  /** Texts read from the disk, kept while each file's stamp holds; file events and saves drop them. */
  readonly disk = new DiskTexts();
  /** The values kept from models wherever they turn up (`.env` values, literals of ignored files a document imports). */
  readonly secrets: WorkspaceSecrets;
  /** The project's own ESLint, loaded once per configuration. */
  readonly eslint: WorkspaceEslint;
  private readonly overlays: DocumentSource;
  private readonly conventions: TestConventions;
  private readonly saveIndex: boolean;
  private lexicalIndex: LexicalIndex | undefined;

  constructor(root: string, options: WorkspaceOptions = {}) {
    this.root = resolvePath(root);
    this.overlays = options.overlays ?? NO_OVERLAYS;
    this.saveIndex = options.saveIndex ?? true;
    this.exclusion = new WorkspaceExclusion(this.root);
    this.files = new WorkspaceFiles(this.root, { exclusion: this.exclusion });
    this.projects = new WorkspaceProjects(this.root, this.files);
    this.documents = { get: (uri) => this.document(uri), openUris: () => this.overlays.openUris() };
    this.conventions = new TestConventions(this.files);
    this.secrets = new WorkspaceSecrets(this);
    this.eslint = new WorkspaceEslint(this.root);
  }

  /** The lexical index of the workspace's source files, built on its first search and kept current after. */
  get index(): LexicalIndex {
    this.lexicalIndex ??= new LexicalIndex(this.root, {}, { files: this.files, ...(this.saveIndex ? { cacheFile: savedIndexFile(this.root) } : {}) });
    return this.lexicalIndex;
  }

  /** A file's text as the editor has it, else as the disk has it; undefined when it cannot be read. */
  text(fsPath: string): string | undefined {
    const open = this.overlays.get(pathToUri(fsPath));
    return open ? open.text : this.disk.text(fsPath, MAX_DISK_DOCUMENT_BYTES);
  }

  /** How the package holding a file tests its code (framework, test-file placement, import style), from the listing. */
  testConvention(fsPath: string): TestConvention {
    return this.conventions.of(fsPath);
  }

  /** Whether a path lies inside the workspace folder. */
  contains(fsPath: string): boolean {
    const relative = path.relative(this.root, resolvePath(fsPath));
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  }

  /** A document as the editor has it, else as the disk has it; undefined for a URI that names no readable file. */
  private document(uri: string): DocumentSnapshot | undefined {
    if (typeof uri !== 'string') return undefined;
    const open = this.overlays.get(uri);
    if (open) return open;
    const fsPath = uriToPath(uri);
    if (!fsPath) return undefined;
    const text = this.disk.text(fsPath, MAX_DISK_DOCUMENT_BYTES);
    return text === undefined ? undefined : { uri, fsPath, languageId: languageIdForPath(fsPath), version: null, text };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Invalidation: the editor's notifications, each dropping what it makes stale.

  /** A document opened: a file the listing does not hold yet makes it walk again. */
  documentOpened(uri: string): void {
    this.documentSeen(uri);
  }

  /** A document changed in the editor: the tree of edits of its file hears where (`edit`, when the editor said it). */
  documentChanged(uri: string, edit?: DocumentEdit): void {
    if (!edit?.steps) return;
    const document = this.overlays.get(uri);
    if (document) noteTextEdits(syntaxFileName(document), edit.before, edit.steps, edit.after);
  }

  /** A document saved: what was kept of its disk text goes, and a file the listing does not hold yet makes it walk again. */
  documentSaved(uri: string): void {
    const fsPath = uriToPath(uri);
    if (fsPath) this.forgetDisk([{ fsPath, type: 'changed' }]);
    this.documentSeen(uri);
  }

  /** A document closed: what was kept of its versions goes, and its next text, in the projects too, is the disk's. */
  documentClosed(uri: string, languageId: string): void {
    const fsPath = uriToPath(uri);
    forgetSyntaxTrees(syntaxFileName({ uri, fsPath, languageId }), fsPath === undefined);
    if (fsPath) this.projects.documentClosed(fsPath);
  }

  /**
   * Files came, changed or went on disk (the editor's file watcher): the listing walks again when it must, and the
   * projects read again the files they read from the disk.
   */
  filesChanged(events: readonly FileEvent[]): void {
    this.files.filesChanged(events);
    this.projects.filesChanged(events);
    this.forgetDisk(events);
  }

  /** The editor watches the workspace's files for the server: the listing trusts its events. */
  watching(): void {
    this.files.setWatched(true);
  }

  /** Saves what is kept between processes (the index), when it changed. */
  async close(): Promise<void> {
    await this.lexicalIndex?.saveNow();
  }

  /** What was kept of files' disk texts, and what was read from them, goes (their stamps are checked anyway, but an event is surer). */
  private forgetDisk(events: readonly FileEvent[]): void {
    for (const event of events) this.disk.forget(event.fsPath);
    this.secrets.filesChanged(events);
    this.eslint.filesChanged(events);
  }

  private documentSeen(uri: string): void {
    const fsPath = uriToPath(uri);
    if (fsPath) this.files.documentSeen(fsPath);
  }
}
