// Benchmark section (own process): the retrieval index (repo/lexical/) built cold, then queried warm.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, now, sectionMain, stallMonitor, summarize, timeRuns } from '../support.mjs';

const { LexicalIndex } = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', 'repo', 'lexical', 'lexicalIndex.js')).href);
const { WorkspaceFiles } = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', 'workspace', 'workspaceFiles.js')).href);
/** A listing of the folder of its own, so each cold build walks it as a new process does. */
const freshListing = (root) => ({ files: new WorkspaceFiles(root) });

const FIXED_QUERIES = ['where is the configuration loaded', 'how are records filtered by tag', 'error when an item is not found', 'score with weights and tags', 'load a batch of records', 'summary of totals by status', 'rename a symbol across files', 'parse the settings'];

/** Questions made of the file's own identifiers, so they hit; with the fixed ones, some miss. */
function queriesFrom(text, count) {
  const words = [...new Set(text.match(/[A-Za-z][A-Za-z0-9]{4,}/g) ?? [])];
  const out = [...FIXED_QUERIES];
  for (let i = 0; out.length < count && words.length > 0; i++) {
    const a = words[(i * 7919) % words.length];
    const b = words[(i * 104_729 + 13) % words.length];
    out.push(i % 2 ? `how does ${a} use ${b}` : `${a} ${b}`);
  }
  return out.slice(0, count);
}

sectionMain(async ({ root, bigFile, coldRuns, warmRuns }) => {
  // Cold: a new index each time (the file-system cache is warm after the first run).
  const stalls = [];
  let stats;
  const cold = await timeRuns(coldRuns, async () => {
    const index = new LexicalIndex(root, {}, freshListing(root));
    const monitor = stallMonitor();
    await index.refresh();
    stalls.push((await monitor.stop()).maxStallMs);
    stats = index.stats();
    return index;
  });
  const index = cold.last;
  // From a saved index: what a later process on the workspace does (stat the files, take the unchanged ones as saved).
  const savedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-saved-index-'));
  let fromSaved;
  let savedBytes;
  try {
    const cacheFile = path.join(savedDir, 'lexical-index');
    const writer = new LexicalIndex(root, {}, { cacheFile, ...freshListing(root) });
    await writer.refresh();
    const saveStart = now();
    await writer.saveNow();
    const saveMs = now() - saveStart;
    savedBytes = fs.statSync(cacheFile).size;
    const savedStalls = [];
    let fromCache;
    const fromCacheRuns = await timeRuns(coldRuns, async () => {
      const reader = new LexicalIndex(root, {}, { cacheFile, ...freshListing(root) });
      const monitor = stallMonitor();
      await reader.refresh();
      savedStalls.push((await monitor.stop()).maxStallMs);
      fromCache = reader.stats().fromCache;
      return reader;
    });
    fromSaved = { build: fromCacheRuns.stats, buildMaxStallMs: Math.max(...savedStalls), filesFromCache: fromCache, saveMs: Math.round(saveMs * 100) / 100, savedBytes };
  } finally {
    fs.rmSync(savedDir, { recursive: true, force: true });
  }
  const queries = queriesFrom(fs.readFileSync(bigFile, 'utf8'), 50);
  index.lookup(queries[0], { limit: 10 }); // warm-up, not counted
  const warm = [];
  let hits = 0;
  for (let i = 0; i < warmRuns; i++) {
    const query = queries[i % queries.length];
    const start = now();
    const found = index.lookup(query, { limit: 10 });
    warm.push(now() - start);
    hits += found.length > 0 ? 1 : 0;
  }
  // What a question agent calls: search() re-checks the files' mtimes at most once a second.
  const refresh = await timeRuns(Math.max(1, Math.min(10, coldRuns * 2)), () => index.refresh());
  return {
    build: cold.stats,
    buildMaxStallMs: Math.max(...stalls),
    fromSaved,
    index: stats,
    query: summarize(warm),
    queryHitRate: warmRuns ? Math.round((hits / warmRuns) * 100) / 100 : null,
    refreshUnchanged: refresh.stats,
  };
});
