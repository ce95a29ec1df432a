// End-to-end over --stdio with a real local model (the test model `npm run fetch-model` brings): each task ends with an applied, oracle-checked edit or a named reason, and a well-formed trace.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse, AskResult, ApplyResult, Interaction, TaskId, TraceResponse, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, handleFiles, linkModules } from '../support/lspClient.js';
import type { Buffer } from '../support/lspClient.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';
import { testModelPath } from './testModel.js';

const modelPath = testModelPath();
const LOCAL = 'local';
/** Each task's budget: what a two-core machine needs for the model's longest answer, with room to spare. */
const AGENT_BUDGET_MS = 80_000;

let editor: TestEditor;
let root: string;

beforeAll(async () => {
  if (!modelPath) return;
  root = copyFixture('realmodel');
  linkModules(root);
  ({ editor } = await TestEditor.start({
    root,
    capabilities: { window: { workDoneProgress: true, showMessage: {} }, workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } } },
    initializationOptions: {
      assistant: {
        useEnvironment: false,
        agents: [{ name: LOCAL, modelPath, threads: 1, contextSize: 4096, maxTokens: 640, temperature: 0 }],
        // Only the model answers, so every outcome below is the model's.
        disabledAgents: ['doc-offline', 'explain-offline', 'rename-offline', 'fix-offline', 'test-scaffold-offline', 'implement-offline', 'question-offline'],
        orchestrator: { agentTimeoutMs: AGENT_BUDGET_MS, maxAttempts: 2 },
        // Tool rounds cost a model call each; the openai-path suite has the model call tools.
        pipelines: { toolRounds: 0, maxSelfFixes: 0, patchAttempts: 2, classRounds: 1 },
      },
    },
  }));
  handleFiles(editor);
}, 60_000);

afterAll(async () => {
  await editor?.dispose();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A workspace file opened in the editor, once: later tests see the edits earlier ones applied. */
async function open(relativePath: string): Promise<Buffer> {
  const uri = editor.uri(relativePath);
  return editor.buffers.get(uri) ?? editor.open(relativePath);
}

/** The range of the first `needle` in a buffer. */
function rangeOf(buffer: Buffer, needle: string): { start: { line: number; character: number }; end: { line: number; character: number } } {
  const start = editor.position(buffer.uri, needle);
  const end = editor.position(buffer.uri, needle, needle.length);
  return { start, end };
}

function localResponse(answer: AskResult): AskResponse {
  const response = answer.responses.find((r) => r.agent.name === LOCAL);
  expect(response, `the local agent answered (${answer.message ?? 'no message'})`).toBeDefined();
  return response!;
}

async function recorded(interactionId: string): Promise<{ interaction: Interaction; response: TraceResponse }> {
  const trace = await editor.request<TraceResult>('assistant/trace', { id: interactionId });
  const interaction = trace.interactions[0]!;
  return { interaction, response: interaction.responses.find((r) => r.agent.name === LOCAL)! };
}

/**
 * The invariant every task ends in: a usable answer is applied in full and passes its oracle, or there is no usable
 * answer and the reason is named. Never an `ok` edit task without an edit (an answer dropped unparsed).
 */
async function settle(task: TaskId, answer: AskResult, kind: 'edit' | 'text'): Promise<string> {
  expect(answer.task).toBe(task);
  const response = localResponse(answer);
  const { response: trace } = await recorded(answer.interactionId);
  expect(trace.status).toBe(response.status);
  // What the model wrote, for whoever reads a CI log: the suite asserts on invariants, never on these words.
  const written = trace.pipeline ? trace.pipeline.steps.flatMap((s) => s.responses.map((r) => `[${s.name}] ${r.text}`)) : [trace.text];
  console.log(`${task} (${trace.status}${trace.error ? `: ${trace.error}` : ''}):\n${written.map((w) => w.slice(0, 1500)).join('\n')}`);
  if (response.status !== 'ok') {
    expect(response.error, `a named reason for ${response.status}`).toMatch(/\w{3,}/);
    // A rejected proposal may be kept for inspection, but it is not used.
    expect(trace.used).toBe(false);
    return `${task}: no usable answer: ${response.error}`;
  }
  if (kind === 'text') {
    expect(response.text.trim().length).toBeGreaterThan(0);
    return `${task}: answered (${response.text.length} characters)`;
  }
  expect(response.edit, 'an ok answer to an edit task carries its edit').toBeDefined();
  expect(trace.verdict?.passed, 'an offered edit passed its oracle').not.toBe(false);
  const before = new Map([...editor.buffers].map(([uri, b]) => [uri, b.text]));
  const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: response.id });
  expect(applied.applied, applied.message ?? '').toBe(true);
  const after = await recorded(answer.interactionId);
  expect(after.response.used).toBe(true);
  // The whole edit landed: every open document it touches changed, and what it created exists.
  for (const change of response.edit!.documentChanges ?? []) {
    if ('kind' in change) {
      if (change.kind === 'create') expect(fs.existsSync(new URL(change.uri))).toBe(true);
    } else if (before.has(change.textDocument.uri)) {
      expect(editor.buffer(change.textDocument.uri).text).not.toBe(before.get(change.textDocument.uri));
    }
  }
  return `${task}: applied (${trace.verdict ? `verdict ${trace.verdict.passed ? 'passed' : 'failed'}` : 'no oracle'}, ${trace.attempts ?? 1} attempt(s))`;
}

