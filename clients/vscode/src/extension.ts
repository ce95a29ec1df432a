// Entry point of the VS Code extension: starts assistant-ls, registers the commands and the trace view.
import * as vscode from 'vscode';
import { AnswerView } from './answerView.js';
import { ask } from './commands/ask.js';
import { rate } from './commands/rate.js';
import { revert } from './commands/revert.js';
import { ANSWER_SCHEME, ExtensionCommands, SERVER_PATH_SETTING, TRACE_VIEW_ID } from './core/extensionIds.js';
import { reportErrors } from './editorState.js';
import { ServerHost } from './serverHost.js';
import { TraceView } from './traceView.js';

let host: ServerHost | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const server = new ServerHost(context);
  host = server;
  const traceView = new TraceView(server);
  const answers = new AnswerView();
  const refresh = (): void => traceView.refresh();
  const restart = (): Promise<void> => reportErrors('Assistant: restarting the server', () => server.restart());
  const view = vscode.window.createTreeView(TRACE_VIEW_ID, { treeDataProvider: traceView, showCollapseAll: true });

  context.subscriptions.push(
    traceView,
    view,
    server.onDidChangeTrace(refresh),
    view.onDidChangeVisibility((e) => e.visible && refresh()),
    answers,
    vscode.workspace.registerTextDocumentContentProvider(ANSWER_SCHEME, answers),
    server.onDidReceiveAnswer((answer) => void answers.show(answer)),
    vscode.commands.registerCommand(ExtensionCommands.ask, (text?: unknown) => ask(server, answers, refresh, text)),
    vscode.commands.registerCommand(ExtensionCommands.answerPlaces, () => answers.pickPlace()),
    vscode.commands.registerCommand(ExtensionCommands.rate, (arg?: unknown) => rate(server, refresh, arg)),
    vscode.commands.registerCommand(ExtensionCommands.revert, (arg?: unknown) => revert(server, refresh, arg)),
    vscode.commands.registerCommand(ExtensionCommands.showTrace, async () => {
      await vscode.commands.executeCommand(`${TRACE_VIEW_ID}.focus`);
      refresh();
    }),
    vscode.commands.registerCommand(ExtensionCommands.restartServer, restart),
    // Another server is another process; the other settings reach the running server through workspace/configuration.
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SERVER_PATH_SETTING) && void restart()),
  );

  try {
    await server.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    server.output.appendLine(`assistant-ls did not start: ${message}`);
    void vscode.window.showErrorMessage(`assistant-ls did not start (${server.launch().source}): ${message}`, 'Open Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', SERVER_PATH_SETTING);
    });
  }
}

export async function deactivate(): Promise<void> {
  const current = host;
  host = undefined;
  await current?.dispose();
}
