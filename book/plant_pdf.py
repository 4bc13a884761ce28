#!/usr/bin/env python3
"""book/plant_pdf.py: the planted faults of book/check.sh's section 4, on each of which a check of
book/check_pdf.py must print FAIL: a copy of the built book's data, figures list, text or a chart
with one defect, or a small document check.sh typeset with a fault the book once had. Where a fault is
planted in several figures at once, the check's FAIL lines must name each of them.

    plant_pdf.py run OUT CHK    each check, in check_pdf.py's order, on the book in OUT (its output
                                CHK/pdf-CHECK.log, printed), then on each fault planted for it under
                                CHK (CHK/planted-NAME.log): a PASS: or FAIL: line a fault
    plant_pdf.py list CHECK     the faults planted for CHECK: NAME<TAB>WHAT, one a line

A planted copy keeps the name check.sh always gave it ($CHK/figures-registers.json, ...): a check's
FAIL line names its input, and check.sh's PASS line quotes it. Standard library only."""

import collections
import json
import os
import re
import subprocess
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import check_book  # noqa: E402  (book/ is this script's folder)
from check_pdf import CHECKS, nodes  # noqa: E402

# The book's files by kind (book/check_pdf.py CHECKS: each check's inputs by kind); a fault replaces
# one or more of them with its planted copy.
BOOK = {"json": "{out}/book.json", "txt": "{chk}/book.txt", "figures": "{out}/figures.json",
        "data": "{out}/data.json", "charts": "{out}/charts", "log": "{out}/latex/book.log",
        "tex": "{out}/latex/book.tex"}


class Unplanted(Exception):
    """A fault that cannot be planted: a NOTE: line (the book lacks what it needs) or a FAIL: line."""


class Book:
    """The built book (OUT) and the check's folder (CHK), where the planted copies go."""

    def __init__(self, out, chk):
        self.out, self.chk = out, chk

    def path(self, kind):
        return BOOK[kind].format(out=self.out, chk=self.chk)

    def load(self, kind):
        return json.load(open(self.path(kind), encoding="utf-8"))

    def write(self, name, text):
        open(f"{self.chk}/{name}", "w", encoding="utf-8").write(text)
        return f"{self.chk}/{name}"


# --- How a fault is planted: a function (book, name) -> {kind: its planted copy} ------------------
def edited(kind, edit):
    """A copy of the book's KIND (book.json, data.json or figures.json) as NAME.json, EDIT(it, book)
    done to it (or what EDIT returns in its place)."""
    def plant(b, name):
        obj = b.load(kind)
        new = edit(obj, b)
        return {kind: b.write(name + ".json", json.dumps(obj if new is None else new))}
    return plant


def figures(*edits):
    """figures.json with each EDIT(figure, book) done to each figure in turn."""
    def edit_all(figs, b):
        for f in figs:
            for edit in edits:
                edit(f, b)
    return edited("figures", edit_all)


def each(svg, key, change, where=lambda r, d: True, count=None):
    """A figures edit: CHANGE(r) to each record r in drawn[KEY] (its first COUNT) of the figures
    whose chart matches SVG, where WHERE(r, drawn)."""
    def edit(f, b):
        d = f["drawn"] if isinstance(f.get("drawn"), dict) else {}  # what charts.lua says it draws
        for r in (d.get(key) or [])[:count] if re.search(svg, f["svg"]) else []:
            if where(r, d):
                change(r)
    return edit


def plus(field, n):
    return lambda r: r.update({field: r[field] + n})


def times(field, k):
    return lambda r: r.update({field: r[field] * k})


def captions(svg, *subs):
    """A figures edit: the captions of the figures whose chart matches SVG rewritten by each of
    SUBS, (pattern, replacement), in turn."""
    def edit(f, b):
        for pattern, to in subs if re.search(svg, f["svg"]) else []:
            f["caption"] = re.sub(pattern, to, f["caption"])
    return edit


def redraw(svg, change=None, phone=None):
    """A figures edit: the figures whose chart matches SVG drawn from a copy in CHK (by its own
    name) with CHANGE(text, path) done to it, and with PHONE, their phone edition's copy with
    PHONE(text, path) done to it. The copies are written one fault after another, as the
    pictures' checks read them."""
    def copy(b, path, change):
        text = open(path, encoding="utf-8").read()
        return b.write(os.path.basename(path), change(text, path) if change else text)

    def edit(f, b):
        if re.search(svg, f["svg"]):
            if phone:
                copy(b, f["svg"][:-4] + "-phone.svg", phone)
            f["svg"] = copy(b, f["svg"], change)
    return edit


