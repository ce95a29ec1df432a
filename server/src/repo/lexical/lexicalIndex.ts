// A lexical retrieval index over a workspace's declarations and comments (BM25F with field boosts), kept current with the disk and the editor's open documents.
import fs from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import type { WorkspaceExclusion } from '../../privacy/exclusion.js';
import { PRIVATE_KEY_HEADER, redactSecrets } from '../../privacy/secrets.js';
import { isUnsettled } from '../../workspace/fileTimes.js';
import { MAX_WORKSPACE_FILE_BYTES, untilAborted, WorkspaceFiles } from '../../workspace/workspaceFiles.js';
import type { FileStamp } from '../../workspace/workspaceFiles.js';
import type { ChangedSpan } from '../../edits/textEdits.js';
import { withSyntaxTree } from '../declarations.js';
import { TermStatistics } from './bm25f.js';
import { terms } from './terms.js';
import { extractDocumentsReusing, extractFile } from './documentExtraction.js';
import { FileReach, TEST_PATH } from './fileReach.js';
import type { DocumentDraft, LocationKind, StatementMemo } from './documentExtraction.js';
import { WALK_SLICE_MS, yieldToEventLoop } from './eventLoop.js';
import type { IndexedDocument, IndexedFile } from './indexedDocuments.js';
import { lineOf, lineStartsOf, movedLineStarts } from './lineStarts.js';
import { SavedIndex, savedDocuments, savedStampOf, savedTerms } from './savedIndex.js';

/** One ranked code location. Lines are 1-based and inclusive, as people write `path:line`. */
export interface CodeLocation {
  /** Workspace-relative path with `/` separators. */
  path: string;
  /** Absolute file-system path. */
  fsPath: string;
  /** First line of the declaration itself (not of its doc comment). */
  startLine: number;
  endLine: number;
  /** First line of the declaration's leading comment, or `startLine` when it has none. */
  commentLine: number;
  kind: LocationKind;
  /** Display name: `withRetry`, `HttpClient.getJson`, or the first words of a comment. */
  name: string;
  score: number;
  /** The first lines of the declaration, de-indented, with secret-looking values redacted. */
  snippet: string;
  /** The (normalised) query terms this location matched. */
  matched: string[];
}

/** A declaration as the index knows it, located by 1-based inclusive lines. */
export interface IndexedDeclaration {
  path: string;
  fsPath: string;
  kind: LocationKind;
  name: string;
  startLine: number;
  endLine: number;
  /** The declaration up to its body, on one line. */
  signature: string;
}

export interface SearchOptions {
  /** Most locations returned (default 10). */
  limit?: number;
  /** Most locations from one file, so one big file does not crowd out the rest (default: no limit). */
  maxPerFile?: number;
  /** Lines of code in each snippet (default 8). */
  snippetLines?: number;
  /** Check the files for changes first (default true); false answers from the index as it is. */
  refresh?: boolean;
  /** The open document's file: the code it imports, directly or not, weighs as the package's main code does. */
  near?: string;
}

/** How much the index holds; which files, and how many at most, is the workspace's listing's to say (`workspaceFiles`). */
export interface IndexLimits {
  /** Most documents over the whole index; files beyond it are left out. */
  maxDocuments: number;
  /** Most distinct terms kept per document (the rarest body terms go first). */
  maxTermsPerDocument: number;
  /** A walk within this many milliseconds of the last one is skipped; the listing is checked for new files as often. */
  refreshIntervalMs: number;
  /** Most open-document texts held in memory. */
  maxOverlays: number;
}

export const DEFAULT_LIMITS: IndexLimits = {
  maxDocuments: 80_000,
  maxTermsPerDocument: 256,
  refreshIntervalMs: 1_000,
  maxOverlays: 64,
};

