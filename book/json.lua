-- book/json.lua: JSON text -> Lua values, for book/book.lua (Pandoc 2.17 has no JSON module).
-- Objects and arrays become tables, null becomes nil. The input is results.py's own output
-- (UTF-8, \u escapes only for control characters); a fault is reported through fail().
local JSON_ESC = {b = '\b', f = '\f', n = '\n', r = '\r', t = '\t'}
return function(s, fail)
  local i = 1
  local function bad(what) fail('the book data is not valid JSON: %s at byte %d', what, i) end
  local function skip(ch) -- skip white space, then ch if given (which must be there)
    i = s:find('[^ \t\r\n]', i) or #s + 1
    if ch then if s:sub(i, i) ~= ch then bad('"' .. ch .. '" expected') end; i = i + 1 end
  end
  local value
  local function str()
    local j = s:find('"', i + 1, true)
    while j and s:sub(i + 1, j - 1):gsub('\\\\', ''):match('\\$') do j = s:find('"', j + 1, true) end -- an escaped quote
    local raw = s:sub(i + 1, (j or bad('an unterminated string')) - 1)
    i = j + 1
    return (raw:gsub('\\(.)', function(e) return e == 'u' and '\0u' or JSON_ESC[e] or e end)
               :gsub('%z' .. 'u(%x%x%x%x)', function(hex) return utf8.char(tonumber(hex, 16)) end))
  end
  function value()
    skip()
    local c = s:sub(i, i)
    if c == '"' then return str() end
    if c == '{' or c == '[' then
      local t, close, n = {}, c == '{' and '}' or ']', 0
      i = i + 1; skip()
      if s:sub(i, i) == close then i = i + 1; return t end
      repeat
        if close == '}' then skip(); if s:sub(i, i) ~= '"' then bad('a key expected') end; local k = str(); skip(':'); t[k] = value()
        else n = n + 1; t[n] = value() end
        skip(); c = s:sub(i, i); i = i + 1
        if c ~= close and c ~= ',' then bad('"," expected') end
      until c == close
      return t
    end
    for lit, v in pairs({['true'] = true, ['false'] = false, null = 0}) do
      if s:sub(i, i + #lit - 1) == lit then i = i + #lit; return v ~= 0 and v or nil end
    end
    local num = s:match('^-?%d+%.?%d*[eE]?[-+]?%d*', i) or bad('an unexpected character')
    i = i + #num
    return tonumber(num)
  end
  local v = value(); skip()
  if i <= #s then bad('text after the document') end
  return v
end
