"""The generated blocks of the READMEs (markdown), and the inline values.

Blocks: <!-- results -->, <!-- sweep -->, <!-- evidence -->, <!-- listing: FILE MARKER -->,
<!-- diff: A B --> (chapter READMEs), <!-- summary --> (top-level README), and inline
<!-- value: QUERY -->TEXT<!-- /value -->. The book gets the same markdown through book.py."""

import difflib
import math
import os
import re
import subprocess
import tempfile

from . import compare
from . import loops
from . import prose
from . import evidence as ev
from .model import ROOT, ResultsError, VARIANTS, host_text, md_text, read_text, rel


def fnum(text, fmt):
    return "-" if text == "" else format(float(text), fmt)


def sig3(x):
    """Three significant digits, never in exponent form: 2.82, 28.2, 282, 2820."""
    if x == 0 or not math.isfinite(x):
        return format(x, "g")
    digits = 2 - math.floor(math.log10(abs(x)))
    return format(round(x, digits), f".{max(digits, 0)}f")


def fvalue(x):
    """An evidence value in a table: integers with separators, others to 4 digits, never in
    e-notation (4.695 × 10^-8, which the book sets as a superscript)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    text = format(x, ".4g")
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant} × 10^{int(exp)}"
    return text


def decisive_places(x, places, bounds=()):
    """Decimal places for x, at least `places`, and more while x would print as one of the
    prediction's ends it is not (2.402 against a range ending at 2.4 is a miss, and must not
    read 2.40; book/book.lua speedup_md does the same)."""
    while places < 6 and any(b != x and f"{b:.{places}f}" == f"{x:.{places}f}" for b in bounds):
        places += 1
    return places


def speedup(x, bounds=()):
    """A ratio of times to sensible precision: 1.60×, 23.6×, 236× (book/book.lua speedup_md);
    beside a prediction's range, with the digits that tell which side of an end it fell on."""
    places = decisive_places(x, 0 if x >= 100 else 1 if x >= 10 else 2, bounds)
    return f"{x:.{places}f}×"


def words_number(x):
    """A measured value in a sentence: 6.37 billion, 361 million, 24.8 thousand, 1.17."""
    for scale, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(x) >= scale:
            return f"{sig3(x / scale)} {word}"
    return sig3(x)


def speedup_range(x):
    """One end of a prediction range as evidence.toml states it: 2.7×, 40×."""
    return f"{x:g}×"


def ratio(a, b):
    return speedup(float(a) / float(b))


NOISY_PCT = 5.0  # noise above this is set in bold (the front matter promises it)


def fnoise(text):
    if text == "":
        return "-"
    x = float(text)
    return f"**{x:.1f}%**" if x > NOISY_PCT else f"{x:.1f}%"


# ---- results ----------------------------------------------------------------------------

def table_rows(rows, source_hash=None):
    """(columns, lines) for one chapter measured on one GPU: the one layout of a results row, for
    the terminal (`make chapter-NN`), the READMEs and the book. With the chapter's source_hash, a
    row measured from other sources is marked STALE."""
    naive = next((r for r in rows if r["variant"] == "naive" and r["median_us"]), None)
    unit = next((r["rate_unit"] for r in rows if r["rate_unit"]), "GB/s")
    roof_name = next((r["roof_name"] for r in rows if r["roof_name"]), "")
    cols = ["variant", "median (µs)", "noise", "min (µs)", unit,
            f"% of {roof_name} roof" if roof_name else "% of roof", "check", "speedup"]
    has_rate = any(r["rate"] for r in rows) or not any(r["median_us"] for r in rows)
    lines = []
    for r in sorted(rows, key=lambda r: VARIANTS.index(r["variant"])):
        speed = ratio(naive["median_us"], r["median_us"]) if naive and r["median_us"] else "-"
        stale = " **STALE**" if source_hash and r["source_hash"] != source_hash else ""
        lines.append([r["variant"] + stale, fnum(r["median_us"], ".1f"),
                      fnoise(r["noise_pct"]),
                      fnum(r["min_us"], ".1f"), fnum(r["rate"], ".1f"), fnum(r["pct_roof"], ".1f"),
                      "**FAIL**" if r["check"] == "fail" else r["check"], speed])
    if not has_rate:  # time-only chapters: no rate and no roof columns
        return cols[:4] + cols[6:], [l[:4] + l[6:] for l in lines]
    roof = next((r for r in rows if r["roof"]), None)
    if roof:
        label = {"copy": "(cudaMemcpy D2D roof)", "fp32": "(FP32 peak)"}.get(
            roof_name, f"({roof_name} roof)")
        lines.append([label, "", "", "", fnum(roof["roof"], ".1f"), "100.0", "", ""])
    return cols, lines


