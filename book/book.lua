--[[ book/book.lua: lays out the book (Pandoc 2.17 Lua filter, run on book/book.md).

Everything it shows about chapters, results, evidence and guidelines comes from ONE JSON document,
`python3 scripts/results.py book-json`, read from the file named by the metadata field book-data
(book/build.sh writes it). results.py reads and validates every data file, cuts the listings and
diffs, computes speedups, staleness and verdicts, and fails on a missing marker, results row or
file; this filter only turns that document into Pandoc blocks, numbers listings, tables and
figures, draws the charts (gnuplot) and makes the chapters' links point inside the book.

Fills the fenced divs of book/book.md:
  .gpus             the measured GPUs and their context
  .chapters part=P  the part's chapter list and its written chapters (README with generated blocks)
  .summary          predictions against measurements, every chapter on every GPU (table, chart)
  .guideline-index  the guide's recommendations mapped to chapters
  .reproduce        commands and versions
Metadata: book-data (the JSON file), out-dir (charts go to out-dir/charts). ]]

local stringify = pandoc.utils.stringify
local DATA
local DIR = PANDOC_SCRIPT_FILE:match('^(.*/)') or './'
local json_decode = dofile(DIR .. 'json.lua')
local charts -- book/charts.lua, once the output folder is known

---------------------------------------------------------------------------------------------
-- Small helpers

-- A fault stops the build with one line (no Lua traceback).
local function fail(fmt, ...)
  io.stderr:write('book: error: ' .. string.format(fmt, ...) .. '\n')
  os.exit(3)
end

local shell = dofile(DIR .. 'shell.lua')
local q, sh, read_file = shell.q, shell.sh, shell.read_file
local function exists(path) return select(2, sh('test -e ' .. q(path))) == 0 end
local function first_line(cmd) return (sh('(' .. cmd .. ' 2>/dev/null)'):match('[^\n]*')) end

local function md_escape(s) return (tostring(s):gsub('([\\`*_{}%[%]()<>#+!|$~^@&%%])', '\\%1')) end
local function md_blocks(s) return pandoc.read(s, 'markdown').blocks end
local function md_inlines(s)
  local b = md_blocks(s)
  if #b == 0 then return pandoc.List() end
  return b[1].content
end
local function cell(s) return {pandoc.Plain(md_inlines(s))} end
local function ftoa(x, digits) return string.format('%.' .. digits .. 'f', x) end

---------------------------------------------------------------------------------------------
-- Numbered listings, tables and figures: "Listing 20.1" in chapter 20, "Table A.1" in appendix
-- A, "Table 1" in the front matter.

local counters = {}
local function number(kind, key)
  local k = kind .. ':' .. key
  counters[k] = (counters[k] or 0) + 1
  local n = counters[k]
  local shown = tonumber(key) and tostring(tonumber(key)) or key -- "Listing 1.2", not "01.2"
  local id = ({Listing = 'lst', Table = 'tab', Figure = 'fig'})[kind] .. '-' .. (key ~= '' and (key .. '-') or '') .. n
  return '**' .. kind .. ' ' .. (key ~= '' and (shown .. '.' .. n) or tostring(n)) .. ':**', id
end

local NEEDSPACE = function(n) return pandoc.RawBlock('latex', '\\needspace{' .. n .. '\\baselineskip}') end

-- A table read from markdown (or built here) gets its number in front of its caption.
-- LaTeX: a table of up to 15 rows moves to the next page whole rather than break, with the lines
-- that follow it and belong to it ("after" lines).
local function table_lines(t)
  local n = #t.head.rows + #t.foot.rows
  for _, body in ipairs(t.bodies) do n = n + #body.body end
  return n
end

