// Unit tests of the pipelines against the scripted endpoint through the real model client: review rejection and a context replay, the CALL text protocol, an exhausted self-fix budget, cancellation, and step state with replay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PipelineState } from '../../protocol/src/index.js';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';
import { ModelClient } from '../../server/src/agents/modelClient.js';
import type { ModelSession } from '../../server/src/agents/modelTask.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import { PipelineFailure } from '../../server/src/agents/orchestrator.js';
import { runIssuePipeline } from '../../server/src/pipeline/issuePipeline.js';
import { callsForErrors, classNameIn, fileNameFor, habitFileName } from '../../server/src/pipeline/classPipeline.js';
import { PipelineRun, findStep } from '../../server/src/pipeline/pipelineRun.js';
import { applyModelPatch, cleanPath } from '../../server/src/pipeline/modelPatch.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import type { DocumentSnapshot, DocumentSource } from '../../server/src/workspace/documentSnapshot.js';
import { languageIdForPath, uriToPath, workspaceSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

/** A request's workspace and the project of its root tsconfig. */
function inWorkspace(root: string): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = new Workspace(root);
  return { workspace, project: workspace.projects.workspace };
}

let model: ScriptedModel;
const roots: string[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** The disk as the documents, the way a server with no open buffers sees the workspace. */
const disk: DocumentSource = {
  get(uri: string): DocumentSnapshot | undefined {
    const file = uriToPath(uri);
    if (!file || !fs.existsSync(file)) return undefined;
    return { uri, fsPath: file, languageId: languageIdForPath(file), version: null, text: fs.readFileSync(file, 'utf8') };
  },
  openUris: () => [],
};

function session(toolProtocol: 'functions' | 'text' = 'functions'): ModelSession {
  // One retry, as agents have by default: the scripted server closes idle connections after a second, and a type check can take longer.
  const client = new ModelClient({ apiKey: 'k', baseURL: model.baseURL, model: 'scripted', timeoutMs: 10_000, idleTimeoutMs: 5_000, maxRetries: 1, stream: true });
  return { chat: (messages, signal, tools) => client.complete(messages, signal, tools ? { tools } : {}), toolProtocol, model: 'scripted' };
}

function request(root: string, text: string, overrides: Partial<AgentRequest> = {}): AgentRequest {
  return {
    task: 'issue',
    interactionId: 'i-1',
    text,
    document: workspaceSnapshot(root),
    target: { name: 'the workspace', start: 0, end: 0 },
    parameters: {},
    ...inWorkspace(root),
    history: [],
    documents: disk,
    pipeline: { settings: { ...DEFAULT_SETTINGS.pipelines, maxSelfFixes: 1, toolRounds: 3 }, oracle: DEFAULT_SETTINGS.oracle },
    ...overrides,
  };
}

function workspace(): string {
  const root = copyFixture('pipelines');
  roots.push(root);
  linkModules(root);
  return root;
}

const diff = (body: string): string => `\`\`\`diff\n--- a/src/pricing.ts\n+++ b/src/pricing.ts\n@@ -11,3 +11,3 @@\n export function lineTotal(item: LineItem): number {\n-  return item.price;\n+  ${body}\n }\n\`\`\``;
const PRICING = JSON.stringify({ locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'use the quantity' }] });

