// Syntax-only discovery of the declarations a task can run on, fast enough for every code-action request.
import { ts } from 'ts-morph';
import { changedSpan } from '../edits/textEdits.js';
import { docPlacement } from './docPlacement.js';

export type DeclarationKind = 'function' | 'method' | 'class' | 'arrow-function' | 'constructor' | 'interface' | 'getter' | 'setter';

/** What a declaration kind is called in menus and messages (an arrow function is a function to its reader). */
export const KIND_LABEL: Readonly<Record<DeclarationKind, string>> = {
  function: 'function',
  method: 'method',
  class: 'class',
  'arrow-function': 'function',
  constructor: 'constructor',
  interface: 'interface',
  getter: 'getter',
  setter: 'setter',
};

/** A declaration in a document, located with UTF-16 offsets into the text it was computed on. */
export interface DeclarationTarget {
  kind: DeclarationKind;
  /** Display name: `load`, `Config.load`, `parseConfig`. */
  name: string;
  /** The declaration's own name, without its container. */
  simpleName: string;
  /** Offset of the first character of the declaration (its statement, for exports and variables), after trivia. */
  start: number;
  /** Offset just past the declaration's last character. */
  end: number;
  /** Offset of the first character of the line the declaration starts on. */
  lineStart: number;
  /**
   * Offset of the first character of the line a new doc comment goes on: above the first overload signature and
   * above the `//` lines directly over the code (`docPlacement.ts`); `lineStart` when there are neither.
   */
  docLineStart: number;
  /** The whitespace before the declaration on its first line. */
  indent: string;
  /** The doc comment TypeScript shows for the declaration (its first overload's, with overloads), if any. */
  existingDoc?: { start: number; end: number; text: string };
  /** Offsets of the name identifier. */
  nameStart: number;
  nameEnd: number;
}

/**
 * Recent parses by file name, least recently used first; bounded by count and by the characters they hold. Process-wide,
 * not the workspace's: an entry answers only for the very text it parsed, so no workspace can see another's stale one.
 */
const sourceCache = new Map<string, { text: string; source: ts.SourceFile }>();
const SOURCE_CACHE_FILES = 64;
const SOURCE_CACHE_CHARS = 4_000_000;
let sourceCacheChars = 0;

/** How TypeScript parses a file, by its extension: JavaScript or TypeScript, with JSX or without. */
export function scriptKindOf(fileName: string): ts.ScriptKind {
  return /\.[cm]?jsx?$/i.test(fileName) ? (/x$/i.test(fileName) ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : /x$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
}

function fullParse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKindOf(fileName));
}

/** Trees `parseDocument` handed out: somebody may hold them, so they are never updated in place. */
const handedOut = new WeakSet<ts.SourceFile>();

/**
 * Parses a document, reusing the last parse of the same text: code actions ask repeatedly for one version, and each
 * task's context reads the declarations of the same few files again. The tree stays valid for as long as it is held.
 */
export function parseDocument(fileName: string, text: string): ts.SourceFile {
  const source = adoptEditedTree(fileName, text) ?? cachedParse(fileName, text);
  handedOut.add(source);
  return source;
}

function cachedParse(fileName: string, text: string): ts.SourceFile {
  const cached = sourceCache.get(fileName);
  if (cached) {
    sourceCache.delete(fileName);
    if (cached.text === text) {
      // An equal text in another string (the editor's copy after an undo, say) is compared character by character;
      // keeping the caller's string makes its next lookups, which come by the dozen per task, a pointer check. The
      // tree takes it too (the same characters), so that what is looked up by the tree's text is the same string.
      cached.text = text;
      (cached.source as { text: string }).text = text;
      sourceCache.set(fileName, cached);
      return cached.source;
    }
    sourceCacheChars -= cached.text.length;
  }
  const source = fullParse(fileName, text);
  keepShared(fileName, text, source);
  return source;
}

