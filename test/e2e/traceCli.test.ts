// End-to-end `assistant-ls trace`: a server over --stdio records a few interactions, then the built command lists, filters and shows them from a terminal, reading the trace without writing it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClientCapabilities, CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, Interaction, TaskCommandResult, TraceParams, TraceResult } from '../../protocol/src/index.js';
import { BIN, FULL_CAPABILITIES, TestEditor, copyFixture, REPO_ROOT } from '../support/lspClient.js';
import { treeHash } from '../support/evalSupport.js';
import { startScriptedModel } from '../support/scriptedModel.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `assistant-ls trace` as a team lead would in a terminal (a pipe here), in `cwd`. */
function traceCli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'trace', ...args], { cwd, env: { ...process.env, TZ: 'UTC', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The short ids of a listing's lines, in order (the header and the footer left out). */
function listedIds(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => /^[0-9a-f]{8} {2}/.test(line))
    .map((line) => line.slice(0, 8));
}

/** The line of a listing that starts with an interaction's short id. */
function lineOf(stdout: string, id: string): string {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(id.slice(0, 8)));
  if (line === undefined) throw new Error(`no line for ${id} in:\n${stdout}`);
  return line;
}

function short(ids: readonly string[]): string[] {
  return ids.map((id) => id.slice(0, 8));
}

/** Writes the buffer to its file and says so, as an editor's save does. */
async function save(editor: TestEditor, uri: string): Promise<void> {
  fs.writeFileSync(fileURLToPath(uri), editor.buffer(uri).text);
  await editor.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
}

/** A TypeScript diagnostic on the first occurrence of `needle`, as a client (tsserver) would send it. */
function diagnosticOn(editor: TestEditor, uri: string, needle: string, code: number, message: string, length = needle.length): Diagnostic {
  const start = editor.position(uri, needle);
  return { range: { start, end: { line: start.line, character: start.character + length } }, severity: 1, code, source: 'ts', message };
}

async function runFix(editor: TestEditor, uri: string, diagnostic: Diagnostic): Promise<TaskCommandResult> {
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
  const fix = actions.find((action) => action.kind === 'quickfix')!;
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: fix.command!.command, arguments: fix.command!.arguments });
}

async function documentAt(editor: TestEditor, uri: string, needle: string): Promise<TaskCommandResult> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: actions[0]!.command!.command, arguments: actions[0]!.command!.arguments });
}

async function askAndApply(editor: TestEditor, uri: string, text: string): Promise<AskResult> {
  const answer = await editor.request<AskResult>('assistant/ask', { text, textDocument: { uri } });
  const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
  expect(applied.applied).toBe(true);
  return answer;
}

/** The 1-based line of the first line of a file that holds `needle`. */
function lineHolding(file: string, needle: string): number {
  const index = fs.readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`"${needle}" not in ${file}`);
  return index + 1;
}

/** A workspace with the fix fixture and basic's config.ts, where one session made five interactions and ended. */
interface Recorded {
  root: string;
  session: string;
  documented: string;
  /** A moment between the first interaction and the second. */
  afterFirst: string;
  discarded: string;
  fixed: string;
  question: string;
  reverted: string;
}

let recorded: Recorded;
let traceBefore: string;
const editors: TestEditor[] = [];

afterEach(async () => {
  await Promise.all(editors.splice(0).map((editor) => editor.dispose()));
});