/** A signature field (its white space already one space each) without the `{` or `=` that opens the body. */
function signatureOf(field: string): string {
  let start = 0;
  let end = field.length;
  while (end > 0 && field.charCodeAt(end - 1) === 32) end--;
  const last = field.charCodeAt(end - 1);
  if (last === 123 || last === 61) end--; // `{` or `=`
  while (end > 0 && field.charCodeAt(end - 1) === 32) end--;
  while (start < end && field.charCodeAt(start) === 32) start++;
  return field.slice(start, end);
}

/**
 * The lexical index of one workspace folder. Built on the first search, then kept fresh: each search re-checks
 * the files' mtimes and sizes (at most once per `refreshIntervalMs`) and re-reads only those that changed;
 * an open document's text can be given with `updateDocument` and wins until the file changes on disk.
 */
export class LexicalIndex {
  readonly limits: IndexLimits;
  private readonly files = new Map<string, IndexedFile>();
  /** Declarations by simple name (the last segment of `Config.load`, case aside): a lookup by name reads one bucket. */
  private readonly byName = new Map<string, IndexedDocument[]>();
  /** The vocabulary and the counts BM25F ranks by. */
  private readonly statistics: TermStatistics;
  private nextDocumentId = 0;
  private readonly exclusion: WorkspaceExclusion;
  /** The workspace's listing: which files are indexed. */
  private readonly listing: WorkspaceFiles;
  private lastWalk = 0;
  /** The listing's walk the last walk of the index followed. */
  private listedAt = 0;
  private walking: Promise<void> | undefined;
  private truncated = false;
  /** What the index read, kept for the next process on this workspace (`savedIndex.ts`), when it has a cache file. */
  private readonly savedIndex: SavedIndex;
  /** Files the last walk took from the saved index, without reading or parsing them. */
  private fromCache = 0;
  /** The import graph's weights of the files, made on the first search after a file's imports or the manifest changed. */
  private reach: { weights: FileReach; manifest: string } | undefined;

  constructor(
    readonly root: string,
    limits: Partial<IndexLimits> = {},
    options: { cacheFile?: string; files?: WorkspaceFiles } = {},
  ) {
    this.root = path.resolve(root);
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.listing = options.files ?? new WorkspaceFiles(this.root);
    this.exclusion = this.listing.exclusion;
    this.statistics = new TermStatistics(this.limits.maxTermsPerDocument);
    this.savedIndex = new SavedIndex(options.cacheFile, this.limits.maxTermsPerDocument, { files: this.files, statistics: this.statistics });
  }

  /** Files, documents and terms held, whether a limit left files out, and the files the last walk took from the cache. */
  stats(): { files: number; documents: number; terms: number; truncated: boolean; fromCache: number } {
    return { files: this.files.size, documents: this.statistics.documents, terms: this.statistics.size, truncated: this.truncated, fromCache: this.fromCache };
  }

  /**
   * The workspace-relative path of a file the listing's rule admits (`unlistedReason`), or undefined when it is
   * outside the root, ignored, secret, built, vendored, reached through a symlink out of the workspace, or not source.
   */
  relativePath(fsPath: string): string | undefined {
    const view = this.exclusion.view();
    const relative = view.relative(fsPath);
    if (relative === undefined || /\.d\.[cm]?ts$/i.test(relative) || this.listing.unlisted(fsPath) !== undefined) return undefined;
    return relative;
  }

  /**
   * Indexes an open document's text in place of the disk's (unsaved edits count). Returns false when the file is
   * not indexable (outside the workspace, ignored, a secret, not source).
   */
  updateDocument(fsPath: string, text: string): boolean {
    const relative = this.relativePath(fsPath);
    if (!relative) return false;
    const existing = this.files.get(relative);
    if (existing?.overlay === text) return true;
    let mtimeMs = -1;
    let size = -1;
    try {
      const stat = fs.statSync(path.join(this.root, relative));
      mtimeMs = stat.mtimeMs;
      size = stat.size;
    } catch {
      // An unsaved new file: indexed from the editor's text alone.
    }
    const overlays = [...this.files.values()].filter((f) => f.overlay !== undefined && f.relativePath !== relative);
    if (overlays.length >= this.limits.maxOverlays) {
      const oldest = overlays[0] as IndexedFile;
      this.removeFile(oldest.relativePath);
    }
    this.indexFile(relative, text, mtimeMs, size, text, fsPath);
    return true;
  }

