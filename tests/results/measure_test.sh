#!/usr/bin/env bash
# scripts/measure.sh (make results) without a GPU: in a copy of the tree, chapter 20's
# programs are stand-ins (naive refused for size with the harness's exit 4 and message,
# optimized and library append their committed H100 rows) and nvidia-smi names an H100.
# Checks: the refused program is skipped and named, the rest is measured and merged; the
# progress line with the time left appears on a terminal only; make chapter-20's block. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME CONDITION-STATUS LOG
    if [ "$2" -eq 0 ]; then echo "PASS: $1"; else echo "FAIL: $1"; sed 's/^/    /' "$3"; fail=1; fi
}

tree=$tmp/tree
mkdir -p "$tree/book" "$tree/chapters" "$tree/bin"
cp -r scripts "$tree"/
cp book/*.tsv "$tree/book/"
cp -r chapters/20-matrix-transpose "$tree/chapters/"
cp -r common "$tree/"   # chapter 20's shared sources are part of its hash
rm -rf "$tree/scripts/__pycache__" "$tree/scripts/guide/__pycache__"
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 9.0"\n' >"$tree/bin/nvidia-smi"
chmod +x "$tree/bin/nvidia-smi"
hash=$(python3 scripts/results.py hash chapters/20-matrix-transpose)
grep '^20,' results/nvidia-h100-80gb-hbm3.csv | sed "s/,[0-9a-f]\{12\},\([^,]*\),\([^,]*\)\$/,$hash,\1,\2/" >"$tmp/rows"
mkdir -p "$tree/results/sweeps" "$tree/results/evidence"
for f in results/*.csv results/sweeps/*.csv results/evidence/*.csv; do      # chapter 20's rows only: the copy holds no other chapter
    { head -n 1 "$f"; grep '^20,' "$f" | sed "s/,[0-9a-f]\{12\},\([^,]*\),\([^,]*\)\$/,$hash,\1,\2/"; } >"$tree/$f"
done
for v in naive optimized library; do
    cat >"$tree/chapters/20-matrix-transpose/$v" <<EOF
#!/bin/sh
# a stand-in for the real program: --describe lists no sweeps; naive does not fit
[ "\$1" = --describe ] && exit 0
if [ $v = naive ] && [ -n "\${REFUSE:-}" ]; then
    echo "error: --size 16384 needs 2.06 GiB of GPU memory, but NVIDIA H100 80GB HBM3 has 1.00 GiB free; --size 11585 fits" >&2
    exit 4
fi
echo "chapters/20-matrix-transpose/$v: size 16384, rows 8, seed 1, on NVIDIA H100 80GB HBM3"
[ -f "\$2" ] || head -n 1 "$repo/results/nvidia-h100-80gb-hbm3.csv" >"\$2"
grep ',$v,' "$tmp/rows" >>"\$2"
EOF
    chmod +x "$tree/chapters/20-matrix-transpose/$v"
done

# Not on a terminal: no progress line, a summary that names the skipped program.
log=$tmp/plain.log
(cd "$tree" && REFUSE=1 PATH="$tree/bin:$PATH" scripts/measure.sh 20) >"$log" 2>&1
rc=$?
check "make results with a program too large: exit 0, the rest measured and merged" \
    "$([ $rc -eq 0 ] && grep -q 'wrote results/nvidia-h100-80gb-hbm3.csv: 2 new row(s)' "$log"; echo $?)" "$log"
check "the summary names the skipped program and the GPU memory it needs" \
    "$(grep -q '^make results: 3 run(s) in .*, 1 skipped, 0 failed' "$log" &&
       grep -q '^skipped (too large for this GPU): 20-matrix-transpose naive: --size 16384 needs 2.06 GiB' "$log" &&
       grep -q 'measure it with: make results CHAPTERS=20 ARGS="--size 11585"' "$log"; echo $?)" "$log"
check "not on a terminal: a plain line per program, no [k/N] progress line" \
    "$(grep -q '^== chapters/20-matrix-transpose/naive$' "$log" && ! grep -q '^\[1/3\]' "$log"; echo $?)" "$log"

# On a terminal (script(1) gives the run one): [k/N], time so far, time left.
log=$tmp/tty.log
(cd "$tree" && PATH="$tree/bin:$PATH" script -qec "REFUSE=1 scripts/measure.sh 20" /dev/null) >"$log" 2>&1
check "on a terminal: [k/N] chapter program, time so far and time left" \
    "$(grep -q '^\[1/3\] 20-matrix-transpose naive ([0-9]* s so far, about [0-9]* s left)' "$log" &&
       grep -q '^\[3/3\] 20-matrix-transpose library ([0-9]* s so far' "$log"; echo $?)" "$log"

# make chapter-20 (scripts/run-chapter.sh): the local table, then the chapter on the H200.
log=$tmp/chapter.log
(cd "$tree" && PATH="$tree/bin:$PATH" scripts/run-chapter.sh chapters/20-matrix-transpose) >"$log" 2>&1
rc=$?
check "make chapter-20: the table, then the chapter beside the reference GPU, exit 0" \
    "$([ $rc -eq 0 ] && grep -q '^naive .* pass' "$log" &&
       grep -q '^Chapter 20 beside the reference GPUs in results/:' "$log" &&
       grep -q '^  H200 ' "$log" && grep -q '(yours)' "$log"; echo $?)" "$log"
[ -n "${SHOW:-}" ] && cat "$log"
exit $fail
