#!/usr/bin/env python3
"""`results.py compare-chapter` (below `make chapter-NN`'s table) and `results.py compare`
(`make compare`), on fixture trees: no reference file, a stale reference row, a malformed
reference file, a third GPU whose optimized program is twice as slow, a missing local file, and
the local GPU named by a fake nvidia-smi. No GPU needed. One PASS: or FAIL: line per assertion;
exits 1 if any failed.

Yours is test_model's GPU with its rows of chapter 20 (the Tree's); every reference GPU's rows are
made here from those rows (synth.py's scaling), so that nothing depends on which GPUs measured
chapter 20, nor on its numbers."""

import csv
import datetime
import io
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth                                                        # noqa: E402
import test_model as tm                                             # noqa: E402

# The reference GPU: the H100 (the other of the project's two), unless tm's GPU is the H100.
REF, REF_SLUG = ((synth.H200, synth.H200_SLUG) if tm.GPU == synth.H100 else
                 (synth.H100, synth.H100_SLUG))
YOURS, REF_SHORT = tm.GPU.replace("NVIDIA ", ""), REF.replace("NVIDIA ", "")
PART = tm.SLUG.split("-")[1]          # --gpu takes a part of the name too: h200 (or h100)
THIRD, THIRD_SLUG = "Test GPU T1", "test-gpu-t1"


