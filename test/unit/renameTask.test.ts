// Unit tests of the Rename task and its offline agent: offers from syntax, names read from free text, answers checked to be renames.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { parseRenameRequest, renameTask } from '../../server/src/tasks/renameTask.js';
import { OfflineRenameAgent } from '../../server/src/agents/offline/renameAgent.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import type { TaskTarget } from '../../server/src/tasks/task.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

let root: string;
let project: WorkspaceProject;
let ws: Workspace;
beforeAll(() => {
  root = copyFixture('rename');
  ws = new Workspace(root);
  project = ws.projects.workspace;
});

function document(relative: string): DocumentSnapshot {
  const fsPath = path.join(root, relative);
  return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 2, text: fs.readFileSync(fsPath, 'utf8') };
}

function offers(doc: DocumentSnapshot, needle: string, delta = 0) {
  const at = doc.text.indexOf(needle) + delta;
  return renameTask.offersAt({ document: doc, start: at, end: at, diagnostics: [] });
}

function ask(doc: DocumentSnapshot, text: string, at: number) {
  return renameTask.askTarget?.(doc, at, at, text);
}

function request(doc: DocumentSnapshot, target: TaskTarget, parameters: Record<string, string> = {}): AgentRequest {
  return { task: 'rename', interactionId: 'i', text: 'rename', document: doc, target, parameters, workspace: ws, project, history: [] };
}

describe('offers', () => {
  it('offers a better name on the line of a function, method, class or property name, and nowhere else', () => {
    const clamp = document('src/clamp.ts');
    expect(offers(clamp, 'clampAll(values').map((o) => [o.title, o.kind])).toEqual([['Assistant: Suggest a better name for clampAll', 'refactor.rewrite.assistant.rename']]);
    // Anywhere on the declaration's line, e.g. on `export`.
    expect(offers(clamp, 'export function clampAll').map((o) => o.target.name)).toEqual(['clampAll']);
    expect(offers(clamp, 'values.map')).toEqual([]);
    const range = document('src/range.ts');
    expect(offers(range, 'class Range').map((o) => o.target.name)).toEqual(['Range']);
    expect(offers(range, 'limit =').map((o) => o.target)).toEqual([{ name: 'Range.limit', start: range.text.indexOf('limit ='), end: range.text.indexOf('limit =') + 5 }]);
    expect(offers(range, 'width()').map((o) => o.target.name)).toEqual(['Range.width']);
    expect(offers(range, 'constructor(')).toEqual([]);
  });
});

describe('free text', () => {
  it.each([
    ['rename clampAll to clampValues', { oldName: 'clampAll', newName: 'clampValues' }],
    ['rename clampAll to clampValues.', { oldName: 'clampAll', newName: 'clampValues' }],
    ['Rename the function `clampAll` to `clampValues` everywhere', { oldName: 'clampAll', newName: 'clampValues' }],
    ['rename clampAll to class', { oldName: 'clampAll', newName: 'class' }],
    ['rename this to clampValues', { newName: 'clampValues' }],
    ['call it clampValues', { newName: 'clampValues' }],
    ['call this method loadAll instead of doIt', { oldName: 'doIt', newName: 'loadAll' }],
    ['change the identifier x to index', { oldName: 'x', newName: 'index' }],
    ['rename the class to something clearer', {}],
    ['suggest a better name for clampAll', {}],
  ])('reads %j', (text, expected) => {
    expect(parseRenameRequest(text)).toEqual(expected);
  });

  it('targets the declaration the text names, wherever the cursor is, and passes the new name', () => {
    const clamp = document('src/clamp.ts');
    const asked = ask(clamp, 'rename clampAll to clampValues', clamp.text.indexOf('Math.min'));
    expect(asked?.target.name).toBe('clampAll');
    expect(asked?.target.declaration?.nameStart).toBe(clamp.text.indexOf('clampAll(values'));
    expect(asked?.parameters).toEqual({ newName: 'clampValues' });
  });

  it('targets a use under the cursor, and a property by its name', () => {
    const stats = document('src/stats.ts');
    const use = ask(stats, 'rename this to clampValues', stats.text.indexOf('clampAll(values') + 3);
    expect(use?.target).toEqual({ name: 'clampAll', start: stats.text.indexOf('clampAll(values'), end: stats.text.indexOf('clampAll(values') + 8 });
    const range = document('src/range.ts');
    expect(ask(range, 'rename the property limit to maxWidth', 0)?.target.name).toBe('Range.limit');
    expect(ask(range, 'rename missingName to other', 0)).toBeUndefined();
  });
});

