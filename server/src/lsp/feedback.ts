// `assistant/feedback`: feedback on one step of a pipeline run, which runs the pipeline again from that step.
import { FeedbackRequest } from '../protocol.js';
import type { FeedbackParams } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import { expectFeedbackParams } from './paramShapes.js';
import { withProgress } from './withProgress.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    FeedbackRequest.type,
    handleRequest(FeedbackRequest.method, ctx.log, (params: FeedbackParams, _signal, controller) => {
      expectFeedbackParams(params);
      return withProgress(ctx, params.workDoneToken, 'Assistant: feedback', controller, async (progress) => (await ctx.configured()).feedback(params, controller.signal, progress));
    }),
  );
}
