-- Text answers of assistant-ls (explanations, workspace questions) in a markdown split, the places they name in the quickfix list.
local A = {}

--- The name of the one scratch buffer answers are shown in (reused, so answers do not pile up as buffers).
A.buffer_name = 'assistant-ls://answer'

local answer_buf

local function present(value)
  return value ~= nil and value ~= vim.NIL
end

local function buffer()
  if answer_buf and vim.api.nvim_buf_is_valid(answer_buf) then
    return answer_buf
  end
  -- Unlisted scratch buffer: nofile, no swap file, hidden rather than unloaded when its window closes.
  answer_buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(answer_buf, A.buffer_name)
  vim.bo[answer_buf].filetype = 'markdown'
  vim.api.nvim_buf_set_keymap(answer_buf, 'n', 'q', '<cmd>close<CR>', { noremap = true, silent = true, nowait = true })
  return answer_buf
end

-- The window of the current tab that shows the answer buffer, or a new split at the bottom for it.
local function window(bufnr, line_count)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == bufnr then
      return win
    end
  end
  vim.cmd('botright split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, bufnr)
  vim.api.nvim_win_set_height(win, math.max(5, math.min(line_count, math.floor(vim.o.lines / 2))))
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  -- 0.10+: a jump from the quickfix list (or anything else) never replaces the answer in its window.
  if vim.fn.exists('+winfixbuf') == 1 then
    vim.wo[win].winfixbuf = true
  end
  return win
end

--- The quickfix column of an LSP position: bytes, where LSP counts UTF-16 units (they differ only off ASCII).
local function byte_column(filename, position)
  local bufnr = vim.fn.bufnr(filename)
  if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
    local line = vim.api.nvim_buf_get_lines(bufnr, position.line, position.line + 1, false)[1]
    if line then
      local ok, byte = pcall(vim.str_byteindex, line, position.character, true)
      if ok then
        return byte + 1
      end
    end
  end
  return position.character + 1
end

--- Quickfix items for the answer's locations, best first.
function A.quickfix_items(locations)
  local items = {}
  for _, location in ipairs(present(locations) and locations or {}) do
    local filename = vim.uri_to_fname(location.uri)
    local start = location.range.start
    table.insert(items, { filename = filename, lnum = start.line + 1, col = byte_column(filename, start), text = location.label })
  end
  return items
end

--- Shows `{ title, text, locations }`: the whole text in the answer split (`q` in it closes it), the locations in the
--- quickfix list, opened below it; the cursor stays where it was, so `:cnext` and <CR> in the list open the code in
--- the code window (Neovim's 'switchbuf' "uselast" opens it in the window used last). Replace it to show answers
--- elsewhere (a float, a picker).
function A.show(answer)
  local from = vim.api.nvim_get_current_win()
  local text = present(answer.text) and tostring(answer.text) or ''
  local lines = { '# ' .. tostring(answer.title or 'assistant-ls answer'), '' }
  vim.list_extend(lines, vim.split(text, '\n', { plain = true }))
  local bufnr = buffer()
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  local win = window(bufnr, #lines)
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  local items = A.quickfix_items(answer.locations)
  if #items > 0 then
    vim.fn.setqflist({}, ' ', { title = 'Assistant: ' .. tostring(answer.title or ''), items = items })
    vim.cmd('botright copen')
  end
  if vim.api.nvim_win_is_valid(from) and from ~= win then
    vim.api.nvim_set_current_win(from)
  end
  return bufnr
end

--- The `assistant/showAnswer` notification handler.
function A.handler(_, result)
  if type(result) == 'table' then
    A.show(result)
  end
end

return A
