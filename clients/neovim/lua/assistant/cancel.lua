-- What :AssistantCancel can stop: this plugin's requests in flight and the cancellable progress the server reported.
local C = {}

-- [client id] = { [request id] = method }: requests the plugin sent and has no answer to yet.
local requests = {}
-- [client id] = { [token] = title }: progress the server began as cancellable and has not ended. The server creates
-- a token for every long request, also for work Neovim itself started (a code action chosen in the built-in menu).
local tokens = {}

local function of(store, client_id)
  if client_id == nil then
    return {}
  end
  store[client_id] = store[client_id] or {}
  return store[client_id]
end

function C.request_sent(client_id, request_id, method)
  of(requests, client_id)[request_id] = method
end

function C.request_answered(client_id, request_id)
  if request_id ~= nil then
    of(requests, client_id)[request_id] = nil
  end
end

--- Whether the plugin waits for an answer of this client (whose message then says what an edit did meanwhile).
function C.in_flight(client_id)
  return next(of(requests, client_id)) ~= nil
end

--- Follows one `$/progress` value: a cancellable `begin` is remembered until its `end`.
function C.progress(client_id, token, value)
  if token == nil then
    return
  end
  if value.kind == 'begin' and value.cancellable == true then
    of(tokens, client_id)[token] = value.title or 'assistant-ls'
  elseif value.kind == 'end' then
    of(tokens, client_id)[token] = nil
  end
end

--- Whether the client has a progress the server said it can cancel (the echo then says how).
function C.cancellable(client_id, token)
  return of(tokens, client_id)[token] ~= nil
end

--- Asks the server to stop everything of this client: `$/cancelRequest` for the requests (through `cancel_request`),
--- `window/workDoneProgress/cancel` for the tokens. Returns what was cancelled, by title, for the message.
function C.cancel(client_id, cancel_request, notify)
  local progress_titles, methods = {}, {}
  for token, title in pairs(of(tokens, client_id)) do
    notify('window/workDoneProgress/cancel', { token = token })
    progress_titles[title] = true
  end
  for request_id, method in pairs(of(requests, client_id)) do
    cancel_request(request_id)
    methods[method] = true
  end
  tokens[client_id] = nil
  requests[client_id] = nil
  -- A request that ran a moment has its progress, whose title says more than the method's name.
  local list = vim.tbl_keys(next(progress_titles) and progress_titles or methods)
  table.sort(list)
  return list
end

return C