def text_table(rows):
    cols, lines = table_rows(rows)
    lines = [[x.replace("**", "") for x in l] for l in lines]  # no markdown on a terminal
    widths = [max(len(c), *(len(l[i]) for l in lines)) for i, c in enumerate(cols)]
    fmt = "  ".join("{:<%d}" % widths[0] if i == 0 else "{:>%d}" % w
                    for i, w in enumerate(widths))
    return "\n".join([fmt.format(*cols), "  ".join("-" * w for w in widths)] +
                     [fmt.format(*l) for l in lines])


def cell(text):
    """A table cell: a '|' not already escaped would end it (in GitHub's tables and Pandoc's,
    also inside a code span)."""
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def markdown_table(cols, lines, left=1):
    out = ["| " + " | ".join(map(cell, cols)) + " |",
           "|" + "|".join(":---" if i < left else "---:" for i in range(len(cols))) + "|"]
    return "\n".join(out + ["| " + " | ".join(map(cell, l)) + " |" for l in lines])


def context_line(rows):
    """How one GPU measured a chapter, in one sentence without its final stop (the README, the
    book's full record and `make chapter-NN` all print it)."""
    r = rows[0]
    clock = f", SM clock {r['sm_clock_mhz']} MHz" if r["sm_clock_mhz"] else ""
    knobs = f", {r['knobs'].replace(';', ', ')}" if r["knobs"] else ""
    samples = {}
    for x in sorted(rows, key=lambda x: VARIANTS.index(x["variant"])):
        samples.setdefault(x["method"], []).append(f"{x['variant']} {x['samples']}")
    methods = "; ".join(f"{md_text(m)} ({', '.join(v)} samples)" for m, v in samples.items())
    roofs = sorted(float(x["roof"]) for x in rows if x["roof"])
    roof = ""
    if roofs:
        unit = next((x["rate_unit"] for x in rows if x["rate_unit"]), "")
        span = f"{roofs[0]:.1f}" if roofs[0] == roofs[-1] else f"{roofs[0]:.1f} to {roofs[-1]:.1f}"
        roof = f"; {md_text(r['roof_name'])} roof {span} {unit} in these runs"
    return (f"{md_text(r['gpu'])} (cc {r['cc']}, {r['sms']} SMs{clock}, CUDA driver "
            f"{r['driver']}, runtime {r['cuda']}); size {r['size']}{knobs}, seed {r['seed']}; "
            f"{methods}{roof}; measured {r['date'][:10]} at commit {r['commit']}; "
            f"{md_text(host_text(rows))}")


def results_table(data, c):
    """Every GPU's rows of a chapter as one table, (columns, lines), a GPU column first: the
    README's results block and the book's results table are both this table."""
    cols, lines = None, []
    for slug in data.results:
        rows = data.chapter_rows(slug, c.number)
        if rows:
            cols, own = table_rows(rows, c.hash)
            lines += [[md_text(re.sub(r"^NVIDIA ", "", rows[0]["gpu"])) if k == 0 else ""] + l
                      for k, l in enumerate(own)]
    return (["GPU"] + cols, lines) if cols else None


