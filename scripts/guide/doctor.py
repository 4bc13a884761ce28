"""`make doctor`: what moves the numbers on this machine, and which measured figure accounts for
each chapter whose speedup differs from a reference GPU's.

The live part reads the GPU's state through nvidia-smi's queries (read-only: it changes no
setting) and the roofs scripts/doctor-roofs.cu measures, the way the chapters' rows measured
theirs. The analysis part reads recorded files alone: a results file of the user's beside each
reference GPU's (compare.py's speedups and outliers), and, for a chapter more than
compare.OUTLIER apart, the figures its speedup depends on (DEPENDS) on both sides."""

import os
import re
import statistics
import subprocess
from collections import namedtuple

from . import compare
from .model import ResultsError, rel

# A figure a speedup can depend on. kind "roof": a roof of the results rows (the chapter's own
# rows where they name it, else the file's); "clock": the SM clock the rows ran at; "host": a
# host figure of the chapter's evidence (tool host, default configuration of one program).
Figure = namedtuple("Figure", "kind name label unit chapter variant", defaults=(None, None))

ROOF_UNITS = {"copy": "GB/s", "link-h2d": "GB/s", "link-d2h": "GB/s", "link-duplex": "GB/s",
              "launch-stream": "klaunch/s", "launch-graph": "klaunch/s"}
CLOCK = Figure("clock", "sm-clock", "SM clock", "MHz")
ONE_CORE_MEMCPY = Figure("host", "host_memcpy_gbs", "one core's memcpy", "GB/s", 13, "naive")


def roof(name):
    return Figure("roof", name, f"{name} roof", ROOF_UNITS.get(name, ""))


# What each host-bound chapter's speedup depends on beyond what every chapter's does (the roof
# its rows name and the SM clock they ran at): the figures issue 34's other hosts moved.
DEPENDS = {
    2: [roof("link-h2d"), roof("link-d2h")],
    3: [Figure("host", "hash_ns_per_word", "one core's hash time per word", "ns", 3, "naive")],
    5: [roof("launch-stream")],
    11: [Figure("host", "host_norm_one_core_ms", "the host norm on one core", "ms", 11, "naive")],
    # The naive program is one API call per piece (a call costs about what a launch does on
    # the same host and driver); the optimized gather kernel is bound by the link.
    12: [roof("link-h2d"), roof("launch-stream")],
    13: [ONE_CORE_MEMCPY],
    14: [Figure("host", "gather_one_core_ms", "the gather on one core", "ms", 14, "naive")],
    36: [Figure("host", "malloc_us", "one cudaMalloc call", "us", 36, "naive")],
}
# The live roofs, in the names doctor-roofs prints, beside the same figure of each results file.
LIVE = [roof("copy"), roof("link-h2d"), roof("link-d2h"), roof("launch-stream"),
        roof("launch-graph"), Figure("clock", "sm-clock", "SM clock under load", "MHz"),
        ONE_CORE_MEMCPY._replace(name="host-memcpy")]
FIGURE_APART = 1.2       # a figure further apart than this, either way, has moved
# nvidia-smi's clock event (throttle) reasons, the bits of NVML's nvmlClocksThrottleReason*.
REASONS = {0x1: "GPU idle", 0x2: "application clocks setting", 0x4: "software power cap",
           0x8: "hardware slowdown", 0x10: "sync boost", 0x20: "software thermal slowdown",
           0x40: "hardware thermal slowdown", 0x80: "hardware power brake",
           0x100: "display clock setting"}
QUERY = ["name", "clocks.sm", "clocks.max.sm", "REASONS", "persistence_mode",
         "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
         "pcie.link.width.max", "driver_version"]
NO_GPU = "error: make doctor needs a CUDA GPU, and nvidia-smi sees none on this machine"


class NoGPU(Exception):
    pass


# ---- the live part ---------------------------------------------------------------------------

def _run(argv, timeout=60):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p


