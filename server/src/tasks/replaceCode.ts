// A model's code answer put in place of a target: the fenced code, reindented, with the imports it needs, an annotation, and refusals that go back to the model.
import { ts } from 'ts-morph';
import { parseDocument } from '../repo/declarations.js';
import { annotationComment, isAnnotationComment } from '../edits/annotation.js';
import type { Annotation } from '../edits/annotation.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import { singleDocument } from '../edits/proposal.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { TaskAnswer, TaskRunView } from './task.js';

/** The code of a model's answer: its first fenced block (preferring one tagged as TypeScript or JavaScript). */
export function fencedCode(answer: string): { ok: true; code: string } | { ok: false; reason: string } {
  const fences = fencedBlocks(answer);
  if (fences.length === 0) {
    return { ok: false, reason: answer.includes('```') ? 'the code block in the answer is not closed' : 'the answer holds no code block; answer with the corrected code in one code fence' };
  }
  const code = fences.find((f) => /^(ts|tsx|typescript|js|jsx|javascript|mts|cts)$/i.test(f.language)) ?? fences[0];
  return { ok: true, code: (code?.code ?? '').replace(/\r\n/g, '\n') };
}

/**
 * The closed fences of an answer, in order: from a ``` to the end of its line (the language tag first on it, after
 * any blanks), then
 * up to the next ```. Found by searching for the marks, each character looked at once: the pattern this replaces
 * tried every ``` of a long line again from the start.
 */
export function fencedBlocks(answer: string): { language: string; code: string }[] {
  const blocks: { language: string; code: string }[] = [];
  for (let at = answer.indexOf('```'); at >= 0; ) {
    const lineEnd = answer.indexOf('\n', at + 3);
    if (lineEnd < 0) break;
    const close = answer.indexOf('```', lineEnd + 1);
    if (close < 0) break;
    blocks.push({ language: /^[ \t]*([\w+-]*)/.exec(answer.slice(at + 3, lineEnd))?.[1] ?? '', code: answer.slice(lineEnd + 1, close) });
    at = answer.indexOf('```', close + 3);
  }
  return blocks;
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

/** The JSDoc block directly above an offset (only whitespace and annotation comments between), if any. */
function docAbove(text: string, offset: number): { start: number; end: number } | undefined {
  let end = offset;
  for (;;) {
    while (end > 0 && /\s/.test(text[end - 1] ?? '')) end--;
    const lineStart = text.lastIndexOf('\n', end - 1) + 1;
    if (end === 0 || !isAnnotationComment(text.slice(lineStart, end))) break;
    end = lineStart;
  }
  if (!text.startsWith('*/', end - 2)) return undefined;
  const start = text.lastIndexOf('/**', end - 2);
  if (start < 0 || text.slice(start + 3, end - 2).includes('*/')) return undefined;
  return { start, end };
}

export interface ReplaceOptions {
  /** The target is an empty range at the end of a line: the code goes on a new line after it. */
  onNewLine?: boolean;
  /** The code must declare this name (a rewritten function keeps its name, so its callers still reach it). */
  declares?: string;
}

/** Whether the code declares `name`: a function, class, variable, method or property of that name at its top level or in a class. */
export function declaresName(code: string, fileName: string, name: string): boolean {
  // A method on its own parses as a call followed by a block; inside a class body it is a method again.
  return declaresIn(code, fileName, name) || declaresIn(`class __Answer__ {\n${code}\n}`, fileName, name);
}

function declaresIn(code: string, fileName: string, name: string): boolean {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, /x$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const named = (node: ts.Node): boolean => {
    const declName = (node as ts.NamedDeclaration).name;
    return declName !== undefined && (ts.isIdentifier(declName) || ts.isPrivateIdentifier(declName) || ts.isStringLiteral(declName)) && declName.text === name;
  };
  let found = false;
  const visit = (node: ts.Node, depth: number): void => {
    if (found) return;
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isVariableDeclaration(node) || ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && named(node)) found = true;
    else if (ts.isConstructorDeclaration(node) && name === 'constructor') found = true;
    // Top level, variable statements and class bodies: a name used only inside a body does not count.
    if (depth < 3 && (ts.isSourceFile(node) || ts.isVariableStatement(node) || ts.isVariableDeclarationList(node) || ts.isClassLike(node))) ts.forEachChild(node, (child) => visit(child, depth + 1));
  };
  visit(source, 0);
  return found;
}

/**
 * A model's answer as a proposal: the code from its fence replaces the target range (a declaration, a comment, a
 * selection, or an empty range where code is inserted); import lines it starts with are added to the file's imports
 * when missing. Empty and unchanged answers are refused with a reason that goes back to the model.
 */
export function replaceTargetWithCode(answerText: string, run: TaskRunView, annotation: Annotation | undefined, options: ReplaceOptions = {}): TaskAnswer {
  const { document, target } = run;
  const text = document.text;
  const fileName = syntaxFileName(document);
  const fenced = fencedCode(answerText);
  if (!fenced.ok) return fenced;
  const original = text.slice(target.start, target.end);
  const targetIsImport = /^\s*import\b/.test(original);
  const { imports, source, rest } = targetIsImport ? { imports: [], source: undefined, rest: fenced.code } : splitImports(fenced.code, fileName);
  const lineStart = text.lastIndexOf('\n', target.start - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, target.start))?.[0] ?? '';
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  // An annotation is the server's to write: one in the answer is a copy or a forgery.
  let body = rest.split('\n').filter((line) => !isAnnotationComment(line)).join('\n');
  if (options.declares && !declaresName(rest, fileName, options.declares)) return { ok: false, reason: `the answer must declare \`${options.declares}\` again, with the same name` };
  const doc = target.start === target.end ? undefined : docAbove(text, target.start);
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
  // On its own line above the code (below its doc comment, which keeps only documentation).
  if (annotation) newText = `${annotationComment(annotation)}${nl}${indent}${newText}`;
  if (missing.length > 0 && source) {
    const importText = missing.map((m) => m.getText(source).trim()).join(nl);
    const at = importInsertion(text, fileName);
    // An import place inside or after the target (a file whose imports follow the code) takes the imports into the replacement.
    if (at.offset > target.start) newText = `${importText}${nl}${indent}${newText}`;
    else edits.push({ start: at.offset, end: at.offset, newText: at.before ? `${importText}${nl}` : `${nl}${importText}` });
  }
  if (options.onNewLine) newText = `${nl}${indent}${newText}`;
  edits.push({ start: target.start, end: target.end, newText });
  return { ok: true, kind: 'edit', proposal: singleDocument({ uri: document.uri, version: document.version, baseText: text, edits }), text: fenced.code.trim() };
}