describe('issue pipeline', { timeout: 60_000 }, () => {
  it('goes back to the context step when self-fix blames it after the reviewer rejects a patch', async () => {
    const root = workspace();
    model.enqueue(
      { kind: 'text', content: JSON.stringify({ locations: [{ file: 'src/cart.ts', symbol: 'Cart.total', intent: 'multiply there' }] }) },
      { kind: 'text', content: '```diff\n--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -19,3 +19,3 @@\n   total(): number {\n-    return roundCents(this.items.reduce((sum, item) => sum + lineTotal(item), 0));\n+    return roundCents(this.items.reduce((sum, item) => sum + lineTotal(item) * item.quantity, 0));\n   }\n```' },
      { kind: 'text', content: '{"verdict": "reject", "explanation": "lineTotal itself is wrong; other callers still get the unit price."}' },
      { kind: 'text', content: '{"step": "context", "feedback": "The bug is in lineTotal in src/pricing.ts."}' },
      { kind: 'text', content: PRICING },
      { kind: 'text', content: diff('return item.price * item.quantity;') },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "Fixed at the source."}' },
    );
    const answer = await runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session() }, new AbortController().signal);
    expect(answer.verdict).toMatchObject({ passed: true });
    expect(answer.pipeline!.steps.map((s) => `${s.name}:${s.status}`)).toEqual(['context:ok', 'patch:ok', 'review:failed', 'self-fix:ok', 'context:ok', 'patch:ok', 'review:ok']);
    expect(answer.pipeline!.steps[2]!.error).toContain('lineTotal itself is wrong');
    expect(answer.pipeline!.steps[4]!.feedback?.[0]).toContain('The bug is in lineTotal');
    expect(model.requests[4]!.body.messages.at(-1).content).toContain('The bug is in lineTotal');
    expect(answer.proposal!.documents.map((d) => path.basename(uriToPath(d.uri)!))).toEqual(['pricing.ts']);
  });

  it('reads CALL lines when the endpoint has no function calling, and answers malformed ones with what is wrong', async () => {
    const root = workspace();
    model.enqueue(
      { kind: 'text', content: 'CALL get_method_body {"name": "lineTotal"}\nCALL search_code {"code": oops}\nCALL launch_rockets {}' },
      { kind: 'text', content: PRICING },
      { kind: 'text', content: diff('return item.price * item.quantity;') },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "ok"}' },
    );
    const answer = await runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session('text') }, new AbortController().signal);
    expect(answer.verdict?.passed).toBe(true);
    expect(model.requests[0]!.body.tools).toBeUndefined();
    expect(model.requests[0]!.body.messages[0].content).toContain('CALL <tool> <JSON arguments>');
    const results = model.requests[1]!.body.messages.at(-1).content as string;
    expect(results).toContain('return item.price;');
    expect(results).toMatch(/search_code are not valid JSON/);
    expect(results).toMatch(/no tool "launch_rockets"/);
  });

  it('stops after the self-fix budget with a failing verdict that keeps every step', async () => {
    const root = workspace();
    const broken = diff('return `${item.price}`;');
    model.enqueue(
      { kind: 'text', content: PRICING },
      { kind: 'text', content: broken },
      { kind: 'text', content: '{"step": "patch", "feedback": "return a number"}' },
      { kind: 'text', content: broken },
    );
    const answer = await runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session() }, new AbortController().signal);
    expect(answer.verdict).toMatchObject({ passed: false });
    expect(answer.verdict!.details!.join('\n')).toMatch(/TS2322/);
    expect(answer.pipeline!.steps.map((s) => s.name)).toEqual(['context', 'patch', 'review', 'self-fix', 'patch', 'review']);
    expect(model.requests).toHaveLength(4);
  });

  it('stops at once when cancelled, carrying the steps that ran', async () => {
    const root = workspace();
    model.enqueue({ kind: 'text', content: PRICING }, { kind: 'stall' });
    const controller = new AbortController();
    const running = runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session() }, controller.signal);
    await model.waitForRequests(2);
    controller.abort(new Error('cancelled by the user'));
    await expect(running).rejects.toThrow('cancelled by the user');
    const closedAt = await model.waitForClose(1);
    expect(closedAt).toBeGreaterThan(0);
  });

  it('takes the places from a JavaScript-style object, or from a diff written where they were asked for', async () => {
    const jsStyle = "Here you go:\n```js\n{\n  locations: [\n    { file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'use the quantity', },\n  ],\n}\n```";
    const diffInstead = `I would change this:\n${diff('return item.price * item.quantity;')}`;
    for (const [first, again] of [
      [jsStyle, undefined],
      [diffInstead, 'Sorry, I cannot give JSON.'],
    ] as const) {
      const root = workspace();
      model.reset();
      model.enqueue({ kind: 'text', content: first }, ...(again ? [{ kind: 'text' as const, content: again }] : []), { kind: 'text', content: diff('return item.price * item.quantity;') }, { kind: 'text', content: '{"verdict": "approve", "explanation": "ok"}' });
      const answer = await runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session() }, new AbortController().signal);
      expect(answer.verdict?.passed).toBe(true);
      const context = answer.pipeline!.steps[0]!;
      expect(context.status).toBe('ok');
      expect(context.output).toMatchObject({ locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal' }] });
    }
  });

  it('fails with a PipelineFailure holding the state when the model names no usable location', async () => {
    const root = workspace();
    model.enqueue({ kind: 'text', content: '{"locations": [{"file": "../outside.ts", "intent": "x"}, {"file": ".env", "intent": "y"}]}' });
    const failure = await runIssuePipeline({ request: request(root, 'Totals ignore quantities.'), session: session() }, new AbortController().signal).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PipelineFailure);
    expect((failure as PipelineFailure).message).toMatch(/no usable location.*outside the workspace/);
    expect((failure as PipelineFailure).pipeline.steps[0]).toMatchObject({ name: 'context', status: 'failed' });
  });
});

