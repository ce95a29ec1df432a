// Tokenisation for the lexical index: identifiers split by case, stop words, synonyms, a light stemmer; the same for code and queries.

/** Words that carry no meaning in prose or questions. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor not no so to of for in on at by from into onto with without within about over under ' +
    'is are was were be been being am do does did done doing have has had having can could would should will shall may might must ' +
    'i me my we us our you your he him his she her it its they them their this that these those there here ' +
    'what which who whom whose whether where when why how all any each every some such own same other than then too very just also ' +
    'if else while as up out off again once only more most much many few both either neither s t e g eg ie etc'
  ).split(' '),
);

/** Question wording that names no code: "where is X implemented", "which function handles Y". */
const QUERY_NOISE: ReadonlySet<string> = new Set(
  (
    'implemented implement implements implementation defined define defines definition declared declare located locate ' +
    'find logic code codebase project repository repo workspace file files function functions method methods ' +
    'happen happens happening work works working place places part parts thing things somewhere anywhere please show tell ' +
    'explain look see know want need like use used using uses ' +
    // Light verbs say what the user does, not what the code does: "make a field optional" is about optional fields.
    'make makes making made get gets getting got gotten ' +
    // Counting words: "combine two schemas into one" asks about combining, not about the words `one` and `two`.
    'one two three four five six seven eight nine ten'
  ).split(' '),
);

/** Words that are syntax in code, dropped when they stand alone (their use in identifiers, like `getUser`, stays). */
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function ' +
    'if import in instanceof new null return super switch this throw true try typeof var void while with as implements ' +
    'interface let package private protected public static yield async await of type readonly declare abstract any ' +
    'boolean number string symbol unknown never undefined object from get set keyof infer is namespace module require ' +
    'override satisfies accessor bigint unique asserts'
  ).split(' '),
);

/**
 * Abbreviations and variants folded onto one word: code says `cfg`, `req`, `init`; questions say
 * "configuration", "request", "initialise". A stemmer alone cannot join those.
 */
const SYNONYM_GROUPS: Record<string, readonly string[]> = {
  config: ['config', 'configs', 'configuration', 'configurations', 'configure', 'configured', 'configures', 'configuring', 'cfg', 'conf', 'settings', 'setting'],
  auth: ['auth', 'authn', 'authz', 'authentication', 'authenticate', 'authenticated', 'authorization', 'authorisation', 'authorize', 'authorise', 'authorized'],
  init: ['init', 'initialize', 'initialise', 'initialized', 'initialised', 'initialization', 'initialisation', 'initializes'],
  env: ['env', 'environment', 'environments'],
  db: ['db', 'database', 'databases'],
  error: ['error', 'errors', 'err', 'errs'],
  message: ['message', 'messages', 'msg', 'msgs'],
  request: ['request', 'requests', 'req', 'reqs'],
  response: ['response', 'responses', 'res', 'resp'],
  arg: ['arg', 'args', 'argument', 'arguments', 'argv'],
  param: ['param', 'params', 'parameter', 'parameters'],
  dir: ['dir', 'dirs', 'directory', 'directories', 'folder', 'folders'],
  util: ['util', 'utils', 'utility', 'utilities', 'helper', 'helpers'],
  ms: ['ms', 'millisecond', 'milliseconds', 'millis'],
  max: ['max', 'maximum', 'maximal'],
  min: ['min', 'minimum', 'minimal'],
  app: ['app', 'apps', 'application', 'applications'],
  fn: ['fn', 'func', 'callback', 'callbacks', 'cb'],
  attempt: ['attempt', 'attempts', 'attempted', 'tries', 'try'],
  gc: ['gc', 'garbage'],
};

const SYNONYMS: ReadonlyMap<string, string> = new Map(Object.entries(SYNONYM_GROUPS).flatMap(([canonical, words]) => words.map((w) => [w, canonical] as const)));

