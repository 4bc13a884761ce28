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
