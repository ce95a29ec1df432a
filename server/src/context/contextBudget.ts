// The token budget of a request's context: the pieces placed in priority order through the privacy gate, as outlines or cut when they do not fit, the rest counted as omissions.
import path from 'node:path';
import { withoutAnnotationLines } from '../edits/annotation.js';
import type { Exclusion } from '../privacy/exclusion.js';
import type { Redactor } from '../privacy/secrets.js';
import type { ContextFiles } from './contextFiles.js';
import { MAX_REFERENCES } from './contextLimits.js';
import { cutLines } from './contextPieces.js';
import type { Keep, Piece } from './contextPieces.js';
import { renderedLength } from './contextRendering.js';
import type { ContextSnippet, RequestContext } from './contextShapes.js';
import type { CandidateSymbol } from './symbolCandidates.js';

type Category = 'enclosing' | 'symbol' | 'recent' | 'open' | 'reference';

export interface Planned {
  category: Category;
  piece: Piece;
  enclosing?: { name: string; kind: string };
  /** For open documents: the parts worth showing, best first (a later one when an earlier is already shown). */
  choices?: Piece[];
  symbol?: CandidateSymbol;
}

const NOUNS: Record<Category, [string, string]> = {
  enclosing: ['enclosing declaration', 'enclosing declarations'],
  symbol: ['symbol', 'symbols'],
  recent: ['recent position', 'recent positions'],
  open: ['open document', 'open documents'],
  reference: ['symbol reference', 'symbol references'],
};

/**
 * Most of the budget recent places and other open documents may take: they are the user's surroundings, not the
 * code the request is about, and must leave room for what is.
 */
const SHARE: Partial<Record<Category, number>> = { recent: 0.2, open: 0.25 };

/**
 * Fills the budget in priority order (enclosing, symbols, recent positions, open documents, references), recent
 * positions and open documents within their share of it. A piece that does not fit whole is tried as its outline,
 * then cut in the middle to what is left; after a cut (or a piece that cannot be cut small enough) the budget, or the
 * category's share, is spent and the rest is counted in the omissions.
 */
export function fill(plan: Planned[], files: ContextFiles, redactor: Redactor, budgetTokens: number, inPrompt: readonly { fsPath: string; startLine: number; endLine: number }[] = []): RequestContext {
  const maxChars = Math.max(0, Math.floor(Number.isFinite(budgetTokens) ? budgetTokens : 0)) * 4;
  let context: RequestContext = { recent: [], openDocuments: [], symbols: [], tokens: 0, omitted: [] };
  const privacy: string[] = [];
  const notes: string[] = [];
  const left = new Map<Category, number>();
  /** Characters placed of the categories with a share, and those whose share is spent. */
  const usedBy = new Map<Category, number>();
  const full = new Set<Category>();
  /** Lines the context shows: whole (every line visible) or in part (an outline, a cut). */
  const shown: { fsPath: string; startLine: number; endLine: number; whole: boolean }[] = inPrompt.map((span) => ({ ...span, whole: true }));
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
    const chosen = (step.choices ?? [step.piece]).find((choice) => !covered(choice));
    const piece = chosen && withoutShownEdges(chosen, (line) => shown.some((s) => s.whole && s.fsPath === chosen.fsPath && s.startLine <= line && line <= s.endLine));
    if (!piece) continue;
    if (spent) {
      left.set(step.category, (left.get(step.category) ?? 0) + 1);
      continue;
    }
    // A category with a share fits its pieces within what is left of it; one that fills it stops there, not the rest.
    const share = SHARE[step.category];
    const limit = share === undefined ? maxChars : Math.min(maxChars, renderedLength(context) + Math.floor(share * maxChars) - (usedBy.get(step.category) ?? 0));
    if (full.has(step.category)) {
      left.set(step.category, (left.get(step.category) ?? 0) + 1);
      continue;
    }
    const snippet = toSnippet(piece, files, redactor.redact(withoutAnnotationLines(piece.text)));
    let next: RequestContext | undefined = place(context, step, snippet, at);
    if (renderedLength(next) > limit) next = undefined;
    // Only a piece shown whole (not an outline, not cut) covers its lines.
    const whole = next !== undefined && !piece.partial;
    const outline = !next && piece.outline !== undefined ? redactor.redact(withoutAnnotationLines(piece.outline)) : undefined;
    if (!next && outline !== undefined) {
      next = place(context, step, { ...snippet, text: outline }, at);
      if (renderedLength(next) <= limit) notes.push(`${piece.describe}: shown as an outline for the budget`);
      else next = undefined;
    }
    if (!next) {
      if (limit < maxChars) full.add(step.category);
      else spent = true;
      next = cutToFit(context, step, { ...snippet, text: outline ?? snippet.text }, at, limit, piece.code, outline !== undefined ? piece.outlineKeep : piece.keep);
      if (next) notes.push(`${piece.describe}: cut to fit the budget`);
    }
    if (!next) {
      left.set(step.category, (left.get(step.category) ?? 0) + 1);
      continue;
    }
    if (share !== undefined) usedBy.set(step.category, (usedBy.get(step.category) ?? 0) + renderedLength(next) - renderedLength(context));
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

/**
 * A piece without its first and last lines when the context or the prompt shows them whole already (a recent place
 * next to a symbol, a reference at a declaration's edge): no line is sent twice. Only a piece whose text is its
 * lines one for one can be trimmed; undefined when nothing of it is left but blank lines.
 */
function withoutShownEdges(piece: Piece, isShown: (line: number) => boolean): Piece | undefined {
  if (piece.partial || piece.stub) return piece;
  const lines = piece.text.split('\n');
  if (lines.length !== piece.endLine - piece.startLine + 1) return piece;
  let first = 0;
  let last = lines.length - 1;
  while (first <= last && isShown(piece.startLine + first)) first++;
  while (last >= first && isShown(piece.startLine + last)) last--;
  if (first === 0 && last === lines.length - 1) return piece;
  const kept = lines.slice(first, last + 1);
  if (kept.every((line) => line.trim() === '')) return undefined;
  const { outline: _outline, keep: _keep, ...rest } = piece;
  const focus = piece.focus && { startLine: Math.max(piece.focus.startLine, piece.startLine + first), endLine: Math.min(piece.focus.endLine, piece.startLine + last) };
  return { ...rest, startLine: piece.startLine + first, endLine: piece.startLine + last, text: kept.join('\n'), ...(focus && focus.startLine <= focus.endLine ? { focus } : {}) };
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

export function describe(exclusion: Exclusion): string {
  if (exclusion.why === 'outside') return `${exclusion.path}: leads outside the workspace`;
  return exclusion.why === 'secret' ? `${exclusion.path}: a secrets file (by its name)` : `${exclusion.path}: ignored by ${exclusion.source ?? 'an ignore file'}`;
}

function toSnippet(piece: Piece, files: ContextFiles, text: string): ContextSnippet {
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
