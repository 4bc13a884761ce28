-- book/charts.lua: the book's charts, for book/book.lua. A chart is a gnuplot script drawn as SVG
-- (HTML, EPUB) and converted to PDF by rsvg-convert (LaTeX). Scripts are written as the book is
-- assembled and drawn together at the end, in parallel (flush); an unchanged script is not redrawn.
-- Returns function(dir, fail) -> the chart functions (the table at the end) and flush(), their
-- arguments as in `scripts/results.py book-json` or as pictures.lua computed them; each returns the
-- SVG's path and what the chart draws, from which book/book.lua writes the caption.

local VARIANT_COLOR = {naive = '#d1603d', optimized = '#2a6fb0', library = '#8c8c8c'}
local function variant_color(v) return VARIANT_COLOR[v] or '#4d4d4d' end
-- GPUs get colours of their own, none of them the programs' orange, blue or grey; and a marker each.
local GPU_COLORS = {'#2e8b57', '#8e44ad', '#c49a1b', '#1b9aaa', '#b5485d', '#4d4d4d'}
local GPU_MARKERS = {7, 9, 5, 11, 13, 15} -- gnuplot point types: circle, triangle, square, ...
local function gpu_color(i) return GPU_COLORS[(i - 1) % #GPU_COLORS + 1] end
local function gpu_marker(i) return GPU_MARKERS[(i - 1) % #GPU_MARKERS + 1] end
local CHARTS, fail

local shell = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'shell.lua')
local q, sh, read_file, ftoa = shell.q, shell.sh, shell.read_file, shell.ftoa
local function write_file(path, text) shell.write_file(path, text, fail) end

local function gq(s) return "'" .. tostring(s):gsub("'", "''") .. "'" end
local function rgb_int(hex) return tonumber(hex:sub(2), 16) end
-- A gnuplot data block NAME of ROWS, or of EMPTY where there are none (gnuplot needs a point).
local function eod(name, rows, empty) return name .. ' << EOD\n' .. (#rows == 0 and empty or table.concat(rows, '\n')) .. '\nEOD' end
-- A plot command of CLAUSES, a line each.
local function plot_of(clauses) return 'plot ' .. table.concat(clauses, ', \\\n     ') .. '\n' end
-- A row's title cut to N characters; a rows chart's setup with other row names (the phone's, shorter).
local function clip(title, n) return utf8.len(title) > n and title:sub(1, utf8.offset(title, n) - 1) .. '…' or title end
-- Tics at the values of SERIES within a factor F of [lo, hi], each labelled with UNIT after it.
local function log_tics(series, lo, hi, f, unit)
  local t = {}
  for _, x in ipairs(series) do if x >= lo / f and x <= hi * f then t[#t + 1] = "'" .. x .. unit .. "' " .. x end end
  return table.concat(t, ', ')
end
local function with_rows(setup, yt) return (setup:gsub("set ytics scale 0 font ',11' %b()", function() return "set ytics scale 0 font ',11' (" .. table.concat(yt, ', ') .. ")" end)) end

local QUEUE = {} -- the charts to draw: names whose script changed

local function terminal(svg, w, h, font)
  return 'set terminal svg size ' .. w .. ',' .. h .. ' font "DejaVu Sans,' .. font .. '" background rgb "white"\nset output ' .. gq(svg) .. '\n'
end
local function render_one(name, script, height, width, font)
  local gp, svg, pdf = CHARTS .. '/' .. name .. '.gp', CHARTS .. '/' .. name .. '.svg', CHARTS .. '/' .. name .. '.pdf'
  script = terminal(svg, width, height, font) .. script
  if read_file(gp) == script and read_file(pdf) then return svg end -- drawn from this script already
  os.remove(pdf)
  write_file(gp .. '.new', script)
  QUEUE[#QUEUE + 1] = name
  return svg
end
-- Each chart is drawn twice: for a page or the PDF, and for a phone (NAME-phone.svg, 340 units
-- wide, no text under 11 units, taller), which the HTML edition shows below 600 px so that a
-- chart fits a 390-px phone's column whole, its text at 11 px or more.
local PHONE_W = 340
local function phone_height(h, w) return math.floor(math.max(h * 0.9, h * w / PHONE_W * 0.55)) end
local function render_chart(name, script, height, width, phone_script, phone_h)
  local h, w = height or 340, width or 680
  local phone = (phone_script or script):gsub("font ',10'", "font ',11'"):gsub("font ',9'", "font ',11'")
    :gsub("set key outside top center horizontal\n", "set key outside top center horizontal maxcols 2\n")
    :gsub("set key at screen 0.5,0.995 center top horizontal\nset tmargin 2.5", "set key at screen 0.5,0.995 center top horizontal maxcols 2\nset tmargin 3.5")
    :gsub("maxrows 2 width %-2", "maxcols 2 width -2")
  render_one(name .. '-phone', phone, phone_h or phone_height(h, w), PHONE_W, 11)
  return render_one(name, script, h, w, 12)
end

-- Draw the queued charts, as many at a time as there are processors: gnuplot writes the SVG,
-- rsvg-convert the PDF; the script takes its place only once both are drawn.
local FLUSH_JOB = 'p=$1; out=$(gnuplot "$p.gp.new" 2>&1) && [ -z "$out" ] && ' ..
  'rsvg-convert -f pdf -o "$p.pdf" "$p.svg" && mv "$p.gp.new" "$p.gp" || { echo "$p.gp.new: $out"; exit 1; }'
local function flush()
  if #QUEUE == 0 then return end
  local list = {}
  for k, n in ipairs(QUEUE) do list[k] = CHARTS .. '/' .. n end
  write_file(CHARTS .. '/queue', table.concat(list, '\n') .. '\n')
  local out, code = sh('xargs -d "\\n" -n 1 -P "$(nproc 2>/dev/null || echo 2)" sh -c ' .. q(FLUSH_JOB) ..
    ' sh <' .. q(CHARTS .. '/queue'))
  if code ~= 0 then fail('gnuplot or rsvg-convert failed on a chart:\n%s', out) end
  os.remove(CHARTS .. '/queue')
  QUEUE = {}
end


local STYLE = [[
set encoding utf8
set termoption noenhanced
set border 3 lc rgb '#555555'
set tics nomirror
set xtics scale 0
set grid ytics lc rgb '#e3e3e3' lt 1
set style fill solid 0.9 noborder
set key samplen 1.5 spacing 1.1
]]
-- A multiplot: SETUP, then panel(k, p) for each of PANELS, stacked; across: side by side, and the
-- same stacked second (for a phone, where panels side by side are too narrow).
local function multiplot(panels, across, setup, panel)
  local body = {}
  for k, p in ipairs(panels) do body[k] = panel(k, p) end
  local function layout(r, c) return STYLE .. 'set multiplot layout ' .. r .. ',' .. c .. '\n' .. setup .. table.concat(body) .. 'unset multiplot\n' end
  if across then return layout(1, #panels), layout(#panels, 1) end
  return layout(#panels, 1)
end


-- One chapter: a bar per program, clustered by GPU, its value above it, each GPU's roof as a dashed
-- line. The key sits above the plot, outside it, where it cannot cover a bar or its label.
local function chapter_chart(nn, chart)
  local bars, rows, labels, texts, xt, roofs, ymax = {}, {}, {}, {}, {}, {}, 0
  local stride = #chart.variants + 1
  for gi, g in ipairs(chart.series) do
    local x0 = (gi - 1) * stride
    for vi, v in ipairs(chart.variants) do
      local x, y = x0 + vi - 1, g.values[v]
      if y then
        bars[#bars + 1] = {x = x, y = y}
        rows[#rows + 1] = string.format('%.4f %.6g %.4f %.4f %.6g %.6g %d', x, y, x - 0.4, x + 0.4, 0, y, rgb_int(variant_color(v)))
        ymax = math.max(ymax, y)
      elseif g.labels[v] then
        labels[#labels + 1] = {x = x, y = 0, text = g.labels[v]}
      end
    end
    if g.roof then
      roofs[#roofs + 1] = string.format('%.3f %.6g %.3f 0', x0 - 0.5, g.roof, #chart.variants)
      ymax = math.max(ymax, g.roof)
    end
    xt[#xt + 1] = gq(g.short) .. ' ' .. ftoa(x0 + (#chart.variants - 1) / 2, 2)
  end
  ymax = ymax > 0 and ymax * 1.15 or 1
  for _, b in ipairs(bars) do
    labels[#labels + 1] = {x = b.x, y = b.y + ymax * 0.02, text = ftoa(b.y, b.y >= 100 and 0 or (b.y >= 10 and 1 or 2))}
  end
  for _, l in ipairs(labels) do texts[#texts + 1] = string.format('%.4f %.6g "%s"', l.x, l.y, l.text) end
  local setup = 'set ylabel ' .. gq(chart.axis) .. '\n' ..
    string.format('set xrange [-0.8:%.2f]\nset yrange [0:%.6g]\n', #chart.series * stride - 1.2, ymax)
  local plot = {"$bars using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle",
                "$labels using 1:2:3 with labels font ',10' offset 0,0.3 notitle"}
  local drawn = {variants = chart.variants}
  if #roofs > 0 then
    setup = setup .. eod('$roofs', roofs) .. '\n'
    drawn.roof = chart.roof_title or 'roof'
    plot[3] = "$roofs using 1:2:3:4 with vectors nohead dt 2 lw 2 lc rgb '#333333' title " .. gq(drawn.roof)
  end
  for _, v in ipairs(chart.variants) do plot[#plot + 1] = 'keyentry with boxes fc rgb ' .. gq(variant_color(v)) .. ' title ' .. gq(v) end
  return render_chart('ch' .. nn, STYLE .. 'set key outside top center horizontal\n' .. eod('$bars', rows, 'NaN NaN NaN NaN NaN NaN 0') ..
    '\n' .. eod('$labels', texts, 'NaN NaN ""') .. '\n' .. setup .. 'set xtics (' .. table.concat(xt, ', ') .. ')\n' .. plot_of(plot)), drawn
end

-- The programs' rates against the one knob their sweeps vary: a line per program (its colour) and
-- GPU (its marker) and, where the GPU has one, its roof as a dashed grey line.
local SAME_AS = 0.02 -- of the chart's top: two series this close at every knob value coincide
local function sweep_chart(nn, sc)
  local data, plot, ymax, xmin, xmax, roofs = {}, {}, 0, math.huge, -math.huge, {}
  local gpus, gpu_index = {}, {}
  for _, g in ipairs(sc.series) do
    if not gpu_index[g.gpu] then gpus[#gpus + 1] = g; gpu_index[g.gpu] = #gpus end
  end
  -- A knob of named choices (a function) gets points, side by side, not a line through unrelated
  -- choices; a power-of-two knob a log axis.
  local category, log2 = sc.scale == 'category', sc.scale == 'log2'
  local xs = {}
  -- A series that coincides with an earlier one (every point within SAME_AS of the chart's top,
  -- at the same knob values) would hide it: its markers are set a little to the right and its
  -- key says which series it is the same as (book/check_pdf.py sweep-same checks the rule).
  local top = 0
  for _, g in ipairs(sc.series) do
    top = math.max(top, g.roof or 0)
    for _, p in ipairs(g.points) do top = math.max(top, p[2]) end
  end
  local function same_as(si)
    local a = sc.series[si].points
    for sj = 1, si - 1 do
      local b, same = sc.series[sj].points, #sc.series[sj].points == #a
      for k = 1, #a do same = same and b[k][1] == a[k][1] and math.abs(b[k][2] - a[k][2]) <= SAME_AS * top end
      if same then return sc.series[sj] end
    end
  end
  local shifted, integers = 0, true
  for si, g in ipairs(sc.series) do
    local gi = gpu_index[g.gpu]
    local dx = category and (si - (#sc.series + 1) / 2) * 0.6 / math.max(#sc.series, 1) or 0
    local twin = same_as(si)
    local note, rows = '', {}
    if twin then
      shifted = shifted + 1
      local gpu = twin.short:match('^%S+') -- the GPU's first word (H100): the key stays narrow
      note = ' (same as ' .. (twin.program == g.program and gpu or twin.gpu == g.gpu and twin.program or (twin.program .. ', ' .. gpu)) .. ')'
    end
    for _, p in ipairs(g.points) do
      local x = p[1] + dx
      if twin and not category then -- a marker's width to the right
        x = log2 and x * 2 ^ (0.12 * shifted) or x + 0.012 * shifted * math.max(1, (sc.series[1].points[#sc.series[1].points][1] - sc.series[1].points[1][1]))
      end
      rows[#rows + 1] = string.format('%.6g %.6g', x, p[2])
      ymax, xmin, xmax = math.max(ymax, p[2]), math.min(xmin, p[1]), math.max(xmax, p[1])
      integers = integers and p[1] == math.floor(p[1])
      xs[p[1]] = true
    end
    data[#data + 1] = eod('$s' .. si, rows)
    plot[#plot + 1] = '$s' .. si .. ' using 1:2 with ' .. (category and 'points' or 'linespoints') .. ' lw 2 pt ' .. gpu_marker(gi) ..
                      (category and ' ps 1.2' or ' ps 0.8') .. ' lc rgb ' ..
                      gq(variant_color(g.program)) .. ' title ' .. gq(g.program .. ', ' .. g.short .. note)
  end
  local drawn = {programs = sc.programs, flat = sc.flat}
  for gi, g in ipairs(gpus) do
    if g.roof then
      roofs[#roofs + 1] = string.format("%.6g with lines dt %d lw 1.5 lc rgb '#555555' title %s", g.roof, gi + 1,
                                        gq(g.short .. ' ' .. (sc.roof_title or 'roof')))
      ymax = math.max(ymax, g.roof)
      drawn.roof = sc.roof_title or 'roof'
    end
  end
  for _, r in ipairs(roofs) do plot[#plot + 1] = r end
  local pad = (xmax - xmin) * 0.03
  local xset, phone_xset
  if log2 then
    local t = {}
    for x in shell.spairs(xs) do t[#t + 1] = x end
    -- A tick at every knob value; a label only where it clears the next one kept to its right
    -- (from the largest down), by the plot's width in the canvas of W units (about W - 110 of
    -- them: the axis labels take the rest), so that labels never run together ("2432404864").
    local lo, hi = math.log(xmin / 1.25, 2), math.log(xmax * 1.25, 2)
    local function tics(W, font)
      local per, out, kept = (W - 110) / (hi - lo), {}, nil
      for k = #t, 1, -1 do
        local x = t[k]
        local pos, w = math.log(x, 2) * per, #string.format('%g', x) * 0.62 * font
        if not kept or kept.pos - pos >= (kept.w + w) / 2 + 0.6 * font then
          out[k] = string.format("'%g' %.6g", x, x)
          kept = {pos = pos, w = w}
        else
          out[k] = string.format("'' %.6g", x)
        end
      end
      return 'set logscale x 2\nset xtics (' .. table.concat(out, ', ') .. ')\n' ..
        string.format('set xrange [%.6g:%.6g]\n', xmin / 1.25, xmax * 1.25)
    end
    xset, phone_xset = tics(680, 12), tics(PHONE_W, 11)
  elseif category then
    xset = 'set xtics 1\n' .. string.format('set xrange [%.6g:%.6g]\n', xmin - 0.6, xmax + 0.6)
  else
    xset = ((integers and xmax - xmin <= 16) and 'set xtics 1\n' or '') ..
      string.format('set xrange [%.6g:%.6g]\n', math.max(0, xmin - pad), xmax + pad)
  end
  -- Key samples 3 characters long: at 1.5 a dashed roof's sample ends mid-dash and reads as cut.
  local setup = xset .. "set key samplen 3\nset key outside top center horizontal maxcols 2\nset grid xtics ytics lc rgb '#e3e3e3' lt 1\nset xtics scale 1\n" ..
    'set ylabel ' .. gq(sc.axis) .. '\nset xlabel ' .. gq('--' .. sc.knob .. (log2 and ' (log scale)' or category and ' (a choice, not a quantity)' or '')) .. '\n' ..
    string.format('set yrange [0:%.6g]\n', ymax > 0 and ymax * 1.08 or 1)
  local height = 340 + 18 * math.max(0, math.ceil((#sc.series + #roofs) / 2) - 2)
  local script = STYLE .. table.concat(data, '\n') .. '\n' .. setup .. plot_of(plot)
  -- On a phone, a key with a "same as" note is one entry a line; log ticks are thinned for its width.
  local phone = phone_xset and script:gsub(xset:gsub('%p', '%%%0'), (phone_xset:gsub('%%', '%%%%'))) or nil
  if shifted > 0 then phone = (phone or script):gsub('horizontal maxcols 2', 'horizontal maxcols 1') end
  return render_chart('ch' .. nn .. '-sweep', script, height, nil, phone), drawn
end

-- Predictions against measurements: a row per chapter, its predicted speedup range as a grey bar
-- and the measured speedup on each GPU as a marker, on a logarithmic axis with 1x dashed. The
-- numbers are in the summary table; the chart shows where each lands against its range.
local function summary_chart(gpus, rows)
  local n = #rows
  local band, pts, yt, lo, hi, yshort = {}, {}, {}, 1, 1, {}
  for i, r in ipairs(rows) do
    local y = n - i + 1
    yt[#yt + 1] = gq(r.nn .. ' ' .. clip(r.title, 30)) .. ' ' .. y
    yshort[#yshort + 1] = gq(r.nn) .. ' ' .. y
    if r.predicted then
      band[#band + 1] = string.format('%d %.6g %.6g', y, r.predicted[1], r.predicted[2])
      lo, hi = math.min(lo, r.predicted[1]), math.max(hi, r.predicted[2])
    end
    for gi, g in ipairs(gpus) do
      local s = r.speedups[g.slug]
      if s then
        pts[gi] = pts[gi] or {}
        pts[gi][#pts[gi] + 1] = string.format('%.6g %.4f', s, y + (gi - (#gpus + 1) / 2) * 0.18)
        lo, hi = math.min(lo, s), math.max(hi, s)
      end
    end
  end
  local drawn = {gpus = {}, predicted = #band > 0}
  local data, plot = {eod('$band', band, 'NaN NaN NaN')}, {
    "$band using (sqrt($2*$3)):1:2:3:($1-0.32):($1+0.32) with boxxyerror fc rgb '#cfcfcf' fs solid 1.0 noborder title 'predicted range'"}
  for gi, g in ipairs(gpus) do
    if pts[gi] then
      data[#data + 1] = eod('$g' .. gi, pts[gi])
      plot[#plot + 1] = '$g' .. gi .. ' using 1:2 with points pt ' .. gpu_marker(gi) .. ' ps 1.0 lc rgb ' ..
                        gq(gpu_color(gi)) .. ' title ' .. gq(g.short)
      drawn.gpus[#drawn.gpus + 1] = g.short
    end
  end
  -- 1-2-5 ticks over two decades or less, 1-3-10 over more (where 1-2-5 would run together)
  local series = math.log(hi / lo, 10) > 2 and {0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000}
    or {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
  -- (The key is placed on the canvas: centred over this narrow plot, gnuplot drops an entry.)
  local setup = STYLE .. "set key at screen 0.5,0.995 center top horizontal\nset tmargin 2.5\nset logscale x\nset grid xtics noytics lc rgb '#e3e3e3' lt 1\n" ..
    "set xtics scale 1 (" .. log_tics(series, lo, hi, 2.5, '×') .. ")\nset ytics scale 0 font ',11' (" .. table.concat(yt, ', ') .. ")\n" ..
    "set xlabel 'measured speedup, optimized over naive (log scale)'\n" ..
    "set arrow from 1, graph 0 to 1, graph 1 nohead dt 2 lw 1.5 lc rgb '#333333'\n" ..
    string.format('set xrange [%.6g:%.6g]\nset yrange [0.4:%.1f]\n', lo / 1.6, hi * 1.6, n + 0.6)
  local body = table.concat(data, '\n') .. '\n' .. plot_of(plot)
  return render_chart('summary', setup .. body, 100 + 18 * n, 600, with_rows(setup, yshort):gsub("set xlabel '[^']*'", "set xlabel 'speedup (log scale)'") .. body), drawn
end

-- A GPU's roofline: FP32 GFLOP/s against flops per DRAM byte, both log, under min(copy bandwidth x
-- intensity, FP32 peak); each chapter's naive and optimized points joined by a grey arrow, filled
-- where both counts are ncu's, hollow where one is the results row's own count. Labels are placed
-- in the SVG's own pixels, not guessed ones: a probe drawing of the chart says where the plot, a
-- label's baseline and the roof labels lie; each chapter's label goes to the nearest free spot
-- around its marker (crossing no arrow or roof if it can), with a leader line when set away. A
-- text's box is as book/check_pdf.py measures it (0.6 x 0.8 of the size).
-- W x H, FONT: the SVG's size and font; FS: the labels' font size; phone: the narrow edition.

-- The texts of a gnuplot SVG: {text, x0, y0, x1, y1} in the SVG's pixels, y down.
local function svg_text_boxes(svg)
  local out = {}
  for tr, attrs, text in svg:gmatch('<g transform="([^"]*)"([^>]*)>%s*<text>([^<]*)</text>') do
    local x, y = tr:match('translate%(([%d.%-]+),([%d.%-]+)%)')
    local rot = tr:match('rotate%(([%d.%-]+)%)')
    local size = attrs:match('font%-size="([%d.]+)"')
    if x and size then
      x, y, size = tonumber(x), tonumber(y), tonumber(size)
      local w = 0.6 * size * utf8.len((text:gsub('&%a+;', '_')))
      local anchor = attrs:match('text%-anchor="(%a+)"')
      local start = anchor == 'end' and x - w or anchor == 'middle' and x - w / 2 or x
      if rot then
        local a = math.rad(tonumber(rot))
        local x1, y1 = start + w * math.cos(a), y + w * math.sin(a)
        out[#out + 1] = {text, math.min(start, x1), math.min(y, y1) - size * 0.8, math.max(start, x1), math.max(y, y1)}
      else
        out[#out + 1] = {text, start, y - size * 0.8, start + w, y}
      end
    end
  end
  return out
end

-- Does the segment (ax, ay)-(bx, by) cross the box {x0, y0, x1, y1}? (sampled: enough for a penalty)
local function crosses(ax, ay, bx, by, b)
  for t = 0, 1, 0.05 do
    local x, y = ax + (bx - ax) * t, ay + (by - ay) * t
    if x > b[1] and x < b[3] and y > b[2] and y < b[4] then return true end
  end
  return false
end

local function roofline_script(g, W, H, FONT, FS, phone)
  local PEAK_FMT = phone and 'FP32 peak %.0f' or 'FP32 peak %.0f GFLOP/s'
  local C, P = g.copy_gbs, g.fp32_gflops
  local ridge = P / C
  local xmin, xmax, ymin = ridge, ridge, P
  for _, p in ipairs(g.points) do
    xmin, xmax, ymin = math.min(xmin, p.intensity), math.max(xmax, p.intensity), math.min(ymin, p.gflops)
  end
  xmin, xmax = xmin / 6, xmax * 6
  ymin = math.min(ymin, C * xmin) / 2
  local ymax = P * 2.5
  local data, plot, arrows, by_ch = {}, {}, {}, {}
  local drawn = {copy = C, peak = P, evidence = false, results = false, roof = 'copy roof and FP32 peak'}
  for _, v in ipairs({'naive', 'optimized'}) do
    for _, src in ipairs({'evidence', 'results'}) do
      local t = {}
      for _, p in ipairs(g.points) do
        if p.program == v and p.source == src then
          t[#t + 1] = string.format('%.6g %.6g', p.intensity, p.gflops)
          drawn[src] = true
        end
      end
      if #t > 0 then
        local name = '$' .. v .. '_' .. src
        data[#data + 1] = eod(name, t)
        plot[#plot + 1] = name .. ' using 1:2 with points pt ' .. (src == 'evidence' and 7 or 6) ..
          ' ps 1.3 lw 2 lc rgb ' .. gq(VARIANT_COLOR[v]) .. ' notitle'
      end
    end
  end
  for _, p in ipairs(g.points) do by_ch[p.nn] = by_ch[p.nn] or {}; by_ch[p.nn][p.program] = p end
  local roof = string.format('(x * %.6g < %.6g ? x * %.6g : %.6g)', C, P, C, P)
  table.insert(plot, 1, roof .. " with lines lw 2 lc rgb '#333333' title 'roof'")
  for _, v in ipairs({'naive', 'optimized'}) do plot[#plot + 1] = "keyentry with points pt 7 ps 1.3 lc rgb " .. gq(VARIANT_COLOR[v]) .. ' title ' .. gq(v) end
  if drawn.evidence then plot[#plot + 1] = "keyentry with points pt 7 ps 1.3 lc rgb '#666666' title 'filled: ncu counts'" end
  if drawn.results then plot[#plot + 1] = "keyentry with points pt 6 ps 1.3 lw 2 lc rgb '#666666' title 'hollow: one from results'" end
  local setup = STYLE .. "set key outside top center horizontal maxrows 2 width 1\nset logscale xy\nset grid xtics ytics lc rgb '#e3e3e3' lt 1\nset xtics scale 1\nset samples 400\n" ..
    "set format x '%g'\nset format y '%g'\n" ..
    (phone and "set xlabel 'FP32 flops per DRAM byte (log)'\nset ylabel 'GFLOP/s (log)'\n" or
      "set xlabel 'arithmetic intensity (FP32 flops per DRAM byte, log scale)'\nset ylabel 'GFLOP/s (log scale)'\n") ..
    string.format('set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n', xmin, xmax, ymin, ymax)
  local body = table.concat(data, '\n') .. '\n' .. plot_of(plot)
  local font = string.format("font ',%d' tc rgb '#333333'", FS)

  -- The probe: the chart as drawn, plus a '+' at two corners of the plot and a label at one.
  local probe_svg = CHARTS .. '/roofline-' .. g.gpu .. (phone and '-phone' or '') .. '.probe.svg'
  local function probe(labels)
    local script = terminal(probe_svg, W, H, FONT) .. setup .. table.concat(labels, '\n') .. '\n' ..
      string.format("set label 'PROBE' at %.6g,%.6g left %s\n", xmin, ymin, font) ..
      string.format('$probe << EOD\n%.6g %.6g\n%.6g %.6g\nEOD\n', xmin, ymin, xmax, ymax) ..
      body:gsub('\n$', '') .. ", \\\n     $probe using 1:2 with points pt 1 notitle\n"
    write_file(probe_svg .. '.gp', script)
    local out, code = sh('gnuplot ' .. q(probe_svg .. '.gp'))
    if code ~= 0 or out ~= '' then fail('gnuplot failed on the roofline probe %s.gp:\n%s', probe_svg, out) end
    local svg = read_file(probe_svg) or fail('no %s', probe_svg)
    os.remove(probe_svg); os.remove(probe_svg .. '.gp')
    return svg
  end
  local svg = probe({})
  local corners = {}
  for x, y in svg:gmatch("<use xlink:href='#gpPt0' transform='translate%(([%d.%-]+),([%d.%-]+)%)") do
    corners[#corners + 1] = {tonumber(x), tonumber(y)}
  end
  if #corners ~= 2 then fail('the roofline probe %s shows %d corners, not 2', probe_svg, #corners) end
  local X0, Y0, X1, Y1 = corners[1][1], corners[1][2], corners[2][1], corners[2][2] -- Y0 the bottom
  local base -- a label's baseline below the point it is set at
  for _, b in ipairs(svg_text_boxes(svg)) do if b[1] == 'PROBE' then base = b[5] - Y0 end end
  if not base then fail('the roofline probe %s has no probe label', probe_svg) end
  local LX, LY = math.log(xmax / xmin, 10), math.log(ymax / ymin, 10)
  local function px(x, y) return X0 + math.log(x / xmin, 10) / LX * (X1 - X0), Y0 + math.log(y / ymin, 10) / LY * (Y1 - Y0) end
  local function unpx(sx, sy) return xmin * 10 ^ ((sx - X0) / (X1 - X0) * LX), ymin * 10 ^ ((sy - Y0) / (Y1 - Y0) * LY) end

  -- The roof labels: the FP32 peak above the flat roof just right of the ridge (the chapters
  -- cluster at the right); the copy roof along the slope where it is farthest from every marker
  -- (on a phone the slope is steep: level, in the empty corner above it).
  local marks = {}
  for _, p in ipairs(g.points) do marks[#marks + 1] = {px(p.intensity, p.gflops)} end
  local peak_text = string.format(PEAK_FMT, P)
  local peak_x = math.min(px(ridge * 1.3, P), X1 - 0.6 * FS * #peak_text - 4) -- inside the plot, right end too
  local labels = {string.format("set label %s at %.6g,%.6g left offset 0,0.8 %s", gq(peak_text), (unpx(peak_x, Y0)), P, font)}
  local copy_text = string.format('copy roof %.0f GB/s', C)
  local rx, ry = px(ridge, P)
  if phone then
    labels[2] = string.format("set label %s at %.6g,%.6g left %s", gq(copy_text), xmin * 1.15, P * 1.5, font)
  else
    local angle = math.deg(math.atan((Y0 - ry) / (rx - X0)))
    local ca, sa = math.cos(math.rad(angle)), math.sin(math.rad(angle))
    local len = 0.6 * FS * #copy_text
    local best, at = -1, xmin * 1.2
    for _, f in ipairs({0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6}) do
      local x = xmin * (ridge / xmin) ^ f
      local lx, ly = px(x, C * x)
      local near = math.huge
      for t = 0, len, 10 do
        for _, m in ipairs(marks) do near = math.min(near, math.sqrt((m[1] - lx - t * ca) ^ 2 + (m[2] - ly + 10 + t * sa) ^ 2)) end
      end
      if near > best then best, at = near, x end
    end
    labels[2] = string.format("set label %s at %.6g,%.6g left rotate by %.1f offset 0.5,0.8 %s", gq(copy_text), at, C * at, angle, font)
  end
  -- Where gnuplot drew them: obstacles for the chapters' labels.
  local boxes = {}
  for _, b in ipairs(svg_text_boxes(probe(labels))) do
    if b[1] == copy_text or b[1] == peak_text then boxes[#boxes + 1] = {b[2], b[3], b[4], b[5]} end
  end
  if #boxes ~= 2 then fail('the roofline probe %s misses a roof label', probe_svg) end

  -- Arrows from naive to optimized, stopping short of the optimized marker so their heads show.
  local segs = {}
  local names = {}
  for nn in shell.spairs(by_ch) do names[#names + 1] = nn end
  for _, nn in ipairs(names) do
    local a, b = by_ch[nn].naive, by_ch[nn].optimized
    if a and b then
      local ax, ay = px(a.intensity, a.gflops)
      local bx, by = px(b.intensity, b.gflops)
      local len = math.sqrt((bx - ax) ^ 2 + (by - ay) ^ 2)
      if len > 18 then
        local f = (len - 9) / len
        local ex, ey = unpx(ax + (bx - ax) * f, ay + (by - ay) * f)
        arrows[#arrows + 1] = string.format("set arrow from %.6g,%.6g to %.6g,%.6g head size screen 0.010,25 lw 1.2 lc rgb '#666666' back",
          a.intensity, a.gflops, ex, ey)
        segs[#segs + 1] = {ax, ay, bx, by}
      end
    end
  end
  local sx0, sy0 = px(xmin, C * xmin)
  segs[#segs + 1] = {sx0, sy0, rx, ry, roof = true}
  segs[#segs + 1] = {rx, ry, X1, ry, roof = true}

  local PAD, R = 2, 7 -- space kept around a label; a marker's radius (ps 1.3) and a little
  local function free(b)
    if b[1] < X0 + 1 or b[3] > X1 - 1 or b[2] < Y1 + 1 or b[4] > Y0 - 1 then return false end
    for _, m in ipairs(marks) do
      if m[1] > b[1] - R and m[1] < b[3] + R and m[2] > b[2] - R and m[2] < b[4] + R then return false end
    end
    for _, o in ipairs(boxes) do
      if b[1] < o[3] + PAD and o[1] < b[3] + PAD and b[2] < o[4] + PAD and o[2] < b[4] + PAD then return false end
    end
    return true
  end
  -- Chapters in crowded places choose first.
  local order = {}
  for _, nn in ipairs(names) do
    local at = by_ch[nn].optimized or by_ch[nn].naive
    local x, y = px(at.intensity, at.gflops)
    local crowd = 0
    for _, m in ipairs(marks) do if math.abs(m[1] - x) < 40 and math.abs(m[2] - y) < 25 then crowd = crowd + 1 end end
    order[#order + 1] = {nn = nn, x = x, y = y, crowd = crowd}
  end
  table.sort(order, function(a, b) if a.crowd ~= b.crowd then return a.crowd > b.crowd end return a.nn < b.nn end)
  local leaders = {}
  for _, o in ipairs(order) do
    local w, h = 0.6 * FS * #o.nn, 0.8 * FS
    local best, bestcost
    for _, r in ipairs({9, 13, 18, 24, 31, 40, 52, 66, 82, 100, 125}) do
      for k = 0, 23 do
        local t = math.rad(k * 15 - 30) -- right and a little up first
        local c, s = math.cos(t), -math.sin(t)
        local cx, cy = o.x + c * (r + w / 2), o.y + s * (r + h / 2)
        local b = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2}
        if free(b) then
          local cost = r + k * 0.01
          for _, sg in ipairs(segs) do if crosses(sg[1], sg[2], sg[3], sg[4], b) then cost = cost + (sg.roof and 30 or 15) end end
          if not bestcost or cost < bestcost then best, bestcost = {b = b, r = r, c = c, s = s}, cost end
        end
      end
      if bestcost and bestcost < r + 1 then break end -- free and crossing nothing: no farther spot is better
    end
    if not best then -- nowhere free: beside the marker (book/check_pdf.py will say so)
      best = {b = {o.x + 9, o.y - h / 2, o.x + 9 + w, o.y + h / 2}, r = 9}
    end
    local b = best.b
    boxes[#boxes + 1] = b
    local lx, ly = unpx(b[1], b[4] - base)
    labels[#labels + 1] = string.format("set label %s at %.6g,%.6g left %s", gq(o.nn), lx, ly, font)
    if best.r > 13 then -- a leader from the marker's edge to the label's nearest point
      local nx, ny = math.max(b[1], math.min(o.x, b[3])), math.max(b[2], math.min(o.y, b[4]))
      local d = math.sqrt((nx - o.x) ^ 2 + (ny - o.y) ^ 2)
      local fx, fy = unpx(o.x + (nx - o.x) * 6 / d, o.y + (ny - o.y) * 6 / d)
      local tx, ty = unpx(nx, ny)
      leaders[#leaders + 1] = string.format("set arrow from %.6g,%.6g to %.6g,%.6g nohead lw 0.8 lc rgb '#999999' back", fx, fy, tx, ty)
    end
  end
  for _, t in ipairs({arrows, labels, leaders}) do table.sort(t) end
  return setup .. table.concat(arrows, '\n') .. '\n' .. table.concat(leaders, '\n') .. '\n' .. table.concat(labels, '\n') .. '\n' .. body, drawn
end

local function roofline_chart(g)
  local H = 400
  local page, drawn = roofline_script(g, 680, H, 12, 10, false)
  local phone = roofline_script(g, PHONE_W, phone_height(H, 680), 11, 11, true)
  return render_chart('roofline-' .. g.gpu, page, H, 680, phone), drawn
end


-- Every chapter against its own roof: each row a chapter (its roof named), each GPU a colour and
-- marker, the naive program hollow and the optimized one filled, joined by a line; % of the roof on
-- a log axis (a few programs run at 0.1 %, a roof that is wrong reads above 100 %), the roof a
-- dashed line at 100 %. Chapters with no roof recorded keep their row, empty.
local function own_roofs_chart(gpus, rows)
  local n = #rows
  local yt, seg, pts, lo, hi, yshort = {}, {}, {}, 100, 100, {}
  local drawn = {gpus = {}, chapters = {}, missing = {}}
  for i, r in ipairs(rows) do
    local y = n - i + 1
    local names = {}
    for _, g in ipairs(gpus) do
      local rn = r.roofs[g.slug]
      if rn and not names[rn] then names[rn] = true; names[#names + 1] = rn end
    end
    yt[#yt + 1] = gq(r.nn .. ' ' .. clip(r.title, 22) .. (#names > 0 and (' · ' .. table.concat(names, '/')) or ' · none yet')) .. ' ' .. y
    yshort[#yshort + 1] = gq(r.nn .. ' · ' .. (#names > 0 and table.concat(names, '/') or 'none yet')) .. ' ' .. y
    if #names > 0 then drawn.chapters[#drawn.chapters + 1] = r.nn else drawn.missing[#drawn.missing + 1] = r.nn end
    for gi, g in ipairs(gpus) do
      local p = r.pct[g.slug]
      if p then
        local yy = y + (gi - (#gpus + 1) / 2) * 0.3
        for _, v in ipairs({'naive', 'optimized'}) do
          if p[v] then
            pts[gi .. v] = pts[gi .. v] or {}
            table.insert(pts[gi .. v], string.format('%.6g %.4f', math.max(p[v], 0.01), yy))
            lo, hi = math.min(lo, math.max(p[v], 0.01)), math.max(hi, p[v])
          end
        end
        if p.naive and p.optimized then
          seg[gi] = seg[gi] or {}
          table.insert(seg[gi], string.format('%.6g %.4f %.6g', math.max(p.naive, 0.01), yy, math.max(p.optimized, 0.01)))
        end
      end
    end
  end
  local data, plot = {}, {}
  for gi, g in ipairs(gpus) do
    if seg[gi] then
      data[#data + 1] = eod('$s' .. gi, seg[gi])
      plot[#plot + 1] = '$s' .. gi .. ' using 1:2:($3-$1):(0) with vectors nohead lw 1 lc rgb ' .. gq(gpu_color(gi)) .. ' notitle'
    end
    for _, v in ipairs({'naive', 'optimized'}) do
      if pts[gi .. v] then
        data[#data + 1] = eod('$p' .. gi .. v, pts[gi .. v])
        plot[#plot + 1] = '$p' .. gi .. v .. ' using 1:2 with points pt ' .. (v == 'naive' and gpu_marker(gi) - 1 or gpu_marker(gi)) ..
          ' ps 0.9 lw 1.5 lc rgb ' .. gq(gpu_color(gi)) .. ' title ' .. gq(g.short .. ' ' .. v)
        if v == 'naive' then drawn.gpus[#drawn.gpus + 1] = g.short end
      end
    end
  end
  if #plot == 0 then plot[1] = 'NaN notitle' end
  local setup = STYLE .. "set key at screen 0.5,0.998 center top horizontal maxrows 2 width -2 font ',11'\nset tmargin 3.5\nset logscale x\n" ..
    "set grid xtics noytics lc rgb '#e3e3e3' lt 1\n" ..
    -- a tic label is a format: %% prints %
    "set xtics scale 1 (" .. log_tics({0.01, 0.1, 1, 10, 100, 1000, 10000}, lo, hi, 3, ' %%') .. ")\nset ytics scale 0 font ',11' (" .. table.concat(yt, ', ') .. ")\n" ..
    "set xlabel '% of each chapter roof (log scale)' offset 0,0.3\nset rmargin 4\n" ..
    "set arrow from 100, graph 0 to 100, graph 1 nohead dt 2 lw 1.5 lc rgb '#333333'\n" ..
    "set label 'roof (100 %)' at 100, graph 1 center offset 0,0.6 font ',11' tc rgb '#333333'\n" ..
    string.format('set xrange [%.6g:%.6g]\nset yrange [0.4:%.1f]\n', lo / 2, hi * 2, n + 0.6)
  local body = table.concat(data, '\n') .. '\n' .. plot_of(plot)
  -- On a phone the key is an entry a line (render_chart): four lines, and the roof's label under
  -- them, need a taller top margin than two, or the key covers the first rows and that label.
  local short = with_rows(setup, yshort):gsub('set tmargin 3%.5', 'set tmargin ' .. (#gpus * 2 + 2.5))
  return render_chart('own-roofs', setup .. body, 130 + 18 * n, 640, short .. body), drawn
end

-- Pictures of a mechanism, computed from a chapter's own indexing (not drawn by hand).
-- Sectors: the 32-byte sectors one warp's request touches, a row each {name, lanes = {{byte, bytes}
-- each lane needs}, mark = a byte to mark or nil, more = a second line of words, other = bytes other
-- loads need}, from the sector of its first byte (or mark), in lines of o.line bytes, x in o.unit
-- bytes: each touched sector grey, the needed bytes blue over it (a gap at each sector's edge where
-- a run is wide enough), other's light orange. o: xlabel, xstep, tics (each line's first x as its
-- tick), and the key's words: needed, marked, other, waste (default "in a touched sector, not needed").
local function sectors_diagram(nn, rows, o)
  local used, waste, other, labels, yt, sep, drawn = {}, {}, {}, {}, {}, {}, {rows = {}}
  local U, y, gap = o.unit, 0, o.line / 300
  local function box(t, x0, x1, yl) t[#t + 1] = string.format('%.3f %.2f %.3f %.3f', (x0 + x1) / 2 / U, yl, x0 / U, x1 / U) end
  for _, r in ipairs(rows) do
    local touched, secs, lo = {}, {}, r.mark or math.huge
    for _, l in ipairs(r.lanes) do
      lo = math.min(lo, l[1])
      for s = l[1] // 32, (l[1] + l[2] - 1) // 32 do
        if not touched[s] then touched[s] = true; secs[#secs + 1] = s end
      end
    end
    table.sort(secs)
    local function joined(list) -- bytes {byte, bytes}, neighbours joined: {from, to}
      local runs = {}
      for _, l in ipairs(list) do runs[#runs + 1] = {l[1], l[1] + l[2]} end
      table.sort(runs, function(a, b) return a[1] < b[1] end)
      for k = #runs, 2, -1 do
        if runs[k][1] <= runs[k - 1][2] then runs[k - 1][2] = math.max(runs[k - 1][2], runs[k][2]); table.remove(runs, k) end
      end
      return runs
    end
    local runs, others = joined(r.lanes), joined(r.other or {})
    local origin = lo // 32 * 32
    local function at(b) return (b - origin) % o.line, (b - origin) // o.line end -- x in bytes, line
    y = y - 1 -- the row's name on a line of its own, above its boxes
    labels[#labels + 1] = string.format("set label %s at %.2f,%.2f left font ',11' tc rgb '#333333'",
      gq(r.name .. ': ' .. #secs .. (#secs == 1 and ' sector' or ' sectors')), -0.5 * o.line / U / 64, y)
    if r.more then -- a second line of words under the row's name
      y = y - 0.75
      labels[#labels + 1] = string.format("set label %s at %.2f,%.2f left font ',11' tc rgb '#333333'", gq(r.more), -0.5 * o.line / U / 64, y)
    end
    local first, lines = y - 1, (secs[#secs] * 32 + 31 - origin) // o.line + 1
    for _, s in ipairs(secs) do
      local x, l = at(s * 32)
      box(waste, x + gap, x + 32 - gap, first - l)
      for _, e in ipairs({x, x + 32}) do
        sep[#sep + 1] = string.format("set arrow from %.3f,%.2f to %.3f,%.2f nohead lw 0.5 lc rgb '#bbbbbb' back", e / U, first - l - 0.38, e / U, first - l + 0.38)
      end
      for _, ts in ipairs({{used, runs}, {other, others}}) do -- a run's bytes in this sector, inside its gaps where it is wide
        local t = ts[1]
        for _, ln in ipairs(ts[2]) do
          local b0, b1 = math.max(ln[1], s * 32) - s * 32, math.min(ln[2], s * 32 + 32) - s * 32
          local g = b1 - b0 >= 4 * gap and gap or 0
          if b0 < b1 then box(t, x + math.max(b0, g), x + math.min(b1, 32 - g), first - l) end
        end
      end
    end
    if r.mark then
      local x, l = at(r.mark)
      sep[#sep + 1] = string.format("set arrow from %.3f,%.2f to %.3f,%.2f nohead lw 2 lc rgb '#333333' front", x / U, first - l - 0.45, x / U, first - l + 0.45)
    end
    for l = 0, lines - 1 do yt[#yt + 1] = string.format("'%s' %.2f", o.tics and l * o.line // U or '', first - l) end
    y = first - lines + 1
    drawn.rows[#drawn.rows + 1] = {name = r.name, sectors = #secs}
  end
  local script = STYLE .. "set key outside top center horizontal\nset border 1\nset grid noytics noxtics\n" ..
    string.format("set xrange [%.2f:%.2f]\nset yrange [%.2f:%.2f]\n", -o.line / U / 128, o.line / U * 1.01, y - 0.6, -0.4) ..
    "set ytics scale 0 font ',10' (" .. table.concat(yt, ', ') .. ")\n" ..
    string.format("set xtics scale 1 0,%d\nset xlabel %s\n", o.xstep or o.line // U // 8, gq(o.xlabel)) ..
    table.concat(labels, '\n') .. '\n' .. table.concat(sep, '\n') .. '\n' ..
    eod('$used', used) .. '\n' .. eod('$waste', waste) .. '\n' .. (#other > 0 and eod('$other', other) .. '\n' or '') ..
    "plot $waste using 1:2:3:4:($2-0.3):($2+0.3) with boxxyerror fs solid 1.0 noborder fc rgb '#c8c8c8' title " .. gq(o.waste or 'in a touched sector, not needed') .. ", \\\n" ..
    "     $used using 1:2:3:4:($2-0.3):($2+0.3) with boxxyerror fs solid 1.0 noborder fc rgb '#2a6fb0' title " .. gq(o.needed) ..
    (#other > 0 and (", \\\n     $other using 1:2:3:4:($2-0.3):($2+0.3) with boxxyerror fs solid 1.0 noborder fc rgb '#e3a08a' title " .. gq(o.other)) or '') ..
    (o.marked and (", \\\n     NaN with lines lw 2 lc rgb '#333333' title " .. gq(o.marked)) or '') .. "\n"
  return render_chart('ch' .. nn .. '-sectors', script, 110 + 34 * -y, 680), drawn
end

-- A panel of cells (banks, divergence, requests): the points {x y} of data block NAME, each a box
-- W either side across and H up and down, in COLOUR (orange where the panel shows the costly case).
local function cells(name, pts, w, h, colour, notitle)
  return eod(name, pts) .. '\n' .. string.format("plot %s using 1:2:($1-%g):($1+%g):($2-%g):($2+%g) with boxxyerror fs solid 1.0 noborder%s fc rgb %s\n",
    name, w, w, h, h, notitle and ' notitle' or '', gq(colour))
end

-- Banks: which of the 32 shared-memory banks each lane of a warp reads when it walks down a
-- column of a tile[TILE][ROW] of floats (lane l reads element [l][0]: word ROW * l, bank
-- word mod 32), for each row length the chapter declares.
local function banks_diagram(nn, tile, row_lengths)
  local drawn = {panels = {}}
  local script, phone = multiplot(row_lengths, true, "unset key\nset grid noxtics noytics\nset border 3\n" ..
    "set xrange [-1.5:31.5]\nset yrange [31.5:-0.5]\nset xtics 0,8,31 scale 1\nset ytics 0,8,31 scale 1\nset xlabel 'bank = word mod 32'\nset ylabel 'lane'\n", function(k, rl)
    local pts, per_bank, worst = {}, {}, 0
    for lane = 0, 31 do
      local bank = (rl * lane) % 32
      pts[#pts + 1] = string.format('%d %d', bank, lane)
      per_bank[bank] = (per_bank[bank] or 0) + 1
      worst = math.max(worst, per_bank[bank])
    end
    drawn.panels[#drawn.panels + 1] = {row = rl, ways = worst}
    -- Why lane l lands where it does, in the panel's empty corner: word rl l, its bank rl l mod 32
    -- (a row of 32 k + d words moves the next row's start d banks on).
    local d, say = rl % 32, {}
    if d == 0 then
      say = {{'word ' .. rl .. '·l:', 15.5, 13, 'center'}, {'every lane in bank 0', 15.5, 16, 'center'}}
    else
      say = {{'word ' .. rl .. '·l = ' .. rl - d .. '·l + ' .. (d == 1 and '' or d) .. 'l:', 0.5, 24, 'left'},
        {'lane l in bank ' .. (d == 1 and 'l' or d .. 'l mod 32'), 0.5, 27, 'left'}}
    end
    local s = {'unset label\n'}
    for _, t in ipairs(say) do s[#s + 1] = string.format("set label %s at %.1f,%.1f %s font ',10' tc rgb '#333333'\n", gq(t[1]), t[2], t[3], t[4]) end
    return table.concat(s) .. string.format("set title %s font ',11'\n", gq(string.format('tile[%d][%d]: %d-way, %d pass%s', tile, rl, worst, worst, worst == 1 and '' or 'es'))) ..
      cells('$b' .. k, pts, 0.45, 0.45, worst > 1 and '#d1603d' or '#2a6fb0')
  end)
  -- On a phone the panels are stacked, each the column's width, so that a title with its passes fits.
  return render_chart('ch' .. nn .. '-banks', script, 340, 680, phone, 300 * #row_lengths), drawn
end

-- Divergence: for each program, which lanes of two warps run each side of the kernel's branch
-- (a row per pass a warp makes through the branch: one per side some of its lanes take). programs
-- is {{name, {warp 0: {side -> {lanes}}, warp 1: ...}}} as book.lua evaluated the branch.
local function divergence_diagram(nn, programs)
  local drawn, most, widest = {passes = {}}, 0, 0
  for _, prog in ipairs(programs) do -- every panel as many rows high as the fullest, so that rows are alike
    local n = 0
    for _, sides in ipairs(prog[2]) do
      for _, side in ipairs({'if', 'else'}) do
        n = n + (#sides[side] > 0 and 1 or 0)
        widest = math.max(widest, utf8.len(sides.said and sides.said[side] or '') + 14)
      end
    end
    most = math.max(most, n)
  end
  -- The panels are stacked, each the column's width: side by side, a row's name (its warp, side and
  -- elements) leaves its lanes little room, and on a phone a panel's title runs past the canvas.
  local script = multiplot(programs, false, "unset key\nset grid noxtics noytics\nset border 3\nset xrange [-0.5:31.5]\nset xtics 0,8,31 scale 1\n" ..
    string.format("set xlabel 'lane'\nset lmargin %d\n", math.ceil(0.8 * widest) + 1), function(k, prog) -- lmargin: the same in each panel, so that their lanes line up
    local pts, yt, row = {}, {}, 0
    for w, sides in ipairs(prog[2]) do
      for _, side in ipairs({'if', 'else'}) do
        if #sides[side] > 0 then
          row = row + 1
          yt[#yt + 1] = gq(string.format('warp %d, %s', w - 1, side) .. (sides.said and ': ' .. sides.said[side] or '')) .. ' ' .. row
          for _, l in ipairs(sides[side]) do pts[#pts + 1] = string.format('%d %d', l, row) end
        end
      end
    end
    drawn.passes[#drawn.passes + 1] = row
    return string.format("set title %s font ',11'\nset yrange [%.1f:0.5]\nset ytics scale 0 font ',11' (%s)\n",
        gq(string.format('%s: %d passes for 2 warps', prog[1], row)), most + 0.5, table.concat(yt, ', ')) ..
      cells('$d' .. k, pts, 0.42, 0.35, row > 2 and '#d1603d' or '#2a6fb0')
  end)
  return render_chart('ch' .. nn .. '-divergence', script, 190 * #programs, 680, nil, 250 * #programs), drawn
end

-- Traffic: the bytes each element moves through DRAM, kernel by kernel, for each program: a row
-- per program, a box per kernel of its reads (blue) and writes (orange). programs is {{name,
-- {{kernel, bytes read, bytes written}, ...}}} as book.lua took them from the record.
local function traffic_diagram(nn, programs)
  local boxes, labels, yt, drawn = {}, {}, {}, {rows = {}}
  local widest = 0
  for k, prog in ipairs(programs) do
    -- Rows 1.7 apart: a row's kernel names under its bars, the next row's title above its own.
    local y, x = 1 + 1.7 * (#programs - k), 0
    for _, kn in ipairs(prog[2]) do
      for part, n in ipairs({kn[2], kn[3]}) do
        if n > 0 then boxes[#boxes + 1] = string.format('%d %d %.2f %d', x, x + n, y, part); x = x + n end
      end
      labels[#labels + 1] = string.format('set label %s at %.1f,%.2f center font \',10\'', gq(kn[1]), x - (kn[2] + kn[3]) / 2, y - 0.4)
    end
    widest = math.max(widest, x)
    drawn.rows[#drawn.rows + 1] = {name = prog[1], kernels = #prog[2], bytes = x}
    yt[#yt + 1] = gq(string.format('%s: %d kernel%s, %d bytes', prog[1], #prog[2], #prog[2] > 1 and 's' or '', x) .. (prog[3] or '')) .. ' ' .. y
  end
  local script = STYLE .. "set key outside top center horizontal\nset border 1\nset grid noytics noxtics\n" ..
    string.format("set xrange [0:%d]\nset yrange [0.15:%.1f]\n", widest + 1, 1 + 1.7 * (#programs - 1) + 0.7) ..
    "set ytics scale 0 font ',11' (" .. table.concat(yt, ', ') .. ")\nset ytics offset 0,1.9 left\nset lmargin 2\n" ..
    "set xtics 0,4 scale 1\nset xlabel 'bytes each element moves through DRAM'\n" .. table.concat(labels, '\n') .. '\n' ..
    eod('$t', boxes) .. '\n' ..
    "plot $t using (($1+$2)/2):3:($1+0.1):($2-0.1):($3-0.25):($3+0.25):($4==1?0x2a6fb0:0xd1603d) with boxxyerror fs solid 1.0 noborder lc rgb variable notitle, \\\n" ..
    "     NaN with boxes fs solid 1.0 noborder lc rgb '#2a6fb0' title 'read', NaN with boxes fs solid 1.0 noborder lc rgb '#d1603d' title 'written'\n"
  return render_chart('ch' .. nn .. '-traffic', script, 260, 680), drawn
end

-- Occupancy: resident warps per SM against a resource, the least of the SM's limits, with the
-- programs marked. curves is {{name, {warps at each x}}}, the limits then the resident warps; marks
-- is {{name, x, warps, extra, lines}} (extra: fields the check compares, the program's name among
-- them); axis is {xs = {x...}, label, range, tics, direct}: each mark labelled by its lines in a
-- column at x = direct (or at its place), not in the key.
local function occupancy_diagram(nn, curves, marks, max_warps, ax)
  local xs = ax.xs
  -- The resident warps a thick line in the shade of the limit that binds at each x, so that the
  -- binding limit shows without a line of its own.
  local dark = {'#4d4d4d', '#2a6fb0', '#d1603d'}
  local resident, limits = curves[#curves][2], #curves - 1
  local function binds(i) -- the first limit equal to the resident warps at xs[i]
    for k = 1, limits do if curves[k][2][i] == resident[i] then return k end end
    return 1
  end
  local segs, bound, order = {}, {}, {}
  for i, w in ipairs(resident) do -- steps: across at this size's warps, then up or down to the next
    local k = binds(i)
    if not bound[k] then bound[k] = true; order[#order + 1] = k end -- in the order they bind, smallest x first
    local x0, x1 = xs[i], xs[math.min(i + 1, #resident)]
    segs[#segs + 1] = string.format('%d %d %d 0 %d', x0, w, x1 - x0, rgb_int(dark[k]))
    if resident[i + 1] then segs[#segs + 1] = string.format('%d %d 0 %d %d', x1, w, resident[i + 1] - w, rgb_int(dark[binds(i + 1)])) end
  end
  local plot = {'$r using 1:2:3:4:5 with vectors nohead lw 2.5 lc rgb variable notitle'}
  local m, drawn = {}, {marks = {}, binds = {}}
  for _, k in ipairs(order) do
    drawn.binds[#drawn.binds + 1] = curves[k][1]
    plot[#plot + 1] = string.format("keyentry with lines lw 2.5 lc rgb '%s' title %s", dark[k],
      gq('resident: ' .. curves[k][1]:gsub(' limit$', '') .. ' binds'))
  end
  -- Each point's lines (mk[5]) in a column at x = ax.direct, the highest point's on top, a thin
  -- line from the point to its text.
  local order_m, texts = {}, {}
  for k in ipairs(marks) do order_m[k] = k end
  table.sort(order_m, function(a, b) return marks[a][3] > marks[b][3] end)
  local top, LINE = max_warps + 2, 3.4
  for _, k in ipairs(order_m) do
    local mk = marks[k]
    local at = mk.place -- {x, y, 'left' or 'right', leader's x, leader's y}: the lines there, not in the column
    local x, y, align = ax.direct, top, 'left'
    if at then
      x, y, align = at[1], at[2], at[3]
      if at[4] then texts[#texts + 1] = string.format("set arrow from %d,%.2f to %.1f,%.2f nohead lw 0.8 lc rgb '#777777' back", mk[2], mk[3], at[4], at[5]) end
    else
      local below = top - LINE * (#mk[5] - 1) - 2.2 -- under its last line: where a point right of the column points
      texts[#texts + 1] = mk[2] < ax.direct and
        string.format("set arrow from %d,%d to %.1f,%.2f nohead lw 0.8 lc rgb '#777777' back", mk[2], mk[3], ax.direct - 2, top - 0.5) or
        string.format("set arrow from %d,%d to %d,%.2f nohead lw 0.8 lc rgb '#777777' back", mk[2], mk[3], mk[2], below)
      top = top - LINE * #mk[5] - 1.6
    end
    for i, line in ipairs(mk[5]) do
      texts[#texts + 1] = string.format("set label %s at %.1f,%.2f %s font ',10' tc rgb '#222222'", gq(line), x, y - LINE * (i - 1), align)
    end
  end
  for k, mk in ipairs(marks) do -- each program's point
    m[#m + 1] = string.format('$m%d << EOD\n%d %d\nEOD', k, mk[2], mk[3])
    plot[#plot + 1] = string.format("$m%d using 1:2 with points pt %d ps 1.4 lc rgb '#000000' notitle", k, ({6, 7, 5, 9, 4})[(k - 1) % 5 + 1])
    local d = {name = mk[1], x = mk[2], warps = mk[3]}
    for key, v in pairs(mk[4] or {}) do d[key] = v end -- what else the check compares (the program, its blocks)
    drawn.marks[#drawn.marks + 1] = d
  end
  local script = STYLE .. "set key outside top center horizontal\nset grid ytics\n" ..
    string.format("set xrange [%s]\nset yrange [0:%d]\nset xtics %s scale 1\nset ytics 0,8\n", ax.range, max_warps + 6, ax.tics) ..
    "set xlabel " .. gq(ax.label) .. "\nset ylabel 'resident warps per SM'\n" .. (#texts > 0 and table.concat(texts, '\n') .. '\n' or '') ..
    eod('$r', segs) .. '\n' .. table.concat(m, '\n') .. '\n' .. plot_of(plot)
  return render_chart('ch' .. nn .. '-occupancy', script, 360, 680), drawn
end

-- Local memory: panels of bars, a row each, its text above its bars (one or one per GPU), a bar
-- segments {value, colour (a number: that GPU's)}: panels is {{title, {{text, {{{value, colour}...}...}}}}}.
-- key, if given, {{name, colour}}: a box each, above the first panel.
local function local_diagram(nn, panels, key)
  local function script(cols, top)
    return (multiplot(panels, false, "unset key\nset border 1\nset grid noxtics noytics\n" ..
      "unset ytics\nset lmargin 2\nset rmargin 4\nset xtics out scale 0.6 font ',10'\n", function(k, p)
      local boxes, labels, widest = {}, {}, 0
      for i, r in ipairs(p[2]) do
        local y = 1.8 * (#p[2] - i) + 1 -- the first row on top, its text above its bars, clear of them
        for b, bar in ipairs(r[2]) do
          local x, yb, h = 0, y - 0.2 * (b - 1), #r[2] > 1 and 0.15 or 0.3
          for _, seg in ipairs(bar) do
            if seg[1] > 0 then boxes[#boxes + 1] = string.format('%.4g %.4g %.3f %.3f %d', x, x + seg[1], yb - h / 2, yb + h / 2,
              rgb_int(type(seg[2]) == 'number' and gpu_color(seg[2]) or seg[2])) end
            x = x + seg[1]
          end
          widest = math.max(widest, x)
        end
        labels[#labels + 1] = string.format("set label %s at first 0,%.2f left font ',11' tc rgb '#333333'", gq(r[1]), y + 0.7)
      end
      local keyed = {}
      for _, e in ipairs(k == 1 and key or {}) do keyed[#keyed + 1] = ', keyentry with boxes fc rgb ' .. gq(e[2]) .. ' title ' .. gq(e[1]) end
      return (#keyed > 0 and string.format("set key at screen 0.5,0.995 center top horizontal maxcols %d\nset tmargin %.1f\n", cols, top) or
          (k == 2 and key and #key > 0 and "unset key\nset tmargin -1\n" or '')) ..
        string.format("set title %s font ',11'\nunset label\nset xrange [0:%.4g]\nset yrange [0.4:%.2f]\n",
          gq(p[1]), widest * 1.04 + 1e-9, 1.8 * (#p[2] - 1) + 2.05) .. table.concat(labels, '\n') .. '\n' ..
        eod('$l' .. k, boxes, '0 0 0 0 0') .. '\n' ..
        "plot $l" .. k .. " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle" ..
        table.concat(keyed) .. "\n"
    end))
  end
  local n = key and #key or 0
  return render_chart('ch' .. nn .. '-local', script(n, 4.5), 160 * #panels + 10 + (n > 0 and 30 or 0), 680,
    script(2, 3 + 1.5 * ((n + 1) // 2)), 180 * #panels + 10 + 24 * ((n + 1) // 2))
end

-- Requests: which lanes of one warp each request (or pass) serves, a panel per program and
-- setting: a row per request, top to bottom. panels is {{title, ylabel, rows = {{lanes}}, note, says}}
-- as book.lua computed them from the program's keys; says, above the panel in its colour (orange:
-- a request an entry, more than 8 rows; blue: the lanes served together), is the colour's key.
local function requests_diagram(nn, panels)
  local n = 0
  for _, p in ipairs(panels) do n = math.max(n, #p.rows) end
  local rows_y = table.concat({n // 4, n // 2, 3 * n // 4, n}, ', ')
  local drawn = {panels = {}}
  local script, phone = multiplot(panels, true, "set tmargin 3.5\nunset key\nset grid noxtics noytics\nset border 3\n" ..
    string.format("set xrange [-0.5:31.5]\nset yrange [%.1f:0.5]\nset xtics 0,8,31 scale 1\nset ytics (1, %s) scale 1\nset xlabel 'lane'\n",
      n + 0.5, rows_y), function(k, p)
    local pts = {}
    for row, lanes in ipairs(p.rows) do
      for _, l in ipairs(lanes) do pts[#pts + 1] = string.format('%d %d', l, row) end
    end
    drawn.panels[k] = {title = p.title, rows = #p.rows}
    -- A panel of a few rows (p.own) on its own scale, its rows tall enough to tell apart, its note under them.
    local own = p.own and string.format("set yrange [%.1f:0.5]\nset ytics 1,1,%d\n", #p.rows + (p.note and 1.5 or 0.5), #p.rows) or
      string.format("set yrange [%.1f:0.5]\nset ytics (1, %s)\n", n + 0.5, rows_y)
    local color = #p.rows > 8 and '#d1603d' or '#2a6fb0'
    return string.format("set title %s font ',11'\nset ylabel %s\nunset label\n", gq(p.title), gq(p.ylabel)) .. own ..
      (p.says and string.format("set label %s at graph 0.5,1.06 center font ',10' tc rgb '%s'\n", gq(p.says), color) or '') ..
      (p.note and string.format("set label %s at 15.5,%.1f center font ',10' tc rgb '#333333'\n", gq(p.note), #p.rows + (p.own and 1 or 2.5)) or '') ..
      cells('$q' .. k, pts, 0.42, 0.4, color, true)
  end)
  -- On a phone the panels are stacked, each the column's width (side by side the lane ticks run together).
  return render_chart('ch' .. nn .. '-requests', script, 340, 680, phone, 240 * #panels), drawn
end

-- Store sectors: the 32-byte sectors one warp's access touches, for each row {name, {word of
-- lane 0, ..., lane 31}}: only the touched sectors are drawn, in address order, 8 to a line, a
-- gap between two that are not neighbours in memory; a float a lane accesses blue, the rest of
-- its sector grey.
local function store_sectors_diagram(nn, rows, waste_key)
  local wk = waste_key or 'moved, not needed' -- the key's words for the grey
  local used, waste, labels, yt, sep, drawn = {}, {}, {}, {}, {}, {rows = {}}
  local y, PER = 0, 8
  for _, r in ipairs(rows) do
    local lane_of, secs, seen = {}, {}, {}
    for lane, w in ipairs(r[2]) do
      lane_of[w] = lane - 1
      if not seen[w // 8] then seen[w // 8] = true; secs[#secs + 1] = w // 8 end
    end
    table.sort(secs)
    y = y - 1
    labels[#labels + 1] = string.format("set label %s at -0.5,%.2f left font ',11' tc rgb '#333333'", gq(r[1] .. ': ' .. #secs .. ' sectors'), y)
    local x, lo, hi = 0, 99, -1
    for k, sec in ipairs(secs) do
      if (k - 1) % PER == 0 then -- a new line
        if k > 1 then yt[#yt + 1] = string.format("'lanes %d–%d' %.2f", lo, hi, y) end
        y, x, lo, hi = y - 1, 0, 99, -1
      elseif sec ~= secs[k - 1] + 1 then
        x = x + 2
      else -- a neighbour: a gap (wider than a float's divider) and a line between the two
        x = x + 1
        sep[#sep + 1] = string.format("set arrow from %.1f,%.2f to %.1f,%.2f nohead lw 0.5 lc rgb '#bbbbbb' back", x - 1, y - 0.35, x - 1, y + 0.35)
      end
      for w = sec * 8, sec * 8 + 7 do
        local l = lane_of[w]
        if l then lo, hi = math.min(lo, l), math.max(hi, l) end
        table.insert(l and used or waste, string.format('%.1f %.2f', x, y))
        x = x + 1
      end
    end
    yt[#yt + 1] = string.format("'lanes %d–%d' %.2f", lo, hi, y)
    drawn.rows[#drawn.rows + 1] = {name = r[1], sectors = #secs}
  end
  local script = STYLE .. "set key outside top center horizontal\nset border 0\nset grid noytics noxtics\nunset xtics\n" ..
    string.format("set xrange [-1:%d]\nset yrange [%.2f:%.2f]\n", PER * 8 + 2 * (PER - 1), y - 0.6, -0.4) ..
    "set ytics scale 0 font ',10' (" .. table.concat(yt, ', ') .. ")\n" ..
    "set xlabel " .. gq('a box: 4 bytes; 8 boxes: a 32-byte sector') .. "\n" ..
    table.concat(labels, '\n') .. '\n' .. table.concat(sep, '\n') .. '\n' ..
    eod('$used', used) .. '\n' .. eod('$waste', waste, 'NaN NaN') .. '\n' ..
    "plot $used using 1:2:($1-0.45):($1+0.45):($2-0.3):($2+0.3) with boxxyerror fs solid 1.0 noborder fc rgb '#2a6fb0' title 'float a lane accesses', \\\n" ..
    "     $waste using 1:2:($1-0.45):($1+0.45):($2-0.3):($2+0.3) with boxxyerror fs solid 1.0 noborder fc rgb '#c8c8c8' title " ..
    gq(wk) .. "\n"
  -- On a phone a float's 4-byte divider blurs into the gap between sectors: the floats of a colour
  -- are drawn as one run, the sectors alone apart.
  -- Its key one entry a line, the grey's words broken after their first comma.
  local phone = script:gsub('%(%$1%-0%.45%):%(%$1%+0%.45%)', '($1-0.5):($1+0.5)'):gsub('center horizontal\n', 'center vertical spacing 1.4\n', 1)
    :gsub('title ' .. gq(wk):gsub('%p', '%%%0'), (('title "' .. wk:gsub(', ', ',\\n', 1) .. '"'):gsub('%%', '%%%%')))
    :gsub('a box: 4 bytes; 8 boxes: a 32%-byte sector', 'a box: a 32-byte sector, 8 floats')
  return render_chart('ch' .. nn .. '-sectors', script, 110 + 30 * -y, 680, phone), drawn
end

-- Streams: each program's work on a model clock, a panel per program: a box per operation
-- ({x0, x1, row, colour, text inside or nil}) in rows named by ytics ({{name, y}}), a dashed line
-- where a recorded time ends ({x, text, y of the text, gap}: the line up to its text, in an empty row
-- above the boxes, so that a higher text clears a lower line; gap: characters more between them), a
-- title per panel; the panels share one time axis, so that lengths compare, unless own = true.
local function extent(p, right) -- the latest a panel's boxes and marks reach, or RIGHT
  for _, b in ipairs(p.boxes) do right = math.max(right, b[2]) end
  for _, m in ipairs(p.marks) do right = math.max(right, m[1]) end
  return right
end
local function streams_diagram(nn, panels, xlabel, key, height)
  local right = 0
  for _, p in ipairs(panels) do right = extent(p, right) end
  right = right * 1.03
  local shared, drawn = right, {titles = {}}
  local script = multiplot(panels, false, "set key outside top center horizontal\nset grid noxtics noytics\nset border 1\n" ..
    string.format("set xrange [0:%.5g]\nset xtics scale 1\nset ytics scale 0 font ',10'\n", right), function(k, p)
    local rows, text, s = {}, {}, ''
    if p.own or right ~= shared then -- a panel on a time axis of its own, or the shared one again after it
      right = p.own and extent(p, 0) * 1.03 or shared
      s = string.format("set xrange [0:%.5g]\n", right)
    end
    local gap = right * 0.0012
    for _, b in ipairs(p.boxes) do
      rows[#rows + 1] = string.format('%.5g %.5g %.3f %d', b[1] + gap, math.max(b[1] + gap, b[2] - gap), b[3], rgb_int(b[4]))
      if b[5] then text[#text + 1] = string.format("set label %s at %.5g,%.3f center font ',10' tc rgb '#ffffff' front", gq(b[5]), (b[1] + b[2]) / 2, b[3]) end
    end
    for _, m in ipairs(p.marks) do
      local left = m[1] > right / 2 -- the text on the side of the line with room for it
      text[#text + 1] = string.format("set arrow from %.5g,%.3f to %.5g,%.3f nohead dt 2 lw 1.5 lc rgb '#333333' front", m[1], p.yrange[1], m[1], m[3] + 0.06 * (p.yrange[2] - p.yrange[1]))
      text[#text + 1] = p.pad and -- p.pad: the text that many characters clear of its line, at any width
        string.format("set label %s at %.5g,%.3f %s offset %g,0 font ',10' front", gq(m[2]), m[1], m[3], left and 'right' or 'left', (left and -1 or 1) * p.pad) or
        string.format("set label %s at %.5g,%.3f %s font ',10' front", gq(m[2]), m[1] + (left and -1 or 1) * right * 0.008, m[3], left and 'right' or 'left') ..
        (m[4] and string.format(' offset %.2f,0', (left and -1 or 1) * m[4]) or '') -- m[4]: a further gap, in characters
    end
    local yt = {}
    for _, t in ipairs(p.ytics) do -- a name of two lines (a newline in it) in double quotes, where gnuplot reads \n
      yt[#yt + 1] = (t[1]:find('\n') and '"' .. t[1]:gsub('["\\]', '\\%0'):gsub('\n', '\\n') .. '"' or gq(t[1])) .. ' ' .. t[2]
    end
    drawn.titles[k] = p.title
    s = s .. string.format("set title %s font ',11'\nset yrange [%.3f:%.3f]\nset ytics (%s)\nunset label\nunset arrow\n%s\n",
        gq(p.title), p.yrange[1], p.yrange[2], table.concat(yt, ', '), table.concat(text, '\n')) ..
      (k == #panels and 'set xlabel ' .. gq(xlabel) .. '\n' or '') .. (k == 2 and 'unset key\n' or '') ..
      eod('$s' .. k, rows) .. '\n' ..
      string.format("plot $s%d using (($1+$2)/2):3:1:2:($3-%.3f):($3+%.3f):4 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle", k, p.half, p.half)
    for _, e in ipairs(k == 1 and key or {}) do s = s .. ', NaN with boxes lc rgb ' .. gq(e[2]) .. ' title ' .. gq(e[1]) end
    return s .. '\n'
  end)
  -- On a phone the key is an entry a line on the canvas above the panels (in the first panel's
  -- space, as on the page, it left that panel's rows half the height of the others'), and each
  -- panel's plot an equal share of what the key, the titles and the axes leave (in pixels: a key
  -- line, a title above a plot, the tick labels under it and the last one's axis label).
  local ph, n = phone_height(height or 340, 680), #panels
  local KEY, TITLE, TICS, XLABEL = 18.2, 30, 34, 18
  local at = #key * KEY + 12
  local plot_h = (ph - at - n * (TITLE + TICS) - XLABEL - 4) / n
  local phone = script:gsub('set multiplot layout %d+,1\nset key outside top center horizontal\n',
      string.format('set multiplot\nset key at screen 0.5,%.4f center top vertical maxrows %d\n', 1 - 4 / ph, #key), 1)
    :gsub('\nplot %$s(%d+) ', function(k)
      local top = at + (k - 1) * (TITLE + plot_h + TICS) + TITLE
      return string.format('\nset tmargin at screen %.4f\nset bmargin at screen %.4f\nplot $s%d ', 1 - top / ph, 1 - (top + plot_h) / ph, tonumber(k))
    end)
  return render_chart('ch' .. nn .. '-streams', script, height, 680, phone, ph), drawn
end

-- Bytes in flight (Little's law): each GPU's launches at the bytes of loads in flight per SM (log)
-- against the share of the copy roof they reached, and Little's law at its latency L0 a dashed line,
-- capped at 100%. gpus is as pictures.lua's inflight computed it. Programs are told apart by fill
-- (naive hollow, optimized filled, sweep rows small), GPUs by colour and marker, each GPU's markers
-- and line shifted 2^(+-SHIFT) octaves to its own side, so that the same bytes on two GPUs hide neither.
local function kib(b) return b >= 1024 and (ftoa(b / 1024, 1):gsub('%.0$', '') .. ' KB') or (ftoa(b, 0) .. ' B') end
local function inflight_diagram(nn, gpus)
  local data, plot, lines, lo, hi = {}, {}, {}, math.huge, 0
  local drawn = {lines = {}, programs = {}}
  local SHIFT = 0.14
  for gi, g in ipairs(gpus) do
    local sets, shift = {{}, {}, {}}, 2 ^ ((gi - (#gpus + 1) / 2) * 2 * SHIFT)
    local pts = {}
    for _, p in ipairs(g.points) do
      local k = not p[4] and 3 or (p[3] == 'naive' and 1 or 2)
      sets[k][#sets[k] + 1] = string.format('%.6g %.6g', p[1] * shift, p[2])
      lo, hi = math.min(lo, p[1]), math.max(hi, p[1])
      pts[#pts + 1] = {bytes = p[1], rate = p.rate, program = p[3]}
    end
    for k, set in ipairs(sets) do
      data[#data + 1] = eod('$p' .. gi .. k, set, 'NaN NaN')
      plot[#plot + 1] = string.format("$p%d%d using 1:2 with points pt %d ps %.1f lw 1.5 lc rgb %s notitle", gi, k,
        k == 1 and gpu_marker(gi) - 1 or gpu_marker(gi), k == 3 and 0.6 or 1.5, gq(gpu_color(gi)))
    end
    local l = g.least
    local line = {gpu = g.gpu, short = g.short, l0 = g.l0, ns = ftoa(g.l0, 0) .. ' ns', sms = g.sms, per_ns = g.per_ns, points = pts,
      least = {name = l[3], warps = l.warps, loads = l.loads, width = l.width, bytes = l[1], kb = kib(l[1]), rate = l.rate}}
    drawn.lines[gi] = line
    local a = 100 / (g.l0 * g.per_ns) / shift -- drawn at the GPU's shifted bytes, as its markers are
    lines[#lines + 1] = string.format("(x * %.6g < 100 ? x * %.6g : 100) with lines dt 2 lw 2 lc rgb %s title %s", a, a, gq(gpu_color(gi)),
      gq(string.format('%s: bytes in flight / %s', g.short, line.ns)))
  end
  for k, p in ipairs(gpus[1].programs) do
    local text = string.format('%s: %d warps × 32 × %d B × %d = %s', p.name, p.warps, p.width, p.loads, kib(p.bytes))
    drawn.programs[k] = {name = p.name, warps = p.warps, loads = p.loads, width = p.width, kb = kib(p.bytes), bytes = p.bytes}
    plot[#plot + 1] = string.format("keyentry with points pt %d ps 1.5 lw 1.5 lc rgb '#333333' title %s", p.name == 'naive' and 6 or 7, gq(text))
  end
  plot[#plot + 1] = "keyentry with points pt 7 ps 0.6 lc rgb '#333333' title 'other launches (sweep rows)'"
  -- Ticks at powers of two, every other one on a phone, where five labels fill the axis.
  local x0, x1 = 2 ^ math.floor(math.log(lo, 2) - 0.5), 2 ^ math.ceil(math.log(hi, 2) + 0.5)
  local function script(every)
    local t, i = {}, 0
    local b = x0
    while b <= x1 do
      if i % every == 0 then t[#t + 1] = gq(kib(b)) .. ' ' .. b end
      b, i = b * 2, i + 1
    end
    return STYLE .. 'set key outside top center vertical reverse Left\n' .. -- one title a line: horizontal, gnuplot cannot fit them on a phone
      string.format("set logscale x 2\nset xrange [%.6g:%.6g]\nset yrange [0:105]\nset xtics scale 1 (%s)\nset ytics 0,20,100\nset samples 400\n", x0, x1, table.concat(t, ', ')) ..
      "set xlabel 'bytes of loads in flight per SM (log scale)'\nset ylabel '% of the copy roof'\n" ..
      "set arrow from graph 0, first 100 to graph 1, first 100 nohead lw 1 lc rgb '#999999' back\n" ..
      table.concat(data, '\n') .. '\nplot ' .. table.concat(lines, ', \\\n     ') .. ', \\\n     ' .. table.concat(plot, ', \\\n     ') .. '\n'
  end
  return render_chart('ch' .. nn .. '-inflight', script(1), 400, 680, script(2), 520), drawn
end

-- Tiling: one block's tile of C (tile × tile elements, a thread each), the row panel of A and the
-- column panel of B it reads (cut to their `shown` slices nearest the tile, slices apart by a
-- white line), a panel per program: row r and column c of the tile (the threads that use one float
-- of A's row r and of B's column c), those floats in A and B, and (tiled) the slice in shared
-- memory. panels is {{title, tiled = bool, lines = {{text, colour}}}} as book.lua computed them.
local function tiling_diagram(nn, tile, panels)
  local T, S, G = tile, 2, 4
  local X, Y, r, col = S * T + G, T + G, T // 4, T // 2 -- C's corner; the row and column drawn
  local GREY = '#e3e3e3'
  local drawn = {panels = {}}
  local script, phone = multiplot(panels, true, "unset key\nunset border\nunset tics\nset grid noxtics noytics\n" ..
    string.format("set size ratio -1\nset xrange [-8:%d]\nset yrange [-11:%d]\n", X + T + 2, Y + S * T + 2), function(k, p)
    local hot, light = p.tiled and '#2a6fb0' or '#d1603d', p.tiled and '#a9c6e6' or '#e3a08a'
    local b = {}
    local function box(x0, x1, y0, y1, colour) b[#b + 1] = string.format('%.2f %.2f %.2f %.2f %d', x0, x1, y0, y1, rgb_int(colour)) end
    for s = 0, S - 1 do -- the slices of A (left to right) and of B (top to bottom); the last nearest C
      local shared = p.tiled and s == S - 1
      box(s * T + 0.3, (s + 1) * T - 0.3, 0, T, shared and light or GREY)
      box(X, X + T, Y + (S - 1 - s) * T + 0.3, Y + (S - s) * T - 0.3, shared and light or GREY)
    end
    box(X, X + T, 0, T, GREY)
    local a0 = p.tiled and (S - 1) * T or 0 -- the floats of row r (column c) a program loads: tiled, this slice's
    box(a0 + 0.3, S * T - 0.3, T - r - 1, T - r, hot)
    box(X + col, X + col + 1, Y + 0.3, Y + (p.tiled and T or S * T) - 0.3, hot)
    box(X, X + T, T - r - 1, T - r, light)
    box(X + col, X + col + 1, 0, T, light)
    box(X + col, X + col + 1, T - r - 1, T - r, hot)
    local labels = {
      string.format("set label %s at %.1f,-6 center font ',10'", gq('A: ' .. T .. ' × ' .. p.n), S * T / 2),
      string.format("set label %s at %.1f,-6 center font ',10'", gq('C: ' .. T .. ' × ' .. T), X + T / 2),
      string.format("set label %s at %.1f,%.1f right font ',10'", gq('B: ' .. p.n .. ' × ' .. T), X - 2, Y + T),
      string.format("set label '⋯' at -4,%.1f center font ',10'", T / 2),
      string.format("set label '⋮' at %.1f,%.1f center font ',10'", X + T / 2, Y + S * T + 1),
      p.tiled and string.format("set label 'in shared' at %.1f,%.1f center font ',10' front", (S - 0.5) * T, T / 4) or ''}
    for i, l in ipairs(p.lines) do
      labels[#labels + 1] = string.format("set label %s at 0,%.1f left font ',10' tc rgb %s", gq(l[1]), Y + S * T - 3 - 7 * (i - 1), gq(l[2] or '#333333'))
    end
    drawn.panels[k] = {title = p.title}
    return string.format("set title %s font ',11'\nunset label\n", gq(p.title)) .. table.concat(labels, '\n') .. '\n' ..
      eod('$t' .. k, b) .. '\n' ..
      "plot $t" .. k .. " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle\n"
  end)
  return render_chart('ch' .. nn .. '-tiling', script, 370, 680, phone, 340 * #panels), drawn
end

return function(dir, fail_fn)
  CHARTS, fail = dir, fail_fn
  sh('mkdir -p ' .. q(CHARTS))
  return {chapter = chapter_chart, sweep = sweep_chart, summary = summary_chart, roofline = roofline_chart, own_roofs = own_roofs_chart, sectors = sectors_diagram, banks = banks_diagram, divergence = divergence_diagram, traffic = traffic_diagram, occupancy = occupancy_diagram, localmem = local_diagram, requests = requests_diagram, store_sectors = store_sectors_diagram, streams = streams_diagram, inflight = inflight_diagram, tiling = tiling_diagram, flush = flush}
end
