// The workspace scenario (Copilot harness): questions about the repository from a questions file, answered with code locations; scored by reciprocal rank and keyword detection.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { listDeclarations } from '../repo/declarations.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { workspaceSnapshot } from '../workspace/documentSnapshot.js';
import { runCaseTask } from './caseRun.js';
import type { EvalCase, Scenario, Score } from './scenario.js';

/** Where the answer should point: a file, optionally a line in it or a declaration's name. */
export interface ExpectedLocation {
  file: string;
  /** One-based. */
  line?: number;
  /** A declaration of the file (`Cache.get`, `retry`): any line of it counts. */
  symbol?: string;
}

export interface WorkspaceCase extends EvalCase {
  query: string;
  expected: ExpectedLocation;
  /** Words the answer should contain (case-insensitive). */
  keywords: string[];
  /** The lines (one-based, inclusive) a location may name to count as the expected one. */
  accept: { from: number; to: number } | undefined;
}

/** Most locations read from an answer: a rank beyond it counts as not found. */
const MAX_RANK = 20;
/** Lines around an expected line that still count as pointing at it. */
const LINE_SLACK = 3;

/** The `path:line` locations an answer names, in order, each once. */
export function locationsIn(answer: string): { file: string; line: number }[] {
  const seen = new Set<string>();
  const found: { file: string; line: number }[] = [];
  for (const match of answer.matchAll(/((?:[\w@.-]+\/)*[\w@.-]+\.[cm]?[jt]sx?):(\d+)/g)) {
    const key = `${match[1]}:${match[2]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ file: (match[1] as string).replace(/^\.\//, ''), line: Number(match[2]) });
    if (found.length >= MAX_RANK) break;
  }
  return found;
}

/** The rank (one-based) of the first location that points where expected, or 0 when none does. */
export function rankOf(locations: readonly { file: string; line: number }[], evalCase: Pick<WorkspaceCase, 'expected' | 'accept'>): number {
  const index = locations.findIndex((l) => l.file === evalCase.expected.file && (!evalCase.accept || (l.line >= evalCase.accept.from && l.line <= evalCase.accept.to)));
  return index + 1;
}

function isExpected(value: unknown): value is ExpectedLocation {
  const v = value as ExpectedLocation | null;
  return typeof v === 'object' && v !== null && typeof v.file === 'string' && (v.line === undefined || (Number.isInteger(v.line) && v.line > 0)) && (v.symbol === undefined || typeof v.symbol === 'string');
}

/** The lines a declaration spans, or an expected line with some slack, in the expected file of the scratch copy. */
function acceptedLines(root: string, expected: ExpectedLocation): WorkspaceCase['accept'] | 'missing' {
  const fsPath = path.join(root, expected.file);
  let text: string;
  try {
    text = fs.readFileSync(fsPath, 'utf8');
  } catch {
    return 'missing';
  }
  if (expected.symbol) {
    const starts = lineStarts(text);
    const declaration = listDeclarations(fsPath, text).find((d) => d.name === expected.symbol || d.simpleName === expected.symbol);
    if (!declaration) return 'missing';
    return { from: offsetToPosition(text, declaration.start, starts).line + 1, to: offsetToPosition(text, declaration.end, starts).line + 1 };
  }
  return expected.line ? { from: Math.max(1, expected.line - LINE_SLACK), to: expected.line + LINE_SLACK } : undefined;
}

export const workspaceScenario: Scenario<WorkspaceCase> = {
  id: 'workspace',
  task: 'question',
  title: 'Workspace questions answered with code locations',
  metrics: [
    { id: 'mrr', label: 'mean reciprocal rank', ratio: true },
    { id: 'keywords', label: 'keyword detection' },
  ],
  primaryMetric: 'mrr',

  async buildCases(context) {
    const file = context.questionsFile;
    if (!file || !fs.existsSync(file)) {
      context.note(`workspace: no questions file${file ? ` at ${file}` : ''}; pass --questions FILE (JSON: [{ "query", "expected": { "file", "line"?, "symbol"? }, "keywords"? }])`);
      return [];
    }
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      context.note(`workspace: ${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}); no cases`);
      return [];
    }
    const entries = Array.isArray(raw) ? raw : Array.isArray((raw as { questions?: unknown })?.questions) ? ((raw as { questions: unknown[] }).questions as unknown[]) : [];
    const cases: WorkspaceCase[] = [];
    let bad = 0;
    let missing = 0;
    entries.forEach((entry, i) => {
      const e = entry as { query?: unknown; expected?: unknown; keywords?: unknown };
      if (typeof e?.query !== 'string' || e.query.trim() === '' || !isExpected(e.expected) || (e.keywords !== undefined && !(Array.isArray(e.keywords) && e.keywords.every((k) => typeof k === 'string')))) {
        bad++;
        return;
      }
      const expected: ExpectedLocation = { ...e.expected, file: e.expected.file.replace(/\\/g, '/').replace(/^\.\//, '') };
      const accept = acceptedLines(context.scratch.root, expected);
      if (accept === 'missing') {
        missing++;
        return;
      }
      const keywords = (e.keywords as string[] | undefined) ?? [];
      const query = e.query.trim();
      const expectedText = fs.readFileSync(path.join(context.scratch.root, expected.file), 'utf8');
      const contentHash = createHash('sha256').update(JSON.stringify({ query, expected, keywords })).update(expectedText).digest('hex').slice(0, 16);
      cases.push({ id: `workspace:${i + 1}:${createHash('sha1').update(query).digest('hex').slice(0, 8)}`, file: expected.file, line: expected.line ?? accept?.from ?? 1, target: query.length > 60 ? `${query.slice(0, 57)}…` : query, contentHash, query, expected, keywords, accept });
    });
    if (bad > 0) context.note(`workspace: ${bad} entr${bad === 1 ? 'y' : 'ies'} of ${path.basename(file)} without a query and an expected { file, line?, symbol? }; left out`);
    if (missing > 0) context.note(`workspace: ${missing} question${missing === 1 ? '' : 's'} whose expected file or symbol is not in the repository; left out`);
    return cases;
  },

  run(env, evalCase, agent, interactionId, signal) {
    return runCaseTask(env, { task: 'question', document: workspaceSnapshot(env.root), target: { name: 'the workspace', start: 0, end: 0 }, parameters: { question: evalCase.query }, text: evalCase.query }, agent, interactionId, signal);
  },

  async score(_context, evalCase, run): Promise<Score> {
    const answer = run.response?.status === 'ok' ? run.response.text : '';
    const locations = locationsIn(answer);
    const rank = rankOf(locations, evalCase);
    const lower = answer.toLowerCase();
    const found = evalCase.keywords.filter((k) => lower.includes(k.toLowerCase()));
    const metrics = { mrr: rank > 0 ? 1 / rank : 0, keywords: evalCase.keywords.length > 0 ? found.length / evalCase.keywords.length : null };
    const where = `${evalCase.expected.file}${evalCase.expected.symbol ? ` ${evalCase.expected.symbol}` : evalCase.expected.line ? `:${evalCase.expected.line}` : ''}`;
    const failure = !answer ? (run.response?.error ?? run.failure ?? 'no answer') : rank === 0 ? `none of the ${locations.length} locations named points at ${where}` : rank > 1 ? `${where} is ranked ${rank}` : undefined;
    return { metrics, ...(failure ? { failure } : {}), details: { rank, locations: locations.length, keywordsFound: found } };
  },

  contextChars: (evalCase) => evalCase.query.length,
};
