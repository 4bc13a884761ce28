#!/usr/bin/env bash
# make test: everything that can be checked here, and on a machine with a GPU every chapter at
# its small and odd sizes with two seeds, every sweep and every knob value its prose uses, and
# compute-sanitizer's four tools over every program. The skipped count is the next-to-last line; the
# last line is exactly "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. scripts/variants.sh
pass=0 fail=0 skip=0 warned=0
ok()      { echo "PASS: $*"; pass=$((pass + 1)); }
bad()     { echo "FAIL: $*"; fail=$((fail + 1)); }
skipped() { echo "SKIP: $*"; skip=$((skip + 1)); }
warning() { echo "WARNING: $*"; warned=$((warned + 1)); }
log=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$log" "$tmp"' EXIT

# The suite's builds treat warnings as errors; a student's `make chapter-NN` does not.
mk() { make --no-print-directory WERROR=1 "$@"; }
# Seconds since the epoch, with a fraction, for the time each section took (reported, never
# asserted: no check depends on the machine's speed).
now() { date +%s.%N; }

# TEST_SECTIONS="results book" runs only those sections (tests/exercise_test.sh runs the results
# section in a copy of the repository): unit makefile build cli results exercise book gpu.
# results-model: tests/results/run.sh, inside the results section.
want() { [ -z "${TEST_SECTIONS:-}" ] || [[ " $TEST_SECTIONS " == *" $1 "* ]]; }
# section NAME: its heading, and the time the previous section took, for the summary line.
sections= section_name= section_t0=
section() {
    [ -z "$section_name" ] || sections="$sections${sections:+, }${section_name%% (*} $(awk -v a="$section_t0" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }')"
    section_name=$1 section_t0=$(now)
    [ -z "$1" ] || echo "== $1"
}

gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
chapters=()
for d in chapters/[0-9][0-9]-*/; do [ -f "$d/problem.cu" ] && chapters+=("${d%/}"); done
programs=()
for d in "${chapters[@]}"; do programs+=($(chapter_programs "$d")); done

section "host unit tests"
if want unit; then
if tests/unit.sh >"$log" 2>&1; then :; fi
grep -E '^(FAIL|test_)' "$log"
read -r p f < <(tail -n 1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [ -n "${p:-}" ]; then pass=$((pass + p)); fail=$((fail + f)); else bad "unit tests did not run"; cat "$log"; fi
fi # unit

section "the Makefile"
if want makefile; then
# Chapter numbers are parsed strictly, and a target that needs a GPU, ncu or compute-sanitizer
# says so before it builds anything (asserted by what it printed, never by how long it took). A fake nvidia-smi that finds no GPU stands in for a
# machine without one, so this runs on every machine.
# A malformed plants.tsv is refused by name and line before anything is built (planted in a
# scratch tree: a bad size, a lower-case name, a plant no source mentions, a short line).
ptmp=$(mktemp -d)
mkdir -p "$ptmp/chapters/99-x" && echo '#ifdef PLANT_OK
#endif' >"$ptmp/chapters/99-x/naive.cu"
printf 'OK\tnaive\tbig\t-\tx\nok\tnaive\tsmall\t-\tx\nNONE\tnaive\tsmall\t-\tx\nOK\tnaive\nSED\tnaive\tsmall\t-\tx\ts/no such text/y/\n' >"$ptmp/chapters/99-x/plants.tsv"
(cd "$ptmp" && "$OLDPWD/tests/plants.sh") >"$log" 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '^error: chapters/99-x/plants.tsv:[1-5]: ' "$log")" -eq 5 ] \
    && ok "tests/plants.sh refuses each of five malformed plant lines, a sed plant that changes nothing among them (exit 2)" \
    || { bad "tests/plants.sh on five malformed lines: exit $rc"; cat "$log"; }
printf 'SED\tnaive\tsmall\t-\tx\ts/PLANT_OK/PLANT_SED/\n' >"$ptmp/chapters/99-x/plants.tsv"
(cd "$ptmp" && "$OLDPWD/tests/plants.sh" source chapters/99-x SED naive) | grep -q '^#ifdef PLANT_SED$' \
    && ok "tests/plants.sh source applies a plant's sed expression to the program" || bad "tests/plants.sh source did not apply the sed plant"
# A sed plant may edit a header of the chapter's that the program includes: the edited header
# then stands inlined where the program includes it (an unedited one stays an #include).
printf '#include "kept.h"\n#include "edited.h" /* a comment */\nint main(void) { return 0; }\n' >"$ptmp/chapters/99-x/hdr.cu"
echo 'int kept;' >"$ptmp/chapters/99-x/kept.h"; echo 'int edited = 1;' >"$ptmp/chapters/99-x/edited.h"
printf 'HDR\thdr\tsmall\t-\tx\ts/edited = 1/edited = 2/\n' >"$ptmp/chapters/99-x/plants.tsv"
[ "$(cd "$ptmp" && "$OLDPWD/tests/plants.sh" source chapters/99-x HDR hdr)" = "$(printf '#include "kept.h"\nint edited = 2;\nint main(void) { return 0; }')" ] \
    && ok "tests/plants.sh source inlines, edited, a chapter header that the plant's expression changes" \
    || bad "tests/plants.sh source did not inline the edited header"
rm -f "$ptmp/chapters/99-x/hdr.cu"
printf 'OK\tnaive\todd\t--block 64\ta plant\n' >"$ptmp/chapters/99-x/plants.tsv"
[ "$(cd "$ptmp" && "$OLDPWD/tests/plants.sh")" = "chapters/99-x OK naive odd --block 64" ] \
    && ok "tests/plants.sh lists a well-formed plant with its options" || bad "tests/plants.sh misread a well-formed plant"
