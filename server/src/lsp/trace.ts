// `assistant/trace`: queries the trace by id, position, session, task, agent, time, use and text.
import { TraceRequest } from '../protocol.js';
import type { TraceParams } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import { expectTraceParams } from './paramShapes.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    TraceRequest.type,
    handleRequest(TraceRequest.method, ctx.log, async (params: TraceParams) => {
      expectTraceParams(params);
      return (await ctx.assistant()).trace(params);
    }),
  );
}
