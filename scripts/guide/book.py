"""`results.py book-json`: the one JSON document book/book.lua lays out.

Schema (version 1; keys are only ever added). Numbers are JSON numbers, never strings;
a field that does not apply is null. nn is the two-digit chapter number; a GPU is named
by its slug (its results file name without .csv). "program" is naive, optimized,
library, or a configuration such as "optimized[--min-blocks 4]".

{
  "schema": 1,
  "results_dir": "results",
  "parts": [{"part": "I", "chapters": ["01"]}, ...],              # TOC order
  "chapters": [{
    "nn": "20", "number": 20, "slug": "matrix-transpose", "part": "III", "guide": "5.3.2",
    "guide_url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#device-memory-accesses",
    "guide_heading": "Device Memory Accesses",  # the section's heading (book/guide-anchors.tsv)
    "sources": ["naive.cu", "optimized.cu", "problem.cu", "problem.h", "evidence.toml"],  # in folder
    "title": "Matrix transpose",           # README heading without "20. "; TOC title if none
    "status": "written" | "in progress" | "planned",
    "folder": "chapters/20-matrix-transpose" | null, "readme": ".../README.md" | null,
    "source_hash": "4a663954d11c" | null,
    "blocks": [{"kind": "results|sweep|evidence|listing|diff", "args": "naive.cu kernel",
                "markdown": "...",          # exactly what `make readme` writes between markers
                "file": "naive.cu", "marker": "kernel", "code": "..."}],  # listing only
    "values": [{"query": "h100 speedup", "text": "2.82"}],       # inline values, in order
    "results": [{"gpu": slug, "name": "NVIDIA H200", "file": "results/nvidia-h200.csv",
                 "stale": false, "context": "markdown sentence(s)", "size": 268435456,
                 "knobs": "fast-exp=0", "seed": 1, "args": "--size ... --seed 1 --fast-exp 0",
                 "unit": "GB/s" | null, "roof_name": "copy" | null,
                 "rows": [{"variant", "line", "median_us", "min_us", "noise_pct", "samples",
                           "method", "rate", "rate_unit", "roof", "roof_name", "pct_roof",
                           "speedup", "check": "pass|fail", "stale", "source_hash"}]}],
    "results_table": {"columns": ["GPU", "variant", ...], "lines": [["H200", "naive", ...]]} | null,
                                # the README's results table, cells in markdown (render.results_table)
    "host_figures": [{"label": "one cudaMalloc call", "unit": "us",     # host-bound chapters:
                      "values": [{"gpu", "short", "value", "host": "CPU, N cores" | null}]}],
                                # what `make doctor` compares (book.host_figures)
    "sweeps": [{"gpu", "name", "stale", "rows": [{"variant", "knobs", "median_us",
                "noise_pct", "rate", "rate_unit", "pct_roof", "vs_default", "check"}]}],
    "chart": {"field": "rate" | "median_us", "unit": "GB/s" | null,
              "axis": "GB/s (higher is better)", "roof_title": "copy roof" | null,
              "variants": ["naive", ...],
              "series": [{"gpu": slug, "short": "H200", "values": {"naive": 901.8},
                          "labels": {"library": "FAIL"}, "roof": 4262.5 | null}]} | null,
    "sweep_chart": {"knob": "warps-per-sm", "programs": ["optimized"],   # the curves that vary
                    "scale": "linear" | "log2" | "category",  # the knob's values (problem.cu)
                    "flat": ["naive"],     # programs swept over the knob that it does not move
                    "varies_pct": 5,       # ... by more than this, from the lowest point to the highest
                    "field": "rate" | "median_us",
                    "unit": "GB/s" | null, "axis": "GB/s (higher is better)",
                    "roof_title": "copy roof" | null,
                    "series": [{"gpu": slug, "short": "H200", "program": "optimized",
                                "stale": bool, "roof": x | null,
                                "points": [[knob value, rate], ...]}]} | null,
                                           # sorted by knob value; the default row included
    "evidence": [{"gpu": slug, "name", "arch", "size", "stale", "programs": [...],
                  "metrics": [{"tool", "metric", "unit", "values": {program: number}}]}],
    "prediction": {"speedup": [lo, hi], "because": "...",
                   "verdicts": {slug: {"verdict": "held|missed|not measured",
                                       "speedup": x | null}}} | null,
    "claims": [{"id", "says", "value", "holds", "symmetric": "why it holds both ways" | null,
                "kind": {"kind": "mechanism|observation", "committed": date | null,
                         "first_recorded": date | null, "why": "..."},
                "verdicts": {slug: {"verdict": "held|missed|not recorded|undefined|refused",
                                    "values": {program: number}, "why": "..."}},
                "counters": [{"ref": "ncu:dram__bytes_read.sum", "plain": "DRAM bytes read",
                              "unit": "byte", "programs": [...],    # the raw numbers it reads
                              "values": {slug: {program: number | null}}}]}]
  }],
  "summary": [{"nn", "title", "speedups": {slug: {"speedup": x, "stale": bool,
                                                  "prediction": verdict | null}}}],
  "roofline": [{"gpu": slug, "short", "copy_gbs": x, "fp32_gflops": x,      # GPUs with both roofs
                "points": [{"nn", "program", "gflops", "intensity", "source": "evidence|results"}],
                "missing": [{"nn", "program", "why": "no flop count|no byte count"}]}],
  "roofs": [{"nn", "title", "roofs": {slug: "copy"},                 # every written chapter, its
             "pct": {slug: {"naive": 26.1, "optimized": 73.9}}}],    # programs' % of own roof
  "gpus": [{"slug", "name", "short", "file", "cc": [...], "sms": [...],
            "sm_clock_mhz": [min, max] | null, "cuda": ["13.0 / 13.0"], "chapters": ["01"],
            "dates": [first, last] | null, "commits": [...],
            "versions": ["driver for CUDA 13.0, runtime 13.0, commit fbc8557"]}],
  "guidelines": {"rows": [{"id", "guide", "shown_in": [nn], "see": [nn],
                           "recommendation", "why": str | null,
                           "status": "written|pending|untimed"}],
                 "beyond": [nn]},                        # chapters no row cites
  "stale": [{"kind": "results|sweeps|evidence", "file", "line", "chapter": nn,
             "program", "gpu": slug}]
}

The verdicts of a chapter cover every GPU with a file; chapters without evidence.toml have
"prediction": null and "claims": []."""

