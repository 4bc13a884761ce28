#!/usr/bin/env bash
# book/check.sh: build the book (`make book`: nothing is done again if it is built) and check what
# came out. Prints one PASS: or FAIL: line per assertion (and a WARNING: line per chapter changed
# since it was measured, outside CI), ends with "N passed, N failed", exits non-zero if anything failed.
#   RESULTS_DIR  results files to build from (default results)
#   BOOK_OUT     where the book goes (default book/out); the check's own files go to $BOOK_OUT/check
# After the build (1), six independent sections (2-7, each headed below by what it checks) run side
# by side, each into its own file under $CHK/out, printed in order once all are done. Sections 5
# and 7 need only the data: they start beside the rest of the build.
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
verdict() { # STATUS PASS-TEXT FAIL-TEXT [LOG...]: a PASS: line if STATUS is 0, else a FAIL: line and the LOGs, indented
    if [ "$1" -eq 0 ]; then pass "$2"; else fail "$3"; [ $# -lt 4 ] || sed 's/^/    /' "${@:4}"; fi
}
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
    verdict 1 "" "make book failed:" "$CHK/build.log"; return 1
}
tools() {
missing=()
for tool in pdftotext pdftoppm pdffonts chromium python3; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] || { fail "the book check needs ${missing[*]}; install with: sudo make deps"; return 1; }
}
build() {
make_book book || return 1
pass "make book builds"
# Built already: `make book` again rebuilds nothing and still says where the book is.
local again
again=$(make --no-print-directory book RESULTS_DIR="$RESULTS_DIR" BOOK_OUT="$OUT" 2>&1)
grep -q "$OUT/book.pdf" <<<"$again" && grep -q "$OUT/html/index.html" <<<"$again"
verdict $? "make book with nothing to rebuild says where the book is" \
    "make book with nothing to rebuild does not name $OUT/book.pdf and $OUT/html/index.html: $again"
for f in book.pdf book.html book.epub html/index.html html/search-index.js; do
    if [ -s "$OUT/$f" ]; then pass "$OUT/$f exists"; else fail "$OUT/$f is missing or empty"; fi
done
}
# --- 7. Reproducible: two assembly passes (book/book.lua, as book/build.sh runs it) into two scratch
# folders give the same book.json and figures.json, the folders' names aside (figures.json once
# listed a picture's data in Lua's table order, which changes from run to run). Planted: a copy
# whose one figure label differs must not pass. Needs only the data: beside the rest of the build.
reproducible() {
local n
for n in 1 2; do
    mkdir -p "$CHK/again-$n" && cp "$DATA" "$CHK/again-$n/data.json"
    pandoc book/book.md --from markdown --to json --fail-if-warnings --lua-filter book/book.lua \
        --metadata book-data="$CHK/again-$n/data.json" --metadata out-dir="$CHK/again-$n" \
        --output "$CHK/again-$n/book.json" >"$CHK/again-$n.log" 2>&1
done
same_build "$CHK/again-1" "$CHK/again-2"
verdict $? "two assembly passes give the same book.json and figures.json: the build is reproducible" \
    "two assembly passes differ (book.json or figures.json), $CHK/again-1 against $CHK/again-2:" "$CHK/again-1.log" "$CHK/again-2.log"
local planted=$CHK/planted-again
mkdir -p "$planted" && sed "s|$CHK/again-1|$planted|g" "$CHK/again-1/book.json" >"$planted/book.json" &&
    sed "s|$CHK/again-1|$planted|g; s/\"Figure 1\\.1:/\"Figure 1.9:/" "$CHK/again-1/figures.json" >"$planted/figures.json"
! same_build "$CHK/again-1" "$planted"
verdict $? "the reproducibility check fails on a planted copy whose one figure label differs" \
    "the reproducibility check passed a copy with a different figure label"
}
same_build() { # A B: A's and B's book.json and figures.json equal, each folder's own path replaced
    local f
    for f in book.json figures.json; do
        cmp -s <(sed "s|$1|OUT|g" "$1/$f") <(sed "s|$2|OUT|g" "$2/$f") || return 1
    done
}