  /** The words of a text as a question's are searched for (stop words and question wording left out), each once. */
  queryWords(text: string): string[] {
    return [...new Set(terms(text, 'query'))];
  }

  /** The words of a text that the indexed code uses (in a name, a comment or a body), as the index normalises them. */
  usedWords(text: string): string[] {
    return [...new Set(terms(text, 'query'))].filter((term) => this.statistics.documentFrequency(term) > 0);
  }

  /** Whether a walk of the workspace has finished (before that, the index holds at most the documents given to it). */
  walked(): boolean {
    return this.lastWalk > 0;
  }

  /** Forgets an open document's text; the disk's is read again on the next refresh. */
  closeDocument(fsPath: string): void {
    const relative = this.relativePath(fsPath);
    const file = relative ? this.files.get(relative) : undefined;
    if (file?.overlay !== undefined) {
      file.overlay = undefined;
      file.byBody = undefined;
      file.statements = undefined;
      file.starts = undefined;
      file.mtimeMs = -1;
    }
  }

  /** Brings the index up to date with the disk; concurrent callers share one walk. */
  refresh(signal?: AbortSignal): Promise<void> {
    if (!this.walking) {
      this.walking = this.walk().finally(() => {
        this.walking = undefined;
      });
    }
    return untilAborted(this.walking, signal);
  }

  /**
   * Brings the index up to date when it was never walked, its last walk is older than the refresh interval, or the
   * listing changed since (a file event the editor reported).
   */
  async current(signal?: AbortSignal): Promise<void> {
    if (this.lastWalk === 0 || Date.now() - this.lastWalk >= this.limits.refreshIntervalMs || this.listing.changedSince(this.listedAt)) await this.refresh(signal);
    signal?.throwIfAborted();
  }

  /** The best locations for a question or a list of keywords, best first. */
  async search(query: string, options: SearchOptions = {}, signal?: AbortSignal): Promise<CodeLocation[]> {
    if (options.refresh !== false) await this.current(signal);
    signal?.throwIfAborted();
    return this.lookup(query, options);
  }

  /** Like `search`, but synchronous and from the index as it stands (empty before the first refresh). */
  lookup(query: string, options: Omit<SearchOptions, 'refresh'> = {}): CodeLocation[] {
    return this.rank(query, options);
  }

  private async walk(): Promise<void> {
    this.compactVocabulary();
    await this.savedIndex.read();
    this.fromCache = 0;
    // An index's first walk checks the listing's stamps whatever their age: it reads every file anyway.
    const asked = Date.now();
    const listing = await this.listing.listAsync('source', undefined, this.lastWalk === 0 ? 0 : this.limits.refreshIntervalMs);
    this.listedAt = listing.walkedAt;
    // A listing walked just now stat'ed every file: its stamps stand for a stat of each (a change since is seen next time).
    const fresh = listing.walkedAt >= asked;
    const ignore = this.exclusion.view();
    const seen = new Set<string>();
    this.truncated = listing.truncated;
    // A walk that finds nothing changed still stats every file: it hands the event loop back every few milliseconds
    // so requests arriving meanwhile (a code-action list, a task) are not held up behind it.
    let slice = performance.now();
    for (const file of listing.files) {
      if (this.refreshFile(file.relative, fresh ? file.stamp : undefined) !== 'gone') seen.add(file.relative);
      if (performance.now() - slice >= WALK_SLICE_MS) {
        await yieldToEventLoop();
        slice = performance.now();
      }
    }
    // Deleted files, newly ignored files, and files past the limit leave the index; unsaved new documents stay.
    for (const [relative, file] of this.files) {
      if (!seen.has(relative) && !(file.overlay !== undefined && file.mtimeMs === -1 && !ignore.ignores(relative))) this.removeFile(relative);
    }
    this.savedIndex.walked();
    this.lastWalk = Date.now();
  }