# A size may name the sanitizer tool that must catch the plant; an unknown tool is refused.
printf 'OK\tnaive\tracecheck:small\t-\ta race\n' >"$ptmp/chapters/99-x/plants.tsv"
[ "$(cd "$ptmp" && "$OLDPWD/tests/plants.sh")" = "chapters/99-x OK naive racecheck:small " ] \
    && ok "tests/plants.sh lists a plant that racecheck must catch" || bad "tests/plants.sh misread a sanitizer plant"
printf 'OK\tnaive\tnosuchtool:small\t-\ta race\n' >"$ptmp/chapters/99-x/plants.tsv"
(cd "$ptmp" && "$OLDPWD/tests/plants.sh") >"$log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "size 'nosuchtool:small'" "$log" \
    && ok "tests/plants.sh refuses a plant size naming an unknown sanitizer tool (exit 2)" \
    || { bad "tests/plants.sh on an unknown sanitizer tool: exit $rc"; cat "$log"; }
rm -rf "$ptmp"
for goal in chapter-1e1 chapter-2x chapter-99 profile-2x; do
    make --no-print-directory "$goal" >"$log" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "^error: there is no chapter '${goal#*-}'" "$log" \
        && ok "make $goal: no such chapter (exit 2)" || { bad "make $goal: exit $rc"; head -n 3 "$log"; }
done
make --no-print-directory results CHAPTERS="20 2x" >"$log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q '^error: CHAPTERS: no chapter 2x' "$log" \
    && ok "make results CHAPTERS='20 2x': no chapter 2x" || { bad "make results CHAPTERS='20 2x': exit $rc"; head -n 3 "$log"; }
# User text reaches the recipes as data, never as shell: a backtick runs nothing, a quote is
# named in the same clear error as any other bad number (planted: each wrote a file or broke the
# shell's quoting before).
pwned=pwned-by-make-test-$$
for v in "CHAPTERS=1\`touch $tmp/$pwned\`" 'CHAPTERS=1"x 20' "CHAPTERS=%" "chapter-1\`touch $pwned\`" 'chapter-1"x' \
         "ARCH=\`touch $pwned\`"; do
    case $v in
    CHAPTERS=*) make --no-print-directory results "$v" >"$log" 2>&1; rc=$?; want="^error: CHAPTERS: no chapter " ;;
    ARCH=*) make --no-print-directory "$v" build/libcommon.a >"$log" 2>&1; rc=$?; want="^error: ARCH: '.*' is not a GPU architecture" ;;
    *) make --no-print-directory "$v" >"$log" 2>&1; rc=$?; want="^error: there is no chapter '${v#chapter-}'" ;;
    esac
    if [ $rc -eq 2 ] && grep -q -- "$want" "$log" && [ ! -e "$tmp/$pwned" ] && [ ! -e "$pwned" ]; then
        ok "make $v: one clear error, nothing run (exit 2)"
    else bad "make $v: exit $rc"; head -n 3 "$log"; fi
    rm -f "$tmp/$pwned" "$pwned"
done
# Bad data for make help and make book: a broken results/loops/times.csv is an error (it exited
# 0 before), and a results file whose name has a space is refused in one line (before: make's
# "No rule to make target"), before the book's tools are needed.
mkdir -p "$tmp/r/loops" && printf 'loop,machine,seconds,commit,date\nmake test,x,abc,1234567,2026-11-24T23:44:34Z\n' >"$tmp/r/loops/times.csv"
make --no-print-directory help RESULTS_DIR="$tmp/r" >"$log" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "times.csv:2: column seconds" "$log" && grep -q '^error: make help: ' "$log" \
    && ok "make help with a broken loops/times.csv: an error naming the line (exit $rc)" \
    || { bad "make help with a broken loops/times.csv: exit $rc"; tail -n 3 "$log"; }
