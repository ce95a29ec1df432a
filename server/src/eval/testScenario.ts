// The test scenario (Copilot harness): tests written for exported functions, run against the original code; scored on syntax correctness and generated-test pass rate.
import { ts } from 'ts-morph';
import type { DeclarationTarget } from '../repo/declarations.js';
import { KIND_LABEL, listDeclarations, parseDocument } from '../repo/declarations.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { runnerUnavailable, runTestFile } from '../oracle/testRunner.js';
import { extractCode, proposedTestFile, testFileProposal, testPlaceOf, testTask } from '../tasks/testTask.js';
import type { TaskTarget } from '../tasks/task.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import type { Proposal } from '../edits/proposal.js';
import { runCaseTask } from './caseRun.js';
import { syntaxErrors } from './docFormat.js';
import { hash } from './docScenario.js';
import { KEPT_FAILURE_LINES, MIN_STATEMENTS, readText, reasonLines, snapshotOf, statementCount, TEST_FILE } from './generateScenario.js';
import { hasMinifiedLines } from '../workspace/generatedFiles.js';
import { repositorySourceFiles } from './sourceFiles.js';
import type { SkipCounts, SourceFile } from './sourceFiles.js';
import type { CaseRun, EvalCase, Scenario, Score } from './scenario.js';

