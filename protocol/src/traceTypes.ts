// The trace data model (after the CARET paper): sessions, interactions, responses and agents, as stored and as queried.
import type { Range, WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { AnswerLocation } from './showAnswer.js';
import type { InteractionTask, TaskId } from './tasks.js';

/** How an agent produces its answers. */
export type AgentTechnology = 'llm' | 'intent' | 'rule';

/** The identity of an agent as recorded in the trace and listed by `assistant/agents`. */
export interface AgentDescriptor {
  /** Unique name within the registry, e.g. `doc-offline` or `gpt-4o-mini@openai`. */
  name: string;
  technology: AgentTechnology;
  isLLM: boolean;
  /** The model an LLM agent calls. */
  model?: string;
  /** The endpoint an LLM agent calls (never includes credentials). */
  endpoint?: string;
}

/** An agent with the tasks it serves. */
export interface AgentInfo extends AgentDescriptor {
  tasks: TaskId[];
  description: string;
}

/** The file an interaction is about. */
export interface TraceResource {
  uri: string;
  fileName: string;
  fullPath: string;
  /** Path relative to the workspace folder, with forward slashes. */
  relativePath: string;
  /** The workspace folder's name. */
  project: string;
}

/** A piece of code with where it was. */
export interface CodeFragment {
  range: Range;
  text: string;
}

/**
 * What the interaction was about. A request about the whole workspace (a question, an issue or a class described in
 * words) is about no file and no code range: it has no `resource`, `fragment` or `symbol`, and `askedFrom` says which
 * file the editor had open; the places its answers cite are each response's `locations`.
 */
export interface InteractionContext {
  resource?: TraceResource;
  /**
   * For a request about the whole workspace: the document the editor had open when it was asked. Agents may weigh it
   * (the question's ranking reaches files from it), but the request is not about it.
   */
  askedFrom?: TraceResource;
  /** Document version the agents saw (of `resource`, or of `askedFrom`). */
  version?: number;
  /** The selection or declaration the task was run on. */
  fragment?: CodeFragment;
  /** The symbol the task was run on, e.g. `Config.load`. */
  symbol?: string;
  /**
   * What model agents got besides the target (the enclosing declaration, named symbols, recent places, open
   * documents): its size in estimated tokens, and what was left out for the budget or for privacy (paths only).
   */
  enrichment?: { tokens: number; omitted: string[] };
}

/**
 * What became of inserted code since the edit: `present` (the inserted text, as it was), `edited` (the user changed
 * text inside it; `range` still spans it), `removed` (an edit took all of it away; `range` is the empty range where it
 * was).
 */
export type InsertionState = 'present' | 'edited' | 'removed';

/**
 * Whether an insertion reached the file on disk: `kept` (the file was saved, or found on disk when the editor closed
 * it, holding the inserted code, as inserted or edited since; final), `discarded` (the file reached disk without it:
 * saved after the code was removed, or closed or the editor quit without saving it). Absent: not known yet (the edit
 * is in the editor, unsaved).
 */
export type InsertionFate = 'kept' | 'discarded';

/** Where a response's code was inserted, and where it is now. */
export interface InsertionRecord {
  uri: string;
  /**
   * Where the inserted code is now, as far as the server knows: where the edit put it, moved with every later change of
   * the document the server saw (edits before it shift it, edits inside it change its extent), and found again by its
   * text in a file changed while no server watched it.
   */
  range: Range;
  /** The text the edit inserted there. */
  text: string;
  /** The text the edit replaced (empty for a pure insertion), so a revert can put it back. */
  replaced: string;
  /** The edit created this file (a revert deletes it). */
  created?: boolean;
  /** Document version the edit was applied to. */
  version?: number;
  at: string;
  /** Where the edit put the code, when `range` has moved since. */
  appliedRange?: Range;
  /** What became of the code (absent: `present`). */
  state?: InsertionState;
  /** When `state` is `edited`: the text `range` held when the file was last seen on disk (to find it again there). */
  editedText?: string;
  fate?: InsertionFate;
  /** When `fate` was last decided. */
  fateAt?: string;
}

/**
 * How an applied response ended up. `shown`: a text answer (an explanation, an answer to a question) was shown to the
 * user. `discarded`: the user chose none of the answers (`choiceDiscardedAt` says when), or discarded the chosen
 * one's edit in the preview. `discarded-after-apply`: the edit was applied, and then none
 * of it reached the file on disk (every insertion's `fate` is `discarded`); the response is then not `used`.
 */
export type ApplyOutcome = 'applied' | 'shown' | 'rejected-by-client' | 'discarded' | 'discarded-after-apply' | 'stale' | 'failed' | 'refused';

/** What the oracle (type-check, tests) said of a proposal. */
export interface Verdict {
  passed: boolean;
  /** One line for menus and the trace, e.g. "2 errors before, 0 after". */
  summary: string;
  /** Diagnostics or test failures behind the verdict, one per line. */
  details?: string[];
  /** Tests ran and passed: a stronger verdict than a type check alone (ranked first). */
  testsPassed?: boolean;
}

/** One tool call a model made during a pipeline step, with the answer it got (cut for the trace). */
export interface PipelineToolCall {
  name: string;
  /** The arguments as the model wrote them (JSON text, valid or not). */
  arguments: string;
  result: string;
}

/** One model response inside a pipeline step: feedback can name it by `id`. */
export interface PipelineModelResponse {
  id: string;
  at: string;
  /** The answer's text (cut for the trace when very long). */
  text: string;
  toolCalls?: PipelineToolCall[];
  /** Why this response was not usable (e.g. a patch that does not apply), as told to the model. */
  error?: string;
  usage?: { promptTokens?: number; completionTokens?: number };
}

/** The state of one step of a pipeline: enough to inspect it, rate it, and replay the run from it. */
export interface PipelineStep {
  id: string;
  /** Position in the run, from 0; a step that runs again (self-fix, feedback) appears again with a new index. */
  index: number;
  /** What the step does: `context`, `patch`, `review`, `self-fix`, `retrieve`, `attempt`, `check`, `tools`, `reflect`. */
  name: string;
  /** `reused`: taken from the run this one replays, without running again. */
  status: 'ok' | 'failed' | 'reused' | 'cancelled';
  /** What the step was given (JSON). */
  input: unknown;
  /** What it produced (JSON); later steps and replays start from it. */
  output?: unknown;
  /** One line for menus and the progress UI. */
  summary?: string;
  error?: string;
  responses: PipelineModelResponse[];
  /** Feedback the step ran with (from the user or from self-fix), oldest first. */
  feedback?: string[];
  startedAt: string;
  durationMs: number;
}

/** A multi-step run of one agent (the issue and class pipelines). */
export interface PipelineState {
  name: string;
  steps: PipelineStep[];
  /** Set when this run replays another from one of its steps, after feedback. */
  replayOf?: { interactionId: string; responseId: string; fromStep: number; feedback: string };
}

/** One agent's answer to an interaction. */
export interface TraceResponse {
  id: string;
  agent: AgentDescriptor;
  status: 'ok' | 'empty' | 'error' | 'timeout' | 'cancelled';
  /** The answer as text (the doc comment, the explanation, …); of a failed answer cut off at the token limit, what the model wrote. */
  text: string;
  /**
   * The places in the code a text answer cites, best first, as the client was given them (a question's ranked places,
   * an explanation's code and its references): what a workspace question is about. Citing code is not producing it:
   * code → interaction does not find an answer at the places it cites.
   */
  locations?: AnswerLocation[];
  /** The proposed edit, as computed on `context.version`. */
  edit?: WorkspaceEdit;
  /**
   * Why the agent gave no usable answer, in a user's words ("the endpoint refused the API key (401)", "no answer
   * within 60 s"): what the choice list, the warnings and `assistant/ask` show.
   */
  error?: string;
  /** The failure as the endpoint or the agent reported it, when `error` says it shorter. */
  errorDetail?: string;
  /** The oracle's verdict on the proposal, for tasks that check their proposals. */
  verdict?: Verdict;
  /** How many times the agent was asked (more than one when the oracle sent it back with feedback). */
  attempts?: number;
  /**
   * Whether the user chose this response and the editor applied it (or it was shown), and it was not discarded after
   * that (`outcome: 'discarded-after-apply'`).
   */
  used: boolean;
  outcome?: ApplyOutcome;
  outcomeReason?: string;
  insertedAt?: InsertionRecord[];
  /** When some of what the response inserted was first found kept on disk (see `InsertionFate`). */
  keptAt?: string;
  /**
   * When the code of a kept edit was found gone from the file on disk: every insertion `removed` (undone or deleted,
   * then saved). The response stays used and kept (it was in the saved file); absent again once some of it is back
   * on disk.
   */
  removedAt?: string;
  /** When the response was found discarded after it was applied. */
  discardedAt?: string;
  rating?: 'up' | 'down';
  /** Free-text remarks that came with ratings or feedback, oldest first. */
  feedback?: string[];
  /** When `assistant/revert` removed what this response inserted. */
  revertedAt?: string;
  /** When the user was shown a revert of this response in the preview and discarded it, oldest first. */
  revertsDiscardedAt?: string[];
  /**
   * When the user, offered this answer among the interaction's answers, chose none of them (a picker's Discard, or
   * the picker closed): the first time they said so.
   */
  choiceDiscardedAt?: string;
  startedAt: string;
  durationMs: number;
  usage?: { promptTokens?: number; completionTokens?: number };
  /** The steps of a pipeline run (issue, class), each with its inputs, model responses and output. */
  pipeline?: PipelineState;
}

/** Who asked. */
export type Role = 'developer' | 'maintainer' | 'reviewer';

/** One request to the assistant and everything that answered it. */
export interface Interaction {
  id: string;
  sessionId: string;
  timestamp: string;
  role: Role;
  user: string;
  /** Free text (`text`) or a command or code action (`command`). */
  source: 'text' | 'command';
  text: string;
  task: InteractionTask;
  /** For `complete`: the completion the user was offered, and whether they accepted only part of it. */
  completion?: { offered: string; partial: boolean; mode?: string };
  /** How the task was decided. */
  classification?: { by: string; confidence: number };
  context: InteractionContext;
  responses: TraceResponse[];
  /** A message shown to the user about the outcome, e.g. why nothing was offered. */
  message?: string;
  /** Which response was ranked first, and why (the oracle's verdicts compared). */
  selection?: { responseId: string; reason: string };
}

/** One run of the server for one workspace. */
export interface TraceSession {
  id: string;
  startedAt: string;
  user: string;
  role: Role;
  workspace: string;
  client?: { name: string; version?: string };
  pid: number;
}
