// The agent interface: what every agent (offline or model) declares and how the orchestrator calls it.
import type { AgentDescriptor, AssistantSettings, PipelineState, PipelineStepParams, TaskId, Verdict } from '../protocol.js';
import type { DocumentSnapshot, DocumentSource } from '../workspace/documentSnapshot.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { Workspace } from '../workspace/workspace.js';
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
  /** The workspace: its files under the one exclusion rule, its documents, projects and index. */
  workspace: Workspace;
  /** The TypeScript project of the config that governs the document, loaded lazily; agents may ask it for types. */
  project: WorkspaceProject;
  /** Earlier answers of this agent in this run that the oracle rejected, with why: feedback for the next attempt. */
  history: { answer: string; feedback: string }[];
  /** The editor's documents (open buffers, else the disk), for agents that read or patch several files. */
  documents?: DocumentSource;
  /**
   * Context for model prompts, within a token budget, as a prompt section: the enclosing declaration, the symbols the
   * request names (declarations and references), the places the user visited last, the other open documents.
   */
  context?: string;
  /**
   * The values to redact wherever they appear in what is sent about this document (see `protectedValues`), when the
   * task already gathered them for its context; a model agent gathers them itself otherwise.
   */
  knownSecrets?: ReadonlyMap<string, string>;
  /** What multi-step pipelines (issue, class) run with: their budgets, and the oracle they check proposals with. */
  pipeline?: { settings: AssistantSettings['pipelines']; oracle: AssistantSettings['oracle'] };
  /** Run a recorded pipeline again from one of its steps, with feedback on that step. */
  replay?: PipelineReplay;
  /** Told of each pipeline step as it starts and as it ends. */
  onStep?: (step: PipelineStepParams['step'], pipeline: string) => void;
}

/** A recorded run to replay: the steps before `from` are reused, step `from` runs again with the feedback. */
export interface PipelineReplay {
  /** The run replayed: its interaction and response. */
  interactionId: string;
  responseId: string;
  state: PipelineState;
  from: number;
  feedback: string;
}

/** Token usage reported by a model. */
export interface TokenUsage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * A place a text answer names: a document and a line, with what is there. The task turns it into the location a
 * client lists and jumps to (`AnswerLocation`), finding the line in the document as the editor has it.
 */
export interface AnswerPlace {
  uri: string;
  /** 1-based, as people write `path:line`. */
  line: number;
  /** What is there, e.g. `function withRetry`. */
  label: string;
  /** The name on that line the cursor should land on, when there is one. */
  name?: string;
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
  /** The steps of a pipeline run, for the trace. */
  pipeline?: PipelineState;
  /** The pipeline's own final check of its proposal (tasks without an oracle of their own use it). */
  verdict?: Verdict;
  /** For a text answer, the places it is about or names, best first (a question's ranked results, an explanation's references). */
  places?: AnswerPlace[];
}

/** Progress an agent can report while it works: what it does now, or how much of its answer its model has written. */
export type AgentProgress = (update: AgentUpdate) => void;

export type AgentUpdate = string | { written: number };

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
