"""Evidence: results/evidence/<gpu>.csv (what `make evidence` recorded per program) and
chapters/NN-slug/evidence.toml (the chapter's prediction and claims), and the verdicts.

Expressions are parsed with Python's ast and only these nodes are allowed: numbers,
+ - * /, unary minus and plus, parentheses, metric references (TOOL:METRIC) in a claim's
`value`, program names (naive, optimized[--knob v]) and one comparison in `holds`."""

import ast
import csv
import math
import os
import re
import tomllib

from . import history
from .model import (ResultsError, VARIANTS, check_gpu, check_identity, gpu_slug, knob_fault,
                    read_text, rel)

COLUMNS = ("chapter,slug,variant,options,gpu,cc,arch,size,tool,metric,value,unit,"
           "source_hash,commit,date").split(",")
TOOLS = ["ncu", "ptxas", "sass", "host"]
UNIT = re.compile(r"[A-Za-z0-9%/_.-]{0,24}")   # byte, %, GB/s, register/thread, per_diff
# Recorded for every chapter that profiles its kernels, beside its own metrics (scripts/evidence.sh
# asks `evidence_parse.py context` for them): what the book's roofline needs, FP32 flops (thread
# instructions; an FMA is 2 flops) and the bytes DRAM moved.
ROOFLINE_FLOP_METRICS = {
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 2,
}
ROOFLINE_DRAM_METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
# result:FIELD in an expression: the program's results row (its size, the SMs and the SM clock
# it ran at, so that a per-element or per-clock figure never types them; the roof's rate it was
# measured against, unrounded; the host's copy rates where the host sets the time; the quartiles,
# the fastest sample and the noise figure, where prose gives a noisy row's spread).
RESULT_FIELDS = ["median_us", "q1_us", "q3_us", "min_us", "noise_pct", "rate", "pct_roof", "roof",
                 "size", "sms", "sm_clock_mhz", "host_copy_gbs", "host_copy_all_gbs"]
# record:size in an expression: the size the program's evidence was recorded at, so a per-element
# figure follows the [record] size instead of repeating it as a literal.
RECORD_FIELDS = ["size"]
DURATION = "gpu__time_duration.sum"            # profiled with every chapter's ncu metrics
# The facts scripts/evidence_parse.py's aggregate_ptxas writes for every program it compiled.
PTXAS_METRICS = ["registers", "stack_bytes", "spill_store_bytes", "spill_load_bytes", "smem_bytes"]

METRIC_REF = re.compile(r"\b(ncu|ptxas|sass|host|result|record|knob):([A-Za-z_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?)")
PROGRAM_REF = re.compile(r"\b(naive|optimized|library)\b(?:\[([^\]]*)\])?")
ARITH = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Add, ast.Sub, ast.Mult, ast.Div,
         ast.USub, ast.UAdd, ast.Constant, ast.Name, ast.Load)
COMPARE = {ast.GtE: lambda a, b: a >= b, ast.LtE: lambda a, b: a <= b,
           ast.Gt: lambda a, b: a > b, ast.Lt: lambda a, b: a < b, ast.Eq: lambda a, b: a == b}

HELD, MISSED, NOT_RECORDED, UNDEFINED, NOT_MEASURED, REFUSED = (
    "held", "missed", "not recorded", "undefined", "not measured", "refused")
MECHANISM, OBSERVATION = "mechanism", "observation"
LOWEST_SPEEDUP, WIDEST_RANGE = 0.01, 4.0   # [prediction] speedup: a range that can miss
PART_NOISE = 1.03        # a part may read up to 3% above its whole (the timing noise) and no more


def norm_options(text):
    """'--min-blocks   4' or 'min-blocks 4' -> '--min-blocks 4' (one spelling per
    configuration). Every knob takes a value, so names stand at the even places; prose
    writes them without the dashes, which an HTML comment (an inline value) cannot hold."""
    words = text.split()
    return " ".join(w if i % 2 or w.startswith("--") else "--" + w for i, w in enumerate(words))


def program_name(variant, options):
    return f"{variant}[{options}]" if options else variant