cp results/*.csv "$tmp/r/" 2>/dev/null; cp "$(ls results/*.csv | head -n 1)" "$tmp/r/my gpu.csv"
make --no-print-directory book RESULTS_DIR="$tmp/r" BOOK_OUT="$tmp/book" >"$log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "^error: $tmp/r/my gpu.csv: a results file's name has a space" "$log" && ! grep -q 'No rule' "$log" \
    && ok "make book with a results file named with a space: refused in one line" \
    || { bad "make book with a results file named with a space: exit $rc"; tail -n 3 "$log"; }
rm -rf "$tmp/r" "$tmp/book"
mkdir -p "$tmp/no-gpu"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$tmp/no-gpu/nvidia-smi"
chmod +x "$tmp/no-gpu/nvidia-smi"
for goal in results evidence sanitize profile-20 chapter-20 doctor; do
    PATH="$tmp/no-gpu:$PATH" make --no-print-directory "$goal" >"$log" 2>&1; rc=$?
    if [ $rc -ne 0 ] && grep -q "^error: make $goal needs a CUDA GPU" "$log" \
        && ! grep -qE '(nvcc|gcc) .* -c ' "$log"; then
        ok "make $goal without a GPU stops before building anything"
    else bad "make $goal without a GPU: exit $rc"; head -n 5 "$log"; fi
done
# Several good chapter numbers pass the number check (and then meet the missing GPU).
PATH="$tmp/no-gpu:$PATH" make --no-print-directory results CHAPTERS="1 20" >"$log" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "^error: make results needs a CUDA GPU" "$log" \
    && ok "make results CHAPTERS='1 20': both numbers accepted" \
    || { bad "make results CHAPTERS='1 20': exit $rc"; head -n 3 "$log"; }
make --no-print-directory ARCH=sm_8x build/libcommon.a >"$log" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "^error: ARCH: 'sm_8x' is not a GPU architecture" "$log" \
    && ok "make ARCH=sm_8x: not a GPU architecture" || { bad "make ARCH=sm_8x: exit $rc"; head -n 3 "$log"; }
make --no-print-directory NVCC=/no/such/nvcc build/libcommon.a >"$log" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q '^error: nvcc not found' "$log" && ! grep -q ' -c ' "$log" \
    && ok "an nvcc that is not there: one line, nothing built" || { bad "missing nvcc: exit $rc"; head -n 3 "$log"; }
make --no-print-directory help >"$log" 2>&1
missing=
for word in ARCH NVCCFLAGS CUDA_HOME CHAPTERS ARGS WERROR chapter-NN results evidence sanitize doctor test; do
    grep -q "$word" "$log" || missing="$missing $word"
done
[ -z "$missing" ] && ok "make help lists the targets and the variables" || bad "make help does not mention$missing"
fi # makefile

if want build; then
nvcc=$(make -s --no-print-directory print-nvcc)
if ! command -v "$nvcc" >/dev/null 2>&1; then
    bad "nvcc not found (not in CUDA_HOME, PATH or /usr/local/cuda): install the CUDA Toolkit or set CUDA_HOME; nothing was built or run"
    programs=()
else
    cuda_home=$(dirname "$(dirname "$(command -v "$nvcc")")")
    got=$(env PATH=/usr/bin:/bin CUDA_HOME="$cuda_home" make -s --no-print-directory print-nvcc)
    [ "$got" = "$cuda_home/bin/nvcc" ] && ok "CUDA_HOME=$cuda_home finds nvcc off PATH" \
        || bad "CUDA_HOME=$cuda_home with nvcc off PATH: make uses '$got'"

    section "build (warnings as errors)"
    if mk build/libcommon.a >"$log" 2>&1; then ok "common/ builds"; else bad "common/ does not build"; tail -n 30 "$log"; fi
    # One make builds every chapter (-k: a chapter that fails does not stop the others; side by
    # side unless make test itself was given -j), and make's own error lines say whose target
    # failed. 36 makes, one per chapter, spent most of their time reading the Makefile again.
    jobs=; [[ " ${MAKEFLAGS:-} " == *jobserver* ]] || jobs=-j$(nproc)
    mk -k $jobs all >"$log" 2>&1
    for d in "${chapters[@]}"; do
        slug=$(basename "$d")
        if ! grep -qE "\*\*\* \[[^]]*(build|chapters)/$slug/" "$log"; then ok "$d builds"
        else bad "$d does not build"; grep -E "$slug.*(error|warning)|\*\*\* .*$slug/" "$log" | head -n 20; fi
    done
    ! grep -q 'jobserver unavailable' "$log" || bad "make all: jobserver unavailable"
    # Kept objects, kept flags, per-file dependencies: building again compiles nothing, and
    # after a change to one file of common/ only that file.
    mk all >"$log" 2>&1
    grep -qE ' -c ' "$log" && { bad "a second build compiled again:"; grep -E ' -c ' "$log" | head -n 3; } \
        || ok "a second build compiles nothing"
    touch common/stats.c
    mk all >"$log" 2>&1
    n=$(grep -cE ' -c ' "$log")
    [ "$n" -eq 1 ] && grep -q ' -c common/stats.c ' "$log" && ok "after touching common/stats.c a build compiles that file alone" \
        || { bad "after touching common/stats.c a build compiled $n files:"; grep -E ' -c ' "$log" | head -n 3; }
    planted=0
    for n in 0 1 2 3 4 5 6 7; do
        if mk "build/tests/planted-$n" >"$log" 2>&1; then planted=$((planted + 1))
        else bad "tests/planted/planted.cu (PLANT=$n) does not build"; tail -n 20 "$log"; fi
    done
    [ $planted -eq 8 ] && ok "planted-bug programs build"
    mk build/doctor-roofs >"$log" 2>&1 && ok "make doctor's scripts/doctor-roofs.cu builds" \
        || { bad "scripts/doctor-roofs.cu does not build"; tail -n 20 "$log"; }
    # Each chapter's planted faults (tests/plants.sh reads chapters/*/plants.tsv).
    if plants=$(tests/plants.sh 2>"$log"); then
        # All of them in one make, on every core; only if that fails, one at a time, to name
        # each plant that does not build.
        bins=()
        while read -r dir name v _; do
            [ -n "$dir" ] && bins+=("build/tests/plant/${dir#chapters/}/$name/$v")
        done <<<"$plants"
        if [ ${#bins[@]} -gt 0 ] && mk -j"$(nproc)" "${bins[@]}" >"$log" 2>&1; then
            ok "every chapter's planted faults build (${#bins[@]} programs)"
        else
            for b in "${bins[@]}"; do
                mk "$b" >"$log" 2>&1 || { bad "${b#build/tests/plant/} (a planted fault) does not build"; tail -n 20 "$log"; }
            done
        fi
    else bad "a plants.tsv is malformed:"; cat "$log"; fi
fi
fi # build

section "command line (no GPU needed; every bad input refused before the GPU opens)"
if want cli; then
# refused PATTERN ARGS...: $prog exits 2 with one line that names it ($name) and matches
# PATTERN, and prints nothing on stdout: no work began.
refused() {
    local pattern=$1; shift
    "$prog" "$@" >"$log" 2>"$log.err"; local rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$log" ] && grep -q "^$name: error: .*$pattern" "$log.err"; then
        ok "$prog $* refused before the GPU (exit 2)"
    else bad "$prog $*: exit $rc"; head -n 3 "$log" "$log.err"; fi
}
cli_checks() { # PROG: its command line, its --help and --describe, its no-GPU message
    local prog=$1 name=${1#chapters/} knobs options k rule lo step v o rc
    [ -x "$prog" ] || { bad "$prog was not built"; return; }
    "$prog" --help >"$log" 2>&1 && grep -q '^usage:' "$log" && ok "$prog --help" || { bad "$prog --help"; head -n 3 "$log"; }
    "$prog" --describe >"$log" 2>&1 && grep -q '^small_size=' "$log" && ok "$prog --describe" || bad "$prog --describe"
    knobs=$(sed -n 's/^knob=//p' "$log")
    options=$(sed -n 's/^\(sweep\|test\)=//p' "$log")
    refused "unknown option '--no-such-option'" --no-such-option
    refused 'out of range' --size 0
    refused 'not a non-negative integer' --seed banana
    refused 'takes its options from standard input' --check-batch --size small
    refused 'takes one file of options' --batch sets.txt --size small
    refused "--batch '/no/such/sets.txt': No such file or directory" --batch /no/such/sets.txt
    refused "--append '/no/such/dir/x.csv': No such file or directory" --check-only --append /no/such/dir/x.csv
    for k in $knobs; do
        refused "--$k 2000000000 is out of range" --check-only --"$k" 2000000000
        rule=$("$prog" --help | grep -E "^  --$k " | sed -n 's/.*[(]default [0-9-]*; \(.*\)[)]$/\1/p')
        lo=${rule%%..*}
        step=$(echo "$rule" | sed -n 's/.*a multiple of \([0-9]*\).*/\1/p')
        case $rule in
        *"a power of two or a multiple of"*)
            # The first value above the minimum that is neither.
            v=$((lo + 1))
            while [ $((v & (v - 1))) -eq 0 ] || [ $((v % step)) -eq 0 ]; do v=$((v + 1)); done
            refused "is neither a power of two nor a multiple of $step" --check-only --"$k" $v ;;
        *)
            [ -z "$step" ] || refused "is not a multiple of $step" --check-only --"$k" $((lo + 1))
            case $rule in *"a power of two"*)
                refused 'is not a power of two' --check-only --"$k" $((lo > 1 ? lo + 1 : 3)) ;;
            esac ;;
        esac
    done
    # Every sweep and every knob value the prose uses is accepted by the parser.
    while IFS= read -r o; do
        [ -n "$o" ] || continue
        # shellcheck disable=SC2086  # the options are words
        "$prog" $o --describe >/dev/null 2>"$log.err" && ok "$prog accepts '$o'" \
            || { bad "$prog refuses its own '$o'"; cat "$log.err"; }
    done <<<"$options"
    # A batch's option sets are all parsed before the GPU opens: a bad set alone is refused
    # (exit 2, its error and its verdict line) with the GPU hidden; beside a good set it is
    # still reported before the missing GPU stops the run (exit 3).
    printf -- '--size -5\n' >"$log.sets"
    for o in --check-batch "--batch $log.sets"; do
        # shellcheck disable=SC2086  # the options are words
        CUDA_VISIBLE_DEVICES= "$prog" $o <"$log.sets" >"$log" 2>&1; rc=$?
        [ $rc -eq 2 ] && grep -q "^$name: error: .*--size" "$log" && grep -qx 'batch: exit 2: --size -5' "$log" \
            && ! grep -q 'no CUDA GPU' "$log" && ok "$prog ${o%% *} with a bad set refused before the GPU (exit 2)" \
            || { bad "$prog ${o%% *} with a bad set: exit $rc"; head -n 3 "$log"; }
    done
    printf -- '--size -5\n--size small\n' | CUDA_VISIBLE_DEVICES= "$prog" --check-batch >"$log" 2>&1; rc=$?
    [ $rc -eq 3 ] && grep -qx 'batch: exit 2: --size -5' "$log" && grep -q "^$name: error: no CUDA GPU" "$log" \
        && ok "$prog --check-batch, a bad set beside a good one without a GPU: the bad one reported, exit 3" \
        || { bad "$prog --check-batch, a bad and a good set without a GPU: exit $rc"; head -n 3 "$log"; }
    rm -f "$log.sets"
    # No GPU (hidden from the CUDA runtime where one exists): one line naming the program, exit 3.
    CUDA_VISIBLE_DEVICES= "$prog" --check-only --size small >"$log" 2>&1; rc=$?
    [ $rc -eq 3 ] && grep -q "^$name: error: no CUDA GPU" "$log" && ! grep -qi 'insufficient' "$log" \
        && [ "$(wc -l <"$log")" -eq 1 ] && ok "$prog without a GPU says so in one line (exit 3)" \
        || { bad "$prog without a GPU: exit $rc"; head -n 5 "$log"; }
    rm -f "$log.err"
}
run_each cli_checks "${programs[@]}"
fi # cli

