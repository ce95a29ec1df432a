// The orchestrator: sends one task to every agent registered for it, in parallel, each within its own time budget.
import { randomUUID } from 'node:crypto';
import type { PipelineState, TraceResponse, Verdict } from '../protocol.js';
import type { Agent, AgentAnswer, AgentRequest, AgentUpdate, AnswerPlace, TokenUsage } from './agent.js';
import type { Proposal } from '../edits/proposal.js';
import { BudgetExceeded, failureReason, partialText } from './failureReason.js';

/** One agent's outcome, before the task turns its text into an edit. */
export interface AgentOutcome {
  responseId: string;
  agent: Agent;
  status: TraceResponse['status'];
  text: string;
  /** The exact change, for agents that compute one. */
  proposal?: Proposal;
  /** Further answers of the same agent, each to become its own candidate. */
  alternatives?: AgentAnswer[];
  /** Why the agent gave no usable answer, in the user's words (see `failureReason`). */
  error?: string;
  /** The failure as the agent or the endpoint reported it, when `error` says it shorter. */
  errorDetail?: string;
  startedAt: string;
  durationMs: number;
  usage?: TokenUsage;
  /** The steps of a pipeline run, also when it failed part way. */
  pipeline?: PipelineState;
  /** The pipeline's own verdict on its proposal. */
  verdict?: Verdict;
  /** The places a text answer names. */
  places?: AnswerPlace[];
}

/** An agent failure that carries the state of the pipeline it stopped in, so the trace keeps the steps that ran. */
export class PipelineFailure extends Error {
  constructor(
    message: string,
    readonly pipeline: PipelineState,
    /** What stopped the pipeline (a model error), so the failure's reason can name it. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'PipelineFailure';
  }
}

export interface OrchestrationOptions {
  /** Budget of each agent, in milliseconds. */
  agentTimeoutMs: number;
  signal: AbortSignal;
  /** Called with what an agent says it is doing, or how much it has written, for progress reports. */
  onActivity?: (agent: Agent, update: AgentUpdate) => void;
}

/**
 * Runs every agent at once and waits for all of them; an agent that throws, times out or is
 * cancelled yields an outcome saying so, never an exception, so one faulty agent cannot sink the others.
 */
export async function runAgents(agents: readonly Agent[], request: AgentRequest, options: OrchestrationOptions): Promise<AgentOutcome[]> {
  options.signal.throwIfAborted();
  const outcomes = await Promise.all(
    agents.map(async (agent): Promise<AgentOutcome> => {
      const startedAt = new Date();
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(options.signal.reason);
      options.signal.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => controller.abort(new BudgetExceeded(options.agentTimeoutMs)), options.agentTimeoutMs);
      const base = { responseId: randomUUID(), agent, startedAt: startedAt.toISOString() };
      const elapsed = (): number => Date.now() - startedAt.getTime();
      const work = agent.run(request, controller.signal, (m) => options.onActivity?.(agent, m));
      try {
        const answer = await raceAbort(work, controller.signal);
        const text = answer.text ?? '';
        const useful = text.trim() !== '' || answer.proposal !== undefined;
        return {
          ...base,
          status: useful ? 'ok' : 'empty',
          text,
          durationMs: elapsed(),
          ...(answer.proposal ? { proposal: answer.proposal } : {}),
          ...(answer.alternatives?.length ? { alternatives: answer.alternatives } : {}),
          ...(answer.usage ? { usage: answer.usage } : {}),
          ...(answer.pipeline ? { pipeline: answer.pipeline } : {}),
          ...(answer.verdict ? { verdict: answer.verdict } : {}),
          ...(answer.places?.length ? { places: answer.places } : {}),
          ...(useful ? {} : { error: answer.reason ?? 'the agent had nothing to offer' }),
        };
      } catch (error) {
        if (controller.signal.reason instanceof BudgetExceeded) {
          const pipeline = await stepsSoFar(work);
          return { ...base, status: 'timeout', text: '', error: failureReason(controller.signal.reason), durationMs: elapsed(), ...(pipeline ? { pipeline } : {}) };
        }
        if (options.signal.aborted) return { ...base, status: 'cancelled', text: '', error: 'cancelled', durationMs: elapsed() };
        const reason = failureReason(error);
        const detail = error instanceof Error ? error.message : String(error);
        // A cut-off answer still failed, but what the model wrote stays readable in the trace.
        return { ...base, status: 'error', text: partialText(error), error: reason, ...(detail !== reason ? { errorDetail: detail } : {}), durationMs: elapsed(), ...(error instanceof PipelineFailure ? { pipeline: error.pipeline } : {}) };
      } finally {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
      }
    }),
  );
  return outcomes;
}

/** Settles as soon as the signal aborts, even if the agent ignores its signal. */
/** How long an agent past its budget is given to hand back the steps its pipeline ran before it was stopped. */
const STEPS_GRACE_MS = 250;

/**
 * The state of a pipeline stopped by its budget: a pipeline answers an abort with a `PipelineFailure` carrying the
 * steps it ran, so the trace keeps them for inspection and replay. Undefined when the agent is not a pipeline or does
 * not stop within the grace time.
 */
async function stepsSoFar(work: Promise<unknown>): Promise<PipelineState | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, STEPS_GRACE_MS, undefined)));
  const failure = work.then(
    () => undefined,
    (error: unknown) => (error instanceof PipelineFailure ? error.pipeline : undefined),
  );
  try {
    return await Promise.race([failure, grace]);
  } finally {
    clearTimeout(timer);
  }
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
