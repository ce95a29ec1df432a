// Unit tests for the Fix task: offers from diagnostics by syntax alone, the target widened to its declaration, model answers turned into proposals or refused.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { fixTask, shortMessage } from '../../server/src/tasks/fixTask.js';
import { fencedCode } from '../../server/src/tasks/replaceCode.js';
import type { DiagnosticInfo, TaskRunView } from '../../server/src/tasks/task.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import type { Proposal } from '../../server/src/edits/proposal.js';
import { Workspace } from '../../server/src/workspace/workspace.js';

/** The conversions here read nothing of the workspace; a run still names one. */
const ws = new Workspace(os.tmpdir());

const TEXT = [
  "import { fetchCount } from './count.js';",
  '',
  'export class Shouter {',
  '  /** Shouts the label. */',
  '  shout(label: string): string {',
  '    const message = `${label}!`;',
  '    return mesage.toUpperCase();',
  '  }',
  '}',
  '',
  'export function total(values: number[]): number {',
  '  let sum = 0;',
  '  for (const value of values) sum = add(sum, value);',
  '  return sum;',
  '}',
  '',
  'const limit: number = "ten";',
  '',
].join('\n');

const document: DocumentSnapshot = { uri: 'file:///ws/src/main.ts', fsPath: '/ws/src/main.ts', languageId: 'typescript', version: 4, text: TEXT };

function diagnosticAt(needle: string, message: string, code: number | string = 2304, length = needle.length): DiagnosticInfo {
  const start = TEXT.indexOf(needle);
  if (start < 0) throw new Error(needle);
  return { start, end: start + length, message, code, source: 'ts', severity: 1, original: { marker: needle } };
}

const MESAGE = diagnosticAt('mesage', "Cannot find name 'mesage'. Did you mean 'message'?", 2552);
const ADD = diagnosticAt('add(', "Cannot find name 'add'.", 2304, 3);
const LIMIT = diagnosticAt('limit', "Type 'string' is not assignable to type 'number'.", 2322);
const at = (needle: string): number => TEXT.indexOf(needle);

describe('fixTask.offersAt', () => {
  it('offers a quickfix per diagnostic overlapping the selection, with the diagnostic in the target', () => {
    const offers = fixTask.offersAt({ document, start: at('mesage'), end: at('mesage') + 2, diagnostics: [MESAGE, ADD] });
    expect(offers).toHaveLength(1);
    expect(offers[0]).toMatchObject({ task: 'fix', kind: 'quickfix', title: `Assistant: Fix "Cannot find name 'mesage'. Did you mean 'message'?"` });
    expect(offers[0]!.target.diagnostic).toBe(MESAGE);
    expect(offers[0]!.target.name).toBe('TS2552');
  });

  it("offers the diagnostics on a bare cursor's line", () => {
    const offers = fixTask.offersAt({ document, start: at('  for (const value'), end: at('  for (const value'), diagnostics: [ADD, MESAGE] });
    expect(offers.map((o) => o.target.diagnostic)).toEqual([ADD]);
  });

  it('offers nothing for diagnostics elsewhere or without diagnostics, and one offer for a duplicate', () => {
    expect(fixTask.offersAt({ document, start: at('let sum'), end: at('let sum') + 3, diagnostics: [MESAGE] })).toEqual([]);
    expect(fixTask.offersAt({ document, start: 0, end: TEXT.length, diagnostics: [] })).toEqual([]);
    expect(fixTask.offersAt({ document, start: at('add('), end: at('add('), diagnostics: [ADD, { ...ADD }] })).toHaveLength(1);
  });

  it('widens the target to the enclosing method, function or top-level statement', () => {
    const [method] = fixTask.offersAt({ document, start: MESAGE.start, end: MESAGE.start, diagnostics: [MESAGE] });
    expect(TEXT.slice(method!.target.start, method!.target.end)).toMatch(/^shout\(label: string\): string \{[\s\S]*\n {2}\}$/);
    expect(method!.target.declaration).toMatchObject({ kind: 'method', name: 'Shouter.shout' });
    const [fn] = fixTask.offersAt({ document, start: ADD.start, end: ADD.end, diagnostics: [ADD] });
    expect(TEXT.slice(fn!.target.start, fn!.target.end)).toMatch(/^export function total[\s\S]*return sum;\n\}$/);
    const [statement] = fixTask.offersAt({ document, start: LIMIT.start, end: LIMIT.start, diagnostics: [LIMIT] });
    expect(TEXT.slice(statement!.target.start, statement!.target.end)).toBe('const limit: number = "ten";');
  });

  it('shortens long messages to their first line', () => {
    const long = `Argument of type '{ a: string; b: number; c: boolean; }' is not assignable to parameter of type 'Options'.\n  Object literal may only specify known properties.`;
    expect(shortMessage(long)).toBe("Argument of type '{ a: string; b: number; c: boolean; }' is…");
    expect(shortMessage(long).length).toBe(60);
  });
});

function runOn(diagnostic: DiagnosticInfo): TaskRunView {
  const [offer] = fixTask.offersAt({ document, start: diagnostic.start, end: diagnostic.start, diagnostics: [diagnostic] });
  return { workspace: ws, document, target: offer!.target, parameters: {} };
}

function applied(proposal: Proposal): string {
  const plan = proposal.documents[0]!;
  expect(plan).toMatchObject({ uri: document.uri, version: 4, baseText: TEXT });
  return applyOffsetEdits(plan.baseText, plan.edits);
}

