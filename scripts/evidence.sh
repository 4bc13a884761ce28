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
declare -A metrics size patterns configs
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
    size[$d]=$(sed -n 's/^size=//p' <<<"$settings")
    [ -n "${size[$d]}" ] || size[$d]=$(sed -n "s/^default_size=//p" <<<"$desc")
    patterns[$d]=$(sed -n 's/^sass=//p' <<<"$settings")
    configs[$d]=$(sed -n 's/^options=//p' <<<"$settings") # beside the default, one a line
    n_configs=$((1 + $(printf '%s' "${configs[$d]}" | grep -c '')))
    total=$((total + n_configs * $(chapter_programs "$d" | wc -l)))
done

# Compile every chapter file again, as the Makefile does (its own command,
# from make -n) but for this GPU's arch and with -Xptxas -v, in parallel.
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
printf "%s\n" "$work"/jobs/*.sh | xargs -P "$(nproc)" -n 1 bash
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
echo "compiled $jobs files for $arch with -Xptxas -v in $((SECONDS - start)) s"

$parse header >"$new"
k=0
done_chapters=()
failed=()
for d in "${dirs[@]}"; do
    name=$(basename "$d")
    [ -n "${metrics[$d]}" ] || echo "note: $name declares no ncu metrics; ptxas and sass only"
    ok=1
    for prog in $(chapter_programs "$d"); do
        v=$(basename "$prog")
        i=0
        while IFS= read -r options; do
            k=$((k + 1)) i=$((i + 1)) t0=$SECONDS
            out="$work/$name/$v-$i"
            what="$name $v${options:+ $options}"
            ncu_args=()
            if [ -n "${metrics[$d]}" ]; then
                # shellcheck disable=SC2086  # the options are words
                ncu --clock-control none --csv --page raw --print-units base \
                    --print-kernel-base mangled --metrics "${metrics[$d]}" \
                    --nvtx --nvtx-include "$v/" \
                    "$prog" --check-only --size "${size[$d]}" $options >"$out.ncu.csv" 2>"$out.ncu.log"
                rc=$?
                if [ $rc -ne 0 ] || grep -q '^==ERROR==' "$out.ncu.csv" "$out.ncu.log"; then
                    echo "error: $what: ncu failed (exit $rc):" >&2
                    grep -h -e '==ERROR==' -e 'error' "$out.ncu.csv" "$out.ncu.log" | tail -n 10 >&2
                    ok=0 && failed+=("$what") && continue
                fi
                ncu_args=(--ncu "$out.ncu.csv" --metrics "${metrics[$d]}")
            fi
            if ! $parse program "${ncu_args[@]}" \
                    --ptxas "$work/$name/$v.ptxas" --sass "$work/$name/$v.sass" \
                    --ptxas "$work/$name/problem.ptxas" --sass "$work/$name/problem.sass" \
                    --patterns "${patterns[$d]}" --chapter "${name%%-*}" --slug "${name#*-}" \
                    --variant "$v" --options "$options" --gpu "$gpu" --cc "$cc" --arch "$arch" \
                    --size "${size[$d]}" --hash "$(python3 "$here/results.py" hash "$d")" \
                    --commit "$commit" --date "$date" >"$out.rows" 2>"$out.parse.log"; then
                sed "s|^error: |error: $what: |" "$out.parse.log" >&2
                ok=0 && failed+=("$what") && continue
            fi
            sed "s|^|$what: |" "$out.parse.log"
            cat "$out.rows" >>"$new"
            echo "[$k/$total] $what: $(wc -l <"$out.rows") rows, $((SECONDS - t0)) s"
        done < <(printf '\n' && [ -n "${configs[$d]}" ] && printf '%s\n' "${configs[$d]}")
    done
    [ $ok -eq 1 ] && done_chapters+=("$((10#${name%%-*}))")
done

# Only chapters recorded in full replace their old rows.
if [ ${#done_chapters[@]} -gt 0 ]; then
    list=$(IFS=,; echo "${done_chapters[*]}")
    python3 "$here/results.py" merge-evidence "$new" --gpu "$gpu" --chapters "$list" --tools ncu,ptxas,sass || exit 1
fi
echo "make evidence: $((SECONDS - start)) s, ${#done_chapters[@]} of ${#dirs[@]} chapter(s) recorded"
if [ ${#failed[@]} -gt 0 ]; then
    printf 'error: not recorded: %s\n' "${failed[@]}" >&2
    exit 1
fi