def read_evidence(path, chapters, named=True):
    """Rows of one evidence file, validated; each with '_line', 'value' as a float.
    named: the file is results/evidence/<gpu-slug>.csv (not a freshly recorded one)."""
    name = rel(path)
    reader = csv.reader(read_text(path).splitlines())
    header = next(reader, None)
    if header != COLUMNS:
        raise ResultsError(f"{name}:1: wrong header: expected {','.join(COLUMNS)}")
    rows, seen = [], {}
    for lineno, fields in enumerate(reader, start=2):
        where = f"{name}:{lineno}"
        if len(fields) != len(COLUMNS):
            raise ResultsError(f"{where}: {len(fields)} fields, the header has {len(COLUMNS)}")
        row = dict(zip(COLUMNS, fields))

        def bad(col, why):
            raise ResultsError(f"{where}: column {col} = '{row[col]}': {why}")
        check_identity(row, bad, chapters)
        if not re.fullmatch(r"[1-9]\d*", row["size"]):
            bad("size", "not a positive integer")
        if row["tool"] not in TOOLS:
            bad("tool", "not one of " + ", ".join(TOOLS))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", row["metric"]):
            bad("metric", "not a metric name")
        try:
            value = float(row["value"])
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            bad("value", "not a finite number")
        if value < 0 and row["tool"] != "host":       # counts, bytes, times, percentages
            bad("value", f"negative: a {row['tool']} value is a count or an amount")
        if not UNIT.fullmatch(row["unit"]):
            bad("unit", "not a unit (up to 24 letters, digits and % / _ . -)")
        row["options"] = norm_options(row["options"])
        key = (int(row["chapter"]), row["variant"], row["options"], row["tool"], row["metric"])
        if key in seen:
            raise ResultsError(f"{where}: column metric: a second row for chapter "
                               f"{row['chapter']} {program_name(row['variant'], row['options'])} "
                               f"{row['tool']}:{row['metric']} (the first is line {seen[key]})")
        seen[key] = lineno
        check_gpu(row, where, path, named, rows)
        row["_text"] = row["value"]
        row["value"], row["_line"], row["_file"] = value, lineno, name
        rows.append(row)
    if named and not rows:
        raise ResultsError(f"{name}:2: a header and no rows: a GPU's evidence file holds its "
                           "recorded rows (delete the file, or run `make evidence` on that GPU)")
    return rows


def declared_metrics(chapter, spec):
    """tool -> (metrics a current row may name, metrics each program recorded by that tool
    must have, where they are declared). The roofline's metrics came later than some
    recordings, so they are allowed, not required. Host figures are the programs' own."""
    ncu = chapter.declared()[1]
    extra = [DURATION, *ROOFLINE_FLOP_METRICS, *ROOFLINE_DRAM_METRICS] if ncu else []
    sass = spec["record"]["sass"] if spec else []
    return {"ncu": (set(ncu + extra), ncu, f"{rel(chapter.dir)}/problem.cu .ncu_metrics"),
            "sass": (set(sass), sass, f"{rel(chapter.dir)}/evidence.toml [record] sass"),
            "ptxas": (set(PTXAS_METRICS), PTXAS_METRICS, "the ptxas facts")}


def options_fault(c, options):
    """Why a program's options ('--knob value ...', normalized) are not a configuration of
    chapter c (a knob it lacks, a value its rule forbids), or None."""
    words, rules = options.split(), c.problem()["rules"]
    if len(words) % 2:
        return "expected --knob value pairs"
    for k, v in zip(words[::2], words[1::2]):
        if k[2:] not in rules:
            return f"'{k}' is not a knob of chapter {c.nn}"
        if not re.fullmatch(r"-?\d{1,19}", v):
            return f"{k} {v}: not an integer"
        fault = knob_fault(rules[k[2:]], int(v))
        if fault:
            return f"{k} {v} is {fault}"
    return None


