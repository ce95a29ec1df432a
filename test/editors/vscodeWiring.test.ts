// The VS Code extension's wiring without VS Code: its manifest against protocol/src, and its request, quick-pick and tree code against the real server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult } from 'vscode-languageserver-protocol';
import { ALL_COMMANDS, AgentsRequest, CUSTOM_METHODS, DEFAULT_SETTINGS, TraceRequest } from '../../protocol/src/index.js';
import type { AgentsResult, ApplyPatchResult, AskResult, RevertResult, TraceResult } from '../../protocol/src/index.js';
import { AssistantApi, askParams, rateParams, revertParams, traceAtParams } from '../../clients/vscode/src/core/assistantApi.js';
import type { EditorState, Send } from '../../clients/vscode/src/core/assistantApi.js';
import { rateTargets, revertTargets } from '../../clients/vscode/src/core/atCursor.js';
import { answerDocument, answerFileName, askedAnswer, placeItems } from '../../clients/vscode/src/core/answers.js';
import { answerLine, candidateItems, firstMeaningfulLine, noCandidateMessage, pickerTitle } from '../../clients/vscode/src/core/candidates.js';
import { CLIENT_ID, CLIENT_SECTION, ExtensionCommands, SERVER_PATH_SETTING, TRACE_VIEW_ID } from '../../clients/vscode/src/core/extensionIds.js';
import { resolveServerLaunch } from '../../clients/vscode/src/core/serverLaunch.js';
import { SECTION, settingsForServer } from '../../clients/vscode/src/core/settings.js';
import { buildTraceTree } from '../../clients/vscode/src/core/traceTree.js';
import type { InteractionNode, SessionNode } from '../../clients/vscode/src/core/traceTree.js';
import { FULL_CAPABILITIES, REPO_ROOT, TestEditor, copyFixture, handleFiles, until } from '../support/lspClient.js';

const EXTENSION_ROOT = path.join(REPO_ROOT, 'clients', 'vscode');
const SOURCES = path.join(EXTENSION_ROOT, 'src');

interface ConfigurationProperty {
  default?: unknown;
  type?: string | string[];
}

interface Manifest {
  name: string;
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  contributes: {
    commands: { command: string; title: string }[];
    menus: Record<string, { command: string }[]>;
    views: Record<string, { id: string }[]>;
    viewsWelcome: { view: string; contents: string }[];
    configuration: { properties: Record<string, ConfigurationProperty> };
  };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
}

const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, 'package.json'), 'utf8')) as Manifest;
const properties = manifest.contributes.configuration.properties;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every `{ path: value }` leaf of a settings object, e.g. `trace.directory`. */
function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [[prefix, value]];
  const entries = Object.entries(value);
  if (entries.length === 0) return [[prefix, value]];
  return entries.flatMap(([key, inner]) => leaves(inner, prefix ? `${prefix}.${key}` : key));
}

/** What `workspace.getConfiguration('assistant')` gives with every contributed default, nested by dots as VS Code nests it. */
function vscodeDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (!key.startsWith(`${SECTION}.`)) continue;
    const parts = key.slice(SECTION.length + 1).split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1] as string] = property.default;
  }
  return out;
}

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

async function start(options: Partial<Parameters<typeof TestEditor.start>[0]> = {}): Promise<{ editor: TestEditor; api: AssistantApi; result: InitializeResult }> {
  const { editor, result } = await TestEditor.start({ root: copyFixture('basic'), ...options });
  editors.push(editor);
  const send: Send = (type, params) => editor.request(type.method, params);
  return { editor, api: new AssistantApi(send), result };
}

function cursor(editor: TestEditor, uri: string, needle: string, delta = 0): EditorState {
  const position = editor.position(uri, needle, delta);
  return { uri, selection: { start: position, end: position } };
}

