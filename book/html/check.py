#!/usr/bin/env python3
"""book/html/check.py: check the HTML edition's layout in headless Chromium.

    check.py SITE [--pages a.html,b.html] [--dom DIR] [--widths 390,1280] [--no-search]

SITE is the built site (book/out/html). Every page (or only --pages) is loaded at each width
(390 px: a phone, 1280 px: a laptop) and measured by book/html/probe.js; this script judges the
measurements and prints one PASS: or FAIL: line per assertion (book/check.sh counts them):

  - no page scrolls sideways (document.scrollingElement.scrollWidth <= clientWidth);
  - at 390 px a chart or a table fits its column whole (charts have a phone edition,
    NAME-phone.svg, shown below 600 px; tables of five columns or more become a card per row);
    a table wider than its column scrolls in its box, its caption wrapped to the box;
  - no listing, table or chart is clipped: content that overflows its box must be inside a box
    that scrolls, not cut off by one that hides it or by the page's edge;
  - every chart's smallest text is at least 11 px as rendered (its SVG's smallest font-size
    times the rendered width over the viewBox width), of the edition shown (a phone's); its
    texts lie inside its canvas and no two of them touch;
  - code lines are each at least a line high and never overlap (so the line numbers do not), and
    a wrapped code line continues no further left than its own first character (an indentation
    deeper than 40% of the line's width need only be kept to 40%);
  - every page has the sidebar (in view while scrolling at 1280 px; folded behind a button that
    unfolds it at 390 px) and previous/next links that follow the sidebar's order;
  - every listing has a copy button; no page logs an error or loads anything from the network,
    or names an appendix the site lacks;
  - searching for each section's heading or first words finds it, and a search hit opens its
    page with the words marked (the first in view);
  - the arrow keys open the previous and next page, and the theme button turns a page dark and
    back (kept on the next page).

--dom DIR writes every page's rendered DOM at the widest width to DIR (for book/check_book.py).
Exit status 1 if anything failed, 2 if it could not run. Standard library only."""

import argparse
import html
import json
import os
import re
import sys
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from svgtext import MIN_TEXT_PX, svg_text_size  # noqa: E402

failed = 0
TEXT_GAP = 2  # chart units: how far apart two texts of a chart must stay


def check(ok, what, details=()):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        for d in list(details)[:12]:
            print("    " + d)
        failed += 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sites", nargs="+")
    ap.add_argument("--pages", default="")
    ap.add_argument("--dom")
    ap.add_argument("--widths", default="390,1280")
    ap.add_argument("--no-search", action="store_true")
    ap.add_argument("--no-keys", action="store_true", help="skip the arrow-key and theme-button checks")
    args = ap.parse_args(argv)
    probe = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe.js")).read()
    with cdp.Browser() as browser:
        for site in args.sites:
            label = f"[{os.path.basename(os.path.normpath(site))}] " if len(args.sites) > 1 else ""
            check_site(browser, probe, os.path.abspath(site), args, label)
    return 1 if failed else 0


