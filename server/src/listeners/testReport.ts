// Test runners' machine-readable reports (vitest, jest, mocha, node --test) read into failures at their assertions, and those into problems.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stripAnsi } from '../oracle/testProcess.js';
import { redactSecrets } from '../privacy/secrets.js';
import type { TestFrameworkName } from '../repo/testFramework.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import type { Problem, ProblemLocation } from './projectTypeCheck.js';

/** A place in a file: one-based line and column, as stack traces and runners give them. */
export interface TestLocation {
  fsPath: string;
  line: number;
  column: number;
}

export interface TestFailure {
  /** Absolute path in the workspace ('' when the runner did not say, e.g. a mocha root hook). */
  testFile: string;
  /** `suite > name`; for a whole-file failure, the file's workspace-relative path. */
  testName: string;
  /** `test`: a test failed; `file`: the file failed as a whole (it did not load); `unfinished`: still running when the run was stopped. */
  kind: 'test' | 'file' | 'unfinished';
  /** The error's name and message, without its stack. */
  message: string;
  expected?: string;
  actual?: string;
  /** Stack frames (`at fn (path:line:column)`) in workspace files, paths as in the workspace; other frames only when there is none. */
  stack: string[];
  /** The assertion: the first frame in the test file, else in the workspace (not node_modules), else where the test is declared. */
  location?: TestLocation;
  /** Where the test is declared, when the runner says. */
  testLocation?: TestLocation;
}

/** What a report file says, before the run's circumstances are added. */
export interface ParsedTestReport {
  passed: number;
  /** Failed tests, plus test files that failed as a whole. */
  failed: number;
  /** Skipped, pending and todo tests. */
  skipped: number;
  failures: TestFailure[];
}

export interface TestReport extends ParsedTestReport {
  framework: TestFrameworkName;
  /** The command line, for messages. */
  command: string;
  timedOut: boolean;
  exitCode: number | null;
  /** Set when the run could not start (no runner installed, a file outside the workspace). */
  unavailable?: string;
  /** Set when the runner ran but left no report to read (a configuration error, no test files): what its output says. */
  error?: string;
  /** The end of the runner's output, without colours, redacted. */
  output: string;
}

/**
 * Where a report's paths belong: the workspace root, and the folders the run happened in (a scratch copy, also by its
 * real path), whose paths are reported as the same paths under the root.
 */
export interface ReportPaths {
  root: string;
  runRoots?: readonly string[];
}

const MAX_FAILURES = 500;
const MAX_STACK = 20;
const MAX_RELATED = 10;

// ---------------------------------------------------------------------------------------------------------------
// vitest and jest (vitest's JSON reporter writes jest's format)

interface JestLikeAssertion {
  ancestorTitles?: string[];
  title?: string;
  fullName?: string;
  status?: string;
  failureMessages?: string[];
  failureDetails?: unknown[];
  location?: { line?: number; column?: number } | null;
}
interface JestLikeFile {
  name?: string;
  status?: string;
  message?: string;
  assertionResults?: JestLikeAssertion[];
  testExecError?: { message?: string; stack?: string } | null;
}
interface JestLikeReport {
  testResults?: JestLikeFile[];
}

/** vitest's `--reporter=json` output. Its messages carry no separate expected/actual: they are read from the message. */
export function parseVitestJson(json: string, paths: ReportPaths | string): ParsedTestReport {
  return parseJestLike(json, toPaths(paths), 'vitest');
}

/** jest's `--json` output (with `--testLocationInResults`, tests' own locations too). */
export function parseJestJson(json: string, paths: ReportPaths | string): ParsedTestReport {
  return parseJestLike(json, toPaths(paths), 'jest');
}