section "results and READMEs"
if want results; then
# CI (CI=true) fails on a stale row. A person who changed a chapter for an exercise gets a
# warning naming it and the command that re-measures it.
if [ "${CI:-}" = true ]; then flag=; else flag=--warn-stale; fi
if python3 scripts/results.py stale $flag >"$log" 2>&1; then
    ok "results/ valid and current ($(tail -n 1 "$log"))"
    while IFS= read -r line; do warning "${line#WARN: }"; done < <(grep '^WARN:' "$log")
else bad "results/ has problems"; cat "$log"; fi
if python3 scripts/results.py readme --check "${chapters[@]}" >"$log" 2>&1; then ok "chapter READMEs match their sources and results"
elif [ $warned -gt 0 ]; then
    # The changed chapters' listings and stale marks: `make readme` rewrites them.
    warning "READMEs differ from the changed chapters' code and results: \`make readme\` rewrites them"
    grep '^FAIL' "$log" | sed 's/^FAIL: /    /'
else bad "chapter READMEs are out of date (make readme rewrites them)"; cat "$log"; fi
# The prose rules (scripts/guide/prose.py): each chapter's hand-written words (at most 1,500),
# and its explanation against its evidence: claims cited with their verdicts, none resting on a
# claim that missed, Why paragraphs that cite evidence, nothing typed that the data own
# (tests/results/prose_test.py plants each fault).
if python3 scripts/results.py prose "${chapters[@]}" >"$log" 2>&1; then
    ok "chapter prose follows the rules; words per chapter: $(sed -n 's|^chapters/\([0-9]*\)-[^:]*: \([0-9]*\) words.*|\1 \2|p' "$log" | paste -sd, - | sed 's/,/, /g')"
