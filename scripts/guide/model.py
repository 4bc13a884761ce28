"""Results and sweeps files, the chapters and the table of contents.

Every reader of results goes through read_results(): a bad file is one ResultsError
naming the file, the line and the column, never a traceback and never a zero or NaN
that reaches a README or the book."""

import csv
import datetime
import glob
import hashlib
import math
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The one column list of a results row. common/results.c writes the same header;
# tests/results/ builds it and compares.
COLUMNS = ("chapter,slug,variant,gpu,cc,sms,sm_clock_mhz,driver,cuda,size,knobs,seed,method,"
           "samples,median_us,min_us,q1_us,q3_us,noise_pct,rate,rate_unit,roof_name,roof,"
           "pct_roof,check,max_err,source_hash,commit,date").split(",")
VARIANTS = ["naive", "optimized", "library"]
RATE_UNITS = ["GB/s", "GFLOP/s", "Gop/s", "Glookup/s", "Ginst/s", "klaunch/s"]
POSITIVE = ["median_us", "min_us", "q1_us", "q3_us", "rate", "roof", "pct_roof", "sm_clock_mhz"]
INTEGER = ["size", "seed", "samples", "sms"]
# Plausibility bounds: a value past them is a corrupted or hand-edited row, never a measurement,
# and would print as a 300-digit speedup. A program run is timed in us and lasts well under an
# hour; no GPU moves or computes 1e7 G-units per second (10 PB/s, 10 PFLOP/s); an SM clock is
# below 10 GHz. pct_roof may exceed 100 where a roof is wrong (a separate rule judges that), but
# 100x its roof is no measurement at all.
MOST = {"median_us": 3.6e9, "min_us": 3.6e9, "q1_us": 3.6e9, "q3_us": 3.6e9, "rate": 1e7,
        "roof": 1e7, "pct_roof": 1e4, "sm_clock_mhz": 1e4}
DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")         # what driver.cu's strftime writes
# Characters that have no place in a data file: NUL and the other controls, and those that
# str.splitlines() would take for the end of a line (so a row would be cut in two).
# A chapter's problem.cu, as far as the rows depend on it: its knob names and ncu metrics.
KNOBS_INIT = re.compile(r"\.knobs\s*=\s*\{(.*?)\}\s*,\s*\.nknobs\s*=\s*(\d+)", re.S)
KNOB_NAME = re.compile(r'\{\s*"([a-z0-9-]+)"\s*,\s*"')
NCU_INIT = re.compile(r'\.ncu_metrics\s*=\s*((?:"[^"]*"\s*)+)')
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029]")


class ResultsError(Exception):
    """A fault in the data: one line, shown as it is."""


def rel(path):
    """A path as the user knows it: relative to the repository where it lies inside."""
    inside = os.path.abspath(path).startswith(ROOT + os.sep)
    return os.path.relpath(os.path.abspath(path), ROOT) if inside else path


def position(text, i):
    """1-based line and column of offset i of text (str or bytes)."""
    nl = b"\n" if isinstance(text, bytes) else "\n"
    return text.count(nl, 0, i) + 1, i - text.rfind(nl, 0, i)


