// End-to-end Generate and Optimize over --stdio with the scripted endpoint: offers only where a model serves them, type errors and broken tests rejected and retried, only the target replaced, agents routed per task, and the offer-all and best-passing strategies.
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, linkModules } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const roots: string[] = [];
let model: ScriptedModel;

beforeEach(async () => {
  model = await startScriptedModel();
});

afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model.close();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** The fixture with the repository's node_modules linked in, so vitest (and its types) resolve when tests run. */
function workspace(): string {
  const root = copyFixture('generate');
  roots.push(root);
  linkModules(root);
  return root;
}

interface StartOptions {
  /** Model agents from settings instead of the environment's. */
  agents?: object[];
  runTests?: boolean;
  strategy?: 'offer-all' | 'best-passing';
  withModel?: boolean;
}

async function start(root: string, options: StartOptions = {}): Promise<TestEditor> {
  const useEnv = options.withModel !== false && !options.agents;
  const { editor } = await TestEditor.start({
    root,
    env: useEnv ? { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' } : {},
    initializationOptions: {
      assistant: {
        ...(options.agents ? { agents: options.agents, useEnvironment: false } : {}),
        orchestrator: { agentTimeoutMs: 90_000, maxAttempts: 3, ...(options.strategy ? { strategy: options.strategy } : {}) },
        oracle: { runTests: options.runTests ?? false, testTimeoutMs: 60_000 },
        annotations: { enabled: false },
      },
    },
  });
  editors.push(editor);
  return editor;
}

async function actionsAt(editor: TestEditor, uri: string, needle: string): Promise<CodeAction[]> {
  const position = editor.position(uri, needle);
  return editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
}

async function action(editor: TestEditor, uri: string, needle: string, title: string): Promise<CodeAction> {
  const found = (await actionsAt(editor, uri, needle)).find((a) => a.title === title);
  if (!found) throw new Error(`no action "${title}" at ${needle}: ${(await actionsAt(editor, uri, needle)).map((a) => a.title).join(', ')}`);
  return found;
}

function run(editor: TestEditor, codeAction: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: codeAction.command!.command, arguments: codeAction.command!.arguments });
}

const fence = (code: string): string => `Here it is.\n\n\`\`\`ts\n${code}\n\`\`\`\n`;
const lastUserMessage = (request: RecordedRequest): string => {
  const messages = request.body.messages as { role: string; content: string }[];
  return messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n---\n');
};

const MEDIAN_WRONG = 'export function median(values: number[]): number {\n  return values.length > 0 ? "middle" : NaN;\n}';
const MEDIAN_RIGHT = 'export function median(values: number[]): number {\n  const sorted = [...values].sort((a, b) => a - b);\n  const mid = Math.floor(sorted.length / 2);\n  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;\n}';
const SPREAD_BROKEN = 'export function spread(values: number[]): number {\n  return Math.max(...values) + Math.min(...values);\n}';
const SPREAD_RIGHT = 'export function spread(values: number[]): number {\n  let lo = Infinity;\n  let hi = -Infinity;\n  for (const value of values) {\n    if (value < lo) lo = value;\n    if (value > hi) hi = value;\n  }\n  return hi - lo;\n}';

