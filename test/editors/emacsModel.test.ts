// A model agent beside the offline one, in Emacs with eglot (batch): its failure named when the offline answer is applied, and assistant-ls-cancel.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import type { Interaction } from '../../protocol/src/index.js';
import { BIN, REPO_ROOT, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptStep, ScriptedModel } from '../support/scriptedModel.js';
import { scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
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

let model: ScriptedModel;
const temporary: string[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
  for (const dir of temporary.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch {
      // The server emacs started may still be writing its trace as it exits: left to the OS's temporary folder.
    }
  }
});

/**
 * What every journey starts with, in Emacs Lisp: the package loaded, src/config.ts in a TypeScript mode, the settings
 * (the scripted endpoint as the model agent `gpt-4o-mini`) in `eglot-workspace-configuration`, M-x eglot, and the
 * model agent registered. Then the journey's own steps, with helpers to wait and to read what the echo area showed;
 * at the end one JSON line with what the journey recorded.
 */
function driver(agentSettings: string, steps: string): string {
  return String.raw`;;; driver.el --- one journey  -*- lexical-binding: t; -*-
(require 'cl-lib)
(require 'seq)
(condition-case err
    (let* ((root (file-name-as-directory (getenv "ASSISTANT_LS_ROOT")))
           (file (expand-file-name "src/config.ts" root))
           (deadline (+ (float-time) 40))
           (report nil))
      (cl-flet* ((wait (what condition)
                   (while (not (funcall condition))
                     (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
                     (accept-process-output nil 0.05)))
                 (messages () (with-current-buffer "*Messages*" (buffer-string))))
        (load (getenv "ASSISTANT_LS_EL") nil t)
        (unless (fboundp 'typescript-mode)
          (define-derived-mode typescript-mode prog-mode "TypeScript"))
        (add-to-list 'auto-mode-alist '("\\.ts\\'" . typescript-mode))
        (add-hook 'project-find-functions (lambda (_dir) (cons 'transient root)))
        (setq eglot-sync-connect 30)
        (setq-default eglot-workspace-configuration '(:assistant ${agentSettings}))
        (assistant-ls-setup)
        (find-file file)
        (push (cons 'original (buffer-string)) report)
        (apply #'eglot (eglot--guess-contact))
        (wait "eglot" #'eglot-managed-p)
        (wait "the model agent"
              (lambda ()
                (seq-find (lambda (a) (equal (plist-get a :name) "gpt-4o-mini"))
                          (plist-get (assistant-ls--request (eglot-current-server) :assistant/agents (make-hash-table)) :agents))))
        ${steps}
        (push (cons 'text (buffer-string)) report)
        (push (cons 'messages (messages)) report)
        (ignore-errors (eglot-shutdown (eglot-current-server)))
        (princ (concat "ASSISTANT-LS-REPORT " (json-encode report) "\n"))))
  (error (princ (format "ASSISTANT-LS-ERROR %S\n%s\n" err (with-current-buffer "*Messages*" (buffer-string))))
         (kill-emacs 1)))
`;
}

interface Report {
  original: string;
  text: string;
  messages: string;
  prompt?: string;
  offered?: string[];
  cancelledAt?: number;
}

