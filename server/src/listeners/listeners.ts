// The listeners behind the check commands: the project's type-check, its tests and its lint, published as problems at their places, and the "fix all" queue over lint problems.
import path from 'node:path';
import type { ApplyOutcome, FixAllResult, ListenerRunResult } from '../protocol.js';
import type { EditorPort, ProgressSink } from '../editorPort.js';
import { AssistantError } from '../assistantError.js';
import { positionToOffset, lineStarts, offsetsToRange } from '../edits/textEdits.js';
import { redactSecrets } from '../privacy/secrets.js';
import type { DiagnosticInfo } from '../tasks/task.js';
import { fixTask } from '../tasks/fixTask.js';
import { runTask } from '../tasks/runTask.js';
import type { TaskEnvironment } from '../tasks/runTask.js';
import { applyResponse } from '../tasks/applyResponse.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import { pathToUri, uriToPath } from '../workspace/documentSnapshot.js';
import { MAX_WORKSPACE_FILES } from '../workspace/workspaceFiles.js';
import { projectTypeCheck } from './projectTypeCheck.js';
import type { Problem } from './projectTypeCheck.js';
import { runProjectTests } from './projectTests.js';
import { toProblems } from './testReport.js';
import { LintQueue, lintProblems, lintRecheck } from './lintQueue.js';
import type { LintOutcome, LintQueueItem } from './lintQueue.js';

export type ListenerKind = 'typecheck' | 'tests' | 'lint';

/** A problem with the listener that found it. */
export interface ListenedProblem extends Problem {
  listener: ListenerKind;
  /** The failure as the issue text of "fix with assistant". */
  issue: string;
}

export type ListenerRun = ListenerRunResult;

/** Publishes one document's problems (all listeners together) to the editor. */
export type PublishProblems = (uri: string, problems: readonly ListenedProblem[]) => void;

/**
 * One workspace's listener results. Each run replaces that listener's problems; every document whose problems
 * changed is published again with the problems of all listeners, so a test run never hides a type error.
 */
export class Listeners {
  /** Each document's problems by listener: code-action requests read one document's, so they never scan the rest. */
  private readonly byUri = new Map<string, Map<ListenerKind, ListenedProblem[]>>();
  private queue: LintQueue | undefined;
  /** The documents the last project type-check reported problems in, until the next one. */
  private typeChecked = new Set<string>();

  constructor(
    private readonly env: TaskEnvironment,
    private readonly documents: DocumentSource,
    private readonly publish: PublishProblems,
  ) {}

  /** The problems of every listener in a document. */
  problemsOf(uri: string): ListenedProblem[] {
    return [...(this.byUri.get(uri)?.values() ?? [])].flat();
  }

  /** The problems of a document as the core's diagnostics on its current text (for code-action offers). */
  diagnosticsOf(uri: string, text: string): DiagnosticInfo[] {
    const problems = this.problemsOf(uri);
    if (problems.length === 0) return [];
    const starts = lineStarts(text);
    return problems.map((p) => {
      const start = positionToOffset(text, p.range.start, starts);
      return {
        start,
        end: Math.max(start, positionToOffset(text, p.range.end, starts)),
        message: p.message,
        source: p.source,
        severity: p.severity,
        ...(p.code !== undefined ? { code: p.code } : {}),
        listener: p.listener,
        detail: p.issue,
      };
    });
  }

  /** The editor's buffers of workspace files: what the checks see instead of the disk (a path no file can have is left out). */
  private unsaved(): { fsPath: string; text: string }[] {
    const root = path.resolve(this.env.root);
    return this.documents.openUris().flatMap((uri) => {
      const document = this.documents.get(uri);
      const file = document?.fsPath;
      if (!file || document.version === null || !isPlausiblePath(file)) return [];
      const relative = path.relative(root, path.resolve(file));
      return relative.startsWith('..') || path.isAbsolute(relative) ? [] : [{ fsPath: file, text: document.text }];
    });
  }

  /** A file's text in an editor buffer, read when asked so it follows the fixes applied meanwhile; undefined for the disk's. */
  private bufferText(file: string): string | undefined {
    const document = this.documents.get(pathToUri(file));
    return document && document.version !== null ? document.text : undefined;
  }

  /** Whether the project type-check reported on the document: its problems there must follow the document's changes. */
  reportedTypeErrors(uri: string): boolean {
    return this.typeChecked.has(uri);
  }