def csv_text(header, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


def reference_rows(t, gpu=REF, scale=synth.SCALE, optimized_factor=1.0, source_hash=None):
    """The Tree's rows of chapter 20 (yours) as another GPU's: current (or with source_hash),
    every program slower by scale (the speedups kept), and the optimized program's times further
    scaled by optimized_factor, if asked."""
    h = t.header.index
    rows = []
    for r in t.rows:
        r = synth.scaled(t.header, r, scale)
        if r[h("variant")] == "optimized":
            r = synth.scaled(t.header, r, optimized_factor)
        r[h("gpu")] = gpu
        r[h("source_hash")] = source_hash or t.hash
        rows.append(r)
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
               ["compare", "--gpu", PART], 0,
               ["no reference GPU file besides yours", "20 matrix-transpose"])

        # A reference GPU.
        t.write(f"results/{REF_SLUG}.csv", csv_text(t.header, reference_rows(t)))
        text = expect(t, "compare-chapter prints the local GPU and the reference",
                      ["compare-chapter", local], 0,
                      ["Chapter 20 beside the reference GPUs", f"{YOURS} (yours)",
                       "optimized % of roof", f"{REF_SHORT} "], absent=["stale", "!"])
        # The speedup and % of roof of the local rows of chapter 20, computed here.
        mine = {r[t.header.index("variant")]: r for r in t.rows}
        med = lambda v: float(mine[v][t.header.index("median_us")])
        want_speedup = f"{med('naive') / med('optimized'):.2f}x"
        want_pct = f"{float(mine['optimized'][t.header.index('pct_roof')]):.0f}% copy"
        tm.check("compare-chapter: the local line holds its speedup and % of roof",
                 any("(yours)" in l and want_speedup in l and l.endswith(want_pct)
                     for l in text.splitlines()), f"{want_speedup}, {want_pct}: {text}")
        tm.check("compare-chapter: a reference line holds speedup, % of roof and yours/theirs",
                 any(l.strip().startswith(REF_SHORT + " ") and l.rstrip().endswith("x")
                     and "% copy" in l for l in text.splitlines()), text)
        expect(t, f"compare ({YOURS} as yours, {REF_SHORT} as reference): one table, no marks",
               ["compare", "--gpu", PART], 0,
               [f"{YOURS} (yours)", f"yours/{REF_SHORT}", "20 matrix-transpose", "held"],
               absent=[" !", " *", "more than"])

        # A stale reference row.
        t.write(f"results/{REF_SLUG}.csv", csv_text(t.header, reference_rows(
            t, source_hash="0123456789ab")))
        expect(t, "compare-chapter marks a stale reference row", ["compare-chapter", local], 0,
               [f"{REF_SHORT} (stale: sources changed since)"])
        expect(t, "compare marks a stale reference row with *", ["compare", "--gpu", PART], 0,
               ["* stale: the chapter's sources changed"])

        # A malformed reference file: one line naming file, line and column; exit 1.
        bad = reference_rows(t)
        bad[0][t.header.index("median_us")] = "fast"
        t.write(f"results/{REF_SLUG}.csv", csv_text(t.header, bad))
        for args in (["compare-chapter", local], ["compare", "--gpu", PART]):
            code, text = run(t, args)
            tm.check(f"{args[0]}: a malformed reference file is one clear line, exit 1",
                     code == 1 and text.strip().count("\n") == 0 and
                     f"results/{REF_SLUG}.csv:2: column median_us = 'fast'" in text,
                     f"exit {code}: {text.strip()}")
        os.remove(os.path.join(t.root, "results", f"{REF_SLUG}.csv"))

        # A third GPU: your rows under another name, optimized twice as slow.
        t.write(f"results/{THIRD_SLUG}.csv", csv_text(t.header, reference_rows(
            t, gpu=THIRD, scale=1.0, optimized_factor=2.0)))
        expect(t, "compare marks a speedup twice the reference's as an outlier",
               ["compare", "--gpu", PART], 0,
               ["yours/Test GPU T1", "2.00x !", "more than 1.25x apart", "When it does not help"])
        expect(t, f"compare with the third GPU as yours: half the {YOURS}'s, marked",
               ["compare", "--gpu", THIRD], 0, ["Test GPU T1 (yours)", "0.50x !"])
        expect(t, "compare-chapter: the outlier line points to the chapter README",
               ["compare-chapter", local], 0,
               ["2.00x !", "your speedup is 2.00x the Test GPU T1's",
                "\"When it does not help\" in chapters/20-matrix-transpose/README.md"])

        # A GPU whose name is a part of another's: its exact name wins; the part is ambiguous.
        t.write(f"results/{synth.H100_SLUG}.csv", csv_text(t.header, reference_rows(
            t, gpu=synth.H100)))
        t.write("results/nvidia-h100.csv", csv_text(t.header, reference_rows(
            t, gpu="NVIDIA H100", scale=1.5)))
        expect(t, "compare --gpu 'NVIDIA H100' takes nvidia-h100.csv, beside the longer name",
               ["compare", "--gpu", "NVIDIA H100"], 0,
               ["Your GPU (NVIDIA H100)", "yours/H100 80GB HBM3"])
        expect(t, "compare --gpu h100 with two H100 files: ambiguous, exit 1",
               ["compare", "--gpu", "h100"], 1, ["'h100' matches 2 results files"])
        os.remove(os.path.join(t.root, "results", "nvidia-h100.csv"))
        if tm.SLUG != synth.H100_SLUG:
            os.remove(os.path.join(t.root, "results", f"{synth.H100_SLUG}.csv"))

        # The top README's runtime block: generated from the rows' times, never typed.
        t.write("README.md", "# x\n\n<!-- runtime -->\n<!-- /runtime -->\n")
        expect(t, "readme fills the runtime block", ["readme"], 0, ["updated README.md"])
        text = open(os.path.join(t.root, "README.md")).read()
        # The gaps between your rows of chapter 20 (the Tree has no sweeps), computed here.
        stamps = sorted(datetime.datetime.fromisoformat(r[t.header.index("date")].replace("Z", "+00:00"))
                        for r in t.rows)
        took = sum(g for g in ((b - a).total_seconds() for a, b in zip(stamps, stamps[1:])) if g <= 300)
        tm.check(f"the runtime block: the {YOURS}'s {len(t.rows)} rows of chapter 20 took "
                 f"{took:.0f} s between them",
                 f"- {tm.GPU}: about {took:.0f} s to measure 1 chapter ({len(t.rows)} programs"
                 in text, text)
        t.write("README.md", text.replace(f"about {took:.0f} s", f"about {took + 7:.0f} s"))
        expect(t, "a runtime typed over by hand: readme --check fails", ["readme", "--check"], 1,
               ["README.md is out of date"])
        # A timed `make results` on that GPU (results/loops/times.csv) replaces the estimate.
        t.write("README.md", "# x\n\n<!-- runtime -->\n<!-- /runtime -->\n")
        t.write("results/loops/times.csv", "loop,machine,seconds,commit,date\n"
                f"make results,\"{tm.GPU}, 16 cores\",300,abc1234,2026-11-25T00:00:00Z\n")
        expect(t, "readme with a timed make results", ["readme"], 0, ["updated README.md"])
        text = open(os.path.join(t.root, "README.md")).read()
        tm.check("the runtime block: a timed make results is shown, not the estimate",
                 f"- {tm.GPU}: `make results` took 5 min 00 s, measuring and then the "
                 "evidence (timed at commit abc1234)" in text and
                 f"{tm.GPU}: about" not in text, text)
        os.remove(os.path.join(t.root, "results", "loops", "times.csv"))
        os.remove(os.path.join(t.root, "README.md"))

        # The local GPU: missing file, nvidia-smi's name, no GPU and no --gpu.
        expect(t, "compare for a GPU without a results file: run make results first, exit 1",
               ["compare", "--gpu", "NVIDIA A100-SXM4-40GB"], 1,
               ["results/nvidia-a100-sxm4-40gb.csv", "run `make results` first"])
        os.makedirs(os.path.join(tmp, "bin"))
        smi = fake_nvidia_smi(os.path.join(tmp, "bin"), tm.GPU)
        expect(t, "compare without --gpu takes nvidia-smi's GPU as yours", ["compare"], 0,
               [f"Your GPU ({tm.GPU})", f"{YOURS} (yours)"], path_dir=smi)
        fake_nvidia_smi(smi, None)
        expect(t, "compare with no GPU and no --gpu: one line, exit 2", ["compare"], 2,
               ["nvidia-smi names no GPU", "--gpu NAME"], path_dir=smi)
        expect(t, "compare --gpu without a name: exit 2", ["compare", "--gpu"], 2,
               ["compare takes only --gpu NAME"])

        # The host: rows without its copy rates show no host block; rows with them (a chapter
        # timed on the host clock) show the host beside the chapter, in make compare and in
        # make chapter-NN's block.
        expect(t, "compare: rows without host copy rates, no host block", ["compare", "--gpu",
               PART], 0, ["20 matrix-transpose"], absent=["The host behind"])
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
               ["compare", "--gpu", PART], 0, ["The host behind", f"20 on {YOURS}: " + want])
        expect(t, "compare-chapter: the local rows' host beside the GPUs",
               ["compare-chapter", local], 0, ["yours: " + want])
        t.write_results()
    return 1 if tm.failed else 0


if __name__ == "__main__":
    sys.exit(main())
