-- Neovim 0.7 scenario: start the server with vim.lsp.start_client, wait for the pushed diagnostic, hover,
-- then apply a quick fix through vim.lsp.buf.code_action() (vim.ui.select answered with the wanted title).
-- Inputs (env): HFC_SERVER_CMD (JSON list), HFC_INIT_OPTIONS (JSON), HFC_FILE, HFC_ROOT, HFC_FIX_TITLE, HFC_TIMEOUT_MS; output: HFC_RESULT.
local result = { steps = {} }
local out_path = os.getenv('HFC_RESULT')
local timeout = tonumber(os.getenv('HFC_TIMEOUT_MS') or '60000')

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out_path)
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('HFC_FILE')))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = 'python'

  local client_id = vim.lsp.start_client({
    name = 'hf-cache-lint',
    cmd = vim.fn.json_decode(os.getenv('HFC_SERVER_CMD')),
    root_dir = os.getenv('HFC_ROOT'),
    init_options = vim.fn.json_decode(os.getenv('HFC_INIT_OPTIONS')),
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  table.insert(result.steps, 'attached')

  -- Diagnostics are pushed (Neovim 0.7 has no pull): wait for ours.
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
  local hovers = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', vim.lsp.util.make_position_params(), timeout)
  for _, response in pairs(hovers or {}) do
    if response.result and response.result.contents then
      local contents = response.result.contents
      result.hover = type(contents) == 'table' and (contents.value or vim.inspect(contents)) or contents
    end
  end
  table.insert(result.steps, 'hover')

  -- The real code-action path: request, menu (answered here), apply the workspace edit.
  local want = os.getenv('HFC_FIX_TITLE')
  result.action_titles = {}
  vim.ui.select = function(items, _, on_choice)
    local chosen = nil
    for _, item in ipairs(items) do
      table.insert(result.action_titles, item[2].title)
      if item[2].title == want then chosen = item end
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
  vim.lsp.stop_client(client_id)
end)
if not ok then result.error = tostring(err) end
finish()
