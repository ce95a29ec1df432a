// The class scenario (RepoClassBench): tested classes that use other files of the repository, removed and written again from a detailed or a sketchy description; scored on Pass@k, test rate and compile rate.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { habitFileName } from '../pipeline/classPipeline.js';
import { WorkspaceProject } from '../workspace/workspaceProject.js';
import { Workspace } from '../workspace/workspace.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { fileErrors, formatFileErrors, typeCheckNewFile } from '../oracle/typeCheck.js';
import { runProjectTests } from '../listeners/projectTests.js';
import type { TestReport } from '../listeners/testReport.js';
import type { Proposal } from '../edits/proposal.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { pathToUri, uriToPath } from '../workspace/documentSnapshot.js';
import type { TaskEnvironment } from '../tasks/runTask.js';
import { wholeWorkspaceTarget } from '../tasks/task.js';
import { runCaseTask } from './caseRun.js';
import { syntaxErrors } from './docFormat.js';
import { hash } from './docScenario.js';
import { BUILD_CONCURRENCY, coveringTestFile, KEPT_FAILURE_LINES, MAX_BUILD_TEST_RUNS, mentions, readText, snapshotOf, TEST_FILE, testFilesImporting } from './generateScenario.js';
import { ScratchCopy } from './scratch.js';
import { repositorySourceFiles } from './sourceFiles.js';
import type { SkipCounts, SourceFile } from './sourceFiles.js';
import { classFacts, classNamed, detailedDescription, namesUsedIn, parseSource, relativeImportNames, removeClass, reinsertClass, sketchyDescription, topLevelClasses } from './classCases.js';
import type { ClassFacts, Removal } from './classCases.js';
import type { EvalCase, Scenario, Score } from './scenario.js';
import { forEachBounded } from './pool.js';

export type DescriptionKind = 'detailed' | 'sketchy';
const KINDS: readonly DescriptionKind[] = ['detailed', 'sketchy'];
/** Type errors of the merged file kept in a record. */
const KEPT_COMPILE_ERRORS = 10;

export interface ClassCase extends EvalCase {
  kind: DescriptionKind;
  className: string;
  /** The request text: the description built from the class's metadata. */
  description: string;
  /** The class's file in the scratch copy, and its text there. */
  fsPath: string;
  originalText: string;
  /** The class as the repository has it (doc comment included), for the records and for people reading them. */
  originalClass: string;
  /** The file without the class and the imports only it used: what the agent's copy holds. */
  removal: Removal;
  /** The agent's copy deletes the file instead: the class task writes the class to a file of that very name. */
  deleteFile: boolean;
  /** The scratch copy the case was built in (root), and the folder the agents' copies go into (removed with it). */
  repositoryRoot: string;
  workFolder: string;
  /** The test file covering the class, absolute; its package and runner; how many of its tests pass on the original. */
  testFile: string;
  packageRoot: string;
  framework: TestFrameworkName;
  testCount: number;
}

/** A class that qualifies by syntax: it uses other files and a test file naming it covers its file. */
interface Planned {
  file: SourceFile;
  name: string;
  line: number;
  originalClass: string;
  removal: Removal;
  deleteFile: boolean;
  testFile: string;
  packageRoot: string;
  framework: TestFrameworkName;
}

/** One project per scratch copy for the compile checks of building and scoring, holding no editor buffers. */
const checkProjects = new WeakMap<object, WorkspaceProject>();
function checkProject(root: string, owner: object): WorkspaceProject {
  let project = checkProjects.get(owner);
  if (!project) checkProjects.set(owner, (project = new WorkspaceProject(root)));
  return project;
}

