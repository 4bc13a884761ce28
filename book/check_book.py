#!/usr/bin/env python3
"""book/check_book.py: check the text of the built book against the data it was built from.

    check_book.py DATA.json BOOK.txt DOM-DIR SITE-DIR [ONE-PAGE.html]

DATA.json is what `scripts/results.py book-json` prints (the build's $BOOK_OUT/data.json), BOOK.txt
the PDF's text (pdftotext; its links, `pdfinfo -url`, beside it as BOOK.urls), DOM-DIR every page of the HTML edition as Chromium rendered it
(book/html/check.py --dom), SITE-DIR the site itself (book/out/html), ONE-PAGE.html the one-page
book.html. Prints one PASS: or FAIL: line per assertion (book/check.sh counts them), and outside
CI a WARNING: line per chapter changed since it was measured (see STRICT); exit status 1
if any failed, 2 on bad input. Every number is looked up in its own chapter's text, in both
editions, formatted as the book formats it; every link of every page must reach its page and its
id; every chapter links the guide section it follows (by its anchor) and its source files (their
pages in the HTML, which hold the files' text; their paths in the PDF), and ends with its takeaway.
`check_book.py chapters DATA.json BOOK.txt DOM-DIR [SITE-DIR]` runs only those last checks
(book/check.sh plants faults for them). `check_book.py appendices FILE...` checks that every
appendix the one-page book.html or the EPUB names is one it has (the PDF's appendix C is not
theirs; book/html/check.py checks the site's pages). Standard library only."""

import html
import json
import os
import re
import sys
import urllib.parse

failed = 0
# A results row measured from other sources than the chapter's (stale) fails in CI (CI=true); for a
# person who changed a chapter, for an exercise say, it is one WARNING: line per chapter.
STRICT = os.environ.get("CI") == "true"


def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    failed += not ok


def squeeze(s):
    """Text without white space: robust against line breaks, hyphenation and code wrapping."""
    return re.sub(r"[\s\u00a0]+", "", s)


def pdf_chapters(text, chapters, spans=False):
    """nn -> the chapter's PDF text: from the page that starts with its title to the next page
    that starts a chapter, a part, the summary or an appendix (with spans, its pages: (first,
    last + 1), counted from 0)."""
    pages = text.split("\f")
    heads = [squeeze(next((l for l in p.split("\n") if l.strip()), "")) for p in pages]
    titles = {c["nn"]: squeeze(f"{c['nn']}. {c['title']}") for c in chapters}
    # The table of contents comes before Part I, and one of its pages may begin with a title.
    first = next((i for i, h in enumerate(heads) if h.startswith("PartI.")), 0)
    start = {}
    for nn, t in titles.items():
        start[nn] = next((i for i, h in enumerate(heads)
                          if i >= first and len(h) >= 4 and t.startswith(h)), None)
    stops = sorted({i for i in start.values() if i is not None} |
                   {i for i, h in enumerate(heads) if re.match(r"(Part|Summary|Appendix)", h)})
    out = {}
    for nn, s in start.items():
        if s is not None:
            e = next((i for i in stops if i > s), len(pages))
            # A page's number (its last line, digits alone) is not part of a sentence that runs on.
            out[nn] = (" ".join(re.sub(r"\n\s*\d+\s*$", "\n", p) for p in pages[s:e])
                       if not spans else (s, e))
    return out


def read_site(dom_dir):
    """{page: rendered DOM} of the HTML edition, and its pages' main text joined in reading order
    (the sidebar's), without the sidebar and the previous/next links: one document whose
    chapters html_chapters can cut out as from a single page."""
    pages = {f: open(os.path.join(dom_dir, f), encoding="utf-8", errors="replace").read()
             for f in sorted(os.listdir(dom_dir)) if f.endswith(".html")}
    toc = re.search(r'<ol class="toc">(.*?)</nav>', pages.get("index.html", ""), re.S)
    order = []
    for href in re.findall(r'href="([^"#]+\.html)"', toc.group(1) if toc else ""):
        if href in pages and href not in order:
            order.append(href)
    order += [f for f in pages if f not in order]
    mains = []
    for f in order:
        m = re.search(r'<main\b[^>]*>(.*)</main>', pages[f], re.S)
        mains.append(re.sub(r'<nav class="pager\b.*?</nav>', "", m.group(1) if m else "", flags=re.S))
    return pages, "\n".join(mains)


