#!/usr/bin/env python3
"""viper-replay --seek-test (issue 13): the GUI's seek by checkpoints, headless.

For every paradigm with a model, a trace is replayed to the end with a
checkpoint every 5 trams, then sought to 40 points (clocks and step counts,
forward and backward, the first and the last tram, past the end); at each
the state document - and, with --history, the history and its index - must
equal a replay from the start with the same stop.  Each run must have
restored model checkpoints (the paradigm has the hook).  Also: the usage
errors, and --seek-bench printing its figures.  Back (as the GUI computes it):
from stops by clock the clock goes strictly back and each state is the one of
--until there; from a stop by steps it is --steps=K-1.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok -", what)
    else:
        failed += 1
        print("not ok -", what)


def seek_test(args, name, paradigm, trace, setup=None, extra=()):
    cmd = [args.viper_replay, "--paradigm=" + paradigm, "--quiet", "--seek-test=40", "--seek-every=5"]
    if setup:
        cmd.append("--setup=" + setup)
    r = subprocess.run(cmd + list(extra) + [trace], capture_output=True, text=True, timeout=300)
    m = re.search(r"(\d+) checkpoints every", r.stdout)
    check(r.returncode == 0 and "seek: 0 of 40 states differ from a replay from the start" in r.stdout,
          "%s: 40 seeks equal a replay from the start (%s)" % (name, (r.stdout + r.stderr).strip()[-400:]))
    check(m and int(m.group(1)) > 0 and "model checkpoints: yes" in r.stdout,
          "%s: model checkpoints were taken" % name)
    # Back from stops by clock goes back in time (strictly earlier clocks, the
    # states of --until there), from a stop by steps to --steps=K-1
    b = re.search(r"seek: (\d+) presses of Back, (\d+) states wrong", r.stdout)
    check(b and int(b.group(1)) > 0 and b.group(2) == "0",
          "%s: Back never moves the clock forward (%s)" % (name, b.group(0) if b else r.stderr.strip()[-400:]))


def state_modules(args, name, paradigm, trace, setup=None):
    """Every module of --state-out has id, name and offset (spec section 5), whatever the paradigm."""
    cmd = [args.viper_replay, "--paradigm=" + paradigm, "--quiet", "--state-out=-"]
    if setup:
        cmd.append("--setup=" + setup)
    r = subprocess.run(cmd + [trace], capture_output=True, text=True, timeout=300)
    try:
        mods = json.loads(r.stdout)["modules"]
    except (ValueError, KeyError):
        mods = []
    missing = [m.get("id") for m in mods if not all(k in m for k in ("id", "name", "offset"))]
    check(mods and not missing, "%s: --state-out modules have id, name and offset (%d modules, missing in %s)"
          % (name, len(mods), missing[:5]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--picl-gen", required=True)
    ap.add_argument("--lights-sim", required=True)
    ap.add_argument("--switchnet-import", required=True)
    ap.add_argument("--source-root", required=True)
    args = ap.parse_args()
    src = args.source_root
    with tempfile.TemporaryDirectory(prefix="viper-seek-") as tmp:
        for t in ("farm", "deadlock", "trackfit"):
            trace, setup = os.path.join(src, "traces", t + ".trc"), os.path.join(src, "setup", t + ".setup")
            seek_test(args, "monalisa " + t, "monalisa", trace, setup)
            seek_test(args, "monalisa %s --history=0" % t, "monalisa", trace, setup, ["--history=0"])
        seek_test(args, "monalisa farm --history=5 (trimmed)", "monalisa", os.path.join(src, "traces", "farm.trc"),
                  os.path.join(src, "setup", "farm.setup"), ["--history=5"])
        for seed in (3, 8):
            p = os.path.join(tmp, "p%d.trc" % seed)
            subprocess.run([args.picl_gen, "--procs=6", "--messages=150", "--seed=%d" % seed, "--collectives=4",
                            "--waitall=0.3", "--nonblocking=0.4", "--barriers=2", "--output=" + p], check=True,
                           timeout=60)
            seek_test(args, "picl seed %d" % seed, "picl", p)
            seek_test(args, "picl seed %d --history=0" % seed, "picl", p, None, ["--history=0"])
        # lines in time order and shuffled: a stop by clock is no prefix of the
        # run order, and Back by steps from it moved the clock forward
        for order in ("inorder", "shuffled"):
            p = os.path.join(tmp, "p-%s.trc" % order)
            subprocess.run([args.picl_gen, "--procs=6", "--messages=150", "--seed=7", "--collectives=3",
                            "--delivery=" + order, "--output=" + p], check=True, timeout=60)
            seek_test(args, "picl --delivery=%s" % order, "picl", p)
        mesh, view = os.path.join(src, "traces", "mesh3x3.trc"), os.path.join(src, "setup", "mesh3x3-topology.view")
        seek_test(args, "macrame mesh3x3", "macrame", mesh, view, ["--history=0"])
        seek_test(args, "macrame mesh3x3-malformed", "macrame", os.path.join(src, "traces", "mesh3x3-malformed.trc"),
                  view)
        lview, ltrace = os.path.join(tmp, "mesh.view"), os.path.join(tmp, "lights.trc")
        subprocess.run([args.lights_sim, "--view", "-n", "9", "-o", lview], check=True, timeout=60)
        subprocess.run([args.lights_sim, "-n", "9", "--samples", "25", "--lose=4@10", "-p", "0-1,1-2,2-5,4-3,8-0",
                        "--bytes", "60000", "-o", ltrace], check=True, timeout=60)
        seek_test(args, "lights", "lights", ltrace, lview, ["--history=0"])
        state_modules(args, "lights", "lights", ltrace, lview)
        d = os.path.join(tmp, "cplant")
        subprocess.run([sys.executable, os.path.join(src, "setup", "switchnet", "gen-switchnet.py"), "cplant", d],
                       check=True, timeout=60, capture_output=True)
        strc = os.path.join(tmp, "traffic.trc")
        subprocess.run([args.switchnet_import, "--model", os.path.join(d, "cplant.swm"), "--params",
                        os.path.join(d, "traffic.par"), "-o", strc], check=True, timeout=60, capture_output=True)
        seek_test(args, "switchnet", "switchnet", strc, os.path.join(d, "badpackets.init"), ["--history=0"])
        state_modules(args, "switchnet", "switchnet", strc, os.path.join(d, "badpackets.init"))
        state_modules(args, "macrame", "macrame", mesh, view)
        state_modules(args, "monalisa", "monalisa", os.path.join(src, "traces", "farm.trc"),
                      os.path.join(src, "setup", "farm.setup"))
        state_modules(args, "picl", "picl", os.path.join(tmp, "p3.trc"))
        # usage errors and the benchmark's figures
        r = subprocess.run([args.viper_replay, "--seek-test=3", "--listen=unix:" + os.path.join(tmp, "s")],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and "--seek-test and --seek-bench take" in r.stderr, "--seek-test with --listen: usage")
        r = subprocess.run([args.viper_replay, "--seek-bench=-1", mesh], capture_output=True, text=True, timeout=60)
        check(r.returncode == 2, "--seek-bench=-1: usage error")
        r = subprocess.run([args.viper_replay, "--paradigm=macrame", "--seek-bench=20", mesh], capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 0 and re.search(r"seek: 20 seeks, median [0-9.]+ ms, max [0-9.]+ ms \(not compared\)",
                                              r.stdout), "--seek-bench prints median and max (%s)" % r.stdout.strip())
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
