--[[ book/book.lua: lays out the book (Pandoc 2.17 Lua filter, run on book/book.md).

Everything it shows about chapters, results, evidence and guidelines comes from ONE JSON document,
`python3 scripts/results.py book-json`, read from the file named by the metadata field book-data
(book/build.sh writes it). results.py reads and validates every data file, cuts the listings and
diffs, computes speedups, staleness and verdicts, and fails on a missing marker, results row or
file; this filter only turns that document into Pandoc blocks, numbers listings, tables and
figures, has the charts drawn (book/charts.lua) and each chapter's picture of its mechanism computed
(book/pictures.lua), and makes the chapters' links point inside the book.

Fills the fenced divs of book/book.md:
  .edition          the versions behind this edition (commit, date, tools)
  .gpus             the measured GPUs and their context
  .chapters part=P  the part's chapter list and its written chapters (README with generated blocks)
  .summary          predictions against measurements, every chapter on every GPU (table, chart)
  .guideline-index  the guide's recommendations mapped to chapters
  .reproduce        commands and versions
  .instructor       the instructor's appendix (objectives, lab times, every exercise's answer)
Metadata: book-data (the JSON file), out-dir (charts go to out-dir/charts). ]]

local stringify = pandoc.utils.stringify
local DATA
local DIR = PANDOC_SCRIPT_FILE:match('^(.*/)') or './'
local json_decode = dofile(DIR .. 'json.lua')
local charts -- book/charts.lua, once the output folder is known
local pictures -- book/pictures.lua: each chapter's picture of its mechanism, once the charts are known

---------------------------------------------------------------------------------------------
-- Small helpers

-- A fault stops the build with one line (no Lua traceback).
local function fail(fmt, ...)
  io.stderr:write('book: error: ' .. string.format(fmt, ...) .. '\n')
  os.exit(3)
end

local shell = dofile(DIR .. 'shell.lua')
local q, sh, read_file, ftoa = shell.q, shell.sh, shell.read_file, shell.ftoa
local function exists(path) return select(2, sh('test -e ' .. q(path))) == 0 end
local function first_line(cmd) return (sh('(' .. cmd .. ' 2>/dev/null)'):match('[^\n]*')) end
-- The commit the book is built from, " (with local changes)" where the sources differ from it, its date.
local function commit()
  local dirty = select(2, sh('git diff --quiet HEAD -- chapters common book scripts 2>/dev/null')) ~= 0
  return first_line('git rev-parse --short HEAD'), dirty and ' (with local changes)' or '', first_line('git log -1 --format=%cs')
end

local function md_escape(s) return (tostring(s):gsub('([\\`*_{}%[%]()<>#+!|$~^@&%%])', '\\%1')) end
local function md_blocks(s) return pandoc.read(s, 'markdown').blocks end
local function md_inlines(s) local b = md_blocks(s); return #b == 0 and pandoc.List() or b[1].content end
local function map(list, f) local o = {}; for k, x in ipairs(list or {}) do o[k] = f(x) end; return o end

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
  t.caption.long = {pandoc.Plain(md_inlines(label) .. {pandoc.Space()} .. cap)}
  local rows = table_lines(t)
  return pandoc.Div({NEEDSPACE(rows <= 15 and (math.ceil(rows * 1.25) + 4 + (after or 0)) or 8), t},
    pandoc.Attr(id, {'numbered-table', table.unpack(classes or {})}))
end

-- A table built here, its header and cells markdown, its columns aligned by the letters of aligns
-- ('LLR': left, left, then right to the last).
local function table_block(key, caption, aligns, header, rows, classes, after)
  local function cell(s) return {pandoc.Plain(md_inlines(s))} end
  local al, widths, head, body = {}, {}, {}, {}
  for i, text in ipairs(header) do al[i], widths[i], head[i] = aligns:sub(i, i) == 'L' and 'AlignLeft' or 'AlignRight', 0, cell(text) end
  for k, row in ipairs(rows) do body[k] = {}; for i, text in ipairs(row) do body[k][i] = cell(text) end end
  local st = pandoc.SimpleTable({}, al, widths, head, body)
  return numbered_table(key, pandoc.utils.from_simple_table(st), caption, classes, after)