beforeAll(async () => {
  const root = copyFixture('fix');
  fs.copyFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'basic', 'src', 'config.ts'), path.join(root, 'src', 'config.ts'));
  // Edits are previewed, as in VS Code, so that one can be discarded there (which the trace records).
  const capabilities: ClientCapabilities = { ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, workspaceEdit: { ...FULL_CAPABILITIES.workspace?.workspaceEdit, changeAnnotationSupport: { groupsOnLabel: true } } } };
  const { editor } = await TestEditor.start({ root, capabilities, initializationOptions: { assistant: { preview: 'always' } } });
  try {
    const config = await editor.open('src/config.ts');
    const documented = await documentAt(editor, config.uri, 'parseConfig(text');
    expect(documented).toMatchObject({ applied: true });
    await save(editor, config.uri);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const afterFirst = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));

    const main = await editor.open('src/main.ts');
    const missing = diagnosticOn(editor, main.uri, 'add(sum', 2304, "Cannot find name 'add'.", 3);
    const applyLocally = editor.onApplyEdit;
    editor.onApplyEdit = () => ({ applied: false });
    const discarded = await runFix(editor, main.uri, missing);
    expect(discarded).toMatchObject({ applied: false, outcome: 'discarded' });
    editor.onApplyEdit = applyLocally;
    const fixed = await runFix(editor, main.uri, missing);
    expect(fixed).toMatchObject({ applied: true });
    await save(editor, main.uri);

    const question = await editor.request<AskResult>('assistant/ask', { text: 'where is fetchCount defined?' });
    expect(question.task).toBe('question');

    const reverted = await askAndApply(editor, config.uri, 'write documentation for the load method');
    expect(await editor.request('assistant/revert', { interactionId: reverted.interactionId })).toMatchObject({ reverted: true });
    await save(editor, config.uri);

    const documentedRecord = (await editor.request<TraceResult>('assistant/trace', { id: documented.interactionId })).interactions[0]!;
    await editor.request('assistant/rate', { interactionId: documented.interactionId, responseId: documentedRecord.responses[0]!.id, rating: 'up', comment: 'clear and true' });
    expect(await editor.shutdownAndExit()).toBe(0);
    recorded = {
      root,
      session: documentedRecord.sessionId,
      documented: documented.interactionId,
      afterFirst,
      discarded: discarded.interactionId,
      fixed: fixed.interactionId,
      question: question.interactionId,
      reverted: reverted.interactionId,
    };
    traceBefore = treeHash(path.join(root, '.assistant', 'trace'));
  } finally {
    await editor.dispose();
  }
}, 90_000);

afterAll(() => {
  // Every run of the command left the trace as it was (no file written, moved or touched).
  if (recorded) expect(treeHash(path.join(recorded.root, '.assistant', 'trace'))).toBe(traceBefore);
});

/** `assistant/trace`'s answer from a new server on the workspace, which has no document open (as the command). */
async function serverAnswer(params: TraceParams): Promise<TraceResult> {
  const { editor } = await TestEditor.start({ root: recorded.root });
  editors.push(editor);
  const answer = await editor.request<TraceResult>('assistant/trace', params);
  expect(await editor.shutdownAndExit()).toBe(0);
  return answer;
}

