// `assistant/discard`: the user chose none of an interaction's answers, recorded in the trace.
import { DiscardRequest } from '../protocol.js';
import type { DiscardParams } from '../protocol.js';
import { commit, handleRequest } from './handleRequest.js';
import { expectDiscardParams } from './paramShapes.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    DiscardRequest.type,
    handleRequest(DiscardRequest.method, ctx.log, async (params: DiscardParams, _signal, controller) => {
      expectDiscardParams(params);
      const result = await (await ctx.assistant()).discard(params);
      // Written to the trace: a cancel that arrives now must not hide it.
      commit(controller);
      return result;
    }),
  );
}
