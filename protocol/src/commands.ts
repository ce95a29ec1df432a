// Command ids the server executes through `workspace/executeCommand`, with their argument and result shapes.
import type { Diagnostic, Position, Range, VersionedTextDocumentIdentifier } from 'vscode-languageserver-protocol';
import type { TaskId } from './tasks.js';
import type { ApplyOutcome } from './traceTypes.js';

/** Arguments of a task command, as a code action carries them. */
export interface TaskCommandArgs {
  /** The document and the version the action was offered on. */
  textDocument: VersionedTextDocumentIdentifier;
  /** The declaration or selection the task runs on. */
  range: Range;
  /** The symbol's name, for messages and the trace. */
  symbol?: string;
  /** The diagnostic the action was offered for (fix tasks). */
  diagnostic?: Diagnostic;
  /** Task-specific inputs, e.g. `{ newName }` for a rename. */
  parameters?: Record<string, string>;
  /**
   * Run only this agent. Set on the one-action-per-agent menus offered to clients that cannot show a choice
   * (no `window.showMessage` capability, e.g. Helix), so the user chooses in the code-action menu instead.
   */
  agent?: string;
}

/** What a task command reports back once the user has chosen (or not). */
export interface TaskCommandResult {
  interactionId: string;
  applied: boolean;
  outcome?: ApplyOutcome;
  responseId?: string;
  message?: string;
}

/** Arguments of `assistant.responseApplied`. */
export interface ResponseAppliedArgs {
  interactionId: string;
  responseId: string;
}

export namespace Commands {
  /** Runs the Document task on a declaration: arguments `[TaskCommandArgs]`, result `TaskCommandResult`. */
  export const document = 'assistant.document' as const;
  /** Explains the code at the range (shown as a message or a markdown document). */
  export const explain = 'assistant.explain' as const;
  /** Renames a symbol everywhere: `parameters.newName` names it; without one, a model suggests names. */
  export const rename = 'assistant.rename' as const;
  /** Fixes the diagnostic in `TaskCommandArgs.diagnostic`. */
  export const fix = 'assistant.fix' as const;
  /** Generates tests for an exported function or class, as a new test file. */
  export const test = 'assistant.test' as const;
  /** Implements an interface or abstract class as a new class. */
  export const implement = 'assistant.implement' as const;
  /** Answers a question about the workspace (`parameters.question`). */
  export const question = 'assistant.question' as const;
  /** Generates a body for a signature, or code for a TODO comment. */
  export const generate = 'assistant.generate' as const;
  /** Optimises a function or a selection (`parameters.goal`: efficiency, readability, complexity or general). */
  export const optimize = 'assistant.optimize' as const;
  /** Fixes an issue or adds a feature across the repository (`parameters.question`: the issue text), with the issue pipeline. */
  export const issue = 'assistant.issue' as const;
  /** Generates a new class from a description (`parameters.question`), as a new file, with the class pipeline. */
  export const generateClass = 'assistant.class' as const;
  /** Type-checks the whole project and publishes the errors as diagnostics: no arguments, result `ListenerRunResult`. */
  export const checkTypes = 'assistant.checkTypes' as const;
  /**
   * Runs the project's tests in a scratch copy and publishes each failure at its assertion (expected, actual, stack):
   * no arguments, result `ListenerRunResult`. Asks first unless `oracle.runTests` allows it (tests run project code).
   */
  export const runTests = 'assistant.runTests' as const;
  /** Lints the project with its own ESLint and publishes the problems; the result lists them as a queue for `fixAll`. */
  export const lint = 'assistant.lint' as const;
  /** Works through lint problems one by one (`[FixAllArgs]`: the queue's ids, all by default), with progress and cancel. */
  export const fixAll = 'assistant.fixAll' as const;
  /** Applies a pasted unified diff (`[ApplyPatchArgs]`), moved onto the files as they are now; result `ApplyPatchResult`. */
  export const applyPatch = 'assistant.applyPatch' as const;
  /**
   * Sent by clients after applying the edit of a resolved code action, so the trace marks the response used:
   * arguments `[ResponseAppliedArgs]`. Resolved code actions carry it; users never run it by hand.
   */
  export const responseApplied = 'assistant.responseApplied' as const;
  /**
   * Shows the interaction(s) that produced the code at a position: arguments `[ShowInteractionArgs]`, result
   * `ShowInteractionResult`. Offered as a code action on annotated code, so clients without custom UI (Helix) reach
   * the trace; opens a markdown report under `.assistant/` with `window/showDocument`, or shows a message.
   */
  export const showInteraction = 'assistant.showInteraction' as const;
  /**
   * Records an accepted inline completion in the trace, as a `complete` interaction: arguments
   * `[AcceptCompletionArgs]` (the item's `command` carries them; a client that accepted only part of the text adds
   * `acceptedText` or `acceptedLength`), result `AcceptCompletionResult`. Clients run it after inserting the text.
   */
  export const acceptCompletion = 'assistant.acceptCompletion' as const;
}