  /** Re-reads one file when its mtime or size changed; true when it did work, `gone` when the file is no longer there. */
  private refreshFile(relative: string, listed?: FileStamp): boolean | 'gone' {
    const fsPath = path.join(this.root, relative);
    let stat: FileStamp;
    try {
      stat = listed ?? fs.statSync(fsPath);
    } catch {
      // Deleted since the listing was made (it is walked again on the next file event or stamp check).
      return 'gone';
    }
    const existing = this.files.get(relative);
    if (existing && existing.mtimeMs === stat.mtimeMs && existing.size === stat.size) return false;
    const saved = this.savedIndex.take(relative);
    if (saved !== undefined && !existing && this.takeSaved(relative, saved, stat)) return true;
    this.savedIndex.changed();
    const settled = !isUnsettled(stat, Date.now());
    if (stat.size > MAX_WORKSPACE_FILE_BYTES) {
      this.removeFile(relative);
      return false;
    }
    let text: string;
    try {
      text = fs.readFileSync(fsPath, 'utf8');
    } catch {
      return false;
    }
    // Minified bundles and files with private keys are not code anyone asks about.
    const lines = text.split('\n').length;
    if ((text.length > 20_000 && text.length / lines > 300) || PRIVATE_KEY_HEADER.test(text)) {
      this.removeFile(relative);
      return true;
    }
    this.indexFile(relative, text, stat.mtimeMs, stat.size, undefined);
    const file = this.files.get(relative);
    if (file && settled) file.savedStamp = savedStampOf(stat);
    return true;
  }

  /** The vocabulary starts over when most of it is dead (`TermStatistics.reset`), and the index with it. */
  private compactVocabulary(): void {
    if (!this.statistics.reset()) return;
    this.files.clear();
    this.byName.clear();
  }

  /**
   * `syntaxName`: an open document's file name, whose text the code-action path has parsed already (a task right after
   * the user typed would otherwise parse the whole file again here); its tree is borrowed for the extraction only.
   */
  private indexFile(relative: string, text: string, mtimeMs: number, size: number, overlay: string | undefined, syntaxName?: string): void {
    const previous = this.files.get(relative);
    const earlier = overlay !== undefined ? previous : undefined;
    // An open document changes a statement or two between tasks: its extraction takes the others from the last one.
    const read = (source?: ts.SourceFile): { drafts: DocumentDraft[]; imports: string[]; memo?: StatementMemo; span?: ChangedSpan } =>
      overlay === undefined ? extractFile(relative, text, source) : extractDocumentsReusing(relative, text, source, earlier?.statements);
    let drafts: DocumentDraft[];
    let imports: string[];
    let statements: StatementMemo | undefined;
    let span: ChangedSpan | undefined;
    try {
      ({ drafts, imports, memo: statements, span } = syntaxName === undefined ? read() : withSyntaxTree(syntaxName, text, read));
    } catch {
      drafts = [];
      imports = [];
    }
    // The weights follow the imports, and the names declared at the top level (which tell a copy of the main code).
    if (!previous || previous.imports.join('\n') !== imports.join('\n') || topLevelNames(previous.documents).join('\n') !== topLevelNames(drafts).join('\n')) this.reach = undefined;
    // The documents of the last version that this one has unchanged stay as they are, in the buckets and the counts.
    const kept = new Set<IndexedDocument>();
    const same = drafts.map((draft) => {
      const found = earlier?.byBody?.get(draft.fields[4])?.find((document) => !kept.has(document) && document.kind === draft.kind && document.name === draft.name && document.fields?.every((field, i) => field === draft.fields[i]));
      if (found) kept.add(found);
      return found;
    });
    if (previous) this.forget(previous.documents.filter((document) => !kept.has(document)));
    this.files.delete(relative);
    const byBody = overlay !== undefined ? new Map<string, IndexedDocument[]>() : undefined;
    // The line starts of the text the memo was made from, moved by what changed since, when there are both.
    const starts = span && earlier?.starts && earlier.statements?.text === earlier.overlay ? movedLineStarts(earlier.starts, span, text) : lineStartsOf(text);
    const file: IndexedFile = { relativePath: relative, fsPath: path.join(this.root, relative), mtimeMs, size, documents: [], imports, ...(overlay !== undefined ? { overlay, byBody, statements, starts } : {}) };
    drafts.forEach((draft, i) => {
      let document = same[i];
      if (document) {
        document.startLine = lineOf(starts, draft.start);
        document.endLine = lineOf(starts, Math.max(draft.start, draft.end - 1));
        document.commentLine = lineOf(starts, draft.commentStart);
        // Equal strings, from this version's extraction: what a document keeps keeps no older text alive (see PART_GENERATIONS in documentExtraction.ts).
        document.fields = draft.fields;
        document.name = draft.name;
        document.signature = signatureOf(draft.fields[1]);
        if (draft.delegate !== undefined) document.delegate = draft.delegate;
        else delete document.delegate;
      } else {
        if (this.statistics.documents >= this.limits.maxDocuments) {
          this.truncated = true;
          return;
        }
        document = this.toDocument(relative, draft, starts);
        if (byBody) document.fields = draft.fields;
        this.addToBucket(document);
      }
      file.documents.push(document);
      if (byBody) {
        const bucket = byBody.get(draft.fields[4]);
        if (bucket) bucket.push(document);
        else byBody.set(draft.fields[4], [document]);
      }
    });
    this.files.set(relative, file);
  }

