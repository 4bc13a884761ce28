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

-- Tables: LaTeX sets a column of default width on one line, however long, so a wide table runs
-- off the page. Where the natural width of a table's text exceeds the line, give every column a
-- share of the line (LaTeX then wraps inside cells): at least its longest word, and beyond that
-- in proportion to its longest cell, capped so that one long column cannot starve the others.
local LINE_CHARS = 84       -- characters of body text on a line of this layout, with cell padding
local function cells_of(row) return row.cells or row[2] end
local function cell_blocks(cell) return cell.contents or cell[5] end

function Table(tbl)
  local n = #tbl.colspecs
  local natural, word = {}, {}
  for i = 1, n do natural[i], word[i] = 0, 0 end
  local function measure(rows)
    for _, row in ipairs(rows) do
      for i, cell in ipairs(cells_of(row)) do
        if i <= n then
          local text = pandoc.utils.stringify(pandoc.Div(cell_blocks(cell)))
          natural[i] = math.max(natural[i], utf8.len(text) or #text)
          for w in text:gmatch('%S+') do word[i] = math.max(word[i], utf8.len(w) or #w) end
        end
      end
    end
  end
  measure(tbl.head.rows)
  for _, body in ipairs(tbl.bodies) do measure(body.body) end
  measure(tbl.foot.rows)
  local total = 0
  for i = 1, n do
    if tbl.colspecs[i][2] and tbl.colspecs[i][2] > 0 then return nil end -- widths already chosen
    total = total + natural[i] + 2
  end
  if total <= LINE_CHARS then return nil end
  local want, sum = {}, 0
  for i = 1, n do
    want[i] = math.max(word[i], math.min(natural[i], 40)) + 2
    sum = sum + want[i]
  end
  for i = 1, n do tbl.colspecs[i] = {tbl.colspecs[i][1], want[i] / sum} end
  return tbl
end
