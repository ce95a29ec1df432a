// What both symbol resolvers of a request's context share: a declaration found made a candidate piece, the few chosen, and reference sites made pieces.
import path from 'node:path';
import { ts } from 'ts-morph';
import { resolvePath } from '../workspace/documentSnapshot.js';
import { isAnnotationComment } from '../edits/annotation.js';
import type { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { inside, isCode } from './contextFiles.js';
import type { Lines, Span, ContextFiles } from './contextFiles.js';
import { MAX_LINES, MAX_MINOR_SYMBOLS, MAX_REFERENCE_CANDIDATES, MAX_SYMBOLS, OUTLINE_OVER_LINES, REFERENCE_AROUND } from './contextLimits.js';
import { capped, dedent, stub, windowAround, withCuts } from './contextPieces.js';
import type { Piece } from './contextPieces.js';
import type { RequestContextInput } from './contextShapes.js';
import { foldedBodies } from './enclosingDeclaration.js';
import type { RequestName } from './requestNames.js';

export interface CandidateSymbol {
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

export interface SymbolSearch {
  input: RequestContextInput;
  files: ContextFiles;
  index: LexicalIndex;
  requested: RequestName[];
  /** Already in the context (the enclosing declaration, or the target): declarations there are not repeated. */
  avoid: Span[];
  /** Where references are looked for, computed by the first search of this request (see `referenceTexts`). */
  referenceTexts?: { program: ts.Program | undefined; texts: Map<string, string> };
}

/** A declaration found, located in the text the finder saw. */
export interface FoundDeclaration {
  node: ts.Node;
  source: ts.SourceFile;
  name: string;
  kind: string;
  /** Lower ranks first: types and functions say most. */
  rank: number;
  fromRequest: boolean;
}

export function requestKey(name: RequestName): string {
  return `${name.container ?? ''}.${name.simple}`;
}

/** Request-named symbols first, then by rank (stable, so first use decides among equals); a few minor ones at most. */
export function capSymbols(symbols: CandidateSymbol[]): CandidateSymbol[] {
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

/** Whether a program file is the workspace's own code (not a library, not outside the folder). */
export function workspaceFile(program: ts.Program, source: ts.SourceFile, files: ContextFiles): boolean {
  if (program.isSourceFileDefaultLibrary(source) || program.isSourceFileFromExternalLibrary(source) || source.isDeclarationFile) return false;
  if (source.fileName.split(path.sep).join('/').includes('/node_modules/')) return false;
  return files.relative(source.fileName) !== undefined;
}

export function nameOf(node: ts.Node): string | undefined {
  const name = (node as ts.NamedDeclaration).name;
  return name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** What a declaration is, and how much it tells (rank); undefined for what is not worth a snippet (parameters, locals). */
export function kindOf(node: ts.Node): { kind: string; rank: number } | undefined {
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

export function describeDeclaration(node: ts.Node, source: ts.SourceFile, fromRequest: boolean): FoundDeclaration | undefined {
  const kind = kindOf(node);
  const simple = nameOf(node);
  if (!kind || !simple) return undefined;
  const parent = node.parent;
  const container = parent && (ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent)) ? parent.name?.text : undefined;
  return { node, source, name: container ? `${container}.${simple}` : simple, kind: kind.kind, rank: kind.rank, fromRequest };
}

/**
 * The candidate for a found declaration, unless it is already in the context. One in an excluded file becomes a
 * stub without text or name, which the gate turns into an omission naming the file.
 */
export function symbolOf(declaration: FoundDeclaration, files: ContextFiles, avoid: Span[], order: number): CandidateSymbol | undefined {
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

/** The statement a declaration is written as: `const f = …` for a variable, the declaration itself otherwise. */
function anchorOf(node: ts.Node): ts.Node {
  if (ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && node.parent.declarations.length === 1 && ts.isVariableStatement(node.parent.parent)) return node.parent.parent;
  return node;
}

/** Where a declaration's doc comment starts (above the annotation lines between them), or the declaration itself when it has none. */
function docStart(node: ts.Node, source: ts.SourceFile): number {
  const ranges = [...(ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [])];
  let end = node.getStart(source);
  while (ranges.length > 0) {
    const last = ranges.pop() as ts.CommentRange;
    if (source.text.slice(last.end, end).trim() !== '') break;
    if (source.text.slice(last.pos, last.pos + 3) === '/**') return last.pos;
    if (!isAnnotationComment(source.text.slice(last.pos, last.end))) break;
    end = last.pos;
  }
  return node.getStart(source);
}

export interface Site {
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
export function chooseReferences(sites: Site[], files: ContextFiles): Piece[] {
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
