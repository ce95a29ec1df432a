// End-to-end issue and class pipelines over --stdio with the scripted endpoint: tool calls (a malformed one included), an unparsable patch retried, a type error self-fixed, feedback replayed from the patch step, and a class written through tool calls until it type-checks.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApplyResult, FeedbackResult, AskResult, PipelineStepParams, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, handleFiles } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';
import type { RecordedRequest } from '../support/scriptedModel.js';

const suite = scriptedSuite();

async function start(): Promise<{ editor: TestEditor; root: string; steps: PipelineStepParams[] }> {
  const root = suite.workspace('pipelines');
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-engineer' },
    capabilities: { window: { workDoneProgress: true, showMessage: {} }, workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } }, experimental: { assistant: { pipelineSteps: true } } },
    initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 120_000 }, pipelines: { toolRounds: 4, maxSelfFixes: 2, patchAttempts: 3, classRounds: 3 }, annotations: { enabled: false } } },
  });
  suite.track(editor);
  handleFiles(editor);
  const steps: PipelineStepParams[] = [];
  editor.connection.onNotification('assistant/pipelineStep', (params: PipelineStepParams) => void steps.push(params));
  return { editor, root, steps };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the recorded bodies are the raw wire format.
const messagesOf = (request: RecordedRequest): any[] => request.body.messages;
const userText = (request: RecordedRequest): string => messagesOf(request).filter((m) => m.role === 'user').map((m) => m.content).join('\n---\n');

const PATCH_BROKEN = `The fix:

\`\`\`diff
--- a/src/pricing.ts
+++ b/src/pricing.ts
@@ -10,4 +10,4 @@
 /** The price of one line. */
 export function lineTotal(item: LineItem): number {
-  return item.price;
+  return item.price * item.quantity;
 }
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -18,5 +18,10 @@
   /** What the whole cart costs. */
   total(): number {
     return roundCents(this.items.reduce((sum, item) => sum + lineTotal(item), 0));
   }
+
+  /** How many items the cart holds, all lines together. */
+  count(): number {
+    return this.items.map((item) => item.quantity).join('+');
+  }
 }
\`\`\`
`;

const patchRight = (countBody: string): string => `\`\`\`diff
--- a/src/pricing.ts
+++ b/src/pricing.ts
@@ -11,3 +11,3 @@
 export function lineTotal(item: LineItem): number {
-  return item.price;
+  return item.price * item.quantity;
 }
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -19,4 +19,9 @@
   total(): number {
     return roundCents(this.items.reduce((sum, item) => sum + lineTotal(item), 0));
   }
+
+  /** How many items the cart holds, all lines together. */
+  count(): number {
+    ${countBody}
+  }
 }
\`\`\`
`;

const COUNT_SUM = 'return this.items.reduce((n, item) => n + item.quantity, 0);';
const COUNT_NONZERO = 'return this.items.filter((item) => item.quantity > 0).reduce((n, item) => n + item.quantity, 0);';
const LOCATIONS = JSON.stringify({
  locations: [
    { file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'multiply the unit price by the quantity' },
    { file: 'src/cart.ts', symbol: 'Cart', intent: 'add count(), the number of items over all lines' },
  ],
});
const ISSUE = 'Cart totals ignore quantities (two pens cost as much as one), and there is no way to ask a cart how many items it holds.';

