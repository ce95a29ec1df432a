// The one Emacs harness of the editor journeys: a journey in Emacs Lisp run by emacs --batch with Eglot and clients/emacs/assistant-ls.el against the built server; what the user saw comes back as one JSON line.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { BIN, REPO_ROOT, copyFixture } from '../../support/lspClient.js';
// Journeys read what reached the trace through the one reader of the tests.
export { readInteractions } from '../../support/traceFiles.js';

export const EL = path.join(REPO_ROOT, 'clients', 'emacs', 'assistant-ls.el');

/**
 * Emacs with eglot (built in from Emacs 29; the elpa-eglot package before), and the folder of the packages the
 * system put there (what `-Q` leaves out).
 */
const PROBE = spawnSync('emacs', ['--batch', '--eval', `(progn (require 'eglot) (princ (file-name-directory (directory-file-name (file-name-directory (locate-library "eglot"))))))`], { encoding: 'utf8', timeout: 30_000 });
const MISSING = PROBE.error ? 'emacs is not installed' : PROBE.status !== 0 ? `emacs cannot load eglot: ${PROBE.stderr.trim().split('\n').pop() ?? ''}` : undefined;
export const ELPA = PROBE.stdout.trim();
const TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' });

/** Skips the test where Emacs with Eglot (and tmux, when asked for) is missing; in CI, which installs them, fails it. */
export function requireEmacs(ctx: TestContext, needs: { tmux?: boolean } = {}): void {
  const missing = MISSING ?? (needs.tmux && TMUX.error ? 'tmux is not installed' : undefined);
  if (!missing) return;
  const install = `apt-get install -y emacs-nox elpa-eglot${needs.tmux ? ' tmux' : ''}`;
  if (process.env.CI) throw new Error(`${missing}; CI needs: ${install}`);
  ctx.skip(`${missing} (${install} to run this test)`);
}

/** The environment of a user without model settings (only the agents the journey configures answer), `assistant-ls` on PATH from `bin`. */
export function offlineEnv(bin: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
  return { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
}

/** Puts the built server, as a user's PATH has it, in `dir`/bin; returns that folder. */
export function serverBin(dir: string): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'assistant-ls'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  return bin;
}

/** Removes a folder a server may still be writing into as Emacs exits; what stays is left to the OS. */
export function removeQuietly(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  } catch {
    // Left in the OS temporary folder.
  }
}

/**
 * The usual user's set-up: the package, a TypeScript mode where Emacs 28 has none (users get one from
 * typescript-mode or Emacs 29's tree-sitter), the fixture copy as the project (it is no VC repository; a package.json
 * root would be), and `assistant-ls-setup`.
 */
