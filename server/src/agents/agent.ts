// The agent interface: what every agent (offline or model) declares and how the orchestrator calls it.
import type { AgentDescriptor, TaskId } from '../protocol.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { WorkspaceProject } from '../repo/workspaceProject.js';
import type { Proposal } from '../edits/proposal.js';
import type { TaskTarget } from '../tasks/task.js';

/** Everything an agent is given to work on one task. */
export interface AgentRequest {
  task: TaskId;
  interactionId: string;
  /** The user's words, or a description of the command that started the task. */
  text: string;
  document: DocumentSnapshot;
  /** What the task is about, located in `document.text`. */
  target: TaskTarget;
  /** Task-specific inputs, e.g. `newName` for a rename. */
  parameters: Record<string, string>;
  /** The workspace's TypeScript project, loaded lazily; agents may ask it for types. */
  project: WorkspaceProject;
  /** Earlier answers of this agent in this run that the oracle rejected, with why: feedback for the next attempt. */
  history: { answer: string; feedback: string }[];
}

/** Token usage reported by a model. */
export interface TokenUsage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * An agent's answer: text whose meaning the task defines (for Document, the doc comment), and, for agents that
 * compute exact changes (renames, compiler fixes), the proposal itself.
 */
export interface AgentAnswer {
  text: string;
  proposal?: Proposal;
  usage?: TokenUsage;
  /** Further answers of the same agent (e.g. several suggested names), each offered as its own candidate. */
  alternatives?: AgentAnswer[];
  /** Why the answer is empty, in words for the user. */
  reason?: string;
}

/** Progress an agent can report while it works. */
export type AgentProgress = (message: string) => void;

export interface Agent {
  readonly descriptor: AgentDescriptor;
  readonly tasks: readonly TaskId[];
  /** One sentence for `assistant/agents`. */
  readonly description: string;
  /**
   * Runs the task. Must stop promptly when `signal` aborts (rejecting with the signal's reason),
   * and returns an empty text when it has nothing honest to offer.
   */
  run(request: AgentRequest, signal: AbortSignal, progress?: AgentProgress): Promise<AgentAnswer>;
}
