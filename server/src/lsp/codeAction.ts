// `textDocument/codeAction` and `codeAction/resolve`: the tasks offered at a range, instantly, and their edits on demand.
import { CodeActionKind } from 'vscode-languageserver/node';
import type { CodeAction, CodeActionParams } from 'vscode-languageserver/node';
import { Commands, COMMAND_TASKS, isTaskId } from '../protocol.js';
import type { TaskCommandArgs, ResponseAppliedArgs, TaskId } from '../protocol.js';
import { isRange } from '../edits/textEdits.js';
import { diagnosticToLsp } from '../tasks/diagnostics.js';
import { isSupportedLanguage } from '../workspace/documentSnapshot.js';
import { handleRequest, handleRequestNow } from './handleRequest.js';
import { expectTaskArgs, onlyKinds } from './paramShapes.js';
import { withProgress } from './withProgress.js';
import type { ServerContext } from './serverContext.js';
import type { Assistant } from '../assistant.js';

/** What a code action carries so resolve or the command can run it. */
interface ActionData {
  task: TaskId;
  args: TaskCommandArgs;
}

const TASK_COMMAND: Partial<Record<TaskId, string>> = Object.fromEntries(Object.entries(COMMAND_TASKS).map(([command, task]) => [task, command]));

function kindAllowed(kind: string, only: string[] | undefined): boolean {
  if (!only || only.length === 0) return true;
  return only.some((o) => kind === o || kind.startsWith(`${o}.`) || o === CodeActionKind.Empty);
}

/** The code actions at a range: the tasks offered there, and the interaction behind the code there, if any. */
function actionsAt(ctx: ServerContext, assistant: Assistant, params: CodeActionParams): CodeAction[] {
  if (!params?.textDocument?.uri || !isRange(params.range)) return [];
  const only = onlyKinds(params.context?.only);
  const document = assistant.document(params.textDocument.uri);
  if (!document || !isSupportedLanguage(document.languageId)) return [];
  const resolves = ctx.resolvesEdits();
  const traceKind = 'source.assistant.showInteraction';
  const showInteraction: CodeAction[] =
    kindAllowed(traceKind, only) && assistant.hasInteractionAt(document.uri, params.range.start)
      ? [{ title: 'Assistant: Show the interaction behind this code', kind: traceKind, command: { title: 'Show the interaction', command: Commands.showInteraction, arguments: [{ textDocument: { uri: document.uri }, position: params.range.start }] } }]
      : [];
  return assistant
    .offers(params.textDocument.uri, params.range, params.context?.diagnostics)
    .filter((offer) => kindAllowed(offer.kind, only))
    .flatMap((offer): CodeAction[] => {
      const command = TASK_COMMAND[offer.task];
      if (!command) return [];
      const args: TaskCommandArgs = {
        textDocument: { uri: document.uri, version: document.version ?? 0 },
        range: params.range,
        symbol: offer.target.name,
        // The server's own diagnostics (its type-check, the listeners') go back too: the command finds its target by them.
        ...(offer.target.diagnostic ? { diagnostic: diagnosticToLsp(document.text, offer.target.diagnostic) } : {}),
        ...(offer.parameters ? { parameters: offer.parameters } : {}),
      };
      // A client that cannot show a choice (no window.showMessage, e.g. Helix) gets one action per agent instead.
      const agents = ctx.canAskUser() ? [] : assistant.agentsFor(offer.task);
      const variants = agents.length > 1 ? agents.map((agent) => ({ title: `${offer.title} (${agent})`, args: { ...args, agent } })) : [{ title: offer.title, args }];
      return variants.map(({ title, args: variantArgs }): CodeAction => {
        const data: ActionData = { task: offer.task, args: variantArgs };
        // Clients that resolve get the edit from resolve; the others run the command, which applies it.
        return resolves ? { title, kind: offer.kind, data } : { title, kind: offer.kind, data, command: { title, command, arguments: [variantArgs] } };
      });
    })
    .concat(showInteraction);
}

export function register(ctx: ServerContext): void {
  // Once the core has loaded, the list is made and answered in the same turn of the event loop: it is asked for at
  // every move of the cursor, and needs no model, no file and no waiting. Before, the request waits for the core.
  const now = handleRequestNow('textDocument/codeAction', ctx.log, (params: CodeActionParams) => actionsAt(ctx, ctx.loadedAssistant() as Assistant, params));
  const later = handleRequest('textDocument/codeAction', ctx.log, async (params: CodeActionParams) => actionsAt(ctx, await ctx.assistant(), params));
  ctx.connection.onCodeAction((params, token) => (ctx.loadedAssistant() ? now(params, token) : later(params, token)));

  ctx.connection.onCodeActionResolve(
    handleRequest('codeAction/resolve', ctx.log, async (action: CodeAction, _signal, controller): Promise<CodeAction> => {
      const data = action?.data as ActionData | undefined;
      // An action that carries its command runs the task there; resolving it too would run the task twice (Neovim
      // resolves every action that has no edit).
      if (!data || !isTaskId(data.task) || !data.args || action.command) return action;
      expectTaskArgs('codeAction/resolve', data.args);
      const resolved = await withProgress(ctx, undefined, action.title, controller, async (progress) => (await ctx.configured()).resolveCommand(data.task, data.args, controller.signal, progress, ctx.port()));
      if (resolved.kind === 'shown') return { ...action, data: undefined };
      if (resolved.kind === 'none') {
        ctx.port().showMessage('warning', resolved.message);
        return { ...action, data: undefined };
      }
      const applied: ResponseAppliedArgs = { interactionId: resolved.interactionId, responseId: resolved.responseId };
      // The command runs after the client applied the edit, which is how the trace learns it was used.
      return { ...action, edit: resolved.edit, command: { title: 'Record in the assistant trace', command: Commands.responseApplied, arguments: [applied] } };
    }),
  );
}
