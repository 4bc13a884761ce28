#!/usr/bin/env bash
# `results.py claims` on copies of the real data, each with one planted fault that it must
# report (exit 1, the claim named), and the mechanism/observation split from git history.
# Prints PASS:/FAIL: lines; exits 1 if any failed. No GPU needed.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass() { echo "PASS: $*"; }
failed() { echo "FAIL: $*"; fail=1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
# The tracked and new files under the folders named, without built programs or the built book.
sources() { git ls-files -co --exclude-standard -- "$@"; }
# A copy of the real data with a history of one commit at DATE: claims committed then.
copy() { # DIR DATE
    mkdir -p "$1" && sources scripts chapters results book common | tar -cf - -T - | tar -xf - -C "$1"
    git -C "$1" init -q && git -C "$1" add -A \
        && GIT_AUTHOR_DATE=$2 GIT_COMMITTER_DATE=$2 git -C "$1" commit -qm copy
}
claims() { python3 "$1"/scripts/results.py claims >"$tmp/out" 2>&1; echo $? >"$tmp/rc"; }
expect() { # WHAT PATTERN: exit 1 and a FAIL line matching PATTERN
    if [ "$(cat "$tmp/rc")" = 1 ] && grep -qE "^FAIL: $2" "$tmp/out"; then pass "$1"
    else failed "$1 (exit $(cat "$tmp/rc"))"; grep -E "$2|problem" "$tmp/out" | tail -n 3; fi
}
add_claim() { # DIR NN TOML: a claim appended to chapter NN's evidence.toml
    printf '\n[[claim]]\n%s\n' "$3" >>"$(ls -d "$1"/chapters/"$2"-*)/evidence.toml"
}
counts() { sed -n 's/^predictions (mechanism[^:]*: \([0-9]*\) held.*: \([0-9]*\) held, .*/\1 \2/p' "$tmp/out"; }

# A claim the evidence contradicts: ch29's naive program made to issue one instruction. Written
# after the evidence (an observation: the copy's one commit is dated after every row), it is a
# false statement and fails; committed before it (a prediction), it is reported as missed and
# counted, never a failure and never rewritten.
one_instruction() { # DIR: ch29's naive program made to issue one instruction
    sed -i '/^29,.*,naive,,.*,ncu,smsp__inst_executed.sum,/s/,smsp__inst_executed.sum,[0-9.e+]*,/,smsp__inst_executed.sum,1,/' "$1"/results/evidence/*.csv
}
d=$tmp/contradicted; copy "$d" 2030-01-01T00:00:00Z
one_instruction "$d"
claims "$d"; expect "an observation the evidence contradicts fails claims" "chapter 29 claim instructions .*: missed .*\\[observation\\]"
d=$tmp/missed; copy "$d" 2020-01-01T00:00:00Z
one_instruction "$d"
claims "$d"
if grep -q "^MISSED: chapter 29 claim instructions .*\\[mechanism\\]" "$tmp/out" && ! grep -q "^FAIL: chapter 29 claim instructions" "$tmp/out" \
    && grep -qE "^predictions .*: [0-9]+ held, [1-9][0-9]* missed" "$tmp/out"; then
    pass "a prediction the evidence contradicts is reported as missed and counted, not a failure"
else failed "a contradicted prediction"; grep "29 claim instructions\|^predictions" "$tmp/out" | head -n 3; fi
# A claim that holds both ways, without saying why: ch16's same-dram-bytes without 'symmetric'.
d=$tmp/swapped; copy "$d" 2020-01-01T00:00:00Z
sed -i '/^symmetric = /d' "$(ls -d "$d"/chapters/16-*)/evidence.toml"
claims "$d"; expect "a claim that holds with naive and optimized swapped is refused" \
    "chapter 16 claim same-dram-bytes .*refused \(it still holds with naive and optimized swapped"
# naive >= 4 * optimized where the optimized program reads 0 (the old ch29 xu-pipe).
d=$tmp/zero; copy "$d" 2020-01-01T00:00:00Z
add_claim "$d" 29 'id = "planted-zero"
says = "planted"
value = "ncu:sm__inst_executed_pipe_xu.sum"
holds = "naive >= 4 * optimized"'
claims "$d"; expect "a claim that holds whichever program reads zero is refused" \
    "chapter 29 claim planted-zero .*refused \(it holds whichever program reads zero"
# A part ten times the allocation time, against the whole program: the share still >= 0.4.
d=$tmp/part; copy "$d" 2020-01-01T00:00:00Z
add_claim "$d" 36 'id = "planted-part"
says = "planted"
part = "(host:malloc_us + host:free_us) * host:iterations * 10"
whole = "result:median_us"
holds = "naive >= 0.4"
symmetric = "planted"'
claims "$d"; expect "a part larger than its whole is refused" \
    "chapter 36 claim planted-part .*missed \(naive: the part .* is more than the whole"
# A share of the time written as one value, without part and whole: refused when read.
d=$tmp/share; copy "$d" 2020-01-01T00:00:00Z
add_claim "$d" 36 'id = "planted-share"
says = "planted"
value = "host:malloc_us / result:median_us"
holds = "naive >= 0"'
claims "$d"
if [ "$(cat "$tmp/rc")" = 1 ] && grep -q "planted-share.*declare 'part' and 'whole'" "$tmp/out"; then
    pass "a share of the time without part and whole is refused"
else failed "a share of the time without part and whole was taken"; tail -n 2 "$tmp/out"; fi

# Counters of a run smaller than the one timed describe another run: refused unless [record]
# smaller says why (chapter 9 is profiled at its timed size; its [record] size and its evidence
# rows are planted at another: rows at a size other than [record]'s are refused on their own).
d=$tmp/size; copy "$d" 2020-01-01T00:00:00Z
sed -i '/^9,warp-multiple-blocks,/s/,sm_90,[0-9]*,/,sm_90,1048576,/' "$d"/results/evidence/*.csv
sed -i '/^\[record\]/,/^\[\[/s/^size = [0-9]*/size = 1048576/' "$(ls -d "$d"/chapters/09-*)/evidence.toml"
claims "$d"; expect "evidence profiled at a size other than the timed one is refused" \
    "chapter 09 on .*: profiled at size 1048576, timed at [0-9]+"
sed -i 's/^\[record\]$/[record]\nsmaller = "planted: a reason in words"/' "$(ls -d "$d"/chapters/09-*)/evidence.toml"
claims "$d"
if ! grep -q "^FAIL: chapter 09 on .*profiled at size" "$tmp/out"; then pass "a smaller profile that says why is taken"
else failed "a smaller profile with its reason was still refused"; grep "chapter 09 on" "$tmp/out" | head -n 2; fi

# Mechanism or observation: claims committed before the evidence was recorded are predictions;
# one changed after it is an observation, and no longer counted as a held prediction.
d=$tmp/history; copy "$d" 2020-01-01T00:00:00Z
claims "$d"; read -r m0 o0 < <(counts)
sed -i 's/^holds = "naive >= 1.5 \* optimized"$/holds = "naive >= 1.45 * optimized"/' \
    "$(ls -d "$d"/chapters/29-*)/evidence.toml"
git -C "$d" commit -qam later
claims "$d"; read -r m1 o1 < <(counts)
# Before the edit the only observations are the claims that declare themselves one, on each GPU
# that measured their chapter (a chapter measured on one GPU alone has its verdicts there only).
declared=0
for toml in chapters/*/evidence.toml; do
    n=$(grep -c '^observation = ' "$toml")
    [ "$n" -gt 0 ] || continue
    nn=$(basename "$(dirname "$toml")"); nn=$((10#${nn%%-*}))
    for f in results/*.csv; do
        if grep -q "^$nn," "$f" || grep -q "^$nn," "results/evidence/$(basename "$f")" 2>/dev/null; then
            declared=$((declared + n))
        fi
    done
done
if [ "${o0:-x}" = "$declared" ] && grep -q "^PASS: chapter 29 claim instructions on .*\[observation\]$" "$tmp/out" \
    && [ "$m1" -lt "$m0" ] && [ "$o1" -gt 0 ] && [ $((m0 + o0)) -eq $((m1 + o1)) ]; then
    pass "a claim changed after its evidence is an observation, not a held prediction ($m0 -> $m1 predictions held)"
else failed "mechanism/observation: before ${m0:-?}/${o0:-?}, after ${m1:-?}/${o1:-?}"; grep "29 claim instructions" "$tmp/out" | head -n 2; fi
# A redesigned chapter (new sources, [prediction] redesigned) is judged by its new sources'
# numbers alone: the changed claim, committed before any were recorded, is a prediction again.
# Without the declaration the same edit leaves it an observation (no laundering by an edit).
echo "// planted redesign" >>"$(ls -d "$d"/chapters/29-*)/naive.cu"
git -C "$d" commit -qam "new sources"
claims "$d"; read -r m3 o3 < <(counts)
sed -i 's/^\[prediction\]$/[prediction]\nredesigned = "planted: the programs were rewritten"/' "$(ls -d "$d"/chapters/29-*)/evidence.toml"
git -C "$d" commit -qam "declared"
claims "$d"
if [ "${m3:-x}" = "$m1" ] && grep -qE "^(PASS|FAIL): chapter 29 claim instructions on .*\\[mechanism\\]$" "$tmp/out"; then
    pass "a redesigned chapter's claims count as predictions until its new sources are measured; an edit alone does not"
else failed "redesigned: after the edit ${m3:-?} predictions (want $m1)"; grep "29 claim instructions" "$tmp/out" | head -n 2; fi
# A claim whose author says its numbers were known when it was written ('observation'): an
# observation whatever the dates say, and never counted as a held prediction; the key must say why.
e=$tmp/declared; copy "$e" 2020-01-01T00:00:00Z
sed -i '/^holds = "naive >= 1.5 \* optimized"$/a observation = "planted: measured by hand first"' \
    "$(ls -d "$e"/chapters/29-*)/evidence.toml"
claims "$e"; read -r m2 o2 < <(counts)
if grep -q "^PASS: chapter 29 claim instructions on .*\[observation\]$" "$tmp/out" && [ "$m2" -lt "$m0" ]; then
    pass "a claim declared an observation is one, though committed before its numbers ($m0 -> $m2 predictions held)"
else failed "declared observation: ${m2:-?} predictions (want fewer than $m0)"; grep "29 claim instructions" "$tmp/out" | head -n 2; fi
sed -i 's/^observation = "planted: measured by hand first"$/observation = " "/' "$(ls -d "$e"/chapters/29-*)/evidence.toml"
claims "$e"
if [ "$(cat "$tmp/rc")" != 0 ] && grep -q "'observation' is the reason" "$tmp/out"; then pass "an 'observation' without its reason is refused"
else failed "an empty 'observation' was taken"; tail -n 2 "$tmp/out"; fi
# Without history (a shallow clone, a tarball) each claim takes the kind results/claims/kinds.csv
# records for its current text; without that record, every claim is an observation.
rm -rf "$d/.git"
claims "$d"; read -r m2 o2 < <(counts)
rm "$d/results/claims/kinds.csv"
claims "$d"; read -r m4 o4 < <(counts)
if grep -q "^WARN: no git history" "$tmp/out" && [ "${m4:-x}" = 0 ] && [ "${o4:-0}" -gt 0 ] && [ "${m2:-0}" -gt 0 ]; then
    pass "without git history a claim takes its recorded kind ($m2 predictions), and without the record every claim is an observation"
else failed "without git history: ${m2:-?} predictions with the record, ${m4:-?} without"; head -n 2 "$tmp/out"; fi
# The record follows the history: `make readme` writes it, and --check fails on a kind changed by
# hand (a prediction claimed for an observation) or on a claim whose text changed since.
r=$tmp/record; copy "$r" 2030-01-01T00:00:00Z
python3 "$r"/scripts/results.py readme >/dev/null 2>&1
if python3 "$r"/scripts/results.py readme --check >"$tmp/out" 2>&1; then
    sed -i '2s/,observation,/,mechanism,/' "$r/results/claims/kinds.csv"
    python3 "$r"/scripts/results.py readme --check >"$tmp/out" 2>&1
    if [ $? = 1 ] && grep -q "^FAIL: results/claims/kinds.csv does not hold" "$tmp/out"; then
        pass "readme --check fails on a claim's kind changed by hand in results/claims/kinds.csv"
    else failed "a kind changed by hand in results/claims/kinds.csv passed readme --check"; tail -n 2 "$tmp/out"; fi
else failed "readme --check fails right after readme wrote the record"; tail -n 3 "$tmp/out"; fi
# In a tree without history, a claim whose text changed is not the one recorded: an observation.
n=$tmp/nohistory; mkdir -p "$n" && sources scripts chapters results book common | tar -cf - -T - | tar -xf - -C "$n"
claims "$n"; read -r m5 _ < <(counts)
sed -i '0,/^holds = "naive >= 1.5 \* optimized"$/s//holds = "naive >= 1.4 * optimized"/' "$(ls -d "$n"/chapters/31-*)/evidence.toml"
claims "$n"; read -r m6 _ < <(counts)
if [ -n "${m5:-}" ] && [ -n "${m6:-}" ] && [ "$m6" -lt "$m5" ] && grep -q "chapter 31 claim .*\[observation\]" "$tmp/out"; then
    pass "without history a claim edited since the record is an observation ($m5 -> $m6 predictions)"
else failed "without history an edited claim kept its recorded kind (${m5:-?} -> ${m6:-?})"; fi
exit $fail
