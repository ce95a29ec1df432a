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

/** Runs a command body, turning failures into an error message (a cancelled request says nothing). */
export async function reportErrors(title: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof vscode.CancellationError || (error as { code?: number }).code === -32800) return;
    void vscode.window.showErrorMessage(`${title}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
