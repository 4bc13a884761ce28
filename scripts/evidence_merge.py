#!/usr/bin/env python3
"""Merge freshly recorded evidence rows into results/evidence/<gpu-slug>.csv.

    evidence_merge.py FILE --gpu NAME --chapters 7,9 --tools ncu,ptxas,sass [--dir DIR]

The rows of FILE replace that GPU's rows of the chapters and tools named: `make
evidence` records ncu, ptxas and sass, `make results` records host, and neither
may erase what the other wrote. A chapter named but absent from FILE loses its
old rows of those tools (its evidence is now none).

A stopgap until scripts/results.py (the one reader of results files) folds this
in as `results.py merge-evidence`; the shell side calls that when it exists.
Standard library only."""

import argparse
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = ("chapter,slug,variant,options,gpu,cc,arch,size,tool,metric,value,unit,"
          "source_hash,commit,date").split(",")
VARIANTS = ["naive", "optimized", "library"]
TOOLS = ["ncu", "ptxas", "sass", "host"]


class MergeError(Exception):
    pass


def gpu_slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != HEADER:
        raise MergeError(f"{path}: the header is not the evidence header")
    out, seen = [], set()
    for n, fields in enumerate(rows[1:], start=2):
        if len(fields) != len(HEADER):
            raise MergeError(f"{path}:{n}: {len(fields)} fields, expected {len(HEADER)}")
        r = dict(zip(HEADER, fields))
        if r["variant"] not in VARIANTS or r["tool"] not in TOOLS:
            raise MergeError(f"{path}:{n}: variant '{r['variant']}' or tool '{r['tool']}'")
        try:
            ok = math.isfinite(float(r["value"])) and int(r["chapter"]) >= 0
        except ValueError:
            ok = False
        if not ok:
            raise MergeError(f"{path}:{n}: chapter '{r['chapter']}' or value '{r['value']}'")
        key = (r["gpu"], r["chapter"], r["variant"], r["options"], r["tool"], r["metric"])
        if key in seen:
            raise MergeError(f"{path}:{n}: a second row for {' '.join(key[2:])}")
        seen.add(key)
        out.append(r)
    return out


def key(r):
    return (int(r["chapter"]), VARIANTS.index(r["variant"]), r["options"], TOOLS.index(r["tool"]),
            r["metric"])


def merge(new_path, gpu, chapters, tools, folder):
    new = read(new_path)
    stray = [r for r in new if r["gpu"] != gpu or int(r["chapter"]) not in chapters
             or r["tool"] not in tools]
    if stray:
        r = stray[0]
        raise MergeError(f"{new_path}: a row of {r['gpu']}, chapter {r['chapter']}, tool "
                         f"{r['tool']} was not to be merged")
    path = os.path.join(folder, gpu_slug(gpu) + ".csv")
    old = read(path) if os.path.exists(path) else []
    keep = [r for r in old if not (int(r["chapter"]) in chapters and r["tool"] in tools)]
    os.makedirs(folder, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for r in sorted(keep + new, key=key):
            w.writerow([r[k] for k in HEADER])
    return path, len(new), len(keep)


def main(argv):
    ap = argparse.ArgumentParser(prog="evidence_merge.py")
    ap.add_argument("file")
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--chapters", required=True)
    ap.add_argument("--tools", required=True)
    ap.add_argument("--dir", default=os.path.join(ROOT, "results", "evidence"))
    a = ap.parse_args(argv)
    try:
        chapters = {int(c) for c in a.chapters.split(",") if c}
        tools = set(a.tools.split(","))
        if not chapters or not tools <= set(TOOLS):
            raise MergeError(f"--chapters '{a.chapters}' or --tools '{a.tools}'")
        path, n, kept = merge(a.file, a.gpu, chapters, tools, a.dir)
    except (MergeError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {os.path.relpath(path, ROOT)}: {n} new row(s), {kept} kept")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
