-- The plugin's outcome messages: one line fitted to the echo area (no hit-enter prompt), the whole text in :messages.
local M = {}

M.prefix = 'assistant-ls: '

--- Said after a message that was cut, when the line has room for it: where the whole text is.
M.more_hint = ' (:messages)'

local levels = vim.log.levels
local highlights = { [levels.ERROR] = 'ErrorMsg', [levels.WARN] = 'WarningMsg' }

local stripped_runtime = vim.fn.has('nvim-0.12') == 1

-- Whether vim.notify is still Neovim's own, which echoes the text as it is (and a long one ends in a hit-enter
-- prompt). 0.12 runs its runtime from stripped bytecode, whose functions name no file.
local function own_notify()
  local info = debug.getinfo(vim.notify, 'S')
  local source = info and info.source or ''
  if source:find('vim/_editor%.lua$') or source:find('vim/_core/editor%.lua$') then
    return true
  end
  return stripped_runtime and (source == '?' or source == '=?')
end

-- Whether a UI draws the messages itself (ext_messages: noice, 0.12's ui2); Neovim's message grid then never prompts.
local function ui_shows_messages()
  for _, ui in ipairs(vim.api.nvim_list_uis()) do
    if ui.ext_messages then
      return true
    end
  end
  return false
end

--- The columns a message can take on the last line without scrolling it (hence a hit-enter prompt), one kept free.
function M.width()
  return math.max(20, (tonumber(vim.v.echospace) or (vim.o.columns - 12)) - 1)
end

local function cut(text, width)
  -- No more characters than columns (each takes one or two), then fewer until they fit.
  local kept = math.min(vim.fn.strchars(text), width)
  while kept > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, kept)) > width do
    kept = kept - 1
  end
  local head = vim.fn.strcharpart(text, 0, kept)
  -- At a word's end when one is near, so the line does not stop mid-word.
  local at_space = head:match('^(.*%S)%s+%S*$')
  if at_space and vim.fn.strdisplaywidth(at_space) >= width * 2 / 3 then
    head = at_space
  end
  return head
end

--- The line the message area shows for `text` and whether it is all of it: its first line, cut with `…` to fit
--- `width` columns; when anything is left out, `more_hint` follows if the line keeps 20 columns of text beside it.
function M.fit(text, width)
  local first = text:match('^[^\n]*')
  local whole = first == text
  if whole and vim.fn.strdisplaywidth(first) <= width then
    return first, true
  end
  local hint = M.more_hint
  if width - vim.fn.strdisplaywidth(hint) - 1 < 20 then
    hint = ''
  end
  local room = width - vim.fn.strdisplaywidth(hint) - 1
  local head = vim.fn.strdisplaywidth(first) <= room and first or cut(first, room)
  -- A comma or colon the cut left at the end would read as the sentence's own.
  return (head:gsub('[%s,;:]+$', '')) .. '…' .. hint, false
end

-- Shows `text` in the message area without a hit-enter prompt and keeps it whole in the message history.
local function echo(text, hl)
  local shown, whole = M.fit(text, M.width())
  -- Whatever scrolled the message area before (the list of a picker on 0.7) would make this a second line.
  vim.cmd('redraw')
  -- :echomsg keeps the whole line in :messages and, with 'shortmess' T (the default), draws it cut to one line where
  -- Neovim is idle; inside a typed command it scrolls instead, which a redraw undoes once the history has it. A
  -- multi-line text goes line by line. 'more' off: a text longer than the screen would stop at the more-prompt.
  local shortmess, more, cmdheight = vim.o.shortmess, vim.o.more, vim.o.cmdheight
  if not shortmess:find('T', 1, true) then
    vim.o.shortmess = shortmess .. 'T'
  end
  vim.o.more = false
  -- With no command line (0.8+'s 'cmdheight' 0) nothing is cut, and a line on top of the status line scrolls.
  if cmdheight == 0 and not whole then
    vim.o.cmdheight = 1
  end
  -- Set by Neovim when the screen scrolls up for a message, if it is empty; put back when nothing scrolled.
  local scrollstart = vim.v.scrollstart
  vim.v.scrollstart = ''
  local ok, err = pcall(function()
    vim.cmd('echohl ' .. (hl or 'None'))
    for line in (text .. '\n'):gmatch('([^\n]*)\n') do
      vim.cmd('echomsg ' .. vim.fn.string(line))
    end
  end)
  vim.cmd('echohl None')
  vim.o.more = more
  local resized = vim.o.cmdheight ~= cmdheight
  if resized then
    vim.o.cmdheight = cmdheight
  end
  if vim.o.shortmess ~= shortmess then
    vim.o.shortmess = shortmess
  end
  if not ok then
    error(err, 0)
  end
  local scrolled = vim.v.scrollstart ~= ''
  if not scrolled then
    vim.v.scrollstart = scrollstart
  end
  local redrawn = resized or scrolled
  if redrawn then
    vim.cmd('redraw')
  end
  if not whole or redrawn then
    vim.api.nvim_echo({ { shown, hl } }, false, {})
  end
end

--- Shows one message of the plugin's (an outcome, a warning, an error) at its level, prefixed with its name. With
--- Neovim's own vim.notify: one line that fits the message area (its first line, cut with `…` when it must be, and
--- `(:messages)` then), the whole text in :messages, highlighted as a warning or an error. A vim.notify replaced by
--- a notification plugin, or a UI that draws messages itself, gets the whole text to show its own way.
function M.show(message, level)
  local text = M.prefix .. tostring(message)
  if own_notify() and not ui_shows_messages() then
    echo(text, highlights[level])
  else
    vim.notify(text, level or levels.INFO)
  end
  require('assistant.progress').said()
end

return M
