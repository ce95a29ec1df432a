// Text answers as the extension shows them: the markdown document, the title of an asked answer, and the places as quick-pick items.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnswerLocation, AskResponse, AskResult, TaskOrNone } from './protocol.js';

/** What the extension shows for one text answer, from `assistant/showAnswer` or from an `assistant/ask` response. */
export interface TextAnswer {
  title: string;
  /** Markdown, shown whole. */
  text: string;
  locations: AnswerLocation[];
}

/** One place of an answer in the quick pick: what is there, and where (`src/retry.ts:26`). */
export interface PlaceItem {
  label: string;
  description: string;
  location: AnswerLocation;
}

/** The heading of the answer to a typed request: a question's own words, else the task and the request. */
export function askTitle(task: TaskOrNone, request: string): string {
  if (task === 'question') return `Question: ${request}`;
  return `${task.charAt(0).toUpperCase()}${task.slice(1)}: ${request}`;
}

/** The answer of one `assistant/ask` response, as the notification would carry it. */
export function askedAnswer(result: AskResult, response: AskResponse, request: string): TextAnswer {
  return { title: askTitle(result.task, request.trim()), text: response.text, locations: response.locations ?? [] };
}

/** The document the answer opens as: its title as the heading, then the whole text. */
export function answerDocument(answer: TextAnswer): string {
  return `# ${answer.title}\n\n${answer.text}\n`;
}

/** A file name for the answer's tab: its title without the characters file names cannot hold, kept short. */
export function answerFileName(title: string): string {
  const name = title.replace(/[\\/:*?"<>|#%\s]+/g, ' ').trim().slice(0, 80).trim();
  return `${name || 'answer'}.md`;
}

/** `src/retry.ts:26`: relative to the workspace folder when inside it, else the whole path (or the URI). */
export function placeReference(location: AnswerLocation, workspaceFolder: string | undefined): string {
  let shown = location.uri;
  if (location.uri.startsWith('file:')) {
    const file = fileURLToPath(location.uri);
    const relative = workspaceFolder ? path.relative(workspaceFolder, file) : '';
    shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
  }
  return `${shown}:${location.range.start.line + 1}`;
}

/** The quick-pick items of an answer's places, best first. */
export function placeItems(locations: readonly AnswerLocation[], workspaceFolder: string | undefined): PlaceItem[] {
  return locations.map((location) => ({ label: location.label, description: placeReference(location, workspaceFolder), location }));
}
