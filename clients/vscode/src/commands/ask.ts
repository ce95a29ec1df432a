// `assistantLs.ask`: free text → `assistant/ask` → a quick pick of the candidates → `assistant/apply` of the chosen one.
import * as vscode from 'vscode';
import { askParams } from '../core/assistantApi.js';
import { candidateItems, noCandidateMessage } from '../core/candidates.js';
import type { CandidateItem } from '../core/candidates.js';
import { activeEditorState, reportErrors } from '../editorState.js';
import type { ServerHost } from '../serverHost.js';

/** Asks; `text` may come from another extension or a keybinding's `args`, else the user types it. */
export function ask(host: ServerHost, refreshTrace: () => void, text?: unknown): Promise<void> {
  return reportErrors('Assistant', async () => {
    const editor = activeEditorState();
    const request =
      typeof text === 'string'
        ? text
        : await vscode.window.showInputBox({
            title: 'Assistant: Ask',
            prompt: editor ? 'What should the assistant do? A selection narrows it to the selected code.' : 'What should the assistant do?',
            placeHolder: 'write documentation for the load method',
            ignoreFocusOut: true,
          });
    if (!request?.trim()) return;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Assistant: ${request.trim()}`, cancellable: true },
      (_progress, token) => host.api(token).ask(askParams(request, editor)),
    );
    refreshTrace();
    const nothing = noCandidateMessage(result);
    if (nothing !== undefined) {
      void vscode.window.showInformationMessage(nothing);
      return;
    }
    const picked = await vscode.window.showQuickPick<CandidateItem & vscode.QuickPickItem>(candidateItems(result), {
      title: `Assistant: ${result.task} (${Math.round(result.confidence * 100)}% sure)`,
      placeHolder: 'Choose the answer to apply (Escape discards them)',
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    if (!picked) return;
    const applied = await host.api().apply({ interactionId: result.interactionId, responseId: picked.responseId });
    refreshTrace();
    if (!applied.applied) void vscode.window.showWarningMessage(`Assistant: not applied (${applied.outcome})${applied.message ? `: ${applied.message}` : ''}`);
    else if (applied.message) void vscode.window.showInformationMessage(`Assistant: ${applied.message}`);
  });
}