def check_metrics(rows, chapters, specs):
    """A renamed metric is refused here, not found missing by a claim later (or never, where
    no claim names it): every current row names a metric its chapter declares, and a program
    recorded by a tool has all of them. Stale rows are the stale check's: an exercise may
    change what a chapter declares."""
    groups = {}
    for r in rows:
        c = chapters[int(r["chapter"])]
        if specs.get(c.number) is None:
            raise ResultsError(f"{r['_file']}:{r['_line']}: chapter {c.nn} has recorded evidence "
                               f"but no {rel(c.dir)}/evidence.toml (deleted?): its prediction, "
                               "claims and [record] are read from there")
        if r["source_hash"] != c.hash:
            continue
        size = specs[c.number]["record"]["size"] or c.problem()["default_size"]
        if int(r["size"]) != size:
            raise ResultsError(f"{r['_file']}:{r['_line']}: column size = '{r['size']}': the "
                               f"[record] size in {specs[c.number]['path']} is {size} (without "
                               "one, problem.cu's default): the evidence describes another run; "
                               f"re-run `make evidence CHAPTERS={c.nn}` on a GPU")
        why = options_fault(c, r["options"])
        if why:
            raise ResultsError(f"{r['_file']}:{r['_line']}: column options = '{r['options']}': "
                               f"{why} (see {rel(c.dir)}/problem.cu)")
        if r["tool"] == "host":
            continue
        allowed, required, source = declared_metrics(c, specs.get(c.number))[r["tool"]]
        if r["metric"] not in allowed:
            raise ResultsError(f"{r['_file']}:{r['_line']}: column metric = '{r['metric']}': "
                               f"not a {r['tool']} metric of chapter {c.nn} (see {source})")
        groups.setdefault((c, program_name(r["variant"], r["options"]), r["tool"]), []).append(r)
    for (c, program, tool), got in groups.items():
        _, required, source = declared_metrics(c, specs.get(c.number))[tool]
        missing = [m for m in required if m not in {r["metric"] for r in got}]
        if missing:
            raise ResultsError(f"{got[0]['_file']}:{got[0]['_line']}: chapter {c.nn} {program} "
                               f"has no {tool}:{missing[0]}, which {source} declares")


# ---- expressions ------------------------------------------------------------------------

# Bounds on an expression, checked before Python's parser sees it: a claim is a line of
# arithmetic, and past these the parser itself fails (RecursionError, MemoryError) or a
# constant is no float (OverflowError). The longest claim today is under 200 characters.
MOST_CHARS, MOST_DEPTH, MOST_UNARY, MOST_DIGITS = 500, 10, 4, 30


def _bounded(text, what):
    """ResultsError where text is past the bounds an expression is held to."""
    if len(text) > MOST_CHARS:
        raise ResultsError(f"{what}: an expression of {len(text)} characters (at most "
                           f"{MOST_CHARS})")
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth > MOST_DEPTH:
            raise ResultsError(f"{what}: parentheses nested deeper than {MOST_DEPTH}")
    if re.search(r"[-+~](?:\s*[-+~]){%d}" % MOST_UNARY, text):
        raise ResultsError(f"{what}: more than {MOST_UNARY} signs in a row")
    m = re.search(r"\d{%d,}" % (MOST_DIGITS + 1), text)
    if m:
        raise ResultsError(f"{what}: a number of {len(m.group())} digits (at most {MOST_DIGITS})")


def _parse(text, refs, allowed, what):
    """Replace each reference by a placeholder name, parse, and allow only `allowed` nodes.
    Returns (tree, names) where names maps placeholder -> the reference's match groups."""
    _bounded(text, what)
    names = {}

    def sub(m):
        key = f"_r{len(names)}"
        names[key] = m.groups()
        return key
    code = refs.sub(sub, text)
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        raise ResultsError(f"{what}: cannot parse '{text}'")
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise ResultsError(f"{what}: '{text}': {type(node).__name__} is not allowed "
                               "(only numbers, + - * /, parentheses and references)")
        if isinstance(node, ast.Name) and node.id not in names:
            raise ResultsError(f"{what}: '{text}': unknown name '{node.id}'")
        if isinstance(node, ast.Constant) and type(node.value) not in (int, float):
            raise ResultsError(f"{what}: '{text}': only numbers are allowed as constants")
        if isinstance(node, ast.Constant) and not math.isfinite(float(node.value)):
            raise ResultsError(f"{what}: '{text}': a constant that is not a finite number")
    return tree, names


def _eval(node, env):
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        x = _eval(node.operand, env)
        return -x if isinstance(node.op, ast.USub) else x
    a, b = _eval(node.left, env), _eval(node.right, env)
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return a - b
    if isinstance(node.op, ast.Mult):
        return a * b
    return a / b                                # ZeroDivisionError: the caller's verdict


class Missing(Exception):
    """A reference with nothing recorded: the verdict is 'not recorded'."""


def parse_value(text, what):
    tree, names = _parse(text, METRIC_REF, ARITH, what)
    for tool, metric in names.values():
        if tool == "result" and metric not in RESULT_FIELDS:
            raise ResultsError(f"{what}: '{text}': result:{metric} is not one of "
                               + ", ".join("result:" + f for f in RESULT_FIELDS))
        if tool == "record" and metric not in RECORD_FIELDS:
            raise ResultsError(f"{what}: '{text}': record:{metric} is not one of "
                               + ", ".join("record:" + f for f in RECORD_FIELDS))
    return tree, names


