// Unit tests of embedding retrieval against the scripted endpoint's /embeddings: vectors made once and reused, the query's nearest declaration first, rankings fused with the lexical index, ignored files never embedded, secrets redacted, and the lexical ranking alone when the endpoint fails.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelClient } from '../../server/src/agents/modelClient.js';
import type { LexicalIndex } from '../../server/src/repo/lexical/lexicalIndex.js';
import { embeddingSearch, embeddingText, fuseRankings } from '../../server/src/repo/embeddingIndex.js';
import type { Embedder } from '../../server/src/repo/embeddingIndex.js';
import { RepositoryTools } from '../../server/src/repo/repositoryTools.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let root: string;
let workspace: Workspace;
let index: LexicalIndex;
let model: ScriptedModel;

beforeAll(async () => {
  root = copyFixture('tools');
  fs.mkdirSync(path.join(root, 'src', 'generated'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'generated', 'secretShape.ts'), "export class SecretShape {\n  canary = 'EMBED-CANARY-5521';\n}\n");
  fs.writeFileSync(path.join(root, 'src', 'util', 'keys.ts'), "/** Signs with sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0 */\nexport function sign(text: string): string {\n  return text;\n}\n");
  workspace = new Workspace(root);
  index = workspace.index;
  await index.refresh();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

/** A distinct model name per test: vectors are kept per model, so each test starts with none. */
function embedder(name: string): Embedder {
  const client = new ModelClient({ apiKey: 'k', baseURL: model.baseURL, model: 'chat', timeoutMs: 10_000, idleTimeoutMs: 5_000, maxRetries: 1, stream: false });
  return { key: `${name}@scripted`, embed: (texts, signal) => client.embed(texts, name, signal) };
}
const embeddingCalls = (): number => model.requests.filter((r) => r.path.endsWith('/embeddings')).length;
const signal = (): AbortSignal => new AbortController().signal;

describe('embedding retrieval', () => {
  it('ranks the declaration whose text matches the query first, and embeds declarations only once', async () => {
    const target = index.declarations((name) => name === 'Circle.area')[0]!;
    const e = embedder('embed-a');
    const hits = await embeddingSearch(index, e, embeddingText(target), 3, signal());
    expect(hits[0]!.declaration).toMatchObject({ name: 'Circle.area', path: 'src/shapes/circle.ts' });
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    const first = embeddingCalls();
    expect(first).toBeGreaterThanOrEqual(2);
    await embeddingSearch(index, e, 'something else entirely', 3, signal());
    expect(embeddingCalls()).toBe(first + 1);
  });

  it('never embeds an ignored file, and redacts secrets before they leave', async () => {
    await embeddingSearch(index, embedder('embed-b'), 'shapes', 3, signal());
    const sent = model.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => r.rawBody).join('\n');
    expect(sent).toContain('Circle.area');
    expect(sent).not.toContain('SecretShape');
    expect(sent).not.toContain('EMBED-CANARY-5521');
    expect(sent).not.toContain('sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0');
  });

  it('get_relevant_code fuses the embedding and lexical rankings', async () => {
    const target = index.declarations((name) => name === 'Circle.diameter')[0]!;
    const tools = new RepositoryTools(workspace, embedder('embed-c'));
    const answer = await tools.call('get_relevant_code', { query: embeddingText(target), limit: 3 });
    expect(answer.split('\n\n')[0]).toMatch(/^src\/shapes\/circle\.ts:\d+-\d+ getter Circle\.diameter\n/);
    expect(answer).not.toMatch(/embeddings unavailable/);
    expect(embeddingCalls()).toBeGreaterThan(0);
  });

  it('falls back to the lexical ranking, saying so, when the endpoint fails', async () => {
    // Nothing listens on port 1: every call fails as a connection error would.
    const unreachable = new ModelClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1', model: 'chat', timeoutMs: 5_000, idleTimeoutMs: 5_000, maxRetries: 0, stream: false });
    const tools = new RepositoryTools(workspace, { key: 'down@nowhere', embed: (texts, s) => unreachable.embed(texts, 'down', s) });
    const answer = await tools.call('get_relevant_code', { query: 'clamp a value between min and max' });
    expect(answer).toMatch(/function clamp/);
    expect(answer).toMatch(/\(embeddings unavailable, lexical ranking only: cannot reach 127\.0\.0\.1:1/);
  });

  it('fuses rankings by reciprocal rank', () => {
    expect(fuseRankings([['a', 'b', 'c'], ['c', 'a', 'd']])).toEqual(['a', 'c', 'b', 'd']);
    expect(fuseRankings([[], ['x']])).toEqual(['x']);
  });
});
