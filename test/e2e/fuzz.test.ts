// Fuzzing the built server: byte-level frames on raw stdio and seeded random messages for every declared method; no crash, bounded memory, still serving.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_COMMANDS, CUSTOM_METHODS, TASK_IDS } from '../../protocol/src/index.js';
import { copyFixture } from '../support/lspClient.js';
import { LONG_TESTS, RawServer, frame, prng, testSeed } from '../support/rawLsp.js';
import type { Id, ResponseMessage } from '../support/rawLsp.js';
import { startScriptedModel } from '../support/scriptedModel.js';

/**
 * The server's resident set size never goes over this while it is fuzzed (measured: 250-330 MB). The fuzzed server
 * runs with V8's old space capped at HEAP_CAP_MB: on a machine with plenty of RAM, V8 otherwise lets garbage pile up
 * for a long time (RSS rose to 800 MB in a minute and fell back to 400 MB at the next full collection), so the RSS
 * would measure the collector's laziness; capped, a leak shows as RSS over the bound or as a crash.
 */
const RSS_BOUND = 640 * 1024 * 1024;
const HEAP_CAP_MB = 384;
/** What a Node stack trace looks like on stderr: a crash, never a clean exit. */
const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$/m;

const servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.dispose()));
});

function start(root = copyFixture('basic')): RawServer {
  const server = RawServer.spawn({ root });
  servers.push(server);
  return server;
}

/** A server past `initialize`, with src/config.ts open and the core loaded. */
async function running(env?: Record<string, string>): Promise<{ server: RawServer; uri: string; text: string }> {
  const server = RawServer.spawn({ root: copyFixture('basic'), ...(env ? { env } : {}) });
  servers.push(server);
  await server.initialize();
  const { uri, text } = server.open('src/config.ts');
  expect((await server.call('assistant/agents', {}, 20_000)).result).toBeDefined();
  return { server, uri, text };
}

/** Line and character of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; character: number } {
  const before = text.slice(0, text.indexOf(needle));
  const lines = before.split('\n');
  return { line: lines.length - 1, character: (lines[lines.length - 1] as string).length };
}

/** The check every fuzz run ends with: a normal request gets its normal answer. */
async function stillServes(server: RawServer, uri: string, text: string): Promise<void> {
  // Whatever the fuzz did to the document, it is opened afresh.
  server.notify('textDocument/didClose', { textDocument: { uri } });
  server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1_000_000, text } });
  const at = positionOf(text, 'parseConfig(text');
  const answer = await server.call('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } }, 20_000);
  expect(answer.error).toBeUndefined();
  expect((answer.result as { title: string }[]).map((a) => a.title)).toContain('Assistant: Document function parseConfig');
}

function expectCleanExit(server: RawServer, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
  expect(exit, server.stderr).toEqual({ code: 1, signal: null });
  expect(server.stderr).not.toMatch(STACK_TRACE);
  expect(server.stderr).not.toMatch(/unhandled rejection|uncaught/i);
}

