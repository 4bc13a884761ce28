#!/usr/bin/env bash
# book/check.sh: build the book (`make book`: nothing is done again if it is built) and check what
# came out. Prints one PASS: or FAIL: line per assertion (and a WARNING: line per chapter changed
# since it was measured, outside CI), ends with "N passed, N failed", exits non-zero if anything failed.
#   RESULTS_DIR  results files to build from (default results)
#   BOOK_OUT     where the book goes (default book/out); the check's own files go to $BOOK_OUT/check
# Five independent sections run side by side, each into its own file under $CHK/out, printed in
# this order once all are done: (2) the text of both editions against the data the book was built
# from ($BOOK_OUT/data.json, `scripts/results.py book-json`, by book/check_book.py: every chapter,
# listing, results row, verdict and evidence metric in its chapter, every internal link resolving)
# after the HTML edition's layout in headless Chromium at 390 and 1280 px (book/html/check.py);
# (3) pictures to look at (PDF pages by pdftoppm, HTML pages by Chromium); (4) the PDF's layout and
# typography (book/check_pdf.py), each check also run on a planted fault; (5) that the build does
# fail on a missing marker or file, a broken link and a missing results row, and marks a stale row
# (a warning for a person, a failure in CI) whose note and table still fit the page; (6) each HTML layout check fails on a copy of the site
# with a defect planted for it. Section 5 needs only the data: it starts beside the rest of the build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