import os
import re

from . import evidence as ev
from . import doctor
from . import render
from .model import ROOT, ResultsError, VARIANTS, number, read_text, rel


def num(text):
    return None if text == "" else float(text)


def md_escape(s):
    return re.sub(r"([\\`*_{}\[\]()<>#+!|$~^@&%])", r"\\\1", s)


def short(name):
    return re.sub(r"^NVIDIA ", "", name)


def run_args(r):
    args = f"--size {r['size']} --seed {r['seed']}"
    for kv in filter(None, r["knobs"].split(";")):
        k, _, v = kv.partition("=")
        args += f" --{k} {v}"
    return args


def ordered(rows):
    return sorted(rows, key=lambda r: VARIANTS.index(r["variant"]))


def chapter_results(data, c, slug):
    rows = ordered(data.chapter_rows(slug, c.number))
    if not rows:
        return None
    naive = next((r for r in rows if r["variant"] == "naive" and r["median_us"]), None)
    out = []
    for r in rows:
        out.append({"variant": r["variant"], "line": r["_line"], "median_us": num(r["median_us"]),
                    "min_us": num(r["min_us"]), "noise_pct": num(r["noise_pct"]),
                    "samples": int(r["samples"]), "method": r["method"], "rate": num(r["rate"]),
                    "rate_unit": r["rate_unit"] or None, "roof": num(r["roof"]),
                    "roof_name": r["roof_name"] or None, "pct_roof": num(r["pct_roof"]),
                    "speedup": (float(naive["median_us"]) / float(r["median_us"])
                                if naive and r["median_us"] else None),
                    "check": r["check"], "stale": r["source_hash"] != c.hash,
                    "source_hash": r["source_hash"]})
    r0 = rows[0]
    return {"gpu": slug, "name": r0["gpu"], "file": r0["_file"],
            "stale": any(r["stale"] for r in out), "context": render.context_line(rows) + ".",
            "size": int(r0["size"]), "knobs": r0["knobs"], "seed": int(r0["seed"]),
            "args": run_args(r0), "unit": next((r["rate_unit"] for r in rows if r["rate_unit"]),
                                               None),
            "roof_name": next((r["roof_name"] for r in rows if r["roof_name"]), None),
            "rows": out}


def chapter_sweeps(data, c, slug):
    rows = data.chapter_rows(slug, c.number, sweeps=True)
    if not rows:
        return None
    default = {r["variant"]: r for r in data.chapter_rows(slug, c.number)}
    out = []
    for r in rows:
        d = default.get(r["variant"])
        out.append({"variant": r["variant"], "knobs": r["knobs"],
                    "median_us": num(r["median_us"]), "noise_pct": num(r["noise_pct"]),
                    "rate": num(r["rate"]), "rate_unit": r["rate_unit"] or None,
                    "pct_roof": num(r["pct_roof"]), "check": r["check"],
                    "vs_default": (float(d["median_us"]) / float(r["median_us"])
                                   if d and d["median_us"] and r["median_us"] else None)})
    return {"gpu": slug, "name": rows[0]["gpu"],
            "stale": any(r["source_hash"] != c.hash for r in rows), "rows": out}


