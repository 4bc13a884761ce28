#!/usr/bin/env bash
# book/build.sh: build the book. Called by `make book`; run from the repository root.
#   RESULTS_DIR  where the results files are (default results)
#   BOOK_OUT     where the book goes (default book/out)
#   --assemble-only   stop after step 1 (book.json); book/check.sh uses it for its failure tests
#   --data-only, --from-data   step 1's data alone, then the rest from it: `make book` (book/book.mk)
#                     makes $BOOK_OUT/data.json first, which book/check.sh uses beside the build
# scripts/results.py reads and checks every data file and writes $BOOK_OUT/data.json; one assembly
# pass (book/book.lua, layout only) turns book/book.md, the chapters' READMEs and that document
# into $BOOK_OUT/book.json; the PDF (book/pdf.sh), HTML and EPUB writers then run from that, in
# parallel.
set -euo pipefail

RESULTS_DIR=${RESULTS_DIR:-results}
OUT=${BOOK_OUT:-book/out}

# Tools: pandoc (Lua filters), xelatex, gnuplot, rsvg-convert. Say how to get what is missing.
missing=()
for tool in pandoc xelatex gnuplot rsvg-convert; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "error: the book needs ${missing[*]}, which $( [ ${#missing[@]} -gt 1 ] && echo are || echo is) not installed." >&2
    echo "       On Debian or Ubuntu: sudo make deps   (runs scripts/install-deps.sh, apt-get)" >&2
    exit 2
fi
if ! fc-list : family 2>/dev/null | grep 'DejaVu Serif' >/dev/null; then
    echo "error: the book needs the DejaVu fonts; sudo make deps installs them" >&2
    exit 2
fi
pv=$(pandoc --version | sed -n '1s/^pandoc[^ ]* //p')
case "$pv" in
    1.*|2.[0-9]|2.[0-9].*|2.1[0-6]|2.1[0-6].*)
        echo "error: the book needs pandoc 2.17 or newer; this is pandoc $pv" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
# 1. The data, then the assembly. A missing file, marker, results row or cross-reference stops here.
if [ "${1:-}" != --from-data ]; then
    rm -f "$OUT/data.json"
    if ! python3 scripts/results.py book-json --results-dir "$RESULTS_DIR" >"$OUT/data.json.tmp"; then
        echo "error: scripts/results.py book-json failed (the line above says why)" >&2
        exit 1
    fi
    mv "$OUT/data.json.tmp" "$OUT/data.json"
fi
[ "${1:-}" = --data-only ] && exit 0
rm -f "$OUT/book.json" "$OUT/book.pdf" "$OUT/book.html" "$OUT/book.epub"
rm -rf "$OUT/html"
log="$OUT/log"
mkdir -p "$log"
pandoc book/book.md --from markdown --to json --fail-if-warnings \
    --lua-filter book/book.lua \
    --metadata book-data="$OUT/data.json" --metadata out-dir="$OUT" \
    --output "$OUT/book.json"
[ "${1:-}" = --assemble-only ] && exit 0

# 2. Write the three editions from the same document.
common=(--from json --fail-if-warnings --toc --highlight-style=tango)

# --- PDF: book/pdf.sh typesets it in $OUT/latex (keeps xelatex's log, for book/check.sh) -------
{ book/pdf.sh "$OUT/book.json" "$OUT/latex" && cp "$OUT/latex/book.pdf" "$OUT/book.pdf"; } >"$log/pdf.txt" 2>&1 &
pdf=$!
# --- end of the PDF block ---------------------------------------------------------------------

# --- HTML edition (book/html/) ---
# One Pandoc pass through book/html/template.html, then book/html/site.py cuts it into the site
# $OUT/html/ (a page per chapter, sidebar, previous/next, search index; works from file://) and
# writes the one-page $OUT/book.html (styles and charts inlined).
{
    pandoc "$OUT/book.json" "${common[@]}" --to html5 --mathml --section-divs \
        --template book/html/template.html \
        --metadata pagetitle="CUDA Performance Guidelines, Measured" \
        --output "$OUT/log/book-pandoc.html" &&
    python3 book/html/site.py "$OUT/log/book-pandoc.html" book/book.css book/html/book.js "$OUT" >/dev/null
} >"$log/html.txt" 2>&1 &
html=$!
# --- end of the HTML edition ---

pandoc "$OUT/book.json" "${common[@]}" --to epub3 --mathml --toc-depth=2 --css book/book.css \
    --output "$OUT/book.epub" >"$log/epub.txt" 2>&1 &
epub=$!

status=0
for job in "pdf:$pdf" "html:$html" "epub:$epub"; do
    name=${job%%:*}
    if ! wait "${job#*:}"; then
        echo "error: writing the $name edition failed:" >&2
        cat "$log/$name.txt" >&2
        if grep -q "\.sty' not found\|Font .* not found\|not loadable" "$log/$name.txt"; then
            echo "error: a TeX Live package or font is missing; sudo make deps installs them" >&2
        fi
        status=1
    elif [ -s "$log/$name.txt" ]; then
        cat "$log/$name.txt" >&2
    fi
done
[ $status -eq 0 ] || exit $status

echo "book: $OUT/book.pdf"
echo "book: $OUT/html/index.html (the HTML edition: a page per chapter, works offline)"
echo "book: $OUT/book.html (the same on one self-contained page)"
echo "book: $OUT/book.epub"
