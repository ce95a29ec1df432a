// `assistant/revert`: undoes what an interaction inserted, through workspace/applyEdit.
import { RevertRequest } from '../protocol.js';
import type { RevertParams } from '../protocol.js';
import { commit, handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    RevertRequest.type,
    handleRequest(RevertRequest.method, ctx.log, async (params: RevertParams, _signal, controller) => {
      const result = await (await ctx.assistant()).revert(params, ctx.port());
      // Done in the editor and the trace: a cancel that arrives now must not hide it.
      commit(controller);
      return result;
    }),
  );
}
