#!/usr/bin/env bash
# Tests of the results model (scripts/results.py and common/results.c), no GPU needed.
# Prints one PASS: or FAIL: line per assertion; exits 1 if any failed.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# One column list: the header common/results.c writes is the list results.py reads.
header_of() { # SOURCE -> the header a program built from SOURCE prints
    printf '#include "results.h"\n#include <stdio.h>\nint main(void) { puts(results_header()); return 0; }\n' >"$tmp/main.c"
    gcc -std=c11 -Icommon "$tmp/main.c" "$1" -o "$tmp/header" && "$tmp/header"
}
want=$(python3 scripts/results.py columns)
if [ "$(header_of common/results.c)" = "$want" ]; then echo "PASS: common/results.c writes the header of results.py's column list"
else echo "FAIL: common/results.c writes '$(header_of common/results.c)', results.py reads '$want'"; fail=1; fi
# The same comparison must notice a column renamed in C alone.
sed 's/,rate,rate_unit,/,gbs,gflops,/' common/results.c >"$tmp/planted.c"
if [ "$(header_of "$tmp/planted.c")" != "$want" ]; then echo "PASS: a column renamed in C alone is noticed"
else echo "FAIL: a column renamed in C alone went unnoticed"; fail=1; fi

# One hash: the Makefile's (compiled into the programs) and results.py's (the staleness check)
# agree for every chapter, shared sources included.
make_hashes=$(make -s --no-print-directory -f Makefile -f - print-hashes 2>/dev/null <<'MK'
print-hashes:
	@$(foreach d,$(CHAPTER_DIRS),echo '$(d) $(call source_hash,$(d))';)
MK
)
differ=0
while read -r d h; do
    [ "$(python3 scripts/results.py hash "$d")" = "$h" ] || { echo "FAIL: $d: make's hash $h, results.py's $(python3 scripts/results.py hash "$d")"; differ=1; fail=1; }
