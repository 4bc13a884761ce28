#!/usr/bin/env python3
"""The prose rules (scripts/guide/prose.py), each shown failing on a planted fault in a copy
of the real tree: a README that cites a claim that missed as support, one that reports a held
claim as missed, a Why paragraph without evidence, a literal size in an inline value, a typed
verdict, a typed speedup range, history, and a chapter over the word limit. Each plant must add
its own finding to what `results.py prose` says of the unplanted chapter, and exit 1.
Prints one PASS: or FAIL: line per assertion; exits 1 if any failed. No GPU needed."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHAPTER = "chapters/01-find-the-limiter"
failed = 0


def check(name, ok, detail=""):
    global failed
    print(f"{'PASS' if ok else 'FAIL'}: {name}" + ("" if ok else f" ({detail})"))
    failed += not ok


def copy_tree(root):
    for d in ("scripts", "chapters", "results", "common"):
        shutil.copytree(os.path.join(REPO, d), os.path.join(root, d),
                        ignore=shutil.ignore_patterns("__pycache__", "naive", "optimized",
                                                      "library", "*.o"))
    os.makedirs(os.path.join(root, "book"))
    for f in ("chapters.tsv", "guideline-index.tsv", "guide-anchors.tsv"):
        shutil.copy(os.path.join(REPO, "book", f), os.path.join(root, "book", f))


def prose(root):
    p = subprocess.run([sys.executable, "scripts/results.py", "prose", CHAPTER],
                       capture_output=True, cwd=root, text=True)
    found = [l.strip()[len("FAIL: "):] for l in p.stdout.splitlines()
             if l.strip().startswith("FAIL: ")]
    return p.returncode, found, p.stdout + p.stderr


def findings_without_lines(found):
    """The findings without their line numbers (a plant moves the lines after it), counted:
    a plant adds one of a kind the chapter may already have."""
    return Counter(re.sub(r"^([^:]+):\d+:", r"\1:", f) for f in found)


def main():
    with tempfile.TemporaryDirectory() as root:
        copy_tree(root)
        readme = os.path.join(root, CHAPTER, "README.md")
        with open(readme) as f:
            original = f.read()
        _, base, _ = prose(root)
        base = findings_without_lines(base)
        why = re.search(r"^## Why.*$", original, re.M)
        check("the chapter has a Why section to plant into", why is not None)
        if why is None:
            return 1
        sentence = ("The fused kernel reads each input once and writes each output once, and "
                    "between those two trips through DRAM nothing else is stored, so the time "
                    "follows from the bytes alone and the instructions wait behind them. ")
        # A claim that holds in the data, and the same claim made to miss in the copy.
        plants = [
            ("a Why paragraph that cites no evidence", "\n" + sentence * 2 + "\n\n",
             None, "cites no claim"),
            ("a literal size in an inline value",
             "\nPer element <!-- value: h100 naive ncu:dram__bytes_read.sum / 67108864 :.1f -->"
             "x<!-- /value --> bytes. " + sentence + "\n", None, "as a literal"),
            ("a typed verdict", "\nThe prediction held on both GPUs, as " + sentence + "\n",
             None, "a verdict typed"),
            ("a typed speedup range", "\nThe speedup is 4x to 10x. " + sentence + "\n",
             None, "speedup range typed"),
            ("history", "\nThe first edition of this chapter said otherwise (see git commit "
             "d49ccd0). <!-- claim: dram-bytes -->x<!-- /claim --> " + sentence + "\n",
             None, "earlier version"),
            ("a held claim reported as missed",
             "\nThe bytes <!-- claim: dram-bytes missed -->x<!-- /claim -->. " + sentence + "\n",
             None, "but it held on every GPU"),
            ("a statement resting on a claim that missed",
             "\nThe bytes <!-- claim: dram-bytes -->x<!-- /claim -->. " + sentence + "\n",
             ("naive >= 2.5 * optimized", "naive >= 250 * optimized"), "rests on claim"),
            ("a chapter above the word limit", "\n" + ("word " * 1600) + "\n", None,
             "above the limit of 1500"),
        ]
        # The limit counts words as read: a claim citation is the words it renders, an inline
        # value its number (planted: the token count made each one word, so a README of
        # citations read 40% longer than it counted).
        sys.path.insert(0, os.path.join(root, "scripts"))
        from guide.prose import word_count
        cited = "Bytes <!-- claim: dram-bytes -->(claim held on both GPUs)<!-- /claim --> and " \
                "<!-- value: h100 naive result:median_us :.1f -->2.5<!-- /value --> us."
        check("the word count reads a claim citation and an inline value as rendered",
              word_count(cited) == 9, f"counted {word_count(cited)}, not 9")
        toml = os.path.join(root, CHAPTER, "evidence.toml")
        with open(toml) as f:
            toml_text = f.read()
        for name, text, holds, expect in plants:
            at = why.end() + 1
            with open(readme, "w") as f:
                f.write(original[:at] + text + original[at:])
            if holds:
                with open(toml, "w") as f:
                    f.write(toml_text.replace(holds[0], holds[1]))
            rc, found, out = prose(root)
            new = [f for f in (findings_without_lines(found) - base).elements() if expect in f]
            check(f"prose rule: {name} is found, exit 1", rc == 1 and len(new) >= 1,
                  f"exit {rc}; new findings {sorted((findings_without_lines(found) - base).elements())}")
            with open(toml, "w") as f:
                f.write(toml_text)
        with open(readme, "w") as f:
            f.write(original)
        # answers.md (the instructor's): an answer per exercise, objectives and the lab's time.
        answers = os.path.join(root, CHAPTER, "answers.md")
        kept = open(answers).read() if os.path.isfile(answers) else None
        head = "# Chapter 01: for the instructor\n\n"
        good_head = head + "**Objectives.** Count bytes.\n\n**Lab time:** about 45 minutes.\n\n"
        for name, text, expect in (
                ("an exercise without its answer", good_head + "## Answers\n\n1. One.\n",
                 "one answer per exercise"),
                ("answers without objectives", head + "**Lab time:** about 45 minutes.\n\n"
                 "## Answers\n\n1. One.\n", "no '**Objectives.**'"),
                ("answers without the lab's time", head + "**Objectives.** Count bytes.\n\n"
                 "## Answers\n\n1. One.\n", "no '**Lab time:**'"),
                ("a typed verdict in the answers", good_head + "## Answers\n\n1. The "
                 "prediction held on both GPUs.\n", "a verdict typed")):
            with open(answers, "w") as f:
                f.write(text)
            rc, found, out = prose(root)
            new = [f for f in (findings_without_lines(found) - base).elements() if expect in f]
            check(f"prose rule: {name} is found, exit 1", rc == 1 and len(new) >= 1,
                  f"exit {rc}; new findings {sorted((findings_without_lines(found) - base).elements())}")
        if kept is None:
            os.remove(answers)
        else:
            with open(answers, "w") as f:
                f.write(kept)
        # The citation renders the verdict in words, where the reader sees it.
        with open(toml, "w") as f:
            f.write(toml_text.replace("naive >= 2.5 * optimized", "naive >= 250 * optimized"))
        with open(readme, "w") as f:
            f.write(original[:why.end() + 1] + "\nThe bytes <!-- claim: dram-bytes missed -->x"
                    "<!-- /claim -->.\n" + original[why.end() + 1:])
        p = subprocess.run([sys.executable, "scripts/results.py", "readme", CHAPTER],
                           capture_output=True, cwd=root, text=True)
        with open(readme) as f:
            rendered = f.read()
        check("a claim citation renders its verdict in words",
              "<!-- claim: dram-bytes missed -->(claim missed on " in rendered,
              p.stdout + p.stderr)
    print(f"prose_test: {'all passed' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
