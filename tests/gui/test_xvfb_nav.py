#!/usr/bin/env python3
"""Watching and navigating a trace in the viper app under Xvfb (issue 13).

Scenario speed: the Farm with --speed=5.  After Space the clock moves at
most 5 trace time units per wall second (it may lag, never lead); two
presses of ] (5 -> 10 -> 20) make it move faster, at most 20 per second; F plays the rest as fast as possible, and at the end
every view shows the final state - the space-time strip at the right edge
included, which stayed stale before (the probe reads it at every module).

Scenario goto-live: Ctrl+G while playing; the dialog's line follows the
clock (playback.json carries it as "goto").

Scenario seek: Go to clock (Ctrl+G, typed value, Return) forward and
backward, Back (Left: back in time after a stop by clock, one state change
fewer after a step) and a click on the timeline land on exactly the state
viper-replay reports for --until=CLOCK or --steps=K, on screen (probed
pixels) and in the app's state dump.  The same for a generated PICL trace
and the bundled Macrame 3x3 testbed (module states compared through
--state-out), so every paradigm's seek equals a fresh replay.

Scenario space-time: on a 64-rank PICL trace, Ctrl+wheel keeps the time
under the pointer where it was (within a pixel), - past the run and Home
show exactly the run [run start, clock] (the status bar's run), + zooms in, Ctrl+Shift+wheel
makes rows tall enough for a label each and the wheel then scrolls them.
On a 1,024-rank trace the rows stop shrinking at 3 px and scroll.

Synchronisation: the app writes state.json after the frame that shows a
stop and playback.json (speed, clock, timeline box, run range) when they
change; the test polls those files.  Rates are measured between polls.
Exit 77 when Xvfb, xdotool or ImageMagick are missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402  (the shared harness: Xvfb, App, probes)

check = X.check


def pb_state(app):
    return X.read_json(os.path.join(app.dir, "playback.json"))


def wait_pb(app, pred, what):
    return X.poll(lambda: (lambda p: p if p and pred(p) else None)(pb_state(app)), what, proc=app.proc)


def replay(args, paradigm, trace, setup, extra):
    cmd = [args.viper_replay, "--paradigm=" + paradigm, "--state-out=-", "--quiet"]
    if setup:
        cmd.append("--setup=" + setup)
    out = subprocess.run(cmd + extra + [trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if out.returncode not in (0, 3):
        raise SystemExit("viper-replay failed: " + out.stderr.decode())
    return json.loads(out.stdout)


def measure_rate(app, advance, t_from=None):
    """Clock advance per wall second from now (or t_from) until the clock has
    moved `advance` trace time units: returns (advance, elapsed) with elapsed
    measured from before the first read, so advance/elapsed never overstates
    the rate.  Bounded by the harness's timeout, however loaded the machine."""
    t_start = time.monotonic() if t_from is None else t_from
    first = wait_pb(app, lambda p: p["clock"] is not None, "a clock")["clock"]
    last = wait_pb(app, lambda p: p["clock"] is not None and p["clock"] - first >= advance,
                   "the clock to move %s" % advance)["clock"]
    return last - first, time.monotonic() - t_start


def scenario_speed(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    want = replay(args, "monalisa", trace, setup, [])
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--speed=5"], tmp, "speed")
    try:
        p = wait_pb(app, lambda p: p["index_done"], "the index of the run")
        check(p["speed"] == 5, "--speed=5 gives speed 5 (%s)" % p["speed"])
        check(p["trams"] == want["counts"]["transferred"], "the timeline knows M = %d trams (%s)"
              % (want["counts"]["transferred"], p["trams"]))
        t_key = time.monotonic()
        app.key("space")
        adv, el = measure_rate(app, 8, t_key)
        check(adv <= 5 * el * 1.05 + 0.01, "at speed 5 the clock moved %.2f in %.2f s (at most 5/s)" % (adv, el))
        t_key = time.monotonic()
        app.key("bracketright")
        app.key("bracketright")
        p = wait_pb(app, lambda p: p["speed"] == 20, "speed 20 after ] ]")
        adv2, el2 = measure_rate(app, 30, t_key)
        check(adv2 <= 20 * el2 * 1.05 + 0.01, "at speed 20 the clock moved %.2f in %.2f s (at most 20/s)" % (adv2, el2))
        check(adv2 / el2 > adv / el, "] ] made the clock move faster (%.2f/s -> %.2f/s)" % (adv / el, adv2 / el2))
        app.key("f")
        wait_pb(app, lambda p: p["speed"] is None, "as fast as possible after F")
        d = app.wait_dump("the end")
        while d["why"] != "end":
            d = app.wait_dump("the end")
        check(X.same_modules(d["state"], want), "at the end: module states = viper-replay's")
        X.probe(X.screenshot(display, os.path.join(shots, "nav-1-end.png")), app.layout(len(want["modules"])),
                d["state"], "played to the end (space-time strip included)")
    finally:
        app.close()


def goto(app, clock):
    """Ctrl+G, the clock typed (after --: it may be negative), Return."""
    app.key("ctrl+g")
    env = dict(os.environ, DISPLAY=app.display)
    # the dialog takes the focus once it maps; type into it then
    subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Go to clock"], env=env,
                   stdout=subprocess.DEVNULL, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "type", "--delay", "20", "--", str(clock)], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)


