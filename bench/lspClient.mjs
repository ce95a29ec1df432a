// A minimal LSP client for the benchmarks: spawns a server over stdio, answers its requests like an editor, times requests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { REPO_ROOT, now, processTree, treePeakRssMB } from './support.mjs';

/** The capabilities both servers are given: what VS Code declares for the features measured. */
export const CAPABILITIES = {
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] }, configuration: false, workspaceFolders: true },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: false } }, showDocument: { support: true } },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true },
    codeAction: {
      dynamicRegistration: false,
      isPreferredSupport: true,
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.extract', 'refactor.inline', 'refactor.rewrite', 'source', 'source.organizeImports'] } },
    },
    publishDiagnostics: { relatedInformation: true },
  },
  general: { positionEncodings: ['utf-16'] },
};

/** How to start each server measured. */
export const SERVERS = {
  'assistant-ls': { command: [path.join(REPO_ROOT, 'bin', 'assistant-ls.js'), '--stdio'] },
  'typescript-language-server': { command: [path.join(REPO_ROOT, 'node_modules', 'typescript-language-server', 'lib', 'cli.mjs'), '--stdio'] },
};

function positionAt(text, offset) {
  let line = 0;
  let lineStart = 0;
  for (let next = text.indexOf('\n'); next >= 0 && next < offset; next = text.indexOf('\n', next + 1)) {
    line++;
    lineStart = next + 1;
  }
  return { line, character: offset - lineStart };
}

function offsetAt(text, position) {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset + position.character;
}

/**
 * Applies LSP text edits to a text (all on the original text, as the protocol says), last first; `changes` are the
 * same edits in the order applied, as the incremental `didChange` an editor sends (each range still valid then).
 */
export function applyTextEdits(text, edits) {
  const withOffsets = edits.map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), range: e.range, newText: e.newText }));
  withOffsets.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of withOffsets) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return { text: out, changes: withOffsets.map((e) => ({ range: e.range, text: e.newText })) };
}

/** The one ranged change that turns `current` into `target`: over the part between their common start and end. */
export function restoringChange(current, target) {
  const shorter = Math.min(current.length, target.length);
  let start = 0;
  while (start < shorter && current.charCodeAt(start) === target.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < shorter - start && current.charCodeAt(current.length - 1 - tail) === target.charCodeAt(target.length - 1 - tail)) tail++;
  return { range: { start: positionAt(current, start), end: positionAt(current, current.length - tail) }, text: target.slice(start, target.length - tail) };
}

export class BenchClient {
  constructor(child, root) {
    this.child = child;
    this.root = root;
    this.buffers = new Map();
    this.stderr = '';
    this.diagnostics = 0;
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr.on('data', (d) => (this.stderr = (this.stderr + String(d)).slice(-20_000)));
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    this.connection = connection;
    connection.onRequest('workspace/applyEdit', (params) => this.applyLocally(params));
    connection.onRequest('window/showMessageRequest', (params) => params.actions?.[0] ?? null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('window/showDocument', () => ({ success: true }));
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('workspace/configuration', (params) => params.items.map(() => null));
    connection.onRequest('workspace/workspaceFolders', () => [{ uri: pathToFileURL(root).href, name: path.basename(root) }]);
    connection.onNotification('textDocument/publishDiagnostics', () => void (this.diagnostics += 1));
    connection.onNotification(() => undefined);
    connection.onUnhandledProgress(() => undefined);
    connection.onError(() => undefined);
    connection.listen();
  }

  /** Spawns `server` (a key of SERVERS) in `root` with extra environment variables. */
  static spawn(server, root, env = {}) {
    const base = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') base[k] = v;
    }
    // BENCH_NODE_ARGS: extra Node flags for the servers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, ...SERVERS[server].command], { cwd: root, env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    return new BenchClient(child, root);
  }

  get pid() {
    return this.child.pid;
  }

