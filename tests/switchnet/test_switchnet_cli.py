#!/usr/bin/env python3
"""switchnet end to end: the importer, viper-replay, and the paper's two analyses.

1. Bad packets from one failing cable on the generated 624-node cluster: before
   the errors start the failing port is below the minimum; after stepping to the
   end it is the one port above the maximum, drawn in the above-max colour.
2. Six jobs with fragmented allocations: every job's size, the stalled job's
   ports below the minimum and the others above, and the fragmentation (a job
   spread over rows that are not neighbours).
3. Bad input to the importer: FILE:LINE:COLUMN reports, skipped lines, --strict,
   usage errors, output errors.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ["VIPER_SOURCE_ROOT"]
BUILD = os.environ["VIPER_BUILD_ROOT"]
IMPORT = os.path.join(BUILD, "paradigms", "switchnet", "viper-switchnet-import")
REPLAY = os.path.join(BUILD, "cli", "viper-replay")
GEN = os.path.join(SRC, "setup", "switchnet", "gen-switchnet.py")

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def yellow_pixels(png, height):
    """Pixels of exactly the above-max yellow, outside the caption and legend."""
    r = run(["convert", png, "-crop", "1600x%d+0+22" % (height - 22 - 26), "+repage",
             "-fill", "black", "+opaque", "#FFFF00", "-fill", "white", "-opaque", "#FFFF00",
             "-format", "%[fx:round(mean*w*h)]", "info:"])
    return int(r.stdout.strip() or -1)


def state(path):
    with open(path) as f:
        return json.load(f)


def port(st, label, portno):
    for m in st["modules"]:
        if m["label"] == label:
            for p in m["ports"]:
                if p["port"] == portno:
                    return p
    return None


tmp = tempfile.mkdtemp(prefix="switchnet-cli-")
try:
    d = os.path.join(tmp, "cplant")
    r = run([sys.executable, GEN, "cplant", d])
    check(r.returncode == 0, "generator: %s" % r.stderr)

    # ---- 1. bad packets ----------------------------------------------------------
    trc = os.path.join(tmp, "bad.trc")
    r = run([IMPORT, "--model", os.path.join(d, "cplant.swm"), "--params", os.path.join(d, "badpackets.par"),
             "-o", trc])
    check(r.returncode == 0 and "52 switches, 20 steps, 0 bad lines" in r.stderr, "import bad packets: %s" % r.stderr)
    setup = os.path.join(d, "badpackets.init")
    early, late = os.path.join(tmp, "early.json"), os.path.join(tmp, "late.json")
    early_png, late_png = os.path.join(tmp, "early.png"), os.path.join(tmp, "late.png")
    r = run([REPLAY, "--paradigm=switchnet", "--setup=" + setup, "--until=4", "--render-size=1600x1200", "--state-out=" + early,
             "--render=animation:" + early_png, trc])
    check(r.returncode == 0, "replay to step 4: %d %s" % (r.returncode, r.stderr))
    r = run([REPLAY, "--paradigm=switchnet", "--setup=" + setup, "--render-size=1600x1200", "--state-out=" + late,
             "--render=animation:" + late_png, trc])
    check(r.returncode == 0, "replay to the end: %d %s" % (r.returncode, r.stderr))
    e, l = state(early), state(late)
    check(e["step"] == 4 and l["step"] == 19, "steps %s %s" % (e["step"], l["step"]))
    check(e["counts"]["inconsistent"] == 0 and l["counts"]["pending"] == 0, "counts %s" % l["counts"])
    fp_e, fp_l = port(e, "r12c1", 14), port(l, "r12c1", 14)
    check(fp_e is not None and fp_e["shown"] < 1, "failing port below the minimum at step 4: %s" % fp_e)
    check(fp_l is not None and fp_l["shown"] > 100, "failing port above the maximum at the end: %s" % fp_l)
    above = [(m["label"], p["port"]) for m in l["modules"] for p in m["ports"] if p["shown"] > 100]
    check(above == [("r12c1", 14)], "the failing port is the only one above the maximum: %s" % above)
    blank = [m["label"] for m in l["modules"] if not m["has_data"]]
    check(len(blank) == 52 - 5, "switches without data are blank places: %d" % len(blank))
    ye, yl = yellow_pixels(early_png, 1200), yellow_pixels(late_png, 1200)
    check(ye == 0, "no above-max colour before the errors (%d pixels)" % ye)
    check(yl >= 10, "the failing port drawn in the above-max colour (%d pixels)" % yl)

    # ---- 2. six jobs ---------------------------------------------------------------
    trc = os.path.join(tmp, "jobs.trc")
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", os.path.join(d, "traffic.par"),
             "-j", os.path.join(d, "jobs.job"), "-o", trc])
    check(r.returncode == 0, "import jobs: %s" % r.stderr)
    js = os.path.join(tmp, "jobs.json")
    r = run([REPLAY, "--paradigm=switchnet", "--setup=" + os.path.join(d, "jobs.init"), "--state-out=" + js,
             "--render=animation:" + os.path.join(tmp, "jobs.png"), trc])
    check(r.returncode == 0, "replay jobs: %s" % r.stderr)
    st = state(js)
    sizes, rows, below, above = {}, {}, set(), set()
    for m in st["modules"]:
        for p in m["ports"]:
            j = p.get("job", 0)
            if j:
                sizes[j] = sizes.get(j, 0) + 1
                rows.setdefault(j, set()).add(m["row"])
                (below if p["shown"] < 15000 else above if p["shown"] > 100000 else set()).add(j)
    check(sizes == {1: 128, 2: 100, 3: 90, 4: 64, 5: 80, 6: 50}, "job sizes %s" % sizes)
    check(below == {3}, "only the stalled job is below the minimum: %s" % below)
    check(above == {1, 2, 4, 6}, "the busy jobs are above the maximum: %s" % above)
    r3 = sorted(rows[3])
    check(any(b - a > 1 for a, b in zip(r3, r3[1:])), "job 3 is fragmented over rows %s" % r3)

    # ---- 3. bad input ---------------------------------------------------------------
    bad = os.path.join(tmp, "bad.par")
    with open(bad, "w") as f:
        f.write("r0c0.12 1 2 3\nr0c0.99 1 2 3\nr0c1.3 1 two 3\nr0c1.4 1 2\n")
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", bad, "-o", os.path.join(tmp, "b.trc")])
    check(r.returncode == 0, "bad lines are skipped, not fatal: %d" % r.returncode)
    check(bad + ":2:1: 'r0c0.99' is no port" in r.stderr, "unknown port reported: %s" % r.stderr)
    check(bad + ":3:10: expected an integer" in r.stderr, "bad value reported with its column: %s" % r.stderr)
    check(bad + ":4:11: 2 values, the file's first row has 3" in r.stderr, "short row reported: %s" % r.stderr)
    check("3 bad lines skipped" in r.stderr, "bad lines counted: %s" % r.stderr)
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", bad, "--strict", "-o", os.path.join(tmp, "c.trc")])
    check(r.returncode == 1 and not os.path.exists(os.path.join(tmp, "c.trc")), "--strict stops: %d" % r.returncode)
    r = run([IMPORT, "-p", bad])
    check(r.returncode == 2 and "--model" in r.stderr, "usage error: %d %s" % (r.returncode, r.stderr))
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", bad, "-o", "/dev/full"])
    check(r.returncode == 1 and "/dev/full" in r.stderr, "output error: %d %s" % (r.returncode, r.stderr))
    r = run([IMPORT, "-m", os.path.join(tmp, "missing.swm"), "-p", bad])
    check(r.returncode == 1 and r.stderr == "viper-switchnet-import: %s: No such file or directory\n"
          % os.path.join(tmp, "missing.swm"), "missing model, as PROG: PATH: reason: %r" % r.stderr)
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", os.path.join(tmp, "nope.par"),
             "-o", os.path.join(tmp, "n.trc")])
    check(r.returncode == 1 and r.stderr == "viper-switchnet-import: %s: No such file or directory\n"
          % os.path.join(tmp, "nope.par") and not os.path.exists(os.path.join(tmp, "n.trc")),
          "missing params, as PROG: PATH: reason, no output: %r" % r.stderr)
    # an output that cannot be written is said first, before the inputs' bad lines
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "-p", bad, "-o", os.path.join(tmp, "no", "x.trc")])
    check(r.returncode == 1 and r.stderr == "viper-switchnet-import: %s: No such file or directory\n"
          % os.path.join(tmp, "no", "x.trc"), "unwritable output said before any bad line: %r" % r.stderr)
    r = run([IMPORT, "-m", os.path.join(d, "cplant.swm"), "--route=n0,n623"])
    check(r.returncode == 0 and r.stdout.startswith("n0 r0c0.13 r12c3.14 n623"[:9]), "route printed: %s" % r.stdout)
    # without a model file nothing can replay: one usage error naming what
    # to give, not a warning per tram and exit 0 (the trial's 5,180 lines)
    for args in (["--paradigm=switchnet", "--stats"], ["--paradigm=auto"]):
        r = run([REPLAY] + args + [os.path.join(tmp, "b.trc")])
        check(r.returncode == 2 and "needs --setup=FILE" in r.stderr and ".swm" in r.stderr
              and len(r.stderr.splitlines()) <= 3 and r.stdout == "",
              "no model file %s: %d %s" % (args, r.returncode, r.stderr[:300]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
