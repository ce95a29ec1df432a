// The Test task: offered on exported functions and classes; its answer becomes a new test file (or a describe appended to the existing one), type-checked and, when enabled, run.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Verdict } from '../protocol.js';
import { declarationStartingAt, topLevelStatementAround, withSyntaxTree } from '../repo/declarations.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import { frameworkNotInstalled, testFilePath } from '../repo/testFramework.js';
import type { TestConvention } from '../repo/testFramework.js';
import { formatAnnotation } from '../edits/annotation.js';
import type { Annotation } from '../edits/annotation.js';
import { applyOffsetEdits } from '../edits/textEdits.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import type { Proposal } from '../edits/proposal.js';
import { editorBuffers, formatFileErrors, typeCheckNewFile } from '../oracle/typeCheck.js';
import type { FileDiagnostic } from '../oracle/typeCheck.js';
import { runTestFile } from '../oracle/testRunner.js';
import { isExportedStatement } from '../agents/offline/testScaffold.js';
import { pathToUri, syntaxFileName, uriToPath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import { declarationTarget } from './documentTask.js';
import { fencedBlocks } from './replaceCode.js';
import type { CheckContext, TaskAnswer, TaskDefinition, TaskOffer, TaskRunView } from './task.js';

/**
 * Proposals that an agent computed itself (the offline scaffold) rather than a model wrote: they must type-check, but
 * their smoke calls are guesses and their todos are for the developer, so a failing run is recorded, not held against them.
 */
const scaffolds = new WeakSet<Proposal>();

/** Where the tests of a document go. */
export interface TestPlace {
  convention: TestConvention;
  sourcePath: string;
  testPath: string;
}

/** The test file for a document on disk under its project's convention; undefined for untitled buffers. */
export function testPlaceOf(workspace: Workspace, document: DocumentSnapshot): TestPlace | undefined {
  if (!document.fsPath) return undefined;
  const convention = workspace.testConvention(document.fsPath);
  return { convention, sourcePath: document.fsPath, testPath: testFilePath(convention, document.fsPath) };
}

/** The exported function or class (top-level) whose lines the range lies in. */
export function exportedTestTarget(document: DocumentSnapshot, start: number, end: number): DeclarationTarget | undefined {
  const fileName = syntaxFileName(document);
  const anchor = withSyntaxTree(fileName, document.text, (source) => {
    const statement = topLevelStatementAround(source, start, end);
    return statement && isExportedStatement(statement) ? statement.getStart(source) : undefined;
  });
  if (anchor === undefined) return undefined;
  return declarationStartingAt(fileName, document.text, anchor, ['function', 'class', 'arrow-function']);
}

function lineStartOf(text: string, offset: number): number {
  let at = offset;
  while (at > 0 && text[at - 1] !== '\n') at--;
  return at;
}

export const testTask: TaskDefinition = {
  id: 'test',

  offersAt({ document, start, end }): TaskOffer[] {
    // Declaration files hold no code to run.
    if (!document.fsPath || /\.d\.[cm]?ts$/i.test(document.fsPath)) return [];
    const target = exportedTestTarget(document, start, end);
    if (!target) return [];
    return [{ task: 'test', title: `Assistant: Generate tests for ${target.name}`, kind: 'source.assistant.test', target: declarationTarget(target) }];
  },

  convertAnswer(answer, run, annotation): TaskAnswer {
    const place = testPlaceOf(run.workspace, run.document);
    if (!place) return { ok: false, reason: 'tests can only be written for a file on disk' };
    const code = extractCode(answer.text);
    if (!code) return { ok: false, reason: 'the answer holds no test code' };
    const problem = testCodeProblem(code, run.target.declaration?.simpleName ?? run.target.name, place.testPath);
    if (problem) return { ok: false, reason: problem };
    const built = testFileProposal(place.testPath, code, annotation);
    // An answer that comes with its own proposal was computed by its agent (the scaffold), not written by a model.
    if (answer.proposal) scaffolds.add(built.proposal);
    return { ok: true, kind: 'edit', proposal: built.proposal, text: built.created ? built.fileText : built.added };
  },

  async check(proposal, run, context, signal): Promise<Verdict> {
    return checkTestProposal(proposal, run, context, signal);
  },
};

// ---------------------------------------------------------------------------------------------
// The answer as a proposal

/** The code of an answer: its (largest) code fence, or the whole text when it has none. */
export function extractCode(text: string): string | undefined {
  const usable = fencedBlocks(text)
    .filter((f) => /^(ts|typescript|tsx|js|javascript|jsx|mjs|mts)?$/i.test(f.language))
    .map((f) => f.code);
  if (usable.length > 0) return usable.sort((a, b) => b.length - a.length)[0]?.trim() || undefined;
  // A fence the model never closed (cut off): what follows its opening line.
  const open = text.indexOf('```');
  const lineEnd = open < 0 ? -1 : text.indexOf('\n', open);
  const body = (lineEnd >= 0 ? text.slice(lineEnd + 1) : text).trim();
  return body || undefined;
}

/** Why the code cannot be a test file for `symbol`, or undefined when it can. */
function testCodeProblem(code: string, symbol: string, testPath: string): string | undefined {
  if (!/\b(describe|it|test|suite)\s*(\.\s*\w+\s*)?\(/.test(code)) return 'the answer holds no describe, it or test call';
  const syntax = ts.transpileModule(code, { fileName: `answer${/x$/i.test(testPath) ? '.tsx' : '.ts'}`, reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).diagnostics ?? [];
  const error = syntax.find((d) => d.category === ts.DiagnosticCategory.Error);
  if (error) {
    const line = error.file && error.start !== undefined ? error.file.getLineAndCharacterOfPosition(error.start).line + 1 : 0;
    return `the test code does not parse (line ${line}: ${ts.flattenDiagnosticMessageText(error.messageText, ' ')})`;
  }
  if (!new RegExp(`\\b${symbol.replace(/[$]/g, '\\$')}\\b`).test(code)) return `the tests never mention ${symbol}`;
  return undefined;
}

export interface TestFileProposal {
  proposal: Proposal;
  /** Whether the proposal creates the file (else it appends to it). */
  created: boolean;
  /** The whole test file once the proposal is applied. */
  fileText: string;
  /** What the proposal adds: the whole file, or the appended imports and describe. */
  added: string;
}

/**
 * A proposal creating the test file with `code`, or, when the file exists, adding the imports it lacks and
 * appending the rest. The annotation goes on its own line above the first test.
 */
export function testFileProposal(testPath: string, code: string, annotation: Annotation | undefined): TestFileProposal {
  const uri = pathToUri(testPath);
  const annotationLine = annotation ? `// ${formatAnnotation(annotation)}` : undefined;
  const clean = code.split('\n').filter((line) => !/^\s*\/\/\s*@assistant\b/.test(line)).join('\n').trimEnd();
  let existing: string | undefined;
  try {
    existing = fs.readFileSync(testPath, 'utf8');
  } catch {
    existing = undefined;
  }
  if (existing === undefined) {
    const text = `${withAnnotation(clean, annotationLine)}\n`;
    return { proposal: { documents: [], creates: [{ uri, text }] }, created: true, fileText: text, added: text };
  }
  const edits = mergeTestFile(existing, clean, annotationLine, /x$/i.test(testPath) ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  return {
    proposal: { documents: [{ uri, version: null, baseText: existing, edits }], creates: [] },
    created: false,
    fileText: applyOffsetEdits(existing, edits),
    added: edits.map((e) => e.newText.trim()).join('\n\n'),
  };
}

/** The annotation line inserted above the first statement that is not an import. */
function withAnnotation(code: string, annotationLine: string | undefined): string {
  if (!annotationLine) return code;
  const source = ts.createSourceFile('test.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const first = source.statements.find((s) => !ts.isImportDeclaration(s) && !ts.isImportEqualsDeclaration(s));
  const at = first ? lineStartOf(code, first.getStart(source)) : code.length;
  const before = code.slice(0, at);
  return `${before}${before && !before.endsWith('\n') ? '\n' : ''}${annotationLine}\n${code.slice(at)}`;
}

interface Binding {
  kind: 'named' | 'default' | 'namespace';
  /** How it is written in the import (`a as b`). */
  text: string;
  local: string;
}

/**
 * Edits that bring `addition` into an existing test file: imports it needs that the file lacks (merged into an
 * import of the same module where one exists), and everything else appended at the end.
 */
export function mergeTestFile(existing: string, addition: string, annotationLine: string | undefined, kind: ts.ScriptKind = ts.ScriptKind.TS): OffsetEdit[] {
  const old = ts.createSourceFile('existing.ts', existing, ts.ScriptTarget.Latest, true, kind);
  const added = ts.createSourceFile('addition.ts', addition, ts.ScriptTarget.Latest, true, kind);
  const oldImports = old.statements.filter(ts.isImportDeclaration);
  const declared = new Set<string>();
  for (const statement of old.statements) {
    if (ts.isImportDeclaration(statement)) bindingsOf(statement, old).forEach((b) => declared.add(b.local));
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) declared.add(statement.name.text);
    else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) declared.add(d.name.text);
  }
  const edits: OffsetEdit[] = [];
  const newLines: string[] = [];
  for (const statement of added.statements.filter(ts.isImportDeclaration)) {
    const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
    const bindings = bindingsOf(statement, added);
    if (bindings.length === 0) {
      if (!oldImports.some((o) => (o.moduleSpecifier as ts.StringLiteral).text === specifier)) newLines.push(statement.getText(added));
      continue;
    }
    const missing = bindings.filter((b) => !declared.has(b.local));
    if (missing.length === 0) continue;
    missing.forEach((b) => declared.add(b.local));
    const typeOnly = statement.importClause?.isTypeOnly === true;
    const sameModule = oldImports.find((o) => (o.moduleSpecifier as ts.StringLiteral).text === specifier && (o.importClause?.isTypeOnly === true) === typeOnly && o.importClause?.namedBindings && ts.isNamedImports(o.importClause.namedBindings));
    const named = missing.filter((b) => b.kind === 'named');
    const namedImports = sameModule?.importClause?.namedBindings;
    if (namedImports && ts.isNamedImports(namedImports) && named.length > 0) {
      const last = namedImports.elements[namedImports.elements.length - 1];
      if (last) edits.push({ start: last.getEnd(), end: last.getEnd(), newText: named.map((b) => `, ${b.text}`).join('') });
      else edits.push({ start: namedImports.getStart(old) + 1, end: namedImports.getStart(old) + 1, newText: ` ${named.map((b) => b.text).join(', ')} ` });
    } else if (named.length > 0) {
      newLines.push(`import ${typeOnly ? 'type ' : ''}{ ${named.map((b) => b.text).join(', ')} } from '${specifier}';`);
    }
    for (const other of missing.filter((b) => b.kind !== 'named')) {
      newLines.push(`import ${typeOnly ? 'type ' : ''}${other.kind === 'namespace' ? `* as ${other.local}` : other.local} from '${specifier}';`);
    }
  }
  const lastImport = oldImports[oldImports.length - 1];
  if (newLines.length > 0) {
    const firstStatement = old.statements[0];
    const at = lastImport ? lastImport.getEnd() : firstStatement ? lineStartOf(existing, firstStatement.getStart(old)) : 0;
    edits.push({ start: at, end: at, newText: lastImport ? `\n${newLines.join('\n')}` : `${newLines.join('\n')}\n` });
  }
  const body = added.statements.filter((s) => !ts.isImportDeclaration(s));
  const firstBody = body[0];
  if (firstBody) {
    const bodyText = addition.slice(firstBody.getFullStart()).trim();
    const separator = existing.length === 0 ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
    edits.push({ start: existing.length, end: existing.length, newText: `${separator}${annotationLine ? `${annotationLine}\n` : ''}${bodyText}\n` });
  }
  // Two insertions at one offset (imports at the very end of the file) keep their order as one edit.
  const merged: OffsetEdit[] = [];
  for (const edit of edits) {
    const same = merged.find((m) => m.start === edit.start && m.end === edit.end);
    if (same) same.newText += edit.newText;
    else merged.push({ ...edit });
  }
  return merged;
}

function bindingsOf(statement: ts.ImportDeclaration, source: ts.SourceFile): Binding[] {
  const clause = statement.importClause;
  if (!clause) return [];
  const out: Binding[] = [];
  if (clause.name) out.push({ kind: 'default', text: clause.name.text, local: clause.name.text });
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) out.push({ kind: 'namespace', text: bindings.name.text, local: bindings.name.text });
  if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) out.push({ kind: 'named', text: element.getText(source), local: element.name.text });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The oracle

/** The test file a proposal writes, and its whole text once applied. */
export function proposedTestFile(proposal: Proposal): { path: string; text: string } | undefined {
  const created = proposal.creates[0];
  const uri = created?.uri ?? proposal.documents[0]?.uri;
  const filePath = uri ? uriToPath(uri) : undefined;
  if (!filePath) return undefined;
  if (created) return { path: filePath, text: created.text };
  const plan = proposal.documents[0];
  return plan ? { path: filePath, text: applyOffsetEdits(plan.baseText, plan.edits) } : undefined;
}

/** TypeScript's "cannot find" errors: a module (2307), a name (2304), a test runner's globals (2582, 2593). */
const NOT_FOUND_CODES: ReadonlySet<number> = new Set([2307, 2304, 2582, 2593]);

/**
 * The cause of a test file's type errors when it is the framework missing from the project: no edit of the tests
 * could fix that, and "1 type error" would hide it.
 */
function frameworkCause(convention: TestConvention, errors: readonly FileDiagnostic[]): string | undefined {
  if (!errors.some((error) => NOT_FOUND_CODES.has(error.code))) return undefined;
  return frameworkNotInstalled(convention);
}

/**
 * The new test file must type-check against the workspace as the editor sees it; with `oracle.runTests` it is also
 * run (alone, in a scratch copy) and must pass, its failures becoming the feedback of the model's next attempt.
 */
async function checkTestProposal(proposal: Proposal, run: TaskRunView, context: CheckContext, signal: AbortSignal): Promise<Verdict> {
  signal.throwIfAborted();
  const file = proposedTestFile(proposal);
  if (!file) return { passed: false, summary: 'the proposal writes no test file' };
  const label = path.relative(context.root, file.path).split(path.sep).join('/');
  const errors = typeCheckNewFile(context.project, file);
  signal.throwIfAborted();
  const place = testPlaceOf(run.workspace, run.document);
  if (errors.length > 0) {
    const summary = (place && frameworkCause(place.convention, errors)) ?? `${errors.length} type error${errors.length > 1 ? 's' : ''} in ${label}`;
    return { passed: false, summary, details: formatFileErrors(label, errors).slice(0, 30) };
  }
  const scaffold = scaffolds.has(proposal);
  const what = scaffold ? 'the scaffold type-checks' : 'the tests type-check';
  if (!context.oracle.runTests) return { passed: true, summary: `${what} (not run: oracle.runTests is off)` };
  if (!place) return { passed: true, summary: `${what} (not run: the document is not on disk)` };
  const files = [...editorBuffers(context.project), ...(run.document.fsPath ? [{ path: run.document.fsPath, text: run.document.text }] : []), file];
  const result = await runTestFile({ workspaceRoot: context.root, packageRoot: place.convention.root, framework: place.convention.framework, testFile: file.path, files, timeoutMs: context.oracle.testTimeoutMs }, signal);
  // A run that cannot start is not the tests' fault: another attempt could not change it.
  if (result.unavailable) return { passed: true, summary: `${what}; not run: ${result.unavailable}` };
  if (result.passed) return { passed: true, testsPassed: true, summary: scaffold ? `the scaffold type-checks and its tests pass (${result.command})` : `the tests type-check and pass (${result.command})` };
  const why = result.timedOut ? `timed out after ${context.oracle.testTimeoutMs} ms` : `exited with ${result.exitCode ?? 'an error'}`;
  // A scaffold's smoke calls use guessed arguments: its failing run is reported, and it is still offered.
  return { passed: scaffold, summary: `${what}; the tests fail (${result.command} ${why})`, details: result.failures };
}
