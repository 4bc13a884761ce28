#!/usr/bin/env python3
"""`results.py doctor` (`make doctor`) on recorded files, no GPU needed: copies of the reference
GPUs' results and evidence with one planted host fault each (a slow link: chapters 11 to 14
flagged, explained by the link-h2d roof; a slow host: chapter 13 flagged, explained by one core's
memcpy; chapter 12 with slower API calls: the launch roof; a slower kernel with every figure as it was: unexplained), and the live part with a
fake nvidia-smi and a fake scripts/doctor-roofs.cu (its state and roofs printed, nothing but
queries asked, one line and exit 3 without a GPU). One PASS: or FAIL: line per assertion; exits 1
if any failed."""

import csv
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_model as tm                                             # noqa: E402

# The reference the planted copies are made from and compared with: the H200, whose files hold
# every chapter (the H100 is no longer lent, and chapters changed since then have no H100 rows).
REF, REF_SLUG, REF_SHORT = "NVIDIA H200", "nvidia-h200", "H200"
NO_GPU = "error: make doctor needs a CUDA GPU, and nvidia-smi sees none on this machine"
LINK_ROOFS = ("link-h2d", "link-d2h", "link-duplex")


def read(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def planted_tree(folder, gpu, times=None, roofs=None, host=None, roof_chapters=None):
    """results/ with the reference GPUs' files and a copy of the reference GPU's as GPU gpu, planted:
    times {(chapter, variant): factor} on the timed figures (the rate the other way), roofs
    {roof name: factor} (in the rows of roof_chapters only, where given), host {(chapter,
    metric): factor} on its default configurations' evidence."""
    os.makedirs(os.path.join(folder, "evidence"))
    for f in os.listdir(os.path.join(tm.REPO, "results")):
        if f.endswith(".csv"):
            shutil.copy(os.path.join(tm.REPO, "results", f), folder)
            shutil.copy(os.path.join(tm.REPO, "results", "evidence", f), os.path.join(folder, "evidence"))
    slug = gpu.lower().replace(" ", "-")
    header, rows = read(os.path.join(tm.REPO, "results", REF_SLUG + ".csv"))
    h = header.index
    for r in rows:
        r[h("gpu")] = gpu
        t = (times or {}).get((int(r[0]), r[h("variant")]), 1.0)
        for col in ("min_us", "q1_us", "median_us", "q3_us"):
            r[h(col)] = f"{float(r[h(col)]) * t:.3f}"
        if r[h("rate")]:
            r[h("rate")] = f"{float(r[h('rate')]) / t:.1f}"
        k = (roofs or {}).get(r[h("roof_name")], 1.0)
        if roof_chapters and int(r[0]) not in roof_chapters:
            k = 1.0
        if r[h("roof")]:
            r[h("roof")] = f"{float(r[h('roof')]) * k:.1f}"
            r[h("pct_roof")] = f"{100 * float(r[h('rate')]) / float(r[h('roof')]):.1f}"
    write(os.path.join(folder, slug + ".csv"), header, rows)
    header, rows = read(os.path.join(tm.REPO, "results", "evidence", REF_SLUG + ".csv"))
    h = header.index
    for r in rows:
        r[h("gpu")] = gpu
        k = (host or {}).get((int(r[0]), r[h("metric")]), 1.0)
        if r[h("options")] == "" and r[h("tool")] == "host" and k != 1.0:
            r[h("value")] = f"{float(r[h('value')]) * k:g}"
    write(os.path.join(folder, "evidence", slug + ".csv"), header, rows)
    return folder


def run(args, path_dir=None):
    env = dict(os.environ)
    if path_dir:
        env["PATH"] = path_dir + os.pathsep + env["PATH"]
    p = subprocess.run([sys.executable, os.path.join(tm.REPO, "scripts", "results.py"), *args],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def flagged(text):
    """(chapter NN, reference short name) -> the explanation lines under it."""
    out, key = {}, None
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("   ") and " on " in line:
            key = (line.split()[0], line.rsplit(" on ", 1)[1].rsplit(" (", 1)[0])
            out[key] = []
        elif line.startswith("      ") and key:
            out[key].append(line.strip())
    return out


def analysis(tmp, name, gpu, **plant):
    folder = planted_tree(os.path.join(tmp, name), gpu, **plant)
    rc, out, err = run(["doctor", "--gpu", gpu, "--results-dir", folder])
    tm.check(f"{name}: results.py doctor exits 0 without a GPU", rc == 0 and "Traceback" not in err,
             f"exit {rc}: {err.strip()}")
    return flagged(out), out


def against_ref(found):
    return {nn: lines for (nn, ref), lines in found.items() if ref == REF_SHORT}


def test_analysis(tmp):
    # The same figures and the same speedups as the reference's: nothing differs from it.
    found, out = analysis(tmp, "unchanged", "Test GPU same")
    tm.check("an unplanted copy of the reference GPU's files: no chapter apart from the reference", not
             against_ref(found) and "Your results" in out, out)

    # A slow link: the link roofs halved; chapter 11's naive program (the link every step)
    # slower, the optimized programs of 12 to 14 (the link-bound side) slower.
    times = {(11, "naive"): 1.6, (12, "optimized"): 1.6, (13, "optimized"): 1.6,
             (14, "optimized"): 1.6}
    found, out = analysis(tmp, "slow-link", "Test GPU slow link", times=times,
                          roofs={r: 0.5 for r in LINK_ROOFS})
    ref = against_ref(found)
    tm.check("a slow link: chapters 11 to 14 and no other flagged against the reference",
             sorted(ref) == ["11", "12", "13", "14"], out)
    for nn in ("11", "12", "13", "14"):
        lines = ref.get(nn, [])
        tm.check(f"a slow link: chapter {nn} explained by the link-h2d roof (0.50x)",
                 any(l.startswith("explained by link-h2d roof") and "(0.50x)" in l for l in lines)
                 and not any("unexplained" in l or "host:" in l for l in lines), "\n".join(lines))

    # The link slow while chapter 13 ran alone: its own rows' roof, not the file's, is its figure.
    found, out = analysis(tmp, "slow-link-once", "Test GPU slow link once",
                          times={(13, "optimized"): 1.6}, roofs={"link-h2d": 0.5}, roof_chapters={13})
    lines = against_ref(found).get("13", [])
    tm.check("a link slow during chapter 13 alone: explained by the roof its own rows measured",
             sorted(against_ref(found)) == ["13"] and lines
             and lines[0].startswith("explained by link-h2d roof"), out)

    # A slow host: one core copies at half the rate; chapter 13's naive (pageable) transfer
    # stages through one core's memcpy.
    found, out = analysis(tmp, "slow-host", "Test GPU slow host", times={(13, "naive"): 2.0},
                          host={(13, "host_memcpy_gbs"): 0.5})
    ref = against_ref(found)
    lines = ref.get("13", [])
    tm.check("a slow host: chapter 13 and no other flagged against the reference", sorted(ref) == ["13"],
             out)
    tm.check("a slow host: chapter 13 explained by one core's memcpy (host:host_memcpy_gbs, 0.50x), "
             "not by the link", len(lines) == 1 and "one core's memcpy" in lines[0]
             and "host:host_memcpy_gbs" in lines[0] and "(0.50x)" in lines[0], "\n".join(lines))

    # Chapter 12's naive program: a call per piece; slower calls (the launch roof halved).
    found, out = analysis(tmp, "slow-calls", "Test GPU slow calls", times={(12, "naive"): 2.0},
                          roofs={"launch-stream": 0.5})
    lines = against_ref(found).get("12", [])
    tm.check("slow API calls: chapter 12 explained by the launch-stream roof (0.50x)",
             any(l.startswith("explained by launch-stream roof") and "(0.50x)" in l for l in lines),
             out)

    # A slower kernel on the same roofs, clocks and host: no figure accounts for it.
    found, out = analysis(tmp, "unexplained", "Test GPU slower kernel", times={(20, "optimized"): 2.0})
    lines = against_ref(found).get("20", [])
    tm.check("a kernel twice as slow with every figure as it was: 'unexplained: report it', "
             "naming the figures compared", len(lines) == 1
             and lines[0].startswith("unexplained: report it") and "copy roof" in lines[0]
             and "SM clock" in lines[0], out)


def fake_tools(folder, smi_line, roofs_text, roofs_rc=0):
    """An nvidia-smi that records its arguments and answers a query with smi_line (None: finds
    no GPU), and a doctor-roofs that prints roofs_text."""
    os.makedirs(folder)
    smi = os.path.join(folder, "nvidia-smi")
    with open(smi, "w") as f:
        f.write(f"#!/bin/sh\necho \"$*\" >>'{folder}/calls'\n"
                + (f"echo '{smi_line}'\n" if smi_line else "echo 'NVIDIA-SMI has failed' >&2\nexit 9\n"))
    prog = os.path.join(folder, "doctor-roofs")
    with open(prog, "w") as f:
        f.write(f"#!/bin/sh\nprintf '{roofs_text}'\n"
                + (f"echo 'make doctor: error: no CUDA GPU on this machine' >&2\nexit {roofs_rc}\n"
                   if roofs_rc else ""))
    for p in (smi, prog):
        os.chmod(p, 0o755)
    return folder, prog


def test_live(tmp):
    state = "NVIDIA H100 80GB HBM3, 1755, 1980, 0x0000000000000004, Disabled, 4, 5, 8, 16, 580.159.04"
    roofs = ("gpu NVIDIA H100 80GB HBM3\\ncopy 3061.0\\nsm-clock 1755\\nlink-h2d 27.6\\n"
             "link-d2h 27.5\\nlaunch-stream 270.1\\nlaunch-graph 1250.3\\nhost-memcpy 9.61\\n")
    folder, prog = fake_tools(os.path.join(tmp, "live"), state, roofs)
    # The reference columns from a fixture, not from whichever rows results/ holds today: the
    # H200's files as they are (link roof about twice this machine's, copy roof 1.4 times), and
    # an H100 file made from them whose link roof is a quarter of the H200's (about half this
    # machine's: a mark below) and whose copy roof is this machine's (no mark).
    header, rows = read(os.path.join(tm.REPO, "results", REF_SLUG + ".csv"))
    copies = sorted(float(r[header.index("roof")]) for r in rows
                    if r[header.index("roof_name")] == "copy")
    fixture = planted_tree(os.path.join(tmp, "live-results"), "NVIDIA H100 80GB HBM3",
                           roofs={"copy": 3061.0 / copies[len(copies) // 2], "link-h2d": 0.25})
    rc, out, err = run(["doctor", "--roofs", prog, "--results-dir", fixture], folder)
    want = ["GPU               NVIDIA H100 80GB HBM3", "1755 MHz now, 1755 MHz under load",
            "1980 MHz at most", "clock limits now  software power cap", "persistence mode  Disabled",
            "PCIe gen 4 x8 now, gen 5 x16 at most", "580.159.04", "host CPU", "Your results"]
    tm.check("the live part: GPU, clocks now and under load, throttle reasons, persistence, the "
             "link's generation and width, driver, CPU", rc == 0 and all(w in out for w in want),
             f"exit {rc}: {out}{err}")
    link = next((l for l in out.splitlines() if l.strip().startswith("link-h2d roof")), "")
    copy = next((l for l in out.splitlines() if l.strip().startswith("copy roof")), "")
    def marks(line, mine):
        """(reference value, marked) for each reference column of a roof line that has a value;
        None where this machine's own column is not MINE."""
        cols = [c.strip() for c in line.split("  ") if c.strip()]
        if len(cols) < 3 or cols[1] != mine:
            return None
        return [(float(c.rstrip(" !")), c.endswith("!")) for c in cols[2:] if c != "-"]

    def marked_right(pairs, mine):
        """every reference value more than 1.2x from MINE marked !, every other one not."""
        return pairs is not None and all(m == (max(v / mine, mine / v) > 1.2) for v, m in pairs)
    # A link roof about twice one reference's and about half the other's is marked beside both
    # (apart either way); the copy roof is marked beside the H200's and not beside its equal.
    lk, cp = marks(link, "27.6"), marks(copy, "3061")
    tm.check("the live part: a link roof half one reference GPU's and twice another's is marked ! "
             "beside both, a copy roof within 1.2x is not", marked_right(lk, 27.6)
             and any(m and v > 27.6 for v, m in lk) and any(m and v < 27.6 for v, m in lk)
             and marked_right(cp, 3061.0) and any(not m for _, m in cp)
             and any(m for _, m in cp), out)
    with open(os.path.join(folder, "calls")) as f:
        calls = f.read().splitlines()
    tm.check("it changes no setting: nvidia-smi is asked --query-gpu alone",
             calls and all(c.startswith("--query-gpu=") and c.endswith("--format=csv,noheader,nounits")
                           for c in calls), "\n".join(calls))

    for name, smi, rc_prog in (("nvidia-smi finds no GPU", None, 0),
                               ("nvidia-smi names a GPU that CUDA cannot open", state, 3)):
        folder, prog = fake_tools(os.path.join(tmp, name.replace(" ", "-")), smi, "", rc_prog)
        rc, out, err = run(["doctor", "--roofs", prog], folder)
        tm.check(f"{name}: one line, exit 3", rc == 3 and out == "" and err == NO_GPU + "\n",
                 f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run(["doctor", "--roofs"])
    tm.check("a bad command line: exit 2", rc == 2 and err.startswith("error: doctor takes"), err)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_analysis(tmp)
        test_live(tmp)
    return 1 if tm.failed else 0


if __name__ == "__main__":
    sys.exit(main())
