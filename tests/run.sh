#!/usr/bin/env bash
# make test: everything that can be checked here, and on a machine with a GPU
# every chapter at its small and odd sizes with two seeds. Ends with the line
# "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
. scripts/variants.sh
pass=0 fail=0 skip=0
ok()      { echo "PASS: $*"; pass=$((pass + 1)); }
bad()     { echo "FAIL: $*"; fail=$((fail + 1)); }
skipped() { echo "SKIP: $*"; skip=$((skip + 1)); }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
chapters=()
for d in chapters/[0-9][0-9]-*/; do [ -f "$d/problem.cu" ] && chapters+=("${d%/}"); done

echo "== host unit tests"
if tests/unit.sh >"$log" 2>&1; then :; fi
grep -E '^(FAIL|test_)' "$log"
read -r p f < <(tail -n 1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [ -n "${p:-}" ]; then pass=$((pass + p)); fail=$((fail + f)); else bad "unit tests did not run"; cat "$log"; fi

echo "== build, warnings as errors"
if make --no-print-directory build/libcommon.a >"$log" 2>&1; then ok "common/ builds"; else bad "common/ does not build"; tail -n 30 "$log"; fi
for d in "${chapters[@]}"; do
    if make --no-print-directory "$(basename "$d")" >"$log" 2>&1; then ok "$d builds"
    else bad "$d does not build"; grep -E 'error|warning' "$log" | head -n 20; fi
done
planted=()
for n in 0 1 2; do
    bin=build/tests/planted-$n
    mkdir -p build/tests
    if nvcc -O2 -std=c++20 -arch="$(make -s --no-print-directory print-arch)" -Werror all-warnings \
        -Icommon -DPLANT=$n tests/planted/planted.cu build/libcommon.a -o "$bin" >"$log" 2>&1; then
        planted+=("$bin")
    else bad "tests/planted/planted.cu (PLANT=$n) does not build"; tail -n 20 "$log"; fi
done
[ ${#planted[@]} -eq 3 ] && ok "planted-bug programs build"

echo "== command line"
programs=()
for d in "${chapters[@]}"; do programs+=($(chapter_programs "$d")); done
for prog in "${programs[@]}"; do
    [ -x "$prog" ] || { bad "$prog was not built"; continue; }
    "$prog" --help >"$log" 2>&1 && grep -q '^usage:' "$log" && ok "$prog --help" || bad "$prog --help"
    "$prog" --describe >"$log" 2>&1 && grep -q '^small_size=' "$log" && ok "$prog --describe" || bad "$prog --describe"
    "$prog" --no-such-option >"$log" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q 'unknown option' "$log" && ok "$prog rejects an unknown option" || bad "$prog unknown option: exit $rc"
    "$prog" --size 0 >"$log" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q 'out of range' "$log" && ok "$prog rejects --size 0" || bad "$prog --size 0: exit $rc"
    "$prog" --seed banana >"$log" 2>&1; rc=$?
    [ $rc -eq 2 ] && ok "$prog rejects a bad seed" || bad "$prog bad seed: exit $rc"
    # No GPU (hidden from the CUDA runtime where one exists): one sentence, exit 3.
    CUDA_VISIBLE_DEVICES= "$prog" --check-only --size small >"$log" 2>&1; rc=$?
    [ $rc -eq 3 ] && grep -q 'no CUDA GPU' "$log" && ok "$prog without a GPU says so (exit 3)" \
        || { bad "$prog without a GPU: exit $rc"; head -n 5 "$log"; }
done

echo "== results and READMEs"
if python3 scripts/results.py stale >"$log" 2>&1; then ok "results/ valid and current ($(tail -n 1 "$log"))"
else bad "results/ has problems"; cat "$log"; fi
if python3 scripts/results.py readme --check "${chapters[@]}" >"$log" 2>&1; then ok "chapter READMEs match their sources and results"
else bad "chapter READMEs are out of date"; cat "$log"; fi
# The staleness check must catch a changed source: plant one in a copy.
if [ ${#chapters[@]} -gt 0 ] && ls results/*.csv >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    cp -r scripts chapters results "$tmp"/
    first=$(ls "$tmp"/results/*.csv | head -n 1)
    n=$(sed -n 2p "$first" | cut -d, -f1)
    echo "// planted change" >>"$(ls -d "$tmp"/chapters/$(printf %02d "$n")-*)/problem.cu"
    if python3 "$tmp"/scripts/results.py stale >"$log" 2>&1; then bad "a planted source change was not reported stale"
    else ok "a planted source change is reported stale"; fi
    rm -rf "$tmp"
fi

echo "== book"
if [ -x book/check.sh ]; then
    if command -v pandoc >/dev/null && command -v xelatex >/dev/null; then
        book/check.sh >"$log" 2>&1; rc=$?
        grep -E '^(PASS|FAIL)' "$log"
        p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
        pass=$((pass + p)); fail=$((fail + f))
        [ $rc -eq 0 ] || [ "$f" -gt 0 ] || { bad "book/check.sh exit $rc"; tail -n 30 "$log"; }
    elif [ "${CI:-}" = true ]; then bad "pandoc/xelatex missing in CI (scripts/install-deps.sh)"
    else skipped "the book: pandoc or xelatex missing (make deps installs them)"; fi
else skipped "the book: book/check.sh not present"; fi

echo "== on the GPU"
if [ $gpu -eq 0 ]; then
    skipped "no GPU on this machine: chapters were built and their no-GPU path checked, not run"
else
    for n in 0 1 2; do
        bin=build/tests/planted-$n
        [ -x "$bin" ] || continue
        "$bin" --check-only --size odd >"$log" 2>&1; rc=$?
        want=$([ $n -eq 0 ] && echo 0 || echo 1)
        [ $rc -eq $want ] && ok "planted bug $n: exit $rc as expected" || { bad "planted bug $n: exit $rc, expected $want"; tail -n 5 "$log"; }
    done
    for prog in "${programs[@]}"; do
        [ -x "$prog" ] || continue
        for size in small odd; do
            for seed in 1 2; do
                "$prog" --check-only --size $size --seed $seed >"$log" 2>&1; rc=$?
                [ $rc -eq 0 ] && ok "$prog --size $size --seed $seed" \
                    || { bad "$prog --size $size --seed $seed: exit $rc"; tail -n 8 "$log"; }
            done
        done
        GUIDE_FAKE_FREE_BYTES=1000000 "$prog" --check-only --size small >"$log" 2>&1; rc=$?
        [ $rc -eq 4 ] && grep -q 'GPU memory' "$log" && ok "$prog refuses a size too large for the GPU" \
            || { bad "$prog too large: exit $rc"; tail -n 3 "$log"; }
    done
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