def read_text(path, data_file=True):
    """The text of a UTF-8 file. A byte that is not UTF-8 (or, in a data file, a control
    character) is a ResultsError naming its line and column, not a UnicodeDecodeError."""
    name = rel(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ResultsError(f"{name}: {e.strerror}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = position(raw, e.start)
        raise ResultsError(f"{name}:{line}:{col}: byte 0x{raw[e.start]:02x} is not UTF-8 text")
    m = CONTROL.search(text) if data_file else None
    if m:
        line, col = position(text, m.start())
        raise ResultsError(f"{name}:{line}:{col}: a control character "
                           f"(U+{ord(m.group()):04X}) has no place in a data file")
    return text


def gpu_slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def shared_sources(chapter_dir):
    """The files outside the chapter's folder that are part of its sources (a problem two
    chapters share, kept in common/): its `shared-sources` file lists them, one path from the
    repository root per line, so that a change to one makes every chapter that uses it stale."""
    path = os.path.join(chapter_dir, "shared-sources")
    if not os.path.isfile(path):
        return []
    root = os.path.dirname(os.path.dirname(os.path.abspath(chapter_dir)))
    out = []
    for i, line in enumerate(read_text(path).split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        full = os.path.join(root, line)
        if line.startswith(("/", "..")) or not os.path.isfile(full):
            raise ResultsError(f"{rel(path)}:{i}: '{line}' is not a file of the repository")
        out.append(full)
    return out


def source_hash(chapter_dir):
    """sha256 of the chapter's *.cu *.h *.c chapter.mk, concatenated in byte order of name, then
    its shared sources in the order listed (the Makefile's source_hash computes the same)."""
    names = [n for n in os.listdir(chapter_dir)
             if n.endswith((".cu", ".h", ".c")) or n == "chapter.mk"]
    h = hashlib.sha256()
    paths = [os.path.join(chapter_dir, n) for n in sorted(names, key=lambda s: s.encode())]
    for path in paths + shared_sources(chapter_dir):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


class Chapter:
    """One entry of book/chapters.tsv and, where it exists, its folder."""

    def __init__(self, nn, slug, part, guide, title):
        self.nn, self.slug, self.part, self.guide, self.title = nn, slug, part, guide, title
        self.number = int(nn)
        self.dir = self.readme = self.hash = None

    @property
    def status(self):
        return "written" if self.readme else ("in progress" if self.dir else "planned")

    def declared(self):
        """(knob names, ncu metrics) that the chapter's problem.cu declares in its .knobs and
        .ncu_metrics initializers; results rows must name exactly those knobs, evidence rows
        no other metric. Read once."""
        if not hasattr(self, "_declared"):
            path = os.path.join(self.dir, "problem.cu")
            src = read_text(path, data_file=False)
            m = KNOBS_INIT.search(src)
            knobs = KNOB_NAME.findall(m.group(1)) if m else []
            if m and len(knobs) != int(m.group(2)) or not m and ".knobs" in src:
                raise ResultsError(f"{rel(path)}: cannot read the knob names of .knobs "
                                   "(results.py expects {\"name\", \"help\", ...} entries "
                                   "and .nknobs after them)")
            # Comments between the initializer's strings (a note on why a metric is there)
            # are not part of it.
            m = NCU_INIT.search(re.sub(r"/\*.*?\*/|//[^\n]*", "", src, flags=re.S))
            text = "".join(re.findall(r'"([^"]*)"', m.group(1))) if m else ""
            self._declared = knobs, [x for x in text.split(",") if x]
        return self._declared

    def knob_scale(self, name):
        """How a chart spaces a knob's values: "log2" for a knob declared KNOB_POWER_OF_TWO,
        "category" for one whose help enumerates named choices ("1 cube root, 2 power of two,
        ..."), else "linear"."""
        src = read_text(os.path.join(self.dir, "problem.cu"), data_file=False)
        m = re.search(r'\{\s*"' + re.escape(name) + r'"\s*,\s*((?:"[^"]*"\s*)+),([^{}]*)\}', src)
        if not m:
            return "linear"
        help_text = "".join(re.findall(r'"([^"]*)"', m.group(1)))
        if "KNOB_POWER_OF_TWO" in m.group(2):
            return "log2"
        if re.match(r"\s*\d+ [a-z]", help_text) and re.search(r", \d+ [a-z]", help_text):
            return "category"
        return "linear"

    def heading(self):
        """The README's first line without '# ' ("20. Matrix transpose"); the folder's name
        without a README."""
        if self.readme:
            with open(self.readme) as f:
                first = f.readline().strip()
            if first.startswith("# "):
                return first[2:]
        return os.path.basename(self.dir) if self.dir else f"{self.nn}-{self.slug}"

    def readme_title(self):
        """The README's "# NN. Title", without the number; the TOC title otherwise."""
        if self.readme:
            with open(self.readme) as f:
                first = f.readline().strip()
            m = re.fullmatch(r"# (?:\d\d\. )?(.+)", first)
            if m:
                return m.group(1)
        return self.title


def read_toc():
    """book/chapters.tsv joined with chapters/NN-slug/ (those with a problem.cu)."""
    path = os.path.join(ROOT, "book", "chapters.tsv")
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise ResultsError(f"{rel(path)}: {e.strerror}")
    toc = []
    for i, line in enumerate(lines, start=1):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 5 or not re.fullmatch(r"\d\d", f[0]):
            raise ResultsError(f"{rel(path)}:{i}: expected nn, slug, part, guide, title "
                               "separated by tabs")
        if any(c.nn == f[0] for c in toc):
            raise ResultsError(f"{rel(path)}:{i}: chapter {f[0]} twice")
        toc.append(Chapter(*f))
    by_nn = {c.nn: c for c in toc}
    for d in sorted(glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]-*"))):
        if not os.path.isfile(os.path.join(d, "problem.cu")):
            continue
        name = os.path.basename(d)
        c = by_nn.get(name[:2])
        if c is None or c.slug != name[3:]:
            raise ResultsError(f"chapters/{name}: not in book/chapters.tsv under this name")
        c.dir, c.hash = d, source_hash(d)
        readme = os.path.join(d, "README.md")
        c.readme = readme if os.path.isfile(readme) else None
    return toc


def chapter_dirs():
    return [c.dir for c in read_toc() if c.dir]


def number(text):
    """A float, or None where the text is none."""
    try:
        return float(text)
    except ValueError:
        return None


def check_identity(row, bad, chapters):
    """The columns results and evidence rows share: chapter, slug, variant, gpu, source hash,
    compute capability and date; bad(column, why) raises."""
    if not re.fullmatch(r"\d+", row["chapter"]):
        bad("chapter", "not a chapter number")
    c = chapters.get(int(row["chapter"]))
    if c is None:
        bad("chapter", "no such chapter in chapters/")
    if row["slug"] != c.slug:
        bad("slug", f"chapter {c.nn} is '{c.slug}'")
    if row["variant"] not in VARIANTS:
        bad("variant", "not one of " + ", ".join(VARIANTS))
    if not row["gpu"]:
        bad("gpu", "empty")
    if not re.fullmatch(r"[0-9a-f]{12}", row["source_hash"]):
        bad("source_hash", "not a 12-digit source hash")
    if not re.fullmatch(r"\d{1,2}\.\d", row["cc"]):
        bad("cc", "not a compute capability such as 9.0")
    if not DATE.fullmatch(row["date"]):
        bad("date", "not a UTC time such as 2026-11-22T14:11:54Z")
    try:
        datetime.datetime.strptime(row["date"], "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        bad("date", "no such day or time")


def check_row(row, where, chapters):
    """Raise ResultsError naming the column of the first fault of one row."""
    def bad(col, why):
        raise ResultsError(f"{where}: column {col} = '{row[col]}': {why}")
    check_identity(row, bad, chapters)
    for col in INTEGER:
        if not re.fullmatch(r"\d+", row[col]):
            bad(col, "not a non-negative integer")
    if int(row["size"]) <= 0:
        bad("size", "not a positive integer")
    for col in POSITIVE:
        if row[col] == "":
            continue
        x = number(row[col])
        if x is None or not math.isfinite(x) or x <= 0:
            bad(col, "not a positive finite number")
        if x > MOST[col]:
            bad(col, f"above {MOST[col]:g}: not a plausible measurement")
    times = [c for c in ("min_us", "q1_us", "median_us", "q3_us") if row[c] != ""]
    for a, b in zip(times, times[1:]):
        if float(row[a]) > float(row[b]):
            bad(b, f"below {a} = {row[a]} (min <= q1 <= median <= q3)")
    # The knob names are problem.cu's, for a current row; a stale row is the stale check's
    # (an exercise may add a knob), but its values are integers all the same.
    c = chapters[int(row["chapter"])]
    knobs = c.declared()[0] if row["source_hash"] == c.hash else None
    pairs = [kv.partition("=") for kv in row["knobs"].split(";")] if row["knobs"] else []
    for name, eq, value in pairs:
        if knobs is not None and name not in knobs:
            bad("knobs", f"'{name}' is not a knob of chapter {row['chapter']} "
                f"(its knobs: {', '.join(knobs) or 'none'})")
        if not eq or not re.fullmatch(r"-?\d+", value):
            bad("knobs", f"{name}: '{value}' is not an integer")
    if knobs is not None and [name for name, _, _ in pairs] != knobs:
        bad("knobs", f"expected each knob of chapter {row['chapter']} once, in order: "
            + (";".join(k + "=N" for k in knobs) or "empty"))
    x = number(row["noise_pct"]) if row["noise_pct"] != "" else 0.0
    if x is None or not math.isfinite(x) or x < 0:
        bad("noise_pct", "not a finite number >= 0")
    if row["rate_unit"] not in RATE_UNITS + [""]:
        bad("rate_unit", "not one of " + ", ".join(RATE_UNITS) + " or empty")
    if (row["rate"] == "") != (row["rate_unit"] == ""):
        bad("rate_unit", "a rate needs its unit, and a unit its rate")
    if row["check"] not in ("pass", "fail"):
        bad("check", "not pass or fail")
    if row["check"] == "pass" and row["median_us"] == "":
        bad("median_us", "a passing row without a median")
    if number(row["max_err"]) is None:
        bad("max_err", "not a number")


# A row above its roof by more than the noise means the roof is wrong (issue 20). Exempt: the
# roofs issue 20 found these chapters above; a chapter moved to its new roof has a new roof name,
# and its rows are held to the limit again.
ROOF_LIMIT_PCT = 103.0
WRONG_ROOFS = {(24, "dram-sector"), (29, "int32"), (34, "copy")}


def over_roof(row):
    """Why a results or sweeps row stands above its roof, or None."""
    pct = number(row["pct_roof"]) if row["pct_roof"] else None
    if (pct is None or pct <= ROOF_LIMIT_PCT
            or (int(row["chapter"]), row["roof_name"]) in WRONG_ROOFS):
        return None
    return (f"{pct:g}% of its {row['roof_name']} roof, above {ROOF_LIMIT_PCT:g}%: a program "
            "above its roof means the roof is wrong")


def read_results(path, chapters, named=True, repeats=False):
    """Rows of one results or sweeps file, each with '_line' and '_file'. chapters maps
    number -> Chapter (those with a folder). named: the file must be <gpu-slug>.csv.
    repeats: a configuration may have several rows (make results' rounds)."""
    name = rel(path)
    reader = csv.reader(read_text(path).splitlines())
    header = next(reader, None)
    if header != COLUMNS:
        if header is None:
            raise ResultsError(f"{name}:1: empty file (the header is missing)")
        diff = next((i for i, (a, b) in enumerate(zip(header, COLUMNS)) if a != b),
                    min(len(header), len(COLUMNS)))
        got = header[diff] if diff < len(header) else "(nothing)"
        want = COLUMNS[diff] if diff < len(COLUMNS) else "(nothing)"
        raise ResultsError(f"{name}:1: wrong header: column {diff + 1} is '{got}', "
                           f"expected '{want}'")
    rows, seen = [], {}
    for lineno, fields in enumerate(reader, start=2):
        where = f"{name}:{lineno}"
        if len(fields) != len(COLUMNS):
            raise ResultsError(f"{where}: {len(fields)} fields, the header has {len(COLUMNS)}")
        row = dict(zip(COLUMNS, fields))
        check_row(row, where, chapters)
        key = (row["gpu"], int(row["chapter"]), row["variant"], row["size"], row["knobs"])
        if key in seen and not repeats:
            raise ResultsError(f"{where}: column variant: a second row for chapter "
                               f"{row['chapter']} {row['variant']} at size {row['size']}"
                               f"{' ' + row['knobs'] if row['knobs'] else ''} "
                               f"(the first is line {seen[key]})")
        seen[key] = lineno
        check_gpu(row, where, path, named, rows)
        row["_line"] = lineno
        row["_file"] = name
        rows.append(row)
    if named and not rows:
        raise ResultsError(f"{name}:2: a header and no rows: a GPU's file holds its measured "
                           "rows (delete the file, or run `make results` on that GPU)")
    return rows


def median_rounds(path, chapters):
    """make results' rounds (measure.sh): a file of rows in which each configuration of a
    program appears once per round. For each, in file order of its first round: (index of its
    round of median time among the file's rows, number of rounds, spread of the rounds' medians
    in % of that median: (max - min) / median). With an even number of rounds, the lower of the
    two middle ones."""
    groups = {}
    for i, row in enumerate(read_results(path, chapters, named=False, repeats=True)):
        key = (row["gpu"], int(row["chapter"]), row["variant"], row["size"], row["knobs"])
        groups.setdefault(key, []).append((float(row["median_us"]), i))
    if not groups:
        raise ResultsError(f"{rel(path)}:2: no rows")
    out = []
    for runs in groups.values():
        ordered = sorted(runs)
        median, index = ordered[(len(ordered) - 1) // 2]
        spread = 100 * (ordered[-1][0] - ordered[0][0]) / median if median > 0 else 0.0
        out.append((index, len(runs), spread))
    return out


def check_gpu(row, where, path, named, rows):
    """One GPU per file: a named file's GPU is the one its name says, so a wrong name is
    reported on its own line, not on the next one; a fresh file's is its first row's."""
    base = os.path.basename(path)
    if named and gpu_slug(row["gpu"]) + ".csv" != base:
        raise ResultsError(f"{where}: column gpu = '{row['gpu']}': {rel(path)} holds rows of "
                           f"the GPU named {base[:-4]} (a file of this GPU is named "
                           f"{gpu_slug(row['gpu'])}.csv)")
    if rows and row["gpu"] != rows[0]["gpu"]:
        raise ResultsError(f"{where}: column gpu = '{row['gpu']}': the file holds rows of "
                           f"'{rows[0]['gpu']}'")


def write_rows(path, rows):
    def key(r):
        return (int(r["chapter"]), VARIANTS.index(r["variant"]))   # stable: keeps run order
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in sorted(rows, key=key):
            w.writerow([r[k] for k in COLUMNS])


class Data:
    """Everything measured, read once: results, sweeps and evidence of every GPU file
    under one results directory, with the chapters they belong to."""

    def __init__(self, results_dir=None):
        self.results_dir = results_dir or os.path.join(ROOT, "results")
        self.toc = read_toc()
        self.chapters = {c.number: c for c in self.toc if c.dir}
        self.results = self._files(self.results_dir)            # slug -> rows
        self.sweeps = self._files(os.path.join(self.results_dir, "sweeps"))
        from . import evidence                                   # (it imports this module)
        self.evidence = {}
        for path in sorted(glob.glob(os.path.join(self.results_dir, "evidence", "*.csv"))):
            slug = os.path.basename(path)[:-4]
            self.evidence[slug] = evidence.read_evidence(path, self.chapters)
        self.specs = {c.number: evidence.read_spec(c) for c in self.chapters.values()}
        for rows in self.evidence.values():
            evidence.check_metrics(rows, self.chapters, self.specs)

    def _files(self, folder):
        out = {}
        for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
            out[os.path.basename(path)[:-4]] = read_results(path, self.chapters)
        return out

    def gpus(self):
        """slug -> GPU name, for every GPU with a results, sweeps or evidence file."""
        names = {}
        for files in (self.results, self.sweeps, self.evidence):
            for slug, rows in files.items():
                if rows:
                    names.setdefault(slug, rows[0]["gpu"])
        return dict(sorted(names.items()))

    def chapter_rows(self, slug, number, sweeps=False):
        rows = (self.sweeps if sweeps else self.results).get(slug, [])
        return [r for r in rows if int(r["chapter"]) == number]

    def resolve_gpu(self, text):
        """A GPU slug, or a unique substring of one."""
        slugs = list(self.gpus())
        if text in slugs:
            return text
        hits = [s for s in slugs if text.lower() in s]
        if len(hits) != 1:
            raise ResultsError(f"GPU '{text}' matches {len(hits)} results files "
                               f"({', '.join(slugs) or 'none'})")
        return hits[0]
