#!/usr/bin/env bash
# make results: measure every chapter (or the chapter numbers given) at its
# default size on this GPU and merge the rows into results/<gpu>.csv. Each
# configuration's output is kept in build/logs/; the `evidence: NAME = VALUE UNIT`
# lines it prints become host rows of results/evidence/<gpu>.csv. A configuration
# refused because its size does not fit this GPU (exit 4) is skipped and named at
# the end; the rest go on. ARGS in the environment is passed to every run.
#
# One process per program runs all its configurations (--batch): a CUDA context
# and the program's start cost a run about a second, as much as many runs' work.
# A chapter that declares rounds (--describe: rounds=R) runs its default
# configuration R times per program instead, each run its own process and the
# programs taking turns; each program keeps its round of median time
# (results.py pick-round), and its host evidence records the rounds and their spread.
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

# Every configuration run, first, so that progress can say [k/N]: per program the default
# (an empty line; R of them with rounds) and each --describe sweep= line.
declare -A sweeps_of rounds_of
total=0
for d in "${dirs[@]}"; do
    rounds_of[$d]=1
    for prog in $(chapter_programs "$d"); do
        desc=$("$prog" --describe)
        sweeps_of[$prog]=$(sed -n 's/^sweep=//p' <<<"$desc")
        r=$(sed -n 's/^rounds=//p' <<<"$desc")
        [ -n "$r" ] && rounds_of[$d]=$r
        total=$((total + $(printf '%s' "${sweeps_of[$prog]}" | grep -c '')))
    done
    total=$((total + rounds_of[$d] * $(chapter_programs "$d" | wc -l)))
done

# The time left, on a terminal: each remaining run at its chapter's recorded time per run on
# the reference GPUs, scaled by how this GPU has kept pace with those times so far. Shown
# only when every run has a recorded time.
declare -A ref_ms
if [ $tty -eq 1 ]; then
    while IFS=$'\t' read -r n ms; do ref_ms[$n]=$ms; done < <(python3 "$here/results.py" run-times 2>/dev/null)