function parseJestLike(json: string, paths: ReportPaths, framework: 'vitest' | 'jest'): ParsedTestReport {
  const map = pathMapper(paths);
  const report = parseJson(json) as JestLikeReport;
  const out = emptyReport();
  for (const file of report.testResults ?? []) {
    const testFile = file.name ? map.path(file.name) : '';
    const assertions = file.assertionResults ?? [];
    for (const assertion of assertions) {
      const status = assertion.status ?? '';
      if (status === 'passed') out.passed++;
      else if (status === 'failed') {
        out.failed++;
        const testName = [...(assertion.ancestorTitles ?? []), assertion.title ?? assertion.fullName ?? ''].filter((t) => t !== '').join(' > ');
        const raw = (assertion.failureMessages ?? []).map(stripAnsi);
        const first = raw[0] ?? '';
        const split = splitError(first);
        const details = framework === 'jest' ? matcherValues(assertion.failureDetails?.[0]) : undefined;
        const values = details ?? valuesFromMessage(split.message);
        const testLocation = assertion.location?.line ? { fsPath: testFile, line: assertion.location.line, column: assertion.location.column ?? 1 } : undefined;
        // Further errors of one test (an afterEach failing too) stay in the message, the first one decides the place.
        const more = raw.slice(1).map((m) => splitError(m).message);
        addFailure(out, failureOf({ testFile, testName, kind: 'test', message: [split.message, ...more].join('\n'), ...values, frames: split.frames, testLocation }, map, paths));
      } else out.skipped++;
    }
    const fileError = file.testExecError?.message ?? file.testExecError?.stack ?? (file.status === 'failed' && file.message ? file.message : undefined);
    if (fileError && !assertions.some((a) => a.status === 'failed')) {
      out.failed++;
      const split = splitError(stripAnsi(file.testExecError?.stack ?? fileError));
      const message = split.message || stripAnsi(fileError).trim();
      addFailure(out, failureOf({ testFile, testName: relativeName(paths.root, testFile), kind: 'file', message, frames: split.frames }, map, paths));
    }
  }
  return out;
}

/** jest's matcher result (`failureDetails[i].matcherResult`), when it has both values. */
function matcherValues(detail: unknown): { expected?: string; actual?: string } | undefined {
  const result = (detail as { matcherResult?: { expected?: unknown; actual?: unknown } } | undefined)?.matcherResult;
  if (!result || !('expected' in result) || !('actual' in result)) return undefined;
  return { expected: formatValue(result.expected), actual: formatValue(result.actual) };
}

/**
 * Expected and actual values from an assertion's message: chai's `expected 5 to be 6` (vitest), or jest's
 * `Expected: 6` / `Received: 5` lines. Nothing when the message has another shape.
 */
export function valuesFromMessage(message: string): { expected?: string; actual?: string } {
  const firstLine = message.split('\n')[0]?.replace(/^\w*(?:Error|Exception)(?: \[[^\]]*\])?: /, '') ?? '';
  const chai = /^expected (.+) to (?:be|equal|deeply equal|strictly equal|be deeply equal|be strictly equal) (.+?)(?: \/\/ Object\.is equality)?$/.exec(firstLine);
  // A negated assertion (`expected 5 not to be 5`) has no expected value to show.
  if (chai && !/ not$/.test(chai[1] as string)) return { expected: chai[2] as string, actual: chai[1] as string };
  if (chai) return {};
  const expected = /^[ \t]*Expected(?: value)?: (.*)$/m.exec(message);
  const received = /^[ \t]*Received(?: value)?: (.*)$/m.exec(message);
  if (expected && received) return { expected: (expected[1] as string).trim(), actual: (received[1] as string).trim() };
  return {};
}

// ---------------------------------------------------------------------------------------------------------------
// vitest's detail lines: written by the reporter module the test run adds (see projectTests.ts)

interface DetailLine {
  event?: 'ready' | 'result';
  file?: string;
  name?: string;
  state?: string;
  location?: { line?: number; column?: number };
  errors?: { name?: string; message?: string; stack?: string; expected?: unknown; actual?: unknown }[];
}

/** The tests that started and never reported a result: when the run was stopped, the ones still running. */
export interface UnfinishedTest {
  testFile: string;
  testName: string;
  testLocation?: TestLocation;
}

/**
 * The JSON lines of the run's own vitest reporter: one line when a test starts and one with its result, with the
 * error's own expected and actual values (vitest's JSON report only has the message). They are written as tests
 * finish, so a run stopped half-way still tells what finished, and what was running.
 */
