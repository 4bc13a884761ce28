#!/usr/bin/env bash
# make sanitize: compute-sanitizer's four tools over every program of every
# chapter at its small size, side by side (TEST_JOBS at a time). Any error fails.
set -u
here=$(dirname "$0")
. "$here/variants.sh"
command -v compute-sanitizer >/dev/null || { echo "error: compute-sanitizer is not on PATH" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "error: make sanitize needs a CUDA GPU" >&2; exit 3; }
pass=0 fail=0
# memcheck tracks stream-ordered allocations too (a use after cudaFreeAsync), where offered.
ordered=$(compute-sanitizer --help 2>/dev/null | grep -c -- --track-stream-ordered-races)
[ "$ordered" = 0 ] && ordered=
sanitize_one() { # "TOOL PROG"
    local tool=${1%% *} prog=${1#* } extra=()
    [ "$tool" = memcheck ] && [ -n "$ordered" ] && extra=(--track-stream-ordered-races all)
    if compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$prog" --check-only --size small >"$log" 2>&1; then
        echo "PASS: $tool $prog"
    else
        echo "FAIL: $tool $prog"; tail -n 20 "$log"
    fi
}
runs=()
for d in "$@"; do
    for prog in $(chapter_programs "$d"); do
        for tool in memcheck racecheck initcheck synccheck; do runs+=("$tool $prog"); done
    done
done
run_each sanitize_one "${runs[@]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
