// A lexical retrieval index over a workspace's declarations and comments (BM25F with field boosts), for questions and code retrieval.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { workspaceExclusion } from '../privacy/exclusion.js';
import type { WorkspaceExclusion } from '../privacy/exclusion.js';
import { PRIVATE_KEY_HEADER, redactSecrets } from '../privacy/secrets.js';
import { isUnsettled } from '../workspace/fileTimes.js';
import { MAX_WORKSPACE_FILE_BYTES, untilAborted, workspaceFiles } from '../workspace/workspaceFiles.js';
import type { FileStamp, WorkspaceFiles } from '../workspace/workspaceFiles.js';
import { pruneCacheFolder, workspaceCacheFile } from '../workspace/userCache.js';
import { changedSpan } from '../edits/textEdits.js';
import type { ChangedSpan } from '../edits/textEdits.js';
import { scriptKindOf, withSyntaxTree } from './declarations.js';

// ---------------------------------------------------------------------------------------------------------------
// Public shapes

/** What a location is: a declaration kind, a comment block, or a file's top-level code. */
export type LocationKind =
  | 'function'
  | 'method'
  | 'constructor'
  | 'getter'
  | 'setter'
  | 'property'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'namespace'
  | 'variable'
  | 'comment'
  | 'module';

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

// ---------------------------------------------------------------------------------------------------------------
// Tokenisation: identifiers split by case, stop words, synonyms, a light stemmer; the same for code and queries.

/** Words that carry no meaning in prose or questions. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor not no so to of for in on at by from into onto with without within about over under ' +
    'is are was were be been being am do does did done doing have has had having can could would should will shall may might must ' +
    'i me my we us our you your he him his she her it its they them their this that these those there here ' +
    'what which who whom whose whether where when why how all any each every some such own same other than then too very just also ' +
    'if else while as up out off again once only more most much many few both either neither s t e g eg ie etc'
  ).split(' '),
);

/** Question wording that names no code: "where is X implemented", "which function handles Y". */
const QUERY_NOISE: ReadonlySet<string> = new Set(
  (
    'implemented implement implements implementation defined define defines definition declared declare located locate ' +
    'find logic code codebase project repository repo workspace file files function functions method methods ' +
    'happen happens happening work works working place places part parts thing things somewhere anywhere please show tell ' +
    'explain look see know want need like use used using uses'
  ).split(' '),
);

/** Words that are syntax in code, dropped when they stand alone (their use in identifiers, like `getUser`, stays). */
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function ' +
    'if import in instanceof new null return super switch this throw true try typeof var void while with as implements ' +
    'interface let package private protected public static yield async await of type readonly declare abstract any ' +
    'boolean number string symbol unknown never undefined object from get set keyof infer is namespace module require ' +
    'override satisfies accessor bigint unique asserts'
  ).split(' '),
);

/** Path segments that say nothing about what a file does. */
const PATH_NOISE: ReadonlySet<string> = new Set(['src', 'lib', 'ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts', 'index']);

/**
 * Abbreviations and variants folded onto one word: code says `cfg`, `req`, `init`; questions say
 * "configuration", "request", "initialise". A stemmer alone cannot join those.
 */
const SYNONYM_GROUPS: Record<string, readonly string[]> = {
  config: ['config', 'configs', 'configuration', 'configurations', 'configure', 'configured', 'configures', 'configuring', 'cfg', 'conf', 'settings', 'setting'],
  auth: ['auth', 'authn', 'authz', 'authentication', 'authenticate', 'authenticated', 'authorization', 'authorisation', 'authorize', 'authorise', 'authorized'],
  init: ['init', 'initialize', 'initialise', 'initialized', 'initialised', 'initialization', 'initialisation', 'initializes'],
  env: ['env', 'environment', 'environments'],
  db: ['db', 'database', 'databases'],
  error: ['error', 'errors', 'err', 'errs'],
  message: ['message', 'messages', 'msg', 'msgs'],
  request: ['request', 'requests', 'req', 'reqs'],
  response: ['response', 'responses', 'res', 'resp'],
  arg: ['arg', 'args', 'argument', 'arguments', 'argv'],
  param: ['param', 'params', 'parameter', 'parameters'],
  dir: ['dir', 'dirs', 'directory', 'directories', 'folder', 'folders'],
  util: ['util', 'utils', 'utility', 'utilities', 'helper', 'helpers'],
  ms: ['ms', 'millisecond', 'milliseconds', 'millis'],
  max: ['max', 'maximum', 'maximal'],
  min: ['min', 'minimum', 'minimal'],
  app: ['app', 'apps', 'application', 'applications'],
  fn: ['fn', 'func', 'callback', 'callbacks', 'cb'],
  attempt: ['attempt', 'attempts', 'attempted', 'tries', 'try'],
};

const SYNONYMS: ReadonlyMap<string, string> = new Map(Object.entries(SYNONYM_GROUPS).flatMap(([canonical, words]) => words.map((w) => [w, canonical] as const)));

/** Splits an identifier into its lower-case words: `parseHTTPConfig_v2` → parse, http, config, v, 2. */
export function splitIdentifier(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[\s_$]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

/** A light suffix stripper: enough to join retry/retries/retrying and load/loader/loading, cheap, and the same both ways. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ied') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ['ation', 'ing', 'ion', 'ed', 'er', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= (suffix === 'ion' ? 4 : 3)) {
      w = w.slice(0, -suffix.length);
      // mapping → mapp → map, logged → logg → log
      if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.length >= 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function normalise(part: string): string | undefined {
  if (part.length < 2 || STOP_WORDS.has(part) || /^[0-9]+$/.test(part)) return undefined;
  return SYNONYMS.get(part) ?? stem(part);
}

const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * The terms of a text: every word split by case and underscores, normalised, plus the whole identifier as one
 * term when it has several parts, so an exact `parseConfig` beats a `parse` here and a `config` there.
 */
export function terms(text: string, mode: 'code' | 'query' = 'code'): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (mode === 'code' && KEYWORDS.has(word)) continue;
    if (mode === 'query') {
      const lower = word.toLowerCase();
      if (QUERY_NOISE.has(lower) || STOP_WORDS.has(lower)) continue;
    }
    for (const term of wordTerms(word)) out.push(term);
  }
  return out;
}

/** Identifiers repeat all over a code base: each word is split and normalised once (the memo is bounded). */
const wordMemo = new Map<string, readonly string[]>();
const WORD_MEMO_SIZE = 50_000;

function wordTerms(word: string): readonly string[] {
  let cached = wordMemo.get(word);
  if (cached) return cached;
  const parts = splitIdentifier(word);
  const out: string[] = [];
  for (const part of parts) {
    const term = normalise(part);
    if (term) out.push(term);
  }
  if (parts.length > 1) out.push(parts.join(''));
  cached = out;
  if (wordMemo.size >= WORD_MEMO_SIZE) wordMemo.clear();
  wordMemo.set(word, cached);
  return cached;
}

