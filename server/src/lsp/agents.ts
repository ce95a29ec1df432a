// `assistant/agents`: the registered agents and the tasks each serves.
import { AgentsRequest } from '../protocol.js';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    AgentsRequest.type,
    handleRequest(AgentsRequest.method, ctx.log, async () => (await ctx.configured()).agents()),
  );
}
