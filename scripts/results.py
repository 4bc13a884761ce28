#!/usr/bin/env python3
"""Results tooling: source hashes, chapter tables, merging into results/,
the staleness check, and the generated blocks of the chapter READMEs.

    results.py hash DIR               hash of a chapter's sources (as make computes it)
    results.py table FILE             the table `make chapter-NN` prints
    results.py merge FILE [SWEEPS]    move measured rows into results/<gpu>.csv, and the rows of
                                      other configurations into results/sweeps/<gpu>.csv
    results.py stale                  check results/*.csv: format, passing checks, hashes
    results.py readme [--check] DIR...  rewrite (or verify) the README blocks

Standard library only."""

import csv
import difflib
import glob
import hashlib
import io
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
SWEEPS = os.path.join(RESULTS, "sweeps")
HEADER = ("chapter,slug,variant,gpu,cc,sms,sm_clock_mhz,driver,cuda,size,knobs,seed,method,"
          "samples,median_us,min_us,q1_us,q3_us,noise_pct,gbs,gflops,roof_name,roof,pct_roof,"
          "check,max_err,source_hash,commit,date").split(",")
VARIANTS = ["naive", "optimized", "library"]
NUMERIC = ["median_us", "min_us", "q1_us", "q3_us", "noise_pct", "gbs", "gflops", "roof",
           "pct_roof", "sm_clock_mhz"]


class ResultsError(Exception):
    pass


def source_hash(chapter_dir):
    """sha256 of the chapter's *.cu *.h *.c chapter.mk, concatenated in byte order of name."""
    names = [n for n in os.listdir(chapter_dir)
             if n.endswith((".cu", ".h", ".c")) or n == "chapter.mk"]
    h = hashlib.sha256()
    for n in sorted(names, key=lambda s: s.encode()):
        with open(os.path.join(chapter_dir, n), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def chapter_dirs():
    return sorted(d for d in glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]-*"))
                  if os.path.isfile(os.path.join(d, "problem.cu")))


