-- book/to-latex.lua: what only the PDF edition needs, applied when writing LaTeX.

-- Charts: gnuplot's SVG was converted to PDF by rsvg-convert, so LaTeX embeds vector graphics.
function Image(img)
  img.src = img.src:gsub('%.svg$', '.pdf')
  return img
end

-- Inline code: long identifiers (profiler metric names, paths) may break after _ . / , = so that
-- they wrap instead of running into the margin.
local ESC = {
  ['\\'] = '\\textbackslash{}', ['{'] = '\\{', ['}'] = '\\}', ['$'] = '\\$', ['&'] = '\\&',
  ['#'] = '\\#', ['^'] = '\\textasciicircum{}', ['_'] = '\\_', ['%'] = '\\%',
  ['~'] = '\\textasciitilde{}', ["'"] = '\\textquotesingle{}', ['`'] = '\\textasciigrave{}',
  ['-'] = '-{}', ['<'] = '\\textless{}', ['>'] = '\\textgreater{}',
}
local BREAK_AFTER = {['_'] = true, ['.'] = true, ['/'] = true, [','] = true, ['='] = true}

function Code(c)
  if #c.text < 16 then return nil end
  local out = {}
  for _, cp in utf8.codes(c.text) do
    local ch = utf8.char(cp)
    out[#out + 1] = ESC[ch] or ch
    if BREAK_AFTER[ch] then out[#out + 1] = '\\allowbreak{}' end
  end
  return pandoc.RawInline('latex', '\\texttt{' .. table.concat(out) .. '}')
end
