-- Ghost-text inline completion: `textDocument/inlineCompletion` shown as extmarks on Neovim 0.7–0.11, with keys to take all or part of it; from 0.12, the same keys over Neovim's own vim.lsp.inline_completion.
local I = {}

-- Names this module sends, in one place for the shim-name check.
I.method = 'textDocument/inlineCompletion'
I.accept_command = 'assistant.acceptCompletion'

I.defaults = {
  enabled = true,
  -- Meta and control keys that nvim-cmp, blink.cmp and snippet plugins leave alone; `false` leaves one unmapped.
  keys = {
    accept = '<M-l>',
    accept_word = '<M-Right>',
    accept_line = '<M-C-Right>',
    next = '<M-]>',
    prev = '<M-[>',
    dismiss = '<C-]>',
  },
  -- The plugin's own group (below), so that a colour scheme or the user can restyle ghost text alone.
  hl_group = 'AssistantGhost',
}

I.config = vim.deepcopy(I.defaults)

local api = vim.api
local ns = api.nvim_create_namespace('assistant_inline')

local has_010 = vim.fn.has('nvim-0.10') == 1
local has_011 = vim.fn.has('nvim-0.11') == 1
-- 0.12 asks as you type, shows and accepts inline completions itself (vim.lsp.inline_completion), and runs the item's
-- command; the plugin then only adds its keys and its explicit request.
I.native = vim.fn.has('nvim-0.12') == 1 and vim.lsp.inline_completion ~= nil
-- Where 0.12 draws its suggestion (in `ComplHint`); the same name gives the same namespace.
local native_ns = I.native and api.nvim_create_namespace('nvim.lsp.inline_completion') or nil

-- The group the plugin linked 0.12's `ComplHint` to, if it did.
local linked_hint

-- Grey, apart from the code in the terminal too: the default colour scheme of 0.10+ gives `Comment` no cterm colour,
-- so without 'termguicolors' a link to it would draw the suggestion exactly like typed code. `default` leaves a
-- colour scheme's or the user's own definition alone; `:colorscheme` clears the group, so it is set again after.
-- 0.12 draws in `ComplHint`, a link to `NonText`, which has no cterm colour either: left at that (or at the plugin's
-- link), it is linked to `hl_group`.
local function define_highlight()
  vim.cmd('highlight default AssistantGhost ctermfg=244 guifg=#808080 cterm=italic gui=italic')
  if not I.native or type(I.config.hl_group) ~= 'string' then
    return
  end
  for key, value in pairs(api.nvim_get_hl(0, { name = 'ComplHint' })) do
    if not (key == 'default' or (key == 'link' and (value == 'NonText' or value == linked_hint))) then
      return
    end
  end
  api.nvim_set_hl(0, 'ComplHint', { link = I.config.hl_group })
  linked_hint = I.config.hl_group
end
define_highlight()
api.nvim_create_autocmd('ColorScheme', { group = api.nvim_create_augroup('assistant_inline_highlight', { clear = true }), callback = define_highlight })

-- LSP InlineCompletionTriggerKind.
local INVOKED, AUTOMATIC = 1, 2

-- The one suggestion on screen (or awaited), for the buffer it belongs to:
-- bufnr, client, pending (request id), tick and row/col (byte) where it was asked, items, index, taken (the bytes of
-- the current item's text already inserted by accept word/line), own_tick (the buffer's tick after such an insertion).
local state = {}

local function assistant()
  return require('assistant')
end

local function is_null(value)
  return value == nil or value == vim.NIL
end

local function cursor()
  local row, col = unpack(api.nvim_win_get_cursor(0))
  return row - 1, col
end

local function in_insert_mode()
  return api.nvim_get_mode().mode:sub(1, 1) == 'i'
end

-- What the user is told while an explicit request waits: a local model can take half a minute to load.
I.asking_text = 'assistant-ls: asking the model…'