// ---------------------------------------------------------------------------------------------------------------
// Documents: declarations and comment blocks extracted by syntax alone.

/** Fields in boost order; a document's terms carry one count per field. */
const FIELDS = ['name', 'signature', 'comment', 'context', 'body'] as const;
const FIELD_COUNT = FIELDS.length;
/** Name > signature > comment > file context > body identifiers. */
const FIELD_WEIGHTS = [6, 2.5, 2, 1, 1] as const;
/** Length normalisation per field: names are short by nature, bodies vary wildly. */
const FIELD_B = [0.3, 0.5, 0.6, 0.3, 0.75] as const;
const K1 = 1.2;
/** Most characters of one document's text that are tokenised (bounds the work on huge classes). */
const MAX_DOCUMENT_CHARS = 64_000;
const MAX_SIGNATURE_CHARS = 600;

/** A document before indexing: its place in the file and the text of each field. */
export interface DocumentDraft {
  kind: LocationKind;
  name: string;
  start: number;
  end: number;
  commentStart: number;
  fields: [name: string, signature: string, comment: string, context: string, body: string];
}

interface IndexedDocument {
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
  /** FIELD_COUNT counts per term. */
  counts: Uint16Array;
  lengths: Uint16Array;
}

interface IndexedFile {
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

/**
 * A word a declaration `visit` records starts with: `function`, `class`, `interface`, `enum`, `namespace`, `module`,
 * `global` (`declare global`), or `type` followed by a space or a comment (a type alias; not `type:` or `type,`).
 */
const DECLARING_WORD = /\b(?:function|class|interface|enum|namespace|module|global)\b|\btype(?=\s|\/[*/])/;

/** Comment text without its markers, one line per line. */
function commentProse(text: string): string {
  return text
    .replace(/^\/\*\*?|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/+|\*)\s?/, '').trim())
    .filter((line) => line !== '')
    .join('\n');
}

