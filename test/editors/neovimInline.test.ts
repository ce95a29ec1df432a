// Ghost text in headless Neovim: the suggestion as you type in its own highlight, the keys that dismiss it, take a word or all of it and say what they do, and the trace from the inserted code to the acceptance.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { TYPING, hasNvim, lua, nvimProbe, readInteractions, runScenario, skipNvim, skipReason } from './harness/neovim.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

const FILE = 'src/main.ts';

/**
 * What the user sees of the suggestion, and `T.insert(steps)`: the harness's typing (`T.type`, steps run from a timer
 * while nvim waits in insert mode) from insert mode after the cursor, returning once a step typed <Esc>; a step not
 * reached says what the line and the suggestion were.
 */
const HELPERS = `${TYPING}
local inline = require('assistant.inline')
-- 0.12 draws the suggestion itself (vim.lsp.inline_completion), in a namespace of its own.
T.native = vim.fn.has('nvim-0.12') == 1
local ghost_ns = T.native and vim.api.nvim_get_namespaces()['nvim.lsp.inline_completion'] or inline.namespace
-- What the user sees of the suggestion: the virtual text and lines of the extmarks it is drawn with.
function T.ghost()
  local seen = {}
  for _, mark in ipairs(ghost_ns and vim.api.nvim_buf_get_extmarks(source_buf, ghost_ns, 0, -1, { details = true }) or {}) do
    local details = mark[4]
    local text = {}
    for _, chunk in ipairs(details.virt_text or {}) do table.insert(text, chunk[1] .. '|' .. chunk[2]) end
    local lines = {}
    for _, line in ipairs(details.virt_lines or {}) do
      local parts = {}
      for _, chunk in ipairs(line) do table.insert(parts, chunk[1]) end
      table.insert(lines, table.concat(parts))
    end
    table.insert(seen, { row = mark[2], col = mark[3], pos = details.virt_text_pos, text = text, lines = lines })
  end
  return seen
end
-- What is drawn after the end of a line while in insert mode (where 'showmode' covers the echo area).
function T.hint()
  local seen = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(source_buf, inline.hint_namespace, 0, -1, { details = true })) do
    for _, chunk in ipairs(mark[4].virt_text or {}) do table.insert(seen, chunk[1] .. '|' .. chunk[2]) end
  end
  return seen
end
function T.line()
  return vim.api.nvim_get_current_line()
end
-- How many inline completion requests the server has answered (0.10+ say so with LspRequest).
T.answered = 0
pcall(vim.api.nvim_create_autocmd, 'LspRequest', { callback = function(args)
  local request = args.data and args.data.request
  if request and request.type == 'complete' and request.method == 'textDocument/inlineCompletion' then T.answered = T.answered + 1 end
end })
function T.insert(steps)
  T.type('a', steps, function() return 'the line: ' .. T.line() .. '; the suggestion: ' .. vim.inspect(T.ghost()) end)
end
`;

/** Whether the plugin's client told the server it shows inline completions (the server then warms a local model). */
const DECLARES = `
for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  if client.name == 'assistant-ls' then R.data.declares = ((client.config.capabilities or {}).textDocument or {}).inlineCompletion ~= nil end
end
`;