export function parseVitestDetails(lines: string, paths: ReportPaths | string): ParsedTestReport & { unfinished: UnfinishedTest[] } {
  const resolved = toPaths(paths);
  const map = pathMapper(resolved);
  const out = emptyReport();
  const running = new Map<string, UnfinishedTest>();
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    let record: DetailLine;
    try {
      record = JSON.parse(line) as DetailLine;
    } catch {
      // The last line of a killed run may be cut short.
      continue;
    }
    const testFile = record.file ? map.path(record.file) : '';
    const testName = record.name ?? '';
    const key = `${testFile}\u0000${testName}`;
    const testLocation = record.location?.line ? { fsPath: testFile, line: record.location.line, column: record.location.column ?? 1 } : undefined;
    if (record.event === 'ready') {
      running.set(key, { testFile, testName, ...(testLocation ? { testLocation } : {}) });
      continue;
    }
    running.delete(key);
    if (record.state === 'passed') out.passed++;
    else if (record.state === 'failed') {
      out.failed++;
      const errors = record.errors ?? [];
      const first = errors[0];
      const split = splitError(stripAnsi(first?.stack ?? first?.message ?? ''));
      const message = first ? split.message || `${first.name ?? 'Error'}: ${first.message ?? ''}` : 'the test failed';
      const values = first && first.expected !== undefined && first.actual !== undefined ? { expected: valueText(first.expected), actual: valueText(first.actual) } : valuesFromMessage(message);
      const more = errors.slice(1).map((e) => `${e.name ?? 'Error'}: ${e.message ?? ''}`);
      addFailure(out, failureOf({ testFile, testName, kind: 'test', message: [message, ...more].join('\n'), ...values, frames: split.frames, testLocation }, map, resolved));
    } else out.skipped++;
  }
  return { ...out, unfinished: [...running.values()] };
}

/** Fills in expected and actual values the JSON report lacks, from the detail lines of the same run. */
export function withDetails(report: ParsedTestReport, details: ParsedTestReport): ParsedTestReport {
  const byTest = new Map<string, TestFailure[]>();
  for (const failure of details.failures) {
    const key = `${failure.testFile}\u0000${failure.testName}`;
    byTest.set(key, [...(byTest.get(key) ?? []), failure]);
  }
  const failures = report.failures.map((failure) => {
    // Tests of the same name in one file are matched in order.
    const match = byTest.get(`${failure.testFile}\u0000${failure.testName}`)?.shift();
    if (!match || match.expected === undefined || match.actual === undefined) return failure;
    return { ...failure, expected: match.expected, actual: match.actual };
  });
  return { ...report, failures };
}

// ---------------------------------------------------------------------------------------------------------------
// mocha

interface MochaTest {
  title?: string;
  fullTitle?: string;
  file?: string;
  err?: { message?: string; stack?: string; expected?: unknown; actual?: unknown; name?: string };
}
interface MochaReport {
  stats?: { passes?: number; failures?: number; pending?: number };
  failures?: MochaTest[];
  passes?: MochaTest[];
  pending?: MochaTest[];
}

