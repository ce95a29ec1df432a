// Shows text answers: a read-only markdown document beside the code, and the places they name in a quick pick that jumps there.
import * as vscode from 'vscode';
import { answerDocument, answerFileName, placeItems } from './core/answers.js';
import type { PlaceItem, TextAnswer } from './core/answers.js';
import { ANSWER_SCHEME } from './core/extensionIds.js';
import { toRange } from './editorState.js';

/** Answers kept readable (an answer's tab may be reopened or re-read); older ones read as empty. */
const KEPT = 20;

export class AnswerView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private shown = 0;
  private last: { answer: TextAnswer; codeColumn: vscode.ViewColumn } | undefined;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /**
   * Opens the whole answer as markdown beside the code (keeping the focus there), then, when it names places, offers
   * them in a quick pick: the chosen one opens in the code's editor group with the cursor on it. Answers share one
   * group: one that arrives while the user is in the answers' group (reading the last answer while this one was
   * made) opens there too, not in a third group beside it, and its places open in the code's group.
   */
  async show(answer: TextAnswer): Promise<void> {
    const codeColumn = this.codeColumn();
    this.last = { answer, codeColumn };
    // A query of its own per answer: two answers with one title are two documents.
    const uri = vscode.Uri.from({ scheme: ANSWER_SCHEME, path: `/${answerFileName(answer.title)}`, query: String(++this.shown) });
    this.contents.set(uri.toString(), answerDocument(answer));
    for (const key of [...this.contents.keys()].slice(0, Math.max(0, this.contents.size - KEPT))) this.contents.delete(key);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { viewColumn: this.answersColumn(codeColumn) ?? vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    if (answer.locations.length > 0) await this.pickPlace();
  }

  /** Offers the places of the last answer; undefined when there is none. */
  async pickPlace(): Promise<void> {
    if (!this.last || this.last.answer.locations.length === 0) {
      void vscode.window.showInformationMessage('Assistant: the last answer names no places.');
      return;
    }
    const { answer, codeColumn } = this.last;
    const items = placeItems(answer.locations, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    const count = `${items.length} place${items.length === 1 ? '' : 's'}`;
    const picked = await vscode.window.showQuickPick<PlaceItem & vscode.QuickPickItem>(items, {
      title: `${answer.title}: ${count}`,
      placeHolder: 'Go to a place in the code (Escape to keep reading; "Assistant: Go to a Place of the Last Answer" brings this back)',
      matchOnDescription: true,
    });
    if (!picked) return;
    const range = toRange(picked.location.range);
    const editor = await vscode.window.showTextDocument(vscode.Uri.parse(picked.location.uri), { viewColumn: codeColumn, preview: false });
    // The name selected with the cursor at its start, where the place begins (a shown range puts it at the end).
    editor.selection = new vscode.Selection(range.end, range.start);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** The group of the code the user is in: the active editor's, unless that is an answer, then the first code shown. */
  private codeColumn(): vscode.ViewColumn {
    const isCode = (editor: vscode.TextEditor | undefined): editor is vscode.TextEditor => editor !== undefined && editor.document.uri.scheme !== ANSWER_SCHEME;
    const active = vscode.window.activeTextEditor;
    const code = isCode(active) ? active : vscode.window.visibleTextEditors.find(isCode);
    return code?.viewColumn ?? vscode.ViewColumn.One;
  }

  /** The group beside the code's that holds an earlier answer's tab, if one is still open. */
  private answersColumn(codeColumn: vscode.ViewColumn): vscode.ViewColumn | undefined {
    const holds = (group: vscode.TabGroup): boolean => group.viewColumn !== codeColumn && group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === ANSWER_SCHEME);
    const groups = vscode.window.tabGroups.all.filter(holds);
    return (groups.find((group) => group.isActive) ?? groups[0])?.viewColumn;
  }

  dispose(): void {
    this.contents.clear();
  }
}