/** Puts a parse in the shared cache, as its most recent entry, within the cache's bounds. */
function keepShared(fileName: string, text: string, source: ts.SourceFile): void {
  dropShared(fileName);
  sourceCache.set(fileName, { text, source });
  sourceCacheChars += text.length;
  for (const [name, entry] of sourceCache) {
    if (sourceCache.size <= 1 || (sourceCache.size <= SOURCE_CACHE_FILES && sourceCacheChars <= SOURCE_CACHE_CHARS)) break;
    sourceCache.delete(name);
    sourceCacheChars -= entry.text.length;
  }
}

/** Trees `adoptEditedTree` took: their files are being edited, so the walks on them stay near the position asked about. */
const takenFromEdits = new WeakSet<ts.SourceFile>();

/** How long after a task took a file's tree of edits its new one is parsed: past the task's own work, while the model thinks. */
const RESEED_AFTER_MS = 50;

/**
 * The tree of edits of a file, when it is of this very text and no call has it on loan: a task asking for the text
 * the user just typed takes it instead of parsing the file whole (8-16 ms on 1,500 lines). It leaves `editedTrees`
 * for the shared cache, so it is never updated in place again. The file gets a tree of edits back once the event
 * loop is idle (RESEED_AFTER_MS), a parse of the same text, so that the next keystroke is still parsed incrementally.
 */
function adoptEditedTree(fileName: string, text: string): ts.SourceFile | undefined {
  const edited = editedTrees.get(fileName);
  if (!edited || edited.text !== text || onLoan.has(edited.source)) return undefined;
  const shared = sourceCache.get(fileName);
  if (shared && shared.text === text) return undefined;
  editedTrees.delete(fileName);
  keepShared(fileName, text, edited.source);
  takenFromEdits.add(edited.source);
  setTimeout(() => {
    // Unless a keystroke made a tree of edits meanwhile, or the shared parse of this text went.
    if (editedTrees.has(fileName) || sourceCache.get(fileName)?.text !== text) return;
    keepEdited(fileName, { text, source: fullParse(fileName, text) });
  }, RESEED_AFTER_MS).unref();
  return edited.source;
}

/**
 * The documents being edited, each with the parse of its latest text. They are kept apart from `sourceCache`
 * because incremental parsing (`ts.updateSourceFile`) reuses the previous tree's unchanged nodes and moves their
 * positions in place: a tree here is valid only until its file's next text is parsed, so it is only ever lent for
 * one synchronous call (`withSyntaxTree`). Process-wide like `sourceCache`: a tree is lent only for the text it was
 * parsed from; the workspace's `documentChanged` and `documentClosed` feed and drop them.
 */
const editedTrees = new Map<string, EditedTree>();
const EDITED_TREES_FILES = 16;
const EDITED_TREES_CHARS = 4_000_000;

interface EditedTree {
  text: string;
  source: ts.SourceFile;
  /** The editor's changes since `text`, when every one of them was reported (`noteTextEdits`). */
  pending?: { to: string; steps: TextEditStep[] };
}

/** One change the editor made: the characters `[start, end)` of the text before it became `text`. */
export interface TextEditStep {
  start: number;
  end: number;
  text: string;
}

/** Most changes kept for a file between two parses; past them its next parse takes the one span between the texts. */
const MAX_PENDING_STEPS = 512;

/**
 * Tells the trees of edits what the editor changed in a file: `steps`, in order, took `before` to `after`. A file
 * being edited keeps them until its next parse, which then parses each group of nearby changes on its own. The one
 * span between two texts (`changeBetween`) covers everything from the first change to the last: after an undo here
 * and a keystroke there, TypeScript would parse all the code between the two again (5-40 ms on a 2,000-line file).
 */