export const classScenario: Scenario<ClassCase> = {
  id: 'class',
  task: 'class',
  title: 'Class generation from a description inside the repository (RepoClassBench), checked by the compiler and the tests covering the class',
  metrics: [
    { id: 'pass', label: 'tests pass', passAtK: true },
    { id: 'testRate', label: 'test rate', ratio: true },
    { id: 'compile', label: 'compile rate' },
  ],
  primaryMetric: 'pass',

  async buildCases(context, signal) {
    const root = context.scratch.root;
    const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
    const files = repositorySourceFiles(context.env.workspace, skipped);
    const sources = files.filter((f) => !TEST_FILE.test(f.relative));
    const importers = testFilesImporting(context.env.workspace, files);
    const left = { brokenFiles: 0, noReferences: [] as string[], untested: [] as string[], typeErrors: [] as string[], failing: new Set<string>(), unavailable: [] as string[], overCap: 0 };
    let classCount = 0;

    // Syntax first: which classes use other files and have a test file naming them.
    const planned: Planned[] = [];
    for (const file of sources) {
      signal.throwIfAborted();
      const source = parseSource(file.fsPath, file.text);
      const classes = topLevelClasses(source);
      if (classes.length === 0) continue;
      classCount += classes.length;
      if (syntaxErrors(file.fsPath, file.text).length > 0) {
        left.brokenFiles++;
        continue;
      }
      const imported = relativeImportNames(source);
      const covering = coveringTestFile(context.env.workspace, file.fsPath, importers);
      const testText = covering ? readText(covering.testFile) : undefined;
      const starts = lineStarts(file.text);
      for (const cls of classes) {
        const name = cls.name?.text ?? '';
        if (namesUsedIn(cls, imported).size === 0) {
          left.noReferences.push(name);
          continue;
        }
        if (!covering || testText === undefined || !mentions(testText, name)) {
          left.untested.push(name);
          continue;
        }
        const removal = removeClass(source, cls);
        // A file named after the class (by the folder's habit, in any case) that holds nothing else goes with the
        // class, as RepoClassBench removes it: the class task then writes its file under that name again. Beside
        // other code the class task picks a free name, and the score puts the class back where it was either way.
        const habit = habitFileName(name, path.dirname(file.fsPath), '.ts').toLowerCase();
        const deleteFile = habit === path.basename(file.fsPath).toLowerCase() && !removal.hasOtherCode;
        const lines = removalLines(source, cls);
        planned.push({
          file,
          name,
          line: offsetToPosition(file.text, cls.getStart(source), starts).line + 1,
          originalClass: file.text.slice(lines.start, lines.end),
          removal,
          deleteFile,
          ...covering,
        });
      }
    }

    // The files must type-check as they are (a compile rate needs a clean start); the checker fills in inferred types.
    const project = checkProject(root, context.scratch);
    const facts = new Map<Planned, ClassFacts>();
    for (const [fsPath, group] of groupBy(planned, (p) => p.file.fsPath)) {
      signal.throwIfAborted();
      const text = (group[0] as Planned).file.text;
      const described = project.withOverlay([{ path: fsPath, text }], (p) => {
        if (fileErrors(p, path.resolve(fsPath)).length > 0) return undefined;
        const program = p.getProgram().compilerObject;
        const source = program.getSourceFile(path.resolve(fsPath));
        const checker = program.getTypeChecker();
        return group.map((plan) => {
          const cls = source ? classNamed(source, plan.name) : undefined;
          return source && cls ? classFacts(source, cls, checker) : undefined;
        });
      });
      if (!described) {
        left.typeErrors.push(...group.map((p) => p.name));
        continue;
      }
      group.forEach((plan, i) => {
        const found = described[i];
        if (found) facts.set(plan, found);
      });
      await new Promise((resolve) => setImmediate(resolve));
    }

    // Each test file runs once on the original code with the machine-readable reporter, at most the cap of them.
    const cap = context.maxBuildTestRuns ?? MAX_BUILD_TEST_RUNS;
    const testFiles = [...new Set(planned.filter((p) => facts.has(p)).map((p) => p.testFile))];
    const run = testFiles.slice(0, cap);
    if (run.length > 0) context.note(`class: running ${run.length} test ${run.length === 1 ? 'file' : 'files'} on the original code, to keep the classes whose tests pass`);
    const reports: Map<string, TestReport> = await forEachBounded(
      run,
      BUILD_CONCURRENCY,
      (testFile) => {
        const owner = planned.find((p) => p.testFile === testFile) as Planned;
        return runProjectTests({ workspace: context.env.workspace, packageRoot: owner.packageRoot, framework: owner.framework, testFiles: [testFile], timeoutMs: context.env.oracle.testTimeoutMs }, signal);
      },
      signal,
    );

    const cases: ClassCase[] = [];
    let kept = 0;
    for (const plan of planned) {
      const described = facts.get(plan);
      if (!described) continue;
      const report = reports.get(plan.testFile);
      if (!report) {
        left.overCap++;
        continue;
      }
      if (report.unavailable || report.error) {
        left.unavailable.push(`${plan.name}: ${report.unavailable ?? report.error}`);
        continue;
      }
      if (report.failed > 0 || report.timedOut || report.exitCode !== 0 || report.passed === 0) {
        left.failing.add(context.scratch.relativeOf(plan.testFile));
        continue;
      }
      kept++;
      const testLabel = context.scratch.relativeOf(plan.testFile);
      const testText = readText(plan.testFile) ?? '';
      for (const kind of KINDS) {
        const description = kind === 'detailed' ? detailedDescription(described) : sketchyDescription(described);
        cases.push({
          id: `class:${plan.file.relative}:${plan.line}:${plan.name}:${kind}`,
          file: plan.file.relative,
          line: plan.line,
          target: `class ${plan.name} (${kind})`,
          // The test file decides the outcome as much as the class does.
          contentHash: hash(`${plan.file.text}\u0000${plan.name}\u0000${kind}\u0000${description}\u0000${testLabel}\u0000${testText}`),
          kind,
          className: plan.name,
          description,
          fsPath: plan.file.fsPath,
          originalText: plan.file.text,
          originalClass: plan.originalClass,
          removal: plan.removal,
          deleteFile: plan.deleteFile,
          repositoryRoot: root,
          workFolder: context.scratch.folder,
          testFile: plan.testFile,
          packageRoot: plan.packageRoot,
          framework: plan.framework,
          testCount: report.passed,
        });
      }
    }

    const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
    const named = (names: readonly string[]): string => ` (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
    const out: string[] = [];
    if (left.noReferences.length > 0) out.push(`${count(left.noReferences.length, 'class', 'classes')} using nothing from other files${named(left.noReferences)}`);
    if (left.untested.length > 0) out.push(`${count(left.untested.length, 'class', 'classes')} without a test file naming ${left.untested.length === 1 ? 'it' : 'them'}${named(left.untested)}`);
    if (left.typeErrors.length > 0) out.push(`${count(left.typeErrors.length, 'class', 'classes')} in files with type errors before any change${named(left.typeErrors)}`);
    if (left.failing.size > 0) out.push(`classes whose tests fail before any change (${[...left.failing].slice(0, 3).join(', ')})`);
    if (left.unavailable.length > 0) out.push(`${count(left.unavailable.length, 'class', 'classes')} whose tests could not run (${left.unavailable[0] ?? ''})`);
    if (left.overCap > 0) out.push(`${count(left.overCap, 'class', 'classes')} beyond the ${cap} test files run while building cases`);
    if (left.brokenFiles > 0) out.push(`${count(left.brokenFiles, 'file', 'files')} with syntax errors`);
    const notes = [`${count(classCount, 'class', 'classes')} in ${count(sources.length, 'source file', 'source files')}`, `${count(reports.size, 'test file', 'test files')} run on the original code`];
    context.note(`class: ${cases.length} cases from ${count(kept, 'class', 'classes')}, each with a detailed and a sketchy description (${notes.join('; ')}${out.length > 0 ? `; left out: ${out.join('; ')}` : ''})`);
    return cases;
  },

  async run(env, evalCase, agent, interactionId, signal) {
    // The agent works in a copy of its own with the class removed from the disk: the repository tools, the lexical
    // index, the type-check oracle and anything reading files see the repository without it.
    const copy = removalCopy(evalCase);
    try {
      const { documents: _documents, recent: _recent, ...shared } = env;
      const caseEnv: TaskEnvironment = { ...shared, root: copy.root, workspace: new Workspace(copy.root, { saveIndex: false }) };
      const fsPath = copy.pathOf(evalCase.file);
      // The document only decides the folder of the new file (an empty text would mean "the workspace").
      const document = snapshotOf(fsPath, evalCase.removal.text.trim() === '' ? '\n' : evalCase.removal.text);
      const result = await runCaseTask(
        caseEnv,
        { task: 'class', document, target: wholeWorkspaceTarget(), parameters: { question: evalCase.description, className: evalCase.className }, text: evalCase.description },
        agent,
        interactionId,
        signal,
      );
      // Scored against the shared scratch copy: the proposal's paths are moved there (the copy goes now).
      return result.proposal ? { ...result, proposal: moveProposal(result.proposal, copy.root, evalCase.repositoryRoot) } : result;
    } finally {
      copy.dispose();
    }
  },

  async score(context, evalCase, run, signal): Promise<Score> {
    const testLabel = context.scratch.relativeOf(evalCase.testFile);
    const details: Record<string, unknown> = { description: evalCase.kind, testFile: testLabel, oraclePassed: run.oraclePassed ?? null };
    const fail = (failure: string): Score => ({ metrics: { pass: 0, testRate: 0, compile: 0 }, failure, details });
    try {
      if (!run.proposal) return fail(run.failure ?? 'no proposal');
      const created = createdClass(run.proposal, evalCase, context.scratch.root);
      if ('reason' in created) return fail(created.reason);
      details.createdFile = created.file;
      const merged = reinsertClass({ file: evalCase.file, removal: evalCase.removal }, { file: created.file, text: created.text }, evalCase.className);
      if (!merged) return fail(`${created.file} declares no class ${evalCase.className}`);
      details.addedImports = merged.addedImports;
      if (merged.helpers.length > 0) details.helpers = merged.helpers;

      // Compile: the class's file with the class back type-checks in the project, in memory.
      const errors = formatFileErrors(evalCase.file, typeCheckNewFile(checkProject(context.scratch.root, context.scratch), { path: evalCase.fsPath, text: merged.text }));
      details.compileErrors = errors.slice(0, KEPT_COMPILE_ERRORS);
      const compile = errors.length === 0 ? 1 : 0;

      // Tests: the covering test file run on a throwaway copy holding the merged file, counted per test case.
      const report = await runProjectTests({ workspace: context.env.workspace, packageRoot: evalCase.packageRoot, framework: evalCase.framework, testFiles: [evalCase.testFile], files: [{ path: evalCase.fsPath, text: merged.text }], timeoutMs: context.env.oracle.testTimeoutMs }, signal);
      const passed = report.unavailable || report.error ? 0 : Math.min(report.passed, evalCase.testCount);
      const testRate = passed / evalCase.testCount;
      const pass = !report.unavailable && !report.error && !report.timedOut && report.failed === 0 && passed === evalCase.testCount ? 1 : 0;
      details.tests = { passed: report.passed, failed: report.failed, skipped: report.skipped, expected: evalCase.testCount };
      details.exitCode = report.exitCode;
      details.timedOut = report.timedOut;
      details.failures = report.failures.slice(0, KEPT_FAILURE_LINES).map((f) => clipLine(`${f.testName}: ${f.message}`));

      const reasons: string[] = [];
      if (!pass) {
        const why = report.unavailable ?? report.error ?? (report.timedOut ? `stopped after ${context.env.oracle.testTimeoutMs} ms` : undefined);
        const first = report.failures[0];
        reasons.push(`${testLabel}: ${passed} of ${evalCase.testCount} tests pass${why ? ` (${why})` : first ? ` (${clipLine(`${first.testName}: ${first.message}`)})` : ''}`);
      }
      if (!compile) reasons.push(`${evalCase.file} does not type-check with the class: ${errors[0] ?? ''}`);
      return { metrics: { pass, testRate, compile }, ...(reasons.length > 0 ? { failure: reasons.join('; ') } : {}), details };
    } catch (error) {
      signal.throwIfAborted();
      return fail(`the class could not be measured: ${error instanceof Error ? error.message : String(error)}`);
    }
  },

  contextChars: (evalCase) => evalCase.description.length,
};

/** A copy of the scratch copy for one run, with the class removed from its file (or the file deleted), and its removal. */
export function removalCopy(evalCase: ClassCase): { root: string; pathOf(relative: string): string; dispose(): void } {
  const copy = ScratchCopy.create(evalCase.repositoryRoot, { parent: evalCase.workFolder });
  try {
    const fsPath = copy.pathOf(evalCase.file);
    if (evalCase.deleteFile) fs.rmSync(fsPath);
    else fs.writeFileSync(fsPath, evalCase.removal.text);
  } catch (error) {
    copy.dispose();
    throw error;
  }
  return { root: copy.root, pathOf: (relative) => copy.pathOf(relative), dispose: () => copy.dispose() };
}

/** The class's lines in its file, doc comment included (what the removal takes out, besides imports and blank lines). */
function removalLines(source: ts.SourceFile, cls: ts.ClassDeclaration): { start: number; end: number } {
  const removal = { start: cls.getStart(source), end: cls.getEnd() };
  const docs = ts.getJSDocCommentsAndTags(cls).filter(ts.isJSDoc);
  return { start: docs[0] ? docs[0].getStart(source) : removal.start, end: removal.end };
}

/** The proposal with paths under `from` moved under `to` (the agent's copy → the scratch copy). */
function moveProposal(proposal: Proposal, from: string, to: string): Proposal {
  const move = (uri: string): string => {
    const fsPath = uriToPath(uri);
    if (!fsPath) return uri;
    const relative = path.relative(from, fsPath);
    return relative.startsWith('..') || path.isAbsolute(relative) ? uri : pathToUri(path.join(to, relative));
  };
  return { documents: proposal.documents.map((d) => ({ ...d, uri: move(d.uri) })), creates: proposal.creates.map((c) => ({ ...c, uri: move(c.uri) })) };
}

/** The created file declaring the class (else the reason): workspace-relative path and text. */
function createdClass(proposal: Proposal, evalCase: ClassCase, root: string): { file: string; text: string } | { reason: string } {
  if (proposal.creates.length === 0) return { reason: 'the answer creates no file' };
  const files = proposal.creates.map((c) => ({ file: path.relative(root, uriToPath(c.uri) ?? c.uri).split(path.sep).join('/'), text: c.text }));
  const found = files.find((f) => classNamed(parseSource(f.file, f.text), evalCase.className));
  if (found) return found;
  const declared = files.flatMap((f) => topLevelClasses(parseSource(f.file, f.text)).map((c) => c.name?.text ?? ''));
  return { reason: `the created ${files.length === 1 ? 'file declares' : 'files declare'} ${declared.length > 0 ? `${declared.join(', ')}, not ${evalCase.className}` : `no class ${evalCase.className}`}` };
}

function clipLine(line: string, max = 300): string {
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(key(item)) ?? [];
    list.push(item);
    out.set(key(item), list);
  }
  return out;
}

