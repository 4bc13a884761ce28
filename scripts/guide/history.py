"""When each claim was committed, and when the data it reads was first recorded: git history.

A claim is a *mechanism* claim only if its current text (the keys that decide its verdict:
value or part and whole, and holds) was committed before the first evidence or results row it
reads was recorded, on any GPU: after that its author could have seen the numbers. A claim
changed since, renamed-and-changed, or not committed at all is an *observation*.

Two `git log -p` runs, whatever the number of chapters (well under a second):
- chapters/*/evidence.toml with whole-file context: for every commit, each file's text before
  and after; a commit *introduces* a claim text when the text is in the file after it and was
  not before. The claim's date is the last commit that introduced its current text (a text
  that left and came back counts from its return).
- results/ with no context: every row ever added, with its own recording date (the row's
  `date` column, the moment the measurement existed). The first date of a (chapter, tool,
  metric, source hash) on any GPU is when that number could first be seen for that code; a
  results row (result:FIELD) counts per chapter and hash. A chapter whose [prediction]
  declares it `redesigned` is judged by the numbers of its current sources alone: a claim
  committed before they were first recorded is a prediction, though the old programs' numbers
  of the same metric were seen. Any other chapter by the first number of any of its sources,
  so that an edit cannot launder a claim written after measuring.
Merges are not read (their changes are their parents' commits'). The commit date (%cI) is
used: a rebase makes a claim later, never earlier.

Without history (not a git clone, git missing, or a shallow clone whose history is cut), no
claim can be shown to precede its evidence: each claim takes the kind that results/claims/kinds.csv
records for its current text (`make readme` writes that file from the history, and `make readme
--check`, which CI runs on a full clone, fails when it is not current), and a claim the file does
not record, in its current text, is an observation."""

import csv
import datetime
import hashlib
import io
import os
import re
import subprocess
import tomllib

from .model import ROOT, ResultsError, read_text, rel

DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
TOOLS = ("ncu", "ptxas", "sass", "host")


def _git(*args):
    try:
        p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def parse_date(text):
    """An ISO 8601 date (git's %cI or a row's ...Z) as an aware datetime; None if it is not one."""
    try:
        d = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo else None


def _commits(log):
    """(date, [(path, old lines, new lines)]) of each commit of `git log -p --format=%x00%cI`."""
    for chunk in log.split("\0")[1:]:
        head, _, body = chunk.partition("\n")
        date = parse_date(head.strip())
        files = []
        for part in re.split(r"^diff --git ", body, flags=re.M)[1:]:
            path, old, new, inside = None, [], [], False
            for line in part.split("\n"):
                if not inside:
                    if line.startswith("+++ "):
                        path = line[6:] if line.startswith("+++ b/") else None
                    elif line.startswith("@@"):
                        inside = True
                    continue
                if line.startswith("@@"):
                    continue
                tag, text = line[:1], line[1:]
                if tag in (" ", "-"):
                    old.append(text)
                if tag in (" ", "+"):
                    new.append(text)
            if path:
                files.append((path, old, new))
        yield date, files


def claim_key(table):
    """What decides a claim's verdict; `says` and `symmetric` are words about it."""
    return tuple((k, " ".join(str(table.get(k, "")).split()))
                 for k in ("value", "part", "whole", "holds"))


def _claim_keys(lines):
    try:
        doc = tomllib.loads("\n".join(lines))
    except (tomllib.TOMLDecodeError, UnicodeError):
        return set()
    claims = doc.get("claim", [])
    return {claim_key(c) for c in claims if isinstance(c, dict)} if isinstance(claims, list) else set()