def moved(pattern):
    """An SVG change: the second place PATTERN finds written over the first."""
    def change(svg, path):
        at = re.findall(pattern, svg)
        return svg.replace(at[1], at[0], 1)
    return change


def pages(edit):
    """A copy of the PDF's text as NAME.txt: EDIT(pages, the written chapters, their page spans)."""
    def plant(b, name):
        pages = open(b.path("txt"), encoding="utf-8").read().split("\f")
        written = [c for c in b.load("data")["chapters"] if c["status"] == "written"]
        spans = check_book.pdf_chapters("\f".join(pages), written, spans=True)
        return {"txt": b.write(name + ".txt", "\f".join(edit(pages, written, spans)))}
    return plant


def typeset(folder, *files):
    """FILES of a small document check.sh typeset in CHK/FOLDER with the faults the book once had."""
    return lambda b, name: {kind: f"{b.chk}/{folder}/{file}" for kind, file in files}


# --- The mutations too long for a line ----------------------------------------------------------
def first_node(doc, t, cls=None):
    return next(n for n in nodes(doc["blocks"]) if n["t"] == t and (cls is None or cls in n["c"][0][1]))


def bare_caption(doc, b):
    first_node(doc, "Table")["c"][1][1] = []


def diff_marker(doc, b):
    first_node(doc, "CodeBlock", "diff")["c"][1] += "\n // [kernel]"


def unit_words(doc, b):
    """The first paragraph ends in "2.5x", "12 us", "8.87e-08" and an inline value's "1.60" then "x"."""
    words = [x for w in ("2.5x", "12", "us", "8.87e-08", "1.60") for x in ({"t": "Space"}, {"t": "Str", "c": w})]
    next(p for p in doc["blocks"] if p["t"] == "Para")["c"] += words + [{"t": "Str", "c": "x"}]


def option_dash(doc, b):
    """The first paragraph ends in "(–spread": an option whose "--" smart typography made a dash."""
    next(p for p in doc["blocks"] if p["t"] == "Para")["c"] += [{"t": "Space"}, {"t": "Str", "c": "(–spread"}]


def counters_13(doc, b):
    body = next(t for t in first_node(doc, "Div", "claim-counters")["c"][1] if t.get("t") == "Table")["c"][4][0]
    body[3] = (body[3] * 13)[:13]


def roof_swapped(figs, b):
    """A figure whose caption names a roof line gets a chart without one (the fault of figures
    2.1, 3.1 and 13.1 in the first edition)."""
    roof = [f for f in figs if re.search("roof|peak", f["caption"])]
    none = [f for f in figs if not re.search("roof|peak", f["caption"])]
    if not roof or not none:
        raise Unplanted("NOTE: the book needs a figure with a roof and one without for the planted caption test")
    roof[0]["svg"] = none[0]["svg"]


def roofline_label(figs, b):
    """A roofline's chart alone, with a second label written over its first chapter label."""
    f = next(f for f in figs if "/roofline-" in f["svg"])
    svg = open(f["svg"], encoding="utf-8").read()
    m = re.search(r"<g transform=\"translate\([^)]*\)\"[^>]*font-size=\"10[^>]*>\s*<text>[^<]*</text>\s*</g>", svg)
    f["svg"] = b.write("roofline-planted.svg", svg[:m.end()] + m.group(0).replace("<text>", "<text>planted ") + svg[m.end():])
    return [f]


def marker_hidden(svg, path):
    """Chapter 07's H100 marker for the optimized launch (the first large one) drawn on the H200's."""
    big = re.findall(r"<use xlink:href='#gpPt\d+' transform='translate\(([-\d.]+,[-\d.]+)\) scale\(6.75\)' "
                     r"color='(rgb\([^)]*\))'", svg)
    other = next(x for x in big if x[1] != big[0][1])[0]
    return svg.replace(f"translate({big[0][0]})", f"translate({other})")


