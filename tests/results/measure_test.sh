#!/usr/bin/env bash
# scripts/measure.sh (make results) without a GPU: in a copy of the tree, chapter 20's
# programs are stand-ins (naive refused for size with the harness's exit 4 and message,
# optimized and library append the H100's rows of chapter 20) and nvidia-smi names an H100.
# The copy's rows of chapter 20, the H100's and the H200's, come from tests/results/synth.py:
# each GPU's own where it measured the chapter, else another GPU's renamed and scaled, so that
# nothing here depends on which GPUs measured chapter 20, nor on its numbers.
# Checks: the refused program is skipped and named, the rest is measured and merged; the
# progress line with the time left appears on a terminal only; make chapter-20's block. Then
# scripts/evidence.sh (make evidence) on the same copy with stand-ins for its tools: the chapter
# is recorded and the READMEs follow. Prints PASS:/FAIL: lines.
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
mkdir -p "$tree/results/sweeps" "$tree/results/evidence"
for gpu in "NVIDIA H100 80GB HBM3" "NVIDIA H200"; do       # chapter 20's rows only: the copy holds no other chapter
    for d in results results/sweeps results/evidence; do
        python3 tests/results/synth.py "$d" 20 "$gpu" --hash "$hash" \
            >"$tree/$d/$(tr 'A-Z ' 'a-z-' <<<"$gpu").csv" || exit 2
    done
done
tail -n +2 "$tree/results/nvidia-h100-80gb-hbm3.csv" >"$tmp/rows"   # what the stand-ins measure
for v in naive optimized library; do
    cat >"$tree/chapters/20-matrix-transpose/$v" <<EOF
#!/bin/bash
# A stand-in for the real program: --describe lists no sweeps (and ROUNDS rounds, and
# NCU_METRICS as its ncu metrics); naive does
# not fit where REFUSE is set. --batch FILE: each line "--append OUT ..." appends its
# H100 row, its median time scaled by ROUND_SCALE's next factor (one per run).
if [ "\$1" = --describe ]; then
    [ -z "\${ROUNDS:-}" ] || echo "rounds=\$ROUNDS"
    [ -z "\${NCU_METRICS:-}" ] || echo "ncu_metrics=\$NCU_METRICS"
    exit 0
fi
if [ "\$1" = --append ]; then     # make chapter-NN's way: one run
    echo "chapters/20-matrix-transpose/$v: size 16384, rows 8, seed 1, on NVIDIA H100 80GB HBM3"
    [ -f "\$2" ] || head -n 1 "$tree/results/nvidia-h100-80gb-hbm3.csv" >"\$2"
    grep ',$v,' "$tmp/rows" >>"\$2"
    exit 0
fi
[ "\$1" = --batch ] || { echo "stand-in: --append or --batch only" >&2; exit 2; }
echo "\$0" >>"$tmp/order"
while read -r line; do
    if [ $v = naive ] && [ -n "\${REFUSE:-}" ]; then
        echo "error: --size 16384 needs 2.06 GiB of GPU memory, but NVIDIA H100 80GB HBM3 has 1.00 GiB free; --size 11585 fits" >&2
        echo "batch: exit 4: \$line"; continue
    fi
    out=\$(cut -d' ' -f2 <<<"\$line")
    echo "chapters/20-matrix-transpose/$v: size 16384, rows 8, seed 1, on NVIDIA H100 80GB HBM3"
    echo "evidence: runs_seen = \$(wc -l <"$tmp/order") runs"
    [ -f "\$out" ] || head -n 1 "$tree/results/nvidia-h100-80gb-hbm3.csv" >"\$out"
    f=1; [ -z "\${ROUND_SCALE:-}" ] || f=\$(cut -d' ' -f\$(wc -l <"$tmp/order") <<<"\$ROUND_SCALE")
    grep ',$v,' "$tmp/rows" | python3 -c "import csv, sys
