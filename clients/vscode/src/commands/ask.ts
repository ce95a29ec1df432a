// `assistantLs.ask`: free text → `assistant/ask` → a text answer shown, or a quick pick of the candidates → `assistant/apply` of the chosen edit (`assistant/discard` on Escape).
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { AnswerView } from '../answerView.js';
import { askedAnswer } from '../core/answers.js';
import { applyNotice } from '../core/applyNotice.js';
import { askParams } from '../core/assistantApi.js';
import { candidateItems, failureLines, isTextAnswer, noCandidateMessage, pickerTitle } from '../core/candidates.js';
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
    // One notification: the server's progress (how many agents are done, how long each one still working has taken)
    // comes on a token of ours into it, and its Cancel button cancels the request.
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Assistant: ${request.trim()}`, cancellable: true }, async (progress, cancel) => {
      const workDoneToken = randomUUID();
      const following = host.onProgress(workDoneToken, (value) => value.kind !== 'end' && value.message && progress.report({ message: value.message }));
      try {
        return await host.api(cancel).ask({ ...askParams(request, editor), workDoneToken });
      } finally {
        following.dispose();
      }
    });
    refreshTrace();
    const nothing = noCandidateMessage(result);
    if (nothing !== undefined) {
      void vscode.window.showInformationMessage(nothing);
      return;
    }
    const items = candidateItems(result);
    const failures = failureLines(result);
    const show = async (picked: CandidateItem): Promise<void> => {
      const response = result.responses.find((r) => r.id === picked.responseId);
      if (!response) return;
      // The trace learns that the answer was used (shown here, not by the server), while the user reads it.
      const recorded = host.api().apply({ interactionId: result.interactionId, responseId: response.id }).then(refreshTrace, () => undefined);
      await answers.show(askedAnswer(result, response, request));
      await recorded;
      // Shown here, not through the server, which warns of the failed agents when it applies an answer.
      if (failures.length > 0) void vscode.window.showWarningMessage(`Used the answer of ${response.agent.name}; ${failures.join('; ')}.`);
    };
    // One text answer needs no choosing.
    if (items.length === 1 && items[0]!.use === 'show') return show(items[0]!);
    const texts = result.responses.some(isTextAnswer);
    const picked = await pickCandidate(items, failures, pickerTitle(result), texts ? 'Choose the answer to use (Escape discards them)' : 'Choose the answer to apply (Escape discards them)');
    if (!picked) {
      // Escape turned the answers down: the trace says so, rather than that nobody looked at them.
      await host.api().discard({ interactionId: result.interactionId });
      refreshTrace();
      return;
    }
    if (picked.use === 'show') return show(picked);
    const applied = await host.api().apply({ interactionId: result.interactionId, responseId: picked.responseId });
    refreshTrace();
    const notice = applyNotice(applied);
    if (notice?.level === 'warning') void vscode.window.showWarningMessage(notice.text);
    else if (notice) void vscode.window.showInformationMessage(notice.text);
  });
}

type PickItem = vscode.QuickPickItem & { candidate?: CandidateItem };

/**
 * The candidates to choose from, with the agents that failed listed below them under "Failed", marked as failures;
 * accepting one of those does nothing, since there is nothing to use. Resolves the chosen candidate, or undefined
 * when the user escapes.
 */
function pickCandidate(candidates: CandidateItem[], failures: string[], title: string, placeholder: string): Promise<CandidateItem | undefined> {
  const quickPick = vscode.window.createQuickPick<PickItem>();
  quickPick.title = title;
  quickPick.placeholder = placeholder;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  quickPick.ignoreFocusOut = true;
  const failed: PickItem[] = failures.map((line) => ({ label: `$(error) ${line}` }));
  quickPick.items = [...candidates.map((candidate) => ({ label: candidate.label, description: candidate.description, detail: candidate.detail, candidate })), ...(failed.length > 0 ? [{ label: 'Failed', kind: vscode.QuickPickItemKind.Separator }, ...failed] : [])];
  return new Promise((resolve) => {
    let chosen: CandidateItem | undefined;
    quickPick.onDidAccept(() => {
      chosen = quickPick.selectedItems[0]?.candidate;
      if (chosen !== undefined) quickPick.hide();
    });
    quickPick.onDidHide(() => {
      resolve(chosen);
      quickPick.dispose();
    });
    quickPick.show();
  });
}
