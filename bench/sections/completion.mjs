// Benchmark section (own process): inline completion over --stdio against an instant endpoint: the server's own time per request on a 5,000-line file, and, while typing at 10 characters a second, how many requests reach the model and how many are left open.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchClient } from '../lspClient.mjs';
import { startFakeModel } from '../fakeModel.mjs';
import { cacheHome, initOptions, now, sectionMain, summarize } from '../support.mjs';

/** A file of `lines` lines: small functions, each with a line to complete in it. */
function bigFile(lines) {
  const out = ['// A generated module for the completion benchmark.', "import { helper } from './helper.js';", ''];
  for (let i = 0; out.length < lines - 4; i++) out.push(`export function step${i}(values: number[], factor: number): number {`, `  const scaled = values.map((v) => v * factor + ${i});`, '  return helper(scaled);', '}', '');
  return `${out.join('\n')}\n`;
}

/** The line the user types, and what the endpoint answers (it predicts the line for the "typing what it suggests" run). */
const TYPED = '  const total = scaled.reduce((sum, v) => sum + v, 0);';

sectionMain(async ({ runs }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-completion-'));
  fs.writeFileSync(path.join(root, 'package.json'), '{ "name": "bench-completion", "private": true, "type": "module" }\n');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'helper.ts'), 'export function helper(values: number[]): number {\n  return values.length;\n}\n');
  const file = path.join(root, 'src', 'big.ts');
  fs.writeFileSync(file, bigFile(5_000));
  let predict = false;
  const model = await startFakeModel((body) => {
    if (!predict || typeof body.prompt !== 'string') return 'x + 1';
    const line = body.prompt.slice(body.prompt.lastIndexOf('\n') + 1);
    return TYPED.startsWith(line) ? TYPED.slice(line.length) : 'x + 1';
  });
  const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'bench-coder', ...cacheHome() };
  const client = BenchClient.spawn('assistant-ls', root, env);
  const complete = (uri, position) => client.request('textDocument/inlineCompletion', { textDocument: { uri }, position, context: { triggerKind: 2 } });
  try {
    // The server's own time: no debounce, every request at a new place (no cache). As the issue defines it, from the
    // request to the model call and from the model's last token to the answer, measured inside the server (its
    // `$/logTrace` with the trace on); and, from outside, the round trip minus the time the endpoint held the request
    // (which also counts both pipes and the HTTP exchange between the processes).
    await client.initialize(initOptions('assistant-ls', { completion: { debounceMs: 0 } }));
    const traced = [];
    client.connection.onNotification('$/logTrace', (params) => traced.push(params.message));
    await client.connection.sendNotification('$/setTrace', { value: 'messages' });
    const buffer = await client.open(file);
    const lines = buffer.text.split('\n');
    const places = lines.flatMap((text, line) => (text.startsWith('  return helper(') ? [{ line, character: '  return '.length }] : []));
    await complete(buffer.uri, places[0]);
    const own = [];
    const outside = [];
    for (let i = 1; i <= runs.completions && i < places.length; i++) {
      const from = model.requests.length;
      const before = traced.length;
      const started = now();
      const list = await complete(buffer.uri, places[(i * 37) % places.length]);
      const elapsed = now() - started;
      const [request] = await model.settled(from);
      if (!request || list.items.length !== 1) throw new Error(`completion ${i} reached the model ${request ? 'but got no item' : 'not at all'}`);
      outside.push(elapsed - ((request.finishedAt ?? request.receivedAt) - request.receivedAt));
      // The trace line is sent before the answer, so it has arrived with it.
      const line = traced.slice(before).find((message) => message.startsWith('inlineCompletion:'));
      const ownMs = line && /server's own time ([\d.]+) ms/.exec(line);
      if (!ownMs) throw new Error(`completion ${i}: the server logged no own time (${JSON.stringify(traced.slice(before))})`);
      own.push(Number(ownMs[1]));
    }

    // Typing a new line at 10 characters a second, with the default debounce, a request after each keystroke.
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { assistant: initOptions('assistant-ls', {}).assistant } });
    await sleep(200);
    const typing = async (predicting) => {
      predict = predicting;
      const at = places[Math.floor(places.length / 2) + (predicting ? 1 : 0)];
      const line = at.line;
      await client.setTextIncrementally(buffer.uri, { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: '\n' });
      const from = model.requests.length;
      const pending = [];
      for (let i = 1; i <= TYPED.length; i++) {
        await client.setTextIncrementally(buffer.uri, { range: { start: { line, character: i - 1 }, end: { line, character: i - 1 } }, text: TYPED[i - 1] });
        pending.push(complete(buffer.uri, { line, character: i }));
        await sleep(100);
      }
      const answered = await Promise.allSettled(pending);
      await sleep(500);
      const requests = model.requests.slice(from);
      return {
        requests: pending.length,
        reachedModel: requests.length,
        share: Math.round((requests.length / pending.length) * 100) / 100,
        leftOpen: requests.filter((r) => r.finishedAt === undefined && r.closedAt === undefined).length,
        closedByServer: requests.filter((r) => r.closedAt !== undefined).length,
        withItems: answered.filter((a) => a.status === 'fulfilled' && a.value.items.length > 0).length,
      };
    };
    const other = await typing(false);
    const through = await typing(true);
    return { fileLines: lines.length, ownTime: summarize(own), roundTripMinusModel: summarize(outside), typingOther: other, typingThrough: through };
  } finally {
    await client.shutdown().catch(() => undefined);
    await model.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
