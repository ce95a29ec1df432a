// The server's setting of V8's optimizing compiler: a smaller inlining budget, so each optimizing compile is shorter.
import v8 from 'node:v8';

const INLINING_BUDGET_FLAG = '--max-inlined-bytecode-size-cumulative';

/**
 * Bytecode V8 may inline into one optimized function, against its default of 920. The server's work is many short
 * requests, and cold work that compiles a lot (a first walk of the workspace, a first type-check). With this budget
 * each optimizing compile is shorter: on two cores a long one, on a helper thread, holds the core a request was about
 * to run on. Measured on this repository's machine, each against the default: a parse of a 12,645-line file the same
 * (18.6-18.9 ms against 18.3-19.6), the cold index of zod's 89k lines 1,011-1,042 ms against 1,138-1,190, a cold
 * type-check of its core 7.4-7.5 s against 8.2-8.4, a warm one 387-401 ms against 435, tasks the same, code-action
 * p99 on openai's sources 2.1-3.1 ms against 2.5-3.4 (six servers each). Half of it (120) slowed the parse by 9%.
 */
const INLINING_BUDGET = 230;

/** The flags to set: none when the node command line already sets the budget (a user's, or a benchmark's, choice). */
export function compilerFlags(execArgv: readonly string[]): string[] {
  const given = execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(INLINING_BUDGET_FLAG));
  return given ? [] : [`${INLINING_BUDGET_FLAG}=${INLINING_BUDGET}`];
}

/** Sets them for the whole process (the type-check worker too), before the server's code has been optimized. */
export function tuneCompiler(): void {
  for (const flag of compilerFlags(process.execArgv)) v8.setFlagsFromString(flag);
}
