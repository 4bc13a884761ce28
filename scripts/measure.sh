#!/usr/bin/env bash
# make results: measure every chapter (or the chapter numbers given) at its
# default size on this GPU and merge the rows into results/<gpu>.csv. Each
# program's output is kept in build/logs/; the `evidence: NAME = VALUE UNIT`
# lines it prints become host rows of results/evidence/<gpu>.csv. A program
# refused because its size does not fit this GPU (exit 4) is skipped and named
# at the end; the rest go on. ARGS in the environment is passed to every run.
set -u
here=$(dirname "$0")
. "$here/variants.sh"
chapter_dirs "$@" || exit 2
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "error: make results needs a CUDA GPU, and this machine has none" >&2
    exit 3
fi
IFS=$'\t' read -r gpu cc < <(gpu_identity)
commit=${RESULTS_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p build/logs
rows=build/measured.csv
sweeps=build/measured-sweeps.csv
host=build/evidence-host.csv
rm -f "$rows" "$sweeps"
python3 "$here/evidence_parse.py" header >"$host"
tty=0
[ -t 1 ] && tty=1
start=$SECONDS

# Every program and configuration, first, so that progress can say [k/N]. A
# configuration is the default (an empty line) or a --describe sweep= line.
runs=()
for d in "${dirs[@]}"; do
    for prog in $(chapter_programs "$d"); do
        runs+=("$d|$prog|")
        while IFS= read -r options; do
            runs+=("$d|$prog|$options")
        done < <("$prog" --describe | sed -n 's/^sweep=//p')
    done
done

# The time left, on a terminal: each remaining run at its chapter's recorded time per run on
# the reference GPUs, scaled by how this GPU has kept pace with those times so far. Shown
# only when every run has a recorded time.
declare -A ref_ms
if [ $tty -eq 1 ]; then
    while IFS=$'\t' read -r n ms; do ref_ms[$n]=$ms; done < <(python3 "$here/results.py" run-times 2>/dev/null)
fi
left_ms=0
for run in "${runs[@]}"; do
    n=$((10#$(basename "${run%%|*}" | cut -c1-2)))
    [ -n "${ref_ms[$n]:-}" ] && [ "$left_ms" -ge 0 ] && left_ms=$((left_ms + ${ref_ms[$n]})) || left_ms=-1
done
done_ms=0
time_left() { # -> ", about N s left" (or min), or nothing
    [ "$left_ms" -gt 0 ] || return 0
    local elapsed_ms=$(((SECONDS - start) * 1000)) est=$left_ms
    [ "$done_ms" -gt 0 ] && [ "$elapsed_ms" -gt 0 ] && est=$((left_ms * elapsed_ms / done_ms))
    if [ "$est" -ge 120000 ]; then echo ", about $(((est + 30000) / 60000)) min left"
    else echo ", about $(((est + 500) / 1000)) s left"; fi
}

failed=() skipped=() measured_chapters=()
declare -A chapter_ok
k=0
for run in "${runs[@]}"; do
    IFS='|' read -r d prog options <<<"$run"
    k=$((k + 1))
    if [ "$left_ms" -gt 0 ] && [ $k -gt 1 ]; then     # the run before this one is done
        n=$((10#$(basename "$prev_d" | cut -c1-2)))
        done_ms=$((done_ms + ${ref_ms[$n]})) left_ms=$((left_ms - ${ref_ms[$n]}))
    fi
    prev_d=$d
    name=$(basename "$d") v=$(basename "$prog")
    what="$name $v${options:+ $options}"
    log="build/logs/$name/$v${options:+-$(tr -c 'a-zA-Z0-9_=\n-' '_' <<<"$options")}.log"
    mkdir -p "$(dirname "$log")"
    if [ $tty -eq 1 ]; then
        echo "[$k/${#runs[@]}] $what ($((SECONDS - start)) s so far$(time_left))"
    else
        echo "== $prog${options:+ $options}"
    fi
    [ -n "${chapter_ok[$d]+set}" ] || chapter_ok[$d]=1
    out=$rows
    [ -n "$options" ] && out=$sweeps
    # ARGS (make results ARGS="--size N") applies to every run.
    # shellcheck disable=SC2086  # the options are words
    "$prog" --append "$out" $options ${ARGS:-} 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 4 ]; then
        fit=$(grep -m 1 'error:' "$log" | sed -n 's/.*--size \([0-9][0-9]*\) fits$/\1/p')
        skipped+=("$what: $(grep -m 1 'error:' "$log" | sed 's/^error: //')${fit:+; measure it with: make results CHAPTERS=$((10#${name%%-*})) ARGS=\"--size $fit\"}")
        chapter_ok[$d]=0
        continue
    elif [ "$rc" -ne 0 ]; then
        failed+=("$what (exit $rc, log in $log)")
        chapter_ok[$d]=0
        continue
    fi
    size=$(sed -n '1s/.*: size \([0-9][0-9]*\).*/\1/p' "$log")
    python3 "$here/evidence_parse.py" host "$log" --chapter "${name%%-*}" --slug "${name#*-}" \
        --variant "$v" --options "$options" --gpu "$gpu" --cc "$cc" --arch "sm_${cc/./}" \
        --size "$size" --hash "$(python3 "$here/results.py" hash "$d")" --commit "$commit" \
        --date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$host" ||
        { failed+=("$what: its evidence lines (log in $log)"); chapter_ok[$d]=0; }
done

if [ -f "$rows" ]; then
    python3 "$here/results.py" merge "$rows" "$sweeps" || exit 1
    python3 "$here/results.py" readme
fi
# Host evidence of the chapters measured in full replaces their old host rows.
for d in "${dirs[@]}"; do
    [ "${chapter_ok[$d]:-0}" -eq 1 ] && measured_chapters+=("$((10#$(basename "$d" | cut -c1-2)))")
done
slug=$(tr 'A-Z' 'a-z' <<<"$gpu" | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
if [ ${#measured_chapters[@]} -gt 0 ] &&
   { [ "$(wc -l <"$host")" -gt 1 ] || [ -f "results/evidence/$slug.csv" ]; }; then
    list=$(IFS=,; echo "${measured_chapters[*]}")
    python3 "$here/results.py" merge-evidence "$host" --gpu "$gpu" --chapters "$list" --tools host || exit 1
fi

echo "make results: ${#runs[@]} run(s) in $((SECONDS - start)) s, ${#skipped[@]} skipped, ${#failed[@]} failed"
for s in "${skipped[@]}"; do
    echo "skipped (too large for this GPU): $s"
done
[ ${#skipped[@]} -eq 0 ] ||
    echo "a row measured at another size records that size; the reference GPUs' rows are at the default size"
for f in "${failed[@]}"; do
    echo "error: failed: $f" >&2
done
[ -f "$rows" ] || { echo "error: nothing was measured" >&2; exit 1; }
[ ${#failed[@]} -eq 0 ]