/** Arguments of `assistant.acceptCompletion`: what the server put in the completion item, and what the user took. */
export interface AcceptCompletionArgs {
  /** The document, and its version when the completion was offered. */
  textDocument: { uri: string; version?: number | null };
  /** The item's `range`: the text it replaced (usually empty, at the cursor). */
  range: Range;
  /** The item's whole `insertText`. */
  insertText: string;
  /** The agent and model that wrote it, and how it was asked (`fim`, `chat`, `infill`). */
  agent: string;
  model?: string;
  mode?: string;
  /** Set by the client when the user accepted only the start of `insertText` (a word, a line): that text. */
  acceptedText?: string;
  /** Or its length in UTF-16 code units (used when `acceptedText` is absent). */
  acceptedLength?: number;
}

/** What `assistant.acceptCompletion` recorded. */
export interface AcceptCompletionResult {
  interactionId: string;
  /** Whether the user took only part of the completion. */
  partial: boolean;
  /** The text recorded as inserted. */
  text: string;
}

/** Arguments of `assistant.showInteraction`. */
export interface ShowInteractionArgs {
  textDocument: { uri: string };
  position: Position;
}

/** What `assistant.showInteraction` found and how it showed it. */
export interface ShowInteractionResult {
  interactionIds: string[];
  /** The markdown report's URI, when one was written and opened. */
  reportUri?: string;
  message: string;
}

/** Every command id the server registers in `executeCommandProvider`. */
/** The task a task command runs. */
export const COMMAND_TASKS: Readonly<Record<string, TaskId>> = {
  [Commands.document]: 'document',
  [Commands.explain]: 'explain',
  [Commands.rename]: 'rename',
  [Commands.fix]: 'fix',
  [Commands.test]: 'test',
  [Commands.implement]: 'implement',
  [Commands.question]: 'question',
  [Commands.generate]: 'generate',
  [Commands.optimize]: 'optimize',
  [Commands.issue]: 'issue',
  [Commands.generateClass]: 'class',
};

/** What a check command (type-check, tests, lint) found. */
export interface ListenerRunResult {
  listener: 'typecheck' | 'tests' | 'lint';
  /** False when the check did not run (tests not allowed, no ESLint), with why in `message`. */
  ran: boolean;
  /** Problems published as diagnostics. */
  problems: number;
  message: string;
  /** For `assistant.lint`: the problems as a queue, in order, by id. */
  items?: { id: string; uri: string; line: number; rule?: string; message: string }[];
}

/** Arguments of `assistant.fixAll`. */
export interface FixAllArgs {
  /** The queue items to fix; all of them when absent. */
  ids?: string[];
}

/** How each item of a "fix all" run ended: `fixed`, `failed`, `skipped` (no fix), `gone` (no longer reported), `cancelled`. */
export interface FixAllResult {
  total: number;
  fixed: number;
  items: { id: string; outcome: 'fixed' | 'failed' | 'skipped' | 'cancelled' | 'gone'; detail?: string }[];
  message: string;
}

/** Arguments of `assistant.applyPatch`. */
export interface ApplyPatchArgs {
  /** A unified diff (git or plain), as pasted; paths relative to the workspace folder. */
  patch: string;
}

/** What applying a pasted patch did. */
export interface ApplyPatchResult {
  applied: boolean;
  interactionId: string;
  /** Workspace-relative paths the patch touches. */
  files: string[];
  /** How the apply ended (`discarded`: the user discarded it in the preview); absent when the patch did not fit. */
  outcome?: ApplyOutcome;
  message: string;
}

export const ALL_COMMANDS: readonly string[] = [...Object.keys(COMMAND_TASKS), Commands.responseApplied, Commands.showInteraction, Commands.checkTypes, Commands.runTests, Commands.lint, Commands.fixAll, Commands.applyPatch, Commands.acceptCompletion];
