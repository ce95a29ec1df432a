// Checks the trace store's indexes against a plain scan of the files, and how it follows other sessions cheaply.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Interaction, TraceParams, TraceResponse, TraceSession } from '../../server/src/protocol.js';
import { queryInteractions, sortNewestFirst } from '../../server/src/trace/traceQuery.js';
import { applyResponsePatch } from '../../server/src/trace/amendments.js';
import type { SegmentFile } from '../../server/src/trace/segmentFiles.js';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import { parseSegmentLog, serializeSegmentLog } from '../../server/src/trace/segmentLog.js';
import { readSegment, SEGMENT_FILE } from '../support/traceFiles.js';

const temporaryDirectories: string[] = [];
const stores: TraceStore[] = [];

function tempDir(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-trace-index-'));
  temporaryDirectories.push(directory);
  return directory;
}

async function open(
  directory: string,
  id: string,
  options: { segmentSize?: number; pid?: number; history?: 'open' | 'background'; onWarning?: (message: string) => void } = {},
): Promise<TraceStore> {
  const store = await TraceStore.open({
    directory,
    session: session(id, options.pid),
    segmentSize: options.segmentSize ?? 3,
    ...(options.history ? { history: options.history } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  stores.push(store);
  return store;
}

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const directory of temporaryDirectories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function session(id: string, pid = 1234): TraceSession {
  return { id, startedAt: '2024-05-01T09:00:00.000Z', user: 'ada', role: 'developer', workspace: '/ws', pid };
}

const offline = { name: 'doc-offline', technology: 'rule' as const, isLLM: false };
const model = { name: 'gpt-4o-mini@openai', technology: 'llm' as const, isLLM: true, model: 'gpt-4o-mini' };
const TASKS = ['document', 'explain', 'fix', 'none'] as const;
const URIS = ['file:///ws/src/a.ts', 'file:///ws/src/b.ts'];

function response(id: string, overrides: Partial<TraceResponse> = {}): TraceResponse {
  return { id, agent: offline, status: 'ok', text: `answer ${id}`, used: false, startedAt: '2024-05-01T10:00:00.000Z', durationMs: 5, ...overrides };
}

/** A varied interaction: tasks, agents, equal and offset timestamps, an unparsable one, used responses and insertions. */
function varied(n: number, sessionId: string): Interaction {
  const timestamp =
    n % 17 === 5 ? 'not a time' : n % 7 === 3 ? `2024-05-01T${String(12 + (n % 5)).padStart(2, '0')}:0${n % 10}:00+02:00` : new Date(Date.UTC(2024, 4, 1, 10, n % 23)).toISOString();
  const responses = [response(`r${n}a`, { text: n % 4 === 0 ? `The Parser walks ${n}` : `answer ${n}` })];
  if (n % 3 === 0) responses.push(response(`r${n}b`, { agent: model }));
  if (n % 5 === 0) {
    const uri = URIS[n % 2] as string;
    const start = n % 9;
    responses[0] = {
      ...(responses[0] as TraceResponse),
      used: true,
      insertedAt: [{ uri, range: { start: { line: start, character: 0 }, end: { line: start + 2, character: n % 2 ? 0 : 4 } }, text: 'x', replaced: '', at: timestamp }],
    };
  }
  return {
    id: `${sessionId}-${String(n).padStart(3, '0')}`,
    sessionId,
    timestamp,
    role: 'developer',
    user: 'ada',
    source: n % 2 ? 'text' : 'command',
    text: `Request ${n}`,
    task: TASKS[n % TASKS.length] as Interaction['task'],
    context: {},
    responses,
  };
}

/**
 * What the trace holds, read straight from the files: every interaction with every amendment applied in time order
 * (within a millisecond by session id, then in the order its session wrote them).
 */
function scanFiles(directory: string): Interaction[] {
  const interactions = new Map<string, Interaction>();
  const amendments: Array<{ amendment: NonNullable<SegmentFile['amendments']>[number]; sessionId: string }> = [];
  for (const sessionId of fs.readdirSync(directory).sort()) {
    for (const name of fs.readdirSync(path.join(directory, sessionId)).sort()) {
      if (!SEGMENT_FILE.test(name) || !fs.statSync(path.join(directory, sessionId, name)).isFile()) continue;
      const data = readSegment(path.join(directory, sessionId, name));
      for (const interaction of data.interactions) interactions.set(interaction.id, interaction);
      amendments.push(...(data.amendments ?? []).map((amendment) => ({ amendment, sessionId })));
    }
  }
  amendments.sort((a, b) => (a.amendment.at < b.amendment.at ? -1 : a.amendment.at > b.amendment.at ? 1 : a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  for (const { amendment } of amendments) {
    const interaction = interactions.get(amendment.interactionId);
    if (interaction) applyResponsePatch(interaction, amendment.responseId, amendment.patch);
  }
  return [...interactions.values()];
}

const QUERIES: TraceParams[] = [
  {},
  { limit: 5 },
  { limit: 5, offset: 5 },
  { limit: 200 },
  { offset: 1000 },
  { task: 'document' },
  { task: 'explain', limit: 2, offset: 1 },
  { task: 'none', used: true },
  { task: 'nope' as TraceParams['task'] },
  { sessionId: 'one' },
  { sessionId: 'two', task: 'fix' },
  { agent: 'gpt-4o-mini@openai' },
  { agent: 'gpt-4o-mini@openai', sessionId: 'one', limit: 3, offset: 2 },
  { agent: 'doc-offline', task: 'document', used: false },
  { agent: 'nope', task: 'document' },
  { since: '2024-05-01T10:05:00Z' },
  { until: '2024-05-01T10:05:00Z' },
  { since: '2024-05-01T10:03:00Z', until: '2024-05-01T10:12:00Z', limit: 4 },
  { since: '2024-05-01T10:03:00Z', task: 'fix' },
  { until: '2024-05-02' },
  { used: true },
  { used: false, limit: 7, offset: 3 },
  { text: 'parser' },
  { text: 'REQUEST 1', task: 'explain' },
  { text: '' },
  { id: 'one-004' },
  { id: 'one-004', task: 'fix' },
  { id: 'missing' },
];

function expectSameAnswers(store: TraceStore, directory: string): void {
  const reference = scanFiles(directory);
  for (const params of QUERIES) {
    expect(store.query(params), JSON.stringify(params)).toEqual(queryInteractions(reference, params));
  }
  expect(store.all()).toEqual(sortNewestFirst(reference));
  for (const uri of [...URIS, 'file:///ws/src/none.ts']) {
    for (let line = 0; line < 14; line++) {
      const expected = sortNewestFirst(
        reference.filter((interaction) =>
          interaction.responses.some((r) =>
            (r.insertedAt ?? []).some((i) => {
              const last = i.range.end.character === 0 && i.range.end.line > i.range.start.line ? i.range.end.line - 1 : i.range.end.line;
              return i.uri === uri && line >= i.range.start.line && line <= last;
            }),
          ),
        ),
      );
      expect(store.findByInsertion(uri, line), `${uri}:${line}`).toEqual(expected);
    }
  }
}

describe('TraceStore indexes', () => {
  it('answer every query as a scan of the files does, with amendments, updates and two sessions', async () => {
    const directory = tempDir();
    const one = await open(directory, 'one');
    const two = await open(directory, 'two', { segmentSize: 4 });
    for (let n = 0; n < 40; n++) await one.add(varied(n, 'one'));
    for (let n = 0; n < 25; n++) await two.add(varied(n + 3, 'two'));
    await two.amendResponse('one-004', 'r4a', { rating: 'down', feedback: 'too vague' });
    await one.amendResponse('one-004', 'r4a', { rating: 'up' });
    await two.amendResponse('one-006', 'r6a', { revertedAt: '2024-05-02T00:00:00.000Z' });
    await one.amendResponse('two-009', 'r9b', { feedback: 'fine' });
    // Updates that move an interaction in time, to another task, to other agents, and record an insertion.
    await one.update('one-001', (i) => {
      i.timestamp = '2024-05-01T11:59:00.000Z';
    });
    await one.update('one-002', (i) => {
      i.task = 'explain';
      i.responses.push(response('extra', { agent: model }));
    });
    await two.update('two-010', (i) => {
      i.responses[0]!.used = true;
      i.responses[0]!.insertedAt = [{ uri: URIS[0]!, range: { start: { line: 1, character: 0 }, end: { line: 1, character: 9 } }, text: 'y', replaced: '', at: i.timestamp }];
    });

    // A store that loaded everything at open, and the two writers that follow each other's files.
    const three = await open(directory, 'three');
    for (const store of [one, two, three]) expectSameAnswers(store, directory);

    // Later changes by one session reach the others, the index following moved and removed interactions.
    await two.update('two-011', (i) => {
      i.timestamp = '2024-04-30T00:00:00.000Z';
      i.task = 'fix';
    });
    await two.add(varied(99, 'two'));
    fs.rmSync(path.join(directory, 'one', 'segment-000002.jsonl'));
    // A segment rewritten without one of its interactions (as a writer replaces files: a new file renamed over it).
    const rewritten = path.join(directory, 'one', 'segment-000003.jsonl');
    const data = readSegment(rewritten);
    data.interactions.splice(1, 1);
    fs.writeFileSync(`${rewritten}.tmp`, `${serializeSegmentLog(data)}\n`);
    fs.renameSync(`${rewritten}.tmp`, rewritten);
    for (const store of [two, three]) expectSameAnswers(store, directory);
    fs.rmSync(path.join(directory, 'two'), { recursive: true });
    expectSameAnswers(three, directory);
  });

  it('returns copies: changing a result changes nothing stored', async () => {
    const directory = tempDir();
    const one = await open(directory, 'one');
    await one.add(varied(5, 'one'));
    await one.amendResponse('one-005', 'r5a', { rating: 'up' });
    const page = one.query({});
    page.interactions[0]!.responses[0]!.insertedAt!.length = 0;
    page.interactions[0]!.text = 'changed';
    one.findByInsertion(URIS[1]!, 5)[0]!.responses.length = 0;
    expect(one.get('one-005')).toMatchObject({ text: 'Request 5', responses: [{ rating: 'up', insertedAt: [{ uri: URIS[1] }] }] });
    expect(one.findByInsertion(URIS[1]!, 5)).toHaveLength(1);
  });

  it('appends one line per change to the segment log, and reads it back whole, without a line cut short', async () => {
    const directory = tempDir();
    const one = await open(directory, 'one', { segmentSize: 10 });
    await one.add(varied(0, 'one'));
    const file = path.join(directory, 'one', 'segment-000001.jsonl');
    const inode = fs.statSync(file).ino;
    for (let n = 1; n < 6; n++) await one.add(varied(n, 'one'));
    await one.update('one-003', (i) => {
      i.message = 'changed';
    });
    await one.amendResponse('one-001', 'r1a', { rating: 'up' });
    await one.add(varied(6, 'one'));
    // Appended to in place: the header, seven adds, one update and one amendment, each on its own line.
    expect(fs.statSync(file).ino).toBe(inode);
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => Object.keys(JSON.parse(line) as object)[0])).toEqual(['format', 'add', 'add', 'add', 'add', 'add', 'add', 'update', 'amend', 'add']);
    const data = parseSegmentLog(text)!;
    expect(data.interactions.map((i) => i.id)).toEqual(['one-000', 'one-001', 'one-002', 'one-003', 'one-004', 'one-005', 'one-006']);
    expect(data.interactions[3]!.message).toBe('changed');
    expect(data.amendments).toHaveLength(1);
    // What a crash in the middle of a write leaves: a last line without its newline, never acknowledged, left out.
    expect(parseSegmentLog(`${text}{"add":{"id":"one-0`)).toEqual(data);
    expect(parseSegmentLog(text.slice(0, lines[0]!.length))).toBeUndefined();
    expect(() => parseSegmentLog(`${lines[0]}\n{"add":\n${lines[1]}\n`)).toThrow();
    // A rewritten log (one interaction and amendment a line) reads back the same.
    expect(parseSegmentLog(`${serializeSegmentLog(data)}\n`)).toEqual(data);
    await one.close();

    // Reopened by the same session after a crash cut a line short: the cut line goes, appends continue after it.
    fs.appendFileSync(file, '{"add":{"id":"cut');
    const again = await open(directory, 'one', { segmentSize: 10 });
    await again.add(varied(7, 'one'));
    expect(parseSegmentLog(fs.readFileSync(file, 'utf8'))!.interactions.map((i) => i.id)).toEqual([...data.interactions.map((i) => i.id), 'one-007']);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('cut');
  });
});

describe('TraceStore and other sessions', () => {
  it('stops checking a quiet session on every read, and still sees its later records', async () => {
    const directory = tempDir();
    const one = await open(directory, 'one');
    await one.add(varied(1, 'one'));
    const two = await open(directory, 'two');
    expect(two.get('one-001')).toBeDefined();

    // A minute later the session has been quiet long enough (and its process, pid 1234, does not run here).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    two.query({});
    two.query({});
    await one.add(varied(2, 'one'));
    // The background sweep notices the change to its folder; the read after that picks the record up.
    await vi.waitFor(() => expect(two.get('one-002')).toBeDefined(), { timeout: 5_000, interval: 50 });
    // Active again, it is checked on every read while it keeps writing.
    await one.add(varied(3, 'one'));
    expect(two.get('one-003')).toBeDefined();
  });

  it('keeps checking on every read a session whose server process runs on this machine', async () => {
    const directory = tempDir();
    const one = await open(directory, 'one', { pid: process.ppid });
    await one.add(varied(1, 'one'));
    const two = await open(directory, 'two');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    two.query({});
    two.query({});
    await one.add(varied(2, 'one'));
    expect(two.get('one-002')).toBeDefined();
  });

  it('sees a session that starts after it opened at once', async () => {
    const directory = tempDir();
    const two = await open(directory, 'two');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    const one = await open(directory, 'one');
    await one.add(varied(1, 'one'));
    expect(two.get('one-001')).toBeDefined();
  });

  it('can open before the history is loaded: appends go ahead, reads complete once it is', async () => {
    const directory = tempDir();
    for (const id of ['a', 'b', 'c', 'd']) {
      const past = await open(directory, id);
      for (let n = 0; n < 7; n++) await past.add(varied(n, id));
    }
    const store = await open(directory, 'now', { history: 'background' });
    await store.add(varied(1, 'now'));
    await expect(store.update('a-001', () => undefined)).rejects.toThrow(/belongs to session a/);
    await store.historyLoaded();
    expect(store.query({}).total).toBe(29);
    expectSameAnswers(store, directory);
    const amended = await store.amendResponse('d-006', 'r6a', { rating: 'up' });
    expect(amended.responses[0]?.rating).toBe('up');
  });

  it('recovers from a history it could not load in the background: the next read lists the sessions again', async () => {
    const directory = tempDir();
    for (const id of ['a', 'b', 'c', 'd']) {
      const past = await open(directory, id);
      for (let n = 0; n < 7; n++) {
        await past.add(varied(n, id));
        if (n === 1) await past.amendResponse(`${id}-000`, 'r0a', { feedback: 'once' });
      }
    }
    // A folder where a segment file should be cannot be read (EISDIR): the load stops there.
    fs.rmSync(path.join(directory, 'b', 'segment-000002.jsonl'));
    fs.mkdirSync(path.join(directory, 'b', 'segment-000002.jsonl'));
    // Long after those writes, so that nothing is checked again for having changed just now.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    const warnings: string[] = [];
    const store = await open(directory, 'now', { history: 'background', onWarning: (message) => warnings.push(message) });
    await store.historyLoaded();
    expect(warnings.some((message) => /could not load the trace history/.test(message))).toBe(true);
    expectSameAnswers(store, directory);
    expect(store.query({}).total).toBe(25);
    const count = warnings.length;
    store.query({});
    expect(warnings).toHaveLength(count);
  });
});
