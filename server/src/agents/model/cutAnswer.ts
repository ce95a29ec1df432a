// What a prose answer (an explanation, a question's answer) keeps when the model's token limit cut it off.
import type { Completion } from '../modelClient.js';
import { ModelError } from '../modelClient.js';

/** What the user reads at the end of an answer the model's token limit cut off. */
export const CUT_OFF_NOTE = '… (the answer was cut off at the model’s token limit)';

const FENCE = /^\s*(`{3,}|~{3,})/;
/** A prose line shorter than this may well repeat (a heading, "Returns:") without the model going round in circles. */
const REPEATED_LINE_CHARS = 20;

/**
 * What can be kept of an answer cut off at the model's token limit: its whole lines (the last one stopped midway), up
 * to the first prose line it says a second time (numbers aside: "Case 5: …" after "Case 4: …" with the same words),
 * where a small model has started going round in circles; a code fence it opened closed again, and a note that it
 * was cut. Nothing when no whole line is left.
 */
export function keptOfCutAnswer(partial: string): string | undefined {
  const lines = partial.split('\n').slice(0, -1);
  const seen = new Set<string>();
  let inFence = false;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence || FENCE.test(line)) continue;
    const key = line.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
    if (key.length < REPEATED_LINE_CHARS) continue;
    if (seen.has(key)) {
      end = i;
      break;
    }
    seen.add(key);
  }
  const whole = lines.slice(0, end).join('\n').trimEnd();
  if (!whole) return undefined;
  const fences = whole.split('\n').filter((line) => FENCE.test(line));
  const open = fences.length % 2 === 1 ? (FENCE.exec(fences.at(-1) as string)?.[1] as string) : undefined;
  return `${whole}${open ? `\n${open}` : ''}\n\n${CUT_OFF_NOTE}`;
}

/**
 * The model's answer, or what `keptOfCutAnswer` keeps of one its token limit cut off; any other failure, or a cut
 * answer with nothing to keep, is thrown as it came.
 */
export async function answerOrWhatWasWritten(answer: Promise<Completion>): Promise<string> {
  try {
    return (await answer).text;
  } catch (error) {
    const partial = error instanceof ModelError && error.facts.cause === 'token-limit' ? error.facts.partialText : undefined;
    const kept = partial ? keptOfCutAnswer(partial) : undefined;
    if (kept === undefined) throw error;
    return kept;
  }
}