def results_block(data, c):
    table = results_table(data, c)
    if not table:
        return "Not measured yet: run `make results` on a GPU."
    measured = []
    for slug in data.results:
        rows = data.chapter_rows(slug, c.number)
        if rows:
            stale = any(r["source_hash"] != c.hash for r in rows)
            note = (" **Stale: the sources changed after this measurement; run `make results`.**"
                    if stale else "")
            measured.append(f"Measured on {context_line(rows)}.{note}")
    return (markdown_table(*table, left=2) + "\n\n" + "\n\n".join(measured) +
            "\n\nGenerated by `make readme` from `results/`; speedup is the naive median over "
            "each program's median.")


def sweep_block(data, c):
    """The other configurations the chapter measures, each against the same program at
    the default."""
    parts = []
    for slug in data.sweeps:
        rows = data.chapter_rows(slug, c.number, sweeps=True)
        if not rows:
            continue
        default = {r["variant"]: r for r in data.chapter_rows(slug, c.number)}
        unit = next((r["rate_unit"] for r in rows if r["rate_unit"]), None)
        cols = ["program", "options", "median (µs)", "noise"]
        cols += [unit, "% of roof"] if unit else []
        cols += ["time vs. default"]
        lines = []
        for r in rows:
            d = default.get(r["variant"])
            vs = ratio(d["median_us"], r["median_us"]) if d and d["median_us"] and \
                r["median_us"] else "-"
            cells = [r["variant"], r["knobs"].replace(";", ", ") or "-",
                     fnum(r["median_us"], ".1f"),
                     fnoise(r["noise_pct"])]
            if unit:
                cells += [fnum(r["rate"], ".1f"), fnum(r["pct_roof"], ".1f")]
            lines.append(cells + [vs])
        stale = any(r["source_hash"] != c.hash for r in rows)
        note = " **Stale: the sources changed after this measurement.**" if stale else ""
        parts.append(f"Other configurations on {md_text(rows[0]['gpu'])}, "
                     f"measured {rows[0]['date'][:10]}."
                     f"{note}\n\n" + markdown_table(cols, lines, left=2))
    if not parts:
        return "Not measured yet: run `make results` on a GPU."
    return "\n\n".join(parts) + ("\n\n\"time vs. default\" is the same program's median at the "
                                 "default options over its median here (above 1: faster).")


# ---- evidence ---------------------------------------------------------------------------

def evidence_table(data, slug, c):
    """(programs, lines) of the metric rows of one chapter on one GPU."""
    rows = [r for r in data.evidence.get(slug, []) if int(r["chapter"]) == c.number]
    programs = sorted({(r["variant"], r["options"]) for r in rows},
                      key=lambda p: (VARIANTS.index(p[0]), p[1]))
    names = [ev.program_name(*p) for p in programs]
    metrics = sorted({(r["tool"], r["metric"], r["unit"]) for r in rows},
                     key=lambda m: (ev.TOOLS.index(m[0]), m[1]))
    lines = []
    for tool, metric, unit in metrics:
        cells = [f"`{tool}:{metric}`", md_text(unit) or "-"]
        for v, o in programs:
            hit = next((r for r in rows if (r["variant"], r["options"], r["tool"], r["metric"])
                        == (v, o, tool, metric)), None)
            cells.append(fvalue(hit["value"]) if hit else "-")
        lines.append(cells)
    return names, lines, rows


def verdict_lines(data, slug, c):
    """Markdown bullets: the prediction and every claim on one GPU."""
    out = []
    spec = data.specs.get(c.number)
    if not spec:
        return out
    p = ev.prediction_verdict(data, slug, c.number)
    if p:
        lo, hi = p["range"]
        got = f" (measured {speedup(p['speedup'], p['range'])})" if p["speedup"] else ""
        out.append(f"- The prediction, a speedup of {speedup_range(lo)} to {speedup_range(hi)}: "
                   f"**{p['verdict']}**{got}.")
    observed = []
    for claim in spec["claims"]:
        v = ev.claim_verdict(data, slug, c.number, claim)
        vals = ", ".join(f"{p} {words_number(x)}" for p, x in v["values"].items())
        # In words first, with its verdict; the test and the id after, for the curious.
        line = (f"- {claim['says'][:1].upper() + claim['says'][1:]}: **{v['verdict']}**"
                f"{' (measured: ' + vals + ')' if vals else ''}. <small>Tested as "
                f"`{claim['holds']}`, claim `{claim['id']}`"
                f"{'; it may hold either way: ' + claim['symmetric'] if 'symmetric' in claim else ''}"
                ".</small>")
        kind = ev.claim_kind(data, c.number, claim)["kind"]
        (observed if kind == ev.OBSERVATION else out).append(line)
    if observed:
        out.append("- Observed after measuring (claims written or changed after the numbers they "
                   "read were recorded; checked, not counted as predictions):")
        out.extend("  " + line for line in observed)
    return out


