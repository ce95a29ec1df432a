// Unit tests for the one-line plain-text label of an answer: prose first, markdown and comment marks off, never a fence.
import { describe, expect, it } from 'vitest';
import { answerSummary } from '../../server/src/tasks/answerSummary.js';

describe('answerSummary', () => {
  it('takes the first line of prose, without markdown', () => {
    expect(answerSummary('**function `slugify`** in `src/util.ts`\n\nTurns text into a slug.')).toBe('function slugify in src/util.ts');
    expect(answerSummary('## Where the retry logic lives\n1. `src/retry.ts:3` — function withRetry')).toBe('Where the retry logic lives');
    expect(answerSummary('*emphasis* text, __bold__ and [a link](http://example.com) ok')).toBe('emphasis text, bold and a link ok');
    expect(answerSummary('- a bullet with `code`')).toBe('a bullet with code');
  });

  it('never takes a fence line: prose after the code first, else what the fence holds', () => {
    expect(answerSummary('```ts\nexport function slugify() {}\n```\nThis version handles unicode.')).toBe('This version handles unicode.');
    expect(answerSummary('```ts\n/**\n * Slugifies the text.\n */\nexport function slugify() {}\n```')).toBe('Slugifies the text.');
    expect(answerSummary('```\n```')).toBe('');
  });

  it('takes a doc comment\'s first sentence, not its `/**`', () => {
    expect(answerSummary('/**\n * Parses the config.\n * @param text - The text.\n */')).toBe('Parses the config.');
    expect(answerSummary('/** Loads it once. */')).toBe('Loads it once.');
  });

  it('cuts a long line at a word, with an ellipsis', () => {
    const line = answerSummary(`${'word '.repeat(30)}end`, 40);
    expect(line.length).toBeLessThanOrEqual(40);
    expect(line).toMatch(/^(word )+word…$/);
  });
});
