// Runs the steps of a multi-step pipeline, keeping each step's state (inputs, model responses, output) so the run can be inspected and replayed from any step.
import { randomUUID } from 'node:crypto';
import type { PipelineModelResponse, PipelineState, PipelineStep, PipelineStepParams } from '../protocol.js';
import type { PipelineReplay } from '../agents/agent.js';

/** Longest model answer kept in a step's state; the trace is for inspecting runs, not an archive of every token. */
const MAX_RESPONSE_CHARS = 12_000;
/** Longest tool result kept in a step's state (the model saw it whole). */
const MAX_TOOL_RESULT_CHARS = 1_500;

/** What a step's work is given. */
export interface StepContext {
  /** Feedback the step runs with (from the user or from self-fix), oldest first. */
  readonly feedback: readonly string[];
  /** When the step runs again after feedback: the model responses it gave the first time (its history). */
  readonly history: readonly PipelineModelResponse[];
  /** Records one model response of this step (cut for the trace); returns its id. */
  record(response: Omit<PipelineModelResponse, 'id' | 'at'>): string;
  /** A line for the progress UI while the step works. */
  note(summary: string): void;
}

/** What a step's work returns: its output (JSON), and a line for menus and progress. */
export interface StepResult<T> {
  output: T;
  summary: string;
  /** The step ran but its output says the run cannot go on as planned (e.g. a patch that never applied). */
  failed?: string;
}

export type StepObserver = (step: PipelineStepParams['step']) => void;

function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters not kept in the trace)`;
}

/**
 * One run of a pipeline. The pipeline's code calls `step` for each step in order; on a replay, the steps before the
 * replay point return their recorded outputs without running (marked `reused`), the step at the replay point runs
 * with the feedback and its earlier responses, and every later step runs afresh. Since a pipeline's control flow
 * depends only on its steps' outputs, replaying reproduces the same path up to the replay point.
 */
export class PipelineRun {
  private readonly steps: PipelineStep[] = [];

  constructor(
    readonly name: string,
    private readonly replay: PipelineReplay | undefined,
    private readonly observe: StepObserver = () => undefined,
  ) {}

  /** Feedback added to steps by the pipeline itself (self-fix), by step index. */
  private readonly pending = new Map<string, string[]>();

  /** Queues feedback for the next run of the step called `name` (self-fix writes it for the step it blames). */
  addFeedback(name: string, feedback: string): void {
    this.pending.set(name, [...(this.pending.get(name) ?? []), feedback]);
  }

  async step<T>(name: string, input: unknown, work: (context: StepContext) => Promise<StepResult<T>>, signal: AbortSignal): Promise<StepResult<T>> {
    signal.throwIfAborted();
    const index = this.steps.length;
    const recorded = this.replay?.state.steps[index];
    const replaying = this.replay !== undefined && recorded !== undefined && recorded.name === name;
    if (replaying && index < (this.replay as PipelineReplay).from && recorded.output !== undefined) {
      const reused: PipelineStep = { ...recorded, index, status: 'reused', responses: recorded.responses, startedAt: new Date().toISOString(), durationMs: 0 };
      this.steps.push(reused);
      this.observe({ id: reused.id, index, name, status: 'reused', ...(reused.summary ? { summary: reused.summary } : {}) });
      return { output: recorded.output as T, summary: recorded.summary ?? name, ...(recorded.status === 'failed' && recorded.error ? { failed: recorded.error } : {}) };
    }
    const atReplayPoint = replaying && index === (this.replay as PipelineReplay).from;
    const feedback = [...(atReplayPoint ? [...(recorded.feedback ?? []), (this.replay as PipelineReplay).feedback] : []), ...(this.pending.get(name) ?? [])];
    this.pending.delete(name);
    const state: PipelineStep = {
      id: randomUUID(),
      index,
      name,
      status: 'ok',
      input,
      responses: [],
      ...(feedback.length > 0 ? { feedback } : {}),
      startedAt: new Date().toISOString(),
      durationMs: 0,
    };
    this.steps.push(state);
    const started = performance.now();
    this.observe({ id: state.id, index, name, status: 'running' });
    const context: StepContext = {
      feedback,
      history: atReplayPoint ? recorded.responses : [],
      record: (response) => {
        const entry: PipelineModelResponse = {
          id: randomUUID(),
          at: new Date().toISOString(),
          ...response,
          text: clipped(response.text, MAX_RESPONSE_CHARS),
          ...(response.toolCalls ? { toolCalls: response.toolCalls.map((call) => ({ ...call, result: clipped(call.result, MAX_TOOL_RESULT_CHARS) })) } : {}),
        };
        state.responses.push(entry);
        return entry.id;
      },
      note: (summary) => this.observe({ id: state.id, index, name, status: 'running', summary }),
    };
    try {
      const result = await work(context);
      state.output = result.output;
      state.summary = result.summary;
      if (result.failed) {
        state.status = 'failed';
        state.error = result.failed;
      }
      return result;
    } catch (error) {
      state.status = signal.aborted ? 'cancelled' : 'failed';
      state.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      state.durationMs = Math.round(performance.now() - started);
      this.observe({ id: state.id, index, name, status: state.status, ...(state.summary ? { summary: state.summary } : {}), ...(state.error ? { error: state.error } : {}) });
    }
  }

  /** The run's state for the trace (a copy). */
  state(): PipelineState {
    const replay = this.replay;
    const replayOf = replay ? { interactionId: replay.interactionId, responseId: replay.responseId, fromStep: replay.from, feedback: replay.feedback } : undefined;
    return { name: this.name, steps: structuredClone(this.steps), ...(replayOf ? { replayOf } : {}) };
  }
}

/**
 * The step a piece of feedback names: an index, a step id, a step name (its last occurrence), or the step holding a
 * model response. Undefined when none matches.
 */
export function findStep(state: PipelineState, target: { step?: number | string; modelResponseId?: string }): PipelineStep | undefined {
  if (target.modelResponseId !== undefined) return state.steps.find((s) => s.responses.some((r) => r.id === target.modelResponseId));
  const { step } = target;
  if (typeof step === 'number') return state.steps[step];
  if (typeof step !== 'string') return undefined;
  if (/^\d+$/.test(step)) return state.steps[Number(step)];
  return state.steps.find((s) => s.id === step) ?? [...state.steps].reverse().find((s) => s.name === step);
}