def gpu_slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def read_rows(path):
    """Rows of a results file, validated against the header contract."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header != HEADER:
                raise ResultsError(f"{path}: the header is not the results header")
            rows = []
            for lineno, fields in enumerate(reader, start=2):
                if len(fields) != len(HEADER):
                    raise ResultsError(f"{path}:{lineno}: {len(fields)} fields, expected {len(HEADER)}")
                row = dict(zip(HEADER, fields))
                for k in NUMERIC:
                    if row[k] != "":
                        try:
                            float(row[k])
                        except ValueError:
                            raise ResultsError(f"{path}:{lineno}: {k} '{row[k]}' is not a number")
                if row["check"] not in ("pass", "fail"):
                    raise ResultsError(f"{path}:{lineno}: check is '{row['check']}'")
                if row["variant"] not in VARIANTS:
                    raise ResultsError(f"{path}:{lineno}: unknown variant '{row['variant']}'")
                if not re.fullmatch(r"\d+", row["chapter"]):
                    raise ResultsError(f"{path}:{lineno}: chapter '{row['chapter']}'")
                rows.append(row)
            return rows
    except OSError as e:
        raise ResultsError(f"{path}: {e.strerror}")


def write_rows(path, rows):
    def key(r):
        return (int(r["chapter"]), VARIANTS.index(r["variant"]))
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for r in sorted(rows, key=key):
            w.writerow([r[k] for k in HEADER])


def fnum(text, fmt):
    return "-" if text == "" else format(float(text), fmt)


def table_rows(rows):
    """(columns, lines) for one chapter measured on one GPU."""
    naive = next((r for r in rows if r["variant"] == "naive" and r["median_us"]), None)
    gflops = any(r["gflops"] for r in rows)
    unit = "GFLOP/s" if gflops else "GB/s"
    roof_name = next((r["roof_name"] for r in rows if r["roof_name"]), "")
    cols = ["variant", "median (us)", "noise", "min (us)", unit,
            f"% of {roof_name} roof" if roof_name else "% of roof", "check", "speedup"]
    has_rate = any(r["gbs"] or r["gflops"] for r in rows) or not any(r["median_us"] for r in rows)
    lines = []
    for r in sorted(rows, key=lambda r: VARIANTS.index(r["variant"])):
        speed = "-"
        if naive and r["median_us"]:
            speed = f"{float(naive['median_us']) / float(r['median_us']):.2f}x"
        rate = r["gflops"] if gflops else r["gbs"]
        lines.append([r["variant"], fnum(r["median_us"], ".1f"),
                      "-" if r["noise_pct"] == "" else f"{float(r['noise_pct']):.1f}%",
                      fnum(r["min_us"], ".1f"), fnum(rate, ".1f"), fnum(r["pct_roof"], ".1f"),
                      r["check"].upper() if r["check"] == "fail" else r["check"], speed])
    if not has_rate:  # time-only chapters: no rate and no roof columns
        cols = cols[:4] + cols[6:]
        lines = [l[:4] + l[6:] for l in lines]
        return cols, lines
    roof = next((r for r in rows if r["roof"]), None)
    if roof and roof_name == "copy":
        lines.append(["(cudaMemcpy D2D roof)", "", "", "", fnum(roof["roof"], ".1f"), "100.0",
                      "", ""])
    elif roof and roof_name == "fp32":
        lines.append(["(FP32 peak)", "", "", "", fnum(roof["roof"], ".1f"), "100.0", "", ""])
    return cols, lines


def print_table(rows, out=sys.stdout):
    cols, lines = table_rows(rows)
    widths = [max(len(c), *(len(l[i]) for l in lines)) for i, c in enumerate(cols)]
    fmt = "  ".join("{:<%d}" % widths[0] if i == 0 else "{:>%d}" % w
                    for i, w in enumerate(widths))
    print(fmt.format(*cols), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for l in lines:
        print(fmt.format(*l), file=out)


def context_line(rows):
    r = rows[0]
    clock = f", SM clock {r['sm_clock_mhz']} MHz" if r["sm_clock_mhz"] else ""
    knobs = f", {r['knobs'].replace(';', ', ')}" if r["knobs"] else ""
    return (f"{r['gpu']} (cc {r['cc']}, {r['sms']} SMs{clock}, CUDA driver {r['driver']}, "
            f"runtime {r['cuda']}); size {r['size']}{knobs}; {r['method']}; "
            f"measured {r['date'][:10]} at commit {r['commit']}")


def markdown_table(rows):
    cols, lines = table_rows(rows)
    out = ["| " + " | ".join(cols) + " |",
           "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
    out += ["| " + " | ".join(l) + " |" for l in lines]
    return "\n".join(out)


def results_block(chapter_dir):
    """Markdown for the README's results block: one table per GPU file."""
    number = int(os.path.basename(chapter_dir)[:2])
    current = source_hash(chapter_dir)
    parts = []
    for path in sorted(glob.glob(os.path.join(RESULTS, "*.csv"))):
        rows = [r for r in read_rows(path) if int(r["chapter"]) == number]
        if not rows:
            continue
        stale = any(r["source_hash"] != current for r in rows)
        note = (" **Stale: the sources changed after this measurement; run `make results`.**"
                if stale else "")
        parts.append(f"Measured on {context_line(rows)}.{note}\n\n{markdown_table(rows)}")
    if not parts:
        return "Not measured yet: run `make results` on a GPU."
    return "\n\n".join(parts) + ("\n\nGenerated by `make readme` from `results/`; speedup is the "
                                 "naive median over each program's median.")


