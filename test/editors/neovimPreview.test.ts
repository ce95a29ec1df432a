// The preview in real headless Neovim: a Document code action shows its diff in a split; q discards it, a applies it, and nothing is saved.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE, readInteractions as interactions, runScenario, skipNvim as skip, skipReason } from './harness/neovim.js';
import type { Run } from './harness/neovim.js';

/** nvim start to exit; below vitest's limit of the test. */
const SCENARIO_TIMEOUT_MS = 40_000;

/** What the preview window showed when it opened, recorded by a timer while the plugin waits for the key. */
interface Shown {
  lines: string[];
  filetype: string;
  windows: number;
  current: boolean;
  /** The buffer's text then: the edit has not landed. */
  sourceText: string;
  /** Whether the trace on disk already had an outcome for the response: it must not, the server is still waiting. */
  outcomeOnDisk: boolean;
}

/**
 * The user's journey: the code-action menu on parseConfig, pick Document, look at the diff, press `q`; again, and
 * press `a`. Keys reach the plugin as typed keys (nvim_input) from a timer that first records what the window shows.
 */
const JOURNEY = `
R.data.shown = {}
R.data.afterDiscard = ''
local keys = { 'q', 'a', 'd' }
local function watch()
  local timer = uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      local buf = vim.api.nvim_win_get_buf(win)
      if vim.bo[buf].filetype == 'diff' and not timer:is_closing() then
        timer:stop()
        timer:close()
        local on_disk = false
        for _, file in ipairs(vim.fn.glob('.assistant/trace/*/segment-*.json*', false, true)) do
          if table.concat(vim.fn.readfile(file), '\\n'):find('"outcome"') then on_disk = true end
        end
        table.insert(R.data.shown, {
          lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
          filetype = vim.bo[buf].filetype,
          windows = #vim.api.nvim_list_wins(),
          current = vim.api.nvim_get_current_win() == win,
          sourceText = T.text(),
          outcomeOnDisk = on_disk,
        })
        vim.api.nvim_input(table.remove(keys, 1))
        return
      end
    end
  end))
end
local function trace_has(pattern)
  for _, file in ipairs(vim.fn.glob('.assistant/trace/*/segment-*.json*', false, true)) do
    if table.concat(vim.fn.readfile(file), '\\n'):find(pattern) then return true end
  end
  return false
end

T.cursor_on('parseConfig(text')
T.pick('Document')
watch()
vim.lsp.buf.code_action()
T.wait('the discard in the trace', function() return trace_has('"outcome": *"discarded"') end)
R.data.afterDiscard = T.text()

T.cursor_on('parseConfig(text')
watch()
vim.lsp.buf.code_action()
T.wait('the doc comment', function() return T.text():find('@param text', 1, true) ~= nil end)
T.wait('the used response in the trace', function() return trace_has('"used": *true') end)

-- :AssistantAsk goes through the same preview; d discards it too.
T.cursor_on('async load')
vim.ui.select = function(items, opts, on_choice) on_choice(items[1]) end
watch()
vim.cmd('AssistantAsk write documentation for the load method')
-- The second note of a discard: the preview says so for the code action's too.
T.wait_notified('discarded', 2)
R.data.windowsAfter = #vim.api.nvim_list_wins()
`;

/** The preview split has the cursor when a step ends: the user goes back to the code before moving in it. */
const HELPERS = `
local cursor_on = T.cursor_on
function T.cursor_on(needle)
  vim.api.nvim_set_current_buf(source_buf)
  cursor_on(needle)
end
`;

function runJourney(): Promise<Run> {
  return runScenario(JOURNEY, { setup: "{ settings = { preview = 'always' } }", helpers: HELPERS, timeoutMs: SCENARIO_TIMEOUT_MS });
}

describe.skipIf(skip)(`the Neovim client's preview${skipReason}`, () => {
  it('shows the Document edit as a diff in a split; q discards it (traced as discarded), a applies it to the buffer, unsaved; an asked answer too', async () => {
    const { result, workspace, original } = await runJourney();
    expect(result.data.shown).toHaveLength(3);
    const [first, second, asked] = result.data.shown as [Shown, Shown, Shown];
    // The diff, titled with the task and the agent, the keys shown, in a split of its own that has the cursor.
    expect(first.filetype).toBe('diff');
    expect(first.windows).toBe(2);
    expect(first.current).toBe(true);
    expect(first.lines.slice(0, 2)).toEqual(['# Assistant: document parseConfig (by doc-offline (rule))', '# a or <Enter>: apply   q or d: discard   j k <C-d> <C-u> g G: scroll']);
    expect(first.lines.slice(2, 4)).toEqual(['--- a/src/config.ts', '+++ b/src/config.ts']);
    expect(first.lines[4]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/);
    const added = first.lines.filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    expect(added[0]).toBe('+/**');
    expect(added).toContainEqual(expect.stringMatching(/^\+ \* @param text /));
    expect(added).toContain('+ */');
    expect(first.lines.filter((l) => l.startsWith('-') && !l.startsWith('---'))).toEqual([]);
    // While the diff is shown, nothing has landed and the server has recorded no outcome: it waits for the choice.
    expect(first.sourceText).toBe(original);
    expect(first.outcomeOnDisk).toBe(false);

    // q: discarded, and said; the buffer is as it was, the split is gone, and no warning or error was shown.
    expect(result.data.afterDiscard).toBe(original);
    expect(result.notifications.filter((n) => n.level >= 3)).toEqual([]);
    const [discarded, used] = interactions(workspace).filter((i) => i.task === 'document');
    expect(discarded!.responses[0]).toMatchObject({ used: false, outcome: 'discarded' });

    // a: the same diff again (but for the new interaction's id and time), then the comment in the buffer, recorded as
    // used; the file on disk is untouched.
    const sameBut = (lines: string[]) => lines.map((l) => l.replace(/interaction=\S+ at=\S+/, 'interaction=… at=…'));
    expect(sameBut(second.lines)).toEqual(sameBut(first.lines));
    expect(result.text).toMatch(/\/\*\*\n \* [^\n]+\n(?: \*[^\n]*\n)* \* @param text [^\n]*\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\nexport function parseConfig\(/);
    expect(result.modified).toBe(true);
    expect(result.data.windowsAfter).toBe(1);
    expect(used!.responses[0]).toMatchObject({ used: true, outcome: 'applied' });
    expect(fs.readFileSync(path.join(workspace, FILE), 'utf8')).toBe(original);

    // The ask's answer, previewed the same way and discarded with d: noted, not warned of; the load method is as it was.
    expect(asked.lines[0]).toBe('# Assistant: document ConfigStore.load (by doc-offline (rule))');
    expect(result.text).toContain('  constructor(private readonly path: string) {}\n\n  async load(): Promise<Config> {');
    // Once for the code action's discard, once for the ask's: the preview says it, the ask's result does not again.
    expect(result.notifications.filter((n) => n.message === 'assistant-ls: discarded; nothing changed')).toEqual([
      { message: 'assistant-ls: discarded; nothing changed', level: 2 },
      { message: 'assistant-ls: discarded; nothing changed', level: 2 },
    ]);
    expect(result.notifications.filter((n) => n.level >= 3)).toEqual([]);
    expect(interactions(workspace).find((i) => i.source === 'text')!.responses[0]).toMatchObject({ used: false, outcome: 'discarded' });
  }, 60_000);
});
