// nextWordAt finds a name as a whole word exactly where the lookbehind pattern the reference searches used to take finds it.
import { describe, expect, it } from 'vitest';
import { nextWordAt } from '../../server/src/context/wordSearch.js';
import { prng } from '../support/rawLsp.js';

/** Every occurrence by the pattern, the `g` flag walking on from each match's end. */
function byPattern(text: string, word: string): number[] {
  const pattern = new RegExp(`(?<![\\w$])${word.replace(/[$]/g, '\\$')}(?![\\w$])`, 'g');
  return [...text.matchAll(pattern)].map((match) => match.index);
}

function byWordSearch(text: string, word: string): number[] {
  const found: number[] = [];
  for (let at = nextWordAt(text, word); at >= 0; at = nextWordAt(text, word, at + word.length)) found.push(at);
  return found;
}

describe('nextWordAt', () => {
  it('finds what the pattern finds, on texts made of the characters that decide a word', () => {
    const random = prng(8);
    // Parts of words, the characters that join one ($, _, digits), ones that do not (a non-ASCII letter among them).
    const pieces = ['ab', 'a', 'b', 'ba', '$', '_', '1', ' ', '.', '(', '\n', 'é', '#', 'ab$', '$ab'];
    const words = ['ab', 'a', 'ba', 'ab$', '$ab', '_a', 'a1', '#ab', 'aba', 'é'];
    let matched = 0;
    let inside = 0;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: random.int(14) }, () => random.pick(pieces)).join('');
      const word = random.pick(words);
      const expected = byPattern(text, word);
      expect(byWordSearch(text, word), `${JSON.stringify(word)} in ${JSON.stringify(text)}`).toEqual(expected);
      if (expected.length > 0) matched += 1;
      else if (text.includes(word)) inside += 1;
    }
    // The texts are varied enough that many have matches, and many have the word only inside longer words.
    expect(matched).toBeGreaterThan(150);
    expect(inside).toBeGreaterThan(150);
  });

  it('skips the name inside longer identifiers, and overlapping copies of it', () => {
    expect(byWordSearch('total subtotal total_ $total totals total', 'total')).toEqual([0, 36]);
    expect(byWordSearch('aaa aa', 'aa')).toEqual([4]);
    expect(nextWordAt('x.run(run2, run)', 'run')).toBe(2);
    expect(nextWordAt('x.run(run2, run)', 'run', 3)).toBe(12);
    expect(nextWordAt('nothing here', 'run')).toBe(-1);
    // An empty name is never found (rather than at every offset, with no way to move past the text's end).
    expect(nextWordAt('a b', '')).toBe(-1);
  });
});
