// End-to-end settings: model agents from initializationOptions and workspace/configuration, prompt overrides, live changes, bad values and the one warning about them, annotations off.
import path from 'node:path';
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

/** Sends didChangeConfiguration as VS Code does (no settings: the server pulls them) and waits until it pulled them. */
async function changeConfiguration(editor: TestEditor, pulled: () => number): Promise<void> {
  const before = pulled();
  await editor.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  await until(() => pulled() > before);
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(done()).toBe(true);
  // What the server does with the settings it pulled: reconfigure, log, warn.
  await new Promise((r) => setTimeout(r, 300));
}

const WARNING = 2;

/** The warnings about settings the server sent. */
function settingsWarnings(editor: TestEditor): string[] {
  return editor.messages.filter((m) => m.type === WARNING && m.message.includes('setting problem')).map((m) => m.message);
}

/** A client that sends its settings both ways, as VS Code does, and counts the server's workspace/configuration requests. */
function vscodeLikeClient(root: string): { editor: TestEditor; pulled: () => number } {
  const editor = TestEditor.spawn({ root });
  let pulls = 0;
  editor.connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => {
    pulls++;
    return params.items.map((item) => (item.section === 'assistant' ? editor.configuration : null));
  });
  return { editor, pulled: () => pulls };
}

const CONFIGURATION_CAPABILITIES = { ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, configuration: true, didChangeConfiguration: { dynamicRegistration: true } } };

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

  it('warns once about bad settings, again only when the problems change, and logs each problem once per change', async () => {
    const root = copyFixture('basic');
    const missing = path.join(root, 'models', 'does-not-exist.gguf');
    const bad = { agents: [{ name: 'local', modelPath: missing }], preview: 'sometimes' };
    const { editor, pulled } = vscodeLikeClient(root);
    editors.push(editor);
    editor.configuration = bad;
    await editor.initialize(CONFIGURATION_CAPABILITIES, { assistant: bad });
    await until(() => pulled() >= 1);
    // VS Code follows with didChangeConfiguration twice (the sync and the server's registration): nothing changed.
    await changeConfiguration(editor, pulled);
    await changeConfiguration(editor, pulled);
    expect(settingsWarnings(editor)).toEqual([`assistant-ls: 2 setting problems: assistant.preview: must be "always", "multiFile" or "never" (using "multiFile"); assistant.agents[0].modelPath: no file at ${missing}; the agent is left out`]);
    expect(editor.logs.filter((line) => line.includes(`no file at ${missing}`))).toHaveLength(1);
    expect(editor.logs.filter((line) => line.includes('assistant.preview'))).toHaveLength(1);
    expect(editor.questions).toEqual([]);

    // One fixed, one left: a new warning, with the one left. (VS Code's configuration holds every setting, the fixed
    // one too; the bad value still in initializationOptions is replaced by it, not reported until a restart.)
    editor.configuration = { agents: bad.agents, preview: 'multiFile' };
    await changeConfiguration(editor, pulled);
    expect(settingsWarnings(editor).slice(1)).toEqual([`assistant-ls: 1 setting problem: assistant.agents[0].modelPath: no file at ${missing}; the agent is left out`]);
    // Another change that keeps the same problem (a setting that is fine): no second word about it.
    editor.configuration = { agents: bad.agents, preview: 'multiFile', orchestrator: { agentTimeoutMs: 5000 } };
    await changeConfiguration(editor, pulled);
    expect(settingsWarnings(editor)).toHaveLength(2);
    expect(editor.logs.filter((line) => line.includes(`no file at ${missing}`))).toHaveLength(2);

    // All fixed: nothing to warn about; the same problem coming back is told again.
    editor.configuration = { agents: [], preview: 'multiFile' };
    await changeConfiguration(editor, pulled);
    expect(settingsWarnings(editor)).toHaveLength(2);
    expect(editor.logs).toContain('settings: no problems left');
    editor.configuration = { agents: bad.agents, preview: 'multiFile' };
    await changeConfiguration(editor, pulled);
    expect(settingsWarnings(editor)).toHaveLength(3);
  });

  it('sends no warning for good settings, however often they are sent', async () => {
    const { editor, pulled } = vscodeLikeClient(copyFixture('basic'));
    editors.push(editor);
    editor.configuration = { agents: [{ name: 'fine', baseURL: model.baseURL, apiKey: 'k', model: 'm' }], preview: 'always' };
    await editor.initialize(CONFIGURATION_CAPABILITIES, { assistant: editor.configuration });
    await until(() => pulled() >= 1);
    await changeConfiguration(editor, pulled);
    expect(editor.messages).toEqual([]);
    expect(editor.logs.filter((line) => line.startsWith('settings:'))).toEqual([]);
  });

  it('warns a client that sends its settings only at initialize, once', async () => {
    const root = copyFixture('basic');
    const { editor } = await TestEditor.start({ root, initializationOptions: { assistant: { agents: {}, orchestrator: { agentTimeoutMs: 'fast' } } } });
    editors.push(editor);
    await until(() => settingsWarnings(editor).length > 0);
    expect(settingsWarnings(editor)).toEqual(['assistant-ls: 2 setting problems: assistant.agents: must be a list of model agents; assistant.orchestrator.agentTimeoutMs: must be a number from 100 to 3600000 (using 60000)']);
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
