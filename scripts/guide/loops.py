"""How long the project's loops take (results/loops/times.csv): `make test`, `make results`, a
fresh clone's CI run, `make book`, each timed on a reference machine by scripts/time-loop.sh.
`make help` and the top README's <!-- loops --> block say what this file holds; nothing
about a loop's duration is typed by hand."""

import csv
import datetime
import math
import os
import re

from .model import ROOT, ResultsError, rel

# load: the machine's 1-minute load average when the loop started (what else was running), so a
# stated time says under what load it was taken; files written before it was recorded have no
# such column, and their times say so.
COLUMNS = ["loop", "machine", "load", "seconds", "commit", "date"]
OLD_COLUMNS = ["loop", "machine", "seconds", "commit", "date"]
# The loops, in the order they are shown, and what each one is in words.
LOOPS = {
    "make test": "`make test`, everything (host part, then every chapter on the GPU)",
    "make results": "`make results`, every chapter: measuring, then the evidence",
    "ci": "a fresh clone's `bash .ci/run` (installs, then `make test` without a GPU)",
    "make book": "`make book` from a clean tree",
    "book check": "`book/check.sh` on a built book (every check of both editions, each also planted)",
}
DAY_S = 86400


def path_of(results_dir=None):
    return os.path.join(results_dir or os.path.join(ROOT, "results"), "loops", "times.csv")


def read_loops(results_dir=None):
    """The rows of results/loops/times.csv (none if there is no file); a bad file is one
    ResultsError naming its line and column."""
    path = path_of(results_dir)
    name = rel(path)
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise ResultsError(f"{name}: byte {e.start}: not UTF-8 text")
    except OSError as e:
        raise ResultsError(f"{name}: {e.strerror}")
    lines = text.splitlines()
    header = next(csv.reader(lines[:1])) if lines else []
    if header not in (COLUMNS, OLD_COLUMNS):
        raise ResultsError(f"{name}:1: the header must be {','.join(COLUMNS)}")
    rows, seen = [], {}
    for lineno, fields in enumerate(csv.reader(lines[1:]), start=2):
        where = f"{name}:{lineno}"
        if len(fields) != len(header):
            raise ResultsError(f"{where}: {len(fields)} fields, the header has {len(header)}")
        row = {"load": "", **dict(zip(header, fields))}
        check_loop_row(row, where)
        key = (row["loop"], row["machine"])
        if key in seen:
            raise ResultsError(f"{where}: a second row for {row['loop']} on {row['machine']} "
                               f"(the first is line {seen[key]})")
        seen[key] = lineno
        rows.append(row)
    return rows


def check_loop_row(row, where):
    def bad(col, why):
        raise ResultsError(f"{where}: column {col} = '{row[col]}': {why}")
    if row["loop"] not in LOOPS:
        bad("loop", "not one of " + ", ".join(LOOPS))
    if not re.fullmatch(r"[A-Za-z0-9 ().,_+-]{1,80}", row["machine"]):
        bad("machine", "not a machine's name (letters, digits, spaces and .,()_+-)")
    try:
        s = float(row["seconds"])
    except ValueError:
        s = math.nan
    if not (math.isfinite(s) and 0 < s < DAY_S):
        bad("seconds", f"not a number of seconds between 0 and {DAY_S}")
    if row["load"] != "" and not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,2})?", row["load"]):
        bad("load", "not a load average (a number such as 0.35, or empty: not recorded)")
    if not re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?|unknown", row["commit"]):
        bad("commit", "not a commit hash")
    try:
        datetime.datetime.strptime(row["date"], "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        bad("date", "not a UTC date as 2026-11-24T17:30:00Z")


def record(loop, machine, seconds, commit, results_dir=None, load=""):
    """Replace the row of (loop, machine) with a new timing; the file is rewritten only
    from rows that pass the checks."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    row = {"loop": loop, "machine": machine, "load": load, "seconds": f"{seconds:.0f}",
           "commit": commit, "date": now}
    check_loop_row(row, "the new timing")
    rows = [r for r in read_loops(results_dir) if (r["loop"], r["machine"]) != (loop, machine)]
    rows.append(row)
    rows.sort(key=lambda r: (list(LOOPS).index(r["loop"]), r["machine"]))
    path = path_of(results_dir)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r[k] for k in COLUMNS])
    return path


def duration(seconds):
    s = float(seconds)
    if s < 90:
        return f"{s:.0f} s"
    return f"{s / 60:.0f} min" if s >= 600 else f"{int(s // 60)} min {s % 60:02.0f} s"


def load_text(load):
    return f"load {load} when it started" if load else "its load not recorded"


def lines(results_dir=None):
    """One line per recorded loop, in LOOPS order:
    '<what>: <duration> on <machine>, <load> (commit <commit>, <date>)'."""
    out = []
    for r in read_loops(results_dir):
        out.append(f"{LOOPS[r['loop']]}: {duration(r['seconds'])} on {r['machine']}, "
                   f"{load_text(r['load'])} (commit {r['commit']}, {r['date'][:10]})")
    return out


def loops_block(results_dir=None):
    got = lines(results_dir)
    if not got:
        return "No loop has been timed yet (`scripts/time-loop.sh` records them)."
    return ("\n".join(f"- {x}" for x in got) +
            "\n\nFrom `results/loops/times.csv`, written by `scripts/time-loop.sh` on the machines "
            "named; the load is the machine's 1-minute load average when the loop started (other "
            "work on a shared machine makes every loop slower). Generated by `make readme`.")