else bad "chapter prose breaks the rules ($(grep -c '^  FAIL' "$log") finding(s)):"; grep -B1 '^  FAIL' "$log" | grep -v '^--' | sed 's/^  FAIL: /    /'; fi
# Every claim against the committed evidence of every GPU: a contradicted claim, or one that
# cannot fail, fails the suite (tests/results/claims_test.sh plants both). A person's changed
# chapter makes its evidence stale: a warning, like the staleness check's.
if python3 scripts/results.py claims >"$log" 2>&1; then ok "claims hold on the recorded evidence ($(grep '^predictions' "$log"); $(tail -n 1 "$log"))"
elif [ $warned -gt 0 ] && ! grep '^FAIL' "$log" | grep -qv 'stale evidence'; then
    warning "claims read stale evidence of the changed chapters: re-measure them on a GPU"
else bad "claims fail on the recorded evidence"; grep -E '^(FAIL|WARN)' "$log"; tail -n 1 "$log"; fi
# The staleness check must catch a changed source: plant one in a copy, strict and for a person.
if [ ${#chapters[@]} -gt 0 ] && ls results/*.csv >/dev/null 2>&1; then
    # The sources alone: the built programs and book are not needed here.
    git ls-files -co --exclude-standard -- scripts chapters results book common | tar -cf - -T - | tar -xf - -C "$tmp"
    n=$(sed -n 2p "$(ls "$tmp"/results/*.csv | head -n 1)" | cut -d, -f1)
    nn=$(printf %02d "$((10#$n))")
    echo "// planted change" >>"$(ls -d "$tmp"/chapters/"$nn"-*)/problem.cu"
    if python3 "$tmp"/scripts/results.py stale >"$log" 2>&1 || ! grep -q "stale" "$log"; then
        bad "a planted source change was not reported stale"; tail -n 3 "$log"
    else ok "a planted source change is reported stale (CI)"; fi
    if python3 "$tmp"/scripts/results.py stale --warn-stale >"$log" 2>&1 \
        && grep -q "^WARN: chapter $nn .*make results CHAPTERS=$nn.*stale" "$log"; then
        ok "for a person, a changed chapter is a warning with the command that re-measures it"
    else bad "--warn-stale on a planted change:"; cat "$log"; fi
    rm -rf "${tmp:?}"/scripts "$tmp"/chapters "$tmp"/results "$tmp"/book "$tmp"/common
fi
if [ -x tests/results/run.sh ] && want results-model; then
    tests/results/run.sh >"$log" 2>&1; rc=$?
    grep '^FAIL' "$log"
    p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
    pass=$((pass + p)); fail=$((fail + f))
    [ $rc -eq 0 ] || [ "$f" -gt 0 ] || { bad "tests/results/run.sh exit $rc"; tail -n 20 "$log"; }
    echo "tests/results: $p passed, $f failed"
fi
fi # results

section "the README's exercise (an edit to chapter 20 in a copy: warnings, and failures in CI)"
if want exercise; then
    tests/exercise_test.sh >"$log" 2>&1; rc=$?
    grep -E '^(PASS|FAIL|SKIP|    )' "$log"
    p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log"); sk=$(grep -c '^SKIP' "$log")
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + sk))
    [ $rc -eq 0 ] || [ "$f" -gt 0 ] || { bad "tests/exercise_test.sh exit $rc"; tail -n 20 "$log"; }
fi # exercise

section "book"
if want book; then
if [ -x book/check.sh ]; then
    if command -v pandoc >/dev/null && command -v xelatex >/dev/null; then
        book/check.sh >"$log" 2>&1; rc=$?
        grep -E '^(PASS|FAIL|WARNING)' "$log"
        p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
        pass=$((pass + p)); fail=$((fail + f)); warned=$((warned + $(grep -c '^WARNING' "$log")))
        [ $rc -eq 0 ] || [ "$f" -gt 0 ] || { bad "book/check.sh exit $rc"; tail -n 30 "$log"; }
    elif [ "${CI:-}" = true ]; then bad "pandoc/xelatex missing in CI (scripts/install-deps.sh)"
    else skipped "the book: pandoc or xelatex missing (make deps installs them)"; fi
else skipped "the book: book/check.sh not present"; fi
fi # book

section "on the GPU"
if want gpu; then
if [ $gpu -eq 0 ]; then
    skipped "no GPU on this machine: chapters were built and their no-GPU path checked, not run"
