#!/usr/bin/env python3
"""The results model's command line (the code is the package scripts/guide/).

    results.py hash DIR                 hash of a chapter's sources (as make computes it)
    results.py columns                  the results CSV header (common/results.c must match)
    results.py table FILE               the table `make chapter-NN` prints
    results.py merge FILE [SWEEPS]      move measured rows into results/<gpu>.csv, and the rows
                                        of other configurations into results/sweeps/<gpu>.csv
    results.py stale [--warn]           results, sweeps and evidence: valid, checks passed, hashes
                                        current, no row above 103% of its roof; --warn (or
                                        --warn-stale): a changed chapter is a WARN: line with
                                        the command that re-measures it, exit 0
    results.py merge-evidence FILE --gpu NAME --chapters 7,9 --tools ncu,ptxas,sass
                                        recorded evidence rows replace that GPU's rows of those
                                        chapters and tools in results/evidence/<gpu>.csv
    results.py claims                   every chapter's claims and prediction on every GPU;
                                        exit 1 on a missed, unrecorded or refused claim (one
                                        that cannot fail) or stale evidence; each claim is a
                                        mechanism claim or an observation (git history)
    results.py readme [--check] [DIR...]  rewrite (or verify) the README blocks and inline values
    results.py prose [DIR...]           the chapter READMEs against the prose rules: word count
                                        (at most 1,500), claim citations against their verdicts,
                                        Why paragraphs that cite evidence, no typed verdicts,
                                        ranges, literal sizes or history (scripts/guide/prose.py)
    results.py book-json                the JSON document the book lays out (scripts/guide/book.py)
    results.py compare-chapter FILE     the rows `make chapter-NN` just measured beside each
                                        reference GPU's (scripts/guide/compare.py)
    results.py pick-round FILE          make results' rounds: per program, the row index of its
                                        round of median time, the rounds and their spread in %
    results.py run-times                chapter number and milliseconds per program run on the
                                        reference GPUs (make results' estimate of the time left)
    results.py loops                    how long each loop took (results/loops/times.csv), for make help
    results.py record-loop LOOP SECONDS MACHINE COMMIT [LOAD]
                                        record one loop's time (scripts/time-loop.sh calls it)
    results.py compare [--gpu NAME]     `make compare`: every chapter, this GPU (nvidia-smi's,
                                        or NAME: a GPU name or a unique part of a results
                                        file's name) next to each reference GPU
    results.py doctor [--roofs PROGRAM] [--gpu NAME]
                                        `make doctor`: with --roofs, this machine's GPU state
                                        (nvidia-smi's queries) and roofs (PROGRAM: build/
                                        doctor-roofs) beside each results file's; then each
                                        chapter of NAME's results (default: this GPU's) more
                                        than 1.25x apart from a reference GPU, with the figure
                                        that moved (scripts/guide/doctor.py); exit 3 without
                                        a GPU

Every command takes --results-dir DIR (default: results/). Exit status: 0 fine, 1 a fault
in the data (one line naming file, line and column), 2 a bad command line, 3 no GPU
(doctor --roofs).
Standard library only, Python 3.11+."""

import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from guide import compare                                           # noqa: E402
from guide import doctor                                            # noqa: E402
from guide import evidence as ev                                    # noqa: E402
from guide import history                                           # noqa: E402
from guide import loops                                             # noqa: E402
from guide import prose                                             # noqa: E402
from guide import render                                            # noqa: E402
from guide.book import book_json                                    # noqa: E402
from guide.model import (COLUMNS, ROOT, Data, ResultsError, gpu_slug, median_rounds,  # noqa: E402
                         over_roof, read_results, read_text, read_toc, rel, source_hash, write_rows)


class Usage(Exception):
    pass


def cmd_columns(args, _dir):
    print(",".join(COLUMNS))
    return 0


def cmd_table(args, _dir):
    if len(args) != 1:
        raise Usage("table needs one file")
    chapters = {c.number: c for c in read_toc() if c.dir}
    rows = read_results(args[0], chapters, named=False)
    if not rows:
        raise ResultsError(f"{args[0]}: no rows")
    print(render.context_line(rows))
    print(render.text_table(rows))
    return 0 if all(r["check"] == "pass" for r in rows) else 1


