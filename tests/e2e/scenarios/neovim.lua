-- Neovim scenario (0.7 and 0.10+): the client comes from the README's snippet, loaded as init.lua (`-u`); this
-- opens the file (FileType python starts and attaches the client), waits for the pushed or pulled diagnostic,
-- hovers, then applies a quick fix through vim.lsp.buf.code_action() (vim.ui.select answered with the wanted title).
-- Inputs (env): HFC_FILE, HFC_ROOT, HFC_FIX_TITLE, HFC_TIMEOUT_MS; output: HFC_RESULT.
local result = { steps = {} }
local out_path = os.getenv('HFC_RESULT')
local timeout = tonumber(os.getenv('HFC_TIMEOUT_MS') or '60000')

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out_path)
  vim.cmd('qall!')
end

-- vim.lsp.get_clients is 0.10+; 0.7 has buf_get_clients (a table keyed by id).
local function clients(bufnr)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end

local ok, err = pcall(function()
  result.version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
  vim.cmd('cd ' .. vim.fn.fnameescape(os.getenv('HFC_ROOT')))
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('HFC_FILE')))
  local bufnr = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[bufnr].filetype
  if not vim.wait(timeout, function() return #clients(bufnr) > 0 end, 50) then
    error('the README snippet attached no client to the Python buffer (filetype ' .. result.filetype .. ')')
  end
  local client = clients(bufnr)[1]
  result.client_name = client.name
  table.insert(result.steps, 'attached')

  local got = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, {
      message = d.message, code = d.code, source = d.source, severity = d.severity,
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    })
  end
  if not got then error('no diagnostic within ' .. timeout .. ' ms') end
  local first = vim.diagnostic.get(bufnr)[1]
  table.insert(result.steps, 'diagnostic')

  -- Hover at the start of the flagged range.
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local hovers = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, timeout)
  for _, response in pairs(hovers or {}) do
    if response.result and response.result.contents then
      local contents = response.result.contents
      result.hover = type(contents) == 'table' and (contents.value or vim.inspect(contents)) or contents
    end
  end
  table.insert(result.steps, 'hover')

  -- The real code-action path: request, menu (answered here), apply the workspace edit. The menu's items are
  -- {client_id, action} in 0.7 and {action = ..., ctx = ...} from 0.10.
  local want = os.getenv('HFC_FIX_TITLE')
  result.action_titles = {}
  vim.ui.select = function(items, _, on_choice)
    local chosen = nil
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(result.action_titles, action.title)
      if action.title == want then chosen = item end
    end
    on_choice(chosen)
  end
  local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  vim.lsp.buf.code_action()
  vim.wait(timeout, function()
    return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') ~= before
  end, 50)
  result.text_after_fix = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
  table.insert(result.steps, 'fix')

  -- After the edit the diagnostic goes away (the server re-lints on didChange).
  result.cleared = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == 0 end, 50)
  vim.lsp.stop_client(client.id)
end)
if not ok then result.error = tostring(err) end
finish()
