// User journeys in headless Neovim: the trace follows the code through a rename and a revert, edits thrown away with :q! or :e! are not reported as used, and the hover shows the doc comment without the annotation.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { FILE, TS_LANGUAGE_SERVER, hasNvim, runScenario, skipNvim, skipReason } from './harness/neovim.js';
import type { ScenarioOptions, ScenarioResult } from './harness/neovim.js';

/** Budget of one nvim run (a run takes a few seconds, many more on a machine busy with other tests). */
const RUN_TIMEOUT_MS = 40_000;

/** Runs a scenario on `file` of a workspace the test keeps, so a second run sees what the first left. */
async function runNvim(workspace: string, file: string, scenario: string, options: ScenarioOptions = {}): Promise<ScenarioResult> {
  return (await runScenario(scenario, { workspace, file, timeoutMs: RUN_TIMEOUT_MS, ...options })).result;
}

/** The 1-based line of the first line of `text` that contains `needle`. */
function lineNumber(text: string, needle: string): number {
  return text.split('\n').findIndex((line) => line.includes(needle)) + 1;
}

/** A quickfix entry's text without its time and id. */
function described(text: string): string {
  return text.replace(/ \S+ \[\w+\]$/, '');
}

/** Runs :AssistantDocument with the cursor on `needle`, waits for its message (the server has recorded it) and the doc comment's annotation line. */
function documentAt(needle: string, wait: string): string {
  return `
    T.cursor_on('${needle}')
    T.run('AssistantDocument', '^assistant%-ls: applied')
    T.wait('the doc comment', function() return T.text():find('${wait}') ~= nil end)`;
}

