// The generate scenario (Copilot harness): bodies of functions covered by passing tests, written again from the rest of the file; scored on syntax correctness and test pass rate, with Pass@k over samples.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import type { DeclarationKind, DeclarationTarget } from '../repo/declarations.js';
import { KIND_LABEL, listDeclarations, parseDocument } from '../repo/declarations.js';
import { testFilePath } from '../repo/testFramework.js';
import type { Workspace } from '../workspace/workspace.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { runTestFile } from '../oracle/testRunner.js';
import type { TestRunResult } from '../oracle/testRunner.js';
import { functionIn, generateTask } from '../tasks/generateTask.js';
import type { TaskTarget } from '../tasks/task.js';
import { applyOffsetEdits, lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { languageIdForPath, pathToUri } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { runCaseTask } from './caseRun.js';
import { syntaxErrors } from './docFormat.js';
import { hash } from './docScenario.js';
import { hasMinifiedLines } from '../workspace/generatedFiles.js';
import { repositorySourceFiles } from './sourceFiles.js';
import type { SkipCounts, SourceFile } from './sourceFiles.js';
import type { BuildContext, EvalCase, Scenario, Score } from './scenario.js';
import { forEachBounded } from './pool.js';

/** Functions and methods, as the harness takes them. */
const FUNCTION_KINDS: ReadonlySet<DeclarationKind> = new Set(['function', 'method', 'arrow-function', 'constructor', 'getter', 'setter']);
/**
 * A case's body holds at least this many statements, counted at every depth (a loop and the statements in it count
 * each): statements rather than lines, so formatting neither makes a one-liner a case nor hides a short loop.
 */
export const MIN_STATEMENTS = 2;
/** Most test files run while building cases (each run starts the project's runner): the rest of the files are left out. */
export const MAX_BUILD_TEST_RUNS = 40;
/** Test files run at once while building cases. */
export const BUILD_CONCURRENCY = 4;
/** What replaces a case's body: the harness's "your code here" comment (an empty body, so the product offers Generate). */
const PLACEHOLDER = '// your code here';
export const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/i;
/** Failure lines of a test run kept in a record. */
export const KEPT_FAILURE_LINES = 10;

export interface GenerateCase extends EvalCase {
  fsPath: string;
  /** The file with the case's body replaced by the placeholder: what the agent sees. */
  text: string;
  /** The body as the repository has it, braces included (for the records and for people reading them). */
  originalBody: string;
  /** The function in `text`. */
  declaration: DeclarationTarget;
  /** The target and parameters the product's Generate offer has on `text` (a body to write). */
  taskTarget: TaskTarget;
  parameters: Record<string, string>;
  /** The test file that covers the function, absolute, and the package its runner runs in. */
  testFile: string;
  packageRoot: string;
  framework: TestFrameworkName;
}

export const generateScenario: Scenario<GenerateCase> = {
  id: 'generate',
  task: 'generate',
  title: 'Code generation of function bodies, checked by the tests covering them',
  metrics: [
    { id: 'syntax', label: 'syntax correctness', overProposals: true },
    { id: 'tests', label: 'test pass rate', passAtK: true },
  ],
  primaryMetric: 'tests',

  async buildCases(context, signal) {
    const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
    const files = repositorySourceFiles(context.env.workspace, skipped);
    const sources = files.filter((f) => !TEST_FILE.test(f.relative));
    const importers = testFilesImporting(context.env.workspace, files);
    const left = { brokenFiles: 0, untested: 0, noCandidate: 0, overCap: 0, failing: 0, unavailable: 0, notOffered: 0 };
    let firstUnavailable: string | undefined;

    // Syntax first: only files with a function worth a case get their test file run.
    const planned: Array<{ file: SourceFile; testFile: string; packageRoot: string; framework: TestFrameworkName; candidates: Candidate[] }> = [];
    for (const file of sources) {
      signal.throwIfAborted();
      if (syntaxErrors(file.fsPath, file.text).length > 0) {
        left.brokenFiles++;
        continue;
      }
      const covering = coveringTestFile(context.env.workspace, file.fsPath, importers);
      if (!covering) {
        left.untested++;
        continue;
      }
      const testText = readText(covering.testFile);
      const candidates = testText === undefined ? [] : candidatesOf(file, testText);
      if (candidates.length === 0) {
        left.noCandidate++;
        continue;
      }
      planned.push({ file, ...covering, candidates });
    }

    // Each test file runs once on the original code (several sources may share one), at most MAX_BUILD_TEST_RUNS of them.
    const cap = context.maxBuildTestRuns ?? MAX_BUILD_TEST_RUNS;
    const testFiles = [...new Set(planned.map((p) => p.testFile))];
    const run = testFiles.slice(0, cap);
    if (run.length > 0) context.note(`generate: running ${run.length} test ${run.length === 1 ? 'file' : 'files'} on the original code, to keep the functions whose tests pass`);
    const verdicts: Map<string, TestRunResult> = await forEachBounded(
      run,
      BUILD_CONCURRENCY,
      (testFile) => {
        const owner = planned.find((p) => p.testFile === testFile) as (typeof planned)[number];
        return runTestFile({ workspaceRoot: context.scratch.root, packageRoot: owner.packageRoot, framework: owner.framework, testFile, files: [], timeoutMs: context.env.oracle.testTimeoutMs }, signal);
      },
      signal,
    );

    const cases: GenerateCase[] = [];
    const failingTests = new Set<string>();
    for (const plan of planned) {
      const verdict = verdicts.get(plan.testFile);
      if (!verdict) {
        left.overCap++;
        continue;
      }
      if (!verdict.passed) {
        if (verdict.unavailable) {
          left.unavailable++;
          firstUnavailable ??= verdict.unavailable;
        } else {
          left.failing++;
          failingTests.add(context.scratch.relativeOf(plan.testFile));
        }
        continue;
      }
      const testText = readText(plan.testFile) ?? '';
      for (const candidate of plan.candidates) {
        const made = caseOf(context, plan, candidate, testText);
        if (made) cases.push(made);
        else left.notOffered++;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }

    const fileCount = (n: number): string => `${n} ${n === 1 ? 'file' : 'files'}`;
    const notes = [`${sources.length} source ${sources.length === 1 ? 'file' : 'files'}`, `${verdicts.size} test ${verdicts.size === 1 ? 'file' : 'files'} run on the original code`];
    const out: string[] = [];
    if (left.untested > 0) out.push(`${fileCount(left.untested)} without a test file`);
    if (left.noCandidate > 0) out.push(`${fileCount(left.noCandidate)} with no function of ${MIN_STATEMENTS} or more statements named in its test file`);
    if (left.failing > 0) out.push(`${fileCount(left.failing)} whose tests fail before any change (${[...failingTests].slice(0, 3).join(', ')})`);
    if (left.unavailable > 0) out.push(`${fileCount(left.unavailable)} whose tests could not run (${firstUnavailable ?? ''})`);
    if (left.overCap > 0) out.push(`${fileCount(left.overCap)} beyond the ${cap} test files run while building cases`);
    if (left.brokenFiles > 0) out.push(`${fileCount(left.brokenFiles)} with syntax errors`);
    if (left.notOffered > 0) out.push(`${left.notOffered} ${left.notOffered === 1 ? 'function' : 'functions'} the Generate task is not offered on once emptied`);
    if (skipped.generated + skipped.minified > 0) out.push(`${skipped.generated} generated and ${skipped.minified} minified files`);
    context.note(`generate: ${cases.length} cases (${notes.join('; ')}${out.length > 0 ? `; left out: ${out.join('; ')}` : ''})`);
    return cases;
  },

  run(env, evalCase, agent, interactionId, signal) {
    const declaration = evalCase.declaration;
    return runCaseTask(
      env,
      { task: 'generate', document: snapshotOf(evalCase.fsPath, evalCase.text), target: evalCase.taskTarget, parameters: evalCase.parameters, text: `Write the body of ${KIND_LABEL[declaration.kind]} ${declaration.name}` },
      agent,
      interactionId,
      signal,
    );
  },

  async score(context, evalCase, run, signal): Promise<Score> {
    const testLabel = context.scratch.relativeOf(evalCase.testFile);
    const base = { testFile: testLabel, oraclePassed: run.oraclePassed ?? null };
    const fail = (failure: string, details: Record<string, unknown> = {}): Score => ({ metrics: { syntax: run.proposal ? 0 : null, tests: 0 }, failure, details: { ...base, ...details } });
    if (!run.proposal) return fail(run.failure ?? 'no proposal');
    const uri = pathToUri(evalCase.fsPath);
    const plan = run.proposal.documents.find((d) => d.uri === uri);
    if (!plan || run.proposal.documents.length > 1 || run.proposal.creates.length > 0) return fail('the answer edits other files than the one whose body it writes');
    // Applied in memory only: the edited text reaches the test run's own copy, never the scratch copy's files.
    const after = applyOffsetEdits(plan.baseText, plan.edits);
    const errors = syntaxErrors(evalCase.fsPath, after);
    if (errors.length > 0) return fail(`the edited file does not parse: ${errors[0] ?? ''}`);
    const result = await runTestFile({ workspaceRoot: context.scratch.root, packageRoot: evalCase.packageRoot, framework: evalCase.framework, testFile: evalCase.testFile, files: [{ path: evalCase.fsPath, text: after }], timeoutMs: context.env.oracle.testTimeoutMs }, signal);
    const details = { ...base, command: result.command, exitCode: result.exitCode, timedOut: result.timedOut, failures: result.failures.slice(0, KEPT_FAILURE_LINES) };
    if (result.passed) return { metrics: { syntax: 1, tests: 1 }, details };
    const lines = reasonLines(result.failures);
    const why = result.unavailable ? `${testLabel} could not run: ${result.unavailable}` : `${testLabel} fails with the generated body${lines.length > 0 ? `: ${lines.join(' | ')}` : ` (exit code ${result.exitCode ?? 'none'})`}`;
    return { metrics: { syntax: 1, tests: 0 }, failure: why, details };
  },

  contextChars: (evalCase) => evalCase.declaration.end - evalCase.declaration.start,
};

/**
 * The first failure lines for a reason: the runner's per-test marks (`× name 5ms`) left out when other lines say the
 * same with the assertion, and timings dropped, so equal failures read alike and are counted together in the report.
 */
export function reasonLines(failures: readonly string[]): string[] {
  const cleaned = failures.map((line) => line.replace(/\s+\d+(?:\.\d+)?\s?m?s$/, '').replace(/\s+/g, ' ').trim()).filter(Boolean);
  const marks = /^[×✗✕✖]/;
  const telling = cleaned.some((line) => !marks.test(line)) ? cleaned.filter((line) => !marks.test(line)) : cleaned;
  return telling.slice(0, 2);
}

/** A function of a source file that can become a case: named in its test file, with a body long enough. */
interface Candidate {
  declaration: DeclarationTarget;
  body: { start: number; end: number };
}

/** The functions and methods of the file whose name the test file mentions and whose block body has enough statements. */
function candidatesOf(file: SourceFile, testText: string): Candidate[] {
  const source = parseDocument(file.fsPath, file.text);
  const out: Candidate[] = [];
  for (const declaration of listDeclarations(file.fsPath, file.text)) {
    if (!FUNCTION_KINDS.has(declaration.kind)) continue;
    // A constructor is reached through its class's name.
    const name = declaration.kind === 'constructor' ? (declaration.name.split('.')[0] ?? '') : declaration.simpleName;
    if (!name || !mentions(testText, name)) continue;
    const fn = functionIn(source, declaration.start, declaration.end);
    if (!fn || statementCount(fn.body) < MIN_STATEMENTS) continue;
    const body = { start: fn.body.getStart(source), end: fn.body.getEnd() };
    if (hasMinifiedLines(file.text.slice(body.start, body.end))) continue;
    out.push({ declaration, body });
  }
  return out;
}

/** The case of one candidate: its body replaced, the declaration found again, and the product's body offer on it. */
function caseOf(context: BuildContext, plan: { file: SourceFile; testFile: string; packageRoot: string; framework: TestFrameworkName }, candidate: Candidate, testText: string): GenerateCase | undefined {
  const { file } = plan;
  const { declaration, body } = candidate;
  const original = file.text.slice(body.start, body.end);
  const nl = file.text.includes('\r\n') ? '\r\n' : '\n';
  const text = `${file.text.slice(0, body.start)}{${nl}${innerIndent(file.text, body, declaration.indent)}${PLACEHOLDER}${nl}${declaration.indent}}${file.text.slice(body.end)}`;
  const found = listDeclarations(file.fsPath, text).find((d) => d.kind === declaration.kind && d.start === declaration.start && d.simpleName === declaration.simpleName);
  if (!found) return undefined;
  const document = snapshotOf(file.fsPath, text);
  const offer = generateTask.offersAt({ document, start: found.start, end: found.start, diagnostics: [] }).find((o) => o.parameters?.mode === 'body' && o.target.start === found.start);
  if (!offer?.parameters) return undefined;
  const line = offsetToPosition(file.text, declaration.start, lineStarts(file.text)).line + 1;
  return {
    id: `generate:${file.relative}:${line}:${declaration.name}`,
    file: file.relative,
    line,
    target: `${KIND_LABEL[declaration.kind]} ${declaration.name}`,
    // The test file decides the outcome as much as the code does.
    contentHash: hash(`${text}\u0000${found.start}\u0000${declaration.name}\u0000${context.scratch.relativeOf(plan.testFile)}\u0000${testText}`),
    fsPath: file.fsPath,
    text,
    originalBody: original,
    declaration: found,
    taskTarget: offer.target,
    parameters: offer.parameters,
    testFile: plan.testFile,
    packageRoot: plan.packageRoot,
    framework: plan.framework,
  };
}

/** The indentation of the body's first statement when it starts its own line, else one level (two spaces) deeper than the declaration. */
function innerIndent(text: string, body: { start: number; end: number }, indent: string): string {
  const match = /^\{[ \t]*\r?\n(?:[ \t]*\r?\n)*([ \t]*)\S/.exec(text.slice(body.start, body.end));
  const found = match?.[1];
  return found !== undefined && found.length > indent.length ? found : `${indent}  `;
}

/** Statements at every depth of a body (empty statements left out; nested function and class declarations count as one each, and so do their statements). */
export function statementCount(body: ts.Block): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    const statement = (node.kind >= ts.SyntaxKind.FirstStatement && node.kind <= ts.SyntaxKind.LastStatement && node.kind !== ts.SyntaxKind.EmptyStatement) || ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node);
    if (statement) count++;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
  return count;
}

/** Whether the name occurs in the text as an identifier of its own (not inside a longer one). */
export function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(text);
}