def goto_clock(text):
    """The clock the Go to clock dialog's line says it is at."""
    m = re.search(r"the clock is at (-?[0-9.e+-]+)\.", text or "")
    return float(m.group(1)) if m else None


def scenario_goto_live(args, display, tmp, shots):
    """Ctrl+G while playing: the dialog's "the clock is at" follows the
    clock (it said 98.584 while the title showed 105.01)."""
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--speed=5"], tmp, "goto-live")
    env = dict(os.environ, DISPLAY=display)
    try:
        wait_pb(app, lambda p: p["index_done"], "the index of the run")
        app.key("space")
        wait_pb(app, lambda p: p["clock"] is not None and p["clock"] > 2, "the clock to pass 2")
        app.key("ctrl+g")
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Go to clock"], env=env,
                       stdout=subprocess.DEVNULL, check=True, timeout=X.TIMEOUT)
        p1 = wait_pb(app, lambda p: goto_clock(p.get("goto")) is not None, "the Go to clock line")
        c1 = goto_clock(p1["goto"])
        p2 = wait_pb(app, lambda p: p["clock"] >= c1 + 3 and goto_clock(p.get("goto")) is not None
                     and goto_clock(p["goto"]) >= c1 + 2, "the dialog's clock to follow playback")
        c2 = goto_clock(p2["goto"])
        check(abs(c2 - p2["clock"]) <= 1.0, "Ctrl+G while playing: the dialog says the clock is at %s, the clock is "
              "%s (it said %s when it opened)" % (c2, p2["clock"], c1))
        X.screenshot(display, os.path.join(shots, "nav-goto-live.png"))
        subprocess.run(["xdotool", "key", "Escape"], env=env, check=True, timeout=X.TIMEOUT)
        wait_pb(app, lambda p: p.get("goto", 0) is None, "the dialog to close")
    finally:
        app.close()


def scenario_seek(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa"], tmp, "seek")
    try:
        wait_pb(app, lambda p: p["index_done"], "the index of the run")
        n_mod = len(replay(args, "monalisa", trace, setup, [])["modules"])
        for i, clock in enumerate(("50", "20", "90", "2.5", "123")):
            goto(app, clock)
            d = app.wait_dump("the seek to %s" % clock)
            want = replay(args, "monalisa", trace, setup, ["--until=" + clock])
            check(d["state"]["clock"] == want["clock"], "Go to clock %s: clock %s = viper-replay --until's %s"
                  % (clock, d["state"]["clock"], want["clock"]))
            check(X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"],
                  "Go to clock %s: state = viper-replay --until=%s" % (clock, clock))
            X.probe(X.screenshot(display, os.path.join(shots, "nav-2-seek-%d.png" % i)), app.layout(n_mod),
                    d["state"], "seek %s" % clock)
        goto(app, "60")
        d = app.wait_dump("the seek to 60")
        for k in range(3):
            # a stop by clock: Back goes back in time
            prev = d["state"]["clock"]
            app.key("Left")
            d = app.wait_dump("Back")
            clock = d["state"]["clock"]
            want = replay(args, "monalisa", trace, setup, ["--until=%r" % clock])
            check(clock < prev, "Back: clock %r -> %r" % (prev, clock))
            check(X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"],
                  "Back: state = viper-replay --until=%r" % clock)
        app.key("Right")
        d = app.wait_dump("Step")
        steps = d["steps"]
        app.key("Left")
        d = app.wait_dump("Back after Step")
        want = replay(args, "monalisa", trace, setup, ["--steps=%d" % (steps - 1)])
        check(d["steps"] == steps - 1, "Back after Step: %d -> %d state changes" % (steps, d["steps"]))
        check(X.same_modules(d["state"], want), "Back after Step: state = viper-replay --steps=%d" % (steps - 1))
        X.probe(X.screenshot(display, os.path.join(shots, "nav-3-back.png")), app.layout(n_mod), d["state"], "back")
        # a click on the timeline at 30% of its width
        p = pb_state(app)
        tl = p["timeline"]
        x = tl["x0"] + int(0.3 * (tl["x1"] - tl["x0"]))
        y = tl["y"] + 10
        t = p["run"][0] + (x - tl["x0"]) / (tl["x1"] - tl["x0"]) * (p["run"][1] - p["run"][0])
        env = dict(os.environ, DISPLAY=display)
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1", "mousemove", "1279", "1023"],
                       env=env, check=True, timeout=X.TIMEOUT)
        d = app.wait_dump("the timeline click")
        want = replay(args, "monalisa", trace, setup, ["--until=%r" % t])
        check(X.same_modules(d["state"], want) and d["state"]["clock"] == want["clock"],
              "timeline click at clock %.4g: state = viper-replay --until (clock %s)" % (t, d["state"]["clock"]))
    finally:
        app.close()


