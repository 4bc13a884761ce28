#!/usr/bin/env python3
"""Issue 19's corrupted inputs, planted one at a time in a copy of the real tree (scripts,
chapters, book/*.tsv and the committed results/): each must give one line naming the file and
the line (and the column, or the option) and exit 1, never a traceback, a pass or a write
into results/. Then the Makefile's faults of the same kind. No GPU needed.

The copy's rows are made current (their source hashes set to the copy's sources): a student
who edits a chapter for the README's exercise has stale rows in the real tree, which is the
staleness check's business (a warning outside CI), not a corrupted input.
Prints one PASS: or FAIL: line per assertion, and anything it echoes indented; exits 1 if
any failed."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth                                                        # noqa: E402
# The reference GPU file the plants edit: the H100's. Chapters changed since it was lent have
# no H100 rows; the copy gets chapter 20's (the chapter the plants use) from synth.py.
REF = "results/nvidia-h100-80gb-hbm3.csv"
SWEEPS = "results/sweeps/nvidia-h100-80gb-hbm3.csv"
EVIDENCE = "results/evidence/nvidia-h100-80gb-hbm3.csv"
REF_GPU = "NVIDIA H100 80GB HBM3"
TOML = "chapters/20-matrix-transpose/evidence.toml"
CHAPTER = "20"                        # the chapter whose rows the copy's REF files must hold
COLUMNS = None                        # the results header, read from the copy
failed = 0


def check(name, ok, detail=""):
    global failed
    # Echoed output is indented: the suite counts lines that begin with PASS: or FAIL:.
    detail = str(detail).replace("\n", "\n    ")
    print(f"{'PASS' if ok else 'FAIL'}: {name}" + ("" if ok else f" ({detail})"))
    failed += not ok


class Tree:
    def __init__(self, root):
        self.root = root
        for d in ("scripts", "chapters", "results", "common"):
            shutil.copytree(os.path.join(REPO, d), os.path.join(root, d),
                            ignore=shutil.ignore_patterns("__pycache__", "naive", "optimized",
                                                          "library"))
        os.makedirs(os.path.join(root, "book"))
        for f in ("chapters.tsv", "guideline-index.tsv", "guide-anchors.tsv"):
            shutil.copy(os.path.join(REPO, "book", f), os.path.join(root, "book", f))
        shutil.copy(os.path.join(REPO, "README.md"), os.path.join(root, "README.md"))
        self.add_reference_rows()
        self.make_current()

    def add_reference_rows(self):
        """REF, SWEEPS and EVIDENCE without rows of CHAPTER get them from another GPU's files,
        renamed to REF_GPU (and slower: synth.py), in chapter order."""
        for rel in (REF, SWEEPS, EVIDENCE):
            text = self.read(rel).decode()
            if any(l.startswith(CHAPTER + ",") for l in text.split("\n")):
                continue
            _, rows, _ = synth.chapter_rows(os.path.dirname(rel), CHAPTER, REF_GPU, repo=REPO)
            self.write(rel, synth.insert_rows(text, CHAPTER, rows))

    def make_current(self):
        """Every results, sweeps and evidence row of the copy gets its chapter's current source
        hash (as a fresh `make results` would record), so that the copy is valid whatever a
        person has edited in the real tree."""
        hashes = {}
        for d in os.listdir(self.path("chapters")):
            if re.fullmatch(r"\d\d-.*", d) and \
                    os.path.isfile(self.path(f"chapters/{d}/problem.cu")):
                p = subprocess.run([sys.executable, self.path("scripts/results.py"), "hash",
                                    self.path(f"chapters/{d}")], capture_output=True, text=True)
                hashes[str(int(d[:2]))] = p.stdout.strip()
        for folder in ("results", "results/sweeps", "results/evidence"):
            for f in os.listdir(self.path(folder)):
                if not f.endswith(".csv"):
                    continue
                rel = f"{folder}/{f}"
                import csv
                import io
                rows = list(csv.reader(self.read(rel).decode().splitlines()))
                col = rows[0].index("source_hash") if rows and "source_hash" in rows[0] else None
                for row in rows[1:]:
                    new = hashes.get(row[0]) if row else None
                    if col is not None and new and len(row) > col:
                        row[col] = new
                out = io.StringIO()
                csv.writer(out, lineterminator="\n").writerows(rows)
                self.write(rel, out.getvalue())

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel), "rb") as f:
            return f.read()

    def write(self, rel, data):
        with open(self.path(rel), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    def run(self, *args):
        p = subprocess.run([sys.executable, self.path("scripts/results.py"), *args],
                           capture_output=True, cwd=self.root)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    def snapshot(self):
        out = {}
        for folder, _, files in os.walk(self.path("results")):
            for f in files:
                with open(os.path.join(folder, f), "rb") as fh:
                    out[os.path.join(folder, f)] = fh.read()
        return out


def expect(t, name, args, needle, rc=1, one_line=True):
    """The command exits rc and prints needle; a data fault is one line on stderr."""
    code, out, err = t.run(*args)
    text = out + err
    lines = err.strip().splitlines()
    ok = (code == rc and needle in text and "Traceback" not in text
          and (not one_line or (len(lines) == 1 and needle in lines[0])))
    check(f"{' '.join(args)}: {name}", ok, f"exit {code}, wanted {rc}; output: {text.strip()[-500:]}")


def set_field(text, line, column, value):
    """The text of a results file with one field of one line replaced (csv-quoted fields
    stay as they are: the method column is the only one that holds commas)."""
    import csv
    import io
    lines = text.split("\n")
    row = next(csv.reader([lines[line - 1]]))
    row[COLUMNS.index(column)] = value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(row)
    lines[line - 1] = buf.getvalue()
    return "\n".join(lines)


def planted(t, name, rel, change, needle, commands=(("stale",), ("run-times",))):
    """Each command refuses the tree with `change` (old text -> new text or bytes) applied to
    rel; results/ is left as it was."""
    old = t.read(rel)
    t.write(rel, change(old.decode("utf-8")))
    try:
        for args in commands:
            expect(t, name, list(args), needle)
    finally:
        t.write(rel, old)


def header_only(text):
    return text.split("\n")[0] + "\n"


def cut_in_date(text):
    """The file cut in half, inside the date of the row it ends in (a cut anywhere else
    drops fields, which was always refused)."""
    end = text.rfind("Z\n", 0, len(text) // 2)
    return text[:end - 5]


def drop_lines(pred):
    return lambda text: "\n".join(l for l in text.split("\n") if not pred(l))


def main():
    global COLUMNS
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(os.path.join(tmp, "tree"))
        COLUMNS = t.read(REF).decode().split("\n")[0].split(",")
        expect(t, "the committed results pass", ["stale"], "0 problem(s)", rc=0, one_line=False)
        xff = lambda text: text.encode() + b"\xff"                       # noqa: E731

        # An exercise that adds a knob: its rows are stale, a warning for a person, not a fault.
        problem, results = t.read("chapters/01-find-the-limiter/problem.cu"), t.read(REF)
        t.write("chapters/01-find-the-limiter/problem.cu", problem + b"// an exercise\n")
        t.write(REF, set_field(results.decode(), 2, "knobs", "fast-exp=0;new-knob=1"))
        expect(t, "an exercise adds a knob: a warning, exit 0", ["stale", "--warn"],
               "WARN: chapter 01", rc=0, one_line=False)
        t.write("chapters/01-find-the-limiter/problem.cu", problem)
        t.write(REF, results)

        # A byte that is not UTF-8: results, sweeps, evidence, evidence.toml.
        for rel in (REF, SWEEPS, EVIDENCE):
            n = len(t.read(rel).decode().split("\n"))
            planted(t, f"PLANT a non-UTF-8 byte in {rel}", rel, xff,
                    f"{rel}:{n}:1: byte 0xff is not UTF-8")
        n = len(t.read(TOML).decode().split("\n"))
        planted(t, "PLANT a non-UTF-8 byte in evidence.toml", TOML, xff,
                f"{TOML}:{n}:1: byte 0xff is not UTF-8", commands=[("claims",)])

        # Dates: not a date, without its Z, empty, and a file cut inside one.
        for what, value in (("not a date", "garbage"), ("a date without its Z",
                                                        "2026-11-22T14:11:54"),
                            ("an empty date", ""), ("no such day", "2026-02-30T14:11:54Z")):
            planted(t, f"PLANT {what}", REF, lambda s, v=value: set_field(s, 2, "date", v),
                    f"{REF}:2: column date", commands=[("stale",), ("run-times",),
                                                        ("readme", "--check")])
        cut = cut_in_date(t.read(REF).decode())
        planted(t, "PLANT the file cut in half, inside a date", REF, lambda s: cut,
                f"{REF}:{cut.count(chr(10)) + 1}: 29 fields, the header has 32",
                commands=[("stale",), ("run-times",), ("readme", "--check")])

        # Header-only files.
        planted(t, "PLANT a results file with only its header", REF, header_only,
                f"{REF}:2: a header and no rows", commands=[("stale",), ("compare", "--gpu", "h100")])
        planted(t, "PLANT a sweeps file with only its header", SWEEPS, header_only,
                f"{SWEEPS}:2: a header and no rows")
        planted(t, "PLANT an evidence file with only its header", EVIDENCE, header_only,
                f"{EVIDENCE}:2: a header and no rows", commands=[("stale",), ("claims",)])

        # Values no measurement gives.
        for col, value, needle in (("median_us", "1e300", "above"), ("pct_roof", "1e9", "above"),
                                   ("q1_us", "99999", "(min <= q1 <= median <= q3)"),
                                   ("cc", "abc", "compute capability"),
                                   ("knobs", "nosuch=1", "'nosuch' is not a knob of chapter 1"),
                                   ("knobs", "", "expected each knob of chapter 1 once")):
            planted(t, f"PLANT {col} = '{value}'", REF, lambda s, c=col, v=value:
                    set_field(s, 2, c, v), f"{REF}:2: column ", commands=[("stale",)])
            planted(t, f"PLANT {col} = '{value}' (the reason)", REF, lambda s, c=col, v=value:
                    set_field(s, 2, c, v), needle, commands=[("stale",)])
        planted(t, "PLANT median_us = 1e300 in sweeps", SWEEPS,
                lambda s: set_field(s, 2, "median_us", "1e300"),
                f"{SWEEPS}:2: column median_us = '1e300': above")
        line2 = t.read(REF).decode().split("\n")[1]
        planted(t, "PLANT a NUL byte in a field", REF,
                lambda s: s.replace("CUDA events", "CUDA\0events", 1),
                f"{REF}:2:{line2.index('CUDA events') + 5}: a control character (U+0000)",
                commands=[("stale",)])
        planted(t, "PLANT a wrong GPU name in line 2: reported on line 2", REF,
                lambda s: set_field(s, 2, "gpu", "NVIDIA H200"),
                f"{REF}:2: column gpu", commands=[("stale",)])

        # merge: bad measured rows never reach results/.
        rows = t.read(REF).decode().split("\n")
        measured = os.path.join(tmp, "measured.csv")
        for what, col, value, needle in (
                ("a 1e300 median", "median_us", "1e300", "column median_us = '1e300'"),
                ("a garbage date", "date", "garbage", "column date = 'garbage'"),
                ("a non-UTF-8 byte", None, None, "byte 0xff is not UTF-8")):
            text = "\n".join(rows[:3]) + "\n"
            data = (set_field(text, 2, col, value).encode() if col else text.encode() + b"\xff")
            with open(measured, "wb") as f:
                f.write(data)
            before = t.snapshot()
            for args in (["merge", measured], ["table", measured]):
                expect(t, f"PLANT {what} in the measured file", args, needle)
            check(f"merge: PLANT {what}: results/ is unchanged", t.snapshot() == before)

        # Evidence: a negative counter, a renamed metric, a missing one, a missing chapter.
        planted(t, "PLANT a negative counter", EVIDENCE,
                lambda s: s.replace(",dram__bytes_read.sum,", ",dram__bytes_read.sum,-", 1),
                f"{EVIDENCE}:2: column value = '-", commands=[("stale",), ("claims",)])
        planted(t, "PLANT a renamed metric", EVIDENCE,
                lambda s: s.replace("dram__bytes_read.sum", "dram__bytes_reed.sum"),
                f"{EVIDENCE}:2: column metric = 'dram__bytes_reed.sum': not a ncu metric of "
                "chapter 01", commands=[("stale",), ("claims",)])
        sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
        planted(t, "PLANT a metric problem.cu declares, missing", EVIDENCE,
                drop_lines(lambda l: l.startswith("20,") and f",ncu,{sectors}," in l),
                f"chapter 20 naive has no ncu:{sectors}", commands=[("stale",), ("claims",)])
        old = t.read(EVIDENCE)
        t.write(EVIDENCE, drop_lines(lambda l: l.startswith("20,"))(old.decode()))
        code, out, err = t.run("claims")
        check("claims: PLANT a chapter missing from an evidence file: a problem, exit 1",
              code == 1 and f"FAIL: {EVIDENCE}: no rows of chapter 20" in out
              and " 0 problem(s)" not in out and "Traceback" not in err, out[-300:])
        # Neither timed nor profiled on that GPU: not measured there yet, reported, not a fault.
        old_rows, old_sweeps = t.read(REF), t.read(SWEEPS)
        for f, text in ((REF, old_rows), (SWEEPS, old_sweeps)):
            t.write(f, drop_lines(lambda l: l.startswith("20,"))(text.decode()))
        code, out, err = t.run("claims")
        check("claims: PLANT a chapter with neither results nor evidence on a GPU: not measured, "
              "exit 0", code == 0 and f"NOT MEASURED: chapter 20 on {REF_GPU}" in out
              and "Traceback" not in err, out[-300:])
        t.write(REF, old_rows)
        t.write(SWEEPS, old_sweeps)
        t.write(EVIDENCE, old)

        # evidence.toml: no [prediction], empty, [record] size = -1.
        toml = t.read(TOML).decode()
        no_prediction = toml.replace(toml[toml.index("[prediction]"):toml.index("[record]")], "")
        planted(t, "PLANT evidence.toml without [prediction]", TOML, lambda s: no_prediction,
                f"{TOML}: [prediction] is missing", commands=[("claims",), ("stale",)])
        planted(t, "PLANT an empty evidence.toml", TOML, lambda s: "",
                f"{TOML}: [prediction] is missing", commands=[("claims",)])
        # The [record] size line, whatever size the chapter records at.
        size_line = re.search(r"^size = \d+", toml, re.M).group(0)
        line = toml[:toml.index(size_line)].count("\n") + 1
        planted(t, "PLANT [record] size = -1", TOML, lambda s: s.replace(size_line, "size = -1"),
                f"{TOML}:{line}: [record] size = -1: must be a positive integer",
                commands=[("claims",)])
        t.write(TOML, toml.replace(size_line, "size = -1"))
        p = subprocess.run([sys.executable, t.path("scripts/evidence_parse.py"), "context",
                            t.path("chapters/20-matrix-transpose")], capture_output=True, text=True)
        check("evidence_parse.py context: PLANT [record] size = -1: the same line, exit 1",
              p.returncode == 1 and f"{TOML}:{line}: [record] size = -1" in p.stderr, p.stderr)
        t.write(TOML, toml)
        expect(t, "the tree is as it was", ["stale"], "0 problem(s)", rc=0, one_line=False)

    # The Makefile: a GPU name with a quote, and chapter- without a number.
    # A make of its own: under `make -j16 test` the parent's jobserver is not passed down to
    # here, and an inherited MAKEFLAGS would add make's warning about it to the output.
    alone = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}

    def make(*args):
        p = subprocess.run(["make", "-s", "--no-print-directory", *args], cwd=REPO,
                           capture_output=True, text=True, env=alone)
        return p.returncode, p.stdout + p.stderr
    code, text = make("compare", "GPU=it's")
    check("make compare GPU=\"it's\": the results model's one line, no shell error",
          code != 0 and "no results file for 'it's'" in text and "syntax error" not in text
          and len(text.strip().splitlines()) <= 2, text)
    for target in ("chapter-", "profile-"):
        code, text = make(target)
        check(f"make {target}: 'there is no chapter ''', exit 2",
              "error: there is no chapter ''" in text and ".o" not in text, f"exit {code}: {text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
