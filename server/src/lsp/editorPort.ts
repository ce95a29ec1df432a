// The EditorPort over the LSP connection: applyEdit, showMessageRequest and showMessage, within what the client declared.
import type { ClientCapabilities, Connection, MessageActionItem, TextEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import { MessageType, ShowMessageNotification } from 'vscode-languageserver/node';
import type { ApplyEditOutcome, EditorPort } from '../editorPort.js';

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

  async applyEdit(label: string, edit: WorkspaceEdit): Promise<ApplyEditOutcome> {
    if (this.capabilities.workspace?.applyEdit !== true) {
      return { applied: false, failureReason: 'the editor does not support workspace/applyEdit' };
    }
    const result = await this.connection.workspace.applyEdit({ label, edit: this.fitToClient(edit) });
    return { applied: result.applied === true, ...(result.failureReason ? { failureReason: result.failureReason } : {}) };
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
