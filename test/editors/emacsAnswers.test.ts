// Text answers in the real Emacs with Eglot: a workspace question, Explain from the code actions and "explain this function", shown whole, their places through xref.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { TASK_IDS } from '../../protocol/src/index.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { endTerminals, readInteractions as interactions, requireEmacs, runEmacs, terminalEmacs, terminalInit } from './harness/emacs.js';
import type { BaseReport } from './harness/emacs.js';

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

interface Report extends BaseReport {
  xref?: string;
  trace?: string;
  jumped?: [string, number, number, string];
  offered?: string[];
  shown?: [boolean, boolean];
}

/** Runs the scenario once FILE of a fresh copy of the fixture is open and Eglot manages it; the answer buffer is reported after it. */
async function run(ctx: TestContext, fixture: string, file: string, scenario: string): Promise<{ report: Report; root: string }> {
  requireEmacs(ctx);
  const { report, root } = await runEmacs<Report>(scenario, { fixture, file });
  expect(report.managed).toBe(true);
  return { report, root };
}

function lineOf(root: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

const models: ScriptedModel[] = [];
afterEach(async () => {
  endTerminals();
  await Promise.all(models.splice(0).map((model) => model.close()));
});

describe('text answers in Emacs (eglot)', () => {
  it('assistant-ls-ask "where is the retry logic implemented?" shows the ranked places in *assistant-ls answer* and xref, and RET jumps to withRetry', async (ctx) => {
    const question = 'where is the retry logic implemented?';
    const { report, root } = await run(
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
    // Shown by assistant-ls.el, which told the server: the trace records the answer as used.
    expect(recorded.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
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

  it('C-u M-x assistant-ls-trace lists a workspace question leading to the first place its answer cites, and RET there opens it; one citing nothing leads to where it was asked', async (ctx) => {
    const { report, root } = await run(
      ctx,
      'question',
      'src/main.ts',
      String.raw`
      (goto-char (point-min))
      (search-forward "const config")
      (let ((completing-read-function (lambda (&rest _) (error "nothing to choose from was expected"))))
        (assistant-ls-ask "where is the zebra quaternion flux computed?")
        (assistant-ls-ask "where is the retry delay computed?"))
      (let ((current-prefix-arg '(4)))
        (call-interactively #'assistant-ls-trace))
      (with-current-buffer "*assistant-ls trace*"
        (push (cons 'trace (buffer-substring-no-properties (point-min) (point-max))) report)
        (select-window (get-buffer-window (current-buffer)))
        (goto-char (point-min))
        (search-forward "Leads to: src/retry.ts")
        (push-button)
        (push (cons 'jumped (list (buffer-file-name) (line-number-at-pos) (current-column)
                                  (buffer-substring-no-properties (point) (line-end-position))))
              report))`,
    );
    const asked = interactions(root).find((i) => i.text === 'where is the retry delay computed?')!;
    const cited = asked.responses[0]!.locations!;
    expect(cited[0]).toMatchObject({ label: 'function backoffDelay' });
    const delayLine = lineOf(root, 'src/retry.ts', 'export function backoffDelay');
    // The newest interactions, each saying where it leads: not line 1 of main.ts, which the question is not about.
    expect(report.trace).toMatch(/^The newest interactions\n/);
    const [question, unanswered] = report.trace!.split(/\n(?=Interaction )/).slice(1);
    expect(question).toContain('Asked: where is the retry delay computed?');
    expect(question).toContain(`\n  Leads to: src/retry.ts:${delayLine}, cites function backoffDelay (+${cited.length - 1} more)\n`);
    expect(unanswered).toContain('Asked: where is the zebra quaternion flux computed?');
    expect(unanswered).toContain('\n  Leads to: src/main.ts, asked here, cites nothing\n');
    // RET on it: point on backoffDelay's name in src/retry.ts.
    const [file, line, column, rest] = report.jumped!;
    expect(fs.realpathSync(file)).toBe(fs.realpathSync(path.join(root, 'src', 'retry.ts')));
    expect(line).toBe(delayLine);
    expect(column).toBe('export function '.length);
    expect(rest).toMatch(/^backoffDelay\(/);
  }, 100_000);

  it('Explain from eglot-code-actions shows the whole explanation and its places', async (ctx) => {
    const { report, root } = await run(
      ctx,
      'explain',
      'src/parser.ts',
      String.raw`
      (goto-char (point-min))
      (search-forward "parseEntries(text")
      (goto-char (match-beginning 0))
      (pick-code-action (lambda (_offered) "Assistant: Explain function parseEntries"))
      ;; The action's command runs without waiting (a task may outlast Eglot's 10 s): the answer comes when it is done.
      (wait "the explanation's places" (lambda () (get-buffer "*xref*")))
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

  it('eglot-code-actions with point on the keyword "export" offers and explains the function, not the word', async (ctx) => {
    // With no region Eglot sends the sexp at point as the range: here the word `export`, where M-g g leaves point.
    const { report, root } = await run(
      ctx,
      'explain',
      'src/parser.ts',
      String.raw`
      (goto-char (point-min))
      (search-forward "export function parseEntries")
      (goto-char (line-beginning-position))
      ;; Whatever Explain is offered, so that a wrong one shows in the report rather than as an error.
      (pick-code-action (lambda (offered) (seq-find (lambda (title) (string-prefix-p "Assistant: Explain" title)) offered)))
      (wait "the explanation's places" (lambda () (get-buffer "*xref*")))`,
    );
    expect(report.offered).toContain('Assistant: Explain function parseEntries');
    expect(report.offered).not.toContain('Assistant: Explain the selection');
    const recorded = interactions(root).find((i) => i.task === 'explain')!;
    expect(recorded).toMatchObject({ context: { symbol: 'parseEntries' } });
    expect(report.answer).toContain('**function `parseEntries`** in `src/parser.ts`');
  }, 100_000);

  it('assistant-ls-ask "explain this function" with point inside parseConfig and no region explains parseConfig', async (ctx) => {
    const { report, root } = await run(
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

  it('M-x assistant-ls-ask in a terminal: once the answer is on screen, the echo area no longer says "asking..."', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    const root = copyFixture('question');
    const term = await terminalEmacs({ root, init: terminalInit(root), file: 'src/main.ts' });
    term.keys('M-x');
    term.type('assistant-ls-ask');
    term.keys('Enter');
    term.type('where is the retry logic implemented?');
    term.keys('Enter');
    // Emacs first hints at a key for the command (suggest-key-bindings) for a while.
    await term.screenShowing('the answer', '*assistant-ls answer*', 'You can run the command');
    // Past any redraw of the echo area that follows.
    await new Promise((r) => setTimeout(r, 1_000));
    const screen = term.screen();
    expect(screen).not.toContain('asking...');
    expect(screen.replace(/\n$/, '').split('\n').at(-1)!.trimEnd()).toBe('assistant-ls: answer shown in *assistant-ls answer*');
  }, 100_000);

  it('M-x assistant-ls-ask answered while M-x hints at a shorter way to call it: the outcome stays, not "asking..."', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    const model = await startScriptedModel();
    models.push(model);
    const answer = 'The retry logic is `withRetry` in src/retry.ts:1.';
    const classifierNumber = String(TASK_IDS.indexOf('question') + 1);
    // With `suggest-key-bindings` at 8, M-x covers the echo area with its hint from 8 s after the command to 16 s, then
    // puts back the line it covered. The model answers 8 s after it is asked (about 2 s after the command): under the hint.
    model.setDefault({
      kind: 'dynamic',
      respond: (request) => (JSON.stringify(request.body.messages).includes('None of the above') ? { kind: 'text', content: classifierNumber } : { kind: 'text', content: answer, chunkSize: 1000, delayMs: 8000 }),
    });
    const root = copyFixture('question');
    const agent = `(:name "scripted-question" :baseURL "${model.baseURL}" :apiKey "sk-test" :model "scripted-question" :tasks ["question"])`;
    // The model's answer alone, so that it is shown at once; and the hint, which the other journeys turn off.
    const configuration = `(:useEnvironment :json-false :disabledAgents ["question-offline"] :agents [${agent}] :completion (:enabled :json-false))`;
    const term = await terminalEmacs({ root, init: `${terminalInit(root, configuration)}(setq suggest-key-bindings 8)\n`, file: 'src/main.ts' });
    term.keys('M-x');
    term.type('assistant-ls-ask');
    term.keys('Enter');
    term.type('where is the retry logic implemented?');
    term.keys('Enter');
    const asked = Date.now();
    await term.screenShowing('the hint', 'You can run the command');
    await term.screenShowing('the answer', answer);
    const answered = Date.now() - asked;
    // The answer came while the hint was shown, or the journey shows nothing.
    expect(answered).toBeGreaterThan(8_000);
    expect(answered).toBeLessThan(16_000);
    // Past the end of the hint, and past the moment the outcome is said again.
    await new Promise((r) => setTimeout(r, Math.max(16_000 - answered, 0) + 9_000));
    const screen = term.screen();
    expect(screen).not.toContain('You can run the command');
    expect(screen.replace(/\n$/, '').split('\n').at(-1)!.trimEnd()).toBe('assistant-ls: answer shown in *assistant-ls answer*');
  }, 100_000);
});
