// Edits of the assistant to files with no open buffer, in real headless Neovim: attached to the client that sent them, listed, and named in the message.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INFO, hasNvim, lua, readInteractions, runScenario, skipNvim, skipReason } from './harness/neovim.js';
import { CART_AND_PRICING_PATCH } from '../support/pipelinePatches.js';

/** nvim start to exit: a preview, two patches, a trace and a server start; below vitest's limit of the test. */
const SCENARIO_TIMEOUT_MS = 40_000;

/** A diff over the open file and two that are not open, one of a file type the plugin does not start for (JSON). */
const THREE_FILES = [
  ...CART_AND_PRICING_PATCH,
  '--- a/package.json',
  '+++ b/package.json',
  '@@ -2,3 +2,4 @@',
  '   "name": "pipelines-fixture",',
  '   "private": true,',
  '+  "license": "MIT",',
  '   "type": "module",',
].join('\n');

/** A second diff written against the first one's result: its context is the line the first added. */
const ON_TOP = ['--- a/package.json', '+++ b/package.json', '@@ -3,3 +3,4 @@', '   "private": true,', '   "license": "MIT",', '+  "sideEffects": false,', '   "type": "module",'].join('\n');

/** A diff of package.json alone. */
const ONE_FILE = THREE_FILES.split('\n').slice(16).join('\n');

/** Accepts each preview with the next key once its diff window shows; pastes a diff into a scratch buffer. */
const HELPERS = `
function T.answer_previews(keys)
  local timer = uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      local buf = vim.api.nvim_win_get_buf(win)
      if vim.bo[buf].filetype == 'diff' and #keys > 0 and vim.b[buf].answered == nil then
        vim.b[buf].answered = true
        vim.api.nvim_input(table.remove(keys, 1))
      end
    end
    if #keys == 0 and not timer:is_closing() then timer:stop() timer:close() end
  end))
end
function T.scratch_patch(text)
  vim.cmd('new')
  vim.bo.buftype = 'nofile'
  vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(text, '\\n'))
end
-- What the user can learn of a file's buffer: :ls (its name there; listed, hidden, changed), its file type, its
-- language clients.
function T.buffer(name)
  local bufnr = vim.fn.bufnr(name)
  if bufnr < 1 then return vim.NIL end
  local info = vim.fn.getbufinfo(bufnr)[1]
  local clients = {}
  for _, client in pairs(vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)) do table.insert(clients, client.name) end
  return { name = vim.fn.bufname(bufnr), listed = info.listed, hidden = info.hidden, changed = info.changed, filetype = vim.bo[bufnr].filetype, clients = clients, text = T.text(bufnr) }
end
`;

