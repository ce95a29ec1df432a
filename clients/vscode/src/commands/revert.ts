// `assistantLs.revert`: removes what the response behind the code at the cursor inserted, when the code still allows it.
import * as vscode from 'vscode';
import { revertParams } from '../core/assistantApi.js';
import { rateTargets, revertTargets } from '../core/atCursor.js';
import { reportErrors } from '../editorState.js';
import type { ServerHost } from '../serverHost.js';
import { chooseTarget, interactionsFor } from './atCursor.js';

export function revert(host: ServerHost, refreshTrace: () => void, arg?: unknown): Promise<void> {
  return reportErrors('Assistant: revert', async () => {
    const interactions = await interactionsFor(host, arg);
    if (!interactions) return;
    const targets = revertTargets(interactions);
    if (!targets.length) {
      const why = rateTargets(interactions).length ? 'nothing the assistant inserted here is still applied.' : 'no code from the assistant at the cursor.';
      void vscode.window.showInformationMessage(`Assistant: ${why}`);
      return;
    }
    const target = await chooseTarget(targets, 'Which answer do you revert?');
    if (!target) return;
    const result = await host.api().revert(revertParams(target.interaction.id, target.response.id));
    refreshTrace();
    if (result.reverted) void vscode.window.showInformationMessage(`Assistant: ${result.message}`);
    // Discarded in the refactor preview: the user's own choice, not a problem to warn of.
    else if (result.outcome === 'discarded') void vscode.window.showInformationMessage(`Assistant: ${result.message}`);
    else void vscode.window.showWarningMessage(`Assistant: not reverted (${result.outcome}): ${result.message}`);
  });
}
