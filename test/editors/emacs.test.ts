// The Emacs client, headless: emacs --batch with eglot runs assistant-ls-ask, -trace, -rate and -revert against the real server.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { BIN, REPO_ROOT, copyFixture } from '../support/lspClient.js';

const EL = path.join(REPO_ROOT, 'clients', 'emacs', 'assistant-ls.el');
const INSTALL = 'apt-get install -y emacs-nox elpa-eglot';

/** Emacs with eglot (built in from Emacs 29; the elpa-eglot package before). */
const PROBE = spawnSync('emacs', ['--batch', '--eval', "(progn (require 'eglot) (princ emacs-version))"], { encoding: 'utf8', timeout: 30_000 });
const MISSING = PROBE.error ? 'emacs is not installed' : PROBE.status !== 0 ? `emacs cannot load eglot: ${PROBE.stderr.trim().split('\n').pop() ?? ''}` : undefined;

function requireEmacs(ctx: TestContext): void {
  if (!MISSING) return;
  if (process.env.CI) throw new Error(`${MISSING}; CI needs: ${INSTALL}`);
  ctx.skip(`${MISSING} (${INSTALL} to run this test)`);
}

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch {
      // The server emacs started may still be writing its trace as it exits: left to the OS's temporary folder.
    }
  }
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-'));
  temporary.push(dir);
  return dir;
}

/** The environment of a user without model settings: the offline agents answer. */
function offlineEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
  return { ...env, ...extra };
}

/**
 * What a user does, in Emacs Lisp: open src/config.ts in typescript-mode, M-x eglot (assistant-ls chosen by
 * assistant-ls-setup), ask, pick the offered candidate, look at the trace at point, rate it, revert it. Prints
 * one JSON line with what each step returned and the buffer text after each edit.
 */
const DRIVER = String.raw`
(condition-case err
    (let* ((root (file-name-as-directory (getenv "ASSISTANT_LS_ROOT")))
           (file (expand-file-name "src/config.ts" root))
           (report nil))
      (load (getenv "ASSISTANT_LS_EL") nil t)
      ;; Emacs 28 has no TypeScript mode of its own; users get one from typescript-mode or Emacs 29's tree-sitter.
      (unless (fboundp 'typescript-mode)
        (define-derived-mode typescript-mode prog-mode "TypeScript"))
      (add-to-list 'auto-mode-alist '("\\.ts\\'" . typescript-mode))
      ;; The fixture copy is no VC repository: make it the project, as a package.json root would be.
      (add-hook 'project-find-functions (lambda (_dir) (cons 'transient root)))
      (setq eglot-sync-connect 30)
      (assistant-ls-setup)
      (find-file file)
      (push (cons 'original (buffer-string)) report)
      (apply #'eglot (eglot--guess-contact))
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (eglot-managed-p)) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (push (cons 'managed (eglot-managed-p)) report)
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
      (push (cons 'afterRevert (buffer-string)) report)
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (princ (concat "ASSISTANT-LS-REPORT " (json-encode report) "\n")))
  (error (princ (format "ASSISTANT-LS-ERROR %S\n" err))
         (kill-emacs 1)))
`;

interface Report {
  original: string;
  managed: boolean;
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
    const dir = tempDir();
    const copy = path.join(dir, 'assistant-ls.el');
    fs.copyFileSync(EL, copy);
    const result = spawnSync('emacs', ['--batch', '--eval', '(setq byte-compile-error-on-warn t)', '-f', 'batch-byte-compile', copy], { encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(fs.existsSync(path.join(dir, 'assistant-ls.elc'))).toBe(true);
  }, 70_000);

  it('asks offline "write documentation for the load method", applies the candidate, then traces, rates and reverts it', (ctx) => {
    requireEmacs(ctx);
    const root = copyFixture('basic');
    temporary.push(root);
    const dir = tempDir();
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'assistant-ls'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const driver = path.join(dir, 'driver.el');
    fs.writeFileSync(driver, DRIVER);
    const result = spawnSync('emacs', ['--batch', '-l', driver], {
      encoding: 'utf8',
      timeout: 90_000,
      env: offlineEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: dir, ASSISTANT_LS_ROOT: root, ASSISTANT_LS_EL: EL }),
    });
    const output = `${result.stdout}\n${result.stderr}`;
    const line = result.stdout.split('\n').find((l) => l.startsWith('ASSISTANT-LS-REPORT '));
    expect(line, output).toBeDefined();
    expect(result.status, output).toBe(0);
    const report = JSON.parse((line as string).slice('ASSISTANT-LS-REPORT '.length)) as Report;

    expect(report.managed).toBe(true);
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
});
