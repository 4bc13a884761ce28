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
           "pct_roof,check,max_err,source_hash,commit,date,host,host_copy_gbs,"
           "host_copy_all_gbs").split(",")
# The host columns (common/host.h): "CPU model, N cores" on every row a program writes (empty on
# rows measured before the column existed: not recorded), and one core's and every core's copy
# rate, measured in the same run, on the rows of chapters timed on the host clock.
HOST = re.compile(r"[^\x00-\x1f\x7f\"]{1,256}, \d{1,4} cores")
HOST_COPY = ("host_copy_gbs", "host_copy_all_gbs")
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
# What the Makefile's RESULTS_COMMIT holds: a short or full hash, or 'unknown' outside git; with
# -dirty for uncommitted sources. Nothing else: the column reaches the READMEs and the book.
COMMIT = re.compile(r"(?:[0-9a-f]{7,40}|unknown)(?:-dirty)?")
# A clock a little ahead of this machine's is not a fault; a day ahead is no measurement.
CLOCK_SKEW = datetime.timedelta(hours=1)
# The roofs common/driver.cu measures, each with the unit of the rates held against it.
ROOFS = {"copy": "GB/s", "read": "GB/s", "link-h2d": "GB/s", "link-d2h": "GB/s",
         "link-duplex": "GB/s", "fp32": "GFLOP/s", "fp64": "GFLOP/s", "fp16": "GFLOP/s",
         "sfu": "Gop/s", "convert": "Gop/s", "int32": "Gop/s", "dram-sector": "Glookup/s",
         "l2-gather": "Glookup/s", "l1-gather": "Glookup/s", "shared": "Glookup/s",
         "issue": "Ginst/s", "launch-stream": "klaunch/s", "launch-graph": "klaunch/s"}
# Characters that have no place in a data file: NUL and the other controls, and those that
# str.splitlines() would take for the end of a line (so a row would be cut in two).
# A chapter's problem.cu, as far as the rows depend on it: its knob names and ncu metrics.
KNOBS_INIT = re.compile(r"\.knobs\s*=\s*\{(.*?)\}\s*,\s*\.nknobs\s*=\s*(\d+)", re.S)
KNOB_NAME = re.compile(r'\{\s*"([a-z0-9-]+)"\s*,\s*"')
# One knob entry, {"name", "help" "more help", def, min, max[, multiple_of[, rule]]}
# (common/cli.h's struct knob): the fields after the help are C integer expressions.
KNOB_ENTRY = re.compile(r'\{\s*"([a-z0-9-]+)"\s*,\s*(?:"(?:[^"\\]|\\.)*"\s*)+,([^{}]*)\}')
SIZE_INIT = re.compile(r"\.(min_size|max_size|default_size)\s*=\s*([^,\n]+),")
DEFINE = re.compile(r"^[ \t]*#define[ \t]+([A-Z_][A-Z0-9_]*)[ \t]+([^\n]*)", re.M)
NCU_INIT = re.compile(r'\.ncu_metrics\s*=\s*((?:(?:"[^"]*"|[A-Z_][A-Z0-9_]*)\s*)+)')
# A macro that stands in .ncu_metrics (common/ncu_stalls.h's NCU_WARP_STATES): string literals,
# its lines joined where they end in a backslash.
STRING_MACRO = re.compile(r'^[ \t]*#define[ \t]+([A-Z_][A-Z0-9_]*)[ \t]+((?:"[^"\n]*"[ \t]*)+)$', re.M)
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


MD_ACTIVE = re.compile(r"([\\`*\[\]<>&|])")


def md_text(text):
    """Data text (a GPU name, a unit, a timing method) as literal markdown: a character that
    would start markup, end a table cell or open raw HTML (<script>, &amp;) is escaped. Every
    such text of a README, and so of the book, goes through here."""
    return MD_ACTIVE.sub(r"\\\1", text)


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


def c_integer(text, defines, where, depth=0):
    """The value of a C integer expression of problem.cu (1L << 30, (1L << 31) - 1, TILE):
    numbers, + - * / << >> and parentheses, names from #define lines. ResultsError otherwise."""
    import ast
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S).strip()
    code = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", code)
    if depth > 8 or len(code) > 200:
        raise ResultsError(f"{where}: cannot read '{text.strip()}' as a C integer")
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        raise ResultsError(f"{where}: cannot read '{text.strip()}' as a C integer")
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: int(a / b) if b else None,
           ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
           ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else None}

    def ev(n):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.Name) and n.id in defines:
            return c_integer(defines[n.id], defines, where, depth + 1)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            x = ev(n.operand)
            return None if x is None else -x if isinstance(n.op, ast.USub) else x
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            a, b = ev(n.left), ev(n.right)
            return None if a is None or b is None else ops[type(n.op)](a, b)
        return None
    x = ev(tree.body)
    if x is None:
        raise ResultsError(f"{where}: cannot read '{text.strip()}' as a C integer")
    return x


