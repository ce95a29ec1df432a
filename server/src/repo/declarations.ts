// Syntax-only discovery of the declarations a task can run on, fast enough for every code-action request.
import { ts } from 'ts-morph';

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
  /** Offset of the first character of the line the declaration starts on: where a doc comment goes. */
  lineStart: number;
  /** The whitespace before the declaration on its first line. */
  indent: string;
  /** The JSDoc block directly above the declaration, if any. */
  existingDoc?: { start: number; end: number; text: string };
  /** Offsets of the name identifier. */
  nameStart: number;
  nameEnd: number;
}

/** Recent parses by file name, least recently used first; bounded by count and by the characters they hold. */
const sourceCache = new Map<string, { text: string; source: ts.SourceFile }>();
const SOURCE_CACHE_FILES = 64;
const SOURCE_CACHE_CHARS = 4_000_000;
let sourceCacheChars = 0;

/**
 * Parses a document, reusing the last parse of the same text: code actions ask repeatedly for one version, and each
 * task's context reads the declarations of the same few files again.
 */
export function parseDocument(fileName: string, text: string): ts.SourceFile {
  const cached = sourceCache.get(fileName);
  if (cached) {
    sourceCache.delete(fileName);
    if (cached.text === text) {
      // An equal text in another string (the editor's copy after an undo, say) is compared character by character;
      // keeping the caller's string makes its next lookups, which come by the dozen per task, a pointer check.
      cached.text = text;
      sourceCache.set(fileName, cached);
      return cached.source;
    }
    sourceCacheChars -= cached.text.length;
  }
  const kind = /\.[cm]?jsx?$/i.test(fileName) ? (/x$/i.test(fileName) ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : /x$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  sourceCache.set(fileName, { text, source });
  sourceCacheChars += text.length;
  for (const [name, entry] of sourceCache) {
    if (sourceCache.size <= 1 || (sourceCache.size <= SOURCE_CACHE_FILES && sourceCacheChars <= SOURCE_CACHE_CHARS)) break;
    sourceCache.delete(name);
    sourceCacheChars -= entry.text.length;
  }
  return source;
}

/** Declarations per parse: every task's offers ask for them on each code-action request. */
const declarationCache = new WeakMap<ts.SourceFile, readonly DeclarationTarget[]>();

/** Every documentable declaration in the file, outermost first. */
export function listDeclarations(fileName: string, text: string): DeclarationTarget[] {
  return [...declarationsOf(fileName, text)];
}

/** The cached list itself, for the lookups here that only read it (a context asks once per reference it shows). */
function declarationsOf(fileName: string, text: string): readonly DeclarationTarget[] {
  const source = parseDocument(fileName, text);
  const cached = declarationCache.get(source);
  if (cached) return cached;
  const out: DeclarationTarget[] = [];
  const visit = (node: ts.Node, container: string | undefined): void => {
    const target = toTarget(node, source, container);
    if (target) out.push(target);
    const nextContainer = ts.isClassLike(node) || ts.isInterfaceDeclaration(node) ? (node.name?.text ?? container) : container;
    // Nested functions are documentable too, but not the insides of expressions we do not model.
    ts.forEachChild(node, (child) => visit(child, nextContainer));
  };
  ts.forEachChild(source, (child) => visit(child, undefined));
  declarationCache.set(source, out);
  return out;
}

/**
 * The innermost declaration that contains the range, or whose line the range starts on.
 * Offsets are UTF-16 code-unit offsets into `text`.
 */
export function declarationAt(fileName: string, text: string, start: number, end = start): DeclarationTarget | undefined {
  let best: DeclarationTarget | undefined;
  for (const target of declarationsOf(fileName, text)) {
    const covers = target.lineStart <= start && end <= target.end;
    const onDoc = target.existingDoc !== undefined && target.existingDoc.start <= start && end <= target.end;
    if (covers || onDoc) {
      if (!best || target.start >= best.start) best = target;
    }
  }
  return best;
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
  const target: DeclarationTarget = {
    kind,
    name,
    simpleName,
    start,
    end: anchor.getEnd(),
    lineStart,
    indent,
    nameStart: nameNode ? nameNode.getStart(source) : start,
    nameEnd: nameNode ? nameNode.getEnd() : start,
  };
  const doc = lastJsDoc(anchor, source);
  if (doc) target.existingDoc = doc;
  return target;
}

function isFunctionExpression(node: ts.Node): boolean {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

function lastJsDoc(node: ts.Node, source: ts.SourceFile): DeclarationTarget['existingDoc'] {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  const last = ranges[ranges.length - 1];
  if (!last || last.kind !== ts.SyntaxKind.MultiLineCommentTrivia) return undefined;
  const text = source.text.slice(last.pos, last.end);
  if (!text.startsWith('/**') || text.startsWith('/**/')) return undefined;
  // Only a comment separated from the declaration by whitespace alone belongs to it.
  if (source.text.slice(last.end, node.getStart(source)).trim() !== '') return undefined;
  return { start: last.pos, end: last.end, text };
}