async function exitWithin(server: RawServer, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the server did not exit within ${ms} ms; stderr: ${server.stderr}`)), ms)));
  try {
    const exit = await Promise.race([server.exited, timeout]);
    // What the server wrote last may still be on its way: the checks read its stderr.
    await Promise.race([server.stderrEnded, timeout]);
    return exit;
  } finally {
    clearTimeout(timer);
  }
}

describe('byte-level framing', () => {
  it('answers bodies that are not JSON or not an object with id null and keeps serving later frames', async () => {
    const { server, uri, text } = await running();
    const probe = async (): Promise<void> => {
      const answer = await server.call('assistant/agents', {});
      expect(answer.error).toBeUndefined();
    };
    const cases: { name: string; bytes: Buffer; code?: number }[] = [
      { name: 'non-JSON body', bytes: frame('{"jsonrpc":"2.0","id":1,"method":'), code: -32700 },
      { name: 'empty body', bytes: frame(''), code: -32700 },
      { name: 'binary body', bytes: frame(Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80])), code: -32700 },
      { name: 'invalid UTF-8 outside a string', bytes: frame(Buffer.concat([Buffer.from('{"a":'), Buffer.from([0xc3, 0x28]), Buffer.from('}')])), code: -32700 },
      { name: 'JSON number', bytes: frame('42'), code: -32600 },
      { name: 'JSON string', bytes: frame('"initialize"'), code: -32600 },
      { name: 'JSON null', bytes: frame('null'), code: -32600 },
      { name: 'JSON true', bytes: frame('true'), code: -32600 },
      { name: 'JSON array (a batch)', bytes: frame([{ jsonrpc: '2.0', id: 'batched', method: 'assistant/agents', params: {} }]), code: -32600 },
      { name: 'empty array', bytes: frame('[]'), code: -32600 },
    ];
    for (const c of cases) {
      const before = server.nullIdResponses.length;
      server.writeBytes(c.bytes);
      await probe();
      expect(server.nullIdResponses.slice(before).map((r) => r.error?.code), c.name).toEqual([c.code]);
    }
    // Sound frames with unusual but valid headers and chunking are read as usual.
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'assistant/agents', params: {} }));
    server.writeBytes(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\ncontent-length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`), body]));
    expect((await server.response('dup')).error).toBeUndefined();
    const oneByOne = frame({ jsonrpc: '2.0', id: 'bytewise', method: 'assistant/agents', params: {} });
    for (const byte of oneByOne) server.writeBytes(Buffer.from([byte]));
    expect((await server.response('bytewise')).error).toBeUndefined();
    server.writeBytes(Buffer.concat([1, 2, 3].map((n) => frame({ jsonrpc: '2.0', id: `many-${n}`, method: 'assistant/agents', params: {} }))));
    for (const n of [1, 2, 3]) expect((await server.response(`many-${n}`)).error).toBeUndefined();
    // Invalid UTF-8 inside a string reads as U+FFFD (as in vscode-jsonrpc); the request is served.
    const mangled = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"assistant/ask","params":{"text":"document '), Buffer.from([0xff, 0xc0]), Buffer.from(' parseConfig"}}')]);
    server.writeBytes(frame(mangled));
    expect((await server.response('utf8', 20_000)).result).toMatchObject({ task: 'document' });
    // A large but allowed message (4 MB of text) is read whole, and memory stays under the bound.
    const large = `${text}\n${'// filler line of a large document\n'.repeat(120_000)}`;
    server.notify('textDocument/didOpen', { textDocument: { uri: server.uri('src/large.ts'), languageId: 'typescript', version: 1, text: large } });
    await probe();
    expect(server.rss()).toBeLessThan(RSS_BOUND);
    await stillServes(server, uri, text);
    expect(server.garbageOut).toBe('');
    expect(server.stderr).not.toMatch(/unhandled rejection/i);
  });

  it('exits cleanly (code 1, one line on stderr, no stack trace) when the framing cannot be trusted', async () => {
    const body = '{"jsonrpc":"2.0","id":7,"method":"assistant/agents","params":{}}';
    const cases: { name: string; bytes: Buffer; reason: RegExp }[] = [
      { name: 'no Content-Length', bytes: Buffer.from(`Content-Type: application/json\r\n\r\n${body}`), reason: /without Content-Length/ },
      { name: 'a header line without a colon', bytes: Buffer.from(`hello world\r\n\r\n${body}`), reason: /malformed header line/ },
      { name: 'a negative Content-Length', bytes: Buffer.from(`Content-Length: -5\r\n\r\n${body}`), reason: /not a byte count/ },
      { name: 'a non-numeric Content-Length', bytes: Buffer.from(`Content-Length: 12abc\r\n\r\n${body}`), reason: /not a byte count/ },
      { name: 'conflicting Content-Length headers', bytes: Buffer.from(`Content-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`), reason: /conflicting Content-Length/ },
      { name: 'a Content-Length over the 64 MiB limit', bytes: Buffer.from(`Content-Length: ${64 * 1024 * 1024 + 1}\r\n\r\n${body}`), reason: /over the 67108864-byte limit/ },
      { name: 'an absurd Content-Length', bytes: Buffer.from(`Content-Length: 99999999999999999\r\n\r\n${body}`), reason: /over the .* limit|not a byte count/ },
      { name: 'no end of headers within 8 KiB', bytes: Buffer.from(`Content-Length: 10\r\n${'X-Padding: y\r\n'.repeat(700)}`), reason: /no end of headers/ },
      { name: 'random binary garbage', bytes: Buffer.from(Array.from({ length: 9000 }, (_, i) => (i * 7919 + 13) % 256)), reason: /malformed header line|no end of headers/ },
    ];
    const root = copyFixture('basic');
    await Promise.all(
      cases.map(async (c, index) => {
        const server = start(root);
        // Framing is read the same before and after initialize; one case runs in a session, the others need no compiler.
        if (index === 0) await server.initialize();
        server.writeBytes(c.bytes);
        // A sound frame after the damage is never read: the stream is closed, not resynchronised on guesswork.
        server.writeBytes(frame({ jsonrpc: '2.0', id: 'after', method: 'assistant/agents', params: {} }));
        const exit = await exitWithin(server, 5_000);
        expectCleanExit(server, exit);
        expect(server.stderr, c.name).toMatch(c.reason);
        expect(server.responsesTo('after'), c.name).toEqual([]);
      }),
    );
  });

  it('ends cleanly when the client vanishes in the middle of a frame', async () => {
    const server = start();
    await server.initialize();
    const whole = frame({ jsonrpc: '2.0', id: 'cut', method: 'assistant/agents', params: {} });
    server.writeBytes(whole.subarray(0, whole.length - 10));
    expectCleanExit(server, await Promise.race([server.endInput(), exitWithin(server, 5_000)]));
    expect(server.responsesTo('cut')).toEqual([]);
    // Headers cut before their end, likewise.
    const second = start();
    await second.initialize();
    second.writeBytes('Content-Length: 40\r\nContent-Ty');
    expectCleanExit(second, await Promise.race([second.endInput(), exitWithin(second, 5_000)]));
  });

  it('survives seeded random corruption of valid frames: it answers, or exits cleanly, never crashes or spins', async () => {
    const seed = testSeed(0x5eed_b17e);
    const budgetMs = LONG_TESTS ? 60_000 : 4_000;
    const root = copyFixture('basic');
    // Three independent lanes (seeds seed, seed+1, seed+2): most of a round is waiting for a process to start or end.
    const lanes = await Promise.all([0, 1, 2].map((lane) => corruptionLane(seed + lane, root, budgetMs)));
    const total = lanes.reduce((sum, lane) => ({ rounds: sum.rounds + lane.rounds, answered: sum.answered + lane.answered, cleanExits: sum.cleanExits + lane.cleanExits, waitingForBytes: sum.waitingForBytes + lane.waitingForBytes, maxRss: Math.max(sum.maxRss, lane.maxRss) }));
    expect(total.maxRss).toBeLessThan(RSS_BOUND);
    expect(total.answered).toBeGreaterThan(0);
    expect(total.cleanExits).toBeGreaterThan(0);
    console.info(`byte fuzz (seed ${seed}): ${JSON.stringify({ ...total, maxRssMB: Math.round(total.maxRss / 2 ** 20) })}`);
  }, 120_000);
});