def gpu_state():
    """nvidia-smi's view of GPU 0, field -> text. Only --query-gpu: nothing is set. Drivers
    before 535 name the throttle reasons clocks_throttle_reasons. Raises NoGPU."""
    for reasons in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        fields = [reasons if f == "REASONS" else f for f in QUERY]
        p = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
        if p is None:
            raise NoGPU()
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        if p.returncode == 0 and lines:
            values = [v.strip() for v in lines[0].split(",")]
            if len(values) == len(QUERY):
                return dict(zip(QUERY, values))
    raise NoGPU()


def reasons_text(text):
    try:
        bits = int(text, 16)
    except ValueError:
        return text or "not reported"
    names = [n for b, n in REASONS.items() if bits & b]
    known = sum(REASONS)
    if bits & ~known:
        names.append(f"other (0x{bits & ~known:x})")
    return ", ".join(names) if names else "none"


def host_cpu():
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model or 'model not reported'}, {usable} of {os.cpu_count()} cores usable here"


def toolkit():
    p = _run(["nvcc", "--version"])
    m = re.search(r"release (\d+\.\d+)", p.stdout) if p and p.returncode == 0 else None
    return f"CUDA {m.group(1)} (nvcc)" if m else "nvcc not found"


def measure(program):
    """doctor-roofs' 'name value' lines -> {name: text}. Raises NoGPU (its exit 3) or
    ResultsError (it failed)."""
    p = _run([program], timeout=120)
    if p is None:
        raise ResultsError(f"{program} did not run (missing, or past two minutes)")
    if p.returncode == 3:
        raise NoGPU()
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise ResultsError(f"{program} exit {p.returncode}: {last}")
    return dict(l.split(" ", 1) for l in p.stdout.splitlines() if " " in l)


def live_lines(data, state, program, local):
    got = measure(program)
    facts = [
        ("GPU", state["name"]),
        ("SM clock", f"{state['clocks.sm']} MHz now, {got.get('sm-clock', '?')} MHz under load "
                     f"(measured), {state['clocks.max.sm']} MHz at most"),
        ("clock limits now", reasons_text(state["REASONS"])),
        ("persistence mode", state["persistence_mode"]),
        ("host link", f"PCIe gen {state['pcie.link.gen.current']} x"
                      f"{state['pcie.link.width.current']} now, gen {state['pcie.link.gen.max']} x"
                      f"{state['pcie.link.width.max']} at most (an idle link steps down; the link "
                      "roofs below are measured under load)"),
        ("driver, toolkit", f"{state['driver_version']}, {toolkit()}"),
        ("host CPU", host_cpu())]
    width = max(len(k) for k, _ in facts)
    out = ["What moves the numbers on this machine (make doctor reads; it changes no setting):"]
    out += [f"  {k.ljust(width)}  {v}" for k, v in facts]
    files = {slug: rows[0]["gpu"] for slug, rows in data.results.items() if rows}
    table = [["roof", "this machine"] + [compare.short(n) + " (your results)" * (slug == local)
                                         for slug, n in files.items()]]
    for f in LIVE:
        try:
            mine = float(got[f.name])
        except (KeyError, ValueError):
            mine = None
        line = [f"{f.label}, {f.unit}", "not measured" if mine is None else f"{mine:.4g}"]
        for slug in files:
            theirs = figure(data, slug, ONE_CORE_MEMCPY if f.kind == "host" else f)
            line.append(("-" if theirs is None else f"{theirs:.4g}")
                        + (" !" if mine and theirs and apart(mine, theirs) else ""))
        table.append(line)
    return out + ["", "Measured roofs, this machine beside each results file's (the median of its "
                  "rows; one core's memcpy: chapter 13's evidence); ! more than "
                  f"{FIGURE_APART:g}x apart:"] + ["  " + l for l in compare.aligned(table)]


# ---- the analysis part ---------------------------------------------------------------------

def apart(a, b):
    return a > 0 and b > 0 and not (1 / FIGURE_APART <= a / b <= FIGURE_APART)


