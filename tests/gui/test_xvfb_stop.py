#!/usr/bin/env python3
"""The GUI's breakpoint and Go to clock stop where viper-replay --until stops.

A replay that reaches the end of its input with trams still pending has
reached its stop point CLOCK when no pending tram can still get an adjusted
time at or before CLOCK (spec section 5: viper-replay exits 0, not 3), e.g. a
receive past the stop whose send never comes.  The scheduler decides it
(viper_scheduler_breakpoint_reached), for viper-replay and the GUI alike: the
GUI's stop ("why" in its state dump) must be "breakpoint" exactly when
viper-replay --until=CLOCK exits 0, and "end" when it exits 3.  Before the
decision moved into the scheduler the GUI said "end" for the traces below at
0.002 while viper-replay said the stop point was reached.

Cases: the traces of tests/cli/cases/replay.json's --until cases, with
--breakpoint=CLOCK, and Go to clock (Ctrl+G) from the end to 0.002.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import json

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

TRACES = {
    # a receive at 0.001 whose send never comes; it ends at 0.003
    "orphan.trc": "-3 -901 0.0 1 0 0\n-3 -52 0.001 1 0 3 2 7 0 0\n-4 -52 0.003 1 0 4 2 64 7 0 0\n"
                  "-4 -901 0.004 1 0 0\n",
    # the send of proc 1's receive comes after proc 0's receive that never ends (at 0.005)
    "chain.trc": "-3 -901 0.0 1 0 0\n-3 -52 0.0005 1 0 3 2 7 0 0\n-4 -52 0.001 1 0 4 2 64 7 0 0\n"
                 "-3 -901 0.0 0 0 0\n-3 -52 0.001 0 0 3 2 9 3 0\n-4 -52 0.005 0 0 4 2 64 9 3 0\n"
                 "-3 -21 0.006 0 0 4 2 64 7 1 0\n-4 -21 0.007 0 0 0\n",
    # the orphan and another processor's ready tram past the stop
    "orphan-and-more.trc": "-3 -901 0.0 1 0 0\n-3 -52 0.001 1 0 3 2 7 0 0\n-4 -52 0.003 1 0 4 2 64 7 0 0\n"
                           "-4 -901 0.004 1 0 0\n-3 -901 0.0 2 0 0\n-4 -901 0.01 2 0 0\n",
}
# (trace, clock): the first three reach the stop point (exit 0), the last
# has the stuck receive's end (0.003) at or before the clock (exit 3)
CASES = [("orphan.trc", "0.002"), ("chain.trc", "0.002"), ("orphan-and-more.trc", "0.002"), ("orphan.trc", "1")]
STOPS = ("breakpoint", "end", "step", "stopped", "bad input")


def replay_says(args, trace, clock):
    """viper-replay --until=CLOCK: the stop it calls it and its counts."""
    r = subprocess.run([args.viper_replay, "-q", "--paradigm=picl", "--until=" + clock, "--state-out=-", trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    # on another status, what it said (a sanitizer's report included) goes with the failure
    X.check(r.returncode in (0, 3), "viper-replay --until=%s %s exits 0 or 3 (%d)%s"
            % (clock, os.path.basename(trace), r.returncode,
               "" if r.returncode in (0, 3) else ": " + r.stderr.decode(errors="replace")[-2000:]))
    try:
        counts = json.loads(r.stdout)["counts"]
    except ValueError:
        counts = None
    return ("breakpoint" if r.returncode == 0 else "end"), counts


def stop_after(app, n):
    """The first stop dumped after dump n."""
    return app.wait_state(lambda s: s["dumps"] > n and s["why"] in STOPS, "a stop after dump %d" % n)


def goto(app, clock):
    env = dict(os.environ, DISPLAY=app.display)
    app.key("ctrl+g")
    subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Go to clock"], env=env,
                   stdout=subprocess.DEVNULL, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "type", "--delay", "20", "--", clock], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--keep", help="directory to keep the screenshots in")
    args = ap.parse_args()
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-stop-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    for name, text in TRACES.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    xvfb, display = X.start_xvfb()
    try:
        for i, (name, clock) in enumerate(CASES):
            trace = os.path.join(tmp, name)
            want, counts = replay_says(args, trace, clock)
            app = X.App(args, display, ["--paradigm=picl", "--breakpoint=" + clock, trace], tmp, "stop-%d" % i)
            try:
                d = stop_after(app, 0)
                X.check(d["why"] == want, "%s --breakpoint=%s: the GUI stops as '%s', viper-replay --until as '%s'"
                        % (name, clock, d["why"], want))
                want_pending = counts["pending"] if counts else -1
                X.check(d["state"]["counts"]["pending"] == want_pending,
                        "%s --breakpoint=%s: %d pending, as viper-replay (%d)"
                        % (name, clock, d["state"]["counts"]["pending"], want_pending))
                X.screenshot(display, os.path.join(shots, "stop-%d-%s.png" % (i, d["why"])))
                if clock != "0.002":
                    # from the end, Go to clock 0.002 is the stop point viper-replay --until=0.002 reaches
                    want2, _ = replay_says(args, trace, "0.002")
                    goto(app, "0.002")
                    d2 = stop_after(app, d["dumps"])
                    X.check(d2["why"] == want2, "%s: Go to clock 0.002 from the end stops as '%s', viper-replay "
                            "--until=0.002 as '%s'" % (name, d2["why"], want2))
                    X.screenshot(display, os.path.join(shots, "stop-%d-goto-%s.png" % (i, d2["why"])))
            finally:
                app.close()
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
