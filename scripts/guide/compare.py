"""Your GPU beside the reference GPUs: `make chapter-NN`'s comparison block, `make compare`'s
table, and how long the reference GPUs took to measure (the top README's runtime block).

A reference GPU is every results file in results/ of a GPU other than the local one: the local
GPU's own file (the same gpu name) is not a reference to itself. A speedup that differs from a
reference's by more than OUTLIER times either way is marked: a different architecture showing a
different effect is part of the lesson, and the chapter's "When it does not help" says why."""

import datetime
import subprocess

from . import evidence as ev
from . import loops
from .model import ResultsError, gpu_slug, host_text, md_text, rel

OUTLIER = 1.25           # local / reference speedup outside [1/OUTLIER, OUTLIER] is marked
SESSION_GAP_S = 300      # rows recorded further apart than this belong to different runs


def short(name):
    return name.removeprefix("NVIDIA ")


def rows_speedup(rows):
    """Naive median over optimized median of one chapter's rows, or None (a failed check
    has no speedup)."""
    if any(r["check"] != "pass" for r in rows):
        return None
    by = {r["variant"]: r for r in rows}
    n, o = by.get("naive"), by.get("optimized")
    if not (n and o and n["median_us"] and o["median_us"]):
        return None
    return float(n["median_us"]) / float(o["median_us"])


def roof_text(rows):
    """The optimized program's % of its roof: '83% copy', or '-' for a time-only chapter."""
    o = next((r for r in rows if r["variant"] == "optimized"), None)
    if not o or not o["pct_roof"]:
        return "-"
    return f"{float(o['pct_roof']):.0f}% {o['roof_name']}".strip()


def outlier(local, ref):
    return local is not None and ref is not None and not (1 / OUTLIER <= local / ref <= OUTLIER)


def references(data, local_gpu):
    """slug -> GPU name of every results file that is not the local GPU's."""
    return {s: rows[0]["gpu"] for s, rows in data.results.items()
            if rows and rows[0]["gpu"] != local_gpu}


def local_gpu_name(arg):
    """--gpu NAME, else the first GPU nvidia-smi names, else None."""
    if arg:
        return arg
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [l.strip() for l in p.stdout.splitlines() if l.strip()]
    return names[0] if p.returncode == 0 and names else None


def resolve_local(data, name):
    """The results slug of the local GPU: its exact name's slug, or a unique part of one."""
    if gpu_slug(name) in data.results:
        return gpu_slug(name)
    hits = [s for s in data.results if gpu_slug(name) in s]
    if len(hits) == 1:
        return hits[0]
    folder = rel(data.results_dir)
    if not hits:
        raise ResultsError(f"no results file for '{name}' in {folder}/ (expected "
                           f"{folder}/{gpu_slug(name)}.csv): run `make results` first on that GPU")
    raise ResultsError(f"'{name}' matches {len(hits)} results files ({', '.join(hits)}); "
                       "name one with --gpu")


def chapter_block(data, local_rows):
    """The lines `make chapter-NN` prints below its table."""
    c = data.chapters[int(local_rows[0]["chapter"])]
    local_gpu = local_rows[0]["gpu"]
    refs = references(data, local_gpu)
    mine = rows_speedup(local_rows)
    head = f"Chapter {c.nn} beside the reference GPUs in {rel(data.results_dir)}/:"
    if not refs:
        return [head, "  no reference GPU file (only this GPU's own, if any); nothing to compare"]
    table = [("GPU", "speedup", "optimized % of roof", "yours / theirs"),
             (f"{short(local_gpu)} (yours)", fmt_speedup(mine), roof_text(local_rows), "")]
    far = []
    for slug, name in refs.items():
        rows = data.chapter_rows(slug, c.number)
        theirs = rows_speedup(rows)
        stale = any(r["source_hash"] != c.hash for r in rows)
        rel_text = f"{mine / theirs:.2f}x" if mine and theirs else "-"
        if outlier(mine, theirs):
            far.append((short(name), mine / theirs))
            rel_text += " !"
        table.append((short(name) + (" (stale: sources changed since)" if stale else ""),
                      fmt_speedup(theirs) if rows else "not measured", roof_text(rows), rel_text))
    out = [head] + ["  " + l for l in aligned(table)]
    # The host beside the GPU: where the host sets the time, its copy rates explain a difference.
    out.append(f"  yours: {host_text(local_rows)}")
    for slug, name in refs.items():
        rows = data.chapter_rows(slug, c.number)
        if rows:
            out.append(f"  {short(name)}: {host_text(rows)}")
    for name, r in far:
        out.append(f"  ! your speedup is {r:.2f}x the {name}'s (more than {OUTLIER:g}x apart): "
                   f"a different GPU can show a different effect; see \"When it does not help\" "
                   f"in {rel(c.readme or c.dir)}")
    return out


def fmt_speedup(s):
    return "-" if s is None else f"{s:.2f}x"


def aligned(table):
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(r, widths))).rstrip() for r in table]


