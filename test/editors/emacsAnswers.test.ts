// Text answers in the real Emacs with Eglot: a workspace question, Explain from the code actions and "explain this function", shown whole, their places through xref.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import type { Interaction } from '../../protocol/src/index.js';
import { BIN, REPO_ROOT, copyFixture } from '../support/lspClient.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';

const EL = path.join(REPO_ROOT, 'clients', 'emacs', 'assistant-ls.el');
const INSTALL = 'apt-get install -y emacs-nox elpa-eglot';

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

/**
 * What a user does before the scenario: open FILE in typescript-mode, M-x eglot with assistant-ls chosen by
 * assistant-ls-setup. The scenario pushes what it sees onto `report`, printed as one JSON line at the end.
 */
function driver(file: string, scenario: string): string {
  return String.raw`
(condition-case err
    (let* ((root (file-name-as-directory (getenv "ASSISTANT_LS_ROOT")))
           (file (expand-file-name "${file}" root))
           (report nil))
      (load (getenv "ASSISTANT_LS_EL") nil t)
      ;; Emacs 28 has no TypeScript mode of its own; users get one from typescript-mode or Emacs 29's tree-sitter.
      (unless (fboundp 'typescript-mode)
        (define-derived-mode typescript-mode prog-mode "TypeScript"))
      (add-to-list 'auto-mode-alist '("\\.ts\\'" . typescript-mode))
      (add-hook 'project-find-functions (lambda (_dir) (cons 'transient root)))
      (setq eglot-sync-connect 30)
      (assistant-ls-setup)
      (find-file file)
      (apply #'eglot (eglot--guess-contact))
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (eglot-managed-p)) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (push (cons 'managed (eglot-managed-p)) report)
      ${scenario}
      (let ((answer (get-buffer assistant-ls-answer-buffer)))
        (push (cons 'answer (and answer (with-current-buffer answer (buffer-substring-no-properties (point-min) (point-max))))) report)
        (push (cons 'answerMode (and answer (with-current-buffer answer (symbol-name major-mode)))) report)
        (push (cons 'answerShown (and answer (get-buffer-window answer) t)) report))
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (princ (concat "ASSISTANT-LS-REPORT " (json-encode report) "\n")))
  (error (princ (format "ASSISTANT-LS-ERROR %S\n" err))
         (kill-emacs 1)))
`;
}

/** Jumps from the xref buffer to the entry whose label is LABEL, as RET does, and reports where point landed. */
const JUMP = (label: string): string => String.raw`
      (let ((xref (get-buffer "*xref*")))
        (push (cons 'xref (with-current-buffer xref (buffer-substring-no-properties (point-min) (point-max)))) report)
        (select-window (or (get-buffer-window xref) (display-buffer xref)))
        (goto-char (point-min))
        (search-forward "${label}")
        (xref-goto-xref)
        (push (cons 'jumped (list (buffer-file-name) (line-number-at-pos) (current-column)
                                  (buffer-substring-no-properties (point) (line-end-position))))
              report))`;

interface Report {
  managed: boolean;
  answer: string | null;
  answerMode: string | null;
  answerShown: boolean | null;
  xref?: string;
  jumped?: [string, number, number, string];
  offered?: string[];
  shown?: [boolean, boolean];
}

function run(ctx: TestContext, fixture: string, file: string, scenario: string): { report: Report; root: string } {
  requireEmacs(ctx);
  const root = copyFixture(fixture);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-answers-'));
  temporary.push(root, dir);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'assistant-ls'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  const script = path.join(dir, 'driver.el');
  fs.writeFileSync(script, driver(file, scenario));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
  const result = spawnSync('emacs', ['--batch', '-l', script], {
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: dir, ASSISTANT_LS_ROOT: root, ASSISTANT_LS_EL: EL },
  });
  const output = `${result.stdout}\n${result.stderr}`;
  const line = result.stdout.split('\n').find((l) => l.startsWith('ASSISTANT-LS-REPORT '));
  expect(line, output).toBeDefined();
  expect(result.status, output).toBe(0);
  const report = JSON.parse((line as string).slice('ASSISTANT-LS-REPORT '.length)) as Report;
  expect(report.managed).toBe(true);
  return { report, root };
}

function interactions(root: string): Interaction[] {
  return segmentFiles(path.join(root, '.assistant', 'trace')).flatMap((file) => (readSegment(file) as unknown as { interactions: Interaction[] }).interactions);
}

