-- The README's `:AlloPe` block in Neovim 0.7 (headless): attach to the systolic example, choose PE
-- gemm_1_2, print the lines it dims and the hints it writes; then list the PEs. Exits 0 when it
-- ran, 1 (cquit) otherwise. Environment: ALLO_E2E_PYTHON (runs the server), ALLO_E2E_FILE (the
-- design), ALLO_E2E_SNIPPET (the README's Lua block, as a file).
local function finish(ok, message)
  io.stdout:write(message .. "\n")
  vim.cmd(ok and "qall!" or "cquit 1")
end

local function check()
  local file = assert(os.getenv("ALLO_E2E_FILE"), "ALLO_E2E_FILE is not set")
  local python = assert(os.getenv("ALLO_E2E_PYTHON"), "ALLO_E2E_PYTHON is not set")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "allo-lsp",
    cmd = { python, "-m", "allo_lsp", "serve" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  assert(client_id, "vim.lsp.start_client failed")
  vim.lsp.buf_attach_client(buf, client_id)
  assert(vim.wait(60000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client and client.server_capabilities and client.server_capabilities.documentSymbolProvider
  end, 50), "not initialized within 60 s")
  -- The symbols are answered after the first analysis.
  local symbols = vim.lsp.buf_request_sync(buf, "textDocument/documentSymbol", { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 60000)
  assert(symbols, "no symbols within 60 s")

  dofile(assert(os.getenv("ALLO_E2E_SNIPPET"), "ALLO_E2E_SNIPPET is not set"))
  local ns = vim.api.nvim_create_namespace("allo-active-pe")
  vim.cmd("AlloPe top gemm gemm_1_2")
  local marks = {}
  assert(vim.wait(20000, function()
    marks = vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })
    return #marks > 0
  end, 50), "no extmarks within 20 s")
  local out = {}
  for _, mark in ipairs(marks) do
    local row, details = mark[2], mark[4]
    if details.virt_text then
      out[#out + 1] = string.format("hint %d:%s", row + 1, details.virt_text[1][1])
    else
      out[#out + 1] = string.format("dim %d-%d %s", row + 1, details.end_row, details.hl_group)
    end
  end
  -- Without a PE: the one chosen before comes back (the server remembers it).
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  vim.cmd("AlloPe top gemm")
  assert(vim.wait(20000, function() return #vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {}) == #marks end, 50),
    "the choice was not remembered")
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  return table.concat(out, "\n")
end

local ok, result = pcall(check)
finish(ok, ok and ("OK\n" .. result) or ("FAIL: " .. tostring(result)))
