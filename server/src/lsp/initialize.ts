// `initialize` and `initialized`: the server's capabilities, the workspace root, and the core's creation.
import path from 'node:path';
import { CodeActionKind, TextDocumentSyncKind } from 'vscode-languageserver/node';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver/node';
import { ALL_COMMANDS } from '../protocol.js';
import type { Assistant } from '../assistant.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import { afterInitialized, rememberInitializationOptions } from './configuration.js';
import { watchFiles } from './fileEvents.js';
import type { ServerContext } from './serverContext.js';
import { problemPublisher } from './publishProblems.js';
import { assistantCapabilities } from './editorPort.js';

const VERSION = '0.1.0';

function workspaceRoot(params: InitializeParams): string {
  const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
  const fromUri = folder ? uriToPath(folder) : undefined;
  return path.resolve(fromUri ?? params.rootPath ?? process.cwd());
}

export function register(ctx: ServerContext): void {
  ctx.connection.onInitialize((params): InitializeResult => {
    ctx.capabilities = params.capabilities ?? {};
    const { settings, problems } = rememberInitializationOptions(params.initializationOptions);
    ctx.progress.configure(settings.progress.showAfterMs);
    const client = params.clientInfo ? { client: { name: params.clientInfo.name, ...(params.clientInfo.version ? { version: params.clientInfo.version } : {}) } } : {};
    // Eglot runs one server per major mode, so no typescript-language-server beside this one shows type errors.
    const wantsTypeErrors = assistantCapabilities(ctx.capabilities).typeErrors === true || /\beglot\b/i.test(params.clientInfo?.name ?? '');
    // LSP 3.18's capability; the project's own Neovim and Emacs clients declare it too.
    const showsInlineCompletions = ctx.capabilities.textDocument?.inlineCompletion !== undefined;
    ctx.setAssistant(
      import('../assistant.js').then(({ Assistant: Core }): Promise<Assistant> =>
        Core.create({ root: workspaceRoot(params), documents: ctx.documents, settings, settingsProblems: problems, env: process.env, ...client, wantsTypeErrors, showsInlineCompletions, log: ctx.log, publishProblems: problemPublisher(ctx) }),
      ),
    );
    const positionEncodings = params.capabilities?.general?.positionEncodings;
    return {
      capabilities: {
        // Positions are UTF-16 code units, which is what JavaScript strings index by.
        ...(positionEncodings ? { positionEncoding: 'utf-16' } : {}),
        // Saves tell the workspace's listing of files it does not hold yet (see fileEvents.ts), and the trace that the
        // code the assistant inserted reached the disk (see trace/insertionTracker.ts).
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        // Resolve only for a client that takes the edit from it: the others get actions that carry their command, and
        // VS Code, which resolves every action without an edit first, once ran nothing when the menu refreshed its
        // actions between that resolve and the command.
        codeActionProvider: { codeActionKinds: [CodeActionKind.RefactorRewrite, CodeActionKind.Source], resolveProvider: ctx.resolvesEdits() },
        executeCommandProvider: { commands: [...ALL_COMMANDS] },
        // Always declared: without a model agent the answer is an empty list at once (see completion/).
        inlineCompletionProvider: true,
        workspace: { workspaceFolders: { supported: true } },
      },
      serverInfo: { name: 'assistant-ls', version: VERSION },
    };
  });

  ctx.connection.onInitialized(() => {
    ctx.progress.enable(ctx.capabilities.window?.workDoneProgress === true);
    const settings = afterInitialized(ctx);
    ctx.settingsArriving(settings);
    void settings.catch((error: unknown) => ctx.log(`initialized: ${(error as Error).message}`));
    void watchFiles(ctx).catch((error: unknown) => ctx.log(`file watchers: ${(error as Error).message}`));
  });

  ctx.connection.onShutdown(() => ctx.close());
}