w = csv.writer(sys.stdout, lineterminator='\\\\n')
for r in csv.reader(sys.stdin):
    r[14:18] = [f'{float(x) * \$f:.3f}' for x in r[14:18]]
    w.writerow(r)" >>"\$out"
    echo "batch: exit 0: \$line"
done <"\$2"
EOF
    chmod +x "$tree/chapters/20-matrix-transpose/$v"
done

# Not on a terminal: no progress line, a summary that names the skipped program.
log=$tmp/plain.log
rm -f "$tmp/order"
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
rm -f "$tmp/order"
(cd "$tree" && PATH="$tree/bin:$PATH" script -qec "REFUSE=1 scripts/measure.sh 20" /dev/null) >"$log" 2>&1
check "on a terminal: [k/N] chapter program, time so far and time left" \
    "$(grep -q '^\[1/3\] 20-matrix-transpose naive ([0-9]* s so far, about [0-9]* s left)' "$log" &&
       grep -q '^\[3/3\] 20-matrix-transpose library ([0-9]* s so far' "$log"; echo $?)" "$log"

# Rounds: each program's default runs 3 times, one process each, the programs taking turns;
# the row kept is each program's round of median time, and the host evidence says so. The
# scale factors make round 2 the median for naive (1.0 between 0.9 and 1.3) and round 3 for
# optimized (1.1 between 1.0 and 1.2): runs are naive, optimized, library, naive, ...
log=$tmp/rounds.log
rm -f "$tmp/order"
(cd "$tree" && ROUNDS=3 ROUND_SCALE="1.3 1.0 2 1.0 1.2 2 0.9 1.1 2" PATH="$tree/bin:$PATH" \
    scripts/measure.sh 20) >"$log" 2>&1
rc=$?
median_of() { grep ",$1," "$tmp/rows" | python3 -c "import csv, sys; print(next(csv.reader(sys.stdin))[14])"; }
naive_us=$(median_of naive) opt_us=$(median_of optimized)
check "rounds: 9 processes, the programs taking turns, exit 0" \
    "$([ $rc -eq 0 ] && [ "$(sed 's|.*/||' "$tmp/order" | tr '\n' ' ')" = "naive optimized library naive optimized library naive optimized library " ]; echo $?)" "$log"
check "rounds: each program keeps its round of median time" \
    "$(python3 -c "import csv, sys
want = {'naive': $naive_us * 1.0, 'optimized': $opt_us * 1.1}
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['variant'] in want]
sys.exit(len(rows) != 2 or any(abs(float(r['median_us']) - want[r['variant']]) > 0.01 for r in rows))" \
        "$tree/results/nvidia-h100-80gb-hbm3.csv"; echo $?)" "$log"
check "rounds: the host evidence comes from that round, with the rounds and their spread" \
    "$(ev=$tree/results/evidence/nvidia-h100-80gb-hbm3.csv
       grep -q '^20,matrix-transpose,naive,.*,host,runs_seen,4,' "$ev" &&
       grep -q '^20,matrix-transpose,optimized,.*,host,runs_seen,8,' "$ev" &&
       grep -q '^20,matrix-transpose,naive,.*,host,rounds,3,' "$ev" &&
       grep -q '^20,matrix-transpose,naive,.*,host,round_spread_pct,40,' "$ev"; echo $?)" "$log"

# make chapter-20 (scripts/run-chapter.sh): the local table, then the chapter on the H200.
log=$tmp/chapter.log
(cd "$tree" && PATH="$tree/bin:$PATH" scripts/run-chapter.sh chapters/20-matrix-transpose) >"$log" 2>&1
rc=$?
check "make chapter-20: the table, then the chapter beside the reference GPU, exit 0" \
    "$([ $rc -eq 0 ] && grep -q '^naive .* pass' "$log" &&
       grep -q '^Chapter 20 beside the reference GPUs in results/:' "$log" &&
       grep -q '^  H200 ' "$log" && grep -q '(yours)' "$log"; echo $?)" "$log"
