#!/usr/bin/env python3
"""Issue 37's bad data that got through, planted one at a time in a copy of the real tree
(baddata_test.py's Tree, its rows made current): rows that contradict the project (a program
the chapter lacks, a knob value its rule forbids, a roof that does not exist or disagrees with
pct_roof, samples or SMs of 0, a date ahead, a size past problem.cu's, max_err NaN or
negative, a commit that is no commit), text that would break a table or reach the book raw,
a README whose end marker was lost, predictions that cannot miss, claim expressions past
their bounds, a [record] size the evidence was not recorded at, a malformed
results/claims/kinds.csv, a non-UTF-8 README, a deleted evidence.toml. Each is one line
naming the file and line, exit 1, nothing written, never a traceback. No GPU needed.
Prints one PASS: or FAIL: line per assertion (echoed output indented); exits 1 if any failed."""

import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baddata_test as bd                                          # noqa: E402
from baddata_test import (REF, REF_GPU, SWEEPS, EVIDENCE, TOML, Tree, expect, planted,  # noqa: E402
                          set_field)

README20 = "chapters/20-matrix-transpose/README.md"
KINDS = "results/claims/kinds.csv"


def line_of(t, rel, prefix):
    """The 1-based number of the first line of rel that begins with prefix."""
    return next(i for i, l in enumerate(t.read(rel).decode().split("\n"), start=1)
                if l.startswith(prefix))


def readmes(t):
    out = {"README.md": t.read("README.md")}
    for d in os.listdir(t.path("chapters")):
        if os.path.isfile(t.path(f"chapters/{d}/README.md")):
            out[d] = t.read(f"chapters/{d}/README.md")
    return out


def refused(t, name, args, needle):
    """A command that reports on stdout (readme): exit 1, needle, no traceback, and (for
    `readme`) no README and no results file written."""
    before = readmes(t), t.snapshot()
    code, out, err = t.run(*args)
    text = out + err
    bd.check(f"{' '.join(args)}: {name}", code == 1 and needle in text and "Traceback" not in text
             and (readmes(t), t.snapshot()) == before,
             f"exit {code}; output: {text.strip()[-600:]}")


