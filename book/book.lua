--[[ book/book.lua: assembles the book (Pandoc 2.17 Lua filter, run on book/book.md).

Fills the fenced divs of book/book.md:
  .gpus             the measured GPUs, from the results files
  .chapters part=P  the part's chapter list and every written chapter of the part: its README
                    with listings cut from the real sources by `// [NAME]` markers, the
                    naive/optimized diff, a results table per GPU and a chart
  .summary          speedup of every chapter per GPU (table and log-scale chart)
  .guideline-index  book/guideline-index.tsv, each recommendation mapped to its chapter
  .reproduce        commands and versions

Fails the build (error) on a missing file, marker, results row or cross-reference. Writes the
charts and a manifest (what book/check.sh verifies) under the metadata field out-dir.
Metadata: results-dir (default results), out-dir (default book/out). ]]

local stringify = pandoc.utils.stringify

local RESULTS, OUT, CHARTS
local VARIANTS = {'naive', 'optimized', 'library'}
local VARIANT_COLOR = {naive = '#d1603d', optimized = '#2a6fb0', library = '#8c8c8c'}
local GPU_COLORS = {'#2a6fb0', '#d1603d', '#3a9a5b', '#8e5bb5', '#c49a1b', '#4d4d4d'}
local CSV_COLUMNS = {'chapter', 'slug', 'variant', 'gpu', 'cc', 'sms', 'sm_clock_mhz', 'driver',
  'cuda', 'size', 'knobs', 'seed', 'method', 'samples', 'median_us', 'min_us', 'q1_us', 'q3_us',
  'noise_pct', 'gbs', 'gflops', 'roof_name', 'roof', 'pct_roof', 'check', 'max_err',
  'source_hash', 'commit', 'date'}

---------------------------------------------------------------------------------------------
-- Small helpers

-- A fault in the sources stops the build with one line naming the file (no Lua traceback).
local function fail(fmt, ...)
  io.stderr:write('book: error: ' .. string.format(fmt, ...) .. '\n')
  os.exit(3)
end
local function note(fmt, ...) io.stderr:write('book: note: ' .. string.format(fmt, ...) .. '\n') end

local function q(s) return "'" .. (s:gsub("'", "'\\''")) .. "'" end

local function sh(cmd)
  local p = io.popen(cmd)
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

local function write_file(path, s)
  local f = io.open(path, 'wb')
  if not f then fail('cannot write %s', path) end
  f:write(s)
  f:close()
end

local function exists(path) return select(2, sh('test -e ' .. q(path))) == 0 end
local function is_dir(path) return select(2, sh('test -d ' .. q(path))) == 0 end