def cmd_merge(args, results_dir):
    """Rows just measured replace that GPU's rows of the same chapters, in the main file and
    in the sweeps file (where a chapter may now have none)."""
    if len(args) not in (1, 2):
        raise Usage("merge needs the measured file and, optionally, the sweeps file")
    chapters = {c.number: c for c in read_toc() if c.dir}
    new = read_results(args[0], chapters, named=False)
    if not new:
        raise ResultsError(f"{args[0]}: no rows to merge")
    new_sweeps = (read_results(args[1], chapters, named=False)
                  if len(args) == 2 and os.path.exists(args[1]) else [])
    results_dir = results_dir or os.path.join(ROOT, "results")
    gpu = new[0]["gpu"]
    measured = {r["chapter"] for r in new}
    for folder, rows in ((results_dir, new), (os.path.join(results_dir, "sweeps"), new_sweeps)):
        path = os.path.join(folder, gpu_slug(gpu) + ".csv")
        old = read_results(path, chapters) if os.path.exists(path) else []
        keep = [r for r in old if r["chapter"] not in measured]
        if not keep and not rows:
            continue
        os.makedirs(folder, exist_ok=True)
        write_rows(path, keep + rows)
        print(f"wrote {rel(path)}: {len(rows)} new row(s), {len(keep)} kept")
    return 0


def cmd_merge_evidence(args, results_dir):
    """`make evidence` records ncu, ptxas and sass rows, `make results` host rows: each
    replaces only its own tools' rows of the chapters it measured, never the other's."""
    opts = {}
    rest = list(args)
    for name in ("--gpu", "--chapters", "--tools"):
        if name not in rest or rest.index(name) + 1 >= len(rest):
            raise Usage(f"merge-evidence needs {name}")
        i = rest.index(name)
        opts[name] = rest[i + 1]
        del rest[i:i + 2]
    if len(rest) != 1:
        raise Usage("merge-evidence needs one recorded file")
    gpu = opts["--gpu"]
    tools = opts["--tools"].split(",")
    if any(t not in ev.TOOLS for t in tools):
        raise Usage(f"--tools: one of {', '.join(ev.TOOLS)}")
    try:
        numbers = {int(n) for n in opts["--chapters"].split(",")}
    except ValueError:
        raise Usage("--chapters: chapter numbers separated by commas")
    chapters = {c.number: c for c in read_toc() if c.dir}
    new = ev.read_evidence(rest[0], chapters, named=False)
    for r in new:
        if r["gpu"] != gpu or int(r["chapter"]) not in numbers or r["tool"] not in tools:
            raise ResultsError(f"{r['_file']}:{r['_line']}: a row of {r['gpu']}, chapter "
                               f"{r['chapter']}, tool {r['tool']} was not to be merged")
    ev.check_metrics(new, chapters, {n: ev.read_spec(chapters[n]) for n in numbers
                                     if n in chapters})
    folder = os.path.join(results_dir or os.path.join(ROOT, "results"), "evidence")
    path = os.path.join(folder, gpu_slug(gpu) + ".csv")
    old = ev.read_evidence(path, chapters) if os.path.exists(path) else []
    keep = [r for r in old if not (int(r["chapter"]) in numbers and r["tool"] in tools)]
    ev.write_evidence(path, keep + new)
    print(f"wrote {rel(path)}: {len(new)} new row(s), {len(keep)} kept")
    return 0


