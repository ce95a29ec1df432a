// Tests that a file's program (the file, its imports and the files that declare for every file) answers for that file as the tsconfig's whole program does.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OfflineDocumentAgent } from '../../server/src/agents/offline/documentAgent.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import type { Proposal } from '../../server/src/edits/proposal.js';
import { indentBlock } from '../../server/src/edits/jsdoc.js';
import { typeCheckProposal } from '../../server/src/oracle/typeCheck.js';
import { listDeclarations } from '../../server/src/repo/declarations.js';
import type { DeclarationTarget } from '../../server/src/repo/declarations.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { declaresForOtherFiles } from '../../server/src/workspace/projectConfigs.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { loadWorkspaceFiles } from '../../server/src/workspace/workspaceProject.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { copyFixture } from '../support/lspClient.js';

// src/main.ts imports types from settings.ts and units.ts, and uses globals it never imports: FEATURES (src/env.d.ts),
// nextTick and Clock (types/clock, through the tsconfig's `types`), RetryPolicy (`declare global` in src/policy.ts,
// a module) and formatMillis (src/legacy.ts, a script).
const root = copyFixture('firstprogram');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const MAIN = path.join(root, 'src', 'main.ts');
const mainText = fs.readFileSync(MAIN, 'utf8');
const never = new AbortController().signal;
const agent = new OfflineDocumentAgent();

/** The project a fresh session's first task on main.ts gets: nothing loaded before it. */
function fileProgram(): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = new Workspace(root);
  return { workspace, project: workspace.projects.forFile(MAIN) };
}

/** A project holding every file the tsconfig lists, as rename and find references load it. */
function wholeProgram(): { workspace: Workspace; project: WorkspaceProject } {
  const made = fileProgram();
  loadWorkspaceFiles(made.project, never);
  return made;
}

function requestFor(workspace: Workspace, project: WorkspaceProject, target: DeclarationTarget): AgentRequest {
  return {
    task: 'document',
    interactionId: 'test',
    text: 'document this',
    document: { uri: pathToUri(MAIN), fsPath: MAIN, languageId: 'typescript', version: 1, text: mainText },
    target: declarationTarget(target),
    parameters: {},
    history: [],
    workspace,
    project,
  };
}

/** The Document answer for every declaration of main.ts from a project `make` makes (Document loads no files). */
async function documentAnswers(make: () => { workspace: Workspace; project: WorkspaceProject }): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const { workspace, project } = make();
  for (const target of listDeclarations(MAIN, mainText)) {
    const answer = await agent.run(requestFor(workspace, project, target), never);
    answers.set(target.name, answer.text || `declined: ${answer.reason ?? ''}`);
  }
  return answers;
}

/** The Document answer put above its declaration, as the task's edit. */
function documentProposal(target: DeclarationTarget, doc: string): Proposal {
  return { documents: [{ uri: pathToUri(MAIN), version: 1, baseText: mainText, edits: [{ start: target.lineStart, end: target.lineStart, newText: indentBlock(doc, target.indent) }] }], creates: [] };
}

describe("a file's program", () => {
  it('gives the Document task the answers the whole program gives, types from undeclared globals included', async () => {
    const first = await documentAnswers(fileProgram);
    const whole = await documentAnswers(wholeProgram);
    expect([...first.keys()]).toEqual(['isVerbose', 'isLate', 'retryPolicy', 'lateness', 'describeWait', 'overdue']);
    expect(first).toEqual(whole);
    // What only the globals' types tell: a boolean (FEATURES in env.d.ts, nextTick from the tsconfig's `types`).
    expect(first.get('isVerbose')).toContain('@returns `true` when `FEATURES.verbose`');
    expect(first.get('isLate')).toContain('@returns `true` when `nextTick().late`');
  }, 60_000);

  it("gives the oracle's verdict on an edit to the file that the whole program gives", async () => {
    const targets = listDeclarations(MAIN, mainText);
    const retry = targets.find((t) => t.name === 'retryPolicy') as DeclarationTarget;
    const described = targets.find((t) => t.name === 'describeWait') as DeclarationTarget;
    const proposals = [
      documentProposal(retry, '/**\n * The retry policy.\n */'),
      // An edit whose correctness depends on a global declared in a module nobody imports (policy.ts).
      { documents: [{ uri: pathToUri(MAIN), version: 1, baseText: mainText, edits: [{ start: retry.lineStart, end: retry.lineStart, newText: 'export const noRetries: RetryPolicy = { attempts: 0, backoff: 0 };\n\n' }] }], creates: [] },
      // One that is wrong by a script's global's type (legacy.ts): formatMillis takes a number.
      { documents: [{ uri: pathToUri(MAIN), version: 1, baseText: mainText, edits: [{ start: described.lineStart, end: described.lineStart, newText: "export const never = formatMillis('0');\n\n" }] }], creates: [] },
    ];
    const verdicts = async (make: () => { project: WorkspaceProject }): Promise<unknown[]> => {
      const out: unknown[] = [];
      // A check restores the project's texts, so one project serves them all.
      const { project } = make();
      for (const proposal of proposals) out.push(await typeCheckProposal(project, proposal, never));
      return out;
    };
    const first = await verdicts(fileProgram);
    expect(first).toEqual(await verdicts(wholeProgram));
    expect(first).toEqual([
      { passed: true, summary: '0 errors before, 0 after' },
      { passed: true, summary: '0 errors before, 0 after' },
      { passed: false, summary: '0 errors before, 1 after: 1 new diagnostic', details: [expect.stringMatching(/^new: src\/main\.ts:\d+: error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'\./)] },
    ]);
  }, 60_000);
});

describe('declaresForOtherFiles', () => {
  it('takes declaration files, augmentations and scripts, and leaves modules that declare only for their importers', () => {
    expect(declaresForOtherFiles('/w/env.d.ts', 'export interface Env {}')).toBe(true);
    expect(declaresForOtherFiles('/w/policy.ts', 'export {};\ndeclare global {\n  interface P {}\n}\n')).toBe(true);
    expect(declaresForOtherFiles('/w/plugin.ts', "import 'zod';\ndeclare module 'zod' {\n  interface ZodType { extra(): void }\n}\n")).toBe(true);
    expect(declaresForOtherFiles('/w/legacy.ts', 'function formatMillis(ms: number) {\n  return `${ms}`;\n}\n')).toBe(true);
    // An indented `export` belongs to a namespace: the file is still a script, and the namespace a global.
    expect(declaresForOtherFiles('/w/names.ts', 'namespace Names {\n  export const a = 1;\n}\n')).toBe(true);
    expect(declaresForOtherFiles('/w/units.ts', 'export type Millis = number;\n')).toBe(false);
    expect(declaresForOtherFiles('/w/main.ts', "import { a } from './a.js';\nconsole.log(a);\n")).toBe(false);
    // A CommonJS script's globals are not TypeScript's concern here: JavaScript files are taken only as imported.
    expect(declaresForOtherFiles('/w/old.js', 'function f() {}\n')).toBe(false);
  });
});