def scenario_seek_picl(args, display, tmp, shots):
    trace = os.path.join(tmp, "seek.picl")
    subprocess.run([args.picl_gen, "--procs=6", "--messages=200", "--seed=5", "--output=" + trace], check=True,
                   timeout=60)
    end = replay(args, "picl", trace, None, [])
    app = X.App(args, display, [trace, "--paradigm=picl"], tmp, "seek-picl")
    try:
        p = wait_pb(app, lambda p: p["index_done"], "the index of the PICL run")
        t0, t1 = p["run"]
        for f in (0.7, 0.2, 0.5):
            clock = "%.9g" % (t0 + f * (t1 - t0))
            goto(app, clock)
            d = app.wait_dump("the PICL seek to %s" % clock)
            want = replay(args, "picl", trace, None, ["--until=" + clock])
            check(X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"],
                  "PICL: Go to clock %s = viper-replay --until" % clock)
        check(end["counts"]["transferred"] == p["trams"], "PICL: M = %d" % p["trams"])
    finally:
        app.close()


def scenario_seek_macrame(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "mesh3x3.trc")
    setup = os.path.join(args.source_root, "setup", "mesh3x3-topology.view")
    app = X.App(args, display, [trace, "--paradigm=macrame", "--setup=" + setup], tmp, "seek-macrame")
    try:
        wait_pb(app, lambda p: p["index_done"], "the index of the Macrame run")
        for clock in ("15000", "4000", "9000"):
            goto(app, clock)
            d = app.wait_dump("the Macrame seek to %s" % clock)
            want = replay(args, "macrame", trace, setup, ["--until=" + clock])
            check(X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"],
                  "Macrame: Go to clock %s = viper-replay --until" % clock)
        prev = d["state"]["clock"]
        app.key("Left")
        d = app.wait_dump("Back")
        clock = d["state"]["clock"]
        want = replay(args, "macrame", trace, setup, ["--until=%r" % clock])
        check(clock < prev and X.same_modules(d["state"], want),
              "Macrame: Back from clock %r to %r = viper-replay --until" % (prev, clock))
    finally:
        app.close()


def st_state(app):
    return X.read_json(os.path.join(app.dir, "spacetime.json"))


def wait_st(app, pred, what):
    return X.poll(lambda: (lambda p: p if p and pred(p) else None)(st_state(app)), what, proc=app.proc)


