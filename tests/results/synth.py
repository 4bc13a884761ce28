#!/usr/bin/env python3
"""A chapter's rows for a named GPU, whichever GPU measured the chapter: the fixtures of the
tests under tests/results/ are built from these, so that no test depends on which GPUs hold a
chapter's rows today (chapters are re-measured on one GPU at a time, and a GPU that is no
longer lent keeps no rows of a chapter changed since).

The GPU's own rows where its file holds the chapter; otherwise another GPU's rows (the first
file in name order that holds it) under the GPU's name, its times scaled by SCALE (a slower
GPU) and its rates and percentages of the roof the other way, so that every row stays valid.
Evidence rows are renamed only (counters and facts of the same programs).

    synth.py FOLDER CHAPTER GPU [--hash HASH] [--scale SCALE] [--repo REPO]
prints the header and the rows (FOLDER: results, results/sweeps or results/evidence)."""

import argparse
import csv
import io
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The two reference GPUs the results model's tests name, and their files' slugs.
H100, H100_SLUG = "NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"
H200, H200_SLUG = "NVIDIA H200", "nvidia-h200"
SCALE = 1.25


def slug(gpu):
    return gpu.lower().replace(" ", "-")


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def decimals(text):
    return len(text.partition(".")[2])


def scaled(header, row, scale):
    """A results or sweeps row with its times times scale, its rate over scale and its
    percentage of the roof recomputed, each written with the digits it had."""
    h = header.index
    r = list(row)
    for col in ("min_us", "q1_us", "median_us", "q3_us"):
        r[h(col)] = f"{float(r[h(col)]) * scale:.{decimals(r[h(col)])}f}"
    if r[h("rate")]:
        r[h("rate")] = f"{float(r[h('rate')]) / scale:.{decimals(r[h('rate')])}f}"
        if r[h("roof")] and r[h("pct_roof")]:
            pct = 100 * float(r[h("rate")]) / float(r[h("roof")])
            r[h("pct_roof")] = f"{pct:.{decimals(r[h('pct_roof')])}f}"
    return r


def chapter_rows(folder, chapter, gpu, source_hash=None, scale=SCALE, repo=REPO):
    """(header, rows, measured_by): chapter's rows of repo/folder for gpu, current under
    source_hash where given; measured_by names the GPU whose file they came from."""
    chapter = str(int(chapter))
    d = os.path.join(repo, folder)
    own = os.path.join(d, slug(gpu) + ".csv")
    files = ([own] if os.path.isfile(own) else []) + \
        sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".csv")
               and os.path.join(d, f) != own)
    for path in files:
        header, rows = read(path)
        rows = [r for r in rows if r and r[0] == chapter]
        if not rows:
            continue
        h = header.index
        measured_by = rows[0][h("gpu")]
        out = []
        for r in rows:
            r = list(r)
            if measured_by != gpu:
                r[h("gpu")] = gpu
                if "median_us" in header:
                    r = scaled(header, r, scale)
            if source_hash:
                r[h("source_hash")] = source_hash
            out.append(r)
        return header, out, measured_by
    raise SystemExit(f"synth.py: no GPU file in {d} holds chapter {chapter}")


def insert_rows(text, chapter, rows):
    """The text of a results, sweeps or evidence file with rows put in chapter order (after the
    last row of a lower chapter), written as csv."""
    header, *old = list(csv.reader(io.StringIO(text)))
    at = sum(1 for r in old if r and int(r[0]) < int(chapter))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header] + old[:at] + rows + old[at:])
    return out.getvalue()


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("folder")
    a.add_argument("chapter")
    a.add_argument("gpu")
    a.add_argument("--hash")
    a.add_argument("--scale", type=float, default=SCALE)
    a.add_argument("--repo", default=REPO)
    args = a.parse_args()
    header, rows, _ = chapter_rows(args.folder, args.chapter, args.gpu, args.hash, args.scale,
                                   args.repo)
    csv.writer(sys.stdout, lineterminator="\n").writerows([header] + rows)


if __name__ == "__main__":
    main()
