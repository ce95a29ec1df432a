// What a model request carries besides its target, within a token budget: the enclosing declaration, named symbols, recent places and open documents, gathered and filled into the budget.
import type { ts } from 'ts-morph';
import path from 'node:path';
import { isSupportedLanguage, resolvePath } from '../workspace/documentSnapshot.js';
import { withSyntaxTree } from '../repo/declarations.js';
import { KIND_LABEL } from '../repo/declarations.js';
import { Redactor } from '../privacy/secrets.js';
import { protectedValues } from '../privacy/workspaceSecrets.js';
import { describe, fill } from './contextBudget.js';
import type { Planned } from './contextBudget.js';
import { ContextFiles } from './contextFiles.js';
import type { Span } from './contextFiles.js';
import type { Piece } from './contextPieces.js';
import type { RequestContext, RequestContextInput } from './contextShapes.js';
import { openDocumentPieces, recentPieces } from './editorPieces.js';
import type { Relation } from './editorPieces.js';
import { ImportGraph, targetUses, topLevelBindings } from './importedSymbols.js';
import { enclosingOf, enclosingPiece } from './enclosingDeclaration.js';
import { lexicalSymbols, prepareIndex } from './lexicalSymbols.js';
import { programSymbols } from './programSymbols.js';
import { identifiersOf, namesInRequest } from './requestNames.js';
import type { RequestName } from './requestNames.js';
import { capSymbols, requestKey } from './symbolCandidates.js';
import type { CandidateSymbol, SymbolSearch } from './symbolCandidates.js';

/**
 * Gathers the context of one model request. Every piece passes one gate before it enters: its file is checked
 * against the workspace's exclusions at that moment and its text redacted, so no path (open document, recent
 * position, symbol, reference, cache) can carry the text of an excluded file or an unredacted secret.
 */
export async function buildRequestContext(input: RequestContextInput, signal: AbortSignal): Promise<RequestContext> {
  signal.throwIfAborted();
  const files = new ContextFiles(input.workspace, input.document, input.openDocuments);
  const { document, target } = input;
  if (document.fsPath) {
    const excluded = files.excluded(document.fsPath);
    if (excluded) return { recent: [], openDocuments: [], symbols: [], tokens: 0, omitted: [describe(excluded)] };
  }
  const requested = namesInRequest(input.text);
  const enclosing = enclosingOf(document, target);
  const targetLines = files.linesOf(document.text, files.nameOf(document));
  const shown = (input.shown ?? []).filter((span) => span.end > span.start);
  const avoid: Span[] = [{ fileName: files.nameOf(document), start: enclosing?.start ?? target.start, end: enclosing?.end ?? target.end }, ...shown.map((span) => ({ fileName: files.nameOf(document), ...span }))];
  const symbols = await resolveSymbols({ input, files, index: input.workspace.index, requested, avoid }, signal);
  await yieldToEventLoop();
  signal.throwIfAborted();

  const plan: Planned[] = [];
  if (enclosing) plan.push({ category: 'enclosing', piece: enclosingPiece(document, target, enclosing, files), enclosing: { name: enclosing.declaration.name, kind: KIND_LABEL[enclosing.declaration.kind] } });
  for (const symbol of symbols) plan.push({ category: 'symbol', piece: symbol.declaration, symbol });
  const targetSpan = { fileName: files.nameOf(document), startLine: targetLines.lineOf(target.start), endLine: targetLines.lineOf(Math.max(target.start, target.end - 1)) };
  const relation = relationOf(input, files, requested, symbols);
  for (const piece of recentPieces(input, files, targetSpan, relation)) plan.push({ category: 'recent', piece });
  for (const choices of openDocumentPieces(input, files, relation)) plan.push({ category: 'open', piece: choices[0] as Piece, choices });
  for (const symbol of symbols) for (const piece of symbol.references) plan.push({ category: 'reference', piece, symbol });
  signal.throwIfAborted();

  const redactor = new Redactor(input.knownSecrets ?? protectedValues(input.workspace, document.fsPath ? { fsPath: document.fsPath, text: document.text } : undefined));
  const inPrompt = shown.map((span) => ({ fsPath: files.nameOf(document), startLine: targetLines.lineOf(span.start), endLine: targetLines.lineOf(Math.max(span.start, span.end - 1)) }));
  return fill(plan, files, redactor, input.budgetTokens, inPrompt);
}

/**
 * What the target is related to: its file, the files its file imports and those the context's symbols come from;
 * the names its code uses (by syntax: not its locals, not the properties it reads) and the names the user wrote.
 */
function relationOf(input: RequestContextInput, files: ContextFiles, requested: RequestName[], symbols: CandidateSymbol[]): Relation {
  const { document, target } = input;
  const related = new Set<string>([files.nameOf(document), ...symbols.map((s) => s.declaration.fsPath)]);
  const names = new Set(requested.map((n) => n.simple));
  if (!document.fsPath || !isSupportedLanguage(document.languageId)) {
    for (const name of identifiersOf(document.text.slice(target.start, target.end))) names.add(name);
    return { files: related, names };
  }
  const index = input.workspace.index;
  const graphFiles = { root: files.root, has: (relative: string) => index.has(relative) || files.text(path.join(files.root, relative)) !== undefined, text: (fsPath: string) => files.text(fsPath) };
  withSyntaxTree(files.nameOf(document), document.text, (source) => {
    const graph = new ImportGraph(graphFiles, source);
    const { uses, byName } = targetUses(source, target);
    for (const use of uses) {
      names.add(use.name);
      if (use.member) names.add(use.member);
    }
    for (const { simple } of byName) names.add(simple);
    for (const binding of topLevelBindings(source).values()) {
      const module = 'specifier' in binding ? graph.moduleOf(source, binding.specifier) : undefined;
      if (module) related.add(resolvePath(module.fileName));
    }
  });
  return { files: related, names };
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
