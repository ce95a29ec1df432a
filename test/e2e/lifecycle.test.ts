// End-to-end lifecycle over a real `assistant-ls --stdio` child: -32002 before initialize, InvalidRequest after shutdown, exit codes, parent death.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_COMMANDS, CUSTOM_METHODS } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, FULL_CAPABILITIES, RESOLVE_CAPABILITIES } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import { RawServer, frame } from '../support/rawLsp.js';

/** Every request method the server declares or handles, with plausible params, plus ones it does not know. */
function everyRequest(uri: string): [string, unknown][] {
  const range = { start: { line: 9, character: 16 }, end: { line: 9, character: 16 } };
  const args = { textDocument: { uri, version: 1 }, range, symbol: 'parseConfig' };
  return [
    ['textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics: [] } }],
    ['codeAction/resolve', { title: 'x', data: { task: 'document', args } }],
    ...ALL_COMMANDS.map((command): [string, unknown] => ['workspace/executeCommand', { command, arguments: [args] }]),
    ...CUSTOM_METHODS.map((method): [string, unknown] => [method, { text: 'document parseConfig', interactionId: 'x', responseId: 'y', rating: 'up' }]),
    ['shutdown', undefined],
    ['textDocument/hover', { textDocument: { uri }, position: range.start }],
    ['no/such/method', {}],
  ];
}

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

function track(editor: TestEditor): TestEditor {
  editors.push(editor);
  return editor;
}

describe('server lifecycle', () => {
  it('answers -32002 to requests before initialize, then initializes', async () => {
    const editor = track(TestEditor.spawn({ root: copyFixture('basic') }));
    await expect(editor.request('assistant/agents', {})).rejects.toMatchObject({ code: -32002 });
    await expect(editor.request('textDocument/codeAction', { textDocument: { uri: 'file:///x.ts' }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] } })).rejects.toMatchObject({ code: -32002 });
    await expect(editor.request('no/such/method', {})).rejects.toMatchObject({ code: -32002 });
    const result = await editor.initialize(FULL_CAPABILITIES);
    expect(result.serverInfo?.name).toBe('assistant-ls');
    expect(result.capabilities.positionEncoding).toBe('utf-16');
    expect(result.capabilities.executeCommandProvider?.commands).toContain('assistant.document');
    // This client takes no edit from resolve: its actions carry their command, and there is nothing to resolve.
    expect(result.capabilities.codeActionProvider).toMatchObject({ resolveProvider: false });
    const agents = await editor.request<{ agents: { name: string; technology: string }[] }>('assistant/agents', {});
    expect(agents.agents.map((a) => a.name)).toContain('doc-offline');
  });

  it('declares codeAction/resolve only to a client that takes the edit from it, not to one that previews edits', async () => {
    const resolving = track(TestEditor.spawn({ root: copyFixture('basic') }));
    expect((await resolving.initialize(RESOLVE_CAPABILITIES)).capabilities.codeActionProvider).toMatchObject({ resolveProvider: true });
    const previewing = track(TestEditor.spawn({ root: copyFixture('basic') }));
    const withPreview = { ...RESOLVE_CAPABILITIES, workspace: { ...RESOLVE_CAPABILITIES.workspace, workspaceEdit: { ...RESOLVE_CAPABILITIES.workspace?.workspaceEdit, changeAnnotationSupport: { groupsOnLabel: true } } } };
    expect((await previewing.initialize(withPreview)).capabilities.codeActionProvider).toMatchObject({ resolveProvider: false });
  });

  it('answers every request before initialize with -32002 and drops notifications, whatever the method', async () => {
    const editor = track(TestEditor.spawn({ root: copyFixture('basic') }));
    const uri = editor.uri('src/config.ts');
    for (const [method, params] of everyRequest(uri)) {
      await expect(editor.request(method, params), method).rejects.toMatchObject({ code: -32002 });
    }
    // A document opened before initialize was never seen: after it, the server reads the file from disk.
    const phantom = editor.uri('src/phantom.ts');
    await editor.connection.sendNotification('textDocument/didOpen', { textDocument: { uri: phantom, languageId: 'typescript', version: 1, text: 'export function phantom(): void {}\n' } });
    // initialize without its parameters is refused and leaves the server uninitialized.
    await expect(editor.connection.sendRequest('initialize')).rejects.toMatchObject({ code: -32602 });
    await expect(editor.request('assistant/agents', {})).rejects.toMatchObject({ code: -32002 });
    await editor.initialize(FULL_CAPABILITIES);
    const position = { line: 0, character: 17 };
    expect(await editor.request('textDocument/codeAction', { textDocument: { uri: phantom }, range: { start: position, end: position }, context: { diagnostics: [] } })).toEqual([]);
    // initialize is sent once: a second one is refused, and the session goes on.
    await expect(editor.request('initialize', { processId: null, rootUri: null, capabilities: {} })).rejects.toMatchObject({ code: -32600 });
    expect((await editor.request<{ agents: unknown[] }>('assistant/agents', {})).agents.length).toBeGreaterThan(0);
  });

  it('answers every request after shutdown with InvalidRequest, then exits 0', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await editor.request('shutdown', null);
    for (const [method, params] of [...everyRequest(editor.uri('src/config.ts')), ['initialize', { processId: null, rootUri: null, capabilities: {} }] as [string, unknown]]) {
      await expect(editor.request(method, params), method).rejects.toMatchObject({ code: -32600 });
    }
    await editor.connection.sendNotification('exit');
    expect(await editor.exited).toBe(0);
  });

  it('exits 1 on exit before initialize', async () => {
    const editor = track(TestEditor.spawn({ root: copyFixture('basic') }));
    await editor.connection.sendNotification('exit');
    expect(await editor.exited).toBe(1);
  });

  it('exits 0 when the client closes stdin after shutdown', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await editor.request('shutdown', null);
    editor.child.stdin!.end();
    expect(await editor.exited).toBe(0);
  });

  it('ends promptly when the client vanishes while a model request is in flight, closing that request', async () => {
    const model = await startScriptedModel();
    try {
      model.setDefault({ kind: 'stall', afterHeaders: true });
      const { editor } = await TestEditor.start({ root: copyFixture('basic'), env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted' }, initializationOptions: { assistant: { disabledAgents: ['doc-offline'] } } });
      track(editor);
      const doc = await editor.open('src/config.ts');
      const position = editor.position(doc.uri, 'parseConfig(text');
      void editor.request('workspace/executeCommand', { command: 'assistant.document', arguments: [{ textDocument: { uri: doc.uri, version: 1 }, range: { start: position, end: position }, symbol: 'parseConfig' }] }).catch(() => undefined);
      await model.waitForRequests(1);
      const vanishedAt = Date.now();
      editor.child.stdin!.end();
      expect(await editor.exited).toBe(1);
      expect(Date.now() - vanishedAt).toBeLessThan(2_000);
      expect((await model.waitForClose(0, 2_000)) - vanishedAt).toBeLessThan(2_000);
    } finally {
      await model.close();
    }
  });

  it('answers an unknown method with MethodNotFound once running', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await expect(editor.request('assistant/nope', {})).rejects.toMatchObject({ code: -32601 });
    expect((await editor.request<{ agents: unknown[] }>('assistant/agents', {})).agents.length).toBeGreaterThan(0);
  });

  it('answers code actions once the core is up in the same way as before it, a request cancelled before it ran with RequestCancelled', async () => {
    const server = RawServer.spawn({ root: copyFixture('basic') });
    try {
      expect((await server.initialize()).error).toBeUndefined();
      const { uri, text } = server.open('src/config.ts');
      const line = text.split('\n').findIndex((l) => l.includes('function parseConfig'));
      const params = { textDocument: { uri }, range: { start: { line, character: 17 }, end: { line, character: 17 } }, context: { diagnostics: [] } };
      // The first request may wait for the core to load; the ones after it are answered at once, with the same list.
      const titles = (response: { result?: unknown }): string[] => (response.result as { title: string }[]).map((action) => action.title);
      const first = titles(await server.call('textDocument/codeAction', params));
      expect(first).toContain('Assistant: Document function parseConfig');
      expect(titles(await server.call('textDocument/codeAction', params))).toEqual(first);
      // A request and its cancel in one write: the cancel is read before the request runs.
      const id = 'cancelled-before-it-ran';
      server.writeBytes(Buffer.concat([frame({ jsonrpc: '2.0', id, method: 'textDocument/codeAction', params }), frame({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } })]));
      expect((await server.response(id)).error?.code).toBe(-32800);
      // A malformed request is an error answer, as before the core was up, and the server goes on.
      const broken = await server.call('textDocument/codeAction', { ...params, context: { diagnostics: [], only: 'quickfix' } });
      expect(broken.error).toMatchObject({ code: -32602, message: expect.stringContaining('context.only') });
      expect(titles(await server.call('textDocument/codeAction', params))).toEqual(first);
    } finally {
      await server.dispose();
    }
  });

  it('answers every frame of a burst reusing ids in flight: the first with its result, each duplicate with InvalidRequest', async () => {
    const server = RawServer.spawn({ root: copyFixture('basic') });
    try {
      expect((await server.initialize()).error).toBeUndefined();
      // Five frames, two ids, in one write: the duplicates arrive while the first of each id is still in flight.
      const ask = (id: number | string): Buffer => frame({ jsonrpc: '2.0', id, method: 'assistant/ask', params: { text: 'document parseConfig' } });
      const agents = (id: number | string): Buffer => frame({ jsonrpc: '2.0', id, method: 'assistant/agents', params: {} });
      server.writeBytes(Buffer.concat([ask(41), ask('dup'), agents(41), agents('dup'), ask(41)]));
      await server.until(() => (server.responsesTo(41).length === 3 && server.responsesTo('dup').length === 2 ? true : undefined), 20_000, 'five answers');
      for (const id of [41, 'dup']) {
        const answers = server.responsesTo(id);
        expect(answers.filter((a) => a.result !== undefined), String(id)).toHaveLength(1);
        for (const refused of answers.filter((a) => a.error)) expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('already used by a request in flight') });
      }
      // Once answered, an id may be used again.
      expect((await server.response(server.request('assistant/agents', {}, 41 + 1000))).result).toBeDefined();
      server.writeBytes(agents('dup'));
      await server.until(() => (server.responsesTo('dup').length === 3 ? true : undefined), 10_000, 'the reused id answered');
      expect(server.responsesTo('dup')[2]!.result).toBeDefined();
    } finally {
      await server.dispose();
    }
  });

  it('reads params sent with an absent cancellation token ([params, null], as vscode-jsonrpc sends them) as params', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    // vscode-jsonrpc turns sendRequest(method, params, undefined) into the array [params, null].
    const trace = await editor.connection.sendRequest<{ total: number }>('assistant/trace', { limit: 1 }, undefined);
    expect(trace.total).toBe(0);
    await expect(editor.connection.sendRequest('assistant/apply', { interactionId: 'nope', responseId: 'nope' }, undefined)).rejects.toMatchObject({ message: expect.stringContaining('nope') });
    await expect(editor.connection.sendRequest('assistant/apply', { interactionId: 'nope', responseId: 'nope' }, { x: 1 })).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses requests after shutdown with InvalidRequest and exits 0 on exit', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await editor.request('shutdown', null);
    await expect(editor.request('assistant/agents', {})).rejects.toMatchObject({ code: -32600 });
    await editor.connection.sendNotification('exit');
    expect(await editor.exited).toBe(0);
  });

  it('exits 1 on exit without shutdown', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await editor.connection.sendNotification('exit');
    expect(await editor.exited).toBe(1);
  });

  it('ends when the client closes its stdin', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    editor.child.stdin!.end();
    expect(await editor.exited).toBe(1);
  });

  it('exits when the processId parent dies', async () => {
    const parent = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const editor = track(TestEditor.spawn({ root: copyFixture('basic') }));
    await editor.connection.sendRequest('initialize', { processId: parent.pid, rootUri: null, capabilities: {} });
    await editor.connection.sendNotification('initialized', {});
    parent.kill('SIGKILL');
    const started = Date.now();
    const code = await editor.exited;
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('socket transport', () => {
  it('connects to an editor listening on --socket=PORT and serves there', async () => {
    const net = await import('node:net');
    const { createMessageConnection, SocketMessageReader, SocketMessageWriter } = await import('vscode-jsonrpc/node');
    const { BIN } = await import('../support/lspClient.js');
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
    const child = spawn(process.execPath, [BIN, `--socket=${port}`], { cwd: copyFixture('basic'), stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const socket = await accepted;
      const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
      connection.listen();
      await expect(connection.sendRequest('assistant/agents', {})).rejects.toMatchObject({ code: -32002 });
      await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
      await connection.sendNotification('initialized', {});
      const result = await connection.sendRequest<{ agents: unknown[] }>('assistant/agents', {});
      expect(result.agents.length).toBeGreaterThan(0);
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      expect(await exited).toBe(0);
      connection.dispose();
    } finally {
      child.kill('SIGKILL');
      listener.close();
    }
  });
});
