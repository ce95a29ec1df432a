// What a model request carries besides its target, within a token budget: the enclosing declaration, named symbols, recent places and open documents.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { isSupportedLanguage, languageIdForPath, resolvePath, syntaxFileName, uriToPath } from '../workspace/documentSnapshot.js';
import { diskText } from '../workspace/diskTexts.js';
import type { WorkspaceProject } from '../repo/workspaceProject.js';
import { KIND_LABEL, declarationAt, declarationsContaining, firstStatementEndingFrom, listDeclarations, withSyntaxTree } from '../repo/declarations.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import { workspaceIndex } from '../repo/lexical/workspaceIndexes.js';
import type { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { workspaceExclusion } from '../privacy/exclusion.js';
import type { Exclusion, ExclusionView } from '../privacy/exclusion.js';
import { Redactor } from '../privacy/secrets.js';
import { protectedValues } from '../privacy/workspaceSecrets.js';
import type { VisitedPosition } from './recentPositions.js';
import { nextWordAt } from './wordSearch.js';

// ---------------------------------------------------------------------------------------------------------------
// Public shapes

/** A piece of a workspace file. */
export interface ContextSnippet {
  /** Workspace-relative, `/`-separated. */
  file: string;
  /** 0-based, inclusive: the lines of the file the text comes from (a cut or an outline shows fewer). */
  startLine: number;
  endLine: number;
  text: string;
  /** The declaration the snippet is in (`Account.transfer`), when that helps a reader place it. */
  label?: string;
}

export interface ContextSymbol {
  /** Display name: `Ledger.balance`. */
  name: string;
  /** `class`, `method`, `function`, `interface`, `type`, `enum`, `property`, `variable`. */
  kind: string;
  declaration: ContextSnippet;
  references: ContextSnippet[];
}

export interface RequestContext {
  /** The declaration around the target; absent when the target is itself top-level and whole. */
  enclosing?: { name: string; kind: string } & ContextSnippet;
  /** A few lines around each recently visited position, the target excluded. */
  recent: ContextSnippet[];
  /** The most relevant part of each other open document. */
  openDocuments: ContextSnippet[];
  /** What the request text names and the target code uses, declared elsewhere, with a few references. */
  symbols: ContextSymbol[];
  /** Estimated tokens of `renderRequestContext(this)`: characters / 4, rounded up. */
  tokens: number;
  /** What was left out, for the budget or for privacy, in words; excluded files by path only. */
  omitted: string[];
}

export interface RequestContextInput {
  /** The workspace folder. */
  root: string;
  document: DocumentSnapshot;
  /** What the request is about, as offsets into `document.text`, with its display name. */
  target: { start: number; end: number; name: string };
  /** The user's words. */
  text: string;
  /** The documents the editor has open (the target's own may be among them). */
  openDocuments: readonly DocumentSnapshot[];
  /** Most recent first. */
  recent: readonly VisitedPosition[];
  project: WorkspaceProject;
  /** Most tokens the rendered context may take. */
  budgetTokens: number;
  /**
   * How symbols are resolved: `checker` (the default) through the type checker, following imports, with the lexical
   * index for what it leaves; `index` through the lexical index alone, which needs no program rebuild after an edit
   * and so keeps the context cheap enough for every task.
   */
  resolve?: 'checker' | 'index';
  /** The values to redact wherever they appear (`protectedValues` of the document), when the caller has them. */
  knownSecrets?: ReadonlyMap<string, string>;
}

// ---------------------------------------------------------------------------------------------------------------
// Limits: a context is a handful of pointed pieces, not a dump of the workspace.

const MAX_SYMBOLS = 8;
/** Properties and variables say less than the classes and functions around them. */
const MAX_MINOR_SYMBOLS = 3;
const MAX_REFERENCES = 3;
/** References gathered per symbol: a few more than shown, since the context may already show some whole. */
const MAX_REFERENCE_CANDIDATES = MAX_REFERENCES + 2;
const MAX_RECENT = 5;
const MAX_OPEN_DOCUMENTS = 6;
const MAX_REQUEST_NAMES = 8;
/** Lines shown around a visited position and around a reference. */
const RECENT_AROUND = 2;
const REFERENCE_AROUND = 1;
/** A visited range longer than this shows its first lines only. */
const MAX_RECENT_SPAN = 8;
const HEAD_LINES = 25;
/** A class longer than this is given as an outline (members with their bodies folded). */
const OUTLINE_OVER_LINES = 30;
/** Longest piece of each kind before any budget: one long function must not crowd out the rest of a large budget. */
const MAX_LINES = { enclosing: 120, symbol: 60, open: 40 } as const;
const MAX_TARGET_IDENTIFIERS = 2_000;
const MAX_FILE_BYTES = 1_000_000;
/** Below this many characters for its text, a cut piece says nothing useful. */
const MIN_CUT_CHARS = 48;

// ---------------------------------------------------------------------------------------------------------------
// Building

/**
 * Gathers the context of one model request. Every piece passes one gate before it enters: its file is checked
 * against the workspace's exclusions at that moment and its text redacted, so no path (open document, recent
 * position, symbol, reference, cache) can carry the text of an excluded file or an unredacted secret.
 */
export async function buildRequestContext(input: RequestContextInput, signal: AbortSignal): Promise<RequestContext> {
  signal.throwIfAborted();
  const root = resolvePath(input.root);
  const files = new WorkspaceFiles(root, input.document, input.openDocuments);
  const { document, target } = input;
  if (document.fsPath) {
    const excluded = files.excluded(document.fsPath);
    if (excluded) return { recent: [], openDocuments: [], symbols: [], tokens: 0, omitted: [describe(excluded)] };
  }
  const requested = namesInRequest(input.text);
  const enclosing = enclosingOf(document, target);
  const targetLines = files.linesOf(document.text, files.nameOf(document));
  const avoid: Span[] = [{ fileName: files.nameOf(document), start: enclosing?.start ?? target.start, end: enclosing?.end ?? target.end }];
  const symbols = await resolveSymbols({ input, files, index: workspaceIndex(root), requested, avoid }, signal);
  await yieldToEventLoop();
  signal.throwIfAborted();

  const plan: Planned[] = [];
  if (enclosing) plan.push({ category: 'enclosing', piece: enclosingPiece(document, target, enclosing, files), enclosing: { name: enclosing.declaration.name, kind: KIND_LABEL[enclosing.declaration.kind] } });
  for (const symbol of symbols) plan.push({ category: 'symbol', piece: symbol.declaration, symbol });
  const targetSpan = { fileName: files.nameOf(document), startLine: targetLines.lineOf(target.start), endLine: targetLines.lineOf(Math.max(target.start, target.end - 1)) };
  for (const piece of recentPieces(input, files, targetSpan)) plan.push({ category: 'recent', piece });
  const identifiers = identifiersOf(document.text.slice(target.start, target.end));
  for (const choices of openDocumentPieces(input, files, identifiers, requested)) plan.push({ category: 'open', piece: choices[0] as Piece, choices });
  for (const symbol of symbols) for (const piece of symbol.references) plan.push({ category: 'reference', piece, symbol });
  signal.throwIfAborted();

  const redactor = new Redactor(input.knownSecrets ?? protectedValues(root, document.fsPath ? { fsPath: document.fsPath, text: document.text } : undefined));
  return fill(plan, files, redactor, input.budgetTokens);
}

/** The open documents' text goes into the index (it knows unsaved declarations); only its first build is awaited. */
async function prepareIndex(index: LexicalIndex, files: WorkspaceFiles, signal: AbortSignal): Promise<void> {
  for (const document of [files.document, ...files.openDocuments]) if (document.fsPath) index.updateDocument(document.fsPath, document.text);
  // Later requests answer from the index as it stands and refresh it behind themselves: a walk of a large workspace
  // on every request would cost more than a name found one request late.
  if (!index.walked()) await index.refresh(signal);
  // `search` walks only when the last walk is older than the index's refresh interval; the empty query ranks nothing.
  else void index.search('', { limit: 0 }).catch(() => undefined);
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------------------------------------------
// Files as this request sees them: the editor's text wins, the exclusions of this moment apply.

class WorkspaceFiles {
  readonly view: ExclusionView;
  readonly openDocuments: DocumentSnapshot[];
  private readonly open = new Map<string, DocumentSnapshot>();
  private readonly disk = new Map<string, string | undefined>();
  private readonly exclusions = new Map<string, Exclusion | undefined>();
  /** Line tables of the texts this request looked at. */
  private readonly lines = new Map<string, Lines>();

  constructor(
    readonly root: string,
    readonly document: DocumentSnapshot,
    openDocuments: readonly DocumentSnapshot[],
  ) {
    this.view = workspaceExclusion(root).view();
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
    const text = diskText(resolved, MAX_FILE_BYTES);
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
 * document, the declarations it names) and would otherwise build their tables again.
 */
const recentLines = new Map<string, Lines>();
const RECENT_LINE_TABLES = 32;

/** Line arithmetic over one text (0-based lines, UTF-16 offsets). */
class Lines {
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

interface Span {
  fileName: string;
  start: number;
  end: number;
}

function inside(span: Span, fileName: string, start: number, end: number): boolean {
  return span.fileName === fileName && span.start <= start && end <= span.end;
}

// ---------------------------------------------------------------------------------------------------------------
// Pieces: candidate snippets before the budget, with raw text (redaction happens at the gate).

interface Piece {
  /** Absolute path, checked against the exclusions at the gate. */
  fsPath: string;
  startLine: number;
  endLine: number;
  text: string;
  /**
   * The declaration the piece is in, asked only when the piece is placed: finding it may walk the file, and most
   * candidates never reach the context (a symbol left out, references beyond the few shown, the budget spent).
   */
  label?: () => string | undefined;
  /** A shorter rendering (an outline) tried before cutting. */
  outline?: string;
  /** Comments in the file's language (for the markers). */
  code: boolean;
  /** The text leaves part of the lines out (folded bodies, a cut): it does not cover them for later pieces. */
  partial?: boolean;
  /** The lines that matter (a visited range, a reference's line): when the context shows them already, the piece is not repeated. */
  focus?: { startLine: number; endLine: number };
  /** Lines of `text`, and of `outline`, that a cut keeps first. */
  keep?: Keep;
  outlineKeep?: Keep;
  /** Stands for an excluded file: no text, only its path for the omissions; dropped should the file be included again. */
  stub?: boolean;
  /** In omissions: `class Ledger`, `the recent position src/report.ts:9`. */
  describe: string;
}

interface CandidateSymbol {
  name: string;
  kind: string;
  declaration: Piece;
  references: Piece[];
  /** Lower first: classes, types and functions say most, properties and variables least. */
  rank: number;
  fromRequest: boolean;
  /** Among the request's names, the place of the one it answers; otherwise where the target first uses it. */
  order: number;
  /** The request's name it answers (`Ledger.balance`, `.balance`), for the names the lexical index still has to find. */
  requestName?: string;
}

type Category = 'enclosing' | 'symbol' | 'recent' | 'open' | 'reference';

interface Planned {
  category: Category;
  piece: Piece;
  enclosing?: { name: string; kind: string };
  /** For open documents: the parts worth showing, best first (a later one when an earlier is already shown). */
  choices?: Piece[];
  symbol?: CandidateSymbol;
}

function isCode(fsPath: string): boolean {
  return isSupportedLanguage(languageIdForPath(fsPath));
}

/** Removes the indentation every non-blank line shares: tokens spent on nothing. */
function dedent(text: string): string {
  const lines = text.split('\n');
  let indent = Infinity;
  for (const line of lines) if (line.trim() !== '') indent = Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0);
  if (!Number.isFinite(indent) || indent === 0) return text;
  return lines.map((line) => line.slice(Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0))).join('\n');
}

/** Text of a region with some spans replaced (folded bodies, the elided target), by whole offsets. */
function withCuts(text: string, start: number, end: number, cuts: { start: number; end: number; replacement: string }[]): string {
  let out = '';
  let at = start;
  for (const cut of [...cuts].sort((a, b) => a.start - b.start)) {
    if (cut.start < at || cut.end > end) continue;
    out += text.slice(at, cut.start) + cut.replacement;
    at = cut.end;
  }
  return (out + text.slice(at, end)).replace(/\r(?=\n)/g, '');
}

function lineMarker(count: number, code: boolean): string {
  const words = `… ${count} line${count === 1 ? '' : 's'} left out …`;
  return code ? `/* ${words} */` : words;
}

/** Lines of a piece's text (0-based, inclusive) that a cut keeps first: the target inside its enclosing declaration. */
interface Keep {
  from: number;
  to: number;
}

/**
 * Cuts text to a limit of characters or lines, whole lines kept and a marker in each gap saying how many went:
 * the `keep` lines first, then lines growing from the head, around `keep` and from the tail in turn (without
 * `keep`, a cut in the middle). Undefined when too little room is left to say anything; with the cut text, where
 * the kept lines are now.
 */
function cutLines(text: string, limit: { chars?: number; lines?: number }, code: boolean, keep?: Keep): { text: string; keep?: Keep } | undefined {
  const maxChars = limit.chars ?? Infinity;
  const maxLines = limit.lines ?? Infinity;
  const lines = text.split('\n');
  const total = lines.length;
  if (text.length <= maxChars && total <= maxLines) return { text, ...(keep ? { keep } : {}) };
  if (maxChars < MIN_CUT_CHARS) return undefined;
  const focus = keep && keep.from >= 0 && keep.to < total && keep.from <= keep.to ? keep : undefined;
  // The kept lines are a head, a window around the focus and a tail: at most two gaps, one without a focus.
  const gaps = focus ? 2 : 1;
  const kept = new Uint8Array(total);
  let chars = gaps * (lineMarker(total, code).length + 1);
  let count = gaps;
  const order: number[] = [];
  if (focus) for (let i = focus.from; i <= focus.to; i++) order.push(i);
  for (let round = 0; round < total; round++) {
    order.push(round);
    if (focus) order.push(focus.from - 1 - round, focus.to + 1 + round);
    order.push(total - 1 - round);
  }
  for (const i of order) {
    if (i < 0 || i >= total || kept[i]) continue;
    const cost = (lines[i] as string).length + 1;
    if (chars + cost > maxChars || count + 1 > maxLines) break;
    kept[i] = 1;
    chars += cost;
    count++;
  }
  const out: string[] = [];
  const at = new Map<number, number>();
  let gap = 0;
  let informative = 0;
  for (let i = 0; i < total; i++) {
    if (!kept[i]) {
      gap++;
      continue;
    }
    if (gap > 0) out.push(lineMarker(gap, code));
    gap = 0;
    at.set(i, out.length);
    out.push(lines[i] as string);
    if ((lines[i] as string).trim() !== '') informative++;
  }
  if (gap > 0) out.push(lineMarker(gap, code));
  // A cut that keeps a single line (a file's header comment, a closing brace) tells nothing about what it cut.
  if (informative >= 2) {
    const from = focus ? at.get(focus.from) : undefined;
    const to = focus ? at.get(focus.to) : undefined;
    return { text: out.join('\n'), ...(from !== undefined && to !== undefined ? { keep: { from, to } } : {}) };
  }
  if (total > 1) return undefined;
  // One line longer than the room (minified code): characters from both ends.
  const marker = code ? `/* … ${text.length} characters cut … */` : `… ${text.length} characters cut …`;
  const room = maxChars - marker.length - 2;
  if (room < MIN_CUT_CHARS / 2) return undefined;
  return { text: `${text.slice(0, Math.ceil(room / 2))}\n${marker}\n${text.slice(text.length - Math.floor(room / 2))}` };
}

/** Caps a piece before any budget, so each kind keeps its share of a large one. */
function capped(piece: Piece, maxLines: number): Piece {
  const cut = cutLines(piece.text, { lines: maxLines }, piece.code, piece.keep);
  if (!cut || cut.text === piece.text) return piece;
  const { keep: _keep, ...rest } = piece;
  return { ...rest, partial: true, text: cut.text, ...(cut.keep ? { keep: cut.keep } : {}) };
}

/** A window of lines around a focus, without blank lines at its edges (they cost tokens and say nothing). */
function windowAround(lines: Lines, first: number, last: number, around: number): { startLine: number; endLine: number } {
  let startLine = Math.max(0, first - around);
  let endLine = Math.min(lines.count - 1, last + around);
  while (startLine < first && lines.slice(startLine, startLine).trim() === '') startLine++;
  while (endLine > last && lines.slice(endLine, endLine).trim() === '') endLine--;
  return { startLine, endLine };
}

// ---------------------------------------------------------------------------------------------------------------
// The enclosing declaration (syntax only)

interface Enclosing {
  declaration: DeclarationTarget;
  /** From its doc comment, if any, to its end. */
  start: number;
  end: number;
}

/** The innermost declaration strictly around the target; none when the target is a top-level declaration itself. */
function enclosingOf(document: DocumentSnapshot, target: RequestContextInput['target']): Enclosing | undefined {
  if (!isSupportedLanguage(document.languageId)) return undefined;
  let best: DeclarationTarget | undefined;
  // Only the nodes around the target are walked when the file's list is not known (a text the user just typed).
  for (const declaration of declarationsContaining(syntaxFileName(document), document.text, target.start, target.end)) {
    const contains = declaration.start <= target.start && target.end <= declaration.end;
    const same = declaration.start >= target.start || (target.start <= declaration.nameStart && (declaration.name === target.name || declaration.simpleName === target.name));
    if (!contains || same) continue;
    if (!best || declaration.start > best.start || (declaration.start === best.start && declaration.end < best.end)) best = declaration;
  }
  return best ? { declaration: best, start: best.existingDoc?.start ?? best.start, end: best.end } : undefined;
}

function enclosingPiece(document: DocumentSnapshot, target: RequestContextInput['target'], enclosing: Enclosing, files: WorkspaceFiles): Piece {
  const text = document.text;
  const lines = files.linesOf(text, files.nameOf(document));
  const startLine = lines.lineOf(enclosing.start);
  const endLine = lines.lineOf(enclosing.end);
  const fileName = files.nameOf(document);
  const code = true;
  const cuts: { start: number; end: number; replacement: string }[] = [];
  // The target is in the prompt already: a long one is named here rather than repeated, a short one stays in place.
  const targetFirst = lines.lineOf(target.start);
  const targetLast = lines.lineOf(Math.max(target.start, target.end - 1));
  const marker = `/* … ${target.name}: the code this request is about … */`;
  const elided = targetLast - targetFirst >= 2 && targetFirst > startLine;
  if (elided) {
    const indent = /^[ \t]*/.exec(text.slice(lines.start(targetFirst), lines.end(targetFirst)))?.[0] ?? '';
    cuts.push({ start: lines.start(targetFirst), end: lines.end(targetLast), replacement: `${indent}${marker}` });
  }
  const regionStart = lines.start(startLine);
  const regionEnd = lines.end(endLine);
  const full = dedent(withCuts(text, regionStart, regionEnd, cuts));
  const kind = KIND_LABEL[enclosing.declaration.kind];
  // A cut of a long declaration keeps the lines around the target, where the request is.
  const keep = elided ? { from: targetFirst - startLine, to: targetFirst - startLine } : { from: targetFirst - startLine, to: targetLast - startLine };
  const piece: Piece = { fsPath: fileName, startLine, endLine, text: full, code, describe: `the enclosing ${kind} ${enclosing.declaration.name}`, keep };
  const bodies = classBodiesAt(fileName, text, enclosing.declaration.start);
  if (bodies) {
    const folded = [...cuts, ...bodies.filter((f) => !cuts.some((c) => f.start < c.end && c.start < f.end))];
    const outline = dedent(withCuts(text, regionStart, regionEnd, folded));
    if (outline.length < full.length) {
      piece.outline = outline;
      const markerLine = elided ? outline.split('\n').findIndex((line) => line.includes(marker)) : -1;
      if (markerLine >= 0) piece.outlineKeep = { from: markerLine, to: markerLine };
    }
  }
  return capped(piece, MAX_LINES.enclosing);
}

function classNodeAt(source: ts.SourceFile, start: number): ts.ClassLikeDeclaration | undefined {
  let found: ts.ClassLikeDeclaration | undefined;
  const visit = (node: ts.Node): void => {
    if (found || node.getEnd() < start || node.getStart(source) > start) return;
    if (ts.isClassLike(node) && node.getStart(source) === start) found = node;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** The bodies a class's outline folds, for the class that starts at `start`; none when no class starts there. */
function classBodiesAt(fileName: string, text: string, start: number): { start: number; end: number; replacement: string }[] | undefined {
  // Lent, not handed out: offsets outlive the call, nodes do not (see `lexicalSymbols`).
  return withSyntaxTree(fileName, text, (source) => {
    const node = classNodeAt(source, start);
    return node ? foldedBodies(node, source) : undefined;
  });
}

/** The bodies of a class's members that span lines, folded to `{ … }`: what a reader of an outline skips. */
function foldedBodies(node: ts.ClassLikeDeclaration | ts.InterfaceDeclaration, source: ts.SourceFile): { start: number; end: number; replacement: string }[] {
  const cuts: { start: number; end: number; replacement: string }[] = [];
  for (const member of node.members as ts.NodeArray<ts.Node>) {
    let body: ts.Node | undefined;
    if (ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member) || ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) body = member.body;
    else if (ts.isPropertyDeclaration(member) && member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer))) body = member.initializer.body;
    if (!body || !ts.isBlock(body)) continue;
    const start = body.getStart(source);
    if (source.text.slice(start, body.getEnd()).includes('\n')) cuts.push({ start, end: body.getEnd(), replacement: '{ … }' });
  }
  return cuts;
}

// ---------------------------------------------------------------------------------------------------------------
// Names in the request text

/** A name the user wrote, with its container when qualified. */
export interface RequestName {
  simple: string;
  /** `Ledger` in `Ledger.balance`. */
  container?: string;
}

const KIND_NOUNS = new Set(['class', 'classes', 'method', 'methods', 'function', 'functions', 'interface', 'type', 'field', 'property', 'variable', 'constant', 'const', 'enum', 'getter', 'setter', 'member', 'constructor', 'helper', 'module']);
const FILLER = new Set(['the', 'a', 'an', 's', 'its', 'our', 'my', 'this', 'that', 'new', 'existing']);
/** English that sits next to kind nouns ("and the helper", "how the method") without naming anything. */
const PROSE = new Set(
  'a an and or but nor not no the this that these those it its to of in on for with from by as at is are was be do does how what why where when which who whom whose all any each every some same other use uses using add make new existing called named into than then also just only'.split(' '),
);

/**
 * Identifiers the user names, in the order written. Code-shaped words count (`Ledger`, `formatAmount`,
 * `Ledger.balance`, anything in backticks); a plain lowercase word counts only before a kind noun ("the balance
 * method"), after one with "called"/"named" ("a function named parse"), or before a call's parentheses, since
 * "add", "use" or "total" are English first. A capitalised word opening a sentence ("Document the…") is English
 * too. Names nothing in the workspace declares are dropped when resolving.
 */
export function namesInRequest(text: string): RequestName[] {
  const found: (RequestName & { at: number })[] = [];
  const add = (word: string, at: number): void => {
    const parts = word.split(/\.|#|::/).filter(Boolean);
    const simple = parts[parts.length - 1];
    if (!simple || simple.length < 2) return;
    const container = parts.length > 1 ? parts[parts.length - 2] : undefined;
    if (found.some((n) => n.simple === simple && n.container === container)) return;
    found.push(container ? { simple, container, at } : { simple, at });
  };
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    for (const word of (match[1] as string).matchAll(/[A-Za-z_$][\w$]*(?:(?:\.|#|::)[A-Za-z_$][\w$]*)*/g)) add(word[0], match.index + word.index);
  }
  // Code spans are blanked, not removed, so positions stay those of `text`.
  const prose = text.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const words = [...prose.matchAll(/[A-Za-z_$][\w$]*(?:(?:\.|#|::)[A-Za-z_$][\w$]*)*/g)];
  const plain = (i: number): string => (words[i]?.[0] ?? '').toLowerCase();
  words.forEach((match, i) => {
    const word = match[0];
    const at = match.index;
    const before = prose.slice(0, at);
    const sentenceStart = /(^|[.!?:;]\s+|\n\s*)$/.test(before);
    const after = prose.slice(at + word.length);
    const called = /^\s*\(/.test(after);
    if (/[.#]|::/.test(word) || /[a-z][A-Z]/.test(word) || /[_$\d]/.test(word) || called) return add(word, at);
    if (/^[A-Z]/.test(word)) {
      if (!sentenceStart || /[A-Z]/.test(word.slice(1))) add(word, at);
      return;
    }
    // A lowercase word names something right before a kind noun ("the balance method") or after one with "called"
    // or "named"; right after one it is usually a verb ("the method returns").
    if (PROSE.has(word)) return;
    let next = i + 1;
    while (FILLER.has(plain(next))) next++;
    const named = plain(i - 1) === 'called' || plain(i - 1) === 'named';
    if (KIND_NOUNS.has(plain(next)) || (named && KIND_NOUNS.has(plain(i - 2)))) add(word, at);
  });
  return found
    .filter((n) => !KIND_NOUNS.has(n.simple.toLowerCase()))
    .sort((a, b) => a.at - b.at)
    .slice(0, MAX_REQUEST_NAMES)
    .map(({ at: _at, ...name }) => name);
}

const KEYWORDS = new Set(
  'abstract any as async await boolean break case catch class const constructor continue debugger declare default delete do else enum export extends false finally for from function get if implements import in instanceof interface keyof let module namespace never new null number object of package private protected public readonly return satisfies set static string super switch symbol this throw true try type typeof undefined unknown var void while with yield'.split(' '),
);

/** Identifiers written in some code (keywords aside), for matching names across documents. */
function identifiersOf(code: string): Set<string> {
  const out = new Set<string>();
  for (const match of code.matchAll(/[A-Za-z_$][\w$]*/g)) if (!KEYWORDS.has(match[0]) && match[0].length > 1) out.add(match[0]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Symbols: the language service over what the ts-morph project holds, then the lexical index

interface SymbolSearch {
  input: RequestContextInput;
  files: WorkspaceFiles;
  index: LexicalIndex;
  requested: RequestName[];
  /** Already in the context (the enclosing declaration, or the target): declarations there are not repeated. */
  avoid: Span[];
  /** Where references are looked for, computed by the first search of this request (see `referenceTexts`). */
  referenceTexts?: { program: ts.Program | undefined; texts: Map<string, string> };
}

/** A declaration found, located in the text the finder saw. */
interface FoundDeclaration {
  node: ts.Node;
  source: ts.SourceFile;
  name: string;
  kind: string;
  /** Lower ranks first: types and functions say most. */
  rank: number;
  fromRequest: boolean;
}

/** Symbol lists per program and request: the program changes whenever any text does, so an entry never goes stale. */
const symbolCache = new WeakMap<ts.Program, Map<string, CandidateSymbol[]>>();

/**
 * The program first (synchronously, see `programSymbols`); the lexical index, which may have to be built, only for
 * what the program left: names it does not declare, or everything when the document is not in it. The program
 * object is immutable, so its files can still be read after that wait.
 */
async function resolveSymbols(search: SymbolSearch, signal: AbortSignal): Promise<CandidateSymbol[]> {
  const document = search.input.document;
  let fromProgram: { symbols?: CandidateSymbol[]; program?: ts.Program } = {};
  if (document.fsPath && isSupportedLanguage(document.languageId) && search.input.resolve !== 'index') {
    try {
      fromProgram = programSymbols(search, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      // A project that does not load leaves the lexical index to answer.
    }
  }
  const symbols = fromProgram.symbols ?? [];
  const unresolved = search.requested.filter((n) => !symbols.some((s) => s.requestName === requestKey(n)));
  if (unresolved.length === 0 && fromProgram.symbols) return withoutRepeats(capSymbols(symbols));
  await prepareIndex(search.index, search.files, signal);
  signal.throwIfAborted();
  const lexical = lexicalSymbols(search, unresolved, fromProgram.symbols ? undefined : document, fromProgram.program);
  return withoutRepeats(capSymbols([...symbols, ...lexical]));
}

/**
 * A class and one of its members both chosen: the class becomes its outline when the member has a body (the body
 * then appears once, under the member), and a property or variable member goes, since the class shows it whole.
 */
function withoutRepeats(symbols: CandidateSymbol[]): CandidateSymbol[] {
  const within = (inner: CandidateSymbol, outer: CandidateSymbol): boolean =>
    inner !== outer && inner.declaration.fsPath === outer.declaration.fsPath && outer.declaration.startLine <= inner.declaration.startLine && inner.declaration.endLine <= outer.declaration.endLine;
  const kept = symbols.filter((symbol) => !((symbol.kind === 'property' || symbol.kind === 'variable') && symbols.some((outer) => within(symbol, outer))));
  return kept.map((symbol) => {
    const outline = symbol.declaration.outline;
    if (outline === undefined || !kept.some((inner) => within(inner, symbol))) return symbol;
    const { outline: _outline, ...declaration } = symbol.declaration;
    return { ...symbol, declaration: { ...declaration, text: outline, partial: true } };
  });
}

function requestKey(name: RequestName): string {
  return `${name.container ?? ''}.${name.simple}`;
}

/** Request-named symbols first, then by rank (stable, so first use decides among equals); a few minor ones at most. */
function capSymbols(symbols: CandidateSymbol[]): CandidateSymbol[] {
  const sorted = [...symbols].sort((a, b) => Number(b.fromRequest) - Number(a.fromRequest) || (a.fromRequest ? 0 : a.rank - b.rank) || a.order - b.order);
  const seen = new Set<string>();
  const out: CandidateSymbol[] = [];
  let minor = 0;
  for (const symbol of sorted) {
    const key = `${symbol.declaration.fsPath}:${symbol.declaration.startLine}:${symbol.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (symbol.rank >= 2 && !symbol.fromRequest && ++minor > MAX_MINOR_SYMBOLS) continue;
    out.push(symbol);
    if (out.length >= MAX_SYMBOLS) break;
  }
  return out;
}

/**
 * The ts-morph part, in one synchronous stretch: the open documents' text goes into the project (the editor's
 * buffer wins, as everywhere), the program is read, and no other task can swap a text in between. Only files the
 * project holds or the program reaches through imports are searched: loading the whole workspace would cost more
 * than a request can wait.
 */
function programSymbols(search: SymbolSearch, signal: AbortSignal): { symbols?: CandidateSymbol[]; program?: ts.Program } {
  const { input, files, requested } = search;
  const workspace = input.project;
  const document = input.document;
  const fileName = workspace.sourceFile(document.fsPath as string, document.text).getFilePath();
  syncOpenDocuments(workspace, files);
  const service = workspace.tsProject().getLanguageService().compilerObject;
  const program = service.getProgram();
  signal.throwIfAborted();
  const source = program?.getSourceFile(fileName);
  // A JavaScript file without `allowJs` is not in the program; its files still serve the lexical references.
  if (!program || !source) return program ? { program } : {};
  const key = [fileName, input.target.start, input.target.end, ...search.avoid.map((a) => `${a.start}-${a.end}`), ...requested.map(requestKey)].join('\0');
  const perProgram = symbolCache.get(program) ?? new Map<string, CandidateSymbol[]>();
  symbolCache.set(program, perProgram);
  const cached = perProgram.get(key);
  if (cached) return { symbols: cached, program };

  const found = new Map<ts.Node, FoundDeclaration & { requestName?: string; order: number }>();
  requested.forEach((name, order) => {
    for (const hit of navigateTo(service, program, name, requested, search).slice(0, 2)) if (!found.has(hit.node)) found.set(hit.node, { ...hit, requestName: requestKey(name), order });
  });
  targetDeclarations(program, source, input.target, search).forEach((hit, i) => {
    if (!found.has(hit.node)) found.set(hit.node, { ...hit, order: 1_000 + i });
  });
  const origins = new Map<CandidateSymbol, FoundDeclaration>();
  for (const declaration of found.values()) {
    const symbol = symbolOf(declaration, files, search.avoid, declaration.order);
    if (!symbol) continue;
    if (declaration.requestName) symbol.requestName = declaration.requestName;
    origins.set(symbol, declaration);
  }
  // References only for the symbols kept: they are the costly part.
  const kept = capSymbols([...origins.keys()]);
  for (const symbol of kept) {
    const declaration = origins.get(symbol) as FoundDeclaration;
    if (!symbol.declaration.stub) symbol.references = programReferences(program, declaration, search);
  }
  perProgram.set(key, kept);
  return { symbols: kept, program };
}

/** Open documents this module put into each project with the editor's text. */
const synced = new WeakMap<WorkspaceProject, Set<string>>();

/**
 * The other open documents' text goes into the project, so declarations and references there are the editor's.
 * A document synced here and closed since goes back to the disk's text: nothing else would take an unsaved buffer
 * the user discarded out of the project.
 */
function syncOpenDocuments(workspace: WorkspaceProject, files: WorkspaceFiles): void {
  const mine = synced.get(workspace) ?? new Set<string>();
  synced.set(workspace, mine);
  const open = new Set<string>();
  for (const document of [files.document, ...files.openDocuments]) {
    if (!document.fsPath) continue;
    const fsPath = resolvePath(document.fsPath);
    open.add(fsPath);
    if (document === files.document || !isCode(fsPath) || files.relative(fsPath) === undefined || files.excluded(fsPath)) continue;
    workspace.sourceFile(fsPath, document.text);
    mine.add(fsPath);
  }
  for (const fsPath of mine) {
    if (open.has(fsPath)) continue;
    mine.delete(fsPath);
    try {
      workspace.tsProject().getSourceFile(fsPath)?.refreshFromFileSystemSync();
    } catch {
      // Unreadable now: the next task that needs it reads it again.
    }
  }
}

/** Workspace declarations the language service knows by exactly this name, the user's other names deciding between same-named members. */
function navigateTo(service: ts.LanguageService, program: ts.Program, name: RequestName, requested: RequestName[], search: SymbolSearch): FoundDeclaration[] {
  let items: readonly ts.NavigateToItem[];
  try {
    items = service.getNavigateToItems(name.simple, 50, undefined, true);
  } catch {
    return [];
  }
  const containers = new Set(requested.map((n) => n.simple));
  const hits: { declaration: FoundDeclaration; score: number }[] = [];
  for (const item of items) {
    if (item.name !== name.simple || (name.container && item.containerName !== name.container)) continue;
    const source = program.getSourceFile(item.fileName);
    if (!source || !workspaceFile(program, source, search.files)) continue;
    const node = declarationNodeAt(source, item.textSpan.start, name.simple);
    if (!node) continue;
    const declaration = describeDeclaration(node, source, true);
    if (!declaration) continue;
    hits.push({ declaration, score: (item.containerName && containers.has(item.containerName) ? 0 : 10) + declaration.rank });
  }
  hits.sort((a, b) => a.score - b.score || a.declaration.source.fileName.localeCompare(b.declaration.source.fileName) || a.declaration.node.pos - b.declaration.node.pos);
  const best = hits[0]?.score;
  // Same-named methods of classes the user did not name are guesses: only the best-scoring ones are kept.
  return hits.filter((h) => h.score === best || h.score < 10).map((h) => h.declaration);
}

/** Whether a program file is the workspace's own code (not a library, not outside the folder). */
function workspaceFile(program: ts.Program, source: ts.SourceFile, files: WorkspaceFiles): boolean {
  if (program.isSourceFileDefaultLibrary(source) || program.isSourceFileFromExternalLibrary(source) || source.isDeclarationFile) return false;
  if (source.fileName.split(path.sep).join('/').includes('/node_modules/')) return false;
  return files.relative(source.fileName) !== undefined;
}

/** The innermost declaration named `name` around a position. */
function declarationNodeAt(source: ts.SourceFile, position: number, name: string): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getFullStart() || position >= node.getEnd()) return;
    if (nameOf(node) === name && kindOf(node)) found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** The first declaration named `name` that starts between two offsets (on one line, as the index locates it). */
function declarationNodeOnLine(source: ts.SourceFile, from: number, to: number, name: string): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found || node.getEnd() < from || node.getFullStart() > to) return;
    const start = node.getStart(source);
    if (from <= start && start <= to && nameOf(node) === name && kindOf(node)) found = node;
    else ts.forEachChild(node, visit);
  };
  // The statements that reach into the line, in order: the others would be passed over one by one.
  const statements = source.statements;
  for (let i = firstStatementEndingFrom(source, from); !found && i < statements.length && (statements[i] as ts.Statement).pos <= to; i++) visit(statements[i] as ts.Statement);
  return found;
}

function nameOf(node: ts.Node): string | undefined {
  const name = (node as ts.NamedDeclaration).name;
  return name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** What a declaration is, and how much it tells (rank); undefined for what is not worth a snippet (parameters, locals). */
function kindOf(node: ts.Node): { kind: string; rank: number } | undefined {
  if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) return { kind: 'class', rank: 0 };
  if (ts.isInterfaceDeclaration(node)) return { kind: 'interface', rank: 0 };
  if (ts.isTypeAliasDeclaration(node)) return { kind: 'type', rank: 0 };
  if (ts.isEnumDeclaration(node)) return { kind: 'enum', rank: 0 };
  if (ts.isFunctionDeclaration(node)) return { kind: 'function', rank: 0 };
  if (ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) return { kind: 'method', rank: 1 };
  if (ts.isGetAccessorDeclaration(node)) return { kind: 'getter', rank: 1 };
  if (ts.isSetAccessorDeclaration(node)) return { kind: 'setter', rank: 1 };
  if (ts.isPropertyDeclaration(node) || ts.isPropertySignature(node)) {
    const init = ts.isPropertyDeclaration(node) ? node.initializer : undefined;
    return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? { kind: 'method', rank: 1 } : { kind: 'property', rank: 2 };
  }
  if (ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && ts.isVariableStatement(node.parent.parent) && ts.isSourceFile(node.parent.parent.parent)) {
    const init = node.initializer;
    return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? { kind: 'function', rank: 0 } : { kind: 'variable', rank: 2 };
  }
  return undefined;
}

function describeDeclaration(node: ts.Node, source: ts.SourceFile, fromRequest: boolean): FoundDeclaration | undefined {
  const kind = kindOf(node);
  const simple = nameOf(node);
  if (!kind || !simple) return undefined;
  const parent = node.parent;
  const container = parent && (ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent)) ? parent.name?.text : undefined;
  return { node, source, name: container ? `${container}.${simple}` : simple, kind: kind.kind, rank: kind.rank, fromRequest };
}

/** The workspace declarations the target's identifiers resolve to, in order of first use; aliases followed to their origin. */
function targetDeclarations(program: ts.Program, source: ts.SourceFile, target: RequestContextInput['target'], search: SymbolSearch): FoundDeclaration[] {
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Symbol>();
  const out: FoundDeclaration[] = [];
  let visited = 0;
  const visit = (node: ts.Node): void => {
    if (visited > MAX_TARGET_IDENTIFIERS || node.getEnd() <= target.start || node.getStart(source) >= target.end) return;
    if (ts.isIdentifier(node)) {
      visited++;
      let symbol: ts.Symbol | undefined;
      try {
        symbol = checker.getSymbolAtLocation(node);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      } catch {
        symbol = undefined;
      }
      if (!symbol || seen.has(symbol)) return;
      seen.add(symbol);
      for (const declaration of symbol.declarations ?? []) {
        const file = declaration.getSourceFile();
        if (!workspaceFile(program, file, search.files) && !search.files.excluded(file.fileName)) continue;
        const found = describeDeclaration(declaration, file, false);
        if (found) {
          out.push(found);
          break;
        }
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * The candidate for a found declaration, unless it is already in the context. One in an excluded file becomes a
 * stub without text or name, which the gate turns into an omission naming the file.
 */
function symbolOf(declaration: FoundDeclaration, files: WorkspaceFiles, avoid: Span[], order: number): CandidateSymbol | undefined {
  const { node, source } = declaration;
  const fileName = resolvePath(source.fileName);
  if (files.excluded(fileName)) return { name: '', kind: '', declaration: stub(fileName, files), references: [], rank: declaration.rank, fromRequest: declaration.fromRequest, order };
  const anchor = anchorOf(node);
  const start = docStart(anchor, source);
  if (avoid.some((span) => inside(span, fileName, anchor.getStart(source), anchor.getEnd()) || inside({ fileName, start, end: anchor.getEnd() }, span.fileName, span.start, span.end))) return undefined;
  const lines = files.linesOf(source.text, fileName);
  const startLine = lines.lineOf(start);
  const endLine = lines.lineOf(anchor.getEnd());
  const regionStart = lines.start(startLine);
  const regionEnd = lines.end(endLine);
  const code = isCode(fileName);
  const full = dedent(withCuts(source.text, regionStart, regionEnd, []));
  const piece: Piece = { fsPath: fileName, startLine, endLine, text: full, code, describe: `${declaration.kind} ${declaration.name}` };
  if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) {
    const outline = dedent(withCuts(source.text, regionStart, regionEnd, foldedBodies(node, source)));
    if (outline.length < full.length) {
      if (endLine - startLine + 1 > OUTLINE_OVER_LINES) Object.assign(piece, { text: outline, partial: true });
      else piece.outline = outline;
    }
  }
  return { name: declaration.name, kind: declaration.kind, declaration: capped(piece, MAX_LINES.symbol), references: [], rank: declaration.rank, fromRequest: declaration.fromRequest, order };
}

/** A piece standing for an excluded file: nothing of it but its path, which only the omissions use. */
function stub(fsPath: string, files: WorkspaceFiles): Piece {
  return { fsPath, startLine: 0, endLine: 0, text: '', code: false, stub: true, describe: files.relative(fsPath) ?? path.basename(fsPath) };
}

/** The statement a declaration is written as: `const f = …` for a variable, the declaration itself otherwise. */
function anchorOf(node: ts.Node): ts.Node {
  if (ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && node.parent.declarations.length === 1 && ts.isVariableStatement(node.parent.parent)) return node.parent.parent;
  return node;
}

/** Where a declaration's doc comment starts, or the declaration itself when it has none. */
function docStart(node: ts.Node, source: ts.SourceFile): number {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  const last = ranges[ranges.length - 1];
  if (last && source.text.slice(last.pos, last.pos + 3) === '/**' && source.text.slice(last.end, node.getStart(source)).trim() === '') return last.pos;
  return node.getStart(source);
}

/**
 * A few references, found by name in the program's workspace files and confirmed by the type checker (the name
 * must resolve to the declaration's symbol). Unlike the language service's `findReferences`, which resolves every
 * reference in every file, this stops once enough files have one: on every request, the first few are what counts.
 * None from the places the context already holds; references in excluded files become stubs.
 */
function programReferences(program: ts.Program, declaration: FoundDeclaration, search: SymbolSearch): Piece[] {
  const nameNode = (declaration.node as ts.NamedDeclaration).name;
  const name = nameOf(declaration.node);
  if (!nameNode || !name) return [];
  const checker = program.getTypeChecker();
  const resolve = (node: ts.Node): ts.Symbol | undefined => {
    try {
      const symbol = checker.getSymbolAtLocation(node);
      return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    } catch {
      return undefined;
    }
  };
  const wanted = resolve(nameNode);
  if (!wanted) return [];
  const declared = { fileName: resolvePath(declaration.source.fileName), start: declaration.node.getFullStart(), end: declaration.node.getEnd() };
  const candidates = program
    .getSourceFiles()
    .filter((source) => source.text.includes(name) && workspaceFile(program, source, search.files))
    .sort((a, b) => a.fileName.localeCompare(b.fileName));
  const sites: Site[] = [];
  const withSites = new Set<string>();
  for (const source of candidates) {
    if (withSites.size >= MAX_REFERENCE_CANDIDATES) break;
    const fileName = resolvePath(source.fileName);
    const excluded = search.files.excluded(fileName) !== undefined;
    let inFile = 0;
    for (let position = nextWordAt(source.text, name); position >= 0; position = nextWordAt(source.text, name, position + name.length)) {
      if (inside(declared, fileName, position, position) || search.avoid.some((span) => inside(span, fileName, position, position))) continue;
      const node = tokenAt(source, position);
      if (!node || !ts.isIdentifier(node) || node.getStart(source) !== position || inImportOrExport(node)) continue;
      const symbol = resolve(node);
      if (!symbol || (symbol !== wanted && !symbol.declarations?.includes(declaration.node as ts.Declaration))) continue;
      withSites.add(fileName);
      sites.push(excluded ? { fsPath: fileName, text: '', position: 0, label: () => undefined } : { fsPath: fileName, text: source.text, position, label: () => containerName(node) });
      if (excluded || ++inFile >= MAX_REFERENCES) break;
    }
  }
  return chooseReferences(sites, search.files);
}

function tokenAt(source: ts.SourceFile, position: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(source) || position >= node.getEnd()) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

function inImportOrExport(node: ts.Node): boolean {
  for (let current: ts.Node | undefined = node; current; current = current.parent) {
    if (ts.isImportDeclaration(current) || ts.isImportEqualsDeclaration(current) || ts.isExportDeclaration(current)) return true;
    if (ts.isStatement(current)) return false;
  }
  return false;
}

/** The function, method or class a node is in (`Account.transfer`), for a reference's label. */
function containerName(node: ts.Node | undefined): string | undefined {
  for (let current = node?.parent; current; current = current.parent) {
    const found = describeDeclaration(current, current.getSourceFile(), false);
    if (found && found.kind !== 'property' && found.kind !== 'variable') return found.name;
    if (ts.isConstructorDeclaration(current) && ts.isClassLike(current.parent) && current.parent.name) return `${current.parent.name.text}.constructor`;
  }
  return undefined;
}

interface Site {
  fsPath: string;
  text: string;
  position: number;
  /** The name of the declaration the site is in; asked only of the references placed in the context, since finding it costs a lookup. */
  label: () => string | undefined;
}

/**
 * A few reference sites as pieces: one per file first (files in path order), then more from the same files. Sites
 * in excluded files become one stub per file, beside the others rather than in their place.
 */
function chooseReferences(sites: Site[], files: WorkspaceFiles): Piece[] {
  const stubs = [...new Set(sites.filter((site) => files.excluded(site.fsPath)).map((site) => site.fsPath))].sort().map((fsPath) => stub(fsPath, files));
  // Most sites share a file: equal paths are told apart before the locale's comparison, which costs more.
  const bySite = (a: Site, b: Site): number => (a.fsPath === b.fsPath ? a.position - b.position : a.fsPath.localeCompare(b.fsPath));
  const sorted = sites.filter((site) => !files.excluded(site.fsPath)).sort(bySite);
  const chosen: typeof sorted = [];
  const windows: { fsPath: string; startLine: number; endLine: number }[] = [];
  // One table per file: a file's sites share one text, and a lookup by a long text may compare it character by
  // character (two strings of one content, the editor's and a parse's). Lines are found for the sites looked at only.
  const tables = new Map<string, Lines>();
  const tableOf = (site: Site): Lines => {
    let table = tables.get(site.fsPath);
    if (!table) tables.set(site.fsPath, (table = files.linesOf(site.text, site.fsPath)));
    return table;
  };
  const lineOfSite = new Map<Site, number>();
  const lineOf = (site: Site): number => {
    let line = lineOfSite.get(site);
    if (line === undefined) lineOfSite.set(site, (line = tableOf(site).lineOf(site.position)));
    return line;
  };
  for (const pass of [0, 1]) {
    for (const site of sorted) {
      if (chosen.length >= MAX_REFERENCE_CANDIDATES) break;
      if (chosen.includes(site) || (pass === 0 && chosen.some((c) => c.fsPath === site.fsPath))) continue;
      const line = lineOf(site);
      if (windows.some((w) => w.fsPath === site.fsPath && w.startLine - REFERENCE_AROUND <= line && line <= w.endLine + REFERENCE_AROUND)) continue;
      chosen.push(site);
      windows.push({ fsPath: site.fsPath, startLine: line - REFERENCE_AROUND, endLine: line + REFERENCE_AROUND });
    }
  }
  chosen.sort(bySite);
  return [
    ...stubs,
    ...chosen.map((site) => {
      const table = tableOf(site);
      const line = lineOf(site);
      const { startLine, endLine } = windowAround(table, line, line, REFERENCE_AROUND);
      return {
        fsPath: site.fsPath,
        startLine,
        endLine,
        focus: { startLine: line, endLine: line },
        text: dedent(table.slice(startLine, endLine)),
        code: isCode(site.fsPath),
        describe: `the reference at ${files.relative(site.fsPath) ?? site.fsPath}:${line + 1}`,
        label: site.label,
      };
    }),
  ];
}

/**
 * Names the program did not resolve, from the lexical index (files the project has not loaded), and, when there is
 * no program at all, the target's code-shaped identifiers too. References are then found by name in the texts at
 * hand (the open documents and the program's files), never by reading the workspace.
 */
function lexicalSymbols(search: SymbolSearch, names: RequestName[], withoutProgram: DocumentSnapshot | undefined, program: ts.Program | undefined): CandidateSymbol[] {
  const { files, index } = search;
  const wanted: { name: RequestName; fromRequest: boolean; order: number }[] = names.map((name) => ({ name, fromRequest: true, order: search.requested.indexOf(name) }));
  // The trees here are lent (`withSyntaxTree`), not handed out: nothing of them outlives the call, so the tree of a
  // file being edited stays its tree of edits, and the next keystroke is parsed incrementally instead of whole.
  if (withoutProgram) {
    withSyntaxTree(files.nameOf(withoutProgram), withoutProgram.text, (source) => codeShapedIdentifiers(source, search.input.target)).forEach((simple, i) => {
      if (!wanted.some((w) => w.name.simple === simple)) wanted.push({ name: { simple }, fromRequest: false, order: 1_000 + i });
    });
  }
  const out: CandidateSymbol[] = [];
  const containers = new Set(names.map((n) => n.simple));
  for (const { name, fromRequest, order } of wanted) {
    const declared = index
      .declarations((display) => {
        if (!name.container) return true;
        const parts = display.split('.');
        return parts[parts.length - 2] === name.container;
      }, 20, name.simple)
      .sort((a, b) => Number(!containers.has(a.name.split('.').slice(-2, -1)[0] ?? '')) - Number(!containers.has(b.name.split('.').slice(-2, -1)[0] ?? '')) || a.path.localeCompare(b.path) || a.startLine - b.startLine)
      .slice(0, 2);
    for (const hit of declared) {
      const text = files.text(hit.fsPath);
      if (text === undefined) continue;
      const lines = files.linesOf(text, hit.fsPath);
      const symbol = withSyntaxTree(hit.fsPath, text, (source) => {
        const node = declarationNodeOnLine(source, lines.start(hit.startLine - 1), lines.end(hit.startLine - 1), name.simple);
        const declaration = node ? describeDeclaration(node, source, fromRequest) : undefined;
        const found = declaration ? symbolOf(declaration, files, search.avoid, order) : undefined;
        if (found && declaration && !found.declaration.stub) found.references = lexicalReferences(declaration, search, program);
        return found;
      });
      if (!symbol) continue;
      if (fromRequest) symbol.requestName = requestKey(name);
      out.push(symbol);
    }
  }
  return out;
}

/** Identifiers of the target that name something declared elsewhere: called, constructed, typed with, or capitalised. */
function codeShapedIdentifiers(source: ts.SourceFile, target: RequestContextInput['target']): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    // Pruned by the full span (leading trivia included), which is cheap: finding where a node's code starts means
    // scanning its comments, and a file has hundreds of statements after the target. An identifier counts only when
    // its own code overlaps the target, so the answer is the same as pruning by that.
    if (node.end <= target.start || node.pos >= target.end) return;
    if (ts.isIdentifier(node) && node.getStart(source) < target.end && !out.includes(node.text)) {
      const parent = node.parent;
      const callee = parent && (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === node;
      const member = parent && ts.isPropertyAccessExpression(parent) && parent.name === node && parent.parent && ts.isCallExpression(parent.parent) && parent.parent.expression === parent;
      const typed = parent && (ts.isTypeReferenceNode(parent) || ts.isExpressionWithTypeArguments(parent));
      if (callee || member || typed || /^[A-Z]/.test(node.text)) out.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  // The statements the target overlaps, in order, found by halving: a file has hundreds of statements after it.
  const statements = source.statements;
  for (let i = firstStatementEndingFrom(source, target.start + 1); i < statements.length && (statements[i] as ts.Statement).pos < target.end; i++) visit(statements[i] as ts.Statement);
  return out.slice(0, MAX_SYMBOLS);
}

/** The texts references are looked for in: the editor's documents, then the program's workspace files; once per request. */
function referenceTexts(search: SymbolSearch, program: ts.Program | undefined): Map<string, string> {
  const known = search.referenceTexts;
  if (known && known.program === program) return known.texts;
  const { files } = search;
  const texts = new Map<string, string>();
  for (const document of [files.document, ...files.openDocuments]) if (document.fsPath) texts.set(resolvePath(document.fsPath), document.text);
  for (const source of program?.getSourceFiles() ?? []) {
    const fileName = resolvePath(source.fileName);
    if (!texts.has(fileName) && (workspaceFile(program as ts.Program, source, files) || files.excluded(fileName))) texts.set(fileName, source.text);
  }
  search.referenceTexts = { program, texts };
  return texts;
}

function lexicalReferences(declaration: FoundDeclaration, search: SymbolSearch, program: ts.Program | undefined): Piece[] {
  const { files } = search;
  const simple = nameOf(declaration.node) as string;
  // The declaration's own file is at hand too: it was read for the declaration.
  const declared = { fileName: resolvePath(declaration.source.fileName), start: declaration.node.getFullStart(), end: declaration.node.getEnd() };
  const shared = referenceTexts(search, program);
  const texts: Iterable<[string, string]> = shared.has(declared.fileName) ? shared : [...shared, [declared.fileName, declaration.source.text]];
  const sites: Site[] = [];
  for (const [fsPath, listed] of texts) {
    const text = fsPath === declared.fileName ? declaration.source.text : listed;
    // Most files do not name it at all: the search for its first occurrence says so before anything else is looked at.
    const first = nextWordAt(text, simple);
    if (first < 0 || !isCode(fsPath)) continue;
    if (files.excluded(fsPath)) {
      sites.push({ fsPath, text: '', position: 0, label: () => undefined });
      continue;
    }
    let lines: Lines | undefined;
    for (let position = first; position >= 0; position = nextWordAt(text, simple, position + simple.length)) {
      if (inside(declared, fsPath, position, position) || search.avoid.some((span) => inside(span, fsPath, position, position))) continue;
      lines ??= files.linesOf(text, fsPath);
      const line = lines.slice(lines.lineOf(position), lines.lineOf(position));
      if (/^\s*(import|export\s*\{|export\s+\*)/.test(line) || /^\s*(\/\/|\*|\/\*)/.test(line)) continue;
      sites.push({ fsPath, text, position, label: () => declarationAt(fsPath, text, position)?.name });
      if (sites.length > 50) break;
    }
  }
  return chooseReferences(sites, files);
}

// ---------------------------------------------------------------------------------------------------------------
// Recent positions and open documents (syntax only)

/**
 * A few lines around each visited place, most recent first: not the target's own lines, not a place next to one
 * already taken, nothing outside the workspace. A place in an excluded file becomes a stub, which is not read.
 */
function recentPieces(input: RequestContextInput, files: WorkspaceFiles, target: { fileName: string; startLine: number; endLine: number }): Piece[] {
  const pieces: Piece[] = [];
  for (const visit of input.recent) {
    if (pieces.filter((p) => !p.stub).length >= MAX_RECENT) break;
    const fsPath = visit.uri === input.document.uri ? input.document.fsPath : uriToPath(visit.uri);
    if (!fsPath || files.relative(fsPath) === undefined) continue;
    const fileName = resolvePath(fsPath);
    if (files.excluded(fileName)) {
      if (!pieces.some((p) => p.stub && p.fsPath === fileName)) pieces.push(stub(fileName, files));
      continue;
    }
    const text = files.text(fileName);
    if (text === undefined) continue;
    const lines = files.linesOf(text, fileName);
    const last = lines.count - 1;
    // The range may be from an older version: clamped to the text as it is now.
    const first = Math.min(Math.max(0, visit.range.start.line), last);
    let end = Math.min(Math.max(first, visit.range.end.line), last);
    if (end > first && visit.range.end.character === 0) end--;
    if (fileName === target.fileName && first <= target.endLine && target.startLine <= end) continue;
    const focusEnd = Math.min(end, first + MAX_RECENT_SPAN - 1);
    const { startLine, endLine } = windowAround(lines, first, focusEnd, RECENT_AROUND);
    if (pieces.some((p) => p.fsPath === fileName && p.startLine <= endLine && startLine <= p.endLine)) continue;
    const indent = /^\s*/.exec(text.slice(lines.start(first), lines.end(first)))?.[0].length ?? 0;
    const at = lines.start(first) + indent;
    pieces.push({
      fsPath: fileName,
      startLine,
      endLine,
      focus: { startLine: first, endLine: focusEnd },
      text: dedent(lines.slice(startLine, endLine)),
      code: isCode(fileName),
      describe: `the recent position ${files.relative(fileName) ?? fileName}:${first + 1}`,
      ...(isCode(fileName) ? { label: () => declarationAt(fileName, text, at)?.name } : {}),
    });
  }
  return pieces;
}

/**
 * Each other open document's best parts, best first: declarations that share a name with the target (declaring what
 * it uses or the user names, or using the target's own name), smaller before larger; then the head of the file.
 */
function openDocumentPieces(input: RequestContextInput, files: WorkspaceFiles, identifiers: Set<string>, requested: RequestName[]): Piece[][] {
  const targetName = input.target.name.split('.').pop() ?? input.target.name;
  const named = new Set([...identifiers, ...requested.map((n) => n.simple)]);
  const wordName = /^[A-Za-z_$][\w$]*$/.test(targetName);
  const recency = new Map<string, number>();
  input.recent.forEach((visit, i) => {
    if (!recency.has(visit.uri)) recency.set(visit.uri, i);
  });
  const scored: { document: DocumentSnapshot; score: number; choices: Piece[] }[] = [];
  for (const document of files.openDocuments) {
    if (!document.fsPath) continue;
    const fsPath = resolvePath(document.fsPath);
    const relative = files.relative(fsPath);
    if (relative === undefined) continue;
    const code = isSupportedLanguage(document.languageId);
    if (files.excluded(fsPath)) {
      scored.push({ document, score: -1, choices: [stub(fsPath, files)] });
      continue;
    }
    const lines = files.linesOf(document.text, fsPath);
    const ranked: { piece: Piece; score: number; size: number; start: number }[] = [];
    if (code) {
      for (const declaration of listDeclarations(fsPath, document.text)) {
        const body = document.text.slice(declaration.start, declaration.end);
        const score = (named.has(declaration.simpleName) ? 3 : 0) + (wordName && declaration.simpleName !== targetName && nextWordAt(body, targetName) >= 0 ? 2 : 0);
        if (score === 0) continue;
        const start = declaration.existingDoc?.start ?? declaration.start;
        const startLine = lines.lineOf(start);
        const endLine = lines.lineOf(declaration.end);
        const piece: Piece = { fsPath, startLine, endLine, text: dedent(lines.slice(startLine, endLine)), code, describe: `the open document ${relative} (${declaration.name})`, label: () => declaration.name };
        const bodies = declaration.kind === 'class' ? classBodiesAt(fsPath, document.text, declaration.start) : undefined;
        if (bodies) {
          const outline = dedent(withCuts(document.text, lines.start(startLine), lines.end(endLine), bodies));
          if (outline.length < piece.text.length) piece.outline = outline;
        }
        ranked.push({ piece: capped(piece, MAX_LINES.open), score, size: declaration.end - declaration.start, start });
      }
    }
    ranked.sort((a, b) => b.score - a.score || a.size - b.size || a.start - b.start);
    const headEnd = Math.min(lines.count - 1, HEAD_LINES - 1);
    const head: Piece = { fsPath, startLine: 0, endLine: headEnd, text: lines.slice(0, headEnd), code, describe: `the open document ${relative}` };
    scored.push({ document, score: ranked[0]?.score ?? 0, choices: [...ranked.slice(0, 3).map((r) => r.piece), head] });
  }
  const visited = (document: DocumentSnapshot): number => recency.get(document.uri) ?? Number.MAX_SAFE_INTEGER;
  scored.sort((a, b) => b.score - a.score || visited(a.document) - visited(b.document) || a.document.uri.localeCompare(b.document.uri));
  const excluded = scored.filter((s) => s.score < 0);
  const included = scored.filter((s) => s.score >= 0).slice(0, MAX_OPEN_DOCUMENTS);
  return [...excluded, ...included].map((s) => s.choices);
}

// ---------------------------------------------------------------------------------------------------------------
// The budget

const NOUNS: Record<Category, [string, string]> = {
  enclosing: ['enclosing declaration', 'enclosing declarations'],
  symbol: ['symbol', 'symbols'],
  recent: ['recent position', 'recent positions'],
  open: ['open document', 'open documents'],
  reference: ['symbol reference', 'symbol references'],
};

/**
 * Fills the budget in priority order (enclosing, symbols, recent positions, open documents, references). A piece
 * that does not fit whole is tried as its outline, then cut in the middle to what is left; after a cut (or a piece
 * that cannot be cut small enough) the budget is spent and the rest is counted in the omissions.
 */
function fill(plan: Planned[], files: WorkspaceFiles, redactor: Redactor, budgetTokens: number): RequestContext {
  const maxChars = Math.max(0, Math.floor(Number.isFinite(budgetTokens) ? budgetTokens : 0)) * 4;
  let context: RequestContext = { recent: [], openDocuments: [], symbols: [], tokens: 0, omitted: [] };
  const privacy: string[] = [];
  const notes: string[] = [];
  const left = new Map<Category, number>();
  /** Lines the context shows: whole (every line visible) or in part (an outline, a cut). */
  const shown: { fsPath: string; startLine: number; endLine: number; whole: boolean }[] = [];
  const shownShare = (piece: Piece, range: { startLine: number; endLine: number }, wholeOnly: boolean): number => {
    let count = 0;
    for (let line = range.startLine; line <= range.endLine; line++) {
      if (shown.some((s) => s.fsPath === piece.fsPath && (s.whole || !wholeOnly) && s.startLine <= line && line <= s.endLine)) count++;
    }
    return count / (range.endLine - range.startLine + 1);
  };
  /** Where each placed symbol is in `context.symbols`, for its references. */
  const placed = new Map<CandidateSymbol, number>();
  let spent = false;

  for (const step of plan) {
    // The gate: the file as excluded now, whatever produced the piece (an untitled buffer is no workspace file).
    const excluded = path.isAbsolute(step.piece.fsPath) ? files.excluded(step.piece.fsPath) : undefined;
    if (excluded) {
      const note = describe(excluded);
      if (!privacy.includes(note)) privacy.push(note);
      continue;
    }
    if (step.piece.stub) continue;
    // References of a symbol left out go with it.
    const at = step.category === 'reference' && step.symbol ? placed.get(step.symbol) : undefined;
    if (step.category === 'reference' && (at === undefined || (context.symbols[at]?.references.length ?? 0) >= MAX_REFERENCES)) continue;
    // A recent place or a reference whose lines the context shows whole is not repeated; nor an open document's
    // part that is mostly in the context already, even as an outline.
    const covered = (choice: Piece): boolean => {
      if (step.category === 'open') return shownShare(choice, choice, false) > 0.5;
      return choice.focus !== undefined && shownShare(choice, choice.focus, true) === 1;
    };
    const piece = (step.choices ?? [step.piece]).find((choice) => !covered(choice));
    if (!piece) continue;
    if (spent) {
      left.set(step.category, (left.get(step.category) ?? 0) + 1);
      continue;
    }
    const snippet = toSnippet(piece, files, redactor.redact(piece.text));
    let next: RequestContext | undefined = place(context, step, snippet, at);
    if (renderedLength(next) > maxChars) next = undefined;
    // Only a piece shown whole (not an outline, not cut) covers its lines.
    const whole = next !== undefined && !piece.partial;
    const outline = !next && piece.outline !== undefined ? redactor.redact(piece.outline) : undefined;
    if (!next && outline !== undefined) {
      next = place(context, step, { ...snippet, text: outline }, at);
      if (renderedLength(next) <= maxChars) notes.push(`${piece.describe}: shown as an outline for the budget`);
      else next = undefined;
    }
    if (!next) {
      spent = true;
      next = cutToFit(context, step, { ...snippet, text: outline ?? snippet.text }, at, maxChars, piece.code, outline !== undefined ? piece.outlineKeep : piece.keep);
      if (next) notes.push(`${piece.describe}: cut to fit the budget`);
    }
    if (!next) {
      left.set(step.category, (left.get(step.category) ?? 0) + 1);
      continue;
    }
    context = next;
    shown.push({ fsPath: piece.fsPath, startLine: piece.startLine, endLine: piece.endLine, whole });
    if (step.category === 'symbol' && step.symbol) placed.set(step.symbol, context.symbols.length - 1);
  }
  const budget = (['enclosing', 'symbol', 'recent', 'open', 'reference'] as const)
    .filter((category) => (left.get(category) ?? 0) > 0)
    .map((category) => {
      const count = left.get(category) as number;
      return `${count} ${NOUNS[category][count === 1 ? 0 : 1]} beyond the budget`;
    });
  context = { ...context, omitted: [...privacy, ...notes, ...budget] };
  context.tokens = Math.ceil(renderedLength(context) / 4);
  return context;
}

/** Cuts a snippet's text until the whole rendering fits; undefined when too little room is left. */
function cutToFit(context: RequestContext, step: Planned, snippet: ContextSnippet, at: number | undefined, maxChars: number, code: boolean, keep: Keep | undefined): RequestContext | undefined {
  let room = maxChars - renderedLength(place(context, step, { ...snippet, text: '' }, at));
  // The fence may grow with the text's own backticks: a second or third try takes the difference off.
  for (let attempt = 0; attempt < 4; attempt++) {
    const cut = cutLines(snippet.text, { chars: room }, code, keep);
    if (cut === undefined) return undefined;
    const next = place(context, step, { ...snippet, text: cut.text }, at);
    const size = renderedLength(next);
    if (size <= maxChars) return next;
    room -= size - maxChars;
  }
  return undefined;
}

function describe(exclusion: Exclusion): string {
  if (exclusion.why === 'outside') return `${exclusion.path}: leads outside the workspace`;
  return exclusion.why === 'secret' ? `${exclusion.path}: a secrets file (by its name)` : `${exclusion.path}: ignored by ${exclusion.source ?? 'an ignore file'}`;
}

function toSnippet(piece: Piece, files: WorkspaceFiles, text: string): ContextSnippet {
  const file = path.isAbsolute(piece.fsPath) ? (files.relative(piece.fsPath) ?? path.basename(piece.fsPath)) : piece.fsPath;
  const label = piece.label?.();
  return { file, startLine: piece.startLine, endLine: piece.endLine, text, ...(label ? { label } : {}) };
}

/** The context with one more snippet, as a new object (the previous one stays valid for another attempt). */
function place(context: RequestContext, step: Planned, snippet: ContextSnippet, at: number | undefined): RequestContext {
  const next: RequestContext = { ...context, recent: [...context.recent], openDocuments: [...context.openDocuments], symbols: [...context.symbols] };
  switch (step.category) {
    case 'enclosing': {
      const { label: _label, ...rest } = snippet;
      next.enclosing = { name: step.enclosing?.name ?? '', kind: step.enclosing?.kind ?? 'declaration', ...rest };
      break;
    }
    case 'symbol':
      next.symbols.push({ name: step.symbol?.name ?? '', kind: step.symbol?.kind ?? '', declaration: snippet, references: [] });
      break;
    case 'recent':
      next.recent.push(snippet);
      break;
    case 'open':
      next.openDocuments.push(snippet);
      break;
    case 'reference': {
      const symbol = at !== undefined ? next.symbols[at] : undefined;
      if (symbol) next.symbols[at as number] = { ...symbol, references: [...symbol.references, snippet] };
      break;
    }
  }
  return next;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

/**
 * The context as a prompt section: markdown headings with `file:line` (1-based, as people write them) and fenced
 * code, in a fixed order (enclosing, symbols with their references, recent positions, open documents). The same
 * context always renders the same text; an empty one renders nothing. The omissions are not rendered: they are for
 * the user and the trace, and a path is all they would tell a model.
 */
export function renderRequestContext(context: RequestContext): string {
  const sections = sectionsOf(context).map(({ heading, blocks }) => [...(heading ? [heading] : []), ...blocks.map((b) => `${b.head}\n${fenced(b.snippet)}`)].join('\n\n'));
  return sections.length > 0 ? `## Context\n\n${sections.join('\n\n')}\n` : '';
}

/**
 * `renderRequestContext(context).length`, without building the text: the budget is checked after each piece placed
 * (and each cut tried), and rendering the whole context every time made that quadratic. The same parts, counted;
 * each snippet's fenced block is measured once.
 */
export function renderedLength(context: RequestContext): number {
  const sections = sectionsOf(context).map(({ heading, blocks }) => blocks.reduce((sum, b) => sum + b.head.length + 1 + fencedLength(b.snippet), heading ? heading.length + 2 : 0) + 2 * (blocks.length - 1));
  return sections.length > 0 ? '## Context\n\n'.length + sections.reduce((sum, section) => sum + section, 0) + 2 * (sections.length - 1) + 1 : 0;
}

/**
 * What the context renders, in order: its sections, each an optional heading and its blocks (a heading line over one
 * snippet's fenced code). Both the rendering and its length are made from these.
 */
function sectionsOf(context: RequestContext): { heading?: string; blocks: { head: string; snippet: ContextSnippet }[] }[] {
  const sections: { heading?: string; blocks: { head: string; snippet: ContextSnippet }[] }[] = [];
  if (context.enclosing) sections.push({ blocks: [{ head: `### Enclosing ${context.enclosing.kind} \`${context.enclosing.name}\` (${where(context.enclosing)})`, snippet: context.enclosing }] });
  if (context.symbols.length > 0) {
    const blocks: { head: string; snippet: ContextSnippet }[] = [];
    for (const symbol of context.symbols) {
      blocks.push({ head: `#### ${symbol.kind} \`${symbol.name}\` (${where(symbol.declaration)})`, snippet: symbol.declaration });
      for (const reference of symbol.references) blocks.push({ head: `Used at ${where(reference)}${inLabel(reference)}:`, snippet: reference });
    }
    sections.push({ heading: '### Symbols the request names or the code uses', blocks });
  }
  const listed = (snippet: ContextSnippet): { head: string; snippet: ContextSnippet } => ({ head: `#### ${where(snippet)}${inLabel(snippet)}`, snippet });
  if (context.recent.length > 0) sections.push({ heading: '### Recently visited', blocks: context.recent.map(listed) });
  if (context.openDocuments.length > 0) sections.push({ heading: '### Other open documents', blocks: context.openDocuments.map(listed) });
  return sections;
}

/** `fenced(snippet).length` by snippet, with the text and file it was measured on (so a changed snippet is measured again). */
const fencedLengths = new WeakMap<ContextSnippet, { text: string; file: string; length: number }>();

function fencedLength(snippet: ContextSnippet): number {
  const known = fencedLengths.get(snippet);
  if (known && known.text === snippet.text && known.file === snippet.file) return known.length;
  const length = fenced(snippet).length;
  fencedLengths.set(snippet, { text: snippet.text, file: snippet.file, length });
  return length;
}

function where(snippet: ContextSnippet): string {
  return snippet.endLine > snippet.startLine ? `${snippet.file}:${snippet.startLine + 1}-${snippet.endLine + 1}` : `${snippet.file}:${snippet.startLine + 1}`;
}

function inLabel(snippet: ContextSnippet): string {
  return snippet.label ? ` in \`${snippet.label}\`` : '';
}

const FENCE_LANGUAGES: Record<string, string> = { ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'jsx', json: 'json', md: 'markdown' };

/** A fence longer than any run of backticks in the text, so code holding a fence of its own cannot close it early. */
function fenced(snippet: ContextSnippet): string {
  const longest = Math.max(0, ...[...snippet.text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const language = FENCE_LANGUAGES[path.posix.extname(snippet.file).slice(1).toLowerCase()] ?? '';
  return `${fence}${language}\n${snippet.text}\n${fence}`;
}
