-- The diff of an assistant-ls edit that needs confirmation, shown before it lands, with keys to accept or discard it.
local P = {}

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

--- Whether an apply result is a discard: the user's own choice, already said (by the preview, or the server for its
--- picker), so neither noted again nor warned of.
function P.discarded(result)
  return type(result) == 'table' and result.outcome == 'discarded'
end

--- The `workspace/applyEdit` handler of the assistant-ls client: an edit that needs confirmation is shown as a diff
--- and applied only when the user accepts it, and the server is answered after the choice; any other edit goes to
--- Neovim's own handler as before. Nothing is written to disk.
function P.handler(err, params, ctx, config)
  local edit = type(params) == 'table' and params.edit or nil
  local annotation = type(edit) == 'table' and confirmation(edit) or nil
  if not annotation then
    return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local offset_encoding = client and client.offset_encoding or 'utf-16'
  local moved = changed_document(edit, ctx.client_id)
  if moved then
    return { applied = false, failureReason = moved .. ' changed since the edit was made' }
  end
  local ok, lines = pcall(P.diff_lines, edit, offset_encoding)
  if not ok then
    return { applied = false, failureReason = 'cannot show the edit: ' .. tostring(lines) }
  end
  local title = annotation.label or params.label or 'Assistant edit'
  if type(annotation.description) == 'string' and annotation.description ~= '' then
    title = title .. ' (' .. annotation.description .. ')'
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
    vim.notify('assistant-ls: discarded; nothing changed', vim.log.levels.INFO)
    require('assistant.progress').said()
    return { applied = false }
  end
  local applied, failure = pcall(apply, edit, offset_encoding)
  if not applied then
    return { applied = false, failureReason = tostring(failure) }
  end
  return { applied = true }
end

return P