describe('assistant-ls trace', () => {
  it('lists the interactions newest first, one line each: when (local time), task, agents, code, outcome, request', async () => {
    const { root } = recorded;
    const run = await traceCli([], root, { TZ: 'Asia/Kolkata' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(listedIds(run.stdout)).toEqual(short([recorded.reverted, recorded.question, recorded.fixed, recorded.discarded, recorded.documented]));
    expect(run.stdout.split('\n')[0]).toMatch(/^ID +WHEN +TASK +AGENT +CODE +OUTCOME +REQUEST$/);
    expect(run.stdout).toMatch(/\n5 interactions\n$/);

    const docLine = lineOf(run.stdout, recorded.documented);
    const parseConfigLine = lineHolding(path.join(root, 'src', 'config.ts'), '/**');
    expect(docLine).toMatch(new RegExp(` document +doc-offline +src/config\\.ts:${parseConfigLine} +used, kept, rated up +document parseConfig$`));
    expect(lineOf(run.stdout, recorded.discarded)).toMatch(/ fix +fix-offline +src\/main\.ts:\d+ +discarded +fix TS2304$/);
    expect(lineOf(run.stdout, recorded.fixed)).toMatch(/ fix +fix-offline +src\/main\.ts:\d+ +used, kept +fix TS2304$/);
    expect(lineOf(run.stdout, recorded.question)).toMatch(/ question +question-offline +.* +where is fetchCount defined\?$/);
    expect(lineOf(run.stdout, recorded.reverted)).toMatch(/ document +doc-offline +src\/config\.ts:\d+ +reverted +write documentation for the load method$/);

    // The time is the terminal's local time: India is 5 h 30 min ahead of UTC, with no daylight saving.
    const timestamp = (await serverAnswer({ id: recorded.documented })).interactions[0]!.timestamp;
    const local = new Date(Date.parse(timestamp) + 5.5 * 3_600_000).toISOString();
    expect(docLine.slice(10, 26)).toBe(`${local.slice(0, 10)} ${local.slice(11, 16)}`);
  });

  it('narrows the list by task, agent, use, text, time and session, as assistant/trace does', async () => {
    const { root } = recorded;
    const ids = async (...args: string[]): Promise<string[]> => {
      const run = await traceCli(args, root);
      expect(run.code, run.stderr).toBe(0);
      return listedIds(run.stdout);
    };
    expect(await ids('--task', 'fix')).toEqual(short([recorded.fixed, recorded.discarded]));
    expect(await ids('--task=question')).toEqual(short([recorded.question]));
    expect(await ids('--agent', 'question-offline')).toEqual(short([recorded.question]));
    expect(await ids('--agent', 'fix-offline', '--used')).toEqual(short([recorded.fixed]));
    const used = (await serverAnswer({ used: true })).interactions.map((interaction) => interaction.id);
    expect(used).toContain(recorded.documented);
    expect(await ids('--used')).toEqual(short(used));
    expect(await ids('--unused')).toEqual(short([recorded.reverted, recorded.question, recorded.fixed, recorded.discarded, recorded.documented].filter((id) => !used.includes(id))));
    expect(await ids('--unused')).toContain(recorded.discarded.slice(0, 8));
    expect(await ids('--text', 'FETCHCOUNT')).toEqual(short([recorded.question]));
    expect(await ids('--since', recorded.afterFirst)).toEqual(short([recorded.reverted, recorded.question, recorded.fixed, recorded.discarded]));
    expect(await ids('--until', recorded.afterFirst)).toEqual(short([recorded.documented]));
    expect(await ids('--since', '1h', '--task', 'document')).toEqual(short([recorded.reverted, recorded.documented]));
    expect(await ids('--session', recorded.session, '--task', 'document')).toEqual(short([recorded.reverted, recorded.documented]));

    const none = await traceCli(['--until', '2001-01-01'], root);
    expect(none).toMatchObject({ code: 0, stderr: '' });
    expect(none.stdout).toMatch(/^No interactions match \(5 recorded in .*\.assistant[/\\]trace\)\.\n$/);
    expect(listedIds((await traceCli(['--session', 'another-session'], root)).stdout)).toEqual([]);
  });

  it('pages with --limit and --offset, saying how many more there are', async () => {
    const first = await traceCli(['--limit', '2'], recorded.root);
    expect(listedIds(first.stdout)).toEqual(short([recorded.reverted, recorded.question]));
    expect(first.stdout).toMatch(/\n1-2 of 5; 3 more: --offset 2\n$/);
    const second = await traceCli(['--limit', '2', '--offset', '2'], recorded.root);
    expect(listedIds(second.stdout)).toEqual(short([recorded.fixed, recorded.discarded]));
    expect(second.stdout).toMatch(/\n3-4 of 5; 1 more: --offset 4\n$/);
    const last = await traceCli(['--limit', '2', '--offset', '4'], recorded.root);
    expect(listedIds(last.stdout)).toEqual(short([recorded.documented]));
    expect(last.stdout).toMatch(/\n5-5 of 5\n$/);
  });

  it('goes from code to interaction with --file path:line, from the project or a subfolder', async () => {
    const { root } = recorded;
    const config = path.join(root, 'src', 'config.ts');
    const main = path.join(root, 'src', 'main.ts');
    const at = async (cwd: string, ...args: string[]): Promise<string[]> => {
      const run = await traceCli(args, cwd);
      expect(run.code, run.stderr).toBe(0);
      return listedIds(run.stdout);
    };
    expect(await at(root, '--file', `src/config.ts:${lineHolding(config, 'export function parseConfig')}`)).toEqual(short([recorded.documented]));
    expect(await at(root, '--file', `src/config.ts:${lineHolding(config, '@throws')}`)).toEqual(short([recorded.documented]));
    expect(await at(root, '--file', `src/main.ts:${lineHolding(main, "from './math.js'")}`)).toEqual(short([recorded.fixed]));
    expect(await at(root, '--file', `src/main.ts:${lineHolding(main, 'export function shout')}`)).toEqual([]);
    // Run in a subfolder: the project is found upwards, and the path is the terminal's.
    expect(await at(path.join(root, 'src'), '--file', `main.ts:${lineHolding(main, "from './math.js'")}`)).toEqual(short([recorded.fixed]));
    // A whole file: every interaction whose code is in it; filters narrow it.
    expect(await at(root, '--file', 'src/main.ts')).toEqual(short([recorded.fixed]));
    expect(await at(root, '--file', 'src/config.ts', '--task', 'fix')).toEqual([]);
    expect(await at(root, '--file', 'src/config.ts')).toContain(recorded.documented.slice(0, 8));
  });

  it('prints the same records as assistant/trace with --json', async () => {
    const { root } = recorded;
    const config = path.join(root, 'src', 'config.ts');
    const line = lineHolding(config, 'export function parseConfig');
    const list = await traceCli(['--json', '--task', 'fix', '--limit', '5'], root);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual(await serverAnswer({ task: 'fix', limit: 5 }));
    const all = JSON.parse((await traceCli(['--json'], root)).stdout) as TraceResult;
    expect(all.total).toBe(5);
    expect(all).toEqual(await serverAnswer({ limit: 20 }));
    const atLine = await traceCli(['--json', '--file', `src/config.ts:${line}`], root);
    const position = { line: line - 1, character: 0 };
    expect(JSON.parse(atLine.stdout)).toEqual(await serverAnswer({ textDocument: { uri: pathToFileURL(config).href }, position }));
    const shown = await traceCli(['show', recorded.fixed.slice(0, 8), '--json'], root);
    expect(JSON.parse(shown.stdout)).toEqual(await serverAnswer({ id: recorded.fixed }));
  });

  it('shows one interaction in full with show ID: the request, the task, each answer, the diff and what happened after', async () => {
    const { root } = recorded;
    const fixed = await traceCli(['show', recorded.fixed.slice(0, 6)], root);
    expect(fixed.code, fixed.stderr).toBe(0);
    const text = fixed.stdout;
    expect(text).toContain(`Interaction ${recorded.fixed}\n`);
    expect(text).toMatch(/\n {2}Request {3}fix TS2304\n {2}Task {6}fix\n {2}Code {6}src\/main\.ts:\d+ \(TS2304\)\n/);
    expect(text).toMatch(/\n {2}Ranked {4}response 1 first: fix-offline passed the oracle/);
    expect(text).toMatch(/\n {2}Outcome {3}used, kept\n/);
    expect(text).toMatch(/\nResponse 1 of \d: fix-offline \(rule\), ok, used, \d+ ms\n {2}Answer {4}Add import from "\.\/math\.js"\n {2}Verdict {3}passed: /);
    expect(text).toMatch(/\n {2}Diff {6}src\/main\.ts:\d+\n {12}\+ import \{ add \} from '\.\/math\.js';\n/);
    expect(text).toMatch(/\n {2}Code now {2}src\/main\.ts:\d+, kept on disk /);
    expect(text).toMatch(/\n {2}After {5}applied\n {12}kept on disk /);
    expect(text).toMatch(/\nResponse 2 of \d: fix-offline \(rule\), ok, not used, /);

    const discarded = await traceCli(['show', recorded.discarded], root);
    expect(discarded.stdout).toMatch(/\n {2}Outcome {3}discarded\n/);
    expect(discarded.stdout).toMatch(/\n {2}Edit {6}src\/main\.ts:\d+\n {12}\+ import \{ add \} from '\.\/math\.js';\n {2}After {5}discarded: Discarded in the preview; nothing was changed\.\n/);

    const documented = await traceCli(['show', recorded.documented.slice(0, 8)], root);
    expect(documented.stdout).toMatch(/\n {2}After {5}applied\n {12}kept on disk .*\n {12}rated up\n {12}feedback: clear and true\n/);
    const reverted = await traceCli(['show', recorded.reverted.slice(0, 8)], root);
    expect(reverted.stdout).toMatch(/\n {2}Task {6}document, classified by intent-offline \(confidence \d\.\d\d\)\n/);
    expect(reverted.stdout).toMatch(/\n {12}reverted \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/);
    expect(reverted.stdout).toMatch(/\n {2}Code now {2}reverted \(was at src\/config\.ts:\d+\)/);
    const question = await traceCli(['show', recorded.question.slice(0, 8)], root);
    expect(question.stdout).toMatch(/\n {2}Answer {4}.*fetchCount/);
    expect(question.stdout).toMatch(/src\/count\.ts:2/);
  });

  it('says what is wrong, with exit code 1 or 2: no trace, a bad --since, an unknown id, an unknown option', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-trace-empty-'));
    try {
      const none = await traceCli([], empty);
      expect(none).toMatchObject({ code: 1, stdout: '' });
      expect(none.stderr).toBe(`assistant-ls trace: no interactions recorded for ${empty} yet; the trace is written by the language server at ${path.join(empty, '.assistant', 'trace')} (the setting trace.directory; --trace-dir names another)\n`);
      expect(fs.readdirSync(empty)).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    const { root } = recorded;
    const since = await traceCli(['--since', 'last tuesday'], root);
    expect(since).toMatchObject({ code: 2, stdout: '' });
    expect(since.stderr).toMatch(/^assistant-ls trace: --since takes a duration such as 7d, 24h or 30m, or an ISO date .*, not "last tuesday"\nRun assistant-ls trace --help/);
    expect((await traceCli(['--since', '2025-02-30'], root)).code).toBe(2);
    expect(await traceCli(['--task', 'fixes'], root)).toMatchObject({ code: 2, stderr: expect.stringMatching(/--task "fixes" is no task; the tasks are document, explain/) as unknown });
    expect(await traceCli(['--limit', '0'], root)).toMatchObject({ code: 2 });
    expect(await traceCli(['--colour'], root)).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown option --colour/) as unknown });
    expect(await traceCli(['show'], root)).toMatchObject({ code: 2, stderr: expect.stringMatching(/which interaction\?/) as unknown });
    expect(await traceCli(['show', 'x', '--task', 'fix'], root)).toMatchObject({ code: 2 });
    const unknown = await traceCli(['show', 'zzzz'], root);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(`assistant-ls trace: no interaction zzzz in the trace at ${path.join(root, '.assistant', 'trace')}\n`);
    expect(await traceCli(['--file', 'src/nothing.ts:3'], root)).toMatchObject({ code: 1, stderr: 'assistant-ls trace: cannot read src/nothing.ts\n' });
    expect(await traceCli(['--workspace', path.join(root, 'nowhere')], root)).toMatchObject({ code: 1 });

    const help = await traceCli(['--help'], root);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^assistant-ls trace: /);
    for (const option of ['--since', '--until', '--task', '--agent', '--used', '--unused', '--text', '--file', '--session', '--limit', '--offset', '--workspace', '--json']) expect(help.stdout).toContain(option);
  });
});