/** Runs a journey in `emacs --batch` (without blocking the test's event loop, where the scripted endpoint answers). */
async function runEmacs(steps: string, prepare: (root: string) => void = () => undefined): Promise<{ report: Report; root: string }> {
  const root = copyFixture('basic');
  temporary.push(root);
  prepare(root);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-'));
  temporary.push(dir);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'assistant-ls'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  const settings = `(:useEnvironment :json-false :agents [(:name "gpt-4o-mini" :baseURL "${agent.baseURL}" :apiKey "sk-test" :model "gpt-4o-mini" :tasks ["document"])])`;
  const file = path.join(dir, 'driver.el');
  fs.writeFileSync(file, driver(settings, steps));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL') env[k] = v;
  Object.assign(env, { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: dir, ASSISTANT_LS_ROOT: root, ASSISTANT_LS_EL: EL });
  const child = spawn('emacs', ['--batch', '-l', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  const line = stdout.split('\n').find((l) => l.startsWith('ASSISTANT-LS-REPORT '));
  if (!line || code !== 0) throw new Error(`emacs exited with ${code}:\n${stdout}\n${stderr}`);
  const entries = JSON.parse(line.slice('ASSISTANT-LS-REPORT '.length)) as Record<string, unknown>;
  return { report: entries as unknown as Report, root };
}

function interactions(root: string): Interaction[] {
  return segmentFiles(path.join(root, '.assistant', 'trace')).flatMap((file) => (readSegment(file) as unknown as { interactions: Interaction[] }).interactions);
}

/** A file the journey waits for, written once the model has `count` requests (the classifier's is the first). */
function markWhenAsked(count: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-emacs-mark-'));
  temporary.push(dir);
  const file = path.join(dir, 'asked');
  void model.waitForRequests(count, 40_000).then(
    () => fs.writeFileSync(file, ''),
    () => undefined,
  );
  return file;
}

const DOCUMENTED_LOAD = /\/\*\*\n {3}\* [^\n]+\n(?: {3}\*[^\n]*\n)* {3}\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/;

describe('clients/emacs/assistant-ls.el with a model agent', () => {
  it('M-x assistant-ls-ask applies the offline answer, names the model’s 401 in the prompt, and Eglot shows the warning', async (ctx) => {
    requireEmacs(ctx);
    model.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const { report } = await runEmacs(String.raw`
        (let ((completing-read-function
               (lambda (prompt collection &rest _)
                 (push (cons 'prompt prompt) report)
                 (push (cons 'offered (mapcar #'car collection)) report)
                 (caar collection))))
          (funcall-interactively #'assistant-ls-ask "write documentation for the load method")
          (wait "the doc comment" (lambda () (string-match-p "\\*/\n  // @assistant [^\n]*\n  async load" (buffer-string))))
          (wait "the warning" (lambda () (string-match-p "gpt-4o-mini failed" (messages)))))`);
    expect(report.prompt).toBe('Apply (document, 1 candidate; gpt-4o-mini failed: the endpoint refused the API key (401)): ');
    expect(report.offered).toEqual([expect.stringMatching(/^doc-offline: \S/)]);
    expect(report.text).toMatch(DOCUMENTED_LOAD);
    expect(report.text).toContain('@assistant task=document agent=doc-offline');
    // Eglot 1.9 shows the server's warning in its own words around it.
    expect(report.messages).toContain('Server reports (type=2): Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).');
    expect(report.messages).toContain('assistant-ls: asking... (M-x assistant-ls-cancel stops it)');
  }, 100_000);

  it('M-x assistant-ls-cancel stops an ask on a hung model: the request closes within 500 ms, the buffer is unchanged, the trace says cancelled', async (ctx) => {
    requireEmacs(ctx);
    model.setDefault(taskSteps((): ScriptStep => ({ kind: 'stall', afterHeaders: true })));
    // The agents check (no model request), the classifier's request, then the task's.
    const asked = markWhenAsked(2);
    const { report, root } = await runEmacs(String.raw`
        (let ((completing-read-function (lambda (&rest _) (error "No candidate should be offered"))))
          (funcall-interactively #'assistant-ls-ask "write documentation for the load method")
          (wait "the model's request" (lambda () (file-exists-p "${asked}")))
          (push (cons 'cancelledAt (truncate (* 1000 (float-time)))) report)
          (call-interactively #'assistant-ls-cancel)
          (wait "the cancelled ask" (lambda () (string-match-p "ask cancelled" (messages))))
          (accept-process-output nil 0.3))`);
    const closedAt = await model.waitForClose(1, 1000);
    expect(closedAt - report.cancelledAt!).toBeLessThan(500);
    expect(report.text).toBe(report.original);
    expect(report.messages).toContain('assistant-ls: cancelling assistant/ask');
    expect(report.messages).toContain('assistant-ls: ask cancelled; nothing applied');
    const interaction = interactions(root).find((i) => i.source === 'text');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    expect(interaction!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'cancelled', used: false });
  }, 100_000);

  it('M-x assistant-ls-cancel stops the cancellable progress Eglot received (as Eglot 1.10 and later receive it)', async (ctx) => {
    requireEmacs(ctx);
    // Eglot 1.9 declares no progress support, so the server sends it none: the notification is handed to Eglot here,
    // as a later Eglot's connection would, and the cancel must then reach the server.
    const { report } = await runEmacs(String.raw`
        (let ((server (eglot-current-server)))
          (eglot-handle-notification server '$/progress :token "tok-1" :value '(:kind "begin" :title "Assistant: Document method ConfigStore.load" :cancellable t))
          (eglot-handle-notification server '$/progress :token "tok-2" :value '(:kind "begin" :title "Assistant: lint the project" :cancellable t))
          (eglot-handle-notification server '$/progress :token "tok-2" :value '(:kind "end"))
          (call-interactively #'assistant-ls-cancel)
          (push (cons 'events (with-current-buffer (jsonrpc-events-buffer server) (buffer-string))) report)
          (call-interactively #'assistant-ls-cancel))`);
    expect(report.messages).toContain('assistant-ls: cancelling Assistant: Document method ConfigStore.load');
    expect(report.messages).toContain('assistant-ls: nothing to cancel');
    // One cancel went to the server, for the progress still running.
    const { events } = report as Report & { events: string };
    expect(events.match(/window\/workDoneProgress\/cancel/g)).toHaveLength(1);
    expect(events.slice(events.indexOf('window/workDoneProgress/cancel'))).toMatch(/^[^\n]*\n?[^\n]*"tok-1"/);
  }, 100_000);
});
