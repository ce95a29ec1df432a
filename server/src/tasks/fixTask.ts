// The Fix task: offered on every diagnostic at the selection; a compiler fix is taken as is, a model's corrected declaration replaces the old one, and the oracle must see fewer diagnostics and no new one.
import { ts } from 'ts-morph';
import { declarationAt, parseDocument } from '../repo/declarations.js';
import { formatAnnotation } from '../edits/annotation.js';
import type { Annotation } from '../edits/annotation.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import { singleDocument } from '../edits/proposal.js';
import { fixRule, noNewDiagnosticsRule, typeCheckProposal } from '../oracle/typeCheck.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { documentFileName } from './documentTask.js';
import type { DiagnosticInfo, TaskAnswer, TaskDefinition, TaskOffer, TaskRunView, TaskTarget } from './task.js';

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
  const fileName = documentFileName(document);
  const source = parseDocument(fileName, text);
  const start = Math.max(0, Math.min(diagnostic.start, text.length));
  const end = Math.max(start, Math.min(diagnostic.end, text.length));
  let best: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (node.getStart(source) > start || node.getEnd() < end) return;
    if (isUnit(node)) best = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  const name = diagnosticName(diagnostic);
  if (best) {
    const nodeStart = best.getStart(source);
    const declaration = declarationAt(fileName, text, nodeStart);
    return { name, start: nodeStart, end: best.getEnd(), diagnostic, ...(declaration && declaration.start === nodeStart ? { declaration } : {}) };
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

export const fixTask: TaskDefinition = {
  id: 'fix',

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
    return correctedDeclaration(answer.text, run, annotation);
  },

  /**
   * A compiler diagnostic must go away without a new one appearing (the Copilot harness rule). The type checker
   * cannot see other sources' diagnostics (lint, tests), so their fixes must only leave it no worse.
   */
  check: (proposal, run, context, signal) => typeCheckProposal(context.project, proposal, signal, isTypeScriptDiagnostic(run.target.diagnostic) ? fixRule : noNewDiagnosticsRule),
};

/** The code of a model's answer: its first fenced block (preferring one tagged as TypeScript or JavaScript). */
export function fencedCode(answer: string): { ok: true; code: string } | { ok: false; reason: string } {
  const fences = [...answer.matchAll(/```([\w+-]*)[^\n]*\n([\s\S]*?)```/g)];
  if (fences.length === 0) {
    return { ok: false, reason: answer.includes('```') ? 'the code block in the answer is not closed' : 'the answer holds no code block; answer with the corrected code in one code fence' };
  }
  const code = fences.find((f) => /^(ts|tsx|typescript|js|jsx|javascript|mts|cts)$/i.test(f[1] ?? '')) ?? fences[0];
  return { ok: true, code: (code?.[2] ?? '').replace(/\r\n/g, '\n') };
}

/** Leading import declarations of the model's code (imports the fix needs), and the rest: the corrected declaration. */
function splitImports(code: string, fileName: string): { imports: ts.ImportDeclaration[]; source: ts.SourceFile; rest: string } {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, /x$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const imports: ts.ImportDeclaration[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) break;
    imports.push(statement);
  }
  const last = imports[imports.length - 1];
  return { imports, source, rest: last ? code.slice(last.getEnd()) : code };
}

/** The names an import declaration binds, with its module: what tells whether the file already has it. */
function importedNames(declaration: ts.ImportDeclaration, source: ts.SourceFile): { module: string; names: string[] } {
  const module = ts.isStringLiteral(declaration.moduleSpecifier) ? declaration.moduleSpecifier.text : declaration.moduleSpecifier.getText(source);
  const clause = declaration.importClause;
  const names: string[] = [];
  if (clause?.name) names.push(clause.name.text);
  const bindings = clause?.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(`* as ${bindings.name.text}`);
  if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => e.name.text));
  return { module, names };
}

