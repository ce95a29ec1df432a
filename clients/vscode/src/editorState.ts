// Reads the active editor as the plain `EditorState` the request builders take, for the documents the server serves.
import * as vscode from 'vscode';
import type { EditorState } from './core/assistantApi.js';
import { DOCUMENT_SELECTOR } from './core/extensionIds.js';

/** The active editor's document and selection, when the server serves that document. */
export function activeEditorState(): EditorState | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || vscode.languages.match(DOCUMENT_SELECTOR, editor.document) === 0) return undefined;
  const { start, end } = editor.selection;
  return {
    uri: editor.document.uri.toString(),
    selection: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
  };
}

export function toRange(range: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** Whether `error` is a request's cancellation (VS Code's, or the protocol's RequestCancelled): nothing went wrong. */
export function isCancellation(error: unknown): boolean {
  return error instanceof vscode.CancellationError || (error as { code?: number } | undefined)?.code === -32800;
}

/** Runs a command body, turning failures into an error message (a cancelled request says nothing). */
export async function reportErrors(title: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (isCancellation(error)) return;
    void vscode.window.showErrorMessage(`${title}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
