// Settings from initializationOptions and workspace/configuration, re-read on didChangeConfiguration without a restart.
import { DidChangeConfigurationNotification } from 'vscode-languageserver/node';
import { SETTINGS_SECTION } from '../protocol.js';
import { resolveSettings } from '../config/settings.js';
import type { ResolvedSettings } from '../config/settings.js';
import type { ServerContext } from './serverContext.js';

let initializationOptions: unknown;

export function rememberInitializationOptions(options: unknown): ResolvedSettings {
  initializationOptions = options;
  return resolveSettings(options);
}

async function pull(ctx: ServerContext, pushed?: unknown): Promise<ResolvedSettings> {
  let fromClient: unknown = pushed;
  if (ctx.capabilities.workspace?.configuration === true) {
    try {
      fromClient = await ctx.connection.workspace.getConfiguration(SETTINGS_SECTION);
    } catch (error) {
      ctx.log(`settings: workspace/configuration failed: ${(error as Error).message}`);
    }
  }
  return resolveSettings(initializationOptions, fromClient);
}

async function reload(ctx: ServerContext, pushed?: unknown): Promise<void> {
  const { settings, problems } = await pull(ctx, pushed);
  ctx.progress.configure(settings.progress.showAfterMs);
  const assistant = await ctx.assistant();
  assistant.reconfigure(settings, problems);
  const shown = assistant.traceDirectoryProblem ? [...problems, assistant.traceDirectoryProblem] : problems;
  if (shown.length) ctx.port().showMessage('warning', `assistant-ls settings: ${shown.join('; ')}`);
}

export function register(ctx: ServerContext): void {
  ctx.connection.onDidChangeConfiguration((params) => {
    const settings = params?.settings as Record<string, unknown> | undefined;
    void reload(ctx, settings?.[SETTINGS_SECTION] ?? undefined).catch((e: unknown) => ctx.log(`settings: ${(e as Error).message}`));
  });
}

/** After `initialized`: ask for the settings and for change notifications. */
export async function afterInitialized(ctx: ServerContext): Promise<void> {
  if (ctx.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true) {
    void ctx.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
  }
  if (ctx.capabilities.workspace?.configuration === true) {
    await reload(ctx);
    return;
  }
  // A client that sends settings only at initialize still hears that its trace folder was refused.
  const problem = (await ctx.assistant()).traceDirectoryProblem;
  if (problem) ctx.port().showMessage('warning', `assistant-ls settings: ${problem}`);
}