/** Splits an identifier into its lower-case words: `parseHTTPConfig_v2` → parse, http, config, v, 2. */
export function splitIdentifier(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[\s_$]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

/** A light suffix stripper: enough to join retry/retries/retrying and load/loader/loading, cheap, and the same both ways. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ied') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // A noun in -ation or -ization keeps the stem of its verb: validation and validated are both `validat`, normalization
  // and normalize both `normaliz`; so does an agent noun in -ator (validator).
  if (w.length >= 8) {
    // A noun in -ification is its verb in -ify: notification and notify, modification and modify.
    if (w.endsWith('ification')) return `${w.slice(0, -9)}ify`;
    if (w.endsWith('ization')) return w.slice(0, -5);
    if (w.endsWith('ation')) return w.slice(0, -3);
    if (w.endsWith('ator')) return w.slice(0, -2);
  }
  // An adjective in -ive keeps the stem of its noun in -ion: recursive and recursion are both `recurs`.
  for (const suffix of ['ing', 'ion', 'ive', 'ed', 'er', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= (suffix === 'ion' || suffix === 'ive' ? 4 : 3)) {
      w = w.slice(0, -suffix.length);
      // mapping → mapp → map, logged → logg → log
      if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  // An adjective in -ical, or its adverb in -ically, keeps the stem of the one in -ic: automatically and automatic
  // are both `automatic`, logical and logic both `logic`.
  if (w.length >= 6 && w.endsWith('ical')) return w.slice(0, -2);
  if (w.length >= 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function normalise(part: string): string | undefined {
  if (part.length < 2 || STOP_WORDS.has(part) || /^[0-9]+$/.test(part)) return undefined;
  return SYNONYMS.get(part) ?? stem(part);
}

const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * The terms of a text: every word split by case and underscores, normalised, plus the whole identifier as one
 * term when it has several parts, so an exact `parseConfig` beats a `parse` here and a `config` there.
 */
export function terms(text: string, mode: 'code' | 'query' = 'code'): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (mode === 'code' && KEYWORDS.has(word)) continue;
    if (mode === 'query') {
      const lower = word.toLowerCase();
      if (QUERY_NOISE.has(lower) || STOP_WORDS.has(lower)) continue;
    }
    for (const term of wordTerms(word)) out.push(term);
  }
  return out;
}

/** Identifiers repeat all over a code base: each word is split and normalised once (the memo is bounded). */
const wordMemo = new Map<string, readonly string[]>();
const WORD_MEMO_SIZE = 50_000;

function wordTerms(word: string): readonly string[] {
  let cached = wordMemo.get(word);
  if (cached) return cached;
  const parts = splitIdentifier(word);
  const out: string[] = [];
  for (const part of parts) {
    const term = normalise(part);
    if (term) out.push(term);
  }
  if (parts.length > 1) out.push(parts.join(''));
  cached = out;
  if (wordMemo.size >= WORD_MEMO_SIZE) wordMemo.clear();
  wordMemo.set(word, cached);
  return cached;
}

/**
 * Identifiers a question spells as separate words: "to JSON Schema" is `toJSONSchema`, "global registry" is
 * `globalRegistry`. Runs of two or three adjacent words, joined and lower-cased as the index keeps whole identifiers
 * (see `terms`), each also with its last word's plural `s` dropped ("field errors" for `fieldError`). Stop words
 * count in a run, since identifiers hold them (`toJSONSchema`, `isStaleByTime`).
 */
export function queryCompounds(text: string): string[] {
  const out = new Set<string>();
  // Words separated by spaces or hyphens only: punctuation ends a run.
  for (const run of text.split(/[^A-Za-z0-9_$\s-]+/)) {
    const words = run.split(/[\s-]+/).filter((word) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(word));
    for (let i = 0; i < words.length; i++) {
      // A leading function word joins an identifier with two words after it (`toJSONSchema`), not one ("is email").
      const leading = STOP_WORDS.has((words[i] as string).toLowerCase());
      for (let size = leading ? 3 : 2; size <= 3 && i + size <= words.length; size++) {
        const joined = words.slice(i, i + size).join('').toLowerCase();
        out.add(joined);
        if (/[^s]s$/.test(joined)) out.add(joined.slice(0, -1));
      }
    }
  }
  return [...out];
}

/**
 * Words a question writes as code: a call (`and()`, `.partial()`), a member (`z.and`, `.refine`) or a word in
 * backticks. Such a word names a declaration even when it is a word prose drops (`and`, `get`, `then`).
 */
export function codeWrittenWords(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/`([A-Za-z_$][\w$]*)`|\.([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\(/g)) {
    const word = match[1] ?? match[2] ?? match[3];
    // A member needs a name before its dot or a space (`z.and`, "after .partial()"), and more than a letter ("e.g.").
    if (match[2] !== undefined && match.index > 0 && !/[\w$)\s]/.test(text[match.index - 1] as string)) continue;
    if (word !== undefined && word.length > 1) out.add(word);
  }
  return [...out];
}

/**
 * A question's word the code writes as two (`lowercase` for `toLowerCase`, `whitespace` for `whiteSpace`): each way to
 * cut it in two words of at least four letters that `known` accepts, as terms (shorter halves are mostly noise:
 * `current` is not `curr` and `ent`).
 */
export function wordHalves(word: string, known: (term: string) => boolean): string[][] {
  const out: string[][] = [];
  const lower = word.toLowerCase();
  for (let cut = 4; cut <= lower.length - 4; cut++) {
    const halves = [lower.slice(0, cut), lower.slice(cut)].map(normalise);
    if (halves.every((half): half is string => half !== undefined && known(half))) out.push(halves as string[]);
  }
  return out;
}

/**
 * Edits between two words, a swap of neighbouring letters counting as one ("explian"; optimal string alignment),
 * giving up above `max` (then `max + 1`).
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous2 = previous;
    previous = row;
  }
  return previous[b.length] ?? max + 1;
}
