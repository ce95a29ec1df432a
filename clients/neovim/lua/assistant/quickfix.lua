-- Trace interactions as quickfix items: where the code went (or what it was about) and a one-line summary.
local Q = {}

local function present(value)
  return value ~= nil and value ~= vim.NIL
end

-- The response the user applied (or was shown), if any.
function Q.used_response(interaction)
  for _, response in ipairs(interaction.responses or {}) do
    if response.used == true then
      return response
    end
  end
  return nil
end
local used_response = Q.used_response

-- The response that was applied and then discarded (it never reached the file on disk), if any.
function Q.discarded_response(interaction)
  for _, response in ipairs(interaction.responses or {}) do
    if response.outcome == 'discarded-after-apply' then
      return response
    end
  end
  return nil
end

-- Where an entry leads, as a file name and an LSP position (nil: nowhere): the `place` the server gives each
-- interaction in the trace (its code where it is now, else the code it was about, else the first place a workspace
-- question's answer cites, else the file it was asked in), so every client leads to the same place.
local function location(interaction)
  local place = interaction.place
  if not (present(place) and type(place.uri) == 'string' and present(place.range)) then
    return nil
  end
  return vim.uri_to_fname(place.uri), place.range.start
end

-- What the entry's place is when it is not the interaction's own code: what the answer cited, or where it was asked.
local function place_note(interaction)
  local place = interaction.place
  if not present(place) then
    return nil
  end
  if place.kind == 'cited' then
    local more = tonumber(place.more) or 0
    return 'cites ' .. tostring(place.label or 'a place') .. (more > 0 and ' (+' .. more .. ' more)' or '')
  elseif place.kind == 'askedFrom' then
    return 'asked here, cites nothing'
  end
  return nil
end

--- `document ConfigStore.load by doc-offline (used) 2026-05-01T10:00:00.000Z [1a2b3c4d]`: task, what it was about,
--- who answered, whether it is in the code, what its place is when a workspace question leads where its answer cites
--- (`cites function withRetry (+4 more)`), when, and the start of the id that names the trace record.
function Q.text(interaction)
  local context = interaction.context or {}
  local used = used_response(interaction)
  local discarded = not used and Q.discarded_response(interaction) or nil
  local parts = { tostring(interaction.task or '?') }
  -- A question is about the workspace: what was asked says which one it is.
  if interaction.task ~= 'question' and present(context.symbol) then
    table.insert(parts, context.symbol)
  elseif present(interaction.text) and interaction.text ~= '' then
    table.insert(parts, '"' .. (interaction.text:gsub('%s+', ' ')) .. '"')
  end
  local agents = {}
  for _, response in ipairs((used or discarded) and { used or discarded } or interaction.responses or {}) do
    if type(response.agent) == 'table' then
      table.insert(agents, response.agent.name)
    end
  end
  if #agents > 0 then
    table.insert(parts, 'by ' .. table.concat(agents, ', '))
  end
  if used then
    local reverts_discarded = type(used.revertsDiscardedAt) == 'table' and #used.revertsDiscardedAt > 0
    table.insert(parts, present(used.revertedAt) and '(used, reverted)' or reverts_discarded and '(used, revert discarded)' or '(used)')
  elseif discarded then
    table.insert(parts, '(discarded after apply)')
  elseif vim.tbl_contains(vim.tbl_map(function(r) return r.outcome end, interaction.responses or {}), 'discarded') then
    -- Looked at in the preview and discarded: nothing was applied.
    table.insert(parts, '(discarded)')
  elseif #(interaction.responses or {}) == 0 and present(interaction.message) then
    table.insert(parts, '(' .. interaction.message .. ')')
  else
    local statuses = vim.tbl_map(function(r) return r.status end, interaction.responses or {})
    if vim.tbl_contains(statuses, 'cancelled') then
      table.insert(parts, '(cancelled)')
    elseif #statuses > 0 and not vim.tbl_contains(statuses, 'ok') then
      -- Every agent failed or ran out of time: the entry leads to the request, not to code.
      table.insert(parts, '(no answer)')
    end
  end
  local note = place_note(interaction)
  if note then
    table.insert(parts, note)
  end
  table.insert(parts, tostring(interaction.timestamp or ''))
  table.insert(parts, '[' .. tostring(interaction.id or ''):sub(1, 8) .. ']')
  return table.concat(parts, ' ')
end

--- One quickfix item per interaction, in the trace's order (newest first).
function Q.items(interactions)
  local items = {}
  for _, interaction in ipairs(interactions) do
    local filename, start = location(interaction)
    local item = { text = Q.text(interaction) }
    if filename then
      item.filename = filename
      -- LSP characters are UTF-16 units, quickfix columns bytes; they agree on ASCII lines, and the line is what
      -- matters here.
      item.lnum = start and start.line + 1 or 1
      item.col = start and start.character + 1 or 1
    else
      -- Free text that matched no task, asked with no file open, has nowhere to jump to; the entry still lists it.
      item.valid = 0
    end
    table.insert(items, item)
  end
  return items
end

return Q