def knob_fault(rule, v):
    """Why v breaks a knob's rule (common/cli.c's knob_check, in the same words), or None.
    rule: (min, max, multiple_of, power_of_two) with power_of_two 0, 1 (KNOB_POWER_OF_TWO) or
    2 (KNOB_POWER_OF_TWO_OR_MULTIPLE)."""
    lo, hi, multiple, power = rule
    two = v > 0 and v & (v - 1) == 0
    if not lo <= v <= hi:
        return f"out of range {lo}..{hi}"
    if power == 2:
        return None if two or (multiple > 1 and v % multiple == 0) else \
            f"neither a power of two nor a multiple of {multiple}"
    if multiple > 1 and v % multiple:
        return f"not a multiple of {multiple}"
    if power and not two:
        return "not a power of two"
    return None


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
            # A name among them is a macro of string literals from the chapter's includes.
            def bare(text):
                return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
            code = bare(src)
            m = NCU_INIT.search(code)
            # The initializer ends at its comma (or the struct's brace): anything else there (a
            # lower-case macro, a function-like one) would end the list silently.
            if m and not re.match(r"\s*[,}]", code[m.end():]):
                raise ResultsError(f"{rel(path)}: cannot read .ncu_metrics past "
                                   f"'{code[m.end():m.end() + 20].split(chr(10))[0]}': write it "
                                   "as string literals and upper-case macros of string literals")
            text = ""
            for lit, name in re.findall(r'"([^"]*)"|([A-Z_][A-Z0-9_]*)', m.group(1) if m else ""):
                if name:
                    found = self.string_macros().get(name, [(None, None)])
                    if len({lit for _, lit in found}) > 1:
                        # Under #if alternatives, or in two headers: which one the build
                        # takes is the preprocessor's business, not something read here.
                        raise ResultsError(f"{rel(path)}: .ncu_metrics names {name}, which is "
                                           "defined with different metrics in " +
                                           ", ".join(sorted({rel(f) for f, _ in found})) +
                                           ": define it once")
                    where, lit = found[0]
                    if lit is None:
                        raise ResultsError(f"{rel(path)}: .ncu_metrics names {name}, which no "
                                           "header of the chapter or of common/ defines as "
                                           "string literals")
                    # A header outside the chapter counts in its source hash only if its
                    # shared-sources names it: otherwise a change to the list would not make
                    # the chapter's results stale.
                    if os.path.dirname(os.path.abspath(where)) != os.path.abspath(self.dir) and \
                            os.path.abspath(where) not in map(os.path.abspath,
                                                              shared_sources(self.dir)):
                        raise ResultsError(f"{rel(path)}: .ncu_metrics takes {name} from "
                                           f"{rel(where)}, which the chapter's shared-sources "
                                           "does not list (its source hash would leave it out)")
                text += lit
            self._declared = knobs, [x for x in text.split(",") if x]
        return self._declared

    def string_macros(self):
        """name -> [(file, the text of a #define whose value is string literals only)], every
        definition, from common/*.h and the chapter's own files (comments dropped, continued
        lines joined)."""
        out = {}
        for f in sorted(glob.glob(os.path.join(ROOT, "common", "*.h"))) + \
                sorted(glob.glob(os.path.join(self.dir, "*.[ch]*"))):
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", read_text(f, data_file=False), flags=re.S)
            text = re.sub(r"\\\n", " ", text)
            for name, value in STRING_MACRO.findall(text):
                out.setdefault(name, []).append((f, "".join(re.findall(r'"([^"]*)"', value))))
        return out

    def problem(self):
        """What results rows are held to, from problem.cu (the programs' --describe needs a
        build): {'rules': knob -> (min, max, multiple_of, power_of_two), 'min_size',
        'max_size', 'default_size'}. Constants come from #define lines of the chapter's files
        and common/*.h. Read once."""
        if not hasattr(self, "_problem"):
            path = os.path.join(self.dir, "problem.cu")
            where = rel(path)
            src = read_text(path, data_file=False)
            defines = {}
            for f in sorted(glob.glob(os.path.join(ROOT, "common", "*.h"))) + \
                    sorted(glob.glob(os.path.join(self.dir, "*.[ch]*"))):
                defines.update(DEFINE.findall(read_text(f, data_file=False)))
            out = {"rules": {}}
            m = KNOBS_INIT.search(src)
            for name, fields in KNOB_ENTRY.findall(m.group(1)) if m else []:
                f = [x for x in fields.split(",") if x.strip()]
                if not 3 <= len(f) <= 5:
                    raise ResultsError(f"{where}: knob {name}: expected default, min, max "
                                       "[, multiple_of [, rule]] after the help")
                flags = {"KNOB_POWER_OF_TWO": 1, "KNOB_POWER_OF_TWO_OR_MULTIPLE": 2}
                f = [str(flags[x.strip()]) if x.strip() in flags else x for x in f] + ["0", "0"]
                out["rules"][name] = tuple(c_integer(x, defines, f"{where}: knob {name}")
                                           for x in f[1:5])
            unread = [k for k in self.declared()[0] if k not in out["rules"]]
            if unread:
                raise ResultsError(f"{where}: knob {unread[0]}: cannot read its rule (results.py "
                                   "expects {\"name\", \"help\" ..., default, min, max[, multiple_of"
                                   "[, rule]]}, the help in string literals only)")
            for key, text in SIZE_INIT.findall(src):
                out[key] = c_integer(text, defines, f"{where}: .{key}")
            missing = [k for k in ("min_size", "max_size", "default_size") if k not in out]
            if missing:
                raise ResultsError(f"{where}: cannot read .{missing[0]}")
            self._problem = out
        return self._problem

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
            first = read_text(self.readme, data_file=False).split("\n", 1)[0].strip()
            if first.startswith("# "):
                return first[2:]
        return os.path.basename(self.dir) if self.dir else f"{self.nn}-{self.slug}"

    def readme_title(self):
        """The README's "# NN. Title", without the number; the TOC title otherwise."""
        if self.readme:
            first = read_text(self.readme, data_file=False).split("\n", 1)[0].strip()
            m = re.fullmatch(r"# (?:\d\d\. )?(.+)", first)
            if m:
                return m.group(1)
        return self.title


