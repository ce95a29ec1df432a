// Unit tests of the model rename strategy: two prompts (the second without the current name), suggestions parsed, checked and offered as alternatives.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { MASK, parseSuggestedNames, renameModel } from '../../server/src/agents/model/renameModel.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import type { AskModel, Prompt } from '../../server/src/agents/modelTask.js';
import { renameTask } from '../../server/src/tasks/renameTask.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

let root: string;
let project: WorkspaceProject;
let ws: Workspace;
let clamp: DocumentSnapshot;
beforeAll(() => {
  root = copyFixture('rename');
  ws = new Workspace(root);
  project = ws.projects.workspace;
  const fsPath = path.join(root, 'src/clamp.ts');
  clamp = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
});

function request(parameters: Record<string, string> = {}): AgentRequest {
  const at = clamp.text.indexOf('clampAll(values');
  const offer = renameTask.offersAt({ document: clamp, start: at, end: at, diagnostics: [] })[0]!;
  return { task: 'rename', interactionId: 'i', text: 'rename clampAll', document: clamp, target: offer.target, parameters, workspace: ws, project, history: [] };
}

/** A model that answers the prompts in order and keeps them. */
function scripted(...answers: string[]) {
  const prompts: Prompt[] = [];
  const ask: AskModel = (prompt) => {
    prompts.push(prompt);
    return Promise.resolve({ text: answers[prompts.length - 1] ?? '', finishReason: 'stop' });
  };
  return { prompts, ask };
}

describe('parseSuggestedNames', () => {
  it('reads one identifier per line, dropping list markers, quotes, explanations and the mask', () => {
    expect(parseSuggestedNames('1. `clampValues` - clamps each value\n- boundAll\n\n* "limitValues"\n__NAME__\nfourthName')).toEqual(['clampValues', 'boundAll', 'limitValues']);
    expect(parseSuggestedNames('```\nclampEach\n```')).toEqual(['clampEach']);
  });
});

describe('renameModel.run', () => {
  it('asks with the name, then with the name hidden, and offers every valid name as its own rename', async () => {
    const model = scripted('clampValues\nclampOne\nclamp_values', 'clampEach\nclampValues\nboundValues');
    const answer = await renameModel.run!(request(), model.ask, undefined, new AbortController().signal);
    expect(model.prompts).toHaveLength(2);
    const [named, masked] = model.prompts as [Prompt, Prompt];
    expect(named.user).toContain('`clampAll`');
    expect(named.user).toContain("src/stats.ts:2: import { clampAll } from './clamp.js';");
    expect(named.user).toContain('camelCase');
    expect(`${masked.system}\n${masked.user}`).not.toContain('clampAll');
    expect(masked.user).toContain(`export function ${MASK}(values: number[], range: Range): number[] {`);
    expect(masked.user).toContain(`import { ${MASK} as clampEvery } from './clamp.js';`);

    // clampOne clashes and clamp_values breaks the convention: both are left out.
    const all = [answer, ...(answer.alternatives ?? [])];
    expect(all.map((a) => a.text.split('\n')[0])).toEqual(['Rename clampAll to clampValues', 'Rename clampAll to clampEach', 'Rename clampAll to boundValues']);
    expect(answer.text).toContain('Suggested both with the current name and with it hidden.');
    expect(all[1]!.text).toContain('with the current name hidden');
    for (const alternative of all) {
      const converted = renameTask.convertAnswer(alternative, { workspace: ws, document: clamp, target: request().target, parameters: {} }, undefined);
      expect(converted).toMatchObject({ ok: true, kind: 'edit', text: expect.stringMatching(/: 7 edits in 3 files/) });
    }
  });

  it('explains, without the current name, why no suggestion can be used', async () => {
    const model = scripted('clampOne', 'class\nclampAll');
    const answer = await renameModel.run!(request(), model.ask, undefined, new AbortController().signal);
    expect(answer.proposal).toBeUndefined();
    expect(answer.text).toMatch(/^none of the suggested names can be used: a function named clampOne is already visible/);
    expect(answer.text).toContain('`class` is a reserved word');
    expect(answer.text).not.toContain('clampAll');
  });

  it('leaves a given name to the offline agent', async () => {
    const model = scripted('x');
    expect(await renameModel.run!(request({ newName: 'clampValues' }), model.ask, undefined, new AbortController().signal)).toEqual({ text: '' });
    expect(model.prompts).toHaveLength(0);
  });

  it('fills a user template for both prompts, hiding the name in the second', async () => {
    const model = scripted('clampValues', 'clampEach');
    await renameModel.run!(request(), model.ask, 'Name this {{kind}}: {{symbol}}\n{{code}}', new AbortController().signal);
    expect(model.prompts[0]!.user).toMatch(/^Name this function: clampAll\n/);
    expect(model.prompts[1]!.user).toMatch(new RegExp(`^Name this function: ${MASK}\\n`));
    expect(model.prompts[1]!.user).not.toContain('clampAll');
  });

  it('stops between the two calls when cancelled', async () => {
    const controller = new AbortController();
    const ask: AskModel = () => {
      controller.abort(new Error('cancelled'));
      return Promise.resolve({ text: 'clampValues', finishReason: 'stop' });
    };
    await expect(renameModel.run!(request(), ask, undefined, controller.signal)).rejects.toThrow('cancelled');
  });
});
