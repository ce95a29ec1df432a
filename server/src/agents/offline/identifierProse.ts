// Turns identifiers into English: word lists, splitting, inflection and articles.

const ACRONYMS = new Map<string, string>(
  Object.entries({
    id: 'ID', ids: 'IDs', url: 'URL', urls: 'URLs', uri: 'URI', uris: 'URIs', json: 'JSON', html: 'HTML', http: 'HTTP', https: 'HTTPS',
    api: 'API', apis: 'APIs', css: 'CSS', xml: 'XML', sql: 'SQL', ui: 'UI', io: 'I/O', utf8: 'UTF-8', csv: 'CSV', jwt: 'JWT', uuid: 'UUID',
    ast: 'AST', dom: 'DOM', ip: 'IP', tcp: 'TCP', udp: 'UDP', ssh: 'SSH', tls: 'TLS', ssl: 'SSL', os: 'OS', cpu: 'CPU', lsp: 'LSP',
    jsdoc: 'JSDoc', yaml: 'YAML', pdf: 'PDF', svg: 'SVG', png: 'PNG', dto: 'DTO', sha: 'SHA', md5: 'MD5', ttl: 'TTL', tz: 'time zone',
  }),
);

const ABBREVIATIONS = new Map<string, string>(
  Object.entries({
    opts: 'options', opt: 'option', cfg: 'configuration', conf: 'configuration', ctx: 'context', msg: 'message', msgs: 'messages', err: 'error',
    errs: 'errors', req: 'request', res: 'response', resp: 'response', cb: 'callback', fn: 'function', func: 'function', str: 'string',
    num: 'number', idx: 'index', len: 'length', dir: 'directory', dirs: 'directories', src: 'source', dest: 'destination', dst: 'destination',
    env: 'environment', val: 'value', vals: 'values', obj: 'object', arr: 'array', elem: 'element', el: 'element', evt: 'event',
    args: 'arguments', arg: 'argument', params: 'parameters', param: 'parameter', prev: 'previous', cur: 'current', curr: 'current',
    tmp: 'temporary', temp: 'temporary', btn: 'button', pos: 'position', info: 'information', attr: 'attribute', attrs: 'attributes',
    doc: 'document', docs: 'documents', pkg: 'package', ref: 'reference', refs: 'references', col: 'column', cols: 'columns', lib: 'library',
    impl: 'implementation', util: 'utility', utils: 'utilities', auth: 'authentication', repo: 'repository', repos: 'repositories',
    argv: 'command-line arguments', db: 'database', max: 'maximum', min: 'minimum', avg: 'average', desc: 'description', addr: 'address', ts: 'timestamp', seq: 'sequence',
  }),
);

const VERBS = new Set(
  `add append apply assert assign attach await bind build cache calculate calc call cancel capture check clamp clean clear clone close collect
  combine commit compare compile complete compose compress compute concat configure confirm connect construct consume convert copy count create
  debounce decode decorate decrement decrypt define delete deserialize destroy detach detect diff disable disconnect dispatch dispose download
  drain draw drop dump emit enable encode encrypt enqueue dequeue ensure enter escape evaluate eval execute exec exit expand expect export extend extract
  fail fetch fill filter find finish flatten flush fold follow force format generate gen get group guard handle hash hide hydrate import
  include increment infer init initialize inject insert install interpolate invalidate invoke iterate join keep kill launch list listen load
  lock log lookup make map mark match measure merge migrate mount move navigate new normalize notify observe omit open pack pad parse patch pause
  peek perform pick ping place play poll pop post prepare prepend preload print process produce prompt provide publish pull purge push put
  query queue quote read rebuild receive record reduce refresh register reject release reload remove rename render reorder repeat replace
  report request require reset resize resolve restart restore resume retrieve retry revert rewrite rotate round route run sanitize save scan schedule
  scroll search seed select send serialize set setup shift show shuffle shutdown skip slice sort spawn split start stop store strip submit
  subscribe subtract sum swap sync take teardown test throttle toggle tokenize touch trace track transform translate traverse trigger trim
  truncate try unlock unmount unpack unregister unsubscribe unwrap update upload upsert use validate verify visit wait walk warn watch wrap
  write zip accept allow deny listen serve mock stub spy measure sign upgrade downgrade raise
  overwrite override recurse preserve ignore exclude reuse retain abort block dedupe minify bundle inline scale multiply divide negate
  invert reverse stream partition chunk paginate unescape sample delay sleep broadcast authenticate authorize decompress login logout`
    .split(/\s+/)
    .filter(Boolean),
);