def narrow(m):
    """A sectors picture's float a lane reads (a polygon's points) drawn 1 unit wide."""
    xs = [float(v) for v in re.findall(r"[-\d.]+", m.group(2))][0::2]
    return m.group(1) + " ".join(f"{x:.2f},0" for x in (min(xs), min(xs) + 1, min(xs) + 1, min(xs))) + "'"


def thin(m):
    """The tiling picture's column of B (a tall polygon) drawn 1 unit wide; a row stays."""
    p = [float(v) for v in re.findall(r"[-\d.]+", m.group(2))]
    x0, y0, y1 = min(p[0::2]), min(p[1::2]), max(p[1::2])
    tall = max(p[1::2]) - y0 > 50  # the column of B, not a row
    return m.group(1) + f"{x0:.2f},{y1:.2f} {x0 + 1:.2f},{y1:.2f} {x0 + 1:.2f},{y0:.2f} {x0:.2f},{y0:.2f} '" if tall else m.group(0)


def streams_illegible(svg, path):
    """Figure 2.1's dashed lines up to the top, through its texts; the others' second text on their first."""
    if "/ch02-" in path:
        return re.sub(r"(stroke-dasharray='[^']*'\s+d='[^']*)",
                      lambda m: re.sub(r"L([\d.]+),[\d.]+", r"L\1,0", m.group(1)), svg)
    return moved(r"translate\([\d.]+,[\d.]+\)(?=\" stroke=\"none\")")(svg, path)


def on_first_page(extra):
    """The PDF's text with EXTRA at the end of the first chapter's second page."""
    def edit(pages, written, spans):
        at = min(s for s, _ in spans.values()) + 1
        return [p + (extra if i == at else "") for i, p in enumerate(pages)]
    return edit


def lone_heading(pages, written, spans):
    """"Results" as the last line of the first chapter's second page."""
    at = spans[written[0]["nn"]][0] + 1
    lines = pages[at].rstrip("\n").split("\n")
    return pages[:at] + ["\n".join(lines[:-1] + ["Results", lines[-1]]) + "\n"] + pages[at + 1:]


def captions_gone(table):
    """The first chapter's pages with the captions of its tables TABLE (a pattern) gone."""
    def edit(pages, written, spans):
        s, e = spans[written[0]["nn"]]
        caption = rf"(^|\n)(\s*)Table {int(written[0]['nn'])}\.{table}:"
        return [re.sub(caption, r"\1\2A table:", p) if s <= i < e else p for i, p in enumerate(pages)]
    return edit


def set_scale(scale):
    def edit(d, b):
        for c in d["chapters"]:
            if c["sweep_chart"]:
                c["sweep_chart"]["scale"] = scale
    return edit


def same_sweep(d, b):
    """Chapter 15's H200 sweep made the H100's, which its chart (drawn from the real data) does not
    name as the same."""
    series = next(c for c in d["chapters"] if c["nn"] == "15")["sweep_chart"]["series"]
    series[1]["points"] = [list(p) for p in series[0]["points"]]


def last_part_planned(d, b):
    last = set(d["parts"][-1]["chapters"])
    for c in d["chapters"]:
        if c["nn"] in last:
            c["status"] = "planned"