def rows(t):
    """Results rows: each planted on its line of the REF file, refused by stale, claims and
    readme with the column named."""
    n1 = line_of(t, REF, "1,")                 # chapter 01 naive (no library.cu, knob fast-exp)
    n20 = line_of(t, REF, "20,")               # chapter 20 naive (knob rows, a power of two)
    every = (("stale",), ("claims",), ("readme", "--check"), ("book-json",))
    # Row n1's own rate over its roof (a planted 30.0 is refused with it).
    row1 = next(csv.reader([t.read(REF).decode().split("\n")[n1 - 1]]))
    pct1 = 100 * float(row1[bd.COLUMNS.index("rate")]) / float(row1[bd.COLUMNS.index("roof")])
    assert abs(pct1 - 30.0) > 0.1, "validate_test needs row n1 not at 30%"
    for line, col, value, why in (
            (n1, "variant", "library", "column variant = 'library': chapter 01 has no library"),
            (n1, "pct_roof", "30.0", f"column pct_roof = '30.0': rate / roof is {pct1:.2f}%"),
            (n1, "roof_name", "nosuch", "column roof_name = 'nosuch': not a roof of "
             "common/driver.cu"),
            (n1, "roof_name", "", "column roof_name = '': a roof needs its name"),
            (n1, "roof_name", "fp32", "column rate_unit = 'GB/s': the fp32 roof is in GFLOP/s"),
            (n1, "knobs", "fast-exp=7", "column knobs = 'fast-exp=7': fast-exp=7 is out of "
             "range 0..1"),
            (n20, "knobs", "rows=3", "column knobs = 'rows=3': rows=3 is not a power of two"),
            (n1, "samples", "0", "column samples = '0': 0 in a timed row"),
            (n1, "sms", "0", "column sms = '0': 0 in a timed row"),
            (n1, "date", "2099-01-01T00:00:00Z", "column date = '2099-01-01T00:00:00Z': in the "
             "future"),
            (n1, "size", str(2 ** 70), f"column size = '{2 ** 70}': not a non-negative integer "
             "of at most 19 digits"),
            (n1, "size", str(2 ** 40), f"column size = '{2 ** 40}': outside chapter 01's sizes "
             "1..1073741824"),
            (n1, "max_err", "nan", "column max_err = 'nan': not a finite number >= 0"),
            (n1, "max_err", "-1e-7", "column max_err = '-1e-7': not a finite number >= 0"),
            (n1, "commit", "<script>alert(1)</script>", "column commit = "
             "'<script>alert(1)</script>': not a commit hash"),
            (n1, "rate_unit", "GB|s", "column rate_unit = 'GB|s': not one of"),
            (n1, "driver", "13.0|x", "column driver = '13.0|x': not a CUDA version"),
            (n1, "host", "Intel Xeon", "column host = 'Intel Xeon': not 'CPU model, N cores'"),
            (n1, "host", "<b>x</b>, 16 cores, 2", "column host = '<b>x</b>, 16 cores, 2': not")):
        planted(t, f"PLANT {col} = '{value}'", REF, lambda s, l=line, c=col, v=value:
                set_field(s, l, c, v), f"{REF}:{line}: {why}", commands=every)
    # A host copy rate on a row that records no host (one measured before the column existed):
    # row n20's host emptied, whether or not its GPU recorded one.
    planted(t, "PLANT host_copy_gbs = '12.5' on a row without a host", REF,
            lambda s: set_field(set_field(s, n20, "host", ""), n20, "host_copy_gbs", "12.5"),
            f"{REF}:{n20}: column host_copy_gbs = '12.5': a host copy rate on a row that "
            "records no host", commands=every)
    # The host's copy rates beside a recorded host: a rate that is none, and one without the other.
    host = "AMD EPYC 9454 48-Core Processor, 16 cores"
    for c1, c2, why in (("-3", "90", "column host_copy_gbs = '-3': not a copy rate in GB/s"),
                        ("12", "", "column host_copy_all_gbs = '': one core's and every core's")):
        planted(t, f"PLANT host copy rates '{c1}' and '{c2}'", REF,
                lambda s, a=c1, b=c2: set_field(set_field(set_field(s, n1, "host", host), n1,
                                                          "host_copy_gbs", a),
                                                n1, "host_copy_all_gbs", b),
                f"{REF}:{n1}: {why}", commands=every)
    planted(t, "PLANT a sweeps row with a knob value its rule forbids", SWEEPS,
            lambda s: set_field(s, line_of(t, SWEEPS, "1,"), "knobs", "fast-exp=2"),
            f"{SWEEPS}:{line_of(t, SWEEPS, '1,')}: column knobs = 'fast-exp=2'")
    ev1 = line_of(t, EVIDENCE, "1,")
    planted(t, "PLANT <script> in an evidence row's commit", EVIDENCE,
            lambda s: s.replace(s.split("\n")[ev1 - 1], re.sub(
                r",[0-9a-f]{7}(-dirty)?,(?=[^,]*$)", ",<script>,", s.split("\n")[ev1 - 1])),
            f"{EVIDENCE}:{ev1}: column commit = '<script>'")
    unit = line_of(t, EVIDENCE, "1,") + 1
    planted(t, "PLANT '|' and '<i>' in an evidence unit", EVIDENCE,
            lambda s: "\n".join(l.replace(",byte,", ",by|te<i>,") if i == unit - 1 else l
                                for i, l in enumerate(s.split("\n"))),
            f"{EVIDENCE}:{unit}: column unit = ", commands=[("stale",), ("readme", "--check")])
    opt = next(i for i, l in enumerate(t.read(EVIDENCE).decode().split("\n"), start=1)
               if ",--fast-exp 1," in l)
    planted(t, "PLANT an evidence program with a knob value its rule forbids", EVIDENCE,
            lambda s: s.replace(",--fast-exp 1,", ",--fast-exp 7,", 1),
            f"{EVIDENCE}:{opt}: column options = '--fast-exp 7': --fast-exp 7 is out of range",
            commands=[("stale",), ("claims",)])
    # A README refuses before writing anything: `make readme` runs `readme`.
    old = t.read(REF)
    t.write(REF, set_field(old.decode(), n1, "max_err", "nan"))
    refused(t, "PLANT max_err = nan: make readme writes nothing", ["readme"],
            f"{REF}:{n1}: column max_err")
    t.write(REF, old)


