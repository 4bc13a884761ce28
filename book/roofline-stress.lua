-- book/roofline-stress.lua: rooflines of data other than today's, for book/check.sh. A Pandoc Lua
-- filter (Pandoc 2.17 runs no bare Lua script): reads $ROOF_DATA (the book's data.json), draws
-- $ROOF_TRIALS (default 20) versions of each GPU's roofline into $ROOF_OUT with every chapter's
-- points moved at random (a fixed seed, so a failure repeats; every third trial crowds them into
-- a tenth of the plot), and writes $ROOF_OUT/figures.json for book/check_pdf.py roofline-labels.
local out = os.getenv('ROOF_OUT')
local function fail(fmt, ...) error(string.format(fmt, ...)) end
local charts, shell = dofile('book/charts.lua')(out, fail), dofile('book/shell.lua')
local data = dofile('book/json.lua')(shell.read_file(os.getenv('ROOF_DATA')) or fail('cannot read %s', os.getenv('ROOF_DATA')), fail)
math.randomseed(1)
local figs = {}
for trial = 1, tonumber(os.getenv('ROOF_TRIALS') or 20) do
  for _, g in ipairs(data.roofline) do
    local h = {gpu = g.gpu .. '-' .. trial, copy_gbs = g.copy_gbs, fp32_gflops = g.fp32_gflops, points = {}}
    local crowd = trial % 3 == 0 and 0.3 or 1
    for _, p in ipairs(g.points) do
      local i = p.intensity * 10 ^ ((math.random() - 0.5) * 1.5 * crowd)
      if crowd < 1 then i = 10 ^ (math.log(i, 10) * crowd + 0.5) end
      local roof = math.min(i * g.copy_gbs, g.fp32_gflops)
      local y = math.min(p.gflops * 10 ^ ((math.random() - 0.5) * crowd), roof * (0.6 + 0.4 * math.random()))
      h.points[#h.points + 1] = {nn = p.nn, program = p.program, source = p.source, intensity = i, gflops = y}
    end
    figs[#figs + 1] = string.format('{"svg": "%s", "label": "Trial %d, %s:"}', charts.roofline(h), trial, g.gpu)
  end
end
charts.flush()
shell.write_file(out .. '/figures.json', '[' .. table.concat(figs, ',\n') .. ']\n', fail)
return {}
