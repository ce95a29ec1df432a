-- assistant-ls client for Neovim 0.7+: starts the server per project root and adds the :Assistant* commands.
local answer = require('assistant.answer')
local cancel = require('assistant.cancel')
local inline = require('assistant.inline')
local message_line = require('assistant.message')
local pending = require('assistant.pending')
local preview = require('assistant.preview')
local progress = require('assistant.progress')
local quickfix = require('assistant.quickfix')

local M = {}

-- Every method and command name this plugin sends, in one place so a test can check each against the server's
-- declarations (CUSTOM_METHODS and ALL_COMMANDS in protocol/src). Code actions need none of them: the built-in
-- vim.lsp.buf.code_action() resolves them and runs the command the server attaches.
M.methods = {
  ask = 'assistant/ask',
  apply = 'assistant/apply',
  trace = 'assistant/trace',
  rate = 'assistant/rate',
  revert = 'assistant/revert',
  discard = 'assistant/discard',
  agents = 'assistant/agents',
  document = 'assistant.document',
  check_types = 'assistant.checkTypes',
  apply_patch = 'assistant.applyPatch',
  -- Sent by the built-in code-action flow, never by this plugin; listed so the name check covers it.
  response_applied = 'assistant.responseApplied',
  -- Offered by the server as a code action on annotated code; the built-in flow runs it.
  show_interaction = 'assistant.showInteraction',
  -- Sent by the server with a text answer (Explain from the code-action menu), since the plugin declares it.
  show_answer = 'assistant/showAnswer',
}

M.client_name = 'assistant-ls'

local defaults = {
  cmd = { 'assistant-ls', '--stdio' },
  filetypes = { 'typescript', 'javascript', 'typescriptreact', 'javascriptreact' },
  root_markers = { 'package.json', 'tsconfig.json', '.git' },
  settings = {},
  -- Ghost text (inline completion): `enabled`, `keys`, `hl_group`; see assistant.inline.
  inline = inline.defaults,
}

M.config = vim.deepcopy(defaults)

local levels = vim.log.levels
local uv = vim.uv or vim.loop
-- 0.11 turned client methods into `client:method()` and changed the str_utfindex signature; 0.7 has neither.
local has_011 = vim.fn.has('nvim-0.11') == 1
-- 0.10 runs a server request's handler in a coroutine, so it can wait for the user; before, it answers at once.
local has_010 = vim.fn.has('nvim-0.10') == 1

-- Clients started on 0.7 (which has no vim.lsp.start and its reuse rule), by root directory.
local clients_by_root = {}

-- What an answer's message adds at its end: the files its edit changed in hidden buffers (preview.take_note).
local trailing_note

local function notify(message, level)
  if trailing_note then
    message = message .. (message:find('[.!?]$') and ' ' or '. ') .. trailing_note
    trailing_note = nil
  end
  message_line.show(message, level or levels.INFO)
end

-- An empty Lua table encodes as a JSON array; the server wants objects for settings and queries.
local function object(value)
  if type(value) ~= 'table' or next(value) == nil then
    return vim.empty_dict()
  end
  return value
end

local function is_null(value)
  return value == nil or value == vim.NIL
end