def cmd_stale(args, results_dir):
    """Strict (CI): every row valid, checked, timed and current. --warn: a stale chapter is a
    warning for a person editing it for an exercise."""
    warn = any(a in ("--warn", "--warn-stale") for a in args)
    if any(a not in ("--warn", "--warn-stale") for a in args):
        raise Usage("stale takes only --warn (or --warn-stale)")
    data = Data(results_dir)                  # a malformed file stops here, with its line
    bad, stale = 0, {}
    for kind, files in (("results", data.results), ("sweeps", data.sweeps)):
        for rows in files.values():
            for r in rows:
                where = f"{r['_file']}:{r['_line']}: chapter {r['chapter']} {r['variant']}"
                c = data.chapters[int(r["chapter"])]
                if r["check"] != "pass":
                    print(f"FAIL: {where}: its check failed")
                    bad += 1
                elif r["source_hash"] != c.hash:
                    stale.setdefault(c, []).append((where, r["source_hash"], r["gpu"], kind))
                if over_roof(r):
                    print(f"FAIL: {where}: {over_roof(r)}; give chapter {c.nn} the roof that "
                          f"bounds it and re-run `make results CHAPTERS={c.nn}` on a GPU")
                    bad += 1
    for file, line, c, program, recorded, _ in ev.stale_evidence(data):
        stale.setdefault(c, []).append((f"{file}:{line}: chapter {c.nn} {program}", recorded,
                                        data.gpus().get(os.path.basename(file)[:-4]),
                                        "evidence"))
    for c, items in sorted(stale.items(), key=lambda kv: kv[0].number):
        if warn:
            gpus = ", ".join(sorted({g for _, _, g, _ in items}))
            print(f"WARN: chapter {c.nn} ({rel(c.dir)}) changed since it was measured on {gpus} "
                  f"({len(items)} row(s)); re-measure on a GPU with `make results "
                  f"CHAPTERS={c.nn}`; until then the READMEs and the book mark those rows stale")
        else:
            for where, recorded, _, kind in items:
                cmd = "make evidence" if kind == "evidence" else "make results"
                print(f"FAIL: {where}: stale (measured {recorded}, sources now {c.hash}); "
                      f"re-run `{cmd} CHAPTERS={c.nn}` on a GPU")
                bad += 1
    files = len(data.results) + len(data.sweeps) + len(data.evidence)
    print(f"{files} results file(s) checked, {bad} problem(s)"
          + (f", {len(stale)} changed chapter(s)" if warn and stale else ""))
    return 1 if bad else 0