def compare_table(data, local_slug):
    """`make compare`: every chapter, the local GPU next to each reference GPU."""
    local_gpu = data.results[local_slug][0]["gpu"]
    refs = references(data, local_gpu)
    gpus = [(local_slug, local_gpu)] + list(refs.items())
    head = ["chapter"]
    for slug, name in gpus:
        tag = " (yours)" if slug == local_slug else ""
        head += [f"{short(name)}{tag}", "roof", "prediction"]
    head += [f"yours/{short(n)}" for n in refs.values()]
    lines, marks = [head], set()
    for number, c in sorted(data.chapters.items()):
        per = {s: data.chapter_rows(s, number) for s, _ in gpus}
        if not any(per.values()):
            continue
        line, speeds = [f"{c.nn} {c.slug}"], {}
        for slug, _ in gpus:
            rows = per[slug]
            speeds[slug] = rows_speedup(rows)
            cell = fmt_speedup(speeds[slug]) if rows else "not measured"
            if rows and any(r["source_hash"] != c.hash for r in rows):
                cell += " *"
                marks.add("*")
            p = ev.prediction_verdict(data, slug, number)
            line += [cell, roof_text(rows), p["verdict"] if p else "-"]
        for slug in refs:
            mine, theirs = speeds[local_slug], speeds[slug]
            cell = f"{mine / theirs:.2f}x" if mine and theirs else "-"
            if outlier(mine, theirs):
                cell += " !"
                marks.add("!")
            line.append(cell)
        lines.append(line)
    out = [f"Your GPU ({local_gpu}) beside the reference GPUs in {rel(data.results_dir)}/: "
           "speedup (naive median over optimized median), the optimized program's % of roof, "
           "the prediction's verdict."]
    if not refs:
        out.append("(no reference GPU file besides yours: the table shows your GPU alone)")
    out += [""] + aligned(lines)
    # The hosts beside the chapters whose time the host sets (their rows carry its copy rates).
    hosted = [(number, c) for number, c in sorted(data.chapters.items())
              if any(r["host_copy_gbs"] for s, _ in gpus for r in data.chapter_rows(s, number))]
    if hosted:
        out += ["", "The host behind the chapters timed on the host's clock (their speedups "
                "depend on it as well as on the GPU):"]
        for number, c in hosted:
            for slug, name in gpus:
                rows = data.chapter_rows(slug, number)
                if rows:
                    out.append(f"  {c.nn} on {short(name)}: {host_text(rows)}")
    if "*" in marks:
        out.append("* stale: the chapter's sources changed after this measurement")
    if "!" in marks:
        out.append(f"! more than {OUTLIER:g}x apart: see the chapter README's "
                   "\"When it does not help\"; a different GPU showing a different effect is "
                   "part of the lesson")
    return out


def run_seconds(rows):
    """Wall time of the measuring runs behind some rows, from the times the rows were recorded:
    the sum of the gaps between consecutive rows, leaving out gaps of more than SESSION_GAP_S
    (another session). The first program of each session is not counted: a lower bound."""
    times = sorted(datetime.datetime.fromisoformat(r["date"].replace("Z", "+00:00"))
                   for r in rows if r["date"])
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
    return sum(g for g in gaps if g <= SESSION_GAP_S)


def run_seconds_per_chapter(data):
    """chapter number -> seconds one program run took, the mean over every GPU's recorded rows
    (results and sweeps): a row's run is the time since the row before it in the same session.
    `make results` estimates the time left from it."""
    per = {}
    for slug, rows in data.results.items():
        every = sorted((r for r in rows + data.sweeps.get(slug, []) if r["date"]),
                       key=lambda r: r["date"])
        stamps = [datetime.datetime.fromisoformat(r["date"].replace("Z", "+00:00"))
                  for r in every]
        for prev, (r, t) in zip(stamps, list(zip(every, stamps))[1:]):
            gap = (t - prev).total_seconds()
            if gap <= SESSION_GAP_S:
                per.setdefault(int(r["chapter"]), []).append(gap)
    return {n: sum(g) / len(g) for n, g in sorted(per.items())}


def runtime_block(data):
    """The top README's <!-- runtime --> block: how long `make results` took on each GPU with a
    results file. Where results/loops/times.csv holds a timed `make results` on that GPU, that
    time (measuring and evidence, start to end); else an estimate from the rows' times."""
    timed_loop = {r["machine"].split(",")[0]: r for r in loops.read_loops(data.results_dir)
                  if r["loop"] == "make results"}
    lines = []
    for slug, rows in data.results.items():
        if not rows:
            continue
        every = rows + data.sweeps.get(slug, [])
        chapters = len({r["chapter"] for r in rows})
        timed = sum(int(r["samples"]) * float(r["median_us"]) for r in every
                    if r["median_us"]) / 1e6
        plural = "s" * (chapters != 1)
        loop = timed_loop.get(rows[0]["gpu"])
        if loop:
            lines.append(f"- {md_text(rows[0]['gpu'])}: `make results` took {loops.duration(loop['seconds'])}, "
                         f"measuring and then the evidence (timed at commit {loop['commit']}); the "
                         f"results hold {chapters} chapter{plural} ({len(every)} programs and "
                         f"configurations), whose timed samples themselves are {timed:.0f} s.")
            continue
        took = run_seconds(every)
        took = f"{took / 60:.0f} minutes" if took >= 120 else f"{took:.0f} s"
        lines.append(f"- {md_text(rows[0]['gpu'])}: about {took} to measure {chapters} chapter{plural} "
                     f"({len(every)} programs and configurations), of which the timed samples "
                     f"themselves are {timed:.0f} s; the rest is inputs, the CPU reference, "
                     "verification, warm-up and the L2 flush before each sample.")
    if not lines:
        return "No GPU has measured the chapters yet."
    return ("\n".join(lines) + "\n\nGenerated by `make readme`. A GPU whose `make results` was timed "
            "(results/loops/times.csv) shows that time. For the others, "
            "the estimate adds up the gaps between consecutive rows of one run: the measuring "
            "alone, except that where the chapters were measured one `make results CHAPTERS=N` at a "
            "time, each gap after a chapter's last row also holds that chapter's evidence pass.")
