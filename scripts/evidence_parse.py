#!/usr/bin/env python3
"""The parsing half of `make evidence` (scripts/evidence.sh runs the tools, this
turns their output into rows of results/evidence/<gpu>.csv).

    evidence_parse.py program [--ncu F --metrics M,...] --ptxas F --sass F [--ptxas F --sass F]
                              [--patterns LDG,STG] CONTEXT
        one program (a variant with its options): ncu's raw CSV page of its
        checked run; ptxas -v and cuobjdump -sass of its own file, then of the
        chapter's problem.cu
    evidence_parse.py host-list LIST CONTEXT
        the `evidence: NAME = VALUE UNIT` lines of programs' timed runs, one run a line of
        LIST, "LOG<TAB>VARIANT<TAB>OPTIONS<TAB>SIZE<TAB>DATE", with
        an optional sixth field: a file of more evidence lines for that run (make results'
        rounds); CONTEXT gives the rest, once for the chapter
    evidence_parse.py ncu-split REPORT N PREFIX
        ncu's raw CSV page of one `--batch` run of N configurations, split by the NVTX
        start/end range "batch K" each kernel ran in: PREFIX-K.ncu.csv for K = 1..N
    evidence_parse.py header
        the evidence header line
    evidence_parse.py context CHAPTER_DIR
        print `size=`, `sass=` and `options=` lines of the chapter's evidence.toml [record], and
        `base_metrics=`, the ncu metrics every profiled chapter records beside its own

CONTEXT is --chapter --slug --variant --options --gpu --cc --arch --size --hash
--commit --date. Rows go to stdout, without the header. Which kernels count:
ncu takes every kernel of the variant's NVTX range (its run and nothing else);
ptxas and sass take the kernels of the chapter's files (the variant's own and
problem.cu) that this configuration launched (so `--min-blocks 4` counts the
template instance it runs), never a kernel defined in common/. Standard library only."""

import argparse
import csv
import glob
import io
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guide.evidence import COLUMNS as HEADER  # noqa: E402  (the one column list)
from guide.evidence import ROOFLINE_DRAM_METRICS, ROOFLINE_FLOP_METRICS, read_record  # noqa: E402
from guide.model import ResultsError  # noqa: E402
DURATION = "gpu__time_duration.sum"


class EvidenceError(Exception):
    pass


# ---- ncu --csv --page raw --print-units base --print-kernel-base mangled ----

def ncu_kernels(text):
    """[(kernel name, {column: (cell, unit)})], one entry per profiled kernel."""
    # The report's lines are quoted CSV; the program's own output and ncu's
    # ==PROF== lines are not.
    rows = list(csv.reader(l for l in text.splitlines() if l.startswith('"')))
    if not rows or "Kernel Name" not in rows[0]:
        raise EvidenceError("ncu profiled no kernel")
    header, rows = rows[0], rows[1:]
    name_at = header.index("Kernel Name")
    units = {}
    if rows and rows[0][name_at] == "":  # the units row
        units = dict(zip(header, rows[0]))
        rows = rows[1:]
    if not rows:
        raise EvidenceError("ncu profiled no kernel")
    return [(r[name_at], {c: (cell, units.get(c, "")) for c, cell in zip(header, r)})
            for r in rows]


BATCH_RANGE = re.compile(r"(?<![^\s:])batch (\d+)(?![^\s:])")


