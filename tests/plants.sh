#!/usr/bin/env bash
# Every chapter's planted faults, one per line: "DIR NAME VARIANT SIZE OPTIONS...", read from
# chapters/*/plants.tsv (tab-separated: NAME, variants, size, options or "-", what it plants,
# and optionally a sed expression). A size TOOL:SIZE says that compute-sanitizer's TOOL, not the
# check, must catch the plant. A plant is either code under #ifdef PLANT_NAME in the
# chapter's sources, or a sed expression that edits the program's source (so that a plant
# needs no change to the measured sources); a plant that changes nothing is refused.
# A malformed line is an error naming the file and line, exit 2, before anything is built.
# `tests/plants.sh source DIR NAME VARIANT` prints the planted program's source (a header of the
# chapter's that the expression edits is inlined, edited, where the program includes it).
set -u
if [ "${1:-}" = source ]; then
    dir=$2 name=$3 v=$4
    # The first line of this plant that lists this program.
    line=$(awk -F'\t' -v n="$name" -v v="$v" '$1 == n && (" " $2 " ") ~ (" " v " ")' "$dir/plants.tsv" | head -n 1)
    IFS=$'\t' read -r _ _ _ _ _ expr <<<"$line"
    if [ -z "${expr:-}" ]; then cat "$dir/$v.cu"; exit 0; fi
    out=$(sed -e "$expr" "$dir/$v.cu") || exit 2
    # The expression may edit a header of the chapter's own that the program includes (chapter
    # 18's packed.h): that header, edited, then stands in the source in place of its #include.
    out=$(while IFS= read -r l; do
        if [[ $l =~ ^#include\ \"([A-Za-z0-9_]+\.h)\" ]] && [ -f "$dir/${BASH_REMATCH[1]}" ]; then
            h=$dir/${BASH_REMATCH[1]}
            e=$(sed -e "$expr" "$h") || exit 2
            if [ "$e" != "$(cat "$h")" ]; then printf '%s\n' "$e"; continue; fi
        fi
        printf '%s\n' "$l"
    done <<<"$out") || exit 2
    if [ "$out" = "$(cat "$dir/$v.cu")" ]; then
        echo "error: $dir/plants.tsv: $name's sed expression changes nothing in $v.cu" >&2; exit 2
    fi
    printf '%s\n' "$out"
    exit 0
fi
status=0
for f in chapters/*/plants.tsv; do
    [ -e "$f" ] || continue
    dir=${f%/plants.tsv}
    n=0
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        case "$line" in '' | '#'*) continue ;; esac
        IFS=$'\t' read -r name variants size opts what expr extra <<<"$line"
        where="$f:$n"
        if [ -n "${extra:-}" ] || [ -z "${what:-}" ]; then
            echo "error: $where: want 5 or 6 tab-separated fields (NAME, variants, size, options or -, what it plants, a sed expression)" >&2
            status=2; continue
        fi
        [[ $name =~ ^[A-Z][A-Z0-9_]*$ ]] || { echo "error: $where: plant name '$name' is not an upper-case identifier" >&2; status=2; continue; }
        # A size may name the compute-sanitizer tool that must catch the plant, where the check
        # cannot (a missing __syncwarp whose race a converged warp hides): racecheck:small.
        [[ $size =~ ^((memcheck|racecheck|synccheck|initcheck):)?(small|odd|min|passes|[1-9][0-9]*)$ ]] \
            || { echo "error: $where: size '$size' is not small, odd, min, passes or a number, optionally after a sanitizer tool and ':'" >&2; status=2; continue; }
        [ "$opts" = - ] && opts=
        for v in $variants; do
            [ -f "$dir/$v.cu" ] || { echo "error: $where: $dir has no program '$v'" >&2; status=2; continue; }
            if [ -n "${expr:-}" ]; then
                "$0" source "$dir" "$name" "$v" >/dev/null 2>&1 \
                    || { echo "error: $where: the sed expression changes nothing in $v.cu (or is not one)" >&2; status=2; continue; }
            else
                grep -q "PLANT_$name\b" "$dir/$v.cu" "$dir"/*.h "$dir/problem.cu" 2>/dev/null \
                    || { echo "error: $where: no PLANT_$name in $dir's sources: the plant would change nothing" >&2; status=2; continue; }
            fi
            echo "$dir $name $v $size $opts"
        done
    done <"$f"
done
exit $status
