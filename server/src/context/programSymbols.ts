// The program-side symbol resolver of a request's context: the language service over what the ts-morph project holds, references confirmed by the type checker.
import { ts } from 'ts-morph';
import { resolvePath } from '../workspace/documentSnapshot.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import { nextWordAt } from './wordSearch.js';
import { inside, isCode } from './contextFiles.js';
import type { ContextFiles } from './contextFiles.js';
import { MAX_REFERENCE_CANDIDATES, MAX_REFERENCES, MAX_TARGET_IDENTIFIERS } from './contextLimits.js';
import type { Piece } from './contextPieces.js';
import type { RequestContextInput } from './contextShapes.js';
import type { RequestName } from './requestNames.js';
import { capSymbols, chooseReferences, describeDeclaration, kindOf, nameOf, requestKey, symbolOf, workspaceFile } from './symbolCandidates.js';
import type { CandidateSymbol, FoundDeclaration, Site, SymbolSearch } from './symbolCandidates.js';

/** Symbol lists per program and request: the program changes whenever any text does, so an entry never goes stale. */
const symbolCache = new WeakMap<ts.Program, Map<string, CandidateSymbol[]>>();

/**
 * The ts-morph part, in one synchronous stretch: the open documents' text goes into the project (the editor's
 * buffer wins, as everywhere), the program is read, and no other task can swap a text in between. Only files the
 * project holds or the program reaches through imports are searched: loading the whole workspace would cost more
 * than a request can wait.
 */
export function programSymbols(search: SymbolSearch, signal: AbortSignal): { symbols?: CandidateSymbol[]; program?: ts.Program } {
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

/**
 * The other open documents' text goes into the project, so declarations and references there are the editor's.
 * A document closed since goes back to the disk's text through the workspace (`Workspace.documentClosed`).
 */
function syncOpenDocuments(workspace: WorkspaceProject, files: ContextFiles): void {
  for (const document of files.openDocuments) {
    if (!document.fsPath) continue;
    const fsPath = resolvePath(document.fsPath);
    if (!isCode(fsPath) || files.relative(fsPath) === undefined || files.excluded(fsPath)) continue;
    workspace.sourceFile(fsPath, document.text);
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
