#!/usr/bin/env python3
"""book/check_pdf.py: checks of the PDF's layout and typography (book/check.sh runs them).

    check_pdf.py overfull BOOK.log BOOK.tex    nothing runs past the margin
    check_pdf.py carets BOOK.json              no literal ^ exponent outside code
    check_pdf.py quotes BOOK.txt               no closing quote mark where a quotation opens
    check_pdf.py captions FIGURES.json BOOK.txt   every caption's claims match its chart
    check_pdf.py parts DATA.json BOOK.txt      every part has a written chapter, none planned

Prints one PASS: or FAIL: line per assertion; exit status 1 if any failed, 2 on bad input.
Standard library only."""

import html
import json
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import check_book  # noqa: E402  (book/ is this script's folder)
from check_book import check, squeeze  # noqa: E402  (one PASS/FAIL printer, one counter)

# An overfull \hbox is a line that sticks out into the right margin. 1 pt (0.35 mm) is below
# what a reader sees at the edge of a justified column; a character (5 pt or more) is not. TeX
# itself reports from 0.1 pt (\hfuzz), which catches hair-width rounding in table rules.
HBOX_PT = 1.0
# An overfull \vbox is a page whose content reaches below the bottom margin; code blocks broken
# across pages overshoot by 1 to 3 pt, invisible in a 2.6 cm margin. Half a line (6 pt) is not.
VBOX_PT = 6.0


def where_in_tex(tex, line):
    """The chapter, section and numbered table or listing at or above a line of the .tex."""
    chapter = section = thing = ""
    for i, l in enumerate(tex[:line], start=1):
        m = re.match(r"\\(part|chapter|section)\*?\{(.*?)\}(\\label|\}|$)", l)
        if m:
            if m.group(1) in ("part", "chapter"):
                chapter, section, thing = m.group(2), "", ""
            else:
                section, thing = m.group(2), ""
        m = re.search(r"\\textbf\{((Table|Listing|Figure) [\w.]+):\}", l)
        if m:
            thing = m.group(1)
    return chapter, section, thing


def overfull(log_path, tex_path):
    log = open(log_path, encoding="utf-8", errors="replace").read()
    tex = open(tex_path, encoding="utf-8", errors="replace").read().split("\n")
    boxes = re.findall(r"Overfull \\([hv])box \(([\d.]+)pt too (?:wide|high)\) "
                       r"(?:in \w+ at lines (\d+)--(\d+)|detected at line (\d+))\n(.*)", log)
    if not boxes and "Output written on" not in log:
        print(f"error: {log_path} is not the log of a finished xelatex run", file=sys.stderr)
        return 2
    bad = {}
    for kind, pt, a, b, at, text in boxes:
        pt, line = float(pt), int(b or at)  # a table's alignment starts above its caption
        if pt <= (HBOX_PT if kind == "h" else VBOX_PT):
            continue
        chapter, section, thing = where_in_tex(tex, line)
        key = (kind, chapter, section, thing)  # a table's rows overflow together: say it once
        if key not in bad or bad[key][0] < pt:
            text = re.sub(r"\\[A-Z]+/[^ ]*|\[\]|\|", " ", text)  # font switches, boxes
            bad[key] = (pt, a or at, b or at, " ".join(text.split())[:70] or "(a table's rows)")
    for (kind, chapter, section, thing), (pt, a, b, text) in bad.items():
        check(False, f"{'a line' if kind == 'h' else 'a page'} {pt:.1f} pt too "
              f"{'wide' if kind == 'h' else 'high'} in {chapter or 'the front matter'}"
              f"{', ' + section if section else ''}{', ' + thing if thing else ''} "
              f"({tex_path} lines {a}-{b}): {text}")
    n = len(boxes)
    check(not bad, f"no line runs more than {HBOX_PT:g} pt into the margin and no page more than "
          f"{VBOX_PT:g} pt below it ({n} overfull box{'es' if n != 1 else ''} in {log_path}, "
          f"{sum(1 for k, pt, *_ in boxes if float(pt) > (HBOX_PT if k == 'h' else VBOX_PT))} "
          "above that)")
    return 1 if check_book.failed else 0


SKIP = {"Code", "CodeBlock", "RawInline", "RawBlock", "Math"}  # where ^ is meant as it is


def plain(node):
    """The text of a Pandoc JSON node (for naming where something is)."""
    if isinstance(node, list):
        return "".join(plain(n) for n in node)
    if isinstance(node, dict):
        t = node.get("t")
        if t == "Str":
            return node["c"]
        if t in ("Space", "SoftBreak", "LineBreak"):
            return " "
        return plain(node.get("c", []))
    return ""


def carets(json_path):
    """No literal ^ in the text of the assembled book (the PDF, HTML and EPUB are written from it),
    outside code and math: an exponent must have become a superscript."""
    doc = json.load(open(json_path, encoding="utf-8"))
    found, heading = [], ["the front matter"]

    def walk(node):
        if isinstance(node, list):
            for n in node:
                walk(n)
        elif isinstance(node, dict):
            t = node.get("t")
            if t in SKIP:
                return
            if t == "Header":
                heading[0] = plain(node["c"][2])
            if t == "Str" and "^" in node["c"]:
                found.append((heading[0], node["c"]))
            walk(node.get("c", []))

    walk(doc["blocks"])
    for where, text in found[:20]:
        check(False, f"a literal ^ in the text under \"{where}\": \"{text}\" (an exponent the "
              "superscript filter of book/book.lua did not take)")
    check(not found, f"no literal ^ outside code and math in {json_path} ({len(found)} found)")
    return 1 if check_book.failed else 0


