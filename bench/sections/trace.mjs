// Benchmark section (own process): trace append and queries (by task, by position) over a trace of a given size.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, now, sectionMain, stallMonitor, timeRuns } from '../support.mjs';

const dist = (relative) => import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', relative)).href);
const { TraceStore } = await dist('trace/traceStore.js');
const { SEGMENT_FORMAT } = await dist('trace/segmentFiles.js');
const { interactionsAt } = await dist('trace/positionLookup.js');
const { InsertionTracker } = await dist('trace/insertionTracker.js');

const TASKS = ['document', 'explain', 'fix', 'rename', 'test', 'question'];
const FILES = 50;
const PROJECT = '/bench/project';
const START = Date.parse('2024-01-01T00:00:00.000Z');

const uriOf = (file) => `file://${PROJECT}/src/module${file}.ts`;
const hex = (n, width) => n.toString(16).padStart(width, '0');

function session(index) {
  return { id: `bench-session-${hex(index, 6)}`, startedAt: new Date(START + index * 3_600_000).toISOString(), user: 'bench', role: 'developer', workspace: PROJECT, client: { name: 'bench', version: '1' }, pid: 1000 + index };
}

/** One interaction as the server records a Document or Explain run: the fragment, one or two responses, the insertion when applied. */
function interaction(n, sessionId) {
  const at = new Date(START + n * 60_000).toISOString();
  const file = n % FILES;
  const uri = uriOf(file);
  const task = TASKS[n % TASKS.length];
  const symbol = `computeValue${n % 997}`;
  const line = (n * 13) % 400;
  const code = `export function ${symbol}(input: string, options: Options = {}): Result {\n  const parts = input.split(',').map((p) => p.trim());\n  if (parts.length === 0) throw new RangeError('empty input');\n  const total = parts.reduce((sum, p) => sum + Number(p), 0);\n  return { total, count: parts.length, unit: options.unit ?? 'ms' };\n}`;
  const doc = `/**\n * Computes the total and count of the comma-separated values in the input.\n * @param input - The comma-separated numbers.\n * @param options - The unit to report.\n * @returns The total, the count and the unit.\n * @throws {RangeError} When the input is empty.\n */\n`;
  const range = { start: { line, character: 0 }, end: { line, character: 0 } };
  const used = n % 3 === 0;
  const responses = [
    {
      id: `r-${hex(n, 8)}-1`,
      agent: { name: 'doc-offline', technology: 'rule', isLLM: false },
      status: 'ok',
      text: doc,
      edit: { documentChanges: [{ textDocument: { uri, version: 3 }, edits: [{ range, newText: doc }] }] },
      used,
      ...(used ? { outcome: 'applied', insertedAt: [{ uri, range: { start: { line, character: 0 }, end: { line: line + 7, character: 0 } }, text: doc, replaced: '', version: 3, at }] } : {}),
      startedAt: at,
      durationMs: 12,
    },
  ];
  if (n % 4 === 0) {
    responses.push({ id: `r-${hex(n, 8)}-2`, agent: { name: 'gpt-4o-mini@api.openai.com', technology: 'llm', isLLM: true, model: 'gpt-4o-mini', endpoint: 'api.openai.com' }, status: 'ok', text: doc, used: false, startedAt: at, durationMs: 1800, usage: { promptTokens: 412, completionTokens: 96 } });
  }
  return {
    id: `i-${hex(n, 8)}-0000-4000-8000-${hex(n * 7919, 12)}`,
    sessionId,
    timestamp: at,
    role: 'developer',
    user: 'bench',
    source: n % 5 === 0 ? 'text' : 'command',
    text: n % 5 === 0 ? `write documentation for ${symbol}` : `assistant.${task}`,
    task,
    ...(n % 5 === 0 ? { classification: { by: 'intent-offline', confidence: 0.72 } } : {}),
    context: {
      resource: { uri, fileName: `module${file}.ts`, fullPath: `${PROJECT}/src/module${file}.ts`, relativePath: `src/module${file}.ts`, project: 'project' },
      version: 3,
      fragment: { range: { start: { line, character: 0 }, end: { line: line + 5, character: 1 } }, text: code },
      symbol,
    },
    responses,
  };
}

/**
 * Writes `size` interactions as past sessions of `sessionSize` each (one segment file per session), the way a
 * workspace's trace grows over many editor sessions; the store under test then opens as a new session.
 */
function writePastSessions(dir, size, sessionSize) {
  let bytes = 0;
  for (let s = 0, n = 0; n < size; s++) {
    const owner = session(s);
    const interactions = [];
    for (let k = 0; k < sessionSize && n < size; k++, n++) interactions.push(interaction(n, owner.id));
    const sessionDir = path.join(dir, owner.id);
    fs.mkdirSync(sessionDir, { recursive: true });
    const text = JSON.stringify({ format: SEGMENT_FORMAT, session: owner, interactions });
    fs.writeFileSync(path.join(sessionDir, 'segment-000001.json'), text);
    bytes += text.length;
  }
  return bytes;
}

sectionMain(async ({ size, appends, queries, sessionSize = 200, segmentSize = 500 }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-trace-'));
  try {
    const writeStart = now();
    const bytes = writePastSessions(dir, size, sessionSize);
    const writeMs = now() - writeStart;
    const own = session(999_999);
    const openStart = now();
    const store = await TraceStore.open({ directory: dir, session: own, segmentSize, onWarning: (m) => process.stderr.write(`${m}\n`) });
    const openMs = now() - openStart;

    // Appends go through the store (durable writes: temp file, fsync, rename), one after another as tasks finish.
    const monitor = stallMonitor();
    const append = await timeRuns(appends, (i) => store.add(interaction(size + i, own.id)));
    const stall = await monitor.stop();

    // One call of each query first (JIT, the declaration parse of the document), not counted.
    store.query({ task: 'document', limit: 50 });
    const byTask = await timeRuns(queries, (i) => store.query({ task: TASKS[i % TASKS.length], limit: 50 }));
    const byId = await timeRuns(queries, (i) => store.get(interaction(Math.floor((i * 7919) % size), 'x').id));

    // A document whose declaration carries the annotation of a recorded interaction, at a URI with recorded insertions.
    const target = interaction(Math.floor(size / 2), 'x');
    const file = Math.floor(size / 2) % FILES;
    const text = `/**\n * Computes a value.\n */\n// @assistant task=document agent=doc-offline interaction=${target.id} at=${target.timestamp}\nexport function computeValue(input: string): number {\n  return input.length;\n}\n`;
    const document = { uri: uriOf(file), fsPath: `${PROJECT}/src/module${file}.ts`, languageId: 'typescript', version: 1, text };
    // The insertions the server follows through edits: here the document as it is, open and on disk alike.
    const insertions = new InsertionTracker(store, () => text, () => text, () => {});
    let found = interactionsAt(store, insertions, document, { line: 5, character: 4 }).length;
    const byPosition = await timeRuns(queries, () => {
      found = interactionsAt(store, insertions, document, { line: 5, character: 4 }).length;
    });
    await store.close();
    return {
      size,
      sessions: Math.ceil(size / sessionSize),
      traceMB: Math.round((bytes / 1048576) * 10) / 10,
      writeFilesMs: Math.round(writeMs),
      openMs: Math.round(openMs * 10) / 10,
      append: append.stats,
      appendMaxStallMs: stall.maxStallMs,
      queryByTask: byTask.stats,
      queryById: byId.stats,
      queryByPosition: byPosition.stats,
      positionMatches: found,
      heapUsedMB: Math.round(process.memoryUsage().heapUsed / 1048576),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