def escaped(t):
    """A GPU name and an evidence unit holding | < > &: every table keeps its columns, and no
    raw tag reaches a README or the book's JSON."""
    weird = REF_GPU + " <|>&"                   # its file name is still the same
    olds = {rel: t.read(rel) for rel in (REF, SWEEPS, EVIDENCE)}
    for rel, text in olds.items():
        t.write(rel, text.decode().replace(REF_GPU, weird))
    code, out, err = t.run("readme")
    bad = []
    for name, text in readmes(t).items():
        text = text.decode()
        if "HBM3 <|" in text:
            bad.append(f"{name}: a raw '<' or '|'")
        lines = text.split("\n")
        for i, l in enumerate(lines[1:], start=1):      # each table row: the separator's cells
            if re.fullmatch(r"\|(:?-+:?\|)+", l):
                want = l.count("|")
                for row in lines[i - 1:]:
                    if not row.startswith("|"):
                        break
                    if len(re.findall(r"(?<!\\)\|", row)) != want:
                        bad.append(f"{name}: a table row with a cell too many: {row[:80]}")
    bd.check("readme: PLANT '<|>&' in a GPU name: tables keep their columns, no raw tag", code == 0 and not bad, f"exit {code}: {bad[:3]} {err[-300:]}")
    code, out, err = t.run("book-json")
    md = "\n".join(b["markdown"] for c in (json.loads(out)["chapters"] if code == 0 else [])
                   for b in c["blocks"])
    bd.check("book-json: PLANT '<|>&' in a GPU name: the markdown it hands the book is escaped",
             code == 0 and "HBM3 \\<\\|\\>\\&" in md and "HBM3 <" not in md,
             f"exit {code}: {err[-300:]}")
    for rel, text in olds.items():
        t.write(rel, text)
    t.run("readme")                                      # the copy's READMEs as they were


def markers(t):
    """A README whose generated block or inline value lost its end marker."""
    text = t.read(README20).decode()
    line = text[:text.index("<!-- results -->")].count("\n") + 1
    t.write(README20, text.replace("<!-- /results -->", "", 1))
    for args in (["readme", "--check"], ["readme"]):
        refused(t, "PLANT a results block without its end marker", args,
                f"{README20}:{line}: <!-- results --> has no <!-- /results -->")
    i = text.index("<!-- /value -->")
    line = text[:i].count("\n") + 1
    # The end marker gone, and the number before it edited by hand.
    t.write(README20, re.sub(r"\d(?=[^\d]*$)", "7", text[:i]) + text[i + len("<!-- /value -->"):])
    for args in (["readme", "--check"], ["readme"]):
        refused(t, "PLANT an inline value without its end marker, its number edited", args,
                f"{README20}:{line}: <!-- value: ... --> has no <!-- /value -->")
    # The evidence block gone whole, both its markers: nothing left open, yet the record the
    # book prints each claim's verdict from is lost.
    t.write(README20, re.sub(r"<!-- evidence -->\n.*?<!-- /evidence -->\n", "", text, flags=re.S))
    for args in (["readme", "--check"], ["readme"]):
        refused(t, "PLANT a README without its evidence block", args,
                f"{README20}: no <!-- evidence --> block")
    t.write(README20, text.encode().replace(b"\n", b"\n\xff", 1))
    for args in (["readme", "--check"], ["book-json"]):
        refused(t, "PLANT a non-UTF-8 byte in a chapter README", args,
                f"{README20}:2:1: byte 0xff is not UTF-8")
    t.write(README20, text)


