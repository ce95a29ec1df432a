// `assistant/trace`: query the interaction trace, from interaction to code and from code to interaction.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';
import type { Position, Range, TextDocumentIdentifier } from 'vscode-languageserver-protocol';
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

/**
 * Where an interaction leads in the code: the place a trace listing opens for it, chosen here once for every client.
 * The first that applies:
 * - `code`: the first insertion of the used response (else of a response applied and discarded since), where its
 *   code is now as far as the server knows; reverted or removed, where it was;
 * - `about`: the code the request was run on (`context.fragment`; without one, the start of `context.resource`);
 * - `cited`: a request about the whole workspace (no `resource`): the first place its answer cites, from the used
 *   (shown) response, else the first answer that cites any;
 * - `askedFrom`: such a request whose answers cite nothing (none came, or they failed): the start of the file the
 *   editor had open when it was asked, which the request is not about.
 */
export interface TracePlace {
  kind: 'code' | 'about' | 'cited' | 'askedFrom';
  uri: string;
  range: Range;
  /** Of a `cited` place: what is there, as the answer labelled it (`function backoffDelay`). */
  label?: string;
  /** Of a `cited` place: how many other places that answer cites. */
  more?: number;
}

/** An interaction as `assistant/trace` answers it: as recorded, and where it leads (absent: nowhere in the code). */
export interface TracedInteraction extends Interaction {
  place?: TracePlace;
}

export interface TraceResult {
  interactions: TracedInteraction[];
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
