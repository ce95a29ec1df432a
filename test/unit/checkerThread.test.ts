// Unit tests for the background type-check thread: one request at a time, aborts, a worker that stops, dispose, and the real worker's answers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckerThread, findCheckerScript } from '../../server/src/oracle/checkerThread.js';
import { copyFixture } from '../support/lspClient.js';

const FAKE = new URL('../support/fakeCheckerWorker.mjs', import.meta.url);
const threads: CheckerThread[] = [];
const thread = (options: Partial<ConstructorParameters<typeof CheckerThread>[0]> = {}): CheckerThread => {
  const t = new CheckerThread({ root: '/work', script: FAKE, ...options });
  threads.push(t);
  return t;
};
const never = new AbortController().signal;
const messages = async (p: Promise<{ message: string }[]>): Promise<string[]> => (await p).map((d) => d.message);

afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.dispose()));
});

describe('CheckerThread', () => {
  it('answers each check in turn, and never sends one aborted while it waited', async () => {
    const checker = thread();
    const waiting = new AbortController();
    const first = checker.check('/work/a.ts', 'slow:300', never);
    const second = checker.check('/work/b.ts', 'b', waiting.signal);
    const third = checker.check('/work/c.ts', 'c', never);
    waiting.abort(new Error('superseded'));
    await expect(second).rejects.toThrow('superseded');
    expect(await messages(first)).toEqual(['#1 /work/a.ts slow:300']);
    // The worker saw the first and the third request only.
    expect(await messages(third)).toEqual(['#2 /work/c.ts c']);
  });

  it('answers a check aborted while the worker runs it at once, and drops the late reply', async () => {
    const checker = thread();
    const running = new AbortController();
    const order: string[] = [];
    const first = checker.check('/work/a.ts', 'slow:400', running.signal).then(
      () => order.push('first answered'),
      (e: Error) => order.push(`first: ${e.message}`),
    );
    const second = messages(checker.check('/work/b.ts', 'b', never)).then((m) => order.push(`second: ${m.join()}`));
    setTimeout(() => running.abort(new Error('document closed')), 50);
    await Promise.all([first, second]);
    expect(order).toEqual(['first: document closed', 'second: #2 /work/b.ts b']);
  });

  it("reports the worker's own failure as that check's error and keeps serving", async () => {
    const checker = thread();
    await expect(checker.check('/work/a.ts', 'fail', never)).rejects.toThrow('the check threw');
    expect(await messages(checker.check('/work/a.ts', 'ok', never))).toEqual(['#2 /work/a.ts ok']);
  });

  it('fails the check of a worker that stops, and starts a new worker for the next', async () => {
    const checker = thread();
    expect(await messages(checker.check('/work/a.ts', 'warm', never))).toEqual(['#1 /work/a.ts warm']);
    const crash = checker.check('/work/a.ts', 'crash', never);
    const next = checker.check('/work/b.ts', 'b', never);
    await expect(crash).rejects.toThrow(/the type-check thread stopped \(worker blew up\)/);
    // A new worker: it has seen one request.
    expect(await messages(next)).toEqual(['#1 /work/b.ts b']);
  });

  it('gives up after the worker stopped more times in a row than allowed, saying so', async () => {
    const checker = thread({ maxRestarts: 1 });
    // Stops with answers between them are not in a row.
    for (let i = 0; i < 3; i++) {
      await expect(checker.check('/work/a.ts', 'crash', never)).rejects.toThrow('stopped');
      expect(await messages(checker.check('/work/b.ts', 'b', never))).toEqual(['#1 /work/b.ts b']);
    }
    await expect(checker.check('/work/a.ts', 'crash', never)).rejects.toThrow('stopped');
    const second = checker.check('/work/a.ts', 'crash', never);
    const queued = checker.check('/work/b.ts', 'b', never);
    await expect(second).rejects.toThrow('stopped');
    await expect(queued).rejects.toThrow('background type-checks are off until the server restarts');
    await expect(checker.check('/work/c.ts', 'c', never)).rejects.toThrow('background type-checks are off until the server restarts');
  });

  it('rejects what is pending on dispose, and every check after', async () => {
    const checker = thread();
    const running = checker.check('/work/a.ts', 'slow:300', never);
    const queued = checker.check('/work/b.ts', 'b', never);
    const outcomes = Promise.allSettled([running, queued]);
    await checker.dispose();
    expect((await outcomes).map((o) => (o.status === 'rejected' ? (o.reason as Error).message : o.status))).toEqual(['the type-check thread was stopped', 'the type-check thread was stopped']);
    await expect(checker.check('/work/c.ts', 'c', never)).rejects.toThrow('the type-check thread was stopped');
  });

  it("checks a real document on the built worker while this thread's event loop keeps turning", async () => {
    const script = findCheckerScript(new URL('../../server/src/oracle/checkerThread.ts', import.meta.url).href);
    expect(script?.pathname).toMatch(/dist\/server\/src\/oracle\/diagnosticsWorker\.js$/);
    const root = copyFixture('fix');
    try {
      const fsPath = path.join(root, 'src', 'main.ts');
      const checker = thread({ root, script: script! });
      let turns = 0;
      const ticking = setInterval(() => turns++, 1);
      const diagnostics = await checker.check(fsPath, fs.readFileSync(fsPath, 'utf8'), never);
      clearInterval(ticking);
      expect(diagnostics.map((d) => d.message)).toEqual(["Cannot find name 'add'.", "Cannot find name 'mesage'. Did you mean 'message'?", "Property 'toFixed' does not exist on type 'Promise<number>'."]);
      expect(diagnostics[0]?.original).toMatchObject({ source: 'ts', code: 2304 });
      // A first check loads the compiler and the default library (hundreds of milliseconds); on this thread the timer would not have run once.
      expect(turns).toBeGreaterThan(5);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);

  it('checks against the files as they are on disk now: an import saved since the last check, then deleted', async () => {
    const script = findCheckerScript(new URL('../../server/src/oracle/checkerThread.ts', import.meta.url).href)!;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-checker-'));
    try {
      const main = path.join(root, 'main.ts');
      const imported = path.join(root, 'values.ts');
      const text = "import { limit } from './values.js';\nexport const doubled: number = limit * 2;\n";
      fs.writeFileSync(main, text);
      fs.writeFileSync(imported, 'export const other = 1;\n');
      // Past the settle time of the writes, so the stamps are trusted and only a change makes the worker read again.
      await new Promise((r) => setTimeout(r, 120));
      const checker = thread({ root, script });
      const messagesNow = async (): Promise<string[]> => (await checker.check(main, text, never)).map((d) => d.message);
      expect(await messagesNow()).toEqual([`Module '"./values.js"' has no exported member 'limit'.`]);
      expect(await messagesNow()).toEqual([`Module '"./values.js"' has no exported member 'limit'.`]);
      fs.writeFileSync(imported, 'export const other = 1;\nexport const limit = 10;\n');
      expect(await messagesNow()).toEqual([]);
      fs.rmSync(imported);
      expect(await messagesNow()).toEqual([expect.stringMatching(/^Cannot find module '\.\/values\.js'/)]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});