describe.skipIf(skipNvim)(`assistant edits to files that are not open, in Neovim${skipReason}`, () => {
  it('has nvim (CI installs it)', () => {
    expect(hasNvim).toBe(true);
  });

  it('attaches the hidden buffers a patch changed, says they are unsaved, and a second patch built on the first applies', async () => {
    const { result, workspace, original } = await runScenario(
      `
    T.scratch_patch(${lua(THREE_FILES)})
    T.answer_previews({ 'a' })
    T.run('AssistantApplyPatch', '^assistant%-ls: Applied')
    R.data.pricing = T.buffer('src/pricing.ts')
    R.data.package = T.buffer('package.json')
    -- The next patch, from the same chat, is on what the first one left, unsaved.
    vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(${lua(ON_TOP)}, '\\n'))
    T.run('AssistantApplyPatch', '^assistant%-ls: ')
    R.data.package_after = T.buffer('package.json')
    -- The user goes to the hidden buffer and asks where its new code came from.
    vim.cmd('close')
    vim.cmd('buffer src/pricing.ts')
    source_buf = vim.api.nvim_get_current_buf()
    T.cursor_on('item.quantity')
    T.trace(false)
`,
      { fixture: 'pipelines', file: 'src/cart.ts', helpers: HELPERS, timeoutMs: SCENARIO_TIMEOUT_MS },
    );
    // One message: what changed, and which files are now unsaved buffers no window shows.
    expect(result.notifications[0]).toEqual({
      message: 'assistant-ls: Applied to src/cart.ts, src/pricing.ts, package.json. Unsaved in hidden buffers: src/pricing.ts, package.json (:wa saves them).',
      level: INFO,
    });
    // In :ls as hidden and changed, named and typed as if the user had opened them, and each sent to the server.
    expect(result.data.pricing).toMatchObject({ name: 'src/pricing.ts', listed: 1, hidden: 1, changed: 1, filetype: 'typescript', clients: ['assistant-ls'] });
    expect(result.data.package).toMatchObject({ name: 'package.json', listed: 1, hidden: 1, changed: 1, filetype: 'json', clients: ['assistant-ls'] });
    // The server read the unsaved JSON buffer, not the file: the second patch's context is the first one's line.
    expect(result.notifications[1]).toEqual({ message: 'assistant-ls: Applied to package.json.', level: INFO });
    expect((result.data.package_after as { text: string }).text).toContain('  "private": true,\n  "license": "MIT",\n  "sideEffects": false,\n  "type": "module",\n');
    // :AssistantTrace on the code inserted in the file that was not open finds the patch.
    expect(result.quickfix[0]?.text).toMatch(/^patch "Apply a pasted patch" by pasted-patch \(used\) /);
    expect(result.text).toContain('  return item.price * item.quantity;\n');
    // Nothing written to disk: the user saves.
    expect(fs.readFileSync(path.join(workspace, 'src/cart.ts'), 'utf8')).toBe(original);
    expect(fs.readFileSync(path.join(workspace, 'src/pricing.ts'), 'utf8')).toContain('  return item.price;\n');
    expect(fs.readFileSync(path.join(workspace, 'package.json'), 'utf8')).not.toContain('license');
    expect(readInteractions(workspace).filter((i) => i.task === 'patch')).toHaveLength(2);
    expect(result.notifications).toHaveLength(2);
  }, 60_000);

  it('does the same for a one-file patch applied without a preview and for a multi-file revert', async () => {
    const { result, workspace } = await runScenario(
      `
    -- One file, so no preview: Neovim's own handler applies it.
    vim.fn.setreg('a', ${lua(ONE_FILE)})
    T.run('AssistantApplyPatch a', '^assistant%-ls: ')
    R.data.package = T.buffer('package.json')
    T.scratch_patch(${lua(THREE_FILES.split('\n').slice(0, 16).join('\n'))})
    T.answer_previews({ 'a' })
    T.run('AssistantApplyPatch', '^assistant%-ls: Applied')
    vim.cmd('close')
    -- The user saves the patch and is done with pricing.ts; later the cart change is reverted, with its other half.
    vim.cmd('silent wall')
    vim.cmd('bwipeout src/pricing.ts')
    T.cursor_on('isEmpty')
    T.answer_previews({ 'a' })
    T.run('AssistantRevert', '^assistant%-ls: ')
    R.data.pricing = T.buffer('src/pricing.ts')
`,
      { fixture: 'pipelines', file: 'src/cart.ts', helpers: HELPERS, timeoutMs: SCENARIO_TIMEOUT_MS },
    );
    expect(result.notifications.map((n) => n.message)).toEqual([
      'assistant-ls: Applied to package.json. Unsaved in a hidden buffer: package.json (:wa saves it).',
      'assistant-ls: Applied to src/cart.ts, src/pricing.ts. Unsaved in a hidden buffer: src/pricing.ts (:wa saves it).',
      'assistant-ls: Reverted the pasted patch. Unsaved in a hidden buffer: src/pricing.ts (:wa saves it).',
    ]);
    expect(result.data.package).toMatchObject({ name: 'package.json', listed: 1, hidden: 1, changed: 1, filetype: 'json', clients: ['assistant-ls'] });
    expect(result.data.pricing).toMatchObject({ name: 'src/pricing.ts', listed: 1, hidden: 1, changed: 1, filetype: 'typescript', clients: ['assistant-ls'] });
    expect((result.data.pricing as { text: string }).text).toContain('  return item.price;\n');
    expect(result.text).not.toContain('isEmpty');
    expect(fs.readFileSync(path.join(workspace, 'src/pricing.ts'), 'utf8')).toContain('  return item.price * item.quantity;\n');
    expect(fs.readFileSync(path.join(workspace, 'package.json'), 'utf8')).toContain('"license": "MIT"');
  }, 60_000);
});
