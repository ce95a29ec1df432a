// Prompt construction and reply parsing for classifying a request with a language model; the HTTP call lives elsewhere.
import type { TaskId, TaskOrNone } from '../protocol.js';

/**
 * The system message. Asking for the number alone keeps replies short and parseable; the parser still copes
 * with models that add words, markdown or the category's text.
 */
const SYSTEM_PROMPT = [
  'You are a coding assistant inside a code editor, helping software developers with programming tasks.',
  'Your only job here is to decide which kind of task a developer request asks for.',
  'You are given a numbered list of task categories and one request.',
  'Choose the single category that fits the request best. If the request is not a software development task',
  'the assistant can carry out on the code (for example small talk, weather, cooking or general knowledge),',
  'choose "None of the above".',
  'Reply with the number of the category only: no words, no punctuation, no explanation.',
].join(' ');

const DEFAULT_USER_TEMPLATE = [
  'Task categories:',
  '{{tasks}}',
  '',
  'Request:',
  '"""',
  '{{request}}',
  '"""',
  '',
  'Which category does the request belong to? Answer with its number only.',
].join('\n');

const NONE_LABEL = 'None of the above';

/** The numbered list the model chooses from: the tasks in the given order, then "None of the above". */
function numberedTasks(tasks: readonly { id: TaskId; description: string }[]): string {
  const lines = tasks.map((task, index) => `${index + 1}. ${task.description.trim()}`);
  lines.push(`${tasks.length + 1}. ${NONE_LABEL}`);
  return lines.join('\n');
}

/**
 * The messages asking a model to classify `text` among `tasks`. A `template` replaces the user message;
 * `{{request}}` and `{{tasks}}` in it are filled in (every occurrence), so teams can reword the question.
 */
export function buildClassificationPrompt(
  text: string,
  tasks: readonly { id: TaskId; description: string }[],
  template?: string,
): { system: string; user: string } {
  const list = numberedTasks(tasks);
  const request = text.trim();
  // A replacement function, because a replacement string would interpret "$&" or "$1" typed in the request.
  const user = (template ?? DEFAULT_USER_TEMPLATE).replace(/\{\{\s*(request|tasks)\s*\}\}/g, (_match, name: string) => (name === 'tasks' ? list : request));
  return { system: SYSTEM_PROMPT, user };
}

const NONE_PATTERN = /\bnone of (?:the above|these|them)\b|^\W*none\W*$|^\W*(?:no category|no task|not applicable|n\/a)\W*$/;

/** Words a description shares with a reply count only when they are content words. */
const FILLER: ReadonlySet<string> = new Set(['a', 'an', 'the', 'or', 'and', 'for', 'of', 'to', 'in', 'on', 'by', 'what', 'it', 'this', 'is', 'are', 'from', 'across']);

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((word) => !FILLER.has(word));
}

/**
 * Reads the model's reply. A number in range wins, since it is what the prompt asks for; otherwise the reply is
 * matched against "none of the above", the task descriptions and the task ids. Returns undefined when the
 * reply names nothing, so the caller can fall back to the offline classifier.
 */
export function parseClassification(reply: string, tasks: readonly { id: TaskId; description?: string }[]): TaskOrNone | undefined {
  const cleaned = reply.replace(/[*_`#>]/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
  if (cleaned.length === 0) return undefined;

  const number = /(?<![\w.])(\d{1,3})(?!\w)/.exec(cleaned)?.[1];
  if (number !== undefined) {
    const index = Number(number);
    if (index >= 1 && index <= tasks.length) return tasks[index - 1]?.id;
    if (index === tasks.length + 1) return 'none';
  }
  if (NONE_PATTERN.test(cleaned)) return 'none';

  const replyWords = new Set(contentWords(cleaned));
  let best: { id: TaskId; score: number } | undefined;
  let tie = false;
  for (const task of tasks) {
    let score = 0;
    const description = task.description?.trim().toLowerCase();
    if (description !== undefined && description.length > 0) {
      if (cleaned.includes(description)) score += 3;
      else {
        const words = contentWords(description);
        if (words.length > 0) score += words.filter((word) => replyWords.has(word)).length / words.length;
      }
    }
    // Ids may come back as "tests" or "Optimize:", so allow a plural and any surrounding punctuation.
    if (new RegExp(`\\b${task.id}s?\\b`).test(cleaned)) score += 1;
    if (best === undefined || score > best.score) {
      best = { id: task.id, score };
      tie = false;
    } else if (score === best.score) tie = true;
  }
  // Half a description, or the id itself, is the least that names a task; less is a coincidence of words.
  if (best === undefined || tie || best.score < 0.5) return undefined;
  return best.id;
}