def roof_title(roof_name):
    return {"copy": "copy roof", "fp32": "FP32 peak", "fp64": "FP64 peak", "fp16": "FP16 peak",
            "sfu": "SFU peak", "convert": "64-bit conversion peak",
            "int32": "INT32 peak"}.get(roof_name, f"{roof_name} roof")


def chart(results):
    if not results:
        return None
    unit = next((g["unit"] for g in results if g["unit"]), None)
    roof_name = next((g["roof_name"] for g in results if g["roof_name"]), None)
    field = "rate" if unit else "median_us"
    present = [v for v in VARIANTS if any(r["variant"] == v for g in results for r in g["rows"])]
    series = []
    for g in results:
        values, labels, roofs = {}, {}, []
        for r in g["rows"]:
            if r[field] is not None:
                values[r["variant"]] = r[field]
            else:
                labels[r["variant"]] = "FAIL" if r["check"] == "fail" else "n/a"
            if r["roof"] is not None:
                roofs.append(r["roof"])
        series.append({"gpu": g["gpu"], "short": short(g["name"]), "values": values,
                       "labels": labels,
                       "roof": sum(roofs) / len(roofs) if roofs and unit else None})
    axis = f"{unit} (higher is better)" if unit else "median time in µs (lower is better)"
    return {"field": field, "unit": unit, "axis": axis,
            "roof_title": roof_title(roof_name) if roof_name else None,
            "variants": present, "series": series}


def parse_knobs(text):
    return dict(kv.partition("=")[::2] for kv in text.split(";") if kv)


SWEEP_CHART_MIN_POINTS = 4  # fewer points than this read better as the sweep table alone
# A curve whose highest point is within 5 % of its lowest on every GPU is flat: the knob does not
# move that program (5 % is also where the harness calls a measurement noisy).
SWEEP_CHART_VARIES = 1.05


def sweep_chart(data, c, results):
    """The curves of the chapter's programs against the one numeric knob their sweeps vary, per
    GPU, the default row included; only the programs whose rate the knob moves (by more than
    SWEEP_CHART_VARIES) are drawn, and the others are named as "flat". None unless some program
    has such a knob with at least SWEEP_CHART_MIN_POINTS values and varies with it."""
    rows = {}  # program -> [(slug, row)] over sweeps and the default results
    for slug in data.results.keys() | data.sweeps.keys():
        for sweeps in (True, False):
            for r in data.chapter_rows(slug, c.number, sweeps=sweeps):
                rows.setdefault(r["variant"], []).append((slug, r))
    unit = next((g["unit"] for g in results if g["unit"]), None)
    field = "rate" if unit else "median_us"
    curves = {}  # knob -> [(program, series)]
    for program in sorted(rows, key=VARIANTS.index):
        knobs = [parse_knobs(r["knobs"]) for _, r in rows[program]]
        names = {k for d in knobs for k in d}
        varied = [k for k in sorted(names) if len({d.get(k) for d in knobs}) > 1]
        if len(varied) != 1:
            continue
        knob = varied[0]
        values = [number(d.get(knob, "")) for d in knobs]
        if None in values or len(set(values)) < SWEEP_CHART_MIN_POINTS:
            continue
        series = {}
        for (slug, r), x in zip(rows[program], values):
            y = num(r[field])
            if y is None:
                continue  # a failed or unmeasured point is in the table, not on the curve
            g = series.setdefault(slug, {"gpu": slug, "short": short(r["gpu"]), "program": program,
                                         "stale": False, "roofs": [], "points": []})
            g["points"].append([int(x) if x.is_integer() else x, y])
            g["stale"] |= r["source_hash"] != c.hash
            if r["roof"] and unit:
                g["roofs"].append(float(r["roof"]))
        out = []
        for slug in sorted(series):
            g = series[slug]
            roofs = g.pop("roofs")
            g["roof"] = sum(roofs) / len(roofs) if roofs else None
            g["points"].sort()
            out.append(g)
        if any(len(g["points"]) >= SWEEP_CHART_MIN_POINTS for g in out):
            curves.setdefault(knob, []).append((program, out))
    for knob, progs in sorted(curves.items(), key=lambda kv: -len(kv[1])):
        def varies(series):
            return any(min(p[1] for p in g["points"]) > 0 and
                       max(p[1] for p in g["points"]) > SWEEP_CHART_VARIES *
                       min(p[1] for p in g["points"]) for g in series)
        drawn = [(p, s) for p, s in progs if varies(s)]
        if not drawn:
            continue
        roof_name = next((g["roof_name"] for g in results if g["roof_name"]), None)
        xs = sorted({p[0] for _, s in drawn for g in s for p in g["points"]})
        scale = c.knob_scale(knob)
        if scale == "linear" and xs[0] > 0 and xs[-1] >= 8 * xs[0] and \
                all(float(x).is_integer() and int(x) & (int(x) - 1) == 0 for x in xs):
            scale = "log2"  # powers of two over three octaves or more: equal steps on a log axis
        return {"knob": knob, "scale": scale, "programs": [p for p, _ in drawn],
                "varies_pct": round((SWEEP_CHART_VARIES - 1) * 100),
                "flat": [p for p, s in progs if not varies(s)], "field": field, "unit": unit,
                "axis": f"{unit} (higher is better)" if unit else
                        "median time in µs (lower is better)",
                "roof_title": roof_title(roof_name) if roof_name and unit else None,
                "series": [g for _, s in drawn for g in s]}
    return None


