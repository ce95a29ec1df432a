// The Neovim client end to end: real headless nvim, the plugin in clients/neovim and the built server on a fixture copy.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS, CUSTOM_METHODS } from '../../protocol/src/index.js';
import { ERROR, FILE, INFO, NVIM, PLUGIN_DIR, WARN, hasNvim, nvimProbe, readTrace, runScenario as runNvim, skipNvim, skipReason } from './harness/neovim.js';
import type { Notification, ScenarioOptions, ScenarioResult } from './harness/neovim.js';

/** Lua helpers of these journeys: asking through the plugin and applying the offline agent's candidate. */
const HELPERS = `
-- Asks through the plugin with the cursor on a string and picks the offline agent's candidate.
function T.ask_and_apply(needle, text, done_pattern)
  T.cursor_on(needle)
  T.pick('doc-offline')
  vim.cmd('AssistantAsk ' .. text)
  T.wait('the doc comment', function() return T.text():find(done_pattern) ~= nil end)
end
-- The ask most scenarios start from: the offline agent's comment on ConfigStore.load, applied.
function T.document_load()
  T.ask_and_apply('async load', 'write documentation for the load method', '%*/\\n  // @assistant [^\\n]*\\n  async load%(')
end
`;

function runScenario(scenario: string, options: ScenarioOptions = {}): ReturnType<typeof runNvim> {
  return runNvim(scenario, { helpers: HELPERS, ...options });
}

function errors(result: ScenarioResult): Notification[] {
  return result.notifications.filter((n) => n.level >= ERROR);
}

describe('the Neovim client’s method and command names', () => {
  it('uses only methods and commands the server declares', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.lua')) files.push(full);
      }
    };
    walk(PLUGIN_DIR);
    expect(files.length).toBeGreaterThan(0);
    const used = new Set<string>();
    for (const file of files) {
      // Module paths (`require('assistant.progress')`) share the dotted form but are not protocol names.
      const source = fs.readFileSync(file, 'utf8').replace(/require\s*\(?\s*['"][^'"]*['"]\s*\)?/g, '');
      for (const match of source.matchAll(/['"](assistant[/.][A-Za-z][\w/.]*)['"]/g)) used.add(match[1]!);
    }
    const declared = new Set([...CUSTOM_METHODS, ...ALL_COMMANDS]);
    expect([...used].filter((name) => !declared.has(name))).toEqual([]);
    // The ones the commands send must be among them (a renamed table entry would otherwise pass silently).
    for (const name of ['assistant/ask', 'assistant/apply', 'assistant/trace', 'assistant/rate', 'assistant/revert']) expect(used).toContain(name);
  });
});