def parse_holds(text, what):
    """One comparison, a chain of them (0.5 < naive <= 15), or comparisons joined by `and`
    (a claim that states both sides: naive >= 1 and optimized == 0)."""
    tree, names = _parse(text, PROGRAM_REF, ARITH + (ast.Compare, ast.BoolOp, ast.And)
                         + tuple(COMPARE), what)
    body = tree.body
    parts = body.values if isinstance(body, ast.BoolOp) else [body]
    if not isinstance(body, (ast.Compare, ast.BoolOp)) or \
       not all(isinstance(p, ast.Compare) for p in parts):
        raise ResultsError(f"{what}: '{text}' must be a comparison (>=, <=, >, <, ==), "
                           "or comparisons joined by 'and'")
    for p in parts:
        if any(isinstance(n, (ast.Compare, ast.BoolOp)) for x in [p.left, *p.comparators]
               for n in ast.walk(x)):
            raise ResultsError(f"{what}: '{text}': a comparison inside arithmetic")
    programs = {k: program_name(v, norm_options(o or "")) for k, (v, o) in names.items()}
    return body, programs


def _compare(body, env):
    """(holds, 'left vs. right; ...') of a parsed `holds`. Raises ZeroDivisionError."""
    ok, said = True, []
    for p in (body.values if isinstance(body, ast.BoolOp) else [body]):
        sides = [_eval(x, env) for x in [p.left, *p.comparators]]
        for op, a, b in zip(p.ops, sides, sides[1:]):
            ok = ok and COMPARE[type(op)](a, b)
            said.append(f"{a:.4g} vs. {b:.4g}")
    return ok, "; ".join(said)


# ---- evidence.toml ----------------------------------------------------------------------

def read_toml(path):
    """(dict, at) of a TOML file; at(table, key) is 'file:line' of `key =` in [table] (or
    'file'), for an error line. A syntax fault is one ResultsError with line and column."""
    name = rel(path)
    text = read_text(path, data_file=False)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(e))
        raise ResultsError(f"{name}:{m.group(2)}:{m.group(3)}: {m.group(1)}" if m
                           else f"{name}: {e}")

    def at(table, key):
        current = None
        for i, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if line.startswith("["):
                current = line.split("]")[0].strip("[ ")
            elif current == table and re.match(re.escape(key) + r"\s*=", line):
                return f"{name}:{i}"
        return name
    return doc, at


def check_record(rec, at):
    """[record] (what `make evidence` records) as {size, sass, options}."""
    if not isinstance(rec, dict):
        raise ResultsError(f"{at('', 'record')}: [record] must be a table")
    unknown = sorted(set(rec) - {"size", "sass", "options", "smaller"})
    if unknown:
        raise ResultsError(f"{at('record', unknown[0])}: [record] unknown key {unknown[0]}")
    size, sass, options = rec.get("size"), rec.get("sass", []), rec.get("options", [])
    if size is not None and (type(size) is not int or size <= 0):
        raise ResultsError(f"{at('record', 'size')}: [record] size = {size!r}: "
                           "must be a positive integer")
    for key, lst in (("sass", sass), ("options", options)):
        if not isinstance(lst, list) or not all(isinstance(x, str) and x.strip() for x in lst):
            raise ResultsError(f"{at('record', key)}: [record] {key} must be a list of strings")
    bad = next((p for p in sass if not re.fullmatch(r"[A-Z][A-Z0-9_.]*", p)), None)
    if bad is not None:
        raise ResultsError(f"{at('record', 'sass')}: [record] sass: '{bad}' is not an opcode")
    smaller = rec.get("smaller")
    if smaller is not None and (not isinstance(smaller, str) or len(smaller.split()) < 3):
        raise ResultsError(f"{at('record', 'smaller')}: [record] smaller must say, in words, why "
                           "the profile is not taken at the timed size")
    return {"size": size, "sass": sass, "options": options, "smaller": smaller}


def read_record(chapter_dir):
    """The [record] of a chapter's evidence.toml (scripts/evidence_parse.py's context), or
    None without one."""
    path = os.path.join(chapter_dir, "evidence.toml")
    if not os.path.isfile(path):
        return None
    doc, at = read_toml(path)
    return check_record(doc.get("record", {}), at)