const CORRUPTED_MESSAGES = [
  { jsonrpc: '2.0', id: 1, method: 'assistant/agents', params: {} },
  { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///tmp/x.ts', languageId: 'typescript', version: 1, text: 'export function f() {}\n' } } },
  { jsonrpc: '2.0', id: 2, method: 'assistant/trace', params: { limit: 1 } },
  { jsonrpc: '2.0', id: 3, method: 'textDocument/codeAction', params: { textDocument: { uri: 'file:///tmp/x.ts' }, range: { start: { line: 0, character: 16 }, end: { line: 0, character: 16 } }, context: { diagnostics: [] } } },
];

/** Damages one valid frame: bytes flipped anywhere, cut, repeated, its length changed, its body scrambled, or noise. */
function corrupt(rand: Rand, bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const bodyStart = out.indexOf('\r\n\r\n') + 4;
  switch (rand.int(8)) {
    case 0:
      for (let i = 0, n = 1 + rand.int(4); i < n; i++) out[rand.int(out.length)] = rand.int(256);
      return out;
    case 1:
      return out.subarray(0, rand.int(out.length));
    case 2:
      return Buffer.concat([out, out.subarray(rand.int(out.length))]);
    case 3:
      return Buffer.from(out.toString('latin1').replace(/Content-Length: (\d+)/, (_m, n: string) => `Content-Length: ${Math.max(0, Number(n) + rand.int(41) - 20)}`), 'latin1');
    case 4:
      return Buffer.from(Array.from({ length: 1 + rand.int(200) }, () => rand.int(256)));
    default: {
      // Most damage stays inside the body, where the frame is still delimited and the server must carry on.
      const body = out.subarray(bodyStart);
      for (let i = 0, n = 1 + rand.int(6); i < n; i++) body[rand.int(body.length)] = rand.int(256);
      return out;
    }
  }
}

/**
 * One lane of the corruption fuzz: a damaged frame, then a sound probe. The probe is answered (the frame was still
 * delimited), or the server exits cleanly (the framing broke), or it waits for bytes the damage announced, without
 * spinning, until the client goes away. Framing is read the same in every phase; before `initialize` no round pays
 * for loading the compiler, and the probe is answered by the lifecycle gate (-32002) at once.
 */
async function corruptionLane(seed: number, root: string, budgetMs: number): Promise<{ rounds: number; answered: number; cleanExits: number; waitingForBytes: number; maxRss: number }> {
  const rand = prng(seed);
  const started = Date.now();
  const stats = { rounds: 0, answered: 0, cleanExits: 0, waitingForBytes: 0, maxRss: 0 };
  let server: RawServer | undefined;
  let probeId = 0;
  while (Date.now() - started < budgetMs) {
    if (!server || !server.alive) server = start(root);
    stats.rounds++;
    server.writeBytes(corrupt(rand, frame(rand.pick(CORRUPTED_MESSAGES))));
    const id = `probe-${++probeId}`;
    server.writeBytes(frame({ jsonrpc: '2.0', id, method: 'assistant/agents', params: {} }));
    const outcome = await Promise.race([
      server.response(id, 2_000).then(
        () => 'answered' as const,
        () => 'silent' as const,
      ),
      server.exited.then(() => 'exited' as const),
    ]);
    stats.maxRss = Math.max(stats.maxRss, server.rss() ?? 0);
    if (outcome === 'answered') {
      stats.answered++;
      expect(server.responsesTo(id), `seed ${seed}`).toHaveLength(1);
      expect(server.responsesTo(id)[0]!.error?.code, `seed ${seed}`).toBe(-32002);
      continue;
    }
    if (outcome === 'silent') {
      stats.waitingForBytes++;
      expect(server.alive, `seed ${seed}: ${server.stderr}`).toBe(true);
      expect(await cpuPercentOver(server.pid!, 300), `seed ${seed}`).toBeLessThan(50);
      server.child.stdin!.end();
    }
    expectCleanExit(server, await exitWithin(server, 5_000));
    stats.cleanExits++;
    expect(server.garbageOut, `seed ${seed}`).toBe('');
  }
  return stats;
}

/** The process's CPU use over `ms`, in percent of one core, from /proc/<pid>/stat. */
async function cpuPercentOver(pid: number, ms: number): Promise<number> {
  const ticks = (): number => {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const before = ticks();
  await new Promise((r) => setTimeout(r, ms));
  return ((ticks() - before) / 100 / (ms / 1000)) * 100;
}

const URIS = (root: string, real: string): string[] => [
  real,
  `${real}?query=1#fragment`,
  `file://${root}/src/../../../../etc/passwd`,
  `file://${root}/src/../src/config.ts`,
  'src/config.ts',
  './config.ts',
  'untitled:Untitled-1',
  'http://example.com/config.ts',
  'https://user:pw@example.com:99999/x.ts',
  '',
  ':',
  'file:',
  'file://',
  'file:///',
  'file://server/share/x.ts',
  'file:///C:/Windows/x.ts',
  `file://${root}/src/${'very-long-name/'.repeat(400)}x.ts`,
  `file://${root}/src/${'a'.repeat(70_000)}.ts`,
  `file://${root}/src/h%C3%A9llo/%E6%97%A5%E6%9C%AC.ts`,
  `file://${root}/src/héllo/日本🙂.ts`,
  `file://${root}/src/%E0%A4%A.ts`,
  `file://${root}/src/%.ts`,
  `file://${root}/src/%00nul.ts`,
  `file://${root}/src/a\u0000b.ts`,
  'vscode-notebook-cell:/x.ipynb#W0sZmlsZQ%3D%3D',
  'javascript:alert(1)',
  '\ud800',
];

const STRINGS = ['', 'a', 'document parseConfig', 'rename load to fetch', 'explain firstOf', 'what is the weather', 'x'.repeat(20_000), 'é日本🙂', '\ud800\udfff\ud800', '\u0000', '../..', '${}', '`', '%', '(.*)+$', 'constructor', '__proto__', 'toString', '\r\n\r\nContent-Length: 5\r\n\r\n', 'null'];
const KEYS = ['uri', 'textDocument', 'range', 'start', 'end', 'line', 'character', 'text', 'version', 'languageId', 'command', 'arguments', 'interactionId', 'responseId', 'id', 'position', 'data', 'task', 'args', 'symbol', 'context', 'diagnostics', 'only', 'contentChanges', 'settings', 'assistant', 'workDoneToken', 'token', 'value', 'limit', 'offset', 'rating', 'comment', 'parameters', 'newName', 'question', 'goal', 'agent', 'since', 'until', 'used', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];

type Rand = ReturnType<typeof prng>;

function randomJson(r: Rand, uris: string[], depth = 0): unknown {
  switch (r.int(depth > 2 ? 7 : 10)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 2 ** 31, -(2 ** 53), 1e308, -1e-308, 0.5, 4294967296, Number.MAX_SAFE_INTEGER]);
    case 3:
      return r.pick(STRINGS);
    case 4:
      return r.int(100);
    case 5:
      return r.pick(uris);
    case 6:
      return { line: r.pick([0, -1, 5, 1e9, 0.5, 2 ** 31]), character: r.pick([0, -3, 10, 1e9, 1.5]) };
    case 7:
      return Array.from({ length: r.int(5) }, () => randomJson(r, uris, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = 0, n = r.int(6); i < n; i++) out[r.pick(KEYS)] = randomJson(r, uris, depth + 1);
      return out;
    }
  }
}