def read_toc():
    """book/chapters.tsv joined with chapters/NN-slug/ (those with a problem.cu)."""
    path = os.path.join(ROOT, "book", "chapters.tsv")
    lines = read_text(path, data_file=False).split("\n")
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
        when = datetime.datetime.strptime(row["date"], "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        bad("date", "no such day or time")
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    if when > now + CLOCK_SKEW:
        bad("date", f"in the future (now is {now:%Y-%m-%dT%H:%M:%SZ})")
    if not COMMIT.fullmatch(row["commit"]):
        bad("commit", "not a commit hash (7 to 40 hex digits) or 'unknown', with -dirty or not")
    if not os.path.isfile(os.path.join(c.dir, row["variant"] + ".cu")):
        bad("variant", f"chapter {c.nn} has no {row['variant']} program "
            f"({rel(c.dir)}/{row['variant']}.cu)")


def check_row(row, where, chapters):
    """Raise ResultsError naming the column of the first fault of one row."""
    def bad(col, why):
        raise ResultsError(f"{where}: column {col} = '{row[col]}': {why}")
    check_identity(row, bad, chapters)
    for col in INTEGER:
        if not re.fullmatch(r"\d{1,19}", row[col]):
            bad(col, "not a non-negative integer of at most 19 digits")
    c = chapters[int(row["chapter"])]
    current = row["source_hash"] == c.hash
    # The size bounds are problem.cu's, for a current row (an exercise may change them).
    lo, hi = (c.problem()["min_size"], c.problem()["max_size"]) if current else (1, 2**63 - 1)
    if not lo <= int(row["size"]) <= hi:
        bad("size", f"outside chapter {c.nn}'s sizes {lo}..{hi} (problem.cu)")
    for col in ("samples", "sms"):
        if row["median_us"] != "" and int(row[col]) == 0:
            bad(col, "0 in a timed row: a median of no samples, or a GPU without SMs")
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
    knobs = c.declared()[0] if current else None
    pairs = [kv.partition("=") for kv in row["knobs"].split(";")] if row["knobs"] else []
    for name, eq, value in pairs:
        if knobs is not None and name not in knobs:
            bad("knobs", f"'{name}' is not a knob of chapter {row['chapter']} "
                f"(its knobs: {', '.join(knobs) or 'none'})")
        if not eq or not re.fullmatch(r"-?\d{1,19}", value):
            bad("knobs", f"{name}: '{value}' is not an integer")
        fault = knob_fault(c.problem()["rules"][name], int(value)) if knobs else None
        if fault:
            bad("knobs", f"{name}={value} is {fault} (the knob's rule in {rel(c.dir)}/problem.cu)")
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
    for col in ("driver", "cuda"):
        if not re.fullmatch(r"\d{1,3}(\.\d{1,3}){0,2}", row[col]):
            bad(col, "not a CUDA version such as 13.0")
    check_roof(row, bad)
    if row["check"] not in ("pass", "fail"):
        bad("check", "not pass or fail")
    if row["check"] == "pass" and row["median_us"] == "":
        bad("median_us", "a passing row without a median")
    x = number(row["max_err"])
    if x is None or not math.isfinite(x) or x < 0:
        bad("max_err", "not a finite number >= 0")
    check_host(row, bad)


def host_text(rows):
    """The host of a chapter's rows on one GPU, in words: 'not recorded' for rows from before the
    column; with the copy rates where the chapter's time is the host's (the optimized row's run,
    else the first that has them)."""
    hosts = [r for r in rows if r["host"]]
    if not hosts:
        return "host not recorded"
    timed = [r for r in hosts if r["host_copy_gbs"]]
    r = next((r for r in timed if r["variant"] == "optimized"), timed[0] if timed else hosts[0])
    text = f"host {r['host']}"
    if r["host_copy_gbs"]:
        text += (f" (memcpy {r['host_copy_gbs']} GB/s on one core, {r['host_copy_all_gbs']} GB/s "
                 "on every core, measured in the same run)")
    return text


def check_host(row, bad):
    """The host columns: a description as common/host.c writes it, or empty (not recorded),
    and two copy rates, both or neither, only beside a recorded host."""
    if row["host"] and not HOST.fullmatch(row["host"]):
        bad("host", "not 'CPU model, N cores' as common/host.c writes it")
    for col in HOST_COPY:
        if row[col] == "":
            continue
        x = number(row[col])
        if x is None or not math.isfinite(x) or x <= 0 or x > 1e4:
            bad(col, "not a copy rate in GB/s (a positive number below 1e4)")
        if not row["host"]:
            bad(col, "a host copy rate on a row that records no host")
    if (row["host_copy_gbs"] == "") != (row["host_copy_all_gbs"] == ""):
        bad("host_copy_all_gbs", "one core's and every core's copy rate are measured together")


def half_unit(text):
    """Half a unit of the last digit a number was written with: its rounding."""
    digits = len(text.partition(".")[2]) if "e" not in text.lower() else 0
    return 0.5 * 10.0 ** -digits


def check_roof(row, bad):
    """A roof common/driver.cu measures, in the unit of the row's rate, and pct_roof that is
    rate / roof within the rounding of the three numbers as written."""
    name, unit = row["roof_name"], row["rate_unit"]
    if name and name not in ROOFS:
        bad("roof_name", "not a roof of common/driver.cu (" + ", ".join(ROOFS) + ")")
    if (name == "") != (row["roof"] == ""):
        bad("roof_name", "a roof needs its name, and a name its roof")
    if name and unit != ROOFS[name]:
        bad("rate_unit", f"the {name} roof is in {ROOFS[name]}")
    if (row["pct_roof"] == "") != (row["roof"] == "" or row["rate"] == ""):
        bad("pct_roof", "a percentage of the roof needs a rate and a roof, and they need it")
    if row["pct_roof"]:
        rate, roof, pct = (float(row[k]) for k in ("rate", "roof", "pct_roof"))
        ur, uf = half_unit(row["rate"]), half_unit(row["roof"])
        slack = 100 * (ur / (roof - uf) + rate * uf / (roof * (roof - uf))) \
            + half_unit(row["pct_roof"]) + 1e-9 if roof > uf else math.inf
        if abs(100 * rate / roof - pct) > slack:
            bad("pct_roof", f"rate / roof is {100 * rate / roof:.2f}% ({row['rate']} / "
                f"{row['roof']}), not within rounding of it")


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