-- In insert mode Neovim's mode message ("-- INSERT --", 'showmode', on by default) covers what is echoed, so what the
-- user must see there (a request waiting, why there is nothing) is also drawn after the end of the cursor's line, in
-- the ghost-text group, until the next key or move, or for `ms` milliseconds.
local hint_ns = api.nvim_create_namespace('assistant_inline_hint')
local hint_seq = 0

local function clear_hint()
  if state.hint_buf and api.nvim_buf_is_valid(state.hint_buf) then
    api.nvim_buf_clear_namespace(state.hint_buf, hint_ns, 0, -1)
  end
  state.hint_buf = nil
end

local function hint(text, ms)
  clear_hint()
  if not in_insert_mode() then
    return
  end
  local bufnr = api.nvim_get_current_buf()
  local row = cursor()
  api.nvim_buf_set_extmark(bufnr, hint_ns, row, 0, { virt_text = { { '  ' .. text, I.config.hl_group } }, virt_text_pos = 'eol', priority = 210 })
  state.hint_buf = bufnr
  hint_seq = hint_seq + 1
  local seq = hint_seq
  if ms then
    vim.defer_fn(function()
      if hint_seq == seq then
        clear_hint()
      end
    end, ms)
  end
end

-- Clears the "asking" line once its request is answered, superseded or cancelled; not when the server's message
-- (its reason for answering nothing) has taken its place.
local function stop_asking()
  if state.asking then
    state.asking = nil
    if not state.told then
      require('assistant.progress').echo('')
      clear_hint()
    end
  end
end

local function cancel_pending()
  if state.pending and state.client then
    local client, id = state.client, state.pending
    if has_011 then
      client:cancel_request(id)
    else
      client.cancel_request(id)
    end
  end
  state.pending = nil
  stop_asking()
end

local function say(message)
  require('assistant.message').show(message, vim.log.levels.INFO)
  hint(message, 3000)
end

local function clear_marks()
  if state.bufnr and api.nvim_buf_is_valid(state.bufnr) then
    api.nvim_buf_clear_namespace(state.bufnr, ns, 0, -1)
  end
end

local function current_item()
  return state.items and state.items[state.index or 1] or nil
end

-- The item's text (a snippet's as written).
local function item_text(item)
  return type(item.insertText) == 'string' and item.insertText or (type(item.insertText) == 'table' and item.insertText.value) or nil
end

-- What the item would insert at the cursor: its text, when it inserts at the position asked for (the server's always
-- do: an empty range there); nil for an item that would replace text, which ghost text cannot show.
local function insert_text(item, position)
  local text = item_text(item)
  if not text or text == '' then
    return nil
  end
  local range = item.range
  if not is_null(range) then
    local s, e = range.start, range['end']
    if s.line ~= position.line or s.character ~= position.character or e.line ~= s.line or e.character ~= s.character then
      return nil
    end
  end
  return text
end

--- Records what the user took of the current item with its command (assistant.acceptCompletion): all of it, or the
--- start of it (`{ acceptedText }`) after accept word or line.
local function record(item, accepted, bufnr)
  local command = item and item.command
  if is_null(command) or type(command.command) ~= 'string' or accepted == '' then
    return
  end
  local arguments = vim.deepcopy(is_null(command.arguments) and {} or command.arguments)
  if accepted ~= item.text then
    table.insert(arguments, { acceptedText = accepted })
  end
  local client = state.client
  if client then
    assistant().request(client, 'workspace/executeCommand', { command = command.command, arguments = arguments }, function() end, bufnr)
  end
end

-- 0.12: whether Neovim shows a suggestion in the buffer (it hides it once the cursor leaves the place asked for).
local function native_shown(bufnr)
  return #api.nvim_buf_get_extmarks(bufnr, native_ns, 0, -1, { limit = 1 }) > 0
end

