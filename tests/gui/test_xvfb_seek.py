#!/usr/bin/env python3
"""Seek and step back by checkpoints in the viper app under Xvfb (issue 13).

For the Mona Lisa Farm, a generated PICL trace and the Macrame 3x3 testbed,
the app plays to the end with a checkpoint every 7 trams
(--checkpoint-every=7), so that every seek below restores a checkpoint and
replays the logged run order from it.  Then Go to clock goes backward and
forward (across checkpoints), to the first tram and to the last; Back from
there goes back in time (--until the clock of the change before the latest),
and after Right (a step) one state change fewer; after each, the app's whole state
dump - clock, counts, offsets, pending trams and their reasons, every
module - must equal `viper-replay --state-out` with --until=CLOCK or
--steps=K, a replay from the start.  playback.json must say the seek went
by the trail (checkpoints kept, replaying behind the engine).
Exit 77 when Xvfb or xdotool are missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402
import test_xvfb_nav as N  # noqa: E402  (playback.json)

check = X.check


# the same viper-replay run and Ctrl+G dialog as test_xvfb_nav's
replay = N.replay
goto = N.goto


def same(a, b):
    """The whole state document (the app adds paradigm panels' keys we ignore)."""
    return {k: v for k, v in a.items() if k in b} == b and set(b) <= set(a)


def first_diff(a, b):
    for k in b:
        if a.get(k) != b[k]:
            return "%s: app %s, viper-replay %s" % (k, json.dumps(a.get(k))[:200], json.dumps(b[k])[:200])
    return "-"


def scenario(args, display, tmp, name, paradigm, trace, setup, fractions):
    end = replay(args, paradigm, trace, setup, [])
    first = replay(args, paradigm, trace, setup, ["--steps=1"])
    argv = [trace, "--paradigm=" + paradigm, "--speed=max", "--checkpoint-every=7"]
    if setup:
        argv.append("--setup=" + setup)
    app = X.App(args, display, argv, tmp, name)
    try:
        app.key("space")
        d = app.wait_dump("%s: the end" % name)
        while d["why"] != "end":
            d = app.wait_dump("%s: the end" % name)
        check(same(d["state"], end), "%s: the end = viper-replay's (%s)" % (name, first_diff(d["state"], end)))
        n = end["counts"]["transferred"]
        # playback.json follows on the next tick
        p = N.wait_pb(app, lambda p: p["trail"] and p["trail"]["trams"] == n, "%s: the trail of %d trams" % (name, n))
        check(p["trail"]["checkpoints"] > 0 and p["trail"]["trams"] == n,
              "%s: the trail holds the %d trams with checkpoints (%s)" % (name, end["counts"]["transferred"],
                                                                         p["trail"]))
        t0, t1 = first["clock"], end["clock"]
        clocks = ["%r" % (t0 + f * (t1 - t0)) for f in fractions] + ["%r" % t0, "%r" % t1, "%r" % (t0 + 0.5 * (t1 - t0))]
        for i, clock in enumerate(clocks):
            goto(app, clock)
            d = app.wait_dump("%s: the seek to %s" % (name, clock))
            want = replay(args, paradigm, trace, setup, ["--until=" + clock])
            check(same(d["state"], want), "%s: Go to clock %s = viper-replay --until (%s)"
                  % (name, clock, first_diff(d["state"], want)))
            if i == 0:
                p = N.wait_pb(app, lambda p: p["trail"]["replaying"], "%s: replaying the trail" % name)
                check(p["trail"]["replaying"], "%s: a seek back replays the trail behind the engine" % name)
                if args.keep:
                    X.screenshot(display, os.path.join(args.keep, "seek-%s.png" % name))
        # after a stop by clock, Back goes back in time: the clock of the
        # state change before the latest one, = viper-replay --until there
        for _ in range(3):
            prev = d["state"]["clock"]
            app.key("Left")
            d = app.wait_dump("%s: Back" % name)
            clock = d["state"]["clock"]
            want = replay(args, paradigm, trace, setup, ["--until=%r" % clock])
            check(clock < prev and same(d["state"], want), "%s: Back from clock %r to %r = viper-replay --until (%s)"
                  % (name, prev, clock, first_diff(d["state"], want)))
        # after a stop by steps, Back goes to one state change fewer
        for key in ("Right", "Right", "Left", "Left"):
            steps = d["steps"]
            app.key(key)
            d = app.wait_dump("%s: %s" % (name, key))
            k = steps + (1 if key == "Right" else -1)
            want = replay(args, paradigm, trace, setup, ["--steps=%d" % k])
            check(d["steps"] == k and same(d["state"], want), "%s: %s to %d steps = viper-replay --steps (%s)"
                  % (name, key, k, first_diff(d["state"], want)))
    finally:
        app.close()


def main():
    args = X.parse_args(["--picl-gen"], keep="directory for screenshots after the first seek back")
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-seek-")
    src = args.source_root
    picl = os.path.join(tmp, "seek.picl")
    subprocess.run([args.picl_gen, "--procs=6", "--messages=150", "--seed=7", "--collectives=3",
                    "--output=" + picl], check=True, timeout=60)
    xvfb, display = X.start_xvfb()
    try:
        scenario(args, display, tmp, "farm", "monalisa", os.path.join(src, "traces", "farm.trc"),
                 os.path.join(src, "setup", "farm.setup"), (0.6, 0.2, 0.9, 0.4))
        scenario(args, display, tmp, "picl", "picl", picl, None, (0.7, 0.3, 0.8))
        scenario(args, display, tmp, "macrame", "macrame", os.path.join(src, "traces", "mesh3x3.trc"),
                 os.path.join(src, "setup", "mesh3x3-topology.view"), (0.5, 0.1, 0.95))
    finally:
        xvfb.terminate()
        xvfb.wait()
    if X.failures:
        print("%d checks failed" % len(X.failures))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
