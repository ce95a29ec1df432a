// Wires the LSP connection: one line per feature; the only place that builds the connection.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import type { MessageReader, MessageWriter } from 'vscode-languageserver/node';
import { DRAIN_METHOD, LifecycleGate } from './lifecycleGate.js';
import { LspDocuments } from './documents.js';
import { ProgressTracker } from './progress.js';
import { ServerContext } from './serverContext.js';
import * as initialize from './initialize.js';
import * as configuration from './configuration.js';
import * as codeAction from './codeAction.js';
import * as executeCommand from './executeCommand.js';
import * as ask from './ask.js';
import * as apply from './apply.js';
import * as trace from './trace.js';
import * as agents from './agents.js';
import * as rate from './rate.js';
import * as revert from './revert.js';
import * as discard from './discard.js';
import * as feedback from './feedback.js';
import * as fileEvents from './fileEvents.js';
import * as inlineCompletion from './inlineCompletion.js';

/** How long the session may take to settle when it ends; a process told to go does not linger past it. */
const SETTLE_LIMIT_MS = 3_000;

/**
 * Starts serving on a transport; the gate tells the caller whether `shutdown` came, for the exit code, and `settle`
 * is what the caller awaits before ending the process: every message read is handled and the trace written.
 */
export function startServer(reader: MessageReader, writer: MessageWriter): { gate: LifecycleGate; settle: () => Promise<void> } {
  const gate = new LifecycleGate(reader, writer);
  const connection = createConnection(ProposedFeatures.all, gate, gate.answers());
  const documents = new LspDocuments();
  const ctx = new ServerContext(connection, documents, new ProgressTracker(connection));

  initialize.register(ctx);
  configuration.register(ctx);
  codeAction.register(ctx);
  executeCommand.register(ctx);
  ask.register(ctx);
  apply.register(ctx);
  trace.register(ctx);
  agents.register(ctx);
  rate.register(ctx);
  revert.register(ctx);
  discard.register(ctx);
  feedback.register(ctx);
  fileEvents.register(ctx);
  inlineCompletion.register(ctx);

  // The server type-checks open files itself, so fixes are offered even when the client sends no diagnostics.
  // Background work: a failure is logged, never an unhandled rejection.
  const whenReady = (use: (assistant: Awaited<ReturnType<ServerContext['assistant']>>) => void): void => {
    if (ctx.hasAssistant()) {
      void ctx
        .assistant()
        .then(use)
        .catch((error: unknown) => ctx.log(`document sync: ${(error as Error).message}`));
    }
  };
  documents.onDidChange((uri, edit) => whenReady((assistant) => assistant.documentChanged(uri, edit)));
  documents.onDidClose((document) => whenReady((assistant) => assistant.documentClosed(document.uri, document.languageId)));
  documents.listen(connection);
  connection.onNotification(DRAIN_METHOD, () => gate.drained());
  const settle = (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_LIMIT_MS)));
    return Promise.race([gate.drain().then(() => ctx.close()), limit]).finally(() => clearTimeout(timer));
  };
  gate.beforeExit(settle);
  connection.listen();
  return { gate, settle };
}
