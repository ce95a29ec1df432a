// Reads a workspace's trace beside the servers that write it, answering as `assistant/trace` does, and writes nothing.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Interaction, TraceParams, TraceResult } from '../protocol.js';
import { DEFAULT_SETTINGS } from '../protocol.js';
import { parseAnnotations } from '../edits/annotation.js';
import { traceDirectoryOf } from '../workspace/confinement.js';
import { languageIdForPath, pathToUri, uriToPath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { userDataDirectory } from '../workspace/userCache.js';
import { InsertionTracker } from './insertionTracker.js';
import { compareNewestFirst, matchesFilter, parseTraceParams } from './traceQuery.js';
import { TraceStore } from './traceStore.js';

/** Where a workspace's trace is, as the server on that workspace decides it. */
export interface TraceLocation {
  root: string;
  directory: string;
  /** Why the configured folder was refused (the server then writes to the default one, as here). */
  problem?: string;
}

/**
 * The trace folder of the server on `root` whose `trace.directory` setting is `configured` (the default when absent):
 * a folder the server would refuse is replaced by the default, as the server replaces it.
 */
export function traceLocation(root: string, configured: string | undefined, env: NodeJS.ProcessEnv): TraceLocation {
  const fallback = DEFAULT_SETTINGS.trace.directory;
  const { directory, problem } = traceDirectoryOf(root, configured ?? fallback, fallback, userDataDirectory(env));
  return { root, directory, ...(problem ? { problem } : {}) };
}

/**
 * The workspace a command run in `start` reads: the nearest folder from `start` up whose default trace folder exists
 * (a command run in a subfolder of the project), else `start` itself, which the server takes when no editor names one.
 */
export function findWorkspaceRoot(start: string): string {
  const from = path.resolve(start);
  for (let folder = from; ; folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, DEFAULT_SETTINGS.trace.directory))) return folder;
    if (path.dirname(folder) === folder) return from;
  }
}

/** The outcome of looking an interaction up by an id or the start of one. */
export type IdLookup = { kind: 'found'; interaction: Interaction } | { kind: 'ambiguous'; candidates: Interaction[]; more: boolean } | { kind: 'unknown' };

/** How many candidates an ambiguous prefix lists. */
const CANDIDATES = 10;

function readText(fsPath: string): string | undefined {
  try {
    return fs.readFileSync(fsPath, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every session's interactions of one trace folder, read as a server reads other sessions' segments (safe while they
 * write) through a store that only reads. The queries are `assistant/trace`'s, on the files as they are on disk.
 */
export class TraceReader {
  private readonly insertions: InsertionTracker;

  private constructor(
    readonly location: TraceLocation,
    private readonly store: TraceStore,
    onWarning: (message: string) => void,
  ) {
    const disk = (uri: string): string | undefined => {
      const fsPath = uriToPath(uri);
      return fsPath === undefined ? undefined : readText(fsPath);
    };
    // Finds where inserted code is now in the files on disk; the store refuses the amendments it could write.
    this.insertions = new InsertionTracker(store, disk, disk, onWarning);
  }

  static async open(location: TraceLocation, onWarning: (message: string) => void): Promise<TraceReader> {
    const session = { id: `reader-${randomUUID()}`, startedAt: new Date().toISOString(), user: '', role: 'developer' as const, workspace: location.root, pid: process.pid };
    const store = await TraceStore.open({ directory: location.directory, session, segmentSize: 1, readOnly: true, onWarning });
    return new TraceReader(location, store, onWarning);
  }

  /** How many interactions the trace holds. */
  get size(): number {
    return this.store.query({ limit: 1 }).total;
  }

  /** `assistant/trace` without a position; throws a TypeError naming a malformed parameter. */
  query(params: TraceParams): TraceResult {
    return this.store.query(params);
  }

  /**
   * Code to interaction: the interactions whose code is at the 1-based `line` of a file (as `assistant/trace` with a
   * position answers), or anywhere in it without a line, narrowed and paged by `params` as a list query is. Undefined
   * when the file cannot be read.
   */
  async at(fsPath: string, line: number | undefined, params: TraceParams): Promise<TraceResult | undefined> {
    const filter = parseTraceParams(params);
    const text = readText(fsPath);
    if (text === undefined) return undefined;
    const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: languageIdForPath(fsPath), version: null, text };
    let found: Interaction[];
    if (line === undefined) {
      const ids = new Set([...parseAnnotations(text).map((annotation) => annotation.interactionId), ...this.insertions.idsIn(document.uri, text)]);
      found = [...ids].flatMap((id) => {
        const interaction = this.store.get(id);
        return interaction ? [this.insertions.overlay(interaction)] : [];
      });
      found.sort(compareNewestFirst);
    } else {
      // The syntax (and so the compiler) is loaded only for a position.
      const { interactionsAt } = await import('./positionLookup.js');
      const lineText = text.split('\n')[line - 1] ?? '';
      const character = lineText.length - lineText.trimStart().length;
      found = interactionsAt(this.store, this.insertions, document, { line: line - 1, character });
    }
    const matches = found.filter((interaction) => matchesFilter(interaction, filter));
    const result: TraceResult = { interactions: matches.slice(filter.offset, filter.offset + filter.limit), total: matches.length };
    if (filter.offset + filter.limit < matches.length) result.nextOffset = filter.offset + filter.limit;
    return result;
  }

  /** An interaction by its id, or by the start of one that no other id starts with. */
  lookUp(idOrPrefix: string): IdLookup {
    const exact = this.store.get(idOrPrefix);
    if (exact) return { kind: 'found', interaction: exact };
    const ids = idOrPrefix === '' ? [] : this.store.idsStartingWith(idOrPrefix, CANDIDATES + 1);
    const interactions = ids.flatMap((id) => this.store.get(id) ?? []);
    if (interactions.length === 0) return { kind: 'unknown' };
    if (interactions.length === 1) return { kind: 'found', interaction: interactions[0] as Interaction };
    return { kind: 'ambiguous', candidates: interactions.sort(compareNewestFirst).slice(0, CANDIDATES), more: interactions.length > CANDIDATES };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