describe('issue pipeline', { timeout: 240_000 }, () => {
  it('ranks relevant code by embeddings too when the agent has an embedding model', async () => {
    const root = suite.workspace('pipelines');
    const { editor } = await TestEditor.start({
      root,
      env: {},
      initializationOptions: { assistant: { useEnvironment: false, agents: [{ name: 'engineer', baseURL: suite.model.baseURL, apiKey: 'k', model: 'scripted-engineer', embeddingModel: 'scripted-embedding', tasks: ['issue'] }], annotations: { enabled: false } } },
    });
    suite.track(editor);
    handleFiles(editor);
    suite.model.enqueue(
      { kind: 'toolCalls', calls: [{ name: 'get_relevant_code', arguments: { query: 'price of a line times its quantity' } }] },
      { kind: 'text', content: LOCATIONS },
      { kind: 'text', content: patchRight(COUNT_SUM) },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "ok"}' },
    );
    const answer = await editor.request<AskResult>('assistant/ask', { text: ISSUE, task: 'issue' });
    expect(answer.responses[0]?.status).toBe('ok');
    const embeddings = suite.model.requests.filter((r) => r.path.endsWith('/embeddings'));
    expect(embeddings.length).toBeGreaterThanOrEqual(2);
    expect(embeddings[0]!.body.model).toBe('scripted-embedding');
    const toolResult = (suite.model.requests.find((r) => r.path.endsWith('/chat/completions') && r.body.messages.some((m: { role: string }) => m.role === 'tool'))!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!.content;
    expect(toolResult).toContain('lineTotal');
    expect(toolResult).not.toMatch(/embeddings unavailable/);
  });

  it('explores with tools, retries an unparsable patch, self-fixes a type error, and ends with a passing patch over two files', async () => {
    const { editor, root, steps } = await start();
    const cart = await editor.open('src/cart.ts');
    const pricing = await editor.open('src/pricing.ts');
    suite.model.enqueue(
      // context: two rounds of tool calls (the second malformed), then the locations
      { kind: 'toolCalls', calls: [{ name: 'search_class', arguments: { name: 'Cart' } }, { name: 'get_method_body', arguments: { name: 'lineTotal' } }] },
      { kind: 'toolCalls', calls: [{ name: 'search_code', arguments: '{"code": "quantity"' }] },
      { kind: 'text', content: `Found it.\n\`\`\`json\n${LOCATIONS}\n\`\`\`` },
      // patch: prose first (no diff), then a diff with a type error
      { kind: 'text', content: 'You should multiply by the quantity and add a count method.' },
      { kind: 'text', content: PATCH_BROKEN },
      // review fails on the type check (no model call); self-fix blames the patch
      { kind: 'text', content: '{"step": "patch", "feedback": "count() must return a number: add the quantities up instead of joining them."}' },
      // patch again, then the model review approves
      { kind: 'text', content: patchRight(COUNT_SUM) },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "Totals now use quantities and count() sums them."}' },
    );
    const answer = await editor.request<AskResult>('assistant/ask', { text: ISSUE, task: 'issue', textDocument: { uri: cart.uri } });
    expect(answer.task).toBe('issue');
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response.status).toBe('ok');
    const touched = (response.edit?.documentChanges ?? []).map((c) => ('textDocument' in c ? c.textDocument.uri : ''));
    expect(touched.sort()).toEqual([cart.uri, pricing.uri].sort());

    const requests = suite.model.requests;
    expect(requests).toHaveLength(8);
    // Function calling: the tools are offered while exploring, and each result goes back as a tool message.
    expect(requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('get_class_info');
    const toolMessages = messagesOf(requests[1]!).filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(toolMessages[0].content).toContain('src/cart.ts');
    expect(toolMessages[1].content).toContain('return item.price;');
    const malformed = messagesOf(requests[2]!).filter((m) => m.role === 'tool').at(-1);
    expect(malformed.content).toMatch(/not valid JSON/);
    // The unparsable patch went back with the reason; the self-fix feedback reached the second patch step.
    expect(userText(requests[4]!)).toMatch(/cannot be applied: the answer holds no patch/);
    expect(userText(requests[5]!)).toMatch(/TS2322/);
    expect(userText(requests[6]!)).toMatch(/count\(\) must return a number/);
    expect(requests[6]!.body.tools).toBeUndefined();

    // The trace keeps every step with its state.
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    const recorded = trace.interactions[0]!.responses[0]!;
    expect(recorded.verdict).toMatchObject({ passed: true });
    expect(recorded.pipeline!.steps.map((s) => `${s.name}:${s.status}`)).toEqual(['context:ok', 'patch:ok', 'review:failed', 'self-fix:ok', 'patch:ok', 'review:ok']);
    const context = recorded.pipeline!.steps[0]!;
    expect(context.responses.flatMap((r) => r.toolCalls ?? []).map((c) => c.name)).toEqual(['search_class', 'get_method_body', 'search_code']);
    expect(recorded.pipeline!.steps[1]!.responses.map((r) => r.error ?? 'ok')).toEqual([expect.stringMatching(/no patch/), 'ok']);
    expect(recorded.pipeline!.steps[2]!.error).toMatch(/TS2322/);
    expect(trace.interactions[0]!.selection).toMatchObject({ responseId: response.id });
    // Each step was streamed to the editor as it started and ended.
    expect(steps.filter((s) => s.interactionId === answer.interactionId && s.step.status !== 'running').map((s) => s.step.name)).toEqual(['context', 'patch', 'review', 'self-fix', 'patch', 'review']);

    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(applied).toMatchObject({ applied: true });
    expect(editor.buffer(pricing.uri).text).toContain('return item.price * item.quantity;');
    expect(editor.buffer(cart.uri).text).toContain(COUNT_SUM);
    expect(editor.buffer(cart.uri).text).toContain('lines(): readonly LineItem[]');
    expect(fs.readFileSync(path.join(root, 'src/cart.ts'), 'utf8')).not.toContain('count()');
  });

  it('replays from the patch step after feedback, without exploring again, and refuses contradicting feedback', async () => {
    const { editor } = await start();
    const cart = await editor.open('src/cart.ts');
    await editor.open('src/pricing.ts');
    suite.model.enqueue(
      { kind: 'toolCalls', calls: [{ name: 'search_class', arguments: { name: 'Cart' } }] },
      { kind: 'text', content: LOCATIONS },
      { kind: 'text', content: patchRight(COUNT_SUM) },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "Fine."}' },
    );
    const first = await editor.request<AskResult>('assistant/ask', { text: ISSUE, task: 'issue', textDocument: { uri: cart.uri } });
    const run = first.responses[0]!;
    expect(suite.model.requests).toHaveLength(4);

    // Feedback on two different steps of one run contradicts itself; unknown steps are named.
    await expect(editor.request('assistant/feedback', { interactionId: first.interactionId, responseId: run.id, feedback: [{ step: 'context', text: 'look at the tests too' }, { step: 'patch', text: 'skip empty lines' }] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/contradict/),
    });
    await expect(editor.request('assistant/feedback', { interactionId: first.interactionId, responseId: run.id, feedback: [{ step: 'deploy', text: 'x' }] })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/its steps are 0 context, 1 patch, 2 review/) });
    await expect(editor.request('assistant/feedback', { interactionId: first.interactionId, responseId: run.id, feedback: 'skip empty lines' })).rejects.toMatchObject({ code: -32602 });

    suite.model.enqueue({ kind: 'text', content: patchRight(COUNT_NONZERO) }, { kind: 'text', content: '{"verdict": "approve", "explanation": "Lines with no quantity are skipped."}' });
    const replayed = await editor.request<FeedbackResult>('assistant/feedback', { interactionId: first.interactionId, responseId: run.id, feedback: [{ step: 'patch', text: 'count() should skip lines whose quantity is 0' }] });
    expect(replayed.fromStep).toBe(1);
    expect(replayed.interactionId).not.toBe(first.interactionId);
    expect(suite.model.requests).toHaveLength(6);
    // No exploration again: the two new requests are the patch and the review, with no tools offered.
    const [patchRequest, reviewRequest] = suite.model.requests.slice(4);
    expect(patchRequest!.body.tools).toBeUndefined();
    expect(userText(patchRequest!)).toContain('count() should skip lines whose quantity is 0');
    expect(userText(patchRequest!)).toContain(COUNT_SUM);
    expect(userText(reviewRequest!)).toContain(COUNT_NONZERO);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: replayed.interactionId });
    const pipeline = trace.interactions[0]!.responses[0]!.pipeline!;
    expect(pipeline.replayOf).toMatchObject({ interactionId: first.interactionId, responseId: run.id, fromStep: 1 });
    expect(pipeline.steps.map((s) => `${s.name}:${s.status}`)).toEqual(['context:reused', 'patch:ok', 'review:ok']);
    expect(pipeline.steps[1]!.feedback).toEqual(['count() should skip lines whose quantity is 0']);
    const original = await editor.request<TraceResult>('assistant/trace', { id: first.interactionId });
    expect(original.interactions[0]!.responses[0]!.feedback).toEqual(['step 1 "patch": count() should skip lines whose quantity is 0']);

    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: replayed.interactionId, responseId: replayed.responses[0]!.id });
    expect(applied.applied).toBe(true);
    expect(editor.buffer(cart.uri).text).toContain(COUNT_NONZERO);
  });
});

