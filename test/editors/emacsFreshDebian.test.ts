// Emacs as Debian installs it (emacs-nox, elpa-eglot), run with -Q and only assistant-ls.el: a .ts file three folders down a package without version control.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { BIN, REPO_ROOT, copyFixture } from '../support/lspClient.js';

const EL = path.join(REPO_ROOT, 'clients', 'emacs', 'assistant-ls.el');
const INSTALL = 'apt-get install -y emacs-nox elpa-eglot';

/** Emacs with eglot as the system installed it, and the folder of the packages apt put there (what `-Q` leaves out). */
const PROBE = spawnSync('emacs', ['--batch', '--eval', `(progn (require 'eglot) (princ (file-name-directory (directory-file-name (file-name-directory (locate-library "eglot"))))))`], { encoding: 'utf8', timeout: 30_000 });
const MISSING = PROBE.error ? 'emacs is not installed' : PROBE.status !== 0 ? `emacs cannot load eglot: ${PROBE.stderr.trim().split('\n').pop() ?? ''}` : undefined;
const ELPA = PROBE.stdout.trim();

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

/**
 * What a user on a fresh Debian does, in Emacs Lisp: the init file holds only the README's lines (load the package,
 * `assistant-ls-setup`); they open the file, `M-x eglot`, `M-x eglot-code-actions` and pick Document, and say yes
 * when Eglot asks to apply the edit. The elpa packages are activated as Debian's site start does, since -Q skips it.
 * Prints one JSON line with what the user saw.
 */
const DRIVER = String.raw`
(condition-case err
    (let* ((root (file-name-as-directory (getenv "ASSISTANT_LS_ROOT")))
           (file (expand-file-name "src/deep/nested/file.ts" root))
           (report nil))
      (setq package-directory-list (list (getenv "ASSISTANT_LS_ELPA")))
      (package-initialize)
      (push (cons 'typescriptModes (vector (or (fboundp 'typescript-mode) :json-false) (or (fboundp 'typescript-ts-mode) :json-false))) report)
      (load (getenv "ASSISTANT_LS_EL") nil t)
      (assistant-ls-setup)
      (setq eglot-sync-connect 30)
      (find-file file)
      (push (cons 'mode (symbol-name major-mode)) report)
      (push (cons 'project (expand-file-name (project-root (project-current)))) report)
      ;; The file with every line's indentation taken away, indented again by the mode: it nests as written.
      (push (cons 'indent (vector js-indent-level (or indent-tabs-mode :json-false))) report)
      (let ((text (replace-regexp-in-string "^[ \t]+" "" (buffer-string)))
            (step js-indent-level))
        (with-temp-buffer
          (insert text)
          (assistant-ls-typescript-mode)
          (setq-local js-indent-level step)
          (indent-region (point-min) (point-max))
          (push (cons 'reindented (buffer-string)) report)))
      (font-lock-ensure)
      (dolist (word '("interface" "type" "function" "const"))
        (goto-char (point-min))
        (re-search-forward (concat "\\_<" word "\\_> [A-Za-z]"))
        (push (cons (intern (concat "face-" word)) (get-text-property (match-beginning 0) 'face)) report))
      (call-interactively #'eglot)
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (eglot-managed-p)) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (push (cons 'managed (eglot-managed-p)) report)
      (push (cons 'serverProject (expand-file-name (project-root (eglot--project (eglot-current-server))))) report)
      (goto-char (point-min))
      (search-forward "slugify(title")
      (goto-char (match-beginning 0))
      ;; As from the keyboard: in batch a mouse event (or none) would make Eglot pop up a menu.
      (let* ((offered nil)
             (asked nil)
             (last-nonmenu-event ?\r)
             (completing-read-function
              (lambda (_prompt collection &rest _)
                (setq offered (mapcar (lambda (c) (if (consp c) (car c) c)) collection))
                "Assistant: Document function slugify")))
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (push prompt asked) t)))
          (call-interactively #'eglot-code-actions)
          (let ((deadline (+ (float-time) 60)))
            (while (and (not (string-match-p "/\\*\\*" (buffer-string))) (< (float-time) deadline))
              (accept-process-output nil 0.05))))
        (push (cons 'offered offered) report)
        (push (cons 'asked asked) report))
      (push (cons 'after (buffer-substring-no-properties (point-min) (point-max))) report)
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (princ (concat "ASSISTANT-LS-REPORT " (json-encode report) "\n")))
  (error (princ (format "ASSISTANT-LS-ERROR %S\n" err))
         (kill-emacs 1)))
`;