def scenario_spacetime(args, display, tmp, shots):
    trace = os.path.join(tmp, "p64.picl")
    subprocess.run([args.picl_gen, "--procs=64", "--messages=1500", "--seed=2", "--output=" + trace], check=True,
                   timeout=60)
    app = X.App(args, display, [trace, "--paradigm=picl", "--speed=max"], tmp, "spacetime")
    env = dict(os.environ, DISPLAY=display)
    try:
        wait_pb(app, lambda p: p["index_done"], "the index")
        app.key("space")
        d = app.wait_dump("the end")
        while d["why"] != "end":
            d = app.wait_dump("the end")
        end = d["state"]["clock"]
        st = wait_st(app, lambda p: p["t1"] == end, "the space-time view at the end")
        check(st["follow"] and st["t0"] == st["run"][0] and st["t1"] == st["run"][1] == end,
              "at the end the view shows exactly the run [%s, %s]" % (st["run"][0], st["run"][1]))
        check(st["rows"] == 64, "64 rows (%d)" % st["rows"])
        # the run is the status bar's (the index's first adjusted time), not
        # the first state change: the ranks trace before their first call
        pb = pb_state(app)
        check(abs(st["run"][0] - pb["run"][0]) <= 1e-9 * (pb["run"][1] - pb["run"][0]),
              "the view's run starts where the status bar's does (%s, %s)" % (st["run"][0], pb["run"][0]))
        # Ctrl+wheel at 30% of the plot keeps the time under the pointer
        x = int(st["x0"] + 0.3 * (st["x1"] - st["x0"]))
        y = st["origin"][1] + 40
        t_at = lambda p: p["t0"] + (x - p["x0"]) / (p["x1"] - p["x0"]) * (p["t1"] - p["t0"])
        before = t_at(st)
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "keydown", "ctrl", "click", "4", "click", "4",
                        "keyup", "ctrl", "mousemove", "1279", "1023"], env=env, check=True, timeout=X.TIMEOUT)
        z = wait_st(app, lambda p: p["t1"] - p["t0"] < 0.7 * (st["t1"] - st["t0"]), "the zoom")
        px = (z["t1"] - z["t0"]) / (z["x1"] - z["x0"])
        check(abs(t_at(z) - before) <= 1.5 * px, "Ctrl+wheel: the time under the pointer stays %.6g (now %.6g, a pixel "
              "is %.3g)" % (before, t_at(z), px))
        check(z["t0"] >= z["run"][0] and z["t1"] <= z["run"][1], "the zoomed window lies inside the run")
        app.key("minus")
        app.key("minus")
        app.key("minus")
        z2 = wait_st(app, lambda p: p["follow"], "zooming out to the whole run")
        check(z2["t0"] == z2["run"][0] and z2["t1"] == z2["run"][1], "- past the run fits it (clamped)")
        app.key("plus")
        wait_st(app, lambda p: p["t1"] - p["t0"] < 0.6 * (z2["t1"] - z2["t0"]), "+ zooms in")
        app.key("Home")
        h = wait_st(app, lambda p: p["follow"] and p["t0"] == p["run"][0], "Home")
        check(h["t0"] == h["run"][0] and h["t1"] == h["run"][1], "Home shows exactly the run [%s, %s]"
              % (h["t0"], h["t1"]))
        # taller rows: the view scrolls them and labels every row
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "keydown", "ctrl", "keydown", "shift", "click", "4",
                        "click", "4", "click", "4", "click", "4", "click", "4", "click", "4", "keyup", "shift",
                        "keyup", "ctrl", "click", "5", "click", "5", "mousemove", "1279", "1023"], env=env,
                       check=True, timeout=X.TIMEOUT)
        r = wait_st(app, lambda p: p["rows_shown"] < 64 and p["first_row"] >= 6 and p["row_h"] >= 9,
                    "taller rows, scrolled")
        check(r["row_h"] >= 9, "Ctrl+Shift+wheel: rows %.1f px tall, %d shown from row %d"
              % (r["row_h"], r["rows_shown"], r["first_row"]))
        X.screenshot(display, os.path.join(shots, "nav-4-spacetime-64.png"))
    finally:
        app.close()
    # 1,024 ranks: rows shrink to 3 px and scroll; labels every k-th row
    trace = os.path.join(tmp, "p1024.picl")
    subprocess.run([args.picl_gen, "--procs=1024", "--messages=2000", "--seed=2", "--output=" + trace], check=True,
                   timeout=60)
    app = X.App(args, display, [trace, "--paradigm=picl", "--speed=max"], tmp, "spacetime-1024")
    try:
        wait_pb(app, lambda p: p["index_done"], "the index")
        app.key("space")
        d = app.wait_dump("the end")
        while d["why"] != "end":
            d = app.wait_dump("the end")
        st = wait_st(app, lambda p: p["rows"] == 1024, "1,024 rows")
        check(st["rows_shown"] < 1024 and st["row_h"] >= 3, "1,024 rows: %d shown at %.1f px, the rest scroll"
              % (st["rows_shown"], st["row_h"]))
        x = int(st["x0"] + 0.5 * (st["x1"] - st["x0"]))
        y = st["origin"][1] + 40
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "5", "click", "5", "click", "5",
                        "mousemove", "1279", "1023"], env=dict(os.environ, DISPLAY=display), check=True,
                       timeout=X.TIMEOUT)
        # the dump may come between two wheel steps: wait for all three
        s2 = wait_st(app, lambda p: p["first_row"] >= 9, "the wheel scrolls the rows")
        check(s2["first_row"] == 9 and s2["rows_shown"] == st["rows_shown"],
              "three wheel steps scroll 9 rows (first row %d)" % s2["first_row"])
        X.screenshot(display, os.path.join(shots, "nav-5-spacetime-1024.png"))
    finally:
        app.close()


def main():
    args = X.parse_args(["--picl-gen"])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-nav-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    xvfb, display = X.start_xvfb()
    try:
        scenario_speed(args, display, tmp, shots)
        scenario_goto_live(args, display, tmp, shots)
        scenario_seek(args, display, tmp, shots)
        scenario_seek_picl(args, display, tmp, shots)
        scenario_seek_macrame(args, display, tmp, shots)
        scenario_spacetime(args, display, tmp, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
