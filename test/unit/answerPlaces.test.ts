// Unit tests of the places text answers name: which ones each agent gives, how they become locations, how they read in a message.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRequest, AnswerPlace } from '../../server/src/agents/agent.js';
import type { AskModel } from '../../server/src/agents/modelTask.js';
import { explainModel } from '../../server/src/agents/model/explainModel.js';
import { citedLocations, questionModel } from '../../server/src/agents/model/questionModel.js';
import { OfflineExplainAgent } from '../../server/src/agents/offline/explainAgent.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import type { Workspace } from '../../server/src/workspace/workspace.js';
import { Session } from '../../server/src/workspace/session.js';
import { MAX_ANSWER_LOCATIONS, answerLocations } from '../../server/src/tasks/answerLocations.js';
import { explainTask } from '../../server/src/tasks/explainTask.js';
import { answerMarkdown, answerMessage, answerTitle } from '../../server/src/tasks/presentAnswer.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

/** The workspaces of these tests, one per folder, as the server keeps them. */
const session = new Session();

/** A request's workspace and the project of its root tsconfig. */
function inWorkspace(root: string): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = session.workspace(root);
  return { workspace, project: workspace.projects.workspace };
}

const signal = new AbortController().signal;

function questionRequest(root: string, question: string): AgentRequest {
  return {
    task: 'question',
    interactionId: 'i',
    text: question,
    document: { uri: pathToUri(root), fsPath: root, languageId: 'plaintext', version: null, text: '' },
    target: { name: 'the workspace', start: 0, end: 0 },
    parameters: { question },
    ...inWorkspace(root),
    history: [],
  };
}

const answering =
  (text: string): AskModel =>
  () =>
    Promise.resolve({ text, finishReason: 'stop' });