def sweep_block(chapter_dir):
    """Markdown for the README's sweep block: the other configurations the
    chapter measures, each against the same program at the default."""
    number = int(os.path.basename(chapter_dir)[:2])
    current = source_hash(chapter_dir)
    parts = []
    for path in sorted(glob.glob(os.path.join(SWEEPS, "*.csv"))):
        rows = [r for r in read_rows(path) if int(r["chapter"]) == number]
        if not rows:
            continue
        main = os.path.join(RESULTS, os.path.basename(path))
        default = {r["variant"]: r for r in (read_rows(main) if os.path.exists(main) else [])
                   if int(r["chapter"]) == number}
        gflops = any(r["gflops"] for r in rows)
        has_rate = any(r["gbs"] or r["gflops"] for r in rows)
        cols = ["program", "options", "median (us)", "noise"]
        cols += (["GFLOP/s" if gflops else "GB/s", "% of roof"] if has_rate else [])
        cols += ["time vs. default"]
        lines = ["| " + " | ".join(cols) + " |",
                 "|:---|:---|" + "---:|" * (len(cols) - 2)]
        for r in rows:
            d = default.get(r["variant"])
            vs = (f"{float(d['median_us']) / float(r['median_us']):.2f}x"
                  if d and d["median_us"] and r["median_us"] else "-")
            cells = [r["variant"], r["knobs"].replace(";", ", ") or "-", fnum(r["median_us"], ".1f"),
                     "-" if r["noise_pct"] == "" else f"{float(r['noise_pct']):.1f}%"]
            if has_rate:
                cells += [fnum(r["gflops"] if gflops else r["gbs"], ".1f"), fnum(r["pct_roof"], ".1f")]
            lines.append("| " + " | ".join(cells + [vs]) + " |")
        stale = any(r["source_hash"] != current for r in rows)
        note = " **Stale: the sources changed after this measurement.**" if stale else ""
        parts.append(f"Other configurations on {rows[0]['gpu']}, measured {rows[0]['date'][:10]}."
                     f"{note}\n\n" + "\n".join(lines))
    if not parts:
        return "Not measured yet: run `make results` on a GPU."
    return "\n\n".join(parts) + ("\n\n\"time vs. default\" is the same program's median at the "
                                 "default options over its median here (above 1: faster).")


def marker_lines(path, name):
    with open(path) as f:
        lines = f.read().split("\n")
    marks = [i for i, l in enumerate(lines) if l.strip() == f"// [{name}]"]
    if len(marks) != 2:
        raise ResultsError(f"{path}: expected two '// [{name}]' marker lines, found {len(marks)}")
    body = lines[marks[0] + 1:marks[1]]
    if not any(l.strip() for l in body):
        raise ResultsError(f"{path}: the '{name}' listing is empty")
    return "\n".join(body)


def diff_text(chapter_dir, a, b):
    with open(os.path.join(chapter_dir, a)) as f:
        x = f.read().split("\n")
    with open(os.path.join(chapter_dir, b)) as f:
        y = f.read().split("\n")
    return "\n".join(difflib.unified_diff(x, y, a, b, n=2, lineterm=""))


BLOCK = re.compile(r"<!-- (listing|diff): ([^>]*?) -->\n.*?<!-- /\1 -->"
                   r"|<!-- results -->\n.*?<!-- /results -->|<!-- sweep -->\n.*?<!-- /sweep -->", re.S)


def render_readme(chapter_dir, text):
    def repl(m):
        if m.group(0).startswith("<!-- results"):
            return f"<!-- results -->\n{results_block(chapter_dir)}\n<!-- /results -->"
        if m.group(0).startswith("<!-- sweep"):
            return f"<!-- sweep -->\n{sweep_block(chapter_dir)}\n<!-- /sweep -->"
        kind, args = m.group(1), m.group(2).split()
        if kind == "listing":
            if len(args) != 2:
                raise ResultsError(f"{chapter_dir}: listing needs 'FILE MARKER', got '{m.group(2)}'")
            path = os.path.join(chapter_dir, args[0])
            if not os.path.isfile(path):
                raise ResultsError(f"{chapter_dir}: listing of missing file {args[0]}")
            code = marker_lines(path, args[1])
            return f"<!-- listing: {m.group(2)} -->\n```c\n{code}\n```\n<!-- /listing -->"
        if len(args) != 2:
            raise ResultsError(f"{chapter_dir}: diff needs two files, got '{m.group(2)}'")
        return (f"<!-- diff: {m.group(2)} -->\n```diff\n{diff_text(chapter_dir, *args)}\n```\n"
                f"<!-- /diff -->")
    return BLOCK.sub(repl, text)


