#!/usr/bin/env bash
# book/pdf.sh: the PDF edition. book/pdf.sh BOOK.json DIR writes DIR/book.pdf from the assembled
# document (book/build.sh calls it; book/check.sh also runs it on small planted documents).
# Pandoc writes DIR/book.tex (book/to-latex.lua, book/header.tex); xelatex typesets it in DIR,
# where its log stays for book/check.sh (overfull boxes). The .aux, .toc and .out stay between
# builds: a pass is repeated only while they change (a first build takes 3 passes, a rebuild whose
# page breaks did not move 1), and a .tex that is unchanged, charts included, is not typeset again.
# Fails on a glyph the fonts lack, as pandoc's own PDF writer would warn about it.
# One-sided: the book is read on a screen or printed one-sided, and the two-sided book class left
# a page blank before the first chapter (page iv). BOOK_SIDES=twoside typesets it the old way
# (book/check.sh does, on a small document, to show the blank-page check fails on it).
set -euo pipefail
json=$1
dir=$2
mkdir -p "$dir"

pandoc "$json" --from json --fail-if-warnings --toc --highlight-style=tango --to latex --standalone \
    --lua-filter book/to-latex.lua --top-level-division=part --toc-depth=1 \
    --include-in-header book/header.tex \
    -V documentclass=book -V classoption="${BOOK_SIDES:-oneside}" -V classoption=openany -V fontsize=10pt -V papersize=a4 \
    -V geometry:top=2.0cm -V geometry:bottom=2.2cm -V geometry:left=2.3cm -V geometry:right=2.3cm \
    -V mainfont="DejaVu Serif" -V sansfont="DejaVu Sans" -V monofont="DejaVu Sans Mono" \
    -V mainfontoptions=Scale=0.95 -V monofontoptions=Scale=0.85 \
    -V colorlinks=true -V linkcolor="blue!55!black" -V urlcolor="blue!55!black" -V toccolor=black \
    --output "$dir/book.tex.new"

# The charts and the header are part of the input: a redrawn chart means typesetting again.
cat "$dir/book.tex.new" book/header.tex \
    $(sed -n 's/.*\\includegraphics[^{]*{\([^}]*\)}.*/\1/p' "$dir/book.tex.new" | sort -u) \
    | md5sum >"$dir/input.md5.new"
if cmp -s "$dir/input.md5.new" "$dir/input.md5" && [ -s "$dir/book.pdf" ]; then
    echo "unchanged since the last build: not typeset again" >"$dir/passes.txt"
else
    rm -f "$dir/input.md5"
    mv "$dir/book.tex.new" "$dir/book.tex"
    aux_files() { cat "$dir"/book.aux "$dir"/book.toc "$dir"/book.out 2>/dev/null || true; }
    # Without an .aux the first pass only collects references: it need not write a PDF (-no-pdf).
    nopdf=(); [ -s "$dir/book.aux" ] || nopdf=(-no-pdf)
    for pass in 1 2 3 4; do
        before=$(aux_files | md5sum)
        if ! xelatex "${nopdf[@]}" -interaction=nonstopmode -halt-on-error -file-line-error \
                -output-directory="$dir" "$dir/book.tex" >/dev/null 2>&1; then
            echo "error: xelatex failed on $dir/book.tex (its log is $dir/book.log):" >&2
            grep -A 3 -E '^(!|.*:[0-9]+: )' "$dir/book.log" | head -n 30 >&2
            exit 1
        fi
        after=$(aux_files | md5sum)
        [ "$before" = "$after" ] && [ ${#nopdf[@]} -eq 0 ] && break
        nopdf=()
    done
    echo "$pass xelatex pass(es)" >"$dir/passes.txt"
    mv "$dir/input.md5.new" "$dir/input.md5"
fi
rm -f "$dir/book.tex.new" "$dir/input.md5.new"
if grep 'Missing character' "$dir/book.log" >&2; then
    echo "error: the fonts lack the characters above ($dir/book.log)" >&2
    exit 1
fi