  private toDocument(relative: string, draft: DocumentDraft, starts: readonly number[]): IndexedDocument {
    const { terms: termArray, counts: countArray, lengths } = this.statistics.termsOf(draft);
    this.statistics.count(termArray, lengths);
    return {
      id: this.nextDocumentId++,
      file: relative,
      kind: draft.kind,
      name: draft.name,
      startLine: lineOf(starts, draft.start),
      endLine: lineOf(starts, Math.max(draft.start, draft.end - 1)),
      commentLine: lineOf(starts, draft.commentStart),
      signature: signatureOf(draft.fields[1]),
      terms: termArray,
      counts: countArray,
      lengths,
      ...(draft.delegate !== undefined ? { delegate: draft.delegate } : {}),
    };
  }

  /** Puts a declaration in the bucket of its simple name (comments and a file's loose code have none). */
  private addToBucket(document: IndexedDocument): void {
    if (document.kind === 'comment' || document.kind === 'module') return;
    const simple = bucketOf(document.name);
    const bucket = this.byName.get(simple);
    if (bucket) bucket.push(document);
    else this.byName.set(simple, [document]);
  }

  /**
   * Installs a file's documents as the saved index has them, when it was saved at this very stamp; false
   * when the entry does not match or cannot be read (the file is then read and parsed as usual).
   */
  private takeSaved(relative: string, saved: string, stat: FileStamp): boolean {
    const found = savedDocuments(saved, stat);
    if (!found) return false;
    const { stamp, imports, rows } = found;
    if (this.statistics.documents + rows.length > this.limits.maxDocuments) return false;
    const file: IndexedFile = { relativePath: relative, fsPath: path.join(this.root, relative), mtimeMs: stat.mtimeMs, size: stat.size, savedStamp: stamp, documents: [], imports };
    this.reach = undefined;
    for (const row of rows) {
      const [kind, name, startLine, endLine, commentLine, signature, , , , delegate] = row;
      const { terms: termArray, counts: countArray, lengths } = savedTerms(row, this.statistics);
      this.statistics.count(termArray, lengths);
      const document: IndexedDocument = { id: this.nextDocumentId++, file: relative, kind, name, startLine, endLine, commentLine, signature, terms: termArray, counts: countArray, lengths, ...(delegate ? { delegate } : {}) };
      this.addToBucket(document);
      file.documents.push(document);
    }
    this.files.set(relative, file);
    this.fromCache++;
    return true;
  }