def quotes(txt_path):
    """Quotation marks the right way round in the PDF's text (pdftotext): a straight " that TeX's
    font mapping printed as a closing mark where the quotation opens, or the reverse."""
    text = open(txt_path, encoding="utf-8", errors="replace").read()
    wrong = [m for m in re.finditer(r"(?:^|(?<=[\s(\[/\u2014\u2013]))[\u201d\u2019](?=\w)", text)]
    wrong += [m for m in re.finditer(r"(?<=\w)\u201c(?=[\s.,;:!?)]|$)", text)]
    for m in wrong[:10]:
        line = text.count("\n", 0, m.start()) + 1
        page = text.count("\f", 0, m.start()) + 1
        context = " ".join(text[max(0, m.start() - 30):m.end() + 30].split())
        check(False, f"page {page} (line {line} of {txt_path}): a quotation opens with a closing "
              f"mark or closes with an opening one: \"{context}\"")
    check(not wrong, f"every quotation mark in the PDF's text faces the right way ({len(wrong)} "
          f"wrong, {text.count(chr(0x201c))} opening and {text.count(chr(0x201d))} closing marks)")
    return 1 if check_book.failed else 0


ROOF_WORDS = re.compile(r"roof|peak", re.I)  # also inside squeezed text ("copyroof")


def svg_text(path):
    """The words a chart shows (its key, labels and axes), from gnuplot's SVG."""
    svg = open(path, encoding="utf-8", errors="replace").read()
    return html.unescape(" ".join(re.findall(r">([^<>]+)</tspan>|>([^<>]+)</text>", svg) and
                                  [a or b for a, b in re.findall(r">([^<>]+)</tspan>|>([^<>]+)</text>", svg)]))


def captions(figures_path, txt_path):
    """Every figure's caption, as the PDF prints it, claims only what its chart draws: a roof or
    peak line only where the chart's key or labels show one (and, where the chart draws one, the
    caption says so); a predicted range only where one is drawn; for a sweep, the programs it
    names as drawn are the ones in the chart's key. figures.json (book/book.lua) gives each
    figure's label and chart; the truth is the chart's SVG."""
    figures = json.load(open(figures_path, encoding="utf-8"))
    text = squeeze(open(txt_path, encoding="utf-8", errors="replace").read())
    for f in figures:
        label = squeeze(f["label"])
        want = squeeze(f["caption"])
        at = text.find(want)
        check(at >= 0, f"{f['label']} is in the PDF with its caption" +
              ("" if at >= 0 else f" (looked for \"{f['caption'][:80]}...\")"))
        shown = text[at:at + len(want)] if at >= 0 else want
        try:
            drawn = svg_text(f["svg"])
        except OSError as e:
            check(False, f"{f['label']}: its chart {f['svg']} cannot be read: {e.strerror}")
            continue
        said = ROOF_WORDS.search(shown) is not None  # the claim as the PDF prints it
        has = ROOF_WORDS.search(drawn) is not None
        check(said == has, f"{f['label']} {'mentions' if said else 'does not mention'} a roof or peak line, "
              f"and its chart ({f['svg'].rsplit('/', 1)[-1]}) {'draws' if has else 'draws none'}")
        if "predicted" in f["caption"] or "predicted range" in drawn:
            check(("predicted range" in drawn) == ("predicted" in f["caption"]),
                  f"{f['label']}: a predicted range is mentioned exactly where its chart draws one")
        m = re.search(r"of the (.+?) programs? against", f["caption"])
        if m:
            named = [p for p in re.split(r", | and ", m.group(1)) if p]
            missing = [p for p in named if p not in drawn]
            check(not missing, f"{f['label']}: the programs its caption says are drawn ({', '.join(named)}) "
                  f"are in its chart's key" + (f"; not: {', '.join(missing)}" if missing else ""))
    return 1 if check_book.failed else 0


def parts(data_path, txt_path):
    """Every part of the book is real: it has a written chapter, its page in the PDF lists no
    chapter as planned, and its written chapters follow it."""
    data = json.load(open(data_path, encoding="utf-8"))
    pages = open(txt_path, encoding="utf-8", errors="replace").read().split("\f")
    heads = [squeeze(next((l for l in p.split("\n") if l.strip()), "")) for p in pages]
    status = {c["nn"]: c for c in data["chapters"]}
    for part in data["parts"]:
        written = [nn for nn in part["chapters"] if status[nn]["status"] == "written"]
        at = next((i for i, h in enumerate(heads) if h.startswith(f"Part{part['part']}.")), None)
        check(bool(written), f"Part {part['part']} has a written chapter"
              + ("" if written else f" (its chapters {', '.join(part['chapters'])} are all planned "
                                    "or in progress)"))
        check(at is not None and "(planned)" not in pages[at],
              f"Part {part['part']} has its page in the PDF, which lists no planned chapter")
        if at is not None:
            later = squeeze("\f".join(pages[at + 1:]))
            lost = [nn for nn in written if squeeze(f"{nn}. {status[nn]['title']}") not in later]
            check(not lost, f"Part {part['part']}'s written chapters follow its page"
                  + (f" (not: {', '.join(lost)})" if lost else ""))
    return 1 if check_book.failed else 0


def main(argv):
    cmds = {"overfull": (overfull, 2), "carets": (carets, 1), "quotes": (quotes, 1),
            "captions": (captions, 2), "parts": (parts, 2)}
    if not argv or argv[0] not in cmds or len(argv) - 1 != cmds[argv[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return cmds[argv[0]][0](*argv[1:])
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