def read_spec(chapter):
    """The chapter's evidence.toml as {'prediction', 'record', 'claims'}; None without one.
    A chapter that has one states its prediction and at least one claim (DESIGN.md)."""
    path = os.path.join(chapter.dir, "evidence.toml")
    if not os.path.isfile(path):
        return None
    name = rel(path)
    doc, at = read_toml(path)
    unknown = set(doc) - {"prediction", "record", "claim"}
    if unknown:
        raise ResultsError(f"{name}: unknown table(s) {', '.join(sorted(unknown))}")
    spec = {"path": name, "prediction": None, "record": check_record(doc.get("record", {}), at),
            "claims": []}
    p = doc.get("prediction")
    if not isinstance(p, dict):
        raise ResultsError(f"{name}: [prediction] is missing: the expected speedup, and why")
    s = p.get("speedup")
    # A range that cannot miss is no prediction: bool is an int to Python, inf and 1e-300 are
    # floats, [1, inf] holds for every program that is not slower.
    if not (isinstance(s, list) and len(s) == 2 and
            all(type(x) in (int, float) and math.isfinite(x) for x in s) and
            LOWEST_SPEEDUP <= s[0] <= s[1] <= WIDEST_RANGE * s[0]):
        raise ResultsError(f"{at('prediction', 'speedup')}: [prediction] speedup = {s!r}: must "
                           f"be [LOW, HIGH], finite numbers, {LOWEST_SPEEDUP:g} <= LOW <= HIGH "
                           f"<= {WIDEST_RANGE:g} x LOW")
    if not isinstance(p.get("because"), str) or not p["because"].strip():
        raise ResultsError(f"{at('prediction', 'because')}: [prediction] needs 'because', "
                           "the reason in a sentence")
    redesigned = p.get("redesigned")
    if redesigned is not None and (not isinstance(redesigned, str) or len(redesigned.split()) < 3):
        raise ResultsError(f"{at('prediction', 'redesigned')}: [prediction] redesigned must say, "
                           "in words, what changed in the programs")
    spec["prediction"] = {"speedup": [float(s[0]), float(s[1])], "because": p["because"],
                          "redesigned": redesigned}
    claims = doc.get("claim", [])
    if not isinstance(claims, list) or not claims:
        raise ResultsError(f"{name}: no claims: each is a [[claim]] table")
    for i, c in enumerate(claims, start=1):
        what = f"{name}: claim {c.get('id', i)}"
        if not isinstance(c, dict):
            raise ResultsError(f"{what}: claims are [[claim]] tables")
        shared = ("part" in c or "whole" in c)
        for key in ("id", "says", "holds") + (("part", "whole") if shared else ("value",)):
            if not isinstance(c.get(key), str) or not c[key].strip():
                raise ResultsError(f"{what}: '{key}' is missing (a string)")
        extra = set(c) - {"id", "says", "value", "holds", "part", "whole", "symmetric",
                          "observation"}
        if extra:
            raise ResultsError(f"{what}: unknown key(s) {', '.join(sorted(extra))}")
        if shared and "value" in c:
            raise ResultsError(f"{what}: a claim about a part of a whole has 'part' and 'whole' "
                               "(its value is part / whole), not 'value'")
        if "symmetric" in c and (not isinstance(c["symmetric"], str) or not c["symmetric"].strip()):
            raise ResultsError(f"{what}: 'symmetric' is the reason the claim holds both ways "
                               "(a sentence)")
        if "observation" in c and (not isinstance(c["observation"], str)
                                   or not c["observation"].strip()):
            raise ResultsError(f"{what}: 'observation' is the reason the claim is no prediction, "
                               "though its commit precedes its numbers (a sentence)")
        if any(x["id"] == c["id"] for x in spec["claims"]):
            raise ResultsError(f"{what}: the id is used twice")
        c = dict(c, _key=history.claim_key(c))
        if shared:
            c["value"] = f"({c['part']}) / ({c['whole']})"
            c["_part"], c["_whole"] = parse_value(c["part"], what), parse_value(c["whole"], what)
        value = parse_value(c["value"], what)
        if not shared and _share_of_time(value):
            raise ResultsError(f"{what}: '{c['value']}' is a share of the program's time: "
                               "declare 'part' and 'whole' so that both sides are checked")
        holds = parse_holds(c["holds"], what)
        spec["claims"].append(dict(c, _value=value, _holds=holds))
    return spec


