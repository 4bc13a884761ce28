#!/usr/bin/env bash
# The evidence producer (scripts/evidence_parse.py, and results.py merge-evidence)
# on hand-made fixtures, no GPU needed; then the same checks on copies with a
# planted fault each, which must fail. Prints PASS:/FAIL: lines and a count.
set -u
cd "$(dirname "$0")/../.." || exit 2
parse=scripts/evidence_parse.py
test=tests/results/evidence_test.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$PWD/scripts/guide" "$tmp/guide"  # the planted copies import the results model too
out=$(python3 "$test" "$parse" 2>&1)
echo "$out"
pass=$(grep -c '^PASS:' <<<"$out")
fail=$(grep -c '^FAIL:' <<<"$out")
grep -q '^PASS:' <<<"$out" || { echo "FAIL: $test did not run"; fail=$((fail + 1)); }

# Each planted fault: a sed expression on evidence_parse.py.
planted() {
    local what=$1 expr=$2
    sed "$expr" "$parse" >"$tmp/evidence_parse.py"
    if cmp -s "$parse" "$tmp/evidence_parse.py"; then
        echo "FAIL: planted fault '$what' no longer applies to $parse"
        fail=$((fail + 1))
    elif out=$(python3 "$test" "$tmp/evidence_parse.py" 2>&1); ! grep -q '^PASS:' <<<"$out"; then
        echo "FAIL: planted fault '$what': the checks did not run"; echo "$out" | tail -n 3
        fail=$((fail + 1))
    elif grep -q '^FAIL:' <<<"$out"; then
        echo "PASS: planted fault is caught: $what"
        pass=$((pass + 1))
    else
        echo "FAIL: planted fault passes the checks: $what"
        fail=$((fail + 1))
    fi
}
planted "kernels from common/ counted" 's/base_name(k) not in common/True/g'
planted "plain mean instead of duration-weighted" \
    's/w = \[ncu_number(k, DURATION, v\[DURATION\]\[0\]) for k, v in kernels\]/w = [1.0 for _ in kernels]/'
planted "SASS of another arch counted" 's/arch is None or code_arch == arch/True/'
planted "every kernel of the file counted, not the launched ones" 's/if k in set(launched) and/if/'
planted "a batch run's kernels all given to its first configuration" 's/parts\[min(found)\]\.append(r)/parts[1].append(r)/'
planted "the roofline's base metrics not named" 's/print("base_metrics=" + /print("base=" + /'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
