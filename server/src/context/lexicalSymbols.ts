// The lexical symbol resolver of a request's context: names the program left, found in the lexical index, references found by name in the texts at hand.
import { ts } from 'ts-morph';
import { resolvePath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationAt, firstStatementEndingFrom, withSyntaxTree } from '../repo/declarations.js';
import type { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { nextWordAt } from './wordSearch.js';
import { inside, isCode } from './contextFiles.js';
import type { Lines, ContextFiles } from './contextFiles.js';
import { MAX_SYMBOLS } from './contextLimits.js';
import type { Piece } from './contextPieces.js';
import type { RequestContextInput } from './contextShapes.js';
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
 * Names the program did not resolve, from the lexical index (files the project has not loaded), and, when there is
 * no program at all, the target's code-shaped identifiers too. References are then found by name in the texts at
 * hand (the open documents and the program's files), never by reading the workspace.
 */
export function lexicalSymbols(search: SymbolSearch, names: RequestName[], withoutProgram: DocumentSnapshot | undefined, program: ts.Program | undefined): CandidateSymbol[] {
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
