// Finds the assistant's responses behind the code at the cursor (or a trace view item) for rate and revert.
import * as vscode from 'vscode';
import { traceAtParams } from '../core/assistantApi.js';
import type { ResponseTarget } from '../core/atCursor.js';
import type { Interaction } from '../core/protocol.js';
import { activeEditorState } from '../editorState.js';
import type { ServerHost } from '../serverHost.js';

/** A trace view item passed as the command argument (from the view's context menu). */
function interactionOf(arg: unknown): Interaction | undefined {
  const node = arg as { kind?: string; interaction?: Interaction } | undefined;
  return node?.kind === 'interaction' ? node.interaction : undefined;
}

/**
 * The interactions to act on: the trace view item's, else those `assistant/trace` finds at the cursor.
 * Undefined (after saying why) when there is no editor.
 */
export async function interactionsFor(host: ServerHost, arg: unknown): Promise<Interaction[] | undefined> {
  const fromView = interactionOf(arg);
  if (fromView) return [(await host.api().trace({ id: fromView.id })).interactions[0] ?? fromView];
  const editor = activeEditorState();
  if (!editor) {
    void vscode.window.showInformationMessage('Assistant: put the cursor on code the assistant wrote, in a TypeScript or JavaScript editor.');
    return undefined;
  }
  return (await host.api().trace(traceAtParams(editor))).interactions;
}

/** The one target, or the user's choice among several; undefined when cancelled. */
export async function chooseTarget(targets: ResponseTarget[], placeHolder: string): Promise<ResponseTarget | undefined> {
  if (targets.length <= 1) return targets[0];
  const picked = await vscode.window.showQuickPick(
    targets.map((target) => ({ label: target.label, description: target.description, target })),
    { placeHolder },
  );
  return picked?.target;
}
