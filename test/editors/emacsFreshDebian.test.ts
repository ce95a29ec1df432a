// Emacs as Debian installs it (emacs-nox, elpa-eglot), run with -Q and only assistant-ls.el: a .ts file three folders down a package without version control.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ELPA, requireEmacs, runEmacs } from './harness/emacs.js';
import type { BaseReport } from './harness/emacs.js';
import { REPO_ROOT, copyFixture } from '../support/lspClient.js';

/**
 * A user on a fresh Debian: the init file holds only the README's lines (load the package, `assistant-ls-setup`).
 * The elpa packages are activated as Debian's site start does, since -Q skips it.
 */
const SETUP = String.raw`(setq package-directory-list (list (getenv "ASSISTANT_LS_ELPA")))
        (package-initialize)
        (push (cons 'typescriptModes (vector (or (fboundp 'typescript-mode) :json-false) (or (fboundp 'typescript-ts-mode) :json-false))) report)
        (load (getenv "ASSISTANT_LS_EL") nil t)
        (assistant-ls-setup)
        (setq eglot-sync-connect 30)`;

/** What the user sees of the opened file before Eglot: its mode, its project, its indentation and highlighting. */
const OPENED = String.raw`(push (cons 'mode (symbol-name major-mode)) report)
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
          (push (cons (intern (concat "face-" word)) (get-text-property (match-beginning 0) 'face)) report))`;

/** Then `M-x eglot`, `M-x eglot-code-actions` and Document picked, and yes when Eglot asks to apply the edit. */
const JOURNEY = String.raw`(push (cons 'serverProject (expand-file-name (project-root (eglot--project (eglot-current-server))))) report)
        (goto-char (point-min))
        (search-forward "slugify(title")
        (goto-char (match-beginning 0))
        (let ((asked nil))
          (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (push prompt asked) t)))
            (pick-code-action (lambda (_offered) "Assistant: Document function slugify"))
            (let ((deadline (+ (float-time) 60)))
              (while (and (not (string-match-p "/\\*\\*" (buffer-string))) (< (float-time) deadline))
                (accept-process-output nil 0.05))))
          (push (cons 'asked asked) report))
        (push (cons 'after (buffer-substring-no-properties (point-min) (point-max))) report)`;

interface Report extends BaseReport {
  typescriptModes: [boolean, boolean];
  mode: string;
  project: string;
  indent: [number, boolean];
  reindented: string;
  'face-interface': string | null;
  'face-type': string | null;
  'face-function': string | null;
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
  it('opens src/deep/nested/file.ts in a TypeScript mode, connects eglot with the package as the project, applies Document, and keeps .assistant/ at the package root', async (ctx) => {
    requireEmacs(ctx);
    const root = fs.realpathSync(copyFixture('nested'));
    expect(underVersionControl(root)).toBe(false);
    const { report } = await runEmacs<Report>(JOURNEY, {
      workspace: root,
      file: 'src/deep/nested/file.ts',
      setup: SETUP,
      opened: OPENED,
      connect: "(call-interactively #'eglot)",
      args: ['-Q'],
      env: { ASSISTANT_LS_ELPA: ELPA },
      timeoutMs: 120_000,
    });
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
