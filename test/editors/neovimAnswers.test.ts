// Text answers in the real Neovim: a workspace question, Explain from the code-action menu and "explain this function" shown whole, their places in the quickfix list.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR, readInteractions as interactions, runScenario as runNvim, skipNvim, skipReason } from './harness/neovim.js';
import type { Run } from './harness/neovim.js';

/** What the user sees in the answer window, as the scenario reads it (T.answer_view). */
interface AnswerView {
  name: string;
  filetype: string;
  buftype: string;
  lines: string[];
  focused: boolean;
}

/** Runs one scenario in `nvim --headless` on `file` of a fresh copy of `fixture`, the offline agents answering. */
function runScenario(fixture: string, file: string, scenario: string, setup = '{}'): Promise<Run> {
  return runNvim(scenario, { fixture, file, setup });
}

function lineOf(workspace: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(workspace, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe.skipIf(skipNvim)(`text answers in headless nvim${skipReason}`, () => {
  it(':AssistantAsk "where is the retry logic implemented?" shows the ranked places, and <CR> in the quickfix list jumps to withRetry', async () => {
    const question = 'where is the retry logic implemented?';
    const { result, workspace } = await runScenario(
      'question',
      'src/main.ts',
      `
    T.pick(nil)
    vim.cmd('AssistantAsk ${question}')
    T.wait_answer()
    R.data.answer = T.answer_view()
    -- The user goes to the list of places, onto withRetry, and presses Enter.
    vim.cmd('copen')
    local index
    for i, item in ipairs(vim.fn.getqflist()) do if item.text == 'function withRetry' then index = i end end
    if not index then error('no withRetry in the quickfix list') end
    vim.api.nvim_win_set_cursor(0, { index, 0 })
    vim.cmd('exe "normal! \\\\<CR>"')
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    R.data.jumped = { file = vim.api.nvim_buf_get_name(0), row = row, col = col, line = vim.api.nvim_get_current_line() }
`,
    );
    // One text answer: shown at once, no picker.
    expect(result.selects).toEqual([]);
    const answer = result.data.answer as AnswerView;
    const recorded = interactions(workspace).find((i) => i.text === question)!;
    expect(recorded.task).toBe('question');
    // Shown by the plugin, which told the server: the trace records the answer as used.
    expect(recorded.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
    const text = recorded.responses[0]!.text;
    // Beside the code, which keeps the cursor.
    expect(answer).toMatchObject({ name: expect.stringMatching(/assistant-ls:\/\/answer$/), filetype: 'markdown', buftype: 'nofile', focused: false });
    // The whole answer, nothing cut.
    expect(answer.lines).toEqual([`# Question: ${question}`, '', ...text.split('\n')]);
    // The quickfix list holds the ranked places in the answer's order.
    const ranked = text.split('\n').filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/^\d+\. /, ''));
    expect(result.quickfixTitle).toBe(`Assistant: Question: ${question}`);
    expect(result.quickfix.map((e) => `${path.relative(fs.realpathSync(workspace), fs.realpathSync(e.filename))}:${e.lnum} — ${e.text}`)).toEqual(ranked);
    // Enter on withRetry put the cursor on its name in src/retry.ts, and the answer stayed open beside it.
    const jumped = result.data.jumped as { file: string; row: number; col: number; line: string };
    expect(fs.realpathSync(jumped.file)).toBe(fs.realpathSync(path.join(workspace, 'src', 'retry.ts')));
    expect(jumped.row).toBe(lineOf(workspace, 'src/retry.ts', 'export async function withRetry'));
    expect(jumped.line.slice(jumped.col)).toMatch(/^withRetry</);
    expect(result.windows.some((w) => w.endsWith('assistant-ls://answer')), JSON.stringify(result.windows)).toBe(true);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });

  it(':AssistantTrace! lists a workspace question at the first place its answer cites, and <CR> opens it there; one that cites nothing leads to where it was asked', async () => {
    const { result, workspace } = await runScenario(
      'question',
      'src/main.ts',
      `
    T.pick(nil)
    T.cursor_on('const config')
    vim.cmd('AssistantAsk where is the zebra quaternion flux computed?')
    T.wait_notified('matches')
    vim.cmd('AssistantAsk where is the retry delay computed?')
    T.wait_answer()
    T.trace(true)
    -- In the list, onto the question, and Enter.
    vim.cmd('copen')
    local index
    for i, item in ipairs(vim.fn.getqflist()) do if item.text:find('retry delay', 1, true) then index = i end end
    if not index then error('no question in the quickfix list') end
    vim.api.nvim_win_set_cursor(0, { index, 0 })
    vim.cmd('exe "normal! \\\\<CR>"')
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    R.data.jumped = { file = vim.api.nvim_buf_get_name(0), row = row, col = col, line = vim.api.nvim_get_current_line() }
`,
    );
    const asked = interactions(workspace).find((i) => i.text === 'where is the retry delay computed?')!;
    const cited = asked.responses[0]!.locations!;
    expect(cited[0]).toMatchObject({ label: 'function backoffDelay' });
    const delayLine = lineOf(workspace, 'src/retry.ts', 'export function backoffDelay');
    const [question, unanswered] = result.quickfix.map((e) => ({ ...e, text: e.text.replace(/ \S+ \[\w+\]$/, ''), file: path.relative(fs.realpathSync(workspace), fs.realpathSync(e.filename)) }));
    // Not line 1 of main.ts, which it is not about: backoffDelay, and the entry says that is what the answer cites.
    expect(question).toMatchObject({ file: 'src/retry.ts', lnum: delayLine, valid: 1, text: `question "where is the retry delay computed?" by question-offline (used) cites function backoffDelay (+${cited.length - 1} more)` });
    // Its answer cites nothing: the file it was asked in, saying so.
    expect(unanswered).toMatchObject({ file: 'src/main.ts', lnum: 1, valid: 1, text: 'question "where is the zebra quaternion flux computed?" by question-offline (no answer) asked here, cites nothing' });
    // Enter on the question: the cursor on backoffDelay's name in src/retry.ts.
    const jumped = result.data.jumped as { file: string; row: number; col: number; line: string };
    expect(fs.realpathSync(jumped.file)).toBe(fs.realpathSync(path.join(workspace, 'src', 'retry.ts')));
    expect(jumped.row).toBe(delayLine);
    expect(jumped.line.slice(jumped.col)).toMatch(/^backoffDelay\(/);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });

  it('Explain from the code-action menu shows the whole explanation in a split that the progress "done" leaves in place', async () => {
    const { result, workspace } = await runScenario(
      'explain',
      'src/parser.ts',
      `
    T.cursor_on('parseEntries(text')
    T.pick('Explain function parseEntries')
    vim.lsp.buf.code_action()
    T.wait_answer()
    T.wait('the end of the progress', function()
      for _, p in ipairs(R.progress) do if p:find(': done$') then return true end end
      return false
    end)
    -- What is on screen once the progress has ended.
    vim.wait(200)
    R.data.answer = T.answer_view()
`,
      '{ settings = { progress = { showAfterMs = 0 } } }',
    );
    expect(result.selects[0]!.picked).toMatch(/Assistant: Explain function parseEntries/);
    const recorded = interactions(workspace).find((i) => i.task === 'explain')!;
    const response = recorded.responses[0]!;
    expect(response).toMatchObject({ used: true, outcome: 'shown' });
    const answer = result.data.answer as AnswerView;
    expect(answer.lines).toEqual(['# Explain parseEntries', '', ...response.text.split('\n')]);
    expect(answer.lines.join('\n')).toContain('cyclomatic complexity 6');
    // The explanation is long: a message would have been cut; the split has every line.
    expect(response.text.length).toBeGreaterThan(500);
    expect(result.progress.at(-1)).toMatch(/: done$/);
    // Its places: the function explained, then where it is used.
    expect(result.quickfix[0]).toMatchObject({ lnum: lineOf(workspace, 'src/parser.ts', 'export function parseEntries'), text: 'function parseEntries (explained)' });
    expect(result.quickfix.map((e) => [path.basename(e.filename), e.lnum, e.text])).toEqual(expect.arrayContaining([['main.ts', 5, 'used by countKeys']]));
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });

  it(':AssistantAsk "explain this function" with the cursor inside parseConfig explains parseConfig', async () => {
    const { result, workspace } = await runScenario(
      'basic',
      'src/config.ts',
      `
    T.pick(nil)
    T.cursor_on('const timeoutMs = raw')
    vim.cmd('AssistantAsk explain this function')
    T.wait_answer()
    R.data.answer = T.answer_view()
`,
    );
    expect(result.selects).toEqual([]);
    const answer = result.data.answer as AnswerView;
    expect(answer.lines[0]).toBe('# Explain: explain this function');
    expect(answer.lines[2]).toMatch(/^\*\*function `parseConfig`\*\* in `src\/config\.ts`/);
    const recorded = interactions(workspace).find((i) => i.text === 'explain this function')!;
    expect(recorded).toMatchObject({ task: 'explain', context: { symbol: 'parseConfig' } });
    expect(answer.lines.slice(2)).toEqual(recorded.responses[0]!.text.split('\n'));
    expect(result.quickfix[0]).toMatchObject({ lnum: 10, col: 'export function '.length + 1, text: 'function parseConfig (explained)' });
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });
});