-- 0.12: the buffer's vim.lsp.inline_completion state. 0.12.4 offers no public way to show an answer the plugin asked
-- for itself (an explicit request, with its "asking" line and its "no suggestion"), so this reaches that state's
-- handler; nil where a later release changed it.
local function native_completor(bufnr)
  local ok, capability = pcall(require, 'vim.lsp._capability')
  local class = ok and type(capability.all) == 'table' and capability.all.inline_completion or nil
  local completor = class and type(class.active) == 'table' and class.active[bufnr] or nil
  if completor and type(completor.handler) == 'function' then
    return completor
  end
  return nil
end

--- Hides the suggestion. Part of it already taken with accept word or line is recorded then, as one acceptance.
function I.dismiss()
  cancel_pending()
  clear_hint()
  if I.native then
    -- Neovim's accept with nothing to insert: it hides the suggestion and cancels its requests.
    return vim.lsp.inline_completion.get({
      on_accept = function()
        return nil
      end,
    })
  end
  local item = current_item()
  if item and (state.taken or 0) > 0 then
    record(item, item.text:sub(1, state.taken), state.bufnr)
  end
  clear_marks()
  state.items, state.index, state.taken, state.own_tick = nil, nil, nil, nil
end

local function expand_tabs(text)
  return (text:gsub('\t', string.rep(' ', vim.bo.tabstop)))
end

-- A block drawn as `count` virtual lines below the cursor's line is cut at the bottom of the window (Neovim does not
-- scroll for virtual lines), yet accept inserts all of it: the window scrolls just enough for the whole block to show,
-- as far as the cursor's line can go up ('scrolloff' kept).
local function fit_block(count)
  local win = api.nvim_get_current_win()
  local line = vim.fn.winline()
  local scrolloff = vim.wo[win].scrolloff
  if scrolloff < 0 then
    scrolloff = vim.o.scrolloff
  end
  local step = math.min(count - (api.nvim_win_get_height(win) - line), line - 1 - scrolloff)
  if step > 0 then
    vim.fn.winrestview({ topline = vim.fn.line('w0') + step })
  end
end

