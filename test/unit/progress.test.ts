// Work-done progress: begin and end always, the first report at once, later reports throttled with the latest winning.
import { describe, expect, it } from 'vitest';
import type { Connection } from 'vscode-languageserver/node';
import { ProgressTracker, REPORT_INTERVAL_MS } from '../../server/src/lsp/progress.js';

interface Sent {
  token: unknown;
  value: { kind: string; message?: string; percentage?: number };
}

function tracker(): { progress: ProgressTracker; sent: Sent[] } {
  const sent: Sent[] = [];
  const connection = {
    onNotification: () => ({ dispose: () => undefined }),
    sendRequest: () => Promise.resolve(null),
    sendProgress: (_type: unknown, token: unknown, value: Sent['value']) => {
      sent.push({ token, value });
      return Promise.resolve();
    },
  } as unknown as Connection;
  const progress = new ProgressTracker(connection);
  progress.enable(true);
  return { progress, sent };
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
});
