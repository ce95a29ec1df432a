// The workspace scenario (Copilot harness): questions about the repository from a questions file, answered with code locations; scored by reciprocal rank and keyword detection.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { workspaceSnapshot } from '../workspace/documentSnapshot.js';
import { DEFAULT_INTENT_THRESHOLD } from '../agents/intentClassifier.js';
import { classifyRequest, routeRequest } from '../tasks/askFlow.js';
import { wholeWorkspaceTarget } from '../tasks/task.js';
import { runCaseTask } from './caseRun.js';
import type { EvalCase, Scenario, Score } from './scenario.js';

/** Where the answer should point: a file, optionally a line in it or a declaration's name. */
export interface ExpectedLocation {
  file: string;
  /** One-based. */
  line?: number;
  /** A declaration of the file (`Cache.get`, `retry`, `$ZodType`): any line of any of its declarations counts. */
  symbol?: string;
}

/** Lines of a file that count as the expected place; the whole file when `from` is absent. */
export interface AcceptedPlace {
  file: string;
  from?: number;
  to?: number;
}

export interface WorkspaceCase extends EvalCase {
  query: string;
  /** The places that answer the question; a location at any of them counts. */
  expected: ExpectedLocation[];
  /** Words the answer should contain (case-insensitive). */
  keywords: string[];
  /** The places a location may name to count as an expected one. */
  accept: AcceptedPlace[];
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

/** The rank (one-based) of the first location that points at an accepted place, or 0 when none does. */
export function rankOf(locations: readonly { file: string; line: number }[], accept: readonly AcceptedPlace[]): number {
  const index = locations.findIndex((l) => accept.some((a) => l.file === a.file && (a.from === undefined || (l.line >= a.from && l.line <= (a.to ?? a.from)))));
  return index + 1;
}

function isExpected(value: unknown): value is ExpectedLocation {
  const v = value as ExpectedLocation | null;
  return typeof v === 'object' && v !== null && typeof v.file === 'string' && (v.line === undefined || (Number.isInteger(v.line) && v.line > 0)) && (v.symbol === undefined || typeof v.symbol === 'string');
}

/** A named declaration of a file: its display name (`Cache.get`), its simple name and its lines (one-based, doc comment included). */
interface NamedSpan {
  name: string;
  simpleName: string;
  contained: boolean;
  from: number;
  to: number;
}

/**
 * Every named declaration of a file, of any kind: functions, classes, interfaces, type aliases, enums, namespaces,
 * variables (a `const` schema or regular expression is as much an answer as a function), and the members of
 * classes, interfaces and enums under `Container.member`.
 */
export function namedDeclarations(fileName: string, text: string): NamedSpan[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const starts = lineStarts(text);
  const lineOf = (offset: number): number => offsetToPosition(text, offset, starts).line + 1;
  const out: NamedSpan[] = [];
  const visit = (node: ts.Node, container: string | undefined): void => {
    let name: string | undefined;
    let span: ts.Node = node;
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node)) && node.name) name = node.name.text;
    else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      name = node.name.text;
      // `export const a = …`: the statement, with its export keyword and doc comment, is the declaration's place.
      const list = node.parent;
      if (ts.isVariableDeclarationList(list) && ts.isVariableStatement(list.parent) && list.declarations.length === 1) span = list.parent;
    } else if ((ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isMethodSignature(node) || ts.isPropertySignature(node) || ts.isEnumMember(node)) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) name = node.name.text;
    if (name !== undefined) out.push({ name: container ? `${container}.${name}` : name, simpleName: name, contained: container !== undefined, from: lineOf(span.getStart(source, true)), to: lineOf(Math.max(span.getStart(source), span.end - 1)) });
    const named = ts.isClassLike(node) || ts.isInterfaceDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node);
    const next = named && node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : container;
    ts.forEachChild(node, (child) => visit(child, next));
  };
  ts.forEachChild(source, (child) => visit(child, undefined));
  return out;
}

/**
 * The lines of every declaration of a symbol: a name that is both an interface and a const (or a function's overloads)
 * is one symbol, any of whose declarations answers. `Cache.get` names a member; a plain name is a top-level
 * declaration, else any member of that name.
 */
export function symbolLines(fileName: string, text: string, symbol: string): { from: number; to: number }[] {
  const all = namedDeclarations(fileName, text);
  const exact = all.filter((d) => d.name === symbol);
  const found = exact.length > 0 ? exact : symbol.includes('.') ? [] : all.filter((d) => d.simpleName === symbol);
  return found.map(({ from, to }) => ({ from, to }));
}

/** The places of one expected location in the scratch copy, or 'missing' when its file or symbol is not there. */
function acceptedPlaces(root: string, expected: ExpectedLocation): AcceptedPlace[] | 'missing' {
  const fsPath = path.join(root, expected.file);
  let text: string;
  try {
    text = fs.readFileSync(fsPath, 'utf8');
  } catch {
    return 'missing';
  }
  if (expected.symbol) {
    const lines = symbolLines(fsPath, text, expected.symbol);
    return lines.length > 0 ? lines.map((l) => ({ file: expected.file, ...l })) : 'missing';
  }
  return [expected.line ? { file: expected.file, from: Math.max(1, expected.line - LINE_SLACK), to: expected.line + LINE_SLACK } : { file: expected.file }];
}

/** A questions file's entry: `expected` is one place or several, any of which answers. */
export interface QuestionEntry {
  query: string;
  expected: ExpectedLocation | ExpectedLocation[];
  keywords?: string[];
}

