#!/usr/bin/env python3
"""Plants each fault the results model must reject or report, in a copy of the tree with
fixture files, and checks the command's exit status and its one line. No GPU needed.
Prints one PASS: or FAIL: line per assertion; exits 1 if any failed."""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from guide.evidence import PTXAS_METRICS                            # noqa: E402
from guide.model import read_toc                                    # noqa: E402
from guide.render import speedup, without_plants                    # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth                                                        # noqa: E402
CHAPTER = "20-matrix-transpose"
GPU, SLUG = "NVIDIA H200", "nvidia-h200"
failed = 0
DECLARED_NCU = next(c for c in read_toc() if c.nn == CHAPTER[:2]).declared()[1]

EVIDENCE_TOML = """
[prediction]
speedup = [5.0, 9.0]
because = "fixture"

[record]
size = 16384

[[claim]]
id = "store-sectors"
says = "naive stores touch 8x the sectors per request"
value = "ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / ncu:l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
holds = "naive >= 6 * optimized"

[[claim]]
id = "registers"
says = "the configuration keeps its registers"
value = "ptxas:registers"
holds = "optimized[--rows  16] <= optimized + 8"
symmetric = "a bound on the difference, which holds both ways"

[[claim]]
id = "faster"
says = "the tiled kernel is faster"
value = "result:median_us"
holds = "naive > 2 * optimized"
"""

README = """# 20. Matrix transpose

Speedup <!-- value: h200 speedup :.1f -->WRONG<!-- /value -->x; sectors per request are <!-- value: h200 claim store-sectors naive -->WRONG<!-- /value --> and <!-- value: h200 optimized ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / 1e3 :.2f -->WRONG<!-- /value -->.

<!-- results -->
<!-- /results -->

<!-- evidence -->
<!-- /evidence -->
"""


def check(name, ok, detail=""):
    global failed
    print(f"{'PASS' if ok else 'FAIL'}: {name}" + ("" if ok else f" ({detail})"))
    failed += not ok