describe('assistant-ls trace on a workspace question asked from an open file', () => {
  it('places it at the code its answer cites, never at line 1 of the file it was asked in: the record, the list, show and code → interaction', async () => {
    const root = copyFixture('question');
    const retry = path.join(root, 'src', 'retry.ts');
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const main = await editor.open('src/main.ts');
    const cursor = editor.position(main.uri, 'const config');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'where is the retry delay computed?', textDocument: { uri: main.uri }, range: { start: cursor, end: cursor } });
    expect(answer.task).toBe('question');
    const response = answer.responses[0]!;
    const delayLine = lineHolding(retry, 'export function backoffDelay');
    expect(response.locations?.[0]).toMatchObject({ uri: pathToFileURL(retry).href, range: { start: { line: delayLine - 1 } }, label: 'function backoffDelay' });
    // The client showed the answer.
    expect(await editor.request('assistant/apply', { interactionId: answer.interactionId, responseId: response.id })).toEqual({ applied: false, outcome: 'shown' });

    // The record: asked in main.ts, about no code of it; about the places the answer cites.
    const record = (await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId })).interactions[0]!;
    expect(record.context).toEqual({ askedFrom: expect.objectContaining({ uri: main.uri, relativePath: 'src/main.ts' }) as unknown, version: main.version });
    expect(record.responses[0]!.locations).toEqual(response.locations);
    // Where a trace listing leads for it, decided by the server for every client: the first place the answer cites.
    const first = response.locations![0]!;
    expect(record.place).toEqual({ kind: 'cited', uri: first.uri, range: first.range, label: 'function backoffDelay', more: response.locations!.length - 1 });
    // Code → interaction: a question produced no code, at the file it was asked in or at the places it cites.
    const at = async (uri: string, position: { line: number; character: number }): Promise<string[]> => (await editor.request<TraceResult>('assistant/trace', { textDocument: { uri }, position })).interactions.map((interaction) => interaction.id);
    expect(await at(main.uri, { line: 0, character: 0 })).toEqual([]);
    expect(await at(main.uri, cursor)).toEqual([]);
    const retryDoc = await editor.open('src/retry.ts');
    expect(await at(retryDoc.uri, editor.position(retryDoc.uri, 'backoffDelay('))).toEqual([]);
    expect(await editor.shutdownAndExit()).toBe(0);

    const list = await traceCli([], root);
    expect(list.code, list.stderr).toBe(0);
    expect(lineOf(list.stdout, answer.interactionId)).toMatch(new RegExp(` question +question-offline +src/retry\\.ts:${delayLine} \\+${response.locations!.length - 1} +shown +where is the retry delay computed\\?$`));
    for (const file of ['src/main.ts:1', `src/main.ts:${cursor.line + 1}`, 'src/main.ts', `src/retry.ts:${delayLine}`]) {
      const run = await traceCli(['--file', file], root);
      expect(run.code, run.stderr).toBe(0);
      expect(listedIds(run.stdout), file).toEqual([]);
    }
    const shown = await traceCli(['show', answer.interactionId.slice(0, 8)], root);
    expect(shown.stdout).toMatch(/\n {2}Asked in {2}src\/main\.ts \(open in the editor; the request is about the workspace\)\n/);
    expect(shown.stdout).not.toMatch(/\n {2}Code {6}/);
    expect(shown.stdout).toContain(`\n  Cites     src/retry.ts:${delayLine} function backoffDelay\n`);
  });
});