def ncu_split(text, n):
    """ncu's report of a `--batch` run -> n reports, one per configuration (1..n), each the
    header, the units row and the kernels that ran inside the NVTX start/end range
    "batch K" (the driver opens one around each configuration)."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    if not rows or "Kernel Name" not in rows[0]:
        raise EvidenceError("ncu profiled no kernel")
    header = rows[0]
    at = [i for i, c in enumerate(header) if "Start/Stop_Range" in c]
    if not at:
        raise EvidenceError("ncu's report has no NVTX start/end range column: profile with --nvtx")
    body = rows[1:]
    lead = [body.pop(0)] if body and body[0][header.index("Kernel Name")] == "" else []
    parts = {k: [] for k in range(1, n + 1)}
    for r in body:
        found = {int(m.group(1)) for i in at for m in BATCH_RANGE.finditer(r[i])}
        kernel = r[header.index("Kernel Name")]
        if len(found) != 1:
            raise EvidenceError(f"kernel {kernel} ran in {'no' if not found else 'more than one'} "
                                f"NVTX range 'batch K': not a --batch run, or ncu without --nvtx")
        if not 1 <= min(found) <= n:
            raise EvidenceError(f"kernel {kernel} ran in 'batch {min(found)}', not one of 1..{n}")
        parts[min(found)].append(r)
    out = {}
    for k, got in parts.items():
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, *lead, *got])
        out[k] = buf.getvalue()
    return out


def ncu_number(kernel, metric, cell):
    try:
        return float(cell.replace(",", ""))  # a thousands separator, if any
    except ValueError:
        raise EvidenceError(f"ncu reported '{cell}' for {metric} of {kernel}")


def metric_kind(name):
    """How a metric adds up over several kernels: SPEC's rule."""
    parts = name.split(".")[1:]
    if any(p == "avg" or p.startswith(("pct", "ratio", "per_second")) for p in parts):
        return "mean"  # weighted by each kernel's duration
    if parts and parts[-1] in ("max", "min"):
        return parts[-1]
    return "sum"  # counts, bytes, durations


def aggregate_ncu(kernels, metrics):
    """{metric: (value, unit)} over all kernels of one run."""
    out = {}
    for m in metrics:
        missing = [k for k, v in kernels if m not in v]
        if missing:
            raise EvidenceError(f"ncu did not report {m} (for {missing[0]})")
        vals = [ncu_number(k, m, v[m][0]) for k, v in kernels]
        kind = metric_kind(m)
        if kind == "mean":
            if any(DURATION not in v for _, v in kernels):
                raise EvidenceError(f"{m} is averaged over kernels by duration: profile {DURATION}")
            w = [ncu_number(k, DURATION, v[DURATION][0]) for k, v in kernels]
            value = (sum(x * y for x, y in zip(vals, w)) / sum(w) if sum(w) > 0
                     else sum(vals) / len(vals))
        elif kind == "max":
            value = max(vals)
        elif kind == "min":
            value = min(vals)
        else:
            value = sum(vals)
        out[m] = (value, kernels[0][1][m][1])
    return out


# ---- ptxas -v ----------------------------------------------------------------

def ptxas_kernels(text):
    """{entry: {registers, stack_bytes, spill_store_bytes, spill_load_bytes, smem_bytes}}."""
    kernels, entry, props = {}, None, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
            kernels[entry] = dict(registers=0, stack_bytes=0, spill_store_bytes=0,
                                  spill_load_bytes=0, smem_bytes=0)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            props = m.group(1)  # an entry, or a device function it calls
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and props in kernels:
            k = kernels[props]
            k["stack_bytes"], k["spill_store_bytes"], k["spill_load_bytes"] = map(int, m.groups())
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and entry is not None:
            kernels[entry]["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            kernels[entry]["smem_bytes"] = int(s.group(1)) if s else 0
    return kernels


def aggregate_ptxas(kernels, names):
    """SPEC: registers, stack and smem are the largest; spills add up."""
    ks = [kernels[n] for n in names]
    return {
        "registers": (max(k["registers"] for k in ks), "registers"),
        "stack_bytes": (max(k["stack_bytes"] for k in ks), "byte"),
        "spill_store_bytes": (sum(k["spill_store_bytes"] for k in ks), "byte"),
        "spill_load_bytes": (sum(k["spill_load_bytes"] for k in ks), "byte"),
        "smem_bytes": (max(k["smem_bytes"] for k in ks), "byte"),
    }


# ---- cuobjdump -sass ----------------------------------------------------------

def sass_functions(text, arch=None):
    """{function: [opcode, ...]} of the SASS for `arch` (every arch if None)."""
    funcs, current, code_arch = {}, None, None
    for line in text.splitlines():
        m = re.match(r"\s*code for (sm_\w+)", line)
        if m:
            code_arch, current = m.group(1), None
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = m.group(1) if arch is None or code_arch == arch else None
            if current is not None:
                funcs.setdefault(current, [])
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and current is not None:
            funcs[current].append(m.group(1))
    return funcs


def count_sass(funcs, names, patterns):
    """SPEC: an opcode counts for PATTERN when it is PATTERN or starts with PATTERN + '.'."""
    out = {}
    for p in patterns:
        n = sum(1 for f in names for op in funcs[f] if op == p or op.startswith(p + "."))
        out[p] = (n, "instructions")
    return out


# ---- which kernels are the variant's own ------------------------------------

def base_name(mangled):
    """copy_kernel from _Z11copy_kernelILi8EEvPfPKfl (or _ZL.. for static)."""
    m = re.match(r"_ZL?(\d+)", mangled)
    if not m:
        return mangled  # extern "C", or a nested name we do not take apart
    n = int(m.group(1))
    return mangled[m.end():m.end() + n]


def common_kernel_names(common_dir):
    names = set()
    for path in glob.glob(os.path.join(common_dir, "*.cu")) + glob.glob(os.path.join(common_dir, "*.h")):
        with open(path) as f:
            text = f.read()
        names.update(re.findall(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s*)?"
                                r"(?:void\s+)?(\w+)\s*\(", text))
    return names


