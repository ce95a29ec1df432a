// Offline intent classifier: maps a free-text request to a task by TF-IDF similarity with training phrases, or to `none`.
import { editDistance } from '../repo/lexical/terms.js';
import { TASK_IDS } from '../protocol.js';
import type { TaskId, TaskOrNone } from '../protocol.js';
import { INTENT_PHRASES, OUT_OF_SCOPE_PHRASES } from './intentPhrases.js';

/** Below this confidence the request is "none of the above", as an intent engine's fallback intent. */
export const DEFAULT_INTENT_THRESHOLD = 0.34;

/** The classifier's answer: the chosen task (or `none`), its confidence, and every task's score, best first. */
export interface IntentResult {
  task: TaskOrNone;
  /** How sure the best-scoring task is, 0..1; 0 when the request is not about software at all. */
  confidence: number;
  /** Every task's similarity with the request, best first, kept for the trace even when the task is `none`. */
  scores: { task: TaskId; score: number }[];
}

// ---------------------------------------------------------------------------------------------------------------
// Normalisation

/**
 * Variants folded onto one stem. A suffix stripper alone cannot join "docs" with "documentation" or "faster"
 * with "speed", and those are exactly the words that decide a task.
 */
const SYNONYM_GROUPS: Record<string, readonly string[]> = {
  doc: ['doc', 'docs', 'documentation', 'documentations', 'document', 'documents', 'documented', 'documenting', 'docstring', 'docstrings', 'jsdoc', 'tsdoc', 'javadoc', 'docblock', 'docblocks', 'doccomment'],
  comment: ['comment', 'comments', 'commented', 'commenting', 'annotate', 'annotated', 'annotation', 'annotations'],
  test: ['test', 'tests', 'tested', 'testing', 'unittest', 'unittests', 'spec', 'specs', 'vitest', 'jest', 'mocha', 'testcase', 'testcases'],
  optimiz: ['optimize', 'optimise', 'optimizes', 'optimises', 'optimized', 'optimised', 'optimizing', 'optimising', 'optimization', 'optimisation', 'optimizations', 'optimisations'],
  fast: ['fast', 'faster', 'fastest', 'quick', 'quicker', 'quickly', 'speed', 'speedier', 'speedup'],
  slow: ['slow', 'slower', 'slowly', 'sluggish', 'slowness'],
  perform: ['performance', 'performant', 'perf'],
  efficien: ['efficient', 'efficiently', 'efficiency', 'inefficient', 'inefficiency'],
  summar: ['summary', 'summarize', 'summarise', 'summarizes', 'summarises', 'summarized', 'summarised', 'summarizing', 'summarising'],
  duplicat: ['duplicate', 'duplicates', 'duplicated', 'duplication', 'deduplicate', 'deduplicated', 'dedupe', 'dedup', 'repeated', 'repetition'],
  reduc: ['reduce', 'reduces', 'reduced', 'reducing', 'reduction', 'less', 'fewer', 'lower', 'lowers', 'lowered', 'decrease', 'decreases', 'minimize', 'minimise', 'minimizes', 'minimises'],
  everywher: ['everywhere', 'throughout', 'across', 'globally'],
  readab: ['readable', 'readability', 'unreadable', 'legible'],
  simpl: ['simple', 'simpler', 'simplify', 'simplifies', 'simplified', 'simplification', 'concise', 'concisely'],
  explain: ['explain', 'explains', 'explained', 'explaining', 'explanation', 'explanations'],
  understand: ['understand', 'understands', 'understanding', 'understood'],
  implement: ['implement', 'implements', 'implemented', 'implementing', 'implementation', 'implementations'],
  subclass: ['subclass', 'subclasses', 'subclassing', 'subclassed', 'derive', 'derived', 'derives', 'inherit', 'inherits', 'inherited', 'inheriting', 'inheritance'],
  extend: ['extend', 'extends', 'extended', 'extending'],
  rename: ['rename', 'renames', 'renamed', 'renaming'],
  name: ['name', 'names', 'naming', 'named'],
  error: ['error', 'errors', 'err'],
  bug: ['bug', 'bugs', 'buggy'],
  fix: ['fix', 'fixes', 'fixing'],
  warn: ['warn', 'warns', 'warning', 'warnings'],
  crash: ['crash', 'crashes', 'crashed', 'crashing'],
  throw: ['throw', 'throws', 'threw', 'thrown', 'throwing'],
  generat: ['generate', 'generates', 'generated', 'generating', 'generation', 'generator'],
  creat: ['create', 'creates', 'created', 'creating', 'creation'],
  write: ['write', 'writes', 'writing', 'wrote', 'written'],
  function: ['function', 'functions', 'func', 'funcs', 'fn'],
  param: ['param', 'params', 'parameter', 'parameters', 'argument', 'arguments', 'arg', 'args'],
  variable: ['variable', 'variables', 'var', 'vars'],
  issue: ['issue', 'issues', 'ticket', 'tickets'],
  feature: ['feature', 'features'],
  behavior: ['behaviour', 'behaviours', 'behavior', 'behaviors'],
  config: ['config', 'configs', 'configuration', 'configurations', 'configure', 'configured', 'configurable', 'settings'],
  repo: ['repo', 'repos', 'repository', 'repositories', 'codebase', 'project', 'projects', 'workspace'],
  regex: ['regex', 'regexp', 'regexes'],
  typescript: ['typescript', 'ts'],
  javascript: ['javascript', 'js'],
  not: ['not', 'no', 'never', 'cannot'],
  // What code is required to do, the mark of a behaviour wanted ("retry ought to wait"): one class, whichever modal is typed.
  must: ['must', 'should', 'ought', 'shall', 'shouldnt', 'mustnt'],
};

const SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries(SYNONYM_GROUPS).flatMap(([stem, words]) => words.map((word) => [word, stem] as const)),
);

/** Words carrying no task signal. Question words stay ("where" marks a question), and so does "with" ("a class with…"). */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'to', 'of', 'for', 'in', 'on', 'at', 'by', 'from', 'into', 'onto', 'and', 'or', 'but',
  'my', 'our', 'your', 'their', 'me', 'us', 'i', 'we', 'you', 'he', 'she', 'they', 'it', 'its', 'this', 'that',
  'these', 'those', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'please', 'can', 'could', 'would',
  'will', 'shall', 'may', 'might', 'some', 'just', 'also', 'then', 'very', 'really', 'much', 'too', 'as',
  'kindly', 'ok', 'okay', 'let', 'lets', 'have', 'has', 'had', 'something', 'one', 'them', 'him', 'her',
  'want', 'need', 'like', 'help', 'now', 'again', 'each', 'other', 'own', 'same', 'such', 'only',
]);