/**
 * The test file covering a source file: the one the project's convention names (either infix) when it exists, else
 * the first, by path, of the test files that import it. One file per source, so a case's tests are one run.
 */
export function coveringTestFile(workspace: Workspace, fsPath: string, importers: ReadonlyMap<string, string[]>): { testFile: string; packageRoot: string; framework: TestFrameworkName } | undefined {
  const convention = workspace.testConvention(fsPath);
  const conventional = testFilePath(convention, fsPath);
  const other = conventional.replace(/\.(test|spec)(\.[cm]?[jt]sx?)$/, (_all, infix: string, ext: string) => `.${infix === 'test' ? 'spec' : 'test'}${ext}`);
  const testFile = [conventional, other].find((candidate) => fs.existsSync(candidate)) ?? importers.get(path.resolve(fsPath))?.[0];
  if (!testFile) return undefined;
  // An importing test may sit in another package of a monorepo: its own package's runner runs it.
  const runner = workspace.testConvention(testFile);
  return { testFile, packageRoot: runner.root, framework: runner.framework };
}

/** Source files (absolute) → the test files importing them by a relative specifier, sorted by path. */
export function testFilesImporting(workspace: Workspace, files: readonly SourceFile[]): Map<string, string[]> {
  const tests = new Set(files.filter((f) => TEST_FILE.test(f.relative)).map((f) => f.fsPath));
  // Test folders a tsconfig leaves out are still where the convention found its examples.
  const packages = new Set<string>();
  for (const file of files) {
    if (TEST_FILE.test(file.relative)) continue;
    const convention = workspace.testConvention(file.fsPath);
    if (packages.has(convention.root)) continue;
    packages.add(convention.root);
    for (const example of convention.examples) tests.add(path.resolve(convention.root, example));
  }
  const out = new Map<string, string[]>();
  for (const test of [...tests].sort()) {
    const text = readText(test);
    if (text === undefined) continue;
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
      const resolved = resolveRelative(path.dirname(test), match[1] ?? '');
      if (!resolved) continue;
      const list = out.get(resolved) ?? [];
      if (!list.includes(test)) list.push(test);
      out.set(resolved, list);
    }
  }
  return out;
}

/** The source file a relative specifier names: `.js` written for a `.ts` file (NodeNext), no extension, or a folder's index. */
function resolveRelative(dir: string, specifier: string): string | undefined {
  const base = path.resolve(dir, specifier);
  const stem = base.replace(/\.[cm]?jsx?$/, '');
  const candidates = [base, ...['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].map((ext) => `${stem}${ext}`), ...['index.ts', 'index.tsx', 'index.js'].map((name) => path.join(base, name))];
  return candidates.find((candidate) => {
    try {
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

export function readText(fsPath: string): string | undefined {
  try {
    return fs.readFileSync(fsPath, 'utf8');
  } catch {
    return undefined;
  }
}

export function snapshotOf(fsPath: string, text: string): DocumentSnapshot {
  return { uri: pathToUri(fsPath), fsPath, languageId: languageIdForPath(fsPath), version: 1, text };
}
