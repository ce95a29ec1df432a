// Pieces of a request's context from where the user works: lines around recent positions, and the best parts of the other open documents.
import { isSupportedLanguage, resolvePath, uriToPath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationAt, listDeclarations } from '../repo/declarations.js';
import { nextWordAt } from './wordSearch.js';
import { isCode } from './contextFiles.js';
import type { ContextFiles } from './contextFiles.js';
import { HEAD_LINES, MAX_LINES, MAX_OPEN_DOCUMENTS, MAX_RECENT, MAX_RECENT_SPAN, RECENT_AROUND } from './contextLimits.js';
import { capped, dedent, stub, windowAround, withCuts } from './contextPieces.js';
import type { Piece } from './contextPieces.js';
import type { RequestContextInput } from './contextShapes.js';
import { classBodiesAt } from './enclosingDeclaration.js';

/**
 * What a recent place or another open document must share with the target to be worth its tokens: a file (the
 * target's own, one its file imports, one declaring a symbol of the context), or a name the target uses or the user
 * wrote (or, for a recent place, the target's own).
 */
export interface Relation {
  files: ReadonlySet<string>;
  names: ReadonlySet<string>;
}

function sharesName(text: string, names: ReadonlySet<string>): boolean {
  for (const name of names) if (nextWordAt(text, name) >= 0) return true;
  return false;
}

/**
 * A few lines around each visited place, most recent first: not the target's own lines, not a place next to one
 * already taken, nothing outside the workspace, nothing unrelated to the target. A place in an excluded file
 * becomes a stub, which is not read.
 */
export function recentPieces(input: RequestContextInput, files: ContextFiles, target: { fileName: string; startLine: number; endLine: number }, relation: Relation): Piece[] {
  const pieces: Piece[] = [];
  const simple = input.target.name.split('.').pop() ?? '';
  const ownName = /^[A-Za-z_$][\w$]*$/.test(simple) ? simple : undefined;
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
    if (!relation.files.has(fileName) && !sharesName(lines.slice(startLine, endLine), relation.names) && !(ownName && nextWordAt(lines.slice(startLine, endLine), ownName) >= 0)) continue;
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
 * it uses or the user names, or using the target's own name), smaller before larger; then the head of the file when
 * the target's file imports it. A document with none of these is left out.
 */
export function openDocumentPieces(input: RequestContextInput, files: ContextFiles, relation: Relation): Piece[][] {
  const targetName = input.target.name.split('.').pop() ?? input.target.name;
  const named = relation.names;
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
    const imported = relation.files.has(fsPath);
    if (ranked.length === 0 && !imported) continue;
    scored.push({ document, score: ranked[0]?.score ?? 0, choices: [...ranked.slice(0, 3).map((r) => r.piece), ...(imported ? [head] : [])] });
  }
  const visited = (document: DocumentSnapshot): number => recency.get(document.uri) ?? Number.MAX_SAFE_INTEGER;
  scored.sort((a, b) => b.score - a.score || visited(a.document) - visited(b.document) || a.document.uri.localeCompare(b.document.uri));
  const excluded = scored.filter((s) => s.score < 0);
  const included = scored.filter((s) => s.score >= 0).slice(0, MAX_OPEN_DOCUMENTS);
  return [...excluded, ...included].map((s) => s.choices);
}