function defaultSetup(configuration: string | undefined): string {
  return String.raw`(load (getenv "ASSISTANT_LS_EL") nil t)
        (unless (fboundp 'typescript-mode)
          (define-derived-mode typescript-mode prog-mode "TypeScript"))
        (add-to-list 'auto-mode-alist '("\\.ts\\'" . typescript-mode))
        (add-hook 'project-find-functions (lambda (_dir) (cons 'transient root)))
        (setq eglot-sync-connect 30)
        ${configuration === undefined ? '' : `(setq-default eglot-workspace-configuration '(:assistant ${configuration}))`}
        (assistant-ls-setup)`;
}

/**
 * The driver: set-up, open FILE, M-x eglot and wait (40 s) for it to manage the buffer, then the journey, with
 * `wait` (against one deadline), `messages` (the *Messages* text) and `pick-code-action` (M-x eglot-code-actions at
 * point, choosing the title CHOOSE returns from the titles offered, which go into the report as `offered`); the
 * journey pushes what it sees onto `report`.
 * The answer buffer, the buffer's text and the messages are added, and `report` is printed as one JSON line.
 */
function driver(options: Required<Pick<EmacsOptions, 'file' | 'setup' | 'opened' | 'connect' | 'deadlineSeconds'>>, journey: string): string {
  return String.raw`;;; driver.el --- one journey  -*- lexical-binding: t; -*-
(require 'cl-lib)
(require 'seq)
(condition-case err
    (let* ((root (file-name-as-directory (getenv "ASSISTANT_LS_ROOT")))
           (file (expand-file-name "${options.file}" root))
           (deadline (+ (float-time) ${options.deadlineSeconds}))
           (report nil))
      (cl-flet* ((wait (what condition)
                   (while (not (funcall condition))
                     (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
                     (accept-process-output nil 0.05)))
                 (messages () (with-current-buffer "*Messages*" (buffer-string)))
                 (pick-code-action (choose)
                   ;; As from the keyboard (M-x): a mouse event, or none as in batch, would make Eglot pop up a menu.
                   (let* ((last-nonmenu-event ?\r)
                          (completing-read-function
                           (lambda (_prompt collection &rest _)
                             (let ((offered (mapcar (lambda (c) (if (consp c) (car c) c)) collection)))
                               (push (cons 'offered offered) report)
                               (funcall choose offered)))))
                     (call-interactively #'eglot-code-actions))))
        ${options.setup}
        (find-file file)
        (push (cons 'original (buffer-string)) report)
        ${options.opened}
        ${options.connect}
        (let ((connected (+ (float-time) 40)))
          (while (and (not (eglot-managed-p)) (< (float-time) connected))
            (accept-process-output nil 0.05)))
        (push (cons 'managed (eglot-managed-p)) report)
        ${journey}
        (let ((answer (get-buffer assistant-ls-answer-buffer)))
          (push (cons 'answer (and answer (with-current-buffer answer (buffer-substring-no-properties (point-min) (point-max))))) report)
          (push (cons 'answerMode (and answer (with-current-buffer answer (symbol-name major-mode)))) report)
          (push (cons 'answerShown (and answer (get-buffer-window answer) t)) report))
        (push (cons 'text (buffer-string)) report)
        (push (cons 'messages (messages)) report)
        (ignore-errors (eglot-shutdown (eglot-current-server)))
        (princ (concat "ASSISTANT-LS-REPORT " (json-encode report) "\n"))))
  (error (princ (format "ASSISTANT-LS-ERROR %S\n%s\n" err (with-current-buffer "*Messages*" (buffer-string))))
         (kill-emacs 1)))
`;
}

export interface EmacsOptions {
  /** The fixture a fresh workspace is copied from (default `basic`); ignored when `workspace` is given. */
  fixture?: string;
  /** A workspace the caller made instead of a fresh copy. */
  workspace?: string;
  /** The file opened, relative to the workspace (default src/config.ts). */
  file?: string;
  /** The `:assistant` plist put in `eglot-workspace-configuration` by the usual set-up. */
  configuration?: string;
  /** Lisp replacing the usual set-up (package, TypeScript mode, project, `assistant-ls-setup`). */
  setup?: string;
  /** Lisp run once the file is open, before Eglot starts. */
  opened?: string;
  /** How Eglot is started (default: `(apply #'eglot (eglot--guess-contact))`). */
  connect?: string;
  /** Arguments before `--batch` (e.g. `-Q`). */
  args?: string[];
  /** More environment for Emacs. */
  env?: Record<string, string>;
  /** Budget of the Emacs process (default 90 s). */
  timeoutMs?: number;
  /** The deadline of the journey's `wait`s, from Emacs's start (default 40 s). */
  deadlineSeconds?: number;
}

/** What every journey's report holds; each journey adds its own keys. */
export interface BaseReport {
  /** The opened file's text when Emacs opened it. */
  original: string;
  managed: boolean;
  answer: string | null;
  answerMode: string | null;
  answerShown: boolean | null;
  /** The current buffer's text at the end. */
  text: string;
  messages: string;
}

/**
 * Runs a journey in `emacs --batch` (without blocking the test's event loop, where a scripted endpoint may answer);
 * throws with Emacs's output when it fails, prints no report, or Eglot did not manage the buffer.
 */
export async function runEmacs<R extends BaseReport = BaseReport>(journey: string, options: EmacsOptions = {}): Promise<{ report: R; root: string }> {
  const root = options.workspace ?? copyFixture(options.fixture ?? 'basic');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-'));
  try {
    const bin = serverBin(dir);
    const script = path.join(dir, 'driver.el');
    const settings = {
      file: options.file ?? 'src/config.ts',
      setup: options.setup ?? defaultSetup(options.configuration),
      opened: options.opened ?? '',
      connect: options.connect ?? "(apply #'eglot (eglot--guess-contact))",
      deadlineSeconds: options.deadlineSeconds ?? 40,
    };
    fs.writeFileSync(script, driver(settings, journey));
    const env = offlineEnv(bin, { HOME: dir, ASSISTANT_LS_ROOT: root, ASSISTANT_LS_EL: EL, ...options.env });
    const timeoutMs = options.timeoutMs ?? 90_000;
    const child = spawn('emacs', [...(options.args ?? []), '--batch', '-l', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    const line = stdout.split('\n').find((l) => l.startsWith('ASSISTANT-LS-REPORT '));
    if (!line || code !== 0) throw new Error(`emacs exited with ${code}${code === null ? ` (killed after ${timeoutMs} ms)` : ''}:\n${stdout}\n${stderr}`);
    const report = JSON.parse(line.slice('ASSISTANT-LS-REPORT '.length)) as R;
    if (report.managed !== true) throw new Error(`Eglot did not manage ${settings.file}:\n${stdout}\n${stderr}`);
    return { report, root };
  } finally {
    removeQuietly(dir);
  }
}


/**
 * The init file of a user who runs `emacs -nw` (the terminal journeys): the package, a TypeScript mode where Emacs 28
 * has none, `root` as the project, the workspace `configuration` (an Elisp plist) when given, and Eglot started for
 * TypeScript buffers. Native compilation's warnings and M-x's key-binding hints stay off the screen the journeys read.
 */
export function terminalInit(root: string, configuration?: string): string {
  return String.raw`;;; init.el --- a user's setup for a terminal journey  -*- lexical-binding: t; -*-
;; Native compilation of Debian's packages would pop a *Warnings* window over the journey on a fresh machine.
(setq native-comp-async-report-warnings-errors 'silent native-comp-deferred-compilation nil)
;; M-x would say "You can run the command … with M-x a-as" over the echo area a journey reads.
(setq suggest-key-bindings nil)
(setq inhibit-startup-screen t)
(load ${JSON.stringify(EL)} nil t)
(unless (fboundp 'typescript-mode)
  (define-derived-mode typescript-mode prog-mode "TypeScript"))
(add-to-list 'auto-mode-alist '("\\.ts\\'" . typescript-mode))
(let ((root ${JSON.stringify(`${root}/`)}))
  (add-hook 'project-find-functions (lambda (_dir) (cons 'transient root))))
${configuration === undefined ? '' : `(setq-default eglot-workspace-configuration '(:assistant ${configuration}))`}
(assistant-ls-setup)
(add-hook 'typescript-mode-hook #'eglot-ensure)
`;
}

/** The tmux servers `terminalEmacs` started in this test file (by their sockets) and their folders, until `endTerminals`. */
const terminals: { socket: string; scratch: string }[] = [];

export interface TerminalOptions {
  /** The workspace, Emacs's working directory. */
  root: string;
  /** The init file (`terminalInit` gives a user's usual one). */
  init: string;
  /** The file Emacs visits, relative to `root`. */
  file: string;
  /** The terminal's size (default 120 by 40). */
  columns?: number;
  lines?: number;
  /** The deadline of every wait, from now (default 80 s). */
  deadlineMs?: number;
  /** What a timeout adds to its error (see `Terminal`). */
  diagnose?: (term: Terminal) => Promise<string>;
}

/**
 * `emacs -nw` with `init` as its init file in a terminal of a tmux server of its own (not the one of whoever runs the
 * tests), visiting `file`, once Eglot is connected. HOME, the init file, the server on PATH and the socket are in a
 * folder of its own. `-q`: no init file of the machine's user, but Debian's site files, which put elpa-eglot on the
 * load path. `endTerminals` ends it.
 */
export async function terminalEmacs(options: TerminalOptions): Promise<Terminal> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-terminal-'));
  const socket = path.join(scratch, 'tmux.sock');
  terminals.push({ socket, scratch });
  const init = path.join(scratch, 'init.el');
  fs.writeFileSync(init, options.init);
  const env = offlineEnv(serverBin(scratch), { HOME: scratch, TERM: 'xterm-256color' });
  for (const key of Object.keys(env)) if (key.startsWith('TMUX')) delete env[key];
  const size = ['-x', String(options.columns ?? 120), '-y', String(options.lines ?? 40)];
  execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', ...size, '-c', options.root, 'emacs', '-nw', '-q', '-l', init, options.file], { env });
  const diagnose = options.diagnose;
  const term: Terminal = new Terminal(socket, Date.now() + (options.deadlineMs ?? 80_000), diagnose && (() => diagnose(term)));
  await term.screenShowing('Eglot connected', /\[eglot:[^\]/]+\]/);
  return term;
}

/** Ends the tmux servers `terminalEmacs` started, by their own sockets (Emacs and the language server end with them), and removes their folders. */
export function endTerminals(): void {
  for (const { socket, scratch } of terminals.splice(0)) {
    spawnSync('tmux', ['-S', socket, 'kill-server']);
    removeQuietly(scratch);
  }
}

/** Emacs in a terminal of its own tmux server (by its socket): what the screen shows, and keys typed into it. */
export class Terminal {
  constructor(
    private readonly socket: string,
    private readonly deadline: number,
    /** What a timeout adds to its error, beside the screen: state the screen does not show. */
    private readonly diagnose?: () => Promise<string>,
  ) {}

  /** The screen's text; with `escapes`, with the escape sequences of its colours and attributes. */
  screen(escapes = false): string {
    return execFileSync('tmux', ['-S', this.socket, 'capture-pane', '-p', ...(escapes ? ['-e'] : [])], { encoding: 'utf8' });
  }

  keys(...keys: string[]): void {
    execFileSync('tmux', ['-S', this.socket, 'send-keys', ...keys]);
  }

  /** Types text as it is (tmux would read words such as "Enter" as keys). */
  type(text: string): void {
    execFileSync('tmux', ['-S', this.socket, 'send-keys', '-l', text]);
  }

  async until(what: string, check: () => boolean): Promise<void> {
    while (!check()) {
      if (Date.now() > this.deadline) {
        const screen = this.screen();
        const more = this.diagnose ? `\n${await this.diagnose().catch((error: unknown) => `(diagnosis failed: ${String(error)})`)}` : '';
        throw new Error(`timed out waiting for ${what}; the screen:\n${screen}${more}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The screen once it shows `needle` and, when given, no longer shows `gone` (Emacs may redraw in two steps). */
  async screenShowing(what: string, needle: string | RegExp, gone?: string): Promise<string> {
    let screen = '';
    await this.until(what, () => {
      screen = this.screen();
      return (typeof needle === 'string' ? screen.includes(needle) : needle.test(screen)) && (gone === undefined || !screen.includes(gone));
    });
    return screen;
  }
}
