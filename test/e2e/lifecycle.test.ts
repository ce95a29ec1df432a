// End-to-end lifecycle over a real `assistant-ls --stdio` child: -32002 before initialize, InvalidRequest after shutdown, exit codes, parent death.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TestEditor, copyFixture, FULL_CAPABILITIES } from '../support/lspClient.js';

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
    expect(result.capabilities.codeActionProvider).toMatchObject({ resolveProvider: true });
    const agents = await editor.request<{ agents: { name: string; technology: string }[] }>('assistant/agents', {});
    expect(agents.agents.map((a) => a.name)).toContain('doc-offline');
  });

  it('answers an unknown method with MethodNotFound once running', async () => {
    const { editor } = await TestEditor.start({ root: copyFixture('basic') });
    track(editor);
    await expect(editor.request('assistant/nope', {})).rejects.toMatchObject({ code: -32601 });
    expect((await editor.request<{ agents: unknown[] }>('assistant/agents', {})).agents.length).toBeGreaterThan(0);
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