describe.skipIf(skipNvim)(`Neovim client in headless nvim${skipReason}`, () => {
  it('has nvim (CI installs it)', () => {
    expect(hasNvim, `${NVIM} --version failed: ${nvimProbe.error?.message ?? nvimProbe.stderr}`).toBe(true);
  });

  it('documents parseConfig through vim.lsp.buf.code_action() and the trace records the response as used', async () => {
    const { result, workspace, original } = await runScenario(`
    T.cursor_on('parseConfig(text')
    T.pick('Document')
    vim.lsp.buf.code_action()
    T.wait('the JSDoc', function() return T.text():find('@param text', 1, true) ~= nil end)
    -- The client sends assistant.responseApplied after applying the edit; wait until the trace on disk has it.
    T.wait('the used response on disk', function()
      for _, file in ipairs(vim.fn.glob('.assistant/trace/*/segment-*.json*', false, true)) do
        if table.concat(vim.fn.readfile(file), '\\n'):find('"used": *true') then return true end
      end
      return false
    end)
`,
      // Progress at once, so seeing it does not depend on the task taking longer than progress.showAfterMs.
      { setup: '{ settings = { progress = { showAfterMs = 0 } } }' },
    );
    expect(result.selects[0]!.picked).toMatch(/^Assistant: Document .*parseConfig/);
    expect(result.text).toMatch(/\/\*\*\n \* [^\n]+\n(?: \*[^\n]*\n)* \* @param text [^\n]*\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\nexport function parseConfig\(/);
    // Only the comment and its annotation were added: removing them gives back the original.
    expect(result.text.replace(/\/\*\*\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\n(?=export function parseConfig)/, '')).toBe(original);
    // The plugin previews edits, so the action runs as the task's command, whose progress names the task and its target.
    // What the server began, not what was echoed: a begin that reaches the plugin after the edit's "applied" (the
    // server asks for a token, and under load the client answers after the edit came) rightly stays unechoed.
    expect(result.began).toContainEqual(expect.stringMatching(/^Assistant: document parseConfig/));
    expect(errors(result)).toEqual([]);

    const trace = readTrace(workspace);
    const interaction = trace.interactions.find((i) => i.task === 'document' && i.source === 'command');
    expect(interaction?.context.symbol).toBe('parseConfig');
    const used = interaction!.responses.find((r) => r.used);
    expect(used).toMatchObject({ agent: { name: 'doc-offline' }, outcome: 'applied' });
    expect(used!.insertedAt?.[0]?.text).toContain('@param text');
    expect(trace.clients).toContainEqual(expect.objectContaining({ name: 'Neovim' }));
  });

  it(':AssistantAsk applies the chosen candidate above async load', async () => {
    const { result, workspace, original } = await runScenario(`
    T.document_load()
    T.wait_notified('^assistant%-ls: applied')
`);
    expect(result.selects).toHaveLength(1);
    expect(result.notifications).toContainEqual({ message: 'assistant-ls: applied the answer of doc-offline', level: INFO });
    // Each candidate shows its agent and the first line of its text that says something (not the bare `/**`).
    expect(result.selects[0]).toMatchObject({ prompt: 'Assistant document: apply which candidate?', labels: [expect.stringMatching(/^doc-offline: [A-Z]\w+ /), 'Discard'] });
    expect(result.text).toMatch(/\n {2}\/\*\*\n(?: {3}\*[^\n]*\n)* {3}\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\): Promise<Config> \{/);
    expect(result.text.replace(/ {2}\/\*\*\n(?: {3}\*[^\n]*\n)* {3}\*\/\n {2}\/\/ @assistant [^\n]*\n(?= {2}async load)/, '')).toBe(original);
    expect(errors(result)).toEqual([]);
    const interaction = readTrace(workspace).interactions.find((i) => i.source === 'text');
    expect(interaction).toMatchObject({ text: 'write documentation for the load method', task: 'document', context: { symbol: 'ConfigStore.load' } });
    expect(interaction!.responses.filter((r) => r.used)).toHaveLength(1);
  });

  it(":'<,'>AssistantAsk sends the visual selection as the range, in UTF-16 characters", async () => {
    const { result, workspace, original } = await runScenario(`
    local assistant = require('assistant')
    local esc = vim.api.nvim_replace_termcodes('<Esc>', true, false, true)
    local function selection_range()
      return assistant.command_range(source_buf, { range = 2, line1 = vim.fn.line("'<"), line2 = vim.fn.line("'>") })
    end
    -- On the greet line: after "é" (2 bytes, 1 UTF-16 unit) and before and after "😀" (4 bytes, 2 units).
    T.cursor_on('name} ')
    vim.cmd('normal! viw' .. esc)
    R.data.greetRange = selection_range()
    T.cursor_on('\`; }')
    R.data.afterEmoji = assistant.cursor_position(source_buf)
    -- A real charwise selection of the word, left with <Esc> so the '< and '> marks are set.
    T.cursor_on('load(): Promise')
    vim.cmd('normal! viw' .. esc)
    R.data.loadRange = selection_range()
    T.pick('doc-offline')
    vim.cmd("'<,'>AssistantAsk write documentation for this")
    T.wait('the doc comment', function() return T.text():find('%*/\\n  // @assistant [^\\n]*\\n  async load%(') ~= nil end)
`);
    const lines = original.split('\n');
    const at = (needle: string, length: number) => {
      const line = lines.findIndex((l) => l.includes(needle));
      const character = lines[line]!.indexOf(needle);
      return { start: { line, character }, end: { line, character: character + length } };
    };
    expect(result.data.greetRange).toEqual(at('name} ', 4));
    expect(result.data.afterEmoji).toEqual(at('`; }', 0).start);
    expect(result.data.loadRange).toEqual(at('load(): Promise', 4));
    expect(errors(result)).toEqual([]);
    // "this" names nothing, so the selection is what pointed the server at load.
    const interaction = readTrace(workspace).interactions.find((i) => i.source === 'text');
    expect(interaction).toMatchObject({ task: 'document', context: { symbol: 'ConfigStore.load' } });
  });

  it(':AssistantTrace inside the documented method lists its interaction in the quickfix list, and :AssistantRate rates it', async () => {
    const { result, workspace } = await runScenario(`
    T.document_load()
    T.cursor_on('this.cached = parseConfig')
    vim.cmd('AssistantTrace')
    T.wait('the quickfix list', function() return vim.fn.getqflist({ title = 0 }).title:find('^Assistant trace') ~= nil end)
    -- :copen moved to the quickfix window; rating works on the code, so go back to it.
    vim.cmd('wincmd p')
    T.cursor_on('this.cached = parseConfig')
    vim.cmd('AssistantRate up short and right')
    T.wait_notified('^assistant%-ls: rated')
`);
    const trace = readTrace(workspace);
    const interaction = trace.interactions.find((i) => i.source === 'text')!;
    const used = interaction.responses.find((r) => r.used)!;
    expect(result.quickfixTitle).toMatch(/^Assistant trace: code at config\.ts:/);
    expect(result.quickfix).toHaveLength(1);
    const entry = result.quickfix[0]!;
    expect(fs.realpathSync(entry.filename)).toBe(fs.realpathSync(path.join(workspace, FILE)));
    expect(entry.lnum).toBe(used.insertedAt![0]!.range.start.line + 1);
    expect(entry.text).toBe(`document ConfigStore.load by doc-offline (used) ${interaction.timestamp} [${interaction.id.slice(0, 8)}]`);
    expect(entry.valid).toBe(1);
    // The comment line is where the quickfix entry points.
    expect(result.text.split('\n')[entry.lnum - 1]).toBe('  /**');

    expect(trace.amendments).toContainEqual(expect.objectContaining({ interactionId: interaction.id, responseId: used.id, patch: { rating: 'up', feedback: 'short and right' } }));
    expect(errors(result)).toEqual([]);
  });

  it(':AssistantTrace! lists the newest interactions, and :AssistantTrace falls back to them on code the assistant did not write', async () => {
    const { result } = await runScenario(`
    T.document_load()
    T.pick(nil)
    vim.cmd('AssistantAsk what is the weather in Paris')
    T.wait_notified('does not match')
    T.cursor_on('export const firstOf')
    vim.cmd('AssistantTrace!')
    T.wait('the quickfix list', function() return vim.fn.getqflist({ title = 0 }).title:find('newest') ~= nil end)
    -- Without the bang, code the assistant did not write falls back to the same list, saying so.
    vim.cmd('wincmd p')
    vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
    T.cursor_on('export const firstOf')
    vim.cmd('AssistantTrace')
    T.wait_notified('listing the newest')
    T.wait('the quickfix list again', function() return vim.fn.getqflist({ title = 0 }).title:find('newest') ~= nil end)
`);
    expect(result.quickfix.map((e) => e.text.replace(/ \S+ \[\w+\]$/, ''))).toEqual([
      expect.stringMatching(/^none "what is the weather in Paris" \(This request does not match any assistant task\b.*\)$/),
      'document ConfigStore.load by doc-offline (used)',
    ]);
    // The free-text request that matched nothing has no place in the code to jump to.
    expect(result.quickfix.map((e) => e.valid)).toEqual([0, 1]);
    expect(errors(result)).toEqual([]);
  });

  it(':AssistantRevert at the documented code restores the original text', async () => {
    const { result, workspace, original } = await runScenario(`
    T.document_load()
    T.cursor_on('this.cached = parseConfig')
    vim.cmd('AssistantRevert')
    T.wait_notified('^assistant%-ls: Reverted')
    T.wait('the original text', function() return not T.text():find('@assistant', 1, true) end)
`);
    expect(result.text).toBe(original);
    const revert = result.notifications.find((n) => n.message.includes('Reverted'))!;
    expect(revert).toMatchObject({ level: INFO });
    expect(revert.message).toMatch(/doc-offline .*ConfigStore\.load/);
    const trace = readTrace(workspace);
    const interaction = trace.interactions.find((i) => i.source === 'text')!;
    expect(trace.amendments).toContainEqual(expect.objectContaining({ interactionId: interaction.id, patch: expect.objectContaining({ revertedAt: expect.any(String) }) }));
    expect(errors(result)).toEqual([]);
  });

  it(':AssistantAsk leaves the code alone when the user picks Discard, and :AssistantTrace! lists it as discarded', async () => {
    const { result, workspace, original } = await runScenario(`
    T.cursor_on('async load')
    T.pick('Discard')
    vim.cmd('AssistantAsk write documentation for the load method')
    T.wait_notified('discarded')
    vim.cmd('AssistantTrace!')
    T.wait('the quickfix list', function() return vim.fn.getqflist({ title = 0 }).title:find('newest') ~= nil end)
`);
    expect(result.selects[0]!.picked).toBe('Discard');
    expect(result.text).toBe(original);
    expect(result.quickfix.map((e) => e.text.replace(/ \S+ \[\w+\]$/, ''))).toEqual(['document ConfigStore.load by doc-offline (discarded)']);
    const interaction = readTrace(workspace).interactions.find((i) => i.source === 'text')!;
    expect(readTrace(workspace).amendments).toContainEqual(expect.objectContaining({ interactionId: interaction.id, patch: { choiceDiscardedAt: expect.any(String) } }));
    expect(errors(result)).toEqual([]);
  });

  it(':AssistantDocument documents the declaration at the cursor and :AssistantAgents lists the offline agent', async () => {
    const { result, workspace, original } = await runScenario(`
    T.cursor_on('firstOf')
    vim.cmd('AssistantDocument')
    T.wait('the doc comment', function() return T.text():find('%*/\\n// @assistant [^\\n]*\\nexport const firstOf') ~= nil end)
    vim.cmd('AssistantAgents')
    T.wait_notified('^assistant%-ls: agents')
`);
    expect(result.text.replace(/\/\*\*\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\n(?=export const firstOf)/, '')).toBe(original);
    expect(result.notifications.find((n) => n.message.startsWith('assistant-ls: agents'))?.message).toMatch(/\ndoc-offline \(rule\): document/);
    const interaction = readTrace(workspace).interactions.find((i) => i.source === 'command');
    expect(interaction).toMatchObject({ task: 'document', context: { symbol: 'firstOf' } });
    expect(interaction!.responses.some((r) => r.used)).toBe(true);
    expect(errors(result)).toEqual([]);
  });

  it('passes setup() settings as initializationOptions, and a second setup() pushes new ones', async () => {
    const { result, original } = await runScenario(
      `
    T.pick('doc-offline')
    T.cursor_on('async load')
    vim.cmd('AssistantAsk write documentation for the load method')
    T.wait_notified('not available yet')
    -- Pushed settings override initializationOptions key by key, so re-enable by pushing an empty list.
    require('assistant').setup({ settings = { disabledAgents = {} } })
    -- The server applies pushed settings asynchronously; ask again until the offline agent is back.
    T.wait('the offline agent back', function()
      if T.text():find('%*/\\n  // @assistant [^\\n]*\\n  async load%(') then return true end
      if #R.selects == 0 and #R.notifications < 20 then
        vim.cmd('AssistantAsk write documentation for the load method')
        vim.wait(300, function() return #R.selects > 0 end, 20)
      end
      return false
    end)
`,
      { setup: "{ settings = { disabledAgents = { 'doc-offline' } } }" },
    );
    expect(result.notifications[0]).toMatchObject({ level: WARN, message: expect.stringMatching(/document task is not available yet/) });
    expect(result.text).not.toBe(original);
    expect(errors(result)).toEqual([]);
  });

  it('starts one client per root, found from package.json, tsconfig.json or .git above the file', async () => {
    const { result, workspace } = await runScenario(
      `
    local function client_of(path)
      vim.cmd('edit ' .. path)
      local bufnr = vim.api.nvim_get_current_buf()
      T.wait('a client for ' .. path, function() return require('assistant').client(bufnr) ~= nil end)
      local client = require('assistant').client(bufnr)
      return { id = client.id, root = client.config.root_dir }
    end
    R.data.config = client_of('src/config.ts')
    R.data.sibling = client_of('src/extra.ts')
    R.data.nested = client_of('nested/deep/file.ts')
    R.data.repo = client_of('repo/lib/file.js')
    vim.cmd('buffer ' .. source_buf)
`,
      {
        prepare: (root) => {
          fs.writeFileSync(path.join(root, 'src', 'extra.ts'), 'export const extra = 1;\n');
          fs.mkdirSync(path.join(root, 'nested', 'deep'), { recursive: true });
          fs.writeFileSync(path.join(root, 'nested', 'tsconfig.json'), '{}\n');
          fs.writeFileSync(path.join(root, 'nested', 'deep', 'file.ts'), 'export const nested = 1;\n');
          fs.mkdirSync(path.join(root, 'repo', '.git'), { recursive: true });
          fs.mkdirSync(path.join(root, 'repo', 'lib'), { recursive: true });
          fs.writeFileSync(path.join(root, 'repo', 'lib', 'file.js'), 'export const repo = 1;\n');
        },
      },
    );
    const clients = result.data as Record<'config' | 'sibling' | 'nested' | 'repo', { id: number; root: string }>;
    expect(clients.sibling).toEqual(clients.config);
    expect(fs.realpathSync(clients.config.root)).toBe(fs.realpathSync(workspace));
    expect(fs.realpathSync(clients.nested.root)).toBe(fs.realpathSync(path.join(workspace, 'nested')));
    expect(fs.realpathSync(clients.repo.root)).toBe(fs.realpathSync(path.join(workspace, 'repo')));
    expect(new Set([clients.config.id, clients.nested.id, clients.repo.id]).size).toBe(3);
    expect(errors(result)).toEqual([]);
  });

  it(':AssistantAsk with text that matches no task shows the server’s message and applies nothing', async () => {
    const { result, workspace, original } = await runScenario(`
    T.pick(nil)
    vim.cmd('AssistantAsk what is the weather in Paris')
    T.wait_notified('does not match any assistant task')
    -- A picker shown by mistake would come right after the answer; give it a moment to show up.
    vim.wait(200)
`);
    expect(result.selects).toEqual([]);
    expect(result.text).toBe(original);
    const message = result.notifications.find((n) => n.message.includes('does not match any assistant task'))!;
    expect(message.level).toBe(WARN);
    expect(result.notifications.filter((n) => n.level === INFO)).toEqual([]);
    const interaction = readTrace(workspace).interactions.find((i) => i.text === 'what is the weather in Paris');
    expect(interaction).toMatchObject({ task: 'none', responses: [] });
  });
});