def check_links(pages, site_dir, label):
    """Every href and src of every page reaches a file of the site (a page, a chart, the style
    sheet), and every #fragment an id of its page. External links (http, mailto) are not
    followed; nothing may be loaded from outside (src)."""
    ids = {f: set(re.findall(r'\sid="([^"]*)"', d)) for f, d in pages.items()}
    broken, external, n = [], [], 0
    for f, d in pages.items():
        for attr, value in re.findall(r'\s(href|src)="([^"]*)"', d):
            value = html.unescape(value)
            if re.match(r"(https?:|mailto:|data:)", value) or value.startswith("//"):
                if attr == "src" and not value.startswith("data:"):
                    external.append(f"{f}: {value}")
                continue
            n += 1
            path, _, frag = value.partition("#")
            path = urllib.parse.unquote(path.split("?")[0])
            target = path or f
            if target in pages:
                if frag and urllib.parse.unquote(frag) not in ids[target]:
                    broken.append(f"{f}: {value} (no such id)")
            elif not (site_dir and os.path.isfile(os.path.join(site_dir, target))):
                broken.append(f"{f}: {value} (no such file)")
    check(not broken, f"every link of the {label} reaches its page and id ({n} links)" +
          (f"; broken: {broken[:10]}" if broken else ""))
    check(not external, f"nothing in the {label} is loaded from the network" +
          (f"; it loads {external[:5]}" if external else ""))


def html_chapters(dom, chapters, raw=False):
    """nn -> the chapter's HTML text (its markup if raw), from its heading's id to the next
    chapter or part."""
    out = {}
    for c in chapters:
        m = re.search(f'id="ch-{c["nn"]}"', dom)
        if not m:
            continue
        end = re.compile(r'id="(ch-\d\d|part-\d|summary|guideline-index|reproduce)"')
        e = end.search(dom, m.end())
        chunk = dom[m.start():e.start() if e else len(dom)]
        out[c["nn"]] = chunk if raw else html.unescape(re.sub(r"<[^>]*>", " ", chunk))
    return out


def check_sweep_chart(c, pdf_text, dom_chunk):
    """A chapter's sweep_chart is a numbered figure in both editions: its caption (which names
    the programs drawn and the knob, and mentions a dashed roof line exactly when one is drawn) in
    the PDF's text, and an <img> or <svg> in a <figure> with that caption in the HTML."""
    sc, nn = c["sweep_chart"], c["nn"]
    progs = sc["programs"]
    names = progs[0] if len(progs) == 1 else ", ".join(progs[:-1]) + " and " + progs[-1]
    what = (f"{sc['unit'] or 'median time (µs)'} of the {names} program{'s' if len(progs) > 1 else ''} "
            f"against --{sc['knob']}")
    sc = dict(sc, program=names)
    roofs = any(g["roof"] is not None for g in sc["series"])
    what = what[0].upper() + what[1:]  # the caption's first word
    m = re.search(rf"Figure{c['number']}\.\d+:{re.escape(squeeze(what))}"
                  r",perGPU([^.]*)\.", squeeze(pdf_text))
    check(m is not None, f"chapter {nn}: the sweep chart of {sc['program']} against --{sc['knob']} "
          f"is a figure in the PDF (caption \"Figure {c['number']}.N: {what}\")")
    if m:
        said = "dashed" in m.group(1)
        check(said == roofs, f"chapter {nn}: the sweep chart's caption "
              f"{'mentions' if said else 'does not mention'} a roof line, and the data has "
              f"{'a roof' if roofs else 'no roof'} to draw")
    figures = re.findall(r"<figure\b.*?</figure>", dom_chunk, re.S)
    shown = [f for f in figures if re.search(r"<(img|svg)\b", f) and squeeze(what) in
             squeeze(html.unescape(re.sub(r"<[^>]*>", " ", f.split("<figcaption", 1)[-1])))]
    check(len(shown) == 1, f"chapter {nn}: the sweep chart is an <img>/<svg> figure in the HTML "
          f"with its caption ({len(shown)} found)")


