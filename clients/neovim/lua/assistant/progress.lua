-- Work-done progress of assistant-ls echoed as `title: message`, on top of Neovim's own $/progress handling.
local cancel = require('assistant.cancel')

local P = {}

--- Said after the message of work the server can stop; `''` leaves it out.
P.cancel_hint = ' · :AssistantCancel stops it'

-- Titles come only with `begin`; `report` and `end` name the token, so remember each token's title.
local titles = {}

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
  end
  local title = titles[key] or value.title or 'assistant-ls'
  if value.kind == 'end' then
    titles[key] = nil
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