describe('Generate and Optimize', { timeout: 180_000 }, () => {
  it('are not offered without a model agent, since no offline agent writes code', async () => {
    const editor = await start(workspace(), { withModel: false });
    const doc = await editor.open('src/stats.ts');
    const titles = [...(await actionsAt(editor, doc.uri, 'median')), ...(await actionsAt(editor, doc.uri, 'spread')), ...(await actionsAt(editor, doc.uri, 'TODO'))].map((a) => a.title);
    expect(titles.some((t) => /Write the|Optimize/.test(t))).toBe(false);
    expect(titles).toContain('Assistant: Complete the documentation of function median');
  });

  it('writes an empty body: a proposal with a new type error is rejected and retried with the diagnostics', async () => {
    const editor = await start(workspace());
    const doc = await editor.open('src/stats.ts');
    const before = doc.text;
    const titles = (await actionsAt(editor, doc.uri, 'median')).map((a) => a.title);
    expect(titles).toContain('Assistant: Write the body of function median');
    expect(titles).not.toContain('Assistant: Optimize function median');

    model.enqueue({ kind: 'text', content: fence(MEDIAN_WRONG) }, { kind: 'text', content: fence(MEDIAN_RIGHT) });
    const result = await run(editor, await action(editor, doc.uri, 'median', 'Assistant: Write the body of function median'));
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });

    const requests = await model.waitForRequests(2);
    expect(lastUserMessage(requests[0]!)).toContain('Write the body of the function `median` in src/stats.ts');
    expect(lastUserMessage(requests[1]!)).toMatch(/That was rejected:[\s\S]*TS2322/);
    const after = editor.buffer(doc.uri).text;
    expect(after).toBe(before.replace('export function median(values: number[]): number {}', MEDIAN_RIGHT));

    const trace = await editor.request<TraceResult>('assistant/trace', { interactionId: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: true, attempts: 2, verdict: { passed: true } });
  });

  it('writes the code a TODO asks for in place of the comment', async () => {
    const editor = await start(workspace());
    const doc = await editor.open('src/stats.ts');
    model.enqueue({ kind: 'text', content: fence('return `${values.length} values from ${Math.min(...values)} to ${Math.max(...values)}`;') });
    const result = await run(editor, await action(editor, doc.uri, 'TODO', 'Assistant: Write the code for "TODO: return "n values from lo to hi""'));
    expect(result).toMatchObject({ applied: true });
    const request = (await model.waitForRequests(1))[0]!;
    expect(lastUserMessage(request)).toContain('Replace this comment in src/stats.ts (line 20)');
    expect(editor.buffer(doc.uri).text).toContain("export function describeValues(values: number[]): string {\n  return `${values.length} values from ${Math.min(...values)} to ${Math.max(...values)}`;\n  return '';\n}");
  });

  it('optimizes a function, rejecting a rewrite that breaks its tests (oracle.runTests) and keeping only the function changed', async () => {
    const editor = await start(workspace(), { runTests: true });
    const doc = await editor.open('src/stats.ts');
    const before = doc.text;
    const spreadStart = before.indexOf('export function spread');
    const spreadEnd = before.indexOf('\n}\n', spreadStart) + 2;

    model.enqueue({ kind: 'text', content: fence(SPREAD_BROKEN) }, { kind: 'text', content: fence(SPREAD_RIGHT) });
    const result = await run(editor, await action(editor, doc.uri, 'spread', 'Assistant: Optimize function spread'));
    expect(result).toMatchObject({ applied: true });

    const requests = await model.waitForRequests(2);
    expect(lastUserMessage(requests[0]!)).toContain('Goal: Improve it where it clearly needs it');
    expect(lastUserMessage(requests[1]!)).toContain('src/stats.test.ts passed before the change and fails after it');
    expect(editor.buffer(doc.uri).text).toBe(before.slice(0, spreadStart) + SPREAD_RIGHT + before.slice(spreadEnd));

    const trace = await editor.request<TraceResult>('assistant/trace', { interactionId: result.interactionId });
    const response = trace.interactions[0]!.responses[0]!;
    expect(response).toMatchObject({ used: true, attempts: 2, verdict: { passed: true, testsPassed: true } });
    expect(response.verdict!.summary).toMatch(/src\/stats\.test\.ts passes/);
  });

  it('takes the goal from free text: "make spread faster" asks for efficiency and returns the candidate unapplied', async () => {
    const editor = await start(workspace());
    const doc = await editor.open('src/stats.ts');
    // The model classifies first (optimize is the sixth task of the numbered list), then rewrites.
    model.enqueue({ kind: 'text', content: '6' }, { kind: 'text', content: fence(SPREAD_RIGHT) });
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'make spread faster', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('optimize');
    expect(answer.responses[0]).toMatchObject({ status: 'ok', edit: expect.any(Object) });
    expect(lastUserMessage((await model.waitForRequests(2))[1]!)).toContain('Goal: Make it faster and lighter on memory');
    expect(editor.applied).toHaveLength(0);
  });

  it('routes agents per task and, with best-passing, takes the best answer without asking; offer-all asks', async () => {
    model.setDefault({ kind: 'dynamic', respond: (request) => ({ kind: 'text', content: fence(request.body.model === 'fast-model' ? SPREAD_RIGHT : SPREAD_RIGHT.replace('const value of values', 'const v of values').replace(/value([ ;])/g, 'v$1')) }) });
    const agents = [
      { name: 'fast', baseURL: model.baseURL, apiKey: 'k', model: 'fast-model', tasks: ['optimize'] },
      { name: 'strong', baseURL: model.baseURL, apiKey: 'k', model: 'strong-model', tasks: ['optimize', 'fix'] },
    ];

    const best = await start(workspace(), { agents, strategy: 'best-passing' });
    const doc = await best.open('src/stats.ts');
    // No agent serves generate under these settings: the empty body gets no offer.
    expect((await actionsAt(best, doc.uri, 'median')).map((a) => a.title)).not.toContain('Assistant: Write the body of function median');
    const taken = await run(best, await action(best, doc.uri, 'spread', 'Assistant: Optimize function spread'));
    expect(taken).toMatchObject({ applied: true });
    expect(best.questions).toHaveLength(0);
    const trace = await best.request<TraceResult>('assistant/trace', { interactionId: taken.interactionId });
    expect(trace.interactions[0]!.responses.map((r) => [r.agent.name, r.used])).toEqual([
      ['fast', true],
      ['strong', false],
    ]);

    const offered = await start(workspace(), { agents, strategy: 'offer-all' });
    const doc2 = await offered.open('src/stats.ts');
    offered.onQuestion = (params) => params.actions!.find((a) => a.title === 'Use strong') ?? null;
    const chosen = await run(offered, await action(offered, doc2.uri, 'spread', 'Assistant: Optimize function spread'));
    expect(chosen).toMatchObject({ applied: true });
    expect(offered.questions[0]!.actions!.map((a) => a.title)).toEqual(['Use fast', 'Use strong', 'Discard']);
    expect(offered.buffer(doc2.uri).text).toContain('for (const v of values)');
  });

  it('refuses an unknown optimization goal before asking any model', async () => {
    const editor = await start(workspace());
    const doc = await editor.open('src/stats.ts');
    const found = await action(editor, doc.uri, 'spread', 'Assistant: Optimize function spread');
    const [args] = found.command!.arguments as [{ parameters?: Record<string, string> }];
    const error = await editor
      .request('workspace/executeCommand', { command: found.command!.command, arguments: [{ ...args, parameters: { ...args.parameters, goal: 'speed' } }] })
      .then(() => undefined, (e: unknown) => e as { code: number; message: string });
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('parameters.goal must be one of general, efficiency, readability, complexity') });
    expect(model.requests).toHaveLength(0);
  });
});
