// The shape of a task in the catalogue: where it is offered, what its agents get, and how an answer becomes a proposal.
import type { AssistantSettings, TaskId, Verdict } from '../protocol.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { Workspace } from '../workspace/workspace.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import type { Annotation } from '../edits/annotation.js';
import type { Proposal } from '../edits/proposal.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { AgentAnswer, AnswerPlace } from '../agents/agent.js';

/** A diagnostic as the core sees it: offsets into the document text it was reported on. */
export interface DiagnosticInfo {
  start: number;
  end: number;
  message: string;
  code?: string | number;
  source?: string;
  /** 1 error, 2 warning, 3 information, 4 hint (the LSP values). */
  severity?: number;
  /** The diagnostic as the client sent it, handed back in the command's arguments. */
  original?: unknown;
  /** Set when one of the server's listeners (type-check, tests, lint) reported it. */
  listener?: string;
  /** A listener's full account of the failure (where, expected/actual, stack), the issue text of "fix with assistant". */
  detail?: string;
}

/** What a task is about: a piece of code, maybe a declaration, maybe a diagnostic. Offsets are UTF-16 into the document. */
export interface TaskTarget {
  /** Display name: `Config.load`, `the selection`, `TS2304`. */
  name: string;
  start: number;
  end: number;
  declaration?: DeclarationTarget;
  diagnostic?: DiagnosticInfo;
  /**
   * The request is about the whole workspace (see `wholeWorkspaceTarget`): the document is only where the user was,
   * and `start` and `end` name no code in it.
   */
  wholeWorkspace?: true;
}

/** The target of a request about the whole workspace (a question, an issue or a class described in words). */
export function wholeWorkspaceTarget(): TaskTarget {
  return { name: 'the workspace', start: 0, end: 0, wholeWorkspace: true };
}

/** Where the editor asks for code actions. */
export interface OfferContext {
  document: DocumentSnapshot;
  start: number;
  end: number;
  /** Diagnostics the client sent in the code-action context. */
  diagnostics: DiagnosticInfo[];
}

/** What a task offers at a place in a document: found by syntax alone, without a model. */
export interface TaskOffer {
  task: TaskId;
  title: string;
  /** LSP code action kind. */
  kind: string;
  target: TaskTarget;
  /** Task-specific inputs, e.g. `newName` for a rename. */
  parameters?: Record<string, string>;
  /** Listed only when a model agent serves the task (e.g. name suggestions, which no offline agent can make). */
  needsModel?: boolean;
}

/** Everything a task's conversion sees about the run. */
export interface TaskRunView {
  /** The workspace the run is in (its files, conventions and projects). */
  workspace: Workspace;
  document: DocumentSnapshot;
  target: TaskTarget;
  parameters: Record<string, string>;
}

/** An answer made usable: a proposal to apply, a text to show, or the reason it is neither. */
export type TaskAnswer =
  | { ok: true; kind: 'edit'; proposal: Proposal; text: string }
  | { ok: true; kind: 'text'; text: string; places?: AnswerPlace[] }
  | { ok: false; reason: string };

/** What an oracle may use to check a proposal. */
export interface CheckContext {
  root: string;
  project: WorkspaceProject;
  oracle: AssistantSettings['oracle'];
}

export interface TaskDefinition {
  id: TaskId;
  /** The task is about the workspace, not a place in a document (workspace questions): ask runs it without a target. */
  workspaceWide?: boolean;
  /** Its agents check and correct their own proposals (pipelines): the orchestrator does not ask them again. */
  selfCorrecting?: boolean;
  /** The offers at a selection, syntax only and fast. */
  offersAt(context: OfferContext): TaskOffer[];
  /**
   * The target of a free-text request at a place, with parameters read from the text (e.g. a rename's new name);
   * without it, the task's first offer at that place. `diagnostics` are the document's (the server's own type-check
   * among them) for the tasks that need them.
   */
  askTarget?(document: DocumentSnapshot, start: number, end: number, text: string, diagnostics?: readonly DiagnosticInfo[]): { target: TaskTarget; parameters?: Record<string, string> } | undefined;
  /** Why the parameters a client sent cannot work (e.g. an unknown optimization goal), before any agent runs. */
  invalidParameters?(parameters: Record<string, string>): string | undefined;
  /** The agent's answer as a proposal (or text) on the document it was computed for; `annotation` is absent when annotations are off. */
  convertAnswer(answer: AgentAnswer, run: TaskRunView, annotation: Annotation | undefined): TaskAnswer;
  /**
   * The oracle for code-producing tasks: a proposal that does not pass is not offered, and a model agent is asked
   * again with the verdict as feedback while attempts remain.
   */
  check?(proposal: Proposal, run: TaskRunView, context: CheckContext, signal: AbortSignal): Promise<Verdict>;
}
