// :AssistantCheckTypes in the real Neovim: the project's type errors arrive as this client's diagnostics and the count as a message; corrected code loses its error without another run.
import { describe, expect, it } from 'vitest';
import { runScenario, skipNvim, skipReason } from './harness/neovim.js';

describe.skipIf(skipNvim)(`:AssistantCheckTypes in headless nvim${skipReason}`, () => {
  it('shows the error at its line, says how many, and drops it once the user deletes the line and saves', async () => {
    const { result } = await runScenario(
      `
    vim.api.nvim_buf_set_lines(source_buf, -1, -1, false, { 'const wrong: number = "x";' })
    vim.cmd('write')
    T.run('AssistantCheckTypes', 'type errors? in %d+ files?')
    local function errors()
      local lines = {}
      for _, d in ipairs(vim.diagnostic.get(source_buf)) do
        if d.message:find('not assignable', 1, true) then table.insert(lines, (d.lnum + 1) .. ': ' .. d.message) end
      end
      return lines
    end
    T.wait('the published error', function() return #errors() > 0 end)
    R.data.checked = errors()
    vim.api.nvim_buf_set_lines(source_buf, -2, -1, false, {})
    vim.cmd('write')
    T.wait('the error to go', function() return #errors() == 0 end)
    R.data.fixed = #errors()
`,
      { fixture: 'pipelines', file: 'src/cart.ts', timeoutMs: 28_000 },
    );
    expect(result.notifications.map((n) => n.message)).toContainEqual(expect.stringMatching(/^assistant-ls: \d+ type errors? in \d+ files?\./));
    expect(result.data.checked).toEqual([`${result.text.split('\n').length}: Type 'string' is not assignable to type 'number'.`]);
    expect(result.data.fixed).toBe(0);
  }, 30_000);
});