  /** Writes the saved index now if it is out of date (tests, and a server shutting down); resolves once written. */
  saveNow(): Promise<void> {
    return this.savedIndex.saveNow();
  }

  private removeFile(relative: string): void {
    const file = this.files.get(relative);
    if (!file) return;
    this.savedIndex.changed();
    this.forget(file.documents);
    this.files.delete(relative);
    this.reach = undefined;
  }

  /** Takes documents out of the counts and the name buckets. */
  private forget(documents: readonly IndexedDocument[]): void {
    this.statistics.uncount(documents);
    // Each bucket the documents are in is filtered once.
    const gone = new Set(documents);
    for (const simple of new Set(documents.filter((d) => d.kind !== 'comment' && d.kind !== 'module').map((d) => bucketOf(d.name)))) {
      const kept = (this.byName.get(simple) ?? []).filter((d) => !gone.has(d));
      if (kept.length > 0) this.byName.set(simple, kept);
      else this.byName.delete(simple);
    }
  }

  /** The words of a question that name a declaration of the index exactly as written (case included). */
  private namedIn(query: string): Set<string> {
    const named = new Set<string>();
    for (const [word] of query.matchAll(/[A-Za-z_$][\w$]*/g)) {
      if (word.length < 3 || named.has(word)) continue;
      if ((this.byName.get(word.toLowerCase()) ?? []).some((document) => simpleNameOf(document.name) === word)) named.add(word);
    }
    return named;
  }

  /**
   * The declaration a wrapper's callee (`document.delegate`, as written: `core.parse`, `this.load`, `Parser`) names,
   * among those its file reaches through its imports: the last segment that names one, top-level or a member of the
   * segment before it (`core.parse` is `parse`; `manager.batch`, where no `batch` is declared, is `manager`). A value
   * (class, function, constant) rather than a type of the same name; in the wrapper's own file first, then in the
   * file the import graph weighs most.
   */
  private delegateOf(document: IndexedDocument, reached: ReadonlySet<string>, weight: (file: string) => number): IndexedDocument | undefined {
    if (document.delegate === undefined) return undefined;
    const segments = document.delegate.split('.');
    const container = document.name.includes('.') ? document.name.slice(0, document.name.lastIndexOf('.')) : undefined;
    for (let i = segments.length - 1; i >= 0; i--) {
      const segment = segments[i] as string;
      const owner = i === 0 ? undefined : segments[i - 1] === 'this' ? container : segments[i - 1];
      if (owner === undefined && i > 0) continue;
      // A property (a field's declaration, `fetch!: Fetcher`) holds no code to hand work to.
      const candidates = (this.byName.get(segment.toLowerCase()) ?? []).filter(
        (other) => other !== document && other.kind !== 'property' && reached.has(other.file) && (other.name === segment || (owner !== undefined && other.name === `${owner}.${segment}`)) && (segments[i - 1] !== 'this' || other.file === document.file),
      );
      const best = candidates.sort((a, b) => rankOfCandidate(b, document.file, weight) - rankOfCandidate(a, document.file, weight))[0];
      if (best) return best;
    }
    return undefined;
  }

