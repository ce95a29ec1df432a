// Unit tests for the offline Fix agent and the Fix model prompt: the compiler's fixes as proposals on a real workspace, and what the model is shown.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineFixAgent, formatSettingsFor } from '../../server/src/agents/offline/fixAgent.js';
import { fixModel, fileAround } from '../../server/src/agents/model/fixModel.js';
import type { AgentAnswer, AgentRequest } from '../../server/src/agents/agent.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { fixTask } from '../../server/src/tasks/fixTask.js';
import type { DiagnosticInfo } from '../../server/src/tasks/task.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { typeCheckProposal, fixRule } from '../../server/src/oracle/typeCheck.js';
import { copyFixture } from '../support/lspClient.js';

let root: string;
let project: WorkspaceProject;
let ws: Workspace;
let document: DocumentSnapshot;
const agent = new OfflineFixAgent();

beforeAll(() => {
  root = copyFixture('fix');
  ws = new Workspace(root);
  project = ws.projects.workspace;
  const fsPath = path.join(root, 'src', 'main.ts');
  fs.writeFileSync(fsPath, `${fs.readFileSync(fsPath, 'utf8')}\nexport function scale(factor) {\n  return factor * 2;\n}\n\ninterface Retry {\n  failureCount: number;\n}\nexport const retry: Retry = { failureCnt: 1 };\nexport const joined = [1, 2].jion('-');\nexport const bound = shout.bnid(null);\ninterface Issue {\n  [key: string]: unknown;\n  values: string[];\n}\nexport const count = (issue: Issue) => issue.vaules.length;\n`);
  document = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 3, text: fs.readFileSync(fsPath, 'utf8') };
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function diagnostic(needle: string, code: number | string | undefined, message: string, length = needle.length, source: string | undefined = 'ts'): DiagnosticInfo {
  const start = document.text.indexOf(needle);
  if (start < 0) throw new Error(needle);
  return { start, end: start + length, message, ...(code !== undefined ? { code } : {}), ...(source ? { source } : {}) };
}

function request(d: DiagnosticInfo, doc = document): AgentRequest {
  const [offer] = fixTask.offersAt({ document: doc, start: d.start, end: d.start, diagnostics: [d] });
  return { task: 'fix', interactionId: 'i', text: 'fix', document: doc, target: offer!.target, parameters: {}, workspace: ws, project, history: [] };
}

const live = (): AbortSignal => new AbortController().signal;

/** The document's text after an answer's proposal. */
function after(answer: AgentAnswer): string {
  const plan = answer.proposal!.documents.find((d) => d.uri === document.uri)!;
  expect(plan).toMatchObject({ version: 3, baseText: document.text });
  return applyOffsetEdits(plan.baseText, plan.edits);
}

describe('OfflineFixAgent', () => {
  it('adds the missing import first, with the other compiler fixes as alternatives', async () => {
    const answer = await agent.run(request(diagnostic('add(', 2304, "Cannot find name 'add'.", 3)), live());
    expect(answer.text).toBe('Add import from "./math.js"');
    expect(after(answer)).toContain("import { fetchCount } from './count.js';\nimport { add } from './math.js';\n");
    expect(answer.alternatives?.map((a) => a.text)).toEqual(["Add missing function declaration 'add'"]);
    // The import passes the oracle's fix rule.
    expect((await typeCheckProposal(project, answer.proposal!, live(), fixRule)).passed).toBe(true);
  }, 30_000);

  it('corrects a spelling', async () => {
    const answer = await agent.run(request(diagnostic('mesage', 2552, "Cannot find name 'mesage'. Did you mean 'message'?")), live());
    expect(answer.text).toBe("Change spelling to 'message'");
    expect(after(answer)).toContain('return message.toUpperCase();');
  }, 30_000);

  it("adds a missing await, for a client diagnostic with another source's code found through the compiler's own", async () => {
    const answer = await agent.run(request(diagnostic('toFixed', 'no-unsafe-call', 'Unsafe call', 7, 'eslint')), live());
    expect(answer.text).toBe("Add 'await' to initializer for 'count'");
    expect(after(answer)).toContain('const count = await fetchCount();');
    expect(answer.alternatives?.map((a) => a.text)).toEqual(["Add 'await'"]);
  }, 30_000);

  it('infers parameter types from usage', async () => {
    const answer = await agent.run(request(diagnostic('factor)', 7006, "Parameter 'factor' implicitly has an 'any' type.", 6)), live());
    expect(answer.text).toBe('Infer parameter types from usage');
    expect(after(answer)).toContain('export function scale(factor: number) {');
  }, 30_000);

  it("writes the name TypeScript's own message suggests where the compiler has no code fix for it", async () => {
    const message = "Object literal may only specify known properties, but 'failureCnt' does not exist in type 'Retry'. Did you mean to write 'failureCount'?";
    const answer = await agent.run(request(diagnostic('failureCnt', 2561, message)), live());
    expect(answer.text).toBe("Change spelling to 'failureCount'");
    expect(after(answer)).toContain('export const retry: Retry = { failureCount: 1 };');
    expect((await typeCheckProposal(project, answer.proposal!, live(), fixRule)).passed).toBe(true);
  }, 30_000);

  it('finds the member one typo away where the compiler suggests none', async () => {
    for (const [written, meant] of [['jion', 'join'], ['bnid', 'bind']] as const) {
      const message = `Property '${written}' does not exist on type 'x'.`;
      const answer = await agent.run(request(diagnostic(written, 2339, message)), live());
      expect(answer.text).toBe(`Change spelling to '${meant}'`);
      expect(after(answer)).toContain(`.${meant}(`);
    }
    // Behind an index signature the slip is a value of type unknown, reported on the whole access.
    const answer = await agent.run(request(diagnostic('issue.vaules', 18046, "'issue.vaules' is of type 'unknown'.")), live());
    expect(answer.text).toBe("Change spelling to 'values'");
    expect(after(answer)).toContain('issue.values.length');
  }, 30_000);

  it('answers empty, with the reason, when the compiler has no fix', async () => {
    const answer = await agent.run(request(diagnostic('export function total', 9999, 'Something else.', 6)), live());
    expect(answer).toEqual({ text: '', reason: 'TypeScript has no code fix for TS9999 here' });
  }, 30_000);

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    const pending = agent.run(request(diagnostic('mesage', 2552, "Cannot find name 'mesage'.")), controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
  });

  it('formats like the file: tabs or its indentation step, and its newlines', () => {
    expect(formatSettingsFor('a {\n    b;\n        c;\n}\n')).toMatchObject({ indentSize: 4, convertTabsToSpaces: true, newLineCharacter: '\n' });
    expect(formatSettingsFor('a {\r\n\tb;\r\n}\r\n')).toMatchObject({ convertTabsToSpaces: false, newLineCharacter: '\r\n' });
    expect(formatSettingsFor('/**\n * doc\n */\nx;\n')).toMatchObject({ indentSize: 2 });
  });
});