describe('the offline agent and the answer', () => {
  it('renames every reference to the given name, and the task states the size of the change', async () => {
    const clamp = document('src/clamp.ts');
    const target = ask(clamp, 'rename clampAll to clampValues', 0)!;
    const answer = await new OfflineRenameAgent().run(request(clamp, target.target, target.parameters), new AbortController().signal);
    expect(answer.text).toBe('Rename clampAll to clampValues');
    const converted = renameTask.convertAnswer(answer, { workspace: ws, document: clamp, target: target.target, parameters: target.parameters ?? {} }, undefined);
    if (!converted.ok || converted.kind !== 'edit') throw new Error(JSON.stringify(converted));
    expect(converted.text).toBe('Rename clampAll to clampValues: 7 edits in 3 files');
    const code = converted.proposal.documents
      .map((d) => applyOffsetEdits(d.baseText, d.edits))
      .join('\n')
      .split('\n')
      .filter((line) => !line.startsWith('//'));
    // Only the object's own property name keeps the old name.
    expect(code.filter((line) => /\bclampAll\b/.test(line))).toEqual(['export const helpers = { clampAll: clampValues, total };']);
  });

  it('explains an invalid name, and the task refuses with that reason', async () => {
    const clamp = document('src/clamp.ts');
    const target = ask(clamp, 'rename clampAll to class', 0)!;
    const answer = await new OfflineRenameAgent().run(request(clamp, target.target, target.parameters), new AbortController().signal);
    expect(answer.proposal).toBeUndefined();
    expect(answer.text).toBe('cannot rename clampAll to class: `class` is a reserved word in JavaScript and cannot name a function');
    expect(renameTask.convertAnswer(answer, { workspace: ws, document: clamp, target: target.target, parameters: {} }, undefined)).toEqual({ ok: false, reason: answer.text });
  });

  it('says how to give a name when none was given', async () => {
    const clamp = document('src/clamp.ts');
    const [offer] = offers(clamp, 'clampAll(values');
    const answer = await new OfflineRenameAgent().run(request(clamp, offer!.target), new AbortController().signal);
    expect(answer).toEqual({ text: 'the offline agent needs a new name: use assistant/ask "rename clampAll to <new name>"' });
  });

  it('refuses a proposal that edits anything but the name', async () => {
    const clamp = document('src/clamp.ts');
    const target = ask(clamp, 'rename clampAll to clampValues', 0)!;
    const answer = await new OfflineRenameAgent().run(request(clamp, target.target, target.parameters), new AbortController().signal);
    const tampered = { ...answer, proposal: { creates: [], documents: [{ ...answer.proposal!.documents[0]!, edits: [{ start: 0, end: 2, newText: 'clampValues' }] }] } };
    expect(renameTask.convertAnswer(tampered, { workspace: ws, document: clamp, target: target.target, parameters: {} }, undefined)).toEqual({ ok: false, reason: 'the proposal changes more than the name clampAll' });
  });

  it('stops when cancelled', async () => {
    const clamp = document('src/clamp.ts');
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(new OfflineRenameAgent().run(request(clamp, offers(clamp, 'clampAll(values')[0]!.target, { newName: 'x' }), controller.signal)).rejects.toThrow('cancelled');
  });
});
