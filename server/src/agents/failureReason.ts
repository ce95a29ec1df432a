// The one place an agent's failure becomes a short reason in a user's words, e.g. "the endpoint refused the API key (401)".
import { ModelError } from './modelClient.js';

/** An agent that ran past the orchestrator's budget for it. */
export class BudgetExceeded extends Error {
  constructor(readonly limitMs: number) {
    // The setting is named: a model on a CPU may need longer, and the user can give it that.
    super(`no answer within ${formatDuration(limitMs)} (orchestrator.agentTimeoutMs)`);
    this.name = 'BudgetExceeded';
  }
}

/** A duration as people say it: "300 ms" below a second, "60 s" or "1.5 s" above. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * Why an agent gave no answer, short enough for a choice list or a one-line warning: what the endpoint did, or which
 * limit ran out, rather than the transport's message (which the trace keeps in full). Agents' own errors are already
 * written for the user, and pass unchanged; a pipeline's failure gives the reason of the model error behind it.
 */
export function failureReason(error: unknown): string {
  if (error instanceof BudgetExceeded) return error.message;
  if (error instanceof ModelError) return modelReason(error);
  if (error instanceof Error && error.cause instanceof ModelError) return modelReason(error.cause);
  if (error instanceof Error && error.name === 'AbortError') return 'cancelled';
  return error instanceof Error ? error.message : String(error);
}

/** What a failed model wrote before it stopped (an answer cut off at its token limit), else `''`. */
export function partialText(error: unknown): string {
  const model = error instanceof ModelError ? error : error instanceof Error && error.cause instanceof ModelError ? error.cause : undefined;
  return model?.facts.partialText ?? '';
}

function modelReason(error: ModelError): string {
  const { status, limitMs, cause } = error.facts;
  const code = status !== undefined ? ` (${status})` : '';
  switch (error.kind) {
    case 'auth':
      return `the endpoint refused the API key${code}`;
    case 'rate-limit':
      return `the endpoint is rate-limiting requests${code}`;
    case 'server':
      return `the endpoint failed${code}`;
    case 'bad-request':
      if (cause === 'content-filter') return 'the endpoint’s content filter withheld the answer';
      if (status === 404) return 'the endpoint does not know this model (404)';
      return `the endpoint rejected the request${code}`;
    case 'connection':
      return 'cannot reach the endpoint';
    case 'timeout':
      return limitMs !== undefined ? `no answer within ${formatDuration(limitMs)}` : 'no answer in time';
    case 'idle':
      return limitMs !== undefined ? `the model sent nothing for ${formatDuration(limitMs)}` : 'the model stopped sending';
    case 'incomplete':
      return cause === 'token-limit' ? 'the answer was cut off at the model’s token limit' : 'the answer stopped halfway';
    case 'malformed':
      return 'the endpoint’s answer could not be read';
    case 'too-large':
      return 'the answer was too long and was abandoned';
    case 'local':
      return error.message;
  }
}
