// Answers a model sends while the user types, in headless Neovim: no picker takes the typed keys, the answers wait for :AssistantAnswers, and choosing there applies one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { ERROR, INFO, TYPING, lua, nvimProbe, readInteractions, runScenario, skipNvim, skipReason } from './harness/neovim.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

/** setup() with the scripted endpoint as the model agent `gpt-4o-mini` beside the offline agents. */
function setupWithModel(): string {
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  return `{ settings = { useEnvironment = false, agents = { { name = ${lua(agent.name!)}, baseURL = ${lua(agent.baseURL!)}, apiKey = 'sk-test', model = 'gpt-4o-mini', tasks = { 'document' } } } } }`;
}

/**
 * `T.type(key, steps)` (the harness's `TYPING`) types as a user does while nvim waits. `T.opened` counts the pickers opened: Neovim's own
 * vim.ui.select (inputlist), counted, so a picker opened over the typing would take the keys as it would a user's.
 */
const HELPERS = `
T.opened = 0
local own_select = vim.ui.select
vim.ui.select = function(...)
  T.opened = T.opened + 1
  return own_select(...)
end
${TYPING}function T.arrived()
  return T.notified('AssistantAnswers') ~= nil or T.opened > 0
end
function T.messages()
  return vim.tbl_map(function(n) return n.message end, R.notifications)
end
`;

/** What the user types on a new line at the end of the file while the model works: a ':' and a digit, which a picker would have taken. */
const TYPED = '// typed while waiting: 1 more';

const newer = !/^NVIM v0\.[789]\./.test(nvimProbe.stdout ?? '');

describe.skipIf(skipNvim)(`answers that come while the user types, in Neovim${skipReason}`, () => {
  it(':AssistantAsk answered while the user types in Insert mode: the keys go into the buffer, the answers wait for :AssistantAnswers, which applies the one picked', async () => {
    // The offline answer comes at once; the model's a second and a half later, while the user types.
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 1500 })));
    const { result, workspace, original } = await runScenario(
      `
    T.cursor_on('async load')
    vim.cmd('AssistantAsk write documentation for the load method')
    -- The user goes on at once: a new line at the end of the file, typed before the answers come and after.
    vim.cmd('normal! G')
    local typed = ${lua(TYPED)}
    T.type('o', {
      { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input(typed:sub(1, 22)) end },
      { 'the answers', T.arrived, function()
        R.data.arrived = { opened = T.opened, mode = vim.api.nvim_get_mode().mode }
        vim.api.nvim_input(typed:sub(23) .. '<Esc>')
      end },
    })
    R.data.typed = { text = T.text(), opened = T.opened, messages = T.messages() }
    -- Back in Normal mode and idle: the word is said again, once.
    vim.cmd('doautocmd CursorHold')
    vim.cmd('doautocmd CursorHold')
    R.data.reminders = T.count_notified('AssistantAnswers to choose$')
    T.pick('gpt-4o-mini')
    vim.cmd('AssistantAnswers')
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
    T.run('AssistantAnswers', 'no answers are waiting')
`,
      { setup: setupWithModel(), helpers: HELPERS },
    );
    const typed = result.data.typed as { text: string; opened: number; messages: string[] };
    // The answers came while the user was in Insert mode, and no picker opened: every key went into the buffer.
    expect(result.data.arrived).toEqual({ opened: 0, mode: 'i' });
    expect(typed.opened).toBe(0);
    expect(typed.text).toBe(`${original}${TYPED}\n`);
    // Nothing applied or discarded by those keys; one line says what waits and how to choose.
    const waiting = 'assistant-ls: 2 answers for "write documentation for the load method" are ready: :AssistantAnswers to choose';
    expect(typed.messages).toEqual([`${waiting} (arrived while you were typing)`]);
    expect(result.data.reminders).toBe(1);
    expect(result.notifications[1]).toEqual({ message: waiting, level: INFO });
    // :AssistantAnswers opened the picker with both answers; the model's was picked and applied, the typed line kept.
    expect(result.selects).toHaveLength(1);
    expect(result.selects[0]!.labels).toEqual([expect.stringMatching(/^doc-offline: /), 'gpt-4o-mini: Loads the configuration from disk once and caches it.', 'Discard']);
    expect(result.text).toContain(LOAD_DOC.split('\n')[1]);
    expect(result.text.endsWith(`${TYPED}\n`)).toBe(true);
    expect(result.notifications.map((n) => n.message).filter((m) => /discarded/.test(m))).toEqual([]);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
    const interaction = readInteractions(workspace).find((i) => i.source === 'text');
    expect(interaction!.responses.map((r) => [r.agent.name, r.used])).toEqual([
      ['doc-offline', false],
      ['gpt-4o-mini', true],
    ]);
  });

  // Before 0.10 a handler of a server request answers at once (Neovim's own asks with inputlist()).
  it.skipIf(!newer)(':AssistantDocument whose server question comes after the user typed and went back to Normal mode waits for :AssistantAnswers', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 2500 })));
    const { result, original } = await runScenario(
      `
    T.cursor_on('async load')
    vim.cmd('AssistantDocument')
    vim.cmd('normal! G')
    T.type('o', {
      { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input(${lua(TYPED)} .. '<Esc>') end },
    })
    R.data.typed = { text = T.text(), arrived = T.arrived() }
    -- Idle in Normal mode when the question comes: the keys typed since asking say the user moved on.
    T.wait('the answers', T.arrived)
    R.data.waiting = { opened = T.opened, messages = T.messages() }
    T.pick('Use gpt-4o-mini')
    vim.cmd('AssistantAnswers')
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
`,
      { setup: setupWithModel(), helpers: HELPERS },
    );
    expect(result.data.typed).toEqual({ text: `${original}${TYPED}\n`, arrived: false });
    expect(result.data.waiting).toEqual({ opened: 0, messages: ['assistant-ls: 2 answers for ConfigStore.load are ready: :AssistantAnswers to choose (arrived while you were typing)'] });
    expect(result.selects).toHaveLength(1);
    expect(result.selects[0]!.labels).toEqual(['Use doc-offline', 'Use gpt-4o-mini', 'Discard']);
    expect(result.text).toContain(LOAD_DOC.split('\n')[1]);
    expect(result.text.endsWith(`${TYPED}\n`)).toBe(true);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });
});