const THIRD_PERSON = new Map<string, string>(
  Object.entries({
    be: 'is', have: 'has', do: 'does', go: 'goes', init: 'initializes', setup: 'sets up', teardown: 'tears down', calc: 'calculates',
    exec: 'executes', gen: 'generates', eval: 'evaluates', shutdown: 'shuts down', lookup: 'looks up', new: 'creates', login: 'logs in', logout: 'logs out',
  }),
);

const PAST_PARTICIPLES = new Map<string, string>(
  Object.entries({
    build: 'built', make: 'made', find: 'found', read: 'read', write: 'written', send: 'sent', take: 'taken', run: 'run', split: 'split',
    set: 'set', put: 'put', hide: 'hidden', bind: 'bound', draw: 'drawn', keep: 'kept', stop: 'stopped', map: 'mapped', wrap: 'wrapped',
    drop: 'dropped', strip: 'stripped', trim: 'trimmed', scan: 'scanned', sum: 'summed', submit: 'submitted', emit: 'emitted',
    commit: 'committed', omit: 'omitted', swap: 'swapped', zip: 'zipped', init: 'initialized', calc: 'calculated', gen: 'generated',
    exec: 'executed', eval: 'evaluated', get: 'retrieved', login: 'logged in', logout: 'logged out', pad: 'padded', plan: 'planned', shut: 'shut', seek: 'sought', spin: 'spun',
  }),
);

export const PREPOSITIONS = new Set(['by', 'from', 'for', 'with', 'to', 'in', 'into', 'on', 'at', 'of', 'as', 'via', 'within', 'without', 'after', 'before', 'over', 'under', 'between', 'per', 'onto', 'until', 'if', 'or', 'and']);

export const ADJECTIVES = new Set(
  `empty valid invalid ready busy idle open closed new old same equal done safe stale full blank visible hidden enabled disabled active inactive
  alive dead locked expired up down online offline sync async pure null undefined defined true false local remote private public absolute
  present absent current different pending prime odd even positive negative finite infinite due overdue dirty clean readonly ok free
  required optional unique sorted connected running stopped paused cancelled canceled complete incomplete supported initialized`
    .split(/\s+/)
    .filter(Boolean),
);

const NOUNS_THAT_LOOK_ADJECTIVAL = new Set(['string', 'thing', 'token', 'signal', 'channel', 'terminal', 'interval', 'total', 'portal', 'modal', 'proposal', 'ring', 'king', 'children', 'often']);

