// Where the real-model suites find the test model: `ASSISTANT_TEST_MODEL` (which `npm run test:model` sets from `npm run fetch-model`), else the user cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error -- a plain script without types; only its manifest is read.
import { TEST_MODEL } from '../../scripts/fetchModel.mjs';

/**
 * The model's path, or undefined when it was never fetched (the suites are then skipped). A path that
 * `ASSISTANT_TEST_MODEL` names but that does not exist is an error: CI must not pass by skipping.
 */
export function testModelPath(): string | undefined {
  const named = process.env.ASSISTANT_TEST_MODEL;
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`ASSISTANT_TEST_MODEL names ${named}, which does not exist: run npm run fetch-model`);
    return named;
  }
  const cached = path.join(os.homedir(), '.cache', 'assistant-ls', 'models', (TEST_MODEL as { file: string }).file);
  return fs.existsSync(cached) ? cached : undefined;
}
