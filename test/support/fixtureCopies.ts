// The temporary copies of fixtures a test file made, so they are removed once it is done (see cleanup.ts).
import fs from 'node:fs';

/** Kept on the global object: a test file and its set-up file may load this module as separate instances. */
export const fixtureCopies: Set<string> = ((globalThis as { assistantFixtureCopies?: Set<string> }).assistantFixtureCopies ??= new Set());

/** Removes every fixture copy made so far (best effort: one a process still writes into may stay behind). */
export function removeFixtureCopies(): void {
  for (const copy of fixtureCopies) {
    try {
      fs.rmSync(copy, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Left in the temporary folder, which the system empties.
    }
    fixtureCopies.delete(copy);
  }
}
