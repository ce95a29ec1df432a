-- Work-done progress of assistant-ls echoed as `title: message`, on top of Neovim's own $/progress handling.
local cancel = require('assistant.cancel')

local P = {}

--- Said after the message of work the server can stop; `''` leaves it out.
P.cancel_hint = ' · :AssistantCancel stops it'

-- Titles come only with `begin`; `report` and `end` name the token, so remember each token's title.
local titles = {}
-- How many messages the plugin has shown, and the count when each token began: an outcome said during the work
-- (no usable answer, a discard) must stay on screen, not be covered by the progress that follows it.
local said = 0
local said_at_begin = {}
-- When the last outcome was said: a plain `done` of another token that began just after it (the server may report
-- applying the chosen answer under a token of its own) would cover it as well.
local said_last = -math.huge
local OUTCOME_KEPT_MS = 2000

--- Notes that the plugin showed the user a message (an outcome), which a later `done` must not cover. In insert mode
--- the next redraw would draw the mode message ('showmode': `-- INSERT --`) over it, on every version: that redraw is
--- made now without it, so the message stays on the command line (until the next message or mode change, as in
--- normal mode).
function P.said()
  said = said + 1
  said_last = vim.loop.now()
  if vim.o.showmode and vim.api.nvim_get_mode().mode:sub(1, 1) == 'i' then
    vim.o.showmode = false
    vim.cmd('redraw')
    vim.o.showmode = true
  end
end

--- How many messages the plugin has shown so far: a request compares it before and after, to leave a message said
--- meanwhile (a warning) on screen rather than cover it with a plain outcome.
function P.said_count()
  return said
end

--- `text` cut to fit the command line with `tail` after it, so the tail (how to cancel) is never what is cut.
function P.fit(text, tail)
  -- Longer than the command line would turn into a hit-enter prompt in the middle of work.
  local width = math.max(20, (tonumber(vim.v.echospace) or (vim.o.columns - 12)) - 1) - vim.fn.strdisplaywidth(tail)
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, math.max(1, width - 3)) .. '...'
  end
  return text .. tail
end

--- Shows one progress line; a function of its own so a status line plugin (or a test) can take it over.
function P.echo(text)
  -- Right after a picker (inputlist on 0.7) the message area is still scrolled, and each echo would add a line and
  -- end in a hit-enter prompt; a redraw first makes it one line that the next one replaces.
  vim.cmd('redraw')
  vim.api.nvim_echo({ { text } }, false, {})
end

--- A $/progress handler for the assistant-ls client: runs the default handler first (which keeps
--- get_progress_messages(), User LspProgressUpdate on 0.7 and LspProgress/vim.lsp.status() on 0.10+ working), then
--- echoes the step.
function P.handler(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  local returned
  if default then
    returned = default(err, result, ctx, config)
  end
  local value = type(result) == 'table' and result.value or nil
  if type(value) ~= 'table' or not value.kind then
    return returned
  end
  local key = tostring(ctx and ctx.client_id) .. ':' .. tostring(result.token)
  cancel.progress(ctx and ctx.client_id, result.token, value)
  if value.kind == 'begin' then
    titles[key] = value.title
    said_at_begin[key] = said
  end
  local title = titles[key] or value.title or 'assistant-ls'
  -- Once the work's outcome was said, a step still queued behind it or a plain `done` would cover it; `cancelled` or
  -- `failed` still says how the work ended.
  local plain = value.message == nil or value.message == vim.NIL or value.message == 'done'
  local covered = (value.kind == 'report' or plain)
    and ((said_at_begin[key] ~= nil and said_at_begin[key] ~= said) or vim.loop.now() - said_last < OUTCOME_KEPT_MS)
  if value.kind == 'end' then
    titles[key] = nil
    said_at_begin[key] = nil
  end
  if covered then
    return returned
  end
  local message = value.message
  if message == nil or message == vim.NIL then
    message = value.kind == 'begin' and 'started' or value.kind == 'end' and 'done' or ''
  end
  local text = title .. ': ' .. message
  if type(value.percentage) == 'number' and value.kind == 'report' then
    text = text .. (' (%d%%)'):format(value.percentage)
  end
  P.echo(P.fit(text, cancel.cancellable(ctx and ctx.client_id, result.token) and P.cancel_hint or ''))
  return returned
end

return P