def chapter_evidence(data, c, slug):
    names, _, rows = render.evidence_table(data, slug, c)
    if not rows:
        return None
    metrics = {}
    for r in rows:
        m = metrics.setdefault((r["tool"], r["metric"]), {"tool": r["tool"], "metric": r["metric"],
                                                          "unit": r["unit"], "values": {}})
        m["values"][ev.program_name(r["variant"], r["options"])] = r["value"]
    return {"gpu": slug, "name": rows[0]["gpu"], "arch": rows[0]["arch"],
            "size": int(rows[0]["size"]), "stale": any(r["source_hash"] != c.hash for r in rows),
            "programs": names,
            "metrics": sorted(metrics.values(),
                              key=lambda m: (ev.TOOLS.index(m["tool"]), m["metric"]))}


GUIDE_URL = {"PG": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html",
             "BPG": "https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/index.html"}
SOURCES = ("naive.cu", "optimized.cu", "library.cu", "problem.cu", "problem.h", "evidence.toml")


def guide_anchors(toc):
    """book/guide-anchors.tsv: nn, anchor, heading -> {nn: (the link to the section of the guide
    the chapter follows, its heading)}. Every chapter has one; the anchor is its heading's id (as
    the guide's HTML writes it); a section of the Programming Guide (chapters.tsv's guide column)
    has one anchor."""
    path = os.path.join(ROOT, "book", "guide-anchors.tsv")
    by_nn, urls, seen = {c.nn: c for c in toc}, {}, {}
    for n, line in enumerate(read_text(path, data_file=False).split("\n"), start=1):
        if not line or line.startswith("#"):
            continue
        where, f = f"{rel(path)}:{n}", line.split("\t")
        if len(f) != 3 or f[0] not in by_nn or f[0] in urls:
            raise ResultsError(f"{where}: expected nn, anchor, heading of a chapter of "
                               "book/chapters.tsv, once each")
        nn, anchor, head = f
        if not re.fullmatch(r"#[a-z0-9]+(-[a-z0-9]+)*", anchor) or \
                anchor[1:] != re.sub(r"[^a-z0-9]+", "-", head.lower()).strip("-"):
            raise ResultsError(f"{where}: anchor '{anchor}' is not the id of heading '{head}'")
        guide = by_nn[nn].guide
        if guide != "BPG" and seen.setdefault(guide, anchor) != anchor:
            raise ResultsError(f"{where}: section {guide} has two anchors, {seen[guide]} and {anchor}")
        urls[nn] = (GUIDE_URL["BPG" if guide == "BPG" else "PG"] + anchor, head)
    lack = [c.nn for c in toc if c.nn not in urls]
    if lack:
        raise ResultsError(f"{rel(path)}: no guide section anchor for chapter(s) {', '.join(lack)}")
    return urls


def host_figures(data, c):
    """What a host-bound chapter's speedup depends on beyond the GPU (doctor.DEPENDS, the
    figures `make doctor` compares with the user's machine), as each GPU's run recorded it, with
    the host it ran on: [{"label", "unit", "values": [{"gpu", "short", "value", "host"}]}]."""
    out = []
    for f in doctor.DEPENDS.get(c.number, []):
        values = []
        for slug in data.results:
            rows = data.chapter_rows(slug, c.number)
            v = doctor.figure(data, slug, f, c.number)
            if rows and v is not None:
                values.append({"gpu": slug, "short": short(rows[0]["gpu"]), "value": v,
                               "host": rows[0]["host"] or None})
        if values:
            out.append({"label": f.label, "unit": f.unit, "values": values})
    return out


