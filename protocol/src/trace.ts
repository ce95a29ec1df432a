// `assistant/trace`: query the interaction trace, from interaction to code and from code to interaction.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';
import type { Position, TextDocumentIdentifier } from 'vscode-languageserver-protocol';
import type { InteractionTask } from './tasks.js';
import type { Interaction } from './traceTypes.js';

/** Every field narrows the result; an empty query lists the newest interactions. */
export interface TraceParams {
  /** One interaction by id. */
  id?: string;
  /** Code to interaction: the interaction that produced the code at this position (with `position`). */
  textDocument?: TextDocumentIdentifier;
  position?: Position;
  sessionId?: string;
  task?: InteractionTask;
  /** Agent name. */
  agent?: string;
  /** ISO 8601 lower bound on the interaction time, inclusive. */
  since?: string;
  /** ISO 8601 upper bound on the interaction time, exclusive. */
  until?: string;
  /** Only interactions with (true) or without (false) a used response. */
  used?: boolean;
  /** Case-insensitive substring of the request text or of a response text. */
  text?: string;
  /** Page size, 1 to 200; default 50. */
  limit?: number;
  /** Number of matching interactions to skip, newest first. */
  offset?: number;
}

export interface TraceResult {
  interactions: Interaction[];
  /** Matching interactions in all pages. */
  total: number;
  /** Offset of the next page, absent on the last page. */
  nextOffset?: number;
}

/**
 * Queries the trace, newest first, paginated.
 * Sent from the client to the server.
 */
export namespace TraceRequest {
  export const method = 'assistant/trace' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<TraceParams, TraceResult, void>(method);
}