/** Words the stemmer must not cut: "fixed capacity" is no request to fix, and "speed" is no past tense. */
const NO_STEM: ReadonlySet<string> = new Set(['fixed', 'need', 'speed', 'feed', 'does', 'process', 'class', 'always', 'this', 'status', 'alias', 'bus', 'less']);

/** Suffix stripping in the spirit of Porter's first steps: enough to join plurals and verb forms. */
function stemWord(word: string, folding = true): string {
  const synonym = folding ? SYNONYMS.get(word) : undefined;
  if (synonym !== undefined) return synonym;
  if (word.length <= 3 || NO_STEM.has(word)) return word;
  // British and American spellings share a stem: "summarise" and "summarize" are the same request.
  let stem = word.length >= 6 ? word.replace(/is(e|es|ed|ing|ations?)$/, 'iz$1') : word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  const verbal = /^(.{3,}?)(ations?|ing|ed|ly)$/.exec(stem);
  if (verbal?.[1] !== undefined) {
    stem = verbal[1];
    // "logging" → "logg" → "log"; "calling" stays "call" because l is a normal double letter in English.
    if (/([^aeiouls])\1$/.test(stem)) stem = stem.slice(0, -1);
  }
  if (stem.endsWith('e') && stem.length > 4) stem = stem.slice(0, -1);
  return stem;
}

interface Token {
  stem: string;
  /** The lower-case word before stemming, for the vocabulary checks. */
  word: string;
  /** A piece of an identifier such as `parseConfig`; it says what the code is about, not what to do with it. */
  fromIdentifier: boolean;
}

const ABBREVIATIONS: ReadonlySet<string> = new Set(['e.g', 'i.e', 'etc', 'vs']);

/** An identifier with inner structure: camelCase, PascalCase with several humps, snake_case, dotted or $-prefixed. */
function isStructuredIdentifier(raw: string): boolean {
  // Surnames such as McDonald have the shape of PascalCase without being code.
  if (ABBREVIATIONS.has(raw.toLowerCase()) || /^Ma?c[A-Z]/.test(raw)) return false;
  return /[a-z]{2}[A-Z]|[A-Z][a-z]+[A-Z][a-z]|[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z]\.[A-Za-z]|^\$|[A-Za-z][0-9]+[A-Za-z]?$/.test(raw);
}

