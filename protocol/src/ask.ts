// `assistant/ask`: classify free text into a task, run its agents, and return the candidates without applying them.
import { MessageDirection, RequestType } from 'vscode-languageserver-protocol';
import type { Range, VersionedTextDocumentIdentifier, TextDocumentIdentifier, WorkspaceEdit, WorkDoneProgressParams } from 'vscode-languageserver-protocol';
import type { TaskId, TaskOrNone } from './tasks.js';
import type { AnswerLocation } from './showAnswer.js';
import type { AgentDescriptor, TraceResponse } from './traceTypes.js';

export interface AskParams extends WorkDoneProgressParams {
  /** The request in the user's words, e.g. "write documentation for the load method". */
  text: string;
  /** The document the request is about, if any. */
  textDocument?: TextDocumentIdentifier | VersionedTextDocumentIdentifier;
  /** The selection the request is about; without it the symbol the text names, or the whole document. */
  range?: Range;
  /**
   * The task, when the client already knows it (a "Fix an issue" or "Generate a class" command): the text is not
   * classified. An unknown task id is refused with -32602.
   */
  task?: TaskId;
}

/** One candidate answer. */
export interface AskResponse {
  id: string;
  agent: AgentDescriptor;
  status: TraceResponse['status'];
  text: string;
  /**
   * One line of plain text saying what the answer is, for a picker: its first line of prose with the markdown and
   * comment marks taken off, never a code fence. Absent when the text says nothing.
   */
  summary?: string;
  /** The edit that applying this candidate would make, computed on the document version the agents saw. */
  edit?: WorkspaceEdit;
  /**
   * For a text answer, the places it names, best first (a workspace question's ranked results, the code an
   * explanation is about and its references), so a client lists them without reading the text.
   */
  locations?: AnswerLocation[];
  error?: string;
}

export interface AskResult {
  interactionId: string;
  /** The task the text was classified as, or `none` when no task fits. */
  task: TaskOrNone;
  /** The classifier's confidence in `task`, between 0 and 1. */
  confidence: number;
  /** A message for the user: why nothing was offered, or what was done. */
  message?: string;
  responses: AskResponse[];
}

/**
 * Classifies `text` into a task, runs every agent registered for it and returns their candidates.
 * Nothing is applied; use `assistant/apply` with one response id.
 * Sent from the client to the server.
 */
export namespace AskRequest {
  export const method = 'assistant/ask' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<AskParams, AskResult, void>(method);
}
