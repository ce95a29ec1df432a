// Exercises the trace store, its query and its durable JSON adapter on real files in temporary directories.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Interaction, TraceResponse, TraceSession } from '../../server/src/protocol.js';
import { DurableJsonFile } from '../../server/src/trace/durableJsonFile.js';
import { queryInteractions } from '../../server/src/trace/traceQuery.js';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import { readSegment } from '../support/traceFiles.js';

const temporaryDirectories: string[] = [];

function tempDir(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-trace-'));
  temporaryDirectories.push(directory);
  return directory;
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const directory of temporaryDirectories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function session(id: string): TraceSession {
  return { id, startedAt: '2024-05-01T09:00:00.000Z', user: 'ada', role: 'developer', workspace: '/ws', pid: 1234 };
}

function response(overrides: Partial<TraceResponse> = {}): TraceResponse {
  return {
    id: 'r1',
    agent: { name: 'doc-offline', technology: 'rule', isLLM: false },
    status: 'ok',
    text: '/** Adds two numbers. */',
    used: false,
    startedAt: '2024-05-01T10:00:00.000Z',
    durationMs: 12,
    ...overrides,
  };
}

function interaction(id: string, sessionId: string, overrides: Partial<Interaction> = {}): Interaction {
  return {
    id,
    sessionId,
    timestamp: '2024-05-01T10:00:00.000Z',
    role: 'developer',
    user: 'ada',
    source: 'text',
    text: `request ${id}`,
    task: 'document',
    context: {},
    responses: [response()],
    ...overrides,
  };
}

/** Timestamps one minute apart, so sort order is predictable. */
function minute(n: number): string {
  return new Date(Date.UTC(2024, 4, 1, 10, n)).toISOString();
}

/** A segment's file: the log sessions write, or (`json`) the whole document earlier versions wrote. */
function segmentPath(directory: string, sessionId: string, n: number, form: 'jsonl' | 'json' = 'jsonl'): string {
  return path.join(directory, sessionId, `segment-${String(n).padStart(6, '0')}.${form}`);
}

const readJson = readSegment;

describe('TraceStore', () => {
  it('reads back what was added after reopening', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 10 });
    await store.add(interaction('a', 's1', { timestamp: minute(1) }));
    await store.add(interaction('b', 's1', { timestamp: minute(2) }));
    await store.close();

    const reopened = await TraceStore.open({ directory, session: session('s2'), segmentSize: 10 });
    expect(reopened.all().map((i) => i.id)).toEqual(['b', 'a']);
    expect(reopened.get('a')).toEqual(interaction('a', 's1', { timestamp: minute(1) }));
    expect(reopened.get('missing')).toBeUndefined();
  });

  it('continues its own last segment when reopened with the same session id', async () => {
    const directory = tempDir();
    const first = await TraceStore.open({ directory, session: session('s1'), segmentSize: 3 });
    await first.add(interaction('a', 's1'));
    await first.close();
    const second = await TraceStore.open({ directory, session: session('s1'), segmentSize: 3 });
    await second.add(interaction('b', 's1'));
    expect(readJson(segmentPath(directory, 's1', 1)).interactions.map((i) => i.id)).toEqual(['a', 'b']);
    expect(fs.existsSync(segmentPath(directory, 's1', 2))).toBe(false);
    await second.update('a', (i) => {
      i.message = 'changed';
    });
    expect(second.get('a')?.message).toBe('changed');
  });

  it('reads the whole-document segments of earlier versions, appends after them in a log and rewrites them whole on update', async () => {
    const directory = tempDir();
    fs.mkdirSync(path.join(directory, 's1'));
    const legacy = segmentPath(directory, 's1', 1, 'json');
    fs.writeFileSync(legacy, `${JSON.stringify({ format: 1, session: session('s1'), interactions: [interaction('a', 's1')] }, null, 2)}\n`);
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 3 });
    await store.add(interaction('b', 's1'));
    expect(readJson(segmentPath(directory, 's1', 2)).interactions.map((i) => i.id)).toEqual(['b']);
    await store.update('a', (i) => {
      i.message = 'changed';
    });
    const text = fs.readFileSync(legacy, 'utf8');
    expect(text).toBe(`${JSON.stringify({ ...JSON.parse(text) }, null, 2)}\n`);
    expect(readJson(legacy).interactions[0]?.message).toBe('changed');
    await store.close();
    const reader = await TraceStore.open({ directory, session: session('s2'), segmentSize: 3 });
    expect(reader.get('a')?.message).toBe('changed');
    expect(reader.get('b')?.id).toBe('b');
    expect(reader.all()).toHaveLength(2);
  });

  it('reads every session with readOnly, and creates, moves, tidies and writes nothing', async () => {
    const directory = tempDir();
    const writer = await TraceStore.open({ directory, session: session('s1'), segmentSize: 3 });
    await writer.add(interaction('a', 's1', { timestamp: minute(1) }));
    await writer.amendResponse('a', 'r1', { rating: 'up' });
    fs.mkdirSync(path.join(directory, 's2'));
    const damaged = segmentPath(directory, 's2', 1);
    fs.writeFileSync(damaged, `${JSON.stringify({ format: 2, session: session('s2') })}\nnot json\n`);
    const leftover = `${damaged}.99.abcdef.tmp`;
    fs.writeFileSync(leftover, 'a crashed write');
    fs.utimesSync(leftover, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const listing = (): string[] => (fs.readdirSync(directory, { recursive: true }) as string[]).sort();
    const before = listing();
    const warnings: string[] = [];
    const reader = await TraceStore.open({ directory, session: session('reader'), segmentSize: 1, readOnly: true, onWarning: (m) => warnings.push(m) });
    expect(reader.query({}).interactions.map((i) => [i.id, i.responses[0]?.rating])).toEqual([['a', 'up']]);
    expect(reader.idsStartingWith('', 5)).toEqual(['a']);
    await writer.add(interaction('b', 's1', { timestamp: minute(2) }));
    expect(reader.query({}).interactions.map((i) => i.id)).toEqual(['b', 'a']);
    await expect(reader.add(interaction('c', 'reader'))).rejects.toThrow(/only reads/);
    await expect(reader.amendResponse('a', 'r1', { rating: 'down' })).rejects.toThrow(/only reads/);
    expect(reader.inheritsFrom('s1')).toBe(false);
    await reader.close();
    await writer.close();
    expect(warnings.join('\n')).toMatch(/Ignoring damaged file .*segment-000001\.jsonl/);
    expect(listing()).toEqual(before);
    const nowhere = path.join(tempDir(), 'no-trace');
    await (await TraceStore.open({ directory: nowhere, session: session('reader'), segmentSize: 1, readOnly: true })).close();
    expect(fs.existsSync(nowhere)).toBe(false);
  });

  it('leaves a readable segment log after every add resolves', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 100 });
    for (let n = 0; n < 5; n++) {
      await store.add(interaction(`i${n}`, 's1'));
      expect(JSON.parse(fs.readFileSync(segmentPath(directory, 's1', 1), 'utf8').split('\n')[0]!)).toMatchObject({ format: 2, session: { id: 's1' } });
      const file = readJson(segmentPath(directory, 's1', 1));
      expect(file.session.id).toBe('s1');
      expect(file.interactions).toHaveLength(n + 1);
      expect(file.interactions[n]?.id).toBe(`i${n}`);
    }
  });

  it('marks a response used durably', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 10 });
    await store.add(interaction('a', 's1'));
    const updated = await store.update('a', (i) => {
      const first = i.responses[0];
      if (first) first.used = true;
    });
    expect(updated.responses[0]?.used).toBe(true);
    expect(readJson(segmentPath(directory, 's1', 1)).interactions[0]?.responses[0]?.used).toBe(true);
    await store.close();

    const reopened = await TraceStore.open({ directory, session: session('s2'), segmentSize: 10 });
    expect(reopened.get('a')?.responses[0]?.used).toBe(true);
  });

  it('says when an add or an update is in the file, before its flush to the disk ends', async () => {
    // segmentSize 1: the update goes to a segment no longer appended to, which is rewritten whole.
    for (const segmentSize of [10, 1]) {
      const directory = tempDir();
      const store = await TraceStore.open({ directory, session: session('s1'), segmentSize });
      const seen: string[] = [];
      let settled = false;
      const written = (what: () => string | undefined) => ({ onWritten: () => seen.push(`${what()} in the file, ${settled ? 'settled' : 'pending'}`) });
      const inFile = (): Interaction | undefined => readJson(segmentPath(directory, 's1', 1)).interactions[0];
      await store.add(interaction('a', 's1'), written(() => inFile()?.id)).then(() => (settled = true));
      await store.add(interaction('b', 's1'));
      settled = false;
      await store.update('a', (i) => void (i.text = 'changed'), written(() => inFile()?.text)).then(() => (settled = true));
      expect(seen).toEqual(['a in the file, pending', 'changed in the file, pending']);
      await store.close();
    }
  });

  it('does not let callers change the trace through returned objects or a throwing change', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 10 });
    const original = interaction('a', 's1');
    await store.add(original);
    original.text = 'mutated by caller';
    const got = store.get('a');
    if (got) got.text = 'mutated result';
    await expect(
      store.update('a', (i) => {
        i.text = 'half-done';
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.get('a')?.text).toBe('request a');
  });

  it('rolls over at segmentSize and rewrites only the segment holding an updated interaction', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 3 });
    for (const id of ['a', 'b', 'c', 'd']) await store.add(interaction(id, 's1'));
    const first = segmentPath(directory, 's1', 1);
    const second = segmentPath(directory, 's1', 2);
    expect(readJson(first).interactions.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(readJson(second).interactions.map((i) => i.id)).toEqual(['d']);

    const secondBefore = fs.readFileSync(second, 'utf8');
    const secondIno = fs.statSync(second).ino;
    await store.update('b', (i) => {
      i.message = 'updated';
    });
    expect(readJson(first).interactions.find((i) => i.id === 'b')?.message).toBe('updated');
    expect(fs.readFileSync(second, 'utf8')).toBe(secondBefore);
    // Each durable write replaces the file, so an untouched segment keeps its inode.
    expect(fs.statSync(second).ino).toBe(secondIno);
  });

  it('sets a damaged segment aside, warns and opens with the other records', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 2 });
    for (const id of ['a', 'b', 'c']) await store.add(interaction(id, 's1'));
    await store.close();
    fs.writeFileSync(segmentPath(directory, 's1', 1), '{"format": 2, "session": {"id": "s1"}}\n{"add": [ garbage\n');

    const warnings: string[] = [];
    const reopened = await TraceStore.open({
      directory,
      session: session('s2'),
      segmentSize: 2,
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/segment-000001\.jsonl/);
    expect(reopened.all().map((i) => i.id)).toEqual(['c']);
    const names = fs.readdirSync(path.join(directory, 's1'));
    expect(names.filter((name) => /^segment-000001\.jsonl\.damaged-[^:]+$/.test(name))).toHaveLength(1);
    expect(names).not.toContain('segment-000001.jsonl');
  });

  it('sets aside a segment that parses but has the wrong shape', async () => {
    const directory = tempDir();
    fs.mkdirSync(path.join(directory, 'old'));
    fs.writeFileSync(segmentPath(directory, 'old', 1, 'json'), JSON.stringify({ format: 1, interactions: 'nope' }));
    const warnings: string[] = [];
    const store = await TraceStore.open({
      directory,
      session: session('s1'),
      segmentSize: 2,
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toHaveLength(1);
    expect(store.all()).toEqual([]);
    expect(fs.readdirSync(path.join(directory, 'old')).some((name) => name.includes('.damaged-'))).toBe(true);
  });

  it('lets two sessions on one directory write concurrently and see each other', async () => {
    const directory = tempDir();
    const one = await TraceStore.open({ directory, session: session('one'), segmentSize: 7 });
    const two = await TraceStore.open({ directory, session: session('two'), segmentSize: 7 });
    const writes: Array<Promise<void>> = [];
    for (let n = 0; n < 50; n++) {
      writes.push(one.add(interaction(`one-${n}`, 'one', { timestamp: minute(n) })));
      writes.push(two.add(interaction(`two-${n}`, 'two', { timestamp: minute(n) })));
    }
    await Promise.all(writes);

    for (const store of [one, two]) {
      expect(store.all()).toHaveLength(100);
      expect(store.query({ limit: 200 }).total).toBe(100);
      expect(store.get('one-49')?.sessionId).toBe('one');
      expect(store.get('two-0')?.sessionId).toBe('two');
    }

    // Later changes by one session become visible to the other.
    await one.update('one-3', (i) => {
      i.message = 'seen?';
    });
    await one.add(interaction('one-late', 'one', { timestamp: minute(59) }));
    expect(two.get('one-3')?.message).toBe('seen?');
    expect(two.query({ limit: 1 }).interactions[0]?.id).toBe('one-late');
  });

  it('re-reads another session\'s segment only after it changed, and leaves its damaged files alone', async () => {
    const directory = tempDir();
    const one = await TraceStore.open({ directory, session: session('one'), segmentSize: 2 });
    await one.add(interaction('a', 'one'));
    const warnings: string[] = [];
    const two = await TraceStore.open({
      directory,
      session: session('two'),
      segmentSize: 2,
      onWarning: (message) => warnings.push(message),
    });
    const reads = vi.spyOn(DurableJsonFile.prototype, 'readSync');
    expect(two.all()).toHaveLength(1);
    two.query({});
    two.get('a');
    expect(reads).not.toHaveBeenCalled();

    await one.add(interaction('b', 'one'));
    await one.add(interaction('c', 'one'));
    expect(two.all().map((i) => i.id).sort()).toEqual(['a', 'b', 'c']);
    expect(reads).toHaveBeenCalledTimes(2); // segment 1 changed, segment 2 is new
    two.all();
    expect(reads).toHaveBeenCalledTimes(2);

    fs.writeFileSync(segmentPath(directory, 'one', 2), 'not json\n');
    expect(two.all().map((i) => i.id).sort()).toEqual(['a', 'b', 'c']);
    expect(warnings).toHaveLength(1);
    expect(fs.existsSync(segmentPath(directory, 'one', 2))).toBe(true);
    two.all();
    expect(warnings).toHaveLength(1);
  });

  it('refuses to update another session\'s interaction or an unknown one', async () => {
    const directory = tempDir();
    const one = await TraceStore.open({ directory, session: session('one'), segmentSize: 10 });
    const two = await TraceStore.open({ directory, session: session('two'), segmentSize: 10 });
    await one.add(interaction('a', 'one'));
    await expect(two.update('a', () => undefined)).rejects.toThrow(/belongs to session one/);
    await expect(two.update('nope', () => undefined)).rejects.toThrow(/no interaction with id nope/);
    await expect(two.add(interaction('b', 'one'))).rejects.toThrow(/belongs to session one/);
    await expect(one.add(interaction('a', 'one'))).rejects.toThrow(/already recorded/);
  });

  it('amends another session\'s interaction through its own segment, seen by every reader', async () => {
    const directory = tempDir();
    const one = await TraceStore.open({ directory, session: session('one'), segmentSize: 10 });
    await one.add(interaction('a', 'one'));
    const two = await TraceStore.open({ directory, session: session('two'), segmentSize: 10 });
    const amended = await two.amendResponse('a', 'r1', { rating: 'down', feedback: 'too vague' });
    expect(amended.responses[0]).toMatchObject({ rating: 'down', feedback: ['too vague'] });
    // The owner's file is untouched; the amendment lives in session two's segment.
    expect(readJson(segmentPath(directory, 'one', 1)).interactions[0]!.responses[0]!.rating).toBeUndefined();
    expect(one.get('a')!.responses[0]!.rating).toBe('down');
    expect(one.query({ text: 'too vague' }).total).toBe(0);
    await two.amendResponse('a', 'r1', { rating: null, revertedAt: '2024-05-02T00:00:00.000Z' });
    const reopened = await TraceStore.open({ directory, session: session('three'), segmentSize: 10 });
    expect(reopened.get('a')!.responses[0]).toMatchObject({ feedback: ['too vague'], revertedAt: '2024-05-02T00:00:00.000Z' });
    expect(reopened.get('a')!.responses[0]!.rating).toBeUndefined();
    // The owner's change comes later, so it wins everywhere.
    const own = await one.amendResponse('a', 'r1', { rating: 'up' });
    expect(own.responses[0]!.rating).toBe('up');
    expect(two.get('a')!.responses[0]!.rating).toBe('up');
    await expect(two.amendResponse('a', 'nope', { rating: 'up' })).rejects.toThrow(/has no response nope/);
    await expect(two.amendResponse('zzz', 'r1', { rating: 'up' })).rejects.toThrow(/no interaction with id zzz/);
  });

  it('finds interactions by where their code was inserted', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 10 });
    const uri = 'file:///ws/src/a.ts';
    const inserted = (id: string, timestamp: string, start: number, end: number, endCharacter = 5): Interaction =>
      interaction(id, 's1', {
        timestamp,
        responses: [
          response({
            used: true,
            insertedAt: [
              { uri, range: { start: { line: start, character: 0 }, end: { line: end, character: endCharacter } }, text: "x", replaced: "", at: timestamp },
            ],
          }),
        ],
      });
    await store.add(inserted('old', minute(1), 2, 4));
    await store.add(inserted('new', minute(2), 3, 8));
    await store.add(inserted('whole-lines', minute(3), 10, 12, 0));
    await store.add(interaction('plain', 's1'));

    expect(store.findByInsertion(uri, 3).map((i) => i.id)).toEqual(['new', 'old']);
    expect(store.findByInsertion(uri, 2).map((i) => i.id)).toEqual(['old']);
    expect(store.findByInsertion(uri, 8).map((i) => i.id)).toEqual(['new']);
    expect(store.findByInsertion(uri, 9)).toEqual([]);
    expect(store.findByInsertion(uri, 11).map((i) => i.id)).toEqual(['whole-lines']);
    expect(store.findByInsertion(uri, 12)).toEqual([]);
    expect(store.findByInsertion('file:///ws/src/b.ts', 3)).toEqual([]);
  });
});

