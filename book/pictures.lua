--[[ book/pictures.lua: the pictures of a mechanism, for book/book.lua (which loads it as it loads
book/charts.lua, once the data and the charts are known). Returns function(book) -> {[nn] =
function(chapter) -> the chapter's figure block or nil}, where book is {data = the JSON of
`scripts/results.py book-json`, charts = book/charts.lua's functions, figure = book.lua's
figure_block, words = its word lists ("a, b and c"), grouped = its thousands separator, gpu_name = a GPU's
short name}. A picture is computed from what the chapter's programs recorded (knobs, sizes, ptxas
and ncu figures) and their own arithmetic, drawn by charts.lua, and goes before the chapter's first
listing; its caption says what it draws, and what the caption restates of a GPU's record goes into
figures.json for book/check_pdf.py diagrams. ]]

local DATA, charts, figure_block, words, grouped, gpu_name
local shell = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'shell.lua')
local sorted, knob_table = shell.spairs, shell.knobs -- sorted: figures.json lists the same every build

-- A chapter's picture, numbered; its caption says what the chart drew ("Chapter N:" goes, the
-- label names the chapter).
local function picture(c, caption, svg, drawn) return figure_block(c.nn, 'Chapter ' .. c.number .. ': ' .. caption, svg, drawn) end
-- A GPU in a caption: the first word of its short name ("H100").
local function short(slug) return gpu_name(slug):match('^%S+') end
local function knobs_of(c) return knob_table((c.results[1] or {}).knobs) end -- the first results row's