-- 0.12: the block of Neovim's suggestion at the cursor, fitted as the plugin's own is.
local function fit_native(bufnr)
  if api.nvim_get_current_buf() ~= bufnr then
    return
  end
  local row = cursor()
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, native_ns, { row, 0 }, { row, -1 }, { details = true })) do
    if mark[4].virt_lines then
      fit_block(#mark[4].virt_lines)
    end
  end
end

-- Shows the rest of the current item (what accept has not taken yet) at the cursor.
local function render()
  clear_marks()
  local item = current_item()
  if not item then
    return
  end
  local rest = item.text:sub((state.taken or 0) + 1)
  local lines = vim.split(rest, '\n', { plain = true })
  local hl = I.config.hl_group
  local line = api.nvim_buf_get_lines(state.bufnr, state.row, state.row + 1, false)[1] or ''
  local after = line:sub(state.col + 1)
  local first = { { expand_tabs(lines[1]), hl } }
  local mark = { hl_mode = 'combine', priority = 200 }
  if has_010 then
    -- The text after the cursor moves right of the suggestion, as it will when the suggestion is inserted.
    mark.virt_text, mark.virt_text_pos = first, 'inline'
  elseif #lines == 1 then
    -- Before 0.10 virtual text cannot go inside a line: the suggestion covers the text after the cursor, which is
    -- drawn again after it.
    mark.virt_text, mark.virt_text_pos = { first[1], { expand_tabs(after), 'Normal' } }, 'overlay'
  else
    -- A block: the text after the cursor goes after its last line, as it will once inserted.
    local cover = string.rep(' ', math.max(0, vim.fn.strdisplaywidth(after) - vim.fn.strdisplaywidth(lines[1])))
    mark.virt_text, mark.virt_text_pos = { first[1], { cover, 'Normal' } }, 'overlay'
  end
  if #lines > 1 then
    mark.virt_lines = {}
    for i = 2, #lines do
      local chunks = { { expand_tabs(lines[i]), hl } }
      if i == #lines and not has_010 and after ~= '' then
        table.insert(chunks, { expand_tabs(after), 'Normal' })
      end
      table.insert(mark.virt_lines, chunks)
    end
  end
  api.nvim_buf_set_extmark(state.bufnr, ns, state.row, state.col, mark)
  if mark.virt_lines and api.nvim_get_current_buf() == state.bufnr then
    fit_block(#mark.virt_lines)
  end
end

-- Whether the client has an inline completion request for the buffer in flight other than `id`.
local function newer_request(client, bufnr, id)
  for other, request in pairs(type(client.requests) == 'table' and client.requests or {}) do
    if other ~= id and type(request) == 'table' and request.type == 'pending' and request.method == I.method and request.bufnr == bufnr then
      return true
    end
  end
  return false
end

-- 0.12: the key's request was superseded by Neovim's own, made as you type (the server answers the older with
-- nothing). The user asked: the "asking" note stays while Neovim's request runs, and what it brings ends it (its
-- suggestion, or "no suggestion here"); typing on, moving or leaving insert mode ends it silently.
local function follow_native(client, bufnr, request_id)
  local uv = vim.uv or vim.loop
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local started = uv.now()
  local answered = false
  -- The asking line and note are still up: the key's request ended without a word.
  state.asking = true
  local timer = uv.new_timer()
  timer:start(150, 150, vim.schedule_wrap(function()
    if timer:is_closing() then
      return
    end
    local finished, nothing = false, false
    if not state.asking or not in_insert_mode() or api.nvim_get_current_buf() ~= bufnr or api.nvim_buf_get_changedtick(bufnr) ~= tick then
      finished = true
    elseif native_shown(bufnr) then
      finished = true
    elseif answered then
      -- Neovim's request ended a tick ago and drew nothing.
      finished, nothing = true, true
    elseif not newer_request(client, bufnr, request_id) then
      answered = true
    elseif uv.now() - started > 120000 then
      finished = true
    end
    if finished then
      timer:stop()
      timer:close()
      if state.asking then
        stop_asking()
        if nothing then
          say('no suggestion here')
        end
      end
    end
  end))
end

--- Asks the server for a suggestion at the cursor; the answer is shown only if the buffer and the cursor are still as
--- they were. A request still in flight is cancelled (`$/cancelRequest`): only the newest is wanted.
function I.request(bufnr, trigger_kind)
  bufnr = bufnr or api.nvim_get_current_buf()
  -- 0.12 asks as you type by itself; the plugin asks only when a key does.
  if not I.config.enabled or (I.native and trigger_kind ~= INVOKED) then
    return
  end
  local client = assistant().client(bufnr)
  if not client then
    return
  end
  if I.native and not native_completor(bufnr) then
    return say('this Neovim shows suggestions as you type; a key cannot ask for one')
  end
  -- A request made as you type while one the user asked for still waits (keys typed ahead): it answers the user now,
  -- so the asking note stays and its outcome is said.
  local carried = state.asking and trigger_kind ~= INVOKED and state.bufnr == bufnr
  if carried then
    state.asking = nil
  end
  I.dismiss()
  state.bufnr, state.client = bufnr, client
  local row, col = cursor()
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local position = assistant().cursor_position(bufnr)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = position, context = { triggerKind = trigger_kind or AUTOMATIC } }
  local invoked = trigger_kind == INVOKED or carried
  local request_id
  local function on_answer(err, result)
    if request_id == nil or state.pending ~= request_id then
      return
    end
    state.pending = nil
    local superseded = I.native and invoked and #((not err and not is_null(result)) and (result.items or result) or {}) == 0 and not state.told and newer_request(client, bufnr, request_id)
    if superseded then
      return follow_native(client, bufnr, request_id)
    end
    stop_asking()
    local r, c = cursor()
    if api.nvim_get_current_buf() ~= bufnr or api.nvim_buf_get_changedtick(bufnr) ~= tick or r ~= row or c ~= col or not in_insert_mode() then
      return
    end
    local items = {}
    for _, item in ipairs((not err and not is_null(result)) and (result.items or result) or {}) do
      local text = I.native and item_text(item) or insert_text(item, position)
      if text and text ~= '' then
        table.insert(items, { text = text, command = item.command })
      end
    end
    if I.native and #items > 0 then
      -- Neovim shows it, as one it asked for.
      local completor = native_completor(bufnr)
      if completor then
        completor:handler(nil, result, { client_id = client.id, bufnr = bufnr, method = I.method })
      end
      return
    end
    if #items == 0 then
      -- Asked for with a key: an answer of nothing is said, unless the server already said why, or a newer request
      -- (0.12's own, as you type) superseded this one: the server answers that with nothing, and the newer one shows.
      if invoked and not state.told and not newer_request(client, bufnr, request_id) then
        say(err and ('no suggestion: ' .. tostring(err.message or err)) or 'no suggestion here')
      end
      return
    end
    state.items, state.index, state.taken, state.tick, state.row, state.col = items, 1, 0, tick, row, col
    render()
  end
  local ok, id
  if has_011 then
    ok, id = client:request(I.method, params, on_answer, bufnr)
  else
    ok, id = client.request(I.method, params, on_answer, bufnr)
  end
  if ok then
    request_id = id
    state.pending = id
    state.told = nil
    -- Only a request the user made with a key is announced; those made while typing stay silent.
    if invoked then
      state.asking = true
      if not carried then
        require('assistant.progress').echo(I.asking_text)
      end
      hint('asking the model…')
    end
  end
end

--- The server showed a message (`window/showMessage`): while an explicit request waits, that is its reason for
--- answering nothing (no model, an excluded file), so "no suggestion" need not be said over it.
function I.server_said(message)
  if state.pending then
    state.told = true
    if state.asking and type(message) == 'string' then
      hint(message, 5000)
    end
  end
end

-- The part of `rest` that accept word takes: spaces and the next word, or the next run of other characters.
local function next_word(rest)
  return rest:match('^%s*[%w_]+') or rest:match('^%s*[^%w_%s]+') or rest:match('^%s+') or rest
end

-- The part of `rest` that accept line takes: up to and with the next line break.
local function next_line(rest)
  local line = rest:match('^[^\n]*\n')
  if line == '\n' then
    line = rest:match('^\n[^\n]*\n') or rest
  end
  return line or rest
end

-- 0.12: the text typed since Neovim asked at the start of `item` (an empty range on the cursor's line), or nil. Neovim
-- asks again only 200 ms after a keystroke and shows the suggestion past what was typed meanwhile, but inserts it
-- where it was asked for, before that text.
local function native_typed(item, bufnr)
  if type(item.range) ~= 'table' or api.nvim_get_current_buf() ~= bufnr then
    return nil
  end
  local start_row, start_col, end_row, end_col = item.range:to_extmark()
  local row, col = cursor()
  if start_row ~= end_row or start_col ~= end_col or row ~= start_row or col < start_col then
    return nil
  end
  return (api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''):sub(start_col + 1, col), start_row, start_col
end

-- 0.12: takes Neovim's suggestion, or its next word or line, as one undo step, in place of what was typed since it
-- was asked for (nothing, when that is not how the suggestion starts: it is stale, and a new one is on its way). A
-- part goes in where the whole would, and its command says how much was taken (`{ acceptedText }`) at once: Neovim
-- then asks again, and the server answers the rest from its cache.
local function native_accept(how)
  local bufnr = api.nvim_get_current_buf()
  return vim.lsp.inline_completion.get({
    on_accept = function(item)
      vim.cmd('let &undolevels = &undolevels')
      local text = item.insert_text
      if type(text) ~= 'string' then
        -- A snippet, which Neovim expands whole.
        return item
      end
      local typed, row, col = native_typed(item, bufnr)
      if typed and not vim.startswith(text, typed) then
        return nil
      end
      typed = typed or ''
      local rest = text:sub(#typed + 1)
      local piece = typed .. (how == 'word' and next_word(rest) or how == 'line' and next_line(rest) or rest)
      local taken = vim.tbl_extend('force', {}, item, { insert_text = piece })
      if typed ~= '' then
        taken.range = vim.range.extmark(bufnr, row, col, row, col + #typed)
      end
      if piece ~= text and type(item.command) == 'table' then
        taken.command = vim.deepcopy(item.command)
        taken.command.arguments = is_null(taken.command.arguments) and {} or taken.command.arguments
        table.insert(taken.command.arguments, { acceptedText = piece })
      end
      return taken
    end,
  })
end

--- Whether a suggestion is on screen at the cursor.
function I.visible()
  if I.native then
    return native_shown(api.nvim_get_current_buf())
  end
  if not current_item() or state.bufnr ~= api.nvim_get_current_buf() then
    return false
  end
  local r, c = cursor()
  return r == state.row and c == state.col and api.nvim_buf_get_changedtick(state.bufnr) == state.tick
end

--- Inserts all of the suggestion ('all'), its next word ('word') or its next line ('line') at the cursor, as one
--- undo step, then records the acceptance with the item's command: at once when the whole item is in, else when the
--- rest is dismissed (so taking it word by word is one acceptance).
function I.accept(how)
  if I.native then
    return native_accept(how)
  end
  if not I.visible() then
    return false
  end
  local item = current_item()
  local rest = item.text:sub(state.taken + 1)
  local piece = how == 'word' and next_word(rest) or how == 'line' and next_line(rest) or rest
  local lines = vim.split(piece, '\n', { plain = true })
  local bufnr, row, col = state.bufnr, state.row, state.col
  -- Its own undo step, apart from what was typed before it.
  vim.cmd('let &undolevels = &undolevels')
  api.nvim_buf_set_text(bufnr, row, col, row, col, lines)
  local end_row = row + #lines - 1
  local end_col = #lines == 1 and col + #piece or #lines[#lines]
  api.nvim_win_set_cursor(0, { end_row + 1, end_col })
  state.taken = state.taken + #piece
  if state.taken >= #item.text then
    clear_marks()
    record(item, item.text, bufnr)
    state.items, state.index, state.taken, state.own_tick = nil, nil, nil, nil
    -- The next keystroke asks again; this insertion does not.
    state.own_tick = api.nvim_buf_get_changedtick(bufnr)
    return true
  end
  state.row, state.col, state.tick = end_row, end_col, api.nvim_buf_get_changedtick(bufnr)
  state.own_tick = state.tick
  render()
  return true
end

--- Shows the next (1) or previous (-1) of the server's suggestions; with none on screen, asks for one now.
--- assistant-ls answers one suggestion at a time, and asking again at the same place gives the same one (its cache):
--- with one on screen, the key says there is no other rather than doing nothing.
function I.cycle(step)
  if not I.visible() then
    return I.request(api.nvim_get_current_buf(), INVOKED)
  end
  if I.native then
    -- Neovim's own, which shows `(1/1)` after the one suggestion the server offers.
    return vim.lsp.inline_completion.select({ count = step })
  end
  if #state.items < 2 then
    return say('no other suggestion')
  end
  if state.taken > 0 then
    return
  end
  state.index = (state.index - 1 + step) % #state.items + 1
  render()
end

local function on_text_changed(bufnr)
  if state.own_tick and state.bufnr == bufnr and api.nvim_buf_get_changedtick(bufnr) == state.own_tick then
    -- The plugin's own insertion (accept word or line); the rest stays on screen.
    return
  end
  I.request(bufnr, AUTOMATIC)
end

local function on_cursor_moved(bufnr)
  if not state.asking then
    clear_hint()
  end
  if current_item() and state.bufnr == bufnr and api.nvim_buf_get_changedtick(bufnr) == state.tick and not I.visible() then
    I.dismiss()
  end
end

-- An insert-mode key that does `action` when a suggestion is on screen, and what it always does otherwise.
local function map_key(bufnr, lhs, action, always)
  if not lhs then
    return
  end
  vim.keymap.set('i', lhs, function()
    if always or I.visible() then
      return '<Cmd>lua require("assistant.inline").' .. action .. '<CR>'
    end
    return lhs
  end, { buffer = bufnr, expr = true, replace_keycodes = true, silent = true, desc = 'assistant-ls inline completion: ' .. action })
end

local attached = {}

--- Turns ghost text on in a buffer the assistant-ls client is attached to: requests as you type in insert mode, the
--- keys, and the suggestion hidden when you leave insert mode or the buffer, or move the cursor.
function I.attach(bufnr)
  if not I.config.enabled or attached[bufnr] then
    return
  end
  attached[bufnr] = true
  local group = api.nvim_create_augroup('assistant_inline_' .. bufnr, { clear = true })
  if I.native then
    -- Neovim asks as you type, and shows and hides its suggestion itself; a block it shows is fitted once drawn.
    vim.lsp.inline_completion.enable(true, { bufnr = bufnr })
    api.nvim_create_autocmd('LspRequest', {
      group = group,
      buffer = bufnr,
      callback = function(args)
        local request = args.data and args.data.request
        if request and request.type == 'complete' and request.method == I.method then
          vim.schedule(function()
            fit_native(bufnr)
          end)
        end
      end,
    })
  else
    api.nvim_create_autocmd('TextChangedI', { group = group, buffer = bufnr, callback = function() on_text_changed(bufnr) end })
    -- With the completion menu open, the menu is what the user looks at.
    api.nvim_create_autocmd('TextChangedP', { group = group, buffer = bufnr, callback = I.dismiss })
  end
  api.nvim_create_autocmd('CursorMovedI', { group = group, buffer = bufnr, callback = function() on_cursor_moved(bufnr) end })
  api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, { group = group, buffer = bufnr, callback = I.dismiss })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = bufnr,
    callback = function()
      attached[bufnr] = nil
      if state.bufnr == bufnr then
        state = {}
      end
    end,
  })
  local keys = I.config.keys
  map_key(bufnr, keys.accept, "accept('all')")
  map_key(bufnr, keys.accept_word, "accept('word')")
  map_key(bufnr, keys.accept_line, "accept('line')")
  map_key(bufnr, keys.dismiss, 'dismiss()')
  map_key(bufnr, keys.next, 'cycle(1)', true)
  map_key(bufnr, keys.prev, 'cycle(-1)', true)
end

--- The suggestion on screen, for tests and status lines: `{ text, rest }` or nil; nil on 0.12, whose suggestion is
--- Neovim's (its extmark is in I.namespace).
function I.current()
  local item = current_item()
  if not item then
    return nil
  end
  return { text = item.text, rest = item.text:sub((state.taken or 0) + 1) }
end

--- Where the suggestion is drawn: the plugin's namespace, or Neovim's from 0.12.
I.namespace = native_ns or ns
I.hint_namespace = hint_ns

function I.setup(config)
  I.config = vim.tbl_deep_extend('force', vim.deepcopy(I.defaults), config or {})
  define_highlight()
  if not I.config.enabled then
    I.dismiss()
    if I.native then
      -- Neovim's own asks no more in the buffers the plugin turned it on for, until they are attached again.
      for bufnr in pairs(attached) do
        if api.nvim_buf_is_valid(bufnr) then
          vim.lsp.inline_completion.enable(false, { bufnr = bufnr })
          pcall(api.nvim_del_augroup_by_name, 'assistant_inline_' .. bufnr)
        end
        attached[bufnr] = nil
      end
    end
  end
end

return I