def _share_of_time(parsed):
    """A value X / (... result:median_us ...): a part of the program's time, by its form."""
    tree, names = parsed
    body = tree.body
    return (isinstance(body, ast.BinOp) and isinstance(body.op, ast.Div) and
            any(isinstance(n, ast.Name) and names[n.id] == ("result", "median_us")
                for n in ast.walk(body.right)))


# ---- evaluation -------------------------------------------------------------------------

def _knobs(text):
    return dict(kv.split("=", 1) for kv in text.split(";") if "=" in kv)


def result_row(data, slug, number, variant, options):
    """The results row of a program: the default row, or the sweeps row whose knobs are the
    default's with `options` (--knob value ...) applied."""
    main = [r for r in data.chapter_rows(slug, number) if r["variant"] == variant]
    if not options:
        return main[0] if main else None
    words = options.split()
    if not main or len(words) % 2 or not all(w.startswith("--") for w in words[::2]):
        return None
    want = dict(_knobs(main[0]["knobs"]))
    want.update({k[2:]: v for k, v in zip(words[::2], words[1::2])})
    for r in data.chapter_rows(slug, number, sweeps=True):
        if r["variant"] == variant and _knobs(r["knobs"]) == want:
            return r
    return None


def program_value(data, slug, number, parsed, program):
    """A claim's value expression on one program of one GPU. Raises Missing."""
    tree, names = parsed
    variant, _, options = program.partition("[")
    options = options.rstrip("]")
    rows = [r for r in data.evidence.get(slug, []) if int(r["chapter"]) == number
            and r["variant"] == variant and r["options"] == options]
    env = {key: metric_value(data, slug, number, program, tool, metric, rows)
           for key, (tool, metric) in names.items()}
    return _eval(tree, env)


def metric_value(data, slug, number, program, tool, metric, rows=None):
    """One number a claim reads: a recorded counter of a program, or a field of its results row
    (tool "result"). Raises Missing."""
    variant, _, options = program.partition("[")
    options = options.rstrip("]")
    if tool in ("result", "knob"):
        # knob:NAME: the value the program ran with (its results row's knobs; an expression
        # writes a knob's '-' as '_', knob:min_blocks).
        r = result_row(data, slug, number, variant, options)
        got = None if r is None else r[metric] if tool == "result" else \
            _knobs(r["knobs"]).get(metric.replace("_", "-"))
        if got in (None, ""):
            raise Missing(f"{program} {tool}:{metric}")
        return float(got)
    if rows is None:
        rows = [r for r in data.evidence.get(slug, []) if int(r["chapter"]) == number
                and r["variant"] == variant and r["options"] == options]
    if tool == "record":
        if not rows:
            raise Missing(f"{program} record:{metric}")
        return float(rows[0][metric])
    hit = next((r for r in rows if r["tool"] == tool and r["metric"] == metric), None)
    if hit is None:
        raise Missing(f"{program} {tool}:{metric}")
    return hit["value"]


def metric_unit(data, slug, number, tool, metric):
    """The unit a recorded counter was written with ('' if none), or a results field's."""
    if tool == "result":
        return "µs" if metric.endswith("_us") else "%" if metric == "pct_roof" else "rate"
    hit = next((r for r in data.evidence.get(slug, []) if int(r["chapter"]) == number
                and r["tool"] == tool and r["metric"] == metric), None)
    return hit["unit"] if hit else ""


def claim_verdict(data, slug, number, claim):
    """{'verdict', 'values' (program -> value), 'why'} of one claim on one GPU. A claim that
    holds but could not have failed (claim_problems) is 'refused'."""
    body, programs = claim["_holds"]
    values = {}
    try:
        for p in dict.fromkeys(programs.values()):
            values[p] = program_value(data, slug, number, claim["_value"], p)
        for p in values if "_part" in claim else []:
            part = program_value(data, slug, number, claim["_part"], p)
            whole = program_value(data, slug, number, claim["_whole"], p)
            if not part <= PART_NOISE * whole:
                return {"verdict": MISSED, "values": values,
                        "why": f"{p}: the part ({claim['part']}) {part:.4g} is more than the whole "
                               f"({claim['whole']}) {whole:.4g}, beyond the 3% of noise"}
    except Missing as e:
        return {"verdict": NOT_RECORDED, "values": values, "why": f"nothing recorded for {e}"}
    except ZeroDivisionError:
        return {"verdict": UNDEFINED, "values": values, "why": "division by zero"}
    env = {k: values[p] for k, p in programs.items()}
    try:
        ok, said = _compare(body, env)
    except ZeroDivisionError:
        return {"verdict": UNDEFINED, "values": values, "why": "division by zero"}
    problems = claim_problems(data, slug, number, claim, values) if ok else []
    if problems:
        return {"verdict": REFUSED, "values": values, "why": "; ".join(problems)}
    return {"verdict": HELD if ok else MISSED, "values": values,
            "why": f"{claim['holds']}: {said}"}


