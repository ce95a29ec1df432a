// The "Assistant Trace" view in the Explorer: sessions → interactions from `assistant/trace`, each opening the code it produced.
import * as vscode from 'vscode';
import { buildTraceTree } from './core/traceTree.js';
import type { InteractionNode, TraceNode } from './core/traceTree.js';
import { toRange } from './editorState.js';
import type { ServerHost } from './serverHost.js';

/** How many of the newest interactions the view fetches. */
const MAX_INTERACTIONS = 500;

type ViewNode = TraceNode | { kind: 'problem'; label: string };

export class TraceView implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ViewNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly host: ServerHost) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: ViewNode): Promise<ViewNode[]> {
    if (node) return node.kind === 'session' ? node.children : [];
    if (!this.host.isRunning()) return [{ kind: 'problem', label: 'The assistant-ls server is not running.' }];
    try {
      const { interactions, total } = await this.host.api().traceAll({}, MAX_INTERACTIONS);
      return buildTraceTree(interactions, total);
    } catch (error) {
      return [{ kind: 'problem', label: `Cannot read the trace: ${error instanceof Error ? error.message : String(error)}` }];
    }
  }

  getTreeItem(node: ViewNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `session:${node.sessionId}`;
        item.description = node.description;
        item.tooltip = new vscode.MarkdownString(node.tooltip);
        item.iconPath = new vscode.ThemeIcon('history');
        item.contextValue = 'session';
        return item;
      }
      case 'interaction':
        return interactionItem(node);
      case 'more':
      case 'problem': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.kind === 'more' ? 'ellipsis' : 'warning');
        return item;
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function interactionItem(node: InteractionNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  item.id = `interaction:${node.interaction.id}`;
  item.description = node.description;
  item.tooltip = new vscode.MarkdownString(node.tooltip);
  const used = node.interaction.responses.find((r) => r.used);
  const discarded = !used && node.interaction.responses.some((r) => r.outcome === 'discarded');
  item.iconPath = new vscode.ThemeIcon(used?.revertedAt ? 'discard' : used ? 'check' : discarded ? 'close' : node.interaction.task === 'none' ? 'question' : 'circle-outline');
  item.contextValue = used && !used.revertedAt ? 'interaction.applied' : 'interaction';
  if (node.target) {
    const options: vscode.TextDocumentShowOptions = { selection: toRange(node.target.range), preview: true };
    item.command = { title: 'Open', command: 'vscode.open', arguments: [vscode.Uri.parse(node.target.uri), options] };
  }
  return item;
}
