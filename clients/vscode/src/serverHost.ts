// Owns the language client: starts the server the settings name, restarts it, and hands out the assistant requests.
import os from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, WorkDoneProgress } from 'vscode-languageclient/node';
// LSP 3.18's inline completion; vscode-languageclient 9 ships it among its proposed features.
import { InlineCompletionItemFeature } from 'vscode-languageclient/lib/common/inlineCompletion.js';
import type { ClientCapabilities, LanguageClientOptions, ServerOptions, StaticFeature, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport } from 'vscode-languageclient/node';
import { AssistantApi } from './core/assistantApi.js';
import type { RequestDeclaration } from './core/assistantApi.js';
import { ShowAnswerNotification } from './core/protocol.js';
import type { AssistantClientCapabilities, ShowAnswerParams } from './core/protocol.js';
import { resolveServerLaunch } from './core/serverLaunch.js';
import type { ServerLaunch } from './core/serverLaunch.js';
import { SECTION, settingsForServer } from './core/settings.js';
import { CLIENT_ID, DOCUMENT_SELECTOR, SERVER_PATH_SETTING } from './core/extensionIds.js';
import { isCancellation } from './editorState.js';
import { showServerProgress } from './serverProgress.js';

/** LSP 3.18's `InlineCompletionTriggerKind` values. */
const LSP_INVOKED = 1;
const LSP_AUTOMATIC = 2;

export class ServerHost implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private progress: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the server ran a command or the client (re)started: the trace may have changed. */
  readonly onDidChangeTrace = this.changed.event;
  readonly output = vscode.window.createOutputChannel('assistant-ls');
  private readonly answered = new vscode.EventEmitter<ShowAnswerParams>();
  /** Fires with each text answer the server sends after a code action or command (`assistant/showAnswer`). */
  readonly onDidReceiveAnswer = this.answered.event;

  constructor(private readonly context: vscode.ExtensionContext) {}

  launch(): ServerLaunch {
    return resolveServerLaunch({
      configuredPath: vscode.workspace.getConfiguration().get<string>(SERVER_PATH_SETTING),
      bundledServer: this.context.asAbsolutePath('dist/server/assistant-ls.mjs'),
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      homeDir: os.homedir(),
    });
  }

  async start(): Promise<void> {
    const launch = this.launch();
    this.output.appendLine(`Starting assistant-ls (${launch.source}): ${launch.kind === 'module' ? launch.module : launch.command} --stdio`);
    const client = new LanguageClient(CLIENT_ID, 'assistant-ls', serverOptions(launch), this.clientOptions());
    client.registerFeature(showsAnswers);
    // Ghost text from textDocument/inlineCompletion. VS Code runs an accepted item's command (the server's
    // assistant.acceptCompletion, registered from its executeCommandProvider), so the trace records it; a partial
    // accept (a word, a line) runs nothing, and reporting it needs proposed API, so only whole acceptances are recorded.
    client.registerFeature(new InlineCompletionItemFeature(client));
    // By method name, as the requests go (the declaration's type comes from the repository's copy of vscode-jsonrpc).
    client.onNotification(ShowAnswerNotification.method, (params: ShowAnswerParams) => this.answered.fire(params));
    this.client = client;
    await client.start();
    this.progress?.dispose();
    this.progress = showServerProgress(client);
    this.changed.fire();
  }

  async restart(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.output.appendLine('Restarting: the running server stops, and a new one starts.');
    if (old) await old.dispose().catch((e: unknown) => this.output.appendLine(`Stopping the server: ${String(e)}`));
    await this.start();
  }

  /** The assistant requests, cancelled with `token`; throws when the server is not running. */
  api(token?: vscode.CancellationToken): AssistantApi {
    const client = this.client;
    if (!client?.isRunning()) throw new Error('The assistant-ls server is not running; see the "assistant-ls" output, or run "Assistant: Restart the Server".');
    // By method name: the declaration's shape is all the client needs (parameters go by name either way).
    // An absent token must not be passed: vscode-jsonrpc would send it as a second parameter, `[params, null]`.
    return new AssistantApi(<P, R>(type: RequestDeclaration<P, R>, params: P) => (token ? client.sendRequest<R>(type.method, params, token) : client.sendRequest<R>(type.method, params)));
  }

  /**
   * Follows the server's `$/progress` on a token this extension made (a `workDoneToken` it sent), so the work is shown
   * in the extension's own notification rather than in a second one of the language client's.
   */
  onProgress(token: string, handler: (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => void): vscode.Disposable {
    const client = this.client;
    if (!client?.isRunning()) return new vscode.Disposable(() => undefined);
    return client.onProgress(WorkDoneProgress.type, token, handler);
  }

  isRunning(): boolean {
    return this.client?.isRunning() ?? false;
  }

  /**
   * The context to hand the language client so the server gets LSP 3.18's trigger kind: shifted by one when the
   * client's converter passes VS Code's value through, as it is when the converter maps it (newer clients do).
   */
  private inlineContext(document: vscode.TextDocument, position: vscode.Position, context: vscode.InlineCompletionContext): vscode.InlineCompletionContext {
    const converter = this.client?.code2ProtocolConverter;
    const probe = converter?.asInlineCompletionParams(document, position, { ...context, triggerKind: vscode.InlineCompletionTriggerKind.Automatic });
    if (!probe || (probe.context.triggerKind as number) === LSP_AUTOMATIC) return context;
    const lsp = context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? LSP_INVOKED : LSP_AUTOMATIC;
    return { ...context, triggerKind: lsp as vscode.InlineCompletionTriggerKind };
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: clientChannel(this.output),
      initializationOptions: () => settingsForServer(vscode.workspace.getConfiguration(SECTION)),
      // didChangeConfiguration for `assistant`; the server then pulls the section through workspace/configuration.
      synchronize: { configurationSection: SECTION },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return result.map((value: unknown, i) => (params.items[i]?.section === SECTION ? settingsForServer(value) : value));
          },
        },
        // vscode-languageclient 9 sends VS Code's trigger kind as it is (Invoke 0, Automatic 1), the values of the LSP
        // draft it followed; LSP 3.18, which the server reads, has Invoked 1 and Automatic 2. Passed through, every
        // keystroke would reach the server as a request made on purpose, which says why there is no suggestion.
        provideInlineCompletionItems: (document, position, context, token, next) => next(document, position, this.inlineContext(document, position, context), token),
        // Code actions end in server commands (the task itself, or recording the applied answer): the trace changed.
        // Work the user cancelled (the Cancel of its progress) ends as the progress says, "cancelled": VS Code would
        // show the request's cancellation as an error toast "Canceled".
        executeCommand: async (command, args, next) => {
          try {
            return await next(command, args);
          } catch (error) {
            if (isCancellation(error)) return undefined;
            throw error;
          } finally {
            this.changed.fire();
          }
        },
      },
    };
  }

  async dispose(): Promise<void> {
    this.changed.dispose();
    this.answered.dispose();
    this.progress?.dispose();
    const client = this.client;
    this.client = undefined;
    if (client) await client.dispose();
    this.output.dispose();
  }
}

