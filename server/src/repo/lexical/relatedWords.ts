// Everyday words and the words code uses for the same thing ("wipe" and `clear`, "older" and `previous`), for questions typed in other words than the code's.

/**
 * Groups of words that name one operation or one kind of thing in code, written from general programming usage (the
 * verbs of collections, caches, streams, validation and time; the nouns of data), not from any question set. A
 * question's word adds the other words of its group as a bonus (`bm25f.ts`); unlike `SYNONYM_GROUPS` in `terms.ts`,
 * nothing is folded in the index, so an exact word still ranks first.
 */
const RELATED_GROUPS: readonly string[] = [
  // Taking things away.
  'remove delete erase wipe clear purge drop discard evict destroy dispose',
  'clear reset empty flush',
  'cancel abort stop halt interrupt unsubscribe',
  // Making and keeping.
  'create make build construct instantiate new',
  'add insert append push put',
  'save store persist write',
  'copy clone duplicate',
  'load fetch retrieve read request download',
  'send post submit upload dispatch',
  'update modify change edit alter mutate patch set',
  'restore revert undo rollback',
  // Looking things up.
  'find search lookup locate query',
  'check validate verify assert ensure',
  'compare diff equal equality same identical',
  'filter exclude skip ignore omit reject',
  'pick select choose include keep',
  'sort order arrange rank',
  'count size length total',
  // Turning one thing into another.
  'convert transform map cast coerce',
  'parse decode deserialize read',
  'format serialize stringify encode print',
  'merge combine join concat union',
  'split divide chunk partition',
  'wrap decorate enhance',
  'flatten unnest',
  // Events and time.
  'listen subscribe watch observe',
  'notify emit dispatch publish fire trigger broadcast',
  'wait delay defer sleep pause',
  'repeat retry again',
  'debounce throttle',
  'expire timeout stale outdated',
  'schedule timer interval periodic poll',
  'start begin open launch init',
  'end finish complete done close finalize',
  'fail error failure exception throw reject',
  // Order and position.
  'previous prev prior older earlier preceding before',
  'next following newer later subsequent after',
  'first initial head start leading',
  'last final tail end trailing',
  'current latest recent',
  'default fallback initial',
  // Kinds of data.
  'integer int whole',
  'decimal float fraction',
  'text string str',
  'list array arr',
  'dictionary dict record map hash object',
  'key id identifier',
  'limit max maximum cap upper',
  'minimum min lower floor',
  'optional nullable maybe missing',
  'required mandatory needed',
  'readonly immutable frozen freeze',
  'lowercase lower downcase',
  'uppercase upper upcase capitalize',
  'whitespace space blank trim strip',
  'message text label description',
  'translate locale language localize',
  'user account person',
  'password secret credential token',
  'permission role access grant',
  'log print trace debug',
  'test spec check',
];

/** Each word's related words, as typed (the caller normalises them into the index's terms). */
const RELATED: ReadonlyMap<string, readonly string[]> = (() => {
  const related = new Map<string, Set<string>>();
  for (const group of RELATED_GROUPS) {
    const words = group.split(' ');
    for (const word of words) {
      const others = related.get(word) ?? new Set<string>();
      for (const other of words) if (other !== word) others.add(other);
      related.set(word, others);
    }
  }
  return new Map([...related].map(([word, others]) => [word, [...others]]));
})();

/** The words related to a typed word (lower case; its forms in -s, -es, -d, -ed, -ing and -ies looked up too). */
export function relatedWords(word: string): readonly string[] {
  const lower = word.toLowerCase();
  const forms = [lower, ...[/s$/, /es$/, /d$/, /ed$/, /ing$/].map((ending) => lower.replace(ending, '')), lower.replace(/ing$/, 'e'), lower.replace(/ie[sd]$/, 'y')];
  for (const form of forms) {
    const found = RELATED.get(form);
    if (found) return found;
  }
  return [];
}
