// What the core asks of the editor, as plain calls: the LSP layer implements it with applyEdit, showMessageRequest and progress.
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { PipelineStepParams } from './protocol.js';

export interface ApplyEditOutcome {
  applied: boolean;
  failureReason?: string;
}

export interface EditorPort {
  /** Lets the user pick one option; resolves undefined when they dismiss the question. */
  choose(message: string, options: string[]): Promise<string | undefined>;
  /** Asks the editor to apply an edit; the core never writes project files itself. */
  applyEdit(label: string, edit: WorkspaceEdit): Promise<ApplyEditOutcome>;
  showMessage(type: 'info' | 'warning' | 'error', message: string): void;
  /** Opens a document in the editor; resolves false when the editor cannot. */
  showDocument(uri: string): Promise<boolean>;
}

/** Progress of long work, reported to the editor when it can show it. */
export interface ProgressSink {
  report(message: string, percentage?: number): void;
  /** A pipeline step started or ended (clients that render runs get it as `assistant/pipelineStep`). */
  step?(params: PipelineStepParams): void;
}

export const noProgress: ProgressSink = { report: () => undefined };