def cmd_claims(args, results_dir):
    if args:
        raise Usage("claims takes no arguments")
    data = Data(results_dir)
    bad, checked = 0, 0
    counts = {(k, v): 0 for k in (ev.MECHANISM, ev.OBSERVATION) for v in (ev.HELD, ev.MISSED)}
    h = ev.history.history()
    if not h.available:
        print(f"WARN: {h.why}: each claim takes the kind results/{history.KINDS_FILE} records "
              "for its current text (a claim it does not record is an observation)")
    stale_on = set()  # (chapter, evidence file) pairs whose evidence predates the sources
    for file, line, c, program, recorded, now in ev.stale_evidence(data):
        print(f"FAIL: {file}:{line}: chapter {c.nn} {program}: stale evidence (recorded "
              f"{recorded}, sources now {now}); re-run `make evidence CHAPTERS={c.nn}` on a GPU")
        stale_on.add((c.number, os.path.basename(file)))
        bad += 1
    for number, spec in sorted(data.specs.items()):
        if not spec:
            continue
        c = data.chapters[number]
        for slug, name in data.gpus().items():
            p = ev.prediction_verdict(data, slug, number)
            if p and p["speedup"] is not None:
                lo, hi = p["range"]
                shown = render.speedup(p["speedup"], p["range"]).replace("×", "x")
                print(f"{'ok' if p['verdict'] == ev.HELD else 'MISSED'}: chapter {c.nn} on "
                      f"{name}: prediction {lo:g}x to {hi:g}x, measured {shown}: "
                      f"{p['verdict']} (reported, not a failure)")
            recorded = ev.has_evidence(data, slug, number)
            if not data.chapter_rows(slug, number) and not recorded:
                # Neither timed nor profiled on this GPU: a chapter not measured there yet
                # (compare, the READMEs and the book say so), not missing evidence.
                print(f"NOT MEASURED: chapter {c.nn} on {name}: no results and no evidence; "
                      f"run `make results CHAPTERS={c.nn}` on that GPU")
                continue
            if slug in data.evidence and not recorded:
                # A chapter missing from a GPU's evidence file is a fault, not fewer verdicts.
                print(f"FAIL: {rel(os.path.join(data.results_dir, 'evidence', slug + '.csv'))}: "
                      f"no rows of chapter {c.nn}, whose claims need them; run `make evidence "
                      f"CHAPTERS={c.nn}` on a GPU")
                bad += 1
            sizes = ev.profile_size(data, slug, number)
            if sizes and sizes[0] != sizes[1] and not sizes[2]:
                # On stale evidence the recorded size is the old sources' (tests/run.sh: a
                # person's changed chapter reads as a warning, as for its verdicts).
                old = (number, slug + ".csv") in stale_on
                print(f"FAIL: chapter {c.nn} on {name}: profiled at size {sizes[0]}, timed at "
                      f"{sizes[1]}: the counters describe another run; profile at the timed size "
                      "([record] size), or say why not in [record] smaller"
                      + (" (read on stale evidence)" if old else ""))
                bad += 1
            for claim in spec["claims"]:
                v = ev.claim_verdict(data, slug, number, claim)
                kind = ev.claim_kind(data, number, claim)["kind"]
                what = (f"chapter {c.nn} claim {claim['id']} on {name}: {v['verdict']} "
                        f"({v['why']}) [{kind}]")
                if (kind, v["verdict"]) in counts:
                    counts[kind, v["verdict"]] += 1
                if v["verdict"] == ev.HELD:
                    print(f"PASS: {what}")
                    checked += 1
                elif v["verdict"] == ev.NOT_RECORDED and not recorded:
                    continue                  # this GPU has no evidence of the chapter at all
                elif v["verdict"] == ev.MISSED and kind == ev.MECHANISM:
                    # A prediction the hardware contradicted: reported and counted like a missed
                    # speedup, shown in the README and the book, never rewritten to pass. A claim
                    # written after measuring (an observation) that the data contradicts is a
                    # false statement, and fails.
                    print(f"MISSED: {what} (a prediction the evidence contradicts: reported, not "
                          "a failure)")
                    checked += 1
                else:
                    # A verdict read on stale evidence says nothing of the sources now: say so,
                    # so that a person's changed chapter reads as a warning (tests/run.sh).
                    old = (number, slug + ".csv") in stale_on
                    print(f"FAIL: {what}" + (" (read on stale evidence)" if old else ""))
                    bad += 1
                    checked += 1
    print(f"predictions (mechanism claims, committed before their evidence): "
          f"{counts[ev.MECHANISM, ev.HELD]} held, {counts[ev.MECHANISM, ev.MISSED]} missed; "
          f"observed after measuring (not counted as predictions): "
          f"{counts[ev.OBSERVATION, ev.HELD]} held, {counts[ev.OBSERVATION, ev.MISSED]} missed")
    print(f"{checked} claim verdict(s), {bad} problem(s)")
    return 1 if bad else 0


def claim_kinds_file(data, check):
    """results/claims/kinds.csv: each claim's kind as the git history decides it, for a tree
    without that history (history.py). Written, or with check verified, where the history is
    here; left as it is where it is not. Returns the number of problems (0 or 1)."""
    h = history.history()
    if not h.available:
        return 0
    rows = [(n, c.get("id"), c["_key"], ev.claim_kind(data, n, c))
            for n, spec in sorted(data.specs.items()) for c in spec.get("claims", [])]
    text = history.kinds_csv(rows)
    path = os.path.join(data.results_dir, history.KINDS_FILE)
    old = read_text(path, data_file=False) if os.path.isfile(path) else None
    if old == text:
        return 0
    if check:
        print(f"FAIL: {rel(path)} does not hold the claims' kinds as the history decides them; "
              "run `make readme`")
        return 1
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"updated {rel(path)}")
    return 0


def named_chapters(data, names):
    """The chapters of the folders named (all of them, in order, where none is named)."""
    by_dir = {os.path.realpath(c.dir): c for c in data.chapters.values()}
    chapters = []
    for n in names:
        c = by_dir.get(os.path.realpath(n))
        if c is None:
            raise Usage(f"{n} is not a chapter folder")
        chapters.append(c)
    return chapters or sorted(data.chapters.values(), key=lambda c: c.number)