end
-- A table's header: these columns, then a column per GPU.
local function by_gpu(header) for _, g in ipairs(DATA.gpus) do header[#header + 1] = md_escape(g.short) end; return header end

-- Every table of a generated markdown block (results, sweep, evidence) gets a number. Read with
-- "smart" quotes; but its program names spell options as "naive[--iters 4]", whose "--" must not
-- become an en dash, so outside code spans "--" is escaped first.
local function keep_dashes(markdown)
  return (markdown:gsub('[^\n]+', function(line)
    if line:match('^[%s|:%-]*$') then return nil end -- a table's rule stays as it is
    return (line:gsub('([^`]*)(`*[^`]*`*)', function(text, code) return text:gsub('%-%-', '-\\-') .. code end))
  end))
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
      blocks:insert(numbered_table(key, b, nil, {class}))
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

-- The items of list grouped by key(item) (an item whose key is nil or false is left out): the
-- keys in the order they first appear, and each key's list of value(item).
local function group(list, key, value)
  local keys, by = {}, {}
  for _, x in ipairs(list) do
    local k = key(x)
    if k then
      if not by[k] then by[k] = {}; keys[#keys + 1] = k end
      table.insert(by[k], value(x))
    end
  end
  return keys, by
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
  local diff = classes[1] == 'diff'
  return pandoc.Div(diff and {NEEDSPACE(6), cap, DIFF_BEGIN, cb, DIFF_END} or {NEEDSPACE(6), cap, cb},
    pandoc.Attr(id, diff and {'listing', 'diff-listing'} or {'listing'}))
end

local LANG = {cu = 'cpp', h = 'cpp', cuh = 'cpp', c = 'c', mk = 'makefile', sh = 'bash', toml = 'toml'}
local function lang_of(file) return LANG[file:match('%.(%w+)$') or ''] or (file:match('Makefile') and 'makefile') end

---------------------------------------------------------------------------------------------
-- A chapter: its README, each generated block replaced by the data's rendering of it

local by_nn = {}
local superscripts -- defined with the exponents, below
local units -- the prose's units, below
-- Prose read as the READMEs are: its units (×), then its exponents (superscripts).
local function typeset(div) return pandoc.walk_block(pandoc.walk_block(div, {Inlines = units}), {Str = superscripts}) end

local function chapter_ref(nn)
  local c = by_nn[nn] or fail('a reference to chapter %s, which is not in the table of contents', nn)
  if c.status == 'written' then return '[' .. nn .. '\\. ' .. md_escape(c.title) .. '](#ch-' .. nn .. ')' end
  return nn .. '\\. ' .. md_escape(c.title) .. ' (' .. c.status .. ')'
end

local function chapter_item(nn) -- a line of a list of chapters, with the guide each follows
  return '- ' .. chapter_ref(nn) .. ', ' .. (by_nn[nn].guide == 'BPG' and 'Best Practices Guide' or ('guide ' .. by_nn[nn].guide))
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

local function join(t, sep) return table.concat(map(t, md_escape), sep or ', ') end
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
-- A speedup to sensible precision: 1.60×, 23.6×, 236×; beside a prediction's range (its two
-- ends), more digits while it would print as an end it missed (2.402, not 2.40, against 2.4).
local function speedup_md(x, range)
  local places = (x >= 100 and 0) or (x >= 10 and 1) or 2
  local function clash(b) return b ~= x and ftoa(b, places) == ftoa(x, places) end
  while range and places < 6 and (clash(range[1]) or clash(range[2])) do places = places + 1 end
  return ftoa(x, places)
end

-- A part of a chapter's full record (every counter; every configuration of a sweep that a chart
-- draws): collapsed in the HTML, moved to the PDF's appendix C by book/to-latex.lua.
local function record_block(c, kind, summary, blocks)
  local inner = pandoc.List({pandoc.RawBlock('html', '<details><summary>' .. summary .. '</summary>')})
  inner:extend(blocks)
  inner:insert(pandoc.RawBlock('html', '</details>'))
  return pandoc.Div(inner, pandoc.Attr(kind .. '-' .. c.nn, {'record'}, {{'chapter', c.nn .. '. ' .. c.title}, {'what', summary}}))
end

