// The intent evaluation: requests as users type them, each with its document and cursor, classified as `assistant/ask` classifies them, scored per set.
import fs from 'node:fs';
import path from 'node:path';
import { isTaskId } from '../protocol.js';
import type { TaskOrNone } from '../protocol.js';
import { DEFAULT_INTENT_THRESHOLD } from '../agents/intentClassifier.js';
import type { AgentRegistry } from '../agents/registry.js';
import type { TaskEnvironment } from '../tasks/runTask.js';
import { classifyRequest } from '../tasks/askFlow.js';
import { Workspace } from '../workspace/workspace.js';
import { pathToUri } from '../workspace/documentSnapshot.js';

/** One request: its text, the task it asks for, and where the user's cursor is when they type it. */
export interface IntentCase {
  text: string;
  task: TaskOrNone;
  /** The document open in the editor, relative to the set's workspace; none for a request typed with no file at hand. */
  file?: string;
  /** Text of `file` the cursor is at (its first occurrence, at its start); with a file and no `at`, no cursor is sent. */
  at?: string;
}

export interface IntentSet {
  name: string;
  /** The accuracy the set should reach, shown beside its figure. */
  target?: number;
  /**
   * A held-out set: its report carries the score only, never the misses, so whoever changes the classifier cannot
   * read what to tune toward (the figure would then measure the tuning, not the classifier).
   */
  heldOut?: boolean;
  cases: IntentCase[];
}

export interface IntentMiss {
  text: string;
  expected: TaskOrNone;
  got: TaskOrNone;
  confidence: number;
  file?: string;
  at?: string;
}

export interface IntentSetReport {
  name: string;
  total: number;
  correct: number;
  accuracy: number;
  target?: number;
  met?: boolean;
  /** A held-out set's report: `confusion` and `misses` are left empty. */
  heldOut?: boolean;
  /** Misses counted by `expected → got`. */
  confusion: Record<string, number>;
  misses: IntentMiss[];
}

/** Reads a set file: `{ "purpose": "…", "cases": [{ "text", "task", "file"?, "at"? }] }`; a malformed case is an error naming it. */
export function readIntentSet(file: string, name: string, options: { target?: number; heldOut?: boolean } = {}): IntentSet {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { cases?: unknown };
  if (!Array.isArray(parsed.cases)) throw new Error(`${file}: expected { "cases": [...] }`);
  const cases = parsed.cases.map((raw: unknown, index): IntentCase => {
    const c = raw as Partial<IntentCase>;
    if (typeof c.text !== 'string' || typeof c.task !== 'string' || !(c.task === 'none' || isTaskId(c.task))) throw new Error(`${file}: case ${index} needs "text" and a task id or "none" as "task"`);
    return { text: c.text, task: c.task, ...(typeof c.file === 'string' ? { file: c.file } : {}), ...(typeof c.at === 'string' ? { at: c.at } : {}) };
  });
  return { name, ...(options.target !== undefined ? { target: options.target } : {}), ...(options.heldOut ? { heldOut: true } : {}), cases };
}

/**
 * Classifies every case as `assistant/ask` would: the document open, its declarations and the workspace's index known,
 * the cursor where the case puts it; with the registry's model classifier when `registry` has one, else (no model
 * configured) the offline classifier alone.
 */
export async function evaluateIntents(root: string, sets: readonly IntentSet[], registry?: AgentRegistry): Promise<IntentSetReport[]> {
  const workspace = new Workspace(root, { saveIndex: false });
  const env = { root: workspace.root, workspace, registry: registry ?? { classifier: () => undefined } } as unknown as TaskEnvironment;
  const context = { env, threshold: DEFAULT_INTENT_THRESHOLD, log: () => undefined };
  const signal = new AbortController().signal;
  const reports: IntentSetReport[] = [];
  for (const set of sets) {
    const misses: IntentMiss[] = [];
    const confusion: Record<string, number> = {};
    for (const c of set.cases) {
      const document = c.file === undefined ? undefined : workspace.documents.get(pathToUri(path.join(workspace.root, c.file)));
      if (c.file !== undefined && !document) throw new Error(`${set.name}: cannot read ${c.file}`);
      let cursor: { start: number; end: number } | undefined;
      if (document && c.at !== undefined) {
        const at = document.text.indexOf(c.at);
        if (at < 0) throw new Error(`${set.name}: "${c.at}" is not in ${c.file}`);
        cursor = { start: at, end: at };
      }
      const result = await classifyRequest(context, c.text, document, signal, cursor);
      if (result.task === c.task) continue;
      misses.push({ text: c.text, expected: c.task, got: result.task, confidence: result.confidence, ...(c.file ? { file: c.file } : {}), ...(c.at ? { at: c.at } : {}) });
      const key = `${c.task} → ${result.task}`;
      confusion[key] = (confusion[key] ?? 0) + 1;
    }
    const total = set.cases.length;
    const correct = total - misses.length;
    const accuracy = total === 0 ? 0 : correct / total;
    const scored = { name: set.name, total, correct, accuracy, ...(set.target !== undefined ? { target: set.target, met: accuracy >= set.target } : {}) };
    reports.push(set.heldOut ? { ...scored, heldOut: true, confusion: {}, misses: [] } : { ...scored, confusion, misses });
  }
  return reports;
}

/** The report as the terminal shows it: accuracy per set against its target, then the confusion and the misses. */
export function formatIntentReport(reports: readonly IntentSetReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    const target = r.target === undefined ? '' : `  target ≥ ${Math.round(r.target * 100)}%: ${r.met ? 'met' : 'NOT met'}`;
    const sealed = r.heldOut ? '  (held out: misses not shown)' : '';
    lines.push(`${r.name.padEnd(10)} ${(r.accuracy * 100).toFixed(1).padStart(5)}% (${r.correct}/${r.total})${target}${sealed}`);
  }
  for (const r of reports) {
    if (r.misses.length === 0) continue;
    lines.push('', `${r.name}: confusion (expected → got)`);
    for (const [pair, count] of Object.entries(r.confusion).sort((a, b) => b[1] - a[1])) lines.push(`  ${pair}: ${count}`);
    lines.push(`${r.name}: misses`);
    for (const m of r.misses) lines.push(`  ${m.expected} → ${m.got} (${m.confidence}): ${m.text}${m.at ? `  [cursor at "${m.at}" in ${m.file}]` : m.file ? `  [${m.file} open]` : ''}`);
  }
  return lines.join('\n');
}