  /** Resolves once the process reads and answers requests (any answer, an error before `initialize` included). */
  async ready() {
    try {
      await this.connection.sendRequest('bench/ping', {});
    } catch {
      // ServerNotInitialized or MethodNotFound: either way the server is up.
    }
  }

  /** Sends `initialize` and `initialized`; returns the round trip of `initialize` in milliseconds. */
  async initialize(initializationOptions) {
    const rootUri = pathToFileURL(this.root).href;
    const start = now();
    await this.connection.sendRequest('initialize', {
      processId: process.pid,
      clientInfo: { name: 'assistant-ls-bench', version: '1' },
      rootUri,
      rootPath: this.root,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities: CAPABILITIES,
      initializationOptions,
    });
    const elapsed = now() - start;
    await this.connection.sendNotification('initialized', {});
    return elapsed;
  }

  async open(fsPath) {
    const uri = pathToFileURL(fsPath).href;
    const text = fs.readFileSync(fsPath, 'utf8');
    const buffer = { uri, version: 1, text };
    this.buffers.set(uri, buffer);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: fsPath.endsWith('.js') ? 'javascript' : 'typescript', version: 1, text } });
    return buffer;
  }

  /** Replaces a buffer's whole text, as an editor's undo would. */
  async setText(uri, text) {
    const buffer = this.buffers.get(uri);
    buffer.text = text;
    buffer.version += 1;
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: [{ text }] });
  }

  /** Applies one ranged change to a buffer and sends it as an incremental `didChange`, as an editor does when the user types. */
  async setTextIncrementally(uri, change) {
    const buffer = this.buffers.get(uri);
    buffer.text = applyTextEdits(buffer.text, [{ range: change.range, newText: change.text }]).text;
    buffer.version += 1;
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: [change] });
  }

  /** Brings a buffer back to `text` as an editor's undo does under incremental sync (see `restoringChange`). */
  async restore(uri, text) {
    const buffer = this.buffers.get(uri);
    if (buffer.text === text) return;
    const change = restoringChange(buffer.text, text);
    buffer.text = text;
    buffer.version += 1;
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: [change] });
  }

  codeActions(uri, position) {
    return this.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], triggerKind: 1 } });
  }

  request(method, params) {
    return this.connection.sendRequest(method, params);
  }

  /** Applies an edit when the versions match, like VS Code, and tells the server. */
  applyLocally(params) {
    const changes = params.edit.documentChanges ?? [];
    for (const change of changes) {
      if (!change.textDocument) continue;
      const buffer = this.buffers.get(change.textDocument.uri);
      if (!buffer) return { applied: false, failureReason: 'document not open' };
      if (change.textDocument.version !== null && change.textDocument.version !== buffer.version) return { applied: false, failureReason: 'version mismatch' };
    }
    for (const change of changes) {
      if (!change.textDocument) continue;
      const buffer = this.buffers.get(change.textDocument.uri);
      const { text, changes } = applyTextEdits(buffer.text, change.edits);
      buffer.text = text;
      buffer.version += 1;
      // Both servers ask for incremental sync, so the edit goes back as the ranges it changed, as editors send it.
      void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri: buffer.uri, version: buffer.version }, contentChanges: changes });
    }
    return { applied: true };
  }

  /** Peak RSS of the server and its children (typescript-language-server runs tsserver as children). */
  peakMemory() {
    return treePeakRssMB(this.child.pid);
  }

  async shutdown() {
    const tree = processTree(this.child.pid);
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((_, reject) => setTimeout(() => reject(new Error('shutdown timed out')), 10_000))]);
      await this.connection.sendNotification('exit');
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    } catch {
      // Whatever state it is in, it ends below.
    }
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    // Children the server started (tsserver) and left behind end too, each by its own id.
    for (const pid of tree.slice(1)) {
      try {
        // Only a process still running our servers' code: a recycled id belongs to someone else.
        if (!/typescript|tsserver|assistant-ls/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.connection.dispose();
  }
}