fi
number_of() { echo $((10#$(basename "$1" | cut -c1-2))); }
left_ms=0
for d in "${dirs[@]}"; do
    n=$(number_of "$d")
    for prog in $(chapter_programs "$d"); do
        runs=$((rounds_of[$d] + $(printf '%s' "${sweeps_of[$prog]}" | grep -c '')))
        [ -n "${ref_ms[$n]:-}" ] && [ "$left_ms" -ge 0 ] && left_ms=$((left_ms + runs * ${ref_ms[$n]})) || left_ms=-1
    done
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
# A configuration starts: its progress line ([k/N] on a terminal, else "== program options").
starting() { # D PROG OPTIONS
    local d=$1 prog=$2 options=$3 n
    if [ "$left_ms" -gt 0 ] && [ $k -gt 0 ]; then     # the run before this one is done
        n=$(number_of "$prev_d")
        done_ms=$((done_ms + ${ref_ms[$n]})) left_ms=$((left_ms - ${ref_ms[$n]}))
    fi
    prev_d=$d k=$((k + 1))
    if [ $tty -eq 1 ]; then
        echo "[$k/$total] $(basename "$d") $(basename "$prog")${options:+ $options} ($((SECONDS - start)) s so far$(time_left))"
    else
        echo "== $prog${options:+ $options}"
    fi
}

# A configuration ended with exit status RC: skipped, failed, or its log goes on the chapter's
# list for host evidence (parsed once per chapter) and, from a round, on the rounds list.
finished() { # D PROG OPTIONS LOG RC
    local d=$1 v what fit log=$4 rc=$5
    v=$(basename "$2")
    what="$(basename "$d") $v${3:+ $3}"
    if [ "$rc" -eq 4 ]; then
        fit=$(grep -m 1 'error:' "$log" | sed -n 's/.*--size \([0-9][0-9]*\) fits$/\1/p')
        skipped+=("$what: $(grep -m 1 'error:' "$log" | sed 's/^.*error: //')${fit:+; measure it with: make results CHAPTERS=$(number_of "$d") ARGS=\"--size $fit\"}")
        chapter_ok[$d]=0
    elif [ "$rc" -ne 0 ]; then
        failed+=("$what (exit $rc, log in $log)")
        chapter_ok[$d]=0
    else
        printf '%s\t%s\t%s\t%s\t%s\n' "$log" "$v" "$3" "$(sed -n '1s/.*: size \([0-9][0-9]*\).*/\1/p' "$log")" \
            "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$host_list"
    fi
}

# One process runs configurations of one program in turn (--batch): OPTIONS... ("" the
# default), each appending its row to OUT ("" : the default's to $rows, the others' to
# $sweeps). Each configuration's output goes to the terminal and to its own log, named after
# its options and SUFFIX; its verdict is the line "batch: exit N: ..." after it.
run_batch() { # D PROG OUT SUFFIX OPTIONS...
    local d=$1 prog=$2 out=$3 suffix=$4 name v list i=0 line rc o
    shift 4
    local cfgs=("$@") logs=()
    name=$(basename "$d") v=$(basename "$prog")
    mkdir -p "build/logs/$name"
    list=build/logs/$name/$v$suffix.batch
    : >"$list"
    for o in "${cfgs[@]}"; do
        echo "--append ${out:-$([ -n "$o" ] && echo "$sweeps" || echo "$rows")} $o ${ARGS:-}" >>"$list"
        logs+=("build/logs/$name/$v${o:+-$(tr -c 'a-zA-Z0-9_=\n-' '_' <<<"$o")}$suffix.log")
    done
    starting "$d" "$prog" "${cfgs[0]}"
    : >"${logs[0]}"
    while IFS= read -r line; do
        if [[ $line =~ ^batch:\ exit\ ([0-9]+):\  ]] && [ $i -lt ${#cfgs[@]} ]; then
            finished "$d" "$prog" "${cfgs[i]}" "${logs[i]}" "${BASH_REMATCH[1]}"
            i=$((i + 1))
            [ $i -lt ${#cfgs[@]} ] && { starting "$d" "$prog" "${cfgs[i]}"; : >"${logs[i]}"; }
        else
            echo "$line"
            [ $i -lt ${#cfgs[@]} ] && echo "$line" >>"${logs[i]}"
        fi
    done < <("$prog" --batch "$list" 2>&1)
    wait $! 2>/dev/null
    rc=$?
    # A configuration with no verdict was cut short: the program stopped.
    while [ $i -lt ${#cfgs[@]} ]; do
        [ $rc -ne 0 ] || rc=5
        finished "$d" "$prog" "${cfgs[i]}" "${logs[i]}" "$rc"
        i=$((i + 1))
        [ $i -lt ${#cfgs[@]} ] && starting "$d" "$prog" "${cfgs[i]}"
    done
}

for d in "${dirs[@]}"; do
    name=$(basename "$d")
    chapter_ok[$d]=1
    host_list=build/logs/$name/host-logs.tsv
    mkdir -p "build/logs/$name"
    : >"$host_list"
    R=${rounds_of[$d]}
    if [ "$R" -gt 1 ]; then
        round_rows=build/logs/$name/rounds.csv round_logs=()
        rm -f "$round_rows"
        for r in $(seq 1 "$R"); do
            for prog in $(chapter_programs "$d"); do
                before=$(wc -l <"$host_list")
                run_batch "$d" "$prog" "$round_rows" "-round$r" ""
                # A round that failed leaves no row: the chapter is not measured.
                [ "$(wc -l <"$host_list")" -gt "$before" ] && round_logs+=("$(tail -n 1 "$host_list")")
            done
        done
        : >"$host_list"
        if [ "${chapter_ok[$d]}" -eq 1 ]; then
            [ -f "$rows" ] || head -n 1 "$round_rows" >"$rows"
            # Per program: the line of its median round in rounds.csv, the rounds and their spread.
            while IFS=$'\t' read -r i rounds spread; do
                sed -n "$((i + 2))p" "$round_rows" >>"$rows"
                printf 'evidence: rounds = %s rounds\nevidence: round_spread_pct = %s %%\n' "$rounds" "$spread" \
                    >"build/logs/$name/round-$i.evidence"
                printf '%s\t%s\n' "${round_logs[$i]}" "build/logs/$name/round-$i.evidence" >>"$host_list"
            done < <(python3 "$here/results.py" pick-round "$round_rows")
        fi
        for prog in $(chapter_programs "$d"); do
            mapfile -t opts <<<"${sweeps_of[$prog]}"
            [ -n "${sweeps_of[$prog]}" ] && run_batch "$d" "$prog" "" "" "${opts[@]}"
        done
    else
        for prog in $(chapter_programs "$d"); do
            opts=()
            [ -n "${sweeps_of[$prog]}" ] && mapfile -t opts <<<"${sweeps_of[$prog]}"
            run_batch "$d" "$prog" "" "" "" "${opts[@]}"
        done
    fi
    if [ -s "$host_list" ]; then
        python3 "$here/evidence_parse.py" host-list "$host_list" --chapter "${name%%-*}" --slug "${name#*-}" \
            --gpu "$gpu" --cc "$cc" --arch "sm_${cc/./}" --hash "$(python3 "$here/results.py" hash "$d")" \
            --commit "$commit" >>"$host" ||
            { failed+=("$name: its evidence lines (logs in build/logs/$name)"); chapter_ok[$d]=0; }
    fi
done

if [ -f "$rows" ]; then
    python3 "$here/results.py" merge "$rows" "$sweeps" || exit 1
fi
# Host evidence of the chapters measured in full replaces their old host rows.
for d in "${dirs[@]}"; do
    [ "${chapter_ok[$d]:-0}" -eq 1 ] && measured_chapters+=("$(number_of "$d")")
done
slug=$(tr 'A-Z' 'a-z' <<<"$gpu" | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
if [ ${#measured_chapters[@]} -gt 0 ] &&
   { [ "$(wc -l <"$host")" -gt 1 ] || [ -f "results/evidence/$slug.csv" ]; }; then
    list=$(IFS=,; echo "${measured_chapters[*]}")
    python3 "$here/results.py" merge-evidence "$host" --gpu "$gpu" --chapters "$list" --tools host || exit 1
fi
# The READMEs read both: their blocks and inline values follow what was just recorded.
[ -f "$rows" ] && python3 "$here/results.py" readme

echo "make results: $total run(s) in $((SECONDS - start)) s, ${#skipped[@]} skipped, ${#failed[@]} failed"
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
