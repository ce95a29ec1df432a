// The lexical index's long loops (a walk of the workspace, a save) keep the event loop a few milliseconds at a time.

export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Longest stretch a walk of the workspace keeps the event loop (milliseconds). */
export const WALK_SLICE_MS = 4;