/** Where new imports go: after the file's last top-level import, else after a leading shebang and `//` header lines. */
function importInsertion(text: string, fileName: string): { offset: number; before: boolean } {
  const source = parseDocument(fileName, text);
  const lastImport = [...source.statements].reverse().find((s) => ts.isImportDeclaration(s));
  if (lastImport) return { offset: lastImport.getEnd(), before: false };
  let offset = 0;
  const lines = text.split('\n');
  for (const line of lines) {
    if (!(line.startsWith('#!') || /^\s*\/\//.test(line))) break;
    offset += line.length + 1;
  }
  return { offset: Math.min(offset, text.length), before: true };
}

/** Removes the code's common indentation, then indents every line after the first with the target's own. */
function reindent(code: string, indent: string): string {
  const lines = code.split('\n');
  while (lines.length > 0 && (lines[0] ?? '').trim() === '') lines.shift();
  while (lines.length > 0 && (lines[lines.length - 1] ?? '').trim() === '') lines.pop();
  const measured = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const common = measured.length > 0 ? Math.min(...measured) : 0;
  const lastIndent = /^[ \t]*/.exec(lines[lines.length - 1] ?? '')?.[0] ?? '';
  // A declaration copied from the file with only its first line trimmed is already indented like the file.
  if (common === 0 && indent !== '' && lines.length > 1 && lastIndent === indent) return lines.map((l, i) => (i === 0 ? l.trimStart() : l.trimEnd())).join('\n');
  return lines.map((l, i) => (l.trim() === '' ? '' : (i === 0 ? '' : indent) + l.slice(common).trimEnd())).join('\n');
}

/** The JSDoc block directly above an offset (only whitespace between), if any. */
function docAbove(text: string, offset: number): { start: number; end: number } | undefined {
  let end = offset;
  while (end > 0 && /\s/.test(text[end - 1] ?? '')) end--;
  if (!text.startsWith('*/', end - 2)) return undefined;
  const start = text.lastIndexOf('/**', end - 2);
  if (start < 0 || text.slice(start + 3, end - 2).includes('*/')) return undefined;
  return { start, end };
}

/** The annotation as an extra line of an existing doc block. */
function annotatedDoc(block: string, tagText: string, indent: string, nl: string): string {
  const lines = block.split(/\r?\n/);
  if (lines.length === 1) {
    const inner = block.replace(/^\/\*\*\s?/, '').replace(/\s?\*\/$/, '');
    return [`/**`, `${indent} * ${inner}`, `${indent} * ${tagText}`, `${indent} */`].join(nl);
  }
  lines.splice(lines.length - 1, 0, `${indent} * ${tagText}`);
  return lines.join(nl);
}

/**
 * A model's answer as a proposal: the corrected declaration from its code fence replaces the target range; import
 * lines it starts with are added to the file's imports when missing. Empty and unchanged answers are refused with a
 * reason that goes back to the model.
 */
function correctedDeclaration(answerText: string, run: TaskRunView, annotation: Annotation | undefined): TaskAnswer {
  const { document, target } = run;
  const text = document.text;
  const fileName = documentFileName(document);
  const fenced = fencedCode(answerText);
  if (!fenced.ok) return fenced;
  const original = text.slice(target.start, target.end);
  const targetIsImport = /^\s*import\b/.test(original);
  const { imports, source, rest } = targetIsImport ? { imports: [], source: undefined, rest: fenced.code } : splitImports(fenced.code, fileName);
  const lineStart = text.lastIndexOf('\n', target.start - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, target.start))?.[0] ?? '';
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  let body = rest;
  const doc = docAbove(text, target.start);
  if (doc && !/^\s*\/\*\*/.test(original)) {
    // The file's doc comment stays where it is; a copy of it in the answer would duplicate it.
    const comments = ts.getLeadingCommentRanges(body, 0) ?? [];
    const lastComment = comments[comments.length - 1];
    if (lastComment) body = body.slice(lastComment.end);
  }
  const replacement = reindent(body, indent).split('\n').join(nl);
  if (replacement.trim() === '') return { ok: false, reason: imports.length > 0 ? 'the answer holds only imports; answer with the whole corrected declaration' : 'the answer holds no code' };

  const documentSource = parseDocument(fileName, text);
  const existing = documentSource.statements.filter(ts.isImportDeclaration).map((s) => importedNames(s, documentSource));
  const missing = source
    ? imports.filter((declaration) => {
        const wanted = importedNames(declaration, source);
        const have = existing.filter((e) => e.module === wanted.module).flatMap((e) => e.names);
        return wanted.names.length === 0 ? !existing.some((e) => e.module === wanted.module) : wanted.names.some((n) => !have.includes(n));
      })
    : [];
  const unchanged = (a: string, b: string): boolean => a.split(/\r?\n/).map((l) => l.trim()).join('\n').trim() === b.split(/\r?\n/).map((l) => l.trim()).join('\n').trim();
  if (unchanged(replacement, original) && missing.length === 0) return { ok: false, reason: 'the answer leaves the code unchanged' };

  const edits: OffsetEdit[] = [];
  let newText = replacement;
  if (annotation) {
    const tagText = formatAnnotation(annotation);
    if (doc) edits.push({ start: doc.start, end: doc.end, newText: annotatedDoc(text.slice(doc.start, doc.end), tagText, indent, nl) });
    else newText = `// ${tagText}${nl}${indent}${newText}`;
  }
  if (missing.length > 0 && source) {
    const importText = missing.map((m) => m.getText(source).trim()).join(nl);
    const at = importInsertion(text, fileName);
    // An import place inside or after the target (a file whose imports follow the code) takes the imports into the replacement.
    if (at.offset > target.start) newText = `${importText}${nl}${indent}${newText}`;
    else edits.push({ start: at.offset, end: at.offset, newText: at.before ? `${importText}${nl}` : `${nl}${importText}` });
  }
  edits.push({ start: target.start, end: target.end, newText });
  return { ok: true, kind: 'edit', proposal: singleDocument({ uri: document.uri, version: document.version, baseText: text, edits }), text: fenced.code.trim() };
}
