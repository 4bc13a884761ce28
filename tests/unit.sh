#!/usr/bin/env bash
# Host unit tests of common/ (no GPU, no nvcc): build each test with gcc (the
# same warnings as the Makefile: omitted initializer fields are deliberate zeros) and
# run it. Prints the totals as "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
mkdir -p build/tests
pass=0 fail=0
for src in tests/unit/test_*.c; do
    name=$(basename "$src" .c)
    bin=build/tests/$name
    mod=common/${name#test_}.c
    # Other modules a test links, named on a line "/* needs: rng check */" of the test.
    needs=$(sed -n 's,^/\* needs: \(.*\) \*/$,\1,p' "$src" | head -n 1)
    for m in $needs; do mod="$mod common/$m.c"; done
    if ! gcc -std=c11 -O1 -g -Wall -Wextra -Wno-missing-field-initializers -Werror -pedantic -D_DEFAULT_SOURCE -fopenmp "$src" $mod -lm -o "$bin"; then
        echo "FAIL: $name does not compile"; fail=$((fail + 1)); continue
    fi
    out=$("$bin"); rc=$?
    echo "$out" | grep '^FAIL' || true
    last=$(echo "$out" | tail -n 1)
    p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then echo "FAIL: $name crashed (exit $rc)"; fail=$((fail + 1)); continue; fi
    echo "$name: $last"
    pass=$((pass + p)); fail=$((fail + f))
    [ $rc -eq 0 ] || [ "$f" -gt 0 ] || { echo "FAIL: $name exit $rc"; fail=$((fail + 1)); }
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