# --- 2. Both editions against the data the book was built from ($DATA): every chapter, listing,
# results row, verdict and evidence metric in its chapter, every link resolving (book/check_book.py)
text_checks() {
# --- HTML edition: layout in headless Chromium -------------------------------------------------
# book/html/check.py loads every page of the site at 390 px and 1280 px (PASS:/FAIL: lines; see
# its header) and leaves each page's rendered DOM in $CHK/dom for book/check_book.py.
python3 book/html/check.py "$OUT/html" --dom "$CHK/dom" >"$CHK/layout.log" 2>&1
cat "$CHK/layout.log"
grep -qE '^(PASS|FAIL): ' "$CHK/layout.log" || fail "book/html/check.py checked nothing: $(tail -n 1 "$CHK/layout.log")"
! grep -Eiq '<(script|link|img)[^>]+(src|href)="(https?:)?//' "$OUT/book.html"
verdict $? "book.html is self-contained (no external scripts, styles or images)" \
    "book.html loads something from the network; it must be self-contained"
# The one-page book.html and the EPUB name no appendix they lack (the PDF's appendix C is not
# theirs; book/html/check.py checks the site's pages). Planted: book.html with a figure caption
# pointing to appendix C, as Figure 10.1's did.
python3 book/check_book.py appendices "$OUT/book.html" "$OUT/book.epub"
sed '0,/<\/figcaption>/s//(the full record is in appendix C)<\/figcaption>/' "$OUT/book.html" >"$CHK/planted-appendix.html"
! python3 book/check_book.py appendices "$CHK/planted-appendix.html" >"$CHK/planted-appendix.log" 2>&1
verdict $? "the appendix check fails on book.html with a caption naming appendix C (\"$(grep -m 1 '^FAIL: ' "$CHK/planted-appendix.log" | cut -c7-200)\")" \
    "the appendix check does not fail on book.html with a caption naming appendix C:" "$CHK/planted-appendix.log"
python3 book/check_book.py "$DATA" "$CHK/book.txt" "$CHK/dom" "$OUT/html" "$OUT/book.html" >"$CHK/text.log" 2>&1
cat "$CHK/text.log"
grep -qE '^(PASS|FAIL): ' "$CHK/text.log" || fail "book/check_book.py checked nothing: $(tail -n 1 "$CHK/text.log")"
# Each planted fault below: a copy of the rendered pages in DIR/dom, the Python on stdin run to
# plant it (json, os, re, glob and check_book as cb at hand; data, book (the PDF's text and links
# without their ending) and DIR as d), then the chapter checks on the copy, their output in DIR/log.
plant_chapters() { # DIR [SITE]: SITE, a planted copy of the site for the source-page check
    mkdir -p "$1/dom" && cp "$CHK"/dom/*.html "$1/dom/" && python3 -c 'import glob, json, os, re, sys
sys.path.insert(0, "book")
import check_book as cb
data, book, d = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
exec(sys.stdin.read())' "$DATA" "$CHK/book" "$1"
    python3 book/check_book.py chapters "$DATA" "$1/book.txt" "$1/dom" "${@:2}" >"$1/log" 2>&1
}
# Planted: chapter 15 without its links (the PDF's annotations on its pages, the HTML's div, the
# folder's name) and without its Takeaway heading; each of the three checks must fail.
local p=$CHK/planted-chapter
plant_chapters "$p" <<'PY'
c = next(c for c in data["chapters"] if c["nn"] == "15")
pages = open(book + ".txt", encoding="utf-8").read().split("\f")
s, e = cb.pdf_chapters("\f".join(pages), data["chapters"], spans=True)["15"]
for i in range(s, e):
    pages[i] = pages[i].replace("Takeaway", "Summing up").replace(c["folder"].split("-")[0], "elsewhere")
open(d + "/book.txt", "w", encoding="utf-8").write("\f".join(pages))
urls = [l for l in open(book + ".urls").read().splitlines() if not (l.split()[:1] and l.split()[0].isdigit()
        and s < int(l.split()[0]) <= e)]
open(d + "/book.urls", "w").write("\n".join(urls) + "\n")
dom = open(d + "/dom/ch-15.html", encoding="utf-8").read()
dom = re.sub(r'<div class="chapter-links">.*?</div>', "", dom, flags=re.S)
dom = re.sub(r"(<h[3-6][^>]*>)Takeaway", r"\1Summing up", dom)
open(d + "/dom/ch-15.html", "w", encoding="utf-8").write(dom)
PY
[ "$(grep -cE "^FAIL: .*missing in (chapters )?\['15[^,]*'(, '15 [^,]*')?\]$" "$p/log")" -eq 3 ] && [ "$(grep -c '^FAIL: ' "$p/log")" -eq 3 ]
verdict $? "the guide-link, source-link and takeaway checks each fail on chapter 15 with them removed" \
    "the chapter link and takeaway checks do not all fail on chapter 15 with them removed:" "$p/log"
# Planted: chapter 15's guide links without their anchor (the front page, PDF and HTML), and a copy
# of the site without its naive.cu page and with optimized.cu's first line cut; the guide-anchor check and
# the source-page check must each fail, on chapter 15 alone.
local g=$CHK/planted-links
mkdir -p "$g" && cp "$CHK/book.txt" "$g/" && cp -r "$OUT/html" "$g/site"
plant_chapters "$g" "$g/site" <<'PY'
c = next(c for c in data["chapters"] if c["nn"] == "15")
s, e = cb.pdf_chapters(open(book + ".txt", encoding="utf-8").read(), data["chapters"], spans=True)["15"]
bare = lambda t: t.replace(c["guide_url"], c["guide_url"].split("#")[0])
urls = [bare(l) if l.split()[:1] and l.split()[0].isdigit() and s < int(l.split()[0]) <= e else l
        for l in open(book + ".urls").read().splitlines()]
open(d + "/book.urls", "w").write("\n".join(urls) + "\n")
dom = open(d + "/dom/ch-15.html", encoding="utf-8").read()
open(d + "/dom/ch-15.html", "w", encoding="utf-8").write(bare(dom))
os.remove(os.path.join(d, "site", c["folder"], "naive.cu.html"))
f = os.path.join(d, "site", c["folder"], "optimized.cu.html")
page = open(f, encoding="utf-8").read()
open(f, "w", encoding="utf-8").write(re.sub(r'<span id="cb\d+-1"[^\n]*\n', "", page, count=1))
PY
grep -q "^FAIL: every chapter links the section of the guide .*missing in \['15 (PDF)', '15 (HTML)'\]$" "$g/log" &&
   grep -q "^FAIL: the HTML edition has a page for each .*missing in \['15 naive.cu (no page)', '15 optimized.cu (text differs)'\]$" "$g/log" &&
   [ "$(grep -c '^FAIL: ' "$g/log")" -eq 2 ]
verdict $? "the guide-anchor and source-page checks fail on chapter 15's links without their anchor and a site without one source page and another's first line" \
    "the guide-anchor and source-page checks do not both fail on their planted faults:" "$g/log"
# Planted: appendix D with its first table removed (HTML) and cut after its first lines (PDF).
local a=$CHK/planted-answers
plant_chapters "$a" <<'PY'
t = open(book + ".txt", encoding="utf-8").read()
i = t.rfind("Appendix D. For the instructor")
open(d + "/book.txt", "w", encoding="utf-8").write(t[:i + 400])
for f in glob.glob(d + "/dom/*.html"):
    s = open(f, encoding="utf-8").read()
    if 'id="instructor"' in s:
        open(f, "w", encoding="utf-8").write(re.sub(r"<table\b.*?</table>", "", s, count=1, flags=re.S))
PY
[ "$(grep -c '^FAIL: appendix D answers' "$a/log")" -eq 2 ]
verdict $? "the appendix D check fails on the appendix without its first table (HTML) and its tables (PDF)" \
    "the appendix D check does not fail on the appendix without its tables:" "$a/log"
}

# --- 3. Pictures to look at ---------------------------------------------------------------------------------
pictures() {
pdffonts "$OUT/book.pdf" 2>/dev/null | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }'
verdict $? "every font of the PDF is embedded" "the PDF has fonts that are not embedded"
# PDF pages: the title page, the first chapter's first page, the summary.
for spec in "title:1" "chapter:$(page_of "$first_title")" "summary:$(page_of 'Summary: every speedup at a glance')"; do
    name=${spec%%:*}; p=${spec#*:}
    [ -n "$p" ] || { fail "no page found for the $name"; continue; }
    pdftoppm -r 80 -png -f "$p" -l "$p" -singlefile "$OUT/book.pdf" "$CHK/pdf-$name" 2>/dev/null
    [ "$(stat -c %s "$CHK/pdf-$name.png" 2>/dev/null || echo 0)" -gt 8000 ]
    verdict $? "pdftoppm renders the $name page (page $p): $CHK/pdf-$name.png" "pdftoppm could not render the $name page (page $p)"
done
# --- HTML edition: pictures -------------------------------------------------------------------
# The site on a phone (390 px), light and dark: the front page, and one chapter's results.
shot() { # NAME dark|light PAGE[#ID]
    local name=$1
    python3 book/html/cdp.py shoot "$(url "$OUT/html/$3")" "$CHK/$name.png" 390 1100 "$2" >/dev/null 2>&1
    [ "$(stat -c %s "$CHK/$name.png" 2>/dev/null || echo 0)" -gt 10000 ]
    verdict $? "Chromium screenshot $CHK/$name.png" "Chromium screenshot $name is missing or blank"
}
shot phone-light light index.html
shot phone-dark dark index.html
if [ -n "$first_ch" ] && grep -q "id=\"ch${first_ch}-results\"" "$OUT/html/ch-$first_ch.html" 2>/dev/null; then
    shot "phone-ch$first_ch-results-dark" dark "ch-$first_ch.html#ch${first_ch}-results"
fi
}

# --- 4. The PDF's layout and typography (book/check_pdf.py) ------------------------------------
pdf_checks() {
# Two small documents with the faults the book had, read as GitHub markdown without the book's
# filters and typeset by book/pdf.sh: a table of 14 columns of unbreakable 12-digit numbers (fits
# no layout book/to-latex.lua tries), "straight quotes" (TeX prints both as closing marks unless
# pandoc reads them as quotations) and a caret exponent; and contents that fill two pages, typeset
# two-sided as the book was (BOOK_SIDES=twoside): the book class then leaves page iv blank before
# the first chapter.
typeset() { # DIR WHAT PANDOC-ARGS...: DIR/planted.md typeset in DIR, its text read back
    local dir=$1 what=$2; shift 2
    pandoc "$dir/planted.md" --from gfm "$@" --to json --output "$dir/book.json" &&
        book/pdf.sh "$dir/book.json" "$dir" >"$dir/log" 2>&1 && pdftotext -enc UTF-8 "$dir/book.pdf" "$dir/book.txt" ||
        { fail "book/pdf.sh could not typeset $what:"; sed 's/^/    /' "$dir/log"; }
}
mkdir -p "$CHK/planted" "$CHK/planted-sides"
{ echo '# Planted'; echo; echo 'A "quoted" phrase, and 1 GB = 10^9 bytes. A table too wide for the page:'; echo
  printf '|'; for i in $(seq 14); do printf ' c%d |' "$i"; done; echo
  printf '|'; for i in $(seq 14); do printf -- '---:|'; done; echo
  printf '|'; for i in $(seq 14); do printf ' %d |' $((100000000000 + i)); done; echo
} >"$CHK/planted/planted.md"
typeset "$CHK/planted" "the planted document"
for i in $(seq 40); do printf '## Chapter %d\n\nText of chapter %d.\n\n' "$i" "$i"; done >"$CHK/planted-sides/planted.md"
BOOK_SIDES=twoside typeset "$CHK/planted-sides" "the two-sided planted document" --metadata title=Planted
# Each check on the book, then on each fault book/plant_pdf.py plants for it, on which it must fail
# (a copy of the book's data, figures, text or a chart with one defect, or a document typeset above).
python3 book/plant_pdf.py run "$OUT" "$CHK"
# The roofline's labels are placed for other data than today's too (book/roofline-stress.lua): 20
# versions of each GPU's roofline, the chapters' points moved at random, every third crowded together.
mkdir -p "$CHK/roofline-stress"
if echo x | ROOF_DATA="$DATA" ROOF_OUT="$CHK/roofline-stress" pandoc -f markdown -t plain \
        --lua-filter book/roofline-stress.lua >/dev/null 2>"$CHK/roofline-stress.log"; then
    python3 book/check_pdf.py roofline-labels "$CHK/roofline-stress/figures.json" >"$CHK/pdf-roofline-stress.log" 2>&1
    ! grep -q '^FAIL: ' "$CHK/pdf-roofline-stress.log"
    verdict $? "no two labels overlap on any of $(grep -c '^PASS: Trial' "$CHK/pdf-roofline-stress.log") rooflines of jittered data" \
        "the roofline labels overlap on jittered data: $(grep '^FAIL: ' "$CHK/pdf-roofline-stress.log" | head -n 3 | cut -c7-200 | tr '\n' ' ')"
else
    fail "book/roofline-stress.lua failed: $(tail -n 3 "$CHK/roofline-stress.log")"
fi
}

# --- 5. The build must fail where it should (a missing marker or file, a broken link, a missing
# results row), and mark a stale row (a warning for a person, a failure in CI) that still fits the page
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
        else
            grep -qF "$expect" "$tmp/log"
            verdict $? "the build fails on $name (\"$(grep -F "$expect" "$tmp/log" | head -n 1)\")" \
                "the build fails on $name, but without saying \"$expect\":" "$tmp/log"
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
    if [ -z "$row" ]; then
        note "no measured chapter with an optimized row: the missing-results-row and stale tests need one"
        return
    fi
    planted "a missing results row" "missing results row" sed -i "${row_line}d" "res/$row_file"
    # A row measured from other sources must come out marked STALE (the build itself succeeds).
    tmp=$(scratch)
    echo '// planted: the sources changed after the measurement' >>"$tmp/$row_dir/optimized.cu"
    assemble "$tmp" && grep -q '"STALE' "$tmp/book/out/book.json" && grep -q 'warning: stale' "$tmp/log"
    verdict $? "the book marks a planted stale row STALE" "the book does not mark a planted stale row" "$tmp/log"
    # The stale-row rule (book/check_book.py): a WARNING: line for a person, FAIL: lines in CI.
    # Run on that chapter's data alone and a stub site: only how the stale rows are reported counts.
    if [ -s "$tmp/book/out/data.json" ]; then
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
    if assemble "$tmp" && python3 - "$tmp/book/out/book.json" "$tmp/stale.json" <<'PY2' && (cd "$tmp" && book/pdf.sh stale.json stale-pdf) >"$tmp/pdf.log" 2>&1
import json, re, sys
doc, picked = json.load(open(sys.argv[1])), []
def visit(blocks):  # each chapter's Results section, its charts and full record left out
    take = None
    for b in blocks:
        if b.get("t") == "Header":
            level, (ident, _, _), _ = b["c"]
            take = level if re.fullmatch(r"ch\d\d-results", ident) else None if take is not None and level <= take else take
        if take is None and b.get("t") == "Div":
            visit(b["c"][1])
        elif take is not None and not re.search(r'"Image"|"record"', json.dumps(b)):
            picked.append(b)
visit(doc["blocks"])
doc["blocks"] = picked
json.dump(doc, open(sys.argv[2], "w"))
print(sum('STALE' in json.dumps(b) for b in picked), "blocks marked STALE")
PY2
    then
        python3 book/check_pdf.py overfull "$tmp/stale-pdf/book.log" "$tmp/stale-pdf/book.tex" >"$tmp/overfull.log" 2>&1 &&
            grep -q 'STALE' "$tmp/stale-pdf/book.tex"
        verdict $? "every chapter's results marked stale fit the page (notes and tables)" \
            "results marked stale run into the margin:" "$tmp/overfull.log"
    else
        fail "the stale-width test could not typeset the stale results:"; tail -n 20 "$tmp/log" "$tmp/pdf.log" 2>/dev/null | sed 's/^/    /'
    fi
    rm -rf "$tmp"
fi
}

# --- 6. HTML edition: each layout check fails on a copy of the site with a defect planted for it
planted_html() {
# Copies of the site, each with one defect (a line of CSS appended to its style sheet, or a page,
# the script or the search index edited), checked on the first chapter's page at 390 px (search
# only on the copy whose index is planted): each must FAIL the check named beside it.
if [ -n "$first_ch" ] && [ -f "$OUT/html/ch-$first_ch.html" ]; then
    P=$CHK/planted-html
    page=ch-$first_ch.html
    rm -rf "$P"; mkdir -p "$P"
    local defects=() # NAME<TAB>CHECK: the planted copy NAME must fail CHECK
    plant() { cp -r "$OUT/html" "$P/$1"; defects+=("$1"$'\t'"$2"); }
    plant_css() { plant "$1" "$2"; printf '\n%s\n' "$3" >>"$P/$1/book.css"; }
    plant_edit() { # NAME CHECK FILE PYTHON: run PYTHON on the text s of the copy's FILE (re, json
        plant "$1" "$2" # and page at hand), save s
        [ -n "$3" ] && python3 -c 'import json, re, sys
f, page = sys.argv[1], sys.argv[3]
s = open(f, encoding="utf-8").read()
exec(sys.argv[2])
open(f, "w", encoding="utf-8").write(s)' "$P/$1/$3" "$4" "$page"
    }
    plant_css sideways "no page scrolls sideways" '.table-box { overflow: visible !important; } main table { min-width: 640px; }'
    plant_css clipped-listing "no listing, table or chart is clipped" 'main pre, pre > code.sourceCode > span { white-space: pre !important; overflow-x: hidden !important; }'
    plant_css clipped-by-page-edge "no listing, table or chart is clipped" 'html { overflow-x: hidden; } .table-box { overflow: visible !important; } main table { min-width: 640px; }'
    plant_css small-chart-text "every chart's smallest text is at least" '.chart-box img { min-width: 0 !important; width: 50% !important; }'
    plant_css chart-scrolls "every chart fits the column whole" '.chart-box img { min-width: 640px !important; }'
    plant_css table-scrolls "every table fits the column whole" 'table.wide { display: table !important; } table.wide thead { display: table-header-group !important; } table.wide tbody { display: table-row-group !important; } table.wide tr { display: table-row !important; } table.wide td { display: table-cell !important; } table.wide td::before { content: none !important; } main table td { white-space: nowrap !important; }'
    plant_css overlapping-line-numbers "no code line overlaps the one before it" 'pre > code.sourceCode > span { min-height: 0 !important; vertical-align: baseline !important; }'
    plant_css lost-indentation "every wrapped code line keeps its indentation" 'pre > code.sourceCode > span { --hang: 0px !important; }'
    # A text of the page's first phone chart made longer than the canvas is wide.
    plant_edit crowded-chart "every chart's text lies inside its canvas and no two of its texts touch" \
        "$(grep -o 'charts/[^"]*-phone\.svg' "$OUT/html/$page" | head -n 1)" 's = s.replace("<text>", "<text>" + "planted " * 8, 1)'
    plant_css caption-cut "a table wider than its column scrolls in its box with its caption wrapped" '.table-box > table > caption { max-width: none !important; position: static !important; }'
    # A caption pointing to the PDF's appendix C, which the site lacks.
    plant_edit appendix-gap "no page names an appendix the HTML edition lacks" \
        "$page" 's = s.replace("</figcaption>", " (the record in appendix C)</figcaption>", 1)'
    plant_edit no-sidebar "every page has the sidebar of contents" \
        "$page" 's = re.sub(r"<nav id=\"sidebar\".*?</ol></nav>", "", s, flags=re.S)'
    plant_edit no-pager "every page has previous and next links" \
        "$page" 's = re.sub(r"<nav class=\"pager pager-bottom\".*?</nav>", "", s, flags=re.S)'
    plant_edit no-copy-button "every listing has a copy button" book.js 's = s.replace("copy-button", "copy-gone")'
    plant_edit network-load "no page logs an error or loads anything from the network" \
        "$page" 's = s.replace("</main>", "<img src=\"http://localhost:9/x.png\" alt=\"\"></main>")'
    # The index without the sections of the page.
    plant_edit search-gap "search finds every section" search-index.js 'head, body = s.split("window.BOOK_INDEX =", 1)
d = json.loads(body.strip().rstrip(";"))
d["entries"] = [e for e in d["entries"] if d["pages"][e[0]][0] != page]
s = head + "window.BOOK_INDEX = " + json.dumps(d) + ";\n"'
    plant_edit no-arrow-keys "the left and right arrow keys open the previous and the next page" \
        book.js 's = s.replace("ArrowRight", "ArrowNone")'
    # The theme button no longer marks the root.
    plant_edit no-theme "the theme button turns the page dark and back" \
        book.js 's = s.replace("setAttribute(\x27data-theme\x27, theme)", "setAttribute(\x27data-none\x27, theme)")'
    plant_edit no-search-marks "a search hit opens its page with the words marked" \
        book.js 's = s.replace("mark.className = \x27search-mark\x27", "mark.className = \x27search-gone\x27")'
    # Search (a second a copy) only where it is the planted defect; those copies' lines get their labels.
    # The keys and the theme button (a dozen page loads) only where they are the planted defect.
    { python3 book/html/check.py --widths 390 --pages "$page" --no-search --no-keys $(ls -d "$P"/* | grep -Ev '/search-gap$|/no-search-marks$|/no-arrow-keys$|/no-theme$|/caption-cut$')
      python3 book/html/check.py --widths 390 --pages "$page" --no-search "$P/no-arrow-keys" "$P/no-theme"
      python3 book/html/check.py --widths 390 --pages "$page" --no-keys "$P/search-gap" | sed -E 's/^(PASS|FAIL): /&[search-gap] /'
      python3 book/html/check.py --widths 390 --pages "$page" --no-keys "$P/no-search-marks" | sed -E 's/^(PASS|FAIL): /&[no-search-marks] /'
      # A wide table's caption is cut at a laptop's width (on a phone a wide table is cards).
      python3 book/html/check.py --widths 1280 --pages "$page" --no-search --no-keys "$P/caption-cut" | sed -E 's/^(PASS|FAIL): /&[caption-cut] /'
    } >"$CHK/planted-html.log" 2>&1
    local d name check line
    for d in "${defects[@]}"; do
        name=${d%%$'\t'*}; check=${d#*$'\t'}
        line=$(grep -F "FAIL: [$name] " "$CHK/planted-html.log" | grep -F "$check" | head -n 1)
        if [ -n "$line" ]; then
            pass "the layout check fails on a planted $name (\"${line#FAIL: }\")"
        else
            fail "the layout check does not fail on a planted $name (expected a FAIL of \"$check\"); see $CHK/planted-html.log"
        fi
    done
fi
}


# --- The run -------------------------------------------------------------------------------------
tools >"$CHK/out/1-build" 2>&1 && make_book "$DATA" >>"$CHK/out/1-build" 2>&1 || finish
# The book's first chapter: its number (two digits) and title, for the pictures and planted faults below.
IFS=$'\t' read -r first_ch first_title < <(python3 -c 'import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["chapters"] if c["status"] == "written")
print(c["nn"], "%s. %s" % (c["nn"], c["title"]), sep="\t")' "$DATA" 2>/dev/null)
# The page where a chapter or the summary starts in the PDF: the first whose first line is its title.
page_of() { python3 -c 'import re, sys
pages = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\f")
key = re.sub(r"\s+", "", sys.argv[2])
for i, p in enumerate(pages, 1):
    head = re.sub(r"\s+", "", next((l for l in p.split("\n") if l.strip()), ""))
    if len(head) >= 4 and (key.startswith(head) or head.startswith(key)):
        print(i); break' "$CHK/book.txt" "$1"; }
section 5-build-fails build_fails   # needs only the data: beside the rest of the build
section 7-reproducible reproducible # likewise
build >>"$CHK/out/1-build" 2>&1 || finish
pdftotext -enc UTF-8 "$OUT/book.pdf" "$CHK/book.txt" 2>/dev/null
pdfinfo -url "$OUT/book.pdf" >"$CHK/book.urls" 2>/dev/null
section 2-text text_checks
section 3-pictures pictures
section 4-pdf pdf_checks
section 6-planted-html planted_html
finish