/** A call that declares a test, as the product's Test task looks for one. */
const TEST_CALL = /\b(describe|it|test|suite)\s*(\.\s*\w+\s*)?\(/;

export interface TestCase extends EvalCase {
  fsPath: string;
  /** The source file as the repository has it: what the agent sees, and what the tests run against. */
  text: string;
  /** The function the tests are for. */
  declaration: DeclarationTarget;
  /** The target of the product's Test offer on the function. */
  taskTarget: TaskTarget;
  /** Where the product writes the tests (absolute), and whether that file exists (the tests are then appended to it). */
  testFile: string;
  testFileExists: boolean;
  /** The package whose runner runs the tests, and its framework. */
  packageRoot: string;
  framework: TestFrameworkName;
}

export const testScenario: Scenario<TestCase> = {
  id: 'test',
  task: 'test',
  title: 'Test generation for exported functions, run against the original code',
  metrics: [
    { id: 'syntax', label: 'syntax correctness', overProposals: true },
    { id: 'tests', label: 'generated-test pass rate', passAtK: true },
  ],
  primaryMetric: 'tests',

  async buildCases(context, signal) {
    const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
    const files = repositorySourceFiles(context.env.workspace, skipped);
    const sources = files.filter((f) => !TEST_FILE.test(f.relative));
    const left = { brokenFiles: 0, noRunner: 0, notInstalled: 0, notOffered: 0, short: 0, minified: 0 };
    let notInstalled: string | undefined;
    /** Why each package's runner cannot run (undefined when it can), looked up once per package. */
    const runners = new Map<string, string | undefined>();
    const cases: TestCase[] = [];
    for (const file of sources) {
      signal.throwIfAborted();
      if (syntaxErrors(file.fsPath, file.text).length > 0) {
        left.brokenFiles++;
        continue;
      }
      const document = snapshotOf(file.fsPath, file.text);
      const place = testPlaceOf(context.env.workspace, document);
      if (!place || place.convention.assumed) {
        left.noRunner++;
        continue;
      }
      // A runner the package names but nobody installed would fail every case for a reason no agent controls.
      const packageKey = `${place.convention.framework}\u0000${place.convention.root}`;
      if (!runners.has(packageKey)) runners.set(packageKey, runnerUnavailable(place.convention.framework, context.scratch.root, place.convention.root));
      const missing = runners.get(packageKey);
      if (missing) {
        left.notInstalled++;
        notInstalled ??= missing;
        continue;
      }
      const testText = readText(place.testPath);
      const source = parseDocument(file.fsPath, file.text);
      const starts = lineStarts(file.text);
      for (const { declaration, body } of topLevelFunctions(file, source)) {
        const offer = testTask.offersAt({ document, start: declaration.start, end: declaration.start, diagnostics: [] }).find((o) => o.target.start === declaration.start && o.target.declaration?.kind === declaration.kind);
        if (!offer) {
          left.notOffered++;
          continue;
        }
        if (!body || statementCount(body) < MIN_STATEMENTS) {
          left.short++;
          continue;
        }
        if (hasMinifiedLines(file.text.slice(declaration.start, declaration.end))) {
          left.minified++;
          continue;
        }
        const line = offsetToPosition(file.text, declaration.start, starts).line + 1;
        const testLabel = context.scratch.relativeOf(place.testPath);
        cases.push({
          id: `test:${file.relative}:${line}:${declaration.name}`,
          file: file.relative,
          line,
          target: `${KIND_LABEL[declaration.kind]} ${declaration.name}`,
          // Tests appended to an existing file run with that file's own tests: its text decides the outcome too.
          contentHash: hash(`${file.text}\u0000${declaration.start}\u0000${declaration.name}\u0000${testLabel}\u0000${testText ?? ''}`),
          fsPath: file.fsPath,
          text: file.text,
          declaration,
          taskTarget: offer.target,
          testFile: place.testPath,
          testFileExists: testText !== undefined,
          packageRoot: place.convention.root,
          framework: place.convention.framework,
        });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }

    const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
    const out: string[] = [];
    if (left.short > 0) out.push(`${count(left.short, 'function', 'functions')} of fewer than ${MIN_STATEMENTS} statements`);
    if (left.notOffered > 0) out.push(`${count(left.notOffered, 'function', 'functions')} the Test task is not offered on (not exported)`);
    if (left.minified > 0) out.push(`${count(left.minified, 'minified function', 'minified functions')}`);
    if (left.noRunner > 0) out.push(`${count(left.noRunner, 'file', 'files')} in packages with no test runner detected`);
    if (left.notInstalled > 0) out.push(`${count(left.notInstalled, 'file', 'files')} whose tests could not run (${notInstalled ?? ''})`);
    if (left.brokenFiles > 0) out.push(`${count(left.brokenFiles, 'file', 'files')} with syntax errors`);
    if (skipped.generated + skipped.minified > 0) out.push(`${skipped.generated} generated and ${skipped.minified} minified files`);
    context.note(`test: ${cases.length} cases (${count(sources.length, 'source file', 'source files')}${out.length > 0 ? `; left out: ${out.join('; ')}` : ''})`);
    return cases;
  },

  async run(env, evalCase, agent, interactionId, signal) {
    const declaration = evalCase.declaration;
    const run = await runCaseTask(
      env,
      { task: 'test', document: snapshotOf(evalCase.fsPath, evalCase.text), target: evalCase.taskTarget, text: `Write tests for the ${KIND_LABEL[declaration.kind]} ${declaration.name}` },
      agent,
      interactionId,
      signal,
    );
    return run.proposal ? run : withUnparsableTests(run, evalCase);
  },

  async score(context, evalCase, run, signal): Promise<Score> {
    const testLabel = context.scratch.relativeOf(evalCase.testFile);
    const base = { testFile: testLabel, appended: evalCase.testFileExists, oraclePassed: run.oraclePassed ?? null };
    const fail = (failure: string, details: Record<string, unknown> = {}): Score => ({ metrics: { syntax: run.proposal ? 0 : null, tests: 0 }, failure, details: { ...base, ...details } });
    if (!run.proposal) return fail(run.failure ?? 'no proposal');
    const file = proposedTestFile(run.proposal);
    if (!file || run.proposal.documents.length + run.proposal.creates.length !== 1 || file.path !== evalCase.testFile) return fail(`the answer writes other files than its test file ${testLabel}`);
    const errors = syntaxErrors(file.path, file.text);
    if (errors.length > 0) return fail(`${testLabel} does not parse: ${errors[0] ?? ''}`);
    const added = runnableTests(run.proposal);
    if (added === 0) return { metrics: { syntax: 1, tests: 0 }, failure: `${testLabel}: the answer adds no test that runs (only todo or skipped ones)`, details: { ...base, tests: 0 } };
    // Only the test file differs from the repository: the tests run against the original code, in the runner's own copy.
    const result = await runTestFile({ workspaceRoot: context.scratch.root, packageRoot: evalCase.packageRoot, framework: evalCase.framework, testFile: file.path, files: [file], timeoutMs: context.env.oracle.testTimeoutMs }, signal);
    const details = { ...base, tests: added, command: result.command, exitCode: result.exitCode, timedOut: result.timedOut, failures: result.failures.slice(0, KEPT_FAILURE_LINES) };
    if (result.passed) return { metrics: { syntax: 1, tests: 1 }, details };
    const lines = reasonLines(result.failures);
    const why = result.unavailable ? `${testLabel} could not run: ${result.unavailable}` : `${testLabel} fails on the original code${lines.length > 0 ? `: ${lines.join(' | ')}` : ` (exit code ${result.exitCode ?? 'none'})`}`;
    return { metrics: { syntax: 1, tests: 0 }, failure: why, details };
  },

  contextChars: (evalCase) => evalCase.declaration.end - evalCase.declaration.start,
};

/** The file's top-level function declarations and function-valued consts, each with its block body (undefined for an expression body). */
function topLevelFunctions(file: SourceFile, source: ts.SourceFile): Array<{ declaration: DeclarationTarget; body: ts.Block | undefined }> {
  const byStart = new Map<number, DeclarationTarget[]>();
  for (const declaration of listDeclarations(file.fsPath, file.text)) {
    if (declaration.kind !== 'function' && declaration.kind !== 'arrow-function') continue;
    byStart.set(declaration.start, [...(byStart.get(declaration.start) ?? []), declaration]);
  }
  const out: Array<{ declaration: DeclarationTarget; body: ts.Block | undefined }> = [];
  for (const statement of source.statements) {
    for (const declaration of byStart.get(statement.getStart(source)) ?? []) {
      if (ts.isFunctionDeclaration(statement) && declaration.kind === 'function') {
        out.push({ declaration, body: statement.body });
      } else if (ts.isVariableStatement(statement) && declaration.kind === 'arrow-function') {
        const variable = statement.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === declaration.simpleName);
        let value = variable?.initializer;
        while (value && (ts.isParenthesizedExpression(value) || ts.isAsExpression(value) || ts.isSatisfiesExpression(value))) value = value.expression;
        const fn = value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) ? value : undefined;
        out.push({ declaration, body: fn && ts.isBlock(fn.body) ? fn.body : undefined });
      }
    }
  }
  return out;
}

