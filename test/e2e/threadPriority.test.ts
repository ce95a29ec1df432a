// The server lowers its helper threads' priority at start-up and keeps its main thread's: read from /proc of a real `assistant-ls --stdio` child.
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { HELPER_NICE } from '../../server/src/threadPriority.js';
import { RawServer } from '../support/rawLsp.js';
import { copyFixture } from '../support/lspClient.js';

const servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.dispose()));
});

/** Each thread of a process with its nice value (threads that end while read are left out). */
function threadNices(pid: number): Map<number, number> {
  const nices = new Map<number, number>();
  for (const name of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      nices.set(Number(name), os.getPriority(Number(name)));
    } catch {
      // Ended meanwhile.
    }
  }
  return nices;
}

describe.skipIf(process.platform !== 'linux')('helper thread priority', () => {
  it("gives every thread but the main one nice 5 or more, and leaves the main thread's as it was", async () => {
    const server = RawServer.spawn({ root: copyFixture('basic') });
    servers.push(server);
    const response = await server.initialize();
    expect(response.error).toBeUndefined();
    const pid = server.child.pid as number;
    const nices = threadNices(pid);
    // V8's compiler and collector threads and libuv's pool: at least the four of each Node starts with by default.
    const helpers = [...nices].filter(([tid]) => tid !== pid);
    expect(helpers.length).toBeGreaterThanOrEqual(4);
    expect(helpers.filter(([, nice]) => nice < HELPER_NICE)).toEqual([]);
    // The main thread keeps the nice value it was started with: this process's.
    expect(nices.get(pid)).toBe(os.getPriority(process.pid));
  });
});