function lineOf(root: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('text answers in Emacs (eglot)', () => {
  it('assistant-ls-ask "where is the retry logic implemented?" shows the ranked places in *assistant-ls answer* and xref, and RET jumps to withRetry', (ctx) => {
    const question = 'where is the retry logic implemented?';
    const { report, root } = run(
      ctx,
      'question',
      'src/main.ts',
      String.raw`
      (let ((completing-read-function (lambda (&rest _) (error "nothing to choose from was expected"))))
        (push (cons 'returned (bufferp (assistant-ls-ask "${question}"))) report))
      (push (cons 'shown (list (and (get-buffer-window assistant-ls-answer-buffer) t) (and (get-buffer-window "*xref*") t))) report)
      ${JUMP('function withRetry')}`,
    );
    const recorded = interactions(root).find((i) => i.text === question)!;
    expect(recorded.task).toBe('question');
    const text = recorded.responses[0]!.text;
    // The whole answer, as text, in a help-style buffer on screen.
    expect(report.answer).toBe(`Question: ${question}\n\n${text}\n`);
    expect(report.answerMode).toBe('special-mode');
    // Both on screen once the answer came.
    expect(report.shown).toEqual([true, true]);
    // Every ranked place is an xref entry, under its file.
    const ranked = text.split('\n').filter((l) => /^\d+\. /.test(l));
    expect(ranked.length).toBeGreaterThan(1);
    for (const entry of ranked) {
      const [, file, line, label] = /^\d+\. (\S+):(\d+) — (.*)$/.exec(entry)!;
      expect(report.xref).toContain(file);
      expect(report.xref).toMatch(new RegExp(`\\b${line}: ${label!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    // RET on withRetry: point on its name in src/retry.ts.
    const [file, line, column, rest] = report.jumped!;
    expect(fs.realpathSync(file)).toBe(fs.realpathSync(path.join(root, 'src', 'retry.ts')));
    expect(line).toBe(lineOf(root, 'src/retry.ts', 'export async function withRetry'));
    expect(column).toBe('export async function '.length);
    expect(rest).toMatch(/^withRetry</);
    // The code opened in the code's window: the answer is still on screen.
    expect(report.answerShown).toBe(true);
  }, 100_000);

  it('Explain from eglot-code-actions shows the whole explanation and its places', (ctx) => {
    const { report, root } = run(
      ctx,
      'explain',
      'src/parser.ts',
      String.raw`
      (goto-char (point-min))
      (search-forward "parseEntries(text")
      (goto-char (match-beginning 0))
      ;; As from the keyboard (M-x): a mouse event, or none as in batch, would make eglot pop up a menu instead.
      (let* ((offered nil)
             (last-nonmenu-event ?\r)
             (completing-read-function
              (lambda (_prompt collection &rest _)
                (setq offered (mapcar (lambda (c) (if (consp c) (car c) c)) collection))
                "Assistant: Explain function parseEntries")))
        (call-interactively #'eglot-code-actions)
        (push (cons 'offered offered) report))
      ;; The action's command runs without waiting (a task may outlast Eglot's 10 s): the answer comes when it is done.
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (get-buffer "*xref*")) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (push (cons 'xref (with-current-buffer "*xref*" (buffer-substring-no-properties (point-min) (point-max)))) report)`,
    );
    expect(report.offered).toContain('Assistant: Explain function parseEntries');
    const recorded = interactions(root).find((i) => i.task === 'explain')!;
    expect(recorded.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
    const text = recorded.responses[0]!.text;
    expect(text.length).toBeGreaterThan(500);
    expect(report.answer).toBe(`Explain parseEntries\n\n${text}\n`);
    expect(report.answerShown).toBe(true);
    expect(report.xref).toMatch(/\b15: function parseEntries \(explained\)/);
    expect(report.xref).toMatch(/\b5: used by countKeys/);
  }, 100_000);

  it('assistant-ls-ask "explain this function" with point inside parseConfig and no region explains parseConfig', (ctx) => {
    const { report, root } = run(
      ctx,
      'basic',
      'src/config.ts',
      String.raw`
      (goto-char (point-min))
      (search-forward "const timeoutMs = raw")
      (deactivate-mark)
      ;; M-x assistant-ls-ask RET explain this function RET, with no region.
      (let ((completing-read-function (lambda (&rest _) (error "nothing to choose from was expected"))))
        (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "explain this function")))
          (call-interactively #'assistant-ls-ask))
        ;; As a command the ask goes on in the background, and the answer opens when it comes.
        (let ((deadline (+ (float-time) 30)))
          (while (and (not (get-buffer assistant-ls-answer-buffer)) (< (float-time) deadline))
            (accept-process-output nil 0.05))))`,
    );
    const recorded = interactions(root).find((i) => i.text === 'explain this function')!;
    expect(recorded).toMatchObject({ task: 'explain', context: { symbol: 'parseConfig' } });
    expect(report.answer).toBe(`Explain: explain this function\n\n${recorded.responses[0]!.text}\n`);
    expect(report.answer).toContain('**function `parseConfig`** in `src/config.ts`');
  }, 100_000);
});
