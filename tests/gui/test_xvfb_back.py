#!/usr/bin/env python3
"""Back after a stop by clock in the viper app under Xvfb (finding 4).

A PICL trace whose lines are shuffled: the run transfers trams out of time
order, so the trams of a stop by clock (every tram at or before it) are no
prefix of the run order.  Back used to go to one state change fewer in the
run order - a prefix that held trams later than the breakpoint, so the clock
moved forward (0.01 -> 0.0104994 in the trial).

Scenario breakpoint: --breakpoint=B stops at B (= viper-replay --until=B);
then Left, Left, Left and BackSpace (app.back's keys): every
dumped clock is strictly less than the one before and at most B, and every
state is viper-replay --until=CLOCK's (Back went back in time).  Right then
steps forward (the clock moves on), and Space (Go) stops at the breakpoint
again: Back left it ahead.  The status line names each stop: "breakpoint",
"back" after Back (not the breakpoint the seek armed), "went to clock".

Scenario goto: Go to clock G (Ctrl+G), then Left three times: the same.

Synchronisation: the app writes state.json after the frame that shows a
stop or a seek; the test polls it.  Exit 77 when Xvfb or xdotool are missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402
import test_xvfb_nav as N  # noqa: E402  (viper-replay, Go to clock)
import test_xvfb_seek as S  # noqa: E402  (whole-state comparison)

check = X.check


def wait_why(app, why, what, most=20):
    """The first dump that says why (at most `most` dumps)."""
    for _ in range(most):
        d = app.wait_dump(what)
        if d["why"] == why:
            return d
    raise SystemExit("no dump with why=%s for %s" % (why, what))


def backs(args, app, trace, label, d, limit, keys, shots=None):
    """Press each of keys (one Back each); the clock goes strictly down, stays
    at most limit, and the state is viper-replay --until=CLOCK's."""
    prev = d["state"]["clock"]
    for i, key in enumerate(keys):
        app.key(key)
        d = app.wait_dump("%s: Back %d (%s)" % (label, i + 1, key))
        clock = d["state"]["clock"]
        if clock is None:
            check(False, "%s: Back %d went to the start (too few state changes for this test)" % (label, i + 1))
            return d
        check(clock < prev and clock <= limit, "%s: Back %d (%s): clock %r -> %r (down, at most %r)"
              % (label, i + 1, key, prev, clock, limit))
        want = N.replay(args, "picl", trace, None, ["--until=%r" % clock])
        check(S.same(d["state"], want), "%s: Back %d: state = viper-replay --until=%r (%s)"
              % (label, i + 1, clock, S.first_diff(d["state"], want)))
        sub = d["ui"]["subtitle"] or ""
        check("\u00b7 back \u00b7" in sub and "breakpoint" not in sub,
              "%s: Back %d: the status line says back, not breakpoint (%r)" % (label, i + 1, sub))
        if shots and i == 0:
            X.screenshot(app.display, os.path.join(shots, "back-%s-1.png" % label))
        prev = clock
    return d


def scenario_breakpoint(args, display, tmp, trace, t0, t1, shots):
    bp = "%r" % (t0 + 0.4 * (t1 - t0))
    at_bp = N.replay(args, "picl", trace, None, ["--until=" + bp])
    app = X.App(args, display, [trace, "--paradigm=picl", "--speed=max", "--breakpoint=" + bp], tmp, "bp")
    try:
        d = wait_why(app, "breakpoint", "the breakpoint stop")
        check(S.same(d["state"], at_bp), "breakpoint %s: state = viper-replay --until (%s)"
              % (bp, S.first_diff(d["state"], at_bp)))
        check("\u00b7 breakpoint \u00b7" in (d["ui"]["subtitle"] or ""),
              "the status line says breakpoint (%r)" % d["ui"]["subtitle"])
        if shots:
            X.screenshot(display, os.path.join(shots, "back-bp-0.png"))
        d = backs(args, app, trace, "bp", d, float(bp), ["Left", "Left", "Left", "BackSpace"], shots)
        back_clock = d["state"]["clock"]
        # forward: Right steps on (the clock moves forward), Go stops at the breakpoint again
        app.key("Right")
        d = wait_why(app, "step", "the step after Back")
        check(d["state"]["clock"] > back_clock and d["state"]["clock"] <= float(bp),
              "bp: Right after Back steps forward, not past the breakpoint ahead (%r -> %r)"
              % (back_clock, d["state"]["clock"]))
        check("\u00b7 step \u00b7" in (d["ui"]["subtitle"] or ""),
              "bp: the status line says step, no longer back (%r)" % d["ui"]["subtitle"])
        app.key("space")
        d = wait_why(app, "breakpoint", "Go to the breakpoint again")
        check(S.same(d["state"], at_bp), "bp: Go after Back stops at the breakpoint again (%s)"
              % S.first_diff(d["state"], at_bp))
        check("\u00b7 breakpoint \u00b7" in (d["ui"]["subtitle"] or ""),
              "bp: and the status line says breakpoint again, not back (%r)" % d["ui"]["subtitle"])
    finally:
        app.close()


def scenario_goto(args, display, tmp, trace, t0, t1, shots):
    app = X.App(args, display, [trace, "--paradigm=picl", "--speed=max"], tmp, "goto")
    try:
        N.wait_pb(app, lambda p: p["index_done"], "the index of the run")
        for f in (0.7, 0.3):
            g = "%r" % (t0 + f * (t1 - t0))
            N.goto(app, g)
            d = app.wait_dump("the seek to %s" % g)
            want = N.replay(args, "picl", trace, None, ["--until=" + g])
            check(S.same(d["state"], want), "Go to clock %s = viper-replay --until (%s)"
                  % (g, S.first_diff(d["state"], want)))
            sub = d["ui"]["subtitle"] or ""
            check("\u00b7 went to clock \u00b7" in sub, "Go to clock %s: the status line says so (%r)" % (g, sub))
            backs(args, app, trace, "goto%s" % f, d, float(g), ["Left", "Left", "Left"], shots)
    finally:
        app.close()


def main():
    args = X.parse_args(["--picl-gen"], keep="directory for screenshots after Back")
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-back-")
    shots = args.keep
    if shots:
        os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "shuffled.picl")
    subprocess.run([args.picl_gen, "--procs=6", "--messages=150", "--seed=7", "--collectives=3",
                    "--delivery=shuffled", "--output=" + trace], check=True, timeout=60)
    t0 = N.replay(args, "picl", trace, None, ["--steps=1"])["clock"]
    t1 = N.replay(args, "picl", trace, None, [])["clock"]
    xvfb, display = X.start_xvfb()
    try:
        scenario_breakpoint(args, display, tmp, trace, t0, t1, shots)
        scenario_goto(args, display, tmp, trace, t0, t1, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
