// In-memory indexes of the trace: interactions by id, in time order (overall, per task, session and agent) and by where their code was inserted.
import type { Interaction } from '../protocol.js';
import { instantOf, matchesFilter, type AppliedConditions, type TraceFilter } from './traceQuery.js';

/** One indexed interaction; `source` is where the store read it from (its segment). */
export interface TraceEntry<S> {
  readonly id: string;
  interaction: Interaction;
  source: S;
  /** The sort key is this instant (epoch ms; -Infinity when the timestamp does not parse), then the id. */
  instant: number;
  task: unknown;
  sessionId: unknown;
  /** Distinct agent names of the responses. */
  agents: unknown[];
  /** Whether the entry is in the time-ordered lists yet; new entries wait in `pending` until the next read. */
  listed: boolean;
}

interface InsertionRef<S> {
  entry: TraceEntry<S>;
  firstLine: number;
  lastLine: number;
}

/** Oldest first, the id breaking ties: the reverse of `compareNewestFirst`. */
function compareOldestFirst<S>(a: TraceEntry<S>, b: TraceEntry<S>): number {
  if (a.instant < b.instant) return -1;
  if (a.instant > b.instant) return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Entries sorted oldest first; appends of new interactions land at the end. */
class TimeOrderedList<S> {
  items: TraceEntry<S>[] = [];

  /** First index whose instant is at least `instant`. */
  lowerBound(instant: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] as TraceEntry<S>).instant < instant) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose entry sorts at or after `entry`. */
  private positionOf(entry: TraceEntry<S>): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareOldestFirst(this.items[mid] as TraceEntry<S>, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(entry: TraceEntry<S>): void {
    const last = this.items.at(-1);
    if (last === undefined || compareOldestFirst(last, entry) < 0) this.items.push(entry);
    else this.items.splice(this.positionOf(entry), 0, entry);
  }

  remove(entry: TraceEntry<S>): void {
    const position = this.positionOf(entry);
    if (this.items[position] === entry) {
      this.items.splice(position, 1);
      return;
    }
    // Not where its key says (cannot happen while keys change only through remove and insert): search it out.
    const found = this.items.indexOf(entry);
    if (found >= 0) this.items.splice(found, 1);
  }

  /** Adds entries already sorted oldest first, in one pass over the list. */
  merge(batch: readonly TraceEntry<S>[]): void {
    if (batch.length <= 8) {
      for (const entry of batch) this.insert(entry);
      return;
    }
    const items = this.items;
    const last = items.at(-1);
    if (last === undefined || compareOldestFirst(last, batch[0] as TraceEntry<S>) < 0) {
      for (const entry of batch) items.push(entry);
      return;
    }
    const merged: TraceEntry<S>[] = new Array<TraceEntry<S>>(items.length + batch.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < items.length && j < batch.length) {
      const a = items[i] as TraceEntry<S>;
      const b = batch[j] as TraceEntry<S>;
      if (compareOldestFirst(a, b) <= 0) {
        merged[k++] = a;
        i++;
      } else {
        merged[k++] = b;
        j++;
      }
    }
    while (i < items.length) merged[k++] = items[i++] as TraceEntry<S>;
    while (j < batch.length) merged[k++] = batch[j++] as TraceEntry<S>;
    this.items = merged;
  }

  /** The index range [lo, hi) of entries with a parsable time within [since, until). */
  range(since: number | undefined, until: number | undefined): [number, number] {
    if (since === undefined && until === undefined) return [0, this.items.length];
    // Unparsable times sort first (-Infinity) and never match a time bound.
    const lo = this.lowerBound(since ?? -Number.MAX_VALUE);
    const hi = until === undefined ? this.items.length : this.lowerBound(until);
    return [lo, Math.max(lo, hi)];
  }
}

const EMPTY_LIST = new TimeOrderedList<never>();

/** Finite line numbers of an insertion record; undefined when it is malformed. */
function insertedLines(insertion: unknown): { firstLine: number; lastLine: number; uri: string } | undefined {
  if (typeof insertion !== 'object' || insertion === null) return undefined;
  const { uri, range } = insertion as { uri?: unknown; range?: { start?: { line?: unknown }; end?: { line?: unknown; character?: unknown } } };
  const first = range?.start?.line;
  const end = range?.end?.line;
  if (typeof uri !== 'string' || typeof first !== 'number' || typeof end !== 'number') return undefined;
  // An insertion of whole lines ends at character 0 of the following line, which holds none of the inserted code.
  const lastLine = range?.end?.character === 0 && end > first ? end - 1 : end;
  return { uri, firstLine: first, lastLine };
}

/** The insertion ranges an interaction is indexed under, as one comparable string. */
function insertionKey(interaction: Interaction): string {
  let key = '';
  for (const response of interaction.responses) {
    if (!Array.isArray(response.insertedAt)) continue;
    for (const insertion of response.insertedAt as unknown[]) {
      const lines = insertedLines(insertion);
      if (lines !== undefined) key += `${lines.firstLine}:${lines.lastLine}:${lines.uri}\n`;
    }
  }
  return key;
}

