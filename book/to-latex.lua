-- book/to-latex.lua: what only the PDF edition needs, applied when writing LaTeX.

-- Charts: gnuplot's SVG was converted to PDF by rsvg-convert, so LaTeX embeds vector graphics.
-- A chart is drawn 680 units wide; at 80 % of the line (373 pt) its 12-unit text is 6.6 pt, its
-- 10-unit labels 5.5 pt: the size of a figure's labels in print, and it keeps the chapters short.
local function Image(img)
  img.src = img.src:gsub('%.svg$', '.pdf')
  if img.attributes.width == '100%' then img.attributes.width = '80%' end
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
local CODE_BREAK_MIN = 10 -- shorter code stays in one piece
local BREAK_AFTER = {['_'] = true, ['.'] = true, ['/'] = true, [','] = true, ['='] = true}

local function Code(c)
  if #c.text < CODE_BREAK_MIN then return nil end
  local out = {}
  for _, cp in utf8.codes(c.text) do
    local ch = utf8.char(cp)
    out[#out + 1] = ESC[ch] or ch
    if BREAK_AFTER[ch] then out[#out + 1] = '\\allowbreak{}' end
  end
  return pandoc.RawInline('latex', '\\texttt{' .. table.concat(out) .. '}')
end

-- Tables: LaTeX sets a column of default width ("l", "r") on one line, however long, so a wide
-- table runs off the page. Each column's natural width (its widest cell on one line) and its
-- least width (its widest unbreakable piece: a word, or a stretch of long inline code between the
-- points where Code above lets it break) are estimated from the fonts' advance widths. A table
-- whose natural widths fit the line is left as it is; otherwise every column gets its least width
-- and the rest of the line is shared in proportion to what each column lacks of its natural width,
-- the HTML table layout's rule (CSS 2.1, 17.5.2.2). A table whose least widths do not fit the line
-- is set a size smaller (\small, less space between columns), else on a landscape page
-- (pdflscape); one that fits none of these is left too wide, and book/check.sh fails on the
-- Overfull \hbox that xelatex then reports.
local LINE_PT = 466.6          -- \linewidth: A4 (597.5 pt) less 2 x 2.3 cm, in TeX points (72.27 an inch)
local LANDSCAPE_PT = 725.0     -- \textheight (845 pt less 2.0 and 2.2 cm): the line of a landscape page
local TABCOLSEP_PT = 6.0       -- LaTeX's default \tabcolsep, on each side of an inner column edge
local SERIF_PT, MONO_PT = 9.5, 8.5 -- DejaVu Serif at 10 pt scaled 0.95; DejaVu Sans Mono at 0.85
-- Advance widths in em (DejaVu fonts, 2048 units per em, rounded up): digits, capitals, small
-- letters, space, narrow punctuation, wide signs (= + < > × %); anything else counts as a capital.
-- Mono is 0.602 em.
local function serif_em(ch)
  if ch:match('%d') then return 0.637 elseif ch:match('%u') then return 0.75
  elseif ch:match('[ijlft]') then return 0.40 elseif ch:match('[mw]') then return 0.93
  elseif ch:match('%l') then return 0.62 elseif ch:match('[%s]') then return 0.32
  elseif ch:match('[.,:;!|\'()%[%]%-]') then return 0.40
  elseif ch:match('[=+<>×%%]') then return 0.96 end
  return 0.75
end
local function text_pt(s)
  local w = 0
  for _, cp in utf8.codes(s) do w = w + serif_em(utf8.char(cp)) end
  return w * SERIF_PT * 1.06 -- 6 % more: the estimate must not fall short
end
local function code_pt(n) return n * 0.602 * MONO_PT end

-- The widths of one cell: natural (one line) and least (widest unbreakable piece), in points.
local function cell_widths(blocks)
  local natural, least, line, piece = 0, 0, 0, 0
  local function piece_end() least = math.max(least, piece); piece = 0 end
  local function line_end() piece_end(); natural = math.max(natural, line); line = 0 end
  local function space() piece_end(); line = line + text_pt(' ') end
  pandoc.walk_block(pandoc.Div(blocks), {
    Str = function(s) -- TeX may break a word after an explicit hyphen
      for seg, hyphen in s.text:gmatch('([^-]*)(%-*)') do
        if seg .. hyphen ~= '' then
          local w = text_pt(seg .. hyphen)
          line, piece = line + w, piece + w
          if hyphen ~= '' then piece_end() end
        end
      end
    end,
    Space = space, SoftBreak = space,
    LineBreak = line_end,
    Code = function(c) -- breaks at spaces; long code also after the characters Code breaks after
      line = line + code_pt(utf8.len(c.text) or #c.text)
      for word, space in c.text:gmatch('([^ ]*)( *)') do
        local long = (utf8.len(word) or #word) >= CODE_BREAK_MIN
        for _, cp in utf8.codes(word) do
          piece = piece + code_pt(1)
          if long and BREAK_AFTER[utf8.char(cp)] then piece_end() end
        end
        if space ~= '' then piece_end() end
      end
    end,
    Para = line_end, Plain = line_end,
  })
  line_end()
  return natural, least
end

local function Table(tbl)
  local n = #tbl.colspecs
  local natural, least = {}, {}
  -- (A pipe table's widths, which the markdown reader derives from its dashes, are chosen anew.)
  for i = 1, n do natural[i], least[i] = 0, 0 end
  local function measure(rows)
    for _, row in ipairs(rows) do
      for i, cell in ipairs(row.cells) do
        if i <= n then
          local nat, lst = cell_widths(cell.contents)
          natural[i], least[i] = math.max(natural[i], nat), math.max(least[i], lst)
        end
      end
    end
  end
  measure(tbl.head.rows)
  for _, body in ipairs(tbl.bodies) do measure(body.body) end
  measure(tbl.foot.rows)
  local sum_nat, sum_least = 0, 0
  for i = 1, n do sum_nat, sum_least = sum_nat + natural[i], sum_least + least[i] end
  -- A table too wide for its natural widths gets the first of these layouts in which every column
  -- gets at least its least width: the normal size; \small (9 pt instead of 10) with 4 pt between
  -- columns; a landscape page.
  for _, try in ipairs({{size = 1, sep = TABCOLSEP_PT, line = LINE_PT},
                        {size = 0.9, sep = 4, line = LINE_PT, before = '\\begingroup\\small\\setlength{\\tabcolsep}{4pt}', after = '\\endgroup'},
                        {size = 1, sep = TABCOLSEP_PT, line = LANDSCAPE_PT, before = '\\begin{landscape}', after = '\\end{landscape}'}}) do
    local line = try.line - 2 * (n - 1) * try.sep
    if sum_nat + 2 * (n - 1) * TABCOLSEP_PT > LINE_PT and sum_least * try.size <= line then
      local slack, lack = line - sum_least * try.size, (sum_nat - sum_least) * try.size
      for i = 1, n do
        local w = least[i] * try.size + (lack > 0 and slack * (natural[i] - least[i]) * try.size / lack or 0)
        tbl.colspecs[i] = {tbl.colspecs[i][1], math.min(w, natural[i] * try.size + 0.01) / line}
      end
      if not try.before then return tbl end
      return {pandoc.RawBlock('latex', try.before), tbl, pandoc.RawBlock('latex', try.after)}
    end
  end
  -- Natural widths ("l", "r"): the table fits, or is too wide for any layout (then xelatex reports
  -- by how much, and check.sh fails).
  for i = 1, n do tbl.colspecs[i] = {tbl.colspecs[i][1], nil} end
  return tbl
end

-- Code blocks: their number of lines, for header.tex's page-break rule inside listings.
local function CodeBlock(cb)
  local _, n = (cb.text .. '\n'):gsub('\n', '')
  return {pandoc.RawBlock('latex', '\\def\\BookLines{' .. n .. '}'), cb}
end

-- Where a part of the full record with tables leaves its chapter, a line says where its tables
-- went: "Every configuration of the sweep, on every GPU: Tables 6.3 and 6.4, in appendix C, page
-- 270." (the chapter's prose may read them: "the last column").
local function record_pointer(b)
  local links = {}
  pandoc.walk_block(b, {Div = function(d)
    if d.classes:includes('numbered-table') then
      local label = ''
      pandoc.walk_block(d, {Strong = function(st) if label == '' then label = pandoc.utils.stringify(st) end end})
      local n = label:match('^Table ([%w.]+):$')
      if n then links[#links + 1] = '[' .. n .. '](#' .. d.identifier .. ')' end
    end
  end})
  if #links == 0 then return nil end
  local tables = #links == 1 and ('Table ' .. links[1]) or
    ('Tables ' .. table.concat(links, ', ', 1, #links - 1) .. ' and ' .. links[#links])
  return pandoc.read('*' .. b.attributes.what .. '*: ' .. tables .. ', in [appendix C](#evidence-appendix), page `\\pageref{rec-' ..
    b.identifier .. '}.`{=latex}', 'markdown').blocks[1]
end

-- Tables first, while their inline code is still Code (the pass below turns it into raw LaTeX).
-- The evidence: a chapter shows the counters its claims read; the full record of each chapter
-- and the sweep tables a chart draws (book/book.lua's .record divs, collapsed in the HTML) moves to an appendix at the end.
local function Pandoc(doc)
  local records, blocks, last = pandoc.List(), pandoc.List(), nil
  local runin = nil
  for _, b in ipairs(doc.blocks) do
    -- A chapter's takeaway is its last word, a short paragraph: in print its heading runs into
    -- it ("Takeaway." in bold) rather than taking a heading's lines above and below.
    if runin and b.t == 'Para' then
      b.content = pandoc.List({pandoc.Strong({pandoc.Str('Takeaway.')}), pandoc.Space()}) .. b.content
    elseif runin then
      blocks:insert(runin)
    end
    runin = nil
    if b.t == 'Header' and pandoc.utils.stringify(b) == 'Takeaway' then
      runin = b
    elseif b.t == 'Div' and b.classes:includes('source-files') then
      -- the source files are pages of the HTML edition; the PDF names their paths (Link below)
    elseif b.t == 'Div' and b.classes:includes('record') then
      local pointer = record_pointer(b)
      if pointer then blocks:insert(pointer) end
      local title = 'Chapter ' .. (b.attributes.chapter or '?')
      if title ~= last then
        records:insert(pandoc.Header(3, {pandoc.Str(title)}, pandoc.Attr(b.identifier, {'unnumbered'})))
        last = title
      end
      records:insert(pandoc.RawBlock('latex', '\\label{rec-' .. b.identifier .. '}'))
      records:extend(pandoc.read(b.attributes.what .. ':', 'markdown').blocks)
      for _, x in ipairs(b.content) do
        if x.t ~= 'RawBlock' then records:insert(x) end
      end
    else
      blocks:insert(b)
    end
  end
  -- Appendix C goes before appendix D (the exercises' answers), if the book has one.
  local at = #blocks + 1
  for k, b in ipairs(blocks) do
    if b.t == 'Header' and b.identifier == 'instructor' then at = k; break end
  end
  local tail = pandoc.List({table.unpack(blocks, at)})
  for _ = at, #blocks do blocks:remove() end
  if #records > 0 then
    blocks:insert(pandoc.Header(1, {pandoc.Str('Appendix C. The full record, chapter by chapter')}, pandoc.Attr('evidence-appendix', {'unnumbered'})))
    blocks:extend(pandoc.read('Every counter recorded for each chapter, on each GPU, by `make evidence` (Nsight Compute, ' ..
      'ptxas, the SASS and the programs\' own host measurements), and every configuration of each sweep that a chapter draws ' ..
      'as a chart. A chapter prints only the counters its claims read.', 'markdown').blocks)
    blocks:extend(records)
  end
  blocks:extend(tail)
  doc.blocks = blocks
  return doc
end

-- A metric's own name under its plain name: in small type.
local function Span(sp)
  if sp.classes:includes('metric-name') then
    return pandoc.List({pandoc.RawInline('latex', '{\\footnotesize{}')}) .. sp.content .. {pandoc.RawInline('latex', '}')}
  end
end

-- A link to a source file's page of the HTML edition: in print, the file's name after its folder's path.
local function Link(l)
  if l.classes:includes('source-link') then return l.content end
end

return {{Pandoc = Pandoc}, {Table = Table, Link = Link}, {Code = Code, Image = Image, CodeBlock = CodeBlock, Span = Span}}
