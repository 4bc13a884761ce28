#!/usr/bin/env bash
# make evidence [CHAPTERS='7 9']: record why each program runs as fast as it
# does, into results/evidence/<gpu>.csv. For every program of every chapter (a
# variant, and each configuration in its evidence.toml [record] options):
#   ncu    the chapter's Nsight Compute metrics over one checked run at the
#          [record] size (default: the size it is timed at), only the kernels
#          inside the variant's NVTX range; clocks are left alone;
#   ptxas  registers, stack, spills, shared memory from -Xptxas -v;
#   sass   counts of the [record] sass opcodes, from cuobjdump -sass;
# the last two for the chapter's kernels that the program launched. Tools run
# here; scripts/evidence_parse.py turns their output into rows (tested without
# a GPU by tests/results/evidence_test.sh).
set -u
here=$(dirname "$0")
. "$here/variants.sh"
parse="python3 $here/evidence_parse.py"
chapter_dirs "$@" || exit 2
for tool in nvidia-smi ncu cuobjdump; do
    command -v "$tool" >/dev/null || { echo "error: make evidence needs $tool on PATH" >&2; exit 3; }
done
IFS=$'\t' read -r gpu cc < <(gpu_identity)
if [ -z "${gpu:-}" ] || [ -z "${cc:-}" ]; then
    echo "error: make evidence needs a CUDA GPU, and nvidia-smi sees none" >&2
    exit 3
fi
arch=sm_${cc/./}
commit=${RESULTS_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
work=build/evidence
new=build/evidence-new.csv
rm -rf "$work" && mkdir -p "$work/jobs" || exit 1
start=$SECONDS

# What each chapter records, read once so that progress can say [k/N].
declare -A metrics size patterns configs hash
total=0
for d in "${dirs[@]}"; do
    make --no-print-directory -s "$(basename "$d")" || { echo "error: $d does not build" >&2; exit 1; }
    desc=$("$(chapter_programs "$d" | head -n 1)" --describe) || exit 1
    settings=$($parse context "$d") || exit 1
    m=$(sed -n 's/^ncu_metrics=//p' <<<"$desc")
    # Means over several kernels are weighted by duration, so it is always profiled; and so are
    # the roofline's FP32 instructions and DRAM bytes (base_metrics), where any kernel is.
    if [ -n "$m" ]; then
        base=$(sed -n 's/^base_metrics=//p' <<<"$settings")
        for x in gpu__time_duration.sum ${base//,/ }; do
            case ",$m," in *,"$x",*) ;; *) m="$m,$x" ;; esac
        done
    fi
    metrics[$d]=$m
    hash[$d]=$(python3 "$here/results.py" hash "$d")
    size[$d]=$(sed -n 's/^size=//p' <<<"$settings")
    [ -n "${size[$d]}" ] || size[$d]=$(sed -n "s/^default_size=//p" <<<"$desc")
    patterns[$d]=$(sed -n 's/^sass=//p' <<<"$settings")
    configs[$d]=$(sed -n 's/^options=//p' <<<"$settings") # beside the default, one a line
    n_configs=$((1 + $(printf '%s' "${configs[$d]}" | grep -c '')))
    [ -z "$m" ] || total=$((total + n_configs * $(chapter_programs "$d" | wc -l))) # ncu's runs
done