  /**
   * A document's compiler diagnostics from the server's background check of its current text: they replace the
   * type-check's problems there when that check reported on the document (so a corrected line loses its error), or,
   * with `publishAll` (the setting `diagnostics.publish`), in every open document.
   */
  typeErrorsChecked(document: DocumentSnapshot, diagnostics: readonly DiagnosticInfo[], publishAll: boolean): void {
    if (!publishAll && !this.reportedTypeErrors(document.uri)) return;
    const fsPath = document.fsPath ?? uriToPath(document.uri) ?? document.uri;
    const starts = lineStarts(document.text);
    const problems: Problem[] = diagnostics.map((d) => ({
      uri: document.uri,
      fsPath,
      range: offsetsToRange(document.text, d.start, d.end, starts),
      message: redactSecrets(d.message),
      severity: d.severity === 2 || d.severity === 3 || d.severity === 4 ? d.severity : 1,
      source: 'typescript',
      ...(d.code !== undefined ? { code: d.code } : {}),
    }));
    const kinds = this.byUri.get(document.uri) ?? new Map<ListenerKind, ListenedProblem[]>();
    const listened = problems.map((p) => ({ ...p, listener: 'typecheck' as const, issue: issueText(p, this.env.root) }));
    if (listened.length > 0) kinds.set('typecheck', listened);
    else kinds.delete('typecheck');
    if (kinds.size > 0) this.byUri.set(document.uri, kinds);
    else this.byUri.delete(document.uri);
    this.publish(document.uri, this.problemsOf(document.uri));
  }

  private replace(kind: ListenerKind, problems: readonly Problem[]): void {
    const touched = new Set<string>();
    for (const [uri, kinds] of this.byUri) {
      if (kinds.delete(kind)) touched.add(uri);
      if (kinds.size === 0) this.byUri.delete(uri);
    }
    for (const p of problems) {
      const kinds = this.byUri.get(p.uri) ?? new Map<ListenerKind, ListenedProblem[]>();
      this.byUri.set(p.uri, kinds);
      kinds.set(kind, [...(kinds.get(kind) ?? []), { ...p, listener: kind, issue: issueText(p, this.env.root) }]);
      touched.add(p.uri);
    }
    for (const uri of touched) this.publish(uri, this.problemsOf(uri));
  }

  async typeCheck(signal: AbortSignal, progress: ProgressSink): Promise<ListenerRun> {
    progress.report('type-checking the project');
    const result = await projectTypeCheck(this.env.workspace.projects, signal, { unsaved: this.unsaved() });
    this.replace('typecheck', result.problems);
    this.typeChecked = new Set(result.problems.map((p) => p.uri));
    const errors = result.problems.filter((p) => p.severity === 1).length;
    const left = result.truncated > 0 ? ` (${result.truncated} more not shown)` : '';
    const unchecked = result.filesLeftOut > 0 ? ` ${result.filesLeftOut} file${result.filesLeftOut === 1 ? '' : 's'} of the project not checked: the workspace has more files than it lists (${MAX_WORKSPACE_FILES}).` : '';
    return { listener: 'typecheck', ran: true, problems: result.problems.length, message: `${errors} type error${errors === 1 ? '' : 's'} in ${result.files} file${result.files === 1 ? '' : 's'}${left}.${unchecked}` };
  }