const JOURNEY = `${DECLARES}
R.data.seen = {}
local function see(name) R.data.seen[name] = { ghost = T.ghost(), line = T.line(), mode = vim.api.nvim_get_mode().mode } end
local hl = T.native and 'ComplHint' or 'AssistantGhost'
local function shown(text) return function() local g = T.ghost()[1]; return g ~= nil and g.text[1] == text .. '|' .. hl end end
local function none() return #T.ghost() == 0 end
T.cursor_on('(, 0);')
local steps = {
  { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input('s') end },
  { 'the ghost text', shown('um, v) => sum + v'), function() see('typed'); vim.api.nvim_input('<C-]>') end },
  { 'the dismissal', none, function() see('dismissed'); vim.api.nvim_input('<M-]>') end },
  { 'the suggestion again', shown('um, v) => sum + v'), function() vim.api.nvim_input('<M-Right>') end },
}
if T.native then
  -- Neovim asks again for the rest (the server's cache answers), and leaves out the start of a suggestion that
  -- matches the text after the cursor (here ', '). Then ',' is typed and the suggestion accepted at once, before
  -- Neovim asks again: it goes in over the ','.
  table.insert(steps, { 'the rest after accept word', shown('v) => sum + v'), function() see('word'); vim.api.nvim_input(',<M-l>') end })
else
  table.insert(steps, { 'the rest after accept word', shown(', v) => sum + v'), function() see('word'); vim.api.nvim_input(',') end })
  table.insert(steps, { 'the suggestion after typing on', shown(' v) => sum + v'), function() see('typedOn'); vim.api.nvim_input('<M-l>') end })
end
table.insert(steps, { 'the accepted text', function() return T.line():find('sum + v, 0);', 1, true) ~= nil end, function() see('accepted'); vim.api.nvim_input('<Esc>') end })
T.insert(steps)
see('normal')
T.cursor_on('=> sum + v')
T.trace()
vim.cmd('normal! u')
R.data.undone = T.line()
vim.cmd('redo')
`;

function setup(extra = ''): string {
  return `{ settings = { useEnvironment = false, agents = { { name = 'scripted-coder', baseURL = ${lua(model.baseURL)}, apiKey = 'sk-test', model = 'scripted-coder', tasks = { 'document' } } }, completion = { debounceMs = 0 } }${extra} }`;
}

const prepare = (root: string): void => fs.writeFileSync(path.join(root, FILE), fs.readFileSync(path.join(root, FILE), 'utf8').replace('reduce(ADD, 0)', 'reduce(, 0)'));

interface Seen {
  ghost: { row: number; col: number; pos: string; text: string[]; lines: string[] }[];
  line: string;
  mode: string;
}

/** The minor version of the nvim under test; from 0.12 the plugin hands ghost text to vim.lsp.inline_completion. */
const NVIM_MINOR = Number(/NVIM v0\.(\d+)/.exec(nvimProbe.stdout ?? '')?.[1] ?? 0);
const NATIVE = NVIM_MINOR >= 12;

