// Runs long work under a work-done progress whose cancel button aborts it, and always ends the progress.
import type { ProgressToken } from 'vscode-languageserver/node';
import type { ProgressSink } from '../editorPort.js';
import { PipelineStepNotification } from '../protocol.js';
import type { ServerContext } from './serverContext.js';

export async function withProgress<T>(ctx: ServerContext, clientToken: ProgressToken | undefined, title: string, controller: AbortController, work: (progress: ProgressSink) => Promise<T>): Promise<T> {
  const progress = ctx.progress.begin(clientToken, title, () => controller.abort(new Error('Cancelled from the progress report.')));
  let outcome = 'done';
  const sink: ProgressSink = ctx.rendersPipelineSteps()
    ? { report: (message, percentage) => progress.report(message, percentage), step: (params) => void ctx.connection.sendNotification(PipelineStepNotification.type, params).catch(() => undefined) }
    : progress;
  try {
    return await work(sink);
  } catch (error) {
    outcome = controller.signal.aborted ? 'cancelled' : 'failed';
    throw error;
  } finally {
    progress.done(outcome);
  }
}