function splitIdentifier(raw: string): string[] {
  return raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(/[^A-Za-z]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

function expandContractions(text: string): string {
  return text
    .replace(/[\u2018\u2019]/g, "'")
    // Typed in a hurry without the apostrophe: "dont", "doesnt", "isnt".
    .replace(/\b(do|does|did|is|are|was|were|could|would|should|has|have)nt\b/gi, '$1 not')
    .replace(/\bcan't\b/gi, 'can not')
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/n't\b/gi, ' not')
    .replace(/'(s|re|ll|ve|d|m)\b/gi, '');
}

const RAW_TOKEN = /#\d+|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;

/**
 * Chat spellings of common words, read as the words: "pls", "u", "wat". Only forms any chat user writes; a
 * misspelling of a task's own words is found by edit distance instead (see `Corrector`).
 */
const SHORT_FORMS: ReadonlyMap<string, string> = new Map([
  ['pls', 'please'], ['plz', 'please'], ['plse', 'please'], ['u', 'you'], ['ur', 'your'], ['r', 'are'], ['y', 'why'],
  ['wat', 'what'], ['wut', 'what'], ['whats', 'what'], ['wheres', 'where'], ['hows', 'how'], ['thx', 'thanks'],
  ['teh', 'the'], ['im', 'am'], ['ive', 'have'], ['impl', 'implement'], ['w', 'with'], ['b', 'be'], ['bc', 'because'],
]);

/** Rewrites a typed word before stemming: a chat spelling, else the vocabulary word it misspells, else itself. */
type Corrector = (word: string) => string;

/** "a class named X", "a function called Y": the word gives the new thing its name and asks for no rename. */
const NAMING = /\b(class|interface|type|function|method|component|enum|variable|constant|helper|module|file)\s+(?:named|called)\b/gi;

/**
 * Lower-cases, splits identifiers into words, drops stop words and stems what remains. A capitalised word after the
 * first that the code declares (`names`) is a name like an identifier: "a Redis-backed Store" names the interface
 * `Store` and asks nothing about storing.
 */
function tokenize(text: string, correct?: Corrector, names?: KnownNames): Token[] {
  const tokens: Token[] = [];
  for (const match of expandContractions(text).replace(NAMING, '$1').matchAll(RAW_TOKEN)) {
    const raw = match[0];
    if (raw.startsWith('#')) {
      tokens.push({ stem: 'issue', word: raw, fromIdentifier: false });
      continue;
    }
    const typed = raw.toLowerCase();
    if (ABBREVIATIONS.has(typed)) continue;
    const whole = SYNONYMS.has(typed) || !isStructuredIdentifier(raw);
    // A capitalised word after the first is a name ("Paris", "Stopwatch"), never a misspelling.
    const named = match.index > 0 && /^[A-Z]/.test(raw);
    const lower = whole ? (SHORT_FORMS.get(typed) ?? (correct && !named ? correct(typed) : typed)) : typed;
    const words = whole ? [lower] : splitIdentifier(raw);
    const declared = named && names?.has(raw) === true;
    for (const word of words) {
      if (STOP_WORDS.has(word) || word.length < 2) continue;
      tokens.push({ stem: stemWord(word), word, fromIdentifier: !whole || declared });
    }
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------------------------
// Software-development vocabulary

/** Words that on their own make a request about software. */
const STRONG_DEV_WORDS = [
  'code', 'codebase', 'coding', 'program', 'programming', 'software', 'function', 'method', 'class', 'interface',
  'variable', 'constant', 'property', 'field', 'parameter', 'argument', 'enum', 'module', 'import', 'export',
  'package', 'library', 'dependency', 'api', 'endpoint', 'http', 'https', 'url', 'json', 'yaml', 'csv', 'xml', 'sql',
  'database', 'regex', 'regexp', 'string', 'array', 'null', 'undefined', 'nan', 'boolean', 'integer', 'async',
  'await', 'callback', 'loop', 'recursion', 'recursive', 'algorithm', 'compile', 'compiler', 'lint', 'eslint',
  'linter', 'typescript', 'javascript', 'node', 'npm', 'vitest', 'jest', 'refactor', 'debug', 'debugger',
  'exception', 'diagnostic', 'syntax', 'repo', 'repository', 'git', 'github', 'commit', 'cli', 'script', 'server',
  'backend', 'frontend', 'app', 'application', 'implement', 'implementation', 'subclass', 'superclass', 'inherit',
  'override', 'abstract', 'constructor', 'getter', 'setter', 'instance', 'snippet', 'jsdoc', 'tsdoc', 'docstring',
  'javadoc', 'identifier', 'logic', 'logger', 'logging', 'cache', 'config', 'configuration', 'route', 'router',
  'middleware', 'handler', 'component', 'render', 'dom', 'css', 'html', 'tokenizer', 'parser', 'parse',
  'serialize', 'complexity', 'optimize', 'optimise', 'runtime', 'deploy', 'docker', 'assertion', 'mock', 'stub',
  'coverage', 'generic', 'struct', 'lambda', 'closure', 'iterator', 'hook', 'schema', 'migration', 'timeout',
  'retry', 'thread', 'concurrency', 'stack', 'object', 'helper', 'utility', 'declaration', 'signature',
  'typeerror', 'unit', 'build', 'command', 'flag', 'queue', 'framework', 'workspace', 'project', 'rename',
  'reducer', 'selector', 'controller', 'decorator', 'prototype', 'mutation', 'graphql', 'websocket', 'socket',
  'buffer', 'hashmap', 'pointer', 'scope', 'orm', 'dto', 'oauth', 'jwt', 'authentication', 'webhook', 'cron',
  'kubernetes', 'terraform', 'pipeline', 'dotenv', 'ide', 'vscode', 'python', 'java', 'rust', 'golang', 'kotlin',
  'php', 'csharp', 'cpp', 'react', 'vue', 'angular', 'svelte', 'django', 'flask', 'webpack', 'vite', 'babel',
  'tsconfig', 'stdout', 'stderr', 'stdin', 'deprecated', 'polyfill', 'transpile', 'tuple', 'bitmask',
  'nullable', 'mutex', 'deadlock', 'serializer', 'deserialize', 'microservice', 'sdk', 'dialog', 'modal',
  'button', 'checkbox', 'dropdown', 'tooltip', 'ui', 'toolbar', 'sidebar', 'popup', 'unsaved', 'autosave',
  'insensitive', 'wrapper', 'pagination', 'validation', 'validator', 'upload', 'download', 'login', 'signup', 'telemetry',
];

/** Words that mean software only when the request points at something ("fix this", "explain it"). */
const WEAK_DEV_WORDS = [
  'test', 'bug', 'error', 'warning', 'fix', 'explain', 'document', 'documentation', 'doc', 'docs', 'comment', 'name',
  'faster', 'slow', 'simplify', 'readable', 'clean', 'generate', 'feature', 'issue', 'behaviour', 'behavior',
  'crash', 'throw', 'file', 'line', 'type', 'value', 'input', 'output', 'memory', 'performance', 'efficient',
  'query', 'request', 'response', 'data', 'block', 'statement', 'expression', 'condition', 'body', 'implement',
  'describe', 'summarize', 'summarise', 'understand', 'optimize', 'improve', 'speed', 'complete', 'call',
];

/** Words by which a request points at the editor's selection or the code at hand. */
const DEICTIC_WORDS: ReadonlySet<string> = new Set(['this', 'it', 'here', 'these', 'that', 'selected', 'selection', 'current', 'above', 'below', 'following']);

interface Vocabulary {
  strong: Set<string>;
  weak: Set<string>;
}

/** Words and their plain stems, without synonym folding: folding "jest" onto "test" would make every test a code word. */
function wordSet(words: readonly string[]): Set<string> {
  return new Set(words.flatMap((word) => [word, stemWord(word, false)]));
}

function inVocabulary(token: Token, words: ReadonlySet<string>): boolean {
  return words.has(token.word) || words.has(stemWord(token.word, false));
}

/**
 * How clearly the request is about software: `strong` when it names code things, `weak` when it only uses a
 * word like "fix" or "explain" while pointing at something ("fix this"), `none` otherwise, however it is phrased.
 */
function devEvidence(text: string, tokens: readonly Token[], vocabulary: Vocabulary, offTopic: ReadonlySet<string>, symbols: KnownNames): 'strong' | 'weak' | 'none' {
  if (/`[^`]+`|\w\(\)|=>|[{};]|#\d+/.test(text)) return 'strong';
  const raws = expandContractions(text).match(RAW_TOKEN) ?? [];
  if (raws.some((raw) => !raw.startsWith('#') && isStructuredIdentifier(raw))) return 'strong';
  // A word that names a declaration of the document at hand ("make spread faster") or of the workspace is about that code.
  if (raws.some((raw) => symbols.has(raw))) return 'strong';
  if (tokens.some((token) => inVocabulary(token, vocabulary.strong))) return 'strong';
  // Everyday words learnt from the negatives win over a weak cue: "explain this joke" is not about code.
  if (tokens.some((token) => offTopic.has(token.stem))) return 'none';
  const weak = tokens.some((token) => inVocabulary(token, vocabulary.weak));
  return weak && raws.some((raw) => DEICTIC_WORDS.has(raw.toLowerCase())) ? 'weak' : 'none';
}

// ---------------------------------------------------------------------------------------------------------------
// Features and the model

type Vector = Map<string, number>;

/** Imperative verbs and question words at the start say more than the same word further on. */
const FIRST_WORD_SKIP: ReadonlySet<string> = new Set([...STOP_WORDS, 'hey', 'hi', 'hello', 'you', 'just', 'quickly']);

/** Pieces of identifiers say little about the task: "testHelper" names a helper, not a request to test. */
const IDENTIFIER_WEIGHT = 0.4;
const PAIR_WEIGHTS: readonly (readonly [number, number])[] = [[1, 0.8], [2, 0.4]];
const FIRST_WORD_WEIGHT = 1;

function features(text: string, tokens: readonly Token[], correct?: Corrector): Vector {
  const counts: Vector = new Map();
  const add = (feature: string, weight: number): void => {
    counts.set(feature, (counts.get(feature) ?? 0) + weight);
  };
  for (const token of tokens) add(token.stem, token.fromIdentifier ? IDENTIFIER_WEIGHT : 1);
  // Adjacent pairs, and pairs one word apart at a lower weight, so "create a new class" still pairs create with class.
  for (let i = 1; i < tokens.length; i++) {
    const right = tokens[i];
    if (right === undefined || right.fromIdentifier) continue;
    for (const [distance, weight] of PAIR_WEIGHTS) {
      const left = tokens[i - distance];
      if (left !== undefined && !left.fromIdentifier && left.stem !== right.stem) add(`${left.stem} ${right.stem}`, weight);
    }
  }
  const first = (expandContractions(text).match(RAW_TOKEN) ?? [])
    .map((raw) => raw.toLowerCase())
    .map((word) => SHORT_FORMS.get(word) ?? (correct ? correct(word) : word))
    .find((word) => !FIRST_WORD_SKIP.has(word));
  if (first !== undefined) add(`^${stemWord(first)}`, FIRST_WORD_WEIGHT);
  return counts;
}

interface Model {
  idf: Map<string, number>;
  /** Unit-length TF-IDF vectors of every phrase of each task. */
  phrases: Map<TaskId, Vector[]>;
  /** Unit-length mean of each task's phrase vectors: the words the task uses throughout. */
  centroids: Map<TaskId, Vector>;
  /** The out-of-scope examples, scored like one more task that stands for "none of the above". */
  negatives: Vector[];
  negativeCentroid: Vector;
  /** The out-of-scope examples that are themselves about software: the only ones a code request competes with. */
  devNegatives: Vector[];
  devNegativeCentroid: Vector;
  vocabulary: Vocabulary;
  offTopic: Set<string>;
  /** Every word the phrases, the vocabularies and the stop words use: a typed word outside it may be a misspelling. */
  known: Set<string>;
  /** The words a misspelling is corrected to, with how often the phrases use each (the tie-break). */
  targets: Map<string, number>;
}

/** The weight an unseen query feature gets in the query's length, so unrelated words dilute the match. */
const UNSEEN_WEIGHT = 0.6;

function normalise(vector: Vector): Vector {
  let sum = 0;
  for (const value of vector.values()) sum += value * value;
  const length = Math.sqrt(sum);
  if (length === 0) return vector;
  const unit: Vector = new Map();
  for (const [feature, value] of vector) unit.set(feature, value / length);
  return unit;
}

function dot(query: Vector, other: Vector): number {
  let sum = 0;
  for (const [feature, value] of query) {
    const otherValue = other.get(feature);
    if (otherValue !== undefined) sum += value * otherValue;
  }
  return sum;
}

function weigh(counts: Vector, idf: ReadonlyMap<string, number>): Vector {
  const weighted: Vector = new Map();
  for (const [feature, count] of counts) {
    const weight = idf.get(feature);
    if (weight !== undefined) weighted.set(feature, (1 + Math.log(count)) * weight);
    else if (!feature.includes(' ') && !feature.startsWith('^')) weighted.set(feature, UNSEEN_WEIGHT);
  }
  return normalise(weighted);
}

function centroidOf(vectors: readonly Vector[]): Vector {
  const centroid: Vector = new Map();
  for (const vector of vectors) for (const [feature, value] of vector) centroid.set(feature, (centroid.get(feature) ?? 0) + value);
  return normalise(centroid);
}

let model: Model | undefined;

/** Built on first use so that importing the module costs nothing when the model classifier answers instead. */
function getModel(): Model {
  if (model !== undefined) return model;
  const classes: { task: TaskId | 'none'; counts: Vector[] }[] = [
    ...TASK_IDS.map((task) => ({ task, counts: INTENT_PHRASES[task].map((phrase) => features(phrase, tokenize(phrase))) })),
    { task: 'none' as const, counts: OUT_OF_SCOPE_PHRASES.map((phrase) => features(phrase, tokenize(phrase))) },
  ];
  // Document frequency counts classes, not phrases: a word every task uses ("code", "this") separates nothing.
  const classFrequency = new Map<string, number>();
  for (const { counts } of classes) {
    const seen = new Set(counts.flatMap((vector) => [...vector.keys()]));
    for (const feature of seen) classFrequency.set(feature, (classFrequency.get(feature) ?? 0) + 1);
  }
  const idf = new Map<string, number>();
  for (const [feature, frequency] of classFrequency) idf.set(feature, Math.log((classes.length + 1) / frequency));

  const phrases = new Map<TaskId, Vector[]>();
  const centroids = new Map<TaskId, Vector>();
  let negatives: Vector[] = [];
  let negativeCentroid: Vector = new Map();
  const taskStems = new Set<string>();
  for (const { task, counts } of classes) {
    const vectors = counts.map((vector) => weigh(vector, idf));
    if (task === 'none') {
      negatives = vectors;
      negativeCentroid = centroidOf(vectors);
      continue;
    }
    for (const vector of counts) for (const feature of vector.keys()) taskStems.add(feature);
    phrases.set(task, vectors);
    centroids.set(task, centroidOf(vectors));
  }
  const vocabulary: Vocabulary = { strong: wordSet(STRONG_DEV_WORDS), weak: wordSet(WEAK_DEV_WORDS) };
  const offTopic = new Set<string>();
  for (const phrase of OUT_OF_SCOPE_PHRASES) {
    for (const token of tokenize(phrase)) {
      if (!taskStems.has(token.stem) && !inVocabulary(token, vocabulary.strong) && !inVocabulary(token, vocabulary.weak)) offTopic.add(token.stem);
    }
  }
  const devNegatives = negatives.filter((_vector, index) => {
    const phrase = OUT_OF_SCOPE_PHRASES[index] ?? '';
    return devEvidence(phrase, tokenize(phrase), vocabulary, new Set(), new Set()) === 'strong';
  });
  // Correction targets are the words of the task phrases and the code vocabulary, never the everyday words of the
  // negatives: a misspelt request is corrected towards a task or left as typed.
  const targets = new Map<string, number>();
  const count = (word: string): void => {
    if (word.length >= 3 && /^[a-z]+$/.test(word)) targets.set(word, (targets.get(word) ?? 0) + 1);
  };
  for (const phrase of Object.values(INTENT_PHRASES).flat()) for (const word of phrase.toLowerCase().match(/[a-z]+/g) ?? []) count(word);
  // Vocabulary words no phrase uses are targets of one edit only (uses 0): "letter" is two edits from "linter".
  for (const word of [...SYNONYMS.keys(), ...STRONG_DEV_WORDS, ...WEAK_DEV_WORDS]) if (!targets.has(word) && word.length >= 3 && /^[a-z]+$/.test(word)) targets.set(word, 0);
  const known = new Set<string>([...targets.keys(), ...STOP_WORDS, ...SHORT_FORMS.keys(), ...FIRST_WORD_SKIP]);
  for (const phrase of OUT_OF_SCOPE_PHRASES) for (const word of phrase.toLowerCase().match(/[a-z]+/g) ?? []) known.add(word);
  model = { idf, phrases, centroids, negatives, negativeCentroid, devNegatives, devNegativeCentroid: centroidOf(devNegatives), vocabulary, offTopic, known, targets };
  return model;
}

// ---------------------------------------------------------------------------------------------------------------
// Misspellings

/**
 * The corrector of one request: a word no phrase or vocabulary knows, and no declaration is named, becomes the
 * closest task word with the same first letter within one edit (two from six letters on, towards words the phrases
 * use), the most used one on a tie. Words of four letters or fewer are corrected only by a letter missing, doubled or swapped ("tst", "fixx",
 * "tets"): one substituted letter turns most short words into another word ("stop" is no "step").
 */
function corrector(current: Model, symbols: KnownNames): Corrector {
  const cache = new Map<string, string>();
  return (word) => {
    if (word.length < 3 || current.known.has(word) || !/^[a-z]+$/.test(word) || symbols.has(word)) return word;
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    const max = word.length >= 6 ? 2 : 1;
    let best: { word: string; distance: number; uses: number } | undefined;
    for (const [target, uses] of current.targets) {
      // Typing keeps the first letter; a correction that changes it turns "station" into "mutation".
      if (target[0] !== word[0]) continue;
      const distance = editDistance(word, target, max);
      if (distance > max || (distance === 2 && uses === 0)) continue;
      if (word.length <= 4 && target.length === word.length && [...word].sort().join('') !== [...target].sort().join('')) continue;
      if (!best || distance < best.distance || (distance === best.distance && uses > best.uses)) best = { word: target, distance, uses };
    }
    const corrected = best?.word ?? word;
    cache.set(word, corrected);
    return corrected;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Scoring

/** How much the best phrase, the runner-up phrase and the task's centroid each count in a task's score. */
const BEST_WEIGHT = 0.4;
const SECOND_WEIGHT = 0.2;
const CENTROID_WEIGHT = 0.4;

function taskScore(query: Vector, vectors: readonly Vector[], centroid: Vector): number {
  let best = 0;
  let second = 0;
  for (const vector of vectors) {
    const similarity = dot(query, vector);
    if (similarity > best) {
      second = best;
      best = similarity;
    } else if (similarity > second) second = similarity;
  }
  return BEST_WEIGHT * best + SECOND_WEIGHT * second + CENTROID_WEIGHT * dot(query, centroid);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The weight of the strongest competitor (the runner-up task, or the out-of-scope examples) and the constant
 * evidence for "none of the above" in the confidence: a lone weak match and a near tie both stay unsure.
 */
const COMPETITOR_WEIGHT = 1;
const NONE_PRIOR = 0.15;
/** The share of the threshold a request about code must reach (see `classifyIntent`). */
const STRONG_THRESHOLD_SHARE = 0.85;

/** Names of declarations the request may mention: a set, or a lookup (the workspace's index). */
export interface KnownNames {
  has(word: string): boolean;
}

/**
 * Where the user's cursor is when they type the request: the code they point at without saying "this" ("fill in",
 * "correct it") and what the editor would offer there.
 */
export interface CursorContext {
  /** The cursor is inside a declaration's code. */
  inCode: boolean;
  /** The tasks offered at the cursor: fix on a diagnostic, generate on an empty body or a TODO, implement on an interface. */
  offers: readonly TaskId[];
}

/** What an offer at the cursor adds to its task's score: enough to decide a terse request, not to overrule a named task. */
const OFFER_BONUS = 0.1;
/** What is left of the implement score when the cursor is on nothing to implement and the request names nothing. */
const UNPLACED_WEIGHT = 0.5;

/** Whether the request names code: an identifier with inner structure, in backticks, or a name the code declares. */
function namesCode(text: string, symbols: KnownNames): boolean {
  if (/`[^`]+`/.test(text)) return true;
  return (expandContractions(text).match(RAW_TOKEN) ?? []).some((raw) => !raw.startsWith('#') && (isStructuredIdentifier(raw) || (/^[A-Z]/.test(raw) && symbols.has(raw))));
}

/** A fix request that describes behaviour ("fix the bug where …") rather than pointing at a diagnostic is an issue. */
const BUG_REPORT = /\b(?:bug|problem|issue|case)\s*(?:where|when|in which|whereby|that|:)|^\s*bug\s*:/i;

// ---------------------------------------------------------------------------------------------------------------
// The request's form

/** A question word or auxiliary first, or a question mark last: the request asks something. */
const ASKING = /^\s*(?:how|where|which|what|when|why|who|whose|is|are|does|do|did|has|have|any)\b|\?\s*$/i;
/** Verbs and nouns of looking code up: a request to search the code base worded as an instruction ("list the callers of …"). */
const SEARCHING = /\b(?:list|find|show|search|locate|grep|usages?|callers?|references|occurrences)\b/i;
/**
 * A question about what code does or why ("what does retry return", "why is there a loop", "how does X work"), as
 * opposed to one asking for something to be made ("how do I write …", "can you write …"): its answer is an
 * explanation or a place, never new code.
 */
const ABOUT_BEHAVIOUR = /^\s*(?:(?:what|why|when)(?:'s|\s+(?:does|do|did|is|are|was|were|happens|would))|how\s+(?:does|did|is|are|was|were|come))\b/i;
/** A question whose verb relates code to code ("what calls X", "which files import Y"): where it is used, a search. */
const ABOUT_USES = /^\s*(?:what|who|which(?:\s+[a-z]+){0,2})\s+(?:calls?|uses?|imports?|references?|implements?|extends?|depends|invokes?|reads|writes|throws)\b/i;
/** A statement of what code must do ("fetchData should throw when …"): a wanted behaviour, said of code, not of the user. */
const REQUIREMENT = /^(?!\s*(?:i|we|you|can|could|would|should|must|how|what|why|where|which|who|when)\b).*\b(?:should|must|ought\s+to|shall|has\s+to|have\s+to)\b/i;
/**
 * Verbs of code misbehaving, in the third person: "slugify breaks on accents", "retry swallows the error". Said of a
 * named declaration, they report a behaviour to change rather than point at a compiler error.
 */
const FAULT_VERBS: ReadonlySet<string> = new Set(['breaks', 'fails', 'crashes', 'hangs', 'ignores', 'drops', 'loses', 'swallows', 'skips', 'leaks', 'freezes', 'misses', 'overflows', 'duplicates', 'mangles', 'corrupts', 'truncates']);
/** "slugify -> toSlug": one name mapped onto another, and nothing else. */
const NAME_MAPPING = /^\s*`?[A-Za-z_$][\w$.]*`?\s*(?:->|→|=>|⇒)\s*`?[A-Za-z_$][\w$]*`?\s*$/;
/**
 * "add a method that returns the number of issues", "write a helper to count problems": a request for a new unit of
 * code, whose words after "that" or "to" say what the code does, not a fault to fix or a question.
 */
const NEW_CODE_UNIT = /^\s*(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:add|write|create|make|give\s+me)\s+(?:a|an|one|another|the)\s+(?:new\s+|small\s+|little\s+|static\s+|private\s+|public\s+)*(?:function|method|helper|getter|setter|callback|util(?:ity)?)\s+(?:that|which|to|for|returning|called|named)\b/i;
/** "… fetchData to getJson": a request that ends by mapping a name onto a new one (checked against the known names). */
const ENDS_WITH_NEW_NAME = /`?([A-Za-z_$][\w$]*)`?\s+(?:to|into|as)\s+`?([A-Za-z_$][\w$]*)`?\s*[.!]?\s*$/;
/** Words of naming: a rename is asked for with one of them, or by mapping one name onto another. */
const NAMING_WORDS = /\b(?:re)?nam(?:e|es|ed|ing)\b|\bidentifiers?\b|\bcall(?:ed)?\b|\bcalls\b/i;
/** Words by which a request points at code that is already there ("make this shorter", "flatten it"); "here" may mean an empty spot. */
const POINTING_WORDS: ReadonlySet<string> = new Set(['this', 'it', 'these']);

/** What the request's form, apart from its words, says about its task; `classifyIntent` weighs the scores by it. */
export interface RequestForm {
  /** It asks something or asks for a search; the question task answers nothing else. */
  asksOrSearches: boolean;
  /** It asks what code does or why: the tasks that make new code (generate, class, implement, issue) do not answer it. */
  aboutBehaviour: boolean;
  /** It asks what uses a declaration. */
  aboutUses: boolean;
  /** It states what code must do. */
  requirement: boolean;
  /** It points at code with "this" or "it". */
  pointing: boolean;
  /** It says a kind of code ("the function", "this method"), as a way of pointing at the code at hand. */
  codeNoun: boolean;
  /** The whole request maps one name onto another ("slugify -> toSlug"). */
  onlyNameMapping: boolean;
  /** It says "name", "rename", "identifier" or "call": the words a rename is asked with. */
  naming: boolean;
  /** It asks for a new function or method and says what it does (`NEW_CODE_UNIT`). */
  newCodeUnit: boolean;
}

/** Reads the form of a request: the order and kind of its words, not which task words it uses. */
export function requestForm(text: string): RequestForm {
  const plain = expandContractions(text).replace(/`[^`]*`/g, 'name');
  return {
    asksOrSearches: ASKING.test(plain) || SEARCHING.test(plain),
    aboutBehaviour: ABOUT_BEHAVIOUR.test(text.replace(/[\u2018\u2019]/g, "'")),
    aboutUses: ABOUT_USES.test(plain),
    requirement: !ASKING.test(plain) && REQUIREMENT.test(plain),
    pointing: (plain.match(RAW_TOKEN) ?? []).some((raw) => POINTING_WORDS.has(raw.toLowerCase())),
    codeNoun: (plain.match(RAW_TOKEN) ?? []).some((raw) => CODE_NOUNS.has(raw.toLowerCase())),
    onlyNameMapping: NAME_MAPPING.test(text),
    naming: NAMING_WORDS.test(plain),
    newCodeUnit: NEW_CODE_UNIT.test(plain),
  };
}

/** What the request says of the code it names, read with the names the code declares. */
interface NamedForm {
  /** It states that a declaration it names misbehaves ("slugify breaks on …"). */
  reportsFault: boolean;
  /** It names an interface or an abstract class, the things a new class implements or extends. */
  namesImplementable: boolean;
  /** It names a class nobody declared yet next to the word "class" ("a Money class", "class Basket"). */
  namesNewClass: boolean;
  /** It maps one name onto another: "slugify -> toSlug", or ends with "fetchData to getJson" where the first is declared and the second is new. */
  mapsName: boolean;
  /** One of its words is the name of a function, method or class the code declares, in any case ("the catch in retry"). */
  mentionsCallable: boolean;
}

/** Heritage words and "for the X interface": the new class is built on a declaration that exists. */
const BUILT_ON = /\b(?:implements?|implementing|extends?|extending|subclass(?:es|ing)?|inherits?|inheriting)\b|\bfor\s+the\s+\S+\s+(?:interface|abstract\s+class|base\s+class)\b/i;

function namedForm(text: string, symbols: KnownNames, implementable: KnownNames, callables: KnownNames, asks: boolean): NamedForm {
  const raws = expandContractions(text).match(RAW_TOKEN) ?? [];
  const isName = (raw: string | undefined): boolean => raw !== undefined && !raw.startsWith('#') && (isStructuredIdentifier(raw) || symbols.has(raw));
  const reportsFault = !asks && raws.some((raw, i) => FAULT_VERBS.has((raws[i + 1] ?? '').toLowerCase()) && isName(raw));
  const namesImplementable = raws.some((raw) => /^[A-Z]/.test(raw) && implementable.has(raw));
  const namesNewClass = raws.some((raw, i) => {
    if (!/^[A-Z][A-Za-z0-9]*$/.test(raw) || symbols.has(raw)) return false;
    const before = raws[i - 1]?.toLowerCase();
    const after = raws[i + 1]?.toLowerCase();
    return after === 'class' || before === 'class' || ((before === 'named' || before === 'called') && raws[i - 2]?.toLowerCase() === 'class');
  });
  const ending = ENDS_WITH_NEW_NAME.exec(text);
  const mapsName = NAME_MAPPING.test(text) || (ending?.[1] !== undefined && ending[2] !== undefined && symbols.has(ending[1]) && isStructuredIdentifier(ending[2]) && !symbols.has(ending[2]));
  return { reportsFault, namesImplementable, namesNewClass, mapsName, mentionsCallable: raws.some((raw) => callables.has(raw)) };
}

/** What is left of the question task's score for a request that neither asks nor searches: an instruction is for another task. */
const UNASKED_QUESTION_WEIGHT = 0.4;
/** What is left of the scores of the tasks a question's form rules out (making code for a question about what code does). */
const BEHAVIOUR_QUESTION_WEIGHT = 0.5;
/** The tasks that make new code or change behaviour, which no question about existing code asks for. */
const MAKING_TASKS: ReadonlySet<TaskId> = new Set(['generate', 'class', 'implement', 'issue']);
/** What a form that marks one task (a use question, a requirement, a name mapping) adds to it, as an offer at the cursor does. */
const FORM_BONUS = 0.1;

/** The scores weighed by the request's form and the place of the cursor; see `RequestForm`. */
function weighByForm(scores: { task: TaskId; score: number }[], form: RequestForm, named: NamedForm, cursor: CursorContext | undefined, namesAnyCode: boolean, builtOn: boolean): void {
  // Generate fills an empty body or a TODO: "make this a one-liner" said of written code that has neither asks to
  // rewrite that code, which is the optimize task's (a refactoring), so generate's evidence goes to it.
  const rewrite = cursor?.inCode === true && !cursor.offers.includes('generate') && form.pointing && !namesAnyCode;
  const generate = scores.find((entry) => entry.task === 'generate')?.score ?? 0;
  const explain = scores.find((entry) => entry.task === 'explain')?.score ?? 0;
  const aboutOtherCode = form.aboutBehaviour && !form.pointing && !form.codeNoun && !namesAnyCode && !named.mentionsCallable;
  for (const entry of scores) {
    let score = entry.score;
    if (entry.task === 'question' && !form.asksOrSearches) score *= UNASKED_QUESTION_WEIGHT;
    if (form.aboutBehaviour && MAKING_TASKS.has(entry.task)) score *= BEHAVIOUR_QUESTION_WEIGHT;
    // A question about what code does, said of things it names in words ("how does the cache decide data is stale"),
    // is about the workspace: explaining the code at the cursor answers it only when it points at that code ("how does
    // this work", "what does the function return") or names code. Its evidence goes to the question task.
    if (entry.task === 'explain' && aboutOtherCode) score *= UNASKED_QUESTION_WEIGHT;
    if (entry.task === 'question' && aboutOtherCode) score = Math.max(score, explain);
    // "What calls X" asks where X is used, not what X does: only the question task answers it.
    if (form.aboutUses && entry.task !== 'question') score *= BEHAVIOUR_QUESTION_WEIGHT;
    // Implement needs an interface or class: with the cursor elsewhere and none named, the request cannot mean it.
    if (entry.task === 'implement' && cursor && !cursor.offers.includes('implement') && !namesAnyCode) score *= UNPLACED_WEIGHT;
    if (rewrite && entry.task === 'generate') score *= UNPLACED_WEIGHT;
    if (rewrite && entry.task === 'optimize') score = Math.max(score, generate);
    // A rename is asked for in words of naming or by mapping names; without either, a word it shares with rename's
    // phrases ("how are unions matched" and "rename the argument to match its meaning") is not a request for one.
    if (entry.task === 'rename' && !form.naming && !named.mapsName) score *= BEHAVIOUR_QUESTION_WEIGHT;
    // The whole request maps one name onto another: nothing but a rename answers it.
    if (form.onlyNameMapping && entry.task !== 'rename') score *= UNASKED_QUESTION_WEIGHT;
    // A new function or method described by what it does is code to write: its words ("the number of issues") are
    // no fault to fix and no question.
    if (form.newCodeUnit && (entry.task === 'issue' || entry.task === 'fix' || entry.task === 'question')) score *= BEHAVIOUR_QUESTION_WEIGHT;
    if (form.newCodeUnit && entry.task === 'generate') score += FORM_BONUS;
    // A class built on an interface or abstract class that exists is implement's, not a class from nothing.
    if (entry.task === 'class' && named.namesImplementable) score *= BEHAVIOUR_QUESTION_WEIGHT;
    if ((entry.task === 'question' && form.aboutUses) || (entry.task === 'issue' && form.requirement) || (entry.task === 'rename' && named.mapsName)) score += FORM_BONUS;
    // A fault said of named code is a behaviour to change, unless the cursor is on the compiler's error about it.
    if (entry.task === 'issue' && named.reportsFault && !cursor?.offers.includes('fix')) score += FORM_BONUS;
    // Naming an interface or abstract class outside a question is pointing at it, as the cursor on it would.
    if (entry.task === 'implement' && named.namesImplementable && !form.asksOrSearches && !cursor?.offers.includes('implement')) score += FORM_BONUS;
    // "A Money class with …" names the class to write; one built on a declaration that exists is implement's.
    if (entry.task === 'class' && named.namesNewClass && !named.namesImplementable && !builtOn) score += FORM_BONUS;
    entry.score = round(score);
  }
  scores.sort((a, b) => b.score - a.score || TASK_IDS.indexOf(a.task) - TASK_IDS.indexOf(b.task));
}

/**
 * Classifies a request into a task, offline and deterministically. Each task scores the request by TF-IDF cosine
 * similarity with its phrases, weighed by the request's form and the code at the cursor; the confidence is the best
 * score's share of the evidence, next to the runner-up and a constant prior for "none of the above", like the extra
 * option of the model classifier's list.
 */
export function classifyIntent(text: string, options?: { threshold?: number; symbols?: KnownNames; implementable?: KnownNames; callables?: KnownNames; cursor?: CursorContext }): IntentResult {
  const threshold = options?.threshold ?? DEFAULT_INTENT_THRESHOLD;
  const current = getModel();
  const symbols = options?.symbols ?? new Set<string>();
  const cursor = options?.cursor;
  const correct = corrector(current, symbols);
  const tokens = tokenize(text, correct, symbols);
  const query = weigh(features(text, tokens, correct), current.idf);
  const scores = TASK_IDS.map((task) => {
    const score = taskScore(query, current.phrases.get(task) ?? [], current.centroids.get(task) ?? new Map());
    return { task, score: round(score > 0 && cursor?.offers.includes(task) ? score + OFFER_BONUS : score) };
  });
  const form = requestForm(text);
  const named = namedForm(text, symbols, options?.implementable ?? new Set<string>(), options?.callables ?? symbols, form.asksOrSearches);
  weighByForm(scores, form, named, cursor, namesCode(text, symbols), BUILT_ON.test(text));
  const best = scores[0];
  let evidence = devEvidence(text, tokens, current.vocabulary, current.offTopic, symbols);
  // A request typed with the cursor in code is about that code unless most of its words are everyday ones ("the
  // weather in Paris"); pointing at it ("what is this") makes it as clearly about code as naming code would.
  if (evidence !== 'strong' && cursor?.inCode && tokens.filter((token) => current.offTopic.has(token.stem)).length * 2 <= tokens.length) {
    evidence = (expandContractions(text).match(RAW_TOKEN) ?? []).some((raw) => DEICTIC_WORDS.has(raw.toLowerCase())) ? 'strong' : 'weak';
  }
  if (best === undefined || best.score === 0 || evidence === 'none') return { task: 'none', confidence: 0, scores };
  // Chit-chat examples share "what" and "how" with real questions; a request about code competes only with code.
  const outOfScope = evidence === 'strong'
    ? taskScore(query, current.devNegatives, current.devNegativeCentroid)
    : taskScore(query, current.negatives, current.negativeCentroid);
  const competitor = Math.max(scores[1]?.score ?? 0, outOfScope);
  const confidence = round(best.score / (best.score + COMPETITOR_WEIGHT * competitor + NONE_PRIOR));
  // A request that names code or points at the code at the cursor is surely for the assistant: only a near tie between
  // tasks leaves it unsure, not the distance from the threshold a request of everyday words must clear.
  const required = evidence === 'strong' ? threshold * STRONG_THRESHOLD_SHARE : threshold;
  if (confidence < required || outOfScope >= best.score) return { task: 'none', confidence, scores };
  if (best.task === 'fix' && !cursor?.offers.includes('fix') && BUG_REPORT.test(text)) return { task: 'issue', confidence, scores };
  return { task: best.task, confidence, scores };
}

// ---------------------------------------------------------------------------------------------------------------
// Named symbols

/** Nouns after or before which a request names a declaration: "the load method", "class Parser". */
const CODE_NOUNS: ReadonlySet<string> = new Set([
  'function', 'functions', 'method', 'methods', 'class', 'classes', 'interface', 'interfaces', 'type', 'types', 'variable', 'variables',
  'property', 'properties', 'field', 'fields', 'constant', 'enum', 'module', 'parameter', 'param', 'argument', 'constructor',
  'getter', 'setter', 'member', 'struct', 'trait', 'hook', 'component', 'prop', 'attribute', 'namespace', 'alias', 'helper',
]);

/** Nouns that also name the thing after them ("method load"); "type" is left out because "type error" is not a symbol. */
const NAMING_NOUNS: ReadonlySet<string> = new Set(['function', 'method', 'class', 'interface', 'enum', 'variable', 'property', 'field', 'constant', 'constructor', 'component', 'hook', 'namespace']);

/** Ordinary words that sit next to a code noun without naming anything: "the new class", "this whole function". */
const NOT_SYMBOLS: ReadonlySet<string> = new Set([
  ...STOP_WORDS, ...CODE_NOUNS,
  'new', 'old', 'whole', 'entire', 'following', 'above', 'below', 'current', 'selected', 'given', 'other', 'same',
  'abstract', 'base', 'static', 'private', 'public', 'protected', 'async', 'generic', 'existing', 'first', 'last',
  'next', 'previous', 'big', 'small', 'large', 'long', 'short', 'slow', 'fast', 'simple', 'complex', 'broken',
  'buggy', 'failing', 'unused', 'empty', 'single', 'multiple', 'all', 'any', 'more', 'most', 'which', 'what',
  'whose', 'where', 'who', 'how', 'why', 'when', 'there', 'here', 'named', 'called', 'nested', 'inner', 'outer',
  'top', 'exported', 'imported', 'parent', 'child', 'derived', 'concrete', 'utility', 'unit',
  'test', 'tests', 'better', 'good', 'clearer', 'descriptive', 'meaningful', 'missing', 'wrong', 'each',
  'every', 'another', 'second', 'third', 'global', 'local', 'anonymous', 'arrow', 'recursive', 'pure',
  'instance', 'optional', 'required', 'readonly', 'data', 'error', 'return', 'write', 'explain', 'document',
  'rename', 'fix', 'optimize', 'generate', 'implement', 'create', 'make', 'add', 'remove', 'delete', 'update',
  'change', 'refactor', 'not', 'no', 'than', 'about', 'inside', 'within', 'without', 'after', 'before', 'via', 'using', 'like', 'such',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

/** Words after which a request names the interface or class a new class implements or extends. */
const HERITAGE_WORDS: ReadonlySet<string> = new Set(['implements', 'implementing', 'implement', 'extends', 'extending', 'extend', 'subclass']);
const FILE_EXTENSIONS: ReadonlySet<string> = new Set(['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'json', 'md', 'py', 'java', 'yaml', 'yml', 'txt', 'css', 'html', 'xml', 'csv', 'toml', 'lock', 'sh']);

function looksLikeFile(identifier: string): boolean {
  const dot = identifier.lastIndexOf('.');
  return dot > 0 && FILE_EXTENSIONS.has(identifier.slice(dot + 1).toLowerCase());
}

/** `load(path)` → `load`: what `/\(.*\)$/` removes, found without retrying the pattern at every `(`. */
function withoutCall(text: string): string {
  if (!text.endsWith(')')) return text;
  const open = text.indexOf('(', text.lastIndexOf('\n') + 1);
  return open >= 0 && open < text.length - 1 ? text.slice(0, open) : text;
}

function candidate(word: string | undefined): string | undefined {
  if (word === undefined) return undefined;
  // "this.handleClick" names handleClick; the receiver is not part of the declaration's name.
  const trimmed = word.replace(/\(\)$/, '').replace(/^this\./, '');
  if (!IDENTIFIER.test(trimmed) || NOT_SYMBOLS.has(trimmed.toLowerCase()) || looksLikeFile(trimmed) || ABBREVIATIONS.has(trimmed.toLowerCase())) return undefined;
  return trimmed;
}

/**
 * Identifiers the request names, in the order they appear: quoted in backticks, written with inner structure
 * (camelCase, snake_case, dotted, called with `()`), next to a code noun, or on either side of "rename … to …".
 */
export function extractNamedSymbols(text: string): string[] {
  const found: string[] = [];
  const push = (symbol: string | undefined): void => {
    if (symbol !== undefined && !found.includes(symbol)) found.push(symbol);
  };
  const positioned: { index: number; symbol: string }[] = [];
  const at = (index: number, symbol: string | undefined): void => {
    if (symbol !== undefined) positioned.push({ index, symbol });
  };

  for (const match of text.matchAll(/`([^`]+)`/g)) {
    const inner = match[1] === undefined ? undefined : withoutCall(match[1].trim());
    if (inner !== undefined && IDENTIFIER.test(inner) && !looksLikeFile(inner)) positioned.push({ index: match.index, symbol: inner });
  }
  const bare = text.replace(/`[^`]*`/g, (quoted) => ' '.repeat(quoted.length));
  const words = [...bare.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?/g)].map((match) => ({ raw: match[0], index: match.index }));
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === undefined) continue;
    const lower = word.raw.toLowerCase();
    if (word.raw.endsWith('()') || (isStructuredIdentifier(word.raw.replace(/\(\)$/, '')) && !SYNONYMS.has(lower))) {
      at(word.index, candidate(word.raw));
      continue;
    }
    if (CODE_NOUNS.has(lower)) {
      const before = words[i - 1];
      if (before !== undefined) at(before.index, candidate(before.raw));
      const after = words[i + 1];
      if (after !== undefined && NAMING_NOUNS.has(lower)) at(after.index, candidate(after.raw));
    }
    // "implements Repo", "extend Shape": what a new class is built from.
    if (HERITAGE_WORDS.has(lower) && words[i + 1] !== undefined) at(words[i + 1]?.index ?? 0, candidate(words[i + 1]?.raw));
    if ((lower === 'named' || lower === 'called') && words[i + 1] !== undefined) {
      const after = words[i + 1];
      if (after !== undefined) at(after.index, candidate(after.raw));
    }
    if (lower === 'rename') {
      // "rename foo to bar", "rename the count property to total": the last name before "to", and the one after.
      const to = words.findIndex((other, j) => j > i && j <= i + 6 && other.raw.toLowerCase() === 'to');
      if (to > 0) {
        for (let j = to - 1; j > i; j--) {
          const from = words[j];
          const symbol = candidate(from?.raw);
          if (from !== undefined && symbol !== undefined) {
            at(from.index, symbol);
            break;
          }
        }
        const target = words[to + 1];
        if (target !== undefined) at(target.index, candidate(target.raw));
      }
    }
  }
  positioned.sort((a, b) => a.index - b.index);
  for (const { symbol } of positioned) push(symbol);
  return found;
}