/** mocha's `--reporter json` output. */
export function parseMochaJson(json: string, paths: ReportPaths | string): ParsedTestReport {
  const resolved = toPaths(paths);
  const map = pathMapper(resolved);
  const report = parseJson(json) as MochaReport;
  const out = emptyReport();
  out.passed = report.stats?.passes ?? report.passes?.length ?? 0;
  out.skipped = report.stats?.pending ?? report.pending?.length ?? 0;
  out.failed = report.stats?.failures ?? report.failures?.length ?? 0;
  for (const test of report.failures ?? []) {
    const title = test.title ?? '';
    const full = test.fullTitle ?? title;
    // mocha joins suite titles with spaces; only the test's own title can be told apart.
    const suites = full.endsWith(title) ? full.slice(0, full.length - title.length).trim() : '';
    const testName = suites ? `${suites} > ${title}` : title;
    const err = test.err ?? {};
    const split = splitError(stripAnsi(err.stack ?? err.message ?? ''));
    const message = split.message || `${err.name ?? 'Error'}: ${err.message ?? ''}`;
    // mocha's base reporter has already turned both values into strings when it shows a diff.
    const values = err.expected !== undefined && err.actual !== undefined ? { expected: valueText(err.expected), actual: valueText(err.actual) } : valuesFromMessage(message);
    addFailure(out, failureOf({ testFile: test.file ? map.path(test.file) : '', testName, kind: 'test', message, ...values, frames: split.frames }, map, resolved));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// node --test (the TAP reporter)

interface TapPoint {
  ok: boolean;
  directive: 'skip' | 'todo' | undefined;
  names: string[];
  yaml: Record<string, YamlValue>;
  /** Comment lines since the previous test point: what a test file printed to stderr before failing to load. */
  comments: string[];
}

/**
 * node's `--test-reporter=tap` output. Suites, and tests that failed only because a subtest did, are not failures of
 * their own; the summary comments give the counts, or, in a run stopped half-way, the test points seen.
 */
export function parseNodeTestTap(tap: string, paths: ReportPaths | string): ParsedTestReport {
  const resolved = toPaths(paths);
  const map = pathMapper(resolved);
  const lines = tap.split(/\r?\n/);
  const names: string[] = [];
  const points: TapPoint[] = [];
  const summary: Record<string, number> = {};
  let comments: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const indent = line.length - line.trimStart().length;
    const depth = Math.floor(indent / 4);
    const body = line.trim();
    const subtest = /^# Subtest: (.*)$/.exec(body);
    if (subtest) {
      names.length = depth;
      names[depth] = unescapeTap(subtest[1] as string);
      continue;
    }
    const point = /^(not )?ok \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$/i.exec(body);
    if (point) {
      const name = unescapeTap(point[2] ?? '');
      const yaml: Record<string, YamlValue> = {};
      if (lines[i + 1]?.trim() === '---') {
        const blockIndent = (lines[i + 1] as string).length - (lines[i + 1] as string).trimStart().length;
        let end = i + 2;
        while (end < lines.length && (lines[end] as string).trim() !== '...') end++;
        Object.assign(yaml, parseYamlBlock(lines.slice(i + 2, end), blockIndent));
        i = end;
      }
      const directive = point[3]?.toLowerCase() as 'skip' | 'todo' | undefined;
      points.push({ ok: !point[1], directive, names: [...names.slice(0, depth), name], yaml, comments });
      comments = [];
      names.length = depth;
      continue;
    }
    const count = /^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$/.exec(body);
    if (count && depth === 0) {
      summary[count[1] as string] = Number(count[2]);
      continue;
    }
    if (body.startsWith('#')) comments.push(unescapeTap(body.replace(/^# ?/, '')));
  }

  const out = emptyReport();
  const leaves = points.filter((p) => p.yaml.type?.text !== 'suite' && p.yaml.failureType?.text !== 'subtestsFailed');
  for (const point of leaves) {
    if (point.directive) out.skipped++;
    else if (point.ok) out.passed++;
    else {
      out.failed++;
      addFailure(out, tapFailure(point, map, resolved));
    }
  }
  if (summary.pass !== undefined && summary.fail !== undefined) {
    out.passed = summary.pass;
    out.failed = summary.fail + (summary.cancelled ?? 0);
    out.skipped = (summary.skipped ?? 0) + (summary.todo ?? 0);
  }
  return out;
}

function tapFailure(point: TapPoint, map: PathMapper, paths: ReportPaths): TestFailure {
  const yaml = point.yaml;
  const declared = yaml.location ? parseLocation(yaml.location.text, map) : undefined;
  const name = point.names.filter((n) => n !== '').join(' > ');
  const frames = (yaml.stack?.text ?? '').split('\n').filter((l) => l.trim()).map((l) => `at ${l.trim()}`);
  // A test file that fails to load is reported as a test named after the file; what it printed is in the comments.
  if (yaml.error?.text === 'test failed' && yaml.exitCode !== undefined) {
    const printed = point.comments;
    const errorLine = printed.find((l) => /^\w*(?:Error|Exception)\b/.test(l.trim()));
    const testFile = declared?.fsPath ?? map.path(name);
    const message = errorLine?.trim() ?? `the test file failed (exit code ${yaml.exitCode.text})`;
    return failureOf({ testFile, testName: relativeName(paths.root, testFile), kind: 'file', message, frames: printed.filter((l) => /^\s*at /.test(l)).map((l) => l.trim()), testLocation: declared }, map, paths);
  }
  const error = yaml.error?.text.trimEnd() ?? 'the test failed';
  const message = yaml.name ? `${yaml.name.text}: ${error}` : error;
  const values = yaml.expected !== undefined && yaml.actual !== undefined ? { expected: yamlValue(yaml.expected), actual: yamlValue(yaml.actual) } : {};
  return failureOf({ testFile: declared?.fsPath ?? '', testName: name, kind: 'test', message, ...values, frames, testLocation: declared }, map, paths);
}

/** A value of a TAP YAML block: its text, and whether YAML wrote it as a string (quoted or a block scalar). */
interface YamlValue {
  text: string;
  string: boolean;
}

/** The keys of one TAP YAML block: scalars unquoted, block scalars (`|-`) and nested mappings as their lines, dedented. */
function parseYamlBlock(lines: string[], blockIndent: number): Record<string, YamlValue> {
  const out: Record<string, YamlValue> = {};
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (indentOf(line) !== blockIndent) continue;
    const pair = /^([\w-]+):(?: (.*))?$/.exec(line.trim());
    if (!pair) continue;
    const value = pair[2] ?? '';
    if (value === '' || /^[|>][-+]?$/.test(value)) {
      const nested: string[] = [];
      while (i + 1 < lines.length && ((lines[i + 1] as string).trim() === '' || indentOf(lines[i + 1] as string) > blockIndent)) nested.push(lines[++i] as string);
      const cut = Math.min(...nested.filter((l) => l.trim()).map(indentOf));
      const text = nested.map((l) => l.slice(Number.isFinite(cut) ? cut : 0)).join('\n').replace(/\n+$/, '');
      // A nested mapping is how the reporter prints an object (a deep-equal's values): kept as YAML text.
      out[pair[1] as string] = { text, string: value !== '' };
    } else out[pair[1] as string] = scalar(value);
  }
  return out;
}

function scalar(value: string): YamlValue {
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) return { text: value.slice(1, -1).replace(/''/g, "'"), string: true };
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
    try {
      return { text: JSON.parse(value) as string, string: true };
    } catch {
      return { text: value.slice(1, -1), string: true };
    }
  }
  return { text: value === '~' ? 'null' : value, string: false };
}

/** A value the TAP reporter printed: strings quoted as JSON (so `'6'` and `6` differ), the rest as written. */
function yamlValue(value: YamlValue): string {
  return value.string ? JSON.stringify(value.text) : value.text;
}

function unescapeTap(text: string): string {
  return text.replace(/\\([#\\])/g, '$1');
}

// ---------------------------------------------------------------------------------------------------------------
// Shared: paths, stacks, failures

interface PathMapper {
  /** A path or file URL of the run as the absolute path in the workspace. */
  path(value: string): string;
  /** Every run path (and file URL) in a text replaced by the workspace's. */
  text(value: string): string;
}

function toPaths(paths: ReportPaths | string): ReportPaths {
  return typeof paths === 'string' ? { root: paths } : paths;
}

function pathMapper(paths: ReportPaths): PathMapper {
  const root = path.resolve(paths.root);
  const runRoots = [...new Set((paths.runRoots ?? []).map((r) => path.resolve(r)))].filter((r) => r !== root).sort((a, b) => b.length - a.length);
  const rootUrl = pathToFileURL(root).href;
  const mapPath = (value: string): string => {
    let fsPath = value;
    if (value.startsWith('file:')) {
      try {
        fsPath = fileURLToPath(value);
      } catch {
        return value;
      }
    }
    for (const run of runRoots) {
      if (fsPath === run) return root;
      if (fsPath.startsWith(run + path.sep) || fsPath.startsWith(`${run}/`)) return path.join(root, fsPath.slice(run.length + 1));
    }
    return fsPath;
  };
  const mapText = (value: string): string => {
    let out = value;
    for (const run of runRoots) out = out.split(pathToFileURL(run).href).join(rootUrl).split(run).join(root);
    return out;
  };
  return { path: mapPath, text: mapText };
}

/** One stack frame: `at fn (path:line:column)`, `at path:line:column`, or, as node's TAP writes them, without `at`. */
export interface StackFrame {
  fn?: string;
  /** A path or `file:` URL as printed. */
  file: string;
  line: number;
  column: number;
}

export function parseStackFrame(text: string): StackFrame | undefined {
  const body = text.trim().replace(/^at\s+/, '').replace(/^async\s+/, '');
  const wrapped = /^(.*?) \((.+):(\d+):(\d+)\)$/.exec(body);
  const bare = wrapped ? undefined : /^(.+):(\d+):(\d+)$/.exec(body);
  const [fn, file, line, column] = wrapped ? [wrapped[1], wrapped[2], wrapped[3], wrapped[4]] : bare ? [undefined, bare[1], bare[2], bare[3]] : [];
  if (!file || !line || !column) return undefined;
  return { ...(fn ? { fn } : {}), file, line: Number(line), column: Number(column) };
}

/** An error's text split into its message (everything before the first frame) and its frame lines. */
function splitError(text: string): { message: string; frames: string[] } {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((l) => /^\s*at\s/.test(l));
  if (first < 0) return { message: text.trim(), frames: [] };
  return { message: lines.slice(0, first).join('\n').trim(), frames: lines.slice(first).filter((l) => /^\s*at\s/.test(l)).map((l) => l.trim()) };
}

interface RawFailure {
  testFile: string;
  testName: string;
  kind: TestFailure['kind'];
  message: string;
  expected?: string;
  actual?: string;
  frames: string[];
  testLocation?: TestLocation | undefined;
}

/** A failure with its paths in the workspace, its frames reduced to the workspace's, and the assertion's place. */
function failureOf(raw: RawFailure, map: PathMapper, paths: ReportPaths): TestFailure {
  const root = path.resolve(paths.root);
  const testFile = raw.testFile ? map.path(raw.testFile) : '';
  const parsed = raw.frames.map((text) => {
    const frame = parseStackFrame(text);
    const fsPath = frame ? map.path(frame.file) : undefined;
    return { frame, fsPath, inWorkspace: fsPath !== undefined && isWorkspaceFile(root, fsPath) };
  });
  const stack = parsed
    .filter((p) => p.inWorkspace)
    .slice(0, MAX_STACK)
    .map((p) => `at ${p.frame?.fn ? `${p.frame.fn} (` : ''}${p.fsPath}:${p.frame?.line}:${p.frame?.column}${p.frame?.fn ? ')' : ''}`);
  const placed = (p: (typeof parsed)[number] | undefined): TestLocation | undefined => (p?.frame && p.fsPath ? { fsPath: p.fsPath, line: p.frame.line, column: p.frame.column } : undefined);
  const location = placed(parsed.find((p) => p.inWorkspace && p.fsPath === testFile)) ?? placed(parsed.find((p) => p.inWorkspace)) ?? raw.testLocation;
  return {
    testFile,
    testName: raw.testName,
    kind: raw.kind,
    message: map.text(raw.message),
    ...(raw.expected !== undefined ? { expected: map.text(raw.expected) } : {}),
    ...(raw.actual !== undefined ? { actual: map.text(raw.actual) } : {}),
    // With no frame in the workspace (an error thrown inside a dependency), its first frames still say where.
    stack: stack.length > 0 ? stack : raw.frames.slice(0, 5).map((f) => map.text(f)),
    ...(location ? { location } : {}),
    ...(raw.testLocation ? { testLocation: raw.testLocation } : {}),
  };
}

function isWorkspaceFile(root: string, fsPath: string): boolean {
  if (!path.isAbsolute(fsPath)) return false;
  const relative = path.relative(root, fsPath);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && !relative.split(/[\\/]/).includes('node_modules');
}

/** A file-level failure is named after the file, relative to the workspace. */
function relativeName(root: string, testFile: string): string {
  if (!testFile) return '';
  const relative = path.relative(root, testFile);
  return relative.startsWith('..') || path.isAbsolute(relative) ? testFile : relative.split(path.sep).join('/');
}

/** `path:line:column` (node's TAP `location`). */
function parseLocation(text: string, map: PathMapper): TestLocation | undefined {
  const match = /^(.+):(\d+):(\d+)$/.exec(text);
  if (!match) return undefined;
  return { fsPath: map.path(match[1] as string), line: Number(match[2]), column: Number(match[3]) };
}

function emptyReport(): ParsedTestReport {
  return { passed: 0, failed: 0, skipped: 0, failures: [] };
}

function addFailure(report: ParsedTestReport, failure: TestFailure): void {
  if (report.failures.length < MAX_FAILURES) report.failures.push(failure);
}

function parseJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  if (!parsed || typeof parsed !== 'object') throw new Error('the report is not a JSON object');
  return parsed;
}

/** A runner's value as text: strings as they are (the runners hand over already-printed values), the rest as JSON. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? value : formatValue(value);
}

/** A raw value (jest's matcher results are the values themselves) printed as JSON, strings quoted. */
function formatValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Problems

export interface ToProblemsOptions {
  /** The text of a file as the run saw it (the editor's buffer); the disk otherwise. */
  textOf?: (fsPath: string) => string | undefined;
}

/**
 * One problem per failure, at its assertion: the range covers the assertion's line from its column (to the end of the
 * line's code). The message names the test and gives expected and actual values; related information points at the
 * other workspace frames of the stack and at the test's declaration. A failure with no file to place it in (a mocha
 * root hook) has no problem; the report still lists it. Everything shown is redacted.
 */
export function toProblems(report: TestReport, options: ToProblemsOptions = {}): Problem[] {
  const cache = new Map<string, string[] | undefined>();
  const linesOf = (fsPath: string): string[] | undefined => {
    if (!cache.has(fsPath)) {
      let text = options.textOf?.(fsPath);
      if (text === undefined) {
        try {
          text = fs.readFileSync(fsPath, 'utf8');
        } catch {
          text = undefined;
        }
      }
      cache.set(fsPath, text?.split(/\r?\n/));
    }
    return cache.get(fsPath);
  };
  const locate = (at: TestLocation): ProblemLocation => ({ uri: pathToUri(at.fsPath), fsPath: at.fsPath, range: lineRange(linesOf(at.fsPath), at.line, at.column) });

  const problems: Problem[] = [];
  for (const failure of report.failures) {
    const at = failure.location ?? failure.testLocation ?? (failure.testFile ? { fsPath: failure.testFile, line: 1, column: 1 } : undefined);
    if (!at) continue;
    const related: { location: ProblemLocation; message: string }[] = [];
    for (const frameText of failure.stack) {
      const frame = parseStackFrame(frameText);
      if (!frame || !path.isAbsolute(frame.file) || frame.file.split(/[\\/]/).includes('node_modules')) continue;
      if (frame.file === at.fsPath && frame.line === at.line && frame.column === at.column) continue;
      related.push({ location: locate({ fsPath: frame.file, line: frame.line, column: frame.column }), message: frame.fn ? `called from ${frame.fn}` : 'called from here' });
    }
    const declared = failure.testLocation;
    if (declared && !(declared.fsPath === at.fsPath && declared.line === at.line)) related.push({ location: locate(declared), message: `the test '${failure.testName}'` });
    const head = failure.kind === 'file' ? `${failure.testName || path.basename(failure.testFile)} failed to run` : failure.testName;
    const lines = [head ? `${head}: ${failure.message}` : failure.message];
    if (failure.expected !== undefined) lines.push(`expected: ${failure.expected}`);
    if (failure.actual !== undefined) lines.push(`actual: ${failure.actual}`);
    problems.push({
      ...locate(at),
      message: redactSecrets(lines.join('\n')),
      severity: 1,
      source: report.framework,
      ...(related.length > 0 ? { related: related.slice(0, MAX_RELATED) } : {}),
      data: {
        kind: failure.kind,
        testFile: failure.testFile,
        testName: failure.testName,
        ...(failure.expected !== undefined ? { expected: redactSecrets(failure.expected) } : {}),
        ...(failure.actual !== undefined ? { actual: redactSecrets(failure.actual) } : {}),
        stack: failure.stack.map(redactSecrets),
      },
    });
  }
  return problems;
}

/** The line from the column to the end of its code; without the text, one character at the column. */
function lineRange(lines: string[] | undefined, line: number, column: number): ProblemLocation['range'] {
  const row = Math.max(0, line - 1);
  const start = Math.max(0, column - 1);
  const text = lines?.[row];
  if (text === undefined) return { start: { line: row, character: start }, end: { line: row, character: start + 1 } };
  const codeEnd = text.trimEnd().length;
  const from = Math.min(start, text.length);
  return { start: { line: row, character: from }, end: { line: row, character: codeEnd > from ? codeEnd : text.length } };
}
