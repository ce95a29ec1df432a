// Files as one request's context sees them: the editor's text wins, the exclusions of this moment apply, and line tables are kept.
import { isSupportedLanguage, languageIdForPath, resolvePath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Exclusion, ExclusionView } from '../privacy/exclusion.js';
import { MAX_FILE_BYTES } from './contextLimits.js';

/**
 * The files one request's context reads: the editor's text over the disk's (the workspace's disk texts), the
 * exclusions of this moment, answered once per file for the request, and line tables.
 */
export class ContextFiles {
  readonly view: ExclusionView;
  readonly openDocuments: DocumentSnapshot[];
  private readonly open = new Map<string, DocumentSnapshot>();
  private readonly disk = new Map<string, string | undefined>();
  private readonly exclusions = new Map<string, Exclusion | undefined>();
  /** Line tables of the texts this request looked at. */
  private readonly lines = new Map<string, Lines>();

  readonly root: string;
  private readonly workspace: Workspace;

  constructor(
    workspace: Workspace,
    readonly document: DocumentSnapshot,
    openDocuments: readonly DocumentSnapshot[],
  ) {
    this.root = workspace.root;
    this.workspace = workspace;
    this.view = workspace.exclusion.view();
    this.openDocuments = openDocuments.filter((d) => d.uri !== document.uri);
    for (const d of [document, ...this.openDocuments]) if (d.fsPath) this.open.set(resolvePath(d.fsPath), d);
  }

  /** The file name a document goes by in spans (its path, or its URI when it has none). */
  nameOf(document: DocumentSnapshot): string {
    return document.fsPath ? resolvePath(document.fsPath) : document.uri;
  }

  /** Workspace-relative `/`-path, or undefined outside the workspace. */
  relative(fsPath: string): string | undefined {
    return this.view.relative(fsPath);
  }

  excluded(fsPath: string): Exclusion | undefined {
    // Asked for every file a piece comes from, often the same few: one answer per file for this request.
    if (this.exclusions.has(fsPath)) return this.exclusions.get(fsPath);
    const found = this.view.check(fsPath);
    this.exclusions.set(fsPath, found);
    return found;
  }

  /** The current text of a workspace file: the editor's, else the disk's (small files only); none when excluded. */
  text(fsPath: string): string | undefined {
    const resolved = resolvePath(fsPath);
    if (this.relative(resolved) === undefined || this.excluded(resolved)) return undefined;
    const open = this.open.get(resolved);
    if (open) return open.text;
    if (this.disk.has(resolved)) return this.disk.get(resolved);
    const text = this.workspace.disk.text(resolved, MAX_FILE_BYTES);
    this.disk.set(resolved, text);
    return text;
  }

  /** The line table of a file's text. */
  linesOf(text: string, file: string): Lines {
    // Each text is looked up here once per request. Across requests each file keeps the table of its last text, found
    // by the file's name: in a table keyed by the texts themselves, a new text would be compared with every text held
    // of its length (V8 hashes strings over 16K characters by their length alone), as a file typed in has many.
    const known = this.lines.get(text);
    if (known) return known;
    let lines = recentLines.get(file);
    if (lines?.text !== text) {
      lines = new Lines(text);
      if (!recentLines.has(file) && recentLines.size >= RECENT_LINE_TABLES) recentLines.delete(recentLines.keys().next().value as string);
    }
    recentLines.delete(file);
    recentLines.set(file, lines);
    this.lines.set(text, lines);
    return lines;
  }
}

/**
 * Line tables of recent texts by file, least recently used first: each request reads the same few files (the
 * document, the declarations it names) and would otherwise build their tables again. Process-wide, since a table is
 * used only for the very text it was made from.
 */
const recentLines = new Map<string, Lines>();
const RECENT_LINE_TABLES = 32;

/** Line arithmetic over one text (0-based lines, UTF-16 offsets). */
export class Lines {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  get count(): number {
    return this.starts.length;
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  start(line: number): number {
    return this.starts[Math.min(Math.max(line, 0), this.starts.length - 1)] as number;
  }

  /** Offset of the end of a line, before its line break. */
  end(line: number): number {
    const next = line + 1 < this.starts.length ? (this.starts[line + 1] as number) - 1 : this.text.length;
    return next > 0 && this.text[next - 1] === '\r' ? next - 1 : next;
  }

  slice(startLine: number, endLine: number): string {
    return this.text.slice(this.start(startLine), this.end(endLine)).replace(/\r(?=\n)/g, '');
  }
}

export interface Span {
  fileName: string;
  start: number;
  end: number;
}

export function inside(span: Span, fileName: string, start: number, end: number): boolean {
  return span.fileName === fileName && span.start <= start && end <= span.end;
}

export function isCode(fsPath: string): boolean {
  return isSupportedLanguage(languageIdForPath(fsPath));
}