export function noteTextEdits(fileName: string, before: string, steps: readonly TextEditStep[], after: string): void {
  const edited = editedTrees.get(fileName);
  if (!edited) return;
  const known = edited.pending;
  // A change the trees did not hear of in between (or too many to keep) leaves the next parse to compare the texts.
  if ((known ? known.to : edited.text) !== before || (known?.steps.length ?? 0) + steps.length > MAX_PENDING_STEPS) {
    delete edited.pending;
    return;
  }
  edited.pending = { to: after, steps: known ? [...known.steps, ...steps] : [...steps] };
}

/** Characters of unchanged text a group of changes may take in to be parsed as one. */
const GROUP_GAP = 1_024;

/**
 * The tree of `edited` brought to `text`, in place: by the changes the editor reported when they lead to `text`,
 * nearby ones together (each group's span takes at most GROUP_GAP unchanged characters in); otherwise by the one
 * span between the texts. TypeScript moves every node after a change, so groups are few rather than one per keystroke.
 */
function updatedTree(edited: EditedTree, text: string): ts.SourceFile {
  const pending = edited.pending;
  delete edited.pending;
  const versions = pending && pending.to === text ? versionsThrough(edited.text, pending.steps, text) : undefined;
  if (!versions) return ts.updateSourceFile(edited.source, text, changeBetween(edited.text, text));
  let source = edited.source;
  for (const { text: next, change } of versions) source = ts.updateSourceFile(source, next, change);
  return source;
}

/** The characters a change covers, before and after it. */
function spanned(change: ts.TextChangeRange): number {
  return change.span.length + change.newLength;
}

/**
 * The texts `steps` lead through from `base`, one per group of nearby steps, with each group's change; the last is
 * `text` itself. Undefined when the steps do not lead to `text` (a tree updated by them would be wrong).
 */
function versionsThrough(base: string, steps: readonly TextEditStep[], text: string): { text: string; change: ts.TextChangeRange }[] | undefined {
  const groups: { change: ts.TextChangeRange; steps: TextEditStep[] }[] = [];
  for (const step of steps) {
    const change = ts.createTextChangeRange(ts.createTextSpan(step.start, step.end - step.start), step.text.length);
    const last = groups[groups.length - 1];
    if (last) {
      const joined = ts.collapseTextChangeRangesAcrossMultipleVersions([last.change, change]);
      if (spanned(joined) <= spanned(last.change) + spanned(change) + 2 * GROUP_GAP) {
        last.change = joined;
        last.steps.push(step);
        continue;
      }
    }
    groups.push({ change, steps: [step] });
  }
  const versions: { text: string; change: ts.TextChangeRange }[] = [];
  let current = base;
  for (const [g, { change, steps: within }] of groups.entries()) {
    const { start, length } = change.span;
    if (start < 0 || start + length > current.length) return undefined;
    // Only the group's span is rebuilt step by step: every step of the group lies inside it.
    let window = current.slice(start, start + length);
    for (const step of within) {
      if (step.start < start || step.end < step.start || step.end - start > window.length) return undefined;
      window = window.slice(0, step.start - start) + step.text + window.slice(step.end - start);
    }
    if (window.length !== change.newLength) return undefined;
    if (g < groups.length - 1) {
      current = current.slice(0, start) + window + current.slice(start + length);
      versions.push({ text: current, change });
      continue;
    }
    // The last group leads to `text` itself. What the tree keeps is outside the group's span, so that is what must be
    // the same; it is compared piece by piece rather than as a text put together for it: such a text is made of
    // pieces, which a comparison reads several times slower (2 ms for a 900 KB file, against 0.23 ms).
    if (text.length !== current.length - length + window.length || text.slice(0, start) !== current.slice(0, start) || text.slice(start + window.length) !== current.slice(start + length)) return undefined;
    versions.push({ text, change });
  }
  return versions.length > 0 ? versions : undefined;
}

/** Trees lent by `withSyntaxTree` to calls under way, with how many: none of them may be updated in place. */
const onLoan = new Map<ts.SourceFile, number>();

