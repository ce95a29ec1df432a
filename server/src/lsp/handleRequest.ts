// Error handling in one place: cancellation tokens become AbortSignals, failures become ResponseErrors with clear messages.
import { LSPErrorCodes, ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import type { CancellationToken } from 'vscode-languageserver/node';
import { AssistantError } from '../assistantError.js';
import { AssistantErrorCodes } from '../protocol.js';

/** An AbortSignal that aborts when the request's cancellation token fires. */
export function signalOf(token: CancellationToken | undefined): { signal: AbortSignal; controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  if (token?.isCancellationRequested) controller.abort(new CancelledByClient());
  const subscription = token?.onCancellationRequested(() => controller.abort(new CancelledByClient()));
  return { signal: controller.signal, controller, dispose: () => subscription?.dispose() };
}

class CancelledByClient extends Error {
  constructor() {
    super('The request was cancelled.');
    this.name = 'AbortError';
  }
}

const CODES: Record<AssistantError['code'], number> = {
  'invalid-params': ErrorCodes.InvalidParams,
  'unknown-interaction': AssistantErrorCodes.UnknownInteraction,
  stale: AssistantErrorCodes.StaleDocument,
  unavailable: ErrorCodes.InvalidRequest,
};

/** The answer to a request the client cancelled. */
function cancelled(method: string): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, `${method} was cancelled.`);
}

/** Maps what a handler threw to the error the client receives. */
export function toResponseError(error: unknown, signal: AbortSignal, method: string, log: (m: string) => void): ResponseError<void> {
  if (signal.aborted) return cancelled(method);
  if (error instanceof ResponseError) return error as ResponseError<void>;
  if (error instanceof AssistantError) return new ResponseError(CODES[error.code], error.message);
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`${method} failed: ${detail}`);
  return new ResponseError(ErrorCodes.InternalError, `${method} failed: ${error instanceof Error ? error.message : String(error)}`);
}

const committed = new WeakSet<AbortController>();

/**
 * Marks a request's work as done for good (an edit the editor applied, a trace record written): a cancel that
 * arrives afterwards no longer turns the result into RequestCancelled, since the client must learn what happened.
 */
export function commit(controller: AbortController): void {
  committed.add(controller);
}

/** The signal of a request that answers at once: nothing can cancel it while it runs. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Wraps a handler that answers at once (a code-action list, asked for at every move of the cursor): no AbortSignal
 * and no promise of its own, so a request costs no more than its work. A request the client cancelled before it
 * started is answered RequestCancelled, as `handleRequest` answers it; failures reach the client the same way.
 */
export function handleRequestNow<P, R>(method: string, log: (m: string) => void, handler: (params: P) => R) {
  return (params: P, token?: CancellationToken): R | ResponseError<void> => {
    if (token?.isCancellationRequested) return cancelled(method);
    try {
      return handler(params);
    } catch (error) {
      return toResponseError(error, NEVER_ABORTED, method, log);
    }
  };
}

/**
 * Wraps a handler: it receives an AbortSignal tied to `$/cancelRequest`, and every failure
 * (expected or not) reaches the client as a ResponseError while the server keeps serving.
 */
export function handleRequest<P, R>(method: string, log: (m: string) => void, handler: (params: P, signal: AbortSignal, controller: AbortController) => Promise<R> | R) {
  return async (params: P, token?: CancellationToken): Promise<R | ResponseError<void>> => {
    const { signal, controller, dispose } = signalOf(token);
    try {
      const result = await handler(params, signal, controller);
      if (signal.aborted && !committed.has(controller)) return cancelled(method);
      return result;
    } catch (error) {
      return toResponseError(error, signal, method, log);
    } finally {
      dispose();
    }
  };
}