RESULTS_DIR=${RESULTS_DIR:-results}
OUT=${BOOK_OUT:-book/out}
CHK=$OUT/check
DATA=$OUT/data.json
url() { case "$1" in /*) echo "file://$1" ;; *) echo "file://$PWD/$1" ;; esac; }
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
note() { echo "NOTE: $*"; }
section() { # NAME FUNCTION: run FUNCTION in the background, its output into $CHK/out/NAME
    "$2" >"$CHK/out/$1" 2>&1 &
}
finish() { # wait for the sections; print their files in order (by name) and count their lines
    wait
    cat "$CHK"/out/*
    local p f
    p=$(cat "$CHK"/out/* | grep -c '^PASS: '); f=$(cat "$CHK"/out/* | grep -c '^FAIL: ')
    echo "$p passed, $f failed"
    [ "$f" -eq 0 ]; exit $?
}
rm -rf "$CHK"
mkdir -p "$CHK/out"

# --- 1. Build: `make book`, its data first; the other sections start once what they read is built
make_book() { # TARGET: make it (nothing to do if it is built), its output into $CHK/build.log
    make --no-print-directory "$1" RESULTS_DIR="$RESULTS_DIR" BOOK_OUT="$OUT" >>"$CHK/build.log" 2>&1 && return
    fail "make book failed:"
    sed 's/^/    /' "$CHK/build.log"
    return 1
}
tools() {
missing=()
for tool in pdftotext pdftoppm pdffonts chromium python3; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    fail "the book check needs ${missing[*]}; install with: sudo make deps"
    return 1
fi
}
build() {
make_book book || return 1
pass "make book builds"
# Built already: `make book` again rebuilds nothing and still says where the book is.
local again
again=$(make --no-print-directory book RESULTS_DIR="$RESULTS_DIR" BOOK_OUT="$OUT" 2>&1)
if grep -q "$OUT/book.pdf" <<<"$again" && grep -q "$OUT/html/index.html" <<<"$again"; then
    pass "make book with nothing to rebuild says where the book is"
else
    fail "make book with nothing to rebuild does not name $OUT/book.pdf and $OUT/html/index.html: $again"
fi
for f in book.pdf book.html book.epub html/index.html html/search-index.js; do
    if [ -s "$OUT/$f" ]; then pass "$OUT/$f exists"; else fail "$OUT/$f is missing or empty"; fi
done
}

# --- 2. Both editions against the data ---------------------------------------------------------
text_checks() {
# --- HTML edition: layout in headless Chromium -------------------------------------------------
# book/html/check.py loads every page of the site at 390 px and 1280 px (PASS:/FAIL: lines; see
# its header) and leaves each page's rendered DOM in $CHK/dom for book/check_book.py.
python3 book/html/check.py "$OUT/html" --dom "$CHK/dom" >"$CHK/layout.log" 2>&1
cat "$CHK/layout.log"
grep -qE '^(PASS|FAIL): ' "$CHK/layout.log" || fail "book/html/check.py checked nothing: $(tail -n 1 "$CHK/layout.log")"
if grep -Eiq '<(script|link|img)[^>]+(src|href)="(https?:)?//' "$OUT/book.html"; then
    fail "book.html loads something from the network; it must be self-contained"
else
    pass "book.html is self-contained (no external scripts, styles or images)"
fi
# The one-page book.html and the EPUB name no appendix they lack (the PDF's appendix C is not
# theirs; book/html/check.py checks the site's pages). Planted: book.html with a figure caption
# pointing to appendix C, as Figure 10.1's did.
python3 book/check_book.py appendices "$OUT/book.html" "$OUT/book.epub"
sed '0,/<\/figcaption>/s//(the full record is in appendix C)<\/figcaption>/' "$OUT/book.html" >"$CHK/planted-appendix.html"
if python3 book/check_book.py appendices "$CHK/planted-appendix.html" >"$CHK/planted-appendix.log" 2>&1; then
    fail "the appendix check does not fail on book.html with a caption naming appendix C:"; sed 's/^/    /' "$CHK/planted-appendix.log"
else
    pass "the appendix check fails on book.html with a caption naming appendix C (\"$(grep -m 1 '^FAIL: ' "$CHK/planted-appendix.log" | cut -c7-200)\")"
fi
# --- end of the HTML layout block ---
python3 book/check_book.py "$DATA" "$CHK/book.txt" "$CHK/dom" "$OUT/html" "$OUT/book.html" >"$CHK/text.log" 2>&1
cat "$CHK/text.log"
grep -qE '^(PASS|FAIL): ' "$CHK/text.log" || fail "book/check_book.py checked nothing: $(tail -n 1 "$CHK/text.log")"
# Planted: chapter 15 without its links (the PDF's annotations on its pages, the HTML's div, the
# folder's name) and without its Takeaway heading; each of the three checks must fail.
local p=$CHK/planted-chapter
mkdir -p "$p/dom" && cp "$CHK"/dom/*.html "$p/dom/" && python3 - "$DATA" "$CHK/book" "$p" <<'PY'
import json, re, sys
sys.path.insert(0, "book")
import check_book as cb
data, book, p = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
c = next(c for c in data["chapters"] if c["nn"] == "15")
pages = open(book + ".txt", encoding="utf-8").read().split("\f")
s, e = cb.pdf_chapters("\f".join(pages), data["chapters"], spans=True)["15"]
for i in range(s, e):
    pages[i] = pages[i].replace("Takeaway", "Summing up").replace(c["folder"].split("-")[0], "elsewhere")
open(p + "/book.txt", "w", encoding="utf-8").write("\f".join(pages))
urls = [l for l in open(book + ".urls").read().splitlines() if not (l.split()[:1] and l.split()[0].isdigit()
        and s < int(l.split()[0]) <= e)]
open(p + "/book.urls", "w").write("\n".join(urls) + "\n")
dom = open(p + "/dom/ch-15.html", encoding="utf-8").read()
dom = re.sub(r'<div class="chapter-links">.*?</div>', "", dom, flags=re.S)
dom = re.sub(r"(<h[3-6][^>]*>)Takeaway", r"\1Summing up", dom)
open(p + "/dom/ch-15.html", "w", encoding="utf-8").write(dom)
PY
python3 book/check_book.py chapters "$DATA" "$p/book.txt" "$p/dom" >"$p/log" 2>&1
if [ "$(grep -cE "^FAIL: .*missing in (chapters )?\['15[^,]*'(, '15 [^,]*')?\]$" "$p/log")" -eq 3 ] &&
   [ "$(grep -c '^FAIL: ' "$p/log")" -eq 3 ]; then
    pass "the guide-link, source-link and takeaway checks each fail on chapter 15 with them removed"
else
    fail "the chapter link and takeaway checks do not all fail on chapter 15 with them removed:"; sed 's/^/    /' "$p/log"
fi
# Planted: chapter 15's guide links without their anchor (the front page, PDF and HTML), and a copy
# of the site without its naive.cu page and with optimized.cu's first line cut; the guide-anchor check and
# the source-page check must each fail, on chapter 15 alone.
local g=$CHK/planted-links
mkdir -p "$g/dom" && cp "$CHK"/dom/*.html "$g/dom/" && cp "$CHK/book.txt" "$g/" && cp -r "$OUT/html" "$g/site" &&
    python3 - "$DATA" "$CHK/book" "$g" <<'PY'
import json, os, re, sys
sys.path.insert(0, "book")
import check_book as cb
data, book, g = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
c = next(c for c in data["chapters"] if c["nn"] == "15")
s, e = cb.pdf_chapters(open(book + ".txt", encoding="utf-8").read(), data["chapters"], spans=True)["15"]
bare = lambda t: t.replace(c["guide_url"], c["guide_url"].split("#")[0])
urls = [bare(l) if l.split()[:1] and l.split()[0].isdigit() and s < int(l.split()[0]) <= e else l
        for l in open(book + ".urls").read().splitlines()]
open(g + "/book.urls", "w").write("\n".join(urls) + "\n")
dom = open(g + "/dom/ch-15.html", encoding="utf-8").read()
open(g + "/dom/ch-15.html", "w", encoding="utf-8").write(bare(dom))
os.remove(os.path.join(g, "site", c["folder"], "naive.cu.html"))
f = os.path.join(g, "site", c["folder"], "optimized.cu.html")
page = open(f, encoding="utf-8").read()
open(f, "w", encoding="utf-8").write(re.sub(r'<span id="cb\d+-1"[^\n]*\n', "", page, count=1))
PY
python3 book/check_book.py chapters "$DATA" "$g/book.txt" "$g/dom" "$g/site" >"$g/log" 2>&1
if grep -q "^FAIL: every chapter links the section of the guide .*missing in \['15 (PDF)', '15 (HTML)'\]$" "$g/log" &&
   grep -q "^FAIL: the HTML edition has a page for each .*missing in \['15 naive.cu (no page)', '15 optimized.cu (text differs)'\]$" "$g/log" &&
   [ "$(grep -c '^FAIL: ' "$g/log")" -eq 2 ]; then
    pass "the guide-anchor and source-page checks fail on chapter 15's links without their anchor and a site without one source page and another's first line"
else
    fail "the guide-anchor and source-page checks do not both fail on their planted faults:"; sed 's/^/    /' "$g/log"
fi
# Planted: appendix D with its first table removed (HTML) and cut after its first lines (PDF).
local a=$CHK/planted-answers
mkdir -p "$a/dom" && cp "$CHK"/dom/*.html "$a/dom/" && python3 - "$CHK/book.txt" "$a" <<'PY'
import glob, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
i = t.rfind("Appendix D. For the instructor")
open(sys.argv[2] + "/book.txt", "w", encoding="utf-8").write(t[:i + 400])
for f in glob.glob(sys.argv[2] + "/dom/*.html"):
    s = open(f, encoding="utf-8").read()
    if 'id="instructor"' in s:
        open(f, "w", encoding="utf-8").write(re.sub(r"<table\b.*?</table>", "", s, count=1, flags=re.S))
PY
python3 book/check_book.py chapters "$DATA" "$a/book.txt" "$a/dom" >"$a/log" 2>&1
if [ "$(grep -c '^FAIL: appendix D answers' "$a/log")" -eq 2 ]; then
    pass "the appendix D check fails on the appendix without its first table (HTML) and its tables (PDF)"
else
    fail "the appendix D check does not fail on the appendix without its tables:"; sed 's/^/    /' "$a/log"
fi
}

# --- 3. Pictures to look at ---------------------------------------------------------------------------------
pictures() {
if pdffonts "$OUT/book.pdf" 2>/dev/null | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }'; then
    pass "every font of the PDF is embedded"
else
    fail "the PDF has fonts that are not embedded"
fi
# PDF pages: the title page, the first chapter's first page, the summary.
first_title=$(python3 -c 'import json, sys
print(next("%s. %s" % (c["nn"], c["title"]) for c in json.load(open(sys.argv[1]))["chapters"] if c["status"] == "written"))' "$DATA" 2>/dev/null)
for spec in "title:1" "chapter:$(page_of "$first_title")" "summary:$(page_of 'Summary: every speedup at a glance')"; do
    name=${spec%%:*}; p=${spec#*:}
    [ -n "$p" ] || { fail "no page found for the $name"; continue; }
    pdftoppm -r 80 -png -f "$p" -l "$p" -singlefile "$OUT/book.pdf" "$CHK/pdf-$name" 2>/dev/null
    if [ "$(stat -c %s "$CHK/pdf-$name.png" 2>/dev/null || echo 0)" -gt 8000 ]; then
        pass "pdftoppm renders the $name page (page $p): $CHK/pdf-$name.png"
    else
        fail "pdftoppm could not render the $name page (page $p)"
    fi
done
# --- HTML edition: pictures -------------------------------------------------------------------
# The site on a phone (390 px), light and dark: the front page, and one chapter's results.
shot() { # NAME SCHEME(0 dark, 1 light) PAGE[#ID]
    local name=$1 scheme=$2 page=$3
    python3 book/html/cdp.py shoot "$(url "$OUT/html/$page")" "$CHK/$name.png" 390 1100 \
        "$([ "$scheme" = 0 ] && echo dark || echo light)" >/dev/null 2>&1
    if [ "$(stat -c %s "$CHK/$name.png" 2>/dev/null || echo 0)" -gt 10000 ]; then
        pass "Chromium screenshot $CHK/$name.png"
    else
        fail "Chromium screenshot $name is missing or blank"
    fi
}
shot phone-light 1 index.html
shot phone-dark 0 index.html
if [ -n "$first_ch" ] && grep -q "id=\"ch${first_ch}-results\"" "$OUT/html/ch-$first_ch.html" 2>/dev/null; then
    shot "phone-ch$first_ch-results-dark" 0 "ch-$first_ch.html#ch${first_ch}-results"
fi
# --- end of the HTML pictures block ---
}

# --- 4. The PDF's layout and typography (book/check_pdf.py) ------------------------------------
pdf_checks() {
# Each check runs on the book, then on a planted fault, on which it must fail.
pdf_check() { # NAME ARGS...: run a check_pdf.py check on the book, print its lines
    python3 book/check_pdf.py "$@" >"$CHK/pdf-$1.log" 2>&1
    cat "$CHK/pdf-$1.log"
    grep -qE '^(PASS|FAIL): ' "$CHK/pdf-$1.log" || fail "book/check_pdf.py $1 checked nothing: $(tail -n 1 "$CHK/pdf-$1.log")"
}
planted_pdf() { # WHAT NAME ARGS...: the check must FAIL on the planted fault
    local what=$1; shift
    python3 book/check_pdf.py "$@" >"$CHK/planted-$1.log" 2>&1
    if grep -q '^FAIL: ' "$CHK/planted-$1.log"; then
        pass "the $1 check fails on $what (\"$(grep -m 1 '^FAIL: ' "$CHK/planted-$1.log" | cut -c7-200)\")"
    else
        fail "the $1 check does not fail on $what:"; sed 's/^/    /' "$CHK/planted-$1.log"
    fi
}
# The book's text: no literal ^ exponent outside code and math (in the assembled document, which
# all three editions are written from); quotation marks facing the right way in the PDF.
pdf_check carets "$OUT/book.json"
# Every table and figure has a caption. Planted: the first table's caption emptied.
pdf_check captioned "$OUT/book.json"
python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
def plant(n):
    if isinstance(n, list): return any(plant(x) for x in n)
    if isinstance(n, dict):
        if n.get("t") == "Table":
            n["c"][1][1] = []; return True
        return plant(n.get("c", []))
    return False
plant(doc["blocks"]) and json.dump(doc, open(sys.argv[2], "w"))' "$OUT/book.json" "$CHK/book-bare.json" &&
    planted_pdf "a table whose caption was emptied" captioned "$CHK/book-bare.json"
# One unit style (×, µs, no e-notation) outside code. Planted: "2.5x", "12 us", "8.87e-08" and an
# inline value's "1.60" followed by "x" in the first paragraph.
pdf_check units "$OUT/book.json"
python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
para = next(b for b in doc["blocks"] if b["t"] == "Para")
sp = {"t": "Space"}
para["c"] += [sp, {"t": "Str", "c": "2.5x"}, sp, {"t": "Str", "c": "12"}, sp, {"t": "Str", "c": "us"}, sp, {"t": "Str", "c": "8.87e-08"}, sp, {"t": "Str", "c": "1.60"}, {"t": "Str", "c": "x"}]
json.dump(doc, open(sys.argv[2], "w"))' "$OUT/book.json" "$CHK/book-units.json" &&
    planted_pdf "planted 2.5x, 12 us, 8.87e-08 and 1.60|x" units "$CHK/book-units.json"
# No build marker (// [kernel]) in a listing or diff. Planted: one added to the book's first diff.
pdf_check markers "$OUT/book.json"
python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
def plant(n):
    if isinstance(n, list): return any(plant(x) for x in n)
    if isinstance(n, dict):
        if n.get("t") == "CodeBlock" and "diff" in n["c"][0][1]:
            n["c"][1] += "\n // [kernel]"; return True
        return plant(n.get("c", []))
    return False
plant(doc["blocks"]) and json.dump(doc, open(sys.argv[2], "w"))' "$OUT/book.json" "$CHK/book-marker.json" &&
    planted_pdf "a build marker planted in a diff" markers "$CHK/book-marker.json"
pdf_check quotes "$CHK/book.txt"
# Captions against charts (book/book.lua writes figures.json: each figure's caption and chart).
# Planted: a figure whose caption names a roof line keeps its caption but gets a chart without
# one (the fault of figures 2.1, 3.1 and 13.1 in the first edition), or the reverse.
pdf_check captions "$OUT/figures.json" "$CHK/book.txt"
if python3 - "$OUT/figures.json" "$CHK/figures-planted.json" <<'PY'
import json, re, sys
figs = json.load(open(sys.argv[1]))
roof = [f for f in figs if re.search("roof|peak", f["caption"])]
none = [f for f in figs if not re.search("roof|peak", f["caption"])]
if not roof or not none:
    sys.exit(1)
roof[0]["svg"] = none[0]["svg"]
json.dump(figs, open(sys.argv[2], "w"))
PY
then
    planted_pdf "a caption that names a roof its chart does not draw" captions "$CHK/figures-planted.json" "$CHK/book.txt"
else
    note "the book needs a figure with a roof and one without for the planted caption test"
fi
# Every chapter against its own roof, one chart. Planted: the data with chapter 01's roof dropped
# (the chart, drawn from the real data, still names one).
pdf_check own-roofs "$DATA" "$OUT/figures.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in d["roofs"]:
    if r["roofs"]: r["roofs"], r["pct"] = {}, {}; break
json.dump(d, open(sys.argv[2], "w"))' "$DATA" "$CHK/data-noroof.json" &&
    planted_pdf "a chapter whose roof the chart shows but the data lacks" own-roofs "$CHK/data-noroof.json" "$OUT/figures.json"
# Sweep charts: a knob of choices as points, powers of two on a log axis. Planted: the data says
# every sweep knob is a choice (the drawn lines then join unrelated choices) or a power of two.
pdf_check sweep-axes "$DATA" "$OUT/charts"
# No series hides behind an identical one. Planted: chapter 15's H200 sweep made the H100's, which
# its chart (drawn from the real data) does not name as the same.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for c in d["chapters"]:
    sc = c.get("sweep_chart")
    if sc and len(sc["series"]) > 1 and c["nn"] == "15":
        sc["series"][1]["points"] = [list(p) for p in sc["series"][0]["points"]]
json.dump(d, open(sys.argv[2], "w"))' "$DATA" "$CHK/data-same.json" && {
    pdf_check sweep-same "$DATA" "$OUT/charts"
    planted_pdf "a sweep whose two series were made the same" sweep-same "$CHK/data-same.json" "$OUT/charts"; }
for scale in category log2; do
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for c in d["chapters"]:
    if c["sweep_chart"] and c["sweep_chart"]["scale"] != sys.argv[3]: c["sweep_chart"]["scale"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))' "$DATA" "$CHK/data-$scale.json" "$scale" &&
        planted_pdf "every sweep knob said to be $scale" sweep-axes "$CHK/data-$scale.json" "$OUT/charts"
done
# No two labels of a roofline overlap. Planted: a roofline's chart with a second label written
# over its first chapter label.
pdf_check roofline-labels "$OUT/figures.json"
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
f = next(f for f in figs if "/roofline-" in f["svg"])
svg = open(f["svg"], encoding="utf-8").read()
m = re.search(r"<g transform=\"translate\([^)]*\)\"[^>]*font-size=\"10[^>]*>\s*<text>[^<]*</text>\s*</g>", svg)
svg = svg[:m.end()] + m.group(0).replace("<text>", "<text>planted ") + svg[m.end():]
open(sys.argv[3], "w", encoding="utf-8").write(svg)
f["svg"] = sys.argv[3]
json.dump([f], open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-labels.json" "$CHK/roofline-planted.svg" &&
    planted_pdf "a label planted over another on a roofline" roofline-labels "$CHK/figures-labels.json"
# The placement holds for other data than today's (book/roofline-stress.lua): 20 versions of each
# GPU's roofline, the chapters' points moved at random, every third crowded together.
mkdir -p "$CHK/roofline-stress"
if echo x | ROOF_DATA="$DATA" ROOF_OUT="$CHK/roofline-stress" pandoc -f markdown -t plain \
        --lua-filter book/roofline-stress.lua >/dev/null 2>"$CHK/roofline-stress.log"; then
    python3 book/check_pdf.py roofline-labels "$CHK/roofline-stress/figures.json" >"$CHK/pdf-roofline-stress.log" 2>&1
    n=$(grep -c '^PASS: Trial' "$CHK/pdf-roofline-stress.log")
    if grep -q '^FAIL: ' "$CHK/pdf-roofline-stress.log"; then
        fail "the roofline labels overlap on jittered data: $(grep '^FAIL: ' "$CHK/pdf-roofline-stress.log" | head -n 3 | cut -c7-200 | tr '\n' ' ')"
    else
        pass "no two labels overlap on any of $n rooflines of jittered data"
    fi
else
    fail "book/roofline-stress.lua failed: $(tail -n 3 "$CHK/roofline-stress.log")"
fi
# Pictures of a mechanism, computed from the chapters' code; their captions' numbers as drawn.
# Planted: a caption that says 8-way where the chart shows a 32-way conflict (or 3 sectors, 0.3 KB).
pdf_check diagrams "$OUT/figures.json"
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    if re.search(r"-(sectors|banks|divergence|traffic|occupancy|local|inflight)\.svg$", f["svg"]):
        f["caption"] = re.sub(r"\d+-way", "8-way", re.sub(r"\d+ sectors", "3 sectors", re.sub(r"\d+ passes", "7 passes", f["caption"])))
        f["caption"] = re.sub(r"\d+ bytes", "5 bytes", re.sub(r"\d+ warps", "7 warps", re.sub(r"\d+ times", "9 times", f["caption"])))
        f["caption"] = re.sub(r"\d+(\.\d+)? KB", "0.3 KB", re.sub(r"\d+ ns", "9 ns", f["caption"]))
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-diagrams.json" &&
    planted_pdf "a picture whose caption gives other numbers than it draws" diagrams "$CHK/figures-diagrams.json"
# Planted: the occupancy API's answer for the naive program's block, one warp more than drawn.
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in (f.get("drawn") or {}).get("recorded", []) if isinstance(f.get("drawn"), dict) else []:
        if r["program"] == "naive" and "warps" in r: r["warps"] += 1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-occupancy.json" &&
    planted_pdf "an occupancy API answer one warp off the picture" diagrams "$CHK/figures-occupancy.json"
# Planted: captions that give other registers than Figures 8.1 and 18.1 draw (150 for each count,
# 48 B of local memory).
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    f["caption"] = re.sub(r"\d+ B local", "48 B local", re.sub(r"\d+ registers", "150 registers", f["caption"]))
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-registers.json" &&
    { planted_pdf "captions whose register counts are not the ones drawn" diagrams "$CHK/figures-registers.json"
      grep -q "^FAIL: Figure 8.1:: the numbers its caption" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 18.1:: the numbers its caption" "$CHK/planted-diagrams.log" &&
      pass "the caption check names both planted register counts (Figures 8.1 and 18.1)" ||
      fail "the caption check does not name both planted register counts; see $CHK/planted-diagrams.log"; }
# Planted: ncu's register-limited blocks for chapter 08's optimized program one more than drawn,
# and chapter 18's naive local-load sectors on one GPU doubled.
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    rec = (f.get("drawn") or {}).get("recorded", []) if isinstance(f.get("drawn"), dict) else []
    for r in rec:
        if f["svg"].endswith("ch08-occupancy.svg") and r["program"] == "optimized": r["blocks"] += 1
    for r in (rec[:1] if f["svg"].endswith("-local.svg") else []):
        r["ld"] *= 2
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-records.json" &&
    { planted_pdf "a register limit and local sectors other than each GPU recorded" diagrams "$CHK/figures-records.json"
      grep -q "^FAIL: Figure 8.1:: the resident warps it draws" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 18.1:: the registers, stack frame" "$CHK/planted-diagrams.log" &&
      pass "the record check names both planted records (Figures 8.1 and 18.1)" ||
      fail "the record check does not name both planted records; see $CHK/planted-diagrams.log"; }
# Planted: the naive program's warps active recorded at twice what a bytes-in-flight picture draws.
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in f["drawn"]["evidence"] if f["svg"].endswith("-inflight.svg") else []:
        if r["program"] == "naive": r["warps"] *= 2
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-inflight.json" &&
    planted_pdf "recorded warps twice those a bytes-in-flight picture draws" diagrams "$CHK/figures-inflight.json"
# Planted: the Little's-law lines at the latency the optimized launch implies (the most loaded
# point, as the pictures first drew them), not the least-loaded point's; and chapter 07's H100
# marker for the optimized launch drawn on the H200's (the two GPUs' markers not set apart).
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for ln in f["drawn"].get("lines", []) if f["svg"].endswith("-inflight.svg") else []:
        most = max(ln["points"], key=lambda p: p["bytes"])
        ln["l0"] = most["bytes"] / (most["rate"] / 2 / ln["sms"])
json.dump(figs, open(sys.argv[2], "w"))
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("ch07-inflight.svg"):
        svg = open(f["svg"], encoding="utf-8").read()
        big = re.findall(r"<use xlink:href=\x27#gpPt\d+\x27 transform=\x27translate\(([-\d.]+,[-\d.]+)\) scale\(6.75\)\x27 color=\x27(rgb\([^)]*\))\x27", svg)
        a = next(x for x in big if x[1] == big[0][1])[0]
        b = next(x for x in big if x[1] != big[0][1])[0]
        f["svg"] = sys.argv[4] + "/ch07-inflight.svg"
        open(f["svg"], "w", encoding="utf-8").write(svg.replace("translate(" + a + ")", "translate(" + b + ")"))
json.dump(figs, open(sys.argv[3], "w"))' "$OUT/figures.json" "$CHK/figures-inflight-l0.json" "$CHK/figures-inflight-hidden.json" "$CHK" &&
    { planted_pdf "Little's-law lines at the most-loaded point's latency" diagrams "$CHK/figures-inflight-l0.json"
      grep -q "^FAIL: Figure 6.1:* its Little's-law lines run at the latency" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 7.1:* its Little's-law lines run at the latency" "$CHK/planted-diagrams.log" &&
      pass "the latency check names both planted lines (Figures 6.1 and 7.1)" || fail "the latency check does not name Figures 6.1 and 7.1; see $CHK/planted-diagrams.log"
      planted_pdf "chapter 07's H100 marker drawn under the H200's" diagrams "$CHK/figures-inflight-hidden.json"
      grep -q "ch07-inflight.svg): what it teaches is legible.*hides under another GPU" "$CHK/planted-diagrams.log" &&
      pass "the legibility check names Figure 7.1's hidden marker" || fail "the legibility check does not name Figure 7.1's hidden marker; see $CHK/planted-diagrams.log"; }
# Planted: the pictures as they were drawn before they were made legible: the resident warps one
# dark line whatever limit binds (Figure 10.1), a float a lane reads 1 unit wide (Figure 15.1).
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
def narrow(m):
    xs = [float(v) for v in re.findall(r"[-\d.]+", m.group(2))][0::2]
    return m.group(1) + " ".join(f"{x:.2f},0" for x in (min(xs), min(xs) + 1, min(xs) + 1, min(xs))) + "\x27"
for f in figs:
    svg = open(f["svg"], encoding="utf-8").read()
    if f["svg"].endswith("-occupancy.svg"):
        svg = re.sub(r"<path stroke=\x27rgb\([^)]*\)\x27(\s+d=\x27(?:[^\x27L]*L){4})", "<path stroke=\x27rgb(34, 34, 34)\x27\\1", svg)
    elif f["svg"].endswith("-sectors.svg"):
        svg = re.sub(r"(<polygon fill = \x27rgb\(\s*42,\s*111,\s*176\)\x27 points = \x27)([^\x27]*)\x27", narrow, svg)
    elif f["svg"].endswith("-inflight.svg"):  # a tick label drawn over the one below it
        at = re.findall(r"translate\(([\d.]+,[\d.]+)\)", svg)
        svg = svg.replace("translate(" + at[1] + ")", "translate(" + at[0] + ")", 1)
    else:
        continue
    f["svg"] = sys.argv[3] + "/" + f["svg"].rsplit("/", 1)[1]
    open(f["svg"], "w", encoding="utf-8").write(svg)
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-illegible.json" "$CHK" &&
    { planted_pdf "an occupancy curve in one colour whatever limit binds" diagrams "$CHK/figures-illegible.json"
      grep -q "ch10-occupancy.svg): what it teaches is legible.*binds\" is not on the curve" "$CHK/planted-diagrams.log" &&
      grep -q "ch15-sectors.svg): what it teaches is legible.*a float a lane reads is 1.00 units" "$CHK/planted-diagrams.log" &&
      grep -q "ch06-inflight.svg): what it teaches is legible.* overlaps " "$CHK/planted-diagrams.log" &&
      pass "the legibility check names the planted pictures (Figures 10.1, 15.1 and 6.1)" ||
      fail "the legibility check does not name the planted pictures; see $CHK/planted-diagrams.log"; }
# Planted: chapter 22's caption a request short of what its picture draws (31 for 32), and each
# GPU's recorded sectors per store (chapter 20) and requests per lookup (22) one more than drawn.
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("-requests.svg"):
        f["caption"] = re.sub(r"(\d+) requests", lambda m: str(int(m.group(1)) - 1) + " requests", f["caption"])
json.dump(figs, open(sys.argv[2], "w"))
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in (f.get("drawn") or {}).get("per_request", []) if isinstance(f.get("drawn"), dict) else []:
        r["recorded"] += 1
json.dump(figs, open(sys.argv[3], "w"))' "$OUT/figures.json" "$CHK/figures-requests.json" "$CHK/figures-recorded.json" &&
    { planted_pdf "chapter 22's caption a request short of its picture" diagrams "$CHK/figures-requests.json"
      grep -q "^FAIL: Figure 22.1.*not drawn: \['31 requests'\]" "$CHK/planted-diagrams.log" &&
      pass "the caption check names Figure 22.1's 31 requests" || fail "the caption check does not name Figure 22.1; see $CHK/planted-diagrams.log"
      planted_pdf "recorded sectors per store and requests per lookup one more than drawn" diagrams "$CHK/figures-recorded.json"
      grep -q "^FAIL: Figure 20.1.*sectors per store.*differ" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 22.1.*requests per lookup.*differ" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 19.1.*uses per global load.*differ" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 16.1.*sectors per load request.*differ" "$CHK/planted-diagrams.log" &&
      pass "the recorded-figure check names the planted pictures (Figures 16.1, 19.1, 20.1 and 22.1)" ||
      fail "the recorded-figure check does not name the planted pictures; see $CHK/planted-diagrams.log"; }
# Planted: the second GPU's record (the H200's: the pictures are drawn from the first) one more
# than Figures 1.1 and 21.1 draw (bytes per element, tile row, passes per load), and missing the
# counters that Figure 32.1's passes and lanes are checked against.
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    per = (f.get("drawn") or {}).get("per_request", []) if re.search(r"ch(01|21|32)-", f["svg"]) else []
    for r in per:
        if r["gpu"] != per[0]["gpu"]:
            if "/ch32-" in f["svg"]: r.pop("recorded", None)
            else: r["recorded"] += 1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-record-each.json" &&
    { planted_pdf "the H200's record one more than Figures 1.1 and 21.1 draw, its counters for 32.1 missing" diagrams "$CHK/figures-record-each.json"
      grep -q "^FAIL: Figure 1.1:.*DRAM bytes.*differ: \['nvidia-h200" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 21.1:.*differ: \['nvidia-h200 naive floats a tile row" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 32.1:.*differ: \['nvidia-h200 naive passes per warp: drawn 2, recorded nothing" "$CHK/planted-diagrams.log" &&
      pass "the recorded-figure check names each planted record (Figures 1.1, 21.1 and 32.1, the H200's)" ||
      fail "the recorded-figure check does not name each planted record of Figures 1.1, 21.1 and 32.1; see $CHK/planted-diagrams.log"; }
# Planted: chapter 17's recorded sectors per load request 0.1 more than its rows' addresses give (a
# sector in ten requests: within half, as the one-warp pictures are held, but not its 0.05).
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in (f.get("drawn") or {}).get("per_request", []) if f["svg"].endswith("ch17-sectors.svg") else []:
        r["recorded"] += 0.1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-pitch.json" &&
    { planted_pdf "chapter 17's recorded sectors per request a tenth off its rows' addresses" diagrams "$CHK/figures-pitch.json"
      grep -q "^FAIL: Figure 17.1.*sectors per load request over 32 rows.*differ" "$CHK/planted-diagrams.log" &&
      pass "the recorded-figure check names Figure 17.1 a tenth of a sector off" ||
      fail "the recorded-figure check does not name Figure 17.1; see $CHK/planted-diagrams.log"; }
# Planted, the streams timelines (Figures 2.1, 5.1): a caption whose milliseconds and kernels at
# Planted, the tiling picture (Figure 19.1): a caption that gives the tiled program 16 uses per
# global load where the chart draws 32; and its rows of floats drawn 1 unit thick on the phone.
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("-tiling.svg"):
        f["caption"] = re.sub(r"(\d\d+) uses per global load", "16 uses per global load", f["caption"])
json.dump(figs, open(sys.argv[2], "w"))
def thin(m):
    p = [float(v) for v in re.findall(r"[-\d.]+", m.group(2))]
    x0, y0, y1 = min(p[0::2]), min(p[1::2]), max(p[1::2])
    tall = max(p[1::2]) - y0 > 50  # the column of B, not a row
    return m.group(1) + f"{x0:.2f},{y1:.2f} {x0 + 1:.2f},{y1:.2f} {x0 + 1:.2f},{y0:.2f} {x0:.2f},{y0:.2f} \x27" if tall else m.group(0)
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("-tiling.svg"):
        path = f["svg"][:-4] + "-phone.svg"
        svg = re.sub(r"(<polygon fill = \x27rgb\(209,\s*96,\s*61\)\x27 points = \x27)([^\x27]*)\x27", thin, open(path, encoding="utf-8").read())
        open(sys.argv[4] + "/" + path.rsplit("/", 1)[1], "w", encoding="utf-8").write(svg)
        page = sys.argv[4] + "/" + f["svg"].rsplit("/", 1)[1]
        open(page, "w", encoding="utf-8").write(open(f["svg"], encoding="utf-8").read())
        f["svg"] = page
json.dump(figs, open(sys.argv[3], "w"))' "$OUT/figures.json" "$CHK/figures-tiling.json" "$CHK/figures-tiling-thin.json" "$CHK" &&
    { planted_pdf "chapter 19's caption with 16 uses per global load where 32 are drawn" diagrams "$CHK/figures-tiling.json"
      grep -q "^FAIL: Figure 19.1:* the numbers its caption gives.*not drawn: \['16 uses per global load'\]" "$CHK/planted-diagrams.log" &&
      pass "the caption check names Figure 19.1's 16 uses per global load" || fail "the caption check does not name Figure 19.1; see $CHK/planted-diagrams.log"
      planted_pdf "chapter 19's column of B drawn 1 unit wide on the phone" diagrams "$CHK/figures-tiling-thin.json"
      grep -q "ch19-tiling-phone.svg): what it teaches is legible.*a row of floats is 1.00 units" "$CHK/planted-diagrams.log" &&
      pass "the legibility check names Figure 19.1's planted 1-unit column" || fail "the legibility check does not name Figure 19.1; see $CHK/planted-diagrams.log"; }
# Planted: the H200's speedup of the tiled program 10% off what Figure 19.1's caption restates.
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in f["drawn"].get("recorded", []) if f["svg"].endswith("ch19-tiling.svg") else []:
        if r["metric"] == "speedup" and r["gpu"] == "nvidia-h200": r["value"] *= 1.1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-tiling-speedup.json" &&
    { planted_pdf "the H200's tiled speedup 10% off Figure 19.1's caption" diagrams "$CHK/figures-tiling-speedup.json"
      grep -q "^FAIL: Figure 19.1:* the recorded figures its caption restates.*speedup said 1.44" "$CHK/planted-diagrams.log" &&
      pass "the restated-figure check names Figure 19.1's speedup" || fail "the restated-figure check does not name Figure 19.1's speedup; see $CHK/planted-diagrams.log"; }
# Planted, the streams timelines (Figures 2.1, 3.1, 5.1, 36.1): a caption whose milliseconds,
# microseconds and kernels at once are not the chart's; the H100's record 10% off what the captions restate; and the pictures
# drawn illegibly: 2.1's dashed lines up to the top, through its texts, 5.1's second text on its first.
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("-streams.svg"):
        f["caption"] = re.sub(r"\d+\.\d+ ms", "7.25 ms", re.sub(r"[\d.]+ kernels at once", "9.5 kernels at once", f["caption"]))
        f["caption"] = re.sub(r"\d+\.\d+ µs", "7.25 µs", f["caption"])
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-streams.json" &&
    planted_pdf "streams timelines whose captions give other times than they draw" diagrams "$CHK/figures-streams.json" &&
    { [ "$(grep -cE '^FAIL: Figure (2|3|5|36)\.1:* the numbers its caption gives' "$CHK/planted-diagrams.log")" = 4 ] ||
      fail "the planted streams captions do not fail for each of Figures 2.1, 3.1, 5.1 and 36.1; see $CHK/planted-diagrams.log"; }
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    d = f.get("drawn") or {}
    for r in d.get("recorded", []) if f["svg"].endswith("-streams.svg") else []:
        if r["gpu"] == d["gpu"]: r["value"] *= 1.1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-restated.json" &&
    planted_pdf "an H100 record 10% off what the streams captions restate" diagrams "$CHK/figures-restated.json" &&
    { [ "$(grep -cE '^FAIL: Figure (2|3|5|36)\.1:* the recorded figures its caption restates' "$CHK/planted-diagrams.log")" = 4 ] ||
      fail "the planted records do not fail for each of Figures 2.1, 3.1, 5.1 and 36.1; see $CHK/planted-diagrams.log"; }
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    if not f["svg"].endswith("-streams.svg"):
        continue
    for path in (f["svg"], f["svg"][:-4] + "-phone.svg"):
        svg = open(path, encoding="utf-8").read()
        if "/ch02-" in path:
            svg = re.sub(r"(stroke-dasharray=\x27[^\x27]*\x27\s+d=\x27[^\x27]*)", lambda m: re.sub(r"L([\d.]+),[\d.]+", r"L\1,0", m.group(1)), svg)
        else:
            at = re.findall(r"translate\([\d.]+,[\d.]+\)(?=\" stroke=\"none\")", svg)
            svg = svg.replace(at[1], at[0], 1)
        open(sys.argv[3] + "/" + path.rsplit("/", 1)[1], "w", encoding="utf-8").write(svg)
    f["svg"] = sys.argv[3] + "/" + f["svg"].rsplit("/", 1)[1]
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-streams-illegible.json" "$CHK" &&
    { planted_pdf "streams timelines with a dashed line through a text and a text over another" diagrams "$CHK/figures-streams-illegible.json"
      grep -q "ch02-streams-phone.svg): what it teaches is legible.*a dashed line runs through" "$CHK/planted-diagrams.log" &&
      grep -q "ch05-streams.svg): what it teaches is legible.*overprints" "$CHK/planted-diagrams.log" &&
      grep -q "ch03-streams.svg): what it teaches is legible.*overprints" "$CHK/planted-diagrams.log" &&
      pass "the legibility check names the planted streams timelines (Figures 2.1, 3.1 and 5.1)" ||
      fail "the legibility check does not name both planted streams timelines; see $CHK/planted-diagrams.log"; }
# Planted: chapter 08's recorded spill stores one byte more than Figure 8.1 says and draws, and its
# phone edition's second point label moved onto the first.
python3 -c 'import json, re, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in (f.get("drawn") or {}).get("figures", []) if f["svg"].endswith("ch08-occupancy.svg") else []:
        if r["metric"] == "spill_store_bytes": r["value"] += 1
json.dump(figs, open(sys.argv[2], "w"))
figs = json.load(open(sys.argv[1]))
for f in figs:
    if f["svg"].endswith("ch08-occupancy.svg"):
        for path in (f["svg"], f["svg"][:-4] + "-phone.svg"):
            svg = open(path, encoding="utf-8").read()
            if path.endswith("-phone.svg"):
                at = re.findall(r"translate\(([\d.]+,[\d.]+)\)(?=\" stroke=\"none\"[^>]*>\s*<text>min-blocks)", svg)
                svg = svg.replace("translate(" + at[1] + ")", "translate(" + at[0] + ")", 1)
            open(sys.argv[4] + "/" + path.rsplit("/", 1)[1], "w", encoding="utf-8").write(svg)
        f["svg"] = sys.argv[4] + "/" + f["svg"].rsplit("/", 1)[1]
json.dump(figs, open(sys.argv[3], "w"))' "$OUT/figures.json" "$CHK/figures-spills.json" "$CHK/figures-occupancy-labels.json" "$CHK" &&
    { planted_pdf "chapter 08's spill stores a byte more than its caption and picture say" diagrams "$CHK/figures-spills.json"
      grep -q "^FAIL: Figure 8.1:* the recorded figures its caption restates.*spill_store_bytes" "$CHK/planted-diagrams.log" &&
      pass "the restated-figure check names Figure 8.1's spill stores" || fail "the restated-figure check does not name Figure 8.1; see $CHK/planted-diagrams.log"
      planted_pdf "chapter 08's point labels one over another on the phone" diagrams "$CHK/figures-occupancy-labels.json"
      grep -q "ch08-occupancy-phone.svg): what it teaches is legible.* overlaps " "$CHK/planted-diagrams.log" &&
      pass "the legibility check names Figure 8.1's planted label over another" || fail "the legibility check does not name Figure 8.1; see $CHK/planted-diagrams.log"; }
# Planted: Nsight Compute's shared-memory limit for chapter 10's naive launches one block more than
# Figure 10.1 draws, and chapter 36's optimized program recorded allocating in every iteration.
python3 -c 'import json, sys
figs = json.load(open(sys.argv[1]))
for f in figs:
    for r in (f.get("drawn") or {}).get("per_request") or [] if isinstance(f.get("drawn"), dict) else []:
        if f["svg"].endswith("ch10-occupancy.svg"): r["recorded"] += 1
        if f["svg"].endswith("ch36-streams.svg") and r["program"] == "optimized": r["recorded"] = 1
json.dump(figs, open(sys.argv[2], "w"))' "$OUT/figures.json" "$CHK/figures-data2.json" &&
    { planted_pdf "a shared-memory limit and allocation calls other than each GPU recorded" diagrams "$CHK/figures-data2.json"
      grep -q "^FAIL: Figure 10.1:* its blocks the shared memory holds.*differ" "$CHK/planted-diagrams.log" &&
      grep -q "^FAIL: Figure 36.1:* its allocation calls per iteration.*differ" "$CHK/planted-diagrams.log" &&
      pass "the recorded-figure check names Figures 10.1 (shared-memory blocks) and 36.1 (allocation calls)" ||
      fail "the recorded-figure check does not name Figures 10.1 and 36.1; see $CHK/planted-diagrams.log"; }
# Planted: the book without its one picture of Part V (chapter 36's timeline).
python3 -c 'import json, sys
json.dump([f for f in json.load(open(sys.argv[1])) if "/ch36-" not in f["svg"]], open(sys.argv[2], "w"))' \
    "$OUT/figures.json" "$CHK/figures-nopart.json" &&
    planted_pdf "the book without chapter 36's picture (Part V)" diagrams "$CHK/figures-nopart.json"
# Noise above 5% in bold. Planted: the data with a quiet sweep row's noise raised to 55.5%
# (the book, built from the real data, does not set it in bold).
pdf_check noisy "$DATA" "$OUT/book.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = next(r for c in d["chapters"] for g in c["sweeps"] for r in g["rows"] if (r["noise_pct"] or 0) < 1)
r["noise_pct"] = 55.5
json.dump(d, open(sys.argv[2], "w"))' "$DATA" "$CHK/data-noisy.json" &&
    planted_pdf "a sweep row whose 55.5% noise is not in bold" noisy "$CHK/data-noisy.json" "$OUT/book.json"
# Every part is real (the first edition's Part V was a page with one planned chapter). Planted:
# the data with the last part's chapters marked planned.
pdf_check parts "$DATA" "$CHK/book.txt"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); last = set(d["parts"][-1]["chapters"])
for c in d["chapters"]:
    if c["nn"] in last: c["status"] = "planned"
json.dump(d, open(sys.argv[2], "w"))' "$DATA" "$CHK/data-planned.json" &&
    planted_pdf "a part whose chapters are all planned" parts "$CHK/data-planned.json" "$CHK/book.txt"
# The chapters carry their claims, the full record is appendix C. Planted, one at a time: every
# chapter's first page printed three times (long chapters), a counter no claim reads printed in the
# first chapter (a counter dump), a "Generated by make readme" note.
pdf_check record "$DATA" "$CHK/book.txt"
python3 - "$DATA" "$CHK/book.txt" "$CHK/record" <<'PY' &&
import json, sys
sys.path.insert(0, "book"); sys.dont_write_bytecode = True
import check_book
data, pages = json.load(open(sys.argv[1])), open(sys.argv[2], encoding="utf-8").read().split("\f")
spans = check_book.pdf_chapters("\f".join(pages), [c for c in data["chapters"] if c["status"] == "written"], spans=True)
starts = {s for s, _ in spans.values()}
first = min(starts)
plant = {"long": [p for i, p in enumerate(pages) for _ in range(3 if i in starts else 1)],
         "dump": [p + ("\nncu:planted__counter_nobody_reads.sum 1,234\n" if i == first + 1 else "") for i, p in enumerate(pages)],
         "generated": [p + ("\nGenerated by make readme from results/.\n" if i == first + 1 else "") for i, p in enumerate(pages)]}
for name, planted in plant.items():
    open(f"{sys.argv[3]}-{name}.txt", "w", encoding="utf-8").write("\f".join(planted))
PY
{ planted_pdf "chapters three pages longer" record "$DATA" "$CHK/record-long.txt"
  planted_pdf "a counter dump in a chapter" record "$DATA" "$CHK/record-dump.txt"
  planted_pdf "a Generated-by note" record "$DATA" "$CHK/record-generated.txt"; }
# The chapters' layout: no section heading alone at the foot of a page, tables numbered without a
# gap, counter tables of what the story reads, no sentence reading a table its chapter does not
# show. Planted: "Results" as the last line of the first chapter's second page; that chapter's
# second table caption gone (a table moved away that kept its number); a counter table of 13
# rows; the first chapter with no table caption left (every table moved away: "The last column").
pdf_check lone-headings "$OUT/book.json" "$CHK/book.txt"
pdf_check table-numbers "$DATA" "$CHK/book.txt"
pdf_check counter-rows "$OUT/book.json"
pdf_check table-pointers "$DATA" "$CHK/book.txt"
python3 - "$DATA" "$CHK/book.txt" "$CHK/layout" "$OUT/book.json" <<'PY' &&
import json, re, sys
sys.path.insert(0, "book"); sys.dont_write_bytecode = True
import check_book
data, pages = json.load(open(sys.argv[1])), open(sys.argv[2], encoding="utf-8").read().split("\f")
written = [c for c in data["chapters"] if c["status"] == "written"]
spans = check_book.pdf_chapters("\f".join(pages), written, spans=True)
s, e = spans[written[0]["nn"]]
n = int(written[0]["nn"])
def lone(i, p):
    lines = p.rstrip("\n").split("\n")
    return "\n".join(lines[:-1] + ["Results", lines[-1]]) + "\n" if i == s + 1 else p
plant = {"lone": [lone(i, p) for i, p in enumerate(pages)],
         "gap": [re.sub(rf"(^|\n)(\s*)Table {n}\.2:", r"\1\2A table:", p) if s <= i < e else p for i, p in enumerate(pages)],
         "pointer": [re.sub(rf"(^|\n)(\s*)Table {n}\.(\d+):", r"\1\2A table:", p) if s <= i < e else p for i, p in enumerate(pages)]}
for name, planted in plant.items():
    open(f"{sys.argv[3]}-{name}.txt", "w", encoding="utf-8").write("\f".join(planted))
doc = json.load(open(sys.argv[4]))
def grow(x):
    if isinstance(x, list): return any(grow(y) for y in x)
    if isinstance(x, dict):
        if x.get("t") == "Div" and "claim-counters" in x["c"][0][1]:
            body = next(t for t in x["c"][1] if t.get("t") == "Table")["c"][4][0]
            body[3] = (body[3] * 13)[:13]; return True
        return grow(x.get("c", []))
    return False
grow(doc["blocks"]) and json.dump(doc, open(sys.argv[3] + "-counters.json", "w"))
PY
{ planted_pdf "a heading as the last line of a page" lone-headings "$OUT/book.json" "$CHK/layout-lone.txt"
  planted_pdf "a chapter whose second table moved away with its number" table-numbers "$DATA" "$CHK/layout-gap.txt"
  planted_pdf "a counter table of 13 rows" counter-rows "$CHK/layout-counters.json"
  planted_pdf "a chapter whose tables all moved away" table-pointers "$DATA" "$CHK/layout-pointer.txt"; }
# Overflow: xelatex's overfull boxes.
pdf_check overfull "$OUT/latex/book.log" "$OUT/latex/book.tex"
# Planted: a small document with the faults the book had, read as GitHub markdown without the
# book's filters, typeset by book/pdf.sh: a table of 14 columns of unbreakable 12-digit numbers
# (fits no layout book/to-latex.lua tries), "straight quotes" (TeX prints both as closing marks
# unless pandoc reads them as quotations) and a caret exponent.
mkdir -p "$CHK/planted"
{ echo '# Planted'; echo; echo 'A "quoted" phrase, and 1 GB = 10^9 bytes. A table too wide for the page:'; echo
  printf '|'; for i in $(seq 14); do printf ' c%d |' "$i"; done; echo
  printf '|'; for i in $(seq 14); do printf -- '---:|'; done; echo
  printf '|'; for i in $(seq 14); do printf ' %d |' $((100000000000 + i)); done; echo
} >"$CHK/planted/planted.md"
if pandoc "$CHK/planted/planted.md" --from gfm --to json --output "$CHK/planted/book.json" &&
   book/pdf.sh "$CHK/planted/book.json" "$CHK/planted" >"$CHK/planted/log" 2>&1; then
    pdftotext -enc UTF-8 "$CHK/planted/book.pdf" "$CHK/planted/book.txt"
    planted_pdf "a planted table too wide for the page" overfull "$CHK/planted/book.log" "$CHK/planted/book.tex"
    planted_pdf "a planted caret exponent" carets "$CHK/planted/book.json"
    planted_pdf "planted straight quotes" quotes "$CHK/planted/book.txt"
else
    fail "book/pdf.sh could not typeset the planted document:"; sed 's/^/    /' "$CHK/planted/log"
fi
# No blank page. Planted: a document whose contents fill two pages, typeset two-sided as the book
# was (BOOK_SIDES=twoside): the book class then leaves page iv blank before the first chapter.
pdf_check blank-pages "$CHK/book.txt"
mkdir -p "$CHK/planted-sides"
for i in $(seq 40); do printf '## Chapter %d\n\nText of chapter %d.\n\n' "$i" "$i"; done >"$CHK/planted-sides/planted.md"
if pandoc "$CHK/planted-sides/planted.md" --from gfm --metadata title=Planted --to json --output "$CHK/planted-sides/book.json" &&
   BOOK_SIDES=twoside book/pdf.sh "$CHK/planted-sides/book.json" "$CHK/planted-sides" >"$CHK/planted-sides/log" 2>&1; then
    pdftotext -enc UTF-8 "$CHK/planted-sides/book.pdf" "$CHK/planted-sides/book.txt"
    planted_pdf "a two-sided document (a blank page before its first chapter)" blank-pages "$CHK/planted-sides/book.txt"
else
    fail "book/pdf.sh could not typeset the two-sided planted document:"; sed 's/^/    /' "$CHK/planted-sides/log"
fi
# --- end of section 4 -----------------------------------------------------------------------------
}

# --- 5. The build must fail where it should ----------------------------------------------------------
build_fails() {
# In a scratch copy of book/, scripts/, chapters/ and the results, plant a fault and assemble
# (book.json only). The faults are made in the sources; the results files are only ever cut by a
# whole line whose number the data gives.
if [ -n "$first_ch" ]; then
    src_dir=$(ls -d chapters/"$first_ch"-*/ | head -n 1); src_dir=${src_dir%/}
    scratch() { # a fresh copy to plant a fault in, with the book's charts (an unchanged chart is not
        local tmp; tmp=$(mktemp -d) # drawn again); prints its path. common/: chapters 20 and 21 share a source there
        tar -cf - --exclude=book/out book scripts chapters common | tar -xf - -C "$tmp"
        mkdir -p "$tmp/res" "$tmp/book/out"; cp -r "$RESULTS_DIR"/. "$tmp/res/" 2>/dev/null
        cp -r "$OUT/charts" "$tmp/book/out/" 2>/dev/null
        echo "$tmp"
    }
    assemble() { (cd "$1" && RESULTS_DIR=res BOOK_OUT=book/out book/build.sh --assemble-only) >"$1/log" 2>&1; }
    planted() { # NAME EXPECTED-MESSAGE SETUP-COMMAND...
        local name=$1 expect=$2; shift 2
        local tmp; tmp=$(scratch)
        (cd "$tmp" && "$@") >/dev/null 2>&1
        if assemble "$tmp"; then
            fail "the build does not fail on $name"
        elif grep -qF "$expect" "$tmp/log"; then
            pass "the build fails on $name (\"$(grep -F "$expect" "$tmp/log" | head -n 1)\")"
        else
            fail "the build fails on $name, but without saying \"$expect\":"; sed 's/^/    /' "$tmp/log"
        fi
        rm -rf "$tmp"
    }
    readme=$src_dir/README.md
    planted "a missing marker" "marker lines, found 0" \
        sed -i '0,/<!-- listing: \([^ ]*\) [^ ]* -->/s//<!-- listing: \1 no-such-marker -->/' "$readme"
    planted "a missing source file" "missing file no-such-file.cu" \
        sed -i '0,/<!-- listing: [^ ]* /s//<!-- listing: no-such-file.cu /' "$readme"
    planted "a chapter without its guide section's anchor" "no guide section anchor for chapter(s) $first_ch" \
        sed -i "/^$first_ch\t/d" book/guide-anchors.tsv
    planted "a guide anchor that is not its heading's id" "is not the id of heading" \
        sed -i "s/^\($first_ch\t\)#[^\t]*/\1#Index.html/" book/guide-anchors.tsv
    planted "a broken cross-reference" "does not exist" \
        sed -i '0,/^## /s//See [nowhere](..\/99-nowhere\/README.md).\n\n## /' "$readme"
    # The optimized row of the first chapter on the first GPU: its file and line, from the data.
    row=$(python3 -c 'import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["chapters"] if c["results"])
g = c["results"][0]
print(g["file"].rsplit("/", 1)[-1], next(r["line"] for r in g["rows"] if r["variant"] == "optimized"), c["folder"])' "$DATA" 2>/dev/null)
    read -r row_file row_line row_dir <<<"$row"
    if [ -n "$row" ]; then
        planted "a missing results row" "missing results row" sed -i "${row_line}d" "res/$row_file"
    else
        note "no measured chapter with an optimized row: the missing-results-row test needs one"
    fi
    # A row measured from other sources must come out marked STALE (the build itself succeeds).
    tmp=$(scratch)
    [ -n "$row" ] && echo '// planted: the sources changed after the measurement' >>"$tmp/$row_dir/optimized.cu"
    if [ -z "$row" ]; then
        note "no results: the stale-marking test needs a measured chapter"
    elif assemble "$tmp" && grep -q '"STALE' "$tmp/book/out/book.json" && grep -q 'warning: stale' "$tmp/log"; then
        pass "the book marks a planted stale row STALE"
    else
        fail "the book does not mark a planted stale row"; sed 's/^/    /' "$tmp/log"
    fi
    # The stale-row rule (book/check_book.py): a WARNING: line for a person, FAIL: lines in CI.
    # Run on that chapter's data alone and a stub site: only how the stale rows are reported counts.
    if [ -n "$row" ] && [ -s "$tmp/book/out/data.json" ]; then
        mkdir -p "$tmp/site"; echo '<main></main>' >"$tmp/site/index.html"
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["chapters"] = [c for c in d["chapters"] if c["folder"] == sys.argv[3]]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/book/out/data.json" "$tmp/data.json" "$row_dir"
        for ci in person true; do
            CI=$ci python3 book/check_book.py "$tmp/data.json" /dev/null "$tmp/site" "$tmp/site" >"$tmp/$ci.log" 2>&1
        done
        if grep -q '^WARNING: chapter .* changed since it was measured' "$tmp/person.log" &&
           ! grep -q '^FAIL: .* is stale' "$tmp/person.log" &&
           grep -q '^FAIL: .* is stale' "$tmp/true.log" && ! grep -q '^WARNING: ' "$tmp/true.log"; then
            pass "a planted stale row is a warning without CI and fails with CI=true (\"$(grep -m 1 '^FAIL: .* is stale' "$tmp/true.log" | cut -c7-120)\")"
        else
            fail "the stale-row rule: no WARNING: without CI, or no FAIL: with CI=true:"
            grep -hE '^(WARNING|FAIL): ' "$tmp/person.log" "$tmp/true.log" | grep -i stale | head -n 5 | sed 's/^/    /'
        fi
    fi
    rm -rf "$tmp"
    # Marked stale, every chapter's results (its note and its table) must still fit the page.
    # Planted: every chapter changed; their Results sections alone (charts left out) are typeset
    # by book/pdf.sh, and no line of them may run into the margin. (The note of chapter 20's
    # changed sources ran 4.9 pt into it.)
    tmp=$(scratch)
    for d in "$tmp"/chapters/[0-9][0-9]-*/; do [ -f "$d/problem.cu" ] && echo '// planted: changed' >>"$d/problem.cu"; done
    if [ -z "$row" ]; then
        note "no results: the stale-width test needs a measured chapter"
    elif assemble "$tmp" && python3 - "$tmp/book/out/book.json" "$tmp/stale.json" <<'PY2' && (cd "$tmp" && book/pdf.sh stale.json stale-pdf) >"$tmp/pdf.log" 2>&1
import json, re, sys
doc = json.load(open(sys.argv[1]))
picked = []
def visit(blocks):
    take = None
    for b in blocks:
        if b.get("t") == "Header":
            level, (ident, _, _), _ = b["c"]
            if take is not None and level <= take:
                take = None
            if re.fullmatch(r"ch\d\d-results", ident):
                take = level
        if take is not None:
            text = json.dumps(b)
            if '"Image"' not in text and '"record"' not in text:
                picked.append(b)
        elif b.get("t") == "Div":
            visit(b["c"][1])
visit(doc["blocks"])
doc["blocks"] = picked
json.dump(doc, open(sys.argv[2], "w"))
print(sum('STALE' in json.dumps(b) for b in picked), "blocks marked STALE")
PY2
    then
        if python3 book/check_pdf.py overfull "$tmp/stale-pdf/book.log" "$tmp/stale-pdf/book.tex" >"$tmp/overfull.log" 2>&1 &&
           grep -q 'STALE' "$tmp/stale-pdf/book.tex"; then
            pass "every chapter's results marked stale fit the page (notes and tables)"
        else
            fail "results marked stale run into the margin:"; grep -E '^(FAIL|PASS)' "$tmp/overfull.log" | sed 's/^/    /'
        fi
    else
        fail "the stale-width test could not typeset the stale results:"; tail -n 20 "$tmp/log" "$tmp/pdf.log" 2>/dev/null | sed 's/^/    /'
    fi
    rm -rf "$tmp"
fi
}