function lend<T>(source: ts.SourceFile, edited: boolean, use: (source: ts.SourceFile, edited: boolean) => T): T {
  onLoan.set(source, (onLoan.get(source) ?? 0) + 1);
  try {
    return use(source, edited);
  } finally {
    const calls = (onLoan.get(source) ?? 1) - 1;
    if (calls === 0) onLoan.delete(source);
    else onLoan.set(source, calls);
  }
}

/** The one span of `before` that differs from `after` (their common start and end left out), as TypeScript wants it. */
export function changeBetween(before: string, after: string): ts.TextChangeRange {
  const { start, beforeEnd, afterEnd } = changedSpan(before, after);
  return ts.createTextChangeRange(ts.createTextSpan(start, beforeEnd - start), afterEnd - start);
}

/**
 * Runs `use` on a parse of `text` and returns what it returns, which must hold nothing of the tree (no nodes): the
 * tree may be updated in place once `use` returns. This is what the code-action path asks for on every request: once
 * a file is being edited, each new text costs a parse of the changed part instead of the whole file (1-2 ms instead
 * of 10-40 on files of 1,500 to 5,000 lines). A file not being edited shares `parseDocument`'s cache.
 *
 * `edited` tells `use` that the tree is of a file being edited, whose next text comes with the next keystroke: a
 * walk of the whole tree, which a settled text pays once, would then be paid on every keystroke.
 */
export function withSyntaxTree<T>(fileName: string, text: string, use: (source: ts.SourceFile, edited: boolean) => T): T {
  const shared = sourceCache.get(fileName);
  // A tree a task took from the edits is still of a file being edited.
  if (shared && shared.text === text) return lend(cachedParse(fileName, text), takenFromEdits.has(shared.source), use);
  let edited = editedTrees.get(fileName);
  if (edited) {
    editedTrees.delete(fileName);
    editedTrees.set(fileName, edited);
    if (edited.text === text) {
      // The caller's string, in the tree too, as in `cachedParse`. Changes that led back to this text are done with.
      edited.text = text;
      (edited.source as { text: string }).text = text;
      if (edited.pending?.to === text) delete edited.pending;
    } else if (onLoan.has(edited.source)) {
      // A call under way on this file's tree, asking about another text: a parse of its own leaves that tree alone.
      return lend(fullParse(fileName, text), true, use);
    } else {
      edited.source = updatedTree(edited, text);
      edited.text = text;
    }
  } else {
    // A file seen once only is not being edited: its parse is shared with the callers that keep trees.
    if (!shared) return lend(cachedParse(fileName, text), false, use);
    // Its text changed since it was parsed: from now on it is parsed incrementally, on a tree of its own. The shared
    // tree is where that starts, unless somebody may hold it (parseDocument handed it out, or a call under way has it
    // on loan); then it stays as it is, and the start is a parse of the new text.
    dropShared(fileName);
    const held = handedOut.has(shared.source) || onLoan.has(shared.source);
    edited = { text, source: held ? fullParse(fileName, text) : ts.updateSourceFile(shared.source, text, changeBetween(shared.text, text)) };
    keepEdited(fileName, edited);
  }
  return lend(edited.source, true, use);
}

/** Puts a file's tree of edits in `editedTrees`, as its most recent entry, within its bounds (trees on loan stay). */
function keepEdited(fileName: string, edited: EditedTree): void {
  editedTrees.set(fileName, edited);
  let chars = 0;
  for (const entry of editedTrees.values()) chars += entry.text.length;
  for (const [name, entry] of editedTrees) {
    if (editedTrees.size <= 1 || (editedTrees.size <= EDITED_TREES_FILES && chars <= EDITED_TREES_CHARS)) break;
    if (onLoan.has(entry.source)) continue;
    editedTrees.delete(name);
    chars -= entry.text.length;
  }
}