def cmd_readme(args, results_dir):
    """Every README is rendered before any is written: a fault in one (a lost end marker, a
    value the data cannot give) leaves them all as they were."""
    check = "--check" in args
    names = [a for a in args if a != "--check"]
    data = Data(results_dir)
    chapters = named_chapters(data, names)
    bad, writes = 0, []
    jobs = [(os.path.join(ROOT, "README.md"), None)] + [(c.readme or os.path.join(c.dir, "README.md"), c)
                                                        for c in chapters]
    # Each chapter's answers to its exercises (scripts/guide/prose.py ANSWERS) carry inline values
    # and claim citations as its README does.
    for c in chapters:
        answers = os.path.join(c.dir, prose.ANSWERS)
        if os.path.isfile(answers):
            shown = copy.copy(c)
            shown.readme = answers
            jobs.append((answers, shown))
    for path, c in jobs:
        if not os.path.isfile(path):
            if c is not None:
                print(f"FAIL: {rel(path)} is missing")
                bad += 1
            continue
        try:
            old = read_text(path, data_file=False)
            new = render.render_top(data, old) if c is None else render.render_readme(data, c, old)
            edited = [] if c is None else [(q, t, want) for q, t, want
                                           in render.values(data, c, old) if t != want]
        except ResultsError as e:
            print(f"FAIL: {e}")
            bad += 1
            continue
        if new == old:
            continue
        if check:
            for q, t, want in edited:
                print(f"FAIL: {rel(path)}: <!-- value: {q} --> says '{t}', the data say '{want}' "
                      "(edited by hand?); run `make readme`")
            if not edited or render.VALUE.sub("", new) != render.VALUE.sub("", old):
                print(f"FAIL: {rel(path)} is out of date; run `make readme`")
            bad += 1
        else:
            writes.append((path, new))
    if bad and not check:
        print(f"no README written: {bad} problem(s) above")
        return 1
    for path, new in writes:
        with open(path, "w") as f:
            f.write(new)
        print(f"updated {rel(path)}")
    bad += claim_kinds_file(data, check)
    return 1 if bad else 0


def cmd_prose(args, results_dir):
    """Every chapter README against the prose rules (scripts/guide/prose.py): its word count,
    then one FAIL: line per finding. Exit 1 on any."""
    data = Data(results_dir)
    bad = 0
    for c in named_chapters(data, args):
        if not c.readme:
            continue
        text = read_text(c.readme, data_file=False)
        found = prose.check_chapter(data, c, text)
        answers = os.path.join(c.dir, prose.ANSWERS)
        if os.path.isfile(answers):
            found += prose.check_answers(data, c, text, read_text(answers, data_file=False),
                                         answers)
        else:
            found.append(f"{rel(c.dir)}: no {prose.ANSWERS}: the answers to the chapter's "
                         "exercises, its objectives and its lab time, for the instructor")
        print(f"{rel(c.readme)}: {prose.word_count(text)} words, "
              f"{len(found)} finding(s)")
        for f in found:
            print(f"  FAIL: {f}")
        bad += len(found)
    return 1 if bad else 0


