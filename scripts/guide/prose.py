"""The rules that keep a chapter's prose true to its evidence, by construction.

A chapter README is hand-written prose around generated blocks. The numbers come from the data
(render.py); these rules make the reasoning around them answer to the data too:

- length: the hand-written prose (outside generated blocks, code and HTML comments) is at most
  WORD_LIMIT words;
- citations: a statement about the mechanism cites the claim it rests on as
  <!-- claim: ID -->VERDICT<!-- /claim -->, and the reader sees the verdict rendered there. A
  citation rests on the claim: it fails where the claim missed on a GPU. A text that reports the
  miss cites it as <!-- claim: ID missed -->, which fails where the claim held everywhere;
- the Why section: each of its paragraphs cites a claim or a measured value (an inline value);
- nothing typed that the data own: no verdict ('held', 'missed') and no speedup range outside a
  generated value (the prediction is <!-- value: prediction -->, its verdict
  <!-- value: GPU verdict -->);
- figures from the recorded size: an inline value's expression carries no problem size as a
  literal (record:size, result:size and knob:NAME say it);
- no history: the chapter is what it is now (git holds what it was).

Each rule reports 'README:line: why' through ProseError; check_chapter returns all of them."""

import copy
import os
import re

from . import evidence as ev
from .model import ResultsError, rel

WORD_LIMIT = 1500
SHORT_PARAGRAPH = 30     # a Why paragraph shorter than this (a transition) need not cite

CLAIM = re.compile(r"<!-- claim: (.*?) -->(.*?)<!-- /claim -->", re.S)
VALUE = re.compile(r"<!-- value: (.*?) -->(.*?)<!-- /value -->", re.S)
GENERATED = re.compile(r"<!-- (listing|diff): [^>]*? -->\n.*?<!-- /\1 -->"
                       r"|<!-- (results|sweep|evidence) -->\n.*?<!-- /\2 -->", re.S)
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
COMMENT = re.compile(r"<!--.*?-->", re.S)
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’._/+-]*")
# What the data own: a verdict word, or a speedup range (2.7x to 3.3x, 40-64x, 4× – 10×).
# A verdict: 'held' or 'missed' said of a prediction, a claim or a GPU ("the prediction held",
# "missed on the H200", "both claims held"), not the English of "a bound is held".
VERDICT_WORD = re.compile(
    r"\b(?:prediction|predictions|claim|claims|verdict|range|it|both|all|every)\b"
    r"(?:\s+\S+){0,3}?\s+(?:held|missed)\b"
    r"|\b(?:held|missed)\b(?:\s+\S+){0,2}?\s+(?:on|for)\s+(?:both|the|every|each|all)\s+"
    r"(?:GPUs?|H100|H200|reference)", re.I)
RANGE = re.compile(r"\b\d+(?:\.\d+)?\s*[x×]?\s*(?:to|-|–|—)\s*\d+(?:\.\d+)?\s*[x×](?![A-Za-z0-9])")
HISTORY = re.compile(r"\b(?:git )?commit [0-9a-f]{7,40}\b|\b(?:first|previous|earlier|last) "
                     r"(?:edition|version|redesign|design)s?\b|\bused to (?:be|read|say)\b",
                     re.I)
# A literal that stands for a size: above this and not a unit (a power of ten).
LITERAL_LIMIT = 4096


class ProseError(ResultsError):
    pass


def _line(text, pos):
    return text.count("\n", 0, pos) + 1


def _blank(m):
    """Keep a match's newlines (so that line numbers hold) and nothing else."""
    return "\n" * m.group(0).count("\n")


def hand_written(text):
    """The README with generated blocks, code and comments blanked (lines kept); an inline
    value or a claim citation becomes one word, as the reader reads it."""
    text = GENERATED.sub(_blank, text)
    text = FENCE.sub(_blank, text)
    text = VALUE.sub(lambda m: " N " + _blank(m), text)
    text = CLAIM.sub(lambda m: " held " + _blank(m), text)
    return COMMENT.sub(_blank, text)


def word_count(text):
    """Words as a reader reads them (whitespace words with a letter or digit): an inline value
    and a claim citation count with the text they render ("(claim held on both GPUs)" is five
    words), where hand_written makes each one word for the other rules."""
    shown = GENERATED.sub(_blank, text)
    shown = FENCE.sub(_blank, shown)
    shown = VALUE.sub(lambda m: " " + m.group(2) + " ", shown)
    shown = CLAIM.sub(lambda m: " " + m.group(2) + " ", shown)
    shown = COMMENT.sub(_blank, shown)
    return sum(1 for w in shown.split() if re.search(r"[A-Za-z0-9]", w))