/** The words of an identifier: `getUserById` → `get User By Id`, `MAX_RETRIES` → `MAX RETRIES`. */
export function splitIdentifier(name: string): string[] {
  const cleaned = name.replace(/^[#_$]+|[_$]+$/g, '');
  const shouting = !/[a-z]/.test(cleaned);
  const words = cleaned
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(/[\s_$-]+/)
    .filter(Boolean);
  return shouting ? words.map((word) => word.toLowerCase()) : words;
}

/** One identifier word as it is written in prose. */
function proseWord(word: string): string {
  const lower = word.toLowerCase();
  const acronym = ACRONYMS.get(lower);
  if (acronym) return acronym;
  const expanded = ABBREVIATIONS.get(lower);
  if (expanded) return expanded;
  if (word.length > 1 && word === word.toUpperCase() && /[A-Z]/.test(word)) return word;
  return lower;
}

export function phrase(words: readonly string[]): string {
  return words.map(proseWord).join(' ');
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function sentence(text: string): string {
  const trimmed = text.trim();
  return capitalize(/[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`);
}

export function thirdPerson(verb: string): string {
  const irregular = THIRD_PERSON.get(verb);
  if (irregular) return irregular;
  if (/(s|x|z|ch|sh|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

export function pastParticiple(verb: string): string {
  const irregular = PAST_PARTICIPLES.get(verb);
  if (irregular) return irregular;
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  return `${verb}ed`;
}

const LOOKS_LIKE_VERB_BUT_IS_NOT = new Set(['precise', 'concise', 'expertise', 'promise', 'premise', 'otherwise', 'enterprise']);

export function isVerb(word: string): boolean {
  const lower = word.toLowerCase();
  return VERBS.has(lower) || (lower.length >= 6 && /(ize|ise|ify)$/.test(lower) && !LOOKS_LIKE_VERB_BUT_IS_NOT.has(lower));
}

export function singularize(text: string): string {
  const words = text.split(' ');
  const last = words.pop() ?? '';
  let singular: string;
  if (!isPluralWord(last)) singular = last;
  else if (/ies$/.test(last)) singular = `${last.slice(0, -3)}y`;
  else if (/(s|x|z|ch|sh)es$/.test(last)) singular = last.slice(0, -2);
  else singular = last.slice(0, -1);
  return [...words, singular].join(' ');
}

export const QUANTIFIERS = new Set(['all', 'each', 'every', 'any', 'some', 'many', 'multiple', 'both', 'several']);

/** Names like `first` or `max` that pick one element of a collection. */
export const SELECTOR_WORDS = new Set(['first', 'last', 'next', 'previous', 'prev', 'min', 'max', 'minimum', 'maximum', 'head', 'tail', 'latest', 'oldest', 'newest']);

export function isPluralWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (['data', 'children', 'people', 'metadata', 'options', 'settings', 'arguments', 'parameters', 'credentials', 'headers'].includes(lower)) return true;
  return /[^s]s$/.test(lower) && !/(us|is|ss)$/.test(lower) && lower.length > 3;
}

export function pluralize(text: string): string {
  const words = text.split(' ');
  const last = words.pop() ?? '';
  if (isPluralWord(last) || last === '') return text;
  let plural: string;
  if (/^[A-Z0-9]+$/.test(last)) plural = `${last}s`;
  else if (/(s|x|z|ch|sh)$/.test(last)) plural = `${last}es`;
  else if (/[^aeiou]y$/.test(last)) plural = `${last.slice(0, -1)}ies`;
  else plural = `${last}s`;
  return [...words, plural].join(' ');
}

export function withArticle(text: string): string {
  if (!text) return text;
  const first = text.split(' ')[0] ?? '';
  if (isPluralWord(first) || isPluralWord(text.split(' ').pop() ?? '')) return text;
  const upper = /^[A-Z0-9/-]{2,}$/.test(first);
  const an = upper ? /^[AEFHILMNORSX8]/.test(first) : /^(?:[aeio]|u(?!ni|se|su|sa|ti|ra|re)|hour|honest)/i.test(first) && !/^one/i.test(first);
  return `${an ? 'an' : 'a'} ${text}`;
}

/** `is {complement}`: `valid`, `a number`, `logged in`. */
export function predicateComplement(words: readonly string[]): string {
  const text = phrase(words);
  if (words.length === 0) return 'set';
  const last = (words[words.length - 1] ?? '').toLowerCase();
  const first = (words[0] ?? '').toLowerCase();
  const adjectival =
    ADJECTIVES.has(last) ||
    PREPOSITIONS.has(last) ||
    ['in', 'out', 'up', 'down', 'off'].includes(last) ||
    (ADJECTIVES.has(first) && words.length === 1) ||
    (/(ed|able|ible|ive|al|ful|less|ous|ic|ing|en|ory|ar)$/.test(last) && !NOUNS_THAT_LOOK_ADJECTIVAL.has(last));
  return adjectival || isPluralWord(last) ? text : withArticle(text);
}

/** The words before the first preposition, and the prepositional rest. */
export function splitAtPreposition(words: readonly string[]): { head: string[]; tail: string[] } {
  const index = words.findIndex((word) => PREPOSITIONS.has(word.toLowerCase()));
  return index < 0 ? { head: [...words], tail: [] } : { head: words.slice(0, index), tail: words.slice(index) };
}

export function lastWordsMatch(a: string, b: string): boolean {
  const singular = (text: string): string => (text.split(' ').pop() ?? '').toLowerCase().replace(/(ies)$/, 'y').replace(/s$/, '');
  return singular(a) !== '' && singular(a) === singular(b);
}

export function backticked(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}