def figure(data, slug, f, chapter=None):
    """The value of figure f in one GPU's recorded files (for chapter, where it has its own),
    or None where it was not recorded."""
    if f.kind == "host":
        hit = [r["value"] for r in data.evidence.get(slug, []) if int(r["chapter"]) == f.chapter
               and r["variant"] == f.variant and r["options"] == "" and r["tool"] == "host"
               and r["metric"] == f.name]
        return hit[0] if hit else None
    rows = data.results.get(slug, [])
    own = [r for r in rows if chapter is not None and int(r["chapter"]) == chapter]
    if f.kind == "clock":
        values = [float(r["sm_clock_mhz"]) for r in (own or rows) if r["sm_clock_mhz"]]
    else:
        named = [r for r in own if r["roof_name"] == f.name] or \
                [r for r in rows if r["roof_name"] == f.name]
        values = [float(r["roof"]) for r in named]
    return statistics.median(values) if values else None


def depends(data, number):
    """The figures chapter number's speedup depends on: the roofs its rows name, the SM clock,
    and DEPENDS's."""
    names = sorted({r["roof_name"] for rows in data.results.values() for r in rows
                    if int(r["chapter"]) == number and r["roof_name"]})
    return [roof(n) for n in names] + [CLOCK] + [f for f in DEPENDS.get(number, [])
                                                 if f not in [roof(n) for n in names]]


def fmt(f, v):
    return "not recorded" if v is None else f"{v:.4g} {f.unit}".strip()


def explain(data, number, mine_slug, their_slug):
    """The lines under one chapter more than OUTLIER apart: each figure that moved, or
    'unexplained: report it' with the figures it compared."""
    moved, same = [], []
    for f in depends(data, number):
        a, b = figure(data, mine_slug, f, number), figure(data, their_slug, f, number)
        where = f" (chapter {f.chapter} {f.variant}, host:{f.name})" if f.kind == "host" else ""
        text = f"{f.label}{where}: {fmt(f, a)} yours, {fmt(f, b)} there"
        if a is not None and b is not None and apart(a, b):
            moved.append(f"{text} ({a / b:.2f}x)")
        else:
            same.append(text)
    if moved:
        return ["explained by " + l for l in moved]
    return [f"unexplained: report it (what it depends on is within {FIGURE_APART:g}x or not "
            f"recorded: {'; '.join(same)})"]


def analysis_lines(data, local_slug):
    local_gpu = data.results[local_slug][0]["gpu"]
    refs = compare.references(data, local_gpu)
    out = [f"Your results ({rel(os.path.join(data.results_dir, local_slug + '.csv'))}) beside "
           f"each reference GPU: chapters whose speedup is more than {compare.OUTLIER:g}x apart, "
           "with the measured figure that moved (more than "
           f"{FIGURE_APART:g}x apart)."]
    if not refs:
        return out + ["  no reference GPU file besides yours: nothing to compare"]
    far = 0
    for number, c in sorted(data.chapters.items()):
        mine = compare.rows_speedup(data.chapter_rows(local_slug, number))
        for slug, name in refs.items():
            theirs = compare.rows_speedup(data.chapter_rows(slug, number))
            if not compare.outlier(mine, theirs):
                continue
            far += 1
            out.append(f"  {c.nn} {c.slug}: {mine:.2f}x yours, {theirs:.2f}x on "
                       f"{compare.short(name)} ({mine / theirs:.2f}x)")
            out += ["      " + l for l in explain(data, number, local_slug, slug)]
    if not far:
        out.append(f"  every chapter within {compare.OUTLIER:g}x of every reference GPU")
    return out


def doctor_lines(data, name, program):
    """make doctor's report: the live part (program: doctor-roofs; None: none), then the
    analysis of the results file of GPU name (None: this GPU's). Raises NoGPU."""
    state = gpu_state() if program or name is None else None
    try:
        local, why = compare.resolve_local(data, name or state["name"]), None
    except ResultsError as e:
        local, why = None, f"{e}; then `make doctor` names the figure behind each chapter that differs"
    out = live_lines(data, state, program, local) + [""] if program else []
    return out + ([why] if why else analysis_lines(data, local))