def sections(text):
    """[(heading, start offset, end offset)] of the '## ' sections (### stay inside theirs)."""
    heads = [(m.group(1).strip(), m.start()) for m in re.finditer(r"^## (.*)$", text, re.M)]
    return [(h, s, heads[i + 1][1] if i + 1 < len(heads) else len(text))
            for i, (h, s) in enumerate(heads)]


def paragraphs(text, start, end):
    """[(offset, paragraph)] of the blank-line-separated blocks of text[start:end] that are
    prose: not a heading, a table, code or a generated block."""
    masked = GENERATED.sub(lambda m: "\0" * len(m.group(0)), text[:end])
    masked = FENCE.sub(lambda m: "\0" * len(m.group(0)), masked)
    out = []
    for m in re.finditer(r"(?:[^\n]+\n?)+", masked[start:end]):
        block = m.group(0)
        if "\0" in block or block.lstrip().startswith(("#", "|", "<!-- ")):
            continue
        out.append((start + m.start(), text[start + m.start():start + m.end()]))
    return out


def gpu_short(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100': the name a sentence uses."""
    words = [w for w in name.split() if w.upper() not in ("NVIDIA", "GEFORCE", "TESLA")]
    return words[0] if words else name


def claim_verdicts(data, c, claim_id):
    """{gpu name: verdict} of one claim on every GPU with evidence of the chapter."""
    spec = data.specs.get(c.number) or {"claims": []}
    claim = next((k for k in spec["claims"] if k["id"] == claim_id), None)
    if claim is None:
        return None
    out = {}
    for slug, name in data.gpus().items():
        if ev.has_evidence(data, slug, c.number):
            out[name] = ev.claim_verdict(data, slug, c.number, claim)["verdict"]
    return out


def verdict_words(verdicts):
    """'held on both GPUs', 'held on the H100, missed on the H200', 'not recorded yet'."""
    if not verdicts:
        return "not recorded yet"
    kinds = set(verdicts.values())
    if len(kinds) == 1:
        v = kinds.pop()
        where = "both GPUs" if len(verdicts) == 2 else (
            "every GPU" if len(verdicts) > 2 else "the " + gpu_short(next(iter(verdicts))))
        return f"{v} on {where}"
    return ", ".join(f"{v} on the {gpu_short(g)}" for g, v in verdicts.items())


def render_claim(data, c, args):
    """The text of one <!-- claim: ID [missed] --> citation."""
    words = args.split()
    if len(words) not in (1, 2) or (len(words) == 2 and words[1] != "missed"):
        raise ProseError(f"{rel(c.readme)}: <!-- claim: {args} -->: expected 'claim: ID' or "
                         "'claim: ID missed'")
    verdicts = claim_verdicts(data, c, words[0])
    if verdicts is None:
        raise ProseError(f"{rel(c.readme)}: <!-- claim: {args} -->: no claim '{words[0]}' in "
                         "the chapter's evidence.toml")
    return f"(claim {verdict_words(verdicts)})"


def check_citations(data, c, text):
    """A citation rests on its claim: it fails where the claim did not hold on a GPU. One
    that reports a miss ('claim: ID missed') fails where the claim held on every GPU."""
    out = []
    for m in CLAIM.finditer(text):
        words = m.group(1).split()
        where = f"{rel(c.readme)}:{_line(text, m.start())}"
        verdicts = claim_verdicts(data, c, words[0]) if words else None
        if not verdicts:
            continue                 # an unknown id is render_claim's error; nothing recorded
        short = {gpu_short(g): v for g, v in verdicts.items()}
        bad = [g for g, v in short.items() if v != ev.HELD]
        if len(words) == 1 and bad:
            out.append(f"{where}: the text rests on claim '{words[0]}', which is "
                       f"{short[bad[0]]} on the {bad[0]}: say what the evidence shows instead, "
                       f"and cite it as <!-- claim: {words[0]} missed --> where the text reports "
                       "the miss")
        elif len(words) == 2 and not bad:
            out.append(f"{where}: the text reports claim '{words[0]}' as missed, but it held on "
                       "every GPU")
    return out


def check_why(c, text):
    """Each paragraph of the Why section cites a claim or a measured value."""
    out = []
    for head, start, end in sections(text):
        if not head.lower().startswith("why"):
            continue
        for pos, para in paragraphs(text, start, end):
            if "<!-- claim:" in para or "<!-- value:" in para:
                continue
            if len(WORD.findall(COMMENT.sub(" ", para))) < SHORT_PARAGRAPH:
                continue
            out.append(f"{rel(c.readme)}:{_line(text, pos)}: a paragraph of the Why section that "
                       "cites no claim (<!-- claim: ID -->) and no measured value "
                       "(<!-- value: ... -->): a statement about the mechanism rests on evidence")
    return out


def check_typed(c, text):
    """Verdicts, speedup ranges and history are never typed."""
    out = []
    # A citation's rendered verdict is the data's, not typed: blank it before hand_written
    # reads it as a word.
    prose = hand_written(CLAIM.sub(lambda m: " " + _blank(m), text))
    for pattern, why in ((VERDICT_WORD, "a verdict typed in prose: the data own it (cite the "
                          "claim, or <!-- value: GPU verdict --> for the prediction)"),
                         (RANGE, "a speedup range typed in prose: the prediction is "
                          "<!-- value: prediction -->, a measured figure an inline value"),
                         (HISTORY, "an earlier version of the chapter: the chapter says what "
                          "it is now (git holds its history)")):
        for m in pattern.finditer(prose):
            said = " ".join(m.group(0).split())
            out.append(f"{rel(c.readme)}:{_line(prose, m.start())}: '{said}': {why}")
    return out


def sizes_of(data, c):
    """Every size the chapter was timed or recorded at, and its default."""
    out = set()
    for rows in list(data.results.values()) + list(data.sweeps.values()):
        out |= {int(r["size"]) for r in rows if int(r["chapter"]) == c.number and r["size"]}
    for rows in data.evidence.values():
        out |= {int(r["size"]) for r in rows if int(r["chapter"]) == c.number}
    return out


def check_literals(data, c, text):
    """An inline value's expression says the size by reference, never as a literal."""
    out, sizes = [], sizes_of(data, c)
    for m in VALUE.finditer(text):
        expr = re.sub(r"\[[^\]]*\]", "", m.group(1))        # knob values name a program
        expr = re.sub(r"\s:\S+\s*$", "", expr)               # the format
        for num in re.findall(r"(?<![\w.:])\d+(?:\.\d+)?(?:e\d+)?(?![\w.])", expr):
            x = float(num)
            power_of_ten = x >= 1 and float(f"1e{len(str(int(x))) - 1}") == x
            if x in sizes or (x > LITERAL_LIMIT and not power_of_ten):
                out.append(f"{rel(c.readme)}:{_line(text, m.start())}: <!-- value: "
                           f"{m.group(1)} --> carries {num} as a literal: a derived figure reads "
                           "the recorded size and knobs (record:size, result:size, knob:NAME)")
    return out


ANSWERS = "answers.md"   # a chapter's answers to its exercises, for the instructor (appendix D)


def exercise_numbers(text):
    """The numbers of the items of a README's '## Exercises' section (or an answers file's
    '## Answers'), in order."""
    for head, start, end in sections(text):
        if head.lower() in ("exercises", "answers"):
            return [int(n) for n in re.findall(r"^(\d+)\.\s", text[start:end], re.M)]
    return []


def check_answers(data, c, readme, text, path):
    """answers.md: the objectives and the lab's time, an answer for every exercise of the
    README and no other, and the README's rules for what the data own (no typed verdict,
    range or literal size, claims cited as they are)."""
    out = []
    if not re.search(r"^\*\*Objectives\.\*\*\s+\S", text, re.M):
        out.append(f"{path}: no '**Objectives.**' paragraph: what a student can do after the lab")
    if not re.search(r"^\*\*Lab time:\*\*\s+\S", text, re.M):
        out.append(f"{path}: no '**Lab time:**' line: how long the lab takes")
    want, got = exercise_numbers(readme), exercise_numbers(text)
    if want != got:
        out.append(f"{path}: answers {got or 'none'} for the README's exercises {want}: one "
                   "answer per exercise, numbered as the README numbers them")
    shown = copy.copy(c)                  # the same chapter, its messages naming answers.md
    shown.readme = path
    return (out + check_literals(data, shown, text) + check_citations(data, shown, text)
            + check_typed(shown, text))


def check_chapter(data, c, text):
    """Every rule's findings for one README, in order; an empty list is a pass."""
    out = []
    words = word_count(text)
    if words > WORD_LIMIT:
        out.append(f"{rel(c.readme)}: {words} words of hand-written prose, above the limit of "
                   f"{WORD_LIMIT}: one mechanism story, told once")
    return (out + check_literals(data, c, text) + check_citations(data, c, text)
            + check_why(c, text) + check_typed(c, text))