describe('the extension manifest against protocol/src', () => {
  it('contributes its own assistantLs.* commands, none of them a server command', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    expect(contributed.sort()).toEqual(Object.values(ExtensionCommands).sort());
    for (const command of contributed) {
      expect(command.startsWith(`${CLIENT_ID}.`)).toBe(true);
      expect(ALL_COMMANDS).not.toContain(command);
    }
    const menuCommands = Object.values(manifest.contributes.menus).flat().map((m) => m.command);
    for (const command of menuCommands) expect(contributed).toContain(command);
    for (const welcome of manifest.contributes.viewsWelcome) {
      for (const [, command] of welcome.contents.matchAll(/\(command:([\w.]+)\)/g)) expect(contributed).toContain(command);
    }
  });

  it('activates on TypeScript and JavaScript, runs dist/extension.js, and suits VS Code 1.139', () => {
    expect(manifest.name).toBe('assistant-ls-vscode');
    expect(manifest.main).toBe('./dist/extension.js');
    for (const language of ['typescript', 'javascript', 'typescriptreact', 'javascriptreact']) expect(manifest.activationEvents).toContain(`onLanguage:${language}`);
    const [, major, minor] = /^\^(\d+)\.(\d+)\.\d+$/.exec(manifest.engines.vscode) ?? [];
    expect(Number(major)).toBe(1);
    expect(Number(minor)).toBeLessThanOrEqual(139);
    expect(manifest.contributes.views.explorer?.map((v) => v.id)).toEqual([TRACE_VIEW_ID]);
  });

  it('contributes a setting for every server setting, with the server default, and keeps its own under assistantLs.*', () => {
    for (const key of Object.keys(DEFAULT_SETTINGS)) {
      expect(Object.keys(properties).some((p) => p === `${SECTION}.${key}` || p.startsWith(`${SECTION}.${key}.`)), key).toBe(true);
    }
    for (const [leaf, value] of leaves(DEFAULT_SETTINGS)) {
      expect(properties[`${SECTION}.${leaf}`], leaf).toBeDefined();
      expect(properties[`${SECTION}.${leaf}`]!.default, leaf).toEqual(value);
    }
    expect(properties[`${SECTION}.user.name`]).toBeDefined();
    // `assistant.*` goes to the server whole: a key it does not know would be reported as a settings problem.
    const serverKeys = new Set(Object.keys(DEFAULT_SETTINGS));
    for (const key of Object.keys(properties)) {
      if (key.startsWith(`${SECTION}.`)) expect(serverKeys.has(key.slice(SECTION.length + 1).split('.')[0] as string), key).toBe(true);
      else expect(key.startsWith(`${CLIENT_SECTION}.`), key).toBe(true);
    }
    expect(properties[SERVER_PATH_SETTING]).toMatchObject({ type: 'string', default: '' });
    expect(properties[`${CLIENT_ID}.trace.server`]).toBeDefined();
    // In an untrusted workspace the workspace cannot pick the executable, where code is sent, or running its tests.
    expect(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations).toEqual(expect.arrayContaining([SERVER_PATH_SETTING, `${SECTION}.agents`, `${SECTION}.oracle.runTests`]));
  });

  it('names methods and commands in its sources only through protocol/src', () => {
    const files = sourceFiles(SOURCES);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = fs.readFileSync(file, 'utf8');
      expect(source.split('\n')[0], file).toMatch(/^\/\/ \S/);
      // Code only: comments may name anything.
      const text = source.split('\n').filter((line) => !/^\s*(\/\/|\/?\*)/.test(line)).join('\n');
      for (const [, method] of text.matchAll(/['"`](assistant\/[\w/]+)['"`]/g)) expect(CUSTOM_METHODS, `${file}: ${method}`).toContain(method);
      for (const [, command] of text.matchAll(/['"`](assistant\.\w+)['"`]/g)) expect(ALL_COMMANDS, `${file}: ${command}`).toContain(command);
      // Declared once: no file but extensionIds.ts spells an extension command either.
      if (!file.endsWith(path.join('core', 'extensionIds.ts'))) expect(text, file).not.toMatch(/['"`]assistantLs\.(ask|showTrace|rate|revert|restartServer|answerPlaces)['"`]/);
      // The pure parts run under vitest, so they must not need VS Code.
      if (file.includes(`${path.sep}core${path.sep}`)) expect(text, file).not.toMatch(/from 'vscode(-languageclient[^']*)?'/);
    }
    const api = fs.readFileSync(path.join(SOURCES, 'core', 'assistantApi.ts'), 'utf8');
    for (const type of ['AskRequest.type', 'ApplyRequest.type', 'TraceRequest.type', 'RateRequest.type', 'RevertRequest.type']) expect(api).toContain(type);
  });
});

describe('pure parts', () => {
  it('sends the selection, or the cursor as an empty range', () => {
    const empty = { uri: 'file:///a.ts', selection: { start: { line: 3, character: 2 }, end: { line: 3, character: 2 } } };
    expect(askParams('  document load ', empty)).toEqual({ text: 'document load', textDocument: { uri: 'file:///a.ts' }, range: empty.selection });
    const selected = { ...empty, selection: { start: { line: 3, character: 0 }, end: { line: 9, character: 1 } } };
    expect(askParams('document this', selected)).toEqual({ text: 'document this', textDocument: { uri: 'file:///a.ts' }, range: selected.selection });
    expect(askParams('document parseConfig', undefined)).toEqual({ text: 'document parseConfig' });
    expect(rateParams('i', 'r', 'up', '  ')).toEqual({ interactionId: 'i', responseId: 'r', rating: 'up' });
    expect(revertParams('i')).toEqual({ interactionId: 'i' });
  });

  it('says why there is nothing to pick: the server\'s message, else each agent\'s failure', () => {
    const agent = { name: 'gpt', technology: 'llm' as const, isLLM: true, model: 'gpt-4o-mini' };
    const base = { interactionId: 'i', task: 'document' as const, confidence: 0.9 };
    expect(noCandidateMessage({ ...base, responses: [{ id: 'r', agent, status: 'timeout', text: '' }] })).toBe('No usable answer (gpt: timeout).');
    expect(noCandidateMessage({ ...base, responses: [{ id: 'r', agent, status: 'error', text: '', error: 'HTTP 429' }] })).toBe('No usable answer (gpt: HTTP 429).');
    expect(noCandidateMessage({ ...base, message: 'Nothing to document here.', responses: [] })).toBe('Nothing to document here.');
    expect(noCandidateMessage({ ...base, responses: [] })).toBe('No candidates for "document".');
    expect(candidateItems({ ...base, responses: [{ id: 'r', agent, status: 'ok', text: '/**\n * Loads it.\n */', edit: { changes: {} } }] })).toEqual([{ label: 'gpt', description: 'gpt-4o-mini', detail: 'Loads it.', responseId: 'r', use: 'apply' }]);
  });

  it('titles the picker with the task, and says how sure only of a guess', () => {
    const base = { interactionId: 'i', task: 'rename' as const, responses: [] };
    expect(pickerTitle({ ...base, confidence: 0.79 })).toBe('Assistant: rename');
    expect(pickerTitle({ ...base, confidence: 0.41 })).toBe('Assistant: rename (a guess from your words, 41% sure)');
  });

  it('shows the server\'s plain summary of an answer, else the first line that says something', () => {
    const agent = { name: 'gpt', technology: 'llm' as const, isLLM: true };
    expect(answerLine({ id: 'r', agent, status: 'ok', text: '```ts\ncode\n```', summary: 'Parses the config.' })).toBe('Parses the config.');
    expect(answerLine({ id: 'r', agent, status: 'ok', text: '/** Loads it. */' })).toBe('Loads it.');
  });

  it('shows the first line that says something', () => {
    expect(firstMeaningfulLine('/**\n * Parses the config.\n * @param text\n */')).toBe('Parses the config.');
    expect(firstMeaningfulLine('/** Loads it once. */')).toBe('Loads it once.');
    expect(firstMeaningfulLine('// a note\ncode')).toBe('a note');
    expect(firstMeaningfulLine('')).toBe('');
  });

  it('starts the bundled server by default, a .js path as a module, anything else as an executable', () => {
    const base = { bundledServer: '/ext/dist/server/assistant-ls.mjs', workspaceFolder: '/ws', homeDir: '/home/me' };
    expect(resolveServerLaunch({ ...base, configuredPath: '' })).toMatchObject({ kind: 'module', module: '/ext/dist/server/assistant-ls.mjs' });
    expect(resolveServerLaunch({ ...base, configuredPath: undefined })).toMatchObject({ kind: 'module', module: base.bundledServer });
    expect(resolveServerLaunch({ ...base, configuredPath: 'bin/assistant-ls.js' })).toMatchObject({ kind: 'module', module: '/ws/bin/assistant-ls.js' });
    expect(resolveServerLaunch({ ...base, configuredPath: '~/src/assistant-ls/bin/assistant-ls.js' })).toMatchObject({ kind: 'module', module: '/home/me/src/assistant-ls/bin/assistant-ls.js' });
    expect(resolveServerLaunch({ ...base, configuredPath: 'assistant-ls' })).toMatchObject({ kind: 'command', command: 'assistant-ls' });
    expect(resolveServerLaunch({ ...base, configuredPath: '/usr/local/bin/assistant-ls' })).toMatchObject({ kind: 'command', command: '/usr/local/bin/assistant-ls' });
  });
});

describe('against the real server', () => {
  it('hands the server its settings as VS Code holds them, so it reports no problem, and records the OS user', async () => {
    const fromVsCode = vscodeDefaults();
    expect(fromVsCode).toMatchObject({ user: { name: '', role: 'developer' } });
    const settings = settingsForServer(fromVsCode);
    expect(settings).toMatchObject({ user: { role: 'developer' } });
    expect(settings).not.toHaveProperty('user.name');

    const { editor, api, result } = await start({ capabilities: { ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, configuration: true } }, initializationOptions: settings });
    // The language client registers the server's commands itself; the extension's own must not collide with them.
    const serverCommands = result.capabilities.executeCommandProvider?.commands ?? [];
    expect(serverCommands.length).toBeGreaterThan(0);
    for (const command of Object.values(ExtensionCommands)) expect(serverCommands).not.toContain(command);
    await editor.open('src/config.ts');
    expect((await editor.request<AgentsResult>(AgentsRequest.method, {})).problems).toEqual([]);
    // VS Code pushes the whole section on a change; the server pulls it through workspace/configuration instead,
    // where the extension's middleware filters it.
    let pulls = 0;
    Object.defineProperty(editor, 'configuration', { get: () => (pulls++, settings) });
    await editor.connection.sendNotification('workspace/didChangeConfiguration', { settings: { [SECTION]: fromVsCode } });
    await until(() => pulls > 0, 5000, 'workspace/configuration');
    await editor.request(AgentsRequest.method, {});
    expect((await editor.request<AgentsResult>(AgentsRequest.method, {})).problems).toEqual([]);
    expect(editor.messages.filter((m) => /settings/.test(m.message))).toEqual([]);

    // VS Code holds an empty user.name; filtered or not, the server records the OS user for it.
    const { interactionId } = await api.ask(askParams('document parseConfig', undefined));
    const [recorded] = (await editor.request<TraceResult>(TraceRequest.method, { id: interactionId })).interactions;
    expect(recorded!.user).toBe(os.userInfo().username);
    const { api: unfilteredApi, editor: unfiltered } = await start({ initializationOptions: fromVsCode });
    const { interactionId: blank } = await unfilteredApi.ask(askParams('document parseConfig', undefined));
    expect((await unfiltered.request<TraceResult>(TraceRequest.method, { id: blank })).interactions[0]!.user).toBe(os.userInfo().username);
  });

  it('asks, shows the candidates as quick-pick items, applies the chosen one, and explains when there is none', async () => {
    const { editor, api } = await start();
    const doc = await editor.open('src/config.ts');
    const answer = await api.ask(askParams('write documentation for the load method', cursor(editor, doc.uri, 'import')));
    expect(answer.task).toBe('document');
    expect(noCandidateMessage(answer)).toBeUndefined();
    const items = candidateItems(answer);
    expect(items).toEqual([{ label: 'doc-offline', description: 'rule', detail: expect.not.stringMatching(/^\/\*\*$/) as unknown, responseId: answer.responses[0]!.id, use: 'apply' }]);
    expect(items[0]!.detail.length).toBeGreaterThan(3);
    const applied = await api.apply({ interactionId: answer.interactionId, responseId: items[0]!.responseId });
    expect(applied).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.buffer(doc.uri).text).toMatch(/\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/);

    // A selection of parseConfig pins "document this" to it.
    const parse = editor.position(doc.uri, 'export function parseConfig');
    const end = editor.position(doc.uri, '\n\nexport class ConfigStore');
    const selected = await api.ask(askParams('document this', { uri: doc.uri, selection: { start: parse, end } }));
    expect(selected.task).toBe('document');
    expect(selected.responses[0]!.text).toContain('@param text');

    const weather: AskResult = await api.ask(askParams('what is the weather in Paris', undefined));
    expect(candidateItems(weather)).toEqual([]);
    expect(noCandidateMessage(weather)).toMatch(/does not match any assistant task/);
    expect(noCandidateMessage(weather)).toBe(weather.message);
  });

  it('offers a text answer to show, titled by the request, with its places relative to the workspace', async () => {
    const { editor, api } = await start({ root: copyFixture('explain') });
    const doc = await editor.open('src/main.ts');
    const inside = cursor(editor, doc.uri, 'args.length > 0');
    const answer = await api.ask(askParams('explain this function', inside));
    expect(answer.task).toBe('explain');
    expect(noCandidateMessage(answer)).toBeUndefined();
    const items = candidateItems(answer);
    expect(items).toEqual([{ label: 'explain-offline', description: 'rule · answer', detail: expect.stringMatching(/^function main in src\/main\.ts[^`*]*$/) as unknown, responseId: answer.responses[0]!.id, use: 'show' }]);
    const shown = askedAnswer(answer, answer.responses[0]!, ' explain this function ');
    expect(shown.title).toBe('Explain: explain this function');
    expect(answerDocument(shown)).toBe(`# Explain: explain this function\n\n${answer.responses[0]!.text}\n`);
    expect(answerFileName('Question: where is a/b?')).toBe('Question where is a b.md');
    const places = placeItems(shown.locations, editor.root);
    expect(places[0]).toMatchObject({ label: 'function main (explained)', description: 'src/main.ts:8' });
    expect(places.map((p) => [p.label, p.description])).toContainEqual(['calls parseEntries', 'src/parser.ts:15']);
    expect(placeItems(shown.locations, undefined)[0]!.description).toBe(`${path.join(editor.root, 'src', 'main.ts')}:8`);
    // Nothing was applied, and assistant/ask showed nothing itself.
    expect(editor.applied).toEqual([]);
    expect(editor.shownDocuments).toEqual([]);
  });

  it('builds the trace tree from assistant/trace pages: sessions → interactions that open the inserted range', async () => {
    const { editor, api } = await start();
    const doc = await editor.open('src/config.ts');
    for (const text of ['document parseConfig', 'document firstOf']) {
      const answer = await api.ask(askParams(text, cursor(editor, doc.uri, 'import')));
      if (text === 'document parseConfig') await api.apply({ interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    }
    await api.ask(askParams('what is the weather in Paris', undefined));

    // Pages of one, to go through nextOffset.
    const all = await api.traceAll({}, 1000, 1);
    expect(all.total).toBe(3);
    expect(all.interactions).toHaveLength(3);
    const tree = buildTraceTree(all.interactions, all.total);
    expect(tree).toHaveLength(1);
    const session = tree[0] as SessionNode;
    expect(session).toMatchObject({ kind: 'session', description: expect.stringMatching(/^3 interactions · /) as unknown });
    expect(session.label).toMatch(/^Session \d{4}-\d\d-\d\d \d\d:\d\d$/);
    const [weather, firstOf, parseConfig] = session.children as [InteractionNode, InteractionNode, InteractionNode];
    expect(weather).toMatchObject({ label: 'none: what is the weather in Paris', description: expect.stringMatching(/^no answer · \d\d:\d\d$/) as unknown });
    expect(weather.target).toBeUndefined();
    expect(firstOf).toMatchObject({ label: 'document firstOf', description: expect.stringMatching(/^doc-offline · not used · /) as unknown });
    expect(firstOf.target).toEqual({ uri: doc.uri, range: firstOf.interaction.context.fragment!.range });
    expect(parseConfig).toMatchObject({ label: 'document parseConfig', description: expect.stringMatching(/^doc-offline · used · /) as unknown });
    expect(parseConfig.tooltip).toContain('doc\\-offline');
    // Opening it selects the doc comment that was inserted.
    const inserted = parseConfig.target!;
    expect(inserted.uri).toBe(doc.uri);
    const lines = editor.buffer(doc.uri).text.split('\n');
    expect(lines[inserted.range.start.line]).toMatch(/^\/\*\*/);
    expect(lines.slice(inserted.range.start.line, inserted.range.end.line + 1).join('\n')).toContain('@param text');

    const firstPage = await api.traceAll({}, 2);
    expect(buildTraceTree(firstPage.interactions, firstPage.total).at(-1)).toEqual({ kind: 'more', label: '1 older interactions not shown' });
  });

  it('leads a pasted patch over two files to where its code went, before and after it is reverted', async () => {
    const { editor, api } = await start({ root: copyFixture('pipelines'), initializationOptions: { assistant: { preview: 'never' } } });
    handleFiles(editor);
    const cart = await editor.open('src/cart.ts');
    const patch = ['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ -14,3 +14,4 @@', '   lines(): readonly LineItem[] {', '+    // Newest last.', '     return this.items;', '   }', '--- a/src/pricing.ts', '+++ b/src/pricing.ts', '@@ -12 +12 @@', '-  return item.price;', '+  return item.price * item.quantity;'].join('\n');
    const patched = await editor.request<ApplyPatchResult>('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{ patch }] });
    expect(patched).toMatchObject({ applied: true, files: ['src/cart.ts', 'src/pricing.ts'] });
    const node = async (): Promise<InteractionNode> => ((buildTraceTree((await api.traceAll({})).interactions, 1)[0] as SessionNode).children[0] as InteractionNode);
    const applied = await node();
    // Its own task, and no one file it was about: the first insertion, in its own file, is where it leads.
    expect(applied.label).toBe('patch: Apply a pasted patch');
    expect(applied.interaction.context.resource).toBeUndefined();
    const first = applied.interaction.responses[0]!.insertedAt![0]!;
    expect(applied.target).toEqual({ uri: first.uri, range: first.range });
    expect([cart.uri, editor.uri('src/pricing.ts')]).toContain(first.uri);

    expect(await editor.request<RevertResult>('assistant/revert', { interactionId: patched.interactionId })).toMatchObject({ reverted: true });
    const reverted = await node();
    expect(reverted.description).toMatch(/^pasted-patch · reverted · /);
    expect(reverted.target?.uri).toBe(first.uri);
    expect(reverted.target?.range.start.line).toBe(first.range.start.line);
  });

  it('leads a workspace question to the first place its answer cites, saying so, and one that cites nothing to where it was asked', async () => {
    const { editor, api } = await start({ root: copyFixture('question') });
    const main = await editor.open('src/main.ts');
    const at = cursor(editor, main.uri, 'const config');
    const answer = await api.ask(askParams('where is the retry delay computed?', at));
    expect(answer.task).toBe('question');
    const locations = answer.responses[0]!.locations!;
    expect(locations.length).toBeGreaterThan(1);
    // The extension showed it.
    await api.apply({ interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    const nothing = await api.ask(askParams('where is the zebra quaternion flux computed?', at));
    expect(nothing.task).toBe('question');
    expect(nothing.responses.flatMap((r) => r.locations ?? [])).toEqual([]);

    const nodes = (buildTraceTree((await api.traceAll({})).interactions, 2)[0] as SessionNode).children as InteractionNode[];
    const [unanswered, asked] = [nodes.find((n) => n.interaction.id === nothing.interactionId)!, nodes.find((n) => n.interaction.id === answer.interactionId)!];
    // Not line 1 of main.ts, which the question is not about: backoffDelay in src/retry.ts, and the item says it is what the answer cites.
    const retry = editor.uri('src/retry.ts');
    expect(locations[0]).toMatchObject({ uri: retry, label: 'function backoffDelay' });
    expect(asked.target).toEqual({ uri: retry, range: locations[0]!.range });
    expect(fs.readFileSync(path.join(editor.root, 'src', 'retry.ts'), 'utf8').split('\n')[asked.target!.range.start.line]).toContain('export function backoffDelay');
    expect(asked.label).toBe('question: where is the retry delay computed?');
    expect(asked.description).toMatch(new RegExp(`^question-offline · used · cites function backoffDelay \\+${locations.length - 1} · \\d\\d:\\d\\d$`));
    expect(asked.tooltip).toContain(`- asked in src/main\\.ts, about the workspace`);
    expect(asked.tooltip).toContain(`- opens function backoffDelay, the first of ${locations.length} places its answer cites`);
    // Nothing cited: the file it was asked in, at its start, saying that is all there is.
    expect(unanswered.target).toEqual({ uri: main.uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } });
    expect(unanswered.description).toMatch(/ · asked in src\/main\.ts, cites nothing · \d\d:\d\d$/);
  });

  it('rates and reverts the interaction behind the code at the cursor', async () => {
    const { editor, api } = await start();
    const doc = await editor.open('src/config.ts');
    const original = doc.text;
    const answer = await api.ask(askParams('write documentation for the load method', undefined));
    await api.apply({ interactionId: answer.interactionId, responseId: answer.responses[0]!.id });

    // Nothing of the assistant's on the interface at the top.
    expect(rateTargets((await api.trace(traceAtParams(cursor(editor, doc.uri, 'interface Config')))).interactions)).toEqual([]);

    const found = await api.trace(traceAtParams(cursor(editor, doc.uri, 'async load', 6)));
    const [target] = rateTargets(found.interactions);
    expect(target).toMatchObject({ interaction: { id: answer.interactionId }, response: { id: answer.responses[0]!.id, used: true } });
    expect(target!.label).toBe('document ConfigStore.load · doc-offline');
    expect(await api.rate(rateParams(target!.interaction.id, target!.response.id, 'up', 'just right'))).toMatchObject({ rating: 'up' });
    const rated = (await api.trace({ id: answer.interactionId })).interactions[0]!;
    expect(rated.responses[0]).toMatchObject({ rating: 'up', feedback: ['just right'] });
    expect(buildTraceTree([rated], 1)[0]).toMatchObject({ children: [{ tooltip: expect.stringContaining('rated up') as unknown }] });

    const [toRevert] = revertTargets((await api.trace(traceAtParams(cursor(editor, doc.uri, 'async load', 6)))).interactions);
    expect(toRevert).toBeDefined();
    expect(await api.revert(revertParams(toRevert!.interaction.id, toRevert!.response.id))).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(editor.buffer(doc.uri).text).toBe(original);
    const after = (await api.trace({ id: answer.interactionId })).interactions;
    expect(revertTargets(after)).toEqual([]);
    expect(buildTraceTree(after, 1)[0]).toMatchObject({ children: [{ description: expect.stringMatching(/^doc-offline · reverted · /) as unknown }] });
  });
});

const BUNDLED_SERVER = path.join(EXTENSION_ROOT, 'dist', 'server', 'assistant-ls.mjs');

describe('the server bundled into the extension', () => {
  it.skipIf(!fs.existsSync(BUNDLED_SERVER))('answers assistant/ask like the repository server (skipped until clients/vscode is built)', async () => {
    const root = copyFixture('basic');
    const child = spawn(process.execPath, [BUNDLED_SERVER, '--stdio', `--clientProcessId=${process.pid}`], { cwd: os.tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    connection.onRequest(() => null);
    connection.onNotification(() => undefined);
    connection.listen();
    try {
      const rootUri = pathToFileURL(root).href;
      await connection.sendRequest('initialize', { processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: 'basic' }], capabilities: {} });
      await connection.sendNotification('initialized', {});
      const send: Send = (type, params) => connection.sendRequest(type.method, params);
      const answer = await new AssistantApi(send).ask(askParams('document parseConfig', undefined));
      expect(answer.task).toBe('document');
      expect(answer.responses[0]!.text).toContain('@param text');
    } finally {
      connection.dispose();
      child.kill();
    }
  });
});
