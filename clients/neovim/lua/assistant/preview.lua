-- The diff of an assistant-ls edit that needs confirmation, shown before it lands, with keys to accept or discard it.
local P = {}

local pending = require('assistant.pending')
local util = vim.lsp.util
local uv = vim.uv or vim.loop
-- vim.diff became vim.text.diff (0.11 has both).
local diff = (vim.text and vim.text.diff) or vim.diff

-- The keys the preview window answers; shown in its first lines.
P.accept_keys = { 'a', '\r' }
P.discard_keys = { 'q', 'd', '\27' }

--- The client's capabilities with change annotations declared (and versioned document changes, the only form whose
--- text edits can carry one), so the server marks the edits the user should see first.
function P.capabilities(base)
  return vim.tbl_deep_extend('force', base, {
    workspace = { workspaceEdit = { documentChanges = true, changeAnnotationSupport = { groupsOnLabel = false } } },
  })
end

-- The annotation that asks for confirmation, if the edit has one.
local function confirmation(edit)
  if type(edit.changeAnnotations) ~= 'table' then
    return nil
  end
  for _, annotation in pairs(edit.changeAnnotations) do
    if type(annotation) == 'table' and annotation.needsConfirmation == true then
      return annotation
    end
  end
  return nil
end

local function read_lines(fname)
  if not uv.fs_stat(fname) then
    return {}
  end
  return vim.fn.readfile(fname)
end

-- The text a document has now: its buffer when loaded (unsaved changes count), else the file.
local function current_lines(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  if vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  end
  return read_lines(vim.uri_to_fname(uri))
end

-- The text edits of a document change without their change annotations: the preview is the confirmation they ask
-- for, and from 0.12 Neovim's apply functions would otherwise ask again (and insist on the annotations' table).
local function confirmed(edits)
  return vim.tbl_map(function(edit)
    return { range = edit.range, newText = edit.newText }
  end, edits)
end