describe('fixTask.convertAnswer', () => {
  it('takes an agent proposal as it is', () => {
    const proposal: Proposal = { documents: [{ uri: document.uri, version: 4, baseText: TEXT, edits: [{ start: 0, end: 0, newText: "import { add } from './math.js';\n" }] }], creates: [] };
    expect(fixTask.convertAnswer({ text: 'Add import from "./math.js"', proposal }, runOn(ADD), undefined)).toEqual({ ok: true, kind: 'edit', proposal, text: 'Add import from "./math.js"' });
  });

  it("replaces the target with the fenced declaration, re-indented, keeping the file's doc comment once", () => {
    const answer = 'Fixed the typo:\n```ts\n/** Shouts the label. */\nshout(label: string): string {\n  const message = `${label}!`;\n  return message.toUpperCase();\n}\n```';
    const result = fixTask.convertAnswer({ text: answer }, runOn(MESAGE), undefined);
    expect(result.ok).toBe(true);
    if (!result.ok || result.kind !== 'edit') return;
    expect(applied(result.proposal)).toBe(TEXT.replace('return mesage.toUpperCase()', 'return message.toUpperCase()'));
  });

  it('adds the imports the answer starts with, after the existing imports', () => {
    const answer = "```typescript\nimport { add } from './math.js';\nimport { fetchCount } from './count.js';\n\nexport function total(values: number[]): number {\n  let sum = 0;\n  for (const value of values) sum = add(sum, value);\n  return sum;\n}\n```";
    const result = fixTask.convertAnswer({ text: answer }, runOn(ADD), undefined);
    if (!result.ok || result.kind !== 'edit') throw new Error(JSON.stringify(result));
    // The answer's copy of an import the file already has is not added twice.
    expect(applied(result.proposal)).toBe(TEXT.replace("from './count.js';\n", "from './count.js';\nimport { add } from './math.js';\n"));
  });

  it('annotates a rewritten declaration with a line comment above it, below its doc comment', () => {
    const annotation = { task: 'fix' as const, agent: 'model', interactionId: 'i-1', at: '2025-01-01T00:00:00.000Z' };
    const inMethod = fixTask.convertAnswer({ text: '```ts\nshout(label: string): string {\n  return `${label}!`.toUpperCase();\n}\n```' }, runOn(MESAGE), annotation);
    if (!inMethod.ok || inMethod.kind !== 'edit') throw new Error(JSON.stringify(inMethod));
    expect(applied(inMethod.proposal)).toContain('  /** Shouts the label. */\n  // @assistant task=fix agent=model interaction=i-1 at=2025-01-01T00:00:00.000Z\n  shout(label: string): string {\n    return `${label}!`.toUpperCase();\n  }\n');
    // Fixed again: the doc comment is still found above the annotation, so the answer's copy of it is not added twice.
    const once = applied(inMethod.proposal);
    const onceDocument: DocumentSnapshot = { ...document, text: once };
    const start = once.indexOf('toUpperCase');
    const diagnostic: DiagnosticInfo = { start, end: start + 11, message: 'Something is off.', code: 2339, source: 'ts', severity: 1, original: {} };
    const [offer] = fixTask.offersAt({ document: onceDocument, start, end: start, diagnostics: [diagnostic] });
    const again = fixTask.convertAnswer({ text: '```ts\n/** Shouts the label. */\nshout(label: string): string {\n  return label.toUpperCase();\n}\n```' }, { workspace: ws, document: onceDocument, target: offer!.target, parameters: {} }, { ...annotation, interactionId: 'i-2' });
    if (!again.ok || again.kind !== 'edit') throw new Error(JSON.stringify(again));
    expect(applyOffsetEdits(once, again.proposal.documents[0]!.edits)).toContain('  /** Shouts the label. */\n  // @assistant task=fix agent=model interaction=i-1 at=2025-01-01T00:00:00.000Z\n  // @assistant task=fix agent=model interaction=i-2 at=2025-01-01T00:00:00.000Z\n  shout(label: string): string {\n    return label.toUpperCase();\n  }\n');
    const inStatement = fixTask.convertAnswer({ text: '```ts\nconst limit: number = 10;\n```' }, runOn(LIMIT), annotation);
    if (!inStatement.ok || inStatement.kind !== 'edit') throw new Error(JSON.stringify(inStatement));
    expect(applied(inStatement.proposal)).toContain('\n// @assistant task=fix agent=model interaction=i-1 at=2025-01-01T00:00:00.000Z\nconst limit: number = 10;\n');
  });

  it('refuses answers without code, with only whitespace changes, or with an unclosed fence', () => {
    const run = runOn(LIMIT);
    expect(fixTask.convertAnswer({ text: 'Change the type to string.' }, run, undefined)).toEqual({ ok: false, reason: 'the answer holds no code block; answer with the corrected code in one code fence' });
    expect(fixTask.convertAnswer({ text: '```ts\n\n```' }, run, undefined)).toEqual({ ok: false, reason: 'the answer holds no code' });
    expect(fixTask.convertAnswer({ text: '```ts\n  const limit: number = "ten";  \n```' }, run, undefined)).toEqual({ ok: false, reason: 'the answer leaves the code unchanged' });
    expect(fixTask.convertAnswer({ text: '```ts\nconst limit = 10;' }, run, undefined)).toEqual({ ok: false, reason: 'the code block in the answer is not closed' });
  });

  it('prefers a TypeScript fence over others', () => {
    expect(fencedCode('```text\nnotes\n```\n```ts\nconst a = 1;\n```')).toEqual({ ok: true, code: 'const a = 1;\n' });
  });
});