function distinctAgents(interaction: Interaction): unknown[] {
  const names: unknown[] = [];
  for (const response of interaction.responses) {
    const name: unknown = response.agent.name;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function sameKeys(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

export class TraceIndex<S> {
  private readonly entries = new Map<string, TraceEntry<S>>();
  private readonly all = new TimeOrderedList<S>();
  private readonly byTask = new Map<unknown, TimeOrderedList<S>>();
  private readonly bySession = new Map<unknown, TimeOrderedList<S>>();
  private readonly byAgent = new Map<unknown, TimeOrderedList<S>>();
  private readonly insertions = new Map<string, InsertionRef<S>[]>();
  /** Counts changes to `insertions`, so a reader can tell that there may be new ones without listing them. */
  private insertionChanges = 0;
  /** Entries added since the last read; sorted into the lists in one merge (a whole file's worth at a time). */
  private pending: TraceEntry<S>[] = [];

  get size(): number {
    return this.entries.size;
  }

  /** Entries added or moved since the lists were last sorted. */
  get pendingCount(): number {
    return this.pending.length;
  }

  get(id: string): TraceEntry<S> | undefined {
    return this.entries.get(id);
  }

  /** The ids that start with `prefix`, at most `limit` of them. */
  idsStartingWith(prefix: string, limit: number): string[] {
    const ids: string[] = [];
    for (const id of this.entries.keys()) {
      if (!id.startsWith(prefix)) continue;
      ids.push(id);
      if (ids.length >= limit) break;
    }
    return ids;
  }

  /**
   * Adds an interaction, or replaces the one with its id (which then comes from `source`) unless `keep` says the
   * existing entry stays.
   */
  set(interaction: Interaction, source: S, keep?: (existing: TraceEntry<S>) => boolean): TraceEntry<S> {
    const existing = this.entries.get(interaction.id);
    if (existing !== undefined) {
      if (keep?.(existing) !== true) this.replace(existing, interaction, source);
      return existing;
    }
    const entry: TraceEntry<S> = {
      id: interaction.id,
      interaction,
      source,
      instant: instantOf(interaction),
      task: interaction.task,
      sessionId: interaction.sessionId,
      agents: distinctAgents(interaction),
      listed: false,
    };
    this.entries.set(entry.id, entry);
    this.pending.push(entry);
    this.addInsertions(entry);
    return entry;
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.unlist(entry);
    this.removeInsertions(entry);
    this.entries.delete(id);
  }

  private replace(entry: TraceEntry<S>, interaction: Interaction, source: S): void {
    const instant = instantOf(interaction);
    const agents = distinctAgents(interaction);
    const moved =
      instant !== entry.instant ||
      interaction.task !== entry.task ||
      interaction.sessionId !== entry.sessionId ||
      !sameKeys(agents, entry.agents);
    // A re-read segment replaces every interaction with an equal copy: keep the insertion refs when they still hold.
    const sameInsertions = insertionKey(entry.interaction) === insertionKey(interaction);
    if (!sameInsertions) this.removeInsertions(entry);
    if (moved) this.unlist(entry);
    entry.interaction = interaction;
    entry.source = source;
    entry.instant = instant;
    entry.task = interaction.task;
    entry.sessionId = interaction.sessionId;
    entry.agents = agents;
    if (moved) this.pending.push(entry);
    if (!sameInsertions) this.addInsertions(entry);
  }

  /** Takes an entry out of the time-ordered lists (or out of `pending`), using the keys it was listed under. */
  private unlist(entry: TraceEntry<S>): void {
    if (!entry.listed) {
      const at = this.pending.indexOf(entry);
      if (at >= 0) this.pending.splice(at, 1);
      return;
    }
    this.all.remove(entry);
    this.byTask.get(entry.task)?.remove(entry);
    this.bySession.get(entry.sessionId)?.remove(entry);
    for (const agent of entry.agents) this.byAgent.get(agent)?.remove(entry);
    entry.listed = false;
  }

  private addInsertions(entry: TraceEntry<S>): void {
    this.insertionChanges++;
    for (const response of entry.interaction.responses) {
      if (!Array.isArray(response.insertedAt)) continue;
      for (const insertion of response.insertedAt as unknown[]) {
        const lines = insertedLines(insertion);
        if (lines === undefined) continue;
        let refs = this.insertions.get(lines.uri);
        if (refs === undefined) this.insertions.set(lines.uri, (refs = []));
        refs.push({ entry, firstLine: lines.firstLine, lastLine: lines.lastLine });
      }
    }
  }

  private removeInsertions(entry: TraceEntry<S>): void {
    this.insertionChanges++;
    const uris = new Set<string>();
    for (const response of entry.interaction.responses) {
      if (!Array.isArray(response.insertedAt)) continue;
      for (const insertion of response.insertedAt as unknown[]) {
        const lines = insertedLines(insertion);
        if (lines !== undefined) uris.add(lines.uri);
      }
    }
    for (const uri of uris) {
      const refs = this.insertions.get(uri);
      if (refs === undefined) continue;
      const kept = refs.filter((ref) => ref.entry !== entry);
      if (kept.length) this.insertions.set(uri, kept);
      else this.insertions.delete(uri);
    }
  }

  /** Sorts what was added since the last read into the lists. */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending.sort(compareOldestFirst);
    this.pending = [];
    this.all.merge(batch);
    const groups = (key: (entry: TraceEntry<S>) => readonly unknown[], lists: Map<unknown, TimeOrderedList<S>>): void => {
      const grouped = new Map<unknown, TraceEntry<S>[]>();
      for (const entry of batch) {
        for (const value of key(entry)) {
          const group = grouped.get(value);
          if (group) group.push(entry);
          else grouped.set(value, [entry]);
        }
      }
      for (const [value, group] of grouped) {
        let list = lists.get(value);
        if (list === undefined) lists.set(value, (list = new TimeOrderedList<S>()));
        list.merge(group);
      }
    };
    groups((entry) => [entry.task], this.byTask);
    groups((entry) => [entry.sessionId], this.bySession);
    groups((entry) => entry.agents, this.byAgent);
    for (const entry of batch) entry.listed = true;
  }

  /** Every entry, newest first. */
  newestFirst(): TraceEntry<S>[] {
    this.flush();
    return [...this.all.items].reverse();
  }

  /**
   * The page of entries matching a filter, newest first, and how many match in all. Starts from the shortest list
   * that applies one of its conditions, cut to its time bounds by binary search, so a query without further
   * conditions touches only the entries it returns. `view` is what the conditions are checked on (the store's
   * amended copy, where amendments matter to them).
   */
  query(filter: TraceFilter, view: (entry: TraceEntry<S>) => Interaction = (entry) => entry.interaction): { entries: TraceEntry<S>[]; total: number } {
    this.flush();
    if (filter.id !== undefined) {
      const entry = this.entries.get(filter.id);
      const matches = entry !== undefined && matchesFilter(view(entry), filter, { id: true }) ? [entry] : [];
      return { entries: matches.slice(filter.offset, filter.offset + filter.limit), total: matches.length };
    }
    let list: TimeOrderedList<S> = this.all;
    let applied: AppliedConditions = { time: true };
    const consider = (candidate: TimeOrderedList<S> | undefined, condition: AppliedConditions): void => {
      const chosen = candidate ?? EMPTY_LIST;
      if (list === this.all || chosen.items.length < list.items.length) {
        list = chosen;
        applied = { time: true, ...condition };
      }
    };
    if (filter.task !== undefined) consider(this.byTask.get(filter.task), { task: true });
    if (filter.sessionId !== undefined) consider(this.bySession.get(filter.sessionId), { sessionId: true });
    if (filter.agent !== undefined) consider(this.byAgent.get(filter.agent), { agent: true });

    const [lo, hi] = list.range(filter.since, filter.until);
    const items = list.items;
    const { offset, limit } = filter;
    const checked =
      (filter.task !== undefined && !applied.task) ||
      (filter.sessionId !== undefined && !applied.sessionId) ||
      (filter.agent !== undefined && !applied.agent) ||
      filter.used !== undefined ||
      filter.needle !== undefined;
    const entries: TraceEntry<S>[] = [];
    if (!checked) {
      for (let i = hi - 1 - offset; i >= lo && entries.length < limit; i--) entries.push(items[i] as TraceEntry<S>);
      return { entries, total: hi - lo };
    }
    let total = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const entry = items[i] as TraceEntry<S>;
      if (!matchesFilter(view(entry), filter, applied)) continue;
      if (total >= offset && entries.length < limit) entries.push(entry);
      total++;
    }
    return { entries, total };
  }

  get insertionsVersion(): number {
    return this.insertionChanges;
  }

  /** The ids of the entries with a response inserted into `uri`. */
  idsInsertedInto(uri: string): string[] {
    return [...new Set((this.insertions.get(uri) ?? []).map((ref) => ref.entry.id))];
  }

  /** Entries with a response inserted at `uri` over the 0-based `line`, newest first. */
  atInsertion(uri: string, line: number): TraceEntry<S>[] {
    const refs = this.insertions.get(uri);
    if (refs === undefined) return [];
    const found = new Set<TraceEntry<S>>();
    for (const ref of refs) if (line >= ref.firstLine && line <= ref.lastLine) found.add(ref.entry);
    return [...found].sort((a, b) => compareOldestFirst(b, a));
  }
}
