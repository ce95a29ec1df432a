// `assistant/rate`: a thumb up or down on one response, with an optional remark, recorded in the trace.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';

export interface RateParams {
  interactionId: string;
  responseId: string;
  /** `up`, `down`, or null to withdraw an earlier rating. */
  rating: 'up' | 'down' | null;
  /** Why, in the user's words; kept with the response's feedback. */
  comment?: string;
}

export interface RateResult {
  interactionId: string;
  responseId: string;
  rating: 'up' | 'down' | null;
}

/**
 * Rates a response of any interaction in the trace (this session's or an earlier one's).
 * Sent from the client to the server.
 */
export namespace RateRequest {
  export const method = 'assistant/rate' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<RateParams, RateResult, void>(method);
}