const outcomes: string[] = [];

describe.skipIf(!modelPath)('a real model in the loop', () => {
  it('documents a function', async () => {
    const stats = await open('src/stats.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document sumAll', task: 'document', textDocument: { uri: stats.uri }, range: rangeOf(stats, 'sumAll') });
    outcomes.push(await settle('document', answer, 'edit'));
  });

  it('explains a function', async () => {
    const stats = await open('src/stats.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'explain largest', task: 'explain', textDocument: { uri: stats.uri }, range: rangeOf(stats, 'largest(values') });
    outcomes.push(await settle('explain', answer, 'text'));
  });

  it('fixes a type error', async () => {
    const stats = await open('src/stats.ts');
    // The server's own type-check finds the error (it runs after a pause, the first time on a fresh compiler).
    expect(await editor.quickfixesOnceChecked(stats.uri, 'values.length.toString()', 60_000)).not.toEqual([]);
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'fix this error', task: 'fix', textDocument: { uri: stats.uri, version: editor.buffer(stats.uri).version }, range: rangeOf(stats, 'const count') });
    outcomes.push(await settle('fix', answer, 'edit'));
  });

  it('generates tests', async () => {
    const pricing = await open('src/pricing.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'write tests for roundCents', task: 'test', textDocument: { uri: pricing.uri }, range: rangeOf(pricing, 'roundCents') });
    outcomes.push(await settle('test', answer, 'edit'));
  });

  it('suggests a better name', async () => {
    const stats = await open('src/stats.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'suggest a better name for sumAll', task: 'rename', textDocument: { uri: stats.uri }, range: rangeOf(stats, 'sumAll') });
    outcomes.push(await settle('rename', answer, 'edit'));
  });

  it('runs the issue pipeline', async () => {
    const cart = await open('src/cart.ts');
    await open('src/pricing.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'lineTotal in src/pricing.ts ignores the quantity: it must return item.price * item.quantity.', task: 'issue', textDocument: { uri: cart.uri } });
    outcomes.push(await settle('issue', answer, 'edit'));
  });

  it('generates a class', async () => {
    const cart = await open('src/cart.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'Create a class named CartSummary whose method lineCount(cart: Cart): number returns cart.lines().length', task: 'class', textDocument: { uri: cart.uri } });
    outcomes.push(await settle('class', answer, 'edit'));
  });

  it('leaves a well-formed trace and a server still serving', async () => {
    const files = segmentFiles(path.join(root, '.assistant', 'trace'));
    expect(files.length).toBeGreaterThan(0);
    const interactions = files.flatMap((file) => readSegment(file).interactions);
    expect(interactions.length).toBeGreaterThanOrEqual(outcomes.length);
    for (const interaction of interactions) {
      expect(interaction.id).toMatch(/\S/);
      for (const response of interaction.responses) {
        expect(['ok', 'empty', 'error', 'timeout', 'cancelled']).toContain(response.status);
        expect(response.durationMs).toBeGreaterThanOrEqual(0);
        if (response.status !== 'ok') expect(response.error ?? '').toMatch(/\w/);
        for (const step of response.pipeline?.steps ?? []) expect(['ok', 'failed', 'reused', 'cancelled']).toContain(step.status);
      }
    }
    const agents = await editor.request<{ agents: { name: string }[] }>('assistant/agents', {});
    expect(agents.agents.map((a) => a.name)).toContain(LOCAL);
    console.log(`real-model outcomes:\n  ${outcomes.join('\n  ')}`);
    // The model is freed before the process ends: native code ended mid-call would abort it.
    expect(await editor.shutdownAndExit()).toBe(0);
    expect(editor.stderr).not.toMatch(/terminate called|Napi::Error/);
  });
});