-- Each GPU's record ({gpu, size, m = {metric -> {program -> value}}}), the results' first GPU
-- first, each also under its GPU's slug.
local function records(c)
  local out, first = {}, (c.results[1] or {}).gpu
  for _, e in ipairs(c.evidence or {}) do
    local m = {}
    for _, x in ipairs(e.metrics) do m[x.metric] = x.values end
    out[e.gpu] = {gpu = e.gpu, size = e.size, m = m}
    table.insert(out, e.gpu == first and 1 or #out + 1, out[e.gpu])
  end
  return out
end
local function recorded(c, name) -- one metric as each GPU recorded it: {gpu -> {program -> value}}
  local out = {}
  for _, r in ipairs(records(c)) do out[r.gpu] = r.m[name] end
  return out
end
local function per_record(c, f) local out = {}; for _, r in ipairs(records(c)) do out[#out + 1] = f(r) end; return out end -- f's non-nil answers
local function any_gpu(c, name) return select(2, next(recorded(c, name))) or {} end -- one GPU's {program -> value}
-- f for against: m[a][p] / m[b][p], times k.
local function quotient(a, b, k) return function(m, _, p) return (k or 1) * m[a][p] / m[b][p] end end
local WAVES_PER_LDS = quotient('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', 'smsp__sass_inst_executed_op_shared_ld.sum')
-- What every GPU recorded beside a figure a picture draws, for check_pdf.py diagrams (drawn's
-- per_request, each within half): drawn is {{program, value}}, f(m, size, program) the recorded
-- figure; a counter a GPU lacks is recorded as nothing, which the check reports.
local function against(fig, recs, what, drawn, f)
  fig.per_request = fig.per_request or {}
  local list = fig.per_request
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
-- The rules of the first GPU's compute capability, and that capability.
local function rules_of()
  local cc = ((DATA.gpus[1] or {}).cc or {})[1]
  return cc and OCCUPANCY[cc], cc
end
-- charts.occupancy's curves: each limit keep allows (f(x) -> resident()), then the least.
local LIMITS = {'warp/block limit', 'register limit', 'shared-memory limit'}
local function occupancy_curves(xs, f, keep)
  local curves, named = {{}, {}, {}, {}}, {}
  for i, x in ipairs(xs) do
    local least, limits = f(x)
    for k = 1, 3 do curves[k][i] = limits[k] end
    curves[4][i] = least
  end
  for k = 1, 3 do if not keep or keep(curves[k]) then named[#named + 1] = {LIMITS[k], curves[k]} end end
  named[#named + 1] = {'resident warps', curves[4]}
  return named
end

-- A caption's restatement of a recorded figure, for check_pdf.py diagrams: the text as printed,
-- and where it comes from.
local function stated(list, gpu, program, metric, value, fmt, scale)
  local text = string.format(fmt, value * (scale or 1))
  list[#list + 1] = {gpu = gpu, program = program, metric = metric, text = text, scale = scale or 1}
  return text
end
-- A figure each GPU recorded, restated in the caption ("19.6× on the H100"): the text goes to
-- drawn.said, the value to drawn.recorded.
local function each_gpu(drawn, gpu, program, metric, value, fmt)
  drawn.said, drawn.recorded, drawn.gpu = drawn.said or {}, drawn.recorded or {}, 'each GPU'
  drawn.recorded[#drawn.recorded + 1] = {gpu = gpu, program = program, metric = metric, value = value}
  return stated(drawn.said, gpu, program, metric, value, fmt) .. ' on the ' .. short(gpu)
end
-- A picture drawn from one GPU's record, the first results row's GPU (the H100's file, first):
-- its figures ({metric -> {program -> value}}) and at = {gpu, short, size, knobs, say, restated}.
-- at.say(program, metric, fmt, scale) prints one of its figures and notes it; at.restated(drawn)
-- hands check_pdf.py diagrams those notes, beside every GPU's figures to compare them with.
local function one_gpu(c)
  local r, recs = c.results[1] or {}, records(c)
  local ev, said, all = recs[r.gpu] and recs[r.gpu].m, {}, {}
  for _, x in ipairs(recs) do
    for metric, values in sorted(x.m) do
      for prog, v in sorted(values) do all[#all + 1] = {gpu = x.gpu, program = prog, metric = metric, value = v} end
    end
  end
  local at = {gpu = r.gpu, short = gpu_name(r.gpu), size = r.size, knobs = knob_table(r.knobs), figures = all}
  function at.say(prog, metric, fmt, scale) return stated(said, r.gpu, prog, metric, ev[metric][prog], fmt, scale) end
  function at.restated(drawn) drawn.said, drawn.recorded, drawn.gpu = said, all, r.gpu end
  return ev, at
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

-- The caption of a bytes-in-flight picture (chapters 06 and 07), from what it drew; sweep: what its sweep rows are.
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
-- Bytes in flight per SM (Little's law) for chapters 06 and 07, as inflight_caption says. o.warps:
-- the warps knob, which a program runs if its recorded occupancy (ncu's warps active) is the default
-- knob's, else the warps recorded; o.loads(record, prog, knobs, K) and o.width(record, prog): the
-- loads in flight per thread and the bytes per thread-load, from the GPU's record.
local function inflight(c, o)
  local rules = rules_of()
  if not rules then return nil end
  local gpus, recs, evidence = {}, records(c), {}
  for _, r in ipairs(c.results) do
    local g, e = nil, recs[r.gpu]
    for _, d in ipairs(DATA.gpus) do if d.slug == r.gpu then g = d end end
    local occ = e and e.m['sm__warps_active.avg.pct_of_peak_sustained_active']
    if not (g and occ) then return nil end
    local K, sms = knob_table(r.knobs), g.sms[1]
    local function bytes(prog, knobs)
      local seen = occ[prog] * rules.warps / 100
      local w = math.abs(seen - K[o.warps]) <= 0.1 * K[o.warps] and knobs[o.warps] or math.floor(seen + 0.5)
      local l, b = math.floor(o.loads(e, prog, knobs, K) + 0.5), math.floor(o.width(e, prog) + 0.5)
      return w * 32 * b * l, {warps = w, loads = l, width = b}
    end
    local G = {gpu = r.gpu, short = short(r.gpu), sms = sms, points = {}, programs = {}}
    local function point(b, how, row, default)
      G.points[#G.points + 1] = {b, row.pct_roof, row.variant, default, rate = row.rate, warps = how.warps, loads = how.loads, width = how.width}
    end
    for _, row in ipairs(r.rows) do
      local b, how = bytes(row.variant, K)
      how.name, how.bytes, how.rate, how.roof = row.variant, b, row.rate, row.roof
      G.programs[#G.programs + 1] = how
      -- What the GPU recorded, for check_pdf.py diagrams: its warps active, its loads per trip, its bytes per thread-load.
      evidence[#evidence + 1] = {gpu = r.gpu, program = row.variant, warps = occ[row.variant] * rules.warps / 100,
        loads = e.m['LDG.E.128'] and e.m['LDG.E.128'][row.variant], width = o.width(e, row.variant)}
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
  return figure_block(c.nn, inflight_caption(c, drawn, o.sweep), svg, drawn)
end

-- The sectors a request touches: the 32-byte sectors under its lanes' {byte, bytes}.
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
    -- Three iterations of each loop on a model clock, as the caption says, from the first results
    -- GPU's host:loop_alloc_us and host:free_us; a launch half of (results median / iterations -
    -- host:calls_us_per_iter), a kernel half the optimized loop's time per iteration (queued ahead:
    -- GPU-bound), starting when its launch is done and the GPU is free.
    local ev, at = one_gpu(c)
    local per = {}
    for _, r in ipairs((c.results[1] or {}).rows or {}) do per[r.variant] = ev and ev.iterations and r.median_us / ev.iterations[r.variant] end
    if not (ev and per.naive and per.optimized and ev.loop_alloc_us and ev.free_us and ev.calls_us_per_iter) then return nil end
    local say, panels, ends, waits, allocs = at.say, {}, {}, {}, {}
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
    local svg, drawn = charts.streams(c.nn, panels, 'µs on a model clock (' .. short(at.gpu) .. ')',
      {{'cudaMalloc ' .. say('naive', 'loop_alloc_us', '%.1f µs'), ALLOC}, {'cudaFree ' .. say('naive', 'free_us', '%.1f µs'), FREE},
       {'launch', LAUNCH}, {'wait for the device', WAIT}, {'kernel', KERNEL[1]}}, 400)
    at.restated(drawn)
    against(drawn, records(c), 'allocation calls per iteration', {{'naive', allocs[1] / 3}, {'optimized', allocs[2] / 3}},
      function(m, _, prog) return m.alloc_calls_per_iter[prog] end)
    return picture(c, 'three iterations of each program\'s loop on a model clock, from what the ' ..
      short(at.gpu) .. ' recorded: naive\'s cudaMalloc as long as it took in the loop (' .. say('naive', 'loop_alloc_us', '%.1f µs') ..
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
    local function per_kernel(i) local o = {}; for k, p in ipairs(progs) do o[k] = {p[1], p[2][1][i] * #p[2]} end; return o end
    against(drawn, recs, 'DRAM bytes read per element', per_kernel(2), function(m, size, p) return m['dram__bytes_read.sum'][p] / size end)
    against(drawn, recs, 'DRAM bytes written per element', per_kernel(3), function(m, size, p) return m['dram__bytes_write.sum'][p] / size end)
    against(drawn, recs, 'kernels (16-byte loads in the SASS)', {{'naive', rows[1].kernels}, {'optimized', rows[2].kernels}},
      function(m, _, p) return m['LDG.E.128'][p] end)
    return picture(c, 'the bytes each element moves through DRAM, kernel by kernel: ' ..
      rows[1].name .. ' (' .. rows[1].kernels .. ' kernels, ' .. rows[1].bytes .. ' bytes, each intermediate written and read back: ' ..
      ms.naive .. ') and ' .. rows[2].name .. ' (' .. rows[2].kernels .. ' kernel, ' .. rows[2].bytes .. ' bytes: ' .. ms.optimized ..
      '), each with its median time on the ' .. short(r.gpu) .. ' in the results. From the DRAM bytes read and written that ' ..
      'Nsight Compute recorded on the ' .. short(r.gpu) .. ' over its ' .. grouped(string.format('%d', r.size)) ..
      ' elements, for each program as a whole: the split among its kernels is an even share of those totals, not a measurement ' ..
      'of each kernel. Not drawn by hand; the book\'s check compares the totals with each GPU\'s record.', svg, drawn)
  end,
  ['10'] = function(c)
    local rules, cc = rules_of()
    -- The blocks of this kernel the shared memory of an SM holds: Nsight Compute's shared-memory
    -- limit, the most any launch on the first results GPU got (the driver sets aside less shared
    -- memory for a launch that needs less: the 1024-thread blocks, 2 to an SM, got room for 3).
    local recs = records(c)
    local limit = recs[1] and recs[1].m['launch__occupancy_limit_shared_mem'] or {}
    local smem_blocks
    for _, v in pairs(limit) do smem_blocks = math.max(smem_blocks or 0, math.floor(v)) end
    local regs = any_gpu(c, 'registers').naive
    regs = regs and math.floor(regs)
    local block = knobs_of(c).block
    if not (rules and smem_blocks and regs and block) then return nil end
    local smem = rules.smem // smem_blocks - rules.reserved -- the most a block can take, smem_blocks fitting
    local xs, best, best_t = {}, -1, 0
    for t = 32, 1024, 32 do xs[#xs + 1] = t end
    local named = occupancy_curves(xs, function(t) return resident(rules, t, regs, smem) end)
    for i, w in ipairs(named[4][2]) do
      if w >= best then best, best_t = w, xs[i] end -- the API: the most warps, the largest block on a tie
    end
    -- Each point labelled beside it (no key): naive's right of its point, low; the API's choice's
    -- under the curve, right-aligned, a thin line up to its point.
    local low = (resident(rules, block, regs, smem))
    local marks = {{'naive', block, low, {program = 'naive'}, {'naive: ' .. block .. ' threads, ' .. low .. ' warps'}},
      {'optimized', best_t, best, {program = 'optimized'}, {'optimized, the API\'s choice:', best_t .. ' threads, ' .. best .. ' warps'}}}
    marks[1].place = {block + 56, math.max(low - 2.5, 3), 'left'}
    marks[2].place = {best_t - 14, rules.warps * 0.56, 'right', best_t, rules.warps * 0.56 + 2}
    local svg, drawn = charts.occupancy(c.nn, named, marks, rules.warps,
      {xs = xs, label = 'threads per block', range = '0:1056', tics = '0,128', direct = true})
    -- What the occupancy API itself returned on each GPU, for check_pdf.py diagrams.
    drawn.recorded = {}
    local threads, warps = recorded(c, 'block_threads'), recorded(c, 'warps_per_sm')
    for gpu, v in sorted(warps) do
      for prog, w in sorted(v) do drawn.recorded[#drawn.recorded + 1] = {gpu = gpu, program = prog, x = threads[gpu][prog], warps = w} end
    end
    -- The shared-memory limit it draws, in blocks, at the naive program's launches (the launches
    -- that get the SM's whole shared memory), against Nsight Compute's on each GPU.
    local naive_runs = {}
    for prog, t in sorted(threads[recs[1].gpu] or {}) do
      if prog:match('^naive') then naive_runs[#naive_runs + 1] = {prog, select(2, resident(rules, t, regs, smem))[3] // ((t + 31) // 32)} end
    end
    table.sort(naive_runs, function(a, b) return a[1] < b[1] end)
    against(drawn, recs, 'blocks the shared memory holds', naive_runs, function(m, _, prog) return m['launch__occupancy_limit_shared_mem'][prog] end)
    return picture(c, 'resident warps per SM against threads per block for this chapter\'s kernel (' ..
      regs .. ' registers per thread, a table in shared memory that leaves room for ' .. smem_blocks .. ' blocks per SM, as Nsight ' ..
      'Compute recorded on the ' .. short(recs[1].gpu) .. '), by the occupancy rules of compute capability ' .. cc .. ': naive\'s ' .. block .. ' threads hold ' ..
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
    local recs = records(c)
    against(drawn, recs, 'passes per warp', {{'naive', drawn.passes[1] / 2}, {'optimized', drawn.passes[2] / 2}},
      function(m, size, p) return 1 + m['smsp__sass_branch_targets_threads_divergent.sum'][p] / (size / 32) end)
    against(drawn, recs, 'lanes active per pass', {{'naive', 64 / drawn.passes[1]}, {'optimized', 64 / drawn.passes[2]}},
      function(m, _, p) return m['smsp__thread_inst_executed_per_inst_executed.ratio'][p] end)
    return picture(c, 'the lanes of two warps that run each side of the kernel\'s branch, ' ..
      'a row for each pass a warp makes, named with the elements its lanes handle: ' .. progs[1][1] .. ' (warp 0 handles elements ' ..
      '0 to 31; ' .. drawn.passes[1] .. ' passes for 2 warps, each with half its lanes masked off) and ' .. progs[2][1] ..
      ' (warp 0 handles the even elements of 0 to 63, warp 1 the odd; ' .. drawn.passes[2] .. ' passes for 2 warps, all 32 lanes active). Computed from the ' ..
      'parity of the element each lane handles, not drawn by hand; the book\'s check compares the passes per warp and the lanes ' ..
      'per pass with the divergent branches and the threads per warp instruction Nsight Compute recorded on each GPU.', svg, drawn)
  end,
  ['15'] = function(c)
    local stride = knobs_of(c).stride
    if not stride then return nil end
    local soa, aos = {}, {}
    for l = 0, 31 do soa[l + 1], aos[l + 1] = {4 * l, 4}, {4 * stride * l, 4} end
    local svg, drawn = charts.sectors(c.nn, {{name = 'struct of arrays (consecutive floats)', lanes = soa},
      {name = 'array of structs (a float every ' .. stride .. ')', lanes = aos}}, {unit = 4, line = math.min(128 * stride, 512),
      tics = true, xlabel = 'float index (+ the left number); box: a 32-byte sector', needed = 'float a lane reads'})
    -- Below the sectors, DRAM: the naive program's DRAM bytes read over the optimized one's, as
    -- each GPU recorded them (the L2 fetches sectors from DRAM in 64-byte pairs).
    local ratios = per_record(c, function(r)
      local d = r.m['dram__bytes_read.sum'] or {}
      return d.naive and (d.optimized or 0) > 0 and each_gpu(drawn, r.gpu, 'naive', 'DRAM bytes over optimized', d.naive / d.optimized, '%.1f×') or nil
    end)
    if #ratios == 0 then return nil end
    return picture(c, 'the 32-byte sectors one warp\'s 32 loads touch, each lane ' ..
      'reading one float: the struct of arrays (' .. drawn.rows[1].sectors .. ' sectors, every byte used) and the array of ' ..
      'structs at this chapter\'s stride of ' .. stride .. ' floats (' .. drawn.rows[2].sectors .. ' sectors); grey is fetched ' ..
      'and not needed. Below the L1 the waste grows: the L2 fetches sectors from DRAM in 64-byte pairs, and the array of structs\' ' ..
      'DRAM reads over the struct of arrays\' are ' .. words(ratios) .. '. Computed from the stride, not drawn by hand; the ' ..
      'book\'s check compares the DRAM ratios with each GPU\'s record.', svg, drawn)
  end,
  ['21'] = function(c)
    -- A tile of T rows of floats (lane l of a warp reads row l): the unpadded program's shared
    -- memory (ptxas) is T rows of T floats, and each program's row length is its shared memory
    -- over T rows of 4 bytes.
    local recs, rows = records(c), {}
    local smem = recs[1] and recs[1].m.smem_bytes or {}
    local tile = smem.naive and math.floor(math.sqrt(smem.naive / 4) + 0.5)
    if not tile or tile * tile * 4 ~= smem.naive then return nil end
    for k, prog in ipairs({'naive', 'optimized'}) do
      rows[k] = smem[prog] and smem[prog] % (tile * 4) == 0 and math.floor(smem[prog] / (tile * 4))
      if not rows[k] then return nil end
    end
    local svg, drawn = charts.banks(c.nn, tile, rows)
    local p = drawn.panels
    against(drawn, recs, 'floats a tile row holds (shared bytes / ' .. tile .. ' rows / 4)', {{'naive', rows[1]}, {'optimized', rows[2]}},
      function(m, _, prog) return m.smem_bytes[prog] / (tile * 4) end)
    against(drawn, recs, 'shared-memory passes per load (recorded passes per LDS)', {{'naive', p[1].ways}, {'optimized', p[2].ways}}, WAVES_PER_LDS)
    against(drawn, recs, 'bank conflicts per load', {{'naive', p[1].ways - 1}, {'optimized', p[2].ways - 1}},
      quotient('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum', 'smsp__sass_inst_executed_op_shared_ld.sum'))
    -- The passes per shared load each GPU recorded (its shared-memory wavefronts over its LDS), as the caption gives them.
    local seen = per_record(c, function(r)
      local w, n = r.m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'] or {}, r.m['smsp__sass_inst_executed_op_shared_ld.sum'] or {}
      return w.naive and w.optimized and (n.naive or 0) > 0 and (n.optimized or 0) > 0 and
        string.format('%.3g and %.3g passes per load on the %s', w.naive / n.naive, w.optimized / n.optimized, short(r.gpu)) or nil
    end)
    return picture(c, 'the bank each lane of a warp reads when it walks down a column ' ..
      'of the tile (lane l reads element [l][0], word ' .. rows[1] .. ' l or ' .. rows[2] .. ' l, bank = word mod 32): ' ..
      'tile[' .. tile .. '][' .. rows[1] .. '] puts all 32 lanes in one bank (' .. p[1].ways .. '-way conflict, ' ..
      p[1].ways .. ' passes), tile[' .. tile .. '][' .. rows[2] .. '] one lane per bank (' .. p[2].ways .. ' pass). Nsight Compute recorded ' ..
      table.concat(seen, '; ') .. ': each the whole launch\'s mean, a little over the one warp drawn. The tile\'s row of ' .. rows[2] ..
      ' floats holds one padding word: word ' .. rows[2] .. ' l is ' .. rows[2] - 1 .. ' l + l, so each row starts one bank on from the ' ..
      'row above and lane l reads bank l. The row lengths (' .. rows[1] .. ' and ' .. rows[2] .. ' floats) are the shared memory ptxas ' ..
      'gave each program (' .. grouped(string.format('%d', smem.naive)) .. ' B and ' ..
      grouped(string.format('%d', smem.optimized)) .. ' B) over the tile\'s ' .. tile .. ' rows of ' ..
      '4-byte floats, not read off the source; the book\'s check compares the passes and bank conflicts per load with what ' ..
      'Nsight Compute recorded on each GPU.', svg, drawn)
  end,
  ['08'] = function(c)
    -- Chapter 10's rules against registers per thread, the block fixed: each program's point at the
    -- registers ptxas gave it (the first GPU's record); the check compares each GPU's ncu figures.
    local rules, cc = rules_of()
    local ev = (c.evidence or {})[1]
    if not (rules and ev) then return nil end
    local regs, smem = recorded(c, 'registers')[ev.gpu] or {}, recorded(c, 'smem_bytes')[ev.gpu] or {}
    local occ, lim = recorded(c, 'sm__maximum_warps_per_active_cycle_pct'), recorded(c, 'launch__occupancy_limit_registers')
    local ncu_regs = recorded(c, 'launch__registers_per_thread')
    -- The block: the knobs' block=, else the warps ncu found resident for naive over the blocks
    -- its register limit allowed (the check then holds every other program to that block).
    local o, l = (occ[ev.gpu] or {}).naive, (lim[ev.gpu] or {}).naive
    local block = knobs_of(c).block or
      (o and l and l > 0 and math.floor(o * rules.warps / 100 / l + 0.5) * 32)
    if not (block and block > 0 and regs.naive) then return nil end
    local wpb, xs = block // 32, {}
    for r = 8, 255 do xs[#xs + 1] = r end
    -- A limit drawn where it comes within the SM's warps (no shared memory: none).
    local named = occupancy_curves(xs, function(r) return resident(rules, block, r, smem.naive or 0) end,
      function(warps) return math.min(table.unpack(warps)) <= rules.warps end)
    -- Each point labelled with what it costs, from the first GPU's record: the bytes ptxas spilled
    -- (its spill stores) and the kernel's time as Nsight Compute measured it (the one time recorded
    -- for the min-blocks builds, which have no results rows).
    local all = select(2, one_gpu(c)).figures
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
      {xs = xs, label = 'registers per thread', range = '0:264', tics = '0,32', direct = 130})
    drawn.max_warps, drawn.recorded, drawn.said, drawn.figures, drawn.gpu = rules.warps, {}, said, all, ev.gpu
    for gpu, v in sorted(occ) do
      for p, pct in sorted(v) do
        drawn.recorded[#drawn.recorded + 1] = {gpu = gpu, program = p, x = (ncu_regs[gpu] or {})[p], pct = pct, blocks = (lim[gpu] or {})[p]}
      end
    end
    local points = {}
    for k, m in ipairs(marks) do points[k] = m[1] .. ': ' .. m[2] .. ' registers, ' .. m[3] .. ' warps, ' .. costs[k] end
    return picture(c, 'resident warps per SM against registers per thread for blocks of ' .. block ..
      ' threads, by the occupancy rules of compute capability ' .. cc .. ' (' .. rules.regs .. ' registers per SM, given to a warp ' ..
      rules.reg_unit .. ' at a time), each program at the registers ptxas gave it (and the optimized program built for 3 and 4 ' ..
      'blocks per SM, min-blocks 3 and 4), with the bytes ptxas spilled to local memory and the kernel\'s time on the ' ..
      short(ev.gpu) .. ' (Nsight Compute): ' .. table.concat(points, '; ') .. '. More warps bought with spills run ' ..
      'slower. Computed from the recorded registers, not drawn by hand; the thick line takes the ' ..
      'colour of the limit that binds (the ' .. table.concat(drawn.binds, ', then the ') .. '), and the book\'s check compares each ' ..
      'point with the registers, register-limited blocks and theoretical occupancy ncu recorded on each GPU, and its spills and ' ..
      'time with the ' .. short(ev.gpu) .. '\'s record.', svg, drawn)
  end,
  ['18'] = function(c)
    -- Where each program keeps a thread's data (ptxas: registers, stack frame) and the 32-byte
    -- sectors each of its local load and store requests touches (each GPU's l1tex local sectors over
    -- its requests), against the 4 sectors of a coalesced load: 32 lanes' 4-byte words, consecutive.
    -- Drawn from the first GPU's record; the check compares every GPU's.
    local want = {registers = 'registers', stack = 'stack_bytes', ld = 'l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum',
      st = 'l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum', ld_req = 'l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum',
      st_req = 'l1tex__t_requests_pipe_lsu_mem_local_op_st.sum'}
    local rec, recs = {}, records(c) -- each GPU's naive then optimized, the evidence's first GPU first
    for _, e in ipairs(c.evidence or {}) do
      for _, p in ipairs({'naive', 'optimized'}) do
        local r = {gpu = e.gpu, program = p}
        for key, m in pairs(want) do r[key] = (recs[e.gpu].m[m] or {})[p] end
        if not (r.registers and r.stack and r.ld and r.st and r.ld_req and r.st_req) then return nil end
        rec[#rec + 1] = r
      end
    end
    if #rec == 0 then return nil end
    local function per(s, n) return n > 0 and math.floor(s / n * 10 + 0.5) / 10 or 0 end -- sectors a request, 0.1 each
    local BLUE, ORANGE, LIGHT, GREY = '#2a6fb0', '#d1603d', '#e3a08a', '#9a9a9a'
    local COALESCED = 32 * 4 // 32 -- a warp's 32 consecutive 4-byte words: 4 sectors of 32 bytes
    local panels, drawn = {{'per thread: bytes in registers (4 each), local memory', {}},
      {'sectors a warp\'s request touches (32 bytes each)', {}}}, {rows = {}}
    for k, p in ipairs({'naive', 'optimized'}) do
      local f = rec[k]
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
    return picture(c, 'where each program keeps a thread\'s data, from ptxas, and how many ' ..
      '32-byte sectors each of its local-memory requests touches, from the counters each GPU recorded (local sectors over local ' ..
      'requests): ' .. drawn.rows[1].said .. ', against the ' .. COALESCED .. ' sectors of a coalesced load (32 lanes × 4 bytes); ' ..
      drawn.rows[2].said .. '. The L1 serves a scattered request in several passes: that, not DRAM traffic, is the cost. ' ..
      'Computed from the recorded registers and counters, not drawn by hand; the book\'s check compares each figure with every GPU\'s record.', svg, drawn)
  end,
  ['22'] = function(c)
    local r1 = c.results[1] or {}
    local spread, entries, seed = knob_table(r1.knobs).spread, knob_table(r1.knobs).entries, r1.seed
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
    -- A panel of keys ks served by the constant cache (1 bank) or shared memory (32), says its colour's key.
    local function panel(prog, ks, banks, says)
      local rows, n, what = serve(ks, banks), #serve(ks, 1), banks == 1 and 'request' or 'pass'
      return {rows = rows, ylabel = banks == 1 and 'constant-cache request' or 'shared-memory pass', own = banks > 1 or nil, says = says,
        title = string.format('%s, %d entr%s: %d %s%s', prog, n, n == 1 and 'y' or 'ies', #rows, what, #rows == 1 and '' or (what == 'pass' and 'es' or 's'))}
    end
    local panels = {panel('naive', uni, 1, 'served together'), panel('naive', div, 1, 'one entry after another'),
      panel('optimized', div, 32, 'a pass\'s banks served together')}
    panels[1].note = 'all 32 lanes: entry ' .. uni[1]
    local full = {} -- the entries of the fullest bank (the lowest such bank), one per pass
    for b = 31, 0, -1 do
      local es = {}
      for _, e in ipairs(div) do if e % 32 == b then es[#es + 1] = e end end
      if #es >= #full then full = es; full.bank = b end
    end
    panels[3].note = 'bank ' .. full.bank .. ': entries ' .. table.concat(full, ', ')
    local svg, drawn = charts.requests(c.nn, panels)
    -- What each GPU recorded, for check_pdf.py diagrams: a warp's LDC is one request and each
    -- replay one more, over the lookup instructions (n / 32 warps x 32 steps: the recorded size);
    -- an LDS the wavefronts of its fullest bank, here averaged over the program's first 1,024 warps.
    local mean = 0
    for w = 0, 1023 do mean = mean + #serve(keys(w, spread), 32) / 1024 end
    against(drawn, records(c), 'constant-cache requests per lookup', {{'naive[--spread 1]', #panels[1].rows}, {'naive', #panels[2].rows}},
      function(m, size, p) return 1 + m['sm__idc_divergent_instruction_replays.sum'][p] / size end)
    against(drawn, records(c), 'shared-memory passes per lookup (mean of 1,024 warps)', {{'optimized', mean}}, WAVES_PER_LDS)
    local means = per_record(c, function(r) -- the caption restates each GPU's recorded passes per lookup
      local waves, lds = r.m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'] or {}, r.m['smsp__sass_inst_executed_op_shared_ld.sum'] or {}
      return waves.optimized and (lds.optimized or 0) > 0 and each_gpu(drawn, r.gpu, 'optimized', 'passes per lookup', waves.optimized / lds.optimized, '%.2f') or nil
    end)
    if #means == 0 then return nil end
    local p = drawn.panels
    return picture(c, 'the lanes of one warp (warp 0 at seed ' .. seed .. ', its first lookup) and ' ..
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
    local n, rows = r1.size, knob_table(r1.knobs).rows
    local sts = any_gpu(c, 'STS').optimized
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
    against(drawn, records(c), 'sectors per store', {{'naive', drawn.rows[2].sectors}, {'optimized', drawn.rows[3].sectors}},
      quotient('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 'l1tex__t_requests_pipe_lsu_mem_global_op_st.sum'))
    local r = drawn.rows
    -- The DRAM bytes each GPU recorded written, naive over optimized: the L2 merges a block's partial sectors before DRAM.
    local merged = per_record(c, function(x)
      local w = x.m['dram__bytes_write.sum'] or {}
      return w.naive and (w.optimized or 0) > 0 and string.format('%.2f (%s)', w.naive / w.optimized, short(x.gpu)) or nil
    end)
    if #merged == 0 then return nil end
    return picture(c, 'the 32-byte sectors one warp touches (warp 0 of block (0, 0), its first ' ..
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
    local ev, at = one_gpu(c)
    local k = at.knobs
    if not (ev and ev.h2d_ms and ev.kernel_ms and ev.d2h_ms and ev.end_to_end_ms and ev.copy_engines and k.chunks and k.streams and at.size) then return nil end
    local say, panels = at.say, {}
    local COLORS = {'#2a6fb0', '#1b9aaa', '#8e44ad', '#c49a1b'}
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
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock (stage times: ' .. short(at.gpu) .. ')', key, 480) -- tall enough for two-line row names
    at.restated(drawn)
    return picture(c, 'each program\'s upload, kernel and download of the array on a model clock, ' ..
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
    local ev, at = one_gpu(c)
    local k = at.knobs
    if not (ev and ev.kernel_us and ev.span_us and ev.kernels_at_once and ev.launch__grid_size and ev.launch__block_size and k.kernels and k.streams) then return nil end
    local say, panels = at.say, {}
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
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock; each kernel ' .. say('naive', 'kernel_us', '%.2f ms', 1e-3) .. ' (' .. short(at.gpu) .. ')',
      {{'naive', COLOR[1]}, {'optimized', COLOR[2]}}, 420)
    at.restated(drawn)
    return picture(c, 'the ' .. k.kernels .. ' kernels of each program on a model clock, a row each, ' ..
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
    return inflight(c, {warps = 'warps-per-sm', sweep = 'other launches of the sweep over the warps per SM',
      loads = function() return 1 end,
      width = function(e, prog) return e.m['dram__bytes_read.sum'][prog] / e.size end})
  end,
  ['07'] = function(c)
    -- 16 bytes per thread-load (the array's bytes over the warp-level loads, per thread), the
    -- loads per trip in the kernel's code (the ilp knob's, for a program whose count is the
    -- default knob's).
    return inflight(c, {warps = 'warps', sweep = 'other launches of the sweep over the warps per SM and the loads in flight per thread',
      loads = function(e, prog, knobs, K) local l = e.m['LDG.E.128'][prog]; return l == K.ilp and knobs.ilp or l end,
      width = function(e, prog) return 4 * e.size / e.m['smsp__inst_executed_op_global_ld.sum'][prog] / 32 end})
  end,  ['03'] = function(c)
    -- Each program's batches on a model clock, in the order its loop makes its calls: queue GPU
    -- batch b (a launch takes no host time), then wait for batch b - lag and hash it (naive lag 0,
    -- optimized 1). A GPU batch is 1/B of the GPU part, a hash 1/B of the CPU part, as the program
    -- timed each part alone (host:gpu_part_ms, host:cpu_part_ms).
    local ev, at = one_gpu(c)
    local B = at.knobs.batches
    if not (ev and B and ev.gpu_part_ms and ev.cpu_part_ms and ev.end_to_end_ms and ev.parts_sum_ms) then return nil end
    local say, panels, ends = at.say, {}, {}
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
    local svg, drawn = charts.streams(c.nn, panels, 'ms on a model clock (parts: ' .. short(at.gpu) .. ')',
      {{'GPU batch', '#2a6fb0'}, {'host hash', '#d1603d'}, {'host waits', '#c8c8c8'}}, 380)
    at.restated(drawn)
    return picture(c, 'each program\'s ' .. B .. ' batches on a model clock, a GPU batch (kernel ' ..
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
    local panels, per_load = {}, {}
    for k, pr in ipairs(progs) do
      local loads, uses = T * T * pr[2] / floats, 2 * fma / floats -- per float of the panels
      local per = uses / loads
      per_load[k] = {pr[1], per}
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
    against(drawn, records(c), 'uses per global load (2 FFMA / 32 per load request)', per_load,
      quotient('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum', 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum', 2 / 32))
    against(drawn, records(c), 'uses per global load (2 FFMA / LDG in the SASS)', per_load, quotient('FFMA', 'LDG', 2))
    -- What the caption restates, for check_pdf.py diagrams: each GPU's L1 hit rate of the naive
    -- program's sectors (ncu) and the results' speedup of the tiled program over the naive.
    local ups, hits = {}, per_record(c, function(r)
      local v = (r.m['l1tex__t_sector_hit_rate.pct'] or {}).naive
      return v and each_gpu(drawn, r.gpu, 'naive', 'l1tex__t_sector_hit_rate.pct', v, '%.0f%%') or nil
    end)
    for _, r in ipairs(c.results) do
      local rate = {}
      for _, row in ipairs(r.rows) do rate[row.variant] = row.rate end
      if rate.naive and rate.optimized then
        ups[#ups + 1] = each_gpu(drawn, r.gpu, 'optimized', 'speedup', rate.optimized / rate.naive, '%.2f×')
      end
    end
    if #hits == 0 or #ups == 0 then return nil end
    local t = drawn.panels
    return picture(c, 'one block\'s ' .. T .. ' × ' .. T .. ' tile of C, one thread per element; ' ..
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
    local K, recs = knobs_of(c), records(c)
    local e = recs[1]
    if not (e and K.width and K.offset) then return nil end
    local function access(prog)
      local function n(k) return (e.m[k] or {})[prog] or 0 end
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
    for k, prog in ipairs(progs) do
      against(drawn, recs, 'sectors per load request', {{prog, drawn.rows[k].sectors}},
        quotient('l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'))
    end
    -- What padding did to the time, on each GPU: the unpadded struct's median over the padded
    -- one's, from the sweep over --width and --pad (below 1: padding is slower).
    local r, ups = rows, {}
    for _, sw in ipairs(c.sweeps or {}) do
      local t = {}
      for _, row in ipairs(sw.rows) do
        local k = knob_table(row.knobs)
        if row.variant == 'optimized' and k.width == r[3].width and (k.offset or 0) == 0 then t[k.pad] = row.median_us end
      end
      if t[0] and t[1] then ups[#ups + 1] = each_gpu(drawn, sw.gpu, 'optimized', 'padding speedup', t[0] / t[1], '%.2f×') end
    end
    if #ups == 0 then return nil end
    local d = drawn.rows
    return picture(c, 'the 32-byte sectors one warp\'s first load request touches, lane l reading ' ..
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
    local K, recs = knobs_of(c), records(c)
    local pitch = {}
    for prog, v in pairs(recs[1] and recs[1].m.pitch_bytes or {}) do pitch[prog] = math.tointeger(v) end
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
          speed[#speed + 1] = string.format('%.2f× on the %s', row.speedup, short(res.gpu))
          flat = flat and math.abs(row.speedup - 1) < 0.05
        end
      end
    end
    if #speed == 0 then return nil end
    drawn.per_request = {}
    for _, rec in ipairs(recs) do
      local m = rec.m
      local sec, req = m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] or {}, m['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'] or {}
      for prog, n in sorted(sec) do
        local vec = tonumber(prog:match('%-%-vector (%d+)') or K.vector)
        local s, q = 0, 0
        for r = 0, (m.pitch_bytes or {})[prog] and (req[prog] or 0) > 0 and 31 or -1 do
          for _, lanes in ipairs(filter_loads(K.cols, m.pitch_bytes[prog], vec, r)) do s, q = s + sectors_of(lanes), q + 1 end
        end
        if q > 0 then
          table.insert(drawn.per_request, {gpu = rec.gpu, program = prog, what = 'sectors per load request over 32 rows', within = 0.05, drawn = s / q, recorded = n / req[prog]})
        end
      end
    end
    local d, v1 = drawn.rows, rows[2].lanes[1][1] -- packed row 1's first vector
    return picture(c, 'the 32-byte sectors warp 0\'s first ' .. K.vector * 4 .. '-byte vector load touches ' ..
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

return function(book)
  DATA, charts, figure_block, words, grouped, gpu_name = book.data, book.charts, book.figure, book.words, book.grouped, book.gpu_name
  return DIAGRAMS
end