Fault = collections.namedtuple("Fault", "check what plant named", defaults=[None])
LEGIBLE = r"\.svg\): what it teaches is legible"  # the legibility check's line, after the chart's name
STREAMS = ("2.1", "3.1", "5.1", "36.1")  # the streams timelines: chapters 02, 03, 05 and 36
# NAME (its copy CHK/NAME.json or .txt, its check's output CHK/planted-NAME.log): Fault(the check
# that must fail on it, what it plants (its PASS line says it), how, and where it is planted
# in several figures, (the check as the PASS line calls it, what it names, one pattern a figure
# that a line of the check's output must match)). The pictures' faults run in the order they
# always did: they write their SVGs into CHK one after another.
FAULTS = {
    "book-bare": Fault("captioned", "a table whose caption was emptied", edited("json", bare_caption)),
    "book-units": Fault("units", "planted 2.5x, 12 us, 8.87e-08 and 1.60|x", edited("json", unit_words)),
    "book-dash": Fault("units", "an option's -- planted as an en dash", edited("json", option_dash)),
    "book-marker": Fault("markers", "a build marker planted in a diff", edited("json", diff_marker)),
    "figures-planted": Fault("captions", "a caption that names a roof its chart does not draw",
                             edited("figures", roof_swapped)),
    # The data with chapter 01's roof dropped (the chart, drawn from the real data, still names one).
    "data-noroof": Fault("own-roofs", "a chapter whose roof the chart shows but the data lacks", edited(
        "data", lambda d, b: next(r for r in d["roofs"] if r["roofs"]).update(roofs={}, pct={}))),
    # Every sweep knob a choice (the drawn lines then join unrelated choices), or a power of two.
    "data-category": Fault("sweep-axes", "every sweep knob said to be category", edited("data", set_scale("category"))),
    "data-log2": Fault("sweep-axes", "every sweep knob said to be log2", edited("data", set_scale("log2"))),
    "data-same": Fault("sweep-same", "a sweep whose two series were made the same", edited("data", same_sweep)),
    "figures-labels": Fault("roofline-labels", "a label planted over another on a roofline",
                            edited("figures", roofline_label)),
    "figures-diagrams": Fault("diagrams", "a picture whose caption gives other numbers than it draws", figures(captions(
        r"-(sectors|banks|divergence|traffic|occupancy|local|inflight)\.svg$",
        (r"\d+ passes", "7 passes"), (r"\d+ sectors", "3 sectors"), (r"\d+-way", "8-way"), (r"\d+ times", "9 times"),
        (r"\d+ warps", "7 warps"), (r"\d+ bytes", "5 bytes"), (r"\d+ ns", "9 ns"), (r"\d+(\.\d+)? KB", "0.3 KB")))),
    "figures-occupancy": Fault("diagrams", "an occupancy API answer one warp off the picture", figures(
        each("", "recorded", plus("warps", 1), lambda r, d: r["program"] == "naive" and "warps" in r))),
    "figures-registers": Fault("diagrams", "captions whose register counts are not the ones drawn", figures(
        captions("", (r"\d+ registers", "150 registers"), (r"\d+ B local", "48 B local"))),
        ("the caption check", "both planted register counts (Figures 8.1 and 18.1)",
         [r"^FAIL: Figure 8.1:: the numbers its caption", r"^FAIL: Figure 18.1:: the numbers its caption"])),
    "figures-records": Fault("diagrams", "a register limit and local sectors other than each GPU recorded", figures(
        each(r"ch08-occupancy\.svg$", "recorded", plus("blocks", 1), lambda r, d: r["program"] == "optimized"),
        each(r"-local\.svg$", "recorded", times("ld", 2), count=1)),
        ("the record check", "both planted records (Figures 8.1 and 18.1)",
         [r"^FAIL: Figure 8.1:: the resident warps it draws", r"^FAIL: Figure 18.1:: the registers, stack frame"])),
    "figures-inflight": Fault("diagrams", "recorded warps twice those a bytes-in-flight picture draws", figures(
        each(r"-inflight\.svg$", "evidence", times("warps", 2), lambda r, d: r["program"] == "naive"))),
    # As the pictures first drew them: at the most loaded point, not the least-loaded point's.
    "figures-inflight-l0": Fault("diagrams", "Little's-law lines at the most-loaded point's latency", figures(each(
        r"-inflight\.svg$", "lines", lambda ln: ln.update(l0=max(ln["points"], key=lambda p: p["bytes"])["bytes"] / (
            max(ln["points"], key=lambda p: p["bytes"])["rate"] / 2 / ln["sms"])))),
        ("the latency check", "both planted lines (Figures 6.1 and 7.1)",
         [rf"^FAIL: Figure {n}:* its Little's-law lines run at the latency" for n in ("6.1", "7.1")])),
    "figures-inflight-hidden": Fault("diagrams", "chapter 07's H100 marker drawn under the H200's", figures(
        redraw(r"ch07-inflight\.svg$", marker_hidden)),
        ("the legibility check", "Figure 7.1's hidden marker", [r"ch07-inflight" + LEGIBLE + ".*hides under another GPU"])),
    # The pictures as they were drawn before they were made legible: the resident warps one dark line
    # whatever limit binds (Figure 10.1), a float a lane reads 1 unit wide (Figure 15.1), a tick
    # label of a bytes-in-flight picture drawn over the one below it (Figure 6.1).
    "figures-illegible": Fault("diagrams", "an occupancy curve in one colour whatever limit binds", figures(
        redraw(r"-occupancy\.svg$", lambda svg, p: re.sub(r"<path stroke='rgb\([^)]*\)'(\s+d='(?:[^'L]*L){4})",
                                                           r"<path stroke='rgb(34, 34, 34)'\1", svg)),
        redraw(r"-sectors\.svg$", lambda svg, p: re.sub(
            r"(<polygon fill = 'rgb\(\s*42,\s*111,\s*176\)' points = ')([^']*)'", narrow, svg)),
        redraw(r"-inflight\.svg$", moved(r"translate\([\d.]+,[\d.]+\)"))),
        ("the legibility check", "the planted pictures (Figures 10.1, 15.1 and 6.1)",
         [r"ch10-occupancy" + LEGIBLE + r".*binds\" is not on the curve",
          r"ch15-sectors" + LEGIBLE + ".*a float a lane reads is 1.00 units", r"ch06-inflight" + LEGIBLE + ".* overlaps "])),
    "figures-requests": Fault("diagrams", "chapter 22's caption a request short of its picture", figures(captions(
        r"-requests\.svg$", (r"(\d+) requests", lambda m: str(int(m.group(1)) - 1) + " requests"))),
        ("the caption check", "Figure 22.1's 31 requests", [r"^FAIL: Figure 22.1.*not drawn: \['31 requests'\]"])),
    "figures-recorded": Fault("diagrams", "recorded sectors per store and requests per lookup one more than drawn",
                              figures(each("", "per_request", plus("recorded", 1))),
                              ("the recorded-figure check", "the planted pictures (Figures 16.1, 19.1, 20.1 and 22.1)",
                               [r"^FAIL: Figure 20.1.*sectors per store.*differ", r"^FAIL: Figure 22.1.*requests per lookup.*differ",
                                r"^FAIL: Figure 19.1.*uses per global load.*differ",
                                r"^FAIL: Figure 16.1.*sectors per load request.*differ"])),
    # The second GPU's record (the pictures are drawn from the first GPU's).
    "figures-record-each": Fault(
        "diagrams", "the H200's record one more than Figures 1.1 and 21.1 draw, its counters for 32.1 missing", figures(
            each(r"ch(01|21)-", "per_request", plus("recorded", 1), lambda r, d: r["gpu"] == "nvidia-h200"),
            each(r"ch32-", "per_request", lambda r: r.pop("recorded", None), lambda r, d: r["gpu"] == "nvidia-h200")),
        ("the recorded-figure check", "each planted record (Figures 1.1, 21.1 and 32.1, the H200's)",
         [r"^FAIL: Figure 1.1:.*DRAM bytes.*differ: \['nvidia-h200", r"^FAIL: Figure 21.1:.*differ: \['nvidia-h200 naive floats a tile row",
          r"^FAIL: Figure 32.1:.*differ: \['nvidia-h200 naive passes per warp: drawn 2, recorded nothing"])),
    # Chapter 17's recorded sectors per load request 0.1 more than its rows' addresses give (a sector
    # in ten requests: within half, as the one-warp pictures are held, but not its 0.05).
    "figures-pitch": Fault("diagrams", "chapter 17's recorded sectors per request a tenth off its rows' addresses",
                           figures(each(r"ch17-sectors\.svg$", "per_request", plus("recorded", 0.1))),
                           ("the recorded-figure check", "Figure 17.1 a tenth of a sector off",
                            [r"^FAIL: Figure 17.1.*sectors per load request over 32 rows.*differ"])),
    "figures-tiling": Fault("diagrams", "chapter 19's caption with 16 uses per global load where 32 are drawn", figures(
        captions(r"-tiling\.svg$", (r"(\d\d+) uses per global load", "16 uses per global load"))),
        ("the caption check", "Figure 19.1's 16 uses per global load",
         [r"^FAIL: Figure 19.1:* the numbers its caption gives.*not drawn: \['16 uses per global load'\]"])),
    "figures-tiling-thin": Fault("diagrams", "chapter 19's column of B drawn 1 unit wide on the phone", figures(redraw(
        r"-tiling\.svg$", phone=lambda svg, p: re.sub(r"(<polygon fill = 'rgb\(209,\s*96,\s*61\)' points = ')([^']*)'", thin, svg))),
        ("the legibility check", "Figure 19.1's planted 1-unit column",
         [r"ch19-tiling-phone" + LEGIBLE + ".*a row of floats is 1.00 units"])),
    "figures-tiling-speedup": Fault("diagrams", "the H200's tiled speedup 10% off Figure 19.1's caption", figures(each(
        r"ch19-tiling\.svg$", "recorded", times("value", 1.1), lambda r, d: r["metric"] == "speedup" and r["gpu"] == "nvidia-h200")),
        ("the restated-figure check", "Figure 19.1's speedup",
         [r"^FAIL: Figure 19.1:* the recorded figures its caption restates.*optimized speedup said [\d.]+×, recorded [\d.]+ on nvidia-h200"])),
    "figures-streams": Fault("diagrams", "streams timelines whose captions give other times than they draw", figures(captions(
        r"-streams\.svg$", (r"[\d.]+ kernels at once", "9.5 kernels at once"), (r"\d+\.\d+ ms", "7.25 ms"),
        (r"\d+\.\d+ µs", "7.25 µs"))),
        ("the caption check", "the planted streams captions (Figures 2.1, 3.1, 5.1 and 36.1)",
         [rf"^FAIL: Figure {re.escape(n)}:* the numbers its caption gives" for n in STREAMS])),
    "figures-restated": Fault("diagrams", "an H100 record 10% off what the streams captions restate", figures(each(
        r"-streams\.svg$", "recorded", times("value", 1.1), lambda r, d: r["gpu"] == d["gpu"])),
        ("the restated-figure check", "the planted records (Figures 2.1, 3.1, 5.1 and 36.1)",
         [rf"^FAIL: Figure {re.escape(n)}:* the recorded figures its caption restates" for n in STREAMS])),
    "figures-streams-illegible": Fault(
        "diagrams", "streams timelines with a dashed line through a text and a text over another",
        figures(redraw(r"-streams\.svg$", streams_illegible, streams_illegible)),
        ("the legibility check", "the planted streams timelines (Figures 2.1, 3.1 and 5.1)",
         [r"ch02-streams-phone" + LEGIBLE + ".*a dashed line runs through", r"ch05-streams" + LEGIBLE + ".*overprints",
          r"ch03-streams" + LEGIBLE + ".*overprints"])),
    "figures-spills": Fault("diagrams", "chapter 08's spill stores a byte more than its caption and picture say", figures(each(
        r"ch08-occupancy\.svg$", "figures", plus("value", 1), lambda r, d: r["metric"] == "spill_store_bytes")),
        ("the restated-figure check", "Figure 8.1's spill stores",
         [r"^FAIL: Figure 8.1:* the recorded figures its caption restates.*spill_store_bytes"])),
    "figures-occupancy-labels": Fault("diagrams", "chapter 08's point labels one over another on the phone", figures(redraw(
        r"ch08-occupancy\.svg$", phone=moved(r"translate\([\d.]+,[\d.]+\)(?=\" stroke=\"none\"[^>]*>\s*<text>min-blocks)"))),
        ("the legibility check", "Figure 8.1's planted label over another", [r"ch08-occupancy-phone" + LEGIBLE + ".* overlaps "])),
    "figures-data2": Fault("diagrams", "a shared-memory limit and allocation calls other than each GPU recorded", figures(
        each(r"ch10-occupancy\.svg$", "per_request", plus("recorded", 1)),
        each(r"ch36-streams\.svg$", "per_request", lambda r: r.update(recorded=1), lambda r, d: r["program"] == "optimized")),
        ("the recorded-figure check", "Figures 10.1 (shared-memory blocks) and 36.1 (allocation calls)",
         [r"^FAIL: Figure 10.1:* its blocks the shared memory holds.*differ",
          r"^FAIL: Figure 36.1:* its allocation calls per iteration.*differ"])),
    "figures-nopart": Fault("diagrams", "the book without chapter 36's picture (Part V)",
                            edited("figures", lambda figs, b: [f for f in figs if "/ch36-" not in f["svg"]])),
    # A quiet sweep row's noise raised to 55.5% (the book, built from the real data, does not set it in bold).
    "data-noisy": Fault("noisy", "a sweep row whose 55.5% noise is not in bold", edited("data", lambda d, b: next(
        r for c in d["chapters"] for g in c["sweeps"] for r in g["rows"] if (r["noise_pct"] or 0) < 1).update(noise_pct=55.5))),
    "data-planned": Fault("parts", "a part whose chapters are all planned", edited("data", last_part_planned)),
    "record-long": Fault("record", "chapters three pages longer", pages(lambda pages, written, spans: [
        p for i, p in enumerate(pages) for _ in range(3 if i in {s for s, _ in spans.values()} else 1)])),
    "record-dump": Fault("record", "a counter dump in a chapter",
                         pages(on_first_page("\nncu:planted__counter_nobody_reads.sum 1,234\n"))),
    "record-generated": Fault("record", "a Generated-by note",
                              pages(on_first_page("\nGenerated by make readme from results/.\n"))),
    "layout-lone": Fault("lone-headings", "a heading as the last line of a page", pages(lone_heading)),
    "layout-gap": Fault("table-numbers", "a chapter whose second table moved away with its number", pages(captions_gone("2"))),
    "layout-counters": Fault("counter-rows", "a counter table of 13 rows", edited("json", counters_13)),
    "layout-pointer": Fault("table-pointers", "a chapter whose tables all moved away", pages(captions_gone(r"(\d+)"))),
    "wide-table": Fault("overfull", "a planted table too wide for the page",
                        typeset("planted", ("log", "book.log"), ("tex", "book.tex"))),
    "caret": Fault("carets", "a planted caret exponent", typeset("planted", ("json", "book.json"))),
    "straight-quotes": Fault("quotes", "planted straight quotes", typeset("planted", ("txt", "book.txt"))),
    "two-sided": Fault("blank-pages", "a two-sided document (a blank page before its first chapter)",
                       typeset("planted-sides", ("txt", "book.txt"))),
}


