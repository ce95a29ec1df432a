// `assistant/apply`: apply one candidate of an interaction through `workspace/applyEdit` and record it as used.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';
import type { ApplyOutcome } from './traceTypes.js';

export interface ApplyParams {
  interactionId: string;
  responseId: string;
}

export interface ApplyResult {
  /** Whether the editor applied the edit. */
  applied: boolean;
  outcome: ApplyOutcome;
  /** Why it was not applied, or a note on how it was moved onto the current text. */
  message?: string;
}

/**
 * Applies one response of an interaction (moved onto the document's current text when it changed meanwhile,
 * refused when that is impossible) and marks it used in the trace.
 * Sent from the client to the server.
 */
export namespace ApplyRequest {
  export const method = 'assistant/apply' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<ApplyParams, ApplyResult, void>(method);
}
