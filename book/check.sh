#!/usr/bin/env bash
# book/check.sh: build the book and check what came out. Prints one PASS: or FAIL: line per
# assertion, ends with "N passed, N failed", and exits non-zero if anything failed.
#   RESULTS_DIR  results files to build from (default results)
#   BOOK_OUT     where the book goes (default book/out); the check's own files go to $BOOK_OUT/check
# Checks, independently of the build where it can: every chapter in the PDF text and the HTML;
# every results row's numbers in its chapter, none stale, none failing its check; every listing
# non-empty and equal to its marked region of the source; every internal link resolving; the
# HTML rendering in headless Chromium (screenshots to look at); PDF pages rendered by pdftoppm;
# and that the build does fail on a missing marker, a missing results row and a broken link.
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
for tool in pdftotext pdftoppm pdffonts chromium; do
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
t0=$(date +%s%N)
if RESULTS_DIR=$RESULTS_DIR BOOK_OUT=$OUT book/build.sh >"$CHK/build.log" 2>&1; then
    secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
    pass "make book builds ($secs s)"
    if [ "$secs" -lt 60 ]; then pass "the build takes under a minute"; else fail "the build took $secs s (limit 60)"; fi
else
    fail "make book failed:"
    sed 's/^/    /' "$CHK/build.log"
    finish
fi
for f in book.pdf book.html book.epub; do
    if [ -s "$OUT/$f" ]; then pass "$OUT/$f exists"; else fail "$OUT/$f is missing or empty"; fi
done

# --- 2. Text of both editions -----------------------------------------------------------------
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

# Whitespace-free text: robust against line breaks, hyphenation and code wrapping.
squeeze() { tr -d ' \t\n\r\f\302\240'; }
html_text() { sed -e 's/<[^>]*>/ /g' -e 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g'; }

# PDF pages split at form feeds; a chapter starts on the page whose first line is its title.
awk 'BEGIN { RS = "\f" } { n = split($0, L, "\n"); first = ""; for (i = 1; i <= n; i++) if (L[i] ~ /[^ \t]/) { first = L[i]; break }
     gsub(/^[ \t]+|[ \t]+$/, "", first); print NR "\t" first }' "$CHK/book.txt" >"$CHK/page-heads.tsv"
awk 'BEGIN { RS = "\f" } { f = sprintf("'"$CHK"'/page-%03d.txt", NR); printf "%s", $0 > f; close(f) }' "$CHK/book.txt"
npages=$(wc -l <"$CHK/page-heads.tsv")