def f1(x):
    return None if x is None else f"{x:.1f}"


def speedup_text(x, bounds=()):
    """A speedup as the book prints it (book/book.lua speedup_md): 1.60, 23.6, 236; beside a
    prediction's range, with more digits while it would print as an end it is not (2.402)."""
    places = 0 if x >= 100 else 1 if x >= 10 else 2
    while places < 6 and any(b != x and f"{b:.{places}f}" == f"{x:.{places}f}" for b in bounds):
        places += 1
    return f"{x:.{places}f}"


def pdf_records(text, chapters):
    """nn -> the text of the chapter's full record in the PDF's appendix C (its sweep tables and
    every counter recorded), from its heading "Chapter NN. Title" to the next."""
    at = text.rfind("Appendix C. The full record")
    body = text[at:] if at >= 0 else ""
    heads = sorted((m.start(), nn) for nn, t in ((c["nn"], f"Chapter {c['nn']}. {c['title']}") for c in chapters)
                   for m in [re.search(re.escape(t), body)] if m)
    return {nn: body[s:(heads[k + 1][0] if k + 1 < len(heads) else len(body))]
            for k, (s, nn) in enumerate(heads)}


# A link to a section of the guide: the page and the section's anchor (book/guide-anchors.tsv).
GUIDE_LINK = re.compile(r"https://docs\.nvidia\.com/cuda/cuda-c-(programming|best-practices)-guide/index\.html#[a-z0-9-]+$")
SOURCE_URL = os.environ.get("BOOK_SOURCE_URL", "").rstrip("/")  # as book/book.lua reads it


def code_text(page):
    """The text of the first listing of an HTML page (tags dropped: highlighting, line anchors)."""
    m = re.search(r"<pre\b[^>]*>(.*?)</pre>", page, re.S)
    return html.unescape(re.sub(r"<[^>]*>", "", m.group(1))) if m else None


