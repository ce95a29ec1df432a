// Unit tests of the Question task and its offline agent: the ranked locations as markdown, the editor's text, the task contract.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import { OfflineQuestionAgent, fenceFor, formatLocations } from '../../server/src/agents/offline/questionAgent.js';
import { buildRegistry } from '../../server/src/agents/registry.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { questionTask } from '../../server/src/tasks/questionTask.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

/** A request's workspace and the project of its root tsconfig. */
function inWorkspace(root: string): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = new Workspace(root);
  return { workspace, project: workspace.projects.workspace };
}

/** A request as assistant/ask builds it for a workspace-wide task: the workspace folder stands in for a document. */
function questionRequest(root: string, question: string, document?: DocumentSnapshot): AgentRequest {
  return {
    task: 'question',
    interactionId: 'interaction-1',
    text: question,
    document: document ?? { uri: pathToUri(root), fsPath: root, languageId: 'plaintext', version: null, text: '' },
    target: { name: 'the workspace', start: 0, end: 0 },
    parameters: { question },
    ...inWorkspace(root),
    history: [],
  };
}

function lineOf(root: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('the offline question agent', () => {
  it('answers with a markdown list of locations, best first, each `path:line — kind name` with a fenced snippet', async () => {
    const root = copyFixture('question');
    const answer = await new OfflineQuestionAgent().run(questionRequest(root, 'where is the retry logic implemented?'), new AbortController().signal);
    const items = answer.text.split('\n').filter((l) => /^\d+\. /.test(l));
    expect(items[0]).toMatch(/^1\. src\/retry\.ts:\d+ — (function|interface|variable) \w+$/);
    expect(items.length).toBeGreaterThan(1);
    expect(items.length).toBeLessThanOrEqual(8);
    // At most three locations of one file, so the other files that use retries show too.
    expect(items.filter((l) => l.includes('src/retry.ts:')).length).toBeLessThanOrEqual(3);
    expect(answer.text).toContain(`src/retry.ts:${lineOf(root, 'src/retry.ts', 'export async function withRetry')} — function withRetry`);
    expect(answer.text).toMatch(/\n {3}```ts\n {3}export async function withRetry<T>/);
    expect(answer.text).not.toContain('CANARY');
    expect(answer.proposal).toBeUndefined();
  });

  it('reads the question from the parameters, as commands pass it', async () => {
    const root = copyFixture('question');
    const request = { ...questionRequest(root, 'ignored'), text: 'question the workspace', parameters: { question: 'how is the config loaded' } };
    const answer = await new OfflineQuestionAgent().run(request, new AbortController().signal);
    expect(answer.text.split('\n').find((l) => l.startsWith('1. '))).toBe(`1. src/config.ts:${lineOf(root, 'src/config.ts', 'export async function loadConfig')} — function loadConfig`);
  });

  it('searches the unsaved text of the document it was asked from', async () => {
    const root = copyFixture('question');
    const file = path.join(root, 'src', 'logger.ts');
    const text = `${fs.readFileSync(file, 'utf8')}\n/** Ships log lines to the telemetry collector. */\nexport function telemetryShipper(): void {}\n`;
    const document: DocumentSnapshot = { uri: pathToUri(file), fsPath: file, languageId: 'typescript', version: 3, text };
    const answer = await new OfflineQuestionAgent().run(questionRequest(root, 'where are logs shipped to telemetry?', document), new AbortController().signal);
    expect(answer.text).toMatch(/^1\. src\/logger\.ts:\d+ — function telemetryShipper$/m);
  });

  it('returns nothing when no code matches, and stops when cancelled', async () => {
    const root = copyFixture('question');
    const agent = new OfflineQuestionAgent();
    expect((await agent.run(questionRequest(root, 'kubernetes helm chart ingress'), new AbortController().signal)).text).toBe('');
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(agent.run(questionRequest(root, 'retry'), controller.signal)).rejects.toThrow('cancelled');
  });

  it('is registered as a rule agent for the question task', () => {
    const registry = buildRegistry(DEFAULT_SETTINGS, {});
    expect(registry.forTask('question').map((a) => a.descriptor)).toContainEqual({ name: 'question-offline', technology: 'rule', isLLM: false });
  });
});

describe('formatting', () => {
  it('fences snippets with more backticks than they contain', () => {
    expect(fenceFor('const a = 1;')).toBe('```');
    expect(fenceFor('const s = `a ```` b`;')).toBe('`````');
    const text = formatLocations('q', [{ path: 'src/a.ts', fsPath: '/w/src/a.ts', startLine: 3, endLine: 4, commentLine: 2, kind: 'function', name: 'f', score: 1, snippet: 'function f() {\n\n}', matched: ['f'] }]);
    expect(text).toBe('Code locations for “q”, best first:\n\n1. src/a.ts:3 — function f\n   ```ts\n   function f() {\n\n   }\n   ```');
  });
});

describe('the question task', () => {
  it('is workspace-wide, offers nothing at a selection, and shows answers as text', () => {
    expect(questionTask.workspaceWide).toBe(true);
    const document: DocumentSnapshot = { uri: 'file:///w/a.ts', fsPath: '/w/a.ts', languageId: 'typescript', version: 1, text: 'export function f() {}\n' };
    expect(questionTask.offersAt({ document, start: 0, end: 0, diagnostics: [] })).toEqual([]);
    const run = { workspace: new Workspace('/w'), document, target: { name: 'the workspace', start: 0, end: 0 }, parameters: { question: 'q' } };
    expect(questionTask.convertAnswer({ text: '  1. src/a.ts:1 — function f\n' }, run, undefined)).toEqual({ ok: true, kind: 'text', text: '1. src/a.ts:1 — function f' });
    expect(questionTask.convertAnswer({ text: ' ' }, run, undefined)).toMatchObject({ ok: false });
  });
});
