// The Fix task: offered on every diagnostic at the selection; a compiler fix is taken as is, a model's corrected declaration replaces the old one, and the oracle must see fewer diagnostics and no new one.
import { ts } from 'ts-morph';
import { declarationAt, withSyntaxTree } from '../repo/declarations.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { fixRule, noNewDiagnosticsRule, typeCheckProposal } from '../oracle/typeCheck.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import { replaceTargetWithCode } from './replaceCode.js';
import type { CheckContext, DiagnosticInfo, TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';

/** Longest diagnostic message shown in a menu title. */
const TITLE_CHARS = 60;

/** Whether a diagnostic is the TypeScript compiler's (a numeric code from `ts`, `typescript` or no named source). */
export function isTypeScriptDiagnostic(diagnostic: DiagnosticInfo | undefined): boolean {
  if (!diagnostic || diagnostic.code === undefined || !/^(TS)?\d+$/i.test(String(diagnostic.code))) return false;
  return diagnostic.source === undefined || /^(ts|typescript|deno-ts|tsserver)$/i.test(diagnostic.source);
}

/** The diagnostic's display name: `TS2304`, `eslint no-unused-vars`, or its source. */
export function diagnosticName(diagnostic: DiagnosticInfo): string {
  const code = diagnostic.code;
  if (isTypeScriptDiagnostic(diagnostic)) return `TS${String(code).replace(/^TS/i, '')}`;
  if (code !== undefined) return diagnostic.source ? `${diagnostic.source} ${code}` : String(code);
  return diagnostic.source ? `the ${diagnostic.source} diagnostic` : 'the diagnostic';
}

/** The first line of a message, whitespace collapsed, cut to fit a menu. */
export function shortMessage(message: string, max = TITLE_CHARS): string {
  const line = (message.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** Nodes a fix may rewrite as a whole: declarations and top-level statements, never a statement inside a body. */
function isUnit(node: ts.Node): boolean {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    (node.parent !== undefined && ts.isSourceFile(node.parent))
  );
}

/**
 * The diagnostic's span widened to the innermost enclosing declaration (a method, a function, a class member, a
 * top-level statement): what a model sees and rewrites. A diagnostic outside every declaration (a doc comment, the
 * end of the file) widens to its own lines.
 */
export function fixTarget(document: DocumentSnapshot, diagnostic: DiagnosticInfo): TaskTarget {
  const text = document.text;
  const fileName = syntaxFileName(document);
  const start = Math.max(0, Math.min(diagnostic.start, text.length));
  const end = Math.max(start, Math.min(diagnostic.end, text.length));
  const unit = withSyntaxTree(fileName, text, (source) => {
    let best: ts.Node | undefined;
    const visit = (node: ts.Node): void => {
      if (node.getStart(source) > start || node.getEnd() < end) return;
      if (isUnit(node)) best = node;
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(source, visit);
    return best && { start: best.getStart(source), end: best.getEnd() };
  });
  const name = diagnosticName(diagnostic);
  if (unit) {
    const declaration = declarationAt(fileName, text, unit.start);
    return { name, start: unit.start, end: unit.end, diagnostic, ...(declaration && declaration.start === unit.start ? { declaration } : {}) };
  }
  const starts = lineStarts(text);
  const first = offsetToPosition(text, start, starts).line;
  const last = offsetToPosition(text, end, starts).line;
  const lineStart = starts[first] ?? 0;
  const lineEnd = (starts[last + 1] ?? text.length + 1) - 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, lineEnd))?.[0] ?? '';
  return { name, start: Math.min(lineStart + indent.length, lineEnd), end: Math.max(lineEnd, lineStart + indent.length), diagnostic };
}

/** Whether the diagnostic concerns the selection: it overlaps it, or, for a bare cursor, lies on the cursor's line. */
function concerns(diagnostic: DiagnosticInfo, start: number, end: number, cursorLine: () => { start: number; end: number }): boolean {
  if (diagnostic.start <= end && diagnostic.end >= start) return true;
  if (start !== end) return false;
  const line = cursorLine();
  return diagnostic.start <= line.end && diagnostic.end >= line.start;
}

function allowsJs(context: CheckContext): boolean {
  try {
    return context.project.tsProject().getCompilerOptions().allowJs === true;
  } catch {
    return false;
  }
}

/** How far from the cursor, in lines, a free-text "fix this error" still finds the diagnostic it means. */
const NEAR_LINES = 10;

/**
 * The diagnostic a free-text "fix this" means: one at the selection or on the cursor's line, else the nearest within
 * a few lines, errors before warnings at the same distance.
 */
export function nearestDiagnostic(document: DocumentSnapshot, start: number, end: number, diagnostics: readonly DiagnosticInfo[]): DiagnosticInfo | undefined {
  const starts = lineStarts(document.text);
  const lineOf = (offset: number): number => offsetToPosition(document.text, offset, starts).line;
  const first = lineOf(start);
  const last = lineOf(end);
  let best: { diagnostic: DiagnosticInfo; distance: number; severity: number } | undefined;
  for (const diagnostic of diagnostics) {
    const overlaps = diagnostic.start <= end && diagnostic.end >= start;
    const from = lineOf(diagnostic.start);
    const to = lineOf(diagnostic.end);
    const distance = overlaps ? 0 : to < first ? first - to : from > last ? from - last : 0;
    if (distance > NEAR_LINES) continue;
    const severity = diagnostic.severity ?? 1;
    if (!best || distance < best.distance || (distance === best.distance && severity < best.severity)) best = { diagnostic, distance, severity };
  }
  return best?.diagnostic;
}

export const fixTask: TaskDefinition = {
  id: 'fix',

  askTarget(document, start, end, _text, diagnostics) {
    const diagnostic = nearestDiagnostic(document, start, end, diagnostics ?? []);
    return diagnostic ? { target: fixTarget(document, diagnostic) } : undefined;
  },

  offersAt({ document, start, end, diagnostics }): TaskOffer[] {
    if (diagnostics.length === 0) return [];
    let line: { start: number; end: number } | undefined;
    const cursorLine = (): { start: number; end: number } => {
      if (line) return line;
      const text = document.text;
      const lineStart = text.lastIndexOf('\n', Math.max(0, start - 1)) + 1;
      const newline = text.indexOf('\n', start);
      line = { start: start === 0 ? 0 : lineStart, end: newline < 0 ? text.length : newline };
      return line;
    };
    const seen = new Set<string>();
    const offers: TaskOffer[] = [];
    for (const diagnostic of diagnostics) {
      if (!concerns(diagnostic, start, end, cursorLine)) continue;
      // Two sources (the client and the server's own check) may report the same problem.
      const key = `${diagnostic.start}:${diagnostic.end}:${String(diagnostic.code ?? '')}:${diagnostic.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      offers.push({ task: 'fix', title: `Assistant: Fix "${shortMessage(diagnostic.message)}"`, kind: 'quickfix', target: fixTarget(document, diagnostic) });
    }
    return offers;
  },

  convertAnswer(answer, run, annotation): TaskAnswer {
    // Compiler fixes come as exact changes, possibly over several files: taken as they are.
    if (answer.proposal) return { ok: true, kind: 'edit', proposal: answer.proposal, text: answer.text };
    return replaceTargetWithCode(answer.text, run, annotation);
  },

  /**
   * A compiler diagnostic must go away without a new one appearing (the Copilot harness rule). The type checker
   * cannot see other sources' diagnostics (lint, tests), so their fixes must only leave it no worse.
   */
  check: (proposal, run, context, signal) => {
    // A lint fix in a JavaScript file the TypeScript project does not check has no type check to pass.
    if (!isTypeScriptDiagnostic(run.target.diagnostic) && run.document.languageId.startsWith('javascript') && !allowsJs(context)) {
      return Promise.resolve({ passed: true, summary: 'not type-checked: the TypeScript project does not include JavaScript files' });
    }
    return typeCheckProposal(context.project, proposal, signal, isTypeScriptDiagnostic(run.target.diagnostic) ? fixRule : noNewDiagnosticsRule);
  },
};
