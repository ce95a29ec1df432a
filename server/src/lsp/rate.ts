// `assistant/rate`: a thumb up or down on a response, recorded in the trace.
import { RateRequest } from '../protocol.js';
import type { RateParams } from '../protocol.js';
import { commit, handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    RateRequest.type,
    handleRequest(RateRequest.method, ctx.log, async (params: RateParams, _signal, controller) => {
      const result = await (await ctx.assistant()).rate(params);
      // Done in the editor and the trace: a cancel that arrives now must not hide it.
      commit(controller);
      return result;
    }),
  );
}
