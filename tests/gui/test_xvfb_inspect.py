#!/usr/bin/env python3
"""The module description a click opens follows the replay (gui-xvfb-inspect).

A new user found the popover stale while the replay played: it kept the
state of when it was opened.  Scenario (the Farm at speed 5): Space plays, a
click on SLAVE[1]'s disc opens its description; the app writes inspect.json
each time the popover's text changes, with the number of state changes
applied then.  While it plays the text changes several times, and every
time its "state:" is viper-replay --steps=K's state of SLAVE[1].  At the
stop the popover (still open) says the state the state dump says, and the
disc beside it is in that state's colour.  While nothing changes the text is
not even made again (no timer: two dumps without damage leave the count of
descriptions made unchanged).  Back (Left) with the popover open: its state
is viper-replay --steps=K-1's.  Go to clock (Ctrl+G) back to 20: its text -
state, since, trams applied and the last trams - is exactly the text a
second viper stopped at --breakpoint=20 shows for a click on the same disc
(the last trams after a seek come from the whole run, not from the trams
replayed since the checkpoint the seek restored).

Scenario tooltip: the hover tooltip follows the replay too.  GTK asks for a
tooltip's text only when the pointer moves, so a pointer resting on a module
kept the text of when it arrived while the replay played on.  Playing at
speed 5, the pointer rests on SLAVE[1]'s disc: the tooltip's text (written
to inspect.json with the state changes applied when it was made) changes
while the pointer stays still, and each text's state is viper-replay
--steps=K's.

Scenario no tooltip over the open description: hovering the module whose
description a click opened shows no tooltip (it said the same on top of
it); another module still has its tooltip.

Scenario space-time tooltip: the same for the space-time view's own
tooltip while it follows the clock: the pointer rests on SLAVE[1]'s row
near the right end of the plot; the text it gives (spacetime-tooltip.json)
is made again as the clock moves (the pointer still), and names SLAVE[1]'s
bar in the end.

Synchronisation polls the app's dump files; no sleeps.
Exit 77 when Xvfb, xdotool or ImageMagick are missing.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll
MODULE = 1   # SLAVE[1]


def inspect_json(app):
    return X.read_json(os.path.join(app.dir, "inspect.json"))


def state_of(text):
    m = re.search(r"^state: (\S+)", text or "", re.M)
    return m.group(1) if m else None


def click_module(app, display, layout):
    p = [q for q in layout["views"]["animation"] if q["id"] == MODULE][0]
    X.xdo(display, "mousemove", str(p["x"]), str(p["y"]), "click", "1")
    return p


def goto(app, display, clock):
    app.key("ctrl+g")
    out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Go to clock"],
                         env=dict(os.environ, DISPLAY=display), stdout=subprocess.PIPE, check=True, timeout=X.TIMEOUT)
    X.xdo(display, "windowfocus", "--sync", out.stdout.split()[0].decode())
    X.xdo(display, "type", "--delay", "20", "--", clock)
    X.xdo(display, "key", "Return")


def scenario_tooltip(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    n_mod = len(X.replay_state(args, trace, setup, [])["modules"])
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--speed=5"], tmp, "tooltip")
    try:
        layout = app.layout(n_mod)
        poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the index of the run",
             proc=app.proc)
        app.key("space")
        poll(lambda: (lambda p: p if p and p["clock"] is not None and p["clock"] > 1 else None)(app.playback()),
             "the clock to pass 1", proc=app.proc)
        p = [q for q in layout["views"]["animation"] if q["id"] == MODULE][0]
        X.xdo(display, "mousemove", str(p["x"]), str(p["y"]))   # and rest there
        seen = [poll(lambda: (lambda j: j if j and j["tooltip"] else None)(inspect_json(app)),
                     "the tooltip over SLAVE[%d]" % MODULE, proc=app.proc)]

        def next_tooltip():
            j = inspect_json(app)
            if j and j["tooltip_queries"] > seen[-1]["tooltip_queries"] and j["tooltip_steps"] > seen[-1]["tooltip_steps"]:
                return j
            return None
        for _ in range(2):
            seen.append(poll(next_tooltip, "the tooltip to follow the replay, the pointer still", proc=app.proc))
        X.screenshot(display, os.path.join(shots, "inspect-0-tooltip.png"))
        for j in seen:
            want = X.module_states(X.replay_state(args, trace, setup, ["--steps=%d" % j["tooltip_steps"]]))[MODULE]
            check(j["tooltip"].startswith("SLAVE[%d]" % MODULE) and state_of(j["tooltip"]) == want,
                  "pointer still, after %d state changes the tooltip says %s (viper-replay: %s)"
                  % (j["tooltip_steps"], state_of(j["tooltip"]), want))
        X.xdo(display, "mousemove", "1", "1")
    finally:
        app.close()


def tooltip_windows(display):
    """viper's visible windows other than the main one (titled "Viper — ..."):
    a tooltip is a window of its own."""
    env = dict(os.environ, DISPLAY=display)
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "viper"], env=env, stdout=subprocess.PIPE,
                         timeout=X.TIMEOUT).stdout.split()
    tips = []
    for wid in out:
        name = subprocess.run(["xdotool", "getwindowname", wid], env=env, stdout=subprocess.PIPE,
                              timeout=X.TIMEOUT).stdout.decode().strip()
        if not name.startswith("Viper \u2014"):
            tips.append(wid)
    return tips


def hover_until(app, display, x, y, pred, what):
    """Rest the pointer near (x, y) until inspect.json satisfies pred.  A
    motion that comes while the popover just opened takes its grab is not a
    hover: GTK asks again only after the pointer moves, so it moves by a
    pixel at a time; on a build that shows the tooltip this times out."""
    for i in range(int(X.TIMEOUT)):
        X.xdo(display, "mousemove", str(x + 2 + i % 3), str(y + 2))
        try:
            return poll(lambda: (lambda j: j if j and pred(j) else None)(inspect_json(app)), what, timeout=1.0,
                        proc=app.proc)
        except SystemExit as e:
            if "timed out" not in str(e):
                raise
    raise SystemExit("timed out waiting for " + what)


def scenario_no_tooltip_over_open(args, display, tmp, shots):
    """The module whose description is open has no tooltip (outside trial 3,
    finding 6): hovering it showed a tooltip with the popover's own text on
    top.  Another module still has its tooltip."""
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    n_mod = len(X.replay_state(args, trace, setup, [])["modules"])
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=20"], tmp,
                "no-tooltip")
    try:
        app.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint stop")
        layout = app.layout(n_mod)
        points = {q["id"]: q for q in layout["views"]["animation"]}
        p = points[MODULE]
        # the tooltip over SLAVE[1] first: it works
        X.xdo(display, "mousemove", str(p["x"]), str(p["y"]))
        j = poll(lambda: (lambda j: j if j and (j["tooltip"] or "").startswith("SLAVE[%d]" % MODULE) else None)(
            inspect_json(app)), "the tooltip over SLAVE[%d]" % MODULE, proc=app.proc)
        # a click opens its description; the pointer moves on the disc: GTK
        # asks for a tooltip again, and gets none
        queries = j["tooltip_queries"]
        X.xdo(display, "click", "1")
        poll(lambda: (lambda j: j if j and j["open"] and j["id"] == MODULE else None)(inspect_json(app)),
             "the description of SLAVE[%d]" % MODULE, proc=app.proc)
        j = hover_until(app, display, p["x"], p["y"], lambda j: j["tooltip_queries"] > queries and j["tooltip"] is None,
                        "no tooltip over the open module")
        check(j["open"] and j["tooltip"] is None,
              "no description tooltip over the module whose description is open (tooltip %r)" % j["tooltip"])
        # nor the view's own: no tooltip window comes while the pointer rests there
        # (an absence: looked for during twice GTK's hover delay of 500 ms)
        up = []
        try:
            up = poll(lambda: tooltip_windows(display), "a tooltip window", timeout=1.0, proc=app.proc)
        except SystemExit as e:
            if "timed out" not in str(e):
                raise
        X.screenshot(display, os.path.join(shots, "inspect-no-tooltip-over-open.png"))
        check(not up, "no tooltip window over the open module (%s)" % up)
        # another module: its tooltip, the description still open
        other = points[2]
        j = hover_until(app, display, other["x"], other["y"], lambda j: (j["tooltip"] or "").startswith("SLAVE[2]"),
                        "the tooltip over SLAVE[2]")
        check(j["open"] and j["id"] == MODULE and j["tooltip"].startswith("SLAVE[2]"),
              "another module has its tooltip while the description is open (%r)" % j["tooltip"].splitlines()[0])
        check(poll(lambda: tooltip_windows(display), "the tooltip window over SLAVE[2]", proc=app.proc),
              "and it is on the screen")
        X.screenshot(display, os.path.join(shots, "inspect-tooltip-over-another.png"))
        X.xdo(display, "mousemove", "1", "1")
    finally:
        app.close()


def scenario_spacetime_tooltip(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    n_mod = len(X.replay_state(args, trace, setup, [])["modules"])
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--speed=5"], tmp, "st-tooltip")
    path = os.path.join(app.dir, "spacetime-tooltip.json")
    try:
        layout = app.layout(n_mod)
        poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the index of the run",
             proc=app.proc)
        app.key("space")
        poll(lambda: (lambda p: p if p and p["clock"] is not None and p["clock"] > 1 else None)(app.playback()),
             "the clock to pass 1", proc=app.proc)
        st = poll(lambda: X.read_json(os.path.join(app.dir, "spacetime.json")), "the space-time window",
                  proc=app.proc)
        row = [q for q in layout["views"]["spacetime"] if q["id"] == MODULE][0]
        X.xdo(display, "mousemove", str(int(st["x1"]) - 20), str(row["y"]))   # and rest there
        seen = [poll(lambda: X.read_json(path), "the space-time tooltip", proc=app.proc)]

        def next_text():
            j = X.read_json(path)
            return j if j and j["clock"] > seen[-1]["clock"] and j["text"] != seen[-1]["text"] else None
        for _ in range(2):
            seen.append(poll(next_text, "the space-time tooltip to follow the clock, the pointer still",
                             proc=app.proc))
        X.screenshot(display, os.path.join(shots, "inspect-0-spacetime-tooltip.png"))
        check("SLAVE[%d]" % MODULE in seen[-1]["text"],
              "pointer still, the space-time tooltip is made again as the clock moves (%s)"
              % [(j["clock"], j["text"].splitlines()[0]) for j in seen])
        X.xdo(display, "mousemove", "1", "1")
    finally:
        app.close()


def scenario_inspect(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    n_mod = len(X.replay_state(args, trace, setup, [])["modules"])
    cache = {}

    def state_after(steps):
        if steps not in cache:
            cache[steps] = X.module_states(X.replay_state(args, trace, setup, ["--steps=%d" % steps]))[MODULE]
        return cache[steps]

    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--speed=5",
                                  "--checkpoint-every=16"], tmp, "inspect")
    try:
        layout = app.layout(n_mod)
        poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the index of the run",
             proc=app.proc)
        app.key("space")
        poll(lambda: (lambda p: p if p and p["clock"] is not None and p["clock"] > 1 else None)(app.playback()),
             "the clock to pass 1", proc=app.proc)
        point = click_module(app, display, layout)
        first = poll(lambda: (lambda j: j if j and j["open"] and j["id"] == MODULE else None)(inspect_json(app)),
                     "the description of SLAVE[%d]" % MODULE, proc=app.proc)
        X.screenshot(display, os.path.join(shots, "inspect-1-opened.png"))
        # while it plays: several new texts, each the state at its step count
        seen = [first]

        def next_update():
            j = inspect_json(app)
            if j and j["open"] and j["updates"] > seen[-1]["updates"] and j["steps"] != seen[-1]["steps"]:
                return j
            return None
        for _ in range(3):
            seen.append(poll(next_update, "the description to follow the replay", proc=app.proc))
        check(len({state_of(j["text"]) for j in seen}) >= 2 or len({j["text"] for j in seen}) >= 3,
              "while playing the description changed: %s" % [(j["steps"], state_of(j["text"])) for j in seen])
        for j in seen:
            want = state_after(j["steps"])
            check(state_of(j["text"]) == want, "playing, after %d state changes the popover says %s (viper-replay: %s)"
                  % (j["steps"], state_of(j["text"]), want))
        X.screenshot(display, os.path.join(shots, "inspect-2-playing.png"))

        # stopped: the popover says what the state dump says, the disc shows it
        app.key("space")
        d = app.wait_state(lambda s: s["why"] == "stopped", "the stop")
        j = inspect_json(app)
        want = X.module_states(d["state"])[MODULE]
        check(j["open"] and state_of(d["ui"]["inspect"]) == want and d["ui"]["inspect"] == j["text"],
              "at the stop the open popover says %s, the state dump %s" % (state_of(j["text"]), want))
        pixel = X.screenshot(display, os.path.join(shots, "inspect-3-stopped.png"))
        # the info bar that says what is pending may have moved the views down
        point = [q for q in app.layout(n_mod)["views"]["animation"] if q["id"] == MODULE][0]
        got = pixel(point["x"], point["y"] + 20)
        check(got == X.STATE_RGB[want], "the disc below the popover is %s's colour (%s)" % (want, got))

        # nothing changes: nothing is described again
        computed = inspect_json(app)["computed"]
        app.key("alt+3")
        app.wait_state(lambda s: not s["ui"]["views"]["variables"]["shown"], "the variables hidden")
        app.key("alt+3")
        app.wait_state(lambda s: s["ui"]["views"]["variables"]["shown"], "the variables shown")
        j = inspect_json(app)
        check(j["open"] and j["computed"] == computed,
              "stopped, dumps without damage made no description (%d -> %d)" % (computed, j["computed"]))

        # Back with the popover open
        steps = d["steps"]
        app.key("Left")
        d = app.wait_state(lambda s: s["steps"] == steps - 1, "Back")
        j = inspect_json(app)
        want = state_after(steps - 1)
        check(j["open"] and d["ui"]["inspect"] == j["text"] and state_of(j["text"]) == want,
              "after Back the popover says %s (viper-replay --steps=%d: %s)" % (state_of(j["text"]), steps - 1, want))

        # Go to clock 20: the text a fresh replay to there shows
        goto(app, display, "20")
        d = app.wait_state(lambda s: s["why"] in ("seek", "breakpoint") and s["state"]["clock"] <= 20,
                       "the seek to 20")
        j = inspect_json(app)
        check(j["open"] and d["ui"]["inspect"] == j["text"], "after the seek the popover is open and says what it did")
        after_seek = j["text"]
        X.screenshot(display, os.path.join(shots, "inspect-4-seek.png"))
    finally:
        app.close()
    fresh = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=20"], tmp, "fresh")
    try:
        fresh.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint at 20")
        click_module(fresh, display, fresh.layout(n_mod))
        j = poll(lambda: (lambda j: j if j and j["open"] else None)(inspect_json(fresh)), "the fresh description",
                 proc=fresh.proc)
        check(j["text"] == after_seek, "after the seek to 20 the popover = a fresh replay's:\n%s\n--- fresh:\n%s"
              % (after_seek, j["text"]))
    finally:
        fresh.close()


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick (/usr/bin/import, /usr/bin/convert) is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-inspect-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    xvfb, display = X.start_xvfb()
    try:
        scenario_tooltip(args, display, tmp, shots)
        scenario_spacetime_tooltip(args, display, tmp, shots)
        scenario_no_tooltip_over_open(args, display, tmp, shots)
        scenario_inspect(args, display, tmp, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
