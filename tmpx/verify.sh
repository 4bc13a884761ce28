#!/bin/bash
# One-off: build every program, then check each kernel-timed program at small and odd sizes with
# GUIDE_CAPTURE=1, and the ch01 LEGACY_STREAM plants with and without it.
start=$SECONDS
make -j16 -s >/dev/null 2>$OUT/build.err || { echo BUILD FAILED; tail $OUT/build.err; }
make -j16 -s build/tests/plant/01-find-the-limiter/LEGACY_STREAM/naive build/tests/plant/01-find-the-limiter/LEGACY_STREAM/optimized 2>>$OUT/build.err
echo "build $((SECONDS - start)) s"
one() {
  p=$1; t=$($p --describe | sed -n 's/^timing=//p'); [ "$t" = kernel ] || exit 0
  out=$(printf -- '--size small\n--size odd\n' | GUIDE_CAPTURE=1 timeout 100 $p --check-batch 2>&1); rc=$?
  echo "$p rc=$rc $(grep -c 'captured from' <<<"$out")"
  [ $rc -eq 0 ] || grep -E "^check:|error" <<<"$out" | head -5
}
export -f one
ls chapters/*/naive chapters/*/optimized | xargs -P 16 -I{} bash -c 'one {}' > $OUT/capture.txt 2>&1
echo "checks $((SECONDS - start)) s"; grep -v "rc=0 0" $OUT/capture.txt | head -30; grep -c "rc=0 0" $OUT/capture.txt
for v in naive optimized; do b=build/tests/plant/01-find-the-limiter/LEGACY_STREAM/$v
  $b --check-only --size odd > /dev/null 2>&1; echo "plant $v without capture: rc=$?"
  GUIDE_CAPTURE=1 $b --check-only --size odd > $OUT/plant-$v.log 2>&1; echo "plant $v with capture: rc=$?"; grep "^check:" $OUT/plant-$v.log | tail -3
done
