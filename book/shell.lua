-- book/shell.lua: the few helpers book/book.lua, charts.lua and pictures.lua share.
-- Returns {q = quote for sh, sh = run a command -> output (stdout and stderr), exit code,
-- read_file = a file's bytes or nil, write_file(path, text, fail), ftoa(x, digits) = x to that many
-- decimals, knobs = a results row's knobs "block=256;mode=fast" as {block = 256, mode = 'fast'},
-- spairs = pairs() in key order, so what the book lists from a table comes out the same every build}.

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

local function write_file(path, text, fail)
  local f = io.open(path, 'wb') or fail('cannot write %s', path)
  f:write(text)
  f:close()
end

local function spairs(t)
  local keys, i = {}, 0
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return function() i = i + 1; if keys[i] ~= nil then return keys[i], t[keys[i]] end end
end

local function knobs(s)
  local t = {}
  for k, v in (s or ''):gmatch('([%w_-]+)=([^;]+)') do t[k] = tonumber(v) or v end
  return t
end

return {q = q, sh = sh, read_file = read_file, write_file = write_file, knobs = knobs, spairs = spairs,
        ftoa = function(x, digits) return string.format('%.' .. digits .. 'f', x) end}