def check_site(browser, probe, site, args, label):
    def check_(ok, what, details=()):
        check(ok, label + what, details)
    if not os.path.isfile(os.path.join(site, "index.html")):
        check_(False, f"{site}/index.html exists")
        return
    widths = [int(w) for w in args.widths.split(",")]
    url = lambda page: "file://" + urllib.parse.quote(os.path.join(site, page))  # noqa: E731
    if args.dom:
        os.makedirs(args.dom, exist_ok=True)
    # The reading order: the sidebar's pages as the front page lists them.
    tab = browser.tab(1280, 900)
    tab.goto(url("index.html"))
    order = tab.eval(probe)["toc"]
    tab.close()
    files = sorted(f for f in os.listdir(site) if f.endswith(".html"))
    check_(bool(order) and sorted(set(order) | {"search.html"}) == files,
          f"the sidebar lists every page of the site once ({len(order)} pages besides search.html)",
          [f"not in the sidebar: {sorted(set(files) - set(order) - {'search.html'})}",
           f"in the sidebar, not in the site: {sorted(set(order) - set(files))}"]
          if order else ["index.html has no sidebar"])
    pages = [p for p in args.pages.split(",") if p] or order
    # No text names an appendix the edition lacks (the PDF's appendices are not all the site's).
    text = lambda f: html.unescape(re.sub(r"<[^>]+>", " ", open(os.path.join(site, f), encoding="utf-8").read()))  # noqa: E731
    have = {m for f in files for m in re.findall(r"<h1[^>]*>\s*Appendix ([A-Z])\.", open(os.path.join(site, f), encoding="utf-8").read())}
    named = [f"{p}: \"{m.group(0)}\"" for p in pages for m in re.finditer(r"\b[Aa]ppendix ([A-Z])\b", text(p)) if m.group(1) not in have]
    check_(bool(have) and not named, f"no page names an appendix the HTML edition lacks (it has {', '.join(sorted(have))})",
           named or ["no appendix heading in the site"])
    headings = {}
    boxes_js = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "svgboxes.js")).read()
    crowded_seen = {}

    def crowded(src):
        """What is wrong with a chart's text as drawn: text past the canvas's edge, or two texts that
        touch (less than TEXT_GAP units apart side by side where they share more than TEXT_GAP
        units of height): tick labels run together, a key over a label. Rooflines are left out:
        their point labels are placed, and judged, by their own rule (book/check_pdf.py)."""
        if src in crowded_seen:
            return crowded_seen[src]
        bad = []
        if not os.path.basename(src).startswith("roofline-") and src.endswith(".svg"):
            t = browser.tab(1200, 1000)
            t.goto(url(src))
            m = t.eval(boxes_js)
            t.close()
            texts, w, h = m["texts"], m["width"], m["height"]
            for i, a in enumerate(texts):
                x0, y0, x1, y1 = a["box"]
                if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
                    bad.append(f"\"{a['text']}\" reaches past the edge of its {w:g} x {h:g} canvas "
                               f"({x0:.0f}..{x1:.0f}, {y0:.0f}..{y1:.0f})")
                for b in texts[i + 1:]:
                    ox = min(x1, b["box"][2]) - max(x0, b["box"][0])
                    oy = min(y1, b["box"][3]) - max(y0, b["box"][1])
                    if ox > -TEXT_GAP and oy > TEXT_GAP:
                        bad.append(f"\"{a['text']}\" and \"{b['text']}\" " +
                                   (f"overlap by {ox:.1f} units" if ox > 0 else f"are {-ox:.1f} units apart"))
        crowded_seen[src] = bad
        return bad
    for width in widths:
        phone = width < 600
        tab = browser.tab(width, 844 if phone else 900, mobile=phone)
        sideways, clipped, small, overlaps, unindented, side, pager, copy, errors, unfit, wide, cut, packed = ([] for _ in range(13))
        n_charts = n_lines = n_wrapped = n_blocks = 0
        smallest = None
        kinds = {"pre": 0, "table": 0, "img": 0}
        for page in pages:
            problems = tab.goto(url(page))
            m = tab.eval(probe)
            if args.dom and width == max(widths):
                dom = tab.eval("document.documentElement.outerHTML")
                with open(os.path.join(args.dom, page), "w", encoding="utf-8") as f:
                    f.write(dom)
            if width == max(widths):
                headings[page] = m["headings"]
            errors += [f"{page}: {p}" for p in problems]
            if m["scrollWidth"] > m["clientWidth"]:
                sideways.append(f"{page}: {m['scrollWidth']} px wide in a {m['clientWidth']} px window")
            clipped += [f"{page}: {c}" for c in m["clipped"]]
            cut += [f"{page}: {c}" for c in m["captionsCut"]]
            for k in kinds:
                kinds[k] += m["counts"].get(k, 0)
            if phone:
                wide += [f"{page}: {t}" for t in m.get("tablesScroll", [])]
            for c in m["charts"]:
                n_charts += 1
                if phone and c.get("scrolls"):
                    unfit.append(f"{page}: {c['src']} ({c['where']}) scrolls sideways in its box")
                packed += [f"{page}: {c['src']}: {p}" for p in crowded(urllib.parse.unquote(c["src"]))]
                svg = svg_text_size(os.path.join(site, urllib.parse.unquote(c["src"])))
                if svg is None:
                    small.append(f"{page}: {c['src']} is not an SVG with a viewBox and font sizes")
                    continue
                px = svg[2] * min(c["width"] / svg[0], c["height"] / svg[1])
                smallest = px if smallest is None else min(smallest, px)
                if px < MIN_TEXT_PX:
                    small.append(f"{page}: {c['src']}: its {svg[2]:g}-unit text is {px:.1f} px "
                                 f"({c['width']:.0f} px wide for a {svg[0]:g}-unit viewBox)")
            n_lines += m["lines"]
            n_wrapped += m["wrapped"]
            overlaps += [f"{page}: {o}" for o in m["overlaps"]]
            unindented += [f"{page}: {u}" for u in m["unindented"]]
            n_blocks += m["copy"]["blocks"]
            if m["copy"]["buttons"] != m["copy"]["blocks"]:
                copy.append(f"{page}: {m['copy']['buttons']} copy buttons for {m['copy']['blocks']} listings")
            s = m["sidebar"]
            if not s["present"] or s["links"] < len(order):
                side.append(f"{page}: no sidebar with the contents ({s['links']} links)")
            elif phone and not (s["toggleShown"] and not s["shown"] and s.get("unfolds") and s.get("foldsAgain")):
                side.append(f"{page}: the sidebar is not folded behind a button that unfolds it "
                            f"({ {k: s.get(k) for k in ('shown', 'toggleShown', 'unfolds', 'foldsAgain')} })")
            elif not phone and not (s["shown"] and s["inView"] and s["inViewAtEnd"]):
                side.append(f"{page}: the sidebar is not in view all the way down "
                            f"({ {k: s.get(k) for k in ('shown', 'inView', 'inViewAtEnd')} })")
            k = order.index(page) if page in order else -1
            want = {"prev": order[k - 1] if k > 0 else None,
                    "next": order[k + 1] if 0 <= k < len(order) - 1 else None}
            if page != "search.html":
                for where in ("top", "bottom"):
                    got = m["pager"].get(where)
                    if not got or not got["shown"]:
                        pager.append(f"{page}: no {where} previous/next links")
                    elif got["prev"] != want["prev"] or got["next"] != want["next"]:
                        pager.append(f"{page}: {where} links go to {got['prev']} and {got['next']}, "
                                     f"not {want['prev']} and {want['next']}")
        tab.close()
        at = f"at {width} px"
        n = len(pages)
        check_(not sideways, f"{at}, no page scrolls sideways ({n} pages)", sideways)
        check_(not clipped, f"{at}, no listing, table or chart is clipped ({kinds['pre']} listings, "
              f"{kinds['table']} tables, {kinds['img']} charts on {n} pages)", clipped)
        check_(not packed and n_charts > 0, f"{at}, every chart's text lies inside its canvas and no two of its "
               f"texts touch (tick labels, key, labels; {n_charts} charts)", sorted(set(packed)) or ["no chart on these pages"])
        check_(not cut, f"{at}, a table wider than its column scrolls in its box with its caption wrapped to the "
               "box, not cut at its edge (collapsed sections opened)", cut)
        check_(not small and n_charts > 0,
              f"{at}, every chart's smallest text is at least {MIN_TEXT_PX} px ({n_charts} charts"
              + (f", smallest {smallest:.1f} px)" if smallest else ")"), small or ["no chart on these pages"])
        if phone:
            check_(not wide, f"{at}, every table fits the column whole, without scrolling "
                  f"({kinds['table']} tables" + (f", {len(wide)} do not)" if wide else ")"), wide)
            check_(not unfit and n_charts > 0, f"{at}, every chart fits the column whole, without scrolling "
                  f"({n_charts} charts)", unfit or ["no chart on these pages"])
        check_(not overlaps and n_lines > 0, f"{at}, no code line overlaps the one before it, so no "
              f"line numbers overlap ({n_lines} lines)", overlaps or ["no code lines on these pages"])
        if phone:
            check_(not unindented and n_wrapped > 0, f"{at}, every wrapped code line keeps its indentation "
                  f"({n_wrapped} wrapped lines)",
                  unindented or ["no code line wraps on these pages"])
        check_(not side, f"{at}, every page has the sidebar of contents"
              + (", folded behind a button that unfolds it" if phone else ", in view all the way down"), side)
        check_(not pager, f"{at}, every page has previous and next links, top and bottom, in the "
              "sidebar's order", pager)
        if width == max(widths):
            check_(not copy, f"every listing has a copy button ({n_blocks} listings)", copy)
        check_(not errors, f"{at}, no page logs an error or loads anything from the network", errors)

    # The arrow keys turn pages; the theme button overrides the system's setting, on every page.
    mid = None if args.no_keys else next((p for p in pages if p in order and 0 < order.index(p) < len(order) - 1), None)
    if mid:
        k = order.index(mid)
        tab = browser.tab(1280, 900)
        turned = {}
        for key, want in (("ArrowRight", order[k + 1]), ("ArrowLeft", order[k - 1])):
            tab.goto(url(mid))
            tab.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": key, "code": key,
                                                "windowsVirtualKeyCode": 39 if key == "ArrowRight" else 37})
            try:  # the key's page, if it opens one
                tab.browser.wait_event("Page.loadEventFired", tab.session, timeout=3)
            except cdp.CDPError:
                pass
            turned[key] = (tab.eval("location.pathname.split('/').pop()"), want)
        bad = [f"{key} on {mid} went to {g}, not {w}" for key, (g, w) in turned.items() if g != w]
        check_(not bad, f"the left and right arrow keys open the previous and the next page ({mid})", bad)
        bg = "getComputedStyle(document.body).backgroundColor"
        tab.goto(url(mid))
        tab.eval("localStorage.removeItem('book-theme')")
        tab.goto(url(mid))
        system = tab.eval(bg)
        seen = []
        for _ in range(3):  # system -> light -> dark -> system
            tab.eval("(b => b && b.click())([...document.querySelectorAll('.theme-toggle')].find(b => b.offsetParent))")
            seen.append((tab.eval("document.documentElement.dataset.theme || 'system'"), tab.eval(bg)))
            if seen[-1][0] == "dark":
                tab.goto(url(order[k + 1]))
                seen.append(("dark on the next page", tab.eval(bg)))
                tab.goto(url(mid))
        tab.close()
        names = [s[0] for s in seen]
        dark = dict(seen).get("dark")
        ok = (names == ["light", "dark", "dark on the next page", "system"] and dark != system
              and dict(seen).get("light") == system and dict(seen).get("dark on the next page") == dark
              and dict(seen).get("system") == system)
        check_(ok, f"the theme button turns the page dark and back, kept on the next page (system {system}, dark {dark})",
               [f"{seen}"])
    if not args.no_search:
        tab = browser.tab(1280, 900)
        problems = tab.goto(url("search.html") + "?q=shared+memory")
        hits = tab.eval("Array.from(document.querySelectorAll('#search-results a.search-hit'))"
                        ".map(a => a.getAttribute('href'))")
        bad = [h for h in hits if not os.path.isfile(os.path.join(site, re.split(r"[?#]", h)[0]))]
        check_(not problems and len(hits) > 0 and not bad,
              f"the search page lists sections for \"shared memory\" ({len(hits)} results, each a page of the book)",
              problems + [f"{h} is not a page" for h in bad] + ([] if hits else ["no results"]))
        # The first hit opens its page with the words marked, the first of them in view.
        got = {}
        if hits:
            tab.goto(urllib.parse.urljoin(url("search.html"), hits[0]))
            got = tab.eval("(() => { const m = document.querySelectorAll('mark.search-mark'); const r = m[0] && "
                           "m[0].getBoundingClientRect(); return {n: m.length, text: m[0] ? m[0].textContent : '', "
                           "inView: !!r && r.top >= 0 && r.bottom <= innerHeight}; })()") or {}
        check_(got.get("n", 0) > 0 and got.get("inView") and got.get("text", "").lower() in ("shared", "memory"),
               f"a search hit opens its page with the words marked, the first in view ({got.get('n', 0)} marked on "
               f"{hits[0] if hits else 'no hit'})", [f"marks: {got}"])
        tab.goto(url("search.html"))
        # Every section, searched for by its heading and by the first words of its text, is found.
        queries = [(page, h[0], q) for page, hs in headings.items() for h in hs for q in h[1:] if q]
        found = tab.eval("(" + json.dumps([q[2] for q in queries]) + ").map(q => (window.bookSearch ? "
                         "window.bookSearch(q) : []).map(r => r.href))") or []
        tab.close()
        missing = []
        for (page, sid, text), hrefs in zip(queries, found):
            if not any(h == page or h == f"{page}#{sid}" for h in hrefs):
                missing.append(f"{page}#{sid} for \"{text}\"")
        chapters = sorted({q[0] for q in queries if q[0].startswith("ch-")})
        check_(bool(queries) and len(found) == len(queries) and not missing,
               f"search finds every section by its heading and by the first words of its text "
               f"({len(queries)} searches, {len({q[:2] for q in queries})} sections on {len(headings)} "
               f"pages, {len(chapters)} of them chapters)",
               missing or ["window.bookSearch did not answer"])


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except cdp.CDPError as e:
        print(f"FAIL: headless Chromium: {e}")
        sys.exit(2)