local function lines_of(s)
  local t = {}
  if s == '' then return t end
  if s:sub(-1) ~= '\n' then s = s .. '\n' end
  for line in s:gmatch('(.-)\r?\n') do t[#t + 1] = line end
  return t
end

local function split(s, sep)
  local t = {}
  for f in (s .. sep):gmatch('(.-)' .. sep) do t[#t + 1] = f end
  return t
end

local function trim(s) return (s:gsub('^%s+', ''):gsub('%s+$', '')) end

local function ls(pattern) -- shell glob, byte order; nothing if no match
  local out = sh('for f in ' .. pattern .. '; do [ -e "$f" ] && printf "%s\\n" "$f"; done | LC_ALL=C sort')
  return lines_of(out)
end

-- Pandoc markdown snippets for generated prose. md_escape makes data safe inside them.
local function md_escape(s) return (s:gsub('([\\`*_{}%[%]()<>#+!|$~^@&%%])', '\\%1')) end
local function md_blocks(s) return pandoc.read(s, 'markdown').blocks end
local function md_inlines(s)
  local b = md_blocks(s)
  if #b == 0 then return pandoc.List() end
  if #b ~= 1 or (b[1].t ~= 'Para' and b[1].t ~= 'Plain') then fail('internal: not inline: %s', s) end
  return b[1].content
end
local function cell(s) return {pandoc.Plain(md_inlines(s))} end

local function ftoa(x, digits) return string.format('%.' .. (digits or 2) .. 'f', x) end
local function fmt1(text) local x = tonumber(text); return x and string.format('%.1f', x) or nil end

---------------------------------------------------------------------------------------------
-- Numbering of listings, tables and figures: "Listing 20.1" in chapter 20, "Table A.1" in
-- appendix A, "Table 1" in the front matter.

local counters = {}
local function number(kind, key)
  local k = kind .. ':' .. key
  counters[k] = (counters[k] or 0) + 1
  local n = counters[k]
  local shown = tonumber(key) and tostring(tonumber(key)) or key -- "Listing 1.2", not "01.2"
  local text = key ~= '' and (shown .. '.' .. n) or tostring(n)
  local id = ({Listing = 'lst', Table = 'tab', Figure = 'fig'})[kind] .. '-' ..
             (key ~= '' and (key .. '-') or '') .. n
  return kind .. ' ' .. text, id
end

local function table_block(key, caption, aligns, widths, header, rows, classes)
  local label, id = number('Table', key)
  local st = pandoc.SimpleTable(md_inlines('**' .. label .. ':** ' .. caption), aligns, widths,
                                header, rows)
  local t = pandoc.utils.from_simple_table(st)
  local cls = {'numbered-table'}
  for _, c in ipairs(classes or {}) do cls[#cls + 1] = c end
  return pandoc.Div({pandoc.RawBlock('latex', '\\needspace{8\\baselineskip}'), t}, pandoc.Attr(id, cls))
end

local function figure_block(key, caption, svg)
  local label, id = number('Figure', key)
  -- The title "fig:" makes a paragraph holding only this image a figure with a caption.
  local img = pandoc.Image(md_inlines('**' .. label .. ':** ' .. caption), svg, 'fig:',
                           pandoc.Attr(id, {}, {{'width', '100%'}}))
  return pandoc.Div({pandoc.Para({img})}, pandoc.Attr("", {"figure"}))
end

---------------------------------------------------------------------------------------------
-- The table of contents (book/chapters.tsv) and the chapters on disk

local toc, by_nn = {}, {}

local function load_toc()
  local text = read_file('book/chapters.tsv') or fail('book/chapters.tsv is missing')
  for i, line in ipairs(lines_of(text)) do
    if line ~= '' and not line:match('^#') then
      local f = split(line, '\t')
      if #f ~= 5 or not f[1]:match('^%d%d$') then
        fail('book/chapters.tsv:%d: expected nn, slug, part, guide, title separated by tabs', i)
      end
      local c = {nn = f[1], num = tonumber(f[1]), slug = f[2], part = f[3], guide = f[4],
                 title = f[5]}
      if by_nn[c.nn] then fail('book/chapters.tsv:%d: chapter %s twice', i, c.nn) end
      toc[#toc + 1], by_nn[c.nn] = c, c
    end
  end
end

local function source_hash(dir)
  -- The project's one definition of a chapter's source hash (the Makefile compiles the same in).
  local out, code = sh('python3 scripts/results.py hash ' .. q(dir) .. ' 2>&1')
  if code ~= 0 or not trim(out):match('^%x+$') then fail('cannot hash the sources of %s: %s', dir, trim(out)) end
  return trim(out)
end

local function find_chapters()
  for _, d in ipairs(ls('chapters/[0-9][0-9]-*/')) do
    d = d:gsub('/$', '')
    local nn, slug = d:match('^chapters/(%d%d)%-(.+)$')
    local c = by_nn[nn]
    if not c then fail('%s: chapter %s is not in book/chapters.tsv', d, nn) end
    if c.slug ~= slug then
      fail('%s: the table of contents names chapter %s "%s" (book/chapters.tsv)', d, nn, c.slug)
    end
    if c.dir then fail('two folders for chapter %s', nn) end
    c.dir = d
    c.hash = source_hash(d)
    c.readme = exists(d .. '/README.md') and (d .. '/README.md') or nil
  end
  for _, c in ipairs(toc) do
    c.status = c.readme and 'written' or (c.dir and 'in progress' or 'planned')
  end
end

---------------------------------------------------------------------------------------------
-- Results: RESULTS/<gpu-slug>.csv

local gpus = {}        -- list of {slug, path, name, rows, by_chapter = {nn = {variant = row}}}
local stale_rows = {}  -- every stale row, for the manifest

local function parse_csv(text, path)
  local records, row, field, inq, line, start = {}, {}, {}, false, 1, 1
  local i, n = 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if inq then
      if c == '"' then
        if text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1 else inq = false end
      else
        if c == '\n' then line = line + 1 end
        field[#field + 1] = c
      end
    elseif c == '"' then inq = true
    elseif c == ',' then row[#row + 1] = table.concat(field); field = {}
    elseif c == '\n' then
      row[#row + 1] = table.concat(field); field = {}
      if not (#row == 1 and row[1] == '') then records[#records + 1] = {fields = row, line = start} end
      row, line = {}, line + 1
      start = line
    elseif c ~= '\r' then field[#field + 1] = c end
    i = i + 1
  end
  if inq then fail('%s:%d: a quoted field is not closed', path, start) end
  if #field > 0 or #row > 0 then
    row[#row + 1] = table.concat(field)
    records[#records + 1] = {fields = row, line = start}
  end
  return records
end

local function load_results()
  for _, path in ipairs(ls(q(RESULTS) .. '/*.csv')) do
    local slug = path:match('([^/]+)%.csv$')
    local recs = parse_csv(read_file(path) or fail('cannot read %s', path), path)
    if #recs == 0 then fail('%s is empty (it needs at least the header)', path) end
    local header, col = recs[1].fields, {}
    for i, name in ipairs(header) do col[trim(name)] = i end
    for _, name in ipairs(CSV_COLUMNS) do
      if not col[name] then fail('%s: the header has no column "%s"', path, name) end
    end
    local g = {slug = slug, path = path, rows = {}, by_chapter = {}}
    for r = 2, #recs do
      local f, where = recs[r].fields, path .. ':' .. recs[r].line
      if #f ~= #header then fail('%s: %d fields, the header has %d', where, #f, #header) end
      local row = {where = where, gpu_slug = slug}
      for name, i in pairs(col) do row[name] = f[i] end
      local nn = string.format('%02d', tonumber(row.chapter) or -1)
      local c = by_nn[nn]
      if not c then fail('%s: chapter "%s" is not in the table of contents', where, row.chapter) end
      if row.slug ~= c.slug then fail('%s: chapter %s is "%s", not "%s"', where, nn, c.slug, row.slug) end
      if not VARIANT_COLOR[row.variant] then fail('%s: unknown variant "%s"', where, row.variant) end
      if not c.dir then fail('%s: results for chapter %s, but %s does not exist', where, nn, 'chapters/' .. nn .. '-' .. c.slug) end
      if row.gpu == '' then fail('%s: the gpu field is empty', where) end
      if g.name and g.name ~= row.gpu then fail('%s: GPU "%s" in a file of "%s"', where, row.gpu, g.name) end
      g.name = row.gpu
      if row.check ~= 'pass' and row.check ~= 'fail' then fail('%s: check is "%s", not pass or fail', where, row.check) end
      row.median = tonumber(row.median_us)
      if row.check == 'pass' and not row.median then fail('%s: a passing row without median_us', where) end
      row.nn = nn
      row.stale = row.source_hash ~= c.hash
      if row.stale then stale_rows[#stale_rows + 1] = row end
      g.by_chapter[nn] = g.by_chapter[nn] or {}
      local prev = g.by_chapter[nn][row.variant]
      if prev then fail('%s: a second row for chapter %s %s (the first is %s)', where, nn, row.variant, prev.where) end
      g.by_chapter[nn][row.variant] = row
      g.rows[#g.rows + 1] = row
    end
    g.name = g.name or slug
    g.short = g.name:gsub('^NVIDIA ', '')
    -- Every program of a measured chapter must have its row, and all at one size.
    for nn, rows in pairs(g.by_chapter) do
      local c = by_nn[nn]
      for _, v in ipairs(VARIANTS) do
        if exists(c.dir .. '/' .. v .. '.cu') and not rows[v] then
          fail('%s: chapter %s has rows but none for %s (%s/%s.cu exists): missing results row', path, nn, v, c.dir, v)
        end
      end
      local ref
      for _, v in ipairs(VARIANTS) do
        local r = rows[v]
        if r then
          ref = ref or r
          if r.size ~= ref.size or r.knobs ~= ref.knobs then
            local function at(x) return 'size ' .. x.size .. (x.knobs ~= '' and (' (' .. x.knobs .. ')') or '') end
            fail('%s: chapter %s: %s was measured at %s, %s at %s; the speedup needs one problem', path, nn, ref.variant, at(ref), v, at(r))
          end
        end
      end
    end
    gpus[#gpus + 1] = g
  end
end

local function speedup(rows, row)
  local base = rows.naive
  if not (base and base.median and row.median and row.median > 0) then return nil end
  return base.median / row.median
end

---------------------------------------------------------------------------------------------
-- Charts (gnuplot -> SVG for HTML and EPUB, rsvg-convert -> PDF for LaTeX)

local function gq(s) return "'" .. s:gsub("'", "''") .. "'" end
local function rgb_int(hex) return tonumber(hex:sub(2), 16) end

local function render_chart(name, script)
  local gp, svg, pdf = CHARTS .. '/' .. name .. '.gp', CHARTS .. '/' .. name .. '.svg', CHARTS .. '/' .. name .. '.pdf'
  script = 'set terminal svg size 680,340 font "DejaVu Sans,12" background rgb "white"\n' ..
           'set output ' .. gq(svg) .. '\n' .. script
  if read_file(gp) == script and exists(svg) and exists(pdf) then return svg end
  write_file(gp, script)
  local out, code = sh('gnuplot ' .. q(gp) .. ' 2>&1')
  if code ~= 0 or out:match('%S') then fail('gnuplot failed on %s:\n%s', gp, out) end
  out, code = sh('rsvg-convert -f pdf -o ' .. q(pdf) .. ' ' .. q(svg) .. ' 2>&1')
  if code ~= 0 then fail('rsvg-convert failed on %s:\n%s', svg, out) end
  return svg
end

local COMMON_STYLE = [[
set encoding utf8
set termoption noenhanced
set border 3 lc rgb '#555555'
set tics nomirror
set xtics scale 0
set grid ytics lc rgb '#e3e3e3' lt 1
set style fill solid 0.9 noborder
set key top left horizontal samplen 1.5 spacing 1.1 box lc rgb '#ffffff' opaque
]]

-- One chapter: bars per variant, clustered by GPU, with each GPU's roof as a dashed line.
local function chapter_chart(c, measured, metric)
  local present = {}
  for _, v in ipairs(VARIANTS) do
    for _, g in ipairs(measured) do if g.by_chapter[c.nn][v] then present[#present + 1] = v; break end end
  end
  local bars, labels, roofs, xt = {}, {}, {}, {}
  local ymax, stride = 0, #present + 1
  local values = {}
  for gi, g in ipairs(measured) do
    local rows = g.by_chapter[c.nn]
    local x0 = (gi - 1) * stride
    local roof_sum, roof_n = 0, 0
    for vi, v in ipairs(present) do
      local r, x = rows[v], x0 + vi - 1
      local y = r and tonumber(r[metric.col])
      if r and tonumber(r.roof) then roof_sum, roof_n = roof_sum + tonumber(r.roof), roof_n + 1 end
      if y then
        values[#values + 1] = {x = x, y = y, color = VARIANT_COLOR[v]}
        ymax = math.max(ymax, y)
      elseif r then
        labels[#labels + 1] = {x = x, y = 0, text = r.check == 'fail' and 'FAIL' or 'n/a'}
      end
    end
    if metric.roof and roof_n > 0 then
      local roof = roof_sum / roof_n
      roofs[#roofs + 1] = {x1 = x0 - 0.5, x2 = x0 + #present - 0.5, y = roof}
      ymax = math.max(ymax, roof)
    end
    xt[#xt + 1] = gq(g.short) .. ' ' .. ftoa(x0 + (#present - 1) / 2, 2)
  end
  ymax = ymax > 0 and ymax * 1.18 or 1
  local data = {'$bars << EOD'}
  for _, b in ipairs(values) do
    data[#data + 1] = string.format('%.3f %.6g %.3f %.3f 0 %.6g %d', b.x, b.y, b.x - 0.4, b.x + 0.4, b.y, rgb_int(b.color))
    local digits = b.y >= 100 and 0 or (b.y >= 10 and 1 or 2)
    labels[#labels + 1] = {x = b.x, y = b.y + ymax * 0.025, text = ftoa(b.y, digits)}
  end
  data[#data + 1] = 'EOD'
  data[#data + 1] = '$labels << EOD'
  for _, l in ipairs(labels) do data[#data + 1] = string.format('%.3f %.6g "%s"', l.x, l.y, l.text) end
  data[#data + 1] = 'EOD'
  data[#data + 1] = '$roofs << EOD'
  for _, r in ipairs(roofs) do data[#data + 1] = string.format('%.3f %.6g %.3f 0', r.x1, r.y, r.x2 - r.x1) end
  if #roofs == 0 then data[#data + 1] = 'NaN NaN NaN NaN' end
  data[#data + 1] = 'EOD'
  local plot = {"$bars using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle",
                "$labels using 1:2:3 with labels font ',11' offset 0,0.3 notitle"}
  if #roofs > 0 then
    plot[#plot + 1] = "$roofs using 1:2:3:4 with vectors nohead dt 2 lw 2 lc rgb '#333333' title " .. gq(metric.roof_title)
  end
  for _, v in ipairs(present) do
    plot[#plot + 1] = 'keyentry with boxes fc rgb ' .. gq(VARIANT_COLOR[v]) .. ' title ' .. gq(v)
  end
  local script = COMMON_STYLE .. table.concat(data, '\n') .. '\n' ..
    'set ylabel ' .. gq(metric.axis) .. '\n' ..
    string.format('set xrange [-0.8:%.2f]\nset yrange [0:%.6g]\n', #measured * stride - 1.2, ymax) ..
    'set xtics (' .. table.concat(xt, ', ') .. ')\n' ..
    'plot ' .. table.concat(plot, ', \\\n     ') .. '\n'
  return render_chart('ch' .. c.nn, script)
end

-- The summary: speedup of optimized over naive, per chapter and GPU, on a log scale.
local function summary_chart(entries, measured)
  local ng = #measured
  local w = 0.8 / ng
  local data, labels, xt = {'$bars << EOD'}, {'$labels << EOD'}, {}
  local lo, hi = 1, 1
  for i, e in ipairs(entries) do
    xt[#xt + 1] = gq(e.c.nn) .. ' ' .. (i - 1)
    for gi, g in ipairs(measured) do
      local s = e.speedups[gi]
      if s then
        local x = (i - 1) - 0.4 + w * (gi - 0.5)
        data[#data + 1] = string.format('%.4f %.6g %.4f %.4f %.6g %.6g %d', x, s, x - w * 0.45, x + w * 0.45,
                                        math.min(1, s), math.max(1, s), rgb_int(GPU_COLORS[(gi - 1) % #GPU_COLORS + 1]))
        labels[#labels + 1] = string.format('%.4f %.6g "%s"', x, s >= 1 and s * 1.12 or s / 1.12, ftoa(s, s >= 10 and 0 or 1))
        lo, hi = math.min(lo, s), math.max(hi, s)
      end
    end
  end
  data[#data + 1], labels[#labels + 1] = 'EOD', 'EOD'
  local plot = {"$bars using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle",
                "$labels using 1:2:3 with labels font ',10' notitle",
                "1 with lines dt 2 lc rgb '#333333' notitle"}
  for gi, g in ipairs(measured) do
    plot[#plot + 1] = 'keyentry with boxes fc rgb ' .. gq(GPU_COLORS[(gi - 1) % #GPU_COLORS + 1]) .. ' title ' .. gq(g.short)
  end
  local script = COMMON_STYLE .. table.concat(data, '\n') .. '\n' .. table.concat(labels, '\n') .. '\n' ..
    'set logscale y\nset ylabel \'speedup over naive (log scale)\'\nset xlabel \'chapter\'\n' ..
    'set ytics (\'0.1\' 0.1, \'0.2\' 0.2, \'0.5\' 0.5, \'1\' 1, \'2\' 2, \'5\' 5, \'10\' 10, \'20\' 20, \'50\' 50, \'100\' 100, \'200\' 200, \'500\' 500, \'1000\' 1000)\n' ..
    string.format('set xrange [-0.7:%.2f]\nset yrange [%.6g:%.6g]\n', #entries - 0.3, math.min(0.5, lo / 1.6), math.max(2, hi * 1.8)) ..
    'set xtics (' .. table.concat(xt, ', ') .. ')\n' ..
    'plot ' .. table.concat(plot, ', \\\n     ') .. '\n'
  return render_chart('summary', script)
end

---------------------------------------------------------------------------------------------
-- A chapter's results section

local function metric_of(c, measured)
  local has = {gbs = false, gflops = false}
  for _, g in ipairs(measured) do
    for _, r in pairs(g.by_chapter[c.nn]) do
      if r.gbs ~= '' then has.gbs = true end
      if r.gflops ~= '' then has.gflops = true end
    end
  end
  if has.gflops and not has.gbs then
    return {col = 'gflops', head = 'GFLOP/s', axis = 'GFLOP/s (higher is better)', roof = true, roof_title = 'FP32 peak'}
  elseif has.gbs then
    return {col = 'gbs', head = 'GB/s', axis = 'GB/s (higher is better)', roof = true, roof_title = 'copy roof'}
  end
  return {col = 'median_us', head = nil, axis = 'median time in µs (lower is better)', roof = false}
end

local function describe_context(g, rows)
  local r0
  for _, v in ipairs(VARIANTS) do r0 = r0 or rows[v] end
  local parts = {}
  parts[#parts + 1] = string.format('%s, compute capability %s, %s SMs, SM clock %s MHz measured during the run; ' ..
    'driver for CUDA %s, CUDA runtime %s.', md_escape(g.name), md_escape(r0.cc), md_escape(r0.sms),
    md_escape(r0.sm_clock_mhz ~= '' and r0.sm_clock_mhz or 'not'), md_escape(r0.driver), md_escape(r0.cuda))
  local sizes = 'Problem size ' .. md_escape(r0.size)
  if r0.knobs ~= '' then sizes = sizes .. ' (' .. md_escape(r0.knobs:gsub(';', ', ')) .. ')' end
  parts[#parts + 1] = sizes .. ', seed ' .. md_escape(r0.seed) .. '.'
  -- "Timing: CUDA events, L2 flushed before each sample (naive 460 samples, optimized 210)."
  local methods, order = {}, {}
  for _, v in ipairs(VARIANTS) do
    local r = rows[v]
    if r then
      if not methods[r.method] then methods[r.method] = {}; order[#order + 1] = r.method end
      table.insert(methods[r.method], v .. ' ' .. r.samples)
    end
  end
  local ms = {}
  for _, m in ipairs(order) do ms[#ms + 1] = md_escape(m) .. ' (' .. table.concat(methods[m], ', ') .. ' samples)' end
  parts[#parts + 1] = 'Timing: ' .. table.concat(ms, '; ') .. '.'
  local roofs = {}
  for _, v in ipairs(VARIANTS) do
    local r = rows[v]
    if r and r.roof ~= '' then roofs[#roofs + 1] = tonumber(r.roof) end
  end
  if #roofs > 0 then
    table.sort(roofs)
    local name = r0.roof_name == 'copy' and 'device-to-device copy roof' or (r0.roof_name == 'fp32' and 'FP32 peak' or md_escape(r0.roof_name) .. ' roof')
    local unit = r0.roof_name == 'fp32' and 'GFLOP/s' or 'GB/s'
    local range = roofs[1] == roofs[#roofs] and ftoa(roofs[1], 1) or (ftoa(roofs[1], 1) .. ' to ' .. ftoa(roofs[#roofs], 1))
    parts[#parts + 1] = string.format('The %s was %s %s in these runs.', name, range, unit)
  end
  local dates, commits = {}, {}
  for _, v in ipairs(VARIANTS) do
    local r = rows[v]
    if r then
      if r.date ~= '' then dates[r.date:sub(1, 10)] = true end
      if r.commit ~= '' then commits[r.commit] = true end
    end
  end
  local function keys(t) local k = {}; for x in pairs(t) do k[#k + 1] = md_escape(x) end; table.sort(k); return table.concat(k, ', ') end
  if next(dates) then parts[#parts + 1] = 'Measured ' .. keys(dates) .. '.' end
  if next(commits) then parts[#parts + 1] = 'Commit ' .. keys(commits) .. '.' end
  return table.concat(parts, ' ')
end

local manifest = {}
local function manifest_add(...) manifest[#manifest + 1] = table.concat({...}, '\t') end

local function results_section(c)
  local blocks = pandoc.List()
  local measured, missing = {}, {}
  for _, g in ipairs(gpus) do
    if g.by_chapter[c.nn] then measured[#measured + 1] = g else missing[#missing + 1] = md_escape(g.name) end
  end
  if #measured == 0 then
    blocks:extend(md_blocks('**Not measured yet.** ' .. (#gpus == 0 and 'There are no results files yet.' or
      ('None of the results files (' .. table.concat(missing, ', ') .. ') has this chapter.')) ..
      ' On a machine with a GPU, `make results CHAPTERS=' .. c.nn .. '` measures it and `make book` puts the numbers here.'))
    manifest_add('unmeasured', c.nn)
    return blocks
  end
  local metric = metric_of(c, measured)
  for _, g in ipairs(measured) do
    local rows = g.by_chapter[c.nn]
    local stale = {}
    for _, v in ipairs(VARIANTS) do if rows[v] and rows[v].stale then stale[#stale + 1] = v .. ' (' .. rows[v].source_hash .. ')' end end
    if #stale > 0 then
      blocks:extend(md_blocks(string.format('**STALE:** on %s, %s %s measured from other sources than the ones in this book (their hash is now %s). ' ..
        'Measure again with `make results CHAPTERS=%s`.', md_escape(g.name), md_escape(table.concat(stale, ', ')),
        #stale == 1 and 'was' or 'were', c.hash, c.nn)))
    end
    local header = {{pandoc.Plain({pandoc.Str('Variant')})}, cell('Median (µs)'), cell('Noise (%)')}
    local aligns = {'AlignLeft', 'AlignRight', 'AlignRight'}
    if metric.head then
      header[#header + 1] = cell(metric.head); aligns[#aligns + 1] = 'AlignRight'
      header[#header + 1] = cell('\\% of roof'); aligns[#aligns + 1] = 'AlignRight'
    end
    header[#header + 1] = cell('Speedup'); aligns[#aligns + 1] = 'AlignRight'
    header[#header + 1] = cell('Check'); aligns[#aligns + 1] = 'AlignLeft'
    local body = {}
    for _, v in ipairs(VARIANTS) do
      local r = rows[v]
      if r then
        local name = v == 'library' and 'library (bar)' or v
        if r.stale then name = name .. ' **STALE**' end
        -- One decimal everywhere, as in the README tables of `make readme` (scripts/results.py).
        local median, noise, rate, pct = fmt1(r.median_us), fmt1(r.noise_pct), fmt1(r[metric.col]), fmt1(r.pct_roof)
        local noise_cell = noise or '—'
        if tonumber(r.noise_pct) and tonumber(r.noise_pct) > 5 then noise_cell = '**' .. noise_cell .. '**' end
        local s = speedup(rows, r)
        local line = {cell(name), cell(median or '—'), cell(noise_cell)}
        if metric.head then
          line[#line + 1] = cell(rate or '—')
          line[#line + 1] = cell(pct or '—')
        end
        line[#line + 1] = cell(s and (ftoa(s, 2) .. '×') or '—')
        line[#line + 1] = cell(r.check == 'pass' and 'pass' or '**FAIL**')
        body[#body + 1] = line
        manifest_add('row', c.nn, g.slug, v, median or '', noise or '', metric.head and rate or '',
                     metric.head and pct or '', s and ftoa(s, 2) or '', r.stale and 'stale' or 'fresh')
      end
    end
    local widths = {}
    for i = 1, #header do widths[i] = 0 end
    local caption = 'Chapter ' .. c.num .. ' measured on ' .. md_escape(g.name) .. ' (median of the samples).'
    local tbl = table_block(c.nn, caption, aligns, widths, header, body, {'results'})
    blocks:insert(tbl)
    local ctx = md_blocks(describe_context(g, rows))
    table.insert(ctx, 1, pandoc.RawBlock('latex', '\\begingroup\\small'))
    table.insert(ctx, pandoc.RawBlock('latex', '\\par\\endgroup'))
    blocks:insert(pandoc.Div(ctx, pandoc.Attr('', {'results-context'})))
  end
  if #missing > 0 then
    blocks:extend(md_blocks('Not measured yet on ' .. table.concat(missing, ', ') .. '.'))
  end
  local svg = chapter_chart(c, measured, metric)
  local what = metric.head and (metric.head .. ' of each program on each GPU; the dashed line is the GPU\'s ' ..
    (metric.col == 'gflops' and 'FP32 peak' or 'measured copy roof') .. '.') or 'Median time of each program on each GPU (lower is better).'
  blocks:insert(figure_block(c.nn, 'Chapter ' .. c.num .. ': ' .. what, svg))
  return blocks
end

---------------------------------------------------------------------------------------------
-- A chapter: its README with the generated blocks replaced

local function extract_marker(c, file, marker, where)
  local path = c.dir .. '/' .. file
  local text = read_file(path)
  if not text or is_dir(path) then fail('%s: %s does not exist', where, path) end
  local lines = lines_of(text)
  if marker == '' then return lines, 1 end
  local tag = '// [' .. marker .. ']'
  local at = {}
  for i, l in ipairs(lines) do if trim(l) == tag then at[#at + 1] = i end end
  if #at == 0 then fail('%s: marker "%s" not found in %s', where, tag, path) end
  if #at ~= 2 then fail('%s: marker "%s" appears %d times in %s; it must open and close one region', where, tag, #at, path) end
  local body = {}
  for i = at[1] + 1, at[2] - 1 do body[#body + 1] = lines[i] end
  -- Drop blank lines at both ends, then the common indentation.
  local first = at[1] + 1
  while #body > 0 and trim(body[1]) == '' do table.remove(body, 1); first = first + 1 end
  while #body > 0 and trim(body[#body]) == '' do table.remove(body) end
  if #body == 0 then fail('%s: the region "%s" in %s is empty', where, tag, path) end
  local indent
  for _, l in ipairs(body) do
    if trim(l) ~= '' then
      local ws = l:match('^[ \t]*')
      if not indent or #ws < #indent then indent = ws end
    end
  end
  for i, l in ipairs(body) do body[i] = l:sub(#indent + 1) end
  return body, first
end

local function lang_of(file)
  if file:match('%.cu$') or file:match('%.h$') or file:match('%.cuh$') then return 'cpp' end
  if file:match('%.c$') then return 'c' end
  if file:match('%.mk$') or file:match('Makefile') then return 'makefile' end
  if file:match('%.sh$') then return 'bash' end
  return nil
end

-- LaTeX: keep a caption with the first lines of its code; colour a diff's removed lines red and
-- added lines green (the diff syntax marks them as String and Variable tokens).
local LATEX_KEEP = pandoc.RawBlock('latex', '\\needspace{6\\baselineskip}')
local LATEX_DIFF_BEGIN = pandoc.RawBlock('latex', '\\begingroup' ..
  '\\renewcommand{\\StringTok}[1]{\\textcolor[rgb]{0.70,0.10,0.10}{#1}}' ..
  '\\renewcommand{\\VariableTok}[1]{\\textcolor[rgb]{0.10,0.45,0.10}{#1}}')
local LATEX_DIFF_END = pandoc.RawBlock('latex', '\\endgroup')

local function listing_block(c, caption, code, classes, attrs, meta)
  local label, id = number('Listing', c.nn)
  local cap = pandoc.Div({pandoc.Para(md_inlines('**' .. label .. ':** ' .. caption))}, pandoc.Attr('', {'listing-caption'}))
  local cb = pandoc.CodeBlock(code, pandoc.Attr('', classes, attrs))
  manifest_add('listing', c.nn, id, meta, tostring(#lines_of(code)))
  local is_diff = classes[1] == 'diff'
  local content = {LATEX_KEEP, cap}
  if is_diff then content[#content + 1] = LATEX_DIFF_BEGIN end
  content[#content + 1] = cb
  if is_diff then content[#content + 1] = LATEX_DIFF_END end
  return pandoc.Div(content, pandoc.Attr(id, is_diff and {'listing', 'diff-listing'} or {'listing'}))
end

local function make_listing(c, file, marker, where)
  local body, first = extract_marker(c, file, marker, where)
  local lang = lang_of(file)
  local classes = {'numberLines'}
  if lang then table.insert(classes, 1, lang) end
  local caption = '`' .. file .. '`' .. (marker ~= '' and (' (' .. md_escape(marker) .. ')') or '')
  return listing_block(c, caption, table.concat(body, '\n'), classes, {{'startFrom', tostring(first)}}, file .. ':' .. marker)
end

local function make_diff(c, a, b, where)
  for _, f in ipairs({a, b}) do
    if not exists(c.dir .. '/' .. f) then fail('%s: %s/%s does not exist', where, c.dir, f) end
  end
  -- Two lines of context, as in the README copy that `make readme` writes.
  local out, code = sh('cd ' .. q(c.dir) .. ' && diff -U2 --label ' .. q(a) .. ' --label ' .. q(b) .. ' ' .. q(a) .. ' ' .. q(b))
  if code == 0 then fail('%s: %s and %s are identical; there is nothing to show', where, a, b) end
  if code ~= 1 then fail('%s: diff %s %s failed', where, a, b) end
  out = out:gsub('\n$', '')
  return listing_block(c, 'What changed: `diff -U2 ' .. a .. ' ' .. b .. '`', out, {'diff'}, {}, 'diff:' .. a .. ':' .. b)
end

local function resolve(base, path) -- a relative path from base directory, normalized
  local parts = {}
  local full = path:sub(1, 1) == '/' and path:sub(2) or (base .. '/' .. path)
  for p in full:gmatch('[^/]+') do
    if p == '..' then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif p ~= '.' then parts[#parts + 1] = p end
  end
  return table.concat(parts, '/')
end

local function fix_links(c, blocks, where)
  local prefix = 'ch' .. c.nn .. '-'
  return pandoc.walk_block(pandoc.Div(blocks), {
    Link = function(l)
      local t = l.target
      if t:match('^%a[%w+.-]*:') then return nil end -- http:, https:, mailto:
      if t:sub(1, 1) == '#' then l.target = '#' .. prefix .. t:sub(2); return l end
      local path, frag = t:match('^([^#]*)#?(.*)$')
      local p = resolve(c.dir, path)
      if not p or not exists(p) then fail('%s: the link "%s" points to %s, which does not exist', where, t, p or path) end
      local nn = p:match('^chapters/(%d%d)%-[^/]+$') or p:match('^chapters/(%d%d)%-[^/]+/README%.md$')
      if nn then
        local target = by_nn[nn]
        if not target or not target.readme then fail('%s: the link "%s" points to chapter %s, which has no README.md', where, t, nn) end
        l.target = frag ~= '' and ('#ch' .. nn .. '-' .. frag) or ('#ch-' .. nn)
        return l
      end
      -- A file of the repository: the book shows the text; the reader finds it by name.
      return pandoc.Span(l.content, pandoc.Attr('', {'repo-file'}, {{'title', p}}))
    end,
    Image = function(img)
      if img.src:match('^%a[%w+.-]*:') then return nil end
      local p = resolve(c.dir, img.src)
      if not p or not exists(p) then fail('%s: the image "%s" does not exist', where, img.src) end
      img.src = p
      return img
    end,
  }).content
end

local function is_comment(b) return b.t == 'RawBlock' and b.format == 'html' and b.text:match('^%s*<!%-%-') end

local function chapter_blocks(c)
  local where = c.readme
  local text = read_file(c.readme)
  local doc = pandoc.read(text, 'gfm+tex_math_dollars')
  local src, out = doc.blocks, pandoc.List()
  -- The title: "# NN. Title" first.
  local h = src[1]
  if not h or h.t ~= 'Header' or h.level ~= 1 then fail('%s: must start with "# %s. Title"', where, c.nn) end
  local title = stringify(h.content)
  if not title:match('^' .. c.nn .. '%. %S') then fail('%s: the title "%s" must start with "%s. "', where, title, c.nn) end
  c.title = title:gsub('^%d%d%. ', '')
  out:insert(pandoc.Header(2, h.content, pandoc.Attr('ch-' .. c.nn, {'chapter'})))
  manifest_add('chapter', c.nn, title)
  local seen = {listing = 0, diff = 0, results = 0}
  local i = 2
  while i <= #src do
    local b = src[i]
    if b.t == 'Header' then
      if b.level == 1 then fail('%s: a second level-1 heading "%s"; sections use ##', where, stringify(b.content)) end
      b.level = math.min(b.level + 1, 6)
      b.identifier = 'ch' .. c.nn .. '-' .. b.identifier
      out:extend(fix_links(c, {b}, where))
      i = i + 1
    elseif is_comment(b) then
      local body = b.text:match('^%s*<!%-%-%s*(.-)%s*%-%->%s*$')
      if not body then fail('%s: an HTML comment shares its block with other HTML: %s', where, b.text) end
      local kind, args = body:match('^(%a+):%s*(.*)$')
      if not kind then kind, args = body:match('^(results)$'), '' end
      if kind == 'listing' or kind == 'diff' or kind == 'results' then
        -- Skip the copy `make readme` put there, up to the closing comment.
        local j = i + 1
        while j <= #src and not (is_comment(src[j]) and src[j].text:match('^%s*<!%-%-%s*/' .. kind .. '%s*%-%->%s*$')) do
          local other = is_comment(src[j]) and src[j].text:match('^%s*<!%-%-%s*(%a+)')
          if other == 'listing' or other == 'diff' or other == 'results' then
            fail('%s: <!-- %s --> is not closed by <!-- /%s --> before the next <!-- %s -->', where, body, kind, other)
          end
          j = j + 1
        end
        if j > #src then fail('%s: <!-- %s --> has no closing <!-- /%s -->', where, body, kind) end
        local a = split(trim(args), ' ')
        local words = {}
        for _, w in ipairs(a) do if w ~= '' then words[#words + 1] = w end end
        if kind == 'listing' then
          if #words < 1 or #words > 2 then fail('%s: expected <!-- listing: FILE [MARKER] -->, got <!-- %s -->', where, body) end
          out:insert(make_listing(c, words[1], words[2] or '', where))
        elseif kind == 'diff' then
          if #words ~= 2 then fail('%s: expected <!-- diff: A B -->, got <!-- %s -->', where, body) end
          out:insert(make_diff(c, words[1], words[2], where))
        else
          out:extend(results_section(c))
        end
        seen[kind] = seen[kind] + 1
        i = j + 1
      else
        i = i + 1 -- any other comment (TODO notes) is dropped
      end
    else
      out:extend(fix_links(c, {b}, where))
      i = i + 1
    end
  end
  if seen.listing == 0 then fail('%s: no <!-- listing: FILE MARKER --> block; the chapter must show its code', where) end
  if seen.diff == 0 then fail('%s: no <!-- diff: naive.cu optimized.cu --> block', where) end
  if seen.results ~= 1 then fail('%s: needs exactly one <!-- results --> block (found %d)', where, seen.results) end
  -- LaTeX: a heading directly above a listing or table moves to the next page with it.
  local kept = pandoc.List()
  for k, b in ipairs(out) do
    local nxt = out[k + 1]
    if b.t == 'Header' and nxt and nxt.t == 'Div' and
       (nxt.classes:includes('listing') or nxt.classes:includes('numbered-table')) then
      kept:insert(pandoc.RawBlock('latex', '\\needspace{12\\baselineskip}'))
    end
    kept:insert(b)
  end
  out = kept
  -- Drop inline comments and stray directive-looking inline HTML.
  out = pandoc.walk_block(pandoc.Div(out), {
    RawInline = function(r)
      if r.format == 'html' and r.text:match('^<!%-%-') then
        local w = r.text:match('^<!%-%-%s*/?(%a+)')
        if w == 'listing' or w == 'diff' or w == 'results' then fail('%s: %s must be on a line of its own', where, r.text) end
        return {}
      end
    end,
  }).content
  return out
end

---------------------------------------------------------------------------------------------
-- The fenced divs of book/book.md

local function chapter_ref(nn)
  local c = by_nn[nn] or fail('reference to chapter %s, which is not in book/chapters.tsv', nn)
  if c.status == 'written' then return '[' .. nn .. '\\. ' .. md_escape(c.title) .. '](#ch-' .. nn .. ')' end
  return nn .. '\\. ' .. md_escape(c.title) .. ' (' .. c.status .. ')'
end

local function part_blocks(part)
  local out, list = pandoc.List(), {}
  for _, c in ipairs(toc) do
    if c.part == part then
      local guide = c.guide == 'BPG' and 'Best Practices Guide' or ('guide ' .. c.guide)
      list[#list + 1] = '- ' .. chapter_ref(c.nn) .. ', ' .. guide
    end
  end
  if #list == 0 then fail('part %s has no chapters in book/chapters.tsv', part) end
  out:extend(md_blocks('Chapters of this part:\n\n' .. table.concat(list, '\n')))
  for _, c in ipairs(toc) do
    if c.part == part and c.status == 'written' then out:extend(c.blocks) end
  end
  return out
end

local function gpus_blocks()
  if #gpus == 0 then
    return md_blocks('**No GPU has been measured yet:** `results/` holds no results file. Every chapter says ' ..
      '"not measured yet" until `make results` has run on a machine with a GPU.')
  end
  local header = {cell('GPU'), cell('CC'), cell('SMs'), cell('SM clock (MHz)'), cell('CUDA: driver / runtime'),
                  cell('Chapters'), cell('Measured')}
  local rows = {}
  for _, g in ipairs(gpus) do
    local cc, sms, clocks, cudas, chapters, dates = {}, {}, {}, {}, {}, {}
    local function add(t, v) if v and v ~= '' then t[v] = true end end
    for _, r in ipairs(g.rows) do
      add(cc, r.cc); add(sms, r.sms); add(cudas, r.driver .. ' / ' .. r.cuda); add(chapters, r.nn)
      add(dates, r.date:sub(1, 10))
      if tonumber(r.sm_clock_mhz) then clocks[#clocks + 1] = tonumber(r.sm_clock_mhz) end
    end
    local function keys(t) local k = {}; for x in pairs(t) do k[#k + 1] = x end; table.sort(k); return k end
    local function join(t) return md_escape(table.concat(keys(t), ', ')) end
    table.sort(clocks)
    local clock = #clocks == 0 and '—' or (clocks[1] == clocks[#clocks] and tostring(clocks[1]) or (clocks[1] .. '–' .. clocks[#clocks]))
    local d = keys(dates)
    rows[#rows + 1] = {cell(md_escape(g.name)), cell(join(cc)), cell(join(sms)), cell(clock), cell(join(cudas)),
                       cell(tostring(#keys(chapters))),
                       cell(#d == 0 and '—' or (d[1] == d[#d] and d[1] or (d[1] .. ' to ' .. d[#d])))}
  end
  local aligns = {'AlignLeft', 'AlignLeft', 'AlignRight', 'AlignRight', 'AlignLeft', 'AlignRight', 'AlignLeft'}
  local widths = {0.27, 0.06, 0.07, 0.12, 0.18, 0.11, 0.19}
  local out = pandoc.List()
  out:extend(md_blocks('The numbers in this book come from these results files, one per GPU (`results/<gpu>.csv`). Under "CUDA", ' ..
    'the driver figure is the newest CUDA version the installed driver supports (as `cudaDriverGetVersion` reports ' ..
    'it), the runtime figure the CUDA runtime the programs were built with.'))
  out:insert(table_block('', 'The GPUs measured, from the columns of their results files.', aligns, widths, header, rows))
  return out
end

local function summary_blocks()
  local out = pandoc.List()
  local measured = {}
  for _, g in ipairs(gpus) do measured[#measured + 1] = g end
  local entries = {}
  for _, c in ipairs(toc) do
    if c.status == 'written' then
      local e = {c = c, speedups = {}, cells = {}}
      local any = false
      for gi, g in ipairs(measured) do
        local rows = g.by_chapter[c.nn]
        local s = rows and rows.optimized and speedup(rows, rows.optimized)
        e.speedups[gi] = s
        local text = s and (ftoa(s, 2) .. '×') or '—'
        if s and (rows.optimized.stale or rows.naive.stale) then text = text .. ' **STALE**' end
        e.cells[gi] = text
        if s then any = true end
      end
      if any then entries[#entries + 1] = e end
    elseif c.status == 'in progress' then
      for _, g in ipairs(measured) do
        if g.by_chapter[c.nn] then note('%s has results for chapter %s, which has no README.md yet; the book leaves them out', g.path, c.nn); break end
      end
    end
  end
  out:extend(md_blocks('Each chapter\'s headline: how many times faster the optimized program ran than the naive one, on every ' ..
    'GPU with a results file. A speedup below 1 is a slowdown; honest null results stay in the picture.'))
  if #entries == 0 then
    out:extend(md_blocks('**Not measured yet.** No written chapter has both a naive and an optimized result on any GPU.'))
    return out
  end
  local header = {cell('Chapter')}
  local aligns, widths = {'AlignLeft'}, {0}
  for _, g in ipairs(measured) do header[#header + 1] = cell(md_escape(g.short)); aligns[#aligns + 1] = 'AlignRight'; widths[#widths + 1] = 0 end
  local rows = {}
  for _, e in ipairs(entries) do
    local line = {cell(chapter_ref(e.c.nn))}
    for gi = 1, #measured do line[#line + 1] = cell(e.cells[gi]) end
    rows[#rows + 1] = line
    for gi, g in ipairs(measured) do
      if e.speedups[gi] then manifest_add('speedup', e.c.nn, g.slug, ftoa(e.speedups[gi], 2)) end
    end
  end
  out:insert(table_block('S', 'Speedup of the optimized program over the naive one (ratio of medians).', aligns, widths, header, rows))
  out:insert(figure_block('S', 'Speedup of every chapter, per GPU, on a logarithmic scale; the dashed line marks 1× (no change).',
    summary_chart(entries, measured)))
  return out
end

local function guideline_blocks()
  local text = read_file('book/guideline-index.tsv') or fail('book/guideline-index.tsv is missing')
  local rows, ids, cited = {}, {}, {}
  local counts = {written = 0, pending = 0, untimed = 0}
  for n, line in ipairs(lines_of(text)) do
    if line ~= '' and not line:match('^#') then
      local f = split(line, '\t')
      local where = 'book/guideline-index.tsv:' .. n
      if #f ~= 6 then fail('%s: expected 6 tab-separated fields, found %d', where, #f) end
      local id, guide, shown, see, rec, why = f[1], f[2], f[3], f[4], f[5], f[6]
      if ids[id] then fail('%s: %s twice', where, id) end
      ids[id] = true
      if trim(rec) == '' or rec == '-' then fail('%s: the recommendation is empty', where) end
      local function refs(field)
        local t = {}
        if field == '-' then return t end
        for nn in field:gmatch('[^,%s]+') do
          if not by_nn[nn] then fail('%s: chapter "%s" is not in book/chapters.tsv', where, nn) end
          t[#t + 1] = nn
          cited[nn] = true
        end
        return t
      end
      local shown_t, see_t = refs(shown), refs(see)
      local where_cell
      if #shown_t > 0 then
        if why ~= '-' then fail('%s: a reason is given, but the row names demonstrating chapters', where) end
        local r = {}
        local any_written = false
        for _, nn in ipairs(shown_t) do
          r[#r + 1] = chapter_ref(nn)
          if by_nn[nn].status == 'written' then any_written = true end
        end
        where_cell = table.concat(r, '; ')
        if any_written then counts.written = counts.written + 1 else counts.pending = counts.pending + 1 end
      else
        if why == '-' or #see_t == 0 then fail('%s: a row without a demonstrating chapter needs a reason and a "see" chapter', where) end
        local r = {}
        for _, nn in ipairs(see_t) do r[#r + 1] = chapter_ref(nn) end
        where_cell = 'Not shown by a timing pair: ' .. why .. ' See ' .. table.concat(r, '; ') .. '.'
        counts.untimed = counts.untimed + 1
      end
      rows[#rows + 1] = {cell(id), cell(guide), cell(rec), cell(where_cell)}
      manifest_add('guideline', id)
    end
  end
  local out = pandoc.List()
  out:extend(md_blocks(string.format('The Programming Guide\'s performance chapter asks for an action in %d sentences. ' ..
    'Here is each of them in our own words, with the chapter that demonstrates it by a timing pair. Chapters that are not ' ..
    'written yet are marked *planned* (or *in progress* when their code exists without prose), so this index shows honestly ' ..
    'how much is covered today: %d recommendations are demonstrated by a written chapter, %d wait for a planned chapter, ' ..
    'and %d are not a matter of timing at all.', #rows, counts.written, counts.pending, counts.untimed)))
  out:insert(table_block('A', 'The guide\'s recommendations and where this book demonstrates them.',
    {'AlignLeft', 'AlignLeft', 'AlignLeft', 'AlignLeft'}, {0.06, 0.08, 0.50, 0.36},
    {cell('\\#'), cell('Guide'), cell('Recommendation, in our words'), cell('Shown in')}, rows, {'guideline-index'}))
  local extra = {}
  for _, c in ipairs(toc) do
    if not cited[c.nn] then extra[#extra + 1] = '- ' .. chapter_ref(c.nn) .. (c.guide == 'BPG' and ', Best Practices Guide' or (', guide ' .. c.guide)) end
  end
  if #extra > 0 then
    out:extend(md_blocks('Chapters that go beyond this checklist (newer editions of the guide, and the Best Practices Guide):\n\n' ..
      table.concat(extra, '\n')))
  end
  return out
end

local function first_line(cmd)
  local out = sh(cmd .. ' 2>/dev/null')
  return trim(lines_of(out)[1] or 'unknown')
end

local function reproduce_blocks()
  local out = pandoc.List()
  out:extend(md_blocks([[
The numbers in this book are regenerated, never typed. On a Linux machine with an NVIDIA GPU, the CUDA
toolkit (12.x or 13.x) and a C compiler, from the root of a clone of the repository:

```sh
make test                     # unit tests, every chapter checked at small and odd sizes
make results                  # every chapter measured on this GPU: results/<gpu>.csv
make deps                     # the book's tools, from Debian packages (needs root)
make book                     # book/out/book.pdf, book/out/book.html
```

`make results` rewrites one file per GPU; commit it to add your GPU to every table of the book.
`make book RESULTS_DIR=some/dir` builds the book from results kept elsewhere. Every results row
records the commit it was measured at: `git checkout` that commit to rebuild exactly the measured
programs.]]))
  -- The exact run behind every chapter's numbers, from the rows' size, knobs and seed.
  local runs = {}
  for _, c in ipairs(toc) do
    if c.status == 'written' then
      local seen, order = {}, {}
      for _, g in ipairs(gpus) do
        local rows = g.by_chapter[c.nn]
        local r = rows and (rows.naive or rows.optimized or rows.library)
        if r then
          local args = '--size ' .. r.size .. ' --seed ' .. r.seed
          for kv in r.knobs:gmatch('[^;]+') do
            local k, v = kv:match('^([^=]+)=(.*)$')
            if k then args = args .. ' --' .. k .. ' ' .. v end
          end
          if not seen[args] then seen[args] = {}; order[#order + 1] = args end
          table.insert(seen[args], g.short)
        end
      end
      for _, args in ipairs(order) do
        runs[#runs + 1] = string.format("make chapter-%s ARGS='%s'   # %s", c.nn, args, table.concat(seen[args], ', '))
      end
    end
  end
  if #runs > 0 then
    out:extend(md_blocks('Each chapter\'s numbers came from one run of its programs with these options:'))
    out:insert(pandoc.CodeBlock(table.concat(runs, '\n'), pandoc.Attr('', {'bash'})))
  end
  local header = {cell('What'), cell('Version')}
  local rows = {}
  local commit = first_line('git rev-parse --short HEAD')
  local dirty = select(2, sh('git diff --quiet HEAD -- chapters common book 2>/dev/null')) ~= 0
  rows[#rows + 1] = {cell('This book built from commit'), cell('`' .. commit .. (dirty and ' (with local changes)' or '') .. '`')}
  rows[#rows + 1] = {cell('Pandoc'), cell(md_escape(tostring(PANDOC_VERSION)))}
  rows[#rows + 1] = {cell('TeX engine'), cell(md_escape(first_line('xelatex --version')))}
  rows[#rows + 1] = {cell('gnuplot'), cell(md_escape(first_line('gnuplot --version')))}
  rows[#rows + 1] = {cell('rsvg-convert'), cell(md_escape(first_line('rsvg-convert --version')))}
  for _, g in ipairs(gpus) do
    local seen, list = {}, {}
    for _, r in ipairs(g.rows) do
      local k = 'driver for CUDA ' .. r.driver .. ', runtime ' .. r.cuda .. ', commit ' .. r.commit
      if not seen[k] then seen[k] = true; list[#list + 1] = k end
    end
    table.sort(list)
    rows[#rows + 1] = {cell(md_escape(g.name) .. ' (`' .. g.slug .. '.csv`)'), cell(md_escape(table.concat(list, '; ')))}
  end
  out:insert(table_block('B', 'The versions behind this edition of the book.', {'AlignLeft', 'AlignLeft'}, {0.35, 0.65}, header, rows))
  if #stale_rows > 0 then
    local t = {}
    for _, r in ipairs(stale_rows) do t[#t + 1] = '- ' .. md_escape(r.where) .. ': chapter ' .. r.nn .. ' ' .. r.variant end
    out:extend(md_blocks('**Stale results** (measured from sources that have changed since; `make results` again):\n\n' .. table.concat(t, '\n')))
  end
  return out
end

---------------------------------------------------------------------------------------------
-- Cross-references: every internal link must land on an identifier of the book.

local function check_links(blocks)
  local ids, links = {}, {}
  local function id(x) if x.identifier and x.identifier ~= '' then ids[x.identifier] = true end end
  local f = {Header = id, Div = id, Span = id, CodeBlock = id, Image = id, Code = id, Link = function(l)
    id(l)
    if l.target:sub(1, 1) == '#' then links[#links + 1] = l.target:sub(2) end
  end}
  pandoc.walk_block(pandoc.Div(blocks), f)
  for _, t in ipairs(links) do
    if not ids[t] then fail('a link points to #%s, which is nowhere in the book', t) end
  end
end

---------------------------------------------------------------------------------------------

function Pandoc(doc)
  RESULTS = doc.meta['results-dir'] and stringify(doc.meta['results-dir']) or 'results'
  OUT = doc.meta['out-dir'] and stringify(doc.meta['out-dir']) or 'book/out'
  CHARTS = OUT .. '/charts'
  sh('mkdir -p ' .. q(CHARTS))
  load_toc()
  find_chapters()
  load_results()
  for _, c in ipairs(toc) do
    if c.status == 'written' then c.blocks = chapter_blocks(c) end
  end
  local blocks = pandoc.List()
  for _, b in ipairs(doc.blocks) do
    if is_comment(b) then
      -- book.md's own comments stay out of the output
    elseif b.t == 'Div' and b.classes:includes('chapters') then
      blocks:extend(part_blocks(b.attributes.part or fail('a .chapters div without part=')))
    elseif b.t == 'Div' and b.classes:includes('gpus') then
      blocks:extend(gpus_blocks())
    elseif b.t == 'Div' and b.classes:includes('summary') then
      blocks:extend(summary_blocks())
    elseif b.t == 'Div' and b.classes:includes('guideline-index') then
      blocks:extend(guideline_blocks())
    elseif b.t == 'Div' and b.classes:includes('reproduce') then
      blocks:extend(reproduce_blocks())
    else
      blocks:insert(b)
    end
  end
  check_links(blocks)
  for _, c in ipairs(toc) do manifest_add('status', c.nn, c.status, c.title) end
  for _, r in ipairs(stale_rows) do manifest_add('stale', r.nn, r.gpu_slug, r.variant, r.where) end
  write_file(OUT .. '/manifest.tsv', table.concat(manifest, '\n') .. '\n')
  doc.meta.date = pandoc.MetaInlines(md_inlines('Built from commit `' .. first_line('git rev-parse --short HEAD') .. '`'))
  return pandoc.Pandoc(blocks, doc.meta)
end
