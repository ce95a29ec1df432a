// `assistant/rate`: a thumb up or down on a response, recorded in the trace.
import { RateRequest } from '../protocol.js';
import type { RateParams } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    RateRequest.type,
    handleRequest(RateRequest.method, ctx.log, async (params: RateParams) => (await ctx.assistant()).rate(params)),
  );
}