/**
 * A run whose answer the Test task refused because its test code does not parse, with that code as the proposal the
 * task would have made: the harness measures the syntax of what the agent wrote, as generate measures a body the
 * oracle rejected. Other runs without a proposal (no code, no test in it) stay without one.
 */
function withUnparsableTests(run: CaseRun, evalCase: TestCase): CaseRun {
  const answer = run.response?.status === 'empty' ? run.response.text : '';
  if (!answer.includes('```')) return run;
  const code = extractCode(answer);
  if (!code || !TEST_CALL.test(code) || syntaxErrors(evalCase.testFile, code).length === 0) return run;
  const proposal = testFileProposal(evalCase.testFile, code, undefined).proposal;
  const uri = pathToUri(evalCase.testFile);
  if (!proposal.creates.every((c) => c.uri === uri) || !proposal.documents.every((d) => d.uri === uri)) return run;
  return { ...run, proposal, oraclePassed: false };
}

/**
 * The tests the proposal adds that run (calls of `it`/`test`, also `.only`, `.each`, `.concurrent`, but not `.todo`
 * or `.skip`), counted in the created file or in the text appended to an existing one.
 */
export function runnableTests(proposal: Proposal): number {
  const texts = [...proposal.creates.map((c) => c.text), ...proposal.documents.flatMap((d) => d.edits.map((e) => e.newText))];
  let count = 0;
  for (const text of texts) {
    const source = ts.createSourceFile('added.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && declaresTest(node.expression)) count++;
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return count;
}

function declaresTest(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'it' || callee.text === 'test';
  if (ts.isPropertyAccessExpression(callee)) return ts.isIdentifier(callee.expression) && (callee.expression.text === 'it' || callee.expression.text === 'test') && ['only', 'concurrent', 'sequential'].includes(callee.name.text);
  // `it.each(table)('name', fn)`: the call of what `each` returns.
  return ts.isCallExpression(callee) && ts.isPropertyAccessExpression(callee.expression) && ts.isIdentifier(callee.expression.expression) && ['it', 'test'].includes(callee.expression.expression.text) && callee.expression.name.text === 'each';
}