/** Replaces, deletes or breaks a few values deep in a well-formed params object. */
function mutate(r: Rand, value: unknown, uris: string[], rate: number): unknown {
  if (r.chance(rate)) {
    const kind = r.int(5);
    if (kind === 0) return undefined;
    if (kind === 1) return r.pick(uris);
    if (kind === 2) return { line: r.pick([-1, 1e9, 0.5, '3']), character: r.pick([-1, 1e9, NaN, '0']) };
    return randomJson(r, uris, 2);
  }
  if (Array.isArray(value)) return value.map((v) => mutate(r, v, uris, rate));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const m = mutate(r, v, uris, rate);
      if (m !== undefined) out[k] = m;
    }
    return out;
  }
  return value;
}

describe('message-level fuzzing', () => {
  it('answers every request exactly once, never crashes, stays under the memory bound, and serves normally afterwards', async () => {
    const seed = testSeed(0xf0221ed);
    const r = prng(seed);
    const { server, uri, text } = await running({ NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` });
    const uris = URIS(server.root, uri);
    const pos = (needle: string) => positionOf(text, needle);
    const range = (needle: string) => ({ start: pos(needle), end: pos(needle) });
    const interactionIds: string[] = ['nope'];
    const responseIds: string[] = ['nope'];
    const taskArgs = () => ({ textDocument: { uri: r.pick(uris.slice(0, 4)), version: r.pick([1, 2, null]) }, range: range(r.pick(['parseConfig(text', 'async load', 'firstOf', 'greet(name', 'ConfigStore'])), symbol: r.pick(['parseConfig', 'load', 'x']), parameters: { newName: r.pick(['fetch', '', '1bad', 'class']), question: r.pick(STRINGS), goal: r.pick(['efficiency', 'readability', 'bogus']) } });
    const requests: Record<string, () => unknown> = {
      'textDocument/codeAction': () => ({ textDocument: { uri: r.pick(uris) }, range: range(r.pick(['parseConfig(text', 'load', 'firstOf', 'greet'])), context: { diagnostics: r.chance(0.3) ? [{ range: range('parseConfig'), message: 'x', severity: 1, code: 2322, source: 'ts' }] : [], ...(r.chance(0.3) ? { only: [r.pick(['quickfix', 'refactor', 'source', '', 'refactor.rewrite.assistant.document'])] } : {}) } }),
      'codeAction/resolve': () => ({ title: 'x', kind: 'refactor.rewrite', data: { task: r.pick([...TASK_IDS, 'nope']), args: taskArgs() } }),
      'workspace/executeCommand': () => ({ command: r.pick([...ALL_COMMANDS, 'assistant.nope', '']), arguments: r.pick([[taskArgs()], [], [{ interactionId: r.pick(interactionIds), responseId: r.pick(responseIds) }], [{ textDocument: { uri }, position: pos('parseConfig') }], [{ patch: r.pick(['--- a/src/config.ts\n+++ b/src/config.ts\n@@ -1 +1 @@\n-x\n+y\n', '--- /dev/null\n+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n', ...STRINGS]) }], [{ ids: r.pick([['1'], 'x', [1]]) }], undefined]) }),
      'assistant/ask': () => ({ text: r.pick(STRINGS), ...(r.chance(0.6) ? { textDocument: { uri: r.pick(uris) } } : {}), ...(r.chance(0.3) ? { range: range('parseConfig') } : {}) }),
      'assistant/apply': () => ({ interactionId: r.pick(interactionIds), responseId: r.pick(responseIds) }),
      'assistant/trace': () => r.pick([{}, { id: r.pick(interactionIds) }, { textDocument: { uri: r.pick(uris) }, position: pos('parseConfig') }, { task: r.pick([...TASK_IDS, 'none', 'x']), limit: r.pick([1, 0, 500, -1]), offset: r.pick([0, -5, 1e9]) }, { since: r.pick(['2020-01-01', 'yesterday', '']), until: '2999-01-01' }, { text: r.pick(STRINGS), used: r.chance(0.5) }]),
      'assistant/agents': () => ({}),
      'assistant/rate': () => ({ interactionId: r.pick(interactionIds), responseId: r.pick(responseIds), rating: r.pick(['up', 'down', null, 'sideways', 1]), comment: r.pick(STRINGS) }),
      'assistant/revert': () => ({ interactionId: r.pick(interactionIds), ...(r.chance(0.5) ? { responseId: r.pick(responseIds) } : {}) }),
      'assistant/discard': () => r.pick([{ interactionId: r.pick(interactionIds) }, { interactionId: r.pick([1, null, ['x']]) }, {}, 'x']),
      'assistant/feedback': () => ({ interactionId: r.pick(interactionIds), responseId: r.pick(responseIds), feedback: r.pick([[{ step: r.pick(['patch', 'context', 0, 99, -1, '']), text: r.pick(STRINGS) }], [{ step: 'patch', text: 'a' }, { step: 'context', text: 'b' }], [], 'x', [{ text: '' }], [{ modelResponseId: 'nope', text: 'x' }]]) }),
      // A server-to-client notification sent as a request by a confused client.
      'assistant/pipelineStep': () => ({ interactionId: r.pick(interactionIds), agent: 'x', pipeline: 'issue', step: { index: 0, name: 'patch', status: 'running' } }),
      // Server-to-client, like pipelineStep: sent the wrong way, it must be refused and change nothing.
      'assistant/showAnswer': () => ({ interactionId: r.pick(interactionIds), responseId: 'x', task: 'explain', title: 't', text: 'x', locations: [{ uri: r.pick(uris), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, label: 'l' }] }),
      initialize: () => ({ processId: null, rootUri: null, capabilities: {} }),
      'textDocument/hover': () => ({ textDocument: { uri }, position: pos('parseConfig') }),
      'textDocument/completion': () => ({ textDocument: { uri }, position: pos('parseConfig') }),
      'assistant/nope': () => ({}),
      '$/unknownRequest': () => ({}),
      '': () => ({}),
    };
    const notifications: Record<string, () => unknown> = {
      'textDocument/didOpen': () => ({ textDocument: { uri: r.pick(uris), languageId: r.pick(['typescript', 'javascript', 'python', '', 'typescriptreact']), version: r.pick([1, 0, -1, 1e9, 1.5]), text: r.pick([text, '', 'export function f(a: number) { return a; }\n', 'function (((', '\ud800', 'x'.repeat(50_000)]) } }),
      'textDocument/didChange': () => ({ textDocument: { uri: r.pick(uris), version: r.int(100) }, contentChanges: r.pick([[{ text: 'export function g() {}\n' }], [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, text: '// ' }], [{ range: { start: { line: 1e6, character: 0 }, end: { line: -1, character: 0 } }, text: 'x' }], []]) }),
      'textDocument/didClose': () => ({ textDocument: { uri: r.pick(uris) } }),
      'textDocument/didSave': () => ({ textDocument: { uri: r.pick(uris) } }),
      'workspace/didChangeConfiguration': () => ({ settings: { assistant: mutate(r, { disabledAgents: ['doc-offline'], orchestrator: { agentTimeoutMs: 5000, maxAttempts: 2 }, classifier: { threshold: 0.3 }, annotations: { enabled: false }, user: { role: 'reviewer' } }, uris, 0.4) } }),
      'workspace/didChangeWorkspaceFolders': () => ({ event: { added: [{ uri: r.pick(uris), name: 'x' }], removed: [] } }),
      '$/cancelRequest': () => ({ id: r.pick([1_000_000 + n - r.int(12), `fz-${n - r.int(12)}`, null, {}]) }),
      'window/workDoneProgress/cancel': () => ({ token: r.pick(['x', 1, null]) }),
      '$/setTrace': () => ({ value: r.pick(['off', 'messages', 'verbose', 'loud']) }),
      '$/progress': () => ({ token: 'x', value: {} }),
      'assistant/unknownNotification': () => ({}),
    };
    const requestMethods = [...new Set([...Object.keys(requests), ...CUSTOM_METHODS])];
    // Every declared method is fuzzed: each custom method and each command of the protocol package.
    for (const method of CUSTOM_METHODS) expect(Object.keys(requests)).toContain(method);

    const budgetMs = LONG_TESTS ? 60_000 : 6_000;
    const started = Date.now();
    const tracked = new Map<Id, string>();
    const exercised = new Set<string>();
    let n = 0;
    let maxRss = 0;
    const errors = new Map<number, number>();
    const internal: string[] = [];
    const mustExercise = [...CUSTOM_METHODS, ...ALL_COMMANDS, 'textDocument/codeAction', 'codeAction/resolve', 'initialize'];
    // The budget is time, so a busy machine sends fewer messages: past it, the fuzz sends each method and command not
    // sent yet.
    const goOn = (): boolean => Date.now() - started < budgetMs || mustExercise.some((name) => !exercised.has(name));
    while (goOn()) {
      const batch: Id[] = [];
      for (let i = 0; i < 12; i++) {
        n++;
        const roll = r.next();
        // Past the budget, what has not been sent yet is sent as it is, so a busy machine still sends everything.
        const missing = Date.now() - started < budgetMs ? [] : mustExercise.filter((name) => !exercised.has(name));
        if (missing.length > 0 || roll < 0.55) {
          const name = missing.length > 0 ? r.pick(missing) : undefined;
          const forced = name !== undefined && (ALL_COMMANDS as readonly string[]).includes(name) ? name : undefined;
          const method = forced ? 'workspace/executeCommand' : (name ?? r.pick(requestMethods));
          const template = (requests[method] ?? (() => ({})))();
          const params = forced ? { ...(template as object), command: forced } : name ? template : r.chance(0.15) ? randomJson(r, uris) : mutate(r, template, uris, r.pick([0, 0.05, 0.2]));
          const id: Id = r.chance(0.5) ? 1_000_000 + n : `fz-${n}`;
          server.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
          tracked.set(id, method);
          exercised.add(method);
          const command = (params as { command?: unknown } | null)?.command;
          if (method === 'workspace/executeCommand' && typeof command === 'string') exercised.add(command);
          batch.push(id);
        } else if (roll < 0.9) {
          const method = r.pick(Object.keys(notifications));
          const template = (notifications[method] as () => unknown)();
          const params = r.chance(0.1) ? randomJson(r, uris) : mutate(r, template, uris, r.pick([0, 0.05, 0.2]));
          server.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
        } else {
          // Messages that are no request: stray responses, odd ids, random objects.
          server.send(r.pick([{ jsonrpc: '2.0', id: r.int(1000), result: randomJson(r, uris) }, { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }, { jsonrpc: '2.0', id: {}, method: 'assistant/agents' }, { jsonrpc: '2.0', id: null, method: 'assistant/agents' }, { jsonrpc: '1.0' }, randomJson(r, uris, 1) ?? {}]));
        }
      }
      for (const id of batch) {
        const answer: ResponseMessage = await server.response(id, 30_000).catch((error: Error) => {
          throw new Error(`seed ${seed}: no answer to ${tracked.get(id)} (${JSON.stringify(id)}): ${error.message}`);
        });
        if (answer.error) {
          errors.set(answer.error.code, (errors.get(answer.error.code) ?? 0) + 1);
          if (answer.error.code === -32603) internal.push(`${tracked.get(id)}: ${answer.error.message}`);
        }
        const result = answer.result as { interactionId?: string; responses?: { id: string }[]; responseId?: string } | null | undefined;
        if (result && typeof result.interactionId === 'string') interactionIds.push(result.interactionId);
        for (const response of result?.responses ?? []) responseIds.push(response.id);
        if (typeof result?.responseId === 'string') responseIds.push(result.responseId);
      }
      maxRss = Math.max(maxRss, server.rss() ?? 0);
    }
    // Stray messages are still being read when the last batch is answered: one more round trip drains them.
    expect((await server.call('assistant/agents', {})).error).toBeUndefined();
    for (const [id, method] of tracked) expect(server.responsesTo(id), `${method} ${JSON.stringify(id)}`).toHaveLength(1);
    expect(server.alive).toBe(true);
    expect(maxRss).toBeLessThan(RSS_BOUND);
    expect(server.stderr).not.toMatch(/unhandled rejection/i);
    expect(server.stderr).not.toMatch(STACK_TRACE);
    expect(server.garbageOut).toBe('');
    for (const name of mustExercise) expect([...exercised], `seed ${seed}`).toContain(name);
    // A second initialize is refused, not obeyed.
    expect(errors.get(-32600) ?? 0).toBeGreaterThan(0);
    // The fuzz may have left settings that disable the offline agents: back to the defaults first.
    server.notify('workspace/didChangeConfiguration', { settings: { assistant: {} } });
    expect((await server.call('assistant/agents', {})).result).toMatchObject({ agents: expect.arrayContaining([expect.objectContaining({ name: 'doc-offline' })]) });
    await stillServes(server, uri, text);
    console.info(`message fuzz (seed ${seed}): ${n} messages, ${tracked.size} requests, errors by code ${JSON.stringify(Object.fromEntries(errors))}, max RSS ${Math.round(maxRss / 2 ** 20)} MB; internal errors: ${internal.length}\n${[...new Set(internal)].slice(0, 30).join('\n')}`);
    // An internal error is still an answer, and the server served on. But one that is a programming error (the server
    // logs its stack: a TypeError or ReferenceError thrown on params it did not check) is a bug the boundary must
    // catch as InvalidParams; what the system refuses (a path too long for the file system) may stay an internal error.
    const programmingErrors = server.received
      .map((r) => String(r.message.method === 'window/logMessage' ? r.message.params?.message : ''))
      .filter((line) => /^\S+ failed: (TypeError|ReferenceError|RangeError|SyntaxError)\b/.test(line))
      .map((line) => line.split('\n')[0])
      // A handler that throws before the server's own error handling is answered by the library itself.
      .concat(internal.filter((line) => / Request \S+ failed with message: /.test(line)));
    expect(programmingErrors, `seed ${seed}`).toEqual([]);
  }, 180_000);
});

describe('failures inside the server', () => {
  it('turns an exception inside a task (the trace cannot be written) into an error response and keeps serving', async () => {
    const { server, uri, text } = await running();
    const at = positionOf(text, 'parseConfig(text');
    const document = () => server.call('workspace/executeCommand', { command: 'assistant.document', arguments: [{ textDocument: { uri, version: 1 }, range: { start: at, end: at }, symbol: 'parseConfig' }] }, 20_000);
    expect((await document()).result).toMatchObject({ applied: true });
    // The disk goes bad under the server: its session directory becomes a file, so the next trace write throws.
    const traceRoot = path.join(server.root, '.assistant', 'trace');
    const [session] = fs.readdirSync(traceRoot).filter((name) => fs.statSync(path.join(traceRoot, name)).isDirectory());
    const sessionDirectory = path.join(traceRoot, session!);
    fs.renameSync(sessionDirectory, `${sessionDirectory}.moved`);
    fs.writeFileSync(sessionDirectory, 'not a directory');
    const failed = await document();
    expect(failed.error?.code).toBe(-32603);
    expect(failed.error?.message).toMatch(/ENOTDIR|not a directory/i);
    expect((await server.call('assistant/agents', {})).error).toBeUndefined();
    await stillServes(server, uri, text);
    // Once the disk is back, tasks run again.
    fs.rmSync(sessionDirectory);
    fs.renameSync(`${sessionDirectory}.moved`, sessionDirectory);
    server.notify('textDocument/didClose', { textDocument: { uri } });
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
    expect((await document()).result).toMatchObject({ applied: true });
    expect(server.alive).toBe(true);
    expect(server.stderr).not.toMatch(/unhandled rejection/i);
  });

  it('turns an exception inside an agent (a model that answers garbage) into an error response in the result and keeps serving', async () => {
    const model = await startScriptedModel();
    try {
      model.setDefault({ kind: 'garbage' });
      const server = start();
      await server.initialize({ initializationOptions: { assistant: { useEnvironment: false, agents: [{ name: 'broken-model', baseURL: model.baseURL, apiKey: 'sk-test', model: 'broken', tasks: ['document'], maxRetries: 0 }] } } });
      const { uri, text } = server.open('src/config.ts');
      const at = positionOf(text, 'parseConfig(text');
      const answer = await server.call('assistant/ask', { text: 'document parseConfig', textDocument: { uri }, range: { start: at, end: at } }, 20_000);
      expect(answer.error).toBeUndefined();
      const responses = (answer.result as { responses: { agent: { name: string }; status: string; error?: string }[] }).responses;
      expect(responses.find((r) => r.agent.name === 'broken-model')).toMatchObject({ status: 'error' });
      // The offline agent's answer is unaffected.
      expect(responses.find((r) => r.agent.name === 'doc-offline')).toMatchObject({ status: 'ok' });
      await stillServes(server, uri, text);
      expect(server.stderr).not.toMatch(/unhandled rejection/i);
    } finally {
      await model.close();
    }
  });
});
