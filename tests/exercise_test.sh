#!/usr/bin/env bash
# The README's "Doing an exercise", as a test. In a clone of this repository (HEAD plus the
# working tree's changes, so it tests what you are about to commit), plant an edit in chapter
# 20's optimized.cu as a student would, run `make readme`, then the part of `make test` that reads
# the results, their staleness, the claims and the READMEs (tests/run.sh's "results" section, with
# tests/results/ in it outside CI; the rest of the suite does not read staleness, and the book's stale marks
# are checked by book/check.sh). Outside CI that part must end green with warnings naming chapter
# 20 and the command that re-measures it; with CI=true it must fail naming chapter 20.
# Prints one PASS:, FAIL: or SKIP: line per assertion (the inner suite's lines indented); exits 1
# if any failed.
set -u
cd "$(dirname "$0")/.." || exit 2
fail=0
ok()  { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
show() { sed 's/^/    /' "$@"; }
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    echo "SKIP: the exercise test needs the repository's git history (this copy has none)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/repo
log=$tmp/log

# The clone: HEAD's history (the claims' verdicts read it), then the working tree on top.
git clone -q --shared --no-checkout . "$copy" && git -C "$copy" checkout -q --detach "$(git rev-parse HEAD)" \
    || { bad "could not clone this repository into $copy"; exit 1; }
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -cf - -T - | tar -xf - -C "$copy"
git ls-files -d -z | (cd "$copy" && xargs -0 -r rm -f --)

cd "$copy" || exit 2
echo '// exercise' >>chapters/20-matrix-transpose/optimized.cu
if make --no-print-directory readme >"$log" 2>&1; then ok "after an edit to chapter 20, make readme succeeds"
else bad "after an edit to chapter 20, make readme: exit $?"; show "$log"; fi

# A person: green, with warnings that name chapter 20 and the command.
env -u CI TEST_SECTIONS="results results-model" tests/run.sh >"$log" 2>&1; rc=$?
last=$(tail -n 1 "$log")
if [ $rc -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]] \
    && grep -q '^WARNING: chapter 20 .*make results CHAPTERS=20' "$log"; then
    ok "outside CI, make test after the exercise is green with a warning naming chapter 20 ($last)"
else
    bad "outside CI, make test after the exercise: exit $rc, '$last', $(grep -c '^WARNING: chapter 20' "$log") warning(s) naming chapter 20:"
    grep -E '^(FAIL|WARNING)' "$log" | head -n 20 | show
fi

# CI: the stale rows are a failure that names chapter 20 (the staleness checks alone; the
# results model's tests ran above).
CI=true TEST_SECTIONS=results tests/run.sh >"$log" 2>&1; rc=$?
# Any of the problems listed may name it: a chapter already stale in the clone comes first.
if [ $rc -ne 0 ] && sed -n '/^FAIL: results\/ has problems/,/results file(s) checked/p' "$log" \
        | grep -q '^FAIL: .*: chapter 20 [a-z]*: stale (measured'; then
    ok "with CI=true, make test after the exercise fails naming chapter 20 (exit $rc)"
else
    bad "with CI=true, make test after the exercise: exit $rc, no failure naming chapter 20:"
    grep -E '^(FAIL|WARNING)' "$log" | head -n 10 | show; tail -n 1 "$log" | show
fi
exit $fail