[ -n "${SHOW:-}" ] && cat "$log"

# make evidence's script (scripts/evidence.sh) with stand-ins for the tools it runs: make
# (builds nothing; -n lists one compile per object file), nvcc (prints the ptxas report of a
# fixture), cuobjdump (a fixture's SASS) and ncu (runs nothing; reports one kernel in each
# configuration's "batch K" range, every metric NCU_VALUE). Checks: the chapter is recorded,
# its rows hold the stand-in's values, and the READMEs follow them (a planted copy of the
# script that leaves the READMEs alone must fail that).
fix=$repo/tests/results/fixtures
tools=$tmp/tools
mkdir -p "$tools"
cat >"$tools/make" <<'EOF'
#!/bin/bash
[ "$1" = -n ] || exit 0
for a in "$@"; do case $a in build/*.o) echo "nvcc -c chapters/x/$(basename "${a%.o}").cu -o $a" ;; esac; done
EOF
cat >"$tools/nvcc" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
touch "\$out"
case \$out in *problem.o) cat "$fix/ptxas-problem.txt" >&2 ;; *) cat "$fix/ptxas-optimized.txt" >&2 ;; esac
EOF
cat >"$tools/cuobjdump" <<EOF
#!/bin/bash
case \$2 in *problem.o) cat "$fix/sass-problem.txt" ;; *) cat "$fix/sass-optimized.txt" ;; esac
EOF
cat >"$tools/ncu" <<'EOF'
#!/usr/bin/env python3
import csv, os, sys
a = sys.argv[1:]
metrics = a[a.index("--metrics") + 1].split(",")
lines = open(a[a.index("--batch") + 1]).read().splitlines()
for line in lines:
    print(f"batch: exit 0: {line}")
w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
head = ["ID", "Process ID", "Process Name", "Host Name",
        "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg",
        "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg", "Kernel Name"]
w.writerow(head + metrics)
w.writerow([""] * len(head + metrics))
for k in range(1, len(lines) + 1):
    w.writerow([str(k - 1), "1", "p", "h", "<default domain>:naive:none",
                f"{k} <default domain>:batch {k}:none", "_Z11copy_kernelILi8EEvPfPKfl"]
               + [os.environ["NCU_VALUE"]] * len(metrics))
EOF
chmod +x "$tools"/*
# The programs declare what the chapter's problem.cu does (the results model reads it there).
metrics=$(cd scripts && python3 -c "from guide.model import read_toc
print(','.join(next(c for c in read_toc() if c.number == 20).declared()[1]))")
sed '/results.py" readme/d' "$tree/scripts/evidence.sh" >"$tree/scripts/evidence-planted.sh"
for script in evidence evidence-planted; do
    log=$tmp/$script.log
    value=$((RANDOM + 1))    # each run's own counter value: the rows and READMEs must follow it
    (cd "$tree" && NCU_METRICS=$metrics NCU_VALUE=$value PATH="$tools:$tree/bin:$PATH" \
        bash "scripts/$script.sh" 20) >"$log" 2>&1
    rc=$?
    (cd "$tree" && python3 scripts/results.py readme --check) >>"$log" 2>&1
    readme=$?
    if [ $script = evidence ]; then
        check "make evidence with stand-in tools: chapter 20 recorded, exit 0" \
            "$([ $rc -eq 0 ] && grep -q '^make evidence: [0-9]* s, 1 of 1 chapter(s) recorded' "$log" &&
               grep -q "^20,matrix-transpose,naive,.*,ncu,dram__bytes_read.sum,$value," "$tree/results/evidence/nvidia-h100-80gb-hbm3.csv"
               echo $?)" "$log"
        check "make evidence: the READMEs follow the evidence just recorded" "$readme" "$log"
    else
        check "planted: make evidence that leaves the READMEs alone is caught" \
            "$([ $rc -eq 0 ] && [ $readme -ne 0 ]; echo $?)" "$log"
    fi
done
exit $fail