def check_chapters(data, pdf, urls, dom, site=None):
    """Each written chapter links the section of the guide it follows, by its anchor, in the PDF
    (its link annotations, by page) and the HTML; names its source files after their folder's path
    (PDF), links each file's page (HTML: SITE/chapters/NN-slug/FILE.html, which must hold the
    file's text; checked where SITE is given) and, with BOOK_SOURCE_URL set, the folder there
    (both); and ends with a Takeaway section."""
    written = [c for c in data["chapters"] if c["status"] == "written"]
    spans = pdf_chapters(pdf, written, spans=True)
    by_page = {}
    for line in urls.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0].isdigit():
            by_page.setdefault(int(f[0]) - 1, []).append(f[-1])
    texts, raws = pdf_chapters(pdf, written), html_chapters(dom, written, raw=True)
    lack = {"guide": [], "source": [], "pages": [], "takeaway": []}
    for c in written:
        nn, (s, e) = c["nn"], spans.get(c["nn"], (0, 0))
        pdf_urls = [u for p in range(s, e) for u in by_page.get(p, [])]
        raw = raws.get(nn, "")
        html_urls = [html.unescape(u) for u in re.findall(r'href="([^"]*)"', raw)]
        # pdftotext drops a hyphen that ends a line: compare without hyphens
        pdf_text = squeeze(texts.get(nn, "")).replace("-", "")
        for fmt, us in (("PDF", pdf_urls), ("HTML", html_urls)):
            if not any(GUIDE_LINK.match(u) and u == c["guide_url"] for u in us):
                lack["guide"].append(f"{nn} ({fmt})")
            src = (all(f"{c['folder']}/{f}.html" in us for f in c["sources"]) if fmt == "HTML" else
                   squeeze(f"{c['folder']}/:{', '.join(c['sources'])}").replace("-", "") in pdf_text)
            if not src or (SOURCE_URL and f"{SOURCE_URL}/{c['folder']}" not in us):
                lack["source"].append(f"{nn} ({fmt})")
        for f in c["sources"] if site else ():
            try:
                page = open(os.path.join(site, c["folder"], f + ".html"), encoding="utf-8").read()
            except OSError:
                lack["pages"].append(f"{nn} {f} (no page)")
                continue
            if code_text(page) != open(os.path.join(c["folder"], f), encoding="utf-8").read().rstrip("\n"):
                lack["pages"].append(f"{nn} {f} (text differs)")
        # The takeaway: a heading of its own, the chapter's last section.
        heads = re.findall(r"<h[3-6][^>]*>(.*?)</h[3-6]>", raw, re.S)
        last = re.sub(r"<[^>]*>", "", heads[-1]).strip() if heads else ""
        if last != "Takeaway" or "Takeaway" not in texts.get(nn, ""):
            lack["takeaway"].append(nn)
    check(not lack["guide"], "every chapter links the section of the guide it follows, by its anchor (PDF and HTML)" +
          (f"; missing in {lack['guide']}" if lack["guide"] else ""))
    check(not lack["source"], "every chapter names its source files (PDF) and links their pages (HTML)" +
          (f" and its folder at {SOURCE_URL}" if SOURCE_URL else "") +
          (f"; missing in {lack['source']}" if lack["source"] else ""))
    if site:
        n = sum(len(c["sources"]) for c in written)
        check(not lack["pages"], f"the HTML edition has a page for each of the chapters' {n} source files, "
              "holding the file's text" + (f"; missing in {lack['pages']}" if lack["pages"] else ""))
    check(not lack["takeaway"], "every chapter ends with its Takeaway section (PDF and HTML)" +
          (f"; missing in chapters {lack['takeaway']}" if lack["takeaway"] else ""))


def exercise_answers(data):
    """(exercise "15.3", setting "--stride 32", GPU short name, speedup text) for every exercise
    that asks for a setting a measurement covers (the README's Exercises, the sweep and default
    runs): what appendix D must show (book/book.lua instructor_blocks, computed here again)."""
    short = {g["slug"]: g["short"] for g in data["gpus"]}
    out = []
    for c in data["chapters"]:
        if c["status"] != "written":
            continue
        text = open(c["readme"], encoding="utf-8").read()
        m = re.search(r"\n## Exercises\n(.*?)(?=\n## |\Z)", text, re.S)
        runs = {}
        for g in c["results"]:
            for r in g["rows"]:
                runs.setdefault((g["gpu"], g.get("knobs") or ""), {}).setdefault(r["variant"], r["median_us"])
        for sw in c["sweeps"]:
            for r in sw["rows"]:
                runs.setdefault((sw["gpu"], r["knobs"]), {}).setdefault(r["variant"], r["median_us"])
        items = re.findall(r"^(\d+)\.\s+(.*?)(?=^\d+\.\s|\Z)", m.group(1) if m else "", re.S | re.M)
        for num, body in items:
            for knob, value in re.findall(r"--([A-Za-z][\w-]*)[\s=]+([\w.]+)", body):
                for (gpu, knobs), med in runs.items():
                    kv = dict(x.split("=", 1) for x in knobs.split(";") if "=" in x)
                    v = kv.get(knob)
                    if v is not None and (v == value or (re.fullmatch(r"[\d.]+", v) and re.fullmatch(r"[\d.]+", value)
                                                           and float(v) == float(value))):
                        if "naive" in med and "optimized" in med:
                            out.append((f"{c['number']}.{num}", f"--{knob} {value}", short.get(gpu, gpu),
                                        speedup_text(med["naive"] / med["optimized"])))
    return sorted(set(out))