# --- 3. Chapters -------------------------------------------------------------------------------
mapfile -t readmes < <(ls chapters/[0-9][0-9]-*/README.md 2>/dev/null | LC_ALL=C sort)
if [ ${#readmes[@]} -eq 0 ]; then note "no chapter has a README.md yet"; fi
starts=()
declare -A title_of start_of
for readme in "${readmes[@]}"; do
    dir=$(dirname "$readme"); nn=$(basename "$dir" | cut -c1-2)
    title=$(head -n 1 "$readme" | sed 's/^# *//')
    title_of[$nn]=$title
    key=$(printf '%s' "$title" | squeeze)
    page=$(awk -F'\t' -v k="$key" '{ h = $2; gsub(/[ \t\302\240]/, "", h) } h != "" && index(k, h) == 1 && length(h) >= 4 { print $1; exit }' "$CHK/page-heads.tsv")
    if [ -n "$page" ]; then
        pass "chapter $nn \"$title\" is in the PDF (page $page)"
        start_of[$nn]=$page
        starts+=("$page")
    else
        fail "chapter $nn \"$title\" is not in the PDF"
    fi
    if html_text <"$CHK/dom.html" | squeeze | grep -qF "$key"; then
        pass "chapter $nn \"$title\" is in the HTML"
    else
        fail "chapter $nn \"$title\" is not in the HTML"
    fi
done
# Other headings that start a page end a chapter too: parts, summary, appendices.
while IFS=$'\t' read -r p head; do
    case "$head" in Part\ *|Summary*|Appendix*) starts+=("$p") ;; esac
done <"$CHK/page-heads.tsv"
# chapter_text NN FORMAT: the chapter's text, runs of whitespace made one space.
spaces() { tr -s ' \t\n\r\f' ' '; }
chapter_text() {
    local nn=$1 fmt=$2
    if [ "$fmt" = pdf ]; then
        local s=${start_of[$nn]:-} e=$((npages + 1)) p
        [ -n "$s" ] || return 0
        for p in "${starts[@]}"; do [ "$p" -gt "$s" ] && [ "$p" -lt "$e" ] && e=$p; done
        for ((p = s; p < e; p++)); do cat "$(printf '%s/page-%03d.txt' "$CHK" "$p")"; done | spaces
    else
        awk -v id="id=\"ch-$nn\"" 'index($0, id) { on = 1 } on && /id="(ch-[0-9][0-9]|part-[0-9]|summary|guideline-index|reproduce)"/ && !index($0, id) { exit } on' \
            "$CHK/dom.html" | html_text | spaces
    fi
}
mapfile -t chapter_nns < <(printf '%s\n' "${!title_of[@]}" | sort)
for nn in "${chapter_nns[@]}"; do
    chapter_text "$nn" pdf >"$CHK/ch-$nn.pdf.txt"
    chapter_text "$nn" html >"$CHK/ch-$nn.html.txt"
done

# --- 4. Listings ---------------------------------------------------------------------------------
# The build's manifest names every listing; the check cuts the same region from the source itself.
region() { # FILE MARKER: the lines between the two `// [MARKER]` lines, blank ends trimmed
    awk -v tag="// [$2]" '{ t = $0; gsub(/^[ \t]+|[ \t]+$/, "", t) } t == tag { n++; next } n == 1 { print }' "$1" |
        awk 'NF { last = NR } { line[NR] = $0 } END { for (i = 1; i <= last; i++) if (started || line[i] ~ /[^ \t]/) { started = 1; print line[i] } }'
}
nlist=0
while IFS=$'\t' read -r kind nn id meta nlines; do
    [ "$kind" = listing ] || continue
    nlist=$((nlist + 1))
    dir=$(ls -d chapters/"$nn"-*/ 2>/dev/null | head -n 1); dir=${dir%/}
    if [ "${nlines:-0}" -gt 0 ]; then pass "listing $id ($meta) is not empty ($nlines lines)"; else fail "listing $id ($meta) is empty"; fi
    html_code=$(awk -v id="id=\"$id\"" 'index($0, id) { on = 1 } on { print } on && /<\/pre>/ { exit }' "$CHK/dom.html" | html_text | squeeze)
    if [ -n "$html_code" ]; then pass "listing $id has code in the HTML"; else fail "listing $id has no code in the HTML"; fi
    label="Listing $((10#$nn)).${id##*-}:"
    if grep -qF "$label" "$CHK/ch-$nn.pdf.txt"; then pass "\"$label\" is in chapter $nn of the PDF"; else fail "\"$label\" is not in chapter $nn of the PDF"; fi
    case "$meta" in
    diff:*) ;;
    *)
        file=${meta%%:*}; marker=${meta#*:}
        if [ -n "$marker" ]; then src=$(region "$dir/$file" "$marker"); else src=$(cat "$dir/$file"); fi
        want=$(printf '%s\n' "$src" | grep -c '')
        if [ "$want" = "$nlines" ]; then pass "listing $id has all $want lines of $file [$marker]"; else fail "listing $id has $nlines lines, $file [$marker] has $want"; fi
        first=$(printf '%s\n' "$src" | grep -m1 '[^[:space:]]' | squeeze | cut -c1-40)
        if [ -n "$first" ] && squeeze <"$CHK/ch-$nn.pdf.txt" | grep -qF "$first"; then pass "listing $id shows $file's code in the PDF"; else fail "listing $id: the first line of $file [$marker] is not in chapter $nn of the PDF"; fi
        ;;
    esac
done <"$OUT/manifest.tsv"
[ ${#readmes[@]} -eq 0 ] || [ "$nlist" -gt 0 ] || fail "the manifest lists no listings"

# --- 5. Results ------------------------------------------------------------------------------------
# One line per row: file, line, chapter, variant, median, noise, rate, % of roof, speedup, hash,
# check ("-" for an empty field). The parser handles quoted fields.
csv_rows() {
    awk '
    function parse(line,   n, i, c, f, q) {
        n = 0; f = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 } else f = f c }
            else if (c == "\"") q = 1
            else if (c == ",") { F[++n] = f; f = "" }
            else f = f c
        }
        F[++n] = f
        return n
    }
    function v(name) { return (name in H && F[H[name]] != "") ? F[H[name]] : "-" }
    function f1(x) { return x == "-" ? x : sprintf("%.1f", x) }  # the book shows one decimal
    FNR == 1 { delete H; n = parse($0); for (i = 1; i <= n; i++) H[F[i]] = i; next }
    /^[ \t\r]*$/ { next }
    {
        sub(/\r$/, ""); parse($0)
        k = FILENAME SUBSEP (v("chapter") + 0)
        rate = v("gbs") != "-" ? v("gbs") : v("gflops")
        rows[++m] = FILENAME "\t" FNR "\t" sprintf("%02d", v("chapter")) "\t" v("variant") "\t" f1(v("median_us")) "\t" f1(v("noise_pct")) "\t" f1(rate) "\t" f1(v("pct_roof"))
        tail[m] = v("source_hash") "\t" v("check")
        med[m] = v("median_us"); key[m] = k
        if (v("variant") == "naive") naive[k] = v("median_us")
    }
    END {
        for (i = 1; i <= m; i++) {
            s = "-"
            if ((key[i] in naive) && naive[key[i]] != "-" && med[i] != "-" && med[i] + 0 > 0) s = sprintf("%.2f", naive[key[i]] / med[i])
            print rows[i] "\t" s "\t" tail[i]
        }
    }' "$@"
}
hash_of() { python3 scripts/results.py hash "$1"; } # the project's source hash of a chapter
mapfile -t csvs < <(ls "$RESULTS_DIR"/*.csv 2>/dev/null | LC_ALL=C sort)
if [ ${#csvs[@]} -eq 0 ]; then
    note "no results files in $RESULTS_DIR/: every chapter must say it is not measured yet"
    for nn in "${chapter_nns[@]}"; do
        if grep -qF 'Not measured yet' "$CHK/ch-$nn.pdf.txt"; then pass "chapter $nn says \"not measured yet\""; else fail "chapter $nn has no results and does not say \"not measured yet\""; fi
    done
else
    declare -A hashes
    while IFS=$'\t' read -r file line nn variant median noise rate pct speedup hash check; do
        where="$file:$line (chapter $nn $variant)"
        dir=$(ls -d chapters/"$nn"-*/ 2>/dev/null | head -n 1); dir=${dir%/}
        if [ -z "$dir" ]; then fail "$where: no chapter folder for these results"; continue; fi
        [ -n "${hashes[$nn]:-}" ] || hashes[$nn]=$(hash_of "$dir")
        if [ "$hash" = "${hashes[$nn]}" ]; then
            pass "$where is fresh (sources hash $hash)"
        else
            fail "$where is stale: measured from sources hashed $hash, now ${hashes[$nn]}; run make results CHAPTERS=$nn"
            if grep -qF STALE "$CHK/ch-$nn.pdf.txt" 2>/dev/null; then pass "the book marks chapter $nn's stale row"; else fail "the book does not mark chapter $nn's stale row"; fi
        fi
        if [ "$check" = fail ]; then fail "$where failed its correctness check"; fi
        if [ -z "${title_of[$nn]:-}" ]; then note "$where: chapter $nn has no README.md yet; not in the book"; continue; fi
        for fmt in pdf html; do
            missing_nums=()
            for x in "$median" "$noise" "$rate" "$pct" "$speedup"; do
                [ "$x" = - ] && continue
                grep -qwF "$x" "$CHK/ch-$nn.$fmt.txt" || missing_nums+=("$x")
            done
            if [ ${#missing_nums[@]} -eq 0 ]; then pass "$where: its numbers are in the chapter ($fmt)"; else fail "$where: ${missing_nums[*]} not in chapter $nn ($fmt)"; fi
        done
    done < <(csv_rows "${csvs[@]}")
fi

# --- 6. Guideline index and cross-references -------------------------------------------------------------
rows=$(grep -vc '^#' book/guideline-index.tsv)
if [ "$rows" -eq 50 ]; then pass "book/guideline-index.tsv maps all 50 recommendations"; else fail "book/guideline-index.tsv has $rows rows, not 50"; fi
miss=$(for i in $(seq -w 1 50); do grep -qF "G$i" "$CHK/book.txt" || echo "G$i"; done)
if [ -z "$miss" ]; then pass "every recommendation G01-G50 is in the PDF's appendix"; else fail "recommendations missing from the PDF: $miss"; fi
grep -o 'href="#[^"]*"' "$OUT/book.html" | sed 's/^href="#//; s/"$//' | sort -u >"$CHK/hrefs.txt"
grep -o ' id="[^"]*"' "$OUT/book.html" | sed 's/^ id="//; s/"$//' | sort -u >"$CHK/ids.txt"
broken=$(comm -23 "$CHK/hrefs.txt" "$CHK/ids.txt" | tr '\n' ' ')
if [ -z "$broken" ]; then pass "every internal link of the HTML has its target ($(wc -l <"$CHK/hrefs.txt") targets)"; else fail "links without a target in the HTML: $broken"; fi

# --- 7. Pictures to look at ---------------------------------------------------------------------------------
if pdffonts "$OUT/book.pdf" 2>/dev/null | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }'; then
    pass "every font of the PDF is embedded"
else
    fail "the PDF has fonts that are not embedded"
fi
# PDF pages: the title page, the first chapter's first page, the summary.
first_ch=${chapter_nns[0]:-}
summary_page=$(awk -F'\t' '$2 ~ /^Summary/ { print $1; exit }' "$CHK/page-heads.tsv")
for spec in "title:1" "chapter:${start_of[$first_ch]:-}" "summary:$summary_page"; do
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

# --- 8. The build must fail where it should ----------------------------------------------------------
# In a scratch copy holding book/ and one chapter, plant a fault and assemble (book.json only).
if [ -n "$first_ch" ]; then
    src_dir=$(ls -d chapters/"$first_ch"-*/ | head -n 1); src_dir=${src_dir%/}
    planted() { # NAME EXPECTED-MESSAGE SETUP-COMMAND...
        local name=$1 expect=$2; shift 2
        local tmp; tmp=$(mktemp -d)
        mkdir -p "$tmp/chapters" "$tmp/res"
        cp -r book scripts "$tmp/"; rm -rf "$tmp/book/out"
        cp -r "$src_dir" "$tmp/chapters/"
        (cd "$tmp" && "$@") >/dev/null 2>&1
        if (cd "$tmp" && RESULTS_DIR=res BOOK_OUT=$tmp/out book/build.sh --assemble-only) >"$tmp/log" 2>&1; then
            fail "the build does not fail on $name"
        elif grep -qF "$expect" "$tmp/log"; then
            pass "the build fails on $name (\"$expect\")"
        else
            fail "the build fails on $name, but without saying \"$expect\":"; sed 's/^/    /' "$tmp/log"
        fi
        rm -rf "$tmp"
    }
    readme=$src_dir/README.md
    planted "a missing marker" "not found in" \
        sed -i '0,/<!-- listing: \([^ ]*\) [^ ]* -->/s//<!-- listing: \1 no-such-marker -->/' "$readme"
    planted "a missing source file" "does not exist" \
        sed -i '0,/<!-- listing: [^ ]* /s//<!-- listing: no-such-file.cu /' "$readme"
    planted "a broken cross-reference" "does not exist" \
        sed -i '0,/^## /s//See [nowhere](..\/99-nowhere\/README.md).\n\n## /' "$readme"
    # A results file with only the naive row of a chapter that has an optimized program.
    planted "a missing results row" "missing results row" sh -c \
        "printf '%s\n' 'chapter,slug,variant,gpu,cc,sms,sm_clock_mhz,driver,cuda,size,knobs,seed,method,samples,median_us,min_us,q1_us,q3_us,noise_pct,gbs,gflops,roof_name,roof,pct_roof,check,max_err,source_hash,commit,date' \
        '$((10#$first_ch)),$(basename "$src_dir" | cut -c4-),naive,Test GPU,9.0,132,1980,13.0,13.0,1000,,1,CUDA events,20,100.000,99.000,99.500,100.500,1.00,80.0,,copy,3000.0,2.7,pass,0,000000000000,abc,2025-01-01T00:00:00Z' > res/test.csv"
    # A row measured from other sources must come out marked STALE (the build itself succeeds).
    tmp=$(mktemp -d); mkdir -p "$tmp/chapters" "$tmp/res"
    cp -r book scripts "$tmp/"; rm -rf "$tmp/book/out"; cp -r "$src_dir" "$tmp/chapters/"
    {
        echo 'chapter,slug,variant,gpu,cc,sms,sm_clock_mhz,driver,cuda,size,knobs,seed,method,samples,median_us,min_us,q1_us,q3_us,noise_pct,gbs,gflops,roof_name,roof,pct_roof,check,max_err,source_hash,commit,date'
        for v in naive optimized library; do
            [ -f "$src_dir/$v.cu" ] && echo "$((10#$first_ch)),$(basename "$src_dir" | cut -c4-),$v,Test GPU,9.0,132,1980,13.0,13.0,1000,,1,CUDA events,20,100.000,99.000,99.500,100.500,1.00,80.0,,copy,3000.0,2.7,pass,0,000000000000,abc,2025-01-01T00:00:00Z"
        done
    } >"$tmp/res/test-gpu.csv"
    if (cd "$tmp" && RESULTS_DIR=res BOOK_OUT=$tmp/out book/build.sh --assemble-only) >"$tmp/log" 2>&1 &&
       grep -q '"STALE"' "$tmp/out/book.json" && grep -q '^stale' "$tmp/out/manifest.tsv"; then
        pass "the book marks a planted stale row STALE"
    else
        fail "the book does not mark a planted stale row"; sed 's/^/    /' "$tmp/log"
    fi
    rm -rf "$tmp"
    # The check's own staleness test: a row with a wrong hash must be reported.
    tmpcsv=$(mktemp)
    printf '%s\n%s\n' 'chapter,variant,median_us,noise_pct,gbs,gflops,pct_roof,source_hash,check' \
        "$((10#$first_ch)),naive,100.000,1.00,80.0,,2.7,000000000000,pass" >"$tmpcsv"
    got=$(csv_rows "$tmpcsv" | cut -f10)
    if [ "$got" = 000000000000 ] && [ "$got" != "$(hash_of "$src_dir")" ]; then pass "the staleness test flags a planted stale row"; else fail "the staleness test misses a planted stale row"; fi
    rm -f "$tmpcsv"
fi

finish
