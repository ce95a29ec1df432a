// `assistant/discard`: the user chose none of an interaction's answers (a picker's Discard, or the picker closed).
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';

export interface DiscardParams {
  /** The interaction whose answers the user was offered, as `assistant/ask` returned it. */
  interactionId: string;
}

export interface DiscardResult {
  /** Whether the interaction's answers are recorded as discarded (now, or by an earlier request). */
  discarded: boolean;
  /**
   * `discarded`; `already-discarded` (an earlier request said so; nothing written again); `used` (one of its answers
   * was applied or shown, so it is not marked discarded); `no-answer` (it has no usable answer to discard).
   */
  outcome: 'discarded' | 'already-discarded' | 'used' | 'no-answer';
  message: string;
}

/**
 * Records that the user discarded the answers of an interaction: each usable response that was not applied gets
 * `choiceDiscardedAt` and, unless something already became of it, `outcome: 'discarded'`. Idempotent.
 * Sent from the client to the server.
 */
export namespace DiscardRequest {
  export const method = 'assistant/discard' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<DiscardParams, DiscardResult, void>(method);
}
