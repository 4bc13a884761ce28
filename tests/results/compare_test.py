#!/usr/bin/env python3
"""`results.py compare-chapter` (below `make chapter-NN`'s table) and `results.py compare`
(`make compare`), on fixture trees: no reference file, a stale reference row, a malformed
reference file, a third GPU whose optimized program is twice as slow, a missing local file, and
the local GPU named by a fake nvidia-smi. No GPU needed. One PASS: or FAIL: line per assertion;
exits 1 if any failed."""

import csv
import datetime
import io
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_model as tm                                             # noqa: E402

H200, H200_SLUG = "NVIDIA H200", "nvidia-h200"
THIRD, THIRD_SLUG = "Test GPU T1", "test-gpu-t1"


def csv_text(header, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


def reference_rows(t, path, gpu=None, optimized_factor=1.0, source_hash=None):
    """Chapter 20's rows of a committed results file, current (or with source_hash), under
    another gpu name and with the optimized times scaled, if asked."""
    with open(os.path.join(tm.REPO, path)) as f:
        rows = [r for r in list(csv.reader(f))[1:] if r[0] == "20"]
    h = t.header.index
    for r in rows:
        r[h("source_hash")] = source_hash or t.hash
        if gpu:
            r[h("gpu")] = gpu
        if r[h("variant")] == "optimized":               # the quartiles keep their order
            for col in ("min_us", "q1_us", "median_us", "q3_us"):
                r[h(col)] = f"{float(r[h(col)]) * optimized_factor:.3f}"
    return rows


def run(t, args, path_dir=None):
    env = dict(os.environ)
    if path_dir:
        env["PATH"] = path_dir + os.pathsep + env["PATH"]
    p = subprocess.run([sys.executable, os.path.join(t.root, "scripts", "results.py"), *args],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def expect(t, name, args, rc, needles=(), absent=(), path_dir=None):
    code, text = run(t, args, path_dir)
    ok = (code == rc and all(n in text for n in needles) and not any(a in text for a in absent)
          and "Traceback" not in text)
    tm.check(name, ok, f"exit {code}, wanted {rc}; output:\n{text.rstrip()}")
    return text


def fake_nvidia_smi(folder, name):
    """An nvidia-smi that names one GPU (or, with name None, finds none)."""
    path = os.path.join(folder, "nvidia-smi")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + (f"echo '{name}'\n" if name else "exit 9\n"))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return folder


def main():
    with tempfile.TemporaryDirectory() as tmp:
        t = tm.Tree(os.path.join(tmp, "tree"))
        local = os.path.join(tmp, "measured.csv")          # what make chapter-20 just measured
        with open(local, "w") as f:
            f.write(csv_text(t.header, t.rows))

        # Only the local GPU's own file: it is no reference to itself.
        expect(t, "compare-chapter with no reference file says so, exit 0",
               ["compare-chapter", local], 0, ["no reference GPU file"], absent=["(yours)"])
        expect(t, "compare with no reference file shows the local GPU alone, exit 0",
               ["compare", "--gpu", "h100"], 0,
               ["no reference GPU file besides yours", "20 matrix-transpose"])

        # A reference GPU.
        t.write(f"results/{H200_SLUG}.csv", csv_text(t.header, reference_rows(
            t, "results/nvidia-h200.csv")))
        text = expect(t, "compare-chapter prints the local GPU and the reference",
                      ["compare-chapter", local], 0,
                      ["Chapter 20 beside the reference GPUs", "H100 80GB HBM3 (yours)",
                       "optimized % of roof", "H200 "], absent=["stale", "!"])
        # The speedup and % of roof of the committed H100 rows of chapter 20, computed here.
        h100 = {r[t.header.index("variant")]: r for r in reference_rows(t, f"results/{tm.SLUG}.csv")}
        med = lambda v: float(h100[v][t.header.index("median_us")])
        want_speedup = f"{med('naive') / med('optimized'):.2f}x"
        want_pct = f"{float(h100['optimized'][t.header.index('pct_roof')]):.0f}% copy"
        tm.check("compare-chapter: the local line holds its speedup and % of roof",
                 any("(yours)" in l and want_speedup in l and l.endswith(want_pct)
                     for l in text.splitlines()), f"{want_speedup}, {want_pct}: {text}")
        tm.check("compare-chapter: a reference line holds speedup, % of roof and yours/theirs",
                 any(l.split()[:1] == ["H200"] and l.rstrip().endswith("x") and "% copy" in l
                     for l in text.splitlines()), text)
        expect(t, "compare (H100 as yours, H200 as reference): one table, no marks",
               ["compare", "--gpu", "h100"], 0,
               ["H100 80GB HBM3 (yours)", "yours/H200", "20 matrix-transpose", "held"],
               absent=[" !", " *", "more than"])

        # A stale reference row.
        t.write(f"results/{H200_SLUG}.csv", csv_text(t.header, reference_rows(
            t, "results/nvidia-h200.csv", source_hash="0123456789ab")))
        expect(t, "compare-chapter marks a stale reference row", ["compare-chapter", local], 0,
               ["H200 (stale: sources changed since)"])
        expect(t, "compare marks a stale reference row with *", ["compare", "--gpu", "h100"], 0,
               ["* stale: the chapter's sources changed"])

        # A malformed reference file: one line naming file, line and column; exit 1.
        bad = reference_rows(t, "results/nvidia-h200.csv")
        bad[0][t.header.index("median_us")] = "fast"
        t.write(f"results/{H200_SLUG}.csv", csv_text(t.header, bad))
        for args in (["compare-chapter", local], ["compare", "--gpu", "h100"]):
            code, text = run(t, args)
            tm.check(f"{args[0]}: a malformed reference file is one clear line, exit 1",
                     code == 1 and text.strip().count("\n") == 0 and
                     f"results/{H200_SLUG}.csv:2: column median_us = 'fast'" in text,
                     f"exit {code}: {text.strip()}")
        os.remove(os.path.join(t.root, "results", f"{H200_SLUG}.csv"))

        # A third GPU: the H100's rows under another name, optimized twice as slow.
        t.write(f"results/{THIRD_SLUG}.csv", csv_text(t.header, reference_rows(
            t, f"results/{tm.SLUG}.csv", gpu=THIRD, optimized_factor=2.0)))
        expect(t, "compare marks a speedup twice the reference's as an outlier",
               ["compare", "--gpu", "h100"], 0,
               ["yours/Test GPU T1", "2.00x !", "more than 1.25x apart", "When it does not help"])
        expect(t, "compare with the third GPU as yours: half the H100's, marked",
               ["compare", "--gpu", THIRD], 0, ["Test GPU T1 (yours)", "0.50x !"])
        expect(t, "compare-chapter: the outlier line points to the chapter README",
               ["compare-chapter", local], 0,
               ["2.00x !", "your speedup is 2.00x the Test GPU T1's",
                "\"When it does not help\" in chapters/20-matrix-transpose/README.md"])

        # A GPU whose name is a part of another's: its exact name wins; the part is ambiguous.
        t.write("results/nvidia-h100.csv", csv_text(t.header, reference_rows(
            t, f"results/{tm.SLUG}.csv", gpu="NVIDIA H100")))
        expect(t, "compare --gpu 'NVIDIA H100' takes nvidia-h100.csv, beside the longer name",
               ["compare", "--gpu", "NVIDIA H100"], 0,
               ["Your GPU (NVIDIA H100)", "yours/H100 80GB HBM3"])
        expect(t, "compare --gpu h100 with two H100 files: ambiguous, exit 1",
               ["compare", "--gpu", "h100"], 1, ["'h100' matches 2 results files"])
        os.remove(os.path.join(t.root, "results", "nvidia-h100.csv"))

        # The top README's runtime block: generated from the rows' times, never typed.
        t.write("README.md", "# x\n\n<!-- runtime -->\n<!-- /runtime -->\n")
        expect(t, "readme fills the runtime block", ["readme"], 0, ["updated README.md"])
        text = open(os.path.join(t.root, "README.md")).read()
        # The gaps between the H100's rows of chapter 20 (results and sweeps), computed here.
        stamps = sorted(datetime.datetime.fromisoformat(r[t.header.index("date")].replace("Z", "+00:00"))
                        for r in reference_rows(t, f"results/{tm.SLUG}.csv"))
        took = sum(g for g in ((b - a).total_seconds() for a, b in zip(stamps, stamps[1:])) if g <= 300)
        tm.check(f"the runtime block: the H100's 3 rows of chapter 20 took {took:.0f} s between them",
                 f"- NVIDIA H100 80GB HBM3: about {took:.0f} s to measure 1 chapter (3 programs" in text,
                 text)
        t.write("README.md", text.replace(f"about {took:.0f} s", f"about {took + 7:.0f} s"))
        expect(t, "a runtime typed over by hand: readme --check fails", ["readme", "--check"], 1,
               ["README.md is out of date"])
        # A timed `make results` on that GPU (results/loops/times.csv) replaces the estimate.
        t.write("README.md", "# x\n\n<!-- runtime -->\n<!-- /runtime -->\n")
        t.write("results/loops/times.csv", "loop,machine,seconds,commit,date\n"
                "make results,\"NVIDIA H100 80GB HBM3, 16 cores\",300,abc1234,2026-11-25T00:00:00Z\n")
        expect(t, "readme with a timed make results", ["readme"], 0, ["updated README.md"])
        text = open(os.path.join(t.root, "README.md")).read()
        tm.check("the runtime block: a timed make results is shown, not the estimate",
                 "- NVIDIA H100 80GB HBM3: `make results` took 5 min 00 s, measuring and then the "
                 "evidence (timed at commit abc1234)" in text and
                 "NVIDIA H100 80GB HBM3: about" not in text, text)
        os.remove(os.path.join(t.root, "results", "loops", "times.csv"))
        os.remove(os.path.join(t.root, "README.md"))

        # The local GPU: missing file, nvidia-smi's name, no GPU and no --gpu.
        expect(t, "compare for a GPU without a results file: run make results first, exit 1",
               ["compare", "--gpu", "NVIDIA A100-SXM4-40GB"], 1,
               ["results/nvidia-a100-sxm4-40gb.csv", "run `make results` first"])
        os.makedirs(os.path.join(tmp, "bin"))
        smi = fake_nvidia_smi(os.path.join(tmp, "bin"), tm.GPU)
        expect(t, "compare without --gpu takes nvidia-smi's GPU as yours", ["compare"], 0,
               ["Your GPU (NVIDIA H100 80GB HBM3)", "H100 80GB HBM3 (yours)"], path_dir=smi)
        fake_nvidia_smi(smi, None)
        expect(t, "compare with no GPU and no --gpu: one line, exit 2", ["compare"], 2,
               ["nvidia-smi names no GPU", "--gpu NAME"], path_dir=smi)
        expect(t, "compare --gpu without a name: exit 2", ["compare", "--gpu"], 2,
               ["compare takes only --gpu NAME"])

        # The host: rows without its copy rates show no host block; rows with them (a chapter
        # timed on the host clock) show the host beside the chapter, in make compare and in
        # make chapter-NN's block.
        expect(t, "compare: rows without host copy rates, no host block", ["compare", "--gpu",
               "h100"], 0, ["20 matrix-transpose"], absent=["The host behind"])
        rows = [list(r) for r in t.rows]
        for r in rows:
            r[t.header.index("host")] = "Test CPU 9000, 8 cores"
            r[t.header.index("host_copy_gbs")] = "5.00"
            r[t.header.index("host_copy_all_gbs")] = "20.00"
        t.write_results(rows=rows)
        with open(local, "w") as f:
            f.write(csv_text(t.header, rows))
        want = "host Test CPU 9000, 8 cores (memcpy 5.00 GB/s on one core, 20.00 GB/s on every core"
        expect(t, "compare: a chapter whose rows carry host copy rates shows its host",
               ["compare", "--gpu", "h100"], 0, ["The host behind", "20 on H100 80GB HBM3: " + want])
        expect(t, "compare-chapter: the local rows' host beside the GPUs",
               ["compare-chapter", local], 0, ["yours: " + want])
        t.write_results()
    return 1 if tm.failed else 0


if __name__ == "__main__":
    sys.exit(main())
