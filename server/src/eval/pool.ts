// Runs one piece of work per item with a bounded number at once (test files run while building cases).

/** `work` for every item, at most `concurrency` at once, in item order; results by item. Stops at an aborted signal. */
export async function forEachBounded<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>, signal: AbortSignal): Promise<Map<T, R>> {
  const results = new Map<T, R>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal.throwIfAborted();
      const item = items[next++] as T;
      results.set(item, await work(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, () => worker()));
  return results;
}
