// Global set-up: every test process and the servers they start keep their caches in one temporary folder, not the user's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-test-cache-'));
  process.env.XDG_CACHE_HOME = folder;
  return () => fs.rmSync(folder, { recursive: true, force: true });
}