else
    sanitizer=$(command -v compute-sanitizer || echo "${cuda_home:-/usr/local/cuda}/bin/compute-sanitizer")
    [ -x "$sanitizer" ] || { bad "compute-sanitizer not found (it comes with the CUDA Toolkit)"; sanitizer=; }
    # sanitize TOOL PROG ARGS...: compute-sanitizer's verdict on one run.
    # memcheck also tracks stream-ordered allocations (a use after cudaFreeAsync), where the
    # installed compute-sanitizer offers it.
    ordered=()
    [ -n "$sanitizer" ] && "$sanitizer" --help 2>/dev/null | grep -q -- '--track-stream-ordered-races' \
        && ordered=(--track-stream-ordered-races all)
    sanitize() {
        if [ "$1" = memcheck ]; then "$sanitizer" --tool "$1" "${ordered[@]}" --error-exitcode 99 "${@:2}" >"$log" 2>&1
        else "$sanitizer" --tool "$1" --error-exitcode 99 "${@:2}" >"$log" 2>&1; fi
    }
    # 4: a counter never reset (the second run on the same buffers fails); 5: a side stream
    # never joined (the check waits for the program's stream alone, so it reads poison).
    for n in 0 1 2 3 4 5 6 7; do
        bin=build/tests/planted-$n
        [ -x "$bin" ] || continue
        "$bin" --check-only --size odd >"$log" 2>&1; rc=$?
        want=$(case $n in 0 | 3 | 6 | 7) echo 0 ;; *) echo 1 ;; esac)
        [ $rc -eq "$want" ] && ok "planted bug $n: exit $rc as expected" || { bad "planted bug $n: exit $rc, expected $want"; tail -n 5 "$log"; }
    done
    # 7: a grid-stride loop's wrong stride passes every size that fits the grid's first pass.
    if [ -x build/tests/planted-7 ] && [ -x build/tests/planted-0 ] && [ -x build/tests/planted-4 ]; then
    build/tests/planted-7 --check-only --size passes >"$log" 2>&1; rc=$?
    [ $rc -eq 1 ] && ok "planted bug 7 (a wrong grid stride) fails at --size passes" \
        || { bad "planted bug 7 at --size passes: exit $rc, expected 1"; tail -n 5 "$log"; }
    build/tests/planted-0 --check-only --size passes >"$log" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok "the correct planted program passes at --size passes" \
        || { bad "planted program 0 at --size passes: exit $rc"; tail -n 5 "$log"; }
    grep -q "the second run on the same buffers failed" <(build/tests/planted-4 --check-only --size small 2>&1) \
        && ok "planted bug 4 (state not reset) fails on the second run, and says so" \
        || bad "planted bug 4 did not fail on the second run"
    else skipped "the planted programs are not built (TEST_SECTIONS without build?)"; fi
    # A batch (how every program's sizes, seeds and sweeps are checked) reports each failing
    # configuration on its own: planted bug 1 fails both sets, planted bug 0 passes both.
    for n in 0 1; do
        bin=build/tests/planted-$n
        [ -x "$bin" ] || continue
        printf -- '--size small --seed 1\n--size odd --seed 2\n' | "$bin" --check-batch >"$log" 2>&1; rc=$?
        want=$n; got=$(grep -c "^batch: exit $n: " "$log")
        [ $rc -eq "$want" ] && [ "$got" -eq 2 ] && ok "planted bug $n in a batch: both configurations exit $n" \
            || { bad "planted bug $n in a batch: exit $rc, $got of 2 verdicts exit $want"; tail -n 5 "$log"; }
    done
    # Each chapter's planted faults: its check must fail (exit 1) on every one, or the sanitizer
    # tool its size names (TOOL:SIZE) must report it (exit 99).
    plant_list=$(tests/plants.sh 2>/dev/null)
    while read -r dir name v size opts; do
        [ -n "$dir" ] || continue
        bin=build/tests/plant/${dir#chapters/}/$name/$v
        [ -x "$bin" ] || continue
        if [[ $size == *:* ]]; then
            tool=${size%%:*} at="--size ${size#*:}${opts:+ $opts}"
            if [ -z "$sanitizer" ]; then skipped "$dir $v with PLANT_$name: no compute-sanitizer for $tool"; continue; fi
            # shellcheck disable=SC2086 # the options are words
            sanitize "$tool" "$bin" --check-only --size "${size#*:}" $opts; rc=$?
            [ $rc -eq 99 ] && ok "$tool reports $dir $v with PLANT_$name ($at)" \
                || { bad "$dir $v with PLANT_$name ($at): $tool exit $rc, expected 99 (the sanitizer missed the fault)"; tail -n 5 "$log"; }
            continue
        fi
        # shellcheck disable=SC2086 # the options are words
        GUIDE_CAPTURE=1 "$bin" --check-only --size "$size" $opts >"$log" 2>&1; rc=$?
        at="--size $size${opts:+ $opts}"
        [ $rc -eq 1 ] && ok "$dir $v with PLANT_$name fails its check ($at)" \
            || { bad "$dir $v with PLANT_$name ($at): exit $rc, expected 1 (the check missed the fault)"; tail -n 5 "$log"; }
    done <<<"$plant_list"
    if [ -n "$sanitizer" ] && [ -x build/tests/planted-3 ]; then
        sanitize racecheck build/tests/planted-0 --check-only --size small && ok "racecheck passes the race-free planted program" \
            || { bad "racecheck fails the race-free planted program"; tail -n 10 "$log"; }
        sanitize racecheck build/tests/planted-3 --check-only --size small && bad "racecheck missed the planted race (a dropped barrier)" \
            || ok "racecheck catches the planted race that the check cannot see"
    fi
    if [ -n "$sanitizer" ] && [ -x build/tests/planted-6 ]; then
        if [ ${#ordered[@]} -eq 0 ]; then bad "compute-sanitizer has no --track-stream-ordered-races: a use after cudaFreeAsync goes unseen"
        else
            sanitize memcheck build/tests/planted-0 --check-only --size small && ok "memcheck (stream-ordered tracking) passes the planted program without the bug" \
                || { bad "memcheck fails the correct planted program"; tail -n 10 "$log"; }
            sanitize memcheck build/tests/planted-6 --check-only --size small && bad "memcheck missed the planted use after cudaFreeAsync" \
                || ok "memcheck catches the planted use after cudaFreeAsync that the check cannot see"
        fi
    fi
    # CHAPTERS (from `make test CHAPTERS="11 12"`) narrows this part to those chapters.
    gpu_programs=()
    for prog in "${programs[@]}"; do
        nn=${prog#chapters/}; nn=${nn%%-*}
        if [ -z "${CHAPTERS:-}" ] || [[ " $CHAPTERS " == *" $nn "* ]]; then gpu_programs+=("$prog"); fi
    done
    [ -z "${CHAPTERS:-}" ] || echo "(chapters $CHAPTERS only)"
    # Past 2^31 elements: a program that accepts such a size is checked once there (or at its
    # largest size), where an `int` count or index wraps and no other test size reaches
    # (planted: chapter 07's INT_COUNT). One program at a time, here and not among the parallel
    # items: each run holds tens of GB of host and GPU memory.
    for prog in "${gpu_programs[@]}"; do
        [ -x "$prog" ] || continue
        max=$("$prog" --describe | sed -n 's/^max_size=//p')
        [ -n "$max" ] && [ "$max" -ge 2147483648 ] || continue
        size=$((max < 2147483651 ? max : 2147483651))
        "$prog" --check-only --size "$size" >"$log" 2>&1; rc=$?
        if [ $rc -eq 0 ]; then ok "$prog checks at --size $size, past 2^31 elements"
        elif [ $rc -eq 4 ] && grep -q 'GPU memory' "$log"; then skipped "$prog at --size $size: too large for this GPU's memory"
        else bad "$prog at --size $size (past 2^31 elements): exit $rc"; tail -n 5 "$log"; fi
    done
    # batch_verdicts LOG PROG <SETS: one PASS or FAIL per option set (a line of stdin) from the
    # "batch: exit N: SET" lines of a --check-batch run's LOG; a failure shows that set's own
    # output (the lines after the verdict before it).
    batch_verdicts() {
        local o out st
        while IFS= read -r o; do
            # One pass over the log: the set's exit status on the first line (empty where the
            # process stopped before its verdict), then its own output.
            out=$(awk -v want="$o" '/^batch: exit [0-9]+: /{ s = $0; sub(/^batch: exit [0-9]+: /, "", s)
                     if (s == want) { split($0, w, " "); sub(/:$/, "", w[3]); print w[3]; printf "%s", buf
                                      found = 1; exit }
                     buf = ""; next }
                 { buf = buf $0 "\n" } END { if (!found) printf "\n%s", buf }' "$1")
            st=$(head -n 1 <<<"$out")
            if [ "$st" = 0 ]; then ok "$2 $o"
            else
                if [ -n "$st" ]; then bad "$2 $o: exit $st"
                else bad "$2 $o: no verdict: the process stopped before it ended"; fi
                tail -n +2 <<<"$out" | tail -n 8
            fi
        done
    }
    gpu_checks() { # PROG: every size, seed, sweep and knob value; planted faults; sanitizers
        local prog=$1 size seed o rc fit tool
        [ -x "$prog" ] || return 0
        # Every size and seed, every sweep the results hold and every knob value the prose
        # tells a reader to try: one process for them all (--check-batch: one CUDA context,
        # where one process each spent most of its time starting one). Each configuration's
        # own "batch: exit N" line is its verdict; one with none was cut short by a crash.
        local sets
        # --size passes: large enough that every grid-stride loop runs more than one pass of the
        # grid as launched (a wrong stride passes when every test fits in the first).
        # Each knob setting a plant of this program fails at is checked on the correct program
        # too: a plant that fails where the correct program also fails proves nothing.
        # --size min: the smallest size the program accepts (one element, one row, a 3 x 3
        # grid), where a tail, a vector width or a stopping rule meets its edge case.
        sets=$(echo "--size passes --seed 3"; echo "--size min --seed 1"; for size in small odd; do for seed in 1 2; do echo "--size $size --seed $seed"; done; done
               "$prog" --describe | sed -n 's/^\(sweep\|test\)=//p' | while IFS= read -r o; do
                   [ -n "$o" ] || continue; echo "$o --size small"; echo "$o --size odd"; done
               awk -v d="${prog%/*}" -v v="${prog##*/}" '$1 == d && $3 == v && NF > 4 {
                   o = ""; for (i = 5; i <= NF; i++) o = o $i " "; sub(/^[a-z]+:/, "", $4); print o "--size " $4 }' <<<"$plant_list" | sort -u)
        sets=$(awk '!seen[$0]++' <<<"$sets")
        # GUIDE_CAPTURE=1: a kernel-timed program checks once more from a graph captured on its
        # stream, so work it puts on another stream fails (common/driver.cu, captured_run).
        GUIDE_CAPTURE=1 "$prog" --check-batch <<<"$sets" >"$log" 2>&1; rc=$?
        batch_verdicts "$log" "$prog" <<<"$sets"
        [ $rc -eq 0 ] || grep -q '^batch: exit [1-9]' "$log" \
            || { bad "$prog --check-batch: exit $rc with no configuration failed"; tail -n 5 "$log"; }
        # Each configuration checks twice in one process; make evidence refuses a figure
        # printed twice, so the second run must print none (common/evidence.h).
        local dups
        dups=$(awk '/^batch: exit /{ split("", seen); next } /^evidence: /{ if (seen[$2]++) print $2 }' "$log" | sort -u | tr '\n' ' ')
        [ -z "$dups" ] && ok "$prog prints each evidence figure once per configuration" \
            || bad "$prog prints evidence twice in one configuration: $dups"
        # The planted fault every check must catch: outputs left as poisoned, as by a kernel
        # that wrote nothing.
        # Every knob setting the tests run gets it too: a knob value whose check is weaker (a
        # direction that compares a buffer with itself) must fail as the default does.
        local psets n_sets n_failed
        psets=$(grep -- '--size odd' <<<"$sets" | grep -v -- '--seed 2')
        n_sets=$(grep -c . <<<"$psets")
        GUIDE_PLANT=unwritten "$prog" --check-batch <<<"$psets" >"$log" 2>&1; rc=$?
        n_failed=$(grep -c '^batch: exit 1: ' "$log")
        [ $rc -eq 1 ] && [ "$n_failed" -eq "$n_sets" ] \
            && ok "$prog: the check fails on outputs left unwritten (planted), at all $n_sets knob settings" \
            || { bad "$prog with outputs left unwritten: exit $rc, $n_failed of $n_sets knob settings failed"
                 grep '^batch: exit [^1]' "$log" | head -n 5; }
        # The chapter's own planted faults (its problem's plants), each a bug its check must see.
        while IFS= read -r o; do
            [ -n "$o" ] || continue
            GUIDE_PLANT=$o "$prog" --check-only --size odd >"$log" 2>&1; rc=$?
            [ $rc -eq 1 ] && ok "$prog: the check fails on the planted fault '$o'" \
                || { bad "$prog with GUIDE_PLANT=$o: exit $rc, expected 1"; tail -n 5 "$log"; }
        done < <("$prog" --describe | sed -n 's/^plant=//p')
        GUIDE_FAKE_FREE_BYTES=1000000 "$prog" --check-only --size small >"$log" 2>&1; rc=$?
        [ $rc -eq 4 ] && grep -q 'GPU memory' "$log" && ok "$prog refuses a size too large for the GPU" \
            || { bad "$prog too large: exit $rc"; tail -n 3 "$log"; }
        if [ "$prog" = chapters/20-matrix-transpose/naive ]; then
            # On a smaller GPU the refusal names the largest size that fits, and that size runs.
            GUIDE_FAKE_FREE_BYTES=1073741824 "$prog" --check-only >"$log" 2>&1; rc=$?
            fit=$(sed -n 's/.*--size \([0-9][0-9]*\) fits$/\1/p' "$log")
            if [ $rc -eq 4 ] && [ -n "$fit" ] && GUIDE_FAKE_FREE_BYTES=1073741824 "$prog" --check-only --size "$fit" >"$log" 2>&1 \
                && ! GUIDE_FAKE_FREE_BYTES=1073741824 "$prog" --check-only --size $((fit + 1)) >/dev/null 2>&1; then
                ok "$prog: with 1 GiB free it names --size $fit, which fits and runs (one more does not)"
            else bad "$prog with 1 GiB free: exit $rc, suggested '${fit}'"; tail -n 3 "$log"; fi
        fi
    }
    # One compute-sanitizer tool on one program at the small size, which the harness makes odd
    # for every chapter (common/cli.h: no multiple of 2, 4, 32 or the block size), so every tail
    # and boundary path runs under it.
    # TOOL:PROG@OPTIONS runs it at a knob setting the tests check (a sweep or a test option), so
    # code that only a knob reaches (a pool strategy, a gather kernel) is sanitized too.
    sanitizer_check() { # TOOL:PROG or TOOL:PROG@OPTIONS
        local tool=${1%%:*} spec=${1#*:} prog opts=()
        prog=${spec%%@*}
        [ "$prog" = "$spec" ] || read -r -a opts <<<"${spec#*@}"
        [ -x "$prog" ] || return 0
        sanitize "$tool" "$prog" "${opts[@]}" --check-only --size small && ok "$tool $prog ${opts[*]}" \
            || { bad "$tool $prog ${opts[*]}"; grep -E 'Race|Barrier|Uninitialized|Invalid|ERROR|error' "$log" | head -n 10; }
    }
    # Each program's checks, then its four sanitizer runs, as separate items, so that the slow
    # ones (racecheck of a shared-memory kernel) spread over the cores instead of queueing
    # behind one program's list. Output stays in chapter order.
    gpu_item() { case $1 in check:*) gpu_checks "${1#check:}" ;; *) sanitizer_check "$1" ;; esac; }
    items=()
    for prog in "${gpu_programs[@]}"; do
        items+=("check:$prog")
        [ -z "$sanitizer" ] || for tool in memcheck racecheck initcheck synccheck; do items+=("$tool:$prog"); done
        # memcheck (with stream-ordered tracking) at every other knob setting (racecheck there
        # too took make test past ten minutes on the H100).
        [ -z "$sanitizer" ] || while IFS= read -r o; do
            [ -n "$o" ] && items+=("memcheck:$prog@$o")
        done < <("$prog" --describe | sed -n 's/^\(sweep\|test\)=//p')
    done
    # The sanitizer runs are the long items: they start first, so that none is left to run alone
    # at the end; the slowest items are named, with their times, for whoever speeds this up next.
    times=$tmp/gpu-item-times; : >"$times"
    RUN_FIRST='@(racecheck|initcheck|memcheck|synccheck):*' RUN_TIMES=$times run_each gpu_item "${items[@]}"
    mkdir -p build/logs && sort -rn "$times" >build/logs/gpu-item-times.tsv
    echo "slowest GPU items (s): $(head -n 6 build/logs/gpu-item-times.tsv | tr '\t\n' ' ;')"
fi
fi # gpu

section ""
echo "time by section: $sections"
echo "$warned warning(s), $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