/**
 * A document the editor closed: its tree of edits goes, since its next text (if any) comes from the disk, as that of a
 * file seen once. A document with no file (`unsaved`, an untitled buffer) has no next text at all: its shared parse
 * goes too. A tree on loan stays valid for its borrower; it is only no longer kept.
 */
export function forgetSyntaxTrees(fileName: string, unsaved: boolean): void {
  editedTrees.delete(fileName);
  if (unsaved) dropShared(fileName);
}

/** Takes a file's parse out of the shared cache, if it has one. */
function dropShared(fileName: string): void {
  const shared = sourceCache.get(fileName);
  if (!shared) return;
  sourceCache.delete(fileName);
  sourceCacheChars -= shared.text.length;
}

/** Declarations per parse: every task's offers ask for them on each code-action request. */
const declarationCache = new WeakMap<ts.SourceFile, readonly DeclarationTarget[]>();

/** Every documentable declaration in the file, outermost first. */
export function listDeclarations(fileName: string, text: string): DeclarationTarget[] {
  return [...declarationsOf(fileName, text)];
}

/** The cached list itself, for the lookups here that only read it (a context asks once per reference it shows). */
function declarationsOf(fileName: string, text: string): readonly DeclarationTarget[] {
  return withSyntaxTree(fileName, text, (source) => declarationsIn(source));
}

function declarationsIn(source: ts.SourceFile): readonly DeclarationTarget[] {
  const cached = declarationCache.get(source);
  if (cached) return cached;
  // Every node reaches into the whole text.
  const out = declarationsTouchingIn(source, 0, source.text.length);
  declarationCache.set(source, out);
  return out;
}

/**
 * The innermost declaration that contains the range, or whose line the range starts on.
 * Offsets are UTF-16 code-unit offsets into `text`.
 */
export function declarationAt(fileName: string, text: string, start: number, end = start): DeclarationTarget | undefined {
  return withSyntaxTree(fileName, text, (source, edited) => {
    // A code-action request asks the same question once for each task that may be offered there.
    if (lastAnswer && lastAnswer.source === source && lastAnswer.start === start && lastAnswer.end === end) return lastAnswer.found;
    // Every declaration that can answer reaches into this span: it starts on or before the range's line and ends at or
    // after the range. For a file being edited, walking only those nodes spares a walk of the file per keystroke.
    const lineEnd = text.indexOf('\n', start);
    const candidates = declarationsAround(source, edited, start, Math.max(end, lineEnd < 0 ? text.length : lineEnd));
    let best: DeclarationTarget | undefined;
    for (const target of candidates) {
      // From its doc comment's line: the `//` lines over it and its overload signatures are its own too.
      const covers = target.docLineStart <= start && end <= target.end;
      const onDoc = target.existingDoc !== undefined && target.existingDoc.start <= start && end <= target.end;
      if (covers || onDoc) {
        if (!best || target.start >= best.start) best = target;
      }
    }
    lastAnswer = { source, start, end, found: best };
    return best;
  });
}

/** `declarationAt`'s last answer, and the tree it was read from (a tree stands for one text). */
let lastAnswer: { source: ts.SourceFile; start: number; end: number; found: DeclarationTarget | undefined } | undefined;

/** The declaration of one of `kinds` that starts at `start` (where its statement's code starts), if any. */
export function declarationStartingAt(fileName: string, text: string, start: number, kinds: readonly DeclarationKind[]): DeclarationTarget | undefined {
  return withSyntaxTree(fileName, text, (source, edited) => declarationsAround(source, edited, start, start).find((d) => d.start === start && kinds.includes(d.kind)));
}

/**
 * The index of the first top-level statement that ends at or after `offset` (the number of statements when none does).
 * The statements are in order and do not overlap, so those that reach into a span are this one and the ones after it
 * that start before the span ends: a walk near a place takes them from here instead of looking at every statement.
 */