function isFunctionValue(node: ts.Node | undefined): boolean {
  return node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

/** Comment blocks: runs of comments with no blank line between them. */
function commentBlocks(text: string, ranges: readonly ts.CommentRange[]): { start: number; end: number }[] {
  const blocks: { start: number; end: number }[] = [];
  for (const range of ranges) {
    const last = blocks[blocks.length - 1];
    if (last && !/\n[ \t]*\r?\n/.test(text.slice(last.end, range.pos))) last.end = range.end;
    else blocks.push({ start: range.pos, end: range.end });
  }
  return blocks;
}

/** Declarations (with their leading comments), detached comment blocks, and each file's loose top-level code. */
export function extractDocuments(relativePath: string, text: string, parsed?: ts.SourceFile): DocumentDraft[] {
  return extract(relativePath, text, parsed, undefined, false).drafts;
}

/**
 * What one top-level statement gives, its offsets counted from its full start. It depends on the statement's text
 * alone, besides whether it starts the file (where comments are read differently) and whether the file is a module,
 * so an open document's next version takes it as it is for every statement the user did not change.
 */
interface StatementPart {
  /** Whether it started the file. */
  atStart: boolean;
  /** Its declarations, their context field without the file's header. */
  drafts: DocumentDraft[];
  /** Comment blocks in it that belong to no declaration. */
  detached: DetachedComment[];
  /** When it declares nothing: its text with its comment, part of the file's "module" document. */
  loose: { start: number; text: string } | undefined;
  /** The extractions whose texts its strings are slices of: one, or more for a class put together from its members. */
  generations: readonly number[];
  /** A class's members, by their keys, for a later version that changes the class to take those it did not change. */
  members?: readonly (readonly [key: string, part: MemberPart])[];
  /** Its statement's text from its full start, a slice of the text it was read from: its key in a memo. */
  key: string;
}

/**
 * What one member of a top-level class gives, its offsets counted from the member's full start. Like a statement's
 * part, it depends on the member's text alone, besides the class's name (in the names and context of what it
 * declares) and whether the file is a module: its key holds both of the first, the memo the last.
 */
interface MemberPart {
  drafts: DocumentDraft[];
  detached: DetachedComment[];
  generation: number;
}

/**
 * A comment block that belongs to no declaration. What the index makes of it (its prose, and whether that says enough
 * to be a document) is read on first use and kept with the block: a statement's part keeps its blocks, so an open
 * document's next version reads only the comments of the statements the user changed.
 */
interface DetachedComment {
  start: number;
  end: number;
  prose?: string;
  /** Three terms or more: not a licence stamp, an `eslint-disable` or a separator. */
  informative?: boolean;
}

/** An open document's statements, and its top-level classes' members, as last extracted, by their text. */
export interface StatementMemo {
  generation: number;
  /** Whether the file was a module: top-level `await` parses differently in a script. */
  module: boolean;
  /** The text extracted. */
  text: string;
  parts: Map<string, StatementPart>;
  /**
   * The same parts by their statement's full start in `text`: the next version takes the statements wholly before
   * or after the one span it changed by their place, without reading (and hashing) the text of each.
   */
  at: Map<number, StatementPart>;
  members: Map<string, MemberPart>;
  /** How many of this version's statements were looked for by their text (those the changed span touches). */
  byText: number;
}

/**
 * Most extractions the parts of one memo come from, statements' and members' together. A part's strings are slices of
 * the text it was read from, which they keep alive: beyond this many, the parts of the extraction with the fewest are
 * read again from the current text. This bounds the versions of a file held at once. It costs the statement (or
 * member) typed in while the user works in a few places, and at most an eighth of the file's parts per version when
 * the edits go everywhere.
 */
const PART_GENERATIONS = 8;

/** A class's name as its members' drafts carry it. */
function className(node: ts.ClassDeclaration): string {
  return node.name?.text ?? 'default';
}

/** A draft moved `by` characters (from offsets counted in a statement or member to the file's, or back). */
function movedDraft(draft: DocumentDraft, by: number): DocumentDraft {
  return { ...draft, start: draft.start + by, end: draft.end + by, commentStart: draft.commentStart + by };
}

/** A comment block moved `by` characters (before anything is read of it: that is kept on a statement's part's own blocks). */
function movedBlock(block: DetachedComment, by: number): DetachedComment {
  return { start: block.start + by, end: block.end + by };
}

/**
 * Like `extractDocuments`, taking the statements unchanged since `earlier` from it; returns the memo for the next
 * version, and where the text differs from `earlier`'s when there was one.
 */
export function extractDocumentsReusing(relativePath: string, text: string, parsed: ts.SourceFile | undefined, earlier: StatementMemo | undefined): { drafts: DocumentDraft[]; memo: StatementMemo; span?: ChangedSpan } {
  const { drafts, memo, span } = extract(relativePath, text, parsed, earlier, true);
  return { drafts, memo: memo as StatementMemo, ...(span ? { span } : {}) };
}

function extract(relativePath: string, text: string, parsed: ts.SourceFile | undefined, earlier: StatementMemo | undefined, remember: boolean): { drafts: DocumentDraft[]; memo: StatementMemo | undefined; span?: ChangedSpan } {
  // No parent pointers: `visit` passes the parent itself, which saves a pass over every node. An open document's
  // parse comes from the code-action path's trees (`parsed`), which has them; nothing here reads them.
  const source = parsed ?? ts.createSourceFile(relativePath, text, ts.ScriptTarget.Latest, false, scriptKindOf(relativePath));
  const module = ts.isExternalModule(source);
  const generation = (earlier?.generation ?? 0) + 1;
  const reusable = earlier?.module === module ? earlier : undefined;
  const memo: StatementMemo | undefined = remember ? { generation, module, text, parts: new Map(), at: new Map(), members: new Map(), byText: 0 } : undefined;
  const seenComments = new Set<number>();
  const pathTerms = relativePath
    .replace(/\.[^./]+$/, '')
    .split(/[/.]/)
    .filter((segment) => !PATH_NOISE.has(segment.toLowerCase()))
    .join(' ');
  // The statement being read: what it declares, and its comments that belong to no declaration.
  let drafts: DocumentDraft[] = [];
  let detached: DetachedComment[] = [];

  /** The comment block directly above `node` (no blank line between); earlier blocks are detached comments. */
  const leading = (node: ts.Node): { start: number; text: string } | undefined => {
    const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
    const blocks = commentBlocks(text, ranges);
    const last = blocks[blocks.length - 1];
    const attached = last !== undefined && !/\n[ \t]*\r?\n/.test(text.slice(last.end, node.getStart(source)));
    for (const block of attached ? blocks.slice(0, -1) : blocks) {
      if (!seenComments.has(block.start)) {
        seenComments.add(block.start);
        detached.push(block);
      }
    }
    if (!last || !attached) return undefined;
    seenComments.add(last.start);
    return { start: last.start, text: commentProse(text.slice(last.start, last.end)) };
  };

  const add = (kind: LocationKind, name: string, node: ts.Node, anchor: ts.Node, signature: string, container: string | undefined, nameWords = name): void => {
    const comment = leading(anchor);
    const start = node.getStart(source);
    const body = text.slice(start, Math.min(node.getEnd(), start + MAX_DOCUMENT_CHARS));
    drafts.push({
      kind,
      name: container ? `${container}.${name}` : name,
      start,
      end: node.getEnd(),
      commentStart: comment?.start ?? anchor.getStart(source),
      fields: [nameWords, signature.replace(/\s+/g, ' ').slice(0, MAX_SIGNATURE_CHARS), comment?.text ?? '', `${pathTerms} ${container ?? ''}`, body],
    });
  };

  const headerOf = (node: ts.Node, bodyStart: number | undefined): string => text.slice(node.getStart(source), bodyStart ?? node.getEnd());

  const visit = (node: ts.Node, parent: ts.Node, container: string | undefined): void => {
    // A function's body declares something only where it has a word that starts a declaration; most have none, and
    // their nodes (most of a file's) need not be visited.
    if ((parent as { body?: ts.Node }).body === node && ts.isFunctionLike(parent) && !DECLARING_WORD.test(text.slice(node.pos, node.end))) return;
    let nextContainer = container;
    if (ts.isFunctionDeclaration(node)) {
      const name = node.name?.text ?? 'default';
      add('function', name, node, node, headerOf(node, node.body?.getStart(source)), container);
      nextContainer = container ? `${container}.${name}` : name;
    } else if (ts.isClassDeclaration(node) || (ts.isClassExpression(node) && node.name)) {
      const name = node.name?.text ?? 'default';
      add('class', name, node, node, text.slice(node.getStart(source), node.members.pos), container);
      nextContainer = name;
    } else if (ts.isInterfaceDeclaration(node)) {
      add('interface', node.name.text, node, node, headerOf(node, undefined), container);
      nextContainer = node.name.text;
    } else if (ts.isTypeAliasDeclaration(node)) {
      add('type', node.name.text, node, node, headerOf(node, undefined), container);
    } else if (ts.isEnumDeclaration(node)) {
      add('enum', node.name.text, node, node, headerOf(node, undefined), container);
    } else if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name)) {
      add('namespace', node.name.text, node, node, headerOf(node, node.body?.getStart(source)), container);
      nextContainer = node.name.text;
    } else if (ts.isClassLike(parent) && container) {
      // Class members; interface members stay part of their interface.
      if (ts.isMethodDeclaration(node)) add('method', node.name.getText(source), node, node, headerOf(node, node.body?.getStart(source)), container);
      else if (ts.isConstructorDeclaration(node)) add('constructor', 'constructor', node, node, headerOf(node, node.body?.getStart(source)), container, container);
      else if (ts.isGetAccessorDeclaration(node)) add('getter', node.name.getText(source), node, node, headerOf(node, node.body?.getStart(source)), container);
      else if (ts.isSetAccessorDeclaration(node)) add('setter', node.name.getText(source), node, node, headerOf(node, node.body?.getStart(source)), container);
      else if (ts.isPropertyDeclaration(node)) {
        const fn = isFunctionValue(node.initializer);
        add(fn ? 'method' : 'property', node.name.getText(source), node, node, fn ? headerOf(node, (node.initializer as ts.ArrowFunction).body.getStart(source)) : headerOf(node, undefined), container);
      }
    } else if (ts.isVariableStatement(node) && (ts.isSourceFile(parent) || ts.isModuleBlock(parent))) {
      const single = node.declarationList.declarations.length === 1;
      for (const declaration of node.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const fn = isFunctionValue(declaration.initializer);
        const span = single ? node : declaration;
        const signature = fn ? text.slice(span.getStart(source), (declaration.initializer as ts.ArrowFunction).body.getStart(source)) : text.slice(span.getStart(source), Math.min(span.getEnd(), span.getStart(source) + 200));
        add(fn ? 'function' : 'variable', declaration.name.text, span, single ? node : declaration, signature, container);
      }
      return;
    }
    ts.forEachChild(node, (child) => visit(child, node, nextContainer));
  };

  /** Reads one top-level statement; offsets in what it returns count from the statement's full start. */
  const read = (statement: ts.Statement): StatementPart => {
    const at = statement.pos;
    drafts = [];
    detached = [];
    let loose: StatementPart['loose'];
    visit(statement, source, undefined);
    if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)) {
      // A comment above an import is about the file, not the import: every block there is detached.
      for (const block of commentBlocks(text, ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [])) {
        if (!seenComments.has(block.start)) {
          seenComments.add(block.start);
          detached.push(block);
        }
      }
    } else if (drafts.length === 0) {
      // Top-level code outside declarations (test suites, scripts, entry points) joins the file's "module" document.
      const comment = leading(statement);
      loose = { start: (comment?.start ?? statement.getStart(source)) - at, text: `${comment?.text ?? ''}\n${text.slice(statement.getStart(source), statement.getEnd())}` };
    }
    for (const draft of drafts) {
      draft.start -= at;
      draft.end -= at;
      draft.commentStart -= at;
    }
    return { atStart: at === 0, drafts, detached: detached.map((block) => movedBlock(block, -at)), loose, generations: [generation], key: text.slice(at, statement.end) };
  };

  /** A member's part: what visiting it gives, its offsets counted from its full start. */
  const readMember = (member: ts.ClassElement, statement: ts.ClassDeclaration, name: string): MemberPart => {
    const outer = [drafts, detached] as const;
    drafts = [];
    detached = [];
    visit(member, statement, name);
    const at = member.pos;
    const part: MemberPart = { drafts: drafts.map((draft) => movedDraft(draft, -at)), detached: detached.map((block) => movedBlock(block, -at)), generation };
    [drafts, detached] = outer;
    return part;
  };

  /**
   * Reads a top-level class as `read` does, taking the part of each member from `members` where it has one (the
   * members the user did not change), so that typing in a method reads that method again rather than the class.
   */
  const readClass = (statement: ts.ClassDeclaration, members: readonly (MemberPart | undefined)[], keys: readonly string[]): StatementPart => {
    const at = statement.pos;
    drafts = [];
    detached = [];
    const name = className(statement);
    add('class', name, statement, statement, text.slice(statement.getStart(source), statement.members.pos), undefined);
    const made = new Set([generation]);
    const kept: [string, MemberPart][] = [];
    // In `visit`'s order: modifiers, name, type parameters and heritage clauses as they are, then the members.
    ts.forEachChild(
      statement,
      (child) => visit(child, statement, name),
      (nodes) => {
        if (nodes !== statement.members) {
          for (const node of nodes) visit(node, statement, name);
          return;
        }
        statement.members.forEach((member, i) => {
          const part = members[i] ?? readMember(member, statement, name);
          made.add(part.generation);
          kept.push([keys[i] as string, part]);
          for (const draft of part.drafts) drafts.push(movedDraft(draft, member.pos));
          for (const block of part.detached) detached.push(movedBlock(block, member.pos));
        });
      },
    );
    for (const draft of drafts) {
      draft.start -= at;
      draft.end -= at;
      draft.commentStart -= at;
    }
    return { atStart: at === 0, drafts, detached: detached.map((block) => movedBlock(block, -at)), loose: undefined, generations: [...made], members: kept, key: text.slice(at, statement.end) };
  };

  const declared: DocumentDraft[] = [];
  // Each detached block with the offset its offsets count from: the parts' own blocks, so that what is read of them stays.
  const comments: { block: DetachedComment; at: number }[] = [];
  const loose: string[] = [];
  let looseStart: number | undefined;
  const statements = source.statements;
  // A statement wholly before the span this version changed, or wholly after it, is the earlier version's at the same
  // place (or moved by the change) with the same length; the others are looked for by their text.
  const span = reusable ? changedSpan(reusable.text, text) : undefined;
  const taken = statements.map((statement) => {
    let part: StatementPart | undefined;
    if (span && reusable) {
      const earlierAt = statement.end <= span.start ? statement.pos : statement.pos >= span.afterEnd ? statement.pos - (span.afterEnd - span.beforeEnd) : undefined;
      const there = earlierAt === undefined ? undefined : reusable.at.get(earlierAt);
      if (there?.key.length === statement.end - statement.pos) part = there;
      else {
        part = reusable.parts.get(text.slice(statement.pos, statement.end));
        if (memo) memo.byText += 1;
      }
    }
    return part?.atStart === (statement.pos === 0) ? part : undefined;
  });
  // The members of a top-level class that is read again, by their text and their class's name, with the parts the last
  // version has for them; none for another statement, or without a memo.
  const membersOf = (statement: ts.Statement) => {
    if (!memo || !ts.isClassDeclaration(statement)) return undefined;
    const keys = statement.members.map((member) => `${className(statement)}\n${text.slice(member.pos, member.end)}`);
    return { keys, parts: keys.map((key) => reusable?.members.get(key)) };
  };
  const members = statements.map((statement, i) => (taken[i] === undefined ? membersOf(statement) : undefined));
  const live = new Map<number, number>();
  const count = (made: number): void => void live.set(made, (live.get(made) ?? 0) + 1);
  for (const part of taken) for (const made of part?.generations ?? []) count(made);
  for (const found of members) for (const part of found?.parts ?? []) if (part) count(part.generation);
  if (live.size + (taken.includes(undefined) ? 1 : 0) > PART_GENERATIONS) {
    const release = new Set(
      [...live]
        .sort((a, b) => a[1] - b[1] || a[0] - b[0])
        .slice(0, live.size + 1 - PART_GENERATIONS)
        .map(([made]) => made),
    );
    taken.forEach((part, i) => {
      if (!part?.generations.some((made) => release.has(made))) return;
      taken[i] = undefined;
      // A class taken whole until now is put together from its members after all.
      members[i] = membersOf(statements[i] as ts.Statement);
    });
    for (const found of members) found?.parts.forEach((part, j) => {
      if (part && release.has(part.generation)) found.parts[j] = undefined;
    });
  }
  statements.forEach((statement, i) => {
    const at = statement.pos;
    const found = members[i];
    const part = taken[i] ?? (found ? readClass(statement as ts.ClassDeclaration, found.parts, found.keys) : read(statement));
    memo?.parts.set(part.key, part);
    memo?.at.set(at, part);
    for (const [key, member] of part.members ?? []) memo?.members.set(key, member);
    for (const draft of part.drafts) declared.push(movedDraft(draft, at));
    for (const block of part.detached) comments.push({ block, at });
    if (part.loose) {
      loose.push(part.loose.text);
      looseStart ??= part.loose.start + at;
    }
  });
  for (const block of commentBlocks(text, ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()) ?? [])) {
    if (!seenComments.has(block.start)) comments.push({ block, at: 0 });
  }
  const proseOf = ({ block, at }: { block: DetachedComment; at: number }): string => (block.prose ??= commentProse(text.slice(block.start + at, block.end + at)));

  // The file's header comment says what the whole file is for: every document of the file gets it as context. (The
  // drafts are copies, with fields of their own: the parts' drafts stay as they were read.)
  const firstStatement = source.statements[0];
  const header = comments.find(({ block, at }) => firstStatement === undefined || block.end + at <= firstStatement.getStart(source));
  const headerText = header ? proseOf(header) : '';
  for (const draft of declared) draft.fields = [draft.fields[0], draft.fields[1], draft.fields[2], `${draft.fields[3]} ${headerText}`, draft.fields[4]];

  for (const comment of comments) {
    const prose = proseOf(comment);
    if (!(comment.block.informative ??= terms(prose).length >= 3)) continue; // licence stamps, `// eslint-disable`, separators
    const firstLine = prose.split('\n')[0] ?? '';
    const start = comment.block.start + comment.at;
    const end = comment.block.end + comment.at;
    declared.push({ kind: 'comment', name: firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine, start, end, commentStart: start, fields: ['', '', prose, pathTerms, ''] });
  }
  const looseText = loose.join('\n').slice(0, MAX_DOCUMENT_CHARS);
  if (looseStart !== undefined && terms(looseText).length >= 3) {
    const base = path.posix.basename(relativePath);
    declared.push({ kind: 'module', name: base, start: looseStart, end: text.length, commentStart: looseStart, fields: [base.replace(/\.[^.]+$/, ''), '', headerText, pathTerms, looseText] });
  }
  return { drafts: declared, memo, ...(span ? { span } : {}) };
}

