// `assistant/apply`: applies one candidate through workspace/applyEdit and marks it used.
import { ApplyRequest } from '../protocol.js';
import type { ApplyParams } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    ApplyRequest.type,
    handleRequest(ApplyRequest.method, ctx.log, async (params: ApplyParams) => (await ctx.assistant()).apply(params, ctx.port())),
  );
}
