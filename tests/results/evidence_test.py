#!/usr/bin/env python3
"""Checks of the evidence producer on hand-made fixtures (no GPU):
    evidence_test.py PARSE_MODULE
prints one PASS:/FAIL: line per check. evidence_test.sh runs it on the real
modules and on planted faults."""
import contextlib
import csv
import importlib.util
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
results = []


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def check(name, got, want):
    ok = got == want
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}: {name}" + ("" if ok else f": got {got!r}, want {want!r}"))


def raises(name, fn, exc, needle):
    try:
        fn()
    except exc as e:
        check(name, needle in str(e), True)
        return
    check(name, "no error", f"an error saying '{needle}'")


CTX = dict(chapter="7", slug="instruction-level-parallelism", variant="optimized", options="",
           gpu="NVIDIA H100 80GB HBM3", cc="9.0", arch="sm_90", size="67108864",
           source_hash="0123456789ab", commit="abc1234", date="2026-01-01T00:00:00Z")
METRICS = ["dram__bytes_read.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "gpu__time_duration.sum", "smsp__thread_inst_executed_per_inst_executed.ratio",
           "smsp__warps_launched.sum"]
PATTERNS = ["LDG", "STG", "BAR", "LDG.E.128", "MUFU"]


def values(rows):
    return {(r[8], r[9]): float(r[10]) for r in rows}


