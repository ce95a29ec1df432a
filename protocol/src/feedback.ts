// `assistant/feedback` and `assistant/pipelineStep`: feedback on one step of a pipeline run, and the steps streamed to the editor.
import { MessageDirection, NotificationType, RequestType } from 'vscode-languageserver-protocol';
import type { WorkDoneProgressParams } from 'vscode-languageserver-protocol';
import type { AskResult } from './ask.js';
import type { PipelineStep } from './traceTypes.js';

/** Feedback on one step of a run, named by its index, its id or its name (the last step of that name). */
export interface StepFeedback {
  /** The step: its index in the run, its id, or its name (`patch` means the run's last patch step). */
  step?: number | string;
  /** Or one model response inside a step, by its id: feedback on the step that produced it. */
  modelResponseId?: string;
  /** What to do differently, in the user's words. */
  text: string;
}

export interface FeedbackParams extends WorkDoneProgressParams {
  interactionId: string;
  /** The pipeline run (a response of the interaction) the feedback is about. */
  responseId: string;
  /**
   * Feedback on one step (the usual case). Several items are accepted only when they name the same step: feedback on
   * two different steps of one run contradicts itself, since running the earlier step again replaces the output the
   * later feedback was about.
   */
  feedback: StepFeedback[];
}

/**
 * The run again from the step the feedback names: the earlier steps reloaded from their recorded state, that step run
 * with the feedback and its history, the later steps on its new output. A new interaction (`replayOf` in its
 * response's pipeline) holds the new run; its candidates are returned unapplied, as `assistant/ask` returns them.
 */
export interface FeedbackResult extends AskResult {
  /** The index of the step the run restarted from. */
  fromStep: number;
}

/**
 * Gives feedback on one step (or one model response) of a pipeline run and runs the pipeline again from there.
 * Refused with -32602 when the response has no pipeline, the step does not exist, the items name different steps,
 * or a replay of the same run is already going. Sent from the client to the server.
 */
export namespace FeedbackRequest {
  export const method = 'assistant/feedback' as const;
  export const messageDirection = MessageDirection.clientToServer;
  export const type = new RequestType<FeedbackParams, FeedbackResult, void>(method);
}

export interface PipelineStepParams {
  interactionId: string;
  /** The agent whose pipeline this is. */
  agent: string;
  /** The pipeline's name: `issue` or `class`. */
  pipeline: string;
  /** The step as it stands: `running` when it starts, then its final status. */
  step: Pick<PipelineStep, 'id' | 'index' | 'name' | 'summary' | 'error'> & { status: PipelineStep['status'] | 'running' };
}

/**
 * Each step of a pipeline as it starts and as it ends, for clients that render runs (the same steps are also sent
 * as `$/progress` reports when the request carried a progress token). Sent from the server to the client.
 */
export namespace PipelineStepNotification {
  export const method = 'assistant/pipelineStep' as const;
  export const messageDirection = MessageDirection.serverToClient;
  export const type = new NotificationType<PipelineStepParams>(method);
}
