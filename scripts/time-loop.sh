#!/usr/bin/env bash
# time-loop.sh LOOP COMMAND...: run one of the project's loops, and if it succeeds record its
# wall time in results/loops/times.csv for this machine ("NVIDIA H100 80GB HBM3, 16 cores", or
# "no GPU, 2 cores"); `make readme` and `make help` show what that file holds. LOOP is one of
# "make test", "make results", "ci", "make book", "book check". The command's exit status is
# passed on.
#   scripts/time-loop.sh "make test" make test
#   scripts/time-loop.sh ci bash -c 'git clone -q . /tmp/fresh && cd /tmp/fresh && CI=true bash .ci/run'
set -u
here=$(dirname "$0")
. "$here/variants.sh"
[ $# -ge 2 ] || { echo "usage: time-loop.sh LOOP COMMAND..." >&2; exit 2; }
loop=$1
shift
IFS=$'\t' read -r gpu _ < <(gpu_identity)
machine="${gpu:-no GPU}, $(nproc) cores"
commit=${RESULTS_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# Refuse a bad loop name before the command runs, not after.
python3 "$here/results.py" record-loop "$loop" 1 "$machine" "$commit" --results-dir "$(mktemp -d)" >/dev/null || exit 2
# What else was running: the 1-minute load average when the loop starts, recorded beside its time.
load=$(awk '{ printf "%.2f", $1 }' /proc/loadavg 2>/dev/null)
start=$(date +%s.%N)
"$@"
rc=$?
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
if [ $rc -eq 0 ]; then
    python3 "$here/results.py" record-loop "$loop" "$seconds" "$machine" "$commit" "$load" || exit 1
    echo "time-loop: $loop took $seconds s on $machine (load $load when it started)"
else
    echo "time-loop: $loop failed (exit $rc) after $seconds s; nothing recorded" >&2
fi
exit $rc
