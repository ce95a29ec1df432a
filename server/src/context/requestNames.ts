// The names a request's text gives (`Ledger.balance`, "the balance method") and the identifiers of some code.
import { MAX_REQUEST_NAMES } from './contextLimits.js';

/** A name the user wrote, with its container when qualified. */
export interface RequestName {
  simple: string;
  /** `Ledger` in `Ledger.balance`. */
  container?: string;
}

const KIND_NOUNS = new Set(['class', 'classes', 'method', 'methods', 'function', 'functions', 'interface', 'type', 'field', 'property', 'variable', 'constant', 'const', 'enum', 'getter', 'setter', 'member', 'constructor', 'helper', 'module']);
const FILLER = new Set(['the', 'a', 'an', 's', 'its', 'our', 'my', 'this', 'that', 'new', 'existing']);
/** English that sits next to kind nouns ("and the helper", "how the method") without naming anything. */
const PROSE = new Set(
  'a an and or but nor not no the this that these those it its to of in on for with from by as at is are was be do does how what why where when which who whom whose all any each every some same other use uses using add make new existing called named into than then also just only'.split(' '),
);

/**
 * Identifiers the user names, in the order written. Code-shaped words count (`Ledger`, `formatAmount`,
 * `Ledger.balance`, anything in backticks); a plain lowercase word counts only before a kind noun ("the balance
 * method"), after one with "called"/"named" ("a function named parse"), or before a call's parentheses, since
 * "add", "use" or "total" are English first. A capitalised word opening a sentence ("Document the…") is English
 * too. Names nothing in the workspace declares are dropped when resolving.
 */
export function namesInRequest(text: string): RequestName[] {
  const found: (RequestName & { at: number })[] = [];
  const add = (word: string, at: number): void => {
    const parts = word.split(/\.|#|::/).filter(Boolean);
    const simple = parts[parts.length - 1];
    if (!simple || simple.length < 2) return;
    const container = parts.length > 1 ? parts[parts.length - 2] : undefined;
    if (found.some((n) => n.simple === simple && n.container === container)) return;
    found.push(container ? { simple, container, at } : { simple, at });
  };
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    for (const word of (match[1] as string).matchAll(/[A-Za-z_$][\w$]*(?:(?:\.|#|::)[A-Za-z_$][\w$]*)*/g)) add(word[0], match.index + word.index);
  }
  // Code spans are blanked, not removed, so positions stay those of `text`.
  const prose = text.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const words = [...prose.matchAll(/[A-Za-z_$][\w$]*(?:(?:\.|#|::)[A-Za-z_$][\w$]*)*/g)];
  const plain = (i: number): string => (words[i]?.[0] ?? '').toLowerCase();
  words.forEach((match, i) => {
    const word = match[0];
    const at = match.index;
    const before = prose.slice(0, at);
    const sentenceStart = /(^|[.!?:;]\s+|\n\s*)$/.test(before);
    const after = prose.slice(at + word.length);
    const called = /^\s*\(/.test(after);
    if (/[.#]|::/.test(word) || /[a-z][A-Z]/.test(word) || /[_$\d]/.test(word) || called) return add(word, at);
    if (/^[A-Z]/.test(word)) {
      if (!sentenceStart || /[A-Z]/.test(word.slice(1))) add(word, at);
      return;
    }
    // A lowercase word names something right before a kind noun ("the balance method") or after one with "called"
    // or "named"; right after one it is usually a verb ("the method returns").
    if (PROSE.has(word)) return;
    let next = i + 1;
    while (FILLER.has(plain(next))) next++;
    const named = plain(i - 1) === 'called' || plain(i - 1) === 'named';
    if (KIND_NOUNS.has(plain(next)) || (named && KIND_NOUNS.has(plain(i - 2)))) add(word, at);
  });
  return found
    .filter((n) => !KIND_NOUNS.has(n.simple.toLowerCase()))
    .sort((a, b) => a.at - b.at)
    .slice(0, MAX_REQUEST_NAMES)
    .map(({ at: _at, ...name }) => name);
}

const KEYWORDS = new Set(
  'abstract any as async await boolean break case catch class const constructor continue debugger declare default delete do else enum export extends false finally for from function get if implements import in instanceof interface keyof let module namespace never new null number object of package private protected public readonly return satisfies set static string super switch symbol this throw true try type typeof undefined unknown var void while with yield'.split(' '),
);

/** Identifiers written in some code (keywords aside), for matching names across documents. */
export function identifiersOf(code: string): Set<string> {
  const out = new Set<string>();
  for (const match of code.matchAll(/[A-Za-z_$][\w$]*/g)) if (!KEYWORDS.has(match[0]) && match[0].length > 1) out.add(match[0]);
  return out;
}
