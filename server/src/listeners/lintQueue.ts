// Lint problems from the project's own ESLint, and the queue a "fix all" command works through one item at a time.
import fs from 'node:fs';
import path from 'node:path';
import { lineStarts, offsetsToRange } from '../edits/textEdits.js';
import { redactSecrets } from '../privacy/secrets.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Problem } from './projectTypeCheck.js';

export interface LintOptions {
  /** The editor's text of a file, when it has unsaved changes; the disk otherwise. */
  textOf?: (fsPath: string) => string | undefined;
  maxProblems?: number;
}

export interface LintResult {
  problems: Problem[];
  /** Why nothing was linted: no ESLint configuration, or ESLint not installed or not loading. */
  unavailable?: string;
  /** Files ESLint linted (not ignored). */
  files: number;
  /** Problems found beyond `maxProblems` and left out. */
  truncated: number;
  /** Files ESLint itself failed on (a parser or plugin throwing), with the first error. */
  failures?: { count: number; first: string };
}

const DEFAULT_MAX_PROBLEMS = 2_000;

/**
 * The project's ESLint findings (rule findings only: parse errors are the compiler's to report) for the given files,
 * or for every listed source file of the workspace (its listing) that ESLint does not ignore. ESLint runs only when the project has it:
 * a configuration at the root and the `eslint` package resolving from there; otherwise `unavailable` says why.
 * Between files the event loop gets a turn, and an abort rejects with `signal.reason`.
 */
export async function lintProblems(workspace: Workspace, files: readonly string[] | undefined, signal: AbortSignal, options: LintOptions = {}): Promise<LintResult> {
  signal.throwIfAborted();
  const loaded = await workspace.eslint.runner();
  signal.throwIfAborted();
  if ('unavailable' in loaded) return { problems: [], unavailable: loaded.unavailable, files: 0, truncated: 0 };
  const runner = loaded.runner;
  const targets = files ? files.map((f) => path.resolve(f)) : (await workspace.files.listAsync('source', signal)).files.map((file) => file.fsPath);
  const maxProblems = Math.max(0, options.maxProblems ?? DEFAULT_MAX_PROBLEMS);
  const problems: Problem[] = [];
  let total = 0;
  let linted = 0;
  const failuresBefore = runner.failures;
  for (const fsPath of targets) {
    await nextTurn(signal);
    let text = options.textOf?.(fsPath);
    if (text === undefined) {
      try {
        text = await fs.promises.readFile(fsPath, 'utf8');
      } catch {
        continue;
      }
    }
    const found = await runner.lint(fsPath, text);
    signal.throwIfAborted();
    if (!found) continue;
    linted++;
    total += found.length;
    const starts = lineStarts(text);
    for (const d of found) {
      if (problems.length >= maxProblems) break;
      problems.push({
        uri: pathToUri(fsPath),
        fsPath,
        range: offsetsToRange(text, d.start, d.end, starts),
        message: redactSecrets(d.message),
        severity: d.severity,
        code: d.ruleId,
        source: 'eslint',
        data: { ruleId: d.ruleId, ...(d.fix ? { fix: d.fix } : {}) },
      });
    }
  }
  const failed = runner.failures - failuresBefore;
  return { problems, files: linted, truncated: total - problems.length, ...(failed > 0 ? { failures: { count: failed, first: runner.firstFailure ?? '' } } : {}) };
}

/**
 * The problem in `current` that is `problem` again after edits: same file, source, rule and message, the nearest by
 * line (earlier fixes in the file move it). Undefined when it is gone.
 */
export function findSameProblem(problem: Problem, current: readonly Problem[]): Problem | undefined {
  let best: Problem | undefined;
  for (const candidate of current) {
    if (candidate.fsPath !== problem.fsPath || candidate.source !== problem.source || candidate.code !== problem.code || candidate.message !== problem.message) continue;
    if (!best || Math.abs(candidate.range.start.line - problem.range.start.line) < Math.abs(best.range.start.line - problem.range.start.line)) best = candidate;
  }
  return best;
}

/**
 * A recheck for `LintQueue.run` that lints the item's file again (with the editor's text) and finds the item's problem
 * there: the current problem (its place may have moved), or false when it is gone.
 */
