// A model agent beside the offline one, in Emacs with eglot (batch): its failure named when the offline answer is applied, and assistant-ls-cancel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptStep, ScriptedModel } from '../support/scriptedModel.js';
import { scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { readInteractions as interactions, removeQuietly, requireEmacs, runEmacs as runJourney } from './harness/emacs.js';
import type { BaseReport } from './harness/emacs.js';

let model: ScriptedModel;
const temporary: string[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
  for (const dir of temporary.splice(0)) removeQuietly(dir);
});

interface Report extends BaseReport {
  prompt?: string;
  offered?: string[];
  cancelledAt?: number;
}

/**
 * Runs a journey in `emacs --batch` with the scripted endpoint as the model agent `gpt-4o-mini` in
 * `eglot-workspace-configuration`, once the server has registered it.
 */
function runEmacs(steps: string): Promise<{ report: Report; root: string }> {
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  const configuration = `(:useEnvironment :json-false :agents [(:name "gpt-4o-mini" :baseURL "${agent.baseURL}" :apiKey "sk-test" :model "gpt-4o-mini" :tasks ["document"])])`;
  const journey = String.raw`(wait "the model agent"
              (lambda ()
                (seq-find (lambda (a) (equal (plist-get a :name) "gpt-4o-mini"))
                          (plist-get (assistant-ls--request (eglot-current-server) :assistant/agents (make-hash-table)) :agents))))
        ${steps}`;
  return runJourney<Report>(journey, { configuration, timeoutMs: 80_000 });
}

/** A file the journey waits for, written once the model has `count` requests. */
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
    // The agents check (no model request), then the task's: the request says its task plainly, so it is classified offline.
    const asked = markWhenAsked(1);
    const { report, root } = await runEmacs(String.raw`
        (let ((completing-read-function (lambda (&rest _) (error "No candidate should be offered"))))
          (funcall-interactively #'assistant-ls-ask "write documentation for the load method")
          (wait "the model's request" (lambda () (file-exists-p "${asked}")))
          (push (cons 'cancelledAt (truncate (* 1000 (float-time)))) report)
          (call-interactively #'assistant-ls-cancel)
          (wait "the cancelled ask" (lambda () (string-match-p "ask cancelled" (messages))))
          (accept-process-output nil 0.3))`);
    const closedAt = await model.waitForClose(0, 1000);
    expect(closedAt - report.cancelledAt!).toBeLessThan(500);
    expect(report.text).toBe(report.original);
    expect(report.messages).toContain('assistant-ls: cancelling assistant/ask');
    expect(report.messages).toContain('assistant-ls: ask cancelled; nothing applied');
    const interaction = interactions(root).find((i) => i.source === 'text');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    expect(interaction!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'cancelled', used: false });
  }, 100_000);

  it('shows the progress of a code action while the model works, under Eglot 1.9, which shows none itself, until cancelled', async (ctx) => {
    requireEmacs(ctx);
    model.setDefault(taskSteps((): ScriptStep => ({ kind: 'stall', afterHeaders: true })));
    const asked = markWhenAsked(1);
    const { report } = await runEmacs(String.raw`
        (goto-char (point-min))
        (search-forward "async load")
        (goto-char (match-beginning 0))
        (pick-code-action (lambda (offered) (seq-find (lambda (title) (string-match-p "Document.*gpt-4o-mini" title)) offered)))
        (wait "the model's request" (lambda () (file-exists-p "${asked}")))
        ;; What the echo area shows while the model works (batch Emacs has no echo area to read back).
        (wait "the progress" (lambda () (and assistant-ls--progress-shown (string-match-p "gpt-4o-mini: [0-9]+ s" assistant-ls--progress-shown))))
        (push (cons 'progressShown assistant-ls--progress-shown) report)
        (call-interactively #'assistant-ls-cancel)
        (wait "the progress to end" (lambda () (null assistant-ls--progress-shown)))`);
    const { progressShown } = report as Report & { progressShown: string };
    // The seconds the lone agent has worked, as the server counts them, and how to stop it: no percentage, which
    // would stand at one figure for the whole answer.
    expect(progressShown).toMatch(/^assistant-ls: Assistant: document ConfigStore\.load: gpt-4o-mini: \d+ s \(M-x assistant-ls-cancel stops it\)$/);
    // Only the first line is kept in *Messages*: the updates replace each other in the echo area.
    expect(report.messages.split('\n').filter((line) => line.startsWith('assistant-ls: Assistant: document ConfigStore.load'))).toEqual([
      'assistant-ls: Assistant: document ConfigStore.load (M-x assistant-ls-cancel stops it)',
    ]);
    expect(report.messages).toContain('assistant-ls: cancelling Assistant: document ConfigStore.load');
  }, 100_000);

  it('M-x assistant-ls-cancel stops the cancellable progress Eglot received (as Eglot 1.10 and later receive it)', async (ctx) => {
    requireEmacs(ctx);
    // The notifications are handed to Eglot here, as its connection would, two at once: the cancel must reach the
    // server for the one still running.
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
