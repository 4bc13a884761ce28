-- book/charts.lua: the book's charts, for book/book.lua. A chart is a gnuplot script drawn as SVG
-- (HTML, EPUB) and converted to PDF by rsvg-convert (LaTeX); an unchanged script is not redrawn.
-- Returns function(dir, fail) -> {chapter = function(nn, chart), sweep = function(nn, sweep_chart),
-- summary = function(gpus, rows)}, where the arguments are as in the JSON of `scripts/results.py book-json`.

local VARIANT_COLOR = {naive = '#d1603d', optimized = '#2a6fb0', library = '#8c8c8c'}
local GPU_COLORS = {'#3a9a5b', '#8e5bb5', '#c49a1b', '#4d4d4d', '#1b9aaa', '#b5485d'}
local CHARTS, fail

local shell = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'shell.lua')
local q, sh, read_file = shell.q, shell.sh, shell.read_file
local function ftoa(x, digits) return string.format('%.' .. digits .. 'f', x) end

local function gq(s) return "'" .. tostring(s):gsub("'", "''") .. "'" end
local function rgb_int(hex) return tonumber(hex:sub(2), 16) end

local function render_chart(name, script)
  local gp, svg, pdf = CHARTS .. '/' .. name .. '.gp', CHARTS .. '/' .. name .. '.svg', CHARTS .. '/' .. name .. '.pdf'
  script = 'set terminal svg size 680,340 font "DejaVu Sans,12" background rgb "white"\n' ..
           'set output ' .. gq(svg) .. '\n' .. script
  if read_file(gp) == script and read_file(pdf) then return svg end -- drawn from this script already
  local f = io.open(gp, 'wb') or fail('cannot write %s', gp)
  f:write(script)
  f:close()
  local out, code = sh('gnuplot ' .. q(gp))
  if code ~= 0 or out:match('%S') then fail('gnuplot failed on %s:\n%s', gp, out) end
  out, code = sh('rsvg-convert -f pdf -o ' .. q(pdf) .. ' ' .. q(svg))
  if code ~= 0 then fail('rsvg-convert failed on %s:\n%s', svg, out) end
  return svg
end

local STYLE = [[
set encoding utf8
set termoption noenhanced
set border 3 lc rgb '#555555'
set tics nomirror
set xtics scale 0
set grid ytics lc rgb '#e3e3e3' lt 1
set style fill solid 0.9 noborder
set key top left horizontal samplen 1.5 spacing 1.1 box lc rgb '#ffffff' opaque
]]

