// End-to-end settings: model agents from initializationOptions and workspace/configuration, prompt overrides, live changes, bad values, annotations off.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AgentsResult, TaskCommandResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, FULL_CAPABILITIES } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';

let model: ScriptedModel;
const editors: TestEditor[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await model.close();
});

/** The Document task's offline agent and the model agents: the ones settings add and remove. */
function configurable(agents: AgentsResult['agents']): AgentsResult['agents'] {
  return agents.filter((a) => a.isLLM || a.name === 'doc-offline');
}

/** The agent names, polled until `ready` holds (settings arrive asynchronously after `initialized`). */
async function agentNamesOnce(editor: TestEditor, ready: (names: string[]) => boolean): Promise<string[]> {
  let names: string[] = [];
  for (let i = 0; i < 100; i++) {
    names = configurable((await editor.request<AgentsResult>('assistant/agents', {})).agents).map((a) => a.name);
    if (ready(names)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return names;
}

async function runDocument(editor: TestEditor, uri: string, needle: string): Promise<TaskCommandResult> {
  const position = editor.position(uri, needle);
  const [action] = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
}

describe('settings', () => {
  it('registers several model agents from initializationOptions, each with its prompt override, and lets the user choose', async () => {
    const { editor } = await TestEditor.start({
      root: copyFixture('basic'),
      initializationOptions: {
        assistant: {
          disabledAgents: ['doc-offline'],
          agents: [
            { name: 'alpha', baseURL: model.baseURL, apiKey: 'a', model: 'model-a', temperature: 0.1, stream: false, prompts: { document: 'ALPHA PROMPT for {{symbol}}:\n{{code}}' } },
            { name: 'beta', baseURL: model.baseURL, apiKey: 'b', model: 'model-b' },
          ],
        },
      },
    });
    editors.push(editor);
    const { agents, problems } = await editor.request<AgentsResult>('assistant/agents', {});
    expect(problems).toEqual([]);
    expect(configurable(agents).map((a) => [a.name, a.model])).toEqual([['alpha', 'model-a'], ['beta', 'model-b']]);

    model.setDefault({ kind: 'dynamic', respond: (req) => ({ kind: 'text', content: `/** Written by ${req.body.model}. */` }) });
    editor.onQuestion = (params) => params.actions!.find((a) => a.title === 'Use beta') ?? null;
    const doc = await editor.open('src/config.ts');
    const result = await runDocument(editor, doc.uri, 'parseConfig(text');
    expect(result.applied).toBe(true);
    expect(editor.buffer(doc.uri).text).toContain('Written by model-b.');
    const alphaRequest = model.requests.find((r) => r.body.model === 'model-a')!;
    expect(alphaRequest.body.temperature).toBe(0.1);
    expect(alphaRequest.body.stream).toBe(false);
    expect(JSON.stringify(alphaRequest.body.messages)).toContain('ALPHA PROMPT for parseConfig');
    expect(JSON.stringify(model.requests.find((r) => r.body.model === 'model-b')!.body.messages)).not.toContain('ALPHA PROMPT');
  });

  it('pulls workspace/configuration after initialized and applies changes without a restart', async () => {
    const editor = TestEditor.spawn({ root: copyFixture('basic') });
    editors.push(editor);
    editor.configuration = { agents: [{ name: 'configured', baseURL: model.baseURL, apiKey: 'x', model: 'from-config' }] };
    await editor.initialize({ ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, configuration: true, didChangeConfiguration: { dynamicRegistration: true } } });
    expect(await agentNamesOnce(editor, (names) => names.includes('configured'))).toEqual(['doc-offline', 'configured']);

    editor.configuration = { agents: [{ name: 'renamed', baseURL: model.baseURL, apiKey: 'x', model: 'from-config' }], disabledAgents: ['doc-offline'] };
    await editor.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    expect(await agentNamesOnce(editor, (names) => names.includes('renamed'))).toEqual(['renamed']);
  });

  it('answers a request sent right after initialized with the settings the client is still sending', async () => {
    const editor = TestEditor.spawn({ root: copyFixture('basic') });
    editors.push(editor);
    // A slow client: its settings come 800 ms after the server asks for them, and the user asks at once.
    editor.connection.onRequest('workspace/configuration', async (params: { items: { section?: string }[] }) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      return params.items.map((item) => (item.section === 'assistant' ? { agents: [{ name: 'configured', baseURL: model.baseURL, apiKey: 'x', model: 'from-config' }] } : null));
    });
    await editor.initialize({ ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, configuration: true } });
    const agents = await editor.request<AgentsResult>('assistant/agents', {});
    expect(agents.agents.map((a) => a.name)).toContain('configured');
  });

  it('reports bad settings by key and keeps everything else working', async () => {
    const { editor } = await TestEditor.start({
      root: copyFixture('basic'),
      initializationOptions: { assistant: { agents: [{ baseURL: 'nope' }, { name: 'fine', baseURL: model.baseURL, apiKey: 'k', model: 'm' }], orchestrator: { agentTimeoutMs: 'soon' } } },
    });
    editors.push(editor);
    const { agents, problems } = await editor.request<AgentsResult>('assistant/agents', {});
    expect(configurable(agents).map((a) => a.name)).toEqual(['doc-offline', 'fine']);
    expect(problems).toEqual(expect.arrayContaining([expect.stringContaining('assistant.agents[0].model'), expect.stringContaining('assistant.orchestrator.agentTimeoutMs')]));
  });

  it('inserts no annotation when annotations are off', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic'), initializationOptions: { assistant: { annotations: { enabled: false } } } });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    const result = await runDocument(editor, doc.uri, 'parseConfig(text');
    expect(result.applied).toBe(true);
    expect(editor.buffer(doc.uri).text).toContain('@param text');
    expect(editor.buffer(doc.uri).text).not.toContain('@assistant');
  });
});
