// Workspace questions over --stdio as a user types them: routed to the question task with no file open, answered from sources, never from their compiled copies.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskResult } from '../../protocol/src/index.js';
import { TestEditor } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const SOURCE = `/** How long to wait before the next attempt: doubles each time, up to a ceiling. */
export function nextDelay(attempt: number, baseMs: number, ceilingMs: number): number {
  const grown = baseMs * 2 ** attempt;
  return Math.min(grown, ceilingMs);
}
`;
const COMPILED = `"use strict";
/** How long to wait before the next attempt: doubles each time, up to a ceiling. */
function nextDelay(attempt, baseMs, ceilingMs) {
  const grown = baseMs * 2 ** attempt;
  return Math.min(grown, ceilingMs);
}
exports.nextDelay = nextDelay;
`;

/** A published package's layout: sources under src/, their build beside them and in dist/, and no .gitignore. */
function publishedPackage(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-published-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'dist'));
  fs.writeFileSync(path.join(root, 'package.json'), '{ "name": "backoff", "version": "1.0.0", "main": "./backoff.cjs", "types": "./backoff.d.cts" }\n');
  fs.writeFileSync(path.join(root, 'src', 'backoff.ts'), SOURCE);
  fs.writeFileSync(path.join(root, 'dist', 'backoff.cjs'), COMPILED);
  fs.writeFileSync(path.join(root, 'backoff.cjs'), COMPILED);
  fs.writeFileSync(path.join(root, 'backoff.js'), COMPILED.replace('exports.nextDelay = nextDelay;', 'export { nextDelay };'));
  fs.writeFileSync(path.join(root, 'backoff.d.cts'), '/** How long to wait before the next attempt: doubles each time, up to a ceiling. */\nexport declare function nextDelay(attempt: number, baseMs: number, ceilingMs: number): number;\n');
  return root;
}

describe('workspace questions as typed', () => {
  it('routes a "how does …" question with no file open to the question task and answers from src/, not the build', async () => {
    const root = publishedPackage();
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'how does the wait between attempts grow?' });
    expect(answer.task, answer.message).toBe('question');
    const text = answer.responses.find((r) => r.agent.name === 'question-offline')?.text ?? '';
    const locations = text.split('\n').filter((l) => /^\d+\. /.test(l));
    expect(locations[0]).toMatch(/^1\. src\/backoff\.ts:2 — function nextDelay/);
    expect(text).not.toMatch(/backoff\.(?:cjs|js|d\.cts):/);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('never names a compiled copy beside the sources, with the task chosen and no .gitignore', async () => {
    const root = publishedPackage();
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'nextDelay', task: 'question' });
    const text = answer.responses.find((r) => r.agent.name === 'question-offline')?.text ?? '';
    expect(text).toMatch(/^1\. src\/backoff\.ts:2 — function nextDelay/m);
    expect(text.split('\n').filter((l) => /^\d+\. /.test(l))).toHaveLength(1);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
