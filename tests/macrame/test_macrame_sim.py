#!/usr/bin/env python3
"""Simulator property tests for the Macrame paradigm, through the command line.

For many seeds, viper-macrame-sim writes a testbed trace (shuffled delivery,
skewed clocks, with and without injected bad lines and rule breakers) and the
true final state; viper-replay --paradigm=macrame replays it with a view
setup file and writes --state-out.  The replay must end in exactly the true
state of every device, report exactly the injected bad lines (each as
FILE:LINE:COLUMN on stderr) and rule breakers, and lose nothing else
(read = transferred + rejected, pending 0).  The bundled traces are checked
against their bundled truth the same way.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BUILD = os.environ.get("VIPER_BUILD_ROOT", "build")
SRC = os.environ.get("VIPER_SOURCE_ROOT", ".")
SIM = os.path.join(BUILD, "paradigms", "macrame", "viper-macrame-sim")
REPLAY = os.path.join(BUILD, "cli", "viper-replay")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect_rc:
        raise SystemExit("%s: exit %d, stderr:\n%s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    return p


def replay(view, trace, state):
    return run([REPLAY, "--paradigm=macrame", "--setup=" + view, "--state-out=" + state, trace])


def compare(label, truth_path, state_path, stderr, trace):
    truth = json.load(open(truth_path))
    state = json.load(open(state_path))
    check(state["paradigm"] == "macrame", label + ": paradigm")
    c, t = state["counts"], truth["counts"]
    for k in ("read", "transferred", "pending", "rejected", "ignored", "inconsistent"):
        check(c[k] == t[k], "%s: counts.%s %s, truth %s" % (label, k, c[k], t[k]))
    check(c["read"] == c["transferred"] + c["rejected"], label + ": read = transferred + rejected")
    check(c["pending"] == 0 and state["stuck"] == [], label + ": nothing pending")
    bad = [l for l in stderr.splitlines() if re.match(re.escape(trace) + r":\d+:\d+: ", l)]
    check(len(bad) == t["rejected"], "%s: %d bad-line reports, truth %d" % (label, len(bad), t["rejected"]))
    incons = [l for l in stderr.splitlines() if "inconsistent:" in l]
    check(len(incons) == t["inconsistent"], "%s: %d inconsistency reports, truth %d" % (label, len(incons), t["inconsistent"]))
    sm = {m["id"]: m for m in state["modules"]}
    tm = {m["id"]: m for m in truth["modules"]}
    check(sorted(sm) == sorted(tm), "%s: module ids differ (%d vs %d)" % (label, len(sm), len(tm)))
    # the truth is the generator's: it knows the states, not Viper's names and clock
    # offsets, which every module must carry (spec section 5) and which are compared apart
    check(all("name" in m and "offset" in m for m in sm.values()), label + ": every module has a name and an offset")
    sm = {i: {k: v for k, v in m.items() if k not in ("name", "offset")} for i, m in sm.items()}
    diff = [i for i in tm if sm.get(i) != tm[i]]
    check(not diff, "%s: %d devices differ, first %s: %s vs truth %s" % (
        label, len(diff), diff[:1], sm.get(diff[0]) if diff else None, tm[diff[0]] if diff else None))


def main():
    tmp = tempfile.mkdtemp(prefix="macrame-sim-")
    views = {}
    for mesh in (3, 8):
        for view in ("topology", "hardware"):
            path = os.path.join(tmp, "mesh%d-%s.view" % (mesh, view))
            run([SIM, "--mesh=%d" % mesh, "--view=" + view, "--view-out=" + path])
            views[(mesh, view)] = path
    trace = os.path.join(tmp, "t.trc")
    truth = os.path.join(tmp, "t.truth.json")
    state = os.path.join(tmp, "t.state.json")
    seen_malformed = 0
    for seed in range(1, 41):
        mesh = 8 if seed % 10 == 0 else 3
        malformed = (seed % 4) * 17
        view = "hardware" if seed % 3 == 0 else "topology"
        args = [SIM, "--mesh=%d" % mesh, "--seed=%d" % seed, "--malformed=%d" % malformed,
                "-o", trace, "--truth-out=" + truth]
        if seed % 7 == 0:
            args.append("--ordered")
        if seed % 5 == 0:
            args += ["--offset=500", "--drift=0.01", "--jitter=2"]
        run(args)
        p = replay(views[(mesh, view)], trace, state)
        compare("seed %d (mesh %d, %s, malformed %d)" % (seed, mesh, view, malformed), truth, state, p.stderr, trace)
        t = json.load(open(truth))
        seen_malformed += t["counts"]["rejected"] + t["counts"]["inconsistent"]
        # the simulator is deterministic
        if seed == 1:
            first = open(trace).read()
            run(args)
            check(open(trace).read() == first, "seed 1: the simulator is deterministic")
    check(seen_malformed > 300, "the seeds injected bad lines and rule breakers (%d)" % seen_malformed)

    # a setup naming only the switches: the nodes are of kind unknown, with their states
    only = os.path.join(tmp, "switches.view")
    with open(only, "w") as f:
        f.write("paradigm macrame\n" + "".join("module %d switch %d 0 10 10\n" % (i, 20 * i) for i in range(9)))
    run([SIM, "--seed=3", "-o", trace, "--truth-out=" + truth])
    replay(only, trace, state)
    s = json.load(open(state))
    kinds = {m["kind"] for m in s["modules"] if m["id"] >= 9}
    check(kinds == {"unknown"}, "devices the setup does not name are unknown: %s" % kinds)
    node = next(m for m in s["modules"] if m["id"] >= 9 and "tx" in m)
    check(set(node) == {"id", "name", "offset", "kind", "alive", "used", "state", "tx", "rx"}, "unknown device fields %s" % set(node))

    # the bundled traces against their bundled truth
    bundled = [("mesh3x3.trc", "mesh3x3-topology.view"), ("mesh3x3-malformed.trc", "mesh3x3-hardware.view"),
               ("mesh8x8.trc", "mesh8x8.view")]
    for trc, view in bundled:
        tpath = os.path.join(SRC, "traces", trc)
        p = replay(os.path.join(SRC, "setup", view), tpath, state)
        compare(trc, tpath.replace(".trc", ".truth.json"), state, p.stderr, tpath)

    # --strict stops at the first bad line
    p = run([REPLAY, "--paradigm=macrame", "--strict", "--setup=" + os.path.join(SRC, "setup", "mesh3x3-hardware.view"),
             os.path.join(SRC, "traces", "mesh3x3-malformed.trc")], expect_rc=1)

    if failures:
        print("%d failures" % len(failures), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
