// Unit tests for the server's own diagnostics cache: debounced per document, answered only for the exact version, merged with the client's.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiagnosticsCache, mergeDiagnostics, projectDiagnosticsCache } from '../../server/src/oracle/diagnosticsCache.js';
import type { DiagnosticInfo } from '../../server/src/tasks/task.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { WorkspaceProjects } from '../../server/src/workspace/workspaceProject.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

afterEach(() => {
  vi.useRealTimers();
});

const URI = 'file:///work/a.ts';
const doc = (version: number, text = `const v${version} = 1;`, uri = URI): DocumentSnapshot => ({ uri, fsPath: '/work/a.ts', languageId: 'typescript', version, text });
const diag = (message: string, start = 0): DiagnosticInfo => ({ start, end: start + 1, message, code: 2304, source: 'ts' });

describe('DiagnosticsCache', () => {
  it('computes once per pause in typing, for the latest version only', async () => {
    vi.useFakeTimers();
    const compute = vi.fn((d: DocumentSnapshot) => [diag(`version ${d.version}`)]);
    const cache = new DiagnosticsCache({ compute, delayMs: 300 });
    cache.request(doc(1));
    await vi.advanceTimersByTimeAsync(200);
    cache.request(doc(2));
    await vi.advanceTimersByTimeAsync(200);
    cache.request(doc(3));
    await vi.advanceTimersByTimeAsync(299);
    expect(compute).not.toHaveBeenCalled();
    expect(cache.get(URI, 3)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(compute).toHaveBeenCalledTimes(1);
    expect(compute.mock.calls[0]![0].version).toBe(3);
    expect(cache.get(URI, 3)).toEqual([diag('version 3')]);
    // Other versions are never answered with these diagnostics.
    expect(cache.get(URI, 2)).toBeUndefined();
    expect(cache.get(URI, 4)).toBeUndefined();
    // Asking again for a cached version computes nothing.
    cache.request(doc(3));
    await vi.advanceTimersByTimeAsync(1000);
    expect(compute).toHaveBeenCalledTimes(1);
    cache.dispose();
  });

  it('debounces each document separately', async () => {
    vi.useFakeTimers();
    const compute = vi.fn((d: DocumentSnapshot) => [diag(d.uri)]);
    const cache = new DiagnosticsCache({ compute, delayMs: 100 });
    cache.request(doc(1));
    cache.request(doc(1, 'x', 'file:///work/b.ts'));
    await vi.advanceTimersByTimeAsync(100);
    expect(compute).toHaveBeenCalledTimes(2);
    expect(cache.get('file:///work/b.ts', 1)).toEqual([diag('file:///work/b.ts')]);
    cache.dispose();
  });

  it('drops a result that arrives after a newer version was requested, and survives a failing computation', async () => {
    let release: (value: DiagnosticInfo[]) => void = () => undefined;
    const errors: unknown[] = [];
    const compute = vi.fn((d: DocumentSnapshot): DiagnosticInfo[] | Promise<DiagnosticInfo[]> => {
      if (d.version === 1) return new Promise<DiagnosticInfo[]>((resolve) => (release = resolve));
      if (d.version === 3) throw new Error('broken');
      return [diag(`version ${d.version}`)];
    });
    const cache = new DiagnosticsCache({ compute, delayMs: 5, onError: (_uri, error) => errors.push(error) });
    cache.request(doc(1));
    await new Promise((r) => setTimeout(r, 20));
    cache.request(doc(2));
    release([diag('stale')]);
    await cache.idle();
    expect(cache.get(URI, 1)).toBeUndefined();
    expect(cache.get(URI, 2)).toEqual([diag('version 2')]);
    cache.request(doc(3));
    await cache.idle();
    expect(errors).toHaveLength(1);
    expect(cache.get(URI, 3)).toBeUndefined();
    cache.dispose();
  });

  it('aborts a computation once a newer version is asked for or the document closes, without reporting it', async () => {
    const signals: AbortSignal[] = [];
    const errors: unknown[] = [];
    const compute = (d: DocumentSnapshot, signal: AbortSignal): Promise<DiagnosticInfo[]> => {
      signals.push(signal);
      return new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error));
        if (d.version === 3) resolve([diag('version 3')]);
      });
    };
    const cache = new DiagnosticsCache({ compute, delayMs: 5, onError: (_uri, error) => errors.push(error) });
    cache.request(doc(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(signals).toHaveLength(1);
    // The same version again leaves the running computation alone; a newer one aborts it at once.
    cache.request(doc(1));
    expect(signals[0]!.aborted).toBe(false);
    cache.request(doc(2));
    expect(signals[0]!.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    cache.forget(URI);
    expect(signals[1]!.aborted).toBe(true);
    cache.request(doc(3));
    await cache.idle();
    expect(cache.get(URI, 3)).toEqual([diag('version 3')]);
    cache.request(doc(4));
    await new Promise((r) => setTimeout(r, 20));
    cache.dispose();
    expect(signals[3]!.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual([]);
  });

  it('forgets closed documents and skips very long ones', async () => {
    const compute = vi.fn(() => [diag('x')]);
    const cache = new DiagnosticsCache({ compute, delayMs: 1, maxChars: 10 });
    cache.request(doc(1, 'a much longer text than ten characters'));
    await cache.idle();
    expect(compute).not.toHaveBeenCalled();
    cache.request(doc(2, 'short'));
    await cache.idle();
    expect(cache.get(URI, 2)).toEqual([diag('x')]);
    cache.forget(URI);
    expect(cache.get(URI, 2)).toBeUndefined();
    cache.dispose();
  });

  it.each([
    ['on the worker thread, while this thread keeps turning', undefined],
    ['on this thread when there is no worker script', null],
  ] as const)("computes a real document's compiler diagnostics through the workspace project %s", async (_how, script) => {
    const root = copyFixture('fix');
    try {
      const fsPath = path.join(root, 'src', 'main.ts');
      const cache = projectDiagnosticsCache(new WorkspaceProjects(root), { delayMs: 1, ...(script === null ? { script } : {}) });
      const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 7, text: fs.readFileSync(fsPath, 'utf8') };
      let turns = 0;
      const ticking = setInterval(() => turns++, 1);
      cache.request(document);
      await new Promise((r) => setTimeout(r, 5));
      const before = turns;
      await cache.idle();
      clearInterval(ticking);
      expect(cache.get(document.uri, 7)?.map((d) => d.message)).toEqual(["Cannot find name 'add'.", "Cannot find name 'mesage'. Did you mean 'message'?", "Property 'toFixed' does not exist on type 'Promise<number>'."]);
      // A first check takes hundreds of milliseconds: on the worker the timer keeps firing meanwhile; on this thread it cannot.
      if (script === undefined) expect(turns - before).toBeGreaterThan(5);
      cache.dispose();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('mergeDiagnostics', () => {
  it("adds the server's diagnostics the client did not send", () => {
    const client = [{ ...diag("Cannot find name 'add'.", 10), source: 'typescript' }];
    const own = [diag("Cannot find name 'add'.", 10), diag("Cannot find name 'mesage'.", 40)];
    expect(mergeDiagnostics(client, own).map((d) => `${d.start} ${d.source}`)).toEqual(['10 typescript', '40 ts']);
  });
});