def chapter_title(chapter_dir):
    path = os.path.join(chapter_dir, "README.md")
    if os.path.isfile(path):
        with open(path) as f:
            first = f.readline().strip()
        if first.startswith("# "):
            return first[2:]
    return os.path.basename(chapter_dir)


def summary_block():
    """The top-level README's table: every chapter, its speedup on every GPU."""
    files = sorted(glob.glob(os.path.join(RESULTS, "*.csv")))
    rows = [r for path in files for r in read_rows(path)]
    gpus = sorted({r["gpu"] for r in rows})
    out = ["| chapter | " + " | ".join(f"speedup on {g}" for g in gpus) +
           (" |" if gpus else "status |"),
           "|:---|" + "---:|" * max(len(gpus), 1)]
    for d in chapter_dirs():
        name = os.path.basename(d)
        number, current = int(name[:2]), source_hash(d)
        cells = []
        for g in gpus:
            mine = {r["variant"]: r for r in rows if r["gpu"] == g and int(r["chapter"]) == number}
            n, o = mine.get("naive"), mine.get("optimized")
            if not (n and o and n["median_us"] and o["median_us"]):
                cells.append("not measured")
                continue
            cell = f"{float(n['median_us']) / float(o['median_us']):.2f}x"
            if o["pct_roof"]:
                cell += f" ({float(o['pct_roof']):.0f}% of {o['roof_name']} roof)"
            if any(r["source_hash"] != current for r in mine.values()):
                cell += " stale"
            cells.append(cell)
        if not gpus:
            cells = ["not measured"]
        out.append(f"| [{chapter_title(d)}](chapters/{name}/) | " + " | ".join(cells) + " |")
    return ("\n".join(out) + "\n\nSpeedup: median time of the naive program over the optimized "
            "one, from `results/` (generated by `make readme`).")


SUMMARY = re.compile(r"<!-- summary -->\n.*?<!-- /summary -->", re.S)


def cmd_readme(args):
    check = "--check" in args
    dirs = [a for a in args if a != "--check"] or chapter_dirs()
    bad = 0
    top = os.path.join(ROOT, "README.md")
    if os.path.isfile(top):
        with open(top) as f:
            old = f.read()
        new = SUMMARY.sub(lambda m: f"<!-- summary -->\n{summary_block()}\n<!-- /summary -->", old)
        if new != old:
            if check:
                print("FAIL: README.md's summary is out of date; run `make readme`")
                bad += 1
            else:
                with open(top, "w") as f:
                    f.write(new)
                print("updated README.md")
    for d in dirs:
        path = os.path.join(d, "README.md")
        if not os.path.isfile(path):
            print(f"FAIL: {path} is missing")
            bad += 1
            continue
        with open(path) as f:
            old = f.read()
        try:
            new = render_readme(d, old)
        except ResultsError as e:
            print(f"FAIL: {e}")
            bad += 1
            continue
        if check:
            if new != old:
                print(f"FAIL: {path} is out of date; run `make readme`")
                bad += 1
        elif new != old:
            with open(path, "w") as f:
                f.write(new)
            print(f"updated {os.path.relpath(path, ROOT)}")
    return 1 if bad else 0


