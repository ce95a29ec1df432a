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

  it('answers a "how does …" question about other code as a workspace question even with the cursor in a function', async () => {
    const root = publishedPackage();
    fs.writeFileSync(path.join(root, 'src', 'queue.ts'), 'export function drain(items: string[]): string[] {\n  const out = items.slice();\n  items.length = 0;\n  return out;\n}\n');
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const doc = await editor.open('src/queue.ts');
    const at = editor.position(doc.uri, 'items.slice');
    const ask = (text: string) => editor.request<AskResult>('assistant/ask', { text, textDocument: { uri: doc.uri }, range: { start: at, end: at } });
    // Said of things in words, it asks where the code that does it is, not what the code at the cursor does.
    const elsewhere = await ask('how does the wait between attempts grow?');
    expect(elsewhere.task, elsewhere.message).toBe('question');
    expect(elsewhere.responses.find((r) => r.agent.name === 'question-offline')?.text ?? '').toMatch(/^1\. src\/backoff\.ts:2 — function nextDelay/m);
    // Pointing at the code, or naming a function, is still a request to explain it.
    expect((await ask('how does this work?')).task).toBe('explain');
    expect((await ask('what does the function return?')).task).toBe('explain');
    expect((await ask('how does nextDelay grow the wait?')).task).toBe('explain');
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

/**
 * A package with a current module its entry reaches, a legacy copy nothing reaches, an overloaded function, and a
 * parseConfig to make faster.
 */
function layeredPackage(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-layered-'));
  const write = (relative: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  write('package.json', JSON.stringify({ name: 'forms', type: 'module', exports: { '.': { types: './index.d.ts', import: './index.js' } } }));
  write('src/index.ts', "export { flattenError } from './errors.js';\nexport { toFields } from './fields.js';\nexport { parseConfig } from './config.js';\n");
  const flatten = '/** Flattens an error tree into form errors and field errors. */\nexport function flattenError(tree: { path: string[]; message: string }[]): Record<string, string[]> {\n  const fields: Record<string, string[]> = {};\n  for (const issue of tree) (fields[issue.path.join(".")] ??= []).push(issue.message);\n  return fields;\n}\n';
  write('src/errors.ts', flatten);
  // The legacy copy's folder adds no word and sorts first; an index of its own imports it as often as the current one.
  write('src/a/errors.ts', flatten);
  write('src/a/index.ts', "export { flattenError } from './errors.js';\n");
  write('src/fields.ts', '/** Converts a form to its fields. */\nexport function toFields(form: string): string[];\n/** Converts forms to their fields. */\nexport function toFields(form: string[]): string[][];\nexport function toFields(form: string | string[]): string[] | string[][] {\n  return Array.isArray(form) ? form.map((f) => f.split("&")) : form.split("&");\n}\n');
  write('src/config.ts', '/** Parses the configuration text. */\nexport function parseConfig(text: string): Record<string, string> {\n  return Object.fromEntries(text.split("\\n").map((line) => line.split("=")));\n}\n');
  return root;
}

describe('workspace questions on a package with layers', () => {
  it('answers an instruction typed as a search, from the code the package exports first, overloads as one place', async () => {
    const root = layeredPackage();
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const locationsOf = (answer: AskResult): string[] => (answer.responses.find((r) => r.agent.name === 'question-offline')?.text ?? '').split('\n').filter((l) => /^\d+\. /.test(l));

    // No file open, no question word, every word the code's: a search, not a fix or code to generate.
    const flatten = await editor.request<AskResult>('assistant/ask', { text: 'flatten errors into field errors' });
    expect(flatten.task, flatten.message).toBe('question');
    const flattened = locationsOf(flatten);
    expect(flattened[0]).toMatch(/^1\. src\/errors\.ts:2 — function flattenError/);
    expect(flattened.some((l) => l.includes('src/a/errors.ts:2'))).toBe(true);

    const convert = await editor.request<AskResult>('assistant/ask', { text: 'convert a form to its fields' });
    expect(convert.task, convert.message).toBe('question');
    const converted = locationsOf(convert).filter((l) => l.includes('toFields'));
    expect(converted).toEqual(['1. src/fields.ts:5 — function toFields']);

    // An instruction about code the workspace declares keeps its task.
    const faster = await editor.request<AskResult>('assistant/ask', { text: 'make parseConfig faster' });
    expect(faster.task, faster.message).toBe('optimize');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