  /**
   * The declaration a test's title describes (`titleSubject`, kept as the comment's `delegate`): one the code, not a
   * test, declares under that name, case included; a value (class, function, constant) rather than a type, then in
   * the file the import graph weighs most. A test names what it exercises by the package's own names, which its
   * imports from the package (`zod/v4`) do not say where to find.
   */
  private describedOf(document: IndexedDocument, weight: (file: string) => number): IndexedDocument | undefined {
    if (document.kind !== 'comment' || document.delegate === undefined) return undefined;
    const name = document.delegate;
    const candidates = (this.byName.get(name.toLowerCase()) ?? []).filter((other) => simpleNameOf(other.name) === name && other.kind !== 'property' && !TEST_PATH.test(other.file));
    return candidates.sort((a, b) => rankOfCandidate(b, '', weight) - rankOfCandidate(a, '', weight) || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.startLine - b.startLine))[0];
  }

  /** The import graph's weights, made again when a file's imports, the package.json or the tsconfig.json changed. */
  private fileReach(): FileReach {
    const manifest = ['package.json', 'tsconfig.json']
      .map((name) => {
        try {
          const stat = fs.statSync(path.join(this.root, name));
          return `${stat.mtimeMs}:${stat.size}`;
        } catch {
          return '-';
        }
      })
      .join(',');
    if (this.reach?.manifest !== manifest) {
      const files = [...this.files.values()];
      const declared = new Map(files.map((file) => [file.relativePath, topLevelNames(file.documents)]));
      this.reach = { weights: new FileReach(this.root, new Map(files.map((file) => [file.relativePath, file.imports])), declared), manifest };
    }
    return this.reach.weights;
  }

  private rank(query: string, options: SearchOptions): CodeLocation[] {
    const reach = this.fileReach();
    const near = options.near !== undefined && this.files.has(options.near) ? reach.importedBy(options.near) : undefined;
    const reached = new Map<string, ReadonlySet<string>>();
    const reachedFrom = (file: string): ReadonlySet<string> => {
      let files = reached.get(file);
      if (!files) reached.set(file, (files = reach.importedBy(file)));
      return files;
    };
    const described = new Map<string, IndexedDocument | undefined>();
    const chosen = this.statistics.rank(
      query,
      this.files.values(),
      options.limit ?? 10,
      options.maxPerFile,
      (file) => reach.weight(file.relativePath, near),
      this.namedIn(query),
      (document) => this.delegateOf(document, reachedFrom(document.file), (file) => reach.weight(file)),
      (document) => {
        // Many titles name one declaration: it is looked for once per question.
        const name = document.delegate ?? '';
        if (!described.has(name)) described.set(name, this.describedOf(document, (file) => reach.weight(file)));
        return described.get(name);
      },
      (word) => this.byName.get(word.toLowerCase()) ?? [],
    );
    const texts = new Map<string, string | undefined>();
    return chosen.map(({ document, score, matched }) => {
      const file = this.files.get(document.file) as IndexedFile;
      if (!texts.has(document.file)) texts.set(document.file, this.textOf(file));
      return {
        path: document.file,
        fsPath: file.fsPath,
        startLine: document.startLine,
        endLine: document.endLine,
        commentLine: document.commentLine,
        kind: document.kind,
        name: document.name,
        score: Math.round(score * 1000) / 1000,
        snippet: snippetOf(texts.get(document.file), document.startLine, document.endLine, options.snippetLines ?? 8),
        matched,
      };
    });
  }

  private textOf(file: IndexedFile): string | undefined {
    if (file.overlay !== undefined) return file.overlay;
    try {
      return fs.readFileSync(file.fsPath, 'utf8');
    } catch {
      return undefined;
    }
  }

  /**
   * The indexed declarations whose display name (`load`, `Config.load`) passes `accept`: the one lookup by name, the
   * repository tools' and `findDeclarations`'. With `named`, only declarations whose simple name (the display name's
   * last segment) is `named`, case aside, are looked at (one bucket, not the whole index), ordered by path and line;
   * without it, every one in file order.
   */
  declarations(accept: (name: string, kind: LocationKind) => boolean, max = 200, named?: string): IndexedDeclaration[] {
    const found: IndexedDeclaration[] = [];
    const take = (file: IndexedFile, document: IndexedDocument): boolean => {
      if (document.kind === 'comment' || document.kind === 'module' || !accept(document.name, document.kind)) return false;
      found.push({ path: file.relativePath, fsPath: file.fsPath, kind: document.kind, name: document.name, startLine: document.startLine, endLine: document.endLine, signature: document.signature });
      return found.length >= max;
    };
    if (named !== undefined) {
      const bucket = [...(this.byName.get(named.toLowerCase()) ?? [])].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.startLine - b.startLine));
      for (const document of bucket) {
        const file = this.files.get(document.file);
        if (file && take(file, document)) break;
      }
      return found;
    }
    for (const file of this.files.values()) {
      for (const document of file.documents) {
        if (take(file, document)) return found;
      }
    }
    return found;
  }

  /** Whether a workspace-relative file is indexed (a source the listing shows: no built output, nothing excluded). */
  has(relative: string): boolean {
    return this.files.has(relative);
  }

  /** The indexed files `relative` imports, directly or not, itself included: where the names it uses are declared. */
  reachedFrom(relative: string): ReadonlySet<string> {
    return this.files.has(relative) ? this.fileReach().importedBy(relative) : new Set();
  }

  /** How much the import graph weighs an indexed file (the package's main code most, legacy and scripts least). */
  fileWeight(relative: string): number {
    return this.fileReach().weight(relative);
  }

  /** The indexed files, workspace-relative, in no particular order. */
  indexedFiles(): string[] {
    return [...this.files.keys()];
  }

  /** The current text of an indexed file (the editor's, when it gave one), unredacted: callers redact what they send. */
  fileText(relativePath: string): string | undefined {
    const file = this.files.get(relativePath);
    return file ? this.textOf(file) : undefined;
  }

  /**
   * The text of lines `from`..`to` (1-based, inclusive) of an indexed file, redacted, cut at `maxChars`:
   * for callers that need more than the snippet (a model's context).
   */
  excerpt(relativePath: string, from: number, to: number, maxChars = 4_000): string | undefined {
    const file = this.files.get(relativePath);
    const text = file ? this.textOf(file) : undefined;
    if (text === undefined) return undefined;
    const lines = text.split('\n').slice(Math.max(0, from - 1), Math.max(from, to));
    let out = redactSecrets(lines.join('\n'));
    if (out.length > maxChars) out = `${out.slice(0, maxChars)}\n…`;
    return out;
  }
}

