// Where a name occurs as a whole word in a text, found with the string search rather than a pattern with a lookbehind.

/** Whether a UTF-16 code unit joins a word for this search: an ASCII letter or digit, `_` or `$`. */
function joinsWord(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
}

/**
 * The first offset at or after `from` where `word` (not empty) occurs with no ASCII letter, digit, `_` or `$` right
 * before or after it; -1 when there is none. What `(?<![\w$])word(?![\w$])` matches, `word` read literally; to walk
 * every occurrence, as that pattern's `g` flag would, call again from the end of the last one.
 */
export function nextWordAt(text: string, word: string, from = 0): number {
  // An empty word would be found at every offset, and `indexOf` would stop moving at the text's end.
  if (word === '') return -1;
  for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || !joinsWord(text.charCodeAt(at - 1))) && (end >= text.length || !joinsWord(text.charCodeAt(end)))) return at;
  }
  return -1;
}