class History:
    """available: False where there is no usable history (then every claim is an observation,
    and `why` says why in one line)."""

    def __init__(self):
        self.available, self.why = False, None
        self.introduced = {}          # (evidence.toml path, claim key) -> last date introduced
        # (chapter, tool, metric, hash) or (chapter, "result", hash) -> date; hash None: any
        self.first_seen = {}
        shallow = _git("rev-parse", "--is-shallow-repository")
        if shallow is None:
            self.why = "no git history here (not a git clone, or no git)"
            return
        if shallow.strip() == "true":
            self.why = "a shallow git clone: its history is cut"
            return
        log = _git("log", "-p", "-U1000000", "--no-color", "--no-ext-diff", "--no-renames",
                   "--format=%x00%cI", "--", "chapters/*/evidence.toml")
        data = _git("log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "-a",
                    "--format=%x00%cI", "--", "results/")
        if log is None or data is None:
            self.why = "git log failed"
            return
        self.available = True
        for date, files in _commits(log):
            for path, old, new in files:
                for key in _claim_keys(new) - _claim_keys(old):
                    k = (path, key)
                    if date and (k not in self.introduced or date > self.introduced[k]):
                        self.introduced[k] = date
        for _, files in _commits(data):
            for path, _, new in files:
                evidence = path.startswith("results/evidence/")
                for line in new:
                    fields = line.split(",")
                    if not fields[0].isdigit():
                        continue
                    dates = [parse_date(f) for f in fields if DATE.fullmatch(f)]
                    if not dates or dates[-1] is None:
                        continue
                    chapter, source = int(fields[0]), fields[-3]
                    if evidence:
                        at = next((i for i in range(1, len(fields) - 1) if fields[i] in TOOLS), None)
                        if at is None:
                            continue
                        k = (chapter, fields[at], fields[at + 1], source)
                    else:
                        k = (chapter, "result", source)
                    for k in (k, k[:-1] + (None,)):
                        if k not in self.first_seen or dates[-1] < self.first_seen[k]:
                            self.first_seen[k] = dates[-1]

    def committed(self, spec_path, key):
        """The date the claim text of claim_key() `key` was last committed; None if never."""
        return self.introduced.get((spec_path, key))

    def first_recorded(self, number, reads, source):
        """The first recording date of any number the claim reads, for the sources of hash
        `source` (None: any sources): reads is a set of (tool, metric), tool 'result' for a
        results field. None if none was ever recorded."""
        dates = [self.first_seen.get((number, "result", source) if t == "result"
                                     else (number, t, m, source)) for t, m in reads]
        dates = [d for d in dates if d]
        return min(dates) if dates else None


KINDS_FILE = os.path.join("claims", "kinds.csv")
KINDS_COLUMNS = ["chapter", "claim", "text", "kind", "committed", "first_recorded"]


def key_id(key):
    """A short name for a claim's current text (claim_key): the record holds it, so that a claim
    changed since it was recorded is not taken for the one recorded."""
    return hashlib.sha256(repr(key).encode()).hexdigest()[:12]


def recorded_kinds(results_dir, chapters):
    """{(chapter, claim id, key_id): {kind, committed, first_recorded}} from results/claims/kinds.csv
    ({} without one). A clone without history takes every claim's kind from it, so a malformed
    file is one ResultsError naming its line and column, never a traceback."""
    path = os.path.join(results_dir, KINDS_FILE)
    if not os.path.isfile(path):
        return {}
    name = rel(path)
    lines = read_text(path).splitlines()
    header = next(csv.reader(lines[:1]), None)
    if header != KINDS_COLUMNS:
        raise ResultsError(f"{name}:1: wrong header: expected {','.join(KINDS_COLUMNS)}")
    out = {}
    for lineno, fields in enumerate(csv.reader(lines[1:]), start=2):
        if len(fields) != len(KINDS_COLUMNS):
            raise ResultsError(f"{name}:{lineno}: {len(fields)} fields, the header has "
                               f"{len(KINDS_COLUMNS)}")
        r = dict(zip(KINDS_COLUMNS, fields))

        def bad(col, why):
            raise ResultsError(f"{name}:{lineno}: column {col} = '{r[col]}': {why}")
        if not re.fullmatch(r"\d{1,3}", r["chapter"]) or int(r["chapter"]) not in chapters:
            bad("chapter", "no such chapter in chapters/")
        if not r["claim"].strip():
            bad("claim", "empty")
        if not re.fullmatch(r"[0-9a-f]{12}", r["text"]):
            bad("text", "not the 12-digit key of a claim's text")
        if r["kind"] not in ("mechanism", "observation"):
            bad("kind", "not mechanism or observation")
        for col in ("committed", "first_recorded"):
            if r[col] and parse_date(r[col]) is None:
                bad(col, "not an ISO 8601 date with its time zone")
        key = (int(r["chapter"]), r["claim"], r["text"])
        if key in out:
            bad("claim", "a second row of this claim and text")
        out[key] = {"kind": r["kind"], "committed": r["committed"] or None,
                    "first_recorded": r["first_recorded"] or None}
    return out


def kinds_csv(rows):
    """The text of results/claims/kinds.csv for rows of (chapter, claim id, key, kind dict)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(KINDS_COLUMNS)
    for number, cid, key, k in sorted(rows, key=lambda r: (r[0], r[1])):
        w.writerow([number, cid, key_id(key), k["kind"], k["committed"] or "", k["first_recorded"] or ""])
    return out.getvalue()


_HISTORY = {}


def history():
    """One History per process (the repository does not change while a command runs)."""
    if ROOT not in _HISTORY:
        _HISTORY[ROOT] = History()
    return _HISTORY[ROOT]