export function lintRecheck(workspace: Workspace, options: Pick<LintOptions, 'textOf'> = {}): (item: LintQueueItem, signal: AbortSignal) => Promise<Problem | false> {
  return async (item, signal) => {
    const result = await lintProblems(workspace, [item.problem.fsPath], signal, { ...options, maxProblems: Number.MAX_SAFE_INTEGER });
    if (result.unavailable) return item.problem;
    return findSameProblem(item.problem, result.problems) ?? false;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The queue

export type LintOutcome = 'fixed' | 'failed' | 'skipped' | 'cancelled' | 'gone';

export interface LintQueueItem {
  id: string;
  problem: Problem;
  outcome?: LintOutcome;
  detail?: string;
}

export interface LintQueueSummary {
  /** Items the run worked through (the selected ones it did not skip as already done). */
  total: number;
  fixed: number;
  failed: number;
  skipped: number;
  cancelled: number;
  gone: number;
  /** Those items, with their outcomes, in the order worked through. */
  items: LintQueueItem[];
}

export type FixOne = (item: LintQueueItem, signal: AbortSignal) => Promise<{ outcome: LintOutcome; detail?: string }>;
/** True (still there), false (gone), or the problem as it is now, when edits moved it. */
export type Recheck = (item: LintQueueItem, signal: AbortSignal) => Promise<boolean | Problem>;

/**
 * The problems of a "fix all" run, in file order and then by position, all selected at first. `run` works through the
 * selected items one at a time; items it already fixed, or found gone, are not worked on again by a later run, so a
 * cancelled run can be resumed.
 */
export class LintQueue {
  private readonly entries: LintQueueItem[];
  private selected: Set<string>;
  private running = false;

  constructor(problems: readonly Problem[]) {
    const ordered = [...problems].sort((a, b) => (a.fsPath < b.fsPath ? -1 : a.fsPath > b.fsPath ? 1 : 0) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    this.entries = ordered.map((problem, i) => ({ id: String(i + 1), problem }));
    this.selected = new Set(this.entries.map((e) => e.id));
  }

  /** Every item with its outcome so far (copies). */
  items(): LintQueueItem[] {
    return this.entries.map((e) => ({ ...e }));
  }

  /** The ids the next run works through. */
  selection(): string[] {
    return this.entries.filter((e) => this.selected.has(e.id)).map((e) => e.id);
  }

  /** Chooses the items the next run works through; unknown ids are an error, so a stale list is not half applied. */
  select(ids: readonly string[]): void {
    const known = new Set(this.entries.map((e) => e.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new RangeError(`unknown lint queue items: ${unknown.join(', ')}`);
    this.selected = new Set(ids);
  }

  /**
   * Works through the selected items in order, one at a time: `recheck` (when given) first, and an item whose problem
   * is gone is `gone`; then `fixOne`, whose outcome is the item's (an exception is `failed`). `progress` is called
   * before each item with the number done so far. On abort the item in hand and every remaining one are `cancelled`
   * and the run resolves at once with the summary, without waiting for a `fixOne` that ignores the signal.
   */
  async run(fixOne: FixOne, signal: AbortSignal, progress?: (done: number, total: number, itemId: string) => void, recheck?: Recheck): Promise<LintQueueSummary> {
    if (this.running) throw new Error('the lint queue is already running');
    this.running = true;
    try {
      const work = this.entries.filter((e) => this.selected.has(e.id) && e.outcome !== 'fixed' && e.outcome !== 'gone');
      for (const item of work) {
        delete item.outcome;
        delete item.detail;
      }
      let done = 0;
      for (const item of work) {
        if (signal.aborted) break;
        progress?.(done, work.length, item.id);
        const outcome = await untilAborted(this.workOn(item, fixOne, recheck, signal), signal);
        if (!outcome) break;
        item.outcome = outcome.outcome;
        if (outcome.detail !== undefined) item.detail = outcome.detail;
        done++;
      }
      for (const item of work) {
        if (item.outcome === undefined) {
          item.outcome = 'cancelled';
          delete item.detail;
        }
      }
      return summarise(work);
    } finally {
      this.running = false;
    }
  }

  private async workOn(item: LintQueueItem, fixOne: FixOne, recheck: Recheck | undefined, signal: AbortSignal): Promise<{ outcome: LintOutcome; detail?: string }> {
    try {
      if (recheck) {
        const current = await recheck({ ...item }, signal);
        if (current === false) return { outcome: 'gone', detail: 'the problem is no longer reported' };
        if (current !== true) item.problem = current;
      }
      const result = await fixOne({ ...item }, signal);
      return result.detail !== undefined ? { outcome: result.outcome, detail: result.detail } : { outcome: result.outcome };
    } catch (error) {
      if (signal.aborted) return { outcome: 'cancelled' };
      return { outcome: 'failed', detail: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** The work's result, or undefined as soon as the signal aborts (the work is left to notice the signal itself). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(signal.aborted ? undefined : value);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(undefined);
      },
    );
  });
}

function summarise(items: LintQueueItem[]): LintQueueSummary {
  const count = (outcome: LintOutcome): number => items.filter((i) => i.outcome === outcome).length;
  return { total: items.length, fixed: count('fixed'), failed: count('failed'), skipped: count('skipped'), cancelled: count('cancelled'), gone: count('gone'), items: items.map((i) => ({ ...i })) };
}

function nextTurn(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      if (signal.aborted) reject(signal.reason);
      else resolve();
    });
  });
}
