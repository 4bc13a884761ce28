#!/usr/bin/env bash
# Every chapter's planted faults, one per line: "DIR NAME VARIANT SIZE OPTIONS...", read from
# chapters/*/plants.tsv (tab-separated: NAME, variants, size, options or "-", what it plants).
# A malformed line is an error naming the file and line, exit 2, before anything is built.
set -u
status=0
for f in chapters/*/plants.tsv; do
    [ -e "$f" ] || continue
    dir=${f%/plants.tsv}
    n=0
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        case "$line" in '' | '#'*) continue ;; esac
        IFS=$'\t' read -r name variants size opts what extra <<<"$line"
        where="$f:$n"
        if [ -n "${extra:-}" ] || [ -z "${what:-}" ]; then
            echo "error: $where: want 5 tab-separated fields (NAME, variants, size, options or -, what it plants)" >&2
            status=2; continue
        fi
        [[ $name =~ ^[A-Z][A-Z0-9_]*$ ]] || { echo "error: $where: plant name '$name' is not an upper-case identifier" >&2; status=2; continue; }
        [[ $size =~ ^(small|odd|passes|[1-9][0-9]*)$ ]] || { echo "error: $where: size '$size' is not small, odd, passes or a number" >&2; status=2; continue; }
        [ "$opts" = - ] && opts=
        for v in $variants; do
            [ -f "$dir/$v.cu" ] || { echo "error: $where: $dir has no program '$v'" >&2; status=2; continue; }
            grep -q "PLANT_$name\b" "$dir/$v.cu" "$dir"/*.h "$dir/problem.cu" 2>/dev/null \
                || { echo "error: $where: no PLANT_$name in $dir's sources: the plant would change nothing" >&2; status=2; continue; }
            echo "$dir $name $v $size $opts"
        done
    done <"$f"
done
exit $status