# ---- claims that can fail -----------------------------------------------------------------

def counterpart(program):
    """naive[o] <-> optimized[o]; a library program has none (itself)."""
    variant, _, rest = program.partition("[")
    other = {"naive": "optimized", "optimized": "naive"}.get(variant, variant)
    return other + ("[" + rest if rest else "")


def zero_test(claim, values):
    """'left vs. right; ...' if the claim holds whichever one of its programs reads nothing
    (all that program's values zero, the others as measured), else None. naive >= 4 *
    optimized with a measured optimized of 0 holds at naive 0 too: it holds for any naive.
    (Zeroing every program at once would refuse every naive >= k * optimized at 0 >= 0, where
    the two are equal: that case is the swap test's.) A claim about one program against a
    constant must fail with that program at zero: optimized == 0 alone cannot fail on a
    counter that reads nothing."""
    tree, names = claim["_value"]
    body, programs = claim["_holds"]
    try:
        zero = _eval(tree, {k: 0.0 for k in names})
    except ZeroDivisionError:
        return None
    said = []
    for p in values:
        env = {k: zero if q == p else values[q] for k, q in programs.items()}
        try:
            ok, s = _compare(body, env)
        except ZeroDivisionError:
            return None
        if not ok:
            return None
        said.append(f"{p} at 0: {s}")
    return "; ".join(said)


def swap_test(data, slug, number, claim, values):
    """'left vs. right' if the claim still holds with its programs swapped, else None (also
    where the swap cannot be evaluated). Two programs: their values are exchanged (naive
    against optimized, or naive[--literal 1] against naive). One program, or more than two:
    each is read on its counterpart (naive[o] <-> optimized[o]); a claim about the optimized
    program against a constant must fail on the naive program. Where a counterpart has nothing
    recorded (a host figure only one program measures) the swap cannot be made, and only the
    zero test applies."""
    body, programs = claim["_holds"]
    names = list(values)
    if len(names) == 2:
        swapped = {names[0]: values[names[1]], names[1]: values[names[0]]}
    else:
        swapped = {}
        for p in names:
            q = counterpart(p)
            try:
                swapped[p] = values[q] if q in values else \
                    program_value(data, slug, number, claim["_value"], q)
            except (Missing, ZeroDivisionError):
                return None
        if all(counterpart(p) == p for p in names):
            return None
    try:
        ok, said = _compare(body, {k: swapped[p] for k, p in programs.items()})
    except ZeroDivisionError:
        return None
    return said if ok else None


def claim_problems(data, slug, number, claim, values):
    """Why a claim that holds here cannot tell the mechanism apart: it holds with every value
    at zero (no exemption: restate it against a nonzero floor, or state both sides), or it holds
    with naive and optimized swapped (unless it says why it holds both ways: symmetric = "...")."""
    out = []
    z = zero_test(claim, values)
    if z is not None:
        out.append(f"it holds whichever program reads zero ({z}): it cannot fail on a counter "
                   "that reads nothing; compare with a nonzero floor or state both sides")
    if "symmetric" not in claim:
        s = swap_test(data, slug, number, claim, values)
        if s is not None:
            out.append(f"it still holds with naive and optimized swapped ({s}): it cannot tell "
                       "them apart; state the difference, or say why it holds both ways "
                       "(symmetric = \"...\")")
    return out


def claim_reads(claim):
    """(tool, metric) of every number the claim reads."""
    return {names for names in claim["_value"][1].values()}