def evidence_block(data, c):
    parts = []
    for slug, name in data.gpus().items():
        names, lines, rows = evidence_table(data, slug, c)
        verdicts = verdict_lines(data, slug, c)
        if not rows and not data.chapter_rows(slug, c.number):
            continue
        head = f"On {md_text(name)}"
        if rows:
            r = rows[0]
            stale = any(x["source_hash"] != c.hash for x in rows)
            head += (f" ({md_text(r['arch'])}), recorded at size {r['size']} on "
                     f"{r['date'][:10]} at "
                     f"commit {r['commit']}.")
            if stale:
                head += " **Stale: the sources changed after this recording; run `make evidence`.**"
            # At most three programs a table: wider ones run off a printed page (chapter 08
            # records six configurations).
            table = "\n\n".join(
                markdown_table(["metric", "unit"] + names[i:i + 3],
                               [l[:2] + l[2 + i:5 + i] for l in lines], left=2)
                for i in range(0, len(names), 3))
        else:
            head += ": no evidence recorded yet (`make evidence` on that GPU)."
            table = ""
        parts.append("\n\n".join(x for x in [head, table, "\n".join(verdicts)] if x))
    if not parts:
        return "Not recorded yet: run `make evidence` on a GPU."
    return "\n\n".join(parts) + ("\n\nGenerated by `make readme` from `results/evidence/` and "
                                 "the chapter's `evidence.toml`.")


# ---- listings and diffs -----------------------------------------------------------------

PLANT_IF = re.compile(r"#\s*(ifdef|ifndef|if|elif)\b.*?\bPLANT_\w+")
DIRECTIVE = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def without_plants(lines):
    """The source as it builds without any PLANT_ macro: a planted fault (tests/plants.sh) lives
    under #ifdef PLANT_NAME (or #if defined, #elif, #ifndef), and is no part of the lesson, so
    listings and diffs show only the branch the programs run."""
    out, frames = [], []  # per open #if: (a PLANT_ conditional?, is this branch kept?)
    for line in lines:
        d = DIRECTIVE.match(line.strip())
        kind = d.group(1) if d else None
        plant = bool(frames) and frames[-1][0]
        if kind in ("if", "ifdef", "ifndef"):
            plant = bool(PLANT_IF.match(line.strip()))
            # #ifndef PLANT_X opens on the program's branch; #ifdef and #if defined on the fault's
            frames.append((plant, kind == "ifndef" or not plant))
            if plant:
                continue
        elif kind == "endif" and frames:
            frames.pop()
            if plant:
                continue
        elif kind in ("elif", "else") and plant:
            # #else of #ifdef PLANT_X is the program; any #elif, or #else of #ifndef, a fault
            frames[-1] = (True, kind == "else" and not frames[-1][1])
            continue
        if all(keep for _, keep in frames):
            out.append(line)
    return out


def marker_lines(path, name):
    lines = without_plants(read_text(path, data_file=False).split("\n"))
    marks = [i for i, l in enumerate(lines) if l.strip() == f"// [{name}]"]
    if len(marks) != 2:
        raise ResultsError(f"{rel(path)}: expected two '// [{name}]' marker lines, "
                           f"found {len(marks)}")
    body = lines[marks[0] + 1:marks[1]]
    if not any(l.strip() for l in body):
        raise ResultsError(f"{rel(path)}: the '{name}' listing is empty")
    return "\n".join(body)