def check_answers(data, pdf, dom):
    """Appendix D answers every exercise that asks for a measured setting, in both editions."""
    expected = exercise_answers(data)
    for fmt, text in (("PDF", pdf[pdf.rfind("Appendix D. For the instructor"):] if "Appendix D. For the instructor" in pdf else ""),
                      ("HTML", html.unescape(re.sub(r"<[^>]*>", " ", dom[dom.find('id="instructor"'):]))
                       if 'id="instructor"' in dom else "")):
        flat = squeeze(text).replace("-", "")
        # The HTML row by row; the PDF's text, where pdftotext may read a table column by column,
        # each exercise, setting and speedup present.
        missing = [f"{e} {s} {g}: {x}×" for e, s, g, x in expected
                   if not (re.search(re.escape(squeeze(f"{e}{s}").replace("-", "")) + ".{0,40}?" +
                                     re.escape(squeeze(g).replace("-", "")) + ".{0,60}?" + re.escape(f"{x}×"), flat)
                           if fmt == "HTML" else all(squeeze(y).replace("-", "") in flat for y in (e, s, f"{x}×")))]
        check(expected and not missing, f"appendix D answers the {len(expected)} exercise settings measured, in the {fmt}"
              + (f"; missing {missing[:5]}" if missing else ""))


def read_urls(txt):
    try:
        return open(re.sub(r"\.txt$", "", txt) + ".urls", encoding="utf-8", errors="replace").read()
    except OSError:
        return ""


def appendices(paths):
    """Every "appendix X" a one-document HTML edition (book.html, or an EPUB's pages together)
    names is an appendix it has: a heading "Appendix X." in the same document."""
    import zipfile
    for path in paths:
        if path.endswith(".epub"):
            with zipfile.ZipFile(path) as z:
                doc = "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist()
                                if n.endswith((".xhtml", ".html")))
        else:
            doc = open(path, encoding="utf-8", errors="replace").read()
        have = set(re.findall(r"<h\d[^>]*>(?:\s|<[^>]+>)*Appendix ([A-Z])\.", doc))
        text = html.unescape(re.sub(r"<[^>]+>", " ", doc))
        named = sorted({m.group(0) for m in re.finditer(r"\b[Aa]ppendix ([A-Z])\b", text) if m.group(1) not in have})
        check(bool(have) and not named, f"{os.path.basename(path)} names no appendix it lacks (it has "
              f"{', '.join(sorted(have)) or 'none'}" + (f"; named: {', '.join(named)})" if named else ")"))
    return 1 if failed else 0