const LEDGER_WRONG = `import { Cart } from './cart.js';

/** Counts what a cart holds. */
export class CartSummary {
  constructor(private readonly cart: Cart) {}

  /** Lines in the cart. */
  lineCount(): number {
    return this.cart.items.length;
  }
}
`;

const LEDGER_RIGHT = `import { Cart } from './cart.js';

/** Counts what a cart holds. */
export class CartSummary {
  constructor(private readonly cart: Cart) {}

  /** Lines in the cart. */
  lineCount(): number {
    return this.cart.lines().length;
  }
}
`;

describe('class pipeline', { timeout: 240_000 }, () => {
  it('writes a class, calls tools on its errors, reflects, and delivers a new file that type-checks', async () => {
    const { editor, root } = await start();
    const cart = await editor.open('src/cart.ts');
    suite.model.enqueue(
      { kind: 'text', content: `\`\`\`ts\n${LEDGER_WRONG}\`\`\`` },
      { kind: 'toolCalls', calls: [{ name: 'get_class_info', arguments: { name: 'Cart' } }] },
      { kind: 'text', content: 'items is private; use the public lines() method instead.' },
      { kind: 'text', content: `\`\`\`ts\n${LEDGER_RIGHT}\`\`\`` },
    );
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'Create a class named CartSummary that tells how many lines a Cart has', task: 'class', textDocument: { uri: cart.uri } });
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response.status).toBe('ok');
    const newUri = editor.uri('src/cartSummary.ts');
    expect(response.edit?.documentChanges?.[0]).toEqual({ kind: 'create', uri: newUri, options: { overwrite: false, ignoreIfExists: false } });

    const requests = suite.model.requests;
    expect(requests).toHaveLength(4);
    expect(requests[1]!.body.tools.length).toBeGreaterThan(0);
    expect(userText(requests[1]!)).toMatch(/TS2341[\s\S]*items/);
    expect(userText(requests[3]!)).toContain('lines(): readonly LineItem[]');
    expect(userText(requests[3]!)).toContain('use the public lines() method');

    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    const recorded = trace.interactions[0]!.responses[0]!;
    expect(recorded.pipeline!.steps.map((s) => `${s.name}:${s.status}`)).toEqual(['retrieve:ok', 'attempt:ok', 'check:failed', 'tools:ok', 'reflect:ok', 'attempt:ok', 'check:ok']);
    expect(recorded.verdict).toMatchObject({ passed: true });

    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
    expect(applied.applied).toBe(true);
    expect(fs.readFileSync(path.join(root, 'src/cartSummary.ts'), 'utf8')).toBe(LEDGER_RIGHT);
  });
});
