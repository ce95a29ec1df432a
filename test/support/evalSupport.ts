// Helpers the evaluation-harness tests share: running the built `assistant-ls eval`, hashing a tree to prove it unwritten, the fields every record has.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { REPO_ROOT } from './lspClient.js';

const BIN = path.join(REPO_ROOT, 'bin', 'assistant-ls.js');

/** A hash of every file and link under `root` (contents, times, link targets): equal before and after means nothing was written. */
export function treeHash(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(root, full);
      if (entry.isSymbolicLink()) hash.update(`link ${relative} ${fs.readlinkSync(full)}\n`);
      else if (entry.isDirectory()) walk(full);
      else hash.update(`file ${relative} ${fs.statSync(full).mtimeMs}\n`).update(fs.readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex');
}

/** Runs the built CLI asynchronously (a scripted model answers from the test process meanwhile); no model is configured unless `env` says so. */
export function evalCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'eval', ...args], { env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ASSISTANT_MODEL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every field of an evaluation record, whatever its scenario. */
export const RECORD_FIELDS: Array<keyof EvalRecord> = [
  'key', 'scenario', 'caseId', 'file', 'line', 'target', 'agent', 'model', 'isLLM', 'sample', 'status', 'metrics', 'proposed', 'failure',
  'promptChars', 'contextChars', 'promptTokens', 'completionTokens', 'durationMs', 'agentMs', 'attempts', 'oraclePassed', 'answer', 'details', 'interactionId', 'finishedAt',
];
