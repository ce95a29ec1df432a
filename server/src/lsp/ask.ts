// `assistant/ask`: free text classified and answered with candidates, nothing applied.
import { AskRequest } from '../protocol.js';
import type { AskParams } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import { expectAskParams } from './paramShapes.js';
import { withProgress } from './withProgress.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    AskRequest.type,
    handleRequest(AskRequest.method, ctx.log, (params: AskParams, _signal, controller) => {
      expectAskParams(params);
      return withProgress(ctx, params.workDoneToken, 'Assistant: ask', controller, async (progress) => (await ctx.configured()).ask(params, controller.signal, progress));
    }),
  );
}