/** The library's exit line for a server that stopped normally, which version 9 logs as an error. */
const NORMAL_EXIT = /^\[Error(\s*-[^\]]*)\] Server process exited with code 0\.$/;

/**
 * The channel the language client writes to: the extension's own, where a server process that exited normally is not
 * an error. vscode-languageclient 9 logs every exit as one ("[Error - …] Server process exited with code 0."; version
 * 10 logs it as information): after "Assistant: Restart the Server" it came last, and read as if the new server died.
 */
function clientChannel(output: vscode.OutputChannel): vscode.OutputChannel {
  return new Proxy(output, {
    get(target, property) {
      if (property === 'appendLine') return (line: string) => target.appendLine(line.replace(NORMAL_EXIT, '[Info$1] A server process exited normally (code 0).'));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Declares `experimental.assistant.showAnswer`, so text answers come as a notification instead of a document. */
const showsAnswers: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as { assistant?: AssistantClientCapabilities };
    experimental.assistant = { ...experimental.assistant, showAnswer: true };
    capabilities.experimental = experimental;
  },
  initialize: () => undefined,
  getState: () => ({ kind: 'static' }),
  clear: () => undefined,
};

function serverOptions(launch: ServerLaunch): ServerOptions {
  if (launch.kind === 'module') return { module: launch.module, transport: TransportKind.stdio };
  // `shell` on Windows so that npm's `assistant-ls.cmd` shim runs.
  return { command: launch.command, transport: TransportKind.stdio, options: { shell: process.platform === 'win32' } };
}
