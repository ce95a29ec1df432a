// The assistant task identifiers shared by the server, the clients and the trace.

/** Every task the assistant knows, in the order the classifier lists them. */
export const TASK_IDS = [
  'document',
  'explain',
  'rename',
  'test',
  'fix',
  'optimize',
  'generate',
  'implement',
  'class',
  'issue',
  'question',
] as const;

/** A task the assistant can run. */
export type TaskId = (typeof TASK_IDS)[number];

/** The classification result: a task, or `none` for "none of the above". */
export type TaskOrNone = TaskId | 'none';

/**
 * What the trace records besides tasks: `complete` (an accepted inline completion) and `patch` (a unified diff the user
 * pasted, `assistant.applyPatch`). No agent serves them and no request is classified as them; `assistant/trace` lists
 * them by these names.
 */
export const RECORDED_ONLY_TASKS = ['complete', 'patch'] as const;

/** What an interaction in the trace was: a task, `none`, or one of `RECORDED_ONLY_TASKS`. */
export type InteractionTask = TaskOrNone | (typeof RECORDED_ONLY_TASKS)[number];

/** One-line descriptions used in menus, the classifier prompt and the documentation. */
export const TASK_DESCRIPTIONS: Record<TaskId, string> = {
  document: 'Write documentation (a doc comment) for a function, method, class or file',
  explain: 'Explain what a piece of code does',
  rename: 'Rename a function, method, class or property, or suggest a better name',
  test: 'Generate unit tests for a function or class',
  fix: 'Fix an error, a warning or a bug reported by a diagnostic',
  optimize: 'Optimise code for efficiency, readability or complexity',
  generate: 'Generate code: a function body, a snippet or code from a description',
  implement: 'Implement an interface or abstract class, or create a subclass',
  class: 'Generate a whole new class from a description',
  issue: 'Fix an issue or add a feature across the repository',
  question: 'Answer a question about the code in this workspace',
};

/** Whether a string names a task. */
export function isTaskId(value: unknown): value is TaskId {
  return typeof value === 'string' && (TASK_IDS as readonly string[]).includes(value);
}
