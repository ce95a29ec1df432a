// A test editor: spawns `assistant-ls --stdio`, speaks JSON-RPC with vscode-jsonrpc, keeps buffers and applies edits like a real client.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureCopies } from './fixtureCopies.js';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, ClientCapabilities, CodeAction, InitializeResult, MessageActionItem, Position, ShowMessageRequestParams, TextDocumentEdit } from 'vscode-languageserver-protocol';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(REPO_ROOT, 'bin', 'assistant-ls.js');

export interface Buffer {
  uri: string;
  version: number;
  text: string;
}

export interface ProgressEvent {
  token: string | number;
  value: { kind: string; title?: string; message?: string; percentage?: number; cancellable?: boolean };
}

export const FULL_CAPABILITIES: ClientCapabilities = {
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] }, configuration: false },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: false } }, showDocument: { support: true } },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.rewrite', 'source'] } } },
  },
  general: { positionEncodings: ['utf-16'] },
};

export const RESOLVE_CAPABILITIES: ClientCapabilities = {
  ...FULL_CAPABILITIES,
  textDocument: {
    ...FULL_CAPABILITIES.textDocument,
    codeAction: { ...FULL_CAPABILITIES.textDocument?.codeAction, dataSupport: true, resolveSupport: { properties: ['edit'] } },
  },
};

/** Copies a fixture folder to a fresh temporary workspace, so tests never write into the repository. */
export function copyFixture(name: string): string {
  const source = path.join(REPO_ROOT, 'test', 'fixtures', name);
  const target = fs.mkdtempSync(path.join(os.tmpdir(), `assistant-ls-${name}-`));
  fixtureCopies.add(target);
  fs.cpSync(source, target, { recursive: true });
  return target;
}

/** Links the repository's node_modules into a workspace, so a fixture's test framework (and its types) resolve. */
export function linkModules(root: string): string {
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'junction');
  return root;
}

export interface StartOptions {
  root: string;
  env?: Record<string, string>;
  /** The script to start instead of `bin/assistant-ls.js`. */
  bin?: string;
}