done <<<"$make_hashes"
[ -n "$make_hashes" ] && [ $differ -eq 0 ] && echo "PASS: make and results.py compute the same source hash for every chapter"
[ -n "$make_hashes" ] || { echo "FAIL: make printed no hashes"; fail=1; }
# A change to a shared source (common/transpose.cu, chapters 20 and 21's problem) makes both stale.
if [ -f chapters/20-matrix-transpose/shared-sources ]; then
    mkdir -p "$tmp/shared/chapters" && cp -r common "$tmp/shared/" \
        && cp chapters/20-matrix-transpose/*.* chapters/20-matrix-transpose/shared-sources "$tmp/shared/chapters/" 2>/dev/null
    mkdir -p "$tmp/shared/chapters/20" && mv "$tmp"/shared/chapters/*.* "$tmp"/shared/chapters/shared-sources "$tmp/shared/chapters/20/"
    before=$(python3 scripts/results.py hash "$tmp/shared/chapters/20")
    echo "// planted" >>"$tmp/shared/common/transpose.cu"
    after=$(python3 scripts/results.py hash "$tmp/shared/chapters/20")
    [ "$before" != "$after" ] && echo "PASS: a change to a shared source changes the hash of the chapter that lists it" \
        || { echo "FAIL: a change to common/transpose.cu left chapter 20's hash at $before"; fail=1; }
fi

# results/loops/times.csv (how long the loops take, for make help and the README): a recorded time is
# shown; each planted fault is one line naming the line and column, and exit 1.
d=$tmp/loops; mkdir -p "$d"
python3 scripts/results.py record-loop "make test" 271 "NVIDIA H100 80GB HBM3, 16 cores" abc1234 --results-dir "$d" >/dev/null
if python3 scripts/results.py loops --results-dir "$d" | grep -q '^`make test`.*: 4 min 31 s on NVIDIA H100 80GB HBM3, 16 cores'; then
    echo "PASS: a recorded loop time is shown by results.py loops (make help)"
else echo "FAIL: a recorded loop time is not shown"; fail=1; fi
# A stated time says under what load it was taken: the load recorded beside it, or that none was.
python3 scripts/results.py record-loop "make book" 60 "no GPU, 2 cores" abc1234 1.75 --results-dir "$d" >/dev/null
out=$(python3 scripts/results.py loops --results-dir "$d")
if grep -q '^`make book`.*: 60 s on no GPU, 2 cores, load 1.75 when it started' <<<"$out" \
    && grep -q '^`make test`.*16 cores, its load not recorded' <<<"$out"; then
    echo "PASS: a loop time says under what load it was taken (or that the load was not recorded)"
else echo "FAIL: loop times without their load: $out"; fail=1; fi
sed -i '/^make book,/d' "$d/loops/times.csv"
cp "$d/loops/times.csv" "$d/good.csv"
for plant in 's/,,271,/,abc,271,/|column load' 's/,271,/,1e300,/|column seconds' 's/,271,/,-3,/|column seconds' 's/Z$//|column date' \
             's/^make test,/make tests,/|column loop' 's/,abc1234,/,x;rm,/|column commit'; do
    sed "2${plant%%|*}" "$d/good.csv" >"$d/loops/times.csv"
    out=$(python3 scripts/results.py loops --results-dir "$d" 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -q "times.csv:2: ${plant#*|}" <<<"$out"; then echo "PASS: loops.csv with '${plant%%|*}' refused: $out"
    else echo "FAIL: loops.csv with '${plant%%|*}': exit $rc: $out"; fail=1; fi
done
{ cat "$d/good.csv"; printf 'make book,x,\xff,y,z\n'; } >"$d/loops/times.csv"
out=$(python3 scripts/results.py loops --results-dir "$d" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'not UTF-8' <<<"$out"; then echo "PASS: a non-UTF-8 byte in loops.csv refused: $out"
else echo "FAIL: a non-UTF-8 byte in loops.csv: exit $rc: $out"; fail=1; fi

# The suites below are independent: they run side by side, and their lines print in this order.
suites=(
    "python3 tests/results/test_model.py"
    # Issue 19's corrupted inputs in a copy of the real tree: one line each, exit 1, nothing written.
    "python3 tests/results/baddata_test.py"
    # Issue 37's bad data: rows against the project, escaping, end markers, bounded claims.
    "python3 tests/results/validate_test.py"
    # Your GPU beside the reference GPUs: make chapter-NN's block, make compare, the runtime block.
    "python3 tests/results/compare_test.py"
    # make doctor: planted slow link, slow host and unexplained copies; fake nvidia-smi, no GPU.
    "python3 tests/results/doctor_test.py"
    # make results without a GPU: a program refused for size is skipped; progress on a terminal.
    "tests/results/measure_test.sh"
    # The evidence producer's parsers (ncu, ptxas, cuobjdump, host lines) and merge-evidence.
    "tests/results/evidence_test.sh"
    # The prose rules, each planted in a copy of a chapter README.
    "python3 tests/results/prose_test.py"
    # results.py claims on copies of the real data with planted faults; mechanism vs observation.
    "tests/results/claims_test.sh"
)
for i in "${!suites[@]}"; do
    ${suites[$i]} >"$tmp/suite-$i.log" 2>&1 &
    pids[$i]=$!
done
for i in "${!suites[@]}"; do
    wait "${pids[$i]}"; rc=$?
    [ $rc -eq 0 ] || fail=1
    grep -E '^(PASS|FAIL)' "$tmp/suite-$i.log"
    # A suite that stops before its verdicts (a traceback) says why, in a FAIL line of its own.
    if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$tmp/suite-$i.log"; then
        echo "FAIL: ${suites[$i]} stopped (exit $rc) without a failed check:"; tail -n 5 "$tmp/suite-$i.log"
    fi
done
exit $fail
