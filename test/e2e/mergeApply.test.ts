// End-to-end patches onto changed files over --stdio: a proposal applied after the user edited the same function (both changes kept by the three-way merge), a conflict reported with where it is, and a pasted unified diff applied onto moved lines.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApplyPatchResult, ApplyResult, AskResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, handleFiles } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';
import { CART_AND_PRICING_PATCH } from '../support/pipelinePatches.js';

const suite = scriptedSuite();

async function start(fixture: string): Promise<{ editor: TestEditor; root: string }> {
  const root = suite.workspace(fixture);
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-coder' },
    initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 90_000 }, annotations: { enabled: false } } },
  });
  suite.track(editor);
  handleFiles(editor);
  return { editor, root };
}

const SPREAD_FAST = 'export function spread(values: number[]): number {\n  let lo = Infinity;\n  let hi = -Infinity;\n  for (const value of values) {\n    if (value < lo) lo = value;\n    if (value > hi) hi = value;\n  }\n  return hi - lo;\n}';

async function optimizeSpread(editor: TestEditor, uri: string): Promise<AskResult> {
  suite.model.enqueue({ kind: 'text', content: `\`\`\`ts\n${SPREAD_FAST}\n\`\`\`` });
  const position = editor.position(uri, 'spread');
  const answer = await editor.request<AskResult>('assistant/ask', { text: 'make spread faster', task: 'optimize', textDocument: { uri }, range: { start: position, end: position } });
  expect(answer.responses.filter((r) => r.edit)).toHaveLength(1);
  return answer;
}

describe('patches onto changed files', { timeout: 180_000 }, () => {
  it('keeps the user’s edit inside the same function and the proposal’s rewrite, by a three-way merge', async () => {
    const { editor } = await start('generate');
    const doc = await editor.open('src/stats.ts');
    const answer = await optimizeSpread(editor, doc.uri);
    // Meanwhile the user changes a line of the function the proposal rewrites.
    const edited = doc.text.replace('  let lo = Infinity;', '  let lo = Number.POSITIVE_INFINITY;');
    await editor.setText(doc.uri, edited);
    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    expect(applied).toMatchObject({ applied: true, outcome: 'applied', message: expect.stringMatching(/merged/) });
    const text = editor.buffer(doc.uri).text;
    expect(text).toContain('  let lo = Number.POSITIVE_INFINITY;');
    expect(text).toContain('  for (const value of values) {');
    expect(text).not.toContain('for (let j = 0');
    expect(text).toContain('export function median(values: number[]): number {}');
  });

  it('reports a conflict it cannot settle, naming the declaration, and changes nothing', async () => {
    const { editor } = await start('generate');
    const doc = await editor.open('src/stats.ts');
    const answer = await optimizeSpread(editor, doc.uri);
    const edited = doc.text.replace('  for (let i = 0; i < values.length; i++) {', '  for (let i = values.length - 1; i >= 0; i--) {');
    await editor.setText(doc.uri, edited);
    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    expect(applied).toMatchObject({ applied: false, outcome: 'stale' });
    expect(applied.message).toMatch(/stats\.ts was changed in the editor where the edit applies, and the changes conflict[\s\S]*`spread`/);
    expect(editor.buffer(doc.uri).text).toBe(edited);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: false, outcome: 'stale', outcomeReason: expect.stringMatching(/`spread`/) });
  });

  it('applies a pasted unified diff onto lines that moved, records it, and refuses one that does not fit', async () => {
    const { editor, root } = await start('pipelines');
    const cart = await editor.open('src/cart.ts');
    // Three lines added at the top since the diff was made: every hunk is 3 lines off.
    await editor.setText(cart.uri, `// Owned by the shop team.\n// Keep totals in cents.\n\n${cart.text}`);
    const patch = [
      'Here is the patch you asked for:',
      '```diff',
      'diff --git a/src/cart.ts b/src/cart.ts',
      ...CART_AND_PRICING_PATCH,
      '```',
    ].join('\n');
    const result = (await editor.request('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{ patch }] })) as ApplyPatchResult;
    expect(result).toMatchObject({ applied: true, files: ['src/cart.ts', 'src/pricing.ts'] });
    expect(editor.buffer(cart.uri).text).toContain('  isEmpty(): boolean {\n    return this.items.length === 0;\n  }');
    expect(editor.buffer(cart.uri).text.startsWith('// Owned by the shop team.')).toBe(true);
    expect(fs.readFileSync(path.join(root, 'src/pricing.ts'), 'utf8')).toContain('return item.price * item.quantity;');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ agent: { name: 'pasted-patch' }, used: true, outcome: 'applied' });

    const bad = (await editor.request('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{ patch: '--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -1,2 +1,2 @@\n-// A cart for bicycles.\n+// A cart.\n import x;\n' }] })) as ApplyPatchResult;
    expect(bad).toMatchObject({ applied: false });
    expect(bad.message).toMatch(/A cart for bicycles/);
    await expect(editor.request('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{}] })).rejects.toMatchObject({ code: -32602 });
  });
});