class Tree:
    """A copy of scripts/, book/*.tsv and chapter 20, with fixture results and evidence."""

    def __init__(self, root):
        self.root = root
        shutil.copytree(os.path.join(REPO, "scripts"), os.path.join(root, "scripts"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        # A chapter's shared sources (chapter 20's problem) are part of its hash.
        shutil.copytree(os.path.join(REPO, "common"), os.path.join(root, "common"))
        os.makedirs(os.path.join(root, "book"))
        for f in ("chapters.tsv", "guideline-index.tsv", "guide-anchors.tsv"):
            shutil.copy(os.path.join(REPO, "book", f), os.path.join(root, "book", f))
        src = os.path.join(REPO, "chapters", CHAPTER)
        self.chapter = os.path.join(root, "chapters", CHAPTER)
        # The fixture's README and evidence replace the chapter's; its answers.md reads the real
        # results (both GPUs), which the fixture does not have.
        shutil.copytree(src, self.chapter, ignore=shutil.ignore_patterns("answers.md"))
        self.write(f"chapters/{CHAPTER}/README.md", README)
        self.write(f"chapters/{CHAPTER}/evidence.toml", EVIDENCE_TOML)
        self.hash = self.run("hash", self.chapter)[1].strip()
        # The GPU's rows of chapter 20, current; where it has none, another GPU's, renamed and
        # scaled (synth.py): no check depends on which GPUs measured the chapter.
        self.header, self.rows, _ = synth.chapter_rows("results", CHAPTER[:2], GPU, self.hash,
                                                       repo=REPO)
        self.write_results()
        self.evidence = [
            ("naive", "", "ncu", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "32000"),
            ("naive", "", "ncu", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "1000"),
            ("optimized", "", "ncu", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "4000"),
            ("optimized", "", "ncu", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "1000"),
            ("optimized", "", "ptxas", "registers", "30"),
            ("optimized", "--rows 16", "ptxas", "registers", "32"),
        ]
        self.write_evidence()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def write_results(self, header=None, rows=None):
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header or self.header)
        w.writerows(self.rows if rows is None else rows)
        self.write(f"results/{SLUG}.csv", out.getvalue())

    def write_evidence(self, rows=None, source_hash=None):
        """The rows, then every other metric the model requires of a program that a tool
        recorded (problem.cu's ncu metrics, the ptxas facts), so that a row planted at the
        end of self.evidence keeps its line number."""
        rows = list(self.evidence if rows is None else rows)
        need = {"ncu": DECLARED_NCU, "ptxas": PTXAS_METRICS}
        have = {(v, o, tool, m) for v, o, tool, m, _ in rows}
        rows += [(v, o, tool, m, "1") for v, o, tool in dict.fromkeys(tuple(r[:3]) for r in rows)
                 if tool in need for m in need[tool] if (v, o, tool, m) not in have]
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow("chapter,slug,variant,options,gpu,cc,arch,size,tool,metric,value,unit,"
                   "source_hash,commit,date".split(","))
        for variant, options, tool, metric, value in rows:
            w.writerow(["20", "matrix-transpose", variant, options, GPU, "9.0", "sm_90", "16384",
                        tool, metric, value, "", source_hash or self.hash, "abc1234",
                        "2026-11-23T00:00:00Z"])
        self.write(f"results/evidence/{SLUG}.csv", out.getvalue())

    def run(self, *args):
        p = subprocess.run([sys.executable, os.path.join(self.root, "scripts", "results.py"),
                            *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def expect(tree, name, args, rc, *needles):
    """The command exits rc, prints every needle, and never a traceback."""
    code, out, err = tree.run(*args)
    text = out + err
    ok = code == rc and all(n in text for n in needles) and "Traceback" not in text
    check(name, ok, f"exit {code}, wanted {rc}; output: {text.strip()[-400:]}")
    return text


def planted_row(name, column, value, *needles, commands=("stale",)):
    """Each command must reject a results file with `value` in `column` of its first row,
    naming the file, the line and the column."""
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(tmp)
        rows = [list(r) for r in t.rows]
        rows[0][t.header.index(column)] = value
        t.write_results(rows=rows)
        for cmd in commands:
            expect(t, f"{cmd}: {name}", [cmd], 1, f"results/{SLUG}.csv:2: column {column}",
                   *needles)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(tmp)
        expect(t, "the fixture passes `stale`", ["stale"], 0, "0 problem(s)")
        expect(t, "`readme` writes the inline values", ["readme"], 0, "updated")
        text = open(os.path.join(t.chapter, "README.md")).read()
        med = {r[t.header.index("variant")]: float(r[t.header.index("median_us")]) for r in t.rows}
        want = f'speedup :.1f -->{med["naive"] / med["optimized"]:.1f}<!-- /value -->'
        check("an inline value holds the speedup with its format (the fixture's rows' ratio)",
              want in text, text[:300])
        check("a speedup just past a prediction's end never prints as that end (2.402x, "
              "not 2.40x, against 1.2x to 2.4x; 2.398x inside it; 2.3x as 2.30x)",
              speedup(2.4017, (1.2, 2.4)) == "2.402×" and speedup(2.398, (1.2, 2.4)) == "2.398×"
              and speedup(2.3, (1.2, 2.4)) == "2.30×" and speedup(35.47, (39, 78)) == "35.5×",
              f"{speedup(2.4017, (1.2, 2.4))} {speedup(2.398, (1.2, 2.4))}")
        src = ("a|#ifdef PLANT_X /* fault */|bad|#else|good|#endif|#if defined(PLANT_A)|bad|"
               "#elif defined(PLANT_B)|bad|#else|good|#endif|#ifndef PLANT_T|good|#else|bad|#endif|"
               "#if N > 2|#ifdef PLANT_IN|bad|#endif|n|#else|e|#endif|z").split("|")
        shown = without_plants(src)
        check("listings and diffs show the programs as they build: every PLANT_ branch and its "
              "directives out, other #if blocks kept",
              shown == ["a", "good", "good", "good", "#if N > 2", "n", "#else", "e", "#endif", "z"],
              str(shown))
        check("an inline value holds a claim's value (3 significant digits)",
              "store-sectors naive -->32.0<!-- /value -->" in text, text[:400])
        check("the evidence block shows the metric rows and the verdicts",
              "| `ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum` | - | 32,000 |" in text
              and "**held**" in text, text)
        expect(t, "`readme --check` passes after `readme`", ["readme", "--check"], 0)
        expect(t, "`claims` passes on evidence that holds", ["claims"], 0,
               "PASS: chapter 20 claim store-sectors", "PASS: chapter 20 claim registers",
               "PASS: chapter 20 claim faster", "prediction 5x to 9x")
        code, out, err = t.run("book-json")
        try:
            doc = json.loads(out)
            ch = next(c for c in doc["chapters"] if c["nn"] == "20")
            ok = (ch["claims"][0]["verdicts"][SLUG]["verdict"] == "held" and
                  ch["prediction"]["verdicts"][SLUG]["verdict"] == "held" and
                  ch["evidence"][0]["metrics"] and doc["summary"][0]["nn"] == "20" and
                  [b["kind"] for b in ch["blocks"]] == ["results", "evidence"])
        except (ValueError, KeyError, IndexError, StopIteration) as e:
            ok, err = False, f"{e}: {err}"
        check("`book-json` carries the verdicts, evidence and blocks", code == 0 and ok, err)

        # Inline values: edited by hand, and a query that cannot resolve.
        readme = os.path.join(t.chapter, "README.md")
        good = open(readme).read()
        t.write(f"chapters/{CHAPTER}/README.md", good.replace(want, want.replace("-->", "-->1", 1)))
        expect(t, "PLANT an inline value edited by hand: `readme --check` fails",
               ["readme", "--check"], 1, "h200 speedup :.1f --> says", "edited by hand")
        t.write(f"chapters/{CHAPTER}/README.md",
                good.replace("value: h200 speedup", "value: a100 speedup"))
        expect(t, "PLANT an inline value for a GPU without results: `readme --check` fails",
               ["readme", "--check"], 1, f"chapters/{CHAPTER}/README.md: <!-- value: a100 speedup",
               "matches 0 results files")
        t.write(f"chapters/{CHAPTER}/README.md",
                good.replace("claim store-sectors naive", "claim nosuch naive"))
        expect(t, "PLANT an inline value naming no claim: `readme` fails", ["readme"], 1,
               "<!-- value: h200 claim nosuch naive -->")
        t.write(f"chapters/{CHAPTER}/README.md",
                good.replace("claim store-sectors naive", "claim store-sectors naive[--rows 4]"))
        expect(t, "PLANT '--' inside an inline value (an HTML comment cannot hold it): "
               "`readme` fails", ["readme"], 1, "'--' cannot stand inside an HTML comment")
        t.write(f"chapters/{CHAPTER}/README.md", good.replace(" <!-- value: h200 speedup",
                                                               "\n<!-- value: h200 speedup", 1))
        expect(t, "PLANT an inline value at the start of a line (Markdown would cut the "
               "sentence): `readme --check` fails", ["readme", "--check"], 1,
               "an inline value or claim citation begins the line")
        # record:size is the size the program's evidence was recorded at (16384 in the fixture).
        t.write(f"chapters/{CHAPTER}/README.md", good.replace(
            "h200 optimized ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / 1e3 :.2f",
            "h200 optimized ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / record:size :.4f"))
        expect(t, "`readme` divides by record:size, the size the evidence was taken at",
               ["readme"], 0, "updated")
        check("record:size reads the evidence rows' size (4000 / 16384 = 0.2441)",
              "record:size :.4f -->0.2441<" in open(readme).read(), open(readme).read()[:600])
        t.write(f"chapters/{CHAPTER}/README.md", good.replace(
            "h200 optimized ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / 1e3 :.2f",
            "h200 optimized ncu:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / record:elements :.2f"))
        expect(t, "PLANT record:elements (not a field): `readme` fails", ["readme"], 1,
               "record:elements is not one of record:size")
        t.write(f"chapters/{CHAPTER}/README.md", good)

        # Claims: contradicted, not recorded, stale; a missed prediction is not a failure.
        ev = [list(e) for e in t.evidence]
        ev[2][4] = "31000"
        t.write_evidence(rows=ev)
        expect(t, "PLANT a claim the evidence contradicts: `claims` fails", ["claims"], 1,
               "FAIL: chapter 20 claim store-sectors on NVIDIA H200: missed")
        t.write_evidence(rows=t.evidence[:4] + t.evidence[5:])
        expect(t, "PLANT a claim with a metric not recorded: `claims` fails", ["claims"], 1,
               "claim registers on NVIDIA H200: not recorded",
               "nothing recorded for optimized ptxas:registers")
        t.write_evidence(source_hash="0123456789ab")
        expect(t, "PLANT an evidence row with a stale source hash: `claims` fails", ["claims"], 1,
               f"results/evidence/{SLUG}.csv:2: chapter 20 naive: stale evidence")
        expect(t, "PLANT an evidence row with a stale source hash: `stale` fails", ["stale"], 1,
               f"results/evidence/{SLUG}.csv:2: chapter 20 naive: stale")
        t.write_evidence()
        t.write(f"chapters/{CHAPTER}/evidence.toml",
                EVIDENCE_TOML.replace("[5.0, 9.0]", "[10.0, 20.0]"))
        expect(t, "a missed prediction is reported, not a failure", ["claims"], 0,
               "MISSED: chapter 20 on NVIDIA H200: prediction 10x to 20x")
        for bad, needle in [("naive.__class__ >= 6 * optimized", "Attribute is not allowed"),
                            ("__import__('os') >= 1", "Call is not allowed"),
                            ("naive >= 6 * optimized or optimized >= 1", "Or is not allowed"),
                            ("naive >= (optimized >= 1)", "a comparison inside arithmetic"),
                            ("naive >= foo", "unknown name 'foo'")]:
            t.write(f"chapters/{CHAPTER}/evidence.toml",
                    EVIDENCE_TOML.replace('"naive >= 6 * optimized"', repr(bad).replace("'", '"')
                                          if "'" not in bad else f"'''{bad}'''"))
            expect(t, f"PLANT holds = {bad!r}: rejected", ["claims"], 1,
                   f"chapters/{CHAPTER}/evidence.toml: claim store-sectors", needle)
        t.write(f"chapters/{CHAPTER}/evidence.toml", EVIDENCE_TOML)

        # Evidence rows: a non-finite value, a duplicate, an unknown tool.
        for name, row, needle in [
                ("a NaN value", ("naive", "", "ncu", "x.sum", "nan"), "column value = 'nan'"),
                ("a duplicate row", t.evidence[0], "a second row"),
                ("an unknown tool", ("naive", "", "nsys", "x", "1"), "column tool")]:
            t.write_evidence(rows=t.evidence + [row])
            expect(t, f"PLANT an evidence row with {name}: rejected", ["claims"], 1,
                   f"results/evidence/{SLUG}.csv:8:", needle)
        t.write_evidence()

        # The student's edit: strict for CI, a warning with the command for a person.
        with open(os.path.join(t.chapter, "optimized.cu"), "a") as f:
            f.write("// an exercise\n")
        expect(t, "PLANT an edited chapter: `stale` fails (CI)", ["stale"], 1,
               f"results/{SLUG}.csv:2: chapter 20 naive: stale",
               "make results CHAPTERS=20")
        for flag in ("--warn", "--warn-stale"):
            expect(t, f"an edited chapter: `stale {flag}` warns and exits 0", ["stale", flag], 0,
                   f"WARN: chapter 20 (chapters/{CHAPTER}) changed", "make results CHAPTERS=20",
                   "the book mark")

    # Validation of results rows (issue 7.3): one line naming file, line and column.
    every = ("stale", "readme", "book-json")
    planted_row("PLANT median 0", "median_us", "0", "positive finite", commands=every)
    planted_row("PLANT median NaN", "median_us", "nan", "positive finite", commands=every)
    planted_row("PLANT median infinite", "median_us", "inf", "positive finite")
    planted_row("PLANT rate negative", "rate", "-3.5", "positive finite", commands=every)
    planted_row("PLANT rate NaN", "rate", "nan", "positive finite")
    planted_row("PLANT rate infinite", "rate", "1e999", "positive finite")
    planted_row("PLANT size 'big'", "size", "big", "integer", commands=every)
    planted_row("PLANT size 1.5", "size", "1.5", "integer")
    planted_row("PLANT rate without its unit", "rate_unit", "", "needs its unit")
    planted_row("PLANT a chapter that does not exist", "chapter", "99", "no such chapter",
                commands=every)
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(tmp)
        t.write_results(rows=t.rows + [t.rows[1]])
        for cmd in every:
            expect(t, f"{cmd}: PLANT a duplicate (gpu, chapter, variant, size, knobs) row", [cmd], 1,
                   f"results/{SLUG}.csv:5: column variant: a second row for chapter 20 optimized",
                   "the first is line 3")
        old = [("gbs" if h == "rate" else "gflops" if h == "rate_unit" else h) for h in t.header]
        t.write_results(header=old)
        for cmd in every:
            expect(t, f"{cmd}: PLANT a results file with a wrong header", [cmd], 1,
                   f"results/{SLUG}.csv:1: wrong header: column 20 is 'gbs', expected 'rate'")
    # A row above its roof means a wrong roof (issue 20): 104% refused, 102% (noise) accepted.
    with tempfile.TemporaryDirectory() as tmp:
        t = Tree(tmp)
        for pct, rc, needle in (("104.0", 1, f"results/{SLUG}.csv:2: chapter 20 naive: 104% of "
                                 "its copy roof, above 103%"), ("102.0", 0, "0 problem(s)")):
            rows = [list(r) for r in t.rows]
            rows[0][t.header.index("pct_roof")] = pct
            # The rate that makes it so (pct_roof is rate / roof, within rounding).
            roof = float(rows[0][t.header.index("roof")])
            rows[0][t.header.index("rate")] = f"{roof * float(pct) / 100:.1f}"
            t.write_results(rows=rows)
            expect(t, f"PLANT a row at {pct}% of its roof: `stale` exits {rc}", ["stale"], rc, needle)
    sys.path.insert(0, os.path.join(REPO, "scripts"))
    from guide.model import over_roof
    check("a roof issue 20 found wrong (chapter 24's dram-sector) is exempt",
          over_roof({"chapter": "24", "roof_name": "dram-sector", "pct_roof": "1635.4"}) is None)
    check("the chapter's new roof is held to 103%",
          over_roof({"chapter": "24", "roof_name": "l1-gather", "pct_roof": "104"}) is not None)
    # A comment between the strings of .ncu_metrics (chapter 28 explains its metrics so) does
    # not end the list: the metrics after it are declared too.
    from guide.model import Chapter, ResultsError

    def probe(problem_cu, read):
        """read(chapter) on a chapter 99 whose problem.cu is problem_cu; a ResultsError's text."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "problem.cu"), "w") as f:
                f.write(problem_cu)
            c = Chapter("99", "x", "I", "5.1", "x")
            c.dir = tmp
            try:
                return read(c)
            except ResultsError as e:
                return str(e)
    got = probe('const struct problem PROBLEM = {\n    .ncu_metrics = "a.sum,"\n'
                '                   /* why b */\n                   "b.sum,"\n'
                '                   // and c\n                   "c.sum",\n};\n', lambda c: c.declared()[1])
    check("metrics after a comment inside .ncu_metrics are declared",
          got == ["a.sum", "b.sum", "c.sum"], str(got))
    # A macro of string literals in .ncu_metrics (common/ncu_stalls.h's NCU_WARP_STATES, its
    # lines continued) declares its metrics; a name nothing defines so is a clear error.
    def with_header(c):
        with open(os.path.join(c.dir, "stalls.h"), "w") as f:
            f.write('/* two */\n#define TWO_METRICS \\\n    "b.sum," \\\n    "c.sum"\n')
        return c.declared()[1]
    got = probe('#include "stalls.h"\nconst struct problem PROBLEM = {\n'
                '    .ncu_metrics = "a.sum," TWO_METRICS,\n};\n', with_header)
    check("a macro of string literals in .ncu_metrics declares its metrics",
          got == ["a.sum", "b.sum", "c.sum"], str(got))
    def with_alternatives(c):
        with open(os.path.join(c.dir, "stalls.h"), "w") as f:
            f.write('#ifdef WIDE\n#define MORE "b.sum,c.sum"\n#else\n#define MORE "b.sum"\n#endif\n')
        return c.declared()
    got = probe('#include "stalls.h"\nconst struct problem PROBLEM = {\n'
                '    .ncu_metrics = "a.sum," MORE,\n};\n', with_alternatives)
    check("PLANT a .ncu_metrics macro defined two ways under #ifdef: refused, not the last one read",
          isinstance(got, str) and "defined with different metrics" in got, str(got))
    got = probe('const struct problem PROBLEM = {\n    .ncu_metrics = "a.sum," NO_SUCH,\n};\n',
                lambda c: c.declared())
    check("PLANT a name in .ncu_metrics that no header defines: a clear error naming it",
          isinstance(got, str) and "names NO_SUCH" in got, str(got))
    got = probe('const struct problem PROBLEM = {\n    .ncu_metrics = "a.sum," ncu_more,\n};\n',
                lambda c: c.declared())
    check("PLANT a lower-case name in .ncu_metrics: a clear error, not a list cut short",
          isinstance(got, str) and "cannot read .ncu_metrics past 'ncu_more" in got, str(got))
    # A macro from common/ that the chapter's shared-sources does not list would be left out of
    # its source hash: refused by name (the real chapters that list it read it above).
    got = probe('#include "ncu_stalls.h"\nconst struct problem PROBLEM = {\n'
                '    .ncu_metrics = "a.sum," NCU_WARP_STATES,\n};\n', lambda c: c.declared())
    check("PLANT common/ncu_stalls.h's macro in a chapter whose shared-sources omits it: refused",
          isinstance(got, str) and "shared-sources does not list" in got, str(got))
    # A knob whose help is built with a macro (chapter 20 once wrote TRANSPOSE_XSTR(TILE) into
    # it) has a name but no readable rule: a clear error, not a KeyError at merge time.
    got = probe('const struct problem PROBLEM = {\n    .default_size = 8, .min_size = 1,\n'
                '    .max_size = 16,\n    .knobs = {{"rows", "moves " XSTR(TILE) " each", 8, 1,'
                ' 16, 0, KNOB_POWER_OF_TWO}},\n    .nknobs = 1,\n};\n', lambda c: c.problem() and "no error")
    check("PLANT a knob whose help holds a macro: a clear error naming the knob",
          "knob rows: cannot read its rule" in got, str(got))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
