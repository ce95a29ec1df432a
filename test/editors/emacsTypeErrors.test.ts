// Emacs with Eglot, where no typescript-language-server runs beside assistant-ls: type errors show in Flymake and leave with the code, Fix runs at point, and assistant-ls-check-types reports the project.
import { describe, expect, it } from 'vitest';
import { requireEmacs, runEmacs } from './harness/emacs.js';
import type { BaseReport } from './harness/emacs.js';

/**
 * The user types a type error at the end of src/cart.ts (a project without errors) and saves; with point inside it and no region, picks
 * "Assistant: Fix…" from eglot-code-actions; deletes the line and saves; then runs M-x assistant-ls-check-types.
 */
const JOURNEY = String.raw`
      (cl-flet ((errors () (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
        (goto-char (point-max))
        (insert "const wrong: number = \"x\";\n")
        (save-buffer)
        (wait "Flymake's diagnostic" (lambda () (errors)))
        (push (cons 'typed (errors)) report)
        (search-backward "wrong")
        (forward-char 2)
        (push (cons 'offered (mapcar (lambda (action) (plist-get action :title)) (eglot-code-actions (point)))) report)
        ;; As from the keyboard: a mouse event (or none, in batch) would pop up a menu instead.
        (let ((last-nonmenu-event ?\r)
              (completing-read-function
               (lambda (_prompt collection &rest _)
                 (seq-find (lambda (title) (string-prefix-p "Assistant: Fix" title)) (mapcar #'car collection)))))
          (eglot-code-actions (point) nil nil t))
        (wait "the Fix's outcome" (lambda () (string-match-p "No usable answer\\|failed\\|applied" (messages))))
        (goto-char (point-max))
        (forward-line -1)
        (delete-region (line-beginning-position) (point-max))
        (save-buffer)
        (wait "Flymake's diagnostics to go" (lambda () (null (errors))))
        (push (cons 'fixed (length (errors))) report)
        (assistant-ls-check-types)
        (wait "the type-check's count" (lambda () (string-match-p "type errors? in [0-9]+ files?" (messages)))))`;

interface Report extends BaseReport {
  typed: string[];
  offered: string[];
  fixed: number;
}

describe('type errors in Emacs', () => {
  it('shows them in Flymake, runs Fix at point, drops them once the code is corrected, and checks the project', async (ctx) => {
    requireEmacs(ctx);
    const { report } = await runEmacs<Report>(JOURNEY, { fixture: 'pipelines', file: 'src/cart.ts', deadlineSeconds: 80, timeoutMs: 110_000 });
    expect(report.typed).toEqual(["typescript [2322]: Type 'string' is not assignable to type 'number'."]);
    expect(report.offered.some((title) => title.startsWith('Assistant: Fix'))).toBe(true);
    // The Fix ran on its diagnostic: the offline agent has no compiler fix for TS2322, and says so.
    expect(report.messages).not.toMatch(/no longer there/);
    expect(report.messages).toMatch(/No usable answer for TS2322: .+ \(fix-offline\)/);
    expect(report.fixed).toBe(0);
    // The count is the project's (the fixture's test file cannot find vitest, which is not installed in the copy).
    expect(report.messages).toMatch(/assistant-ls: type-checking the project\.\.\.\n[\s\S]*assistant-ls: \d+ type errors? in \d+ files?\./);
  }, 120_000);
});