def specs(t):
    """evidence.toml: predictions that cannot miss, claims past their bounds, a [record] size
    the evidence was not recorded at, the file deleted."""
    toml = t.read(TOML).decode()
    speed = re.search(r"^speedup = \[[^\]]*\]", toml, re.M).group(0)
    line = toml[:toml.index(speed)].count("\n") + 1
    for what in ("[1, inf]", "[1e-300, 1e-299]", "[true, 3]", "[1.0, 50.0]", "[nan, 2]"):
        planted(t, f"PLANT [prediction] speedup = {what}", TOML,
                lambda s, w=what: s.replace(speed, f"speedup = {w}"),
                f"{TOML}:{line}: [prediction] speedup = ", commands=[("claims",), ("stale",)])
    value = re.search(r'^value = "[^"]*"', toml, re.M).group(0)
    for what, expr, why in (
            ("a constant of 400 digits", "1" * 400, "a number of 400 digits"),
            ("1,200 terms", "+".join(["1"] * 1200), "characters (at most 500)"),
            ("a chain of 5,000 unary minus", "-" * 5000 + "1", "characters (at most 500)"),
            ("a chain of 60 unary minus", "-" * 60 + "1", "signs in a row"),
            ("parentheses 60 deep", "(" * 60 + "1" + ")" * 60, "nested deeper than"),
            ("a constant past a float", "1e999", "not a finite number")):
        planted(t, f"PLANT a claim value of {what}", TOML,
                lambda s, e=expr: s.replace(value, f'value = "{e}"', 1),
                why, commands=[("claims",), ("stale",)])
    rline = toml.index("\n", toml.index("[record]"))
    size = re.search(r"^size = (\d+)", toml[rline:], re.M)
    planted(t, "PLANT a [record] size the evidence was not recorded at", TOML,
            lambda s: s[:rline] + s[rline:].replace(size.group(0), "size = 1024", 1),
            f"[record] size in {TOML} is 1024",
            commands=[("stale",), ("claims",)])
    old = t.read(TOML)
    os.remove(t.path(TOML))
    for args in (["stale"], ["claims"]):
        expect(t, "PLANT chapter 20's evidence.toml deleted", args,
               "chapter 20 has recorded evidence but no chapters/20-matrix-transpose/"
               "evidence.toml (deleted?)")
    t.write(TOML, old)


def kinds(t):
    """results/claims/kinds.csv, read where there is no git history (this copy has none)."""
    text = t.read(KINDS).decode()
    for what, change, needle in (
            ("a wrong header", lambda s: s.replace("chapter,claim", "chapter,claims", 1),
             f"{KINDS}:1: wrong header"),
            ("a non-UTF-8 byte", lambda s: s.encode() + b"\xff", f"{KINDS}:"),
            ("a row of two fields", lambda s: s + "20,x\n",
             f"{KINDS}:{s_lines(text) + 1}: 2 fields"),
            ("an unknown chapter", lambda s: s.replace("\n1,", "\n99,", 1),
             f"{KINDS}:2: column chapter = '99'"),
            ("an unknown kind", lambda s: s.replace(",mechanism,", ",guess,", 1),
             f"{KINDS}:2: column kind = 'guess'")):
        planted(t, f"PLANT {what} in kinds.csv", KINDS, change, needle,
                commands=[("claims",), ("book-json",)])


def s_lines(text):
    return len(text.rstrip("\n").split("\n"))


def guard(t):
    """A fault the model does not know yet still ends in one line, never a traceback."""
    code = ("import sys; sys.path.insert(0, 'scripts'); import results; "
            "results.COMMANDS['stale'] = lambda a, d: 1 / 0; sys.exit(results.main(['stale']))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=t.root)
    bd.check("stale: PLANT an exception no check foresaw: one line, exit 1, no traceback",
             p.returncode == 1 and "Traceback" not in p.stderr and
             p.stderr.strip().count("\n") == 0 and "unexpected ZeroDivisionError" in p.stderr,
             f"exit {p.returncode}: {p.stderr[-300:]}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(os.path.join(tmp, "tree"))
        bd.COLUMNS = t.read(REF).decode().split("\n")[0].split(",")
        expect(t, "the copy passes", ["stale"], "0 problem(s)", rc=0, one_line=False)
        for plant in (rows, escaped, markers, specs, kinds, guard):
            plant(t)
        expect(t, "the copy is as it was", ["stale"], "0 problem(s)", rc=0, one_line=False)
        code, out, err = t.run("readme", "--check")
        bd.check("readme --check: the copy's READMEs are as they were", code == 0, out + err)
    return 1 if bd.failed else 0


if __name__ == "__main__":
    sys.exit(main())