# Compile every chapter file again, as the Makefile does (its own command,
# from make -n) but for this GPU's arch and with -Xptxas -v, on every core, in the
# background while Nsight Compute runs the programs (it needs the GPU, the compiles do not).
jobs=0
for d in "${dirs[@]}"; do
    name=$(basename "$d")
    mkdir -p "$work/$name"
    targets=("build/$name/problem.o")
    for prog in $(chapter_programs "$d"); do targets+=("build/$name/$(basename "$prog").o"); done
    while IFS= read -r line; do
        out="$work/$name/$(basename "${line##* -o }" .o)"
        printf '%s -Xptxas -v -o %q.o >%q.ptxas 2>&1 && cuobjdump -sass %q.o >%q.sass\n' \
            "${line% -o *}" "$out" "$out" "$out" "$out" >"$work/jobs/$jobs.sh"
        jobs=$((jobs + 1))
    done < <(make -n -B --no-print-directory ARCH="$arch" "${targets[@]}" | grep -e ' -c ')
done
printf "%s\n" "$work"/jobs/*.sh | xargs -P "$(nproc)" -n 1 bash &
compiling=$!

# Nsight Compute: one process per program runs all its configurations (--batch), each in
# an NVTX start/end range "batch K" by which the report is split; ncu's own start costs a
# process a few seconds. Only the kernels inside the variant's range count (--nvtx-include).
k=0
failed=()
declare -A chapter_failed
for d in "${dirs[@]}"; do
    name=$(basename "$d")
    [ -n "${metrics[$d]}" ] || { echo "note: $name declares no ncu metrics; ptxas and sass only"; continue; }
    for prog in $(chapter_programs "$d"); do
        v=$(basename "$prog") t0=$SECONDS
        list="$work/$name/$v.batch"
        { printf '\n' && [ -n "${configs[$d]}" ] && printf '%s\n' "${configs[$d]}"; } |
            sed "s|^|--check-only --size ${size[$d]} |" >"$list"
        n=$(wc -l <"$list") k=$((k + n))
        ncu --clock-control none --csv --page raw --print-units base \
            --print-kernel-base mangled --metrics "${metrics[$d]}" \
            --nvtx --nvtx-include "$v/" \
            "$prog" --batch "$list" >"$work/$name/$v.ncu.csv" 2>"$work/$name/$v.ncu.log"
        rc=$?
        what="$name $v"
        if [ $rc -ne 0 ] || grep -q '^==ERROR==' "$work/$name/$v.ncu.csv" "$work/$name/$v.ncu.log" ||
           [ "$(grep -c '^batch: exit 0: ' "$work/$name/$v.ncu.csv")" -ne "$n" ]; then
            echo "error: $what: ncu failed (exit $rc):" >&2
            grep -h -e '==ERROR==' -e 'error' -e '^batch: exit [1-9]' "$work/$name/$v.ncu.csv" \
                "$work/$name/$v.ncu.log" | tail -n 10 >&2
            chapter_failed[$d]=1 && failed+=("$what") && continue
        fi
        if ! $parse ncu-split "$work/$name/$v.ncu.csv" "$n" "$work/$name/$v" 2>"$work/$name/$v.split.log"; then
            sed "s|^error: |error: $what: |" "$work/$name/$v.split.log" >&2
            chapter_failed[$d]=1 && failed+=("$what") && continue
        fi
        echo "[$k/$total] $what: $n configuration(s) under ncu, $((SECONDS - t0)) s"
    done
done

wait $compiling
for d in "${dirs[@]}"; do
    for f in problem $(chapter_programs "$d" | xargs -n 1 basename); do
        out="$work/$(basename "$d")/$f"
        if [ ! -s "$out.sass" ]; then
            echo "error: $d/$f.cu: the compile for ptxas -v or cuobjdump failed:" >&2
            tail -n 20 "$out.ptxas" >&2
            exit 1
        fi
    done
done
echo "compiled $jobs files for $arch with -Xptxas -v (beside ncu) by $((SECONDS - start)) s"

# Every configuration's rows, parsed on every core, then gathered in order.
parses=()
for d in "${dirs[@]}"; do
    [ -z "${chapter_failed[$d]:-}" ] || continue
    name=$(basename "$d")
    for prog in $(chapter_programs "$d"); do
        v=$(basename "$prog") i=0
        while IFS= read -r options; do
            i=$((i + 1))
            out="$work/$name/$v-$i"
            ncu_args=()
            [ -z "${metrics[$d]}" ] || ncu_args=(--ncu "$out.ncu.csv" --metrics "${metrics[$d]}")
            printf '%q ' $parse program "${ncu_args[@]}" \
                --ptxas "$work/$name/$v.ptxas" --sass "$work/$name/$v.sass" \
                --ptxas "$work/$name/problem.ptxas" --sass "$work/$name/problem.sass" \
                --patterns "${patterns[$d]}" --chapter "${name%%-*}" --slug "${name#*-}" \
                --variant "$v" --options "$options" --gpu "$gpu" --cc "$cc" --arch "$arch" \
                --size "${size[$d]}" --hash "${hash[$d]}" --commit "$commit" --date "$date" >"$out.parse.sh"
            printf '>%q 2>%q; echo $? >%q\n' "$out.rows" "$out.parse.log" "$out.rc" >>"$out.parse.sh"
            parses+=("$out.parse.sh")
        done < <(printf '\n' && [ -n "${configs[$d]}" ] && printf '%s\n' "${configs[$d]}")
    done
done
[ ${#parses[@]} -eq 0 ] || printf '%s\n' "${parses[@]}" | xargs -P "$(nproc)" -n 1 bash

$parse header >"$new"
done_chapters=()
for d in "${dirs[@]}"; do
    name=$(basename "$d")
    ok=1
    [ -z "${chapter_failed[$d]:-}" ] || ok=0
    for prog in $(chapter_programs "$d"); do
        [ $ok -eq 1 ] || break
        v=$(basename "$prog") i=0
        while IFS= read -r options; do
            i=$((i + 1))
            out="$work/$name/$v-$i"
            what="$name $v${options:+ $options}"
            if [ "$(cat "$out.rc" 2>/dev/null)" != 0 ]; then
                sed "s|^error: |error: $what: |" "$out.parse.log" >&2
                ok=0 && failed+=("$what") && continue
            fi
            sed "s|^|$what: |" "$out.parse.log"
            cat "$out.rows" >>"$new"
            echo "$what: $(wc -l <"$out.rows") rows"
        done < <(printf '\n' && [ -n "${configs[$d]}" ] && printf '%s\n' "${configs[$d]}")
    done
    [ $ok -eq 1 ] && done_chapters+=("$((10#${name%%-*}))")
done

# Only chapters recorded in full replace their old rows.
if [ ${#done_chapters[@]} -gt 0 ]; then
    list=$(IFS=,; echo "${done_chapters[*]}")
    python3 "$here/results.py" merge-evidence "$new" --gpu "$gpu" --chapters "$list" --tools ncu,ptxas,sass || exit 1
    # The READMEs read the evidence: their blocks and inline values follow what was just recorded.
    python3 "$here/results.py" readme || exit 1
fi
echo "make evidence: $((SECONDS - start)) s, ${#done_chapters[@]} of ${#dirs[@]} chapter(s) recorded"
if [ ${#failed[@]} -gt 0 ]; then
    printf 'error: not recorded: %s\n' "${failed[@]}" >&2
    exit 1
fi