def own_kernels(launched, own_file, chapter_files, common):
    """The kernels this program counts for ptxas and sass: those of the chapter's
    object files (its own, then problem.cu's) that this run launched, none from
    common/. Without a profile, or when it launched none of them, the kernels of
    its own file. Returns (names, note); note says why it fell back."""
    mine = [k for k in own_file if base_name(k) not in common]
    if launched is None:
        return sorted(mine), None
    chosen = sorted(k for k in chapter_files if k in set(launched) and base_name(k) not in common)
    if chosen:
        return chosen, None
    return sorted(mine), "it launched none of the chapter's kernels"


# ---- rows ---------------------------------------------------------------------

def fmt(value):
    if not math.isfinite(value):
        raise EvidenceError(f"value {value} is not finite")
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6g}"


def rows_of(ctx, tool, values):
    for metric, (value, unit) in sorted(values.items()):
        r = dict(ctx, tool=tool, metric=metric, value=fmt(value), unit=unit)
        yield [r[k] for k in HEADER]


def program_rows(ctx, ncu_text, ptxas_texts, sass_texts, metrics, patterns, common, log):
    """ncu_text is None for a chapter without ncu metrics. ptxas_texts and
    sass_texts: the program's own file first, then the chapter's problem.cu."""
    who = f"{ctx['variant']}{' ' + ctx['options'] if ctx['options'] else ''}"
    rows, launched = [], None
    if ncu_text is not None:
        kernels = ncu_kernels(ncu_text)
        rows += rows_of(ctx, "ncu", aggregate_ncu(kernels, metrics))
        launched = [k for k, _ in kernels]
    own_file = ptxas_kernels(ptxas_texts[0])
    compiled = {}
    for t in reversed(ptxas_texts):  # the program's own file wins a name clash
        compiled.update(ptxas_kernels(t))
    names, note = own_kernels(launched, own_file, compiled, common)
    if not names:
        # A library program's kernels are in the library; a transfer-only one has none.
        log(f"note: {who}: no kernel compiled from the chapter's files; no ptxas or sass rows")
        return rows
    if note:
        log(f"warning: {who}: {note}; counting the kernels of its own file")
    rows += rows_of(ctx, "ptxas", aggregate_ptxas(compiled, names))
    funcs = {}
    for t in reversed(sass_texts):
        funcs.update(sass_functions(t, ctx["arch"]))
    absent = [n for n in names if n not in funcs]
    if absent:
        raise EvidenceError(f"cuobjdump shows no {ctx['arch']} code for {absent[0]}")
    rows += rows_of(ctx, "sass", count_sass(funcs, names, patterns))
    return rows