interface Report {
  typescriptModes: [boolean, boolean];
  mode: string;
  project: string;
  indent: [number, boolean];
  reindented: string;
  'face-interface': string | null;
  'face-type': string | null;
  'face-function': string | null;
  managed: boolean;
  serverProject: string;
  offered: string[];
  asked: string[];
  after: string;
}

/** Whether a folder or any above it is under version control. */
function underVersionControl(dir: string): boolean {
  for (let at = dir; ; at = path.dirname(at)) {
    if (['.git', '.hg', '.svn', '_darcs', '.bzr'].some((name) => fs.existsSync(path.join(at, name)))) return true;
    if (path.dirname(at) === at) return false;
  }
}

describe('Emacs on a fresh Debian (emacs -Q, elpa-eglot, assistant-ls.el alone)', () => {
  it('opens src/deep/nested/file.ts in a TypeScript mode, connects eglot with the package as the project, applies Document, and keeps .assistant/ at the package root', (ctx) => {
    requireEmacs(ctx);
    const root = fs.realpathSync(copyFixture('nested'));
    temporary.push(root);
    expect(underVersionControl(root)).toBe(false);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-debian-'));
    temporary.push(dir);
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'assistant-ls'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const driver = path.join(dir, 'driver.el');
    fs.writeFileSync(driver, DRIVER);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
    const result = spawnSync('emacs', ['-Q', '--batch', '-l', driver], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: dir, ASSISTANT_LS_ROOT: root, ASSISTANT_LS_EL: EL, ASSISTANT_LS_ELPA: ELPA },
    });
    const output = `${result.stdout}\n${result.stderr}`;
    const line = result.stdout.split('\n').find((l) => l.startsWith('ASSISTANT-LS-REPORT '));
    expect(line, output).toBeDefined();
    expect(result.status, output).toBe(0);
    const report = JSON.parse((line as string).slice('ASSISTANT-LS-REPORT '.length)) as Report;
    const original = fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'nested', 'src', 'deep', 'nested', 'file.ts'), 'utf8');

    // Emacs 28 has neither mode; the package's own opens the file, highlighted and indented as TypeScript.
    expect(report.typescriptModes).toEqual([false, false]);
    expect(report.mode).toBe('assistant-ls-typescript-mode');
    // Two spaces, as the file is written (js-mode alone would take four, and tabs).
    expect(report.indent).toEqual([2, false]);
    expect(report.reindented).toBe(original);
    expect(report['face-interface']).toBe('font-lock-keyword-face');
    expect(report['face-type']).toBe('font-lock-keyword-face');
    expect(report['face-function']).toBe('font-lock-keyword-face');

    // The project, and the server's, is the package: the nearest folder up with package.json.
    expect(report.project).toBe(`${root}/`);
    expect(report.managed).toBe(true);
    expect(report.serverProject).toBe(`${root}/`);

    // Document from the code actions, applied once the user said yes.
    expect(report.offered).toContain('Assistant: Document function slugify');
    expect(report.after).toMatch(/\n\/\*\*\n \* [^\n]+\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\nexport function slugify\(/);
    expect(report.after).toMatch(/@param title - /);
    expect(report.after.replace(/\/\*\*[\s\S]*?\*\/\n\/\/ @assistant [^\n]*\n/, '')).toBe(original);

    // The trace is in the package root's .assistant/, not beside the file.
    expect(fs.existsSync(path.join(root, '.assistant', 'trace'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'src', 'deep', 'nested', '.assistant'))).toBe(false);
  }, 150_000);
});
