// A chosen text answer shown whole through the editor, with the places it names, and recorded as shown.
import path from 'node:path';
import type { AnswerLocation, ApplyResult, ShowAnswerParams, TaskId } from '../protocol.js';
import type { EditorPort } from '../editorPort.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import { writeAssistantFile } from '../workspace/assistantFiles.js';
import { recordOutcome } from './applyResponse.js';
import type { Candidate, TaskEnvironment } from './runTask.js';

/** The heading of an answer: the question itself, or what the task did on what. */
export function answerTitle(task: TaskId, targetName: string, question?: string): string {
  if (question) return `Question: ${question}`;
  return `${task.charAt(0).toUpperCase()}${task.slice(1)} ${targetName}`;
}

/** `src/retry.ts:27`: the workspace-relative path (the URI for other documents) and the 1-based line. */
export function locationReference(location: AnswerLocation, root: string): string {
  const fsPath = uriToPath(location.uri);
  const relative = fsPath ? path.relative(root, fsPath) : '';
  const shown = !fsPath ? location.uri : relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : fsPath;
  return `${shown}:${location.range.start.line + 1}`;
}

/** The places the text does not already name as `path:line`, one line each: `src/main.ts:5 — used by countKeys`. */
function placeLines(answer: ShowAnswerParams, root: string): string[] {
  return answer.locations.map((l) => ({ ref: locationReference(l, root), label: l.label })).filter(({ ref }) => !answer.text.includes(ref)).map(({ ref, label }) => `${ref} — ${label}`);
}

/** The answer as one plain message: nothing cut, the places as `path:line` lines an editor can follow. */
export function answerMessage(answer: ShowAnswerParams, root: string): string {
  const places = placeLines(answer, root);
  return [answer.title, '', answer.text, ...(places.length ? ['', 'Places:', ...places] : [])].join('\n');
}

/** The answer as a markdown document: the title as its heading, the text, then the places. */
export function answerMarkdown(answer: ShowAnswerParams, root: string): string {
  const places = placeLines(answer, root);
  return [`# ${answer.title}`, '', answer.text, ...(places.length ? ['', '## Places', '', ...places.map((p) => `- ${p}`)] : []), ''].join('\n');
}

/**
 * Shows the chosen text answer through the editor (its own rendering, a document or a message: the editor's side
 * chooses) and records it as shown.
 */
export async function presentAnswer(env: TaskEnvironment, port: EditorPort, interactionId: string, task: TaskId, title: string, candidate: Candidate): Promise<ApplyResult> {
  const answer: ShowAnswerParams = { interactionId, responseId: candidate.response.id, task, title, text: candidate.response.text, locations: candidate.locations ?? [] };
  const shown = await port.showAnswer(answer, {
    message: answerMessage(answer, env.root),
    document: () => writeAssistantFile(env.root, 'answers', `${interactionId}.md`, answerMarkdown(answer, env.root)),
  });
  const result: ApplyResult = { applied: false, outcome: 'shown', ...(shown.via === 'document' ? { message: `Opened ${shown.path}.` } : shown.via === 'message' && shown.path ? { message: `Also written to ${shown.path}.` } : {}) };
  await recordOutcome(env, interactionId, candidate.response.id, result);
  return result;
}
