// `assistant/apply`: applies one candidate through workspace/applyEdit and marks it used.
import { ApplyRequest } from '../protocol.js';
import type { ApplyParams } from '../protocol.js';
import { commit, handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    ApplyRequest.type,
    handleRequest(ApplyRequest.method, ctx.log, async (params: ApplyParams, _signal, controller) => {
      const result = await (await ctx.assistant()).apply(params, ctx.port());
      // Done in the editor and the trace: a cancel that arrives now must not hide it.
      commit(controller);
      return result;
    }),
  );
}
