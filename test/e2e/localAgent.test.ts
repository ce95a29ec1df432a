// A local model agent where node-llama-cpp is not installed: the bundle started from a folder without it names what to install, and every other agent still answers; bad entries are reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentsResult, AskResult } from '../../protocol/src/index.js';
import { REPO_ROOT, TestEditor, copyFixture } from '../support/lspClient.js';

// The bundle alone, outside the repository: nothing up its folders holds node_modules.
const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bundle-'));
const built = path.join(REPO_ROOT, 'dist', 'bundle');
for (const name of fs.readdirSync(built).filter((n) => n.endsWith('.mjs') || n.endsWith('.cjs'))) fs.copyFileSync(path.join(built, name), path.join(bundle, name));
afterAll(() => fs.rmSync(bundle, { recursive: true, force: true }));

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

describe('a local model agent', () => {
  it('without node-llama-cpp, fails with what to install while the offline agent answers', async () => {
    const root = copyFixture('basic');
    // Any file will do: the package is missing before the model is read.
    const modelPath = path.join(root, 'model.gguf');
    fs.writeFileSync(modelPath, 'not a model');
    const { editor } = await TestEditor.start({ root, bin: path.join(bundle, 'assistant-ls.mjs'), initializationOptions: { assistant: { useEnvironment: false, agents: [{ name: 'local', modelPath }] } } });
    editors.push(editor);
    const agents = await editor.request<AgentsResult>('assistant/agents', {});
    expect(agents.agents.find((a) => a.name === 'local')).toMatchObject({ isLLM: true, model: 'model.gguf', endpoint: 'local' });
    expect(agents.problems).toEqual([]);

    const doc = await editor.open('src/config.ts');
    const position = editor.position(doc.uri, 'parseConfig');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document parseConfig', task: 'document', textDocument: { uri: doc.uri }, range: { start: position, end: position } });
    const local = answer.responses.find((r) => r.agent.name === 'local');
    expect(local?.status).toBe('error');
    expect(local?.error).toMatch(/needs the optional package node-llama-cpp \(run `npm install node-llama-cpp`/);
    expect(answer.responses.find((r) => r.agent.name === 'doc-offline')).toMatchObject({ status: 'ok' });
    // The server goes on serving.
    expect((await editor.request<AgentsResult>('assistant/agents', {})).agents.length).toBeGreaterThan(1);
  });

  it('reports an entry with no model file, a relative path, or neither model nor modelPath, and leaves it out', async () => {
    const root = copyFixture('basic');
    const { editor } = await TestEditor.start({
      root,
      initializationOptions: { assistant: { useEnvironment: false, agents: [{ name: 'gone', modelPath: path.join(root, 'missing.gguf') }, { name: 'relative', modelPath: 'models/x.gguf' }, { name: 'nothing' }] } },
    });
    editors.push(editor);
    const agents = await editor.request<AgentsResult>('assistant/agents', {});
    expect(agents.agents.map((a) => a.name)).not.toContain('gone');
    expect(agents.problems).toEqual([
      'assistant.agents[2].model: required unless "modelPath" is given, the model to call on an endpoint, or a local GGUF file',
      `assistant.agents[0].modelPath: no file at ${path.join(root, 'missing.gguf')}; the agent is left out`,
      'assistant.agents[1].modelPath: must be an absolute path (or start with ~/), not "models/x.gguf"; the agent is left out',
    ]);
  });
});
