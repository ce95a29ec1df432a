// `assistant/showAnswer`: a text answer (an explanation, a workspace question's answer) for the client to show, with the places it names.
import { MessageDirection, NotificationType } from 'vscode-languageserver-protocol';
import type { Range } from 'vscode-languageserver-protocol';
import type { TaskId } from './tasks.js';

/** A place in the workspace that an answer names, for the client to list and jump to. */
export interface AnswerLocation {
  uri: string;
  /** Where the cursor goes: the start of the name, or of the line's code. */
  range: Range;
  /** What is there, e.g. `function withRetry` or `calls parseConfig (countKeys)`. */
  label: string;
}

export interface ShowAnswerParams {
  interactionId: string;
  responseId: string;
  task: TaskId;
  /** A heading for the answer, e.g. `Explain parseConfig` or `Question: where is the retry logic?`. */
  title: string;
  /** The whole answer, in markdown; never cut. */
  text: string;
  /** The places the answer names, best first (a question's ranked results, an explanation's code and its references); may be empty. */
  locations: AnswerLocation[];
}

/**
 * What a client declares under `capabilities.experimental.assistant` in `initialize`: the custom notifications it
 * renders. Each is sent only to clients that declare it.
 */
export interface AssistantClientCapabilities {
  /** The client renders `assistant/pipelineStep`. */
  pipelineSteps?: boolean;
  /** The client shows `assistant/showAnswer`; without it text answers arrive as `window/showDocument` or `window/showMessage`. */
  showAnswer?: boolean;
  /**
   * The client runs no other TypeScript server beside assistant-ls (Eglot runs one per major mode), so the setting
   * `diagnostics.publish: auto` publishes the compiler's errors of open documents to it.
   */
  typeErrors?: boolean;
}

/**
 * A text answer chosen from a code action or command (Explain, a workspace question), for clients that show answers
 * themselves: a document, a float or a help buffer for `text`, a list that jumps for `locations`.
 * Sent from the server to the client, only to clients that declare `experimental.assistant.showAnswer: true`.
 */
export namespace ShowAnswerNotification {
  export const method = 'assistant/showAnswer' as const;
  export const messageDirection = MessageDirection.serverToClient;
  export const type = new NotificationType<ShowAnswerParams>(method);
}
