// Prompt templates of the model agents, per task, with the placeholders users can use in their overrides.
import type { TaskId } from '../protocol.js';

/** A prompt as chat messages. */
export interface Prompt {
  system: string;
  user: string;
}

export interface PromptValues {
  code: string;
  language: string;
  symbol: string;
  kind: string;
  request: string;
  fileName: string;
}

const DEFAULTS: Partial<Record<TaskId, Prompt>> = {
  document: {
    system:
      'You are a careful technical writer embedded in a code editor. You write documentation comments for TypeScript and JavaScript. ' +
      'You answer with exactly one JSDoc block (/** ... */) and nothing else: no code, no explanation, no code fence.',
    user:
      'Write the JSDoc comment for the {{kind}} `{{symbol}}` in {{fileName}}.\n' +
      'Start with one sentence on what it does and why a caller would use it; then @param for every parameter (destructured ones as name.property), ' +
      '@returns unless it returns nothing, @throws for each error it can throw, and @template for type parameters. ' +
      'Describe behaviour, not syntax.\n' +
      'Request from the developer: {{request}}\n\n' +
      '```{{language}}\n{{code}}\n```',
  },
};

/** Fills `{{name}}` placeholders; unknown placeholders are left as they are. */
export function fillTemplate(template: string, values: Partial<PromptValues>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
    const v = (values as Record<string, string | undefined>)[key];
    return v === undefined ? whole : v;
  });
}

/** The prompt for a task, with the user's override of the user message when there is one. */
export function promptFor(task: TaskId, values: PromptValues, override?: string): Prompt | undefined {
  const base = DEFAULTS[task];
  if (!base) return undefined;
  return { system: base.system, user: fillTemplate(override ?? base.user, values) };
}

/** Tasks with a model prompt today. */
export function modelTasks(): TaskId[] {
  return Object.keys(DEFAULTS) as TaskId[];
}
