#!/usr/bin/env bash
# book/check.sh: build the book and check what came out. Prints one PASS: or FAIL: line per
# assertion, ends with "N passed, N failed", and exits non-zero if anything failed.
#   RESULTS_DIR  results files to build from (default results)
#   BOOK_OUT     where the book goes (default book/out); the check's own files go to $BOOK_OUT/check
# The text of both editions is checked against the data the book was built from, as
# `scripts/results.py book-json` prints it (book/check_book.py): every chapter, listing, results
# row, verdict and evidence metric in its chapter, nothing stale, every internal link resolving.
# Then the HTML rendering in headless Chromium and PDF pages by pdftoppm (pictures to look at),
# and that the build does fail on a missing marker or file, a broken link and a missing results
# row, and marks a stale row. Section 5: the PDF's layout and typography (book/check_pdf.py), each
# check also run on a planted fault.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

RESULTS_DIR=${RESULTS_DIR:-results}
OUT=${BOOK_OUT:-book/out}
CHK=$OUT/check
url() { case "$1" in /*) echo "file://$1" ;; *) echo "file://$PWD/$1" ;; esac; }
CHROMIUM=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage)
passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
note() { echo "NOTE: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

missing=()
for tool in pdftotext pdftoppm pdffonts chromium python3; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    fail "the book check needs ${missing[*]}; install with: sudo make deps"
    finish
fi

# --- 1. Build -------------------------------------------------------------------------------
mkdir -p "$OUT"
rm -rf "$CHK"
mkdir -p "$CHK"
if RESULTS_DIR=$RESULTS_DIR BOOK_OUT=$OUT book/build.sh >"$CHK/build.log" 2>&1; then
    pass "make book builds"
else
    fail "make book failed:"
    sed 's/^/    /' "$CHK/build.log"
    finish
fi
for f in book.pdf book.html book.epub; do
    if [ -s "$OUT/$f" ]; then pass "$OUT/$f exists"; else fail "$OUT/$f is missing or empty"; fi
done

# --- 2. Both editions against the data ---------------------------------------------------------
pdftotext -enc UTF-8 "$OUT/book.pdf" "$CHK/book.txt" 2>/dev/null
# Rendered DOM of the HTML (what a browser shows), and the console errors of rendering it.
"${CHROMIUM[@]}" --enable-logging=stderr --v=0 \
    --dump-dom "$(url "$OUT/book.html")" >"$CHK/dom.html" 2>"$CHK/chromium.log"
rc=$?
if [ $rc -eq 0 ] && [ -s "$CHK/dom.html" ]; then pass "headless Chromium loads book.html"; else fail "headless Chromium could not load book.html (exit $rc)"; fi
if grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR' "$CHK/chromium.log" >"$CHK/console.txt"; then
    fail "Chromium reports errors rendering book.html:"; sed 's/^/    /' "$CHK/console.txt"
else
    pass "no console or resource errors while rendering book.html"
fi
if grep -Eiq '<(script|link|img)[^>]+(src|href)="(https?:)?//' "$OUT/book.html"; then
    fail "book.html loads something from the network; it must be self-contained"
else
    pass "book.html is self-contained (no external scripts, styles or images)"
fi
if python3 scripts/results.py book-json --results-dir "$RESULTS_DIR" >"$CHK/data.json" 2>"$CHK/data.log"; then
    python3 book/check_book.py "$CHK/data.json" "$CHK/book.txt" "$CHK/dom.html" >"$CHK/text.log" 2>&1
    cat "$CHK/text.log"
    passed=$((passed + $(grep -c '^PASS: ' "$CHK/text.log")))
    failed=$((failed + $(grep -c '^FAIL: ' "$CHK/text.log")))
    grep -qE '^(PASS|FAIL): ' "$CHK/text.log" || fail "book/check_book.py checked nothing: $(tail -n 1 "$CHK/text.log")"
else
    fail "scripts/results.py book-json failed: $(cat "$CHK/data.log")"
fi
# The chapters (two-digit numbers) in the book, for the pictures and planted faults below.
mapfile -t chapter_nns < <(python3 -c 'import json, sys
print("\n".join(c["nn"] for c in json.load(open(sys.argv[1]))["chapters"] if c["status"] == "written"))' "$CHK/data.json" 2>/dev/null)
first_ch=${chapter_nns[0]:-}
# The page where a chapter or the summary starts in the PDF: the first whose first line is its title.
page_of() { python3 -c 'import re, sys
pages = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\f")
key = re.sub(r"\s+", "", sys.argv[2])
for i, p in enumerate(pages, 1):
    head = re.sub(r"\s+", "", next((l for l in p.split("\n") if l.strip()), ""))
    if len(head) >= 4 and (key.startswith(head) or head.startswith(key)):
        print(i); break' "$CHK/book.txt" "$1"; }

# --- 3. Pictures to look at ---------------------------------------------------------------------------------
if pdffonts "$OUT/book.pdf" 2>/dev/null | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }'; then
    pass "every font of the PDF is embedded"
else
    fail "the PDF has fonts that are not embedded"
fi
# PDF pages: the title page, the first chapter's first page, the summary.
first_title=$(python3 -c 'import json, sys
print(next("%s. %s" % (c["nn"], c["title"]) for c in json.load(open(sys.argv[1]))["chapters"] if c["status"] == "written"))' "$CHK/data.json" 2>/dev/null)
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
# HTML on a phone (412 px), light and dark: the top of the book, and one chapter's results.
shot() { # NAME SCHEME(0 dark, 1 light) [ID]: screenshot, showing only section ID when given
    local name=$1 scheme=$2 id=${3:-} page="$OUT/book.html"
    if [ -n "$id" ]; then
        page="$CHK/only-$id.html"
        sed "s#</head>#<style>body > *:not(section){display:none} body > section:not(\#$id):not(:has(\#$id)){display:none} section:has(\#$id) > *:not(section){display:none} section:has(\#$id) > section:not(\#$id):not(:has(\#$id)){display:none}</style></head>#" \
            "$OUT/book.html" >"$page"
    fi
    local png; png=$(url "$CHK/$name.png"); png=${png#file://}
    "${CHROMIUM[@]}" --hide-scrollbars --blink-settings=preferredColorScheme="$scheme" \
        --window-size=412,1100 --screenshot="$png" "$(url "$page")" >/dev/null 2>&1
    if [ "$(stat -c %s "$CHK/$name.png" 2>/dev/null || echo 0)" -gt 10000 ]; then
        pass "Chromium screenshot $CHK/$name.png"
    else
        fail "Chromium screenshot $name is missing or blank"
    fi
}
shot phone-light 1
shot phone-dark 0
if [ -n "$first_ch" ]; then
    sec=$(grep -o "id=\"ch${first_ch}-results\"" "$OUT/book.html" | head -n 1)
    if [ -n "$sec" ]; then shot "phone-ch$first_ch-results-dark" 0 "ch${first_ch}-results"; fi
fi

# --- 5. The PDF's layout and typography (book/check_pdf.py) ------------------------------------
# Each check runs on the book, then on a planted fault, on which it must fail.
pdf_check() { # NAME ARGS...: run a check_pdf.py check on the book, count its lines
    python3 book/check_pdf.py "$@" >"$CHK/pdf-$1.log" 2>&1
    cat "$CHK/pdf-$1.log"
    passed=$((passed + $(grep -c '^PASS: ' "$CHK/pdf-$1.log")))
    failed=$((failed + $(grep -c '^FAIL: ' "$CHK/pdf-$1.log")))
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
# Every part is real (the first edition's Part V was a page with one planned chapter). Planted:
# the data with the last part's chapters marked planned.
pdf_check parts "$CHK/data.json" "$CHK/book.txt"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); last = set(d["parts"][-1]["chapters"])
for c in d["chapters"]:
    if c["nn"] in last: c["status"] = "planned"
json.dump(d, open(sys.argv[2], "w"))' "$CHK/data.json" "$CHK/data-planned.json" &&
    planted_pdf "a part whose chapters are all planned" parts "$CHK/data-planned.json" "$CHK/book.txt"
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
# --- end of section 5 -----------------------------------------------------------------------------

# --- 4. The build must fail where it should ----------------------------------------------------------
# In a scratch copy of book/, scripts/, chapters/ and the results, plant a fault and assemble
# (book.json only). The faults are made in the sources; the results files are only ever cut by a
# whole line whose number the data gives.
if [ -n "$first_ch" ]; then
    src_dir=$(ls -d chapters/"$first_ch"-*/ | head -n 1); src_dir=${src_dir%/}
    scratch() { # a fresh copy to plant a fault in; prints its path
        local tmp; tmp=$(mktemp -d)
        cp -r book scripts chapters "$tmp/"; rm -rf "$tmp/book/out"
        mkdir -p "$tmp/res"; cp -r "$RESULTS_DIR"/. "$tmp/res/" 2>/dev/null
        echo "$tmp"
    }
    assemble() { (cd "$1" && RESULTS_DIR=res BOOK_OUT=$1/out book/build.sh --assemble-only) >"$1/log" 2>&1; }
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
    planted "a broken cross-reference" "does not exist" \
        sed -i '0,/^## /s//See [nowhere](..\/99-nowhere\/README.md).\n\n## /' "$readme"
    # The optimized row of the first chapter on the first GPU: its file and line, from the data.
    row=$(python3 -c 'import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["chapters"] if c["results"])
g = c["results"][0]
print(g["file"].rsplit("/", 1)[-1], next(r["line"] for r in g["rows"] if r["variant"] == "optimized"), c["folder"])' "$CHK/data.json" 2>/dev/null)
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
    elif assemble "$tmp" && grep -q '"STALE' "$tmp/out/book.json" && grep -q 'warning: stale' "$tmp/log"; then
        pass "the book marks a planted stale row STALE"
    else
        fail "the book does not mark a planted stale row"; sed 's/^/    /' "$tmp/log"
    fi
    rm -rf "$tmp"
fi

finish
