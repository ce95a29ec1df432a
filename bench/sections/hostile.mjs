// Benchmark section (own process): hostile input over --stdio: megabyte requests of degenerate shapes, a code action behind each, and the memory a storm of 10 MB requests leaves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { BenchClient } from '../lspClient.mjs';
import { REPO_ROOT, now, sectionMain, summarize } from '../support.mjs';

/** Runs of one shape that once made patterns retry from every position (see test/e2e/hugeInput.test.ts). */
const SHAPES = ['x', 'xX', 'X', ' ', '\n', '`', '(', 'a.b ', 'x1', '"a":', '?a=', 'token ', 'x=', '/x'];

const statusMB = (pid, field) => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : null;
};

function repeated(shape, length) {
  return `${shape.repeat(Math.ceil(length / shape.length)).slice(0, length)}x`;
}

sectionMain(async ({ stormRequests, stormBytes, runs }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-hostile-'));
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'basic'), root, { recursive: true });
  const client = BenchClient.spawn('assistant-ls', root, { XDG_CACHE_HOME: path.join(root, '.cache') });
  try {
    await client.ready();
    await client.initialize({ assistant: { annotations: { enabled: false } } });
    const doc = await client.open(path.join(root, 'src', 'config.ts'));
    const line = doc.text.split('\n').findIndex((l) => l.includes('function parseConfig'));
    const codeAction = () => client.connection.sendRequest('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: { line, character: 17 }, end: { line, character: 17 } }, context: { diagnostics: [] } });
    await codeAction();
    const ask = async (text) => {
      const start = now();
      await client.connection.sendRequest('assistant/ask', { text });
      return now() - start;
    };
    const small = [];
    for (let i = 0; i < runs; i++) small.push(await ask(repeated('x', 1_000)));
    // Each megabyte request with a code action sent right behind it: the code action waits for what the request holds.
    const megabyte = {};
    const behind = [];
    for (const shape of SHAPES) {
      const text = repeated(shape, 1_000_000);
      const start = now();
      const asked = client.connection.sendRequest('assistant/ask', { text });
      const acted = codeAction().then(() => now() - start);
      await asked;
      megabyte[JSON.stringify(shape)] = Math.round(now() - start);
      behind.push(await acted);
    }
    const slowest = Math.max(...Object.values(megabyte));
    const rssBefore = statusMB(client.pid, 'VmRSS');
    // The storm: requests of `stormBytes` each, every other one cancelled right after it is sent.
    const big = 'x'.repeat(stormBytes);
    const pending = [];
    const stormStart = now();
    for (let i = 0; i < stormRequests; i++) {
      const source = new CancellationTokenSource();
      pending.push(client.connection.sendRequest('assistant/ask', { text: big }, source.token).catch(() => undefined));
      if (i % 2 === 1) source.cancel();
    }
    await Promise.all(pending);
    const stormMs = Math.round(now() - stormStart);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rssAfter = statusMB(client.pid, 'VmRSS');
    const peak = statusMB(client.pid, 'VmHWM');
    await codeAction();
    return {
      askSmall: summarize(small),
      askMegabyteMs: megabyte,
      askMegabyteSlowestMs: slowest,
      ratioMegabyteToSmall: Math.round((slowest / summarize(small).median) * 10) / 10,
      codeActionBehindMegabyte: summarize(behind),
      storm: { requests: stormRequests, bytesEach: stormBytes, cancelled: Math.floor(stormRequests / 2), ms: stormMs, rssBeforeMB: rssBefore, rssAfterMB: rssAfter, peakRssMB: peak },
    };
  } finally {
    await client.shutdown().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