describe('fixTask.check', () => {
  it("holds compiler diagnostics to the fix rule, and other sources' fixes to no new diagnostics", async () => {
    const end = document.text.length;
    const proposal = { documents: [{ uri: document.uri, version: 3, baseText: document.text, edits: [{ start: end, end, newText: 'export const unused = 1;\n' }] }], creates: [] };
    const check = (d: DiagnosticInfo) => fixTask.check!(proposal, { workspace: ws, document, target: request(d).target, parameters: {} }, { root, project, oracle: { runTests: false, testTimeoutMs: 1000 } }, live());
    const typescript = await check(diagnostic('mesage', 2552, "Cannot find name 'mesage'."));
    expect(typescript.passed).toBe(false);
    expect(typescript.summary).toMatch(/^8 errors before, 8 after: the fix must leave fewer diagnostics$/);
    const lint = await check(diagnostic('mesage', 'no-undef', "'mesage' is not defined.", 6, 'eslint'));
    expect(lint).toEqual({ passed: true, summary: '8 errors before, 8 after' });
  }, 30_000);
});

describe('fixModel.buildPrompt', () => {
  it("shows the diagnostic with its code and line, the declaration, and the file's imports (not the rest of the file)", () => {
    const prompt = fixModel.buildPrompt(request(diagnostic('mesage', 2552, "Cannot find name 'mesage'. Did you mean 'message'?")), undefined)!;
    expect(prompt.system).toContain('exactly one code fence');
    expect(prompt.user).toContain("line 12: error TS2552: Cannot find name 'mesage'. Did you mean 'message'?");
    expect(prompt.user).toContain('It is in this function (line 10 of the file):\n```typescript\nexport function shout(label: string): string {');
    expect(prompt.user).toContain("The file's imports:\n```typescript\n// Code with one problem per function: a missing import, a misspelled name, a missing await.\nimport { fetchCount } from './count.js';\n```");
    expect(prompt.user.match(/export function shout\(/g)).toHaveLength(1);
    expect(prompt.user).toContain('Answer with the whole corrected function in one ```typescript code fence');
  });

  it('fills a user template with the diagnostic and the file', () => {
    const prompt = fixModel.buildPrompt(request(diagnostic('mesage', 2552, 'Cannot find it.')), 'Fix {{diagnostic}} in {{symbol}}')!;
    expect(prompt.user).toBe('Fix line 12: error TS2552: Cannot find it. in TS2552');
  });

  it('clips a long file around the target, keeping its head', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `const line${i} = ${i};`);
    const text = lines.join('\n');
    const target = text.indexOf('const line2000 ');
    const clipped = fileAround(text, target, target + 20, 4000);
    expect(clipped.length).toBeLessThan(4200);
    expect(clipped.startsWith('const line0 = 0;\n')).toBe(true);
    expect(clipped).toContain('const line2000 = 2000;');
    expect(clipped).toMatch(/\/\* … \d+ characters left out … \*\/\nconst line\d+ = \d+;/);
    expect(clipped).not.toContain('const line2999');
  });
});
