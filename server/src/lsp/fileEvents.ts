// File events for the workspace's listing: watchers registered where the client allows it, `workspace/didChangeWatchedFiles`, and documents opened or saved, forwarded to the core as plain events.
import { DidChangeWatchedFilesNotification, FileChangeType, WatchKind } from 'vscode-languageserver/node';
import type { FileEvent } from '../workspace/workspaceFiles.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import type { ServerContext } from './serverContext.js';

const TYPES: Record<number, FileEvent['type']> = { [FileChangeType.Created]: 'created', [FileChangeType.Changed]: 'changed', [FileChangeType.Deleted]: 'deleted' };

/** Listens to file events and to documents opened or saved; call once, before the connection listens. */
export function register(ctx: ServerContext): void {
  ctx.connection.onDidChangeWatchedFiles((params) => {
    const events: FileEvent[] = [];
    for (const change of Array.isArray(params?.changes) ? params.changes : []) {
      const fsPath = typeof change?.uri === 'string' ? uriToPath(change.uri) : undefined;
      const type = TYPES[change?.type];
      if (fsPath && type) events.push({ fsPath, type });
    }
    if (events.length > 0) whenLoaded(ctx, (assistant) => assistant.filesChanged(events));
  });
  ctx.documents.onDidOpen((uri) => whenLoaded(ctx, (assistant) => assistant.documentOpened(uri)));
  ctx.documents.onDidSave((uri) => whenLoaded(ctx, (assistant) => assistant.documentSaved(uri)));
}

/**
 * Asks the client to report files that come and go, and changes to ignore files, when it can register watchers
 * dynamically; the core then trusts those events instead of checking its folders' stamps. Call once `initialized` came.
 */
export async function watchFiles(ctx: ServerContext): Promise<void> {
  if (ctx.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration !== true) return;
  await ctx.connection.client.register(DidChangeWatchedFilesNotification.type, {
    watchers: [
      // Folders moved or removed arrive as one event for the folder: every path, but only when it comes or goes.
      { globPattern: '**/*', kind: WatchKind.Create | WatchKind.Delete },
      { globPattern: '**/{.gitignore,.assistantignore}', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
      { globPattern: '**/.git/info/exclude', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
    ],
  });
  (await ctx.assistant()).watchingFiles();
}

/** Runs `use` on the core once it has loaded; events before then change nothing (the first listing walks anyway). */
function whenLoaded(ctx: ServerContext, use: (assistant: NonNullable<ReturnType<ServerContext['loadedAssistant']>>) => void): void {
  const assistant = ctx.loadedAssistant();
  if (!assistant) return;
  try {
    use(assistant);
  } catch (error) {
    ctx.log(`file events: ${(error as Error).message}`);
  }
}
