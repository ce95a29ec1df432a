// BM25F ranking for the lexical index: the vocabulary, the collection's statistics per field, and each document's score for a query.
import type { DocumentDraft } from './documentExtraction.js';
import type { IndexedDocument, IndexedFile } from './indexedDocuments.js';
import { relatedWords } from './relatedWords.js';
import { codeWrittenWords, editDistance, queryCompounds, terms, wordHalves } from './terms.js';

/** Fields in boost order; a document's terms carry one count per field. */
const FIELDS = ['name', 'signature', 'comment', 'context', 'body'] as const;
export const FIELD_COUNT = FIELDS.length;
/** Name > signature > comment > file context > body identifiers. */
const FIELD_WEIGHTS = [6, 2.5, 2, 1, 1] as const;
/** Length normalisation per field: names are short by nature, bodies vary wildly. */
const FIELD_B = [0.3, 0.5, 0.6, 0.3, 0.75] as const;
const K1 = 1.2;
/** The first field that surrounds a declaration, and the most a term found only there counts, as a share of one the declaration says. */
const CONTEXT = FIELDS.indexOf('context');
const COMMENT = FIELDS.indexOf('comment');
const NAME = FIELDS.indexOf('name');
const BODY = FIELDS.indexOf('body');
const BODY_SHARE = 0.5;
/** What a compound of the question's words (`queryCompounds`) weighs beside one word. */
const COMPOUND_WEIGHT = 0.5;
/**
 * A typed word the code never uses stands for the word the code uses within an edit of it (two for a long word), with
 * the same first letter, in this many documents or more ("mach" for match, "arry" for array), at this weight.
 */
const RESPELT_MIN_DF = 3;
const RESPELT_WEIGHT = 0.7;
/** What a word related to one of the question's (`relatedWords`: "wipe" and `clear`) weighs beside it. */
const RELATED_WEIGHT = 0.5;

/**
 * The terms a question's words stand for when the code never uses them ("wipe" for `clear`): a word the code uses
 * means what the code means by it, and is left alone; the question's own terms are never added again.
 */
export function relatedTermsOf(query: string, liveTerm: (term: string) => boolean): Set<string> {
  const own = new Set(terms(query, 'query'));
  const unused = (word: string): boolean => {
    const wordTerms = terms(word, 'query');
    return wordTerms.length === 1 && !liveTerm(wordTerms[0] as string);
  };
  const related = [...query.matchAll(/[A-Za-z]+/g)].flatMap(([word]) => (unused(word) ? relatedWords(word).flatMap((other) => terms(other)) : []));
  return new Set(related.filter((term) => !own.has(term)));
}

