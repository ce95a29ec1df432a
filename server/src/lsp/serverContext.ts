// What every LSP feature file shares: the connection, the documents, progress, the client's capabilities and the core.
import type { ClientCapabilities, Connection } from 'vscode-languageserver/node';
import { ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import type { Assistant } from '../assistant.js';
import type { LspDocuments } from './documents.js';
import { LspEditorPort, assistantCapabilities } from './editorPort.js';
import { previewsEdits } from './editPreview.js';
import type { ProgressTracker } from './progress.js';

/** Longest a request waits for the client's first settings; a client that never answers gets the defaults then. */
const SETTINGS_WAIT_MS = 3_000;

export class ServerContext {
  capabilities: ClientCapabilities = {};
  private core: Promise<Assistant> | undefined;
  private loaded: Assistant | undefined;

  constructor(
    readonly connection: Connection,
    readonly documents: LspDocuments,
    readonly progress: ProgressTracker,
  ) {}

  /**
   * The core, loading in the background since `initialize` (it pulls in the TypeScript compiler,
   * which would otherwise hold up the editor's start); requests wait for it.
   */
  async assistant(): Promise<Assistant> {
    if (!this.core) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'The server is not initialized.');
    try {
      return await this.core;
    } catch (error) {
      throw new ResponseError(ErrorCodes.InternalError, `assistant-ls could not start: ${(error as Error).message}`);
    }
  }

  /** The core once it has loaded, for the requests that answer at once (a code-action list); undefined before. */
  loadedAssistant(): Assistant | undefined {
    return this.loaded;
  }

  setAssistant(core: Promise<Assistant>): void {
    this.core = core;
    core.then(
      (assistant) => {
        if (this.core === core) this.loaded = assistant;
      },
      // Reported once here; each request that needs the core reports it again to its caller.
      (error: unknown) => {
        this.log(`assistant-ls could not start: ${(error as Error).message}`);
        this.port().showMessage('error', `assistant-ls could not start: ${(error as Error).message}`);
      },
    );
  }

  hasAssistant(): boolean {
    return this.core !== undefined;
  }

  private settingsRead: Promise<void> = Promise.resolve();

  /** The settings reloads, one after another (see configuration.ts). */
  reloading: Promise<void> = Promise.resolve();

  /** The settings problems last logged and shown, as JSON; undefined until the settings are first read. */
  reportedSettingsProblems: string | undefined;

  /** The client's settings are on their way (`workspace/configuration`, asked once `initialized` came). */
  settingsArriving(read: Promise<void>): void {
    this.settingsRead = read.catch(() => undefined);
  }

  /**
   * The core once the client's first settings are applied (at most `SETTINGS_WAIT_MS` later): a request that runs
   * agents right after the editor connects would otherwise run on the defaults, with no model agent ("no model agent
   * is configured" for a user who configured one).
   */
  async configured(): Promise<Assistant> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTINGS_WAIT_MS)));
    await Promise.race([this.settingsRead, late]);
    clearTimeout(timer);
    return this.assistant();
  }

  private closing: Promise<void> | undefined;

  /**
   * Ends the core's session once, however the session ends (`shutdown`, `exit`, the input closing, SIGTERM): the
   * trace settled and written. Later calls share the first; a failure is logged, never thrown.
   */
  close(): Promise<void> {
    this.closing ??= this.core
      ? this.assistant()
          .then((assistant) => assistant.close())
          .catch((error: unknown) => {
            // The connection may be closed already; the log then goes nowhere.
            try {
              this.log(`shutdown: ${(error as Error).message}`);
            } catch {
              // Nowhere to say it.
            }
          })
      : Promise.resolve();
    return this.closing;
  }

  port(): LspEditorPort {
    return new LspEditorPort(this.connection, this.capabilities);
  }

  /** Logs to the client's output (stdout is the protocol channel, so never console.log). */
  readonly log = (message: string): void => {
    this.connection.console.log(message);
  };

  /** Whether the client can show a question with choices (`window/showMessageRequest`). */
  canAskUser(): boolean {
    return this.capabilities.window?.showMessage !== undefined;
  }

  /**
   * Whether the client renders pipeline runs: it declares `experimental.assistant.pipelineSteps: true`, and then gets
   * `assistant/pipelineStep` notifications (every client gets the same steps as progress reports).
   */
  rendersPipelineSteps(): boolean {
    return assistantCapabilities(this.capabilities).pipelineSteps === true;
  }

  /**
   * Whether a task's code action should put its edit in `codeAction/resolve`: the client resolves lazily and accepts an
   * `edit` there, and shows no preview of edits. A client that previews (declares change annotations) runs the task as
   * a command instead, and the server sends the edit with `workspace/applyEdit`: its answer is the only way the server
   * learns whether the user accepted or discarded the preview (a resolved edit the user discards is never reported),
   * and VS Code saves the files of a multi-file code-action edit at once (`files.refactoring.autoSave`), which an
   * edit sent with `workspace/applyEdit` does not.
   */
  resolvesEdits(): boolean {
    const codeAction = this.capabilities.textDocument?.codeAction;
    return codeAction?.dataSupport === true && (codeAction.resolveSupport?.properties ?? []).includes('edit') && !previewsEdits(this.capabilities);
  }
}
