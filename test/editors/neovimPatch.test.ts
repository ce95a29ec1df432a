// :AssistantApplyPatch in real headless Neovim: a pasted diff over two files previewed and applied, found again by :AssistantTrace!; one from a register that does not fit; one discarded.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INFO, WARN, hasNvim, lua, readInteractions, runScenario, skipNvim, skipReason } from './harness/neovim.js';
import { CART_AND_PRICING_PATCH } from '../support/pipelinePatches.js';

/** nvim start to exit: two previews and a server start; below vitest's limit of the test. */
const SCENARIO_TIMEOUT_MS = 40_000;

/** A diff as a chat would give it, over two files of the pipelines fixture. */
const TWO_FILES = CART_AND_PRICING_PATCH.join('\n');

/** A hunk of the open file and a file to create: two files, so the preview shows it first. */
const ONE_FILE_AND_A_NEW_ONE = [...TWO_FILES.split('\n').slice(0, 11), '--- /dev/null', '+++ b/src/discounts.ts', '@@ -0,0 +1 @@', '+export const DISCOUNTS: Record<string, number> = {};'].join('\n');

/**
 * Answers each preview with the next key, as the user types it, once its diff window shows, and records its lines.
 * The plugin waits for the key inside the server's request, so a timer types it.
 */
const HELPERS = `
R.data.previews = {}
function T.answer_previews(keys)
  local timer = uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      local buf = vim.api.nvim_win_get_buf(win)
      if vim.bo[buf].filetype == 'diff' and #keys > 0 and vim.b[buf].answered == nil then
        vim.b[buf].answered = true
        table.insert(R.data.previews, vim.api.nvim_buf_get_lines(buf, 0, 2, false))
        vim.api.nvim_input(table.remove(keys, 1))
      end
    end
    if #keys == 0 and not timer:is_closing() then timer:stop() timer:close() end
  end))
end
-- The user pastes the diff into a new scratch buffer above the code.
function T.scratch_patch(text)
  vim.cmd('new')
  vim.bo.buftype = 'nofile'
  vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(text, '\\n'))
end
function T.buffer_text(name)
  local bufnr = vim.fn.bufnr(name)
  return bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) and T.text(bufnr) or vim.NIL
end
`;