describe('queryInteractions', () => {
  const other = { name: 'gpt-4o-mini@openai', technology: 'llm' as const, isLLM: true, model: 'gpt-4o-mini' };
  const data: Interaction[] = [
    interaction('i1', 's1', { timestamp: minute(1), text: 'Document the parser', task: 'document' }),
    interaction('i2', 's1', {
      timestamp: minute(2),
      text: 'explain this',
      task: 'explain',
      responses: [response({ agent: other, text: 'It walks the AST', used: true })],
    }),
    interaction('i3', 's2', { timestamp: minute(3), text: 'fix it', task: 'fix', responses: [] }),
    interaction('i4', 's2', {
      timestamp: '2024-05-01T12:04:00+02:00', // 10:04Z, compared as an instant
      text: 'rename',
      task: 'rename',
      responses: [response(), response({ id: 'r2', agent: other, used: true })],
    }),
    interaction('i5', 's1', { timestamp: minute(4), text: 'same time as i4', task: 'none' }),
  ];
  const ids = (params: Parameters<typeof queryInteractions>[1]): string[] =>
    queryInteractions(data, params).interactions.map((i) => i.id);

  it('lists newest first with the id breaking ties', () => {
    expect(ids({})).toEqual(['i5', 'i4', 'i3', 'i2', 'i1']);
    expect(queryInteractions(data, {}).total).toBe(5);
    expect(queryInteractions(data, {}).nextOffset).toBeUndefined();
  });

  it('filters by id, session, task and agent', () => {
    expect(ids({ id: 'i3' })).toEqual(['i3']);
    expect(ids({ id: 'zz' })).toEqual([]);
    expect(ids({ sessionId: 's2' })).toEqual(['i4', 'i3']);
    expect(ids({ task: 'explain' })).toEqual(['i2']);
    expect(ids({ task: 'none' })).toEqual(['i5']);
    expect(ids({ agent: 'gpt-4o-mini@openai' })).toEqual(['i4', 'i2']);
    expect(ids({ agent: 'doc-offline', sessionId: 's1' })).toEqual(['i5', 'i1']);
  });

  it('filters by time, since inclusive and until exclusive, as instants', () => {
    expect(ids({ since: minute(2) })).toEqual(['i5', 'i4', 'i3', 'i2']);
    expect(ids({ until: minute(2) })).toEqual(['i1']);
    expect(ids({ since: minute(2), until: minute(4) })).toEqual(['i3', 'i2']);
    expect(ids({ since: '2024-05-01T12:04:00+02:00' })).toEqual(['i5', 'i4']);
    expect(ids({ until: '2024-05-02' })).toHaveLength(5);
  });

  it('filters by use', () => {
    expect(ids({ used: true })).toEqual(['i4', 'i2']);
    expect(ids({ used: false })).toEqual(['i5', 'i3', 'i1']);
  });

  it('filters by text in the request or a response, ignoring case', () => {
    expect(ids({ text: 'PARSER' })).toEqual(['i1']);
    expect(ids({ text: 'walks the ast' })).toEqual(['i2']);
    expect(ids({ text: 'adds two' })).toEqual(['i5', 'i4', 'i1']);
  });

  it('paginates with total and nextOffset', () => {
    const first = queryInteractions(data, { limit: 2 });
    expect(first.interactions.map((i) => i.id)).toEqual(['i5', 'i4']);
    expect(first).toMatchObject({ total: 5, nextOffset: 2 });
    const second = queryInteractions(data, { limit: 2, offset: 2 });
    expect(second.interactions.map((i) => i.id)).toEqual(['i3', 'i2']);
    expect(second.nextOffset).toBe(4);
    const last = queryInteractions(data, { limit: 2, offset: 4 });
    expect(last.interactions.map((i) => i.id)).toEqual(['i1']);
    expect(last.total).toBe(5);
    expect('nextOffset' in last).toBe(false);
    expect(queryInteractions(data, { offset: 10 })).toEqual({ interactions: [], total: 5 });
    expect(queryInteractions(data, { limit: 0 }).interactions).toHaveLength(1);
  });

  it('clamps the limit to 200 and defaults it to 50', () => {
    const many = Array.from({ length: 250 }, (_, n) => interaction(`m${String(n).padStart(3, '0')}`, 's1'));
    expect(queryInteractions(many, {}).interactions).toHaveLength(50);
    expect(queryInteractions(many, {}).nextOffset).toBe(50);
    expect(queryInteractions(many, { limit: 1000 }).interactions).toHaveLength(200);
    expect(queryInteractions(many, { limit: 1000 }).nextOffset).toBe(200);
  });

  it('rejects malformed bounds and counts with a TypeError', () => {
    expect(() => queryInteractions(data, { since: 'yesterday' })).toThrow(TypeError);
    expect(() => queryInteractions(data, { since: 'yesterday' })).toThrow(/since/);
    expect(() => queryInteractions(data, { until: '2024-02-30' })).toThrow(TypeError);
    expect(() => queryInteractions(data, { limit: 2.5 })).toThrow(TypeError);
    expect(() => queryInteractions(data, { limit: -1 })).toThrow(/limit/);
    expect(() => queryInteractions(data, { offset: -3 })).toThrow(/offset/);
  });

  it('is used by TraceStore.query', async () => {
    const directory = tempDir();
    const store = await TraceStore.open({ directory, session: session('s1'), segmentSize: 10 });
    for (const item of data.filter((i) => i.sessionId === 's1')) await store.add(item);
    expect(store.query({ used: true }).interactions.map((i) => i.id)).toEqual(['i2']);
    expect(() => store.query({ since: 'not a date' })).toThrow(TypeError);
  });
});