def host_rows(ctx, text):
    values = {}
    for line in text.splitlines():
        m = re.fullmatch(r"evidence: (\S+) = (\S+)(?: (\S+))?\s*", line)
        if not m:
            if line.startswith("evidence:"):
                raise EvidenceError(f"malformed evidence line: {line}")
            continue
        name, value, unit = m.group(1), m.group(2), m.group(3) or ""
        if name in values:
            raise EvidenceError(f"evidence {name} printed twice")
        try:
            values[name] = (float(value), unit)
        except ValueError:
            raise EvidenceError(f"evidence {name}: '{value}' is not a number")
    return list(rows_of(ctx, "host", values))


def record_settings(chapter_dir):
    """[record] of the chapter's evidence.toml: size (or None), sass patterns, options. The
    results model validates it (one owner of evidence.toml)."""
    try:
        rec = read_record(chapter_dir)
    except ResultsError as e:
        raise EvidenceError(str(e))
    return (rec["size"], rec["sass"], rec["options"]) if rec else (None, [], [])


def main(argv):
    ap = argparse.ArgumentParser(prog="evidence_parse.py")
    ap.add_argument("what", choices=["program", "host-list", "ncu-split", "context", "header"])
    ap.add_argument("file", nargs="?")
    ap.add_argument("split", nargs="*")
    ap.add_argument("--ncu")
    ap.add_argument("--ptxas", action="append", default=[])
    ap.add_argument("--sass", action="append", default=[])
    ap.add_argument("--metrics", default="")
    ap.add_argument("--patterns", default="")
    ap.add_argument("--common", default=os.path.join(ROOT, "common"))
    for k in ("chapter", "slug", "variant", "options", "gpu", "cc", "arch", "size", "hash",
              "commit", "date"):
        ap.add_argument("--" + k, default="")
    a = ap.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    try:
        if a.what == "header":
            print(",".join(HEADER))
            return 0
        if a.what == "ncu-split":
            if len(a.split) != 2 or not a.split[0].isdigit() or int(a.split[0]) < 1:
                raise EvidenceError("ncu-split needs REPORT N PREFIX (N configurations, N >= 1)")
            with open(a.file) as f:
                parts = ncu_split(f.read(), int(a.split[0]))
            for k, text in parts.items():
                with open(f"{a.split[1]}-{k}.ncu.csv", "w") as f:
                    f.write(text)
            return 0
        if a.what == "context":
            size, sass, options = record_settings(a.file)
            print(f"size={size or ''}")
            print(f"sass={','.join(sass)}")
            for o in options:
                print(f"options={o}")
            print("base_metrics=" + ",".join([*ROOFLINE_FLOP_METRICS, *ROOFLINE_DRAM_METRICS]))
            return 0
        ctx = dict(chapter=str(int(a.chapter)), slug=a.slug, variant=a.variant, options=a.options,
                   gpu=a.gpu, cc=a.cc, arch=a.arch, size=a.size, source_hash=a.hash,
                   commit=a.commit, date=a.date)
        if a.what == "host-list":
            rows = []
            with open(a.file) as f:
                for lineno, line in enumerate(f, start=1):
                    fields = line.rstrip("\n").split("\t")
                    if len(fields) not in (5, 6):
                        raise EvidenceError(f"{a.file}:{lineno}: {len(fields)} fields, not 5 or 6")
                    text = "".join(open(p).read() for p in [fields[0], *fields[5:]])
                    run = dict(ctx, variant=fields[1], options=fields[2], size=fields[3],
                               date=fields[4])
                    try:
                        rows += host_rows(run, text)
                    except EvidenceError as e:
                        raise EvidenceError(f"{fields[0]}: {e}")
        else:
            read = lambda p: open(p).read()  # noqa: E731
            if not a.ptxas or len(a.ptxas) != len(a.sass):
                raise EvidenceError("program needs --ptxas and --sass for each object file")
            metrics = [m for m in a.metrics.split(",") if m]
            patterns = [p for p in a.patterns.split(",") if p]
            rows = program_rows(ctx, read(a.ncu) if a.ncu else None, [read(p) for p in a.ptxas],
                                [read(p) for p in a.sass], metrics, patterns,
                                common_kernel_names(a.common), log)
    except (EvidenceError, OSError) as e:
        log(f"error: {e}")
        return 1
    csv.writer(sys.stdout, lineterminator="\n").writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
