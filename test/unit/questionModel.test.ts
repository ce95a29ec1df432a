// Unit tests of the Question strategy for model agents: retrieved code in the prompt within a budget, citations, overrides.
import { describe, expect, it } from 'vitest';
import type { AskModel, Prompt } from '../../server/src/agents/modelTask.js';
import { modelTasks } from '../../server/src/agents/modelTasks.js';
import { CONTEXT_BUDGET, contextBlock, questionModel } from '../../server/src/agents/model/questionModel.js';
import { LexicalIndex } from '../../server/src/repo/lexical/lexicalIndex.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import type { Workspace } from '../../server/src/workspace/workspace.js';
import { Session } from '../../server/src/workspace/session.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

/** The workspaces of these tests, one per folder, as the server keeps them. */
const session = new Session();

/** A request's workspace and the project of its root tsconfig. */
function inWorkspace(root: string): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = session.workspace(root);
  return { workspace, project: workspace.projects.workspace };
}

/** A request as assistant/ask builds it for a workspace-wide task: the workspace folder stands in for a document. */
function questionRequest(root: string, question: string): AgentRequest {
  return {
    task: 'question',
    interactionId: 'interaction-1',
    text: question,
    document: { uri: pathToUri(root), fsPath: root, languageId: 'plaintext', version: null, text: '' },
    target: { name: 'the workspace', start: 0, end: 0 },
    parameters: { question },
    ...inWorkspace(root),
    history: [],
  };
}

function scripted(answer: string): { ask: AskModel; prompts: Prompt[] } {
  const prompts: Prompt[] = [];
  const ask: AskModel = (prompt) => {
    prompts.push(prompt);
    return Promise.resolve({ text: answer, finishReason: 'stop' });
  };
  return { ask, prompts };
}

const signal = new AbortController().signal;

describe('the question strategy', () => {
  it('is served by model agents', () => {
    expect(modelTasks()).toContain('question');
  });

  it('sends the question with the retrieved code, best first, headed by path:line, and returns the answer', async () => {
    const root = copyFixture('question');
    const { ask, prompts } = scripted('Retries happen in `withRetry` (src/retry.ts:26), with delays from src/retry.ts:18.');
    const answer = await questionModel.run!(questionRequest(root, 'where is the retry backoff implemented?'), ask, undefined, signal);
    expect(prompts).toHaveLength(1);
    const { system, user } = prompts[0]!;
    expect(system).toMatch(/cite/i);
    expect(user).toContain('Question: where is the retry backoff implemented?');
    const top = (await session.workspace(root).index.search('where is the retry backoff implemented?'))[0]!;
    expect(user).toContain(`${top.path}:${top.startLine}-${top.endLine} — ${top.kind} ${top.name}`);
    expect(user).toContain(top.snippet.split('\n')[0]);
    expect(user.indexOf('src/retry.ts:')).toBeLessThan(user.indexOf('src/httpClient.ts:'));
    expect(user).not.toContain('CANARY');
    expect(user.length).toBeLessThan(CONTEXT_BUDGET + 2_000);
    expect(answer.text).toBe('Retries happen in `withRetry` (src/retry.ts:26), with delays from src/retry.ts:18.');
  });

  it('adds the retrieved locations to an answer that cites none', async () => {
    const root = copyFixture('question');
    const { ask } = scripted('The configuration is read from a JSON file and merged with defaults.');
    const answer = await questionModel.run!(questionRequest(root, 'how is the config loaded'), ask, undefined, signal);
    expect(answer.text).toMatch(/^The configuration is read[^\n]*\n\nRetrieved locations:\n- src\/config\.ts:\d+ — function loadConfig/);
  });

  it('fills a user template with {{question}} and {{context}}', async () => {
    const root = copyFixture('question');
    const { ask, prompts } = scripted('src/cache.ts:9');
    await questionModel.run!(questionRequest(root, 'which class caches values?'), ask, 'Q={{question}}\nCODE={{context}}', signal);
    expect(prompts[0]!.user).toMatch(/^Q=which class caches values\?\nCODE=src\/cache\.ts:\d+-\d+ — (class|method) LruCache/);
  });

  it('says so in the prompt when nothing matches, and returns nothing for an empty answer', async () => {
    const root = copyFixture('question');
    const { ask, prompts } = scripted('   ');
    const answer = await questionModel.run!(questionRequest(root, 'kubernetes helm chart ingress'), ask, undefined, signal);
    expect(prompts[0]!.user).toContain('(no code in the workspace matched the question)');
    expect(answer.text).toBe('');
  });
});

describe('the context block', () => {
  it('keeps within the character budget, always includes the best location, and skips locations inside included ones', async () => {
    const index = new LexicalIndex(copyFixture('question'));
    const locations = await index.search('cache entries evicted expired', { limit: 12 });
    const whole = contextBlock(locations, index);
    // The class comes whole, in the place of its best-ranked method, so its methods are not repeated.
    expect(locations.findIndex((l) => l.name === 'LruCache')).toBeGreaterThan(0);
    expect(whole.used.map((l) => l.name)).toContain('LruCache');
    expect(whole.used.filter((l) => l.name.startsWith('LruCache.'))).toEqual([]);
    expect(whole.used[0]!.path).toBe(locations[0]!.path);
    expect(whole.text.split('export class LruCache')).toHaveLength(2);

    const roomy = contextBlock(locations, index, 300);
    expect(roomy.text.length).toBeLessThanOrEqual(300);
    // Even the best location alone is too long for 120 characters: it is cut, and nothing else fits.
    const tight = contextBlock(locations, index, 120);
    expect(tight.used).toHaveLength(1);
    expect(tight.text.length).toBeLessThanOrEqual(120);
    expect(tight.text).toContain('…');
    expect(tight.text.startsWith(`${locations[0]!.path}:${locations[0]!.startLine}`)).toBe(true);
  });

  it('builds a prompt synchronously from the index as it stands', async () => {
    const root = copyFixture('question');
    await session.workspace(root).index.refresh();
    const prompt = questionModel.buildPrompt(questionRequest(root, 'how is the log level filtered?'), undefined);
    expect(prompt?.user).toMatch(/src\/logger\.ts:\d+/);
  });
});