// ---------------------------------------------------------------------------------------------------------------
// The index

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

/** Binary search in an ascending Uint32Array; -1 when absent. */
function indexOfTerm(sorted: Uint32Array, id: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = sorted[mid] as number;
    if (value === id) return mid;
    if (value < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Offsets where lines start, counting `\n` only: the lines the index's locations are numbered by. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The line starts of a text after one change (`span`), from those of the text before it: only the changed part is read. */
export function movedLineStarts(before: readonly number[], span: ChangedSpan, text: string): number[] {
  // Lines starting at or before the change's start have their line break before it; those starting in the changed
  // part are gone; the rest move with the text after it.
  const kept = lineOf(before, span.start);
  const gone = lineOf(before, span.beforeEnd);
  const starts = before.slice(0, kept);
  for (let at = text.indexOf('\n', span.start); at >= 0 && at < span.afterEnd; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  const moved = span.afterEnd - span.beforeEnd;
  const after = before.slice(gone);
  if (moved !== 0) for (let i = 0; i < after.length; i++) after[i] = (after[i] as number) + moved;
  return starts.length === 0 ? after : starts.concat(after);
}

/** 1-based line of an offset. */
function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function isTestPath(relativePath: string): boolean {
  return /(^|\/)(test|tests|__tests__|spec|specs|e2e)\//i.test(relativePath) || /\.(test|spec)\.[cm]?[jt]sx?$/i.test(relativePath);
}

// ---------------------------------------------------------------------------------------------------------------
// The saved index: what a walk read, kept for the next process on the workspace, so its first walk stats the files
// instead of reading and parsing them. One line per file (`"path"\tmtimeMs\tsize\tctimeMs:inode\t[documents]`) after a line naming
// the format, the build that wrote it and the limits; a file whose mtime, size, status-change time or inode differs
// is read again, and a file read within moments of its last change is not saved (see `fileTimes.ts`).

/** Bumped when what a saved line holds changes shape. */
const SAVED_FORMAT = 1;
/** The first save waits this long after the walk, so it never competes with the task that asked for the walk. */
const SAVE_DELAY_MS = 2_000;
/** Later saves (after files changed) come at most this often. */
const SAVE_INTERVAL_MS = 60_000;
/** Saved indexes kept in the cache folder: those of the workspaces opened least recently go first. */
const MAX_SAVED_WORKSPACES = 32;
/** A saved index larger than this is not read (it would take longer than reading the files). */
const MAX_SAVED_BYTES = 256 * 1024 * 1024;

type SavedDocument = [kind: LocationKind, name: string, startLine: number, endLine: number, commentLine: number, signature: string, terms: string[], counts: number[], lengths: number[]];

function isSavedDocument(row: unknown): row is SavedDocument {
  if (!Array.isArray(row) || row.length !== 9) return false;
  const [kind, name, startLine, endLine, commentLine, signature, termList, countList, lengthList] = row as unknown[];
  return (
    typeof kind === 'string' &&
    typeof name === 'string' &&
    Number.isInteger(startLine) &&
    Number.isInteger(endLine) &&
    Number.isInteger(commentLine) &&
    typeof signature === 'string' &&
    Array.isArray(termList) &&
    termList.every((t) => typeof t === 'string') &&
    Array.isArray(countList) &&
    countList.length === termList.length * FIELD_COUNT &&
    Array.isArray(lengthList) &&
    lengthList.length === FIELD_COUNT
  );
}

/** What a saved line checks besides the mtime and size: the status-change time and the inode. */
function savedStampOf(stat: FileStamp): string {
  return `${stat.ctimeMs}:${stat.ino}`;
}

/** The first `count` tab-separated fields of a line, the last one holding the rest. */
function splitFields(line: string, count: number): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  let from = 0;
  for (let i = 0; i < count - 1; i++) {
    const tab = line.indexOf('\t', from);
    if (tab < 0) return [...out, line.slice(from)];
    out.push(line.slice(from, tab));
    from = tab + 1;
  }
  out.push(line.slice(from));
  return out;
}

let buildIdentityMemo: string | undefined;
/** The size and mtime of the module this code was loaded from: a rebuild of the extraction invalidates saved indexes. */
function buildIdentity(): string {
  if (buildIdentityMemo === undefined) {
    try {
      const stat = fs.statSync(fileURLToPath(import.meta.url));
      buildIdentityMemo = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      buildIdentityMemo = 'unknown';
    }
  }
  return buildIdentityMemo;
}

/** The saved files by relative path (each with the rest of its line), or undefined when there is none for `key`. */
async function readSavedIndex(file: string, key: string): Promise<Map<string, string> | undefined> {
  let text: string;
  try {
    const stat = await fsp.stat(file);
    if (stat.size > MAX_SAVED_BYTES) return undefined;
    text = await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  if (lines[0] !== key) return undefined;
  // Read means used: the cache folder keeps the indexes of the workspaces used last (see MAX_SAVED_WORKSPACES).
  const now = new Date();
  await fsp.utimes(file, now, now).catch(() => undefined);
  const saved = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    try {
      const relative: unknown = JSON.parse(line.slice(0, tab));
      if (typeof relative === 'string') saved.set(relative, line.slice(tab + 1));
    } catch {
      // A damaged line: that file is read again.
    }
  }
  return saved;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Longest stretch a walk of the workspace keeps the event loop (milliseconds). */
const WALK_SLICE_MS = 4;

/**
 * The lexical index of one workspace folder. Built on the first search, then kept fresh: each search re-checks
 * the files' mtimes and sizes (at most once per `refreshIntervalMs`) and re-reads only those that changed;
 * an open document's text can be given with `updateDocument` and wins until the file changes on disk.
 */
export class LexicalIndex {
  readonly limits: IndexLimits;
  private readonly files = new Map<string, IndexedFile>();
  /** Declarations by simple name (the last segment of `Config.load`): symbol lookups read one bucket, not the index. */
  private readonly byName = new Map<string, IndexedDocument[]>();
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  /** Documents containing each term id. */
  private readonly df: number[] = [];
  private readonly lengthSums = new Float64Array(FIELD_COUNT);
  private documentCount = 0;
  private nextDocumentId = 0;
  private readonly exclusion: WorkspaceExclusion;
  /** The workspace's listing: which files are indexed. */
  private readonly listing: WorkspaceFiles;
  private lastWalk = 0;
  private walking: Promise<void> | undefined;
  private truncated = false;
  /** Where the index keeps what it read for the next process on this workspace (see "The saved index" above), if anywhere. */
  private readonly cacheFile: string | undefined;
  /** The saved files not yet taken by this process's first walk, by relative path; gone once it ends. */
  private saved: Map<string, string> | undefined;
  private savedRead = false;
  /** Files the last walk took from the saved index, without reading or parsing them. */
  private fromCache = 0;
  /** Whether the disk's files changed since the saved index was written (or read). */
  private unsaved = false;
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private lastSave = 0;
  /** Counts vocabulary resets: a save in progress gives up when the term ids it reads change meaning. */
  private vocabularyEpoch = 0;

  constructor(
    readonly root: string,
    limits: Partial<IndexLimits> = {},
    options: { cacheFile?: string; files?: WorkspaceFiles } = {},
  ) {
    this.root = path.resolve(root);
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.exclusion = workspaceExclusion(this.root);
    this.listing = options.files ?? workspaceFiles(this.root);
    this.cacheFile = options.cacheFile;
  }

  /** Files, documents and terms held, whether a limit left files out, and the files the last walk took from the cache. */
  stats(): { files: number; documents: number; terms: number; truncated: boolean; fromCache: number } {
    return { files: this.files.size, documents: this.documentCount, terms: this.termNames.length, truncated: this.truncated, fromCache: this.fromCache };
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

  /** The best locations for a question or a list of keywords, best first. */
  async search(query: string, options: SearchOptions = {}, signal?: AbortSignal): Promise<CodeLocation[]> {
    if (options.refresh !== false && (this.lastWalk === 0 || Date.now() - this.lastWalk >= this.limits.refreshIntervalMs)) await this.refresh(signal);
    signal?.throwIfAborted();
    return this.lookup(query, options);
  }

  /** Like `search`, but synchronous and from the index as it stands (empty before the first refresh). */
  lookup(query: string, options: Omit<SearchOptions, 'refresh'> = {}): CodeLocation[] {
    return this.rank(query, options);
  }

  private async walk(): Promise<void> {
    this.compactVocabulary();
    if (this.cacheFile && !this.savedRead) {
      this.savedRead = true;
      this.saved = await readSavedIndex(this.cacheFile, this.cacheKey());
      // Nothing saved (or saved by another build): the first walk reads everything, and saves it.
      if (!this.saved) this.unsaved = true;
    }
    this.fromCache = 0;
    // An index's first walk checks the listing's stamps whatever their age: it reads every file anyway.
    const asked = Date.now();
    const listing = await this.listing.listAsync('source', undefined, this.lastWalk === 0 ? 0 : this.limits.refreshIntervalMs);
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
    // Saved files the walk did not take (deleted, changed, ignored now) make the saved index out of date.
    if (this.saved && this.saved.size > 0) this.unsaved = true;
    this.saved = undefined;
    this.lastWalk = Date.now();
    if (this.unsaved) this.scheduleSave();
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
    const saved = this.saved?.get(relative);
    if (saved !== undefined) {
      this.saved?.delete(relative);
      if (!existing && this.takeSaved(relative, saved, stat)) return true;
    }
    this.unsaved = true;
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

  /**
   * Terms of changed and deleted files stay in the vocabulary; when most of it is dead, the index starts over
   * (the walk that follows rebuilds it), so a long session does not grow without bound.
   */
  private compactVocabulary(): void {
    if (this.termNames.length < 50_000) return;
    const live = this.df.reduce((count, df) => count + (df > 0 ? 1 : 0), 0);
    if (live * 4 > this.termNames.length) return;
    this.vocabularyEpoch++;
    this.files.clear();
    this.byName.clear();
    this.termIds.clear();
    this.termNames.length = 0;
    this.df.length = 0;
    this.lengthSums.fill(0);
    this.documentCount = 0;
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(term, id);
      this.termNames.push(term);
      this.df.push(0);
    }
    return id;
  }

  /**
   * `syntaxName`: an open document's file name, whose text the code-action path has parsed already (a task right after
   * the user typed would otherwise parse the whole file again here); its tree is borrowed for the extraction only.
   */
  private indexFile(relative: string, text: string, mtimeMs: number, size: number, overlay: string | undefined, syntaxName?: string): void {
    const previous = this.files.get(relative);
    const earlier = overlay !== undefined ? previous : undefined;
    // An open document changes a statement or two between tasks: its extraction takes the others from the last one.
    const read = (source?: ts.SourceFile): { drafts: DocumentDraft[]; memo?: StatementMemo; span?: ChangedSpan } =>
      overlay === undefined ? { drafts: extractDocuments(relative, text, source) } : extractDocumentsReusing(relative, text, source, earlier?.statements);
    let drafts: DocumentDraft[];
    let statements: StatementMemo | undefined;
    let span: ChangedSpan | undefined;
    try {
      ({ drafts, memo: statements, span } = syntaxName === undefined ? read() : withSyntaxTree(syntaxName, text, read));
    } catch {
      drafts = [];
    }
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
    const file: IndexedFile = { relativePath: relative, fsPath: path.join(this.root, relative), mtimeMs, size, documents: [], ...(overlay !== undefined ? { overlay, byBody, statements, starts } : {}) };
    drafts.forEach((draft, i) => {
      let document = same[i];
      if (document) {
        document.startLine = lineOf(starts, draft.start);
        document.endLine = lineOf(starts, Math.max(draft.start, draft.end - 1));
        document.commentLine = lineOf(starts, draft.commentStart);
        // Equal strings, from this version's extraction: what a document keeps keeps no older text alive (see PART_GENERATIONS).
        document.fields = draft.fields;
        document.name = draft.name;
        document.signature = signatureOf(draft.fields[1]);
      } else {
        if (this.documentCount >= this.limits.maxDocuments) {
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
    const { terms: termArray, counts: countArray, lengths } = this.termsOf(draft);
    this.count(termArray, lengths);
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
    };
  }

  /** Counts a new document's terms and field lengths in the collection's statistics (`forget` takes them out). */
  private count(termArray: Uint32Array, lengths: Uint16Array): void {
    for (const id of termArray) this.df[id] = (this.df[id] as number) + 1;
    lengths.forEach((length, field) => (this.lengthSums[field] = (this.lengthSums[field] as number) + length));
    this.documentCount++;
  }

  /** Puts a declaration in the bucket of its simple name (comments and a file's loose code have none). */
  private addToBucket(document: IndexedDocument): void {
    if (document.kind === 'comment' || document.kind === 'module') return;
    const simple = simpleNameOf(document.name);
    const bucket = this.byName.get(simple);
    if (bucket) bucket.push(document);
    else this.byName.set(simple, [document]);
  }

  /** A draft's term ids (ascending), their counts per field, and each field's length in terms. Nothing changes them after. */
  private termsOf(draft: DocumentDraft): Pick<IndexedDocument, 'terms' | 'counts' | 'lengths'> {
    const counts = new Map<string, number[]>();
    const lengths = new Uint16Array(FIELD_COUNT);
    draft.fields.forEach((fieldText, field) => {
      const fieldTerms = terms(fieldText);
      lengths[field] = Math.min(fieldTerms.length, 0xffff);
      for (const term of fieldTerms) {
        let row = counts.get(term);
        if (!row) counts.set(term, (row = new Array<number>(FIELD_COUNT).fill(0)));
        row[field] = (row[field] as number) + 1;
      }
    });
    let entries = [...counts.entries()];
    if (entries.length > this.limits.maxTermsPerDocument) {
      const weight = (row: number[]): number => row.reduce((sum, count, field) => sum + count * (FIELD_WEIGHTS[field] as number), 0);
      entries = entries.sort((a, b) => weight(b[1]) - weight(a[1])).slice(0, this.limits.maxTermsPerDocument);
    }
    const rows = entries.map(([term, row]) => ({ id: this.termId(term), row })).sort((a, b) => a.id - b.id);
    const termArray = new Uint32Array(rows.length);
    const countArray = new Uint16Array(rows.length * FIELD_COUNT);
    rows.forEach(({ id, row }, i) => {
      termArray[i] = id;
      row.forEach((count, field) => (countArray[i * FIELD_COUNT + field] = Math.min(count, 0xffff)));
    });
    return { terms: termArray, counts: countArray, lengths };
  }

  /**
   * Installs a file's documents as the saved index has them, when it was saved at this very stamp; false
   * when the entry does not match or cannot be read (the file is then read and parsed as usual).
   */
  private takeSaved(relative: string, saved: string, stat: FileStamp): boolean {
    const [mtimeMs, size, stamp, json] = splitFields(saved, 4);
    if (Number(mtimeMs) !== stat.mtimeMs || Number(size) !== stat.size || stamp !== savedStampOf(stat) || json === undefined) return false;
    let rows: unknown;
    try {
      rows = JSON.parse(json);
    } catch {
      return false;
    }
    if (!Array.isArray(rows) || !rows.every(isSavedDocument)) return false;
    if (this.documentCount + rows.length > this.limits.maxDocuments) return false;
    const file: IndexedFile = { relativePath: relative, fsPath: path.join(this.root, relative), mtimeMs: stat.mtimeMs, size: stat.size, savedStamp: stamp, documents: [] };
    for (const [kind, name, startLine, endLine, commentLine, signature, termList, countList, lengthList] of rows) {
      // Term ids are this process's: the rows are sorted again by them, as `terms` is searched by bisection.
      const order = termList.map((term, i) => ({ id: this.termId(term), i })).sort((a, b) => a.id - b.id);
      const termArray = new Uint32Array(order.length);
      const countArray = new Uint16Array(order.length * FIELD_COUNT);
      order.forEach(({ id, i }, k) => {
        termArray[k] = id;
        for (let field = 0; field < FIELD_COUNT; field++) countArray[k * FIELD_COUNT + field] = countList[i * FIELD_COUNT + field] as number;
      });
      const lengths = Uint16Array.from(lengthList);
      this.count(termArray, lengths);
      const document: IndexedDocument = { id: this.nextDocumentId++, file: relative, kind, name, startLine, endLine, commentLine, signature, terms: termArray, counts: countArray, lengths };
      this.addToBucket(document);
      file.documents.push(document);
    }
    this.files.set(relative, file);
    this.fromCache++;
    return true;
  }

  /** What the saved index must have been written by: this format, these limits, and this very build of the code. */
  private cacheKey(): string {
    return JSON.stringify({ format: SAVED_FORMAT, build: buildIdentity(), maxTermsPerDocument: this.limits.maxTermsPerDocument });
  }

  /**
   * Saves the index for the next process, a while after the walk that changed it (never during the task that asked
   * for the walk), and at most once per SAVE_INTERVAL_MS after that.
   */
  private scheduleSave(): void {
    if (!this.cacheFile || this.saveTimer || this.saving) return;
    const delay = this.lastSave === 0 ? SAVE_DELAY_MS : Math.max(SAVE_DELAY_MS, SAVE_INTERVAL_MS - (Date.now() - this.lastSave));
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, delay);
    this.saveTimer.unref();
  }

  /** Writes the saved index now if it is out of date (tests, and a server shutting down); resolves once written. */
  async saveNow(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (this.saving) await this.saving;
    if (this.unsaved) await this.save();
  }

  private save(): Promise<void> {
    this.saving ??= this.writeSaved().finally(() => {
      this.saving = undefined;
      this.lastSave = Date.now();
    });
    return this.saving;
  }

  /**
   * Writes every file as the disk has it (open documents' unsaved text is left out) through a temporary file and a
   * rename, so a reader finds the old index or the new one. The lines are made a few milliseconds at a time; a
   * vocabulary reset in between abandons the write. Failures leave the index unsaved and are otherwise ignored: the
   * next process reads the files.
   */
  private async writeSaved(): Promise<void> {
    const target = this.cacheFile;
    if (!target) return;
    this.unsaved = false;
    const epoch = this.vocabularyEpoch;
    const lines = [this.cacheKey()];
    let slice = performance.now();
    for (const file of [...this.files.values()]) {
      if (performance.now() - slice >= WALK_SLICE_MS) {
        await yieldToEventLoop();
        slice = performance.now();
        if (epoch !== this.vocabularyEpoch) {
          this.unsaved = true;
          return;
        }
      }
      if (file.overlay !== undefined || file.savedStamp === undefined || this.files.get(file.relativePath) !== file) continue;
      const rows = file.documents.map((d) => [d.kind, d.name, d.startLine, d.endLine, d.commentLine, d.signature, Array.from(d.terms, (id) => this.termNames[id]), Array.from(d.counts), Array.from(d.lengths)]);
      lines.push(`${JSON.stringify(file.relativePath)}\t${file.mtimeMs}\t${file.size}\t${file.savedStamp}\t${JSON.stringify(rows)}`);
    }
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.writeFile(temporary, `${lines.join('\n')}\n`, 'utf8');
      await fsp.rename(temporary, target);
      await pruneCacheFolder(path.dirname(target), MAX_SAVED_WORKSPACES).catch(() => undefined);
    } catch {
      this.unsaved = true;
      await fsp.rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  private removeFile(relative: string): void {
    const file = this.files.get(relative);
    if (!file) return;
    this.unsaved = true;
    this.forget(file.documents);
    this.files.delete(relative);
  }

  /** Takes documents out of the counts and the name buckets. */
  private forget(documents: readonly IndexedDocument[]): void {
    for (const document of documents) {
      for (const id of document.terms) this.df[id] = (this.df[id] as number) - 1;
      document.lengths.forEach((length, field) => (this.lengthSums[field] = (this.lengthSums[field] as number) - length));
      this.documentCount--;
    }
    // Each bucket the documents are in is filtered once.
    const gone = new Set(documents);
    for (const simple of new Set(documents.filter((d) => d.kind !== 'comment' && d.kind !== 'module').map((d) => simpleNameOf(d.name)))) {
      const kept = (this.byName.get(simple) ?? []).filter((d) => !gone.has(d));
      if (kept.length > 0) this.byName.set(simple, kept);
      else this.byName.delete(simple);
    }
  }

  private rank(query: string, options: SearchOptions): CodeLocation[] {
    const limit = options.limit ?? 10;
    const queryTerms = [...new Set(terms(query, 'query'))];
    const known = queryTerms.map((term) => ({ term, id: this.termIds.get(term) })).filter((q): q is { term: string; id: number } => q.id !== undefined && (this.df[q.id] as number) > 0);
    if (known.length === 0 || this.documentCount === 0 || limit <= 0) return [];
    const n = this.documentCount;
    const weighted = known.map((q) => {
      const df = this.df[q.id] as number;
      return { ...q, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) };
    });
    const averages = Array.from(this.lengthSums, (sum) => Math.max(sum / n, 1));
    // Questions about tests should find tests; other questions want the code under test first.
    const aboutTests = /\b(test|tests|tested|testing|spec|specs)\b/i.test(query);

    const scored: { document: IndexedDocument; score: number; matched: string[] }[] = [];
    for (const file of this.files.values()) {
      const filePenalty = !aboutTests && isTestPath(file.relativePath) ? 0.5 : 1;
      for (const document of file.documents) {
        let score = 0;
        const matched: string[] = [];
        for (const q of weighted) {
          const at = indexOfTerm(document.terms, q.id);
          if (at < 0) continue;
          let tf = 0;
          for (let field = 0; field < FIELD_COUNT; field++) {
            const count = document.counts[at * FIELD_COUNT + field] as number;
            if (count === 0) continue;
            const b = FIELD_B[field] as number;
            tf += ((FIELD_WEIGHTS[field] as number) * count) / (1 - b + (b * (document.lengths[field] as number)) / (averages[field] as number));
          }
          score += (q.idf * tf) / (K1 + tf);
          matched.push(q.term);
        }
        if (score <= 0) continue;
        // A location matching more of the question's words beats one matching a single word very often.
        const coverage = matched.length / weighted.length;
        const kindPrior = document.kind === 'comment' ? 0.8 : document.kind === 'module' ? 0.9 : 1;
        scored.push({ document, score: score * (0.5 + 0.5 * coverage) * kindPrior * filePenalty, matched });
      }
    }
    scored.sort((a, b) => b.score - a.score || a.document.file.localeCompare(b.document.file) || a.document.startLine - b.document.startLine);

    const perFile = new Map<string, number>();
    const chosen: typeof scored = [];
    for (const hit of scored) {
      if (chosen.length >= limit) break;
      const count = perFile.get(hit.document.file) ?? 0;
      if (options.maxPerFile !== undefined && count >= options.maxPerFile) continue;
      perFile.set(hit.document.file, count + 1);
      chosen.push(hit);
    }
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
   * The indexed declarations whose display name (`load`, `Config.load`) passes `accept`: the repository tools' symbol
   * lookup. With `named`, only declarations whose simple name (the display name's last segment) is `named` are
   * looked at (one bucket, not the whole index), ordered by path and line; without it, every one in file order.
   */
  declarations(accept: (name: string, kind: LocationKind) => boolean, max = 200, named?: string): IndexedDeclaration[] {
    const found: IndexedDeclaration[] = [];
    const take = (file: IndexedFile, document: IndexedDocument): boolean => {
      if (document.kind === 'comment' || document.kind === 'module' || !accept(document.name, document.kind)) return false;
      found.push({ path: file.relativePath, fsPath: file.fsPath, kind: document.kind, name: document.name, startLine: document.startLine, endLine: document.endLine, signature: document.signature });
      return found.length >= max;
    };
    if (named !== undefined) {
      const bucket = [...(this.byName.get(named) ?? [])].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.startLine - b.startLine));
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

// ---------------------------------------------------------------------------------------------------------------
// One index per workspace folder, shared by every agent.

const MAX_WORKSPACES = 4;
const indexes = new Map<string, LexicalIndex>();

/** The workspace's index (created on first use, built on first search); the least recently used beyond four is dropped. */
export function workspaceIndex(root: string): LexicalIndex {
  const key = path.resolve(root);
  let index = indexes.get(key);
  if (index) {
    indexes.delete(key);
  } else {
    index = new LexicalIndex(key, {}, savingIndexes ? { cacheFile: savedIndexFile(key) } : {});
  }
  indexes.set(key, index);
  while (indexes.size > MAX_WORKSPACES) {
    const oldest = indexes.keys().next().value;
    if (oldest === undefined) break;
    indexes.delete(oldest);
  }
  return index;
}

let savingIndexes = true;
/**
 * Workspace indexes made from now on in this process are not saved: the evaluation's throwaway copies of a repository
 * would otherwise crowd the indexes of the user's workspaces out of the cache folder.
 */
export function stopSavingIndexes(): void {
  savingIndexes = false;
}

/** Where the workspace's index is saved between processes: the user's cache folder (see `userCache.ts`). */
export function savedIndexFile(root: string): string {
  return workspaceCacheFile('lexical-index', root);
}

/** Saves the workspace's index now if it changed since it was last saved (a server shutting down). */
export async function saveWorkspaceIndex(root: string): Promise<void> {
  await indexes.get(path.resolve(root))?.saveNow();
}

/** The last segment of a display name (`load` of `Config.load`): the index's bucket for it. */
export function simpleNameOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}