/** Writes a session's log segment by hand: interactions whose ids the test chooses. */
function writeSegment(trace: string, sessionId: string, interactions: Partial<Interaction>[]): void {
  const folder = path.join(trace, sessionId);
  fs.mkdirSync(folder, { recursive: true });
  const session = { id: sessionId, startedAt: '2025-01-01T00:00:00.000Z', user: 'lead', role: 'developer', workspace: path.dirname(path.dirname(trace)), pid: 0 };
  const lines = [{ format: 2, session }, ...interactions.map((interaction) => ({ add: { sessionId, role: 'developer', user: 'lead', source: 'text', task: 'question', context: {}, responses: [], ...interaction } }))];
  fs.writeFileSync(path.join(folder, 'segment-000001.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

describe('assistant-ls trace on a trace it did not see written', () => {
  it('lists the candidates of an ambiguous prefix, and leaves a damaged segment and temp files where they are', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-trace-prefix-'));
    try {
      const trace = path.join(root, 'custom-trace');
      writeSegment(trace, 's1', [
        { id: 'abc-1', timestamp: '2025-03-01T10:00:00.000Z', text: 'first question' },
        { id: 'abc-2', timestamp: '2025-03-01T11:00:00.000Z', text: 'second question' },
        { id: 'abd-3', timestamp: '2025-03-01T12:00:00.000Z', text: 'third question' },
      ]);
      fs.mkdirSync(path.join(trace, 's2'));
      fs.writeFileSync(path.join(trace, 's2', 'segment-000001.jsonl'), '{"format":2,"session":{"id":"s2"}}\nnot json\n');
      const stale = path.join(trace, 's2', 'segment-000001.jsonl.123.abc.tmp');
      fs.writeFileSync(stale, 'left by a crash');
      fs.utimesSync(stale, new Date(2020, 0, 1), new Date(2020, 0, 1));
      const before = treeHash(root);

      const ambiguous = await traceCli(['show', 'abc', '--trace-dir', 'custom-trace'], root);
      expect(ambiguous.code).toBe(1);
      expect(ambiguous.stderr).toMatch(/^assistant-ls trace: Ignoring damaged file .*segment-000001\.jsonl: invalid JSON/);
      expect(ambiguous.stderr).toContain('assistant-ls trace: abc is the start of several interactions; give more of the id:\n');
      expect(ambiguous.stderr).toMatch(/\nID +WHEN .*\nabc-2 .* second question\nabc-1 .* first question\n$/);
      const one = await traceCli(['show', 'abd', '--trace-dir', 'custom-trace'], root);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toMatch(/^Interaction abd-3\n {2}When {6}2025-03-01 12:00:00, session s1, lead \(developer\), from a request in words\n {2}Request {3}third question\n/);
      expect(one.stdout).toContain('\nNo agent answered.\n');
      const list = await traceCli(['--trace-dir', 'custom-trace', '--since', '2025-03-01T10:30Z'], root);
      expect(list.stdout).toMatch(/\n2 interactions\n$/);
      expect(list.stdout).toMatch(/\nabd-3 +2025-03-01 12:00 +question +no agent +- +no answer +third question\n/);
      expect(treeHash(root)).toBe(before);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('assistant-ls trace beside a running server', () => {
  it('sees the records the server has written, each as soon as its request is answered', async () => {
    const root = copyFixture('basic');
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    const first = await askAndApply(editor, doc.uri, 'document parseConfig');
    let run = await traceCli([], root);
    expect(run.code, run.stderr).toBe(0);
    expect(listedIds(run.stdout)).toEqual(short([first.interactionId]));
    expect(lineOf(run.stdout, first.interactionId)).toMatch(/ document +doc-offline +src\/config\.ts:\d+ +used +document parseConfig$/);

    const second = await editor.request<AskResult>('assistant/ask', { text: 'where is parseConfig used?' });
    run = await traceCli(['--json'], root);
    const listed = JSON.parse(run.stdout) as TraceResult;
    expect(listed.interactions.map((interaction) => interaction.id)).toEqual([second.interactionId, first.interactionId]);
    expect(listed).toEqual(await editor.request<TraceResult>('assistant/trace', { limit: 20 }));
    expect(await editor.shutdownAndExit()).toBe(0);
  });

  it('lists a run the user cancelled as cancelled, though the offline agent had answered by then', async () => {
    const model = await startScriptedModel();
    try {
      // The model never answers: the user gives up on it while the offline explanation is already there.
      model.setDefault({ kind: 'stall', afterHeaders: true });
      const root = copyFixture('basic');
      const { editor } = await TestEditor.start({ root, env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-explain' } });
      editors.push(editor);
      const doc = await editor.open('src/config.ts');
      const at = editor.position(doc.uri, 'parseConfig(text');
      const source = new (await import('vscode-jsonrpc/node')).CancellationTokenSource();
      const pending = editor.connection.sendRequest('assistant/ask', { text: 'explain this function', textDocument: { uri: doc.uri }, range: { start: at, end: at } }, source.token);
      await model.waitForRequests(1);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      source.cancel();
      await expect(pending).rejects.toMatchObject({ code: -32800 });
      expect(await editor.shutdownAndExit()).toBe(0);

      const listed = JSON.parse((await traceCli(['--json'], root)).stdout) as TraceResult;
      const cancelled = listed.interactions.find((interaction) => interaction.text === 'explain this function')!;
      expect(cancelled.responses.map((response) => response.status).sort()).toEqual(['cancelled', 'ok']);
      const run = await traceCli([], root);
      expect(run.code, run.stderr).toBe(0);
      // As :AssistantTrace says it in Neovim.
      expect(lineOf(run.stdout, cancelled.id)).toMatch(/ explain +[^ ]+ +src\/config\.ts:\d+ +cancelled +explain this function$/);
      expect((await traceCli(['show', cancelled.id.slice(0, 8)], root)).stdout).toMatch(/\n {2}Outcome {3}cancelled\n/);
      fs.rmSync(root, { recursive: true, force: true });
    } finally {
      await model.close();
    }
  });
});
