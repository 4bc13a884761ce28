-- book/shell.lua: the few shell and file helpers book/book.lua and book/charts.lua share.
-- Returns {q = quote for sh, sh = run a command -> output (stdout and stderr), exit code,
-- read_file = a file's bytes or nil}.

local function q(s) return "'" .. (s:gsub("'", "'\\''")) .. "'" end

local function sh(cmd)
  local p = io.popen(cmd .. ' 2>&1')
  local out = p:read('a')
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local s = f:read('a')
  f:close()
  return s
end

return {q = q, sh = sh, read_file = read_file}
