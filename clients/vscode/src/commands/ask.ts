// `assistantLs.ask`: free text → `assistant/ask` → a text answer shown, or a quick pick of the candidates → `assistant/apply` of the chosen edit.
import * as vscode from 'vscode';
import type { AnswerView } from '../answerView.js';
import { askedAnswer } from '../core/answers.js';
import { askParams } from '../core/assistantApi.js';
import { candidateItems, isTextAnswer, noCandidateMessage } from '../core/candidates.js';
import type { CandidateItem } from '../core/candidates.js';
import { activeEditorState, reportErrors } from '../editorState.js';
import type { ServerHost } from '../serverHost.js';

/** Asks; `text` may come from another extension or a keybinding's `args`, else the user types it. */
export function ask(host: ServerHost, answers: AnswerView, refreshTrace: () => void, text?: unknown): Promise<void> {
  return reportErrors('Assistant', async () => {
    const editor = activeEditorState();
    const request =
      typeof text === 'string'
        ? text
        : await vscode.window.showInputBox({
            title: 'Assistant: Ask',
            prompt: editor ? 'What should the assistant do? About the selection, or the code at the cursor ("explain this function").' : 'What should the assistant do?',
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
    const items = candidateItems(result);
    const show = (responseId: string): Promise<void> => {
      const response = result.responses.find((r) => r.id === responseId);
      return response ? answers.show(askedAnswer(result, response, request)) : Promise.resolve();
    };
    // One text answer needs no choosing.
    if (items.length === 1 && items[0]!.use === 'show') return show(items[0]!.responseId);
    const texts = result.responses.some(isTextAnswer);
    const picked = await vscode.window.showQuickPick<CandidateItem & vscode.QuickPickItem>(items, {
      title: `Assistant: ${result.task} (${Math.round(result.confidence * 100)}% sure)`,
      placeHolder: texts ? 'Choose the answer to use (Escape discards them)' : 'Choose the answer to apply (Escape discards them)',
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    if (!picked) return;
    if (picked.use === 'show') return show(picked.responseId);
    const applied = await host.api().apply({ interactionId: result.interactionId, responseId: picked.responseId });
    refreshTrace();
    if (!applied.applied) void vscode.window.showWarningMessage(`Assistant: not applied (${applied.outcome})${applied.message ? `: ${applied.message}` : ''}`);
    else if (applied.message) void vscode.window.showInformationMessage(`Assistant: ${applied.message}`);
  });
}
