// Edits that a model sends while the user types, in headless Neovim: the preview takes none of the typed keys (an `a` among them applies nothing), the edit waits for :AssistantAnswers and `a` there applies it; an edit not previewed lands as an undo step of its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { ERROR, TYPING, lua, nvimProbe, readInteractions, runScenario, skipNvim, skipReason } from './harness/neovim.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

/** The model agent `gpt-4o-mini` alone on Document (one answer, so no question), every edit previewed (or, with `preview`, as that setting says). */
function setupWithModel(preview = 'always'): string {
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  return `{ settings = { useEnvironment = false, preview = ${lua(preview)}, disabledAgents = { 'doc-offline' }, agents = { { name = ${lua(agent.name!)}, baseURL = ${lua(agent.baseURL!)}, apiKey = 'sk-test', model = 'gpt-4o-mini', tasks = { 'document' } } } } }`;
}

/**
 * `T.type(key, steps)` (the harness's `TYPING`) types as a user does while nvim waits. `T.previewing()`: a
 * preview window is open (its diff), so the plugin reads keys for it. `T.accept_preview()`: presses `a` once the
 * preview shows, as the user who looked at it.
 */
const HELPERS = `
${TYPING}function T.previewing()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.bo[vim.api.nvim_win_get_buf(win)].filetype == 'diff' then return true end
  end
  return false
end
function T.arrived()
  return T.notified('AssistantAnswers') ~= nil or T.previewing()
end
function T.messages()
  return vim.tbl_map(function(n) return n.message end, R.notifications)
end
function T.accept_preview()
  local timer = uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function()
    if T.previewing() and not timer:is_closing() then
      timer:stop()
      timer:close()
      R.data.previewed = true
      vim.api.nvim_input('a')
    end
  end))
end
function T.trace_has(pattern)
  for _, file in ipairs(vim.fn.glob('.assistant/trace/*/segment-*.json*', false, true)) do
    if table.concat(vim.fn.readfile(file), '\\n'):find(pattern) then return true end
  end
  return false
end
`;

/** Typed on a new line at the end of the file, in two halves: before the edit comes and after; the second has the `a` that applies a preview. */
const TYPED = ['// typed while waiting', ': a late key'] as const;

const older = /^NVIM v0\.[789]\./.test(nvimProbe.stdout ?? '');

describe.skipIf(skipNvim)(`an edit to preview that comes while the user types, in Neovim${skipReason}`, () => {
  it(':AssistantDocument whose edit comes while the user types: no preview takes the keys, the edit waits for :AssistantAnswers, and a there applies it', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 2000 })));
    const { result, workspace, original } = await runScenario(
      `
    T.cursor_on('async load')
    vim.cmd('AssistantDocument')
    vim.cmd('normal! G')
    T.type('o', {
      { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input(${lua(TYPED[0])}) end },
      { 'the edit', T.arrived, function()
        R.data.arrived = { previewing = T.previewing(), mode = vim.api.nvim_get_mode().mode }
        vim.api.nvim_input(${lua(TYPED[1])} .. '<Esc>')
      end },
    })
    R.data.typed = { text = T.text(), previewing = T.previewing(), messages = T.messages(), used = T.trace_has('"used": *true') }
    T.accept_preview()
    vim.cmd('AssistantAnswers')
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
    T.wait('the used response in the trace', function() return T.trace_has('"used": *true') end)
    T.run('AssistantAnswers', 'no answers are waiting')
`,
      { setup: setupWithModel(), helpers: HELPERS },
    );
    const typed = result.data.typed as { text: string; previewing: boolean; messages: string[]; used: boolean };
    // The edit came while the user was in Insert mode; no preview opened, so every key (the `a` too) went into the
    // buffer and nothing was applied.
    expect(typed.text).toBe(`${original}${TYPED.join('')}\n`);
    expect(typed.used).toBe(false);
    expect(result.data.arrived).toEqual({ previewing: false, mode: 'i' });
    expect(typed.previewing).toBe(false);
    // One line names the waiting edit and the command. Before 0.10 the server heard "not applied" at once and said why.
    const waiting = 'assistant-ls: an edit for "document ConfigStore.load" is waiting: :AssistantAnswers to see it (arrived while you were typing)';
    expect(typed.messages).toEqual(
      older
        ? ['assistant-ls: The editor did not apply the edit: it came while you were typing, so it was not shown and nothing changed; the answer stays in the trace.', waiting]
        : [waiting],
    );
    // :AssistantAnswers opened the preview, `a` applied it on the text as typed; the typed line is kept.
    expect(result.data.previewed).toBe(true);
    expect(result.text).toContain(LOAD_DOC.split('\n')[1]);
    expect(result.text.endsWith(`${TYPED.join('')}\n`)).toBe(true);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
    expect(result.notifications.map((n) => n.message).filter((m) => /discarded/.test(m))).toEqual([]);
    const interaction = readInteractions(workspace).find((i) => i.task === 'document');
    expect(interaction!.responses.map((r) => [r.agent.name, r.used, r.outcome])).toEqual([['gpt-4o-mini', true, 'applied']]);
  });

  it('an edit not previewed that lands while the user types in Insert mode is an undo step of its own: u takes back neither more nor less', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 2000 })));
    const { result, original } = await runScenario(
      `
    T.cursor_on('async load')
    vim.cmd('AssistantDocument')
    vim.cmd('normal! G')
    T.type('o', {
      { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input(${lua(TYPED[0])}) end },
      { 'the edit applied', function() return T.text():find('once and caches it', 1, true) ~= nil end, function()
        R.data.mode = vim.api.nvim_get_mode().mode
        vim.api.nvim_input(${lua(TYPED[1])} .. '<Esc>')
      end },
    })
    -- u until the doc comment is gone: what was typed before it must still be there.
    for steps = 1, 3 do
      vim.cmd('silent normal! u')
      if not T.text():find('once and caches it', 1, true) then
        R.data.gone = { steps = steps, text = T.text() }
        break
      end
    end
`,
      { setup: setupWithModel('multiFile'), helpers: HELPERS },
    );
    // Neovim's own handler applied the edit as it came, in Insert mode, between the two halves typed.
    expect(result.data.mode).toBe('i');
    const gone = result.data.gone as { steps: number; text: string };
    // 0.8 and later take back what was typed after the edit first, then the edit; 0.7 adds that to the undo step of
    // what was typed before, and takes back the edit first. Either way the edit goes alone, not with the typing.
    expect([`${original}${TYPED[0]}\n`, `${original}${TYPED.join('')}\n`]).toContain(gone.text);
    expect(gone.steps).toBeLessThanOrEqual(2);
  });
});
