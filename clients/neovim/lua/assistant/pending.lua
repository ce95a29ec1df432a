-- Answers and edits to preview that arrive while the user is typing wait for :AssistantAnswers, off the user's keys.
local P = {}

-- Keys the user has typed so far. A model answers tens of seconds after the request, by when the user has gone on
-- with something else: any key since the request means the next keys belong to that, not to a picker.
local typed = 0
vim.on_key(function()
  typed = typed + 1
end, vim.api.nvim_create_namespace('assistant_ls_typed'))

-- The count when the plugin last sent a request or the server last began work (a code action chosen in Neovim's own
-- menu sends no request of the plugin's): a question from the server is about the newest of them.
local asked_at = 0

--- Notes that the user asked for something now; returns the mark `busy` compares with.
function P.asked()
  asked_at = typed
  return typed
end

--- Whether a picker opened now would take keys meant for something else: the user typed since `mark` (by default the
--- last request), is not in plain Normal mode (Insert, the command line, an operator or Visual), has keys typed ahead
--- or half a mapping, or records or plays a macro (the picker's keys would land in it).
function P.busy(mark)
  if typed > (mark or asked_at) then
    return true
  end
  if vim.api.nvim_get_mode().mode ~= 'n' then
    return true
  end
  if vim.fn.getchar(1) ~= 0 then
    return true
  end
  if vim.fn.reg_recording() ~= '' or vim.fn.reg_executing() ~= '' then
    return true
  end
  -- state() names a mapping or :normal under way (m) and a pending operator (o); 0.7 has it.
  local ok, state = pcall(vim.fn.state, 'mo')
  return ok and state ~= ''
end

-- The one choice that waits: { what = 'N answers for X', verb = 'to see it'?, open = function(), drop = function(why)? }.
-- A newer one replaces it (its `drop('replaced')` answers the server's question or edit, which would otherwise wait for
-- ever).
local waiting
-- Whether the user was shown the waiting choice once they were back in Normal mode (below).
local reminded = true

local function hint(entry)
  return ('%s: :AssistantAnswers %s'):format(entry.what, entry.verb or 'to choose')
end

--- Keeps a choice for :AssistantAnswers and says so with `say`; the one it replaces is dropped. `again` (the user
--- closed the picker without choosing) keeps it quietly, with a shorter word.
function P.offer(entry, say, again)
  local previous = waiting
  waiting = entry
  if previous and previous ~= entry and previous.drop then
    previous.drop('replaced')
  end
  if again then
    say(('still waiting: %s'):format(hint(entry)))
    return
  end
  -- Said in Insert mode, the line goes as the user leaves it: said again once they are idle in Normal mode.
  reminded = vim.api.nvim_get_mode().mode == 'n'
  say(hint(entry) .. ' (arrived while you were typing)')
end

--- The waiting choice, taken: :AssistantAnswers opens it.
function P.take()
  local entry = waiting
  waiting = nil
  return entry
end

--- The waiting choice, left in place.
function P.peek()
  return waiting
end

--- Drops the waiting choice if `which(entry)` says so (the cancelled work's question or edit); returns whether it did.
function P.drop_if(which)
  if waiting and which(waiting) then
    local entry = waiting
    waiting = nil
    if entry.drop then
      entry.drop('cancelled')
    end
    return true
  end
  return false
end

--- On CursorHold: the user is back in Normal mode and idle, so the word that arrived mid-typing is said again once.
--- Never the picker itself: whatever key the user presses next would go to it.
function P.remind(say)
  if waiting and not reminded then
    reminded = true
    say(hint(waiting))
  end
end

return P