-- Bars (x, y, colour) with a value label above each, plus optional extra plot clauses.
local function bar_chart(name, bars, labels, xtics, setup, extra, key)
  local data = {'$bars << EOD'}
  for _, b in ipairs(bars) do
    data[#data + 1] = string.format('%.4f %.6g %.4f %.4f %.6g %.6g %d', b.x, b.y, b.x - b.w, b.x + b.w,
                                    b.lo or 0, b.hi or b.y, rgb_int(b.color))
  end
  if #bars == 0 then data[#data + 1] = 'NaN NaN NaN NaN NaN NaN 0' end -- gnuplot needs a point
  data[#data + 1] = 'EOD\n$labels << EOD'
  for _, l in ipairs(labels) do data[#data + 1] = string.format('%.4f %.6g "%s"', l.x, l.y, l.text) end
  if #labels == 0 then data[#data + 1] = 'NaN NaN ""' end
  data[#data + 1] = 'EOD'
  local plot = {"$bars using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle",
                "$labels using 1:2:3 with labels font ',10' offset 0,0.3 notitle"}
  for _, e in ipairs(extra) do plot[#plot + 1] = e end
  for _, k in ipairs(key) do plot[#plot + 1] = 'keyentry with boxes fc rgb ' .. gq(k[2]) .. ' title ' .. gq(k[1]) end
  return render_chart(name, STYLE .. table.concat(data, '\n') .. '\n' .. setup ..
    'set xtics (' .. table.concat(xtics, ', ') .. ')\nplot ' .. table.concat(plot, ', \\\n     ') .. '\n')
end

-- One chapter: a bar per program, clustered by GPU, each GPU's roof as a dashed line.
local function chapter_chart(nn, chart)
  local bars, labels, xt, roofs, ymax = {}, {}, {}, {}, 0
  local stride = #chart.variants + 1
  for gi, g in ipairs(chart.series) do
    local x0 = (gi - 1) * stride
    for vi, v in ipairs(chart.variants) do
      local y = g.values[v]
      if y then
        bars[#bars + 1] = {x = x0 + vi - 1, y = y, w = 0.4, color = VARIANT_COLOR[v] or '#4d4d4d'}
        ymax = math.max(ymax, y)
      elseif g.labels[v] then
        labels[#labels + 1] = {x = x0 + vi - 1, y = 0, text = g.labels[v]}
      end
    end
    if g.roof then
      roofs[#roofs + 1] = string.format('%.3f %.6g %.3f 0', x0 - 0.5, g.roof, #chart.variants)
      ymax = math.max(ymax, g.roof)
    end
    xt[#xt + 1] = gq(g.short) .. ' ' .. ftoa(x0 + (#chart.variants - 1) / 2, 2)
  end
  ymax = ymax > 0 and ymax * 1.18 or 1
  for _, b in ipairs(bars) do
    labels[#labels + 1] = {x = b.x, y = b.y + ymax * 0.02, text = ftoa(b.y, b.y >= 100 and 0 or (b.y >= 10 and 1 or 2))}
  end
  local extra, setup = {}, 'set ylabel ' .. gq(chart.axis) .. '\n' ..
    string.format('set xrange [-0.8:%.2f]\nset yrange [0:%.6g]\n', #chart.series * stride - 1.2, ymax)
  if #roofs > 0 then
    setup = setup .. '$roofs << EOD\n' .. table.concat(roofs, '\n') .. '\nEOD\n'
    extra[1] = "$roofs using 1:2:3:4 with vectors nohead dt 2 lw 2 lc rgb '#333333' title " .. gq(chart.roof_title or 'roof')
  end
  local key = {}
  for _, v in ipairs(chart.variants) do key[#key + 1] = {v, VARIANT_COLOR[v] or '#4d4d4d'} end
  return bar_chart('ch' .. nn, bars, labels, xt, setup, extra, key)
end

-- One program's rate against the one knob its sweeps vary: a line per GPU and, where the GPU has
-- one, its roof as a dashed line of the same colour.
local function sweep_chart(nn, sc)
  local data, plot, ymax, xmin, xmax = {}, {}, 0, math.huge, -math.huge
  for gi, g in ipairs(sc.series) do
    local color = gq(GPU_COLORS[(gi - 1) % #GPU_COLORS + 1])
    data[#data + 1] = '$s' .. gi .. ' << EOD'
    for _, p in ipairs(g.points) do
      data[#data + 1] = string.format('%.6g %.6g', p[1], p[2])
      ymax, xmin, xmax = math.max(ymax, p[2]), math.min(xmin, p[1]), math.max(xmax, p[1])
    end
    data[#data + 1] = 'EOD'
    plot[#plot + 1] = '$s' .. gi .. ' using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb ' .. color ..
                      ' title ' .. gq(g.short)
    if g.roof then
      plot[#plot + 1] = string.format('%.6g with lines dt 2 lw 2 lc rgb %s title %s', g.roof, color,
                                      gq(g.short .. ' ' .. (sc.roof_title or 'roof')))
      ymax = math.max(ymax, g.roof)
    end
  end
  -- The curves rise to the right, so the key goes bottom right, clear of them and of the roofs.
  local pad = (xmax - xmin) * 0.03
  local setup = "set key bottom right vertical Left reverse\nset grid xtics ytics lc rgb '#e3e3e3' lt 1\nset xtics scale 1\n" ..
    'set ylabel ' .. gq(sc.axis) .. '\nset xlabel ' .. gq('--' .. sc.knob .. ' (' .. sc.program .. ' program)') .. '\n' ..
    string.format('set xrange [%.6g:%.6g]\nset yrange [0:%.6g]\n', math.max(0, xmin - pad), xmax + pad, ymax > 0 and ymax * 1.12 or 1)
  return render_chart('ch' .. nn .. '-sweep', STYLE .. table.concat(data, '\n') .. '\n' .. setup ..
    'plot ' .. table.concat(plot, ', \\\n     ') .. '\n')
end

-- The summary: speedup of optimized over naive, per chapter and GPU, on a log scale.
local function summary_chart(gpus, summary)
  local ng = #gpus
  local w, bars, labels, xt, lo, hi = 0.8 / ng, {}, {}, {}, 1, 1
  for i, row in ipairs(summary) do
    xt[#xt + 1] = gq(row.nn) .. ' ' .. (i - 1)
    for gi, g in ipairs(gpus) do
      local s = (row.speedups[g.slug] or {}).speedup
      if s then
        local x = (i - 1) - 0.4 + w * (gi - 0.5)
        bars[#bars + 1] = {x = x, y = s, w = w * 0.45, lo = math.min(1, s), hi = math.max(1, s),
                           color = GPU_COLORS[(gi - 1) % #GPU_COLORS + 1]}
        labels[#labels + 1] = {x = x, y = s >= 1 and s * 1.05 or s / 1.25, text = ftoa(s, s >= 10 and 0 or 1)}
        lo, hi = math.min(lo, s), math.max(hi, s)
      end
    end
  end
  local key = {}
  for gi, g in ipairs(gpus) do key[gi] = {g.short, GPU_COLORS[(gi - 1) % #GPU_COLORS + 1]} end
  local ticks = {}
  for _, t in ipairs({0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}) do ticks[#ticks + 1] = "'" .. t .. "' " .. t end
  local setup = 'set logscale y\nset ylabel \'speedup over naive (log scale)\'\nset xlabel \'chapter\'\n' ..
    'set ytics (' .. table.concat(ticks, ', ') .. ')\n' ..
    string.format('set xrange [-0.7:%.2f]\nset yrange [%.6g:%.6g]\n', #summary - 0.3, math.min(0.5, lo / 1.6), math.max(2, hi * 1.8))
  return bar_chart('summary', bars, labels, xt, setup, {"1 with lines dt 2 lc rgb '#333333' notitle"}, key)
end

return function(dir, fail_fn)
  CHARTS, fail = dir, fail_fn
  sh('mkdir -p ' .. q(CHARTS))
  return {chapter = chapter_chart, sweep = sweep_chart, summary = summary_chart}
end
