#!/usr/bin/env bash
# make chapter-NN: run each program of one chapter (verify, then time), then
# print one table and, below it, the same chapter on each reference GPU in
# results/. Extra arguments go to every program. Exit 1 if a check failed or a
# results file is malformed.
set -u
here=$(dirname "$0")
. "$here/variants.sh"
dir=${1:?usage: run-chapter.sh chapters/NN-slug [program options]}
shift
mkdir -p build
rows=$(mktemp build/chapter-XXXXXX.csv)
rm -f "$rows"
status=0
for prog in $(chapter_programs "$dir"); do
    echo "== $prog"
    "$prog" --append "$rows" "$@"
    rc=$?
    case $rc in
        0) ;;
        1) status=1 ;;
        *) echo "error: $prog stopped with exit status $rc; no table" >&2; rm -f "$rows"; exit $rc ;;
    esac
    echo
done
python3 "$here/results.py" table "$rows" || status=1
# A failed check has no speedup to compare.
if [ $status -eq 0 ]; then
    echo
    python3 "$here/results.py" compare-chapter "$rows" || { rm -f "$rows"; exit 1; }
fi
rm -f "$rows"
[ $status -eq 0 ] || echo "a check FAILED: its program printed which elements are wrong" >&2
exit $status