def chapter_doc(data, c, guide=(None, None)):
    doc = {"nn": c.nn, "number": c.number, "slug": c.slug, "part": c.part, "guide": c.guide,
           "guide_url": guide[0], "guide_heading": guide[1], "title": c.readme_title(), "status": c.status,
           "folder": rel(c.dir) if c.dir else None, "readme": rel(c.readme) if c.readme else None,
           "source_hash": c.hash, "blocks": [], "values": [], "results": [], "sweeps": [],
           "chart": None, "sweep_chart": None, "evidence": [], "prediction": None, "claims": [],
           "sources": []}
    if not c.dir:
        return doc
    doc["sources"] = [f for f in SOURCES if os.path.isfile(os.path.join(c.dir, f))]
    if c.readme:
        text = read_text(c.readme, data_file=False)
        for kind, args, md in render.blocks(data, c, text):
            b = {"kind": kind, "args": args, "markdown": md}
            if kind == "listing":
                b["file"], b["marker"] = args.split()
                b["code"] = render.listing(c, args)
                b["first_line"] = listing_first_line(c, args)
            doc["blocks"].append(b)
        doc["values"] = [{"query": q, "text": t} for q, _, t in render.values(data, c, text)]
    gpus = data.gpus()
    doc["results"] = [x for x in (chapter_results(data, c, s) for s in data.results) if x]
    table = render.results_table(data, c)
    doc["results_table"] = table and {"columns": table[0], "lines": table[1]}
    doc["host_figures"] = host_figures(data, c)
    doc["sweeps"] = [x for x in (chapter_sweeps(data, c, s) for s in data.sweeps) if x]
    doc["chart"] = chart(doc["results"])
    doc["sweep_chart"] = sweep_chart(data, c, doc["results"])
    doc["evidence"] = [x for x in (chapter_evidence(data, c, s) for s in gpus) if x]
    spec = data.specs.get(c.number)
    if spec and spec["prediction"]:
        doc["prediction"] = dict(spec["prediction"], verdicts={
            s: {k: v for k, v in ev.prediction_verdict(data, s, c.number).items() if k != "range"}
            for s in data.results if data.chapter_rows(s, c.number)})
    for claim in spec["claims"] if spec else []:
        doc["claims"].append({k: claim[k] for k in ("id", "says", "value", "holds")} | {
            "symmetric": claim.get("symmetric"), "kind": ev.claim_kind(data, c.number, claim),
            "verdicts": {s: ev.claim_verdict(data, s, c.number, claim) for s in gpus},
            "counters": claim_counters(data, c, claim, gpus)})
    return doc


