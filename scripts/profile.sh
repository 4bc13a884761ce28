#!/usr/bin/env bash
# make profile-NN: Nsight Compute's metrics for the chapter's evidence, one
# column per program. Clocks are left as they are (--clock-control none).
set -u
here=$(dirname "$0")
. "$here/variants.sh"
dir=${1:?usage: profile.sh chapters/NN-slug [program options]}
shift
command -v ncu >/dev/null || { echo "error: ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
first=$(chapter_programs "$dir" | head -n 1)
metrics=$("$first" --describe | sed -n 's/^ncu_metrics=//p')
[ -n "$metrics" ] || { echo "error: $dir declares no ncu metrics" >&2; exit 2; }
mkdir -p build
csvs=()
for prog in $(chapter_programs "$dir"); do
    out="build/profile-$(basename "$dir")-$(basename "$prog").csv"
    # --check-only runs the program's work once; the harness's own kernels do not run.
    ncu --clock-control none --csv --page raw --metrics "$metrics" "$prog" --check-only "$@" \
        >"$out" 2>"$out.log" || { echo "error: ncu failed on $prog:"; tail -n 20 "$out.log"; exit 1; }
    csvs+=("$out")
done
python3 "$here/ncu_table.py" "$metrics" "${csvs[@]}"