def listing(c, args):
    words = args.split()
    if len(words) != 2:
        raise ResultsError(f"{rel(c.readme)}: listing needs 'FILE MARKER', got '{args}'")
    path = os.path.join(c.dir, words[0])
    if not os.path.isfile(path):
        raise ResultsError(f"{rel(c.readme)}: listing of missing file {words[0]}")
    return marker_lines(path, words[1])


def diff_text(c, args):
    words = args.split()
    if len(words) != 2:
        raise ResultsError(f"{rel(c.readme)}: diff needs two files, got '{args}'")
    texts = []
    for w in words:
        if not os.path.isfile(os.path.join(c.dir, w)):
            raise ResultsError(f"{rel(c.readme)}: diff of missing file {w}")
        texts.append(without_plants(read_text(os.path.join(c.dir, w), data_file=False).split("\n")))
    # GNU diff, not difflib: its minimal diff pairs each kernel with its counterpart, where
    # difflib's matching can pair a kernel with a neighbour and show the lesson as new lines.
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, str(i)) for i in (0, 1)]
        for path, text in zip(paths, texts):
            with open(path, "w") as f:
                f.write("\n".join(text))
        try:
            run = subprocess.run(["diff", "-U2", "--label", words[0], "--label", words[1], *paths],
                                 capture_output=True, text=True)
        except OSError as e:
            raise ResultsError(f"{rel(c.readme)}: cannot run diff (GNU diffutils): {e}")
    if run.returncode > 1:
        raise ResultsError(f"{rel(c.readme)}: diff failed: {run.stderr.strip()}")
    return run.stdout.rstrip("\n")


# ---- inline values ----------------------------------------------------------------------

VALUE = re.compile(r"<!-- value: (.*?) -->(.*?)<!-- /value -->")
PROGRAM_EXPR = re.compile(r"((?:naive|optimized|library)(?:\[[^\]]*\])?)\s+(.+)")


def resolve_value(data, c, query):
    """The text of one inline value; ResultsError naming the README and the query."""
    where = f"{rel(c.readme)}: <!-- value: {query} -->"
    if "--" in query:
        # HTML ends a comment's validity at '--': Pandoc and GitHub would print the query.
        raise ResultsError(f"{where}: '--' cannot stand inside an HTML comment; write a "
                           "configuration as optimized[min-blocks 4]")
    m = re.fullmatch(r"(.*?)\s+:(\S+)", query.strip())
    body, fmt = (m.group(1), m.group(2)) if m else (query.strip(), None)
    if body == "prediction":
        # The range evidence.toml states: never typed in prose, so it cannot disagree.
        spec = data.specs.get(c.number)
        if not spec or not spec["prediction"]:
            raise ResultsError(f"{where}: the chapter's evidence.toml states no prediction")
        return " to ".join(speedup_range(x) for x in spec["prediction"]["speedup"])
    words = body.split(None, 1)
    if len(words) != 2:
        raise ResultsError(f"{where}: expected 'GPU speedup', 'GPU claim ID PROGRAM' or "
                           "'GPU PROGRAM EXPR'")
    try:
        slug = data.resolve_gpu(words[0])
        rest = words[1]
        if rest == "verdict":
            p = ev.prediction_verdict(data, slug, c.number)
            if p is None:
                raise ResultsError("the chapter's evidence.toml states no prediction")
            return p["verdict"]
        if rest == "speedup":
            x = ev.speedup(data, slug, c.number)
            if x is None:
                raise ResultsError("no naive and optimized medians in results/")
            spec = data.specs.get(c.number)
            fm = re.fullmatch(r"\.(\d)f", fmt or "")
            if fm and spec and spec["prediction"]:
                # Never the digits of a range's end that the speedup missed (2.402 -> "2.402").
                return f"{x:.{decisive_places(x, int(fm.group(1)), spec['prediction']['speedup'])}f}"
        else:
            if rest.startswith("claim "):
                args = rest.split(None, 2)
                spec = data.specs.get(c.number) or {"claims": []}
                claim = next((k for k in spec["claims"] if len(args) == 3 and
                              k["id"] == args[1]), None)
                if claim is None:
                    raise ResultsError("expected 'claim ID PROGRAM' with an ID of evidence.toml")
                parsed, program = claim["_value"], args[2]
            else:
                pm = PROGRAM_EXPR.fullmatch(rest)
                if not pm:
                    raise ResultsError("expected a program (naive, optimized[knob v]) and "
                                       "an expression")
                parsed, program = ev.parse_value(pm.group(2), "expression"), pm.group(1)
            pm = ev.PROGRAM_REF.fullmatch(program)
            if not pm:
                raise ResultsError(f"'{program}' is not a program name")
            x = ev.program_value(data, slug, c.number, parsed,
                                 ev.program_name(pm.group(1), ev.norm_options(pm.group(2) or "")))
        return format(x, fmt) if fmt else sig3(x)
    except ev.Missing as e:
        raise ResultsError(f"{where}: nothing recorded for {e}")
    except ZeroDivisionError:
        raise ResultsError(f"{where}: division by zero")
    except ValueError as e:
        raise ResultsError(f"{where}: format ':{fmt}': {e}")
    except ResultsError as e:
        raise ResultsError(f"{where}: {e}")