local function numbered_table(key, t, caption, classes, after)
  local label, id = number('Table', key)
  local cap = caption and md_inlines(caption) or pandoc.utils.blocks_to_inlines(t.caption.long)
  local inl = md_inlines(label)
  inl:insert(pandoc.Space())
  inl:extend(cap)
  t.caption.long = {pandoc.Plain(inl)}
  local cls = {'numbered-table'}
  for _, c in ipairs(classes or {}) do cls[#cls + 1] = c end
  local rows = table_lines(t)
  local whole = rows <= 15
  return pandoc.Div({NEEDSPACE(whole and (math.ceil(rows * 1.25) + 4 + (after or 0)) or 8), t}, pandoc.Attr(id, cls))
end

local function table_block(key, caption, aligns, header, rows, classes, after)
  local widths = {}
  for i = 1, #header do widths[i] = 0 end
  local st = pandoc.SimpleTable({}, aligns, widths, header, rows)
  return numbered_table(key, pandoc.utils.from_simple_table(st), caption, classes, after)
end

-- Every table of a generated markdown block (results, sweep, evidence) gets a number. Read with
-- "smart" quotes; but its program names spell options as "naive[--iters 4]", whose "--" must not
-- become an en dash, so outside code spans "--" is escaped first.
local function keep_dashes(markdown)
  local lines = {}
  for line in (markdown .. '\n'):gmatch('(.-)\n') do
    if not line:match('^[%s|:%-]*$') then -- a table's rule stays as it is
      local out = {}
      for text, code in line:gmatch('([^`]*)(`*[^`]*`*)') do out[#out + 1] = text:gsub('%-%-', '-\\-') .. code end
      line = table.concat(out)
    end
    lines[#lines + 1] = line
  end
  return table.concat(lines, '\n')
end
local GENERATED_WHAT = {sweep = 'every configuration measured', evidence = 'every counter recorded'}
local function generated_blocks(key, markdown, class)
  local blocks, last = pandoc.List(), nil
  for _, b in ipairs(md_blocks(keep_dashes(markdown))) do
    if b.t == 'Table' then
      -- The sentence that introduces a table ("On NVIDIA H200 (sm_90), recorded at ...") becomes
      -- its caption; a table that continues one (more programs) says so.
      local intro = #blocks > 0 and blocks[#blocks].t == 'Para' and blocks:remove()
      local cap = pandoc.List(md_inlines('Chapter ' .. tonumber(key) .. ', ' .. (GENERATED_WHAT[class] or class) .. ':'))
      cap:insert(pandoc.Space())
      if intro then last = intro.content; cap:extend(intro.content)
      elseif last then cap:extend(last); cap:extend(md_inlines(' (continued: more programs)'))
      else cap:extend(md_inlines('on one GPU.')) end
      b.caption.long = {pandoc.Plain(cap)}
      local div = numbered_table(key, b, nil, {class})
      blocks:insert(div)
    else
      blocks:insert(b)
    end
  end
  return pandoc.Div(blocks, pandoc.Attr('', {class}))
end

-- Every figure, for book/check_pdf.py captions (written next to book.json as figures.json): its
-- label, caption and chart, and what the chart draws.
local FIGURES = {}

local function figure_block(key, caption, svg, drawn)
  local label, id = number('Figure', key)
  -- "Figure 6.1" already names the chapter: a caption does not say "Chapter 6:" again.
  caption = caption:gsub('^Chapter %d+: (.)', string.upper)
  local inl = md_inlines(label .. ' ' .. caption)
  FIGURES[#FIGURES + 1] = {label = stringify(md_inlines(label)), id = id, caption = stringify(inl), svg = svg, drawn = drawn or {}}
  -- The title "fig:" makes a paragraph holding only this image a figure with a caption.
  local img = pandoc.Image(inl, svg, 'fig:', pandoc.Attr(id, {}, {{'width', '100%'}}))
  return pandoc.Div({pandoc.Para({img})}, pandoc.Attr('', {'figure'}))
end

local function words(list) -- "a", "a and b", "a, b and c"
  if #list <= 1 then return list[1] or '' end
  return table.concat(list, ', ', 1, #list - 1) .. ' and ' .. list[#list]
end

-- LaTeX: keep a caption with the first lines of its code; colour a diff's removed lines red and
-- added lines green (the diff syntax marks them as String and Variable tokens).
local DIFF_BEGIN = pandoc.RawBlock('latex', '\\begingroup' ..
  '\\renewcommand{\\StringTok}[1]{\\textcolor[rgb]{0.70,0.10,0.10}{#1}}' ..
  '\\renewcommand{\\VariableTok}[1]{\\textcolor[rgb]{0.10,0.45,0.10}{#1}}')
local DIFF_END = pandoc.RawBlock('latex', '\\endgroup')

local function listing_block(nn, caption, code, classes, attrs)
  local label, id = number('Listing', nn)
  local cap = pandoc.Div({pandoc.Para(md_inlines(label .. ' ' .. caption))}, pandoc.Attr('', {'listing-caption'}))
  local cb = pandoc.CodeBlock(code, pandoc.Attr('', classes, attrs))
  if classes[1] == 'diff' then
    return pandoc.Div({NEEDSPACE(6), cap, DIFF_BEGIN, cb, DIFF_END}, pandoc.Attr(id, {'listing', 'diff-listing'}))
  end
  return pandoc.Div({NEEDSPACE(6), cap, cb}, pandoc.Attr(id, {'listing'}))
end

local LANG = {cu = 'cpp', h = 'cpp', cuh = 'cpp', c = 'c', mk = 'makefile', sh = 'bash', toml = 'toml'}
local function lang_of(file) return LANG[file:match('%.(%w+)$') or ''] or (file:match('Makefile') and 'makefile') end

---------------------------------------------------------------------------------------------
-- A chapter: its README, each generated block replaced by the data's rendering of it

local by_nn = {}
local superscripts -- defined with the exponents, below
local units -- the prose's units, below

local function chapter_ref(nn)
  local c = by_nn[nn] or fail('a reference to chapter %s, which is not in the table of contents', nn)
  if c.status == 'written' then return '[' .. nn .. '\\. ' .. md_escape(c.title) .. '](#ch-' .. nn .. ')' end
  return nn .. '\\. ' .. md_escape(c.title) .. ' (' .. c.status .. ')'
end

local function resolve(base, path) -- a relative path from a base directory, normalized
  local parts = {}
  for p in ((path:sub(1, 1) == '/' and path:sub(2)) or (base .. '/' .. path)):gmatch('[^/]+') do
    if p == '..' then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif p ~= '.' then parts[#parts + 1] = p end
  end
  return table.concat(parts, '/')
end

-- Links to another chapter become links inside the book; to other files of the repository, plain
-- text; "#section", a link into the same chapter. A link to nothing fails the build.
local function fix_links(c, blocks)
  return pandoc.walk_block(pandoc.Div(blocks), {
    Link = function(l)
      local t = l.target
      if t:match('^%a[%w+.-]*:') then return nil end -- http:, https:, mailto:
      if t:sub(1, 1) == '#' then l.target = '#ch' .. c.nn .. '-' .. t:sub(2); return l end
      local path, frag = t:match('^([^#]*)#?(.*)$')
      local p = resolve(c.folder, path)
      if not p or not exists(p) then fail('%s: the link "%s" points to %s, which does not exist', c.readme, t, p or path) end
      local nn = p:match('^chapters/(%d%d)%-[^/]+$') or p:match('^chapters/(%d%d)%-[^/]+/README%.md$')
      if nn then
        if not (by_nn[nn] and by_nn[nn].status == 'written') then fail('%s: the link "%s" points to chapter %s, which has no README.md', c.readme, t, nn) end
        l.target = frag ~= '' and ('#ch' .. nn .. '-' .. frag) or ('#ch-' .. nn)
        return l
      end
      return pandoc.Span(l.content, pandoc.Attr('', {'repo-file'}, {{'title', p}}))
    end,
    Image = function(img)
      if img.src:match('^%a[%w+.-]*:') then return nil end
      local p = resolve(c.folder, img.src)
      if not p or not exists(p) then fail('%s: the image "%s" does not exist', c.readme, img.src) end
      img.src = p
      return img
    end,
  }).content
end

local function comment_of(b) -- "listing: naive.cu kernel" for <!-- listing: naive.cu kernel -->
  return b.t == 'RawBlock' and b.format == 'html' and b.text:match('^%s*<!%-%-%s*(.-)%s*%-%->%s*$')
end

local function fmt1(x) return x and ftoa(x, 1) or '—' end
local function join(t, sep) local o = {}; for k, v in ipairs(t or {}) do o[k] = md_escape(v) end; return table.concat(o, sep or ', ') end
local function range(t) return t and (t[1] == t[2] and tostring(t[1]) or (t[1] .. '–' .. t[2])) or '—' end
local function gpu_name(slug) for _, g in ipairs(DATA.gpus) do if g.slug == slug then return g.short end end; return slug end

-- A counter for a reader: thousands separated by commas, three significant digits for a
-- fraction, never e-notation (4.70 × 10^-8^ in Pandoc's markdown).
local function grouped(digits)
  local sign, int, rest = digits:match('^(%-?)(%d+)(.*)$')
  return sign .. int:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', '') .. rest
end
local function number_md(x)
  if x == nil then return '—' end
  local a = math.abs(x)
  if a >= 1e15 then local e = math.floor(math.log(a, 10)); return ftoa(x / 10 ^ e, 2) .. ' × 10^' .. e .. '^' end
  if x == math.floor(x) or a >= 1000 then return grouped(string.format('%.0f', x)) end
  if a >= 100 then return ftoa(x, 1) end
  if a >= 1 then return ftoa(x, 2) end
  if a >= 0.01 then return string.format('%.3g', x) end
  local e = math.floor(math.log(a, 10))
  return ftoa(x / 10 ^ e, 2) .. ' × 10^\u{2212}' .. -e .. '^'
end
-- A speedup to sensible precision: 1.60×, 23.6×, 236×.
local function speedup_md(x)
  return (x >= 100 and ftoa(x, 0)) or (x >= 10 and ftoa(x, 1)) or ftoa(x, 2)
end

-- A part of a chapter's full record (every counter; every configuration of a sweep that a chart
-- draws): collapsed in the HTML, moved to the PDF's appendix C by book/to-latex.lua.
local function record_block(c, kind, summary, blocks)
  local inner = pandoc.List({pandoc.RawBlock('html', '<details><summary>' .. summary .. '</summary>')})
  inner:extend(blocks)
  inner:insert(pandoc.RawBlock('html', '</details>'))
  return pandoc.Div(inner, pandoc.Attr(kind .. '-' .. c.nn, {'record'}, {{'chapter', c.nn .. '. ' .. c.title}, {'what', summary}}))
end

-- The results (the book's layout of the data's rows), their context, then the chart.
local function results_section(c)
  local out = pandoc.List()
  if #c.results == 0 then
    return md_blocks('**Not measured yet.** On a machine with a GPU, `make results CHAPTERS=' .. c.nn ..
      '` measures this chapter and `make book` puts the numbers here.')
  end
  -- The chapter's one results table, as the README prints it (scripts/guide/render.py lays it
  -- out: a GPU column, each GPU's rows and roof); above it, each GPU's stale rows by their hash;
  -- each GPU's context goes to the full record.
  local header, aligns, rows, contexts = {}, {}, {}, pandoc.List()
  for i, col in ipairs(c.results_table.columns) do -- a line that starts with % is a title block to Pandoc
    header[i], aligns[i] = cell((col:gsub('^%%', '\\%%'))), i <= 2 and 'AlignLeft' or 'AlignRight'
  end
  for k, line in ipairs(c.results_table.lines) do
    rows[k] = {}
    for i, text in ipairs(line) do rows[k][i] = cell(text == '-' and '—' or text) end -- "-" alone would be a list
  end
  for _, g in ipairs(c.results) do
    -- The stale rows, grouped by the hash they were measured from. Set ragged right: a
    -- justified line of 12-digit hashes has few places to break and ran into the margin.
    local stale, hashes, by_hash = 0, {}, {}
    for _, r in ipairs(g.rows) do
      if r.stale then
        stale = stale + 1
        if not by_hash[r.source_hash] then by_hash[r.source_hash] = {}; hashes[#hashes + 1] = r.source_hash end
        table.insert(by_hash[r.source_hash], r.variant)
      end
    end
    if stale > 0 then
      local parts = {}
      for _, h in ipairs(hashes) do
        parts[#parts + 1] = 'the ' .. md_escape(words(by_hash[h])) .. (#by_hash[h] == 1 and ' row was' or ' rows were') ..
          ' measured from sources hashed ' .. h
      end
      out:insert(pandoc.RawBlock('latex', '\\begingroup\\raggedright'))
      out:extend(md_blocks(string.format('**STALE:** on %s, %s; this book\'s sources hash to %s. ' ..
        'Measure again with `make results CHAPTERS=%s`.', md_escape(g.name), table.concat(parts, '; '),
        c.source_hash, c.nn)))
      out:insert(pandoc.RawBlock('latex', '\\par\\endgroup'))
    end
    contexts:extend(md_blocks(g.context))
  end
  out:insert(table_block(c.nn, 'Chapter ' .. c.number .. ' measured on ' .. words((function()
      local t = {}; for _, g in ipairs(c.results) do t[#t + 1] = md_escape(g.name) end; return t end)()) ..
    ': the median of the samples, their noise (bold above 5 %), the fastest sample, and the speedup over the naive program.',
    aligns, header, rows, {'results'}))
  -- A host-bound chapter: what its time depends on beyond the GPU, as each run recorded it (the
  -- figures `make doctor` compares with the reader's own results), and the host it ran on.
  local figures = {}
  for _, f in ipairs(c.host_figures or {}) do
    local each, hosts, seen = {}, {}, {}
    for _, v in ipairs(f.values) do
      each[#each + 1] = string.format('%.4g %s on the %s', v.value, f.unit == 'us' and 'µs' or f.unit, v.short:match('^%S+'))
      hosts[#hosts + 1] = 'the ' .. v.short:match('^%S+') .. '\'s ' .. (v.host and md_escape(v.host) or 'not recorded')
      seen[v.host or ''] = true
    end
    local one = next(seen, next(seen)) == nil and next(seen) -- the one host all runs name, '' if none recorded
    figures[#figures + 1] = (f.label:match('roof$') and 'the ' or '') .. md_escape(f.label) .. ', ' .. words(each) ..
      (one == '' and ' (the host not recorded in these rows)' or one and (' (host: ' .. md_escape(one) .. ')') or (' (hosts: ' .. words(hosts) .. ')'))
  end
  if #figures > 0 then
    out:extend(md_blocks('**What the host sets.** Beyond the GPU, this chapter\'s time depends on ' .. table.concat(figures, '; ') ..
      '. Where your speedup differs from this book\'s, `make doctor` compares these figures with your own `make results`.'))
  end
  -- How each GPU measured (clocks, versions, sizes, timing method): part of the full record.
  out:insert(record_block(c, 'context', 'How each GPU was measured', {pandoc.Div(contexts, pandoc.Attr('', {'results-context'}))}))
  -- The caption says what the chart draws, as charts.lua reports it.
  local svg, drawn = charts.chapter(c.nn, c.chart)
  local what = (c.chart.unit and md_escape(c.chart.unit) or 'Median time') .. ' of each program on each GPU' ..
    (c.chart.unit and '' or ' (lower is better)') ..
    (drawn.roof and ('; the dashed line is each GPU\'s ' .. md_escape(drawn.roof)) or '') .. '.'
  out:insert(figure_block(c.nn, 'Chapter ' .. c.number .. ': ' .. what, svg, drawn))
  return out
end

local VERDICT = {held = 'held', missed = '**missed**'}
local function verdict(v) return VERDICT[v] or ('*' .. md_escape(v) .. '*') end

-- The evidence in the chapter: the prediction and each claim in words with its verdict on each
-- GPU, and the counters those claims read (story_counters), under plain names.
-- The full record follows, collapsed in the HTML; book/to-latex.lua moves it to the PDF's
-- evidence appendix.
local function verdicts_md(verdicts)
  local by, order = {}, {}
  for _, g in ipairs(DATA.gpus) do
    local v = verdicts[g.slug]
    if v and v.verdict then
      if not by[v.verdict] then by[v.verdict] = {}; order[#order + 1] = v.verdict end
      table.insert(by[v.verdict], 'the ' .. md_escape(g.short))
    end
  end
  local t = {}
  for _, v in ipairs(order) do t[#t + 1] = '**' .. md_escape(v) .. '** on ' .. words(by[v]) end
  return #t > 0 and table.concat(t, '; ') or '*not measured yet*'
end

local function counter_cell(ct)
  local unit = ct.unit or ''
  local name = md_escape(ct.plain)
  if unit ~= '' and not ({inst = 1, instructions = 1, byte = 1, ['%'] = 1})[unit] and not ct.plain:find(unit, 1, true) then
    name = name .. ' (' .. md_escape(unit) .. ')'
  end
  return cell(name)
end

-- The chapter's table of counters holds what its story reads: the counters of its claims, the
-- predictions' before the observations', at most COUNTERS_KEPT of them in at most
-- COUNTER_ROWS_KEPT rows (a row per counter and program), under their plain names. Every counter
-- recorded, under its tool's name, is in the full record (book/check_pdf.py counter-rows).
local COUNTERS_KEPT, COUNTER_ROWS_KEPT = 5, 12
local function story_counters(c)
  local kept, refs, rows = {}, {}, 0
  for _, observation in ipairs({false, true}) do
    for _, cl in ipairs(c.claims) do
      if (cl.kind.kind == 'observation') == observation then
        for _, ct in ipairs(cl.counters or {}) do
          if not refs[ct.ref] and #kept < COUNTERS_KEPT and (#kept == 0 or rows + #ct.programs <= COUNTER_ROWS_KEPT) then
            refs[ct.ref] = true
            kept[#kept + 1] = ct
            rows = rows + #ct.programs
          end
        end
      end
    end
  end
  return kept
end

local function seen_rows(c) -- the rows of every counter the claims read
  local seen, n = {}, 0
  for _, cl in ipairs(c.claims) do
    for _, ct in ipairs(cl.counters or {}) do
      if not seen[ct.ref] then seen[ct.ref] = true; n = n + #ct.programs end
    end
  end
  return n
end

local function claims_blocks(c)
  local out = pandoc.List()
  local p = c.prediction
  if p then
    local said = {}
    for _, g in ipairs(DATA.gpus) do
      local v = p.verdicts[g.slug]
      if v and v.speedup then said[#said + 1] = speedup_md(v.speedup) .. '× on the ' .. md_escape(g.short) .. ' (' .. verdict(v.verdict) .. ')' end
    end
    out:extend(md_blocks(string.format('**Predicted:** %g× to %g× faster. ', p.speedup[1], p.speedup[2]) ..
      (#said > 0 and ('**Measured:** ' .. words(said) .. '.') or 'Not measured yet.')))
  end
  local items, observed, crow, code_words = {}, {}, {}, {}
  for _, b in ipairs(c.blocks) do
    for w in (b.code or b.markdown or ''):gmatch('([%a_][%w_]*)%s*%(') do code_words[w] = true end
  end
  for _, cl in ipairs(c.claims) do
    -- The claim's words as a sentence; a first word that the code calls (sinf) keeps its case.
    local first = cl.says:match('^(%a[%w_]*)')
    local says = (first and code_words[first]) and cl.says or cl.says:gsub('^%l', string.upper)
    local para = pandoc.Plain(md_inlines(md_escape(says) .. (says:match('[.!?]$') and '' or '.') .. ' It ' ..
      verdicts_md(cl.verdicts) .. '.'))
    para.content:insert(pandoc.Space())
    para.content:insert(pandoc.Span({pandoc.Str('(claim'), pandoc.Space(), pandoc.Code(cl.id), pandoc.Str(':'), pandoc.Space(),
      pandoc.Code(cl.holds), pandoc.Str(cl.symmetric and '; it holds both ways by design)' or ')')}, pandoc.Attr('', {'metric-name'})))
    table.insert(cl.kind.kind == 'observation' and observed or items, {para})
  end
  for _, ct in ipairs(story_counters(c)) do
    for k, prog in ipairs(ct.programs) do
      local row = {k == 1 and counter_cell(ct) or cell(''), cell('`' .. prog .. '`')}
      for _, g in ipairs(DATA.gpus) do
        local v = ct.values[g.slug]
        row[#row + 1] = cell(v and number_md(v[prog]) or '—')
      end
      crow[#crow + 1] = row
    end
  end
  -- LaTeX: a claim may name an opcode (LDG.E.CONSTANT) that does not break; let the line stretch.
  local SLOPPY, END = pandoc.RawBlock('latex', '\\begingroup\\sloppy'), pandoc.RawBlock('latex', '\\par\\endgroup')
  if #items > 0 then out:extend({SLOPPY, pandoc.BulletList(items), END}) end
  if #observed > 0 then
    out:extend(md_blocks('Observed after measuring (written or changed after the numbers they read were recorded; checked, ' ..
      'not counted as predictions):'))
    out:extend({SLOPPY, pandoc.BulletList(observed), END})
  end
  if #crow > 0 then
    local header, aligns = {cell('Counter'), cell('Program')}, {'AlignLeft', 'AlignLeft'}
    for _, g in ipairs(DATA.gpus) do header[#header + 1] = cell(md_escape(g.short)); aligns[#aligns + 1] = 'AlignRight' end
    out:insert(table_block(c.nn, 'Chapter ' .. c.number .. ': the counters its claims read, on each GPU (' ..
      (#crow < seen_rows(c) and 'the first of them; ' or '') .. 'every counter recorded, under its tool\'s name, is in the ' ..
      'full record: the evidence appendix of the PDF, the collapsed section below in the HTML).',
      aligns, header, crow, {'claim-counters'}))
  end
  return out
end

-- Lines of `make readme`'s rendering that the book says in its own way: the verdict bullets
-- (claims_blocks above) and the "Generated by" note.
local function record_markdown(md)
  local keep = {}
  for line in (md .. '\n'):gmatch('(.-)\n') do
    if not line:match('^%s*%- ') and not line:match('^Generated by') then keep[#keep + 1] = line end
  end
  return table.concat(keep, '\n')
end

local function evidence_blocks(c, g)
  local out = claims_blocks(c)
  out:insert(record_block(c, 'evidence', 'The full record: every counter recorded for chapter ' .. c.number .. ', on every GPU',
    {generated_blocks(c.nn, record_markdown(g.markdown), 'evidence')}))
  return out
end

-- A sweep of at most this many table lines (rows and headers, every GPU) and no chart stays in
-- its chapter; a longer one goes to the full record, where the chapter's prose points to it.
local SWEEP_KEPT_LINES = 14
local function sweep_lines(div)
  local n = 0
  pandoc.walk_block(div, {Table = function(t) n = n + table_lines(t) end})
  return n
end

local function generated(c, g) -- the book's layout of one generated block of a README
  if g.kind == 'listing' then
    local classes = {'numberLines'}
    if lang_of(g.file) then table.insert(classes, 1, lang_of(g.file)) end
    -- Blank lines at both ends and the common indentation go; the numbers stay the source's.
    local lines, first, indent = {}, g.first_line, nil
    for l in (g.code .. '\n'):gmatch('(.-)\n') do lines[#lines + 1] = l end
    while lines[1] and not lines[1]:match('%S') do table.remove(lines, 1); first = first + 1 end
    while lines[#lines] and not lines[#lines]:match('%S') do table.remove(lines) end
    for _, l in ipairs(lines) do
      local ws = l:match('%S') and l:match('^[ \t]*')
      if ws and (not indent or #ws < #indent) then indent = ws end
    end
    for k, l in ipairs(lines) do lines[k] = l:sub(#(indent or '') + 1) end
    local cap = '`' .. g.file .. '` (' .. md_escape(g.marker) .. ')'
    return {listing_block(c.nn, cap, table.concat(lines, '\n'), classes, {{'startFrom', tostring(first)}})}
  elseif g.kind == 'diff' then
    local a, b = g.args:match('^(%S+)%s+(%S+)$')
    -- The build markers (// [kernel]) that cut the listings are not part of what changed.
    local lines = {}
    for l in (md_blocks(g.markdown)[1].text .. '\n'):gmatch('(.-)\n') do
      if not l:match('^[ +-]?%s*//%s*%[[%w_-]+%]%s*$') then lines[#lines + 1] = l end
    end
    return {listing_block(c.nn, 'What changed: `diff -U2 ' .. a .. ' ' .. b .. '`', table.concat(lines, '\n'), {'diff'}, {})}
  elseif g.kind == 'results' then
    return results_section(c)
  elseif g.kind == 'evidence' then
    return evidence_blocks(c, g)
  end
  -- Sweep and evidence (with the prediction's and claims' verdicts): as `make readme` writes them;
  -- a sweep of one numeric knob is also drawn as a curve, after its table.
  local out, sc = {generated_blocks(c.nn, record_markdown(g.markdown), g.kind)}, c.sweep_chart
  if g.kind == 'sweep' and (sc or sweep_lines(out[1]) > SWEEP_KEPT_LINES) then
    -- The sweep's table goes to the full record; the chapter keeps its chart, and its prose the
    -- configurations it discusses (inline values). A small sweep with no chart stays in the
    -- chapter: its prose reads its rows ("the last column").
    out[1] = record_block(c, 'sweep', 'Every configuration of the sweep, on every GPU' .. (sc and ' (the numbers of the chart)' or ''), {out[1]})
  end
  if g.kind == 'sweep' and sc then
    local svg, drawn = charts.sweep(c.nn, sc)
    local flat = drawn.flat or {}
    out[2] = figure_block(c.nn, 'Chapter ' .. c.number .. ': ' .. md_escape(sc.unit or 'median time (µs)') .. ' of the ' ..
      words(drawn.programs) .. ' program' .. (#drawn.programs > 1 and 's' or '') .. ' against `--' .. sc.knob .. '`, per GPU' ..
      (#flat > 0 and ('; the ' .. words(flat) .. ' program' .. (#flat > 1 and 's' or '') .. ', whose rate this knob moves by less than ' .. sc.varies_pct .. ' %, ' ..
        (#flat > 1 and 'are' or 'is') .. ' left out') or '') ..
      (drawn.roof and ('; the dashed lines are the GPUs\' ' .. md_escape(drawn.roof) .. 's') or '') .. '.', svg, drawn)
  end
  return out
end

-- One unit style in the prose (the READMEs write plain ASCII for GitHub): "2.5x" is 2.5×, "12 us"
-- 12 µs, "8.87e-08" 8.87 × 10^−8^ (book/check_pdf.py units finds any left).
local NBSP = '\u{00A0}'
units = function(inl0)
  -- Adjacent Str (an inline value's text, then the "x" that followed its closing comment) are
  -- one word.
  local inl, merged = pandoc.List(), false
  for _, x in ipairs(inl0) do
    if x.t == 'Str' and #inl > 0 and inl[#inl].t == 'Str' then inl[#inl] = pandoc.Str(inl[#inl].text .. x.text); merged = true
    else inl:insert(x) end
  end
  local out, changed = pandoc.List(), merged
  for k, x in ipairs(inl) do
    if x.t == 'Str' then
      local t = x.text
      local a, num, b = t:match('^(%p*)(%d[%d.,]*)x(%p*)$')
      if num and not num:match('^0$') then t = a .. num .. '×' .. b end
      local a2, num2, b2 = t:match('^(%p*%d[%d.,]*)us(%p*)$')
      if num2 then t = a2 .. 'µs' .. b2 end
      local prev = inl[k - 1] and inl[k - 2]
      if t:match('^us%p*$') and inl[k - 1] and inl[k - 1].t == 'Space' and prev and prev.t == 'Str' and prev.text:match('%d$') then
        t = 'µs' .. t:sub(3)
      end
      local pre, mant, sign, exp, post = t:match('^(%p*)(%d%.?%d*)[eE]([+-]?)(%d+)(%p*)$')
      if mant then
        out:insert(pandoc.Str(pre .. mant .. NBSP .. '×' .. NBSP .. '10'))
        out:insert(pandoc.Superscript({pandoc.Str((sign == '-' and '\u{2212}' or '') .. tostring(tonumber(exp)))}))
        if post ~= '' then out:insert(pandoc.Str(post)) end
        changed = true
      else
        if t ~= x.text then changed = true end
        out:insert(t ~= x.text and pandoc.Str(t) or x)
      end
    else
      out:insert(x)
    end
  end
  return changed and out or nil
end

-- Pictures of the mechanism a chapter teaches, computed by charts.lua from what the chapter's
-- programs recorded (knobs, sizes, ptxas and ncu figures) and the programs' own arithmetic; each
-- goes before the chapter's first listing.
-- Each GPU's record ({gpu, size, m = {metric -> {program -> value}}}), the results' first GPU first.
local function records(c)
  local out, first = {}, (c.results[1] or {}).gpu
  for _, e in ipairs(c.evidence or {}) do
    local m = {}
    for _, x in ipairs(e.metrics) do m[x.metric] = x.values end
    table.insert(out, e.gpu == first and 1 or #out + 1, {gpu = e.gpu, size = e.size, m = m})
  end
  return out
end
-- What every GPU recorded beside a figure a picture draws, for check_pdf.py diagrams (drawn's
-- per_request, each within half): drawn is {{program, value}}, f(m, size, program) the recorded
-- figure; a counter a GPU lacks is recorded as nothing, which the check reports.
local function against(list, recs, what, drawn, f)
  for _, r in ipairs(recs) do
    for _, d in ipairs(drawn) do
      local ok, v = pcall(f, r.m, r.size, d[1])
      if not (ok and type(v) == 'number' and math.abs(v) < math.huge) then v = nil end -- nil or NaN: not recorded
      list[#list + 1] = {gpu = r.gpu, program = d[1], what = what, drawn = d[2], recorded = v}
    end
  end
end

-- The occupancy rules of a compute capability (the CUDA occupancy calculator's): per SM at most
-- warps warps, blocks blocks, regs registers (allocated per warp in reg_unit), smem bytes of
-- shared memory (allocated per block in smem_unit, reserved more taken by the system per block).
local OCCUPANCY = {['9.0'] = {warps = 64, blocks = 32, regs = 65536, reg_unit = 256, smem = 233472, smem_unit = 128, reserved = 1024}}
local function resident(r, threads, regs, smem)
  local wpb = (threads + 31) // 32
  local per_warp = -(-(regs * 32) // r.reg_unit) * r.reg_unit
  local limits = {
    math.min(r.warps // wpb, r.blocks) * wpb,
    (r.regs // per_warp) // wpb * wpb,
    r.smem // (-(-(smem + r.reserved) // r.smem_unit) * r.smem_unit) * wpb,
  }
  local least = math.min(table.unpack(limits))
  return least, limits
end
local function recorded(c, name)
  local out = {}
  for _, e in ipairs(c.evidence or {}) do
    for _, m in ipairs(e.metrics) do if m.metric == name then out[e.gpu] = m.values end end
  end
  return out
end

-- The figures a GPU recorded for a chapter ({metric -> {program -> value}}), the GPU the first
-- results row was measured on (the H100's file, first), and every GPU's host figures as a list,
-- for check_pdf.py diagrams to compare with what a caption restates.
local function one_gpu(c)
  local r = c.results[1] or {}
  local out, all = nil, {}
  for _, e in ipairs(c.evidence or {}) do
    local m = {}
    for _, x in ipairs(e.metrics) do
      m[x.metric] = x.values
      for prog, v in pairs(x.values) do all[#all + 1] = {gpu = e.gpu, program = prog, metric = x.metric, value = v} end
    end
    if e.gpu == r.gpu then out = m end
  end
  local short = r.gpu
  for _, g in ipairs(DATA.gpus) do if g.slug == r.gpu then short = g.short end end
  local knobs = {}
  for k, v in (r.knobs or ''):gmatch('(%w+)=(%d+)') do knobs[k] = tonumber(v) end
  return out, {gpu = r.gpu, short = short, size = r.size, knobs = knobs}, all
end
-- A caption's restatement of a recorded figure: the text as printed, and where it comes from.
local function stated(list, gpu, program, metric, value, fmt, scale)
  local text = string.format(fmt, value * (scale or 1))
  list[#list + 1] = {gpu = gpu, program = program, metric = metric, text = text, scale = scale or 1}
  return text
end

-- The pipeline of chapter 02 on a model clock: the array in chunks (the last may be short), each
-- chunk's upload, kernel and download in stream (chunk mod streams), each stage of a chunk its
-- share of the stage's recorded time. An operation starts when its stream's previous one and its
-- engine are done: one engine uploads, the SMs run one kernel at a time, and a second copy engine
-- downloads where the GPU has one. Returns boxes {x0, x1, row (1 upload, 2 kernel, 3 download), stream}.
local function pipeline_model(stage_ms, n, chunks, streams, engines)
  local chunk, boxes, last = (n + chunks - 1) // chunks, {}, 0
  local stream_free, engine_free = {}, {0, 0, 0}
  local engine_of = {1, 2, engines >= 2 and 3 or 1}
  for c = 0, chunks - 1 do
    local count, s = math.min(chunk, n - c * chunk), c % streams + 1
    if count <= 0 then break end
    for row = 1, 3 do
      local e = engine_of[row]
      local t0 = math.max(stream_free[s] or 0, engine_free[e])
      local t1 = t0 + stage_ms[row] * count / n
      boxes[#boxes + 1] = {t0, t1, row, s}
      stream_free[s], engine_free[e], last = t1, t1, math.max(last, t1)
    end
  end
  return boxes, last
end

-- Bytes in flight per SM (Little's law) for chapters 06 and 07: each program's loads in flight per
-- SM (resident warps x 32 threads x bytes per load x loads in flight per thread) against the share
-- of the copy roof it reached, its sweep rows as points, and Little's law at a fixed latency L0 as
-- a line: rate = bytes in flight / L0, as a share of the GPU's copy roof, capped at 100%. L0 is the
-- latency the GPU's least-loaded point implies (its bytes in flight per SM over its reads per SM
-- per ns): an upper bound on the unloaded latency, the closer the less loaded that point. warps: a program runs the warps
-- knob if its recorded occupancy (ncu's warps active, of the SM's maximum) is the default knob's,
-- else the warps recorded; loads(ev, prog, knobs) and width(ev, prog), the loads in flight per
-- thread and the bytes per thread-load, read the chapter's evidence.
local function knob_table(s)
  local t = {}
  for k, v in (s or ''):gmatch('([%w_-]+)=([^;]+)') do t[k] = tonumber(v) or v end
  return t
end
local function inflight(c, o)
  local rules = OCCUPANCY[((DATA.gpus[1] or {}).cc or {})[1] or '']
  if not rules then return nil end
  local gpus, ev, evidence = {}, {}, {}
  for _, e in ipairs(c.evidence or {}) do
    ev[e.gpu] = {size = e.size}
    for _, m in ipairs(e.metrics) do ev[e.gpu][m.metric] = m.values end
  end
  for _, r in ipairs(c.results) do
    local g, e = nil, ev[r.gpu]
    for _, d in ipairs(DATA.gpus) do if d.slug == r.gpu then g = d end end
    local occ = e and e['sm__warps_active.avg.pct_of_peak_sustained_active']
    if not (g and occ) then return nil end
    local K, sms = knob_table(r.knobs), g.sms[1]
    local function bytes(prog, knobs)
      local seen = occ[prog] * rules.warps / 100
      local w = math.abs(seen - K[o.warps]) <= 0.1 * K[o.warps] and knobs[o.warps] or math.floor(seen + 0.5)
      local l, b = math.floor(o.loads(e, prog, knobs, K) + 0.5), math.floor(o.width(e, prog) + 0.5)
      return w * 32 * b * l, {warps = w, loads = l, width = b}
    end
    local G = {gpu = r.gpu, short = g.short:match('^%S+'), sms = sms, points = {}, programs = {}}
    local function point(b, how, row, default)
      G.points[#G.points + 1] = {b, row.pct_roof, row.variant, default, rate = row.rate, warps = how.warps, loads = how.loads, width = how.width}
    end
    for _, row in ipairs(r.rows) do
      local b, how = bytes(row.variant, K)
      how.name, how.bytes, how.rate, how.roof = row.variant, b, row.rate, row.roof
      G.programs[#G.programs + 1] = how
      -- What the GPU recorded, for check_pdf.py diagrams: its warps active, its loads per trip, its bytes per thread-load.
      evidence[#evidence + 1] = {gpu = r.gpu, program = row.variant, warps = occ[row.variant] * rules.warps / 100,
        loads = e['LDG.E.128'] and e['LDG.E.128'][row.variant], width = o.width(e, row.variant)}
      point(b, how, row, true)
      if row.variant == 'optimized' then G.roof = row.roof end
    end
    for _, s in ipairs(c.sweeps or {}) do
      for _, row in ipairs(s.gpu == r.gpu and s.rows or {}) do local b, how = bytes(row.variant, knob_table(row.knobs)); point(b, how, row, false) end
    end
    if not (G.roof and #G.programs == 2) then return nil end
    -- The least-loaded point (the fewest bytes in flight; of those, the fastest) and the latency it implies.
    local least
    for _, p in ipairs(G.points) do
      if not least or p[1] < least[1] or (p[1] == least[1] and p.rate > least.rate) then least = p end
    end
    G.least, G.per_ns = least, G.roof / 2 / sms
    G.l0 = least[1] / (least.rate / 2 / sms)
    gpus[#gpus + 1] = G
  end
  if #gpus == 0 then return nil end
  local svg, drawn = charts.inflight(c.nn, gpus)
  drawn.evidence, drawn.max_warps = evidence, rules.warps
  return svg, drawn
end
-- The caption of a bytes-in-flight picture (chapters 06 and 07), from what it drew.
local function inflight_caption(c, drawn, sweep)
  local p, n = drawn.programs, drawn.lines
  local function each(f) local t = {}; for k, x in ipairs(n) do t[k] = f(x) .. ' on the ' .. x.short end; return words(t) end
  local function prog(x) return string.format('%d warp%s × %d load%s', x.warps, x.warps == 1 and '' or 's', x.loads, x.loads == 1 and '' or 's') end
  local same = #n == 2 and n[1].least.name == n[2].least.name and n[1].least.kb == n[2].least.kb
  return 'Chapter ' .. c.number .. ': the bytes of loads each SM keeps in flight (resident warps × 32 threads × ' ..
    'bytes per load × loads in flight per thread) against the share of the copy roof each launch reached, on each GPU: naive ' ..
    prog(p[1]) .. ' (' .. p[1].kb .. '), optimized ' .. prog(p[2]) .. ' (' .. p[2].kb .. '), the small points the ' .. sweep ..
    '; each GPU\'s markers and line are drawn a little to its own side of their bytes. Little\'s law: the rate is the bytes in flight ' ..
    'over the latency. The dashed lines draw it at a fixed latency L0, as a share of each GPU\'s copy roof, capped at 100%: L0 is ' ..
    'the latency the least-loaded point implies (the ' .. (same and (n[1].least.name .. ' launch with the fewest bytes in flight, ' .. n[1].least.kb ..
    ', on both GPUs') or each(function(x) return x.least.name .. ' launch with the fewest bytes in flight, ' .. x.least.kb end)) ..
    '), its bytes in flight per SM over its reads per SM per nanosecond: ' .. each(function(x) return x.ns end) ..
    '. That launch reaches ' ..
    each(function(x) return string.format('%.0f%% of the roof', 100 * x.least.rate / (2 * x.per_ns * x.sms)) end) ..
    ': L0 is an upper bound on the unloaded latency, the closer the less of the roof that launch reaches (chapters 06 and 07 ' ..
    'reach theirs at different shares, and their L0 differ). Where the points fall below their line the latency has risen: ' ..
    'the memory system fills, and each added byte in flight buys less rate. Computed from the results rows, the sweeps, the copy roofs ' ..
    'and the recorded occupancy and loads, not drawn by hand; the book\'s check compares the warps, loads and bytes with what ' ..
    'each GPU recorded and recomputes L0 from the least-loaded point.'
end

-- Each GPU's evidence as {gpu = {metric = {program = value}}}, and the sectors a request
-- touches: the 32-byte sectors under its lanes' {byte, bytes}.
local function by_gpu(c)
  local out = {}
  for _, e in ipairs(c.evidence or {}) do
    out[e.gpu] = {}
    for _, x in ipairs(e.metrics) do out[e.gpu][x.metric] = x.values end
  end
  return out
end
local function sectors_of(lanes)
  local seen, n = {}, 0
  for _, l in ipairs(lanes) do
    for s = l[1] // 32, (l[1] + l[2] - 1) // 32 do if not seen[s] then seen[s], n = true, n + 1 end end
  end
  return n
end
-- Chapter 17's kernels, their load requests for image row r (each a list of its lanes' {byte,
-- bytes}): threads t of a row filter floats head + t vec .. + vec - 1 with one vec-wide load and
-- a load of each neighbour (clamped to the row); packed rows (pitch = the row's bytes) first peel
-- the floats before their first vec-aligned one (head) and after their last whole vector (tail),
-- a thread each, three loads a pixel; pitched rows start aligned and peel nothing.
local function filter_loads(cols, pitch, vec, r)
  local packed, base, out = pitch == 4 * cols, r * pitch, {}
  local head = packed and math.min((vec - r * (pitch // 4) % vec) % vec, cols) or 0
  local vectors = packed and (cols - head) // vec or (cols + vec - 1) // vec
  local tail = packed and cols - head - vectors * vec or 0
  local function side(i) return math.max(0, math.min(i, cols - 1)) end
  local function pixel(c) return {{side(c - 1), 1}, {c, 1}, {side(c + 1), 1}} end
  local groups = {{vectors, function(t) local c0 = head + t * vec; return {{c0, vec}, {side(c0 - 1), 1}, {c0 + vec < cols and c0 + vec or cols - 1, 1}} end},
    {head, pixel}, {tail, function(t) return pixel(head + vectors * vec + t) end}}
  for _, g in ipairs(groups) do
    for w = 0, (g[1] - 1) // 32 do
      for k = 1, 3 do
        local lanes = {}
        for t = 32 * w, math.min(32 * w + 31, g[1] - 1) do local f = g[2](t)[k]; lanes[#lanes + 1] = {base + 4 * f[1], 4 * f[2]} end
        out[#out + 1] = lanes
      end
    end
  end
  return out
end

local DIAGRAMS = {
  ['36'] = function(c)
    -- Three iterations of each program's loop on a model clock, from the figures the first
    -- results GPU recorded: naive's cudaMalloc as long as it took in the loop (host:loop_alloc_us),
    -- its cudaFree waiting until the GPU is idle and then as long as a cudaFree took on an idle
    -- device (host:free_us); a launch the host's time per iteration outside the allocation calls,
    -- halved (results median / iterations - host:calls_us_per_iter: two launches); a kernel half
    -- the optimized loop's time per iteration (two kernels, queued ahead: GPU-bound). A kernel starts
    -- when its launch is done and the GPU is free. The optimized program's one cudaMalloc before its
    -- 200 iterations and one cudaFree after them are left out.
    local ev, at, all = one_gpu(c)
    local per = {}
    for _, r in ipairs((c.results[1] or {}).rows or {}) do per[r.variant] = ev and ev.iterations and r.median_us / ev.iterations[r.variant] end
    if not (ev and per.naive and per.optimized and ev.loop_alloc_us and ev.free_us and ev.calls_us_per_iter) then return nil end
    local said, panels, ends, waits, allocs = {}, {}, {}, {}, {}
    local function say(prog, metric, fmt) return stated(said, at.gpu, prog, metric, ev[metric][prog], fmt) end
    local L, K = (per.naive - ev.calls_us_per_iter.naive) / 2, per.optimized / 2
    local ALLOC, FREE, LAUNCH, WAIT, KERNEL = '#e3a08a', '#c4a484', '#9a9a9a', '#d1603d', {'#2a6fb0', '#5b9bd5'}
    for p, prog in ipairs({'naive', 'optimized'}) do
      local boxes, host, gpu = {}, 0, 0
      waits[p], allocs[p] = 0, 0
      for _ = 1, 3 do
        if p == 1 then boxes[#boxes + 1] = {host, host + ev.loop_alloc_us.naive, 2, ALLOC}; host = host + ev.loop_alloc_us.naive; allocs[p] = allocs[p] + 1 end
        for k = 1, 2 do
          boxes[#boxes + 1] = {host, host + L, 2, LAUNCH}; host = host + L
          local t0 = math.max(host, gpu)
          boxes[#boxes + 1] = {t0, t0 + K, 1, KERNEL[k]}; gpu = t0 + K
        end
        if p == 1 then
          if gpu > host then boxes[#boxes + 1] = {host, gpu, 2, WAIT}; host = gpu; waits[p] = waits[p] + 1 end
          boxes[#boxes + 1] = {host, host + ev.free_us.naive, 2, FREE}; host = host + ev.free_us.naive
        end
      end
      ends[p] = math.max(host, gpu)
      panels[p] = {boxes = boxes, half = 0.34, yrange = {0.45, 3.6}, ytics = {{'host', 2}, {'GPU', 1}},
        title = string.format('%s: waits %d times in 3 iterations, %.1f µs', prog, waits[p], ends[p]),
        marks = {{3 * per[prog], string.format('measured 3 × %.1f µs', per[prog]), 3.0}}, pad = 0.6}
    end
    local svg, drawn = charts.streams(c.nn, panels, 'µs on a model clock (' .. at.short:match('^%S+') .. ')',
      {{'cudaMalloc ' .. say('naive', 'loop_alloc_us', '%.1f µs'), ALLOC}, {'cudaFree ' .. say('naive', 'free_us', '%.1f µs'), FREE},
       {'launch', LAUNCH}, {'wait for the device', WAIT}, {'kernel', KERNEL[1]}}, 400)
    drawn.said, drawn.recorded, drawn.gpu, drawn.per_request = said, all, at.gpu, {}
    against(drawn.per_request, records(c), 'allocation calls per iteration', {{'naive', allocs[1] / 3}, {'optimized', allocs[2] / 3}},
      function(m, _, prog) return m.alloc_calls_per_iter[prog] end)
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': three iterations of each program\'s loop on a model clock, from what the ' ..
      at.short:match('^%S+') .. ' recorded: naive\'s cudaMalloc as long as it took in the loop (' .. say('naive', 'loop_alloc_us', '%.1f µs') ..
      '), its cudaFree waiting until the GPU is idle and then as long as a cudaFree took on an idle device (' .. say('naive', 'free_us', '%.1f µs') ..
      '); each launch half of naive\'s time per iteration outside those calls, each kernel half of the optimized loop\'s time per ' ..
      'iteration. Naive waits for the device ' .. waits[1] .. ' times in 3 iterations, its GPU idle while the host frees and allocates: ' ..
      string.format('%.1f µs', ends[1]) .. ' against ' .. string.format('3 × %.1f µs', per.naive) .. ' measured. Optimized, which ' ..
      'allocates once before its 200 iterations (not drawn), waits ' .. waits[2] .. ' times in 3 iterations, its kernels back to back: ' ..
      string.format('%.1f µs', ends[2]) .. ' against ' .. string.format('3 × %.1f µs', per.optimized) .. ' measured. Computed from ' ..
      'the recorded figures, not drawn by hand; the lengths are a model, the dashed lines the measured times; the book\'s check ' ..
      'compares the allocation calls per iteration with each GPU\'s record.', svg, drawn)
  end,
  ['01'] = function(c)
    -- The DRAM bytes per element ncu recorded (dram__bytes_read.sum and _write.sum over the size),
    -- split evenly over the program's kernels (one 16-byte load each in its SASS, LDG.E.128): an
    -- even share of the totals, not a figure per kernel; each row with its time in the results.
    local recs, progs = records(c), {}
    local r = recs[1]
    if not r then return nil end
    local ms = {}
    for _, res in ipairs(c.results) do
      if res.gpu == r.gpu then for _, row in ipairs(res.rows) do ms[row.variant] = string.format('%.2f ms', row.median_us / 1e3) end end
    end
    for _, prog in ipairs({'naive', 'optimized'}) do
      local rd, wr, k = r.m['dram__bytes_read.sum'], r.m['dram__bytes_write.sum'], r.m['LDG.E.128']
      if not (rd and wr and k and rd[prog] and wr[prog] and (k[prog] or 0) > 0) then return nil end
      local kernels = {}
      for n = 1, k[prog] do
        kernels[n] = {'kernel ' .. n, math.floor(rd[prog] / r.size / k[prog] + 0.5), math.floor(wr[prog] / r.size / k[prog] + 0.5)}
      end
      if not ms[prog] then return nil end
      progs[#progs + 1] = {prog, kernels, ', ' .. ms[prog]}
    end
    local svg, drawn = charts.traffic(c.nn, progs)
    local rows = drawn.rows
    drawn.per_request = {}
    local function per_kernel(i) local o = {}; for k, p in ipairs(progs) do o[k] = {p[1], p[2][1][i] * #p[2]} end; return o end
    against(drawn.per_request, recs, 'DRAM bytes read per element', per_kernel(2), function(m, size, p) return m['dram__bytes_read.sum'][p] / size end)
    against(drawn.per_request, recs, 'DRAM bytes written per element', per_kernel(3), function(m, size, p) return m['dram__bytes_write.sum'][p] / size end)
    against(drawn.per_request, recs, 'kernels (16-byte loads in the SASS)', {{'naive', rows[1].kernels}, {'optimized', rows[2].kernels}},
      function(m, _, p) return m['LDG.E.128'][p] end)
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the bytes each element moves through DRAM, kernel by kernel: ' ..
      rows[1].name .. ' (' .. rows[1].kernels .. ' kernels, ' .. rows[1].bytes .. ' bytes, each intermediate written and read back: ' ..
      ms.naive .. ') and ' .. rows[2].name .. ' (' .. rows[2].kernels .. ' kernel, ' .. rows[2].bytes .. ' bytes: ' .. ms.optimized ..
      '), each with its median time on the ' .. gpu_name(r.gpu):match('^%S+') .. ' in the results. From the DRAM bytes read and written that ' ..
      'Nsight Compute recorded on the ' .. gpu_name(r.gpu):match('^%S+') .. ' over its ' .. grouped(string.format('%d', r.size)) ..
      ' elements, for each program as a whole: the split among its kernels is an even share of those totals, not a measurement ' ..
      'of each kernel. Not drawn by hand; the book\'s check compares the totals with each GPU\'s record.', svg, drawn)
  end,
  ['10'] = function(c)
    local g = DATA.gpus[1]
    local cc = g and g.cc and g.cc[1]
    local rules = cc and OCCUPANCY[cc]
    -- The blocks of this kernel the shared memory of an SM holds: Nsight Compute's shared-memory
    -- limit, the most any launch on the first results GPU got (the driver sets aside less shared
    -- memory for a launch that needs less: the 1024-thread blocks, 2 to an SM, got room for 3).
    local recs = records(c)
    local limit = recs[1] and recs[1].m['launch__occupancy_limit_shared_mem'] or {}
    local smem_blocks
    for _, v in pairs(limit) do smem_blocks = math.max(smem_blocks or 0, math.floor(v)) end
    local regs = next(recorded(c, 'registers')) and select(2, next(recorded(c, 'registers'))).naive
    regs = regs and math.floor(regs)
    local block = tonumber(((c.results[1] or {}).knobs or ''):match('block=(%d+)') or '')
    if not (rules and smem_blocks and regs and block) then return nil end
    local smem = rules.smem // smem_blocks - rules.reserved -- the most a block can take, smem_blocks fitting
    local names = {'warp/block limit', 'register limit', 'shared-memory limit'}
    local curves, best, best_t = {{}, {}, {}, {}}, -1, 0
    for t = 32, 1024, 32 do
      local least, limits = resident(rules, t, regs, smem)
      for k = 1, 3 do curves[k][#curves[k] + 1] = limits[k] end
      curves[4][#curves[4] + 1] = least
      if least >= best then best, best_t = least, t end -- the API: the most warps, the largest block on a tie
    end
    local named = {}
    for k = 1, 3 do named[#named + 1] = {names[k], curves[k]} end
    named[#named + 1] = {'resident warps', curves[4]}
    -- Each point labelled beside it (no key): naive's right of its point, low; the API's choice's
    -- under the curve, right-aligned, a thin line up to its point.
    local low = (resident(rules, block, regs, smem))
    local marks = {{'naive', block, low, {program = 'naive'}, {'naive: ' .. block .. ' threads, ' .. low .. ' warps'}},
      {'optimized', best_t, best, {program = 'optimized'}, {'optimized, the API\'s choice:', best_t .. ' threads, ' .. best .. ' warps'}}}
    marks[1].place = {block + 56, math.max(low - 2.5, 3), 'left'}
    marks[2].place = {best_t - 14, rules.warps * 0.56, 'right', best_t, rules.warps * 0.56 + 2}
    local xs = {}
    for t = 32, 1024, 32 do xs[#xs + 1] = t end
    local svg, drawn = charts.occupancy(c.nn, named, marks, rules.warps,
      {xs = xs, label = 'threads per block', range = '0:1056', tics = '0,128', direct = true})
    -- What the occupancy API itself returned on each GPU, for check_pdf.py diagrams.
    drawn.recorded = {}
    local threads, warps = recorded(c, 'block_threads'), recorded(c, 'warps_per_sm')
    for gpu, v in pairs(warps) do
      for prog, w in pairs(v) do drawn.recorded[#drawn.recorded + 1] = {gpu = gpu, program = prog, x = threads[gpu][prog], warps = w} end
    end
    -- The shared-memory limit it draws, in blocks, at the naive program's launches (the launches
    -- that get the SM's whole shared memory), against Nsight Compute's on each GPU.
    local naive_runs = {}
    for prog, t in pairs(threads[recs[1].gpu] or {}) do
      if prog:match('^naive') then naive_runs[#naive_runs + 1] = {prog, select(2, resident(rules, t, regs, smem))[3] // ((t + 31) // 32)} end
    end
    table.sort(naive_runs, function(a, b) return a[1] < b[1] end)
    drawn.per_request = {}
    against(drawn.per_request, recs, 'blocks the shared memory holds', naive_runs, function(m, _, prog) return m['launch__occupancy_limit_shared_mem'][prog] end)
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': resident warps per SM against threads per block for this chapter\'s kernel (' ..
      regs .. ' registers per thread, a table in shared memory that leaves room for ' .. smem_blocks .. ' blocks per SM, as Nsight ' ..
      'Compute recorded on the ' .. gpu_name(recs[1].gpu):match('^%S+') .. '), by the occupancy rules of compute capability ' .. cc .. ': naive\'s ' .. block .. ' threads hold ' ..
      marks[1][3] .. ' warps, the API\'s choice of ' .. best_t .. ' threads ' .. best .. ' warps. Computed from the kernel\'s resources, ' ..
      'not drawn by hand. The thick line takes the colour of the limit that binds (the ' .. table.concat(drawn.binds, ', then the ') .. '); ' ..
      'the book\'s check compares it with what the occupancy API returned on each GPU (the full record: the evidence appendix of the PDF, the collapsed section at the end of this chapter in the HTML).', svg, drawn)
  end,
  ['32'] = function(c)
    -- The side each lane of warps 0 and 1 takes: the parity of the element it handles (problem.h:
    -- element i takes the path of i's parity; naive lane l of warp w handles element 32 w + l of
    -- its block, optimized element 64 (w div 2) + 2 l + w mod 2). No knob moves them.
    local element = {naive = function(w, l) return 32 * w + l end, optimized = function(w, l) return 64 * (w // 2) + 2 * l + w % 2 end}
    local progs = {}
    for _, prog in ipairs({'naive', 'optimized'}) do
      local warps = {}
      for w = 0, 1 do
        warps[w + 1] = {['if'] = {}, ['else'] = {}}
        local els = {['if'] = {}, ['else'] = {}}
        for l = 0, 31 do
          local e = element[prog](w, l)
          table.insert(warps[w + 1][e % 2 == 0 and 'if' or 'else'], l)
          table.insert(els[e % 2 == 0 and 'if' or 'else'], e)
        end
        warps[w + 1].said = {} -- the elements the row's lanes handle: "0, 2 … 62"
        for side, e in pairs(els) do warps[w + 1].said[side] = #e > 2 and string.format('%d, %d … %d', e[1], e[2], e[#e]) or '' end
      end
      progs[#progs + 1] = {prog, warps}
    end
    local svg, drawn = charts.divergence(c.nn, progs)
    -- Each GPU's record: a warp makes one pass, and one more for each divergent branch target
    -- (smsp__sass_branch_targets_threads_divergent over the size / 32 warps); a warp instruction
    -- runs on smsp__thread_inst_executed_per_inst_executed lanes.
    drawn.per_request = {}
    local recs = records(c)
    against(drawn.per_request, recs, 'passes per warp', {{'naive', drawn.passes[1] / 2}, {'optimized', drawn.passes[2] / 2}},
      function(m, size, p) return 1 + m['smsp__sass_branch_targets_threads_divergent.sum'][p] / (size / 32) end)
    against(drawn.per_request, recs, 'lanes active per pass', {{'naive', 64 / drawn.passes[1]}, {'optimized', 64 / drawn.passes[2]}},
      function(m, _, p) return m['smsp__thread_inst_executed_per_inst_executed.ratio'][p] end)
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the lanes of two warps that run each side of the kernel\'s branch, ' ..
      'a row for each pass a warp makes, named with the elements its lanes handle: ' .. progs[1][1] .. ' (warp 0 handles elements ' ..
      '0 to 31; ' .. drawn.passes[1] .. ' passes for 2 warps, each with half its lanes masked off) and ' .. progs[2][1] ..
      ' (warp 0 handles the even elements of 0 to 63, warp 1 the odd; ' .. drawn.passes[2] .. ' passes for 2 warps, all 32 lanes active). Computed from the ' ..
      'parity of the element each lane handles, not drawn by hand; the book\'s check compares the passes per warp and the lanes ' ..
      'per pass with the divergent branches and the threads per warp instruction Nsight Compute recorded on each GPU.', svg, drawn)
  end,
  ['15'] = function(c)
    local stride = tonumber(((c.results[1] or {}).knobs or ''):match('stride=(%d+)') or '')
    if not stride then return nil end
    local soa, aos = {}, {}
    for l = 0, 31 do soa[l + 1], aos[l + 1] = {4 * l, 4}, {4 * stride * l, 4} end
    local svg, drawn = charts.sectors(c.nn, {{name = 'struct of arrays (consecutive floats)', lanes = soa},
      {name = 'array of structs (a float every ' .. stride .. ')', lanes = aos}}, {unit = 4, line = math.min(128 * stride, 512),
      tics = true, xlabel = 'float index (+ the left number); box: a 32-byte sector', needed = 'float a lane reads'})
    -- Below the sectors, DRAM: the naive program's DRAM bytes read over the optimized one's, as
    -- each GPU recorded them (the L2 fetches sectors from DRAM in 64-byte pairs).
    local said, recorded, ratios, ev = {}, {}, {}, by_gpu(c)
    for _, e in ipairs(c.evidence or {}) do
      local d = ev[e.gpu]['dram__bytes_read.sum'] or {}
      if d.naive and (d.optimized or 0) > 0 then
        recorded[#recorded + 1] = {gpu = e.gpu, program = 'naive', metric = 'DRAM bytes over optimized', value = d.naive / d.optimized}
        ratios[#ratios + 1] = stated(said, e.gpu, 'naive', 'DRAM bytes over optimized', d.naive / d.optimized, '%.1f×') .. ' on the ' .. gpu_name(e.gpu):match('^%S+')
      end
    end
    if #ratios == 0 then return nil end
    drawn.said, drawn.recorded, drawn.gpu = said, recorded, 'each GPU'
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the 32-byte sectors one warp\'s 32 loads touch, each lane ' ..
      'reading one float: the struct of arrays (' .. drawn.rows[1].sectors .. ' sectors, every byte used) and the array of ' ..
      'structs at this chapter\'s stride of ' .. stride .. ' floats (' .. drawn.rows[2].sectors .. ' sectors); grey is fetched ' ..
      'and not needed. Below the L1 the waste grows: the L2 fetches sectors from DRAM in 64-byte pairs, and the array of structs\' ' ..
      'DRAM reads over the struct of arrays\' are ' .. words(ratios) .. '. Computed from the stride, not drawn by hand; the ' ..
      'book\'s check compares the DRAM ratios with each GPU\'s record.', svg, drawn)
  end,
  ['21'] = function(c)
    -- A tile of 32 rows of floats (lane l of a warp reads row l): each row's length is the shared
    -- memory ptxas gave the program over 32 rows of 4 bytes.
    local recs, tile, rows = records(c), 32, {}
    local smem = recs[1] and recs[1].m.smem_bytes or {}
    for k, prog in ipairs({'naive', 'optimized'}) do
      rows[k] = smem[prog] and smem[prog] % (tile * 4) == 0 and math.floor(smem[prog] / (tile * 4))
      if not rows[k] then return nil end
    end
    local svg, drawn = charts.banks(c.nn, tile, rows)
    local p = drawn.panels
    drawn.per_request = {}
    against(drawn.per_request, recs, 'floats a tile row holds (shared bytes / 32 rows / 4)', {{'naive', rows[1]}, {'optimized', rows[2]}},
      function(m, _, prog) return m.smem_bytes[prog] / (tile * 4) end)
    against(drawn.per_request, recs, 'shared-memory passes per load (recorded passes per LDS)', {{'naive', p[1].ways}, {'optimized', p[2].ways}},
      function(m, _, prog) return m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'][prog] / m['smsp__sass_inst_executed_op_shared_ld.sum'][prog] end)
    against(drawn.per_request, recs, 'bank conflicts per load', {{'naive', p[1].ways - 1}, {'optimized', p[2].ways - 1}},
      function(m, _, prog) return m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'][prog] / m['smsp__sass_inst_executed_op_shared_ld.sum'][prog] end)
    -- The passes per shared load each GPU recorded (its shared-memory wavefronts over its LDS), as the caption gives them.
    local seen = {}
    for _, r in ipairs(recs) do
      local w, n = r.m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'] or {}, r.m['smsp__sass_inst_executed_op_shared_ld.sum'] or {}
      if w.naive and w.optimized and (n.naive or 0) > 0 and (n.optimized or 0) > 0 then
        seen[#seen + 1] = string.format('%.3g and %.3g passes per load on the %s', w.naive / n.naive, w.optimized / n.optimized, gpu_name(r.gpu):match('^%S+'))
      end
    end
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the bank each lane of a warp reads when it walks down a column ' ..
      'of the tile (lane l reads element [l][0], word ' .. rows[1] .. ' l or ' .. rows[2] .. ' l, bank = word mod 32): ' ..
      'tile[32][' .. rows[1] .. '] puts all 32 lanes in one bank (' .. p[1].ways .. '-way conflict, ' ..
      p[1].ways .. ' passes), tile[32][' .. rows[2] .. '] one lane per bank (' .. p[2].ways .. ' pass). Nsight Compute recorded ' ..
      table.concat(seen, '; ') .. ': each the whole launch\'s mean, a little over the one warp drawn. The tile\'s row of ' .. rows[2] ..
      ' floats holds one padding word: word ' .. rows[2] .. ' l is ' .. rows[2] - 1 .. ' l + l, so each row starts one bank on from the ' ..
      'row above and lane l reads bank l. The row lengths (' .. rows[1] .. ' and ' .. rows[2] .. ' floats) are the shared memory ptxas ' ..
      'gave each program (' .. grouped(string.format('%d', smem.naive)) .. ' B and ' ..
      grouped(string.format('%d', smem.optimized)) .. ' B) over the tile\'s 32 rows of ' ..
      '4-byte floats, not read off the source; the book\'s check compares the passes and bank conflicts per load with what ' ..
      'Nsight Compute recorded on each GPU.', svg, drawn)
  end,
  ['08'] = function(c)
    -- Chapter 10's rules against registers per thread, the block fixed: each program's point at the
    -- registers ptxas gave it (the first GPU's record); the check compares each GPU's ncu figures.
    local cc = DATA.gpus[1] and DATA.gpus[1].cc and DATA.gpus[1].cc[1]
    local rules, ev = cc and OCCUPANCY[cc], (c.evidence or {})[1]
    if not (rules and ev) then return nil end
    local regs, smem = recorded(c, 'registers')[ev.gpu] or {}, recorded(c, 'smem_bytes')[ev.gpu] or {}
    local occ, lim = recorded(c, 'sm__maximum_warps_per_active_cycle_pct'), recorded(c, 'launch__occupancy_limit_registers')
    local ncu_regs = recorded(c, 'launch__registers_per_thread')
    -- The block: the knobs' block=, else the warps ncu found resident for naive over the blocks
    -- its register limit allowed (the check then holds every other program to that block).
    local o, l = (occ[ev.gpu] or {}).naive, (lim[ev.gpu] or {}).naive
    local block = tonumber(((c.results[1] or {}).knobs or ''):match('block=(%d+)') or '') or
      (o and l and l > 0 and math.floor(o * rules.warps / 100 / l + 0.5) * 32)
    if not (block and block > 0 and regs.naive) then return nil end
    local wpb, xs = block // 32, {}
    for r = 8, 255 do xs[#xs + 1] = r end
    local names = {'warp/block limit', 'register limit', 'shared-memory limit'}
    local curves = {{}, {}, {}, {}}
    for i, r in ipairs(xs) do
      local least, limits = resident(rules, block, r, smem.naive or 0)
      for k = 1, 3 do curves[k][i] = limits[k] end
      curves[4][i] = least
    end
    local named = {}
    for k = 1, 3 do -- a limit drawn where it comes within the SM's warps (no shared memory: none)
      if math.min(table.unpack(curves[k])) <= rules.warps then named[#named + 1] = {names[k], curves[k]} end
    end
    named[#named + 1] = {'resident warps', curves[4]}
    -- Each point labelled with what it costs, from the first GPU's record: the bytes ptxas spilled
    -- (its spill stores) and the kernel's time as Nsight Compute measured it (the one time recorded
    -- for the min-blocks builds, which have no results rows).
    local _, _, all = one_gpu(c)
    local spill, time = recorded(c, 'spill_store_bytes')[ev.gpu] or {}, recorded(c, 'gpu__time_duration.sum')[ev.gpu] or {}
    local marks, seen, said, costs = {}, {}, {}, {}
    for _, p in ipairs(ev.programs) do -- an option that leaves a program's registers as they were adds no point
      local base, opt = p:match('^([^%[]+)%[?([^%]]*)')
      local r = regs[p] and math.floor(regs[p])
      if r and not seen[base .. r] then
        if not (spill[p] and time[p]) then return nil end
        seen[base .. r] = true
        local least, limits = resident(rules, block, r, smem[p] or 0)
        local name = opt ~= '' and opt:gsub('^%-%-', '') or base
        local cost = stated(said, ev.gpu, p, 'spill_store_bytes', spill[p], '%.0f B spilled') .. ', ' ..
          stated(said, ev.gpu, p, 'gpu__time_duration.sum', time[p], '%.0f µs', 1e-3)
        costs[#costs + 1] = cost
        marks[#marks + 1] = {name, r, least, {program = p, blocks = limits[2] // wpb}, {name, r .. ' registers, ' .. least .. ' warps', cost}}
      end
    end
    local svg, drawn = charts.occupancy(c.nn, named, marks, rules.warps,
      {xs = xs, label = 'registers per thread', unit = 'registers', range = '0:264', tics = '0,32', direct = 130})
    drawn.max_warps, drawn.recorded, drawn.said, drawn.figures, drawn.gpu = rules.warps, {}, said, all, ev.gpu
    for gpu, v in pairs(occ) do
      for p, pct in pairs(v) do
        drawn.recorded[#drawn.recorded + 1] = {gpu = gpu, program = p, x = (ncu_regs[gpu] or {})[p], pct = pct, blocks = (lim[gpu] or {})[p]}
      end
    end
    local points = {}
    for k, m in ipairs(marks) do points[k] = m[1] .. ': ' .. m[2] .. ' registers, ' .. m[3] .. ' warps, ' .. costs[k] end
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': resident warps per SM against registers per thread for blocks of ' .. block ..
      ' threads, by the occupancy rules of compute capability ' .. cc .. ' (' .. rules.regs .. ' registers per SM, given to a warp ' ..
      rules.reg_unit .. ' at a time), each program at the registers ptxas gave it (and the optimized program built for 3 and 4 ' ..
      'blocks per SM, min-blocks 3 and 4), with the bytes ptxas spilled to local memory and the kernel\'s time on the ' ..
      gpu_name(ev.gpu):match('^%S+') .. ' (Nsight Compute): ' .. table.concat(points, '; ') .. '. More warps bought with spills run ' ..
      'slower. Computed from the recorded registers, not drawn by hand; the thick line takes the ' ..
      'colour of the limit that binds (the ' .. table.concat(drawn.binds, ', then the ') .. '), and the book\'s check compares each ' ..
      'point with the registers, register-limited blocks and theoretical occupancy ncu recorded on each GPU, and its spills and ' ..
      'time with the ' .. gpu_name(ev.gpu):match('^%S+') .. '\'s record.', svg, drawn)
  end,
  ['18'] = function(c)
    -- Where each program keeps a thread's data (ptxas: registers, stack frame) and the 32-byte
    -- sectors each of its local load and store requests touches (each GPU's l1tex local sectors over
    -- its requests), against the 4 sectors of a coalesced load: 32 lanes' 4-byte words, consecutive.
    -- Drawn from the first GPU's record; the check compares every GPU's.
    local want = {registers = 'registers', stack = 'stack_bytes', ld = 'l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum',
      st = 'l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum', ld_req = 'l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum',
      st_req = 'l1tex__t_requests_pipe_lsu_mem_local_op_st.sum'}
    local rec, gpus = {}, {}
    for _, e in ipairs(c.evidence or {}) do
      local v = {}
      for key, m in pairs(want) do v[key] = recorded(c, m)[e.gpu] end
      for _, p in ipairs({'naive', 'optimized'}) do
        local r = {gpu = e.gpu, program = p}
        for key in pairs(want) do r[key] = (v[key] or {})[p] end
        if not (r.registers and r.stack and r.ld and r.st and r.ld_req and r.st_req) then return nil end
        rec[#rec + 1] = r
      end
      gpus[#gpus + 1] = e.gpu
    end
    if #rec == 0 then return nil end
    local function fig(gpu, p) for _, r in ipairs(rec) do if r.gpu == gpu and r.program == p then return r end end end
    local function per(s, n) return n > 0 and math.floor(s / n * 10 + 0.5) / 10 or 0 end -- sectors a request, 0.1 each
    local BLUE, ORANGE, LIGHT, GREY = '#2a6fb0', '#d1603d', '#e3a08a', '#9a9a9a'
    local COALESCED = 32 * 4 // 32 -- a warp's 32 consecutive 4-byte words: 4 sectors of 32 bytes
    local panels, drawn = {{'per thread: bytes in registers (4 each), local memory', {}},
      {'sectors a warp\'s request touches (32 bytes each)', {}}}, {rows = {}}
    for _, p in ipairs({'naive', 'optimized'}) do
      local f = fig(gpus[1], p)
      local row = {program = p, registers = math.floor(f.registers), stack = math.floor(f.stack), ld = per(f.ld, f.ld_req), st = per(f.st, f.st_req)}
      row.said = p .. ': ' .. row.registers .. ' registers + ' .. row.stack .. ' B local'
      table.insert(panels[1][2], {row.said, {{{4 * row.registers, BLUE}, {row.stack, ORANGE}}}})
      if f.ld_req > 0 then
        table.insert(panels[2][2], {p .. ', a local load, mean: ' .. row.ld .. ' sectors', {{{row.ld, ORANGE}}}})
        table.insert(panels[2][2], {p .. ', a local store, mean: ' .. row.st .. ' sectors', {{{row.st, LIGHT}}}})
        row.said = row.said .. ', a local load ' .. row.ld .. ' sectors and a local store ' .. row.st .. ' sectors on average over all of ' ..
          'them (the coalesced requests of the final write-out among them: the loop\'s own scattered updates touch more)'
      else
        row.said = row.said .. ', no local requests'
      end
      drawn.rows[#drawn.rows + 1] = row
    end
    table.insert(panels[2][2], {'a coalesced load (32 lanes × 4 bytes): ' .. COALESCED .. ' sectors', {{{COALESCED, GREY}}}})
    local svg = charts.localmem(c.nn, panels, {{'registers', BLUE}, {'local loads', ORANGE}, {'local stores', LIGHT},
      {'coalesced load', GREY}})
    drawn.recorded, drawn.coalesced = rec, COALESCED
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': where each program keeps a thread\'s data, from ptxas, and how many ' ..
      '32-byte sectors each of its local-memory requests touches, from the counters each GPU recorded (local sectors over local ' ..
      'requests): ' .. drawn.rows[1].said .. ', against the ' .. COALESCED .. ' sectors of a coalesced load (32 lanes × 4 bytes); ' ..
      drawn.rows[2].said .. '. The L1 serves a scattered request in several passes: that, not DRAM traffic, is the cost. ' ..
      'Computed from the recorded registers and counters, not drawn by hand; the book\'s check compares each figure with every GPU\'s record.', svg, drawn)
  end,
  ['22'] = function(c)
    local r1 = c.results[1] or {}
    local spread = tonumber((r1.knobs or ''):match('spread=(%d+)') or '')
    local entries = tonumber((r1.knobs or ''):match('entries=(%d+)') or '')
    local seed = r1.seed
    if not (spread and entries and seed) then return nil end
    -- Warp w's keys as the program draws them (problem.cu's fill_keys: splitmix64 seeded per
    -- warp, `s` distinct values in [0, entries), lane l taking value l mod s).
    local GOLDEN = 0x9E3779B97F4A7C15
    local function keys(w, s)
      local state, drawn, out = seed * GOLDEN + 32 * w, {}, {}
      for k = 1, s do
        local v, again
        repeat
          state = state + GOLDEN
          local z = state
          z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
          z = (z ~ (z >> 27)) * 0x94D049BB133111EB
          z = z ~ (z >> 31)
          v = ((z >> 1) % entries * 2 + (z & 1)) % entries -- z mod entries, z unsigned
          again = false
          for m = 1, k - 1 do again = again or drawn[m] == v end
        until not again
        drawn[k] = v
      end
      for l = 0, 31 do out[l + 1] = drawn[l % s + 1] end
      return out
    end
    -- The warp's first lookup (j = 0 reads entry key; every later step moves all keys alike), served
    -- a row at a time: each distinct entry takes the next row of its bank. The constant cache is
    -- one bank (a request per distinct address), shared memory 32 (a pass per word of the fullest).
    local function serve(ks, banks)
      local row_of, rows, per_bank = {}, {}, {}
      for l, e in ipairs(ks) do
        if not row_of[e] then
          per_bank[e % banks] = (per_bank[e % banks] or 0) + 1
          row_of[e] = per_bank[e % banks]
          rows[row_of[e]] = rows[row_of[e]] or {}
        end
        table.insert(rows[row_of[e]], l - 1)
      end
      return rows
    end
    local uni, div = keys(0, 1), keys(0, spread)
    local function title(prog, ks, rows, what)
      local n = #serve(ks, 1)
      return string.format('%s, %d entr%s: %d %s%s', prog, n, n == 1 and 'y' or 'ies', #rows, what, #rows == 1 and '' or (what == 'pass' and 'es' or 's'))
    end
    local panels = {{rows = serve(uni, 1), ylabel = 'constant-cache request', note = 'all 32 lanes: entry ' .. uni[1]},
                    {rows = serve(div, 1), ylabel = 'constant-cache request'}, {rows = serve(div, 32), ylabel = 'shared-memory pass', own = true}}
    panels[1].title = title('naive', uni, panels[1].rows, 'request')
    panels[2].title = title('naive', div, panels[2].rows, 'request')
    panels[3].title = title('optimized', div, panels[3].rows, 'pass')
    local full = {} -- the entries of the fullest bank (the lowest such bank), one per pass
    for b = 31, 0, -1 do
      local es = {}
      for _, e in ipairs(div) do if e % 32 == b then es[#es + 1] = e end end
      if #es >= #full then full = es; full.bank = b end
    end
    panels[3].note = 'bank ' .. full.bank .. ': entries ' .. table.concat(full, ', ')
    panels[1].says, panels[2].says, panels[3].says = 'served together', 'one entry after another', 'a pass\'s banks served together'
    local svg, drawn = charts.requests(c.nn, panels)
    -- What each GPU recorded, for check_pdf.py diagrams: a warp's LDC is one request and each
    -- replay one more, over the lookup instructions (n / 32 warps x 32 steps: the recorded size);
    -- an LDS the wavefronts of its fullest bank, here averaged over the program's first 1,024 warps.
    local mean, said, recorded, means = 0, {}, {}, {}
    for w = 0, 1023 do mean = mean + #serve(keys(w, spread), 32) / 1024 end
    drawn.per_request = {}
    for _, e in ipairs(c.evidence or {}) do
      local m = {}
      for _, x in ipairs(e.metrics) do m[x.metric] = x.values end
      local rep = m['sm__idc_divergent_instruction_replays.sum'] or {}
      for k, prog in ipairs({'naive[--spread 1]', 'naive'}) do
        if rep[prog] and e.size then
          table.insert(drawn.per_request, {gpu = e.gpu, program = prog, what = 'constant-cache requests per lookup', drawn = #panels[k].rows, recorded = 1 + rep[prog] / e.size})
        end
      end
      local waves, lds = m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'] or {}, m['smsp__sass_inst_executed_op_shared_ld.sum'] or {}
      if waves.optimized and (lds.optimized or 0) > 0 then
        table.insert(drawn.per_request, {gpu = e.gpu, program = 'optimized', what = 'shared-memory passes per lookup (mean of 1,024 warps)', drawn = mean, recorded = waves.optimized / lds.optimized})
        recorded[#recorded + 1] = {gpu = e.gpu, program = 'optimized', metric = 'passes per lookup', value = waves.optimized / lds.optimized}
        means[#means + 1] = stated(said, e.gpu, 'optimized', 'passes per lookup', waves.optimized / lds.optimized, '%.2f') .. ' on the ' .. gpu_name(e.gpu):match('^%S+')
      end
    end
    if #means == 0 then return nil end
    drawn.said, drawn.recorded, drawn.gpu = said, recorded, 'each GPU'
    local p = drawn.panels
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the lanes of one warp (warp 0 at seed ' .. seed .. ', its first lookup) and ' ..
      'the request that serves each, one row per request, top to bottom. Constant memory takes one request per distinct table ' ..
      'entry: warp-uniform (spread 1), ' .. p[1].title:match(', (.*)$'):gsub(':', ' in') .. ', a broadcast; at the recorded spread of ' ..
      spread .. ' in a table of ' .. entries .. ' entries (lane 0 reads entry ' .. div[1] .. ', lane 1 entry ' .. div[2] .. ', lane 2 entry ' ..
      div[3] .. ', ...), ' .. p[2].title:match(', (.*)$'):gsub(':', ' in') .. ', one after another. The optimized program reads the same entries ' ..
      'from shared memory in ' .. p[3].title:match('entries: (.*)$') .. ', the entries of its fullest bank (that panel on its own scale, ' ..
      'its rows taller); over all its warps the passes per lookup Nsight Compute recorded are ' .. words(means) .. ' (the keys of its warps 0 to ' ..
      '1,023 give ' .. string.format('%.2f', mean) .. '). Orange marks a lookup served one entry after another, blue one served together. Computed from the program\'s ' ..
      'keys (its generator at the recorded seed and knobs), not drawn by hand; the book\'s check compares the requests per lookup with ' ..
      'one plus the replays per lookup the constant cache recorded on each GPU.', svg, drawn)
  end,
  ['20'] = function(c)
    local r1 = c.results[1] or {}
    local n, rows = r1.size, tonumber((r1.knobs or ''):match('rows=(%d+)') or '')
    local sts = next(recorded(c, 'STS')) and select(2, next(recorded(c, 'STS'))).optimized
    if not (n and rows and sts) then return nil end
    local tile = rows * math.floor(sts) -- a thread stores tile / rows elements into the tile, one STS each
    -- Warp 0 of block (0, 0) (threadIdx.y 0), its first load and store (j = 0): lane l is column
    -- c = l of row r = 0 of the tile.
    local load, naive, opt = {}, {}, {}
    for l = 0, 31 do
      local col, row = l, 0
      load[l + 1], naive[l + 1], opt[l + 1] = row * n + col, col * n + row, row * n + col -- in[r n + c], out[c n + r], out[r n + c]
    end
    local svg, drawn = charts.store_sectors(c.nn, {{'both load in[r·n + c]', load}, {'naive stores out[c·n + r]', naive},
      {'optimized stores out[r·n + c]', opt}}, 'in a touched sector, not written by this store')
    drawn.per_request = {}
    for _, e in ipairs(c.evidence or {}) do
      local m = {}
      for _, x in ipairs(e.metrics) do m[x.metric] = x.values end
      local sec, req = m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum'] or {}, m['l1tex__t_requests_pipe_lsu_mem_global_op_st.sum'] or {}
      for k, prog in ipairs({'naive', 'optimized'}) do
        if sec[prog] and (req[prog] or 0) > 0 then
          table.insert(drawn.per_request, {gpu = e.gpu, program = prog, what = 'sectors per store', drawn = drawn.rows[k + 1].sectors, recorded = sec[prog] / req[prog]})
        end
      end
    end
    local r = drawn.rows
    -- The DRAM bytes each GPU recorded written, naive over optimized: the L2 merges a block's partial sectors before DRAM.
    local merged = {}
    for _, x in ipairs(records(c)) do
      local w = x.m['dram__bytes_write.sum'] or {}
      if w.naive and (w.optimized or 0) > 0 then merged[#merged + 1] = string.format('%.2f (%s)', w.naive / w.optimized, gpu_name(x.gpu):match('^%S+')) end
    end
    if #merged == 0 then return nil end
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the 32-byte sectors one warp touches (warp 0 of block (0, 0), its first ' ..
      'load and store; a ' .. tile .. ' × ' .. tile .. ' tile, ' .. rows .. ' rows of threads, n = ' .. n .. '): both programs load a run of ' ..
      '32 floats of one input row (' .. r[1].sectors .. ' sectors); the naive program stores them down a column of the output, ' ..
      'floats ' .. n * 4 // 1024 .. ' KB apart (' .. r[2].sectors .. ' sectors, an eighth of each written; a gap marks sectors that are not ' ..
      'neighbours); the optimized program, once the tile has passed through shared memory (its stores, a barrier, its loads), stores a ' ..
      'row of the output (' .. r[3].sectors .. ' sectors, every byte written). The naive store\'s cost is ' .. r[2].sectors .. ' L2 sector ' ..
      'writes where ' .. r[3].sectors .. ' would do, not DRAM traffic for every grey byte: the L2 merges the partial sectors ' ..
      'of a block\'s stores, and the DRAM bytes the naive program writes are only ' .. words(merged) .. ' times the optimized program\'s. ' ..
      'Computed from the kernels\' indexing at the recorded size ' ..
      'and rows, not drawn by hand; the book\'s check compares the sectors per store with the sectors per store request each GPU recorded.', svg, drawn)
  end,
  ['02'] = function(c)
    local ev, at, all = one_gpu(c)
    local k = at.knobs
    if not (ev and ev.h2d_ms and ev.kernel_ms and ev.d2h_ms and ev.end_to_end_ms and ev.copy_engines and k.chunks and k.streams and at.size) then return nil end
    local said, panels = {}, {}
    local COLORS = {'#2a6fb0', '#1b9aaa', '#8e44ad', '#c49a1b'}
    local function say(prog, metric, fmt) return stated(said, at.gpu, prog, metric, ev[metric][prog], fmt) end
    local ends = {}
    for p, prog in ipairs({'naive', 'optimized'}) do
      local stage = {ev.h2d_ms[prog], ev.kernel_ms[prog], ev.d2h_ms[prog]}
      local boxes, last = pipeline_model(stage, at.size, p == 1 and 1 or k.chunks, p == 1 and 1 or k.streams, ev.copy_engines[prog])
      for _, b in ipairs(boxes) do b[4] = COLORS[(b[4] - 1) % #COLORS + 1] end
      ends[p] = last
      -- Each row named with the stage's time alone in this program's run (the model's lengths).
      panels[p] = {boxes = boxes, half = 0.34, yrange = {0.45, 4.75}, pad = 0.6, ytics = {{'upload\n' .. say(prog, 'h2d_ms', '%.1f ms'), 3},
        {'kernel\n' .. say(prog, 'kernel_ms', '%.1f ms'), 2}, {'download\n' .. say(prog, 'd2h_ms', '%.1f ms'), 1}},
        marks = {{ev.stages_sum_ms[prog], 'stages\' sum ' .. say(prog, 'stages_sum_ms', '%.1f ms'), 4.4},
                 {ev.end_to_end_ms[prog], 'profiled ' .. say(prog, 'end_to_end_ms', '%.1f ms'), 3.8}}}
      for _, b in ipairs(boxes) do b[3] = 4 - b[3] end -- uploads on top
    end
    panels[1].title = 'naive, one stream: stages in turn'
    panels[2].title = string.format('optimized, %d chunks, %d streams: %.1f ms', k.chunks, k.streams, ends[2])
    local key = {}
    for s = 1, math.min(k.streams, #COLORS) do key[s] = {'stream ' .. s, COLORS[s]} end
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock (stage times: ' .. at.short:match('^%S+') .. ')', key, 480) -- tall enough for two-line row names
    drawn.said, drawn.recorded, drawn.gpu = said, all, at.gpu
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': each program\'s upload, kernel and download of the array on a model clock, ' ..
      'each stage as long as it took alone on the ' .. at.short .. ' (naive: ' .. say('naive', 'h2d_ms', '%.1f ms') .. ', ' ..
      say('naive', 'kernel_ms', '%.1f ms') .. ', ' .. say('naive', 'd2h_ms', '%.1f ms') .. '). Naive runs them in turn in one stream: ' ..
      say('naive', 'stages_sum_ms', '%.1f ms') .. ', the sum of the stages; the profiled run that recorded these stages measured ' ..
      'it end to end at ' .. say('naive', 'end_to_end_ms', '%.1f ms') ..
      '. Optimized cuts the array into ' .. k.chunks .. ' chunks, round robin over ' .. k.streams .. ' streams (a colour each), each ' ..
      'chunk 1/' .. k.chunks .. ' of the stages its own run recorded (' .. say('optimized', 'h2d_ms', '%.1f ms') .. ', ' ..
      say('optimized', 'kernel_ms', '%.1f ms') .. ', ' .. say('optimized', 'd2h_ms', '%.1f ms') .. '); with ' ..
      say('optimized', 'copy_engines', '%.0f') .. ' copy engines one uploads while the SMs compute and another downloads, ' ..
      'and the model ends at ' .. string.format('%.1f ms', ends[2]) .. ', bound by the uploads in a row; its profiled run measured ' ..
      say('optimized', 'end_to_end_ms', '%.1f ms') .. ' against its stages\' sum of ' .. say('optimized', 'stages_sum_ms', '%.1f ms') ..
      ', the link slower when it carries both directions at once. Computed from the recorded stage times and the knobs (one kernel ' ..
      'at a time on the SMs, each chunk its share of a stage), not drawn by hand; the dashed lines ("profiled") are the times of the profiled ' ..
      'run the stages come from (the evidence), not the results table\'s medians of the timed runs.', svg, drawn)
  end,
  ['05'] = function(c)
    local ev, at, all = one_gpu(c)
    local k = at.knobs
    if not (ev and ev.kernel_us and ev.span_us and ev.kernels_at_once and ev.launch__grid_size and ev.launch__block_size and k.kernels and k.streams) then return nil end
    local said, panels = {}, {}
    local function say(prog, metric, fmt, scale) return stated(said, at.gpu, prog, metric, ev[metric][prog], fmt, scale) end
    -- Kernels at once in words where the record rounds to one: one kernel at a time.
    local function at_once(prog, fmt)
      return math.floor(ev.kernels_at_once[prog] + 0.5) == 1 and 'one kernel at a time' or say(prog, 'kernels_at_once', fmt) .. ' kernels at once'
    end
    local COLOR, SHADE = {'#d1603d', '#2a6fb0'}, {'#e3a08a', '#8fb8e0'}
    for p, prog in ipairs({'naive', 'optimized'}) do
      -- Kernel i of n starts at i * (span - L) / (n - 1): the recorded span, each kernel the
      -- recorded mean length L, so that the lengths over the span are the recorded kernels at once.
      local L, span, boxes = ev.kernel_us[prog] / 1e3, ev.span_us[prog] / 1e3, {}
      for i = 0, k.kernels - 1 do
        local x0 = i * (span - L) / math.max(k.kernels - 1, 1)
        boxes[#boxes + 1] = {x0, x0 + L, k.kernels - i, i % 2 == 1 and SHADE[p] or COLOR[p]}
      end
      -- Each kernel a thin bar, every other one a lighter shade: side by side, each still its own.
      panels[p] = {boxes = boxes, half = 0.3, yrange = {0.4, k.kernels * 1.22}, ytics = {{'kernel 1', k.kernels}, {'kernel ' .. k.kernels, 1}},
        title = prog .. (p == 1 and ', one stream: ' or ', ' .. k.streams .. ' streams: ') .. at_once(prog, '%.1f'),
        marks = {{span, (p == 1 and 'all end at ' or 'all ' .. k.kernels .. ' end at ') .. say(prog, 'span_us', '%.2f ms', 1e-3), k.kernels * 1.12, 0.6}},
        own = p == 2} -- the optimized program's span, a sliver of naive's, on its own axis
    end
    local blocks, threads = ev.launch__grid_size.naive / k.kernels, ev.launch__block_size.naive / k.kernels
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock; each kernel ' .. say('naive', 'kernel_us', '%.2f ms', 1e-3) .. ' (' .. at.short:match('^%S+') .. ')',
      {{'naive', COLOR[1]}, {'optimized', COLOR[2]}}, 420)
    drawn.said, drawn.recorded, drawn.gpu = said, all, at.gpu
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the ' .. k.kernels .. ' kernels of each program on a model clock, a row each, ' ..
      'each kernel ' .. string.format('%g block of %g threads', blocks, threads) .. ' (as profiled) on one SM, as long as the ' ..
      at.short .. ' recorded it (' .. say('naive', 'kernel_us', '%.2f ms', 1e-3) .. '). Naive launches them into one stream: one after ' ..
      'another, ' .. at_once('naive', '%.1f') .. ', all done at ' .. say('naive', 'span_us', '%.2f ms', 1e-3) ..
      '. Optimized launches kernel k into stream k of ' .. k.streams .. ': side by side, ' .. at_once('optimized', '%.1f') ..
      ', all done at ' .. say('optimized', 'span_us', '%.2f ms', 1e-3) .. '. Each kernel starts at an even share of the ' ..
      'recorded span less its length, so that the lengths over the span are the kernels at once the GPU\'s clock recorded; the starts ' ..
      'are a model, not drawn by hand. The lengths and spans are those of the profiled run that recorded them (the evidence), not ' ..
      'the results table\'s medians of the timed runs. The optimized panel has a time axis of its own (on naive\'s it would be a sliver).', svg, drawn)
  end,
  ['06'] = function(c)
    -- One 4-byte float per thread-load (the DRAM bytes read per element), one load in flight per
    -- thread (the kernel's pointers may alias: its loads wait on its stores).
    local svg, drawn = inflight(c, {warps = 'warps-per-sm',
      loads = function() return 1 end,
      width = function(e, prog) return e['dram__bytes_read.sum'][prog] / e.size end})
    if not svg then return nil end
    return figure_block(c.nn, inflight_caption(c, drawn, 'other launches of the sweep over the warps per SM'), svg, drawn)
  end,
  ['07'] = function(c)
    -- 16 bytes per thread-load (the array's bytes over the warp-level loads, per thread), the
    -- loads per trip in the kernel's code (the ilp knob's, for a program whose count is the
    -- default knob's).
    local svg, drawn = inflight(c, {warps = 'warps',
      loads = function(e, prog, knobs, K) local l = e['LDG.E.128'][prog]; return l == K.ilp and knobs.ilp or l end,
      width = function(e, prog) return 4 * e.size / e['smsp__inst_executed_op_global_ld.sum'][prog] / 32 end})
    if not svg then return nil end
    return figure_block(c.nn, inflight_caption(c, drawn, 'other launches of the sweep over the warps per SM and the loads in flight per thread'), svg, drawn)
  end,  ['03'] = function(c)
    -- Each program's batches on a model clock, in the order its loop makes its calls: queue GPU
    -- batch b (a launch takes no host time), then wait for batch b - lag and hash it (naive lag 0,
    -- optimized 1). A GPU batch is 1/B of the GPU part, a hash 1/B of the CPU part, as the program
    -- timed each part alone (host:gpu_part_ms, host:cpu_part_ms).
    local ev, at, all = one_gpu(c)
    local B = at.knobs.batches
    if not (ev and B and ev.gpu_part_ms and ev.cpu_part_ms and ev.end_to_end_ms and ev.parts_sum_ms) then return nil end
    local said, panels, ends = {}, {}, {}
    local function say(prog, metric, fmt) return stated(said, at.gpu, prog, metric, ev[metric][prog], fmt) end
    for p, prog in ipairs({'naive', 'optimized'}) do
      local g, h = ev.gpu_part_ms[prog] / B, ev.cpu_part_ms[prog] / B
      local boxes, host, gpu_free, gpu_end = {}, 0, 0, {}
      for b = 0, B - 1 + (p - 1) do
        if b < B then
          local t0 = math.max(gpu_free, host)
          gpu_end[b], gpu_free = t0 + g, t0 + g
          boxes[#boxes + 1] = {t0, t0 + g, 1, b % 2 == 0 and '#2a6fb0' or '#5b8fc9'}
        end
        local d = b - (p - 1)
        if d >= 0 then
          if gpu_end[d] > host then boxes[#boxes + 1] = {host, gpu_end[d], 2, '#c8c8c8'}; host = gpu_end[d] end
          boxes[#boxes + 1] = {host, host + h, 2, d % 2 == 0 and '#d1603d' or '#e08a6d'}
          host = host + h
        end
      end
      ends[p] = host
      -- The measured times as dashed lines, the later one's text in the higher row, clear of the earlier line.
      local m = {{ev.parts_sum_ms[prog], 'parts\' sum ' .. say(prog, 'parts_sum_ms', '%.1f ms')},
                 {ev.end_to_end_ms[prog], 'profiled ' .. say(prog, 'end_to_end_ms', '%.1f ms')}}
      table.sort(m, function(a, b) return a[1] < b[1] end)
      m[1][3], m[2][3] = 3.0, 3.6
      panels[p] = {boxes = boxes, half = 0.34, yrange = {0.45, 3.95}, marks = m, pad = 0.6,
        ytics = {{'host ' .. say(prog, 'cpu_part_ms', '%.1f ms'), 2}, {'GPU ' .. say(prog, 'gpu_part_ms', '%.1f ms'), 1}}}
    end
    panels[1].title = string.format('naive, queue, wait, hash: %.1f ms', ends[1])
    panels[2].title = string.format('optimized, hash under the GPU: %.1f ms', ends[2])
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock (parts: ' .. at.short:match('^%S+') .. ')',
      {{'GPU batch', '#2a6fb0'}, {'host hash', '#d1603d'}, {'host waits', '#c8c8c8'}}, 380)
    drawn.said, drawn.recorded, drawn.gpu = said, all, at.gpu
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': each program\'s ' .. B .. ' batches on a model clock, a GPU batch (kernel ' ..
      'and download, blue) 1/' .. B .. ' of the GPU part and a hash (orange) 1/' .. B .. ' of the host\'s part, as each program timed ' ..
      'them alone on the ' .. at.short .. ' (naive: GPU ' .. say('naive', 'gpu_part_ms', '%.1f ms') .. ', host ' ..
      say('naive', 'cpu_part_ms', '%.1f ms') .. '; optimized: ' .. say('optimized', 'gpu_part_ms', '%.1f ms') .. ' and ' ..
      say('optimized', 'cpu_part_ms', '%.1f ms') .. '). Naive queues a batch, waits for it (grey) and hashes it, so the GPU idles ' ..
      'while the host hashes: the model ends at ' .. string.format('%.1f ms', ends[1]) .. ', the parts\' sum; the profiled run that ' ..
      'timed these parts measured it end to end at ' ..
      say('naive', 'end_to_end_ms', '%.1f ms') .. '. Optimized queues batch b and hashes batch b − 1 while the GPU runs batch b, waiting ' ..
      'only where the GPU is behind: the model ends at ' .. string.format('%.1f ms', ends[2]) .. (ev.cpu_part_ms.optimized >= ev.gpu_part_ms.optimized and
      ', one GPU batch and the host\'s whole part' or ', the GPU\'s whole part and one hash') .. '; its profiled run measured ' .. say('optimized', 'end_to_end_ms', '%.1f ms') .. ' against its parts\' sum of ' ..
      say('optimized', 'parts_sum_ms', '%.1f ms') .. '. Computed from the recorded parts and the batches knob (no launch ' ..
      'costs host time), not drawn by hand; the lengths are a model, the dashed lines ("profiled") the times of the profiled run the parts come ' ..
      'from (the evidence), not the results table\'s medians of the timed runs.', svg, drawn)
  end,  ['19'] = function(c)
    -- The tile: the tiled kernel's shared memory (ptxas) holds two tile × tile tiles of floats.
    local n = (c.results[1] or {}).size
    local ev = (c.evidence or {})[1]
    local smem = ev and (recorded(c, 'smem_bytes')[ev.gpu] or {}).optimized
    local T = smem and math.floor(math.sqrt(smem / 8) + 0.5)
    if not (n and T and T * T * 8 == smem and n % T == 0) then return nil end
    -- One block (T × T threads, a thread an element of C, each n FFMAs) reads the 2 T n floats of
    -- A's row panel and B's column panel; a thread loads 2 n of them from global memory (naive) or
    -- 2 a slice, 2 n / T (tiled). Each FFMA uses one float of A and one of B.
    local floats, fma = 2 * T * n, T * T * n
    local progs = {{'naive', 2 * n}, {'optimized', 2 * n // T}}
    local panels, drawn_uses = {}, {}
    for k, pr in ipairs(progs) do
      local loads, uses = T * T * pr[2] / floats, 2 * fma / floats -- per float of the panels
      local per = uses / loads
      drawn_uses[pr[1]] = per
      -- The naive loads are instructions, not traffic: the L1 serves most of them (A's float is
      -- one broadcast address for the warp).
      local said = string.format('%d load%s, %d uses', loads, loads == 1 and '' or 's', uses)
      if k == 1 then said = string.format('%d load instructions, %d uses', loads, uses) end
      panels[k] = {tiled = k == 2, n = n, said = said, title = string.format('%s: %d use%s per global load instruction', k == 1 and 'naive' or 'tiled', per, per == 1 and '' or 's'),
        lines = k == 1 and {{'each orange float:', '#d1603d'}, {said .. ','}, {'mostly L1 hits (A\'s: one'}, {'broadcast request)'}}
          or {{'each blue float:', '#2a6fb0'}, {said .. ','}, {'from shared memory'}, {'by the pale threads'}}}
    end
    local svg, drawn = charts.tiling(c.nn, T, panels)
    -- What each GPU recorded, for check_pdf.py diagrams: uses per global load = 2 x FFMA / loaded
    -- floats, from ncu (thread FFMAs over 32 floats a global load request) and from the SASS (the
    -- FFMAs over the LDGs of the kernel's code, one float a thread each).
    drawn.per_request = {}
    for _, e in ipairs(c.evidence or {}) do
      local m = {}
      for _, x in ipairs(e.metrics) do m[x.metric] = x.values end
      local ffma, req = m['smsp__sass_thread_inst_executed_op_ffma_pred_on.sum'] or {}, m['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'] or {}
      local sf, sl = m.FFMA or {}, m.LDG or {}
      for _, prog in ipairs({'naive', 'optimized'}) do
        if ffma[prog] and (req[prog] or 0) > 0 then
          table.insert(drawn.per_request, {gpu = e.gpu, program = prog, what = 'uses per global load (2 FFMA / 32 per load request)', drawn = drawn_uses[prog], recorded = 2 * ffma[prog] / (32 * req[prog])})
        end
        if sf[prog] and (sl[prog] or 0) > 0 then
          table.insert(drawn.per_request, {gpu = e.gpu, program = prog, what = 'uses per global load (2 FFMA / LDG in the SASS)', drawn = drawn_uses[prog], recorded = 2 * sf[prog] / sl[prog]})
        end
      end
    end
    -- What the caption restates, for check_pdf.py diagrams: each GPU's L1 hit rate of the naive
    -- program's sectors (ncu) and the results' speedup of the tiled program over the naive.
    local said, all, hits, ups = {}, {}, {}, {}
    local function short_name(slug)
      for _, d in ipairs(DATA.gpus) do if d.slug == slug then return d.short:match('^%S+') end end
      return slug
    end
    for _, e in ipairs(c.evidence or {}) do
      local v = ((by_gpu(c)[e.gpu] or {})['l1tex__t_sector_hit_rate.pct'] or {}).naive
      local g = short_name(e.gpu)
      if v then
        all[#all + 1] = {gpu = e.gpu, program = 'naive', metric = 'l1tex__t_sector_hit_rate.pct', value = v}
        hits[#hits + 1] = stated(said, e.gpu, 'naive', 'l1tex__t_sector_hit_rate.pct', v, '%.0f%%') .. ' on the ' .. g
      end
    end
    for _, r in ipairs(c.results) do
      local rate = {}
      for _, row in ipairs(r.rows) do rate[row.variant] = row.rate end
      if rate.naive and rate.optimized then
        all[#all + 1] = {gpu = r.gpu, program = 'optimized', metric = 'speedup', value = rate.optimized / rate.naive}
        ups[#ups + 1] = stated(said, r.gpu, 'optimized', 'speedup', rate.optimized / rate.naive, '%.2f×') .. ' on the ' .. short_name(r.gpu)
      end
    end
    if #hits == 0 or #ups == 0 then return nil end
    drawn.said, drawn.recorded, drawn.gpu = said, all, 'each GPU'
    local t = drawn.panels
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': one block\'s ' .. T .. ' × ' .. T .. ' tile of C, one thread per element; ' ..
      'its two tiles take ' .. math.floor(smem) .. ' B of shared memory. Beside it the row panel of A and the column panel of B it reads ' ..
      '(n = ' .. n .. ', ' .. n // T .. ' slices of ' .. T .. ', the two nearest the tile drawn), and the threads of row r and column c ' ..
      'of the tile that use one float of A\'s row r and of B\'s column c. The naive program loads that float in each of them: ' ..
      panels[1].said .. ', ' .. t[1].title:match(': (.*)$') .. '. But those load instructions are mostly L1 hits (A\'s float is one ' ..
      'broadcast address for a warp): the L1 already catches most of this reuse (its hit rate of the naive program\'s sectors: ' .. words(hits) .. '). ' ..
      'The tiled program loads a slice of each panel into shared memory once, a float a thread, and its ' .. T .. ' threads read ' ..
      'each float from there: ' .. panels[2].said .. ', ' .. t[2].title:match(': (.*)$') .. '. As the L1 had caught most of the reuse ' ..
      'already, the tiled program\'s measured speedup is only ' .. words(ups) .. '. Computed from the recorded tile and size, not drawn by hand; ' ..
      'the book\'s check compares the uses per global load with the multiply-adds per loaded float each GPU counted, and the hit ' ..
      'rates and speedups with each GPU\'s record.', svg, drawn)
  end,
  ['16'] = function(c)
    -- One warp's first load request in each program the GPUs recorded with ncu, at its knobs: lane
    -- l's record at base + l × its bytes, the load's bytes the widest load its SASS has (LDG.E.U8 1,
    -- LDG.E 4, LDG.E.64 8, LDG.E.128 16; sass:LDG.E counts every LDG.E*); a record is whole loads
    -- (12 bytes: three 4-byte loads, or one 16-byte load, padded), the records from the next 16-byte
    -- boundary past --offset. The naive program loads a byte a thread, whatever --width says.
    local K, ev = knob_table((c.results[1] or {}).knobs), by_gpu(c)
    local e = ev[((c.evidence or {})[1] or {}).gpu]
    if not (e and K.width and K.offset) then return nil end
    local function access(prog)
      local function n(k) return (e[k] or {})[prog] or 0 end
      return n('LDG.E.128') > 0 and 16 or n('LDG.E.64') > 0 and 8 or n('LDG.E') > n('LDG.E.U8') and 4 or n('LDG.E.U8') > 0 and 1 or nil
    end
    local rows, progs = {}, {'naive', 'optimized', 'optimized[--width 12]', 'optimized[--width 12 --pad 1]'}
    for k, prog in ipairs(progs) do
      local a = access(prog)
      if not a then return nil end
      local width = prog == 'naive' and a or tonumber(prog:match('%-%-width (%d+)') or K.width)
      local record, base = math.ceil(width / a) * a, prog == 'naive' and K.offset or (K.offset + 15) // 16 * 16
      local lanes = {}
      for l = 0, 31 do lanes[l + 1] = {base + l * record, math.min(a, width)} end
      -- The row in words: the program, or its struct (--width) and padding (--pad) as the record's bytes.
      local name = prog:match('%-%-') and (record > width and 'padded to ' .. record .. ' B' or width .. '-byte struct') or prog
      local n = record // a -- the loads a record takes
      rows[k] = {name = name .. (n > 1 and ', load 1 of ' .. n or ', ' .. 32 * a .. ' B a request'), lanes = lanes, width = width, a = a,
        record = record, loads = n, all = n * sectors_of(lanes)}
      if n > 1 then rows[k].more = string.format('%d loads, the same %d sectors: %d B for %d B', n, sectors_of(lanes), 32 * sectors_of(lanes), 32 * width)
      elseif record > width then rows[k].more = string.format('%d B of them needed', 32 * width) end
    end
    local svg, drawn = charts.sectors(c.nn, rows, {unit = 1, line = 128, tics = true, xstep = 32,
      xlabel = 'byte (+ the left number); box: a 32-byte sector', needed = 'bytes this load needs', waste = 'not used by this load'})
    drawn.per_request = {}
    for gpu, m in pairs(ev) do
      local sec, req = m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] or {}, m['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'] or {}
      for k, prog in ipairs(progs) do
        if sec[prog] and (req[prog] or 0) > 0 then
          table.insert(drawn.per_request, {gpu = gpu, program = prog, what = 'sectors per load request', drawn = drawn.rows[k].sectors, recorded = sec[prog] / req[prog]})
        end
      end
    end
    -- What padding did to the time, on each GPU: the unpadded struct's median over the padded
    -- one's, from the sweep over --width and --pad (below 1: padding is slower).
    local r, said, recorded, ups = rows, {}, {}, {}
    for _, sw in ipairs(c.sweeps or {}) do
      local t = {}
      for _, row in ipairs(sw.rows) do
        local k = knob_table(row.knobs)
        if row.variant == 'optimized' and k.width == r[3].width and (k.offset or 0) == 0 then t[k.pad] = row.median_us end
      end
      if t[0] and t[1] then
        recorded[#recorded + 1] = {gpu = sw.gpu, program = 'optimized', metric = 'padding speedup', value = t[0] / t[1]}
        ups[#ups + 1] = stated(said, sw.gpu, 'optimized', 'padding speedup', t[0] / t[1], '%.2f×') .. ' on the ' .. gpu_name(sw.gpu):match('^%S+')
      end
    end
    if #ups == 0 then return nil end
    drawn.said, drawn.recorded, drawn.gpu = said, recorded, 'each GPU'
    local d = drawn.rows
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the 32-byte sectors one warp\'s first load request touches, lane l reading ' ..
      'its record at byte l × the record\'s size, at the recorded knobs: the naive program\'s ' .. r[1].a .. '-byte loads (' .. d[1].sectors ..
      (d[1].sectors == 1 and ' sector, ' or ' sectors, ') .. 32 * r[1].a .. ' B a request) and the optimized program\'s ' .. r[2].a .. '-byte loads (' .. d[2].sectors .. ' sectors, ' ..
      32 * r[2].a .. ' B a request) use every byte they touch: the same sectors per byte, ' .. r[2].a // r[1].a .. ' times the bytes a ' ..
      'request carries. A ' .. r[3].width .. '-byte struct moves as ' .. r[3].loads .. ' loads of ' .. r[3].a .. ' B, each touching the same ' ..
      d[3].sectors .. ' sectors and using ' .. r[3].a .. ' B of every ' .. r[3].record .. ' (the grey bytes are the other loads\'): the L1 serves ' ..
      'the second and third from what the first brought, so ' .. 32 * r[3].width .. ' B come from DRAM for ' .. 32 * r[3].width .. ' B used. ' ..
      'Padded to ' .. r[4].record .. ' B it is one load of ' .. d[4].sectors .. ' sectors: ' .. 32 * r[4].record .. ' B come from DRAM for the same ' ..
      32 * r[4].width .. ' B, ' .. r[4].record - r[4].width .. ' B of every ' .. r[4].record .. ' padding, and padding loses: the padded ' ..
      'struct\'s speed over the unpadded one\'s is ' .. words(ups) .. '. Each load\'s width is the widest load the program\'s SASS holds, ' ..
      'not drawn by hand; the book\'s check compares the sectors per request with the sectors per load request each GPU recorded, ' ..
      'and the speeds with the sweep.', svg, drawn)
  end,
  ['17'] = function(c)
    -- Warp 0's vector load in rows 0 and 1 of each program, at the recorded cols and vector width
    -- and the pitch each program recorded (host:pitch_bytes); the check runs filter_loads over 32
    -- rows (the row starts repeat modulo 32 bytes within them) for each program and option.
    local K, ev = knob_table((c.results[1] or {}).knobs), by_gpu(c)
    local e = ev[((c.evidence or {})[1] or {}).gpu]
    local pitch = {}
    for prog, v in pairs(e and e.pitch_bytes or {}) do pitch[prog] = math.tointeger(v) end
    if not (K.cols and K.vector and pitch.naive and pitch.optimized) then return nil end
    local rows, off = {}, 0
    for _, prog in ipairs({'naive', 'optimized'}) do
      local call = pitch[prog] == 4 * K.cols and 'cudaMalloc' or 'cudaMallocPitch'
      for r = 0, 1 do
        local lanes = filter_loads(K.cols, pitch[prog], K.vector, r)[1]
        local peeled = lanes[1][1] - r * pitch[prog] -- the row's floats before its first vector, a thread each
        rows[#rows + 1] = {name = call .. ', row ' .. r .. ' at byte ' .. r * pitch[prog], lanes = lanes, mark = r * pitch[prog],
          other = peeled > 0 and {{r * pitch[prog], peeled}} or nil}
      end
      for r = 0, 31 do off = off + (prog == 'naive' and sectors_of(filter_loads(K.cols, pitch[prog], K.vector, r)[1]) > 32 * K.vector * 4 // 32 and 1 or 0) end
    end
    local svg, drawn = charts.sectors(c.nn, rows, {unit = 1, line = 4 * K.vector * 32 + 32, xstep = 64,
      xlabel = 'bytes from the row\'s first sector; box: a sector', needed = 'the warp\'s first vector load',
      marked = 'where the row starts', other = 'peeled floats, a thread each', waste = 'in a touched sector, not this load\'s'})
    -- What the results measured: the optimized program's speed over the naive's on each GPU.
    local speed, flat = {}, true
    for _, res in ipairs(c.results) do
      for _, row in ipairs(res.rows) do
        if row.variant == 'optimized' and row.speedup then
          speed[#speed + 1] = string.format('%.2f× on the %s', row.speedup, gpu_name(res.gpu):match('^%S+'))
          flat = flat and math.abs(row.speedup - 1) < 0.05
        end
      end
    end
    if #speed == 0 then return nil end
    drawn.per_request = {}
    for gpu, m in pairs(ev) do
      local sec, req = m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] or {}, m['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'] or {}
      for prog, n in pairs(sec) do
        local p, vec = prog:match('^(%a+)'), tonumber(prog:match('%-%-vector (%d+)') or K.vector)
        local s, q = 0, 0
        for r = 0, (m.pitch_bytes or {})[prog] and (req[prog] or 0) > 0 and 31 or -1 do
          for _, lanes in ipairs(filter_loads(K.cols, m.pitch_bytes[prog], vec, r)) do s, q = s + sectors_of(lanes), q + 1 end
        end
        if q > 0 then
          table.insert(drawn.per_request, {gpu = gpu, program = prog, what = 'sectors per load request over 32 rows', within = 0.05, drawn = s / q, recorded = n / req[prog]})
        end
      end
    end
    local d, v1 = drawn.rows, rows[2].lanes[1][1] -- packed row 1's first vector
    return figure_block(c.nn, 'Chapter ' .. c.number .. ': the 32-byte sectors warp 0\'s first ' .. K.vector * 4 .. '-byte vector load touches ' ..
      'in rows 0 and 1 of an image of ' .. K.cols .. ' floats a row, packed ' .. pitch.naive .. ' B apart by `cudaMalloc` and ' ..
      pitch.optimized .. ' B apart at the pitch `cudaMallocPitch` returned. Packed row 1 starts ' .. pitch.naive % 32 .. ' B into a sector; ' ..
      'its first ' .. (v1 - pitch.naive) // 4 .. ' floats are peeled, a thread each, and its vectors start at byte ' .. v1 .. ', ' .. v1 % 32 ..
      ' B into a sector: ' .. d[2].sectors .. ' sectors against row 0\'s ' .. d[1].sectors .. ' sectors, as in ' .. off .. ' of every 32 ' ..
      'packed rows. Pitched rows start ' .. pitch.optimized % 32 .. ' B into a sector (row 0: ' .. d[3].sectors .. ' sectors, row 1: ' ..
      d[4].sectors .. ' sectors). The peeled floats (light orange) are loaded a thread each, apart from the vectors. Measured, the ' ..
      'pitched program\'s speed over the packed one\'s is ' .. words(speed) .. (flat and ': on these GPUs the extra sector costs ' ..
      'nothing measurable.' or '.') .. ' Computed from the recorded knobs and pitches, not drawn by hand; the book\'s check runs the same ' ..
      'addresses over every warp\'s loads of 32 rows and compares the sectors per load request with what each GPU recorded.', svg, drawn)
  end,
}

-- Where each chapter points the reader: the guide section it follows (book.py's guide_url, from
-- book/guide-anchors.tsv), and its source files: each a page of the HTML edition (the .source-file
-- divs below, which book/html/site.py cuts out; book/to-latex.lua prints their paths instead), and
-- the folder at BOOK_SOURCE_URL (the repository's published tree, where one is configured).
local SOURCE_URL = (os.getenv('BOOK_SOURCE_URL') or ''):gsub('/+$', '')
local function source_id(c, file) return 'src-' .. c.nn .. '-' .. file:gsub('%W', '-') end
local function chapter_links(c)
  local guide = c.guide == 'BPG' and 'CUDA C++ Best Practices Guide, section' or ('Programming Guide, section ' .. c.guide)
  local files = {}
  for k, f in ipairs(c.sources) do files[k] = '[`' .. f .. '`](#' .. source_id(c, f) .. '){.source-link}' end
  local code = '`' .. c.folder .. '/`: ' .. table.concat(files, ', ') ..
    (SOURCE_URL ~= '' and (' ([published](' .. SOURCE_URL .. '/' .. c.folder .. '))') or '')
  return pandoc.Div(md_blocks('Read: the [' .. guide .. ' "' .. md_escape(c.guide_heading) .. '"](' .. c.guide_url ..
    '). Code: ' .. code .. '.'), pandoc.Attr('', {'chapter-links'}))
end

-- The source files of the written chapters, each whole, highlighted, with its path; at the end of
-- the book, where the HTML edition makes each a page of its own.
local function source_blocks()
  local out = pandoc.List()
  for _, c in ipairs(DATA.chapters) do
    for _, f in ipairs(c.status == 'written' and c.sources or {}) do
      local path = c.folder .. '/' .. f
      local text = read_file(path) or fail('%s cannot be read', path)
      out:insert(pandoc.Div({
        pandoc.Para(md_inlines('`' .. path .. '`, a source file of chapter ' .. chapter_ref(c.nn) ..
          (SOURCE_URL ~= '' and (' ([published](' .. SOURCE_URL .. '/' .. path .. '))') or '') .. '.')),
        pandoc.CodeBlock(text:gsub('\n$', ''), pandoc.Attr('', {lang_of(f), 'numberLines'}))},
        pandoc.Attr(source_id(c, f), {'source-file'}, {path = path})))
    end
  end
  return pandoc.Div(out, pandoc.Attr('', {'source-files'}))
end

-- A chapter's tables numbered in the order a reader meets them in the chapter: the full record's
-- (.record divs: collapsed in the HTML, appendix C of the PDF) after the tables the chapter shows,
-- so that the chapter's own read 1.1, 1.2, 1.3 without a gap.
local function renumber_tables(blocks, nn)
  local shown, recorded = {}, {}
  local function visit(list, in_record)
    for _, b in ipairs(list) do
      if b.t == 'Div' then
        if b.classes:includes('numbered-table') then
          table.insert(in_record and recorded or shown, b)
        else
          visit(b.content, in_record or b.classes:includes('record'))
        end
      end
    end
  end
  visit(blocks, false)
  counters['Table:' .. nn] = 0
  for _, list in ipairs({shown, recorded}) do
    for _, div in ipairs(list) do
      local label, id = number('Table', nn)
      div.identifier = id
      for _, t in ipairs(div.content) do
        if t.t == 'Table' then
          local inl = t.caption.long[1].content
          if inl[1] and inl[1].t == 'Strong' then inl[1] = md_inlines(label)[1] end
        end
      end
    end
  end
end

local function chapter_blocks(c)
  local src = pandoc.read(read_file(c.readme) or fail('%s cannot be read', c.readme), 'gfm+tex_math_dollars+smart').blocks
  local out = pandoc.List({pandoc.Header(2, md_inlines(c.nn .. '\\. ' .. md_escape(c.title)), pandoc.Attr('ch-' .. c.nn, {'chapter'})), chapter_links(c)})
  local blocks = {}
  for _, g in ipairs(c.blocks) do blocks[g.kind .. ':' .. g.args] = g end
  local diagram = DIAGRAMS[c.nn] and DIAGRAMS[c.nn](c)
  local i, section = 2, 'the guideline' -- the README's "# NN. Title" is replaced by the heading above
  while i <= #src do
    local b, body = src[i], comment_of(src[i])
    local kind, args = (body or ''):match('^(%a+):?%s*(.-)$')
    if b.t == 'Table' and #b.caption.long == 0 then
      -- A table of the README's own: numbered, its caption the section and what its columns hold.
      local cols = {}
      for k, cl in ipairs(b.head.rows[1] and b.head.rows[1].cells or {}) do cols[k] = stringify(cl.contents) end
      out:insert(numbered_table(c.nn, fix_links(c, {b})[1], 'Chapter ' .. c.number .. ', ' .. md_escape(section) .. ': ' ..
        md_escape(words(cols)) .. '.'))
    elseif b.t == 'Header' then
      section = stringify(b.content)
      b.level = math.min(b.level + 1, 6)
      b.identifier = 'ch' .. c.nn .. '-' .. b.identifier
      out:extend(fix_links(c, {b}))
    elseif kind and blocks[kind .. ':' .. args] then
      repeat i = i + 1 until i > #src or comment_of(src[i]) == '/' .. kind -- skip make readme's copy
      if i > #src then fail('%s: <!-- %s --> has no closing <!-- /%s -->', c.readme, body, kind) end
      out:extend(generated(c, blocks[kind .. ':' .. args]))
    elseif not body then
      out:extend(fix_links(c, {b}))
    end -- other comments (notes to authors) are dropped
    i = i + 1
  end
  -- The chapter's picture of its mechanism (numbered first), before its first listing.
  if diagram then
    for k, b in ipairs(out) do
      if b.t == 'Div' and b.classes:includes('listing') then out:insert(k, diagram); diagram = nil; break end
    end
    if diagram then out:insert(diagram) end
  end
  -- LaTeX: a heading directly above a listing or table moves to the next page with it: it needs
  -- the space its table needs (the table's own \needspace) and its own three lines.
  local kept = pandoc.List()
  for k, b in ipairs(out) do
    local nxt = out[k + 1]
    if b.t == 'Header' and nxt and nxt.t == 'Div' and (nxt.classes:includes('listing') or nxt.classes:includes('numbered-table')) then
      local first = nxt.content[1]
      local need = first and first.t == 'RawBlock' and tonumber(first.text:match('^\\needspace{(%d+)\\baselineskip}$'))
      kept:insert(NEEDSPACE(math.max(12, (need or 0) + 3)))
    end
    kept:insert(b)
  end
  -- Inline comments go (the markers around an inline value, notes); the text stays. Exponents
  -- become superscripts (superscripts, below).
  renumber_tables(kept, c.nn)
  local div = pandoc.walk_block(pandoc.Div(kept), {RawInline = function(r)
    if r.format == 'html' and r.text:match('^<!%-%-') then return {} end
  end})
  return pandoc.walk_block(pandoc.walk_block(div, {Inlines = units}), {Str = function(s) return superscripts(s) end}).content
end

---------------------------------------------------------------------------------------------
-- The fenced divs of book/book.md

local function part_blocks(part)
  local list, out = {}, pandoc.List()
  for _, c in ipairs(DATA.chapters) do
    if c.part == part then
      list[#list + 1] = '- ' .. chapter_ref(c.nn) .. ', ' .. (c.guide == 'BPG' and 'Best Practices Guide' or ('guide ' .. c.guide))
    end
  end
  if #list == 0 then fail('part %s has no chapters', part) end
  out:extend(md_blocks('Chapters of this part:\n\n' .. table.concat(list, '\n')))
  for _, c in ipairs(DATA.chapters) do
    if c.part == part and c.status == 'written' then out:extend(c.layout) end
  end
  return out
end

local function gpus_blocks()
  if #DATA.gpus == 0 then
    return md_blocks('**No GPU has been measured yet:** there is no results file. Every chapter says ' ..
      '"not measured yet" until `make results` has run on a machine with a GPU.')
  end
  local header = {cell('GPU'), cell('CC'), cell('SMs'), cell('SM clock (MHz)'), cell('CUDA: driver / runtime'), cell('Chapters'), cell('Measured')}
  local rows = {}
  for _, g in ipairs(DATA.gpus) do
    local clock = g.sm_clock_mhz and {string.format('%d', g.sm_clock_mhz[1]), string.format('%d', g.sm_clock_mhz[2])}
    rows[#rows + 1] = {cell(md_escape(g.name)), cell(join(g.cc)), cell(join(g.sms)), cell(range(clock)), cell(join(g.cuda)),
                       cell(tostring(#g.chapters)), cell(range(g.dates))}
  end
  return {table_block('', 'The GPUs measured, from their results files.',
    {'AlignLeft', 'AlignLeft', 'AlignRight', 'AlignRight', 'AlignLeft', 'AlignRight', 'AlignLeft'}, header, rows)}
end

-- Per GPU with both roofs measured, its roofline (charts.lua), and which chapters it cannot place.
local function roofline_blocks()
  local out = pandoc.List()
  for _, g in ipairs(DATA.roofline or {}) do
    if #g.points > 0 then
      local svg, drawn = charts.roofline(g)
      local shown, why, seen = {}, {}, {}
      for _, p in ipairs(g.points) do if not seen[p.nn] then seen[p.nn] = true; shown[#shown + 1] = p.nn end end
      for _, m in ipairs(g.missing) do
        if not seen[m.nn] then seen[m.nn] = true; why[m.why] = (why[m.why] or 0) + 1 end
      end
      local left = {}
      for _, w in ipairs({'no flop count', 'no byte count'}) do
        if why[w] then left[#left + 1] = string.format('%d record %s', why[w], w == 'no flop count' and
          'no FP32 flop count (their programs move data and barely compute)' or 'no DRAM byte count') end
      end
      out:insert(figure_block('S', string.format('Roofline of the %s: FP32 GFLOP/s against arithmetic intensity, under the ' ..
        'GPU\'s measured copy roof (%.0f GB/s, the slope) and its FP32 peak (%.0f GFLOP/s, the flat part); each arrow goes ' ..
        'from a chapter\'s naive program to its optimized one.%s%s Drawn: chapter%s %s. Not drawn: of the other chapters, %s.',
        md_escape(g.short), drawn.copy, drawn.peak,
        drawn.evidence and ' Filled markers: the flops and the DRAM bytes are both ncu\'s counts.' or '',
        drawn.results and ' Hollow markers: one of the two rates is the program\'s own count over its median time, from its results row.' or '',
        #shown > 1 and 's' or '', words(shown), #left > 0 and words(left) or 'none'), svg, drawn))
    end
  end
  return out
end

-- Every chapter against the roof that bounds it (its own choice: copy, FP32, SFU, ...), both
-- programs, every GPU, one chart: which optimized programs sit near their limit.
local function own_roofs_blocks()
  if not DATA.roofs or #DATA.roofs == 0 then return {} end
  local svg, drawn = charts.own_roofs(DATA.gpus, DATA.roofs)
  return {figure_block('S', 'Every chapter against the roof that bounds it: each program\'s rate as a percentage of its ' ..
    'chapter\'s roof (named after the chapter: copy, read, FP32, SFU, issue, link, launch ...), on a logarithmic axis; ' ..
    'hollow markers the naive programs, filled ones the optimized, joined by a line, one colour per GPU (' ..
    md_escape(words(drawn.gpus)) .. '); the dashed line is the roof itself (100 %).' ..
    (#drawn.missing > 0 and (' Chapters ' .. words(drawn.missing) .. ' have no roof in their results yet (an empty row).') or
      ' Every chapter is drawn.'), svg, drawn)}
end

local function summary_blocks()
  if #DATA.summary == 0 then
    return md_blocks('**Not measured yet.** No written chapter has both a naive and an optimized result on any GPU.')
  end
  local header, aligns = {cell('Chapter'), cell('Predicted')}, {'AlignLeft', 'AlignRight'}
  for _, g in ipairs(DATA.gpus) do header[#header + 1] = cell(md_escape(g.short)); aligns[#aligns + 1] = 'AlignRight' end
  local rows = {}
  for _, r in ipairs(DATA.summary) do
    local p = by_nn[r.nn].prediction
    local line = {cell(chapter_ref(r.nn)), cell(p and string.format('%g–%g×', p.speedup[1], p.speedup[2]) or '—')}
    for _, g in ipairs(DATA.gpus) do
      local x = r.speedups[g.slug]
      line[#line + 1] = cell(not x and '—' or (speedup_md(x.speedup) .. '×' .. (x.prediction and (', ' .. verdict(x.prediction)) or '') ..
        (x.stale and ' **STALE**' or '')))
    end
    rows[#rows + 1] = line
  end
  local out = pandoc.List({table_block('S', 'Speedup of the optimized program over the naive one (ratio of medians) ' ..
    'against the range its chapter predicted, and whether it fell inside that range.', aligns, header, rows)})
  local crows = {}
  for _, r in ipairs(DATA.summary) do
    local p, sp = by_nn[r.nn].prediction, {}
    for slug, x in pairs(r.speedups) do sp[slug] = x.speedup end
    crows[#crows + 1] = {nn = r.nn, title = r.title, predicted = p and p.speedup, speedups = sp}
  end
  local svg, drawn = charts.summary(DATA.gpus, crows)
  out:insert(figure_block('S', 'Measured against predicted, every chapter: ' ..
    (drawn.predicted and 'the grey bar is the speedup range the chapter predicted, ' or '') ..
    'each marker the speedup measured on a GPU (' .. md_escape(words(drawn.gpus)) .. '), on a logarithmic axis; ' ..
    'the dashed line marks 1× (no change). The numbers are in the table above.', svg, drawn))
  out:extend(own_roofs_blocks())
  out:extend(roofline_blocks())
  return out
end

local function guideline_blocks()
  local rows, counts = {}, {written = 0, pending = 0, untimed = 0}
  local function refs(list) local t = {}; for k, nn in ipairs(list) do t[k] = chapter_ref(nn) end; return table.concat(t, '; ') end
  for _, g in ipairs(DATA.guidelines.rows) do
    counts[g.status] = counts[g.status] + 1
    local where = #g.shown_in > 0 and refs(g.shown_in) or ('Not shown by a timing pair: ' .. g.why .. ' See ' .. refs(g.see) .. '.')
    rows[#rows + 1] = {cell(g.id), cell(g.guide), cell(g.recommendation), cell(where)}
  end
  local out = md_blocks(string.format('The Programming Guide\'s performance chapter asks for an action in %d sentences. ' ..
    'Here is each of them in our own words, with the chapter that demonstrates it by a timing pair. Chapters that are not ' ..
    'written yet are marked *planned* (or *in progress* when their code exists without prose), so this index shows honestly ' ..
    'how much is covered today: %d recommendations are demonstrated by a written chapter, %d wait for a planned chapter, ' ..
    'and %d are not a matter of timing at all.', #rows, counts.written, counts.pending, counts.untimed))
  out:insert(table_block('A', 'The guide\'s recommendations and where this book demonstrates them.',
    {'AlignLeft', 'AlignLeft', 'AlignLeft', 'AlignLeft'},
    {cell('\\#'), cell('Guide'), cell('Recommendation, in our words'), cell('Shown in')}, rows, {'guideline-index'}))
  local extra = {}
  for _, nn in ipairs(DATA.guidelines.beyond) do
    local c = by_nn[nn]
    extra[#extra + 1] = '- ' .. chapter_ref(nn) .. (c.guide == 'BPG' and ', Best Practices Guide' or (', guide ' .. c.guide))
  end
  if #extra > 0 then
    out:extend(md_blocks('Chapters that go beyond this checklist (newer editions of the guide, and the Best Practices Guide):\n\n' ..
      table.concat(extra, '\n')))
  end
  return out
end

local function edition_blocks()
  local written, counts = 0, {written = 0, pending = 0, untimed = 0}
  for _, c in ipairs(DATA.chapters) do if c.status == 'written' then written = written + 1 end end
  for _, g in ipairs(DATA.guidelines.rows) do counts[g.status] = counts[g.status] + 1 end
  local dirty = select(2, sh('git diff --quiet HEAD -- chapters common book scripts 2>/dev/null')) ~= 0
  -- Where the code lives: its published address (BOOK_SOURCE_URL), where one is configured.
  local where = SOURCE_URL ~= '' and ('Its code lives at <' .. SOURCE_URL .. '>. ') or ''
  return md_blocks(where .. string.format('This copy was built from commit `%s`%s of %s. It has %d of the %d planned chapters; ' ..
    'of the guide\'s %d recommendations, %d are demonstrated by a written chapter, %d wait for a planned one, and %d ' ..
    'are taught without a timing pair ([Appendix A](#guideline-index) says which and why).',
    first_line('git rev-parse --short HEAD'), dirty and ' (with local changes)' or '', first_line('git log -1 --format=%cs'),
    written, #DATA.chapters, #DATA.guidelines.rows, counts.written, counts.pending, counts.untimed))
end

local function reproduce_blocks()
  local out, runs = pandoc.List(), {}
  for _, c in ipairs(DATA.chapters) do
    local seen, order = {}, {}
    for _, g in ipairs(c.status == 'written' and c.results or {}) do
      if not seen[g.args] then seen[g.args] = {}; order[#order + 1] = g.args end
      table.insert(seen[g.args], gpu_name(g.gpu))
    end
    for _, args in ipairs(order) do
      runs[#runs + 1] = string.format("make chapter-%s ARGS='%s'   # %s", c.nn, args, table.concat(seen[args], ', '))
    end
  end
  if #runs > 0 then
    out:extend(md_blocks('Each chapter\'s numbers came from one run of its programs with these options:'))
    out:insert(pandoc.CodeBlock(table.concat(runs, '\n'), pandoc.Attr('', {'bash'})))
  end
  local dirty = select(2, sh('git diff --quiet HEAD -- chapters common book scripts 2>/dev/null')) ~= 0
  local rows = {
    {cell('This book built from commit'), cell('`' .. first_line('git rev-parse --short HEAD') .. (dirty and ' (with local changes)' or '') .. '`')},
    {cell('Pandoc'), cell(md_escape(tostring(PANDOC_VERSION)))},
    {cell('TeX engine'), cell(md_escape(first_line('xelatex --version')))},
    {cell('gnuplot'), cell(md_escape(first_line('gnuplot --version')))},
    {cell('rsvg-convert'), cell(md_escape(first_line('rsvg-convert --version')))}}
  for _, g in ipairs(DATA.gpus) do
    rows[#rows + 1] = {cell(md_escape(g.name) .. ' (`' .. g.file .. '`)'), cell(join(g.versions, '; '))}
  end
  out:insert(table_block('B', 'The versions behind this edition of the book.', {'AlignLeft', 'AlignLeft'},
    {cell('What'), cell('Version')}, rows))
  if #DATA.stale > 0 then
    local t = {}
    for _, r in ipairs(DATA.stale) do t[#t + 1] = '- ' .. md_escape(r.file .. ':' .. r.line) .. ': chapter ' .. r.chapter .. ' ' .. md_escape(r.program) .. ' (' .. r.kind .. ')' end
    out:extend(md_blocks('**STALE results** (measured from sources that have changed since; `make results` again):\n\n' .. table.concat(t, '\n')))
  end
  return out
end

---------------------------------------------------------------------------------------------
-- Exponents: the READMEs (GitHub markdown, which has no superscript) write 10^9, 2^-24, n^3,
-- (15/16)^32. In text, not in code or math, the exponent becomes a superscript (a minus sign a
-- real minus). book/check_pdf.py carets fails on any ^ left in the text.

-- 2^-21.41, 2^30, n^a (not a sentence's final "."), r^(-3/2) (set without its parentheses)
local EXPONENT = {'^%b()', '^%-?%d+%.%d+', '^%-?%d+', '^%a+'}
function superscripts(s)
  local text, out, from = s.text, pandoc.List(), 1
  local i = text:find('^', 2, true)
  while i do
    local exp
    for _, p in ipairs(EXPONENT) do exp = exp or text:sub(i + 1):match(p) end
    if exp and text:sub(i - 1, i - 1):match('[%w)%]|]') then
      if i > from then out:insert(pandoc.Str(text:sub(from, i - 1))) end
      local shown = exp:match('^%((.*)%)$') or exp
      out:insert(pandoc.Superscript({pandoc.Str((shown:gsub('^%-', '\u{2212}')))}))
      from = i + 1 + #exp
    end
    i = text:find('^', i + 1, true)
  end
  if from == 1 then return nil end
  if from <= #text then out:insert(pandoc.Str(text:sub(from))) end
  return out
end

---------------------------------------------------------------------------------------------
-- Cross-references: every internal link must land on an identifier of the book.

local function check_links(blocks)
  local ids, links = {}, {}
  local function id(x) if x.identifier and x.identifier ~= '' then ids[x.identifier] = true end end
  pandoc.walk_block(pandoc.Div(blocks), {Header = id, Div = id, Span = id, CodeBlock = id, Image = id, Code = id,
    Link = function(l) id(l); if l.target:sub(1, 1) == '#' then links[#links + 1] = l.target:sub(2) end end})
  for _, t in ipairs(links) do
    if not ids[t] then fail('a link points to #%s, which is nowhere in the book', t) end
  end
end

-- figures.json: Pandoc 2.17 has no JSON writer for Lua tables, so a small one.
local function json_value(v)
  local t = type(v)
  if t == 'table' then
    if #v > 0 or next(v) == nil then
      local o = {}; for k, x in ipairs(v) do o[k] = json_value(x) end
      return '[' .. table.concat(o, ',') .. ']'
    end
    local keys, o = {}, {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for _, k in ipairs(keys) do o[#o + 1] = json_value(k) .. ':' .. json_value(v[k]) end
    return '{' .. table.concat(o, ',') .. '}'
  elseif t == 'string' then
    return '"' .. v:gsub('[%c"\\]', function(ch) return string.format('\\u%04x', ch:byte()) end) .. '"'
  elseif t == 'number' then return string.format('%.10g', v)
  elseif t == 'boolean' then return tostring(v) end
  return 'null'
end
local function figures_json() return json_value(FIGURES) .. '\n' end

-- Appendix D: every exercise that turns a knob the chapter measured (a "--knob value" in its
-- Exercises), answered from the measurements at that setting (the sweep, or the default run):
-- each program's median time on each GPU and the speedup. Exercises asking for a setting no
-- measurement covers are named, unanswered.
local function knob_map(s)
  local m = {}
  for k, v in (s or ''):gmatch('([%w%-_]+)=([^;]+)') do m[k] = v end
  return m
end
local function same_value(a, b) return a == b or (tonumber(a) and tonumber(a) == tonumber(b)) end
local function instructor_blocks()
  local out, unmeasured = pandoc.List(), {}
  out:extend(md_blocks('For each chapter: what a student can do after its lab, how long the lab takes, and an answer to ' ..
    'every exercise (the chapter\'s answers.md, its measured figures filled in by `make readme` from the results and ' ..
    'evidence files). Then the exercises that turn a knob, from the measurements at the setting each asks ' ..
    'for: every program\'s median time on each GPU measured, and the optimized program\'s speedup over the naive one. ' ..
    'They come from the same results files as the chapters (the sweep rows, or the default run), never typed.'))
  for _, c in ipairs(DATA.chapters) do
    local readme = c.status == 'written' and read_file(c.readme) or ''
    -- The chapter's answers.md: its title goes (the line below names the chapter), and so do the
    -- markers around its inline values (their text stays).
    local answers = c.status == 'written' and c.folder and read_file(c.folder .. '/answers.md')
    if answers then
      answers = answers:gsub('<!%-%-.-%-%->', '')
      answers = answers:gsub('^#[^\n]*\n', '')
      answers = answers:gsub('\n## Answers\n', '\n')
      out:extend(md_blocks('**' .. chapter_ref(c.nn) .. '.**'))
      -- Read as the READMEs are, with their units (×) and exponents (superscripts).
      local div = pandoc.Div(pandoc.read(answers, 'gfm+tex_math_dollars+smart').blocks)
      div = pandoc.walk_block(pandoc.walk_block(div, {Inlines = units}), {Str = function(s) return superscripts(s) end})
      out:extend(div.content)
    end
    local ex = readme:match('\n## Exercises\n(.-)\n## ') or readme:match('\n## Exercises\n(.*)$') or ''
    -- the measured settings: {gpu short, knobs map, {variant -> median}}
    local runs = {}
    local function add(gpu, knobs, rows)
      local key = gpu .. '|' .. knobs
      if not runs[key] then runs[key] = {gpu = gpu_name(gpu), knobs = knob_map(knobs), med = {}}; runs[#runs + 1] = runs[key] end
      for _, r in ipairs(rows) do runs[key].med[r.variant] = runs[key].med[r.variant] or r.median_us end
    end
    for _, g in ipairs(c.results or {}) do add(g.gpu, g.knobs or '', g.rows) end
    for _, sw in ipairs(c.sweeps or {}) do
      local by = {}
      for _, r in ipairs(sw.rows) do by[r.knobs] = by[r.knobs] or {}; table.insert(by[r.knobs], r) end
      local keys = {}
      for knobs in pairs(by) do keys[#keys + 1] = knobs end
      table.sort(keys)
      for _, knobs in ipairs(keys) do add(sw.gpu, knobs, by[knobs]) end
    end
    local rows = {}
    local items = {} -- {number, text} of each numbered item, its indented lines joined
    for line in (ex .. '\n'):gmatch('(.-)\n') do
      local num, text = line:match('^(%d+)%.%s+(.*)$')
      if num then items[#items + 1] = {num, text} elseif #items > 0 then items[#items][2] = items[#items][2] .. ' ' .. line end
    end
    for _, item in ipairs(items) do
      local num, body = item[1], item[2]
      local seen = {}
      for knob, value in body:gmatch('%-%-([%a][%w%-]*)[%s=]+([%w%.]+)') do
        local known, hit = false, {}
        for _, r in ipairs(runs) do
          if r.knobs[knob] then known = true end
          if r.knobs[knob] and same_value(r.knobs[knob], value) then hit[#hit + 1] = r end
        end
        local setting = '`--' .. knob .. ' ' .. value .. '`'
        if known and not seen[setting] then
          seen[setting] = true
          if #hit == 0 then unmeasured[#unmeasured + 1] = c.number .. '.' .. num .. ' (' .. setting .. ')' end
          for _, r in ipairs(hit) do
            local a, b = r.med.naive, r.med.optimized
            rows[#rows + 1] = {cell(c.number .. '.' .. num), cell(setting), cell(md_escape(r.gpu)), cell(a and number_md(a) or '—'),
              cell(b and number_md(b) or '—'), cell((a and b) and (speedup_md(a / b) .. '×') or '—')}
          end
        end -- an option no measured run sets (a tool's, --size) is not a knob of the chapter
      end
    end
    if #rows > 0 then
      out:insert(table_block('D', 'Chapter ' .. c.number .. ' (' .. chapter_ref(c.nn) .. '): the settings its exercises ask for, measured: ' ..
        'median time in µs of each program and the optimized program\'s speedup.',
        {'AlignLeft', 'AlignLeft', 'AlignLeft', 'AlignRight', 'AlignRight', 'AlignRight'},
        {cell('Exercise'), cell('Setting'), cell('GPU'), cell('naive µs'), cell('optimized µs'), cell('Speedup')}, rows))
    end
  end
  if #unmeasured > 0 then
    out:extend(md_blocks('Exercises that ask for a setting no measurement covers, to answer on your own GPU: ' .. words(unmeasured) .. '.'))
  end
  return out
end

local FILL = {gpus = gpus_blocks, edition = edition_blocks, summary = summary_blocks, ['guideline-index'] = guideline_blocks, reproduce = reproduce_blocks, instructor = instructor_blocks}

function Pandoc(doc)
  local path = doc.meta['book-data'] and stringify(doc.meta['book-data']) or fail('no book-data metadata (the JSON of results.py book-json)')
  DATA = json_decode(read_file(path) or fail('cannot read %s', path), fail)
  charts = dofile(DIR .. 'charts.lua')((doc.meta['out-dir'] and stringify(doc.meta['out-dir']) or 'book/out') .. '/charts', fail)
  for _, c in ipairs(DATA.chapters) do by_nn[c.nn] = c end
  for _, c in ipairs(DATA.chapters) do
    if c.status == 'written' then c.layout = chapter_blocks(c) end
  end
  local blocks = pandoc.List()
  for _, b in ipairs(doc.blocks) do
    if b.t == 'Div' and b.classes:includes('chapters') then
      blocks:extend(part_blocks(b.attributes.part or fail('a .chapters div without part=')))
    elseif b.t == 'Div' and FILL[b.classes[1]] then
      blocks:extend(FILL[b.classes[1]]())
    elseif not comment_of(b) then -- book.md's own comments stay out of the output
      blocks:insert(b)
    end
  end
  blocks:insert(source_blocks())
  charts.flush()
  local out_dir = doc.meta['out-dir'] and stringify(doc.meta['out-dir']) or 'book/out'
  local f = io.open(out_dir .. '/figures.json', 'wb') or fail('cannot write %s/figures.json', out_dir)
  f:write(figures_json())
  f:close()
  check_links(blocks)
  for _, r in ipairs(DATA.stale) do
    io.stderr:write(string.format('book: warning: stale %s: %s:%s, chapter %s %s\n', r.kind, r.file, r.line, r.chapter, r.program))
  end
  doc.meta.date = pandoc.MetaInlines(md_inlines('Built from commit `' .. first_line('git rev-parse --short HEAD') .. '` of ' ..
    first_line('git log -1 --format=%cs')))
  return pandoc.Pandoc(blocks, doc.meta)
end