function lineOf(root: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('answerLocations', () => {
  const root = copyFixture('question');
  const retry = pathToUri(path.join(root, 'src', 'retry.ts'));
  const withRetry = lineOf(root, 'src/retry.ts', 'export async function withRetry');

  it('puts the range on the name, the last part of a qualified one, and skips repeats and lines that cannot be', () => {
    const places: AnswerPlace[] = [
      { uri: retry, line: withRetry, label: 'function withRetry', name: 'Retry.withRetry' },
      { uri: retry, line: withRetry, label: 'again' },
      { uri: retry, line: 0, label: 'no line' },
      { uri: retry, line: 1, label: 'the file comment' },
    ];
    const [named, comment, ...rest] = answerLocations(places, undefined);
    expect(rest).toEqual([]);
    const column = 'export async function '.length;
    expect(named).toEqual({ uri: retry, range: { start: { line: withRetry - 1, character: column }, end: { line: withRetry - 1, character: column + 'withRetry'.length } }, label: 'function withRetry' });
    expect(comment).toEqual({ uri: retry, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, label: 'the file comment' });
  });

  it('reads the line as the editor has it, lands on the first code of a line without the name, and keeps at most the cap', () => {
    const edited = { uri: retry, fsPath: null, languageId: 'typescript', version: 3, text: 'x\n    const withRetryCount = 1;\n' } as unknown as DocumentSnapshot;
    const documents = { get: (uri: string) => (uri === retry ? edited : undefined), openUris: () => [retry] };
    // `withRetry` is only part of a longer name there: the cursor goes to the line's first code instead.
    expect(answerLocations([{ uri: retry, line: 2, label: 'l', name: 'withRetry' }], documents)[0]!.range.start).toEqual({ line: 1, character: 4 });
    const many = Array.from({ length: MAX_ANSWER_LOCATIONS + 10 }, (_, i) => ({ uri: retry, line: i + 1, label: `${i}` }));
    expect(answerLocations(many, undefined)).toHaveLength(MAX_ANSWER_LOCATIONS);
  });
});

describe('the places model answers name', () => {
  it('are the retrieved locations a question answer cites, in the order it cites them; invented citations point nowhere', async () => {
    const root = copyFixture('question');
    const question = 'where is the retry backoff implemented?';
    const retrieved = await session.workspace(root).index.search(question, { limit: 12, maxPerFile: 4 });
    const backoff = retrieved.find((l) => l.name === 'backoffDelay')!;
    const withRetry = retrieved.find((l) => l.name === 'withRetry')!;
    const text = `Retries happen in \`withRetry\` (src/retry.ts:${withRetry.startLine}), with delays from ${backoff.path}:${backoff.startLine + 1}; see also src/nowhere.ts:3.`;
    expect(citedLocations(text, retrieved).map((l) => l.name)).toEqual(['withRetry', 'backoffDelay']);
    const answer = await questionModel.run!(questionRequest(root, question), answering(text), undefined, signal);
    expect(answer.places!.map((p) => p.label)).toEqual(['function withRetry', 'function backoffDelay']);
    expect(answer.places![0]).toMatchObject({ uri: pathToUri(withRetry.fsPath), line: withRetry.startLine, name: 'withRetry' });
  });

  it('are the retrieved locations the text lists when the answer cites none', async () => {
    const root = copyFixture('question');
    const answer = await questionModel.run!(questionRequest(root, 'how is the config loaded'), answering('It is read from a JSON file.'), undefined, signal);
    const listed = answer.text.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.replace(/^- \S+ — /, ''));
    expect(answer.places!.map((p) => p.label)).toEqual(listed);
    expect(listed.length).toBeGreaterThan(0);
  });

  it('are the code explained, its uses and its workspace callees for an explanation, as the offline agent gives them', async () => {
    const root = copyFixture('explain');
    const fsPath = path.join(root, 'src', 'main.ts');
    const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
    const at = document.text.indexOf('main(args');
    const [offer] = explainTask.offersAt({ document, start: at, end: at, diagnostics: [] });
    const request: AgentRequest = { task: 'explain', interactionId: 'i', text: 'explain main', document, target: offer!.target, parameters: {}, ...inWorkspace(root), history: [] };
    const offline = await new OfflineExplainAgent().run(request, signal);
    const model = await explainModel.run!(request, answering('`main` parses its arguments.'), undefined, signal);
    expect(model.text).toBe('`main` parses its arguments.');
    expect(model.places).toEqual(offline.places);
    const parser = pathToUri(path.join(root, 'src', 'parser.ts'));
    expect(offline.places![0]).toEqual({ uri: document.uri, line: 8, label: 'function main (explained)', name: 'main' });
    expect(offline.places).toContainEqual({ uri: parser, line: 15, label: 'calls parseEntries', name: 'parseEntries' });
  });
});

describe('an answer as a message and as a document', () => {
  const root = '/work/app';
  const answer = {
    interactionId: 'i',
    responseId: 'r',
    task: 'explain' as const,
    title: answerTitle('explain', 'parseEntries'),
    text: '**function `parseEntries`**, used in src/main.ts:5.',
    locations: [
      { uri: 'file:///work/app/src/parser.ts', range: { start: { line: 14, character: 16 }, end: { line: 14, character: 28 } }, label: 'function parseEntries (explained)' },
      { uri: 'file:///work/app/src/main.ts', range: { start: { line: 4, character: 9 }, end: { line: 4, character: 21 } }, label: 'used by countKeys' },
      { uri: 'file:///elsewhere/lib.ts', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, label: 'calls lib' },
    ],
  };

  it('list, after the whole text, the places the text does not already name as path:line', () => {
    expect(answerMessage(answer, root)).toBe(`Explain parseEntries\n\n${answer.text}\n\nPlaces:\nsrc/parser.ts:15 — function parseEntries (explained)\n/elsewhere/lib.ts:1 — calls lib`);
    expect(answerMarkdown(answer, root)).toBe(`# Explain parseEntries\n\n${answer.text}\n\n## Places\n\n- src/parser.ts:15 — function parseEntries (explained)\n- /elsewhere/lib.ts:1 — calls lib\n`);
    expect(answerMessage({ ...answer, locations: [] }, root)).toBe(`Explain parseEntries\n\n${answer.text}`);
    expect(answerTitle('question', 'the workspace', 'where is X?')).toBe('Question: where is X?');
  });
});