# The counters a chapter shows beside its claims, under names a reader knows (the metric's own
# name is printed under it in small type). A counter not named here is named after its metric.
PLAIN = {
    "record:size": "elements in the profiled run",
    "ncu:dram__bytes_read.sum": "DRAM bytes read",
    "ncu:dram__bytes_write.sum": "DRAM bytes written",
    "ncu:dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM busy (% of peak)",
    "ncu:gpu__time_duration.sum": "kernel time",
    "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bank conflicts on shared loads",
    "ncu:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "passes (wavefronts) of shared loads",
    "ncu:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "passes (wavefronts) of shared stores",
    "ncu:l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global load requests",
    "ncu:l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "global store requests",
    "ncu:l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum": "local load requests",
    "ncu:l1tex__t_sector_hit_rate.pct": "L1 hit rate (%)",
    "ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "32-byte sectors of global loads",
    "ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "32-byte sectors of global stores",
    "ncu:l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": "32-byte sectors of local loads",
    "ncu:launch__occupancy_limit_registers": "blocks per SM the registers allow",
    "ncu:launch__registers_per_thread": "registers per thread",
    "ncu:launch__shared_mem_config_size": "shared memory carved out per SM",
    "ncu:lts__t_sectors_aperture_sysmem_op_read.sum": "sectors read from host memory",
    "ncu:lts__t_sectors_srcunit_tex_op_read.sum": "L2 sectors read by the SMs",
    "ncu:sm__cycles_active.avg.pct_of_peak_sustained_elapsed": "SMs busy (% of the time)",
    "ncu:sm__inst_executed_pipe_xu.sum": "special-function (XU) instructions",
    "ncu:sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy (%)",
    "ncu:sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM busy (% of peak)",
    "ncu:sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy (%)",
    "ncu:smsp__inst_executed.sum": "warp instructions executed",
    "ncu:smsp__inst_executed_op_global_ld.sum": "global load instructions",
    "ncu:smsp__issue_active.avg.pct_of_peak_sustained_active": "issue slots busy (%)",
    "ncu:smsp__sass_branch_targets_threads_divergent.sum": "divergent branch targets",
    "ncu:smsp__sass_inst_executed_op_branch.sum": "branch instructions",
    "ncu:smsp__sass_inst_executed_op_global_ld.sum": "global load instructions",
    "ncu:smsp__sass_inst_executed_op_local_ld.sum": "local load instructions",
    "ncu:smsp__sass_inst_executed_op_local_st.sum": "local store instructions",
    "ncu:smsp__sass_inst_executed_op_shared_ld.sum": "shared load instructions",
    "ncu:smsp__sass_inst_executed_op_shared_st.sum": "shared store instructions",
    "ncu:smsp__sass_thread_inst_executed_op_conversion_pred_on.sum": "conversions (per thread)",
    "ncu:smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": "FP64 adds (per thread)",
    "ncu:smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "FP32 adds (per thread)",
    "ncu:smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "FP32 fused multiply-adds (per thread)",
    "ncu:smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": "FP32 multiplies (per thread)",
    "ncu:smsp__thread_inst_executed_per_inst_executed.ratio": "active lanes per instruction",
    "ncu:smsp__warp_issue_stalled_barrier_per_warp_active.pct": "warps waiting at a barrier (%)",
    "ncu:smsp__warps_issue_stalled_long_scoreboard.sum": "warps waiting on memory (long scoreboard)",
    "ncu:smsp__warps_launched.sum": "warps launched",
    "ptxas:registers": "registers per thread",
    "ptxas:spill_store_bytes": "bytes spilled to local memory",
    "ptxas:stack_bytes": "stack bytes per thread",
    "ptxas:smem_bytes": "shared memory per block",
    "result:median_us": "median time",
    "result:rate": "rate",
}


def plain_name(ref):
    """A counter's name for a reader: "DRAM bytes read" for ncu:dram__bytes_read.sum; a SASS
    opcode is "FFMA instructions in the kernel"; a host measurement its words."""
    if ref in PLAIN:
        return PLAIN[ref]
    tool, _, metric = ref.partition(":")
    if tool == "sass":
        return f"{metric} instructions in the kernel's code"
    return re.sub(r"[_.]+", " ", re.sub(r"^(smsp|sm|l1tex|lts|dram|launch)__", "", metric)).strip()


def claim_counters(data, c, claim, gpus):
    """The raw numbers a claim reads, per GPU and program: [{ref, plain, unit, values: {gpu:
    {program: value or None}}}], so the chapter can print them beside the claim."""
    programs = list(dict.fromkeys(claim["_holds"][1].values()))
    out = []
    for tool, metric in sorted(ev.claim_reads(claim), key=lambda tm: (tm[0] != "result", tm)):
        ref = f"{tool}:{metric}"
        values, unit = {}, ""
        for s in gpus:
            got = {}
            for p in programs:
                try:
                    got[p] = ev.metric_value(data, s, c.number, p, tool, metric)
                except ev.Missing:
                    got[p] = None
            if any(v is not None for v in got.values()):
                values[s] = got
                unit = unit or ev.metric_unit(data, s, c.number, tool, metric)
        if unit == "rate":
            rows = [r for s in gpus for r in data.chapter_rows(s, c.number)]
            unit = rows[0]["rate_unit"] if rows else ""
        out.append({"ref": ref, "plain": plain_name(ref), "unit": unit, "programs": programs,
                    "values": values})
    return out


FLOP_METRICS = ev.ROOFLINE_FLOP_METRICS
DRAM_METRICS = ev.ROOFLINE_DRAM_METRICS
TIME_METRIC = "gpu__time_duration.sum"  # ns