def main(argv):
    if argv[:1] == ["appendices"] and len(argv) > 1:
        return appendices(argv[1:])
    if argv[:1] == ["chapters"] and len(argv) in (4, 5):
        data, pdf = json.load(open(argv[1])), open(argv[2], encoding="utf-8", errors="replace").read()
        dom = read_site(argv[3])[1]
        check_chapters(data, pdf, read_urls(argv[2]), dom, argv[4] if len(argv) == 5 else None)
        check_answers(data, pdf, dom)
        return 1 if failed else 0
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        data = json.load(open(argv[0]))
        pdf = open(argv[1], encoding="utf-8", errors="replace").read()
        pages, dom = read_site(argv[2])
        one_page = open(argv[4], encoding="utf-8", errors="replace").read() if len(argv) == 5 else None
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not pages:
        print(f"error: no rendered pages in {argv[2]}", file=sys.stderr)
        return 2
    written = [c for c in data["chapters"] if c["status"] == "written"]
    texts = {"pdf": pdf_chapters(pdf, written), "html": html_chapters(dom, written),
             "html_raw": html_chapters(dom, written, raw=True)}
    for c in written:
        for fmt in ("pdf", "html"):
            check(c["nn"] in texts[fmt], f"chapter {c['nn']} \"{c['title']}\" is in the {fmt.upper()}")
    # A generated marker the writer did not take as a comment shows its query as text.
    for fmt in ("pdf", "html"):
        shown = [nn for nn, text in texts[fmt].items() if "<!--" in text or "-->" in text]
        check(not shown, f"no HTML comment marker is printed in the {fmt.upper()}"
              + (f" (chapters {', '.join(shown)})" if shown else ""))
    records = pdf_records(pdf, written)
    short = {g["slug"]: g["short"] for g in data["gpus"]}
    for c in written:
        nn, pdf_text = c["nn"], texts["pdf"].get(c["nn"], "")
        # Listings: numbered in README order; label, first code line and all lines shown.
        listings = [b for b in c["blocks"] if b["kind"] in ("listing", "diff")]
        for k, b in enumerate(listings, start=1):
            label, lid = f"Listing {c['number']}.{k}:", f"lst-{nn}-{k}"
            check(label in pdf_text, f"\"{label}\" ({b['kind']}: {b['args']}) is in chapter {nn} of the PDF")
            code = [l for l in (b.get("code") or "").split("\n") if l.strip()]
            if b["kind"] == "listing":
                check(bool(code), f"listing {lid} ({b['args']}) is not empty")
                check(squeeze(code[0])[:40] in squeeze(pdf_text) if code else False,
                      f"listing {lid} shows the first line of {b['file']} [{b['marker']}] in the PDF")
                m = re.search(f'id="{lid}".*?<pre[^>]*>(.*?)</pre>', dom, re.S)
                shown = len(re.findall(r'class="sourceLine"|<span id="cb\d+-\d+"', m.group(1))) if m else 0
                check(shown == len(b["code"].strip("\n").split("\n")),
                      f"listing {lid} has all {len(b['code'].strip(chr(10)).split(chr(10)))} lines of "
                      f"{b['file']} [{b['marker']}] in the HTML ({shown})")
        # Results: every row's numbers in its chapter, fresh, passing.
        if not c["results"]:
            check("Not measured yet" in pdf_text, f"chapter {nn} has no results and says \"not measured yet\"")
        for g in c["results"]:
            for r in g["rows"]:
                where = f"{g['file']}:{r['line']} (chapter {nn} {r['variant']})"
                if not r["stale"] or STRICT:
                    check(not r["stale"], f"{where} is fresh" if not r["stale"] else
                          f"{where} is stale: measured from sources hashed {r['source_hash']}, now "
                          f"{c['source_hash']}; run make results CHAPTERS={nn}")
                if r["stale"]:
                    check("STALE" in pdf_text, f"the book marks chapter {nn}'s stale row")
                check(r["check"] == "pass", f"{where} passed its correctness check")
                nums = [f1(r["median_us"]), f1(r["noise_pct"]),
                        speedup_text(r["speedup"]) if r["speedup"] is not None else None]
                if g["unit"]:
                    nums += [f1(r["rate"]), f1(r["pct_roof"])]
                for fmt in ("pdf", "html"):
                    text = texts[fmt].get(nn, "")
                    missing = [x for x in nums if x and not re.search(rf"(?<![\d.]){re.escape(x)}(?![\d])", text)]
                    check(not missing, f"{where}: its numbers are in the chapter ({fmt})" +
                          (f"; missing {' '.join(missing)}" if missing else ""))
        # A host-bound chapter names what its time depends on beyond the GPU, as each GPU's run
        # recorded it (book.host_figures), beside its results.
        for f in c.get("host_figures") or []:
            for fmt in ("pdf", "html"):
                text = " ".join(texts[fmt].get(nn, "").split())
                said = [f"{v['value']:.4g} {'µs' if f['unit'] == 'us' else f['unit']} on the {v['short'].split()[0]}"
                        for v in f["values"]]
                missing = [x for x in said if x not in text]
                check("What the host sets" in text and not missing, f"chapter {nn}: its {f['label']} as each GPU's run "
                      f"recorded it is beside its results ({fmt})" + (f"; missing {missing}" if missing else ""))
        if c.get("sweep_chart"):
            check_sweep_chart(c, pdf_text, texts["html_raw"].get(nn, ""))
        # Verdicts and evidence, from the README's evidence block (results.py renders it).
        hint = " (does its README have an <!-- evidence --> block?)"
        for slug, v in (c["prediction"] or {}).get("verdicts", {}).items():
            shown = speedup_text(v["speedup"], c["prediction"]["speedup"]) if v["speedup"] is not None else ""
            said = f"{shown}× on the {short[slug]} ({v['verdict']})" if shown else v["verdict"]
            check(squeeze(said) in squeeze(pdf_text), f"chapter {nn}: the prediction on {slug} "
                  f"({said}) is in the PDF" + ("" if squeeze(said) in squeeze(pdf_text) else hint))
        for claim in c["claims"]:
            for slug, v in claim["verdicts"].items():
                # pdftotext drops a hyphen that ends a line: compare without hyphens
                said = squeeze(claim["id"]).replace("-", "") in squeeze(pdf_text).replace("-", "")
                check(said and v["verdict"] in pdf_text,
                      f"chapter {nn}: claim {claim['id']} and its verdict on {slug} ({v['verdict']}) are in the PDF"
                      + ("" if said else hint))
        # Every counter recorded: in the chapter's full record (the PDF's appendix C).
        record = squeeze(records.get(nn, ""))
        for e in c["evidence"]:
            missing = [m["metric"] for m in e["metrics"] if squeeze(m["metric"]) not in record]
            check(not missing, f"chapter {nn}: the {len(e['metrics'])} counters recorded on {e['gpu']} are in its "
                  f"record in the PDF's appendix C" + (f"; missing {missing[:5]}" if missing else ""))
    # Summary, guideline index, links, staleness of everything.
    summary = pdf[pdf.rfind("Summary: every speedup"):]  # the heading, not the contents
    predicted = {c["nn"]: (c["prediction"] or {}).get("speedup") or () for c in data["chapters"]}
    for s in data["summary"]:
        for slug, x in s["speedups"].items():
            shown = speedup_text(x["speedup"], predicted.get(s["nn"], ()))
            check(f"{shown}×" in summary, f"the summary shows chapter {s['nn']} on {slug} ({shown}×)")
    rows = data["guidelines"]["rows"]
    check(len(rows) == 50, f"the guideline index maps all 50 recommendations ({len(rows)})")
    missing = [g["id"] for g in rows if g["id"] not in pdf]
    check(not missing, "every recommendation is in the PDF's appendix" + (f"; missing {missing}" if missing else ""))
    check_chapters(data, pdf, read_urls(argv[1]), dom, argv[3])
    check_answers(data, pdf, dom)
    check_links(pages, argv[3], f"HTML edition's {len(pages)} pages")
    if one_page is not None:
        check_links({"book.html": one_page}, None, "one-page book.html")
    changed = {}
    for s in data["stale"]:
        if STRICT:
            check(False, f"{s['file']}:{s['line']}: chapter {s['chapter']} {s['program']} ({s['kind']}) is stale")
        else:
            changed.setdefault(s["chapter"], []).append(s["kind"])
    for nn, kinds in changed.items():
        print(f"WARNING: chapter {nn} changed since it was measured: {len(kinds)} stale row(s) "
              f"({', '.join(sorted(set(kinds)))}), marked STALE in the book; re-measure it on a GPU "
              f"(make results CHAPTERS={nn}, make evidence CHAPTERS={nn}); with CI=true this fails")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
