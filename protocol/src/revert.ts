// `assistant/revert`: undo what one interaction inserted, when the code still allows it.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';

export interface RevertParams {
  interactionId: string;
  /** The response to undo; defaults to the interaction's applied one. */
  responseId?: string;
}

export interface RevertResult {
  reverted: boolean;
  /**
   * `reverted`; `not-applied` (nothing of it is in the code); `already-reverted`; `changed` (the inserted code was
   * edited since, so undoing it would lose work); `rejected-by-client` (the editor refused the edit); `refused` (a
   * file outside the workspace, or a sensitive one not confirmed); `discarded` (the user discarded it in the preview).
   */
  outcome: 'reverted' | 'not-applied' | 'already-reverted' | 'changed' | 'rejected-by-client' | 'refused' | 'discarded';
  message: string;
}

/**
 * Removes the text a response inserted (restoring what it replaced) through `workspace/applyEdit`, only when
 * that text is still in the document exactly as inserted. Sent from the client to the server.
 */
export namespace RevertRequest {
  export const method = 'assistant/revert' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<RevertParams, RevertResult, void>(method);
}