/** Binary search in an ascending Uint32Array; -1 when absent. */
function indexOfTerm(sorted: Uint32Array, id: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = sorted[mid] as number;
    if (value === id) return mid;
    if (value < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function isTestPath(relativePath: string): boolean {
  return /(^|\/)(test|tests|__tests__|spec|specs|e2e)\//i.test(relativePath) || /\.(test|spec)\.[cm]?[jt]sx?$/i.test(relativePath);
}

/**
 * Kinds that describe data rather than do anything: their doc comments tell of behaviour at length (an options
 * interface's fields), and outrank the code that has it unless the question is about shapes. At 0.8, an options
 * interface or a result type still came above the code for a quarter of the questions about behaviour.
 */
const SHAPES: ReadonlySet<string> = new Set(['interface', 'type', 'property', 'enum']);
const SHAPE_PRIOR = 0.6;
/** Words that make a question about shapes wherever they stand. */
const ABOUT_SHAPES = /\b(types?|typed|typing|interfaces?|shapes?|signatures?|generics?|structure)\b/i;
/**
 * Words of data that make a question about shapes unless it asks how something behaves: "which option sets the
 * timeout" wants the options interface, "how does a union pick which option matched" the code that picks.
 */
const DATA_WORDS = /\b(options?|fields?|propert(?:y|ies)|props|enums?|params?|parameters?|returns?)\b/i;
const ABOUT_BEHAVIOUR = /^\s*(?:how\s+(?:does|do|did|is|are|was|were|can|should)|what\s+happens|why|when\s+(?:does|do|is|are))\b/i;

/**
 * A clause of time after what the question asks for ("update cached data by hand after a mutation", "prefetch data
 * before a page renders") says when the user does it, not what the code that does it is: its words weigh this much,
 * when the words before it say two things or more (in "what runs after a mutation", the clause is all it asks).
 */
const SITUATING_CLAUSE = /^(.*?\S.*?)\b(?:after|before)\b(.*)$/i;
const SITUATING_WEIGHT = 0.5;

/** The question's words that only its trailing clause of time says (`SITUATING_CLAUSE`). */
function situatingTerms(query: string): Set<string> {
  const clause = SITUATING_CLAUSE.exec(query);
  if (!clause) return new Set();
  const asked = new Set(terms(clause[1] as string, 'query'));
  return new Set(asked.size >= 2 ? terms(clause[2] as string, 'query').filter((term) => !asked.has(term)) : []);
}

/** A declaration whose name the question writes as it is declared. */
const NAMED_PRIOR = 1.3;
/**
 * A question about where a declaration is used ("where does a mutation call mutationFn", "who calls retry"): its
 * answer is the code whose body uses the name, not the declaration, nor the types that mention it in their comments.
 */
const ABOUT_USES = /^\s*(?:where\b.*\b(?:used|called|imported|referenced|invoked|calls?|uses?|invokes?)\b|(?:who|what|which(?:\s+\w+){0,2})\s+(?:calls?|uses?|imports?|references?|invokes?)\b)/i;
/** The verbs of such a question: its wording, not words of the code it looks for. */
const USE_VERBS = /\b(?:used|uses?|called|calls?|imported|imports?|referenced|references?|invoked|invokes?)\b/gi;

function simpleName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * How far a wrapper's score is passed on (`delegate` → its callee → …), and among how many of the best-scored
 * documents wrappers are looked for: below those, passing a score on could not reach the answer.
 */
const DELEGATION_DEPTH = 3;
const DELEGATION_CANDIDATES = 50;
/** What the second of a wrapper and its callee keeps of the first's score: enough to be listed right after it. */
const WRAPPER_SHARE = 0.999;

/** Kinds a file may declare several times under one name as overloads. */
const CALLABLE: ReadonlySet<string> = new Set(['function', 'method', 'constructor']);

/** Among a function's declarations of one name in its file (overloads), the one with a body: the longest. */
function implementationOf(document: IndexedDocument, file: IndexedFile | undefined): IndexedDocument {
  let best = document;
  for (const other of file?.documents ?? []) {
    if (other.kind === document.kind && other.name === document.name && other.endLine - other.startLine > best.endLine - best.startLine) best = other;
  }
  return best;
}

/**
 * A declaration that only hands its work to another (`return new Parser(options)`, `manager.batch(() => …)`) holds
 * none of the behaviour a question about it asks for: its callee does. Among the best-scored documents, each wrapper
 * whose call says some word of the question (`delegateOf` answers only for those) passes its score to its callee,
 * which is then listed right before it, and on down a chain of wrappers; a wrapper the question names as declared
 * (`named`) is what it asks about, and keeps its place, its callee listed right after it. A callee that ranks higher
 * on its own keeps its place. True when any score changed.
 */
function passDelegatedScores(scored: RankedDocument[], delegateOf: (document: IndexedDocument) => IndexedDocument | undefined, named: (document: IndexedDocument) => boolean): boolean {
  const hits = new Map(scored.map((hit) => [hit.document, hit]));
  let changed = false;
  for (const hit of scored.slice(0, DELEGATION_CANDIDATES)) {
    let wrapper = hit;
    const seen = new Set([wrapper.document]);
    for (let depth = 0; depth < DELEGATION_DEPTH; depth++) {
      const callee = delegateOf(wrapper.document);
      if (!callee || seen.has(callee)) break;
      seen.add(callee);
      let target = hits.get(callee);
      if (!target) {
        target = { document: callee, score: 0, matched: [] };
        hits.set(callee, target);
        scored.push(target);
      }
      const passed = named(wrapper.document) ? wrapper.score * WRAPPER_SHARE : wrapper.score;
      if (target.score >= passed) break;
      target.score = passed;
      if (passed === wrapper.score) wrapper.score *= WRAPPER_SHARE;
      changed = true;
      wrapper = target;
    }
  }
  return changed;
}

/**
 * What a declaration takes of the scores of the test titles that describe it (`titleSubject`), the best first and each
 * next one half as much, from this many: a title is its authors' words for what the code does ("recursion with
 * z.lazy"), which its own words may not say. A title is scored as a comment in a test file, well below a declaration.
 */
const DESCRIBED_SHARE = 1;
const DESCRIBING_TITLES = 8;

/** A test's title that names the declaration it is about (`DocumentDraft.delegate` of a comment). */
function isDescription(document: IndexedDocument): boolean {
  return document.kind === 'comment' && document.delegate !== undefined;
}

/**
 * Passes the scores of the test titles among `scored` to the declarations they describe, which keep their own score
 * when higher; the titles leave the list (what a title is about is the answer, not the test), but for a question about
 * tests, where they stay as they are.
 */
function passDescriptions(scored: RankedDocument[], describedOf: ((document: IndexedDocument) => IndexedDocument | undefined) | undefined): RankedDocument[] {
  const kept: RankedDocument[] = [];
  const titles = new Map<IndexedDocument, RankedDocument[]>();
  for (const hit of scored) {
    if (!isDescription(hit.document)) {
      kept.push(hit);
      continue;
    }
    const described = describedOf?.(hit.document);
    if (described) titles.set(described, [...(titles.get(described) ?? []), hit]);
  }
  const hits = new Map(kept.map((hit) => [hit.document, hit]));
  for (const [described, evidence] of titles) {
    const best = evidence.sort((a, b) => b.score - a.score).slice(0, DESCRIBING_TITLES);
    const passed = DESCRIBED_SHARE * best.reduce((sum, hit, i) => sum + hit.score / (i + 1), 0);
    const matched = [...new Set(best.flatMap((hit) => hit.matched))];
    const hit = hits.get(described);
    if (!hit) kept.push({ document: described, score: passed, matched });
    else if (hit.score < passed) {
      hit.score = passed;
      hit.matched = [...new Set([...hit.matched, ...matched])];
    }
  }
  return kept;
}

/**
 * Options a question describes: an interface's members (or a class's fields) whose own comment says the question's
 * words ("the time in milliseconds after data is considered stale"), among this many of the best-scored documents, and
 * at most this many of them. An option's name (`staleTime`) is the code's word for what its comment says.
 */
const OPTION_CANDIDATES = 20;
const OPTIONS_READ = 3;

/**
 * The options among the best-scored documents, with the term of each one's name (the whole name, `staletime`, for a
 * name of several words) and its score. An option named by a word the question says is left out: the code that uses
 * that word matches it already, and passing the option's score on would rank every use of a common name (`retry`)
 * above what is declared under it.
 */
function optionsDescribed(scored: readonly RankedDocument[], termId: (term: string) => number | undefined, asked: readonly { term: string; counted: boolean }[]): { term: string; id: number; score: number }[] {
  const best = [...scored].sort((a, b) => b.score - a.score).slice(0, OPTION_CANDIDATES);
  const out: { term: string; id: number; score: number }[] = [];
  for (const hit of best) {
    if (hit.document.kind !== 'property' || hit.document.lengths[COMMENT] === 0) continue;
    const term = terms(simpleName(hit.document.name)).at(-1);
    if (term === undefined || asked.some((q) => q.term === term && q.counted) || out.some((option) => option.term === term)) continue;
    const id = termId(term);
    if (id === undefined) continue;
    out.push({ term, id, score: hit.score });
    if (out.length >= OPTIONS_READ) break;
  }
  return out;
}

/** A document that matched a query: its score, and the query terms it matched. */
export interface RankedDocument {
  document: IndexedDocument;
  score: number;
  matched: string[];
}

/**
 * The index's vocabulary (term ids, for the documents' sorted arrays) and what BM25F reads of the whole collection:
 * the documents each term is in, the summed length of each field, the documents counted.
 */
export class TermStatistics {
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  /** Documents containing each term id. */
  private readonly df: number[] = [];
  private readonly lengthSums = new Float64Array(FIELD_COUNT);
  private documentCount = 0;
  /** Counts vocabulary resets: a save in progress gives up when the term ids it reads change meaning. */
  private vocabularyEpoch = 0;

  constructor(private readonly maxTermsPerDocument: number) {}

  /** Documents counted. */
  get documents(): number {
    return this.documentCount;
  }

  /** Terms in the vocabulary, live or not. */
  get size(): number {
    return this.termNames.length;
  }

  /** Vocabulary resets so far: a term id read before a reset means something else after it. */
  get epoch(): number {
    return this.vocabularyEpoch;
  }

  /** How many documents hold a term (0 for one never seen). */
  documentFrequency(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : (this.df[id] as number);
  }

  termName(id: number): string | undefined {
    return this.termNames[id];
  }

  /**
   * Terms of changed and deleted files stay in the vocabulary; when most of it is dead, it starts over (and the index
   * with it: the walk that follows rebuilds it), so a long session does not grow without bound. True when it did.
   */
  reset(): boolean {
    if (this.termNames.length < 50_000) return false;
    const live = this.df.reduce((count, df) => count + (df > 0 ? 1 : 0), 0);
    if (live * 4 > this.termNames.length) return false;
    this.vocabularyEpoch++;
    this.termIds.clear();
    this.termNames.length = 0;
    this.df.length = 0;
    this.lengthSums.fill(0);
    this.documentCount = 0;
    return true;
  }

  /**
   * The term a typed word the vocabulary lacks most likely stands for (`RESPELT_MIN_DF`): the nearest live term with
   * the same first letter, the most used of those as near; none for short words and for words of several parts.
   */
  private respelling(term: string): { term: string; id: number } | undefined {
    if (term.length < 4 || !/^[a-z]+$/.test(term)) return undefined;
    const max = term.length >= 8 ? 2 : 1;
    let best: { term: string; id: number; distance: number; df: number } | undefined;
    this.termNames.forEach((candidate, id) => {
      const df = this.df[id] as number;
      if (df < RESPELT_MIN_DF || candidate[0] !== term[0] || Math.abs(candidate.length - term.length) > max) return;
      const distance = editDistance(term, candidate, max);
      if (distance > max || (best && (distance > best.distance || (distance === best.distance && df <= best.df)))) return;
      best = { term: candidate, id, distance, df };
    });
    return best && { term: best.term, id: best.id };
  }

  termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(term, id);
      this.termNames.push(term);
      this.df.push(0);
    }
    return id;
  }

  /** Counts a new document's terms and field lengths in the collection's statistics (`uncount` takes them out). */
  count(termArray: Uint32Array, lengths: Uint16Array): void {
    for (const id of termArray) this.df[id] = (this.df[id] as number) + 1;
    lengths.forEach((length, field) => (this.lengthSums[field] = (this.lengthSums[field] as number) + length));
    this.documentCount++;
  }

  /** Takes documents out of the counts (`count` put them in). */
  uncount(documents: readonly IndexedDocument[]): void {
    for (const document of documents) {
      for (const id of document.terms) this.df[id] = (this.df[id] as number) - 1;
      document.lengths.forEach((length, field) => (this.lengthSums[field] = (this.lengthSums[field] as number) - length));
      this.documentCount--;
    }
  }

  /** A draft's term ids (ascending), their counts per field, and each field's length in terms. Nothing changes them after. */
  termsOf(draft: DocumentDraft): Pick<IndexedDocument, 'terms' | 'counts' | 'lengths'> {
    const counts = new Map<string, number[]>();
    const lengths = new Uint16Array(FIELD_COUNT);
    draft.fields.forEach((fieldText, field) => {
      const fieldTerms = terms(fieldText);
      lengths[field] = Math.min(fieldTerms.length, 0xffff);
      for (const term of fieldTerms) {
        let row = counts.get(term);
        if (!row) counts.set(term, (row = new Array<number>(FIELD_COUNT).fill(0)));
        row[field] = (row[field] as number) + 1;
      }
    });
    let entries = [...counts.entries()];
    if (entries.length > this.maxTermsPerDocument) {
      const weight = (row: number[]): number => row.reduce((sum, count, field) => sum + count * (FIELD_WEIGHTS[field] as number), 0);
      entries = entries.sort((a, b) => weight(b[1]) - weight(a[1])).slice(0, this.maxTermsPerDocument);
    }
    const rows = entries.map(([term, row]) => ({ id: this.termId(term), row })).sort((a, b) => a.id - b.id);
    const termArray = new Uint32Array(rows.length);
    const countArray = new Uint16Array(rows.length * FIELD_COUNT);
    rows.forEach(({ id, row }, i) => {
      termArray[i] = id;
      row.forEach((count, field) => (countArray[i * FIELD_COUNT + field] = Math.min(count, 0xffff)));
    });
    return { terms: termArray, counts: countArray, lengths };
  }

  /**
   * The documents of `files` that match `query`, best first: at most `limit`, and at most `maxPerFile` of one file.
   * `prior` weighs a file's documents (its place in the import graph, `fileReach.ts`); 1 when absent. `named` are the
   * words of the question that are names the code declares, as written (`switchMap`, `retry`). `delegateOf` finds the
   * declaration a wrapper hands its work to (`IndexedDocument.delegate`), `describedOf` the one a test's title is about.
   */
  rank(
    query: string,
    files: Iterable<IndexedFile>,
    limit: number,
    maxPerFile: number | undefined,
    prior?: (file: IndexedFile) => number,
    named?: ReadonlySet<string>,
    delegateOf?: (document: IndexedDocument) => IndexedDocument | undefined,
    describedOf?: (document: IndexedDocument) => IndexedDocument | undefined,
    declaredAs?: (word: string) => readonly IndexedDocument[],
  ): RankedDocument[] {
    // In a question about where a name is used (one the code declares, or written as an identifier is), a body that
    // uses it says as much as a declaration named for it.
    const names = [...(query.match(/[A-Za-z_$][\w$]*/g) ?? [])].filter((word) => named?.has(word) || /[a-z][A-Z]|[A-Za-z]_[A-Za-z]/.test(word));
    const aboutUses = names.length > 0 && ABOUT_USES.test(query);
    const usedNames = new Set(aboutUses ? names.map((word) => terms(word).at(-1)).filter((term): term is string => term !== undefined) : []);

    // The verb that asks where a name is used ("calls", "imported") is the question's wording, not code it looks for.
    const useVerbs = new Set(aboutUses ? [...query.matchAll(USE_VERBS)].flatMap((m) => terms(m[0], 'query')) : []);
    const queryTerms = [...new Set(terms(query, 'query'))].filter((term) => !useVerbs.has(term));
    const isKnown = (q: { term: string; id: number | undefined }): q is { term: string; id: number } => q.id !== undefined && (this.df[q.id] as number) > 0;
    const known = queryTerms.map((term) => ({ term, id: this.termIds.get(term) })).filter(isKnown);
    const respelt = queryTerms.filter((term) => !known.some((q) => q.term === term)).flatMap((term) => this.respelling(term) ?? []);
    // A name the question writes as code that prose drops (`.and()`, `get()`) has no term: its declarations are found by name.
    const declaredOnly = codeWrittenWords(query)
      .filter((word) => terms(word).length === 0)
      .map((word) => ({ word, documents: new Set((declaredAs?.(word) ?? []).filter((document) => simpleName(document.name) === word && document.kind !== 'comment' && document.kind !== 'module')) }))
      .filter(({ documents }) => documents.size > 0);
    const asked = known.length + respelt.length + declaredOnly.length;
    if (asked === 0 || this.documentCount === 0 || limit <= 0) return [];
    // Words of the question that spell an identifier together add its whole-name term, which only that identifier
    // has; they are a bonus, not words a location must match to cover the question.
    const liveTerm = (term: string): boolean => this.documentFrequency(term) > 0;
    // So do the halves of a word the code writes as two (`lowercase`, where the code says `toLowerCase`).
    const halves = [...query.matchAll(/[A-Za-z]{8,}/g)].flatMap(([word]) => (terms(word, 'query').length === 1 ? wordHalves(word, liveTerm).flat() : []));
    const relatedTerms = relatedTermsOf(query, liveTerm);
    const compounds = [...new Set([...queryCompounds(query), ...halves, ...relatedTerms])]
      .filter((term) => !queryTerms.includes(term))
      .map((term) => ({ term, id: this.termIds.get(term) }))
      .filter(isKnown);
    const n = this.documentCount;
    const situating = situatingTerms(query);
    const idfOf = (df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const weighted = [
      ...known.map((q) => ({ ...q, weight: 1, counted: true })),
      ...respelt.map((q) => ({ ...q, weight: RESPELT_WEIGHT, counted: true })),
      // A compound is rare by nature: at full weight it would outweigh the question's words it is made of.
      ...compounds.map((q) => ({ ...q, weight: relatedTerms.has(q.term) ? RELATED_WEIGHT : COMPOUND_WEIGHT, counted: false })),
    ].map((q) => ({ term: q.term, id: q.id, counted: q.counted, idf: idfOf(this.df[q.id] as number) * q.weight * (situating.has(q.term) ? SITUATING_WEIGHT : 1) }));
    const nameShare = (FIELD_WEIGHTS[NAME] as number) / (K1 + (FIELD_WEIGHTS[NAME] as number));
    const byName = declaredOnly.map(({ word, documents }) => ({ word, documents, score: idfOf(documents.size) * nameShare }));
    const averages = Array.from(this.lengthSums, (sum) => Math.max(sum / n, 1));
    // Questions about tests should find tests; other questions want the code under test first.
    const aboutTests = /\b(test|tests|tested|testing|spec|specs)\b/i.test(query);
    // Questions about what a value looks like want its types; the others want the code that does the work.
    const aboutShapes = ABOUT_SHAPES.test(query) || (DATA_WORDS.test(query) && !ABOUT_BEHAVIOUR.test(query));
    let scored: RankedDocument[] = [];
    const fileOf = new Map<string, IndexedFile>();
    /** What one term of the question adds to a document's score before the priors; 0 where it is absent. */
    const termScore = (document: IndexedDocument, q: { term: string; id: number; idf: number }): number => {
      const at = indexOfTerm(document.terms, q.id);
      if (at < 0) return 0;
      // What a declaration says of itself (name, signature, comment) and what surrounds it (its file's path and
      // header, the words its body happens to use) are saturated apart: a word repeated all over a long body, or
      // one its file's header has, must not count as much as a declaration named or documented for it.
      let said = 0;
      let used = 0;
      // Where a name is used, prose that mentions it is no use of it, and neither is a type that declares it as a
      // member (`interface Options { load: Loader }`): only its own name counts. A class's body uses a name where one
      // of its members does, which is a document of its own and the answer.
      const inUse = usedNames.has(q.term);
      const declaresOnly = inUse && SHAPES.has(document.kind);
      const byMembers = inUse && document.kind === 'class';
      for (let field = 0; field < FIELD_COUNT; field++) {
        const count = document.counts[at * FIELD_COUNT + field] as number;
        if (count === 0 || (inUse && field === COMMENT) || (declaresOnly && field !== NAME) || (byMembers && field === BODY)) continue;
        const b = FIELD_B[field] as number;
        const tf = ((FIELD_WEIGHTS[field] as number) * count) / (1 - b + (b * (document.lengths[field] as number)) / (averages[field] as number));
        if (field >= CONTEXT) used += tf;
        else said += tf;
      }
      if (said + used === 0) return 0;
      return q.idf * (said / (K1 + said) + ((inUse ? 1 : BODY_SHARE) * used) / (K1 + used));
    };
    const penaltyOf = (file: IndexedFile): number => (!aboutTests && isTestPath(file.relativePath) ? 0.5 : 1) * (prior?.(file) ?? 1);
    for (const file of files) {
      const filePenalty = penaltyOf(file);
      fileOf.set(file.relativePath, file);
      for (const document of file.documents) {
        let score = 0;
        let covered = 0;
        const matched: string[] = [];
        for (const q of weighted) {
          const added = termScore(document, q);
          if (added === 0) continue;
          score += added;
          matched.push(q.term);
          if (q.counted) covered++;
        }
        for (const name of byName) {
          if (!name.documents.has(document)) continue;
          score += name.score;
          matched.push(name.word);
          covered++;
        }
        if (score <= 0) continue;
        // A location matching more of the question's words beats one matching a single word very often.
        const coverage = covered / asked;
        const kindPrior = document.kind === 'comment' ? 0.8 : document.kind === 'module' ? 0.9 : !aboutShapes && SHAPES.has(document.kind) ? SHAPE_PRIOR : 1;
        // A declaration the question names outright is what it asks about, more than those that mention it.
        const namedPrior = !aboutUses && named?.has(simpleName(document.name)) && document.kind !== 'comment' && document.kind !== 'module' ? NAMED_PRIOR : 1;
        scored.push({ document, score: score * (0.5 + 0.5 * coverage) * kindPrior * namedPrior * filePenalty, matched });
      }
    }
    // The code that reads an option the question describes in its comment's words (`optionsDescribed`) does what the
    // comment says: each reader takes the option's score as its comment would weigh on code (without the shapes' prior
    // of a question about behaviour), in proportion to how strongly it uses the name (in its name or signature more
    // than in its body; the strongest reader takes it all). A reader that ranks higher on its own keeps its score.
    const readerShare = aboutShapes ? 1 : 1 / SHAPE_PRIOR;
    const options = optionsDescribed(scored, (term) => this.termIds.get(term), weighted).map((option) => {
      const df = this.df[option.id] as number;
      return { ...option, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)), readers: [] as { document: IndexedDocument; strength: number }[] };
    });
    if (options.length > 0) {
      for (const file of fileOf.values()) {
        const filePenalty = penaltyOf(file);
        for (const document of file.documents) {
          if (SHAPES.has(document.kind) || document.kind === 'comment') continue;
          for (const option of options) {
            const strength = termScore(document, option) * filePenalty;
            if (strength > 0) option.readers.push({ document, strength });
          }
        }
      }
      const hits = new Map(scored.map((hit) => [hit.document, hit]));
      for (const option of options) {
        const strongest = option.readers.reduce((most, reader) => Math.max(most, reader.strength), 0);
        for (const { document, strength } of option.readers) {
          const score = (readerShare * option.score * strength) / strongest;
          const hit = hits.get(document);
          if (!hit) {
            const added = { document, score, matched: [option.term] };
            hits.set(document, added);
            scored.push(added);
          } else if (hit.score < score) {
            hit.score = score;
            if (!hit.matched.includes(option.term)) hit.matched.push(option.term);
          }
        }
      }
    }
    if (!aboutTests) scored = passDescriptions(scored, describedOf);
    const order = (a: RankedDocument, b: RankedDocument): number => b.score - a.score || a.document.file.localeCompare(b.document.file) || a.document.startLine - b.document.startLine;
    scored.sort(order);
    // A call that says none of the question's words is plumbing many wrappers share (`operate(…)` of every operator),
    // not what the question asks about. A question about where a name is used asks for its callers, wrappers included.
    const askedTerms = new Set(known.map((q) => q.term));
    const handedTo = (document: IndexedDocument): IndexedDocument | undefined => {
      const wrapper = CALLABLE.has(document.kind) ? implementationOf(document, fileOf.get(document.file)) : document;
      return wrapper.delegate !== undefined && terms(wrapper.delegate).some((term) => askedTerms.has(term)) ? delegateOf?.(wrapper) : undefined;
    };
    if (delegateOf && !aboutUses && passDelegatedScores(scored, handedTo, (document) => named?.has(simpleName(document.name)) === true)) scored.sort(order);

    const perFile = new Map<string, number>();
    const chosen: typeof scored = [];
    const places = new Set<string>();
    for (const hit of scored) {
      if (chosen.length >= limit) break;
      const count = perFile.get(hit.document.file) ?? 0;
      if (maxPerFile !== undefined && count >= maxPerFile) continue;
      // A function's overload signatures and its implementation are one place, shown at the implementation.
      let { document } = hit;
      if (CALLABLE.has(document.kind)) {
        const place = `${document.file}\0${document.kind}\0${document.name}`;
        if (places.has(place)) continue;
        places.add(place);
        document = implementationOf(document, fileOf.get(document.file));
      }
      perFile.set(hit.document.file, count + 1);
      chosen.push(document === hit.document ? hit : { ...hit, document });
    }
    return chosen;
  }
}