def claim_kind(data, number, claim):
    """{'kind': mechanism | observation, 'committed', 'first_recorded' (ISO dates or None),
    'why'}: a mechanism claim was committed, in its current form, before the first number it
    reads was recorded on any GPU (for a redesigned chapter: for its current sources;
    scripts/guide/history.py)."""
    if "_kind" in claim:
        return claim["_kind"]
    if "observation" in claim:
        # The author's word that the claim's numbers were known when it was written (measured
        # by hand, say): the dates cannot show that, so the claim says so; it only ever demotes.
        claim["_kind"] = {"kind": OBSERVATION, "committed": None, "first_recorded": None,
                          "why": claim["observation"]}
        return claim["_kind"]
    h = history.history()
    if not h.available:
        # No history here (a shallow clone, a tarball): the kind recorded where there was one.
        if not hasattr(data, "kinds"):
            data.kinds = history.recorded_kinds(data.results_dir, data.chapters)
        kept = data.kinds.get((number, claim.get("id"), history.key_id(claim["_key"])))
        if kept:
            claim["_kind"] = dict(kept, why=f"as results/{history.KINDS_FILE} records it ({h.why})")
            return claim["_kind"]
    spec = data.specs.get(number) or {}
    committed = h.committed(spec.get("path"), claim["_key"]) if h.available else None
    # A redesigned chapter (its [prediction] says what changed) is judged against the numbers of
    # its current sources only: the old programs' numbers said nothing about the new ones. Any
    # other chapter against the first number ever recorded, so that a small edit to the
    # sources cannot turn a claim written after measuring into a prediction.
    c = data.chapters.get(number)
    source = c.hash if c and (spec.get("prediction") or {}).get("redesigned") else None
    first = h.first_recorded(number, claim_reads(claim), source) if h.available else None
    iso = (lambda d: d.isoformat().replace("+00:00", "Z") if d else None)
    if not h.available:
        kind, why = OBSERVATION, h.why
    elif committed is None:
        kind, why = OBSERVATION, "not committed in this form"
    elif first is None or committed < first:
        kind, why = MECHANISM, "committed before the first number it reads was recorded"
    else:
        kind, why = OBSERVATION, "committed after the first number it reads was recorded"
    claim["_kind"] = {"kind": kind, "committed": iso(committed), "first_recorded": iso(first),
                      "why": why}
    return claim["_kind"]


def speedup(data, slug, number):
    rows = {r["variant"]: r for r in data.chapter_rows(slug, number)}
    n, o = rows.get("naive"), rows.get("optimized")
    if not (n and o and n["median_us"] and o["median_us"]):
        return None
    return float(n["median_us"]) / float(o["median_us"])


def prediction_verdict(data, slug, number):
    spec = data.specs.get(number)
    if not spec or not spec["prediction"]:
        return None
    s = speedup(data, slug, number)
    lo, hi = spec["prediction"]["speedup"]
    if s is None:
        return {"verdict": NOT_MEASURED, "speedup": None, "range": [lo, hi]}
    return {"verdict": HELD if lo <= s <= hi else MISSED, "speedup": s, "range": [lo, hi]}


def profile_size(data, slug, number):
    """(profiled, timed, reason) of a chapter on one GPU: the size its ncu evidence was taken at,
    the size its default row was timed at, and the [record] smaller reason (None without one);
    None where either is not recorded. A profile of a smaller run describes a different run (a
    working set that fits the L2, a gap that closes), so a difference must say why."""
    rec = data.specs.get(number, {}).get("record") if data.specs.get(number) else None
    ncu = [r for r in data.evidence.get(slug, []) if int(r["chapter"]) == number
           and r["tool"] == "ncu"]
    timed = result_row(data, slug, number, "naive", "")
    if not ncu or timed is None:
        return None
    return int(ncu[0]["size"]), int(timed["size"]), (rec or {}).get("smaller")


def has_evidence(data, slug, number):
    return any(int(r["chapter"]) == number for r in data.evidence.get(slug, []))


def stale_evidence(data):
    """(file, line, chapter, program, recorded hash, current hash) of every stale row."""
    out = []
    for rows in data.evidence.values():
        for r in rows:
            c = data.chapters[int(r["chapter"])]
            if r["source_hash"] != c.hash:
                out.append((r["_file"], r["_line"], c, program_name(r["variant"], r["options"]),
                            r["source_hash"], c.hash))
    return out


def write_evidence(path, rows):
    """Rows in a stable order: chapter, program, tool, metric."""
    def key(r):
        return (int(r["chapter"]), VARIANTS.index(r["variant"]), r["options"],
                TOOLS.index(r["tool"]), r["metric"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in sorted(rows, key=key):
            w.writerow([r[c] if c != "value" else r["_text"] for c in COLUMNS])