describe('pipeline runs', () => {
  const signal = new AbortController().signal;

  it('replays: earlier steps reused, the replay step with feedback and history, later steps afresh', async () => {
    const ran: string[] = [];
    const program = async (run: PipelineRun): Promise<string> => {
      const a = await run.step('a', {}, async (c) => (ran.push('a'), c.record({ text: 'first a' }), { output: 'A', summary: 'a' }), signal);
      const b = await run.step('b', { a: a.output }, async (c) => (ran.push(`b:${c.feedback.join('|')}:${c.history.map((h) => h.text).join('|')}`), c.record({ text: `b from ${a.output}` }), { output: `B${c.feedback.length}`, summary: 'b' }), signal);
      const c = await run.step('c', {}, async () => (ran.push('c'), { output: `${b.output}C`, summary: 'c' }), signal);
      return c.output;
    };
    const first = new PipelineRun('demo', undefined);
    expect(await program(first)).toBe('B0C');
    const state: PipelineState = first.state();
    expect(state.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    ran.length = 0;
    const events: string[] = [];
    const again = new PipelineRun('demo', { interactionId: 'i', responseId: 'r', state, from: 1, feedback: 'more B' }, (s) => events.push(`${s.name}:${s.status}`));
    expect(await program(again)).toBe('B1C');
    expect(ran).toEqual(['b:more B:b from A', 'c']);
    expect(again.state().steps.map((s) => s.status)).toEqual(['reused', 'ok', 'ok']);
    expect(again.state().replayOf).toEqual({ interactionId: 'i', responseId: 'r', fromStep: 1, feedback: 'more B' });
    expect(events).toEqual(['a:reused', 'b:running', 'b:ok', 'c:running', 'c:ok']);
  });

  it('finds steps by index, id, name (the last one) and model response id', async () => {
    const run = new PipelineRun('demo', undefined);
    let responseId = '';
    await run.step('patch', {}, async () => ({ output: 1, summary: '' }), signal);
    await run.step('review', {}, async () => ({ output: 2, summary: '' }), signal);
    await run.step('patch', {}, async (c) => ((responseId = c.record({ text: 'x' })), { output: 3, summary: '' }), signal);
    const state = run.state();
    expect(findStep(state, { step: 'patch' })?.index).toBe(2);
    expect(findStep(state, { step: 1 })?.name).toBe('review');
    expect(findStep(state, { step: '0' })?.index).toBe(0);
    expect(findStep(state, { step: state.steps[1]!.id })?.index).toBe(1);
    expect(findStep(state, { modelResponseId: responseId })?.index).toBe(2);
    expect(findStep(state, { step: 'deploy' })).toBeUndefined();
  });

  it('cuts long model answers and tool results in the recorded state', async () => {
    const run = new PipelineRun('demo', undefined);
    await run.step('a', {}, async (c) => (c.record({ text: 'x'.repeat(50_000), toolCalls: [{ name: 't', arguments: '{}', result: 'y'.repeat(10_000) }] }), { output: 0, summary: '' }), signal);
    const response = run.state().steps[0]!.responses[0]!;
    expect(response.text.length).toBeLessThan(13_000);
    expect(response.toolCalls![0]!.result.length).toBeLessThan(2_000);
  });
});

describe('model patches', () => {
  const files: Record<string, string> = { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n' };
  const read = (p: string): string | undefined => files[p];

  it('applies SEARCH/REPLACE blocks and new files, and names what does not match', () => {
    const blocks = 'src/a.ts\n<<<<<<< SEARCH\nexport const b = 2;\n=======\nexport const b = 3;\n>>>>>>> REPLACE\n\nsrc/new.ts\n<<<<<<< SEARCH\n=======\nexport const c = 4;\n>>>>>>> REPLACE\n';
    const applied = applyModelPatch(blocks, read);
    expect(applied).toEqual({ ok: true, changes: [{ path: 'src/a.ts', newText: 'export const a = 1;\nexport const b = 3;\n', created: false }, { path: 'src/new.ts', newText: 'export const c = 4;\n', created: true }] });
    expect(applyModelPatch('src/a.ts\n<<<<<<< SEARCH\nconst z = 9;\n=======\nx\n>>>>>>> REPLACE', read)).toMatchObject({ ok: false, reason: expect.stringMatching(/not found.*const z = 9/) });
    expect(applyModelPatch('Just change b.', read)).toMatchObject({ ok: false, reason: expect.stringMatching(/no patch/) });
    expect(applyModelPatch('../x.ts\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE', read)).toMatchObject({ ok: false, reason: expect.stringMatching(/inside the workspace/) });
  });

  it('cleans the paths models write', () => {
    expect(cleanPath('`b/src/a.ts`:')).toBe('src/a.ts');
    expect(cleanPath('*** ./src/a.ts')).toBe('src/a.ts');
    expect(cleanPath('/etc/passwd')).toBeUndefined();
    expect(cleanPath('src/../../x.ts')).toBeUndefined();
  });
});

describe('class pipeline helpers', () => {
  it('reads the class name from the request', () => {
    expect(classNameIn('Create a class named RateLimiter that …')).toBe('RateLimiter');
    expect(classNameIn('write a TokenBucket class for the API')).toBe('TokenBucket');
    expect(classNameIn('make something that limits rates')).toBeUndefined();
  });

  it('names the file by the folder’s habit', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'names-'));
    roots.push(dir);
    fs.writeFileSync(path.join(dir, 'rate-limit.ts'), '');
    fs.writeFileSync(path.join(dir, 'http-client.ts'), '');
    expect(fileNameFor('TokenBucket', dir)).toBe('token-bucket.ts');
    const pascal = fs.mkdtempSync(path.join(os.tmpdir(), 'names-'));
    roots.push(pascal);
    fs.writeFileSync(path.join(pascal, 'HttpClient.ts'), '');
    expect(fileNameFor('TokenBucket', pascal)).toBe('TokenBucket.ts');
    expect(fileNameFor('TokenBucket', path.join(pascal, 'missing'))).toBe('tokenBucket.ts');
    // Never an existing file's name, in any case: the class must not replace other code.
    fs.writeFileSync(path.join(pascal, 'tokenbucket.ts'), 'export const other = 1;\n');
    fs.writeFileSync(path.join(pascal, 'TokenBucket2.ts'), '');
    expect(habitFileName('TokenBucket', pascal)).toBe('TokenBucket.ts');
    expect(fileNameFor('TokenBucket', pascal)).toBe('TokenBucket3.ts');
  });

  it('chooses tool calls from type errors, at most three', () => {
    const calls = callsForErrors([
      "src/x.ts:3:5 TS2304 Cannot find name 'Ledger'.",
      "src/x.ts:4:5 TS2339 Property 'balance' does not exist on type 'Account'.",
      "src/x.ts:5:5 TS2420 Class 'X' incorrectly implements interface 'Store'.",
      "src/x.ts:6:5 TS2304 Cannot find name 'Other'.",
    ]);
    expect(calls).toEqual([
      { name: 'get_signature', arguments: '{"name":"Ledger"}' },
      { name: 'get_class_info', arguments: '{"name":"Account"}' },
      { name: 'get_class_info', arguments: '{"name":"Store"}' },
    ]);
  });
});