def values(data, c, text):
    """[(query, text written, text resolved)] of every inline value of a README."""
    return [(m.group(1), m.group(2), resolve_value(data, c, m.group(1)))
            for m in VALUE.finditer(text)]


# ---- a README ---------------------------------------------------------------------------

BLOCK = re.compile(r"<!-- (listing|diff): ([^>]*?) -->\n.*?<!-- /\1 -->"
                   r"|<!-- (results|sweep|evidence) -->\n.*?<!-- /\3 -->", re.S)


def block_markdown(data, c, kind, args):
    if kind == "results":
        return results_block(data, c)
    if kind == "sweep":
        return sweep_block(data, c)
    if kind == "evidence":
        return evidence_block(data, c)
    if kind == "listing":
        return f"```c\n{listing(c, args)}\n```"
    return f"```diff\n{diff_text(c, args)}\n```"


def blocks(data, c, text):
    """[(kind, args, markdown)] of every generated block of a README, in order."""
    check_markers(c.readme, text)
    return [(m.group(1) or m.group(3), m.group(2) or "",
             block_markdown(data, c, m.group(1) or m.group(3), m.group(2) or ""))
            for m in BLOCK.finditer(text)]


LINE_START_VALUE = re.compile(r"^[ \t]*<!-- (?:value|claim):", re.M)
MARKER = re.compile(r"<!-- (/?)(results|sweep|evidence|listing|diff|summary|runtime|loops)"
                    r"(?::[^>]*?)? -->|<!-- (/?)(value|claim)(?::.*?)? -->")


def check_markers(path, text):
    """Every generated block, inline value and claim citation a README opens, it closes (on the same line, for
    a value) before the next one opens: an opening marker whose end was lost would otherwise
    leave the text after it unchecked, a hand-edited number kept. ResultsError 'file:line'."""
    open_block = open_value = None                 # (kind, line) of what is open
    # A marker quoted in inline code (the top README explains them) is text, not a marker.
    text = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), text)
    for m in MARKER.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if open_value and open_value[1] != line:
            break
        closing, kind = (m.group(1), m.group(2)) if m.group(2) else (m.group(3), m.group(4))
        inline = kind in ("value", "claim")
        is_open = open_value if inline else open_block
        if closing and (not is_open or is_open[0] != kind):
            raise ResultsError(f"{rel(path)}:{line}: <!-- /{kind} --> closes nothing: its "
                               "opening marker is missing")
        if not closing and (open_value or open_block and not inline):
            break
        if inline:
            open_value = None if closing else (kind, line)
        else:
            open_block = None if closing else (kind, line)
    kind, line = open_value or open_block or (None, None)
    if kind:
        args = ": ..." if kind in ("value", "claim", "listing", "diff") else ""
        raise ResultsError(f"{rel(path)}:{line}: <!-- {kind}{args} --> has no <!-- /{kind} --> "
                           "after it: restore the end marker, then run `make readme`")