def main(parse_path):
    ev = load(parse_path, "evidence_parse")
    common = {"l2_flush_kernel", "spin_kernel"}  # as common_kernel_names finds them
    check("common/ kernels found in the sources",
          {"l2_flush_kernel", "spin_kernel"} <= ev.common_kernel_names(
              os.path.join(HERE, "..", "..", "common")), True)
    # What every profiled chapter records beside its own metrics: the roofline's counts, the
    # names the book's roofline reads (scripts/guide/evidence.py owns both).
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ev.main(["context", os.path.join(HERE, "..", "..", "chapters", "26-single-precision-literals")])
    base = [line[len("base_metrics="):].split(",") for line in out.getvalue().splitlines()
            if line.startswith("base_metrics=")]
    check("context names the roofline's base metrics: DRAM bytes both ways and FP32 instructions",
          bool(base) and {"dram__bytes_read.sum", "dram__bytes_write.sum",
                          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"} <= set(base[0]),
          True)
    notes = []
    rows = ev.program_rows(CTX, fixture("ncu-two-kernels.csv"),
                           [fixture("ptxas-optimized.txt"), fixture("ptxas-problem.txt")],
                           [fixture("sass-optimized.txt"), fixture("sass-problem.txt")],
                           METRICS, PATTERNS, common, notes.append)
    v = values(rows)
    check("ncu bytes add up over the kernels", v[("ncu", "dram__bytes_read.sum")], 269484032)
    check("ncu durations add up", v[("ncu", "gpu__time_duration.sum")], 400000)
    check("ncu pct is the duration-weighted mean",
          v[("ncu", "dram__throughput.avg.pct_of_peak_sustained_elapsed")], 60)
    check("ncu ratio is the duration-weighted mean",
          v[("ncu", "smsp__thread_inst_executed_per_inst_executed.ratio")], 30)
    check("ptxas registers: the most of the launched kernels", v[("ptxas", "registers")], 20)
    check("ptxas stack: device functions' frames are not the kernel's", v[("ptxas", "stack_bytes")], 24)
    check("ptxas spill stores add up", v[("ptxas", "spill_store_bytes")], 4)
    check("ptxas smem: the most", v[("ptxas", "smem_bytes")], 512)
    check("sass LDG counts LDG.E and LDG.E.128, predicated too", v[("sass", "LDG")], 10)
    check("sass LDG.E.128 exact pattern", v[("sass", "LDG.E.128")], 1)
    check("sass BAR counts BAR.SYNC.DEFER_BLOCKING", v[("sass", "BAR")], 1)
    check("rows carry the context and the header's order",
          rows[0][:8] + rows[0][12:], [CTX[k] for k in ev.HEADER[:8]] + [CTX[k] for k in ev.HEADER[12:]])
    check("one row per tool and metric", len(rows), len(set((r[8], r[9]) for r in rows)))

    # Without a profile (a chapter with no ncu metrics): every kernel of the
    # program's own file, never the one from common/.
    rows = ev.program_rows(CTX, None, [fixture("ptxas-optimized.txt"), fixture("ptxas-problem.txt")],
                           [fixture("sass-optimized.txt"), fixture("sass-problem.txt")],
                           [], ["LDG"], common, notes.append)
    v = values(rows)
    check("no profile: registers over the file's own kernels, common/ left out",
          v[("ptxas", "registers")], 30)
    check("no profile: spills without the common/ kernel's", v[("ptxas", "spill_store_bytes")], 4)
    check("no profile: LDG over the file's own kernels, sm_90 only", v[("sass", "LDG")], 28)
    check("no ncu rows without a profile", [r for r in rows if r[8] == "ncu"], [])

    lib = dict(CTX, variant="library")
    rows = ev.program_rows(lib, fixture("ncu-two-kernels.csv"),
                           [fixture("ptxas-problem.txt")], [fixture("sass-problem.txt")],
                           METRICS, PATTERNS, common, notes.append)
    check("library: ncu rows only, and a note", ({r[8] for r in rows}, bool(notes)), ({"ncu"}, True))

    raises("a profile with no kernel is an error",
           lambda: ev.program_rows(CTX, fixture("ncu-no-kernel.csv"), [fixture("ptxas-optimized.txt")],
                                   [fixture("sass-optimized.txt")], METRICS, PATTERNS, common,
                                   notes.append), ev.EvidenceError, "no kernel")
    raises("a metric ncu did not report is an error",
           lambda: ev.aggregate_ncu(ev.ncu_kernels(fixture("ncu-two-kernels.csv")),
                                    ["dram__bytes_write.sum"]), ev.EvidenceError, "dram__bytes_write.sum")

    host = ev.host_rows(dict(CTX, variant="optimized"), fixture("host.log"))
    check("host lines become rows", [(r[8], r[9], r[10], r[11]) for r in host],
          [("host", "overlap_pct", "87.25", "%"), ("host", "transfer_gbs", "24.5", "GB/s")])
    raises("a malformed evidence line is an error",
           lambda: ev.host_rows(CTX, "evidence: overlap = lots %\n"), ev.EvidenceError, "overlap")

    real = ev.aggregate_ncu(ev.ncu_kernels(fixture("ncu-h100-transpose-naive.csv")),
                            ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                             "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    check("a real H100 report: 32 store sectors per request in the naive transpose",
          real["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"][0]
          / real["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"][0], 32.0)
    batch_split(ev)
    merge_rows(ev)
    return 0 if all(results) else 1


def batch_split(ev):
    """ncu's report of a --batch run, split by the NVTX start/end range 'batch K'."""
    text = fixture("ncu-two-kernels.csv")
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    col = "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"

    def report(ranges, header_col=col):
        out = io.StringIO()
        w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(rows[0] + [header_col])
        w.writerow(rows[1] + [""])  # the units row
        for r, cell in zip(rows[2:], ranges):
            w.writerow(r + [cell])
        return "09-x/naive: size 1\nbatch: exit 0: --size 1\n" + out.getvalue()

    names = [r[rows[0].index("Kernel Name")] for r in rows[2:]]
    parts = ev.ncu_split(report(["3 <default domain>:batch 2:none:none:none:none:none:none",
                                 "4 <default domain>:batch 1:none:none:none:none:none:none"]), 3)
    at = rows[0].index("Kernel Name")
    kernels = lambda part: [r[at] for r in csv.reader(part.splitlines())][2:]  # noqa: E731
    check("batch split: each kernel goes to its configuration, the third has none",
          {k: kernels(v) for k, v in parts.items()}, {1: names[1:2], 2: names[0:1], 3: []})
    check("batch split: a part keeps the units row",
          ev.ncu_kernels(parts[1])[0][1]["dram__bytes_read.sum"][1], "byte")
    raises("batch split: a kernel outside every batch range is an error",
           lambda: ev.ncu_split(report(["", "4 <default domain>:batch 1:none"]), 2),
           ev.EvidenceError, "no NVTX range")
    raises("batch split: batch 12 is not batch 1",
           lambda: ev.ncu_split(report(["1 <default domain>:batch 12:none", "batch 1"]), 2),
           ev.EvidenceError, "'batch 12', not one of 1..2")
    raises("batch split: a report without the NVTX start/end column is an error",
           lambda: ev.ncu_split(report(["batch 1", "batch 1"], "Other"), 1),
           ev.EvidenceError, "--nvtx")


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


RESULTS_PY = os.path.join(HERE, "..", "..", "scripts", "results.py")


def merge(tmp, new, gpu, chapters, tools):
    """results.py merge-evidence into tmp/evidence; (exit status, stderr)."""
    import subprocess
    p = subprocess.run([sys.executable, RESULTS_PY, "--results-dir", tmp, "merge-evidence", new,
                        "--gpu", gpu, "--chapters", chapters, "--tools", tools],
                       capture_output=True, text=True)
    return p.returncode, p.stderr


def merge_rows(ev):
    gpu = CTX["gpu"]
    row = lambda ch, tool, metric, value: [dict(CTX, chapter=ch, tool=tool, metric=metric,  # noqa
                                                value=value, unit="",
                                                slug={"7": CTX["slug"], "9": "warp-multiple-blocks"}[ch])[k]
                                           for k in ev.HEADER]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "evidence")
        os.makedirs(out)
        old = os.path.join(out, "nvidia-h100-80gb-hbm3.csv")
        write(old, ev.HEADER, [row("7", "ncu", "a", "1"), row("7", "host", "h", "2"),
                               row("9", "ncu", "a", "3")])
        new = os.path.join(tmp, "new.csv")
        write(new, ev.HEADER, [row("7", "ncu", "b", "4")])
        rc, err = merge(tmp, new, gpu, "7", "ncu,ptxas,sass")
        with open(old) as f:
            got = [(r[0], r[8], r[9], r[10]) for r in list(csv.reader(f))[1:]]
        check("merge replaces the tools it records, keeps host rows and other chapters", (rc, got),
              (0, [("7", "ncu", "b", "4"), ("7", "host", "h", "2"), ("9", "ncu", "a", "3")]))
        for what, rows, header, needle in (
                ("a duplicate row", [row("7", "ncu", "b", "4"), row("7", "ncu", "b", "5")],
                 ev.HEADER, "second row"),
                ("a wrong header", [row("7", "ncu", "b", "4")[:-1]], ev.HEADER[:-1], "header"),
                ("a value that is not finite", [row("7", "ncu", "b", "nan")], ev.HEADER, "value"),
                ("a row of a chapter not named", [row("9", "ncu", "b", "4")], ev.HEADER,
                 "not to be merged")):
            write(new, header, rows)
            rc, err = merge(tmp, new, gpu, "7", "ncu")
            check(f"merge: {what} is an error", (rc, needle in err), (1, True))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
