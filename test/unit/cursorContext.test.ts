// The code at the cursor and the workspace's words as context for a free-text request, through `classifyRequest` and `routeRequest` on real files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INTENT_THRESHOLD } from '../../server/src/agents/intentClassifier.js';
import { classifyRequest, routeRequest } from '../../server/src/tasks/askFlow.js';
import { cursorContextAt } from '../../server/src/tasks/cursorContext.js';
import type { TaskEnvironment } from '../../server/src/tasks/runTask.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';

const ORDERS = `// Orders for the cursor-context test.
export interface Order {
  id: string;
  quantity: number;
}

export function parseOrder(text: string): Order {
  // TODO: split the text on commas and reject a negative quantity
  return { id: '', quantity: 0 };
}

export function orderCount(orders: Order[]): number {
  return orders.length;
}
`;

let root: string;
let workspace: Workspace;
let document: DocumentSnapshot;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-cursor-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'orders.ts'), ORDERS);
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }));
  workspace = new Workspace(root, { saveIndex: false });
  const found = workspace.documents.get(pathToUri(path.join(root, 'src', 'orders.ts')));
  if (!found) throw new Error('cannot read the fixture');
  document = found;
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function at(marker: string): { start: number; end: number } {
  const offset = document.text.indexOf(marker);
  if (offset < 0) throw new Error(`${marker} is not in the fixture`);
  return { start: offset, end: offset };
}

async function classify(text: string, open?: DocumentSnapshot, cursor?: { start: number; end: number }): Promise<string> {
  const env = { root: workspace.root, workspace, registry: { classifier: () => undefined } } as unknown as TaskEnvironment;
  const result = await classifyRequest({ env, threshold: DEFAULT_INTENT_THRESHOLD, log: () => undefined }, text, open, new AbortController().signal, cursor);
  return result.task;
}

describe('cursorContextAt', () => {
  it('counts a TODO anywhere in the declaration at the cursor as a call for generate, and written code as none', () => {
    const placeholder = at("return { id: ''");
    expect(cursorContextAt(document, placeholder.start, placeholder.end, []).offers).toContain('generate');
    const written = at('return orders.length');
    expect(cursorContextAt(document, written.start, written.end, [])).toEqual({ inCode: true, offers: [] });
  });
});

describe('classifyRequest with the workspace as context', () => {
  it('reads "write it" on a TODO function\'s placeholder as generate', async () => {
    expect(await classify('write it', document, at("return { id: ''"))).toBe('generate');
  });

  it('reads a where-question about a word the code uses as a question, with a file open', async () => {
    expect(await classify('where is the quantity validated?', document)).toBe('question');
  });

  it('reads a requirement about something the code names as an issue, with no file open', async () => {
    expect(await classify('orders should never have a negative quantity')).toBe('issue');
  });
});

describe('routeRequest with no file open', () => {
  it('answers as a question a request whose task finds no code and whose words are nearly all the code\'s', async () => {
    const env = { root: workspace.root, workspace, registry: { classifier: () => undefined, serves: (task: string) => task === 'question' || task === 'document' } } as unknown as TaskEnvironment;
    const signal = new AbortController().signal;
    await workspace.index.current(signal);
    const text = 'split the order text by hand on commas';
    const routed = await routeRequest({ env }, { text }, { task: 'document', confidence: 0.5, by: 'intent-offline' }, undefined, text, signal);
    expect(routed.task).toBe('question');
    // Half of its words everyday ones, it is no search of the code.
    const chat = 'split the bill by hand with my friends';
    expect((await routeRequest({ env }, { text: chat }, { task: 'document', confidence: 0.5, by: 'intent-offline' }, undefined, chat, signal)).task).toBe('document');
  });
});
