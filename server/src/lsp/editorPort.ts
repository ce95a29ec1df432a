// The EditorPort over the LSP connection: applyEdit, showMessageRequest, showMessage and answers, within what the client declared.
import type { ClientCapabilities, Connection, MessageActionItem, TextEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import { MessageType, ShowMessageNotification } from 'vscode-languageserver/node';
import type { AnswerForms, AnswerShown, ApplyEditOutcome, EditPreview, EditorPort } from '../editorPort.js';
import { annotateForPreview, previewsEdits } from './editPreview.js';
import { ShowAnswerNotification } from '../protocol.js';
import type { AssistantClientCapabilities, ShowAnswerParams } from '../protocol.js';

/** What the client declared under `capabilities.experimental.assistant`. */
export function assistantCapabilities(capabilities: ClientCapabilities): AssistantClientCapabilities {
  const experimental = capabilities.experimental as { assistant?: unknown } | undefined;
  const assistant = experimental?.assistant;
  return typeof assistant === 'object' && assistant !== null ? (assistant as AssistantClientCapabilities) : {};
}

export class LspEditorPort implements EditorPort {
  constructor(
    private readonly connection: Connection,
    private readonly capabilities: ClientCapabilities,
  ) {}

  async choose(message: string, options: string[]): Promise<string | undefined> {
    const items: MessageActionItem[] = options.map((title) => ({ title }));
    try {
      const picked = await this.connection.window.showInformationMessage(message, ...items);
      return picked?.title;
    } catch (error) {
      // A client that does not implement the request cannot choose: nothing is applied, and the user is told why.
      this.showMessage('warning', `The editor could not ask which answer to use (${(error as Error).message}); nothing was applied. Use one agent per action or assistant/ask.`);
      return undefined;
    }
  }

  async applyEdit(label: string, edit: WorkspaceEdit, preview?: EditPreview): Promise<ApplyEditOutcome> {
    if (this.capabilities.workspace?.applyEdit !== true) {
      return { applied: false, failureReason: 'the editor does not support workspace/applyEdit' };
    }
    // Only a client that declares change annotations shows them; any other gets the edit as it is and applies it.
    const previewed = preview !== undefined && previewsEdits(this.capabilities) && edit.documentChanges !== undefined;
    const sent = previewed ? annotateForPreview(edit, preview) : this.fitToClient(edit);
    let result;
    try {
      result = await this.connection.workspace.applyEdit({ label, edit: sent });
    } catch (error) {
      // Eglot, for one, answers an error when its own confirmation is declined or a version does not match.
      return { applied: false, failureReason: (error as Error).message, ...(previewed ? { previewed } : {}) };
    }
    return { applied: result.applied === true, ...(result.failureReason ? { failureReason: result.failureReason } : {}), ...(previewed ? { previewed } : {}) };
  }

  /** A notice, not a question: the library's showXMessage helpers send requests that wait for an answer. */
  showMessage(type: 'info' | 'warning' | 'error', message: string): void {
    const kind = type === 'error' ? MessageType.Error : type === 'warning' ? MessageType.Warning : MessageType.Info;
    void this.connection.sendNotification(ShowMessageNotification.type, { type: kind, message }).catch(() => undefined);
  }

  async showDocument(uri: string): Promise<boolean> {
    if (this.capabilities.window?.showDocument?.support !== true) return false;
    try {
      const result = await this.connection.window.showDocument({ uri, takeFocus: true });
      return result.success === true;
    } catch {
      return false;
    }
  }

  /**
   * The client's own rendering when it declares `assistant/showAnswer`; else the answer as a markdown document when
   * it opens documents; else a message with the whole text, which no client is asked to cut.
   */
  async showAnswer(answer: ShowAnswerParams, forms: AnswerForms): Promise<AnswerShown> {
    if (assistantCapabilities(this.capabilities).showAnswer === true) {
      void this.connection.sendNotification(ShowAnswerNotification.type, answer).catch(() => undefined);
      return { via: 'notification' };
    }
    if (this.capabilities.window?.showDocument?.support === true) {
      const file = await forms.document();
      if (await this.showDocument(file.uri)) return { via: 'document', path: file.path };
      this.showMessage('info', `${forms.message}\n\n(Also in ${file.path}.)`);
      return { via: 'message', path: file.path };
    }
    this.showMessage('info', forms.message);
    return { via: 'message' };
  }

  /** Clients without `documentChanges` get the plain `changes` form (they cannot check versions). */
  private fitToClient(edit: WorkspaceEdit): WorkspaceEdit {
    if (this.capabilities.workspace?.workspaceEdit?.documentChanges === true || !edit.documentChanges) return edit;
    const changes: NonNullable<WorkspaceEdit['changes']> = {};
    for (const change of edit.documentChanges) {
      if ('textDocument' in change) changes[change.textDocument.uri] = [...(changes[change.textDocument.uri] ?? []), ...change.edits.filter((e): e is TextEdit => 'newText' in e)];
    }
    return { changes };
  }
}
