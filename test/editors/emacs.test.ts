// The Emacs client, headless: emacs --batch with eglot runs assistant-ls-ask, -trace, -rate and -revert against the real server.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EL, readInteractions, removeQuietly, requireEmacs, runEmacs } from './harness/emacs.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';
import type { BaseReport } from './harness/emacs.js';

/**
 * What a user does, in Emacs Lisp, once src/config.ts is open in typescript-mode and M-x eglot chose assistant-ls
 * (assistant-ls-setup): ask, pick the offered candidate, look at the trace at point, rate it, revert it; what each
 * step returned and the buffer text after each edit go into the report.
 */
const JOURNEY = String.raw`
      ;; Whether the client told the server it shows inline completions (the server then warms a local model).
      (push (cons 'declaresInline (and (plist-get (plist-get (eglot-client-capabilities (eglot-current-server)) :textDocument) :inlineCompletion) t)) report)
      (let* ((offered nil)
             (completing-read-function
              (lambda (_prompt collection &rest _)
                (setq offered (mapcar #'car collection))
                (caar collection)))
             (result (assistant-ls-ask "write documentation for the load method")))
        (push (cons 'offered offered) report)
        (push (cons 'apply result) report))
      (push (cons 'afterAsk (buffer-string)) report)
      (goto-char (point-min))
      (search-forward "async load")
      (let ((trace (assistant-ls-trace)))
        (push (cons 'trace (and trace (with-current-buffer trace (buffer-string)))) report))
      (push (cons 'rate (assistant-ls-rate "up" "clear enough")) report)
      (push (cons 'revert (assistant-ls-revert)) report)
      (push (cons 'afterRevert (buffer-string)) report)`;

interface Report extends BaseReport {
  declaresInline: boolean;
  offered: string[];
  apply: { applied: boolean; outcome: string };
  afterAsk: string;
  trace: string | null;
  rate: { rating: string | null };
  revert: { reverted: boolean; outcome: string };
  afterRevert: string;
}

describe('clients/emacs/assistant-ls.el', () => {
  it('starts with a one-line comment of its purpose and byte-compiles without a warning', (ctx) => {
    expect(fs.readFileSync(EL, 'utf8').split('\n')[0]).toMatch(/^;;; assistant-ls\.el --- \S.{20,}/);
    requireEmacs(ctx);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-'));
    const copy = path.join(dir, 'assistant-ls.el');
    fs.copyFileSync(EL, copy);
    const result = spawnSync('emacs', ['--batch', '--eval', '(setq byte-compile-error-on-warn t)', '-f', 'batch-byte-compile', copy], { encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(fs.existsSync(path.join(dir, 'assistant-ls.elc'))).toBe(true);
    removeQuietly(dir);
  }, 70_000);

  it('asks offline "write documentation for the load method", applies the candidate, then traces, rates and reverts it', async (ctx) => {
    requireEmacs(ctx);
    const { report } = await runEmacs<Report>(JOURNEY);

    expect(report.managed).toBe(true);
    expect(report.declaresInline).toBe(true);
    expect(report.offered).toHaveLength(1);
    expect(report.offered[0]).toMatch(/^doc-offline: \S/);
    expect(report.apply).toMatchObject({ applied: true, outcome: 'applied' });
    // The comment is in the buffer, right above the method, once, with its annotation as a line comment below it.
    expect(report.afterAsk).toMatch(/\/\*\*\n {3}\* [^\n]+\n(?: {3}\*[^\n]*\n)* {3}\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/);
    expect(report.afterAsk.match(/@assistant task=document agent=doc-offline interaction=/g)).toHaveLength(1);
    expect(report.afterAsk.replace(/ {2}\/\*\*[\s\S]*?\*\/\n {2}\/\/ @assistant [^\n]*\n/, '')).toBe(report.original);

    expect(report.trace).toContain('Asked: write documentation for the load method');
    expect(report.trace).toContain('Task: document');
    expect(report.trace).toMatch(/- doc-offline \(rule\): ok, used, applied/);
    expect(report.rate.rating).toBe('up');
    expect(report.revert).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(report.afterRevert).toBe(report.original);
  }, 100_000);

  it('records the answers as discarded when the user quits the choice with C-g', async (ctx) => {
    requireEmacs(ctx);
    const { report, root } = await runEmacs<BaseReport & { discard: { discarded: boolean; outcome: string } }>(String.raw`
      (let ((completing-read-function (lambda (&rest _) (signal 'quit nil))))
        (push (cons 'discard (assistant-ls-ask "write documentation for the load method")) report))`);
    expect(report.discard).toMatchObject({ discarded: true, outcome: 'discarded' });
    expect(report.text).toBe(report.original);
    expect(report.messages).toContain('assistant-ls: discarded; nothing applied');
    const asked = readInteractions(root).find((i) => i.source === 'text')!;
    const amendments = segmentFiles(path.join(root, '.assistant', 'trace')).flatMap((file) => readSegment(file).amendments ?? []);
    expect(amendments).toEqual([expect.objectContaining({ interactionId: asked.id, responseId: asked.responses[0]!.id, patch: { choiceDiscardedAt: expect.any(String) } })]);
  }, 100_000);
});
