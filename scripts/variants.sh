# Sourced by the scripts: the programs of a chapter folder, in table order.
chapter_programs() {
    for v in naive optimized library; do
        [ -f "$1/$v.cu" ] && echo "$1/$v"
    done
    return 0
}

# The chapter folders named by numbers ("20 7"), or every chapter when none is
# named, one a line into the array `dirs`. Returns 2 (after one line on stderr)
# for a number that names no chapter.
chapter_dirs() {
    dirs=()
    local d n
    if [ $# -eq 0 ]; then
        for d in chapters/[0-9][0-9]-*/; do [ -f "$d/problem.cu" ] && dirs+=("${d%/}"); done
        return 0
    fi
    for n in "$@"; do
        case $n in *[!0-9]*|'') echo "error: '$n' is not a chapter number" >&2; return 2 ;; esac
        n=$(printf '%02d' "$((10#$n))")
        d=$(ls -d chapters/"$n"-* 2>/dev/null | head -n 1)
        [ -n "$d" ] || { echo "error: there is no chapter $n" >&2; return 2; }
        dirs+=("$d")
    done
}

# The GPU's name and compute capability as `name<TAB>cc` (cc as 9.0).
# The GPU the programs use: the first of CUDA_VISIBLE_DEVICES where it is set.
gpu_identity() {
    local id=${CUDA_VISIBLE_DEVICES:-0}
    nvidia-smi -i "${id%%,*}" --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null | head -n 1 |
        sed 's/, */\t/'
}

# run_each FUNC ITEM...: `FUNC ITEM` for every item, side by side: TEST_JOBS at a time (default:
# one per core; each is a short process, and at the test sizes one leaves the GPU and the other
# cores idle). Each runs in a subshell with its own $log; its output is printed whole, in the
# items' order, as soon as it and every item before it are done, and its PASS:/FAIL: lines are
# added to the caller's `pass` and `fail`. Items matching the glob $RUN_FIRST start first (the
# long ones, so that none of them is left to run alone at the end); the output order is the same.
# With $RUN_TIMES set, each item's wall seconds are appended to that file ("SECONDS<TAB>ITEM").
run_each() {
    local fn=$1 threads out i next=0 n=$(($# - 1)) p f most=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
    shift
    case $most in '' | *[!0-9]* | 0) echo "error: TEST_JOBS='$most' is not a positive number" >&2; return 2 ;; esac
    threads=$(( $(nproc 2>/dev/null || echo 2) / most )); [ "$threads" -ge 1 ] || threads=1
    [ -z "${OMP_NUM_THREADS:-}" ] || threads=$OMP_NUM_THREADS
    out=$(mktemp -d)
    local items=("$@") order=() item
    for i in "${!items[@]}"; do [[ -n "${RUN_FIRST:-}" && ${items[$i]} == $RUN_FIRST ]] && order+=("$i"); done
    for i in "${!items[@]}"; do [[ -n "${RUN_FIRST:-}" && ${items[$i]} == $RUN_FIRST ]] || order+=("$i"); done
    flush() {
        while [ $next -lt $n ] && [ -e "$out/$next.done" ]; do
            cat "$out/$next"
            p=$(grep -c '^PASS' "$out/$next") f=$(grep -c '^FAIL' "$out/$next")
            pass=$((pass + p)) fail=$((fail + f))
            next=$((next + 1))
        done
    }
    for i in "${order[@]}"; do
        item=${items[$i]}
        while [ "$(jobs -rp | wc -l)" -ge "$most" ]; do wait -n; flush; done
        # The host's OpenMP threads share the cores with the other items: without this, each of
        # TEST_JOBS programs would start one thread per core, and their spinning would crowd out
        # the rest.
        (log="$out/$i.log"; export OMP_NUM_THREADS=$threads; t0=$SECONDS
         "$fn" "$item" >"$out/$i" 2>&1
         [ -z "${RUN_TIMES:-}" ] || printf '%s\t%s\n' $((SECONDS - t0)) "$item" >>"$RUN_TIMES"
         touch "$out/$i.done") &
        flush
    done
    wait
    flush
    rm -rf "$out"
}
