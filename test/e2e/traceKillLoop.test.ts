// The trace under kill -9: writers (one, or two at once on the same workspace) killed at seeded random moments while appending and amending; every acknowledged record must be read back, and no file damaged.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import { REPO_ROOT } from '../support/lspClient.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';
import { LONG_TESTS, prng, testSeed } from '../support/rawLsp.js';

const WRITER = path.join(REPO_ROOT, 'test', 'support', 'traceWriter.mjs');
const directories: string[] = [];
afterEach(() => {
  for (const dir of directories.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Writer {
  child: ChildProcess;
  added: Set<string>;
  rated: Set<string>;
  ready: Promise<void>;
  exited: Promise<void>;
}

function startWriter(directory: string, sessionId: string): Writer {
  const child = spawn(process.execPath, [WRITER, directory, sessionId, '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const added = new Set<string>();
  const rated = new Set<string>();
  let buffered = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    // Only complete lines count: a write is acknowledged once its whole line arrived.
    for (const line of lines) {
      if (line === 'ready') markReady();
      else if (line.startsWith('add ')) added.add(line.slice(4));
      else if (line.startsWith('rate ')) rated.add(line.slice(5));
    }
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, added, rated, ready, exited };
}

describe('trace under kill -9', { timeout: 1_800_000 }, () => {
  it('keeps every acknowledged append and amendment, with one writer or two on the same workspace', async () => {
    const seed = testSeed(0x7ace);
    const r = prng(seed);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-killloop-'));
    directories.push(directory);
    const iterations = LONG_TESTS ? 1_000 : 24;
    const added = new Set<string>();
    const rated = new Set<string>();
    let pairs = 0;
    for (let i = 0; i < iterations; i++) {
      // Every fourth round two servers write to the same trace at once, as two editors on one project would.
      const writers = i % 4 === 3 ? [startWriter(directory, `s${i}a`), startWriter(directory, `s${i}b`)] : [startWriter(directory, `s${i}`)];
      if (writers.length === 2) pairs++;
      await Promise.all(writers.map((w) => w.ready));
      await Promise.all(
        writers.map(async (w) => {
          await new Promise((resolve) => setTimeout(resolve, r.int(60)));
          w.child.kill('SIGKILL');
          await w.exited;
        }),
      );
      for (const w of writers) {
        for (const id of w.added) added.add(id);
        for (const id of w.rated) rated.add(id);
      }
    }
    const reader = await TraceStore.open({ directory, session: { id: 'reader', startedAt: new Date().toISOString(), user: 'check', role: 'developer', workspace: directory, pid: process.pid }, segmentSize: 5 });
    try {
      const missing = [...added].filter((id) => !reader.get(id));
      expect(missing, `seed ${seed}`).toEqual([]);
      const unrated = [...rated].filter((id) => reader.get(id)?.responses[0]?.rating !== 'up');
      expect(unrated, `seed ${seed}`).toEqual([]);
    } finally {
      await reader.close();
    }
    // Atomic writes leave nothing damaged to set aside, and every segment stays small.
    const files = fs.readdirSync(directory, { recursive: true }).map(String);
    expect(files.filter((f) => f.includes('.damaged-')), `seed ${seed}`).toEqual([]);
    for (const file of segmentFiles(directory)) expect(readSegment(file).interactions.length).toBeLessThanOrEqual(5);
    console.log(`trace kill loop: ${iterations} kills (${pairs} with two writers), ${added.size} acknowledged appends and ${rated.size} amendments read back (seed ${seed})`);
    expect(added.size).toBeGreaterThan(iterations);
  });
});