--- The nearest directory, from the file's upward, holding one of the markers; the working directory otherwise.
function M.find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return vim.fn.getcwd()
  end
  local dir = vim.fn.fnamemodify(name, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(M.config.root_markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.getcwd()
end

local message_levels = { [1] = levels.ERROR, [2] = levels.WARN, [3] = levels.INFO, [4] = levels.DEBUG }

--- The server's messages (a failed agent named beside the answer used, a refused edit) shown as the plugin's own, at
--- their level (assistant.message: fitted to the message line, whole in :messages, or through a notification plugin's
--- vim.notify): 0.7 writes all but errors with nvim_out_write, which notification plugins never see, and Neovim's own
--- handler ends a long one in a hit-enter prompt.
local function show_message(_, result)
  if type(result) == 'table' and type(result.message) == 'string' then
    -- The plugin names the server itself: a message that starts with the name (for other editors) says it once.
    local text = result.message
    if text:sub(1, #message_line.prefix) == message_line.prefix then
      text = text:sub(#message_line.prefix + 1)
    end
    notify(text, message_levels[result.type] or levels.INFO)
    inline.server_said(result.message)
  end
  return vim.NIL
end

--- The server's questions (which of several answers, apply anyway) with vim.ui.select where Neovim lets a handler
--- wait for it (0.10+ run server requests in a coroutine), its message as the prompt as it is: Neovim's own handler
--- adds ': ' to it, which lands after the last line the server wrote (an answer's summary). A question that comes
--- while the user is typing waits for :AssistantAnswers (the server waits too). Before 0.10, Neovim's own handler
--- asks at once with inputlist(), the message above the choices: a handler there cannot answer later.
function M.show_message_request(err, params, ctx, config)
  local co, is_main = coroutine.running()
  if not co or is_main or type(params) ~= 'table' then
    local choice = vim.lsp.handlers['window/showMessageRequest'](err, params, ctx, config)
    -- The user's choice is a request of theirs: the keys typed to make it do not hold back the edit it leads to.
    pending.asked()
    return choice
  end
  local message = tostring(params.message or '')
  local answered = false
  local function answer(choice)
    if answered then
      return
    end
    answered = true
    if choice then
      pending.asked()
    end
    -- Resumed later, so the coroutine has yielded even when vim.ui.select answers at once.
    vim.schedule(function()
      coroutine.resume(co, choice or vim.NIL)
    end)
  end
  local entry
  local function ask(deferred)
    vim.ui.select(params.actions or {}, {
      kind = 'lsp_message',
      prompt = message,
      format_item = function(action)
        return (tostring(action.title):gsub('\r?\n', ' '))
      end,
    }, function(choice)
      -- Closed without a choice when it had waited: it waits on (its Discard, or the server's Cancel, says no).
      if choice == nil and deferred then
        return pending.offer(entry, notify, true)
      end
      answer(choice)
    end)
  end
  if not pending.busy() then
    ask(false)
    return coroutine.yield()
  end
  local first_line = message:match('^[^\n]*')
  local answers = first_line:match('^(%d+ answers for .-):?$')
  entry = {
    what = answers and (answers .. ' are ready') or ('the server asks: ' .. first_line),
    client_id = ctx and ctx.client_id,
    open = function()
      ask(true)
    end,
    -- Replaced by newer answers, or its work cancelled: the server hears "no choice" and says so.
    drop = function()
      answer(nil)
    end,
  }
  pending.offer(entry, notify)
  return coroutine.yield()
end

-- Before 0.10 (no LspRequest event), the requests Neovim's own code-action menu sends: the choice there is the user's
-- request (its keys must not hold back the edit it leads to), and an edit the preview declined unseen meanwhile is
-- offered again from the command's answer, as for the plugin's own requests.
local function watch_menu_requests(client)
  local own = client.request
  client.request = function(method, params, handler, bufnr)
    if method ~= 'workspace/executeCommand' and method ~= 'codeAction/resolve' then
      return own(method, params, handler, bufnr)
    end
    pending.asked()
    -- A handler of its own is the plugin's (M.request sees the answer) or resolve's, whose answer is no command's.
    if handler then
      return own(method, params, handler, bufnr)
    end
    return own(method, params, function(err, result, ctx, config)
      if not err and M.offer_declined(client, method, params, result, bufnr) then
        return
      end
      local fallback = client.handlers[method] or vim.lsp.handlers[method]
      if fallback then
        return fallback(err, result, ctx, config)
      end
    end, bufnr)
  end
end

local function client_config(root)
  local settings = object(M.config.settings)
  -- Text answers come as assistant/showAnswer, shown whole in a buffer, instead of a message Neovim would cut.
  local capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), { experimental = { assistant = { showAnswer = true } } })
  -- LSP 3.18's inline completion, shown by this plugin (or 0.12's own): a local model then loads as a file opens.
  -- Turned off, it is not declared at all (0.12 declares it by default), so the server loads no model for it.
  capabilities.textDocument = capabilities.textDocument or {}
  capabilities.textDocument.inlineCompletion = M.config.inline.enabled and { dynamicRegistration = false } or nil
  return {
    name = M.client_name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    -- initializationOptions reach every version; `settings` answers workspace/configuration, which 0.8+ declare.
    init_options = { assistant = settings },
    settings = { assistant = settings },
    -- Change annotations declared too, so edits the user should see first come marked for confirmation.
    capabilities = preview.capabilities(capabilities),
    on_init = function(client)
      if not has_010 then
        watch_menu_requests(client)
      end
    end,
    -- Per-client handlers, so other servers keep the default handling untouched.
    handlers = {
      ['$/progress'] = progress.handler,
      [M.methods.show_answer] = answer.handler,
      ['window/showMessage'] = show_message,
      ['window/showMessageRequest'] = M.show_message_request,
      ['workspace/applyEdit'] = preview.handler,
    },
  }
end

local warned_missing = false

--- Starts (or reuses) the client for the buffer's root and attaches the buffer to it.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  -- Only real files: help, quickfix and scratch buffers have no document the server could read.
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return nil
  end
  -- Checked here because 0.7 reports a missing binary only in its log; 0.10+ also accept a function as cmd.
  if type(M.config.cmd) == 'table' and vim.fn.executable(M.config.cmd[1]) ~= 1 then
    if not warned_missing then
      warned_missing = true
      notify(('cannot start %q: not executable (see clients/neovim/README.md)'):format(M.config.cmd[1]), levels.ERROR)
    end
    return nil
  end
  local root = M.find_root(bufnr)
  if vim.lsp.start then
    -- 0.8+: vim.lsp.start reuses a client with the same name and root_dir, which is one client per root.
    local started = vim.lsp.start(client_config(root), { bufnr = bufnr })
    if started then
      inline.attach(bufnr)
    end
    return started
  end
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    local config = client_config(root)
    config.on_exit = function(_, _, client_id)
      if clients_by_root[root] == client_id then
        clients_by_root[root] = nil
      end
    end
    id = vim.lsp.start_client(config)
    if not id then
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  inline.attach(bufnr)
  return id
end

local function all_clients(filter)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  -- 0.7: buf_get_clients is a map from id to client and only lists initialized clients.
  local list = {}
  local source = filter.bufnr and vim.lsp.buf_get_clients(filter.bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(source) do
    if client.name == filter.name then
      table.insert(list, client)
    end
  end
  return list
end

--- The assistant-ls client of a buffer; with `any`, any running one (for buffers such as the quickfix window).
function M.client(bufnr, any)
  local client = all_clients({ bufnr = bufnr, name = M.client_name })[1]
  if not client and any then
    client = all_clients({ name = M.client_name })[1]
  end
  return client
end

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify_server(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function cancel_request(client, id)
  if has_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

-- The JSON-RPC code of a request the client or the user cancelled.
local REQUEST_CANCELLED = -32800

-- The answers that name the response they applied: the plugin's assistant/apply (its params do) and a task command's.
local function applied_ids(method, params, result)
  if method == M.methods.apply and type(params) == 'table' then
    return params.interactionId, params.responseId
  end
  if method == 'workspace/executeCommand' and type(result) == 'table' then
    return result.interactionId, result.responseId
  end
  return nil, nil
end

--- When the edit the answer to a request led to was declined unseen by the preview (it came while the user typed,
--- before 0.10; or its document moved while it waited for :AssistantAnswers), offers that answer again through
--- assistant/apply, which moves it onto the text as it is then, or asks for it at once when the user is waiting to see
--- it; returns whether it did, so the answer's own "not applied" is not said as well. The trace keeps the answer.
function M.offer_declined(client, method, params, result, bufnr)
  local interaction_id, response_id = applied_ids(method, params, result)
  if type(result) ~= 'table' or result.applied == true or type(interaction_id) ~= 'string' or type(response_id) ~= 'string' then
    return false
  end
  local declined = preview.take_declined(client.id)
  if not declined then
    return false
  end
  local function again()
    M.request(client, M.methods.apply, { interactionId = interaction_id, responseId = response_id }, function(applied)
      if preview.discarded(applied) then
        return
      end
      if applied.applied then
        notify(is_null(applied.message) and 'applied' or applied.message)
      else
        notify(('not applied (%s)%s'):format(applied.outcome or '?', is_null(applied.message) and '' or ': ' .. applied.message), levels.WARN)
      end
    end, bufnr)
  end
  if declined.again then
    again()
  else
    pending.offer({ what = preview.waiting_line(declined.label), verb = 'to see it', client_id = client.id, open = again }, notify)
  end
  return true
end

--- Sends a request and calls `on_result(result)`; errors are shown, not raised. Until it is answered,
--- :AssistantCancel can stop it.
function M.request(client, method, params, on_result, bufnr)
  local request_id
  pending.asked()
  local ok, id = request(client, method, params, function(err, result)
    cancel.request_answered(client.id, request_id)
    -- An edit the server applied while answering changed files that were not open: the answer's message says which,
    -- or, when the answer says nothing, the note alone.
    trailing_note = preview.take_note(client.id)
    if err then
      -- Neovim drops the answer to a cancelled request (M.cancel told the user); should one arrive, it says nothing new.
      if err.code ~= REQUEST_CANCELLED then
        notify(('%s failed: %s'):format(method, err.message or vim.inspect(err)), levels.ERROR)
      end
    elseif not M.offer_declined(client, method, params, result, bufnr) then
      on_result(result)
    end
    if trailing_note then
      local note = trailing_note
      trailing_note = nil
      notify(note)
    end
  end, bufnr)
  if not ok then
    notify(method .. ' failed: the server is not running', levels.ERROR)
    return
  end
  request_id = id
  cancel.request_sent(client.id, id, method)
end

local function utf16_col(line, byte_col)
  byte_col = math.max(0, math.min(byte_col, #line))
  if has_011 then
    return vim.str_utfindex(line, 'utf-16', byte_col, false)
  end
  local _, utf16 = vim.str_utfindex(line, byte_col)
  return utf16
end

local function buf_line(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

--- The cursor as an LSP position (UTF-16 characters, as the server declares).
function M.cursor_position(bufnr)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  return { line = row - 1, character = utf16_col(buf_line(bufnr, row - 1), col) }
end

--- The range a command was given: the visual selection when the marks match the command's lines, whole lines for
--- another range (`:10,20AssistantAsk`, or a linewise selection), else the cursor as an empty range.
function M.command_range(bufnr, opts)
  if not opts or (opts.range or 0) == 0 then
    local position = M.cursor_position(bufnr)
    return { start = position, ['end'] = position }
  end
  local first, last = opts.line1, opts.line2
  local from, to = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if from[2] == first and to[2] == last and vim.fn.visualmode() ~= 'V' then
    local end_line = buf_line(bufnr, last - 1)
    -- The '> mark is on the last selected character; LSP ends are exclusive, so step over that character.
    local last_char = vim.fn.matchstr(end_line, '.', to[3] - 1)
    return {
      start = { line = first - 1, character = utf16_col(buf_line(bufnr, first - 1), from[3] - 1) },
      ['end'] = { line = last - 1, character = utf16_col(end_line, to[3] - 1 + #last_char) },
    }
  end
  local end_line = buf_line(bufnr, last - 1)
  return { start = { line = first - 1, character = 0 }, ['end'] = { line = last - 1, character = utf16_col(end_line, #end_line) } }
end

local function current_client(bufnr)
  local client = M.client(bufnr)
  if not client then
    notify('no assistant-ls client for this buffer (is it a TypeScript or JavaScript file, and did setup() run?)', levels.ERROR)
  end
  return client
end

--- The server's plain-text line for a response (no markdown, never a code fence), or '' from an older server.
function M.candidate_summary(response)
  return type(response.summary) == 'string' and response.summary or ''
end

--- A one-line label for a candidate: the agent and the first line of its text that says something (a JSDoc's
--- first line is just `/**`).
function M.candidate_label(response)
  local agent = type(response.agent) == 'table' and response.agent.name or '?'
  local summary = M.candidate_summary(response)
  if summary == '' then
    for line in tostring(response.text or ''):gmatch('[^\n]+') do
      local stripped = vim.trim(line:gsub('^%s*/%*%*?', ''):gsub('%*/%s*$', ''):gsub('^%s*%*', ''):gsub('^%s*//', ''))
      if stripped ~= '' then
        summary = stripped
        break
      end
    end
  end
  if response.status ~= 'ok' then
    summary = ('(%s) %s'):format(response.status or '?', response.error or summary)
  end
  return agent .. ': ' .. summary
end

local function show_apply_result(result, response)
  if preview.discarded(result) then
    return
  end
  if result.applied then
    local agent = type(response.agent) == 'table' and response.agent.name or '?'
    notify(is_null(result.message) and ('applied the answer of ' .. agent) or result.message)
  else
    notify(('not applied (%s)%s'):format(result.outcome or '?', is_null(result.message) and '' or ': ' .. result.message), levels.WARN)
  end
end

--- How one agent's unusable answer reads, as the server words it: an offline agent with nothing to add declined, an
--- answer the oracle turned down was rejected, an error failed.
function M.failure_line(response)
  local agent = type(response.agent) == 'table' and response.agent.name or '?'
  local reason = is_null(response.error) and tostring(response.status) or response.error
  if response.status == 'empty' and reason:find('^rejected by ') then
    return ("%s's answer was %s"):format(agent, reason)
  end
  if response.status == 'empty' and type(response.agent) == 'table' and response.agent.isLLM == false then
    return ('%s declined: %s'):format(agent, reason)
  end
  return ('%s failed: %s'):format(agent, reason)
end

--- One line per agent that gave nothing usable ("gpt-4o-mini failed: the endpoint refused the API key (401)"); an
--- agent with a usable answer, or one the user cancelled, did not fail.
function M.failure_lines(responses)
  local failed, order, usable = {}, {}, {}
  for _, response in ipairs(responses or {}) do
    local agent = type(response.agent) == 'table' and response.agent.name or '?'
    if response.status == 'ok' or response.status == 'cancelled' then
      usable[agent] = true
    elseif not failed[agent] then
      failed[agent] = M.failure_line(response)
      table.insert(order, agent)
    end
  end
  local lines = {}
  for _, agent in ipairs(order) do
    if not usable[agent] then
      table.insert(lines, failed[agent])
    end
  end
  return lines
end

-- The heading of an answer to free text: a question's own words, else the task and the request.
local function ask_title(task, text)
  if task == 'question' then
    return 'Question: ' .. text
  end
  local name = tostring(task)
  return name:sub(1, 1):upper() .. name:sub(2) .. ': ' .. text
end

local function shows_text(response)
  return is_null(response.edit) and response.status == 'ok' and not is_null(response.text) and response.text ~= ''
end

--- :AssistantAsk {text}: classifies the text on the server; an answer with an edit is applied once chosen, a text
--- answer (an explanation, a workspace question) is shown in the answer split with its places in the quickfix list.
function M.ask(opts)
  local text = vim.trim(opts and opts.args or '')
  if text == '' then
    notify('usage: :AssistantAsk {what you want}, e.g. :AssistantAsk document the load method', levels.WARN)
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = current_client(bufnr)
  if not client then
    return
  end
  local params = { text = text, textDocument = { uri = vim.uri_from_bufnr(bufnr) }, range = M.command_range(bufnr, opts) }
  -- The keys typed by the time the request is sent: any more when the answers come, and they wait for the user.
  local asked = pending.asked()
  M.request(client, M.methods.ask, params, function(result)
    local candidates = {}
    local texts = 0
    for _, response in ipairs(is_null(result.responses) and {} or result.responses) do
      -- Answers with an edit can be applied and text answers shown; the others are in the trace with their error.
      if not is_null(response.edit) then
        table.insert(candidates, response)
      elseif shows_text(response) then
        table.insert(candidates, response)
        texts = texts + 1
      end
    end
    if #candidates == 0 then
      notify(is_null(result.message) and ('no candidate for ' .. tostring(result.task)) or result.message, levels.WARN)
      return
    end
    -- The agents that failed are named in the prompt, not offered as choices.
    local failures = M.failure_lines(result.responses)
    local function show(response)
      answer.show({ title = ask_title(result.task, text), text = response.text, locations = response.locations })
      -- The trace learns that the answer was used (shown here, not by the server).
      request(client, M.methods.apply, { interactionId = result.interactionId, responseId = response.id }, function() end, bufnr)
      -- Shown here, not through the server, which warns of the failed agents when it applies an answer.
      if #failures > 0 then
        notify(('Used the answer of %s; %s.'):format(response.agent and response.agent.name or '?', table.concat(failures, '; ')), levels.WARN)
      end
    end
    if #candidates == 1 and texts == 1 then
      return show(candidates[1])
    end
    local items = vim.list_extend({}, candidates)
    table.insert(items, { discard = true })
    local entry
    local function choose(deferred)
      vim.ui.select(items, {
        -- The server's message names assistant/apply, which is this plugin's business, not the user's.
        prompt = (texts == 0 and ('Assistant %s: apply which candidate?'):format(tostring(result.task)) or ('Assistant %s: use which answer?'):format(tostring(result.task))) .. (#failures > 0 and (' (' .. table.concat(failures, '; ') .. ')') or ''),
        kind = 'assistant_candidate',
        format_item = function(item)
          return item.discard and 'Discard' or M.candidate_label(item)
        end,
      }, function(choice)
        -- A picker the user opened later and closed without a choice leaves the answers waiting; Discard drops them.
        if not choice and deferred then
          return pending.offer(entry, notify, true)
        end
        if not choice or choice.discard then
          -- Told to the server, so the trace says the answers were turned down rather than never looked at.
          M.request(client, M.methods.discard, { interactionId = result.interactionId }, function()
            notify('discarded; nothing applied')
          end, bufnr)
          return
        end
        if is_null(choice.edit) then
          return show(choice)
        end
        M.request(client, M.methods.apply, { interactionId = result.interactionId, responseId = choice.id }, function(applied)
          show_apply_result(applied, choice)
        end, bufnr)
      end)
    end
    if not pending.busy(asked) then
      return choose(false)
    end
    local about = #text > 40 and (vim.fn.strcharpart(text, 0, 37) .. '...') or text
    entry = {
      what = ('%d answer%s for "%s" %s ready'):format(#candidates, #candidates == 1 and '' or 's', about, #candidates == 1 and 'is' or 'are'),
      open = function()
        choose(true)
      end,
    }
    pending.offer(entry, notify)
  end, bufnr)
end

-- The buffer's client, else any running one (commands about the whole workspace work from any buffer); says so when none runs.
local function any_client(bufnr)
  local client = M.client(bufnr, true)
  if not client then
    notify('no assistant-ls client is running', levels.ERROR)
  end
  return client
end

local function fill_quickfix(result, title)
  local interactions = is_null(result.interactions) and {} or result.interactions
  vim.fn.setqflist({}, ' ', { title = title, items = quickfix.items(interactions) })
  if #interactions == 0 then
    notify('no interactions in the trace', levels.WARN)
    return
  end
  vim.cmd('copen')
end

--- :AssistantTrace[!]: the interactions behind the code at the cursor (or, with ! or when none, the newest ones)
--- in the quickfix list.
function M.trace(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local function newest(using)
    M.request(using, M.methods.trace, object({}), function(result)
      fill_quickfix(result, 'Assistant trace: newest interactions')
    end, bufnr)
  end
  if opts and opts.bang or not client then
    -- The quickfix window and other buffers have no document on the server; any running client has the trace.
    local any = client or any_client(bufnr)
    if not any then
      return
    end
    return newest(any)
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = M.cursor_position(bufnr) }
  M.request(client, M.methods.trace, params, function(result)
    if is_null(result.interactions) or #result.interactions == 0 then
      notify('no interaction produced the code at the cursor; listing the newest')
      return newest(client)
    end
    fill_quickfix(result, 'Assistant trace: code at ' .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t') .. ':' .. (params.position.line + 1))
  end, bufnr)
end

-- The interaction that produced the code at the cursor (newest first), for rate and revert.
local function interaction_at_cursor(on_found)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = current_client(bufnr)
  if not client then
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = M.cursor_position(bufnr) }
  M.request(client, M.methods.trace, params, function(result)
    local interactions = is_null(result.interactions) and {} or result.interactions
    if #interactions == 0 then
      notify('no assistant interaction produced the code at the cursor', levels.WARN)
      return
    end
    on_found(client, interactions, bufnr)
  end, bufnr)
end

local used_response = quickfix.used_response

--- :AssistantRate up|down [comment]: rates the used (else the first) response of the interaction at the cursor.
function M.rate(opts)
  local args = opts and opts.fargs or {}
  local rating = args[1]
  if rating ~= 'up' and rating ~= 'down' then
    notify('usage: :AssistantRate up|down [comment]', levels.WARN)
    return
  end
  local comment = vim.trim(table.concat(vim.list_slice(args, 2), ' '))
  interaction_at_cursor(function(client, interactions, bufnr)
    local interaction = interactions[1]
    local response = used_response(interaction) or (interaction.responses or {})[1]
    if not response then
      notify('this interaction has no response to rate', levels.WARN)
      return
    end
    local params = { interactionId = interaction.id, responseId = response.id, rating = rating, comment = comment ~= '' and comment or nil }
    M.request(client, M.methods.rate, params, function(result)
      notify(('rated the answer of %s: %s'):format(response.agent and response.agent.name or '?', tostring(result.rating)))
    end, bufnr)
  end)
end

--- :AssistantRevert: removes what the interaction at the cursor inserted, when it is still there intact.
function M.revert()
  interaction_at_cursor(function(client, interactions, bufnr)
    -- Prefer the newest interaction that still has something applied and not yet reverted.
    local target = interactions[1]
    for _, interaction in ipairs(interactions) do
      local used = used_response(interaction)
      if used and is_null(used.revertedAt) then
        target = interaction
        break
      end
    end
    M.request(client, M.methods.revert, { interactionId = target.id }, function(result)
      -- Discarded in the preview: the preview said so.
      if preview.discarded(result) then
        return
      end
      notify(is_null(result.message) and tostring(result.outcome) or result.message, result.reverted and levels.INFO or levels.WARN)
    end, bufnr)
  end)
end

--- :AssistantDocument: runs the Document task on the declaration at the cursor (or range), like the code action.
function M.document(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = current_client(bufnr)
  if not client then
    return
  end
  local args = { textDocument = { uri = vim.uri_from_bufnr(bufnr), version = vim.api.nvim_buf_get_changedtick(bufnr) }, range = M.command_range(bufnr, opts) }
  -- The version only helps the server find the declaration again when the text moved; without a symbol it is not checked.
  local lsp_versions = vim.lsp.util.buf_versions
  if type(lsp_versions) == 'table' and type(lsp_versions[bufnr]) == 'number' then
    args.textDocument.version = lsp_versions[bufnr]
  end
  local said_before = progress.said_count()
  M.request(client, 'workspace/executeCommand', { command = M.methods.document, arguments = { args } }, function(result)
    if is_null(result) or preview.discarded(result) then
      return
    end
    -- A warning the server sent meanwhile ("Used the answer of doc-offline; local failed: …") says more than "applied".
    if is_null(result.message) and result.applied and progress.said_count() > said_before then
      return
    end
    notify(is_null(result.message) and (result.applied and 'applied' or 'nothing applied') or result.message, result.applied and levels.INFO or levels.WARN)
  end, bufnr)
end

--- The text of a pasted patch: register `reg` when named (`+` the clipboard, `"` the last yank), else the command's
--- range of the current buffer, else the whole buffer (a diff opened, or pasted into a scratch buffer).
local function patch_text(bufnr, opts)
  local reg = vim.trim(opts and opts.args or '')
  if reg ~= '' then
    return vim.fn.getreg(reg), 'register ' .. reg
  end
  local first, last = 1, -1
  if opts and (opts.range or 0) > 0 then
    first, last = opts.line1, opts.line2
  end
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false), '\n'), 'this buffer'
end

--- :[range]AssistantApplyPatch [register]: applies a unified diff (from a chat, a review, another branch) to the
--- workspace's files as they are now (`assistant.applyPatch`). The server locates each hunk by its context, records
--- the patch in the trace and sends the edit as any answer's, through the preview when it is due (by default: a
--- patch over several files or creating one); a patch that does not fit changes nothing and says which hunk.
function M.apply_patch(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  -- A scratch buffer holding the patch has no client: the server of the workspace in use applies it.
  local client = any_client(bufnr)
  if not client then
    return
  end
  local patch, origin = patch_text(bufnr, opts)
  if vim.trim(patch) == '' then
    notify(('no patch in %s: :AssistantApplyPatch applies the unified diff in the buffer, its [range], or a register (:AssistantApplyPatch +)'):format(origin), levels.WARN)
    return
  end
  M.request(client, 'workspace/executeCommand', { command = M.methods.apply_patch, arguments = { { patch = patch } } }, function(result)
    if is_null(result) or preview.discarded(result) then
      return
    end
    notify(is_null(result.message) and (result.applied and 'applied the patch' or 'the patch was not applied') or result.message, result.applied and levels.INFO or levels.WARN)
  end, bufnr)
end

--- :AssistantAgents: lists the agents the server runs and the settings problems that disabled any, one per line
--- after a first line that names them (what the message line shows of a long list; :messages has it all).
function M.agents()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = any_client(bufnr)
  if not client then
    return
  end
  M.request(client, M.methods.agents, object({}), function(result)
    local lines, names = {}, {}
    for _, agent in ipairs(is_null(result.agents) and {} or result.agents) do
      local model = is_null(agent.model) and '' or (' ' .. agent.model)
      table.insert(names, agent.name)
      table.insert(lines, ('%s (%s%s): %s'):format(agent.name, agent.technology, model, table.concat(agent.tasks or {}, ', ')))
    end
    local problems = is_null(result.problems) and {} or result.problems
    for _, problem in ipairs(problems) do
      table.insert(lines, 'problem: ' .. tostring(problem))
    end
    local head = 'agents: ' .. (#names > 0 and table.concat(names, ', ') or 'none')
    if #problems > 0 then
      head = head .. ('; %d setting problem%s'):format(#problems, #problems == 1 and '' or 's')
    end
    notify(#lines > 0 and (head .. '\n' .. table.concat(lines, '\n')) or head)
  end, bufnr)
end

--- :AssistantCancel: stops what the assistant is doing for this editor: the plugin's requests in flight
--- (`$/cancelRequest`) and the work the server reports progress of (`window/workDoneProgress/cancel`), which is also
--- how a code action chosen in the built-in menu is stopped. The model's request is closed; nothing is applied.
function M.cancel()
  local stopped = {}
  for _, client in ipairs(all_clients({ name = M.client_name })) do
    local titles = cancel.cancel(client.id, function(id)
      cancel_request(client, id)
    end, function(method, params)
      notify_server(client, method, params)
    end)
    vim.list_extend(stopped, titles)
    -- The server's question about the cancelled work no longer waits for the user.
    pending.drop_if(function(entry)
      return entry.client_id == client.id
    end)
  end
  -- Neovim drops the answers of cancelled requests (RequestCancelled never reaches a handler), so this is the word.
  if #stopped == 0 then
    notify('nothing to cancel')
  else
    notify('cancelled ' .. table.concat(stopped, ', ') .. '; nothing applied')
  end
end

--- :AssistantAnswers: opens the picker of the answers (or the server's question), or the preview of the edit, that
--- arrived while the user was typing; they wait until chosen, discarded or replaced by a newer request's.
function M.answers()
  local entry = pending.take()
  if not entry then
    notify('no answers are waiting')
    return
  end
  entry.open()
end

--- :AssistantCheckTypes: type-checks the whole project with the unsaved buffers; the errors arrive as diagnostics of
--- this client (and follow the text of the files they are in), and the count as a message.
function M.check_types()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = any_client(bufnr)
  if not client then
    return
  end
  notify('type-checking the project...')
  M.request(client, 'workspace/executeCommand', { command = M.methods.check_types, arguments = {} }, function(result)
    notify(is_null(result) and 'type-checked' or tostring(result.message), (not is_null(result) and (result.problems or 0) > 0) and levels.WARN or levels.INFO)
  end, bufnr)
end

local function define_commands()
  local command = vim.api.nvim_create_user_command
  command('AssistantAsk', M.ask, { nargs = '+', range = true, desc = 'Ask the assistant; apply a chosen candidate' })
  command('AssistantTrace', M.trace, { nargs = 0, bang = true, desc = 'Interactions behind the code at the cursor (! newest) in quickfix' })
  command('AssistantRate', M.rate, {
    nargs = '+',
    desc = 'Rate the answer behind the code at the cursor: up|down [comment]',
    complete = function()
      return { 'up', 'down' }
    end,
  })
  command('AssistantRevert', M.revert, { nargs = 0, desc = 'Revert what the assistant inserted at the cursor' })
  command('AssistantDocument', M.document, { nargs = 0, range = true, desc = 'Document the declaration at the cursor' })
  command('AssistantApplyPatch', M.apply_patch, { nargs = '?', range = true, desc = 'Apply the unified diff in the buffer, [range] or a register' })
  command('AssistantAgents', M.agents, { nargs = 0, desc = 'List the assistant agents' })
  command('AssistantCheckTypes', M.check_types, { nargs = 0, desc = 'Type-check the project; errors become diagnostics' })
  command('AssistantAnswers', M.answers, { nargs = 0, desc = 'Choose among the answers, or see the edit, that came while you were typing' })
  command('AssistantCancel', M.cancel, { nargs = 0, desc = 'Stop what the assistant is doing (requests and progress)' })
end

--- setup({ cmd?, filetypes?, settings?, root_markers? }): starts assistant-ls for the file types, one client per root.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Lists replace rather than merge, so `filetypes = { 'typescript' }` means only TypeScript.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts and opts[key] then
      M.config[key] = opts[key]
    end
  end
  if opts and opts.settings then
    M.config.settings = opts.settings
  end
  inline.setup(M.config.inline)
  define_commands()
  -- Calling setup() again with other settings reaches running servers without a restart (0.7 never sends
  -- didChangeConfiguration by itself; 0.8+ answer the server's pull from client.config.settings).
  for _, client in ipairs(all_clients({ name = M.client_name })) do
    client.config.settings = { assistant = object(M.config.settings) }
    -- 0.10+ answer the pull from `client.settings`, a copy taken when the client started.
    if client.settings ~= nil then
      client.settings = client.config.settings
    end
    notify_server(client, 'workspace/didChangeConfiguration', { settings = client.config.settings })
  end
  local group = vim.api.nvim_create_augroup('assistant_ls', { clear = true })
  -- 0.10+ (whose server questions can wait) say when Neovim itself sends a request: a code action chosen in its own
  -- menu runs as workspace/executeCommand (after codeAction/resolve), and the server's question is about it.
  pcall(vim.api.nvim_create_autocmd, 'LspRequest', {
    group = group,
    callback = function(args)
      local data = args.data or {}
      local sent = type(data.request) == 'table' and data.request.type == 'pending' and data.request.method
      local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
      if (sent == 'workspace/executeCommand' or sent == 'codeAction/resolve') and client and client.name == M.client_name then
        pending.asked()
      end
    end,
  })
  vim.api.nvim_create_autocmd('CursorHold', {
    group = group,
    callback = function()
      pending.remind(notify)
    end,
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Buffers opened before setup() ran (e.g. setup from a lazy loader) get their client too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

return M
