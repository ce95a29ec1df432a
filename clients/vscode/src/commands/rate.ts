// `assistantLs.rate`: a thumb up or down (or withdrawn), with an optional remark, on the response behind the code at the cursor.
import * as vscode from 'vscode';
import { rateParams } from '../core/assistantApi.js';
import { rateTargets } from '../core/atCursor.js';
import type { RateParams } from '../core/protocol.js';
import { reportErrors } from '../editorState.js';
import type { ServerHost } from '../serverHost.js';
import { chooseTarget, interactionsFor } from './atCursor.js';

const RATINGS: (vscode.QuickPickItem & { rating: RateParams['rating'] })[] = [
  { label: '$(thumbsup) Up', description: 'a good answer', rating: 'up' },
  { label: '$(thumbsdown) Down', description: 'a poor answer', rating: 'down' },
  { label: '$(circle-slash) Withdraw', description: 'remove my rating', rating: null },
];

export function rate(host: ServerHost, refreshTrace: () => void, arg?: unknown): Promise<void> {
  return reportErrors('Assistant: rate', async () => {
    const interactions = await interactionsFor(host, arg);
    if (!interactions) return;
    const target = await chooseTarget(rateTargets(interactions), 'Which answer do you rate?');
    if (!target) {
      if (!interactions.length) void vscode.window.showInformationMessage('Assistant: no code from the assistant at the cursor.');
      return;
    }
    const current = target.response.rating ? ` (now: ${target.response.rating})` : '';
    const choice = await vscode.window.showQuickPick(RATINGS, { title: `Rate ${target.label}${current}` });
    if (!choice) return;
    const comment = choice.rating === null ? '' : await vscode.window.showInputBox({ title: `Rate ${target.label}`, prompt: 'Why? (optional; Enter to skip)' });
    if (comment === undefined) return;
    const result = await host.api().rate(rateParams(target.interaction.id, target.response.id, choice.rating, comment));
    refreshTrace();
    void vscode.window.showInformationMessage(result.rating ? `Assistant: rated ${result.rating}.` : 'Assistant: rating withdrawn.');
  });
}
