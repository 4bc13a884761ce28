#!/usr/bin/env bash
# make results: measure every chapter (or the chapter numbers given) at its
# default size on this GPU and merge the rows into results/<gpu>.csv.
set -u
here=$(dirname "$0")
. "$here/variants.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "error: make results needs a CUDA GPU, and this machine has none" >&2
    exit 3
fi
dirs=()
if [ $# -eq 0 ]; then
    for d in chapters/[0-9][0-9]-*/; do [ -f "$d/problem.cu" ] && dirs+=("${d%/}"); done
else
    for n in "$@"; do
        n=$(printf '%02d' "$((10#$n))")
        d=$(ls -d chapters/"$n"-* 2>/dev/null | head -n 1)
        [ -n "$d" ] || { echo "error: there is no chapter $n" >&2; exit 2; }
        dirs+=("$d")
    done
fi
mkdir -p build
rows=build/measured.csv
sweeps=build/measured-sweeps.csv
rm -f "$rows" "$sweeps"
failed=0
for d in "${dirs[@]}"; do
    for prog in $(chapter_programs "$d"); do
        echo "== $prog"
        "$prog" --append "$rows" || failed=1
        # The other configurations the chapter's prose relies on (its --describe sweep= lines).
        while IFS= read -r options; do
            echo "== $prog $options"
            # shellcheck disable=SC2086  # the options are words
            "$prog" --append "$sweeps" $options || failed=1
        done < <("$prog" --describe | sed -n 's/^sweep=//p')
    done
done
[ -f "$rows" ] || { echo "error: nothing was measured" >&2; exit 1; }
python3 "$here/results.py" merge "$rows" "$sweeps" || exit 1
python3 "$here/results.py" readme
[ $failed -eq 0 ] || { echo "error: a program failed its check; see above" >&2; exit 1; }
