// `workspace/executeCommand`: runs a task command with progress and cancellation, and records resolved edits as applied.
import type { ExecuteCommandParams } from 'vscode-languageserver/node';
import { ExecuteCommandRequest, ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import { Commands, COMMAND_TASKS } from '../protocol.js';
import type { AcceptCompletionArgs, AcceptCompletionResult, ApplyPatchArgs, ApplyPatchResult, FixAllArgs, FixAllResult, ListenerRunResult, ResponseAppliedArgs, ShowInteractionArgs, ShowInteractionResult, TaskCommandArgs, TaskCommandResult } from '../protocol.js';
import { commit, handleRequest } from './handleRequest.js';
import { expectPositionArgs, expectResponseIds, expectTaskArgs } from './paramShapes.js';
import { withProgress } from './withProgress.js';
import type { ServerContext } from './serverContext.js';

export function register(ctx: ServerContext): void {
  // Registered as a plain request: the library's onExecuteCommand strips `workDoneToken` from the params,
  // and the token is needed to honour cancellation from the client's progress UI.
  ctx.connection.onRequest(
    ExecuteCommandRequest.type,
    handleRequest('workspace/executeCommand', ctx.log, async (params: ExecuteCommandParams, _signal, controller): Promise<TaskCommandResult | ShowInteractionResult | ListenerRunResult | FixAllResult | ApplyPatchResult | AcceptCompletionResult | null> => {
      const command = params?.command;
      if (params?.workDoneToken !== undefined && typeof params.workDoneToken !== 'string' && !Number.isInteger(params.workDoneToken)) {
        throw new ResponseError(ErrorCodes.InvalidParams, '"workDoneToken" must be a string or an integer.');
      }
      const task = typeof command === 'string' ? COMMAND_TASKS[command] : undefined;
      if (task) {
        const args = params.arguments?.[0] as TaskCommandArgs | undefined;
        if (!args) throw new ResponseError(ErrorCodes.InvalidParams, `${command} needs one argument: { textDocument, range }.`);
        expectTaskArgs(command, args);
        const title = `Assistant: ${task}${args.symbol ? ` ${args.symbol}` : ''}`;
        const result = await withProgress(ctx, params.workDoneToken, title, controller, async (progress) => (await ctx.configured()).runCommand(task, args, controller.signal, progress, ctx.port()));
        // The editor applied the edit, or the user was shown the answer: a cancel that came too late must not hide that.
        if (result.applied || result.outcome === 'shown') commit(controller);
        return result;
      }
      if (command === Commands.responseApplied) {
        const args = params.arguments?.[0] as ResponseAppliedArgs | undefined;
        expectResponseIds(command, args);
        await (await ctx.assistant()).responseApplied(args!.interactionId, args!.responseId, ctx.port());
        commit(controller);
        return null;
      }
      if (command === Commands.showInteraction) {
        expectPositionArgs(command, params.arguments?.[0]);
        return (await ctx.assistant()).showInteraction(params.arguments?.[0] as ShowInteractionArgs, ctx.port());
      }
      if (command === Commands.checkTypes) {
        return withProgress(ctx, params.workDoneToken, 'Assistant: type-check the project', controller, async (progress) => (await ctx.assistant()).checkTypes(controller.signal, progress));
      }
      if (command === Commands.runTests) {
        return withProgress(ctx, params.workDoneToken, 'Assistant: run the tests', controller, async (progress) => (await ctx.assistant()).runTests(controller.signal, progress, ctx.port()));
      }
      if (command === Commands.lint) {
        return withProgress(ctx, params.workDoneToken, 'Assistant: lint the project', controller, async (progress) => (await ctx.assistant()).lint(controller.signal, progress));
      }
      if (command === Commands.fixAll) {
        const args = params.arguments?.[0] as FixAllArgs | undefined;
        const result = await withProgress(ctx, params.workDoneToken, 'Assistant: fix lint problems', controller, async (progress) => (await ctx.assistant()).fixAll(args, controller.signal, progress, ctx.port()));
        if (result.fixed > 0) commit(controller);
        return result;
      }
      if (command === Commands.applyPatch) {
        const result = await (await ctx.assistant()).applyPatch(params.arguments?.[0] as ApplyPatchArgs, ctx.port());
        if (result.applied) commit(controller);
        return result;
      }
      if (command === Commands.acceptCompletion) {
        // A client that accepted part of the text appends `{ acceptedText }` or `{ acceptedLength }` to the item's arguments.
        const [item, accepted] = (params.arguments ?? []) as [AcceptCompletionArgs | undefined, Partial<AcceptCompletionArgs> | undefined];
        const args = item && typeof accepted === 'object' && accepted !== null ? { ...item, ...(accepted.acceptedText !== undefined ? { acceptedText: accepted.acceptedText } : {}), ...(accepted.acceptedLength !== undefined ? { acceptedLength: accepted.acceptedLength } : {}) } : item;
        const result = await (await ctx.assistant()).acceptCompletion(args as AcceptCompletionArgs);
        // Recorded in the trace: a late cancel must not hide it.
        commit(controller);
        return result;
      }
      throw new ResponseError(ErrorCodes.InvalidParams, typeof command === 'string' ? `Unknown command "${command}".` : '"command" must be a string.');
    }),
  );
}