describe.skipIf(skipNvim)(`:AssistantApplyPatch in Neovim${skipReason}`, () => {
  it('has nvim (CI installs it)', () => {
    expect(hasNvim).toBe(true);
  });

  it('previews a pasted diff over two files, applies it when accepted, and :AssistantTrace! leads to the code it inserted', async () => {
    const { result, workspace, original } = await runScenario(
      `
    T.scratch_patch(${lua(TWO_FILES)})
    T.answer_previews({ 'a' })
    T.run('AssistantApplyPatch', '^assistant%-ls: Applied')
    -- The user closes the scratch buffer and looks for what the assistant did.
    vim.cmd('close')
    R.data.pricing = T.buffer_text('src/pricing.ts')
    T.trace(true)
    -- <CR> on the entry: :cc jumps where it leads.
    vim.cmd('cc 1')
    R.data.jumped = { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1] }
`,
      { fixture: 'pipelines', file: 'src/cart.ts', helpers: HELPERS, timeoutMs: SCENARIO_TIMEOUT_MS },
    );
    // Two files: shown first, applied once accepted, to the buffers only.
    expect(result.data.previews).toEqual([['# Assistant: apply a patch (by pasted-patch (rule))', expect.stringMatching(/^# a or <Enter>: apply/)]]);
    // pricing.ts was not open: the message says it is unsaved in a hidden buffer.
    expect(result.notifications).toEqual([{ message: 'assistant-ls: Applied to src/cart.ts, src/pricing.ts. Unsaved in a hidden buffer: src/pricing.ts (:wa saves it).', level: INFO }]);
    expect(result.text).toContain('  /** Whether the cart has no line. */\n  isEmpty(): boolean {\n    return this.items.length === 0;\n  }');
    expect(result.data.pricing).toContain('  return item.price * item.quantity;\n');
    expect(fs.readFileSync(path.join(workspace, 'src/cart.ts'), 'utf8')).toBe(original);

    // The trace calls it a patch, and its entry leads to the first code it inserted, in that code's own file.
    const [patch] = readInteractions(workspace);
    expect(patch).toMatchObject({ task: 'patch', responses: [{ agent: { name: 'pasted-patch' }, used: true, outcome: 'applied' }] });
    const first = patch!.responses[0]!.insertedAt![0]!;
    const entry = result.quickfix[0]!;
    expect(entry.text).toMatch(/^patch "Apply a pasted patch" by pasted-patch \(used\) \S+ \[\w{8}\]$/);
    expect(entry.valid).toBe(1);
    expect(fs.realpathSync(entry.filename)).toBe(fs.realpathSync(new URL(first.uri)));
    expect(entry.lnum).toBe(first.range.start.line + 1);
    const jumped = result.data.jumped as { file: string; line: number };
    expect(fs.realpathSync(jumped.file)).toBe(fs.realpathSync(entry.filename));
    expect(jumped.line).toBe(entry.lnum);
  }, 60_000);

  it('says why a diff in a register does not fit, applies a range of a buffer at once, and changes nothing when the preview is discarded', async () => {
    const { result, workspace, original } = await runScenario(
      `
    vim.fn.setreg('a', '--- a/src/cart.ts\\n+++ b/src/cart.ts\\n@@ -1,2 +1,2 @@\\n-// A cart for bicycles.\\n+// A cart.\\n import x;\\n')
    T.run('AssistantApplyPatch a', 'not applied')
    -- A one-file diff between other lines of a note: only the range is the patch, and one file needs no preview.
    T.scratch_patch(${lua(['Review notes:', '--- a/src/pricing.ts', '+++ b/src/pricing.ts', '@@ -12 +12 @@', '-  return item.price;', '+  return item.price * item.quantity;', 'Thanks!'].join('\n'))})
    T.run('2,6AssistantApplyPatch', '^assistant%-ls: Applied')
    R.data.pricing = T.buffer_text('src/pricing.ts')
    -- The user looks at a two-file diff and keeps the code as it is.
    vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(${lua(ONE_FILE_AND_A_NEW_ONE)}, '\\n'))
    T.answer_previews({ 'q' })
    T.run('AssistantApplyPatch', 'discarded')
    vim.wait(300)
    R.data.created = T.buffer_text('src/discounts.ts')
    T.trace(true)
`,
      { fixture: 'pipelines', file: 'src/cart.ts', helpers: HELPERS, timeoutMs: SCENARIO_TIMEOUT_MS },
    );
    const [misfit, applied, discard] = result.notifications;
    expect(misfit).toMatchObject({ message: expect.stringMatching(/^assistant-ls: The patch was not applied: .*A cart for bicycles/), level: WARN });
    expect(applied).toEqual({ message: 'assistant-ls: Applied to src/pricing.ts. Unsaved in a hidden buffer: src/pricing.ts (:wa saves it).', level: INFO });
    expect(result.data.pricing).toContain('  return item.price * item.quantity;\n');
    // The discard is said once, by the preview, and nothing changed.
    expect(discard).toEqual({ message: 'assistant-ls: discarded; nothing changed', level: INFO });
    expect(result.notifications).toHaveLength(3);
    expect(result.data.previews).toHaveLength(1);
    expect(result.data.created).toBeNull();
    expect(fs.existsSync(path.join(workspace, 'src/discounts.ts'))).toBe(false);
    expect(result.text).toBe(original);
    const patches = readInteractions(workspace).filter((i) => i.task === 'patch');
    expect(patches.map((i) => [i.responses[0]?.used ?? null, i.responses[0]?.outcome ?? i.message])).toEqual(expect.arrayContaining([[true, 'applied'], [false, 'discarded']]));
    expect(patches).toHaveLength(3);
    // The trace list says which patch was applied and which one discarded in its preview (newest first).
    expect(result.quickfix.slice(0, 2).map((entry) => entry.text.replace(/ \d{4}-.*$/, ''))).toEqual(['patch "Apply a pasted patch" by pasted-patch (discarded)', 'patch "Apply a pasted patch" by pasted-patch (used)']);
  }, 60_000);
});