export function firstStatementEndingFrom(source: ts.SourceFile, offset: number): number {
  const statements = source.statements;
  let low = 0;
  let high = statements.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((statements[middle] as ts.Statement).end < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The top-level statement whose lines `[start, end]` lies in: from the start of the line where the statement (its
 * doc comment included) starts, to its end. Found by halving on the statements' ends, so a code-action request reads
 * where one statement's code starts instead of every statement's. (The statements are in order and do not overlap,
 * so the first one that ends at or after `end` is the only one that can hold the range: any later one starts on
 * that one's line or after it.)
 */
export function topLevelStatementAround(source: ts.SourceFile, start: number, end: number): ts.Statement | undefined {
  const statement = source.statements[firstStatementEndingFrom(source, end)];
  if (statement === undefined) return undefined;
  const codeStart = statement.getStart(source, true);
  const lineStart = source.text.lastIndexOf('\n', codeStart - 1) + 1;
  return start >= lineStart ? statement : undefined;
}

/**
 * Every declaration that reaches into `[from, to]`, among others: the file's list when it is known or the text is
 * settled (then it is listed once), otherwise, in a file being edited, only those found by walking the nodes there.
 */
function declarationsAround(source: ts.SourceFile, edited: boolean, from: number, to: number): readonly DeclarationTarget[] {
  return declarationCache.get(source) ?? (edited ? declarationsTouchingIn(source, from, to) : declarationsIn(source));
}

/**
 * The declarations whose nodes reach into `[from, to]` (their leading comments counted), outermost first, as
 * `listDeclarations` orders them; only those nodes are walked.
 */
export function declarationsTouching(fileName: string, text: string, from: number, to: number): DeclarationTarget[] {
  // The whole text is the file's list, walked once per tree.
  return withSyntaxTree(fileName, text, (source) => (from <= 0 && to >= source.text.length ? [...declarationsIn(source)] : declarationsTouchingIn(source, from, to)));
}

/**
 * Declarations that may contain `[from, to]`, a superset the caller narrows: the file's list when it is known,
 * otherwise those of the nodes that contain the range, a walk as deep as the range is nested. (A declaration lies
 * within its node, or within the variable statement above it, which the walk enters whole.)
 */
export function declarationsContaining(fileName: string, text: string, from: number, to: number): readonly DeclarationTarget[] {
  return withSyntaxTree(fileName, text, (source) => declarationCache.get(source) ?? walkDeclarations(source, (node) => node.pos <= from && node.end >= to));
}

function declarationsTouchingIn(source: ts.SourceFile, from: number, to: number): DeclarationTarget[] {
  return walkDeclarations(source, (node) => node.pos <= to && node.end >= from);
}

/** The declarations of the nodes `enter` lets the walk into, outermost first. */
function walkDeclarations(source: ts.SourceFile, enter: (node: ts.Node) => boolean): DeclarationTarget[] {
  const out: DeclarationTarget[] = [];
  const visit = (node: ts.Node, container: string | undefined): void => {
    const target = toTarget(node, source, container);
    if (target) out.push(target);
    const nextContainer = ts.isClassLike(node) || ts.isInterfaceDeclaration(node) ? (node.name?.text ?? container) : container;
    // Nested functions are documentable too, so expressions are walked into as well. A statement `const f = () => …`
    // is the anchor of the declaration inside it, which may end before it (at `;`).
    const whole = ts.isVariableStatement(node) || ts.isVariableDeclarationList(node);
    const entered = overloadsEntered(enter);
    ts.forEachChild(node, (child) => {
      if (whole || entered(child)) visit(child, nextContainer);
    });
  };
  const entered = overloadsEntered(enter);
  ts.forEachChild(source, (child) => {
    if (entered(child)) visit(child, undefined);
  });
  return out;
}

/**
 * `enter` for the children of one node, in order, letting in the implementation after an overload signature it let
 * in: a place on an overload is a place on the implementation's declaration, which starts further down.
 */
function overloadsEntered(enter: (node: ts.Node) => boolean): (child: ts.Node) => boolean {
  let overloadKind: ts.SyntaxKind | undefined;
  return (child) => {
    const signature = (ts.isFunctionDeclaration(child) || ts.isMethodDeclaration(child) || ts.isConstructorDeclaration(child)) && !child.body;
    const entered = enter(child) || (overloadKind === child.kind && (signature || ts.isFunctionLike(child)));
    overloadKind = signature && entered ? child.kind : undefined;
    return entered;
  };
}

/** Declarations whose simple or display name matches, case-insensitively. */
export function declarationsNamed(fileName: string, text: string, name: string): DeclarationTarget[] {
  const wanted = name.toLowerCase();
  return declarationsOf(fileName, text).filter((t) => t.simpleName.toLowerCase() === wanted || t.name.toLowerCase() === wanted);
}

function toTarget(node: ts.Node, source: ts.SourceFile, container: string | undefined): DeclarationTarget | undefined {
  let kind: DeclarationKind | undefined;
  let nameNode: ts.Node | undefined;
  let anchor: ts.Node = node; // the node whose leading comments hold the doc
  if (ts.isFunctionDeclaration(node) && node.body) {
    kind = 'function';
    nameNode = node.name;
  } else if (ts.isMethodDeclaration(node) && node.body) {
    kind = 'method';
    nameNode = node.name;
  } else if (ts.isConstructorDeclaration(node) && node.body) {
    kind = 'constructor';
    // Modifiers and decorators come first: the name is the `constructor` keyword itself.
    nameNode = node.getChildren(source).find((child) => child.kind === ts.SyntaxKind.ConstructorKeyword);
  } else if (ts.isGetAccessorDeclaration(node) && node.body) {
    kind = 'getter';
    nameNode = node.name;
  } else if (ts.isSetAccessorDeclaration(node) && node.body) {
    kind = 'setter';
    nameNode = node.name;
  } else if (ts.isClassDeclaration(node)) {
    kind = 'class';
    nameNode = node.name;
  } else if (ts.isInterfaceDeclaration(node)) {
    kind = 'interface';
    nameNode = node.name;
  } else if (ts.isVariableDeclaration(node) && node.initializer && isFunctionExpression(node.initializer) && ts.isIdentifier(node.name)) {
    kind = 'arrow-function';
    nameNode = node.name;
    const list = node.parent;
    // Only `const f = () => …` alone in its statement: the doc goes above the statement.
    if (ts.isVariableDeclarationList(list) && list.declarations.length === 1 && ts.isVariableStatement(list.parent)) anchor = list.parent;
    else return undefined;
  } else if (ts.isPropertyDeclaration(node) && node.initializer && isFunctionExpression(node.initializer)) {
    kind = 'method';
    nameNode = node.name;
  }
  if (!kind) return undefined;
  const simpleName = kind === 'constructor' ? 'constructor' : nameNode ? nameNode.getText(source) : 'default';
  const name = container && kind !== 'class' && kind !== 'interface' ? `${container}.${simpleName}` : simpleName;
  const start = anchor.getStart(source);
  const text = source.text;
  let lineStart = start;
  while (lineStart > 0 && text[lineStart - 1] !== '\n') lineStart--;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, start))?.[0] ?? '';
  const placement = docPlacement(node, anchor, source);
  const target: DeclarationTarget = {
    kind,
    name,
    simpleName,
    start,
    end: anchor.getEnd(),
    lineStart,
    docLineStart: placement.lineStart,
    indent,
    nameStart: nameNode ? nameNode.getStart(source) : start,
    nameEnd: nameNode ? nameNode.getEnd() : start,
  };
  if (placement.existingDoc) target.existingDoc = placement.existingDoc;
  return target;
}

function isFunctionExpression(node: ts.Node): boolean {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}
