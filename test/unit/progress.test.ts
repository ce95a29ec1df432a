// Work-done progress: none for short work, then begin and end always, the first report at once, later ones throttled.
import { describe, expect, it } from 'vitest';
import type { Connection } from 'vscode-languageserver/node';
import { ProgressTracker, REPORT_INTERVAL_MS } from '../../server/src/lsp/progress.js';

interface Sent {
  token: unknown;
  value: { kind: string; message?: string; percentage?: number };
}

function tracker(showAfterMs = 0): { progress: ProgressTracker; sent: Sent[]; created: unknown[] } {
  const sent: Sent[] = [];
  const created: unknown[] = [];
  const connection = {
    onNotification: () => ({ dispose: () => undefined }),
    sendRequest: (_type: unknown, params: { token: unknown }) => {
      created.push(params.token);
      return Promise.resolve(null);
    },
    sendProgress: (_type: unknown, token: unknown, value: Sent['value']) => {
      sent.push({ token, value });
      return Promise.resolve();
    },
  } as unknown as Connection;
  const progress = new ProgressTracker(connection);
  progress.enable(true);
  progress.configure(showAfterMs);
  return { progress, sent, created };
}

const settle = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ProgressTracker', () => {
  it('sends the first report at once and, of a burst after it, only the latest once the interval has passed', async () => {
    const { progress, sent } = tracker();
    const handle = progress.begin('token-1', 'Assistant: Document', () => undefined);
    handle.report('Gathering context', 10);
    handle.report('Asking the model', 40);
    handle.report('Checking the answer', 80);
    await settle();
    expect(sent.map((s) => s.value.message ?? s.value.kind)).toEqual(['begin', 'Gathering context']);
    await settle(REPORT_INTERVAL_MS * 2);
    expect(sent.map((s) => s.value.message ?? s.value.kind)).toEqual(['begin', 'Gathering context', 'Checking the answer']);
    expect(sent.at(-1)!.value.percentage).toBe(80);
    handle.done('Done');
    await settle();
    expect(sent.at(-1)!.value).toEqual({ kind: 'end', message: 'Done' });
  });

  it('begins with no percentage and sends one only with a report that gives it', async () => {
    const { progress, sent } = tracker();
    const handle = progress.begin('token-4', 'Assistant: Document', () => undefined);
    handle.report('gpt-4o-mini: 1 s');
    await settle(REPORT_INTERVAL_MS + 20);
    handle.report('fixing 2 of 4', 25);
    await settle(REPORT_INTERVAL_MS + 20);
    handle.report('applying the edit');
    await settle(REPORT_INTERVAL_MS + 20);
    handle.done();
    await settle();
    expect(sent.map((s) => s.value)).toEqual([
      { kind: 'begin', title: 'Assistant: Document', cancellable: true },
      { kind: 'report', message: 'gpt-4o-mini: 1 s' },
      { kind: 'report', message: 'fixing 2 of 4', percentage: 25 },
      { kind: 'report', message: 'applying the edit' },
      { kind: 'end' },
    ]);
  });

  it('drops a report still held when the work ends: the end is the last message, and nothing follows it', async () => {
    const { progress, sent } = tracker();
    const handle = progress.begin('token-2', 'Assistant: Document', () => undefined);
    handle.report('first');
    handle.report('held');
    handle.done();
    await settle(REPORT_INTERVAL_MS * 2);
    expect(sent.map((s) => s.value.message ?? s.value.kind)).toEqual(['begin', 'first', 'end']);
    // Percentages never go back, whatever the order they are reported in.
    const again = progress.begin('token-3', 't', () => undefined);
    again.report('a', 50);
    await settle(REPORT_INTERVAL_MS + 20);
    again.report('b', 20);
    await settle();
    expect(sent.filter((s) => s.token === 'token-3' && s.value.kind === 'report').map((s) => s.value.percentage)).toEqual([50, 50]);
    again.done();
  });
  it('shows nothing for work that ends within showAfterMs: no token asked for, nothing on a token the client gave', async () => {
    const { progress, sent, created } = tracker(60);
    const own = progress.begin(undefined, 'Assistant: Document', () => undefined);
    own.report('Asking the model', 40);
    own.done('Done');
    const given = progress.begin('client-token', 'Assistant: Explain', () => undefined);
    given.report('Asking the model');
    given.done();
    await settle(120);
    expect(created).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('shows longer work once showAfterMs has passed: the token, then begin and the latest report made while waiting', async () => {
    const { progress, sent, created } = tracker(40);
    let cancelled = 0;
    const handle = progress.begin(undefined, 'Assistant: Document', () => (cancelled += 1));
    handle.report('Gathering context', 10);
    handle.report('Asking the model', 40);
    await settle(10);
    expect(created).toEqual([]);
    await settle(80);
    expect(created).toHaveLength(1);
    expect(sent.map((s) => s.value.message ?? s.value.kind)).toEqual(['begin', 'Asking the model']);
    expect(sent.every((s) => s.token === created[0])).toBe(true);
    expect(sent[1]!.value.percentage).toBe(40);
    handle.done();
    await settle();
    expect(sent.at(-1)!.value.kind).toBe('end');
    expect(cancelled).toBe(0);
  });

  it('lets the editor cancel on its own token while the progress is not shown yet', async () => {
    const handlers: ((params: { token: unknown }) => void)[] = [];
    const connection = {
      onNotification: (_type: unknown, handler: (params: { token: unknown }) => void) => {
        handlers.push(handler);
        return { dispose: () => undefined };
      },
      sendRequest: () => Promise.resolve(null),
      sendProgress: () => Promise.resolve(),
    } as unknown as Connection;
    const progress = new ProgressTracker(connection);
    progress.enable(true);
    progress.configure(10_000);
    let cancelled = 0;
    const handle = progress.begin('client-token', 'Assistant: Document', () => (cancelled += 1));
    handlers[0]!({ token: 'client-token' });
    expect(cancelled).toBe(1);
    handle.done();
    handlers[0]!({ token: 'client-token' });
    expect(cancelled).toBe(1);
  });
});
