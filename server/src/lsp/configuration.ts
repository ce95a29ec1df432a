// Settings from initializationOptions and workspace/configuration, re-read on didChangeConfiguration without a restart; their problems told to the user once per change.
import { DidChangeConfigurationNotification } from 'vscode-languageserver/node';
import { SETTINGS_SECTION } from '../protocol.js';
import { resolveSettings } from '../config/settings.js';
import type { ResolvedSettings } from '../config/settings.js';
import type { ServerContext } from './serverContext.js';

let initializationOptions: unknown;

/**
 * How long the warning's list of problems may grow before the rest is only counted: two problems with a file path and
 * the value used instead fit; an editor cuts the line to its width and keeps the whole in its message history.
 */
const WARNING_LIST_CHARS = 240;

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
  report(ctx, assistant.settingsProblems());
}

/**
 * Logs the problems of the settings (a bad value, a model file that is not there, a refused trace folder) and shows
 * them in one warning, when the settings are first read and then only when the list changes: clients send
 * didChangeConfiguration for changes of other settings too (VS Code twice at start), and the same list again would
 * be noise. A warning is a notification, never a question the editor waits on.
 */
function report(ctx: ServerContext, problems: readonly string[]): void {
  const key = JSON.stringify(problems);
  if (key === ctx.reportedSettingsProblems) return;
  const before = ctx.reportedSettingsProblems;
  ctx.reportedSettingsProblems = key;
  for (const problem of problems) ctx.log(`settings: ${problem}`);
  if (problems.length > 0) ctx.port().showMessage('warning', settingsWarning(problems));
  else if (before !== undefined) ctx.log('settings: no problems left');
}

/** `assistant-ls: 2 setting problems: a; b`, the list cut after the problem that passes WARNING_LIST_CHARS. */
export function settingsWarning(problems: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const problem of problems) {
    if (shown.length > 0 && length + problem.length > WARNING_LIST_CHARS) break;
    shown.push(problem);
    length += problem.length + 2;
  }
  const rest = problems.length - shown.length;
  const count = `${problems.length} setting problem${problems.length === 1 ? '' : 's'}`;
  return `assistant-ls: ${count}: ${shown.join('; ')}${rest > 0 ? `; and ${rest} more (all in the server's log)` : ''}`;
}

export function register(ctx: ServerContext): void {
  ctx.connection.onDidChangeConfiguration((params) => {
    const settings = params?.settings as Record<string, unknown> | undefined;
    // One reload at a time, in the order the changes came: the last settings are the ones applied and reported.
    ctx.reloading = ctx.reloading.then(() => reload(ctx, settings?.[SETTINGS_SECTION] ?? undefined)).catch((e: unknown) => ctx.log(`settings: ${(e as Error).message}`));
  });
}

/** After `initialized`: ask for the settings and for change notifications, and report the problems of the first. */
export async function afterInitialized(ctx: ServerContext): Promise<void> {
  if (ctx.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true) {
    void ctx.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
  }
  if (ctx.capabilities.workspace?.configuration === true) {
    const first = reload(ctx);
    ctx.reloading = first.catch(() => undefined);
    await first;
    return;
  }
  // A client that sends settings only at initialize: the problems of its initializationOptions.
  report(ctx, (await ctx.assistant()).settingsProblems());
}
