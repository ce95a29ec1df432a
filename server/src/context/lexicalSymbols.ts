// The lexical symbol resolver of a request's context: names the program left, found in the lexical index, references found by name in the texts at hand.
import { ts } from 'ts-morph';
import { resolvePath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationAt, firstStatementEndingFrom, withSyntaxTree } from '../repo/declarations.js';
import type { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { nextWordAt } from './wordSearch.js';
import { inside, isCode } from './contextFiles.js';
import type { Lines, ContextFiles } from './contextFiles.js';
import { ImportGraph, MAX_SECOND_HOP, targetUses, topLevelBindings } from './importedSymbols.js';
import type { Piece } from './contextPieces.js';
import type { RequestName } from './requestNames.js';
import { chooseReferences, describeDeclaration, kindOf, nameOf, requestKey, symbolOf, workspaceFile } from './symbolCandidates.js';
import type { CandidateSymbol, FoundDeclaration, Site, SymbolSearch } from './symbolCandidates.js';

/** The open documents' text goes into the index (it knows unsaved declarations); only its first build is awaited. */
export async function prepareIndex(index: LexicalIndex, files: ContextFiles, signal: AbortSignal): Promise<void> {
  for (const document of [files.document, ...files.openDocuments]) if (document.fsPath) index.updateDocument(document.fsPath, document.text);
  // Later requests answer from the index as it stands and refresh it behind themselves: a walk of a large workspace
  // on every request would cost more than a name found one request late.
  if (!index.walked()) await index.refresh(signal);
  // `search` walks only when the last walk is older than the index's refresh interval; the empty query ranks nothing.
  else void index.search('', { limit: 0 }).catch(() => undefined);
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

/**
 * Names the program did not resolve. Without a program, the target's names are first resolved through its file's
 * imports (`importedSymbols.ts`): the declaration the code uses, wherever other copies of the name live. What that
 * leaves (the names the user wrote, methods called on values, a script's globals) is looked up by name in the
 * lexical index, in the files the document's imports reach when any declares it. References are then found by name
 * in the texts at hand (the open documents and the program's files), never by reading the workspace.
 */
export function lexicalSymbols(search: SymbolSearch, names: RequestName[], withoutProgram: DocumentSnapshot | undefined, program: ts.Program | undefined): CandidateSymbol[] {
  const { files, index } = search;
  let wanted: Wanted[] = names.map((name) => ({ name, fromRequest: true, order: search.requested.indexOf(name) }));
  const out: CandidateSymbol[] = [];
  // The trees here are lent (`withSyntaxTree`), not handed out: nothing of them outlives the call, so the tree of a
  // file being edited stays its tree of edits, and the next keystroke is parsed incrementally instead of whole.
  if (withoutProgram) {
    wanted = withSyntaxTree(files.nameOf(withoutProgram), withoutProgram.text, (source) => {
      const graph = new ImportGraph({ root: files.root, has: (relative) => index.has(relative), text: (fsPath) => files.text(fsPath) }, source);
      const { uses, byName } = targetUses(source, search.input.target);
      const bindings = topLevelBindings(source);
      const resolved: { declaration: FoundDeclaration; fromRequest: boolean; order: number; requestName?: string }[] = [];
      const add = (declaration: FoundDeclaration | undefined, entry: { fromRequest: boolean; order: number; requestName?: string }): boolean => {
        if (!declaration || resolved.some((r) => r.declaration.node === declaration.node)) return declaration !== undefined;
        resolved.push({ declaration: { ...declaration, fromRequest: entry.fromRequest }, ...entry });
        return true;
      };
      // The user's names that the file binds mean what they mean in it.
      const left = wanted.filter((w) => w.name.container !== undefined || !bindings.has(w.name.simple) || !add(graph.useIn(source, { name: w.name.simple }), { fromRequest: true, order: w.order, requestName: requestKey(w.name) }));
      uses.forEach((use, i) => add(graph.useIn(source, use), { fromRequest: false, order: 1_000 + i }));
      // The types those declarations are written with, after them: what the code reads of a value (`error.issues`).
      const types = resolved.filter((r) => r.declaration.kind === 'interface' || r.declaration.kind === 'type');
      let hops = 0;
      for (const [i, first] of types.entries()) {
        for (const next of graph.typesNamedBy(first.declaration, MAX_SECOND_HOP - hops)) if (add({ ...next, rank: next.rank + 1 }, { fromRequest: false, order: 1_500 + i })) hops++;
        if (hops >= MAX_SECOND_HOP) break;
      }
      for (const { declaration, order, requestName } of resolved) {
        const symbol = symbolOf(declaration, files, search.avoid, order);
        if (!symbol) continue;
        if (!symbol.declaration.stub) symbol.references = lexicalReferences(declaration, search, program);
        if (requestName) symbol.requestName = requestName;
        out.push(symbol);
      }
      const rest: Wanted[] = [...left];
      byName.forEach(({ simple, member }, i) => {
        if (!rest.some((w) => w.name.simple === simple)) rest.push({ name: { simple }, fromRequest: false, order: 2_000 + i, ...(member ? { member } : {}) });
      });
      return rest;
    });
  }
  const relative = files.relative(files.nameOf(search.input.document));
  const reached = relative !== undefined ? index.reachedFrom(relative) : new Set<string>();
  const containers = new Set(names.map((n) => n.simple));
  const containerOf = (display: string): string => display.split('.').slice(-2, -1)[0] ?? '';
  for (const { name, fromRequest, order, member } of wanted) {
    const declared = index
      .declarations((display) => {
        if (member && !display.includes('.')) return false;
        if (!name.container) return true;
        return containerOf(display) === name.container;
      }, 20, name.simple)
      .sort((a, b) => Number(!containers.has(containerOf(a.name))) - Number(!containers.has(containerOf(b.name))) || Number(!reached.has(a.path)) - Number(!reached.has(b.path)) || a.path.localeCompare(b.path) || a.startLine - b.startLine);
    // A declaration the document's imports reach is the one it means; another copy of the name is not a second guess.
    const near = declared.filter((hit) => reached.has(hit.path));
    for (const hit of (near.length > 0 ? near : declared).slice(0, 2)) {
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

interface Wanted {
  name: RequestName;
  fromRequest: boolean;
  order: number;
  /** A method called on a value: only members answer it. */
  member?: boolean;
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
