// Recent completions keyed by the text before the cursor, so typing through a suggestion is served the rest of it without a model call.

/** A completion as it was offered: where (the text around the cursor then) and what. */
export interface CachedCompletion<M> {
  prefix: string;
  suffix: string;
  text: string;
  meta: M;
}

/** Completions kept per document, and documents kept. */
const PER_DOCUMENT = 8;
const DOCUMENTS = 32;

export class CompletionCache<M> {
  private readonly byUri = new Map<string, CachedCompletion<M>[]>();

  /**
   * The rest of a completion the user is typing through: one offered where the text before the cursor was a start of
   * `prefix`, with the same text after the cursor, whose text begins with what was typed since. Undefined when none,
   * or when the user typed all of it.
   */
  lookup(uri: string, prefix: string, suffix: string): { text: string; meta: M } | undefined {
    for (const entry of this.byUri.get(uri) ?? []) {
      if (entry.suffix !== suffix || prefix.length < entry.prefix.length || !prefix.startsWith(entry.prefix)) continue;
      const typed = prefix.slice(entry.prefix.length);
      if (typed.length < entry.text.length && entry.text.startsWith(typed)) return { text: entry.text.slice(typed.length), meta: entry.meta };
    }
    return undefined;
  }

  add(uri: string, entry: CachedCompletion<M>): void {
    const entries = this.byUri.get(uri) ?? [];
    this.byUri.delete(uri);
    this.byUri.set(uri, [entry, ...entries.filter((e) => e.prefix !== entry.prefix || e.suffix !== entry.suffix)].slice(0, PER_DOCUMENT));
    if (this.byUri.size > DOCUMENTS) this.byUri.delete(this.byUri.keys().next().value as string);
  }

  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  clear(): void {
    this.byUri.clear();
  }
}