describe('DurableJsonFile', () => {
  it('leaves no temp files behind and ends concurrent writes with the last value', async () => {
    const directory = tempDir();
    const file = path.join(directory, 'data.json');
    const adapter = new DurableJsonFile<{ n: number }>(file);
    await Promise.all(Array.from({ length: 20 }, (_, n) => adapter.write({ n })));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ n: 19 });
    expect(await adapter.read()).toEqual({ n: 19 });
    expect(fs.readdirSync(directory)).toEqual(['data.json']);
  });

  it('writes the same bytes with direct calls and through the thread pool', async () => {
    const directory = tempDir();
    const text = '{\n  "n": 1\n}';
    const write = async (name: string, directCallBytes: number): Promise<string> => {
      const file = path.join(directory, name);
      const adapter = new DurableJsonFile<{ n: number }>(file, { serialize: () => text, directCallBytes });
      await Promise.all([adapter.write({ n: 1 }), adapter.write({ n: 1 })]);
      expect(await adapter.read()).toEqual({ n: 1 });
      return fs.readFileSync(file, 'utf8');
    };
    expect(await write('direct.json', 1024)).toBe('{\n  "n": 1\n}\n');
    // Larger than the limit: every call through the pool, the same bytes.
    expect(await write('pool.json', 4)).toBe('{\n  "n": 1\n}\n');
    expect(fs.readdirSync(directory).sort()).toEqual(['direct.json', 'pool.json']);
  });

  it('a failed write with direct calls rejects and leaves no temp file', async () => {
    const directory = tempDir();
    const file = path.join(directory, 'data.json');
    // A directory where the file should go: the rename fails (EISDIR) after the temp file was written.
    fs.mkdirSync(file);
    fs.writeFileSync(path.join(file, 'inside'), 'x');
    const adapter = new DurableJsonFile<{ n: number }>(file, { directCallBytes: 1024 });
    await expect(adapter.write({ n: 1 })).rejects.toThrow();
    expect(fs.readdirSync(directory)).toEqual(['data.json']);
  });

  it('returns null for a missing file', async () => {
    const adapter = new DurableJsonFile<unknown>(path.join(tempDir(), 'none.json'));
    expect(await adapter.read()).toBeNull();
  });

  it('ignores fresh temp files and removes stale ones', async () => {
    const directory = tempDir();
    const file = path.join(directory, 'data.json');
    fs.writeFileSync(file, '{"ok":true}');
    const fresh = `${file}.999.aaaa.tmp`;
    const stale = `${file}.999.bbbb.tmp`;
    fs.writeFileSync(fresh, 'partial');
    fs.writeFileSync(stale, 'partial');
    const old = new Date(Date.now() - 5 * 60_000);
    fs.utimesSync(stale, old, old);
    const adapter = new DurableJsonFile<{ ok: boolean }>(file);
    expect(await adapter.read()).toEqual({ ok: true });
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.existsSync(stale)).toBe(false);
  });

  it('sets aside an invalid document and reports it', async () => {
    const directory = tempDir();
    const file = path.join(directory, 'data.json');
    fs.writeFileSync(file, '[1, 2, 3]');
    const warnings: string[] = [];
    const adapter = new DurableJsonFile<{ n: number }>(file, {
      validate: (data) => typeof data === 'object' && data !== null && !Array.isArray(data),
      onWarning: (message) => warnings.push(message),
    });
    expect(await adapter.read()).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readdirSync(directory)).toEqual([expect.stringMatching(/^data\.json\.damaged-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-/)]);
    await adapter.write({ n: 1 });
    expect(await adapter.read()).toEqual({ n: 1 });
  });
});
