// What the core asks of the editor, as plain calls: the LSP layer implements it with applyEdit, showMessageRequest and progress.
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { PipelineStepParams, ShowAnswerParams } from './protocol.js';

export interface ApplyEditOutcome {
  applied: boolean;
  failureReason?: string;
  /** The editor was asked to show the edit for the user to accept or discard before it lands. */
  previewed?: boolean;
}

/** What the user is shown when an edit waits for their choice: a title naming the task and who wrote the edit. */
export interface EditPreview {
  /** E.g. "Assistant: document parseConfig". */
  label: string;
  /** E.g. "by doc-offline (rule)". */
  description: string;
}

/** The forms a text answer can take; the editor's side picks one by what the client declared. */
export interface AnswerForms {
  /** The whole answer as one plain message: the title, the text, and the places as `path:line` lines. */
  message: string;
  /** Writes the answer as a markdown file under `.assistant/answers/`, for a client that opens documents. */
  document(): Promise<{ path: string; uri: string }>;
}

/** How a text answer reached the user: the client's own rendering, a document it opened, or a message. */
export type AnswerShown = { via: 'notification' } | { via: 'document'; path: string } | { via: 'message'; path?: string };

export interface EditorPort {
  /** Lets the user pick one option; resolves undefined when they dismiss the question. */
  choose(message: string, options: string[]): Promise<string | undefined>;
  /**
   * Asks the editor to apply an edit; the core never writes project files itself. With `preview`, an editor that can
   * shows the edit first and applies it only if the user accepts it; one that cannot applies it as it is.
   */
  applyEdit(label: string, edit: WorkspaceEdit, preview?: EditPreview): Promise<ApplyEditOutcome>;
  showMessage(type: 'info' | 'warning' | 'error', message: string): void;
  /** Opens a document in the editor; resolves false when the editor cannot. */
  showDocument(uri: string): Promise<boolean>;
  /** Shows a text answer whole, in the best form the editor has; the core decides what it says and where it points. */
  showAnswer(answer: ShowAnswerParams, forms: AnswerForms): Promise<AnswerShown>;
}

/** Progress of long work, reported to the editor when it can show it. */
export interface ProgressSink {
  /** `percentage` only where it measures how much is done (items of a list); a figure that stands still is left out. */
  report(message: string, percentage?: number): void;
  /** A pipeline step started or ended (clients that render runs get it as `assistant/pipelineStep`). */
  step?(params: PipelineStepParams): void;
}

export const noProgress: ProgressSink = { report: () => undefined };
