#!/usr/bin/env python3
"""Side-by-side table of ncu --csv --page raw outputs, one column per program:
    ncu_table.py METRIC,METRIC,... FILE.csv...
Metrics of several kernels in one program are summed (durations, counts),
except rates and percentages, which are averaged over the kernels."""
import csv
import os
import sys


def load(path, wanted):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # drop ncu's ==PROF== lines
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        raise SystemExit(f"error: {path}: no kernel was profiled")
    header, units, data = rows[0], rows[1], rows[2:]
    out, seen = {}, {}
    for r in data:
        for name, unit, value in zip(header, units, r):
            if name not in wanted:
                continue
            try:
                v = float(value.replace(",", ""))
            except ValueError:
                continue
            key = f"{name} ({unit})" if unit else name
            out[key] = out.get(key, 0.0) + v
            seen[key] = seen.get(key, 0) + 1
    for key in out:
        if "pct" in key or "ratio" in key or ".avg" in key or key.endswith("(%)"):
            out[key] /= seen[key]
    return out, len(data)


def main(args):
    wanted, paths = set(args[0].split(",")), args[1:]
    cols = [os.path.basename(p).rsplit("-", 1)[-1].replace(".csv", "") for p in paths]
    tables = [load(p, wanted) for p in paths]
    names = sorted({k for t, _ in tables for k in t})
    w = max(len(n) for n in names)
    print(f"{'metric':<{w}}  " + "  ".join(f"{c:>16}" for c in cols))
    print(f"{'kernels profiled':<{w}}  " + "  ".join(f"{n:>16}" for _, n in tables))
    for n in names:
        vals = [t.get(n) for t, _ in tables]
        print(f"{n:<{w}}  " + "  ".join(f"{v:>16.4g}" if v is not None else f"{'-':>16}"
                                        for v in vals))


if __name__ == "__main__":
    main(sys.argv[1:])
