// `textDocument/inlineCompletion` (LSP 3.18): ghost-text completions, cancelled by `$/cancelRequest` down to the model's HTTP request.
import { InlineCompletionRequest, InlineCompletionTriggerKind } from 'vscode-languageserver/node';
import type { InlineCompletionParams } from 'vscode-languageserver/node';
import type { CompletionTiming } from '../completion/inlineCompletions.js';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    InlineCompletionRequest.type,
    handleRequest(InlineCompletionRequest.method, ctx.log, async (params: InlineCompletionParams, signal) => {
      const received = performance.now();
      const timing: CompletionTiming = {};
      const list = await (await ctx.configured()).inlineCompletion(params?.textDocument?.uri, params?.position, signal, params?.context?.triggerKind === InlineCompletionTriggerKind.Invoked, ctx.port(), timing);
      if (timing.exchange) logOwnTime(ctx, received, timing.exchange, performance.now());
      return list;
    }),
  );
}

/**
 * With the client's trace on (`$/setTrace`, or `trace` in initialize), says where a completion's time went: the
 * server's own before the model call and after its last token, and the model's. Nothing is sent with the trace off.
 */
function logOwnTime(ctx: ServerContext, received: number, exchange: NonNullable<CompletionTiming['exchange']>, answered: number): void {
  const before = exchange.startedAt - received;
  const after = answered - exchange.endedAt;
  const ms = (value: number): string => `${value.toFixed(2)} ms`;
  ctx.connection.tracer.log(`inlineCompletion: server's own time ${ms(before + after)} (${ms(before)} to the model call, ${ms(after)} from its last token to the answer); the model ${ms(exchange.endedAt - exchange.startedAt)}`);
}