def cmd_book_json(args, results_dir):
    if args:
        raise Usage("book-json takes only --results-dir DIR")
    json.dump(book_json(Data(results_dir)), sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


def cmd_compare_chapter(args, results_dir):
    if len(args) != 1:
        raise Usage("compare-chapter needs one file (the rows just measured)")
    data = Data(results_dir)               # a malformed reference file stops here, with its line
    rows = read_results(args[0], data.chapters, named=False)
    if not rows:
        raise ResultsError(f"{args[0]}: no rows")
    if len({r["chapter"] for r in rows}) != 1:
        raise ResultsError(f"{args[0]}: rows of more than one chapter")
    print("\n".join(compare.chapter_block(data, rows)))
    return 0


def cmd_pick_round(args, _dir):
    if len(args) != 1:
        raise Usage("pick-round needs one file of rounds")
    chapters = {c.number: c for c in read_toc() if c.dir}
    for index, rounds, spread in median_rounds(args[0], chapters):
        print(f"{index}\t{rounds}\t{spread:.2f}")
    return 0


def cmd_run_times(args, results_dir):
    if args:
        raise Usage("run-times takes only --results-dir DIR")
    for number, seconds in compare.run_seconds_per_chapter(Data(results_dir)).items():
        print(f"{number}\t{seconds * 1000:.0f}")
    return 0


def cmd_compare(args, results_dir):
    if args and (args[0] != "--gpu" or len(args) != 2 or not args[1]):
        raise Usage("compare takes only --gpu NAME")
    name = compare.local_gpu_name(args[1] if args else None)
    if name is None:
        raise Usage("nvidia-smi names no GPU on this machine: say whose results to compare "
                    "with --gpu NAME (make compare GPU=NAME)")
    data = Data(results_dir)
    print("\n".join(compare.compare_table(data, compare.resolve_local(data, name))))
    return 0


def cmd_doctor(args, results_dir):
    opts, rest = {}, list(args)
    while rest:
        if rest[0] not in ("--gpu", "--roofs") or len(rest) < 2 or not rest[1] or rest[0] in opts:
            raise Usage("doctor takes --roofs PROGRAM and --gpu NAME, each at most once")
        opts[rest[0]] = rest[1]
        del rest[:2]
    data = Data(results_dir)
    try:
        print("\n".join(doctor.doctor_lines(data, opts.get("--gpu"), opts.get("--roofs"))))
    except doctor.NoGPU:
        print(doctor.NO_GPU, file=sys.stderr)
        return 3
    return 0


def cmd_loops(args, results_dir):
    if args:
        raise Usage("loops takes only --results-dir DIR")
    print("\n".join(loops.lines(results_dir)) or "no loop has been timed yet")
    return 0


def cmd_record_loop(args, results_dir):
    if len(args) not in (4, 5):
        raise Usage("record-loop needs LOOP SECONDS MACHINE COMMIT [LOAD]")
    loop, seconds, machine, commit, load = (args + [""])[:5]
    if loop not in loops.LOOPS:
        raise Usage(f"LOOP: one of {', '.join(repr(k) for k in loops.LOOPS)}")
    try:
        seconds = float(seconds)
    except ValueError:
        raise Usage(f"SECONDS: '{seconds}' is not a number")
    print(f"wrote {rel(loops.record(loop, machine, seconds, commit, results_dir, load))}")
    return 0


COMMANDS = {"columns": cmd_columns, "table": cmd_table, "merge": cmd_merge, "merge-evidence": cmd_merge_evidence, "stale": cmd_stale,
            "claims": cmd_claims, "readme": cmd_readme, "prose": cmd_prose, "book-json": cmd_book_json,
            "compare-chapter": cmd_compare_chapter, "compare": cmd_compare, "doctor": cmd_doctor,
            "run-times": cmd_run_times, "pick-round": cmd_pick_round, "loops": cmd_loops, "record-loop": cmd_record_loop}


def main(argv):
    results_dir = None
    if "--results-dir" in argv:
        i = argv.index("--results-dir")
        if i + 1 >= len(argv) or not os.path.isdir(argv[i + 1]):
            print("error: --results-dir needs an existing folder", file=sys.stderr)
            return 2
        results_dir = os.path.abspath(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) == 2 and argv[0] == "hash":
        if not os.path.isdir(argv[1]):
            print(f"error: {argv[1]} is not a folder", file=sys.stderr)
            return 2
        print(source_hash(argv[1]))
        return 0
    if not argv or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return COMMANDS[argv[0]](argv[1:], results_dir)
    except Usage as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (Exception, RecursionError, MemoryError) as e:
        # A fault the model does not know yet: still one line, naming the command, never a
        # traceback (its cause is a bug of the model, to be fixed where the data is read).
        print(f"error: results.py {argv[0]}: unexpected {type(e).__name__}: {e}; this is a "
              "bug of scripts/guide/: please report it with the command", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