-- The results (the README's table), the host figures of a host-bound chapter, each GPU's context, then the chart.
local function results_section(c)
  local out = pandoc.List()
  if #c.results == 0 then
    return md_blocks('**Not measured yet.** On a machine with a GPU, `make results CHAPTERS=' .. c.nn ..
      '` measures this chapter and `make book` puts the numbers here.')
  end
  -- The chapter's one results table, as the README prints it (scripts/guide/render.py lays it
  -- out: a GPU column, each GPU's rows and roof); above it, each GPU's stale rows by their hash;
  -- each GPU's context goes to the full record.
  local contexts = pandoc.List()
  local header = map(c.results_table.columns, function(col) return (col:gsub('^%%', '\\%%')) end) -- a line that starts with % is a title block to Pandoc
  local function cell(text) return text == '-' and '—' or text end -- "-" alone would be a list
  local rows = map(c.results_table.lines, function(line) return map(line, cell) end)
  for _, g in ipairs(c.results) do
    -- The stale rows, grouped by the hash they were measured from. Set ragged right: a
    -- justified line of 12-digit hashes has few places to break and ran into the margin.
    local hashes, by_hash = group(g.rows, function(r) return r.stale and r.source_hash end, function(r) return r.variant end)
    if #hashes > 0 then
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
  out:insert(table_block(c.nn, 'Chapter ' .. c.number .. ' measured on ' .. words(map(c.results, function(g) return md_escape(g.name) end)) ..
    ': the median of the samples, their noise (bold above 5 %), the fastest sample, and the speedup over the naive program.',
    'LL', header, rows, {'results'}))
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
  local order, by = group(DATA.gpus, function(g) return verdicts[g.slug] and verdicts[g.slug].verdict end,
    function(g) return 'the ' .. md_escape(g.short) end)
  local t = {}
  for _, v in ipairs(order) do t[#t + 1] = '**' .. md_escape(v) .. '** on ' .. words(by[v]) end
  return #t > 0 and table.concat(t, '; ') or '*not measured yet*'
end

local function counter_name(ct)
  local unit = ct.unit or ''
  local name = md_escape(ct.plain)
  if unit ~= '' and not ({inst = 1, instructions = 1, byte = 1, ['%'] = 1})[unit] and not ct.plain:find(unit, 1, true) then
    name = name .. ' (' .. md_escape(unit) .. ')'
  end
  return name
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

local function seen_rows(c) -- the rows of every counter the claims read, each counter as its first claim reads it
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
      if v and v.speedup then said[#said + 1] = speedup_md(v.speedup, p.speedup) .. '× on the ' .. md_escape(g.short) .. ' (' .. verdict(v.verdict) .. ')' end
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
      local row = {k == 1 and counter_name(ct) or '', '`' .. prog .. '`'}
      for _, g in ipairs(DATA.gpus) do
        local v = ct.values[g.slug]
        row[#row + 1] = v and number_md(v[prog]) or '—'
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
    out:insert(table_block(c.nn, 'Chapter ' .. c.number .. ': the counters its claims read, on each GPU (' ..
      (#crow < seen_rows(c) and 'the first of them; ' or '') .. 'every counter recorded, under its tool\'s name, is in the ' ..
      'full record: the evidence appendix of the PDF, the collapsed section below in the HTML).',
      'LL', by_gpu({'Counter', 'Program'}), crow, {'claim-counters'}))
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
    local lines, first, indent = {}, g.first_line, math.huge
    for l in (g.code .. '\n'):gmatch('(.-)\n') do lines[#lines + 1] = l end
    while lines[1] and not lines[1]:match('%S') do table.remove(lines, 1); first = first + 1 end
    while lines[#lines] and not lines[#lines]:match('%S') do table.remove(lines) end
    for _, l in ipairs(lines) do if l:match('%S') then indent = math.min(indent, #l:match('^[ \t]*')) end end
    for k, l in ipairs(lines) do lines[k] = l:sub(indent + 1) end
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
    local out = claims_blocks(c)
    out:insert(record_block(c, 'evidence', 'The full record: every counter recorded for chapter ' .. c.number .. ', on every GPU',
      {generated_blocks(c.nn, record_markdown(g.markdown), 'evidence')}))
    return out
  end
  -- A sweep as `make readme` writes it; one of a single numeric knob is also drawn, after its table.
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
  local inl, out = pandoc.List(), pandoc.List()
  for _, x in ipairs(inl0) do
    if x.t == 'Str' and #inl > 0 and inl[#inl].t == 'Str' then inl[#inl] = pandoc.Str(inl[#inl].text .. x.text)
    else inl:insert(x) end
  end
  for k, x in ipairs(inl) do
    if x.t == 'Str' then
      local t = x.text:gsub('^(%p*)(%d[%d.,]*)x(%p*)$', function(a, num, b) if num ~= '0' then return a .. num .. '×' .. b end end)
      t = t:gsub('^(%p*%d[%d.,]*)us(%p*)$', '%1µs%2')
      local prev = inl[k - 1] and inl[k - 2]
      if t:match('^us%p*$') and inl[k - 1] and inl[k - 1].t == 'Space' and prev and prev.t == 'Str' and prev.text:match('%d$') then
        t = 'µs' .. t:sub(3)
      end
      local pre, mant, sign, exp, post = t:match('^(%p*)(%d%.?%d*)[eE]([+-]?)(%d+)(%p*)$')
      if mant then
        out:insert(pandoc.Str(pre .. mant .. NBSP .. '×' .. NBSP .. '10'))
        out:insert(pandoc.Superscript({pandoc.Str((sign == '-' and '\u{2212}' or '') .. tostring(tonumber(exp)))}))
        if post ~= '' then out:insert(pandoc.Str(post)) end
      else
        out:insert(pandoc.Str(t))
      end
    else
      out:insert(x)
    end
  end
  return out
end

-- Where each chapter points the reader: the guide section it follows (book.py's guide_url, from
-- book/guide-anchors.tsv), and its source files: each a page of the HTML edition (the .source-file
-- divs below, which book/html/site.py cuts out; book/to-latex.lua prints their paths instead), and
-- the folder at BOOK_SOURCE_URL (the repository's published tree, where one is configured).
local SOURCE_URL = (os.getenv('BOOK_SOURCE_URL') or ''):gsub('/+$', '')
local function source_id(c, file) return 'src-' .. c.nn .. '-' .. file:gsub('%W', '-') end
local function published(path) return SOURCE_URL ~= '' and (' ([published](' .. SOURCE_URL .. '/' .. path .. '))') or '' end
local function chapter_links(c)
  local guide = c.guide == 'BPG' and 'CUDA C++ Best Practices Guide, section' or ('Programming Guide, section ' .. c.guide)
  local files = map(c.sources, function(f) return '[`' .. f .. '`](#' .. source_id(c, f) .. '){.source-link}' end)
  local code = '`' .. c.folder .. '/`: ' .. table.concat(files, ', ') .. published(c.folder)
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
          published(path) .. '.')),
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
  local diagram = pictures[c.nn] and pictures[c.nn](c)
  local i, section = 2, 'the guideline' -- the README's "# NN. Title" is replaced by the heading above
  while i <= #src do
    local b, body = src[i], comment_of(src[i])
    local kind, args = (body or ''):match('^(%a+):?%s*(.-)$')
    if b.t == 'Table' and #b.caption.long == 0 then
      -- A table of the README's own: numbered, its caption the section and what its columns hold.
      local cols = map(b.head.rows[1] and b.head.rows[1].cells, function(cl) return stringify(cl.contents) end)
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
  return typeset(div).content
end

---------------------------------------------------------------------------------------------
-- The fenced divs of book/book.md

local function part_blocks(part)
  local list, out = {}, pandoc.List()
  for _, c in ipairs(DATA.chapters) do
    if c.part == part then list[#list + 1] = chapter_item(c.nn) end
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
  local header = {'GPU', 'CC', 'SMs', 'SM clock (MHz)', 'CUDA: driver / runtime', 'Chapters', 'Measured'}
  local rows = {}
  for _, g in ipairs(DATA.gpus) do
    local clock = g.sm_clock_mhz and {string.format('%d', g.sm_clock_mhz[1]), string.format('%d', g.sm_clock_mhz[2])}
    rows[#rows + 1] = {md_escape(g.name), join(g.cc), join(g.sms), range(clock), join(g.cuda),
                       tostring(#g.chapters), range(g.dates)}
  end
  return {table_block('', 'The GPUs measured, from their results files.', 'LLRRLRL', header, rows)}
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
      for _, w in ipairs({{'no flop count', 'no FP32 flop count (their programs move data and barely compute)'},
                          {'no byte count', 'no DRAM byte count'}}) do
        if why[w[1]] then left[#left + 1] = string.format('%d record %s', why[w[1]], w[2]) end
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
  local rows = {}
  for _, r in ipairs(DATA.summary) do
    local p = by_nn[r.nn].prediction
    local line = {chapter_ref(r.nn), p and string.format('%g–%g×', p.speedup[1], p.speedup[2]) or '—'}
    for _, g in ipairs(DATA.gpus) do
      local x = r.speedups[g.slug]
      line[#line + 1] = not x and '—' or (speedup_md(x.speedup, p and p.speedup) .. '×' .. (x.prediction and (', ' .. verdict(x.prediction)) or '') ..
        (x.stale and ' **STALE**' or ''))
    end
    rows[#rows + 1] = line
  end
  local out = pandoc.List({table_block('S', 'Speedup of the optimized program over the naive one (ratio of medians) ' ..
    'against the range its chapter predicted, and whether it fell inside that range.', 'L', by_gpu({'Chapter', 'Predicted'}), rows)})
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
  local function refs(list) return table.concat(map(list, chapter_ref), '; ') end
  for _, g in ipairs(DATA.guidelines.rows) do
    counts[g.status] = counts[g.status] + 1
    local where = #g.shown_in > 0 and refs(g.shown_in) or ('Not shown by a timing pair: ' .. g.why .. ' See ' .. refs(g.see) .. '.')
    rows[#rows + 1] = {g.id, g.guide, g.recommendation, where}
  end
  local out = md_blocks(string.format('The Programming Guide\'s performance chapter asks for an action in %d sentences. ' ..
    'Here is each of them in our own words, with the chapter that demonstrates it by a timing pair. Chapters that are not ' ..
    'written yet are marked *planned* (or *in progress* when their code exists without prose), so this index shows honestly ' ..
    'how much is covered today: %d recommendations are demonstrated by a written chapter, %d wait for a planned chapter, ' ..
    'and %d are not a matter of timing at all.', #rows, counts.written, counts.pending, counts.untimed))
  out:insert(table_block('A', 'The guide\'s recommendations and where this book demonstrates them.',
    'LLLL', {'\\#', 'Guide', 'Recommendation, in our words', 'Shown in'}, rows, {'guideline-index'}))
  local extra = map(DATA.guidelines.beyond, chapter_item)
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
  local where, hash, dirty, date = SOURCE_URL ~= '' and ('Its code lives at <' .. SOURCE_URL .. '>. ') or '', commit()
  return md_blocks(where .. string.format('This copy was built from commit `%s`%s of %s. It has %d of the %d planned chapters; ' ..
    'of the guide\'s %d recommendations, %d are demonstrated by a written chapter, %d wait for a planned one, and %d ' ..
    'are taught without a timing pair ([Appendix A](#guideline-index) says which and why).',
    hash, dirty, date, written, #DATA.chapters, #DATA.guidelines.rows, counts.written, counts.pending, counts.untimed))
end

local function reproduce_blocks()
  local out, runs = pandoc.List(), {}
  for _, c in ipairs(DATA.chapters) do
    local order, seen = group(c.status == 'written' and c.results or {}, function(g) return g.args end,
      function(g) return gpu_name(g.gpu) end)
    for _, args in ipairs(order) do
      runs[#runs + 1] = string.format("make chapter-%s ARGS='%s'   # %s", c.nn, args, table.concat(seen[args], ', '))
    end
  end
  if #runs > 0 then
    out:extend(md_blocks('Each chapter\'s numbers came from one run of its programs with these options:'))
    out:insert(pandoc.CodeBlock(table.concat(runs, '\n'), pandoc.Attr('', {'bash'})))
  end
  local hash, dirty = commit()
  local rows = {{'This book built from commit', '`' .. hash .. dirty .. '`'}, {'Pandoc', md_escape(tostring(PANDOC_VERSION))}}
  for _, t in ipairs({{'TeX engine', 'xelatex'}, {'gnuplot', 'gnuplot'}, {'rsvg-convert', 'rsvg-convert'}}) do
    rows[#rows + 1] = {t[1], md_escape(first_line(t[2] .. ' --version'))}
  end
  for _, g in ipairs(DATA.gpus) do
    rows[#rows + 1] = {md_escape(g.name) .. ' (`' .. g.file .. '`)', join(g.versions, '; ')}
  end
  out:insert(table_block('B', 'The versions behind this edition of the book.', 'LL', {'What', 'Version'}, rows))
  if #DATA.stale > 0 then
    local t = map(DATA.stale, function(r)
      return '- ' .. md_escape(r.file .. ':' .. r.line) .. ': chapter ' .. r.chapter .. ' ' .. md_escape(r.program) .. ' (' .. r.kind .. ')' end)
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
    if #v > 0 or next(v) == nil then return '[' .. table.concat(map(v, json_value), ',') .. ']' end
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

-- Appendix D: every exercise that turns a knob the chapter measured (a "--knob value" in its
-- Exercises), answered from the measurements at that setting (the sweep, or the default run):
-- each program's median time on each GPU and the speedup. Exercises asking for a setting no
-- measurement covers are named, unanswered.
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
      answers = answers:gsub('<!%-%-.-%-%->', ''):gsub('^#[^\n]*\n', ''):gsub('\n## Answers\n', '\n')
      out:extend(md_blocks('**' .. chapter_ref(c.nn) .. '.**'))
      out:extend(typeset(pandoc.Div(pandoc.read(answers, 'gfm+tex_math_dollars+smart').blocks)).content)
    end
    local ex = readme:match('\n## Exercises\n(.-)\n## ') or readme:match('\n## Exercises\n(.*)$') or ''
    -- the measured settings: {gpu short, knobs map, {variant -> median}}
    local runs = {}
    local function add(gpu, knobs, rows)
      local key = gpu .. '|' .. knobs
      if not runs[key] then runs[key] = {gpu = gpu_name(gpu), knobs = shell.knobs(knobs), med = {}}; runs[#runs + 1] = runs[key] end
      for _, r in ipairs(rows) do runs[key].med[r.variant] = runs[key].med[r.variant] or r.median_us end
    end
    for _, g in ipairs(c.results or {}) do add(g.gpu, g.knobs or '', g.rows) end
    for _, sw in ipairs(c.sweeps or {}) do
      local _, by = group(sw.rows, function(r) return r.knobs end, function(r) return r end)
      for knobs, rows in shell.spairs(by) do add(sw.gpu, knobs, rows) end
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
            rows[#rows + 1] = {c.number .. '.' .. num, setting, md_escape(r.gpu), a and number_md(a) or '—',
              b and number_md(b) or '—', (a and b) and (speedup_md(a / b) .. '×') or '—'}
          end
        end -- an option no measured run sets (a tool's, --size) is not a knob of the chapter
      end
    end
    if #rows > 0 then
      out:insert(table_block('D', 'Chapter ' .. c.number .. ' (' .. chapter_ref(c.nn) .. '): the settings its exercises ask for, measured: ' ..
        'median time in µs of each program and the optimized program\'s speedup.',
        'LLL', {'Exercise', 'Setting', 'GPU', 'naive µs', 'optimized µs', 'Speedup'}, rows))
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
  local out_dir = doc.meta['out-dir'] and stringify(doc.meta['out-dir']) or 'book/out'
  charts = dofile(DIR .. 'charts.lua')(out_dir .. '/charts', fail)
  pictures = dofile(DIR .. 'pictures.lua')({data = DATA, charts = charts, figure = figure_block, words = words, grouped = grouped, gpu_name = gpu_name})
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
  -- An option named in prose or in a claim ("at --spread 32") must not print as "–spread":
  -- pandoc's smart typography makes "--" an en dash, and an en dash that opens a word before a
  -- letter is always such an option, so it gets its two hyphens back (check_pdf.py units).
  blocks = pandoc.walk_block(pandoc.Div(blocks), {Str = function(s)
    local t, n = s.text:gsub('^([%(%[]?)\u{2013}(%a)', '%1--%2')
    if n > 0 then return pandoc.Str(t) end
  end}).content
  charts.flush()
  shell.write_file(out_dir .. '/figures.json', json_value(FIGURES) .. '\n', fail)
  check_links(blocks)
  for _, r in ipairs(DATA.stale) do
    io.stderr:write(string.format('book: warning: stale %s: %s:%s, chapter %s %s\n', r.kind, r.file, r.line, r.chapter, r.program))
  end
  local hash, _, date = commit()
  doc.meta.date = pandoc.MetaInlines(md_inlines('Built from commit `' .. hash .. '` of ' .. date))
  return pandoc.Pandoc(blocks, doc.meta)
end