-- The lines after the edits, computed on a scratch copy with Neovim's own function, so positions count alike.
local function edited_lines(lines, edits, offset_encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  local ok, err = pcall(util.apply_text_edits, confirmed(edits), scratch, offset_encoding)
  local result = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  if not ok then
    error(err, 0)
  end
  return result
end

local function joined(lines)
  if #lines == 0 then
    return ''
  end
  return table.concat(lines, '\n') .. '\n'
end

--- The unified diff of a WorkspaceEdit against the documents as they are now, as lines (one `---`/`+++` pair per file).
function P.diff_lines(edit, offset_encoding)
  local out = {}
  local created = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      created[change.uri] = true
    elseif change.kind == nil and change.textDocument then
      local uri = change.textDocument.uri
      local before = created[uri] and {} or current_lines(uri)
      local after = edited_lines(before, change.edits, offset_encoding)
      local name = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.')
      table.insert(out, created[uri] and '--- /dev/null' or ('--- a/' .. name))
      table.insert(out, '+++ b/' .. name)
      local hunks = diff(joined(before), joined(after), { result_type = 'unified', ctxlen = 3 })
      vim.list_extend(out, vim.split(hunks, '\n', { trimempty = true }))
    end
  end
  return out
end

-- The version the client last sent for a buffer, or nil when it sent none. Through 0.11 that is util.buf_versions,
-- not changedtick: a buffer opens as version 0 (0.11 reads it from the table's default of 0, never stored) and takes
-- changedtick only at its first change. A release without the table sends changedtick.
local function buffer_version(bufnr, client_id)
  if not vim.lsp.buf_is_attached(bufnr, client_id) then
    return nil
  end
  local versions = rawget(util, 'buf_versions')
  if type(versions) == 'table' then
    return versions[bufnr]
  end
  return vim.b[bufnr].changedtick
end

-- A document the edit names whose buffer moved on since the server computed the edit.
local function changed_document(edit, client_id)
  for _, change in ipairs(edit.documentChanges or {}) do
    local version = change.textDocument and change.textDocument.version
    if type(version) == 'number' then
      local bufnr = vim.uri_to_bufnr(change.textDocument.uri)
      local current = buffer_version(bufnr, client_id)
      if vim.api.nvim_buf_is_loaded(bufnr) and type(current) == 'number' and current ~= version then
        return vim.uri_to_fname(change.textDocument.uri)
      end
    end
  end
  return nil
end

-- Shows the diff in a split below, with the title and the keys in its first lines; returns the window and buffer.
local function open_window(title, lines)
  local header = {
    '# ' .. title,
    '# a or <Enter>: apply   q or d: discard   j k <C-d> <C-u> g G: scroll',
  }
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.list_extend(header, lines))
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'diff'
  pcall(vim.api.nvim_buf_set_name, buf, 'assistant-ls preview ' .. buf)
  local height = math.max(5, math.min(#lines + #header, math.floor(vim.o.lines * 0.6)))
  vim.cmd('botright ' .. height .. 'split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].number = false
  vim.wo[win].wrap = false
  vim.wo[win].winfixheight = true
  return win, buf
end

local scroll = {
  j = 'normal! j',
  k = 'normal! k',
  g = 'normal! gg',
  G = 'normal! G',
  ['\4'] = 'execute "normal! \\<C-d>"',
  ['\21'] = 'execute "normal! \\<C-u>"',
  ['\6'] = 'execute "normal! \\<C-f>"',
  ['\2'] = 'execute "normal! \\<C-b>"',
}

--- Waits for the user's key in the preview window: true to apply, false to discard. A function of its own so a
--- different picker can take its place.
function P.choose(win)
  while true do
    vim.cmd('redraw')
    local ok, key = pcall(vim.fn.getcharstr)
    -- <C-c> interrupts getcharstr; like <Esc>, that is a discard.
    if not ok or key == '\3' then
      return false
    end
    if vim.tbl_contains(P.accept_keys, key) then
      return true
    end
    if vim.tbl_contains(P.discard_keys, key) then
      return false
    end
    local motion = scroll[key] or (key == vim.api.nvim_replace_termcodes('<Down>', true, false, true) and scroll.j) or (key == vim.api.nvim_replace_termcodes('<Up>', true, false, true) and scroll.k)
    if motion and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        pcall(vim.cmd, motion)
      end)
    end
  end
end

-- Applies an accepted edit. A created file becomes a buffer, never a file on disk: the user saves it, as every other
-- buffer the edit changes.
local function apply(edit, offset_encoding)
  for index, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      local fname = vim.uri_to_fname(change.uri)
      local overwrite = type(change.options) == 'table' and change.options.overwrite == true
      if uv.fs_stat(fname) and not overwrite then
        error(fname .. ' already exists', 0)
      end
      local bufnr = vim.fn.bufadd(fname)
      vim.fn.bufload(bufnr)
      vim.bo[bufnr].buflisted = true
    elseif change.kind then
      util.apply_workspace_edit({ documentChanges = { change } }, offset_encoding)
    else
      util.apply_text_document_edit({ textDocument = change.textDocument, edits = confirmed(change.edits) }, index, offset_encoding)
    end
  end
end

-- The files an edit creates or changes the text of, by URI, in the edit's order (`changes`, a map, sorted). A rename
-- is left out: Neovim moves an open buffer along with its clients, and one not open gains no text.
local function edited_uris(edit)
  local uris, seen = {}, {}
  local function add(uri)
    if type(uri) == 'string' and not seen[uri] then
      seen[uri] = true
      table.insert(uris, uri)
    end
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      add(change.uri)
    elseif change.kind == nil and type(change.textDocument) == 'table' then
      add(change.textDocument.uri)
    end
  end
  local changed = vim.tbl_keys(type(edit.changes) == 'table' and edit.changes or {})
  table.sort(changed)
  for _, uri in ipairs(changed) do
    add(uri)
  end
  return uris
end

-- Gives each file the edit changes that has no buffer one, unloaded, under the name the user's own `:edit` would give
-- it: relative to the working directory when under it, as `:ls` then shows it. Neovim's code (and this plugin's
-- vim.uri_to_bufnr) finds it by its full path, and would otherwise add it under that.
local function add_buffers(edit)
  for _, uri in ipairs(edited_uris(edit)) do
    if uri:match('^file:') then
      vim.fn.bufadd(vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.'))
    end
  end
end

-- The loaded buffer of a document, without making one (vim.uri_to_bufnr would add one): asked before the edit, which
-- may still fail.
local function loaded_buffer(uri)
  local fname = vim.uri_to_fname(uri)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr) == fname then
      return bufnr
    end
  end
  return nil
end

-- [client id] = the note on the files the last edit changed in hidden buffers, kept for the answer of the plugin's
-- request that led to the edit, so the user reads one message.
local notes = {}

--- The note on files an edit of this client changed without their being open, once: the answer to the plugin's
--- request adds it to its message.
function P.take_note(client_id)
  local note = notes[client_id]
  notes[client_id] = nil
  return note
end

-- Neovim loads a file the edit changes but no window shows into a hidden buffer and changes it there, unsaved; its
-- FileType event starts only the clients of that file type and root. Every buffer the edit changed is attached to the
-- client that sent it, so the server reads what the user will save (a second patch on the file fits, the trace
-- follows the code there), and listed (0.12's apply_text_document_edit leaves it unlisted); the user is told which
-- files were not open.
local function adopt(edit, client_id, loaded_before)
  local hidden = {}
  for _, uri in ipairs(edited_uris(edit)) do
    -- The edit applied made the buffer (as this does), so asking adds none.
    local bufnr = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(bufnr) then
      if not vim.lsp.buf_is_attached(bufnr, client_id) then
        vim.lsp.buf_attach_client(bufnr, client_id)
      end
      if not loaded_before[uri] then
        vim.bo[bufnr].buflisted = true
        if vim.bo[bufnr].modified and vim.fn.bufwinid(bufnr) == -1 then
          table.insert(hidden, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':.'))
        end
      end
    end
  end
  if #hidden == 0 then
    return
  end
  local note = #hidden == 1 and ('Unsaved in a hidden buffer: %s (:wa saves it).'):format(hidden[1])
    or ('Unsaved in hidden buffers: %s (:wa saves them).'):format(table.concat(hidden, ', '))
  if require('assistant.cancel').in_flight(client_id) then
    notes[client_id] = note
  else
    -- Work Neovim itself started (a code action from the built-in menu): no answer of the plugin's will say it.
    require('assistant.message').show(note, vim.log.levels.INFO)
  end
end

-- The documents of the edit that have a loaded buffer now, by URI.
local function loaded_documents(edit)
  local loaded = {}
  for _, uri in ipairs(edited_uris(edit)) do
    loaded[uri] = loaded_buffer(uri) ~= nil
  end
  return loaded
end

--- The line that names an edit waiting for :AssistantAnswers, from its label (`Assistant: document X`).
function P.waiting_line(label)
  return ('an edit for "%s" is waiting'):format((tostring(label):gsub('^Assistant: ', '')))
end

-- [client id] = { label, again } for the last edit of that client declined unseen: it came while the user typed
-- (before 0.10), or its document moved while it waited (`again`: the user asked to see it, so it is asked for anew).
local declined = {}

--- The edit of this client the preview last declined unseen, once: the answer to the request that led to it offers
--- the answer again through assistant/apply, which moves it onto the text as it is then.
function P.take_declined(client_id)
  local entry = declined[client_id]
  declined[client_id] = nil
  return entry
end

--- Whether an apply result is a discard: the user's own choice, already said (by the preview, or the server for its
--- picker), so neither noted again nor warned of.
function P.discarded(result)
  return type(result) == 'table' and result.outcome == 'discarded'
end

local function say(message)
  require('assistant.message').show(message, vim.log.levels.INFO)
end

-- Shows an edit that needs confirmation and applies it once accepted; answers as `workspace/applyEdit` does. `waited`:
-- it waited for :AssistantAnswers, and a document that moved meanwhile is not the server's stale edit but the user's
-- typing, so the request that led to it asks again (take_declined).
local function show_and_apply(edit, title, ctx, waited)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local offset_encoding = client and client.offset_encoding or 'utf-16'
  local moved = changed_document(edit, ctx.client_id)
  if moved and waited then
    declined[ctx.client_id] = { again = true, label = title }
    return { applied = false, failureReason = moved .. ' changed while the edit waited; nothing changed' }
  end
  if moved then
    return { applied = false, failureReason = moved .. ' changed since the edit was made' }
  end
  local ok, lines = pcall(P.diff_lines, edit, offset_encoding)
  if not ok then
    return { applied = false, failureReason = 'cannot show the edit: ' .. tostring(lines) }
  end
  local source_win = vim.api.nvim_get_current_win()
  local win = open_window(title, lines)
  local accepted = P.choose(win)
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_close(win, true)
  end
  if vim.api.nvim_win_is_valid(source_win) then
    vim.api.nvim_set_current_win(source_win)
  end
  if not accepted then
    -- Said here, whichever request led to the preview (a code action's result says nothing of it); no reason to the
    -- server: the user saw the edit and chose not to take it.
    say('discarded; nothing changed')
    return { applied = false }
  end
  local applied, failure = pcall(apply, edit, offset_encoding)
  if not applied then
    return { applied = false, failureReason = tostring(failure) }
  end
  return { applied = true }
end

--- What the server is told of an edit declined unseen because it came while the user typed (before 0.10, whose
--- handlers cannot wait for the user): it records it, and says it where the plugin does not offer it again.
P.typing_reason = 'it came while you were typing, so it was not shown and nothing changed; the answer stays in the trace'

-- Shows the edit now, or, when the user is busy (typing, or anything but idle in Normal mode: the preview would read
-- their next keys, and an `a` among them would apply an edit they never saw), keeps it for :AssistantAnswers. On 0.10+
-- the handler runs in a coroutine and the server waits for the choice; before, it must answer at once: not applied,
-- and the request that led to it offers the answer again (take_declined).
local function preview_and_apply(edit, annotation, params, ctx)
  local label = annotation.label or params.label or 'Assistant edit'
  local title = label
  if type(annotation.description) == 'string' and annotation.description ~= '' then
    title = title .. ' (' .. annotation.description .. ')'
  end
  if not pending.busy() then
    return show_and_apply(edit, title, ctx)
  end
  local co, is_main = coroutine.running()
  if not co or is_main then
    declined[ctx.client_id] = { label = label }
    return { applied = false, failureReason = P.typing_reason }
  end
  local answered = false
  local function answer(result)
    if answered then
      return
    end
    answered = true
    -- Resumed later, so the coroutine has yielded even when the choice comes at once.
    vim.schedule(function()
      coroutine.resume(co, result)
    end)
  end
  pending.offer({
    what = P.waiting_line(label),
    verb = 'to see it',
    client_id = ctx.client_id,
    open = function()
      answer(show_and_apply(edit, title, ctx, true))
    end,
    -- Never shown: the server records it as not applied, with why.
    drop = function(why)
      answer({ applied = false, failureReason = (why == 'cancelled' and 'cancelled' or 'replaced by a newer one') .. ' before it was shown; nothing changed' })
    end,
  }, say)
  return coroutine.yield()
end

--- In Insert mode an edit would join the undo step of what is being typed, so that `u` took back both (a model's
--- answer may land minutes into typing): the step is closed before the edit and again after it.
local function break_undo()
  local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
  if mode == 'i' or mode == 'R' then
    vim.cmd('let &undolevels = &undolevels')
  end
end

--- The `workspace/applyEdit` handler of the assistant-ls client: an edit that needs confirmation is shown as a diff
--- and applied only when the user accepts it, and the server is answered after the choice; any other edit goes to
--- Neovim's own handler as before. Nothing is written to disk; every buffer an applied edit changed is attached to
--- this client. The one place every apply passes (an answer, a preview accepted, a revert, a patch).
function P.handler(err, params, ctx, config)
  local edit = type(params) == 'table' and params.edit or nil
  if type(edit) ~= 'table' then
    return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
  end
  local loaded_before = loaded_documents(edit)
  add_buffers(edit)
  local annotation = confirmation(edit)
  local result
  if annotation then
    result = preview_and_apply(edit, annotation, params, ctx)
  else
    break_undo()
    result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
    break_undo()
  end
  if type(result) == 'table' and result.applied then
    adopt(edit, ctx.client_id, loaded_before)
  end
  return result
end

return P
