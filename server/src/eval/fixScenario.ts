// The fix scenario (Copilot harness): fix type-check (and ESLint) diagnostics other than import and configuration ones; scored on syntax correctness and fix rate.
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { DiagnosticInfo } from '../tasks/task.js';
import { diagnosticName, fixTarget, shortMessage } from '../tasks/fixTask.js';
import { diagnosticsOf, fixRule, noNewDiagnosticsRule, verdictOf } from '../oracle/typeCheck.js';
import type { CheckedDiagnostic, Comparison, FileComparison } from '../oracle/typeCheck.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { languageIdForPath, pathToUri } from '../workspace/documentSnapshot.js';
import { runCaseTask } from './caseRun.js';
import { syntaxErrors } from './docFormat.js';
import { hash } from './docScenario.js';
import { excludedDiagnostic } from './diagnosticFilter.js';
import type { LintDiagnostic } from './eslintRunner.js';
import { isImportRule } from './eslintRunner.js';
import { repositorySourceFiles } from './sourceFiles.js';
import { evasionOf, isTestPath } from './fixEvasion.js';
import { table } from './report.js';
import type { EvalRecord } from './records.js';
import type { SkipCounts } from './sourceFiles.js';
import type { AppliedFile } from './scratch.js';
import type { EvalCase, Scenario, Score, ScoreContext } from './scenario.js';

const CHECKABLE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/i;

export interface FixCase extends EvalCase {
  fsPath: string;
  text: string;
  /** Which analyzer reported the diagnostic. */
  analyzer: 'typescript' | 'eslint';
  diagnostic: DiagnosticInfo;
}

