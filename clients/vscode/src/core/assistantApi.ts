// The custom requests as plain async functions over any sender, so the extension and the tests drive the server alike.
import { ApplyRequest, AskRequest, DiscardRequest, RateRequest, RevertRequest, TraceRequest } from './protocol.js';
import type { ApplyParams, ApplyResult, AskParams, AskResult, DiscardParams, DiscardResult, RateParams, RateResult, RevertParams, RevertResult, TracedInteraction, TraceParams, TraceResult } from './protocol.js';

/**
 * A request as `protocol/src` declares it (`AskRequest.type`), typed by its shape rather than by vscode-jsonrpc's
 * class, so that the repository's copy of vscode-jsonrpc and the extension's both fit.
 */
export interface RequestDeclaration<P, R> {
  readonly method: string;
  /** vscode-jsonrpc's phantom member that carries the parameter and result types. */
  readonly _: [P, R, ...unknown[]] | undefined;
}

/** Sends one request and resolves with its result: `LanguageClient.sendRequest` in the editor, a JSON-RPC connection in tests. */
export type Send = <P, R>(type: RequestDeclaration<P, R>, params: P) => Promise<R>;

/** A position as LSP counts it (zero-based line, UTF-16 character). */
export interface Pos {
  line: number;
  character: number;
}

/** The editor state a request is about: the document and the selection (empty when only the cursor is there). */
export interface EditorState {
  uri: string;
  selection: { start: Pos; end: Pos };
}

/** The largest page `assistant/trace` returns. */
export const TRACE_PAGE_SIZE = 200;

/**
 * `assistant/ask` parameters: the text, the active document, and the selection, empty when only the cursor is there
 * (the server prefers a symbol the text names to the cursor, so "explain this function" explains the one around the
 * cursor while "document parseConfig" still documents parseConfig).
 */
export function askParams(text: string, editor: EditorState | undefined): AskParams {
  const params: AskParams = { text: text.trim() };
  if (!editor) return params;
  params.textDocument = { uri: editor.uri };
  params.range = { start: editor.selection.start, end: editor.selection.end };
  return params;
}

/** `assistant/trace` parameters for code → interaction at the cursor. */
export function traceAtParams(editor: EditorState): TraceParams {
  return { textDocument: { uri: editor.uri }, position: editor.selection.start, limit: TRACE_PAGE_SIZE };
}

export function rateParams(interactionId: string, responseId: string, rating: RateParams['rating'], comment?: string): RateParams {
  const params: RateParams = { interactionId, responseId, rating };
  const trimmed = comment?.trim();
  if (trimmed) params.comment = trimmed;
  return params;
}

export function revertParams(interactionId: string, responseId?: string): RevertParams {
  return responseId ? { interactionId, responseId } : { interactionId };
}

/** The assistant's custom requests over a sender. */
export class AssistantApi {
  constructor(private readonly send: Send) {}

  ask(params: AskParams): Promise<AskResult> {
    return this.send(AskRequest.type, params);
  }

  apply(params: ApplyParams): Promise<ApplyResult> {
    return this.send(ApplyRequest.type, params);
  }

  trace(params: TraceParams): Promise<TraceResult> {
    return this.send(TraceRequest.type, params);
  }

  rate(params: RateParams): Promise<RateResult> {
    return this.send(RateRequest.type, params);
  }

  revert(params: RevertParams): Promise<RevertResult> {
    return this.send(RevertRequest.type, params);
  }

  discard(params: DiscardParams): Promise<DiscardResult> {
    return this.send(DiscardRequest.type, params);
  }

  /** Every interaction matching `params`, newest first, page by page, stopping at `max`; `total` says how many match. */
  async traceAll(params: TraceParams, max = 1000, pageSize = TRACE_PAGE_SIZE): Promise<{ interactions: TracedInteraction[]; total: number }> {
    const interactions: TracedInteraction[] = [];
    let offset = params.offset ?? 0;
    for (;;) {
      const page = await this.trace({ ...params, offset, limit: Math.max(1, Math.min(pageSize, max - interactions.length)) });
      interactions.push(...page.interactions);
      if (page.nextOffset === undefined || page.interactions.length === 0 || interactions.length >= max) return { interactions, total: page.total };
      offset = page.nextOffset;
    }
  }
}