def roofline(data, chapters):
    """Per GPU with both roofs measured: its copy roof (GB/s) and FP32 peak (GFLOP/s), the means of
    the roofs its results rows report, and a point per naive and optimized program: attained FP32
    GFLOP/s against arithmetic intensity (flops per DRAM byte). Each of the two rates comes from the
    evidence where it has the counts (ncu FP32 instructions, DRAM bytes read + written, each over
    the kernels' ncu time), else from the results row where its rate is that quantity (the
    program's own minimal count of flops or bytes over its median time); "source" says
    "evidence" when both came from the evidence, "results" when one did not. A program with no
    flop rate or no byte rate is listed in "missing" with the reason."""
    out = []
    for slug, rows in data.results.items():
        roofs = {}
        for r in rows:
            if r["roof"] and r["roof_name"] in ("copy", "fp32"):
                roofs.setdefault(r["roof_name"], []).append(float(r["roof"]))
        if set(roofs) != {"copy", "fp32"}:
            continue
        g = {"gpu": slug, "short": short(rows[0]["gpu"]),
             "copy_gbs": sum(roofs["copy"]) / len(roofs["copy"]),
             "fp32_gflops": sum(roofs["fp32"]) / len(roofs["fp32"]), "points": [], "missing": []}
        for c in chapters:
            res = next((x for x in c["results"] if x["gpu"] == slug), None)
            if c["status"] != "written" or not res:
                continue
            evid = next((e for e in c["evidence"] if e["gpu"] == slug), None)
            metrics = {m["metric"]: m["values"] for m in evid["metrics"]} if evid else {}
            for r in res["rows"]:
                v = r["variant"]
                if v not in ("naive", "optimized") or r["check"] != "pass":
                    continue
                def ev(name):
                    x = metrics.get(name, {}).get(v)
                    return float(x) if x not in (None, "") else None
                t = ev(TIME_METRIC)
                flops = [ev(m) * k for m, k in FLOP_METRICS.items() if ev(m) is not None]
                dram = [ev(m) for m in DRAM_METRICS]
                fr = br = None
                if t and flops and sum(flops) > 0:
                    fr = (sum(flops) / t, "evidence")
                elif r["rate"] and r["roof_name"] == "fp32":
                    fr = (r["rate"], "results")
                if t and dram[0]:
                    br = (sum(x for x in dram if x) / t, "evidence")
                elif r["rate"] and r["roof_name"] == "copy":
                    br = (r["rate"], "results")
                if fr and br:
                    g["points"].append({"nn": c["nn"], "program": v, "gflops": fr[0],
                                        "intensity": fr[0] / br[0],
                                        "source": "evidence" if fr[1] == br[1] == "evidence"
                                        else "results"})
                else:
                    g["missing"].append({"nn": c["nn"], "program": v,
                                         "why": "no flop count" if not fr else "no byte count"})
        out.append(g)
    return out


def own_roofs(data):
    """Every written chapter's naive and optimized programs against the roof that bounds them,
    from the results rows' roof and pct columns (whatever roof each chapter chose)."""
    out = []
    for c in data.toc:
        if c.status != "written":
            continue
        roofs, pct = {}, {}
        for slug in data.results:
            for r in data.chapter_rows(slug, c.number):
                if r["variant"] in ("naive", "optimized") and r["pct_roof"] != "":
                    roofs[slug] = r["roof_name"]
                    pct.setdefault(slug, {})[r["variant"]] = float(r["pct_roof"])
        out.append({"nn": c.nn, "title": c.readme_title(), "roofs": roofs, "pct": pct})
    return out


def gpu_doc(slug, rows):
    clocks = sorted(float(r["sm_clock_mhz"]) for r in rows if r["sm_clock_mhz"])
    dates = sorted({r["date"][:10] for r in rows if r["date"]})
    return {"slug": slug, "name": rows[0]["gpu"], "short": short(rows[0]["gpu"]),
            "file": rows[0]["_file"], "cc": sorted({r["cc"] for r in rows}),
            "sms": sorted({int(r["sms"]) for r in rows}),
            "sm_clock_mhz": [clocks[0], clocks[-1]] if clocks else None,
            "cuda": sorted({f"{r['driver']} / {r['cuda']}" for r in rows}),
            "chapters": sorted({f"{int(r['chapter']):02d}" for r in rows}),
            "dates": [dates[0], dates[-1]] if dates else None,
            "commits": sorted({r["commit"] for r in rows}),
            "versions": sorted({f"driver for CUDA {r['driver']}, runtime {r['cuda']}, commit "
                                f"{r['commit']}" for r in rows})}