def render_readme(data, c, text):
    check_markers(c.readme, text)
    # A line that begins with a comment starts an HTML block in Markdown (Pandoc's and
    # GitHub's), which breaks the sentence around an inline value in two.
    m = LINE_START_VALUE.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        raise ResultsError(f"{rel(c.readme)}:{line}: an inline value or claim citation begins the "
                           "line; join it to the line before, so that it stays inside its sentence")

    # The results and the evidence are the chapter's record: the book prints each GPU's rows and
    # each claim's verdict from these two blocks, so a README without one loses them silently.
    for kind in ("results", "evidence"):
        if os.path.basename(c.readme) == "README.md" and f"<!-- {kind} -->" not in text:
            raise ResultsError(f"{rel(c.readme)}: no <!-- {kind} --> block: put back "
                               f"<!-- {kind} --> and <!-- /{kind} --> on lines of their own, "
                               "then run `make readme`")

    def repl(m):
        kind, args = m.group(1) or m.group(3), m.group(2) or ""
        opening = f"<!-- {kind}: {args} -->" if m.group(1) else f"<!-- {kind} -->"
        return f"{opening}\n{block_markdown(data, c, kind, args)}\n<!-- /{kind} -->"
    text = BLOCK.sub(repl, text)
    text = prose.CLAIM.sub(lambda m: f"<!-- claim: {m.group(1)} -->"
                           f"{prose.render_claim(data, c, m.group(1))}<!-- /claim -->", text)
    return VALUE.sub(lambda m: f"<!-- value: {m.group(1)} -->"
                     f"{resolve_value(data, c, m.group(1))}<!-- /value -->", text)


def summary_block(data):
    """The top-level README's table: every chapter, its speedup on every GPU."""
    gpus = {s: md_text(data.results[s][0]["gpu"]) for s in data.results if data.results[s]}
    out = ["| chapter | " + " | ".join(f"speedup on {g}" for g in gpus.values()) +
           (" |" if gpus else "status |"),
           "|:---|" + "---:|" * max(len(gpus), 1)]
    for c in data.toc:
        if not c.dir:
            continue
        cells = []
        for slug in gpus:
            mine = data.chapter_rows(slug, c.number)
            o = next((r for r in mine if r["variant"] == "optimized"), None)
            s = ev.speedup(data, slug, c.number)
            if s is None:
                cells.append("not measured")
                continue
            p = ev.prediction_verdict(data, slug, c.number)
            cell = f"{s:.{decisive_places(s, 2, p['range'] if p else ())}f}x"
            if o["pct_roof"]:
                cell += f" ({float(o['pct_roof']):.0f}% of {o['roof_name']} roof)"
            if any(r["source_hash"] != c.hash for r in mine):
                cell += " stale"
            if p:
                cell += f", prediction {p['verdict']}"
            cells.append(cell)
        if not gpus:
            cells = ["not measured"]
        name = os.path.basename(c.dir)
        out.append(f"| [{c.heading()}](chapters/{name}/) | " + " | ".join(cells) + " |")
    return ("\n".join(out) + "\n\nSpeedup: median time of the naive program over the optimized "
            "one, from `results/` (generated by `make readme`).")


TOP = re.compile(r"<!-- (summary|runtime|loops) -->\n.*?<!-- /\1 -->", re.S)


def render_top(data, text):
    """The top README's blocks: the summary table, and how long the GPUs took to measure."""
    check_markers(os.path.join(ROOT, "README.md"), text)
    make = {"summary": summary_block, "runtime": compare.runtime_block,
            "loops": lambda d: loops.loops_block(d.results_dir)}
    return TOP.sub(lambda m: f"<!-- {m.group(1)} -->\n{make[m.group(1)](data)}\n"
                   f"<!-- /{m.group(1)} -->", text)