  /** Runs the tests when `oracle.runTests` allows it or the user says yes (they run the project's own code). */
  async tests(signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<ListenerRun> {
    if (!this.env.oracle.runTests) {
      const yes = 'Run the tests';
      const answer = await port.choose("Run the project's tests? They run the project's own code (in a scratch copy of the workspace).", [yes, 'Cancel']);
      if (answer !== yes) return { listener: 'tests', ran: false, problems: 0, message: 'The tests were not run: allow them with the setting oracle.runTests, or answer yes when asked.' };
    }
    progress.report('running the tests in a scratch copy');
    const report = await runProjectTests({ workspace: this.env.workspace, files: this.unsaved().map((f) => ({ path: f.fsPath, text: f.text })), timeoutMs: this.env.oracle.testTimeoutMs }, signal);
    if (report.unavailable) return { listener: 'tests', ran: false, problems: 0, message: `The tests could not run: ${report.unavailable}` };
    const problems = toProblems(report, { textOf: (file) => this.documents.get(pathToUri(file))?.text });
    this.replace('tests', problems);
    const how = report.timedOut ? `; stopped after ${this.env.oracle.testTimeoutMs} ms` : '';
    return { listener: 'tests', ran: true, problems: problems.length, message: `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped (${report.command}${how}).` };
  }

  async lint(signal: AbortSignal, progress: ProgressSink): Promise<ListenerRun> {
    progress.report('linting the project');
    const result = await lintProblems(this.env.workspace, undefined, signal, { textOf: (file) => this.bufferText(file) });
    if (result.unavailable) return { listener: 'lint', ran: false, problems: 0, message: `Lint not run: ${result.unavailable}` };
    this.replace('lint', result.problems);
    this.queue = new LintQueue(result.problems);
    const items = this.queue.items().map((item) => ({ id: item.id, uri: item.problem.uri, line: item.problem.range.start.line, ...(item.problem.code !== undefined ? { rule: String(item.problem.code) } : {}), message: item.problem.message }));
    return { listener: 'lint', ran: true, problems: result.problems.length, message: `${result.problems.length} lint problem${result.problems.length === 1 ? '' : 's'} in ${result.files} file${result.files === 1 ? '' : 's'}.`, items };
  }

  /**
   * Works through the selected lint problems one at a time (all of them by default): each is checked again on the
   * current text, fixed through the Fix task (ESLint's own fix, or a model's), and the best passing fix applied; the
   * user chose "fix all", so each item's fix is applied without a further question. Cancel stops before the next item.
   */
  async fixAll(ids: readonly string[] | undefined, signal: AbortSignal, progress: ProgressSink, port: EditorPort): Promise<FixAllResult> {
    const queue = this.queue;
    if (!queue) throw new AssistantError('invalid-params', 'Nothing to fix: run the lint command first.');
    if (ids) {
      try {
        queue.select([...ids]);
      } catch (error) {
        throw new AssistantError('invalid-params', error instanceof Error ? error.message : String(error));
      }
    }
    const recheck = lintRecheck(this.env.workspace, { textOf: (file) => this.bufferText(file) });
    const summary = await queue.run(
      (item, itemSignal) => this.fixOne(item, itemSignal, port),
      signal,
      (done, total) => progress.report(`fixing ${done + 1} of ${total}`, (done / Math.max(1, total)) * 100),
      recheck,
    );
    const items = summary.items.filter((i) => i.outcome !== undefined).map((i) => ({ id: i.id, outcome: i.outcome as LintOutcome, ...(i.detail ? { detail: i.detail } : {}) }));
    // The queue's items moved on: publish what remains, so fixed problems do not linger in the editor.
    const remaining = await lintProblems(this.env.workspace, undefined, signal, { textOf: (file) => this.bufferText(file) }).catch(() => undefined);
    if (remaining && !remaining.unavailable) this.replace('lint', remaining.problems);
    return { total: summary.total, fixed: summary.fixed, items, message: `${summary.fixed} fixed, ${summary.failed} failed, ${summary.skipped} skipped, ${summary.gone} already gone, ${summary.cancelled} cancelled.` };
  }

  private async fixOne(item: LintQueueItem, signal: AbortSignal, port: EditorPort): Promise<{ outcome: LintOutcome; detail?: string }> {
    const document = this.documents.get(item.problem.uri);
    if (!document) return { outcome: 'gone', detail: 'the file no longer exists' };
    const starts = lineStarts(document.text);
    const start = positionToOffset(document.text, item.problem.range.start, starts);
    const diagnostic: DiagnosticInfo = { start, end: Math.max(start, positionToOffset(document.text, item.problem.range.end, starts)), message: item.problem.message, source: item.problem.source, severity: item.problem.severity, ...(item.problem.code !== undefined ? { code: item.problem.code } : {}) };
    const offer = fixTask.offersAt({ document, start: diagnostic.start, end: diagnostic.end, diagnostics: [diagnostic] })[0];
    if (!offer) return { outcome: 'skipped', detail: 'no fix is offered for it' };
    const result = await runTask(this.env, { task: 'fix', document, target: offer.target, text: `fix all: ${item.problem.code ?? item.problem.message}`, source: 'command' }, signal, { report: () => undefined });
    const best = result.candidates.find((c) => c.proposal);
    if (!best) return { outcome: 'skipped', detail: result.interaction.message ?? 'no agent could fix it' };
    const applied = await applyResponse(this.env, this.documents, port, result.interaction.id, best.response.id, `Assistant: fix ${item.problem.code ?? ''}`.trim());
    const outcome: ApplyOutcome = applied.outcome;
    // The user saw the fix in the preview and turned it down: the problem stays, by their choice.
    if (outcome === 'discarded') return { outcome: 'skipped', detail: applied.message ?? outcome };
    return applied.applied ? { outcome: 'fixed', detail: `${best.response.agent.name}${applied.message ? `: ${applied.message}` : ''}` } : { outcome: 'failed', detail: applied.message ?? outcome };
  }
}

/** Whether a file could exist under this path: no NUL, no name over 255 bytes, the whole under 4,096 bytes. */
function isPlausiblePath(file: string): boolean {
  return !file.includes('\0') && Buffer.byteLength(file) < 4096 && file.split(path.sep).every((part) => Buffer.byteLength(part) <= 255);
}

/** A failure as the issue text of the `issue` pipeline: what failed, where, and the stack inside the workspace. */
export function issueText(problem: Problem, root: string): string {
  const file = uriToPath(problem.uri) ?? problem.fsPath;
  const where = `${path.relative(root, file).split(path.sep).join('/')}:${problem.range.start.line + 1}`;
  const stack = Array.isArray(problem.data?.stack) ? (problem.data.stack as unknown[]).filter((f): f is string => typeof f === 'string').slice(0, 8) : [];
  const kind = problem.source === 'typescript' ? `Type error ${problem.code !== undefined ? `TS${problem.code} ` : ''}` : problem.source === 'eslint' ? 'Lint problem ' : 'Failing test ';
  return [`${kind}at ${where}:`, problem.message, ...(stack.length ? ['Stack:', ...stack] : []), 'Change the code so that this no longer fails (fix the code under test, not the test, unless the test itself is wrong).'].join('\n');
}