export class TestEditor {
  readonly connection: MessageConnection;
  readonly buffers = new Map<string, Buffer>();
  readonly applied: ApplyWorkspaceEditParams[] = [];
  readonly messages: { type: number; message: string }[] = [];
  /** What the server sent as window/logMessage, in order. */
  readonly logs: string[] = [];
  readonly questions: ShowMessageRequestParams[] = [];
  readonly progress: ProgressEvent[] = [];
  readonly createdTokens: (string | number)[] = [];
  readonly shownDocuments: string[] = [];
  /** What the server registered with client/registerCapability, in order. */
  readonly registrations: { id: string; method: string; registerOptions?: unknown }[] = [];
  stderr = '';
  /** How the editor answers workspace/applyEdit; default: apply when versions match, like VS Code. */
  onApplyEdit: (params: ApplyWorkspaceEditParams) => ApplyWorkspaceEditResult = (params) => this.applyLocally(params);
  /** What the editor answers to workspace/configuration for the `assistant` section. */
  configuration: unknown = null;
  /** How the editor answers window/workDoneProgress/create; default: at once, accepting the token. */
  onCreateProgress: (token: string | number) => Promise<null> | null = () => null;
  /** How the user answers window/showMessageRequest; default: the first action. */
  onQuestion: (params: ShowMessageRequestParams) => MessageActionItem | null | Promise<MessageActionItem | null> = (params) => params.actions?.[0] ?? null;
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly root: string,
  ) {
    this.connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    child.stderr!.on('data', (d: string | Uint8Array) => (this.stderr += String(d)));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    this.connection.onRequest('workspace/applyEdit', (params: ApplyWorkspaceEditParams) => {
      this.applied.push(params);
      return this.onApplyEdit(params);
    });
    this.connection.onRequest('window/showMessageRequest', (params: ShowMessageRequestParams) => {
      this.questions.push(params);
      return this.onQuestion(params);
    });
    this.connection.onRequest('window/workDoneProgress/create', (params: { token: string | number }) => {
      this.createdTokens.push(params.token);
      return this.onCreateProgress(params.token);
    });
    this.connection.onRequest('window/showDocument', (params: { uri: string }) => {
      this.shownDocuments.push(params.uri);
      return { success: true };
    });
    this.connection.onRequest('client/registerCapability', (params: { registrations?: { id: string; method: string; registerOptions?: unknown }[] }) => {
      this.registrations.push(...(params?.registrations ?? []));
      return null;
    });
    this.connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => params.items.map((item) => (item.section === 'assistant' ? this.configuration : null)));
    this.connection.onNotification('window/showMessage', (params: { type: number; message: string }) => void this.messages.push(params));
    this.connection.onNotification('window/logMessage', (params: { message: string }) => void this.logs.push(params.message));
    // vscode-jsonrpc routes $/progress by token; tokens nobody subscribed to arrive here.
    this.connection.onUnhandledProgress((params) => void this.progress.push(params as ProgressEvent));
    this.connection.onError(() => undefined);
    this.connection.listen();
  }

  static spawn(options: StartOptions): TestEditor {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
    }
    const child = spawn(process.execPath, [options.bin ?? BIN, '--stdio'], { cwd: options.root, env: { ...env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    return new TestEditor(child, options.root);
  }

  static async start(options: StartOptions & { capabilities?: ClientCapabilities; initializationOptions?: unknown }): Promise<{ editor: TestEditor; result: InitializeResult }> {
    const editor = TestEditor.spawn(options);
    const result = await editor.initialize(options.capabilities ?? FULL_CAPABILITIES, options.initializationOptions);
    return { editor, result };
  }

  async initialize(capabilities: ClientCapabilities, initializationOptions?: unknown): Promise<InitializeResult> {
    const rootUri = pathToFileURL(this.root).href;
    const result = await this.connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      clientInfo: { name: 'test-editor', version: '1' },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities,
      initializationOptions,
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  uri(relativePath: string): string {
    return pathToFileURL(path.join(this.root, relativePath)).href;
  }

  async open(relativePath: string): Promise<Buffer> {
    const text = fs.readFileSync(path.join(this.root, relativePath), 'utf8');
    return this.openText(this.uri(relativePath), relativePath.endsWith('.js') ? 'javascript' : 'typescript', text);
  }

  /** Opens a buffer of any URI (an untitled one, say) with the given language and text. */
  async openText(uri: string, languageId: string, text: string): Promise<Buffer> {
    const buffer: Buffer = { uri, version: 1, text };
    this.buffers.set(uri, buffer);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return buffer;
  }

  /** Closes a buffer, as an editor closing its tab. */
  async close(uri: string): Promise<void> {
    this.buffers.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** Replaces the whole text, as a user's edit would, and tells the server. */
  async setText(uri: string, text: string): Promise<Buffer> {
    const buffer = this.buffer(uri);
    buffer.text = text;
    buffer.version++;
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: [{ text }] });
    return buffer;
  }

  /** Ranged changes in one notification, each on the text the ones before it left, as an editor sends keys typed between two. */
  async change(uri: string, changes: { range: { start: Position; end: Position }; text: string }[]): Promise<Buffer> {
    const buffer = this.buffer(uri);
    for (const change of changes) buffer.text = buffer.text.slice(0, offsetAt(buffer.text, change.range.start)) + change.text + buffer.text.slice(offsetAt(buffer.text, change.range.end));
    buffer.version++;
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: changes });
    return buffer;
  }

  buffer(uri: string): Buffer {
    const buffer = this.buffers.get(uri);
    if (!buffer) throw new Error(`no buffer ${uri}`);
    return buffer;
  }

  /** The position of the first occurrence of `needle` in the buffer (plus `delta` characters). */
  position(uri: string, needle: string, delta = 0): Position {
    const text = this.buffer(uri).text;
    const index = text.indexOf(needle);
    if (index < 0) throw new Error(`"${needle}" not in ${uri}`);
    const before = text.slice(0, index + delta);
    const line = before.split('\n').length - 1;
    return { line, character: before.length - before.lastIndexOf('\n') - 1 };
  }

  /** The titles of the quickfixes offered at the first occurrence of `needle`, with no diagnostics from the client. */
  async quickfixes(uri: string, needle: string): Promise<string[]> {
    const position = this.position(uri, needle);
    const actions = await this.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
    return actions.filter((a) => a.kind === 'quickfix').map((a) => a.title);
  }

  /**
   * The quickfixes at `needle` once the server's own type-check has offered some: it runs 400 ms after the last
   * change, and the first one loads the compiler on the worker. Empty when none came within `timeoutMs`.
   */
  async quickfixesOnceChecked(uri: string, needle: string, timeoutMs = 20_000): Promise<string[]> {
    let titles: string[] = [];
    for (const until = Date.now() + timeoutMs; titles.length === 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) titles = await this.quickfixes(uri, needle);
    return titles;
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  /** Applies an edit the way a real editor does: refused when the version is not the buffer's. */
  applyLocally(params: ApplyWorkspaceEditParams): ApplyWorkspaceEditResult {
    for (const change of params.edit.documentChanges ?? []) {
      if (!('textDocument' in change)) continue;
      const edit = change as TextDocumentEdit;
      const buffer = this.buffers.get(edit.textDocument.uri);
      if (!buffer) return { applied: false, failureReason: 'document not open' };
      if (edit.textDocument.version !== null && edit.textDocument.version !== buffer.version) {
        return { applied: false, failureReason: `version ${edit.textDocument.version} is not the buffer's ${buffer.version}` };
      }
    }
    for (const change of params.edit.documentChanges ?? []) {
      if (!('textDocument' in change)) continue;
      const edit = change as TextDocumentEdit;
      const buffer = this.buffer(edit.textDocument.uri);
      const newText = applyEdits(buffer.text, edit.edits.map((e) => ({ range: e.range, newText: 'newText' in e ? e.newText : '' })));
      buffer.text = newText;
      buffer.version++;
      void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri: buffer.uri, version: buffer.version }, contentChanges: [{ text: newText }] });
    }
    return { applied: true };
  }

  async shutdownAndExit(): Promise<number | null> {
    await this.connection.sendRequest('shutdown');
    await this.connection.sendNotification('exit');
    return this.exited;
  }

  /** Ends the process however it is; for afterEach. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    this.connection.dispose();
  }
}

function offsetAt(text: string, position: Position): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < position.line && i < lines.length; i++) offset += (lines[i] as string).length + 1;
  return offset + position.character;
}

export function applyEdits(text: string, edits: { range: { start: Position; end: Position }; newText: string }[]): string {
  // Inserts at one position end up in the order given, as LSP says: applied backwards, later ones first.
  const withOffsets = edits.map((e, index) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText, index }));
  withOffsets.sort((a, b) => b.start - a.start || b.index - a.index);
  let out = text;
  for (const e of withOffsets) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

/** Waits until `check` holds, polling; for events that arrive as notifications. */
export async function until(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Makes the test editor handle files as a real editor does: it creates files (CreateFile plus the edit that fills
 * it), edits files that are not open on disk, and deletes files; open buffers take their edits the usual way.
 */
export function handleFiles(editor: TestEditor): void {
  editor.onApplyEdit = (params: ApplyWorkspaceEditParams): ApplyWorkspaceEditResult => {
    for (const change of params.edit.documentChanges ?? []) {
      if ('kind' in change) {
        if (change.kind === 'rename') return { applied: false, failureReason: 'no renames here' };
        const file = fileURLToPath(change.uri);
        if (change.kind === 'create') {
          if (fs.existsSync(file)) return { applied: false, failureReason: `${file} exists` };
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, '');
        } else if (change.kind === 'delete') {
          fs.rmSync(file);
        }
        continue;
      }
      const edit = change as TextDocumentEdit;
      if (editor.buffers.has(edit.textDocument.uri)) continue;
      const file = fileURLToPath(edit.textDocument.uri);
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, applyEdits(text, edit.edits.map((e) => ({ range: e.range, newText: 'newText' in e ? e.newText : '' }))));
    }
    const open = (params.edit.documentChanges ?? []).filter((c) => !('kind' in c) && editor.buffers.has((c as TextDocumentEdit).textDocument.uri));
    return open.length > 0 ? editor.applyLocally({ ...params, edit: { documentChanges: open } }) : { applied: true };
  };
}