/** The first `count` lines of a location, de-indented, long lines cut, with a marker when more follows. */
function snippetOf(text: string | undefined, startLine: number, endLine: number, count: number): string {
  if (text === undefined) return '';
  const lines = text.split('\n').slice(startLine - 1, Math.min(endLine, startLine - 1 + count));
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0));
  const body = lines.map((l) => {
    const line = l.slice(Number.isFinite(indent) ? indent : 0).replace(/\s+$/, '');
    return line.length > 160 ? `${line.slice(0, 157)}…` : line;
  });
  if (endLine - startLine + 1 > count) body.push('…');
  return redactSecrets(body.join('\n'));
}

/** Kinds a call or `new` can name: what holds code, rather than a type of the same name. */
const VALUE_KINDS: ReadonlySet<LocationKind> = new Set(['function', 'method', 'class', 'variable', 'namespace']);

/** How good a declaration is as the one a callee names: a value first, then its file the wrapper's own, then its file's weight. */
function rankOfCandidate(candidate: IndexedDocument, file: string, weight: (file: string) => number): number {
  return (VALUE_KINDS.has(candidate.kind) ? 100 : 0) + (candidate.file === file ? 10 : 0) + Math.min(weight(candidate.file), 9);
}

/** The names a file declares at its top level (not its members, comments or loose code), in order. */
function topLevelNames(documents: readonly { kind: LocationKind; name: string }[]): string[] {
  return documents.filter((d) => d.kind !== 'comment' && d.kind !== 'module' && !d.name.includes('.')).map((d) => d.name);
}

/** The bucket of a declaration's name: its simple name, lower-cased. */
function bucketOf(name: string): string {
  return simpleNameOf(name).toLowerCase();
}

/** The last segment of a display name (`load` of `Config.load`). */
export function simpleNameOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}