def checked(check, args, log):
    """book/check_pdf.py CHECK ARGS, its output into LOG; that output."""
    with open(log, "w", encoding="utf-8") as out:
        subprocess.run([sys.executable, "book/check_pdf.py", check, *args], stdout=out, stderr=subprocess.STDOUT)
    return open(log, encoding="utf-8", errors="replace").read()


def indented(text):
    print("".join(f"    {line}\n" for line in text.splitlines()), end="")


def planted(b, name, fault):
    """Plant fault NAME and run its check on it, which must FAIL; where the fault is in several
    figures, its FAIL lines must name each."""
    try:
        copies = fault.plant(b, name)
    except Unplanted as e:
        print(e)
        return
    except Exception:  # noqa: BLE001  (a fault that cannot be planted fails, with its traceback)
        print(f"FAIL: book/plant_pdf.py could not plant {fault.what}:")
        indented(traceback.format_exc())
        return
    log = f"{b.chk}/planted-{name}.log"
    lines = checked(fault.check, [copies.get(k, b.path(k)) for k in CHECKS[fault.check][1]], log).split("\n")
    first = next((line for line in lines if line.startswith("FAIL: ")), None)
    if first:  # quoted from its 7th byte to its 200th, as check.sh's `cut -c7-200` always did
        quoted = first.encode()[6:200].decode(errors="ignore")
        check_book.check(True, f"the {fault.check} check fails on {fault.what} (\"{quoted}\")")
    else:
        check_book.check(False, f"the {fault.check} check does not fail on {fault.what}:")
        indented("\n".join(lines))
    if fault.named:
        who, what, patterns = fault.named
        ok = all(any(re.search(p, line) for line in lines) for p in patterns)
        check_book.check(ok, f"{who} names {what}" if ok else f"{who} does not name {what}; see {log}")


def run(out, chk):
    b = Book(out, chk)
    for check, (_, kinds) in CHECKS.items():
        text = checked(check, [b.path(k) for k in kinds], f"{chk}/pdf-{check}.log")
        print(text, end="")
        if not re.search(r"^(PASS|FAIL): ", text, re.M):
            check_book.check(False, f"book/check_pdf.py {check} checked nothing: {(text.splitlines() or [''])[-1]}")
        for name, fault in FAULTS.items():
            if fault.check == check:
                planted(b, name, fault)


def main(argv):
    if argv[:1] == ["list"] and len(argv) == 2:
        print("".join(f"{name}\t{f.what}\n" for name, f in FAULTS.items() if f.check == argv[1]), end="")
    elif argv[:1] == ["run"] and len(argv) == 3:
        run(*argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
