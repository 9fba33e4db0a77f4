-- allo-lsp in Neovim 0.7 (headless): attach to a pitfall example, wait for its diagnostics, ask
-- for a hover. Exits 0 when all is as expected, 1 (cquit) otherwise; prints what it saw.
-- Environment: ALLO_E2E_PYTHON (runs the server), ALLO_E2E_FILE (pitfall_bare_scalar.py).
local function finish(ok, message)
  io.stdout:write(message .. "\n")
  vim.cmd(ok and "qall!" or "cquit 1")
end

local function check()
  local file = assert(os.getenv("ALLO_E2E_FILE"), "ALLO_E2E_FILE is not set")
  local python = assert(os.getenv("ALLO_E2E_PYTHON"), "ALLO_E2E_PYTHON is not set")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "allo-lsp",
    cmd = { python, "-m", "allo_lsp", "serve" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    settings = { alloDataflow = { debounceMs = 50 } },
  })
  assert(client_id, "vim.lsp.start_client failed")
  vim.lsp.buf_attach_client(bufnr, client_id)

  -- ADF002 on `n` in args=[A, n] (line 24, 0-based 23), once: not ADF001 on `n: int32` as well.
  local got = vim.wait(60000, function() return #vim.diagnostic.get(bufnr) >= 1 end, 100)
  assert(got, "no diagnostics within 60 s")
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    seen[#seen + 1] = string.format("%s@%d", tostring(code), d.lnum)
  end
  table.sort(seen)
  local diagnostics = table.concat(seen, " ")
  assert(diagnostics == "ADF002@23", "unexpected diagnostics: " .. diagnostics)

  -- The hover of region `top` (line 21, `def top(`) shows its compiled signature.
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 20, character = 5 },
  }, 20000)
  assert(responses, "no hover response within 20 s")
  local hover = ""
  for _, response in pairs(responses) do
    assert(not response.err, "hover failed: " .. vim.inspect(response.err))
    local contents = response.result and response.result.contents
    hover = hover .. (type(contents) == "table" and (contents.value or vim.inspect(contents)) or tostring(contents))
  end
  assert(hover:find("memref<16xi32>", 1, true), "the hover has no memref<16xi32>: " .. hover)
  assert(hover:find("region", 1, true), "the hover does not describe the region: " .. hover)

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  return "diagnostics: " .. diagnostics .. "\nhover:\n" .. hover
end

local ok, result = pcall(check)
finish(ok, ok and ("OK\n" .. result) or ("FAIL: " .. tostring(result)))
