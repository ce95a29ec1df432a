// `textDocument/inlineCompletion` (LSP 3.18): ghost-text completions, cancelled by `$/cancelRequest` down to the model's HTTP request.
import { InlineCompletionRequest, InlineCompletionTriggerKind } from 'vscode-languageserver/node';
import type { InlineCompletionParams } from 'vscode-languageserver/node';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(
    InlineCompletionRequest.type,
    handleRequest(InlineCompletionRequest.method, ctx.log, async (params: InlineCompletionParams, signal) =>
      (await ctx.assistant()).inlineCompletion(params?.textDocument?.uri, params?.position, signal, params?.context?.triggerKind === InlineCompletionTriggerKind.Invoked, ctx.port()),
    ),
  );
}