# --- HTML edition: the layout checks fail on planted defects -----------------------------------
planted_html() {
# Copies of the site, each with one defect (a line of CSS appended to its style sheet, or a page,
# the script or the search index edited), checked on the first chapter's page at 390 px (search
# only on the copy whose index is planted): each must FAIL the check named beside it.
if [ -n "$first_ch" ] && [ -f "$OUT/html/ch-$first_ch.html" ]; then
    P=$CHK/planted-html
    page=ch-$first_ch.html
    rm -rf "$P"; mkdir -p "$P"
    plant() { cp -r "$OUT/html" "$P/$1"; }
    plant_css() { plant "$1"; printf '\n%s\n' "$2" >>"$P/$1/book.css"; }
    edit() { # FILE PYTHON: run PYTHON on the text s of FILE (re, json and page at hand), save s
        python3 -c 'import json, re, sys
f, page = sys.argv[1], sys.argv[3]
s = open(f, encoding="utf-8").read()
exec(sys.argv[2])
open(f, "w", encoding="utf-8").write(s)' "$1" "$2" "$page"
    }
    plant_css sideways '.table-box { overflow: visible !important; } main table { min-width: 640px; }'
    plant_css clipped-listing 'main pre, pre > code.sourceCode > span { white-space: pre !important; overflow-x: hidden !important; }'
    plant_css clipped-by-page-edge 'html { overflow-x: hidden; } .table-box { overflow: visible !important; } main table { min-width: 640px; }'
    plant_css small-chart-text '.chart-box img { min-width: 0 !important; width: 50% !important; }'
    plant_css chart-scrolls '.chart-box img { min-width: 640px !important; }'
    plant_css table-scrolls 'table.wide { display: table !important; } table.wide thead { display: table-header-group !important; } table.wide tbody { display: table-row-group !important; } table.wide tr { display: table-row !important; } table.wide td { display: table-cell !important; } table.wide td::before { content: none !important; } main table td { white-space: nowrap !important; }'
    plant_css overlapping-line-numbers 'pre > code.sourceCode > span { min-height: 0 !important; vertical-align: baseline !important; }'
    plant_css lost-indentation 'pre > code.sourceCode > span { --hang: 0px !important; }'
    plant_css caption-cut '.table-box > table > caption { max-width: none !important; position: static !important; }'
    plant crowded-chart   # a text of the page's first phone chart made longer than the canvas is wide
    svg=$(grep -o 'charts/[^"]*-phone\.svg' "$P/crowded-chart/$page" | head -n 1)
    [ -n "$svg" ] && edit "$P/crowded-chart/$svg" 's = s.replace("<text>", "<text>" + "planted " * 8, 1)'
    plant appendix-gap   # a caption pointing to the PDF's appendix C, which the site lacks
    edit "$P/appendix-gap/$page" 's = s.replace("</figcaption>", " (the record in appendix C)</figcaption>", 1)'
    plant no-sidebar
    edit "$P/no-sidebar/$page" 's = re.sub(r"<nav id=\"sidebar\".*?</ol></nav>", "", s, flags=re.S)'
    plant no-pager
    edit "$P/no-pager/$page" 's = re.sub(r"<nav class=\"pager pager-bottom\".*?</nav>", "", s, flags=re.S)'
    plant no-copy-button
    edit "$P/no-copy-button/book.js" 's = s.replace("copy-button", "copy-gone")'
    plant network-load
    edit "$P/network-load/$page" 's = s.replace("</main>", "<img src=\"http://localhost:9/x.png\" alt=\"\"></main>")'
    plant search-gap   # the index without the sections of the page
    edit "$P/search-gap/search-index.js" 'head, body = s.split("window.BOOK_INDEX =", 1)
d = json.loads(body.strip().rstrip(";"))
d["entries"] = [e for e in d["entries"] if d["pages"][e[0]][0] != page]
s = head + "window.BOOK_INDEX = " + json.dumps(d) + ";\n"'
    plant no-arrow-keys
    edit "$P/no-arrow-keys/book.js" 's = s.replace("ArrowRight", "ArrowNone")'
    plant no-theme   # the button no longer marks the root
    edit "$P/no-theme/book.js" 's = s.replace("setAttribute(\x27data-theme\x27, theme)", "setAttribute(\x27data-none\x27, theme)")'
    plant no-search-marks
    edit "$P/no-search-marks/book.js" 's = s.replace("mark.className = \x27search-mark\x27", "mark.className = \x27search-gone\x27")'
    # Search (a second a copy) only where it is the planted defect; those copies' lines get their labels.
    # The keys and the theme button (a dozen page loads) only where they are the planted defect.
    { python3 book/html/check.py --widths 390 --pages "$page" --no-search --no-keys $(ls -d "$P"/* | grep -Ev '/search-gap$|/no-search-marks$|/no-arrow-keys$|/no-theme$|/caption-cut$')
      python3 book/html/check.py --widths 390 --pages "$page" --no-search "$P/no-arrow-keys" "$P/no-theme"
      python3 book/html/check.py --widths 390 --pages "$page" --no-keys "$P/search-gap" | sed -E 's/^(PASS|FAIL): /&[search-gap] /'
      python3 book/html/check.py --widths 390 --pages "$page" --no-keys "$P/no-search-marks" | sed -E 's/^(PASS|FAIL): /&[no-search-marks] /'
      # A wide table's caption is cut at a laptop's width (on a phone a wide table is cards).
      python3 book/html/check.py --widths 1280 --pages "$page" --no-search --no-keys "$P/caption-cut" | sed -E 's/^(PASS|FAIL): /&[caption-cut] /'
    } >"$CHK/planted-html.log" 2>&1
    expect() { # NAME CHECK: the planted copy NAME must fail CHECK
        local line; line=$(grep -F "FAIL: [$1] " "$CHK/planted-html.log" | grep -F "$2" | head -n 1)
        if [ -n "$line" ]; then
            pass "the layout check fails on a planted $1 (\"${line#FAIL: }\")"
        else
            fail "the layout check does not fail on a planted $1 (expected a FAIL of \"$2\"); see $CHK/planted-html.log"
        fi
    }
    expect sideways "no page scrolls sideways"
    expect clipped-listing "no listing, table or chart is clipped"
    expect clipped-by-page-edge "no listing, table or chart is clipped"
    expect small-chart-text "every chart's smallest text is at least"
    expect chart-scrolls "every chart fits the column whole"
    expect table-scrolls "every table fits the column whole"
    expect overlapping-line-numbers "no code line overlaps the one before it"
    expect lost-indentation "every wrapped code line keeps its indentation"
    expect crowded-chart "every chart's text lies inside its canvas and no two of its texts touch"
    expect caption-cut "a table wider than its column scrolls in its box with its caption wrapped"
    expect appendix-gap "no page names an appendix the HTML edition lacks"
    expect no-sidebar "every page has the sidebar of contents"
    expect no-pager "every page has previous and next links"
    expect no-copy-button "every listing has a copy button"
    expect network-load "no page logs an error or loads anything from the network"
    expect search-gap "search finds every section"
    expect no-arrow-keys "the left and right arrow keys open the previous and the next page"
    expect no-theme "the theme button turns the page dark and back"
    expect no-search-marks "a search hit opens its page with the words marked"
fi
# --- end of the HTML planted-defects block ---
}


# --- The run -------------------------------------------------------------------------------------
tools >"$CHK/out/1-build" 2>&1 && make_book "$DATA" >>"$CHK/out/1-build" 2>&1 || finish
# The chapters (two-digit numbers) in the book, for the pictures and planted faults below.
mapfile -t chapter_nns < <(python3 -c 'import json, sys
print("\n".join(c["nn"] for c in json.load(open(sys.argv[1]))["chapters"] if c["status"] == "written"))' "$DATA" 2>/dev/null)
first_ch=${chapter_nns[0]:-}
# The page where a chapter or the summary starts in the PDF: the first whose first line is its title.
page_of() { python3 -c 'import re, sys
pages = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\f")
key = re.sub(r"\s+", "", sys.argv[2])
for i, p in enumerate(pages, 1):
    head = re.sub(r"\s+", "", next((l for l in p.split("\n") if l.strip()), ""))
    if len(head) >= 4 and (key.startswith(head) or head.startswith(key)):
        print(i); break' "$CHK/book.txt" "$1"; }
section 5-build-fails build_fails   # needs only the data: beside the rest of the build
build >>"$CHK/out/1-build" 2>&1 || finish
pdftotext -enc UTF-8 "$OUT/book.pdf" "$CHK/book.txt" 2>/dev/null
pdfinfo -url "$OUT/book.pdf" >"$CHK/book.urls" 2>/dev/null
section 2-text text_checks
section 3-pictures pictures
section 4-pdf pdf_checks
section 6-planted-html planted_html
finish