describe.skipIf(skipNvim)(`the trace follows the code in headless Neovim${skipReason}`, () => {
  it('has nvim', () => {
    expect(hasNvim).toBe(true);
  });

  it('document, rename with the assistant, revert the doc comment: :AssistantTrace on the renamed function lists the rename and the document', async () => {
    const workspace = copyFixture('basic');
    const result = await runNvim(
      workspace,
      FILE,
      `${documentAt('parseConfig(text', '// @assistant task=document [^\\n]*\\nexport function parseConfig')}
    T.cursor_on('parseConfig(text')
    T.pick('rename-offline')
    T.run('AssistantAsk rename parseConfig to readConfig', '^assistant%-ls: applied the answer of rename%-offline')
    T.wait('the rename', function() return T.text():find('export function readConfig(text', 1, true) ~= nil end)
    -- On the doc comment, the user reverts it.
    T.cursor_on('/**')
    T.run('AssistantRevert', '^assistant%-ls: ')
    T.wait_notified('^assistant%-ls: Reverted')
    T.wait('the doc comment gone', function() return T.text():find('/**', 1, true) == nil end)
    T.cursor_on('readConfig(text')
    T.trace()
`,
    );
    const line = lineNumber(result.text, 'export function readConfig(text');
    expect(result.text).not.toContain('@assistant');
    expect(result.quickfixTitle).toBe(`Assistant trace: code at config.ts:${line}`);
    expect(result.quickfix.map((entry) => described(entry.text))).toEqual([expect.stringMatching(/^rename parseConfig by rename-offline \(used\)$/), 'document parseConfig by doc-offline (used, reverted)']);
    // Both point at the function as it is now: the rename at its name, the reverted comment where it was.
    expect(result.quickfix.map((entry) => entry.lnum)).toEqual([line, line]);
    for (const entry of result.quickfix) expect(fs.realpathSync(entry.filename)).toBe(fs.realpathSync(path.join(workspace, FILE)));
  }, 45_000);

  it('document, rename by hand and add lines above, revert the doc comment: :AssistantTrace on the function points at it', async () => {
    const result = await runNvim(
      copyFixture('basic'),
      FILE,
      `${documentAt('parseConfig(text', '// @assistant task=document [^\\n]*\\nexport function parseConfig')}
    T.cursor_on('parseConfig(text')
    vim.cmd('normal! ciwreadConfig')
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('normal! o// Reads the configuration.')
    vim.cmd('normal! o// Three keys, with defaults.')
    T.cursor_on('/**')
    T.run('AssistantRevert', '^assistant%-ls: ')
    T.wait_notified('^assistant%-ls: Reverted')
    T.cursor_on('readConfig(text')
    T.trace()
`,
    );
    const line = lineNumber(result.text, 'export function readConfig(text');
    expect(result.text).not.toContain('/**');
    expect(result.quickfix.map((entry) => [described(entry.text), entry.lnum])).toEqual([['document parseConfig by doc-offline (used, reverted)', line]]);
  }, 45_000);

  it('a doc comment thrown away with :q! is "discarded after apply" in the next session’s trace; the saved one is used', async () => {
    const workspace = copyFixture('basic');
    const original = fs.readFileSync(path.join(workspace, FILE), 'utf8');
    // The user saves the first comment, then adds a second and quits without saving (the scenario ends with :qa!).
    await runNvim(
      workspace,
      FILE,
      `${documentAt('async load', '// @assistant task=document [^\\n]*\\n  async load')}
    vim.cmd('write')
    ${documentAt('parseConfig(text', '// @assistant task=document [^\\n]*\\nexport function parseConfig')}
`,
    );
    const onDisk = fs.readFileSync(path.join(workspace, FILE), 'utf8');
    expect(onDisk).toMatch(/\/\/ @assistant task=document [^\n]*\n {2}async load/);
    expect(onDisk).toMatch(/\n\nexport function parseConfig/);
    expect(onDisk).not.toBe(original);

    const next = await runNvim(workspace, FILE, `    T.trace(true)\n`);
    expect(next.quickfix.map((entry) => described(entry.text))).toEqual(['document parseConfig by doc-offline (discarded after apply)', 'document ConfigStore.load by doc-offline (used)']);
    expect(next.text).toBe(onDisk);
  }, 85_000);

  it('a doc comment thrown away with :e! is "discarded after apply" at once', async () => {
    const workspace = copyFixture('basic');
    const original = fs.readFileSync(path.join(workspace, FILE), 'utf8');
    const result = await runNvim(
      workspace,
      FILE,
      `${documentAt('parseConfig(text', '// @assistant task=document [^\\n]*\\nexport function parseConfig')}
    vim.cmd('edit!')
    T.wait('the file as it is on disk', function() return T.text():find('/**', 1, true) == nil end)
    T.trace(true)
`,
    );
    expect(result.text).toBe(original);
    expect(result.quickfix.map((entry) => described(entry.text))).toEqual(['document parseConfig by doc-offline (discarded after apply)']);
  }, 45_000);

  it('K on the documented function shows TypeScript’s hover with the doc comment and without the annotation', async () => {
    const result = await runNvim(
      copyFixture('basic'),
      FILE,
      `
    local ts = vim.lsp.start_client({ name = 'typescript-language-server', cmd = { ${JSON.stringify(TS_LANGUAGE_SERVER)}, '--stdio' }, root_dir = vim.fn.getcwd() })
    vim.lsp.buf_attach_client(0, ts)
    ${documentAt('parseConfig(text', '@param text')}
    T.wait('typescript-language-server', function()
      local client = vim.lsp.get_client_by_id(ts)
      return client ~= nil and client.server_capabilities ~= nil and client.server_capabilities.hoverProvider ~= nil
    end)
    T.cursor_on('parseConfig(text')
    T.wait('the hover', function()
      if T.floats():find('@param', 1, true) then return true end
      vim.lsp.buf.hover()
      vim.wait(1000, function() return T.floats():find('@param', 1, true) ~= nil end, 50)
      return T.floats():find('@param', 1, true) ~= nil
    end)
    R.data.hover = T.floats()
`,
      { timeoutMs: 55_000 },
    );
    const hover = String(result.data.hover);
    expect(hover).toContain('function parseConfig(text: string, defaults?: Partial<Config>): Config');
    expect(hover).toMatch(/@param\*? `?text/);
    expect(hover).toContain('@throws');
    expect(hover).not.toContain('assistant');
    expect(hover).not.toContain('interaction=');
  }, 60_000);
});