export const fixScenario: Scenario<FixCase> = {
  id: 'fix',
  task: 'fix',
  title: 'Bug fixing from static-analysis diagnostics',
  metrics: [
    { id: 'syntax', label: 'syntax correctness', overProposals: true },
    { id: 'fix', label: 'fix rate' },
    { id: 'evasive', label: 'evasive', overProposals: true, informational: true, lowerIsBetter: true },
  ],
  primaryMetric: 'fix',

  async buildCases(context, signal) {
    const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
    const files = repositorySourceFiles(context.env.workspace, skipped);
    const projects = context.env.workspace.projects;
    // Each project's whole program at once: each file's diagnostics then come from one checker instead of one per file.
    for (const file of files) {
      const project = projects.forFile(file.fsPath);
      project.loadConfigFiles('all');
      const tsProject = project.tsProject();
      if (!tsProject.getSourceFile(file.fsPath)) tsProject.addSourceFileAtPathIfExists(file.fsPath);
    }
    const cases: FixCase[] = [];
    const left = { import: 0, configuration: 0, lintImport: 0 };
    const failed: string[] = [];
    for (const file of files) {
      signal.throwIfAborted();
      await new Promise((resolve) => setImmediate(resolve));
      const starts = lineStarts(file.text);
      const seen = new Set<string>();
      const add = (analyzer: FixCase['analyzer'], diagnostic: DiagnosticInfo): void => {
        const key = `${diagnostic.start}:${diagnostic.end}:${String(diagnostic.code)}:${diagnostic.message}`;
        if (seen.has(key)) return;
        seen.add(key);
        const position = offsetToPosition(file.text, diagnostic.start, starts);
        const name = diagnosticName(diagnostic);
        cases.push({
          id: `fix:${file.relative}:${position.line + 1}:${position.character + 1}:${name.replace(/\s+/g, ':')}`,
          file: file.relative,
          line: position.line + 1,
          target: `${name} ${shortMessage(diagnostic.message)}`,
          contentHash: hash(`${file.text}\u0000${key}`),
          fsPath: file.fsPath,
          text: file.text,
          analyzer,
          diagnostic,
        });
      };
      let diagnostics: DiagnosticInfo[];
      try {
        diagnostics = diagnosticsOf(projects.forFile(file.fsPath), file.fsPath, file.text);
      } catch (error) {
        failed.push(`${file.relative}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        continue;
      }
      for (const diagnostic of diagnostics) {
        if (diagnostic.severity !== 1 && diagnostic.severity !== 2) continue;
        const excluded = excludedDiagnostic(diagnostic, file.fsPath, file.text);
        if (excluded) left[excluded]++;
        else add('typescript', diagnostic);
      }
      if (context.eslint) {
        for (const lint of (await context.eslint.lint(file.fsPath, file.text)) ?? []) {
          if (isImportRule(lint.ruleId)) left.lintImport++;
          else add('eslint', { start: lint.start, end: lint.end, message: lint.message, code: lint.ruleId, source: 'eslint', severity: lint.severity });
        }
      }
    }
    if (failed.length > 0) context.note(`fix: the type checker failed on ${failed.length} files, left out (${failed[0] ?? ''})`);
    if (context.eslint?.firstFailure) context.note(`fix: ESLint failed on ${context.eslint.failures} files, taken as having no findings (${context.eslint.firstFailure})`);
    const lint = context.eslint ? `, ${cases.filter((c) => c.analyzer === 'eslint').length} from ESLint` : '';
    context.note(`fix: ${cases.length} cases${lint} (${files.length} source files; left out: ${left.import} import and ${left.configuration} configuration diagnostics${context.eslint ? `, ${left.lintImport} import-rule lint findings` : ''}; ${skipped.generated + skipped.minified} generated or minified files)`);
    return cases;
  },

  run(env, evalCase, agent, interactionId, signal) {
    const document = { uri: pathToUri(evalCase.fsPath), fsPath: evalCase.fsPath, languageId: languageIdForPath(evalCase.fsPath), version: 1, text: evalCase.text };
    const d = evalCase.diagnostic;
    return runCaseTask(env, { task: 'fix', document, target: fixTarget(document, d), text: `Fix ${diagnosticName(d)}: ${d.message}` }, agent, interactionId, signal);
  },

  async score(context, evalCase, run): Promise<Score> {
    const diagnostic = { analyzer: evalCase.analyzer, code: evalCase.diagnostic.code, message: evalCase.diagnostic.message, line: evalCase.line };
    const fail = (failure: string, details: Record<string, unknown> = {}): Score => ({ metrics: { syntax: run.proposal ? 0 : null, fix: 0, evasive: null }, failure, details: { diagnostic, ...details } });
    if (!run.proposal) return fail(run.failure ?? 'no proposal');
    const applied = context.scratch.applyAndReadBack(run.proposal);
    if (!applied.ok) return fail(applied.reason);
    const files = applied.files.filter((f) => CHECKABLE.test(f.fsPath));
    for (const file of files) {
      const errors = syntaxErrors(file.fsPath, file.after);
      if (errors.length > 0) return fail(`${context.scratch.relativeOf(file.fsPath)} does not parse after the fix: ${errors[0] ?? ''}`);
    }
    // A fix that widens a type to any, silences the checker or deletes code is reported apart, never counted as fixed.
    const evasion = files.map((f) => (f.before === undefined ? undefined : evasionOf(f.before, f.after, evalCase.diagnostic.code, isTestPath(context.scratch.relativeOf(f.fsPath))))).find((e) => e !== undefined);
    const judged = await judgeFix(context, evalCase, files);
    const details = { diagnostic, oraclePassed: run.oraclePassed ?? null, ...judged.details, ...(evasion ? { evasion } : {}) };
    const fixed = judged.fixed && !evasion;
    const failure = evasion ? `evasive: the fix ${evasion}` : judged.reason;
    return { metrics: { syntax: 1, fix: fixed ? 1 : 0, evasive: evasion ? 1 : 0 }, ...(fixed ? {} : { failure }), details };
  },

  breakdown: fixRateByCode,

  contextChars: (evalCase) => {
    const document = { uri: pathToUri(evalCase.fsPath), fsPath: evalCase.fsPath, languageId: languageIdForPath(evalCase.fsPath), version: 1, text: evalCase.text };
    const target = fixTarget(document, evalCase.diagnostic);
    return target.end - target.start;
  },
};

/** Cases, fixes and evasions per diagnostic code and agent: which kinds of diagnostic each agent handles. */
export function fixRateByCode(records: readonly EvalRecord[]): string | undefined {
  if (records.length === 0) return undefined;
  const agents = [...new Set(records.map((r) => r.agent))];
  const byCode = new Map<string, EvalRecord[]>();
  for (const record of records) {
    const diagnostic = record.details.diagnostic as { code?: string | number; analyzer?: string } | undefined;
    const raw = String(diagnostic?.code ?? '?');
    const code = diagnostic?.analyzer === 'typescript' && /^\d+$/.test(raw) ? `TS${raw}` : raw;
    byCode.set(code, [...(byCode.get(code) ?? []), record]);
  }
  const rows = [...byCode]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([code, list]) => [
      code,
      String(new Set(list.map((r) => r.caseId)).size),
      ...agents.map((agent) => {
        const mine = list.filter((r) => r.agent === agent);
        const fixed = mine.filter((r) => r.metrics.fix === 1).length;
        const evasive = mine.filter((r) => r.metrics.evasive === 1).length;
        return `${fixed}/${mine.length}${evasive > 0 ? ` (${evasive} evasive)` : ''}`;
      }),
    ]);
  return `Fixed per diagnostic code (fixed/runs; evasive fixes are not counted as fixed):\n${table(['code', 'cases', ...agents], rows)}`;
}

/**
 * The fix rate's rule on the applied files: the case's analyzer reports strictly fewer diagnostics on them, none
 * new (by code and message, counting repeats), and the case's own diagnostic among those gone; the other analyzer
 * (when ESLint runs) reports nothing new either.
 */
async function judgeFix(context: ScoreContext, evalCase: FixCase, files: AppliedFile[]): Promise<{ fixed: boolean; reason?: string; details: Record<string, unknown> }> {
  const typescript = compareTypeScript(context.env.workspace.projects.forFile(evalCase.fsPath), files, context.scratch.relativeOf.bind(context.scratch));
  const tsKey = evalCase.analyzer === 'typescript' ? keyOf(Number(evalCase.diagnostic.code), evalCase.diagnostic.message) : undefined;
  const details: Record<string, unknown> = { typescript: { before: typescript.before, after: typescript.after, new: typescript.fresh } };
  let lint: LintComparison | undefined;
  if (context.eslint) {
    try {
      lint = await compareLint(context, files, evalCase.fsPath);
      details.eslint = { before: lint.before, after: lint.after, new: lint.fresh.length };
    } catch (error) {
      const reason = `ESLint failed on the edited files: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      details.eslint = { failed: reason };
      if (evalCase.analyzer === 'eslint') return { fixed: false, reason, details };
    }
  }
  const caseFile = (f: FileComparison): boolean => f.uri === pathToUri(evalCase.fsPath);
  if (evalCase.analyzer === 'typescript') {
    const judged = fixRule(typescript);
    const verdict = verdictOf(typescript, fixRule);
    details.verdict = verdict.summary;
    if (!judged.passed) return { fixed: false, reason: `${verdict.summary}${verdict.details?.[0] ? ` (${verdict.details[0]})` : ''}`, details };
    const file = typescript.files.find(caseFile);
    const count = (list: CheckedDiagnostic[]): number => list.filter((d) => keyOf(d.code, d.message) === tsKey).length;
    if (file && count(file.after) >= count(file.before)) return { fixed: false, reason: `the diagnostic is still there (${verdict.summary})`, details };
  } else {
    const fresh = noNewDiagnosticsRule(typescript);
    if (!fresh.passed) {
      const verdict = verdictOf(typescript, noNewDiagnosticsRule);
      return { fixed: false, reason: `${verdict.summary}${verdict.details?.[0] ? ` (${verdict.details[0]})` : ''}`, details };
    }
  }
  if (lint) {
    if (lint.fresh.length > 0) return { fixed: false, reason: `${lint.fresh.length} new ESLint ${lint.fresh.length === 1 ? 'finding' : 'findings'} (${lint.fresh[0]?.ruleId}: ${lint.fresh[0]?.message})`, details };
    if (evalCase.analyzer === 'eslint') {
      if (lint.after >= lint.before) return { fixed: false, reason: `ESLint findings did not decrease (${lint.before} before, ${lint.after} after)`, details };
      const target = `${String(evalCase.diagnostic.code)}\u0000${evalCase.diagnostic.message}`;
      const count = (list: LintDiagnostic[]): number => list.filter((d) => `${d.ruleId}\u0000${d.message}` === target).length;
      if (count(lint.caseAfter) >= count(lint.caseBefore)) return { fixed: false, reason: `the ESLint finding is still there (${lint.before} before, ${lint.after} after)`, details };
    }
  }
  return { fixed: true, details };
}

function keyOf(code: number, message: string): string {
  return `${code}\u0000${message}`;
}

/**
 * Before/after compiler diagnostics of the applied files on the scratch copy's project, in one synchronous stretch
 * (the project's texts are put back before anything else runs); created files had none before.
 */
function compareTypeScript(project: WorkspaceProject, files: AppliedFile[], label: (fsPath: string) => string): Comparison {
  const tsProject = project.tsProject();
  const saved = files.map((f) => ({ fsPath: f.fsPath, text: tsProject.getSourceFile(f.fsPath)?.getFullText() }));
  const set = (fsPath: string, text: string | undefined): void => {
    if (text === undefined) {
      const existing = tsProject.getSourceFile(fsPath);
      if (existing) tsProject.removeSourceFile(existing);
    } else project.sourceFile(fsPath, text);
  };
  const checked = (fsPath: string, text: string): CheckedDiagnostic[] => {
    const starts = lineStarts(text);
    return diagnosticsOf(project, fsPath, text).map((d) => ({ code: Number(d.code), message: d.message, category: d.severity === 1 ? 'error' : d.severity === 2 ? 'warning' : 'message', line: offsetToPosition(text, d.start, starts).line + 1, start: d.start, end: d.end }));
  };
  try {
    for (const f of files) set(f.fsPath, f.before);
    const before = files.map((f) => (f.before === undefined ? [] : checked(f.fsPath, f.before)));
    for (const f of files) set(f.fsPath, f.after);
    const comparisons = files.map((f, i) => compareFile(f.uri, label(f.fsPath), before[i] ?? [], checked(f.fsPath, f.after)));
    const total = (pick: (c: FileComparison) => unknown[]): number => comparisons.reduce((n, c) => n + pick(c).length, 0);
    return { files: comparisons, before: total((c) => c.before), after: total((c) => c.after), fresh: total((c) => c.fresh) };
  } finally {
    for (const { fsPath, text } of saved) {
      try {
        set(fsPath, text);
      } catch {
        // The next user of the project overlays its own text again.
      }
    }
  }
}

/** New diagnostics: those whose code and message occur more often after than before. */
function compareFile(uri: string, label: string, before: CheckedDiagnostic[], after: CheckedDiagnostic[]): FileComparison {
  const remaining = new Map<string, number>();
  for (const d of before) remaining.set(keyOf(d.code, d.message), (remaining.get(keyOf(d.code, d.message)) ?? 0) + 1);
  const fresh: CheckedDiagnostic[] = [];
  for (const d of after) {
    const left = remaining.get(keyOf(d.code, d.message)) ?? 0;
    if (left > 0) remaining.set(keyOf(d.code, d.message), left - 1);
    else fresh.push(d);
  }
  return { uri, label, before, after, fresh };
}

interface LintComparison {
  before: number;
  after: number;
  fresh: LintDiagnostic[];
  caseBefore: LintDiagnostic[];
  caseAfter: LintDiagnostic[];
}

async function compareLint(context: ScoreContext, files: AppliedFile[], caseFile: string): Promise<LintComparison> {
  const result: LintComparison = { before: 0, after: 0, fresh: [], caseBefore: [], caseAfter: [] };
  for (const file of files) {
    const before = file.before === undefined ? [] : ((await context.eslint?.lintOrThrow(file.fsPath, file.before)) ?? []);
    const after = (await context.eslint?.lintOrThrow(file.fsPath, file.after)) ?? [];
    result.before += before.length;
    result.after += after.length;
    const remaining = new Map<string, number>();
    for (const d of before) remaining.set(`${d.ruleId}\u0000${d.message}`, (remaining.get(`${d.ruleId}\u0000${d.message}`) ?? 0) + 1);
    for (const d of after) {
      const key = `${d.ruleId}\u0000${d.message}`;
      const left = remaining.get(key) ?? 0;
      if (left > 0) remaining.set(key, left - 1);
      else result.fresh.push(d);
    }
    if (file.fsPath === caseFile) {
      result.caseBefore = before;
      result.caseAfter = after;
    }
  }
  return result;
}