def cmd_stale(args):
    """Every results file: valid, every check passed, every hash current.
    --warn-stale: a changed chapter is a WARN: line for a person, not a failure."""
    warn = args == ["--warn-stale"]
    changed = set()
    dirs = {int(os.path.basename(d)[:2]): d for d in chapter_dirs()}
    bad = 0
    files = sorted(glob.glob(os.path.join(RESULTS, "*.csv")) +
                   glob.glob(os.path.join(SWEEPS, "*.csv")))
    for path in files:
        name = os.path.relpath(path, ROOT)
        try:
            rows = read_rows(path)
        except ResultsError as e:
            print(f"FAIL: {e}")
            bad += 1
            continue
        for r in rows:
            where = f"{name}: chapter {r['chapter']} {r['variant']}"
            d = dirs.get(int(r["chapter"]))
            if d is None:
                print(f"FAIL: {where}: no such chapter")
                bad += 1
            elif r["source_hash"] != source_hash(d) and warn:
                changed.add(int(r["chapter"]))
            elif r["source_hash"] != source_hash(d):
                print(f"FAIL: {where}: stale (measured {r['source_hash']}, sources now "
                      f"{source_hash(d)}); re-run `make results CHAPTERS={r['chapter']}` on a GPU")
                bad += 1
            elif r["check"] != "pass":
                print(f"FAIL: {where}: its check failed")
                bad += 1
            elif r["median_us"] == "":
                print(f"FAIL: {where}: not timed")
                bad += 1
        if rows and gpu_slug(rows[0]["gpu"]) + ".csv" != os.path.basename(path):
            print(f"FAIL: {name}: holds rows of {rows[0]['gpu']}")
            bad += 1
    for n in sorted(changed):
        print(f"WARN: chapter {n:02d} ({os.path.relpath(dirs[n], ROOT)}) changed since it was "
              f"measured; re-measure on a GPU with `make results CHAPTERS={n:02d}`; until then "
              f"the READMEs and the book mark those rows stale")
    print(f"{len(files)} results file(s) checked, {bad} problem(s)")
    return 1 if bad else 0


def cmd_merge(args):
    """Rows just measured replace that GPU's rows of the same chapters, in the
    main file and in the sweeps file (where a chapter may now have none)."""
    if len(args) not in (1, 2):
        raise ResultsError("merge needs the measured file and, optionally, the sweeps file")
    new = read_rows(args[0])
    if not new:
        raise ResultsError(f"{args[0]}: no rows to merge")
    new_sweeps = read_rows(args[1]) if len(args) == 2 and os.path.exists(args[1]) else []
    for gpu in sorted({r["gpu"] for r in new}):
        measured = {r["chapter"] for r in new if r["gpu"] == gpu}
        for folder, rows in ((RESULTS, new), (SWEEPS, new_sweeps)):
            mine = [r for r in rows if r["gpu"] == gpu]
            path = os.path.join(folder, gpu_slug(gpu) + ".csv")
            old = read_rows(path) if os.path.exists(path) else []
            keep = [r for r in old if r["chapter"] not in measured]
            if not keep and not mine:
                continue
            os.makedirs(folder, exist_ok=True)
            write_rows(path, keep + mine)
            print(f"wrote {os.path.relpath(path, ROOT)}: {len(mine)} new row(s), {len(keep)} kept")
    return 0


def cmd_table(args):
    if len(args) != 1:
        raise ResultsError("table needs one file")
    rows = read_rows(args[0])
    if not rows:
        raise ResultsError(f"{args[0]}: no rows")
    print(context_line(rows))
    print_table(rows)
    return 0 if all(r["check"] == "pass" for r in rows) else 1


def main(argv):
    cmds = {"readme": cmd_readme, "stale": cmd_stale, "merge": cmd_merge, "table": cmd_table}
    if len(argv) >= 2 and argv[0] == "hash":
        print(source_hash(argv[1]))
        return 0
    if not argv or argv[0] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return cmds[argv[0]](argv[1:])
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