export const workspaceScenario: Scenario<WorkspaceCase> = {
  id: 'workspace',
  task: 'question',
  title: 'Workspace questions answered with code locations',
  metrics: [
    { id: 'mrr', label: 'mean reciprocal rank (as typed)', ratio: true },
    { id: 'mrrForced', label: 'mean reciprocal rank (task forced)', ratio: true, informational: true },
    { id: 'routed', label: 'routed to the question task', informational: true },
    { id: 'keywords', label: 'keyword detection' },
  ],
  primaryMetric: 'mrr',

  async buildCases(context) {
    const file = context.questionsFile;
    if (!file || !fs.existsSync(file)) {
      context.note(`workspace: no questions file${file ? ` at ${file}` : ''}; pass --questions FILE (JSON: [{ "query", "expected": { "file", "line"?, "symbol"? } or a list of them, "keywords"? }])`);
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
    const missing: string[] = [];
    entries.forEach((entry, i) => {
      const e = entry as { query?: unknown; expected?: unknown; keywords?: unknown };
      const alternatives = Array.isArray(e?.expected) ? (e.expected as unknown[]) : [e?.expected];
      if (typeof e?.query !== 'string' || e.query.trim() === '' || alternatives.length === 0 || !alternatives.every(isExpected) || (e.keywords !== undefined && !(Array.isArray(e.keywords) && e.keywords.every((k) => typeof k === 'string')))) {
        bad++;
        return;
      }
      const expected = alternatives.map((a): ExpectedLocation => ({ ...a, file: a.file.replace(/\\/g, '/').replace(/^\.\//, '') }));
      const accept: AcceptedPlace[] = [];
      for (const alternative of expected) {
        const places = acceptedPlaces(context.scratch.root, alternative);
        // A place the repository does not have is a mistake of the questions file: said, never silently dropped.
        if (places === 'missing') missing.push(`${alternative.file}${alternative.symbol ? ` ${alternative.symbol}` : ''}`);
        else accept.push(...places);
      }
      if (accept.length === 0) return;
      const keywords = (e.keywords as string[] | undefined) ?? [];
      const query = e.query.trim();
      const hash = createHash('sha256').update(JSON.stringify({ query, expected, keywords }));
      for (const f of new Set(expected.map((x) => x.file))) {
        if (fs.existsSync(path.join(context.scratch.root, f))) hash.update(fs.readFileSync(path.join(context.scratch.root, f), 'utf8'));
      }
      const first = accept[0] as AcceptedPlace;
      cases.push({ id: `workspace:${i + 1}:${createHash('sha1').update(query).digest('hex').slice(0, 8)}`, file: first.file, line: expected[0]?.line ?? first.from ?? 1, target: query.length > 60 ? `${query.slice(0, 57)}…` : query, contentHash: hash.digest('hex').slice(0, 16), query, expected, keywords, accept });
    });
    if (bad > 0) context.note(`workspace: ${bad} entr${bad === 1 ? 'y' : 'ies'} of ${path.basename(file)} without a query and an expected { file, line?, symbol? }; left out`);
    if (missing.length > 0) context.note(`workspace: ${missing.length} expected place${missing.length === 1 ? '' : 's'} not in the repository (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}); a question with none left is left out`);
    return cases;
  },

  async run(env, evalCase, agent, interactionId, signal) {
    // As a user types it: the request is classified first; the agent then runs on it as the question task.
    // As a user types it with no file open: classified and routed as `assistant/ask` does; the agent then answers it as
    // the question task, which is what the user gets when the routing agrees (and the forced figure when it does not).
    const classification = await classifyRequest({ env, threshold: DEFAULT_INTENT_THRESHOLD, log: () => undefined }, evalCase.query, undefined, signal);
    const routed = await routeRequest({ env }, { text: evalCase.query }, classification, undefined, evalCase.query, signal);
    const run = await runCaseTask(env, { task: 'question', document: workspaceSnapshot(env.root), target: wholeWorkspaceTarget(), parameters: { question: evalCase.query }, text: evalCase.query }, agent, interactionId, signal);
    return { ...run, details: { classifiedAs: classification.task, routedTo: routed.task, confidence: classification.confidence } };
  },

  async score(_context, evalCase, run): Promise<Score> {
    const answer = run.response?.status === 'ok' ? run.response.text : '';
    const locations = locationsIn(answer);
    const rank = rankOf(locations, evalCase.accept);
    const lower = answer.toLowerCase();
    const found = evalCase.keywords.filter((k) => lower.includes(k.toLowerCase()));
    const classifiedAs = run.details?.classifiedAs;
    const routedTo = run.details?.routedTo;
    const routed = routedTo === 'question';
    const forced = rank > 0 ? 1 / rank : 0;
    const metrics = { mrr: routed ? forced : 0, mrrForced: forced, routed: routed ? 1 : 0, keywords: evalCase.keywords.length > 0 ? found.length / evalCase.keywords.length : null };
    const where = evalCase.expected.map((e) => `${e.file}${e.symbol ? ` ${e.symbol}` : e.line ? `:${e.line}` : ''}`).join(' or ');
    const misrouted = routed ? undefined : `went to ${String(routedTo)} (classified as ${String(classifiedAs)}), not the question task`;
    const ranking = !answer ? (run.response?.error ?? run.failure ?? 'no answer') : rank === 0 ? `none of the ${locations.length} locations named points at ${where}` : rank > 1 ? `${where} is ranked ${rank}` : undefined;
    const failure = [misrouted, ranking].filter((x) => x !== undefined).join('; ');
    return { metrics, ...(failure ? { failure } : {}), details: { rank, locations: locations.length, keywordsFound: found, classifiedAs: classifiedAs ?? null, routedTo: routedTo ?? null } };
  },

  contextChars: (evalCase) => evalCase.query.length,
};
