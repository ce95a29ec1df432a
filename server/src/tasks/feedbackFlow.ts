// Feedback on one step of a pipeline run: the run again from that step, with the earlier steps reloaded from their recorded state.
import type { FeedbackParams, FeedbackResult, PipelineStep } from '../protocol.js';
import { isTaskId } from '../protocol.js';
import { AssistantError } from '../assistantError.js';
import type { ProgressSink } from '../editorPort.js';
import { findStep } from '../pipeline/pipelineRun.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import { workspaceSnapshot } from '../workspace/documentSnapshot.js';
import { runTask } from './runTask.js';
import type { TaskEnvironment } from './runTask.js';
import { askResponsesOf } from './askFlow.js';
import { wholeWorkspaceTarget } from './task.js';

export interface FeedbackContext {
  env: TaskEnvironment;
  documents: DocumentSource;
  /** Runs being replayed now, by response id, with the step they restarted from: a second replay of one run waits its turn. */
  replaying: Map<string, PipelineStep>;
}

const describe = (step: PipelineStep): string => `step ${step.index} "${step.name}"`;

/**
 * Checks the feedback (one step of a run with recorded steps; no replay of that run already going), records it on
 * the response, and runs the pipeline again from that step as a new interaction whose response says what it replays.
 */
export async function feedbackFlow(context: FeedbackContext, params: FeedbackParams, signal: AbortSignal, progress: ProgressSink): Promise<FeedbackResult> {
  const { env } = context;
  const items = params.feedback.filter((item) => item.text.trim() !== '');
  if (items.length === 0) throw new AssistantError('invalid-params', 'assistant/feedback: "feedback" needs at least one item with a non-empty "text".');
  const interaction = env.trace.get(params.interactionId);
  if (!interaction) throw new AssistantError('unknown-interaction', `No interaction ${params.interactionId} in the trace.`);
  const response = interaction.responses.find((r) => r.id === params.responseId);
  if (!response) throw new AssistantError('unknown-interaction', `Interaction ${params.interactionId} has no response ${params.responseId}.`);
  const state = response.pipeline;
  if (!state || state.steps.length === 0 || !isTaskId(interaction.task)) {
    throw new AssistantError('invalid-params', `Response ${params.responseId} was not made by a pipeline, so it has no steps to give feedback on; rate it with assistant/rate instead.`);
  }
  const steps = items.map((item) => {
    const step = findStep(state, item);
    if (!step) {
      const named = item.modelResponseId !== undefined ? `model response ${item.modelResponseId}` : `step ${JSON.stringify(item.step ?? null)}`;
      throw new AssistantError('invalid-params', `assistant/feedback: this run has no ${named}; its steps are ${state.steps.map((s) => `${s.index} ${s.name}`).join(', ')}.`);
    }
    return step;
  });
  const first = steps[0] as PipelineStep;
  const other = steps.find((step) => step.index !== first.index);
  if (other) {
    const [earlier, later] = first.index < other.index ? [first, other] : [other, first];
    throw new AssistantError(
      'invalid-params',
      `assistant/feedback: feedback on ${describe(earlier)} and on ${describe(later)} of one run contradict each other: running ${describe(earlier)} again replaces the output the feedback on ${describe(later)} is about. Give feedback on one step; the steps after it run again anyway.`,
    );
  }
  const busy = context.replaying.get(response.id);
  if (busy) throw new AssistantError('invalid-params', `assistant/feedback: this run is already being replayed from ${describe(busy)}; wait for it (or cancel it) before giving more feedback.`);
  const agent = env.registry.forTask(interaction.task).find((a) => a.descriptor.name === response.agent.name);
  if (!agent) throw new AssistantError('unavailable', `The agent ${response.agent.name} that made this run is not configured now; it cannot be replayed.`);

  const text = items.map((item) => item.text.trim()).join('\n');
  context.replaying.set(response.id, first);
  try {
    // The feedback stays with the run it is about, whichever session recorded it.
    await env.trace.amendResponse(interaction.id, response.id, { feedback: `${describe(first)}: ${text}` });
    // The document the run was asked from (a class goes into its folder), or the one it was about.
    const uri = interaction.context.askedFrom?.uri ?? interaction.context.resource?.uri;
    const document = (uri ? context.documents.get(uri) : undefined) ?? workspaceSnapshot(env.root);
    const result = await runTask(
      env,
      {
        task: interaction.task,
        document,
        // A run on code (an issue from a failing check) names it again; one asked about the workspace is about it again.
        target: interaction.context.fragment && interaction.context.symbol !== undefined ? { name: interaction.context.symbol, start: 0, end: 0 } : wholeWorkspaceTarget(),
        parameters: {},
        text: interaction.text,
        source: 'text',
        agent: agent.descriptor.name,
        replay: { interactionId: interaction.id, responseId: response.id, state, from: first.index, feedback: text },
      },
      signal,
      progress,
    );
    const usable = result.candidates.filter((c) => c.proposal || c.shown).length;
    return {
      interactionId: result.interaction.id,
      task: interaction.task,
      confidence: 1,
      fromStep: first.index,
      message: result.interaction.message ?? `${usable} candidate${usable === 1 ? '' : 's'} after replaying from ${describe(first)}; apply one with assistant/apply.`,
      responses: askResponsesOf(result.candidates),
    };
  } finally {
    context.replaying.delete(response.id);
  }
}