def guidelines(toc):
    """book/guideline-index.tsv: id, guide, shown_in, see, recommendation, why."""
    path = os.path.join(ROOT, "book", "guideline-index.tsv")
    by_nn = {c.nn: c for c in toc}
    lines = read_text(path, data_file=False).split("\n")
    rows, cited = [], set()
    for n, line in enumerate(lines, start=1):
        if not line or line.startswith("#"):
            continue
        where = f"{rel(path)}:{n}"
        f = line.split("\t")
        if len(f) != 6:
            raise ResultsError(f"{where}: expected 6 tab-separated fields, found {len(f)}")
        gid, guide, shown, see, recommendation, why = f
        if any(r["id"] == gid for r in rows):
            raise ResultsError(f"{where}: {gid} twice")
        if recommendation.strip() in ("", "-"):
            raise ResultsError(f"{where}: the recommendation is empty")

        def refs(field):
            out = [] if field == "-" else re.findall(r"[^,\s]+", field)
            for nn in out:
                if nn not in by_nn:
                    raise ResultsError(f"{where}: chapter '{nn}' is not in book/chapters.tsv")
            cited.update(out)
            return out
        shown_in, see_also = refs(shown), refs(see)
        if shown_in and why != "-":
            raise ResultsError(f"{where}: a reason is given, but the row names demonstrating "
                               "chapters")
        if not shown_in and (why == "-" or not see_also):
            raise ResultsError(f"{where}: a row without a demonstrating chapter needs a reason "
                               "and a 'see' chapter")
        status = ("untimed" if not shown_in else
                  "written" if any(by_nn[nn].status == "written" for nn in shown_in) else "pending")
        rows.append({"id": gid, "guide": guide, "shown_in": shown_in, "see": see_also,
                     "recommendation": recommendation, "why": None if why == "-" else why,
                     "status": status})
    return {"rows": rows, "beyond": [c.nn for c in toc if c.nn not in cited]}


def stale_list(data):
    out = []
    for kind, files in (("results", data.results), ("sweeps", data.sweeps)):
        for slug, rows in files.items():
            for r in rows:
                c = data.chapters[int(r["chapter"])]
                if r["source_hash"] != c.hash:
                    out.append({"kind": kind, "file": r["_file"], "line": r["_line"],
                                "chapter": c.nn, "program": r["variant"], "gpu": slug})
    for file, line, c, program, _, _ in ev.stale_evidence(data):
        out.append({"kind": "evidence", "file": file, "line": line, "chapter": c.nn,
                    "program": program, "gpu": os.path.basename(file)[:-4]})
    return out


def book_json(data):
    check_complete(data)
    urls = guide_anchors(data.toc)
    chapters = [chapter_doc(data, c, urls[c.nn]) for c in data.toc]
    parts = []
    for c in data.toc:
        if not parts or parts[-1]["part"] != c.part:
            parts.append({"part": c.part, "chapters": []})
        parts[-1]["chapters"].append(c.nn)
    summary = []
    for c in data.toc:
        if c.status != "written":
            continue
        speedups = {}
        for slug in data.results:
            s = ev.speedup(data, slug, c.number)
            if s is None:
                continue
            p = ev.prediction_verdict(data, slug, c.number)
            speedups[slug] = {"speedup": s, "stale": any(
                r["source_hash"] != c.hash for r in data.chapter_rows(slug, c.number)
                if r["variant"] in ("naive", "optimized")),
                "prediction": p["verdict"] if p else None}
        if speedups:
            summary.append({"nn": c.nn, "title": c.readme_title(), "speedups": speedups})
    return {"schema": 1, "results_dir": rel(data.results_dir), "parts": parts,
            "chapters": chapters, "summary": summary, "roofline": roofline(data, chapters),
            "roofs": own_roofs(data),
            "gpus": [gpu_doc(s, rows) for s, rows in data.results.items() if rows],
            "guidelines": guidelines(data.toc), "stale": stale_list(data)}


def listing_first_line(c, args):
    """The book numbers a listing's lines as in its source file: the line number of the
    first line after the opening marker (render.listing has checked file and markers).
    Added for book/book.lua (H3); a separate function so it merges cleanly."""
    file, marker = args.split()
    with open(os.path.join(c.dir, file)) as f:
        lines = f.read().split("\n")
    return next(i for i, l in enumerate(lines, start=1) if l.strip() == f"// [{marker}]") + 1


def check_complete(data):
    """A measured chapter has the row of every program it has (naive.cu, optimized.cu,
    library.cu), all at one problem size and knobs, so that its speedup compares like with
    like. Added for the book (H3; the old book.lua checked this); it may move into model.py."""
    for slug, rows in data.results.items():
        for number in sorted({int(r["chapter"]) for r in rows}):
            c, mine = data.chapters[number], data.chapter_rows(slug, number)
            got = {r["variant"]: r for r in mine}
            for v in VARIANTS:
                if v not in got and os.path.isfile(os.path.join(c.dir, v + ".cu")):
                    raise ResultsError(f"{mine[0]['_file']}: chapter {c.nn} has rows but none for "
                                       f"{v} ({rel(c.dir)}/{v}.cu exists): missing results row")
            if len({(r["size"], r["knobs"]) for r in mine}) > 1:
                raise ResultsError(f"{mine[0]['_file']}: chapter {c.nn}: its programs were measured "
                                   "at different sizes or knobs; the speedup needs one problem")