describe.skipIf(skipNvim)(`inline completion in Neovim${skipReason}`, () => {
  it('has nvim (CI installs it)', () => {
    expect(hasNvim).toBe(true);
  });

  it('shows ghost text as you type; <C-]> dismisses it, <M-Right> takes a word, <M-l> the rest; the trace leads from the code to the acceptances', async () => {
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v' });
    const { result, workspace } = await runScenario(JOURNEY, {
      fixture: 'completion',
      file: FILE,
      setup: setup(),
      helpers: HELPERS,
      prepare,
      timeoutMs: 40_000,
    });
    expect(result.data.declares).toBe(true);
    const seen = result.data.seen as Record<string, Seen>;
    // The suggestion at the cursor: inline virtual text from 0.10; before, over the rest of the line, which is drawn
    // again after it (set ASSISTANT_LS_NVIM to a newer nvim to run the journey there). 0.12 draws it itself.
    const inline = NVIM_MINOR >= 10;
    const hl = NATIVE ? 'ComplHint' : 'AssistantGhost';
    const rest = (text: string): string[] => (inline ? [] : [`${text}|Normal`]);
    const typed = seen.typed!;
    expect(typed.line).toBe('  return values.reduce(s, 0);');
    expect(typed.mode).toBe('i');
    expect(typed.ghost).toEqual([{ row: 11, col: '  return values.reduce(s'.length, pos: inline ? 'inline' : 'overlay', text: [`um, v) => sum + v|${hl}`, ...rest(', 0);')], lines: [] }]);
    // Dismissed: nothing shown, nothing inserted.
    expect(seen.dismissed).toMatchObject({ line: '  return values.reduce(s, 0);', ghost: [] });
    // Accept word takes `um`; the rest stays on screen (0.12: without the `, ` that the text after the cursor has).
    expect(seen.word!.line).toBe('  return values.reduce(sum, 0);');
    expect(seen.word!.ghost[0]).toMatchObject(
      NATIVE ? { col: '  return values.reduce(sum, '.length, text: [`v) => sum + v|${hl}`] } : { col: '  return values.reduce(sum'.length, text: [`, v) => sum + v|${hl}`, ...rest(', 0);')] },
    );
    // Typing on asks again; accept takes the whole suggestion, and leaving insert mode leaves nothing on screen.
    expect(seen.accepted!.line).toBe('  return values.reduce(sum, v) => sum + v, 0);');
    expect(seen.normal).toMatchObject({ mode: 'n', ghost: [] });
    expect(result.text).toContain('  return values.reduce(sum, v) => sum + v, 0);\n');
    // The accepted text is one undo step of its own.
    expect(result.data.undone).toBe('  return values.reduce(sum,, 0);');

    // :AssistantTrace on the inserted code finds the acceptance.
    expect(result.quickfixTitle).toMatch(/^Assistant trace: code at main\.ts:12/);
    expect(result.quickfix[0]?.text).toMatch(/^complete "Accepted an inline completion" by scripted-coder \(used\)/);
    const completions = readInteractions(workspace).filter((i) => i.task === 'complete');
    // 0.12 took the rest it showed before `,` (over the `,`); the others the suggestion asked for after it.
    const second = NATIVE ? { text: ', v) => sum + v', at: '  return values.reduce(sum'.length } : { text: ' v) => sum + v', at: '  return values.reduce(sum,'.length };
    expect(completions.map((i) => i.completion)).toEqual([
      { offered: 'um, v) => sum + v', partial: true, mode: 'fim' },
      { offered: second.text, partial: false, mode: 'fim' },
    ]);
    const span = (at: number, text: string): object => ({ start: { line: 11, character: at }, end: { line: 11, character: at + text.length } });
    expect(completions.map((i) => i.responses[0]?.insertedAt?.[0] && { text: i.responses[0].insertedAt[0].text, range: i.responses[0].insertedAt[0].range })).toEqual([
      { text: 'um', range: span('  return values.reduce(s'.length, 'um') },
      { text: second.text, range: span(second.at, second.text) },
    ]);
    // The model was asked once, where `s` was typed: the suggestion again and the rest came from the server's cache.
    // 0.12 also asks by itself where insert mode began and after an acceptance, when 200 ms pass before the next key.
    const asked = model.requests.map((r) => `${r.path} ${String(r.body?.prompt).split('\n').at(-1)}`);
    expect(asked.filter((a) => a.endsWith('reduce(s'))).toEqual(['/v1/completions   return values.reduce(s']);
    expect(asked.filter((a) => !a.endsWith('reduce(s') && !(NATIVE && (a.endsWith('reduce(') || a.endsWith('sum + v'))))).toEqual([]);
    expect(result.notifications.filter((n) => n.level >= 3)).toEqual([]);
  }, 60_000);

  it('draws the suggestion apart from code in a terminal; <M-]> says it is asking, then that there is no other or no suggestion', async () => {
    // A slow answer to the key, as a local model loading; then nothing to suggest. 0.12 asks by itself first, as
    // insert mode begins (and gets nothing), and says how many suggestions there are rather than "no other".
    let calls = 0;
    const slow = NATIVE ? 2 : 1;
    model.setDefault({ kind: 'dynamic', respond: () => (++calls === slow ? { kind: 'text', content: 'um, v) => sum + v', delayMs: 1500 } : { kind: 'text', content: '' }) });
    const { result } = await runScenario(
      `
R.data.seen = {}
local function see(name) R.data.seen[name] = { ghost = T.ghost(), hint = T.hint(), line = T.line(), progress = vim.deepcopy(R.progress), notifications = vim.tbl_map(function(n) return n.message end, R.notifications) } end
local function said(pattern) return function() return T.notified(pattern) ~= nil end end
local typed
local function ask() vim.api.nvim_input('<M-]>') end
local function in_insert() return vim.api.nvim_get_mode().mode == 'i' end
-- 0.12 shows "(1/1)" after the one suggestion the server offers.
local function counted() local g = T.ghost()[1]; return g ~= nil and g.text[2] == ' (1/1)|ComplHintMore' end
T.cursor_on('(, 0);')
T.insert({
  T.native and { "insert mode and the answer to Neovim's own request", function() return in_insert() and T.answered == 1 end, ask } or { 'insert mode', in_insert, ask },
  { 'the asking line', function() return R.progress[#R.progress] == 'assistant-ls: asking the model…' end, function() see('asking') end },
  { 'the ghost text', function() return #T.ghost() > 0 end, function() see('shown'); vim.api.nvim_input('<M-]>') end },
  { 'no other suggestion', T.native and counted or said('no other suggestion'), function() see('noOther'); vim.api.nvim_input('<C-]>') end },
  { 'the dismissal', function() return #T.ghost() == 0 end, function() vim.api.nvim_input('x'); typed = uv.now() end },
  -- Typing asks too, silently.
  { 'a while after typing', function() return typed and uv.now() - typed > 800 end, function() see('typed'); vim.api.nvim_input('<M-]>') end },
  { 'no suggestion here', said('no suggestion here'), function() see('nothing'); vim.api.nvim_input('<Esc>') end },
})
local function cterm(group)
  local id = vim.fn.synIDtrans(vim.fn.hlID(group))
  return { fg = vim.fn.synIDattr(id, 'fg', 'cterm'), italic = vim.fn.synIDattr(id, 'italic', 'cterm'), bold = vim.fn.synIDattr(id, 'bold', 'cterm') }
end
R.data.termguicolors = vim.o.termguicolors
R.data.ghostHl = cterm(T.native and 'ComplHint' or 'AssistantGhost')
R.data.normalHl = cterm('Normal')
`,
      { fixture: 'completion', file: FILE, setup: setup(), helpers: HELPERS, prepare, timeoutMs: 40_000 },
    );
    const seen = result.data.seen as Record<string, Seen & { hint: string[]; progress: string[]; notifications: string[] }>;
    // Asked with the key: the line says so while the model works, and clears with the answer; so does the end of the
    // cursor's line, which the mode message does not cover.
    expect(seen.asking!.ghost).toEqual([]);
    expect(seen.asking!.progress).toEqual(['assistant-ls: asking the model…']);
    expect(seen.asking!.hint).toEqual(['  asking the model…|AssistantGhost']);
    expect(seen.shown!.progress).toEqual(['assistant-ls: asking the model…', '']);
    expect(seen.shown!.hint).toEqual([]);
    // In the plugin's own group (0.12: Neovim's), which (termguicolors off, as in a 256-colour terminal) has a cterm
    // colour or attribute that Normal has not.
    const hl = NATIVE ? 'ComplHint' : 'AssistantGhost';
    expect(seen.shown!.ghost[0]!.text[0]).toBe(`um, v) => sum + v|${hl}`);
    expect(result.data.termguicolors).toBe(false);
    const ghostHl = result.data.ghostHl as { fg: string; italic: string; bold: string };
    const normalHl = result.data.normalHl as { fg: string; italic: string; bold: string };
    expect(ghostHl.fg !== normalHl.fg || ghostHl.italic === '1' || ghostHl.bold === '1').toBe(true);
    expect(ghostHl.fg).not.toBe('');
    // The server offers one suggestion: the key says there is no other (0.12: that it is 1 of 1), and it stays.
    const noOther = NATIVE ? [] : ['assistant-ls: no other suggestion'];
    expect(seen.noOther!.ghost[0]!.text[0]).toBe(`um, v) => sum + v|${hl}`);
    if (NATIVE) expect(seen.noOther!.ghost[0]!.text[1]).toBe(' (1/1)|ComplHintMore');
    expect(seen.noOther!.notifications).toEqual(noOther);
    expect(seen.noOther!.hint).toEqual(NATIVE ? [] : ['  no other suggestion|AssistantGhost']);
    // Typing took that away.
    expect(seen.typed!.hint).toEqual([]);
    // Typing asked the model again without a word on screen.
    expect(seen.typed!.progress).toEqual(seen.shown!.progress);
    expect(seen.typed!.notifications).toEqual(seen.noOther!.notifications);
    expect(seen.typed!.line).toBe('  return values.reduce(x, 0);');
    // Asked with the key where the model has nothing: said in one line, and the asking line cleared.
    expect(seen.nothing!.notifications).toEqual([...noOther, 'assistant-ls: no suggestion here']);
    expect(seen.nothing!.progress.slice(2)).toEqual(['assistant-ls: asking the model…', '']);
    expect(seen.nothing!.hint).toEqual(['  no suggestion here|AssistantGhost']);
    expect(seen.nothing!.ghost).toEqual([]);
    expect(calls).toBe(NATIVE ? 4 : 3);
  }, 60_000);

  it('<M-]> right after a keystroke shows the suggestion that comes, and says nothing of a request it replaced', async () => {
    // Slow enough that the request typing makes (0.12: 200 ms after the key) comes while the key's still waits; the
    // server answers the older of the two with nothing.
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v', delayMs: 1000 });
    const { result } = await runScenario(
      `
local keyed, shown
T.cursor_on('(, 0);')
T.insert({
  { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input('s<M-]>'); keyed = uv.now() end },
  -- While the model works (on 0.12, for Neovim's own request, which replaced the key's): the note at the line's end.
  { 'a while after the key', function() return keyed and uv.now() - keyed > 700 end, function() R.data.waiting = T.hint() end },
  { 'the ghost text', function() return #T.ghost() > 0 end, function() R.data.ghosts = T.ghost(); shown = uv.now() end },
  { 'a moment after it', function() return uv.now() - shown > 400 end, function() R.data.hintShown = T.hint(); vim.api.nvim_input('<Esc>') end },
})
`,
      { fixture: 'completion', file: FILE, setup: setup(), helpers: HELPERS, prepare },
    );
    expect((result.data.ghosts as Seen['ghost'])[0]!.text[0]).toBe(`um, v) => sum + v|${NATIVE ? 'ComplHint' : 'AssistantGhost'}`);
    expect(result.notifications).toEqual([]);
    expect(result.progress).toEqual(['assistant-ls: asking the model…', '']);
    expect(result.data.waiting).toEqual(['  asking the model…|AssistantGhost']);
    expect(result.data.hintShown).toEqual([]);
  });

  it('says why there is no suggestion when <M-]> asks without a model agent, on the command line too', async () => {
    const { result } = await runScenario(
      `
-- Neovim's own vim.notify, which echoes: what the user reads is the screen's last line once Neovim redraws.
vim.notify = function(message, level)
  table.insert(R.notifications, { message = tostring(message), level = level or vim.log.levels.INFO })
  T.default_notify(message, level)
end
local function last_line()
  local cells = {}
  for col = 1, vim.o.columns do table.insert(cells, vim.fn.screenstring(vim.o.lines, col)) end
  return vim.trim(table.concat(cells))
end
T.cursor_on('(, 0);')
T.insert({
  { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input('<M-]>') end },
  { 'the reason', function() return T.notified('No suggestion') ~= nil end, function()
    R.data.hint = T.hint()
    vim.cmd('redraw')
    R.data.commandLine = last_line()
    vim.api.nvim_input('<Esc>')
  end },
})
R.data.ghosts = T.ghost()
R.data.hintAfter = T.hint()
`,
      { fixture: 'completion', file: FILE, setup: "{ settings = { useEnvironment = false, completion = { debounceMs = 0 } } }", helpers: HELPERS, prepare },
    );
    expect(result.notifications.map((n) => n.message)).toEqual(['assistant-ls: No suggestion: no model agent is configured (assistant.agents or completion.agent).']);
    // The server's message replaced the asking line, which is not cleared over it.
    expect(result.progress).toEqual(['assistant-ls: asking the model…']);
    expect(result.data.hint).toEqual(['  No suggestion: no model agent is configured (assistant.agents or completion.agent).|AssistantGhost']);
    // Where the user looks for it: on the command line, not covered by the mode message ('showmode').
    expect(result.data.commandLine).toBe('assistant-ls: No suggestion: no model agent is configured (assistant.agents or completion.agent).');
    // Leaving insert mode takes it away.
    expect(result.data.hintAfter).toEqual([]);
    expect(result.data.ghosts).toEqual([]);
  });

  it('scrolls the window so that a block suggestion near its bottom shows whole before it is accepted', async () => {
    const block = ['  const a = 1;', '  const b = 2;', '  const c = 3;', '  const d = 4;', '  const e = 5;', '  const f = 6;', '  const g = 7;', '  const h = 8;'];
    model.setDefault({ kind: 'text', content: block.join('\n') });
    const { result } = await runScenario(
      `
-- A window of 14 lines from the top of the file: the new line after \`total(…) {\` is its twelfth.
vim.o.lines = 16
T.cursor_on('export function total')
vim.fn.winrestview({ topline = 1 })
local function view() return { top = vim.fn.line('w0'), line = vim.fn.winline(), height = vim.api.nvim_win_get_height(0) } end
T.insert({
  { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() R.data.before = view(); vim.api.nvim_input('<End><CR>') end },
  -- Shown whole: the window scrolls just after the block is drawn (on 0.12 once Neovim's own request has completed).
  { 'the block shown whole', function() local g = T.ghost()[1]; return g ~= nil and #g.lines > 0 and vim.fn.winline() + #g.lines <= vim.api.nvim_win_get_height(0) end, function() R.data.ghost = T.ghost(); R.data.shown = view(); vim.api.nvim_input('<M-l>') end },
  { 'the accepted block', function() return T.text():find('const h = 8;', 1, true) ~= nil end, function() R.data.accepted = view(); vim.api.nvim_input('<Esc>') end },
})
`,
      { fixture: 'completion', file: FILE, setup: setup(), helpers: HELPERS },
    );
    const before = result.data.before as { top: number; line: number; height: number };
    const shown = result.data.shown as { top: number; line: number; height: number };
    // Its first line at the cursor, the other seven below: without scrolling, five of them were past the bottom.
    expect((result.data.ghost as Seen['ghost'])[0]!.lines).toEqual(block.slice(1));
    expect(before).toEqual({ top: 1, line: 11, height: 14 });
    expect(shown.line + block.length - 1).toBeLessThanOrEqual(shown.height);
    expect(shown.top).toBe(6);
    // What was shown is what went in.
    // (The new line's indent is the buffer's own: the first line goes in after it.)
    expect(result.text).toContain(`${block[0]!.trim()}\n${block.slice(1).join('\n')}\n  return values.reduce(`);
  });

  it('shows nothing and asks nothing with inline = { enabled = false }', async () => {
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v' });
    const { result } = await runScenario(
      `${DECLARES}
R.data.ghosts = {}
T.cursor_on('(, 0);')
local typed
T.insert({
  { 'insert mode', function() return vim.api.nvim_get_mode().mode == 'i' end, function() vim.api.nvim_input('s'); typed = uv.now() end },
  { 'a while', function() return typed and uv.now() - typed > 500 end, function() R.data.ghosts = T.ghost(); vim.api.nvim_input('<Esc>') end },
})
`,
      { fixture: 'completion', file: FILE, setup: setup(', inline = { enabled = false }'), helpers: HELPERS, prepare },
    );
    expect(result.text).toContain('  return values.reduce(s, 0);\n');
    expect(result.data.ghosts).toEqual([]);
    expect(model.requests).toEqual([]);
    expect(result.data.declares).toBe(false);
  });
});
