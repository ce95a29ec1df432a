// Ranked retrieval over the workspace's declarations by embeddings from a model endpoint: vectors made once per declaration text and kept, the query compared by cosine similarity.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { IndexedDeclaration, LexicalIndex } from './lexical/lexicalIndex.js';

/** Makes embeddings; `key` names the model and endpoint, so vectors of different models never mix. */
export interface Embedder {
  key: string;
  embed(texts: readonly string[], signal: AbortSignal): Promise<number[][]>;
}

/** Texts sent in one request to `/embeddings`. */
const BATCH = 128;
/** Most declarations embedded for one workspace: beyond it the lexical index answers alone for the rest. */
export const MAX_EMBEDDED = 20_000;
/** Most vectors kept over all workspaces and models, so a long session stays bounded (about 6 MB at 1,536 dimensions × 1,000). */
const MAX_VECTORS = 60_000;

/** The text a declaration is embedded as: what it is, where, and its signature (never a file the index leaves out). */
export function embeddingText(d: IndexedDeclaration): string {
  return `${d.kind} ${d.name} in ${d.path}\n${d.signature}`;
}

const vectors = new Map<string, Float32Array>();

function keyOf(embedder: Embedder, text: string): string {
  return `${embedder.key}\u0000${createHash('sha1').update(text).digest('base64')}`;
}

function normalised(vector: readonly number[]): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (const x of out) norm += x * x;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) * scale;
  return out;
}

function remember(key: string, vector: Float32Array): void {
  vectors.delete(key);
  vectors.set(key, vector);
  if (vectors.size > MAX_VECTORS) {
    const oldest = vectors.keys().next().value;
    if (oldest !== undefined) vectors.delete(oldest);
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  for (let i = 0; i < n; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

export interface EmbeddedHit {
  declaration: IndexedDeclaration;
  score: number;
}

/**
 * The declarations closest to the query by embeddings. Declarations not embedded yet (new, or changed since) are
 * embedded first, in batches; later queries only embed the query. The index decides which files exist, so ignored
 * and secret files are never embedded.
 */
export async function embeddingSearch(index: LexicalIndex, embedder: Embedder, query: string, limit: number, signal: AbortSignal): Promise<EmbeddedHit[]> {
  const declarations = index.declarations(() => true, MAX_EMBEDDED);
  const texts = declarations.map(embeddingText);
  const missing = [...new Set(texts.filter((text) => !vectors.has(keyOf(embedder, text))))];
  for (let i = 0; i < missing.length; i += BATCH) {
    signal.throwIfAborted();
    const batch = missing.slice(i, i + BATCH);
    const made = await embedder.embed(batch, signal);
    batch.forEach((text, j) => remember(keyOf(embedder, text), normalised(made[j] ?? [])));
  }
  const [queryVector] = await embedder.embed([query], signal);
  const q = normalised(queryVector ?? []);
  const hits: EmbeddedHit[] = [];
  declarations.forEach((declaration, i) => {
    const vector = vectors.get(keyOf(embedder, texts[i] as string));
    if (vector) hits.push({ declaration, score: cosine(q, vector) });
  });
  return hits.sort((a, b) => b.score - a.score || a.declaration.path.localeCompare(b.declaration.path) || a.declaration.startLine - b.declaration.startLine).slice(0, limit);
}

/** Reciprocal-rank fusion of ranked lists of keys: each list adds 1 / (k + rank); ties keep the first list's order. */
export function fuseRankings(lists: readonly (readonly string[])[], k = 60): string[] {
  const scores = new Map<string, number>();
  const first = new Map<string, number>();
  let order = 0;
  for (const list of lists) {
    list.forEach((key, rank) => {
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + rank + 1));
      if (!first.has(key)) first.set(key, order++);
    });
  }
  return [...scores.keys()].sort((a, b) => (scores.get(b) as number) - (scores.get(a) as number) || (first.get(a) as number) - (first.get(b) as number));
}

/** A location's key for fusion: the file and the first line. */
export function locationKey(file: string, startLine: number): string {
  return `${file.split(path.sep).join('/')}:${startLine}`;
}
