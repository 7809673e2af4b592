#!/usr/bin/env python3
"""The viper app under Xvfb: problems in plain sight and live sessions (issue 14).

Each scenario is one a new user hit, with what the window must show:
  binary      a binary file: the info bar says "not a trace" (an error bar), the
              status line "no run"
  binary-lines  binary garbage among a trace's lines: a warning that the file
              holds binary data whose lines are skipped, not "not a trace"
  bad-lines   a Farm with bad lines: the count and the first FILE:LINE:COLUMN reason
  wrong-setup farm.trc with deadlock.setup: the pending count viper-replay prints,
              its first reason, and the inconsistencies
  bad-view    a --view file naming another paradigm: the replay runs, the bar names the
              file's FILE:LINE:COLUMN (the column of the paradigm's name)
  picl-after-macrame  File > Open of a PICL trace after a Macrame session opens it as PICL
  rerun       the program run twice against a listening viper: a new session, no
              duplicate errors, the state of one run
  reset-live  Reset while a program is connected: asked, disconnected, and the next
              run replays cleanly
  killed      kill -9 of a connected program: "connection lost", the unfinished modules
  settings    the layout is kept between runs; opened traces are recent files
  deadlock    the deadlocked set is ringed in the animation
  hidden      a click on a module describes it; hiding the top views gives their room to
              the others (no hole)
The window's state comes from the VIPER_DEBUG_DIR dump (state.json "ui"), the
pixels from screenshots (the info bar's colour).  Synchronisation polls files.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll


def wait_why(app, why, pred=None, what=None):
    """The next dump whose why is `why` (and pred holds)."""
    def get():
        s = app.state()
        if s and s["dumps"] > app.dumps and s["why"] == why and (pred is None or pred(s)):
            return s
        return None
    d = poll(get, what or ("a '%s' dump" % why), proc=app.proc)
    app.dumps = d["dumps"]
    return d


def wait_state(app, pred, what):
    d = poll(lambda: (lambda s: s if s and pred(s) else None)(app.state()), what, proc=app.proc)
    app.dumps = max(app.dumps, d["dumps"])
    return d


def bar_colour(display, d, path):
    """The colour in the info bar, a few pixels in from its left edge, mid-height."""
    pixel = X.screenshot(display, path)
    x, y, w, h = d["ui"]["infobar_box"]
    return pixel(x + 3, y + h // 2) if w > 0 else None


def is_reddish(c):
    return c is not None and c[0] > 150 and c[0] > c[1] + 40 and c[0] > c[2] + 40


def is_yellowish(c):
    return c is not None and c[0] > 150 and c[1] > 110 and c[2] < c[1] - 30


def scenario_binary(args, display, tmp, shots):
    path = os.path.join(tmp, "program.trc")
    with open(args.viper, "rb") as f:
        data = f.read(20000)
    with open(path, "wb") as f:
        f.write(data)
    app = X.App(args, display, [path, "--breakpoint=1e30"], tmp, "binary")
    try:
        d = wait_why(app, "end")
        ib = d["ui"]["infobar"]
        check(ib["visible"] and ib["type"] == "error", "binary: an error bar shows (%s)" % ib)
        check("binary file" in (ib["text"] or "") and "not a text trace" in ib["text"],
              "binary: it says the file is binary, not a trace")
        check("program.trc" in ib["text"], "binary: it names the file")
        # no trams, no run: the status line said "run 0 - 1" (the timeline's default range)
        pb = X.poll(lambda: (lambda p: p if p and p["index_done"] else None)(
            X.read_json(os.path.join(app.dir, "playback.json"))), "the index", proc=app.proc)
        check("no run" in (pb.get("status") or "") and "run 0" not in pb["status"],
              "binary: the status line says there is no run (%r)" % pb.get("status"))
        c = bar_colour(display, d, os.path.join(shots, "d1-binary.png"))
        check(is_reddish(c), "binary: the bar is red on screen (%s)" % (c,))
    finally:
        app.close()


def scenario_binary_lines(args, display, tmp, shots):
    """Two lines of binary garbage among a PICL trace's good lines (outside
    trial 3, finding 3): the bar called the file "a binary file ..., not a
    trace" in red and then replayed its 1057 trams.  It is a trace with
    binary data in it: a warning that says its bad lines are skipped."""
    good = subprocess.run([args.picl_gen, "--procs=4", "--messages=200", "--seed=7"], stdout=subprocess.PIPE,
                          check=True, timeout=60).stdout.splitlines(keepends=True)
    good.insert(300, b"\x7fELF\x02\x01\x01\x00\x00\x00\n")
    good.insert(700, b"\x93\xfe\x00\x00\x12 garbage \x01\x00\xff\n")
    path = os.path.join(tmp, "garbage.trc")
    with open(path, "wb") as f:
        f.write(b"".join(good))
    want = json.loads(subprocess.run([args.viper_replay, "--paradigm=picl", "--state-out=-", "--quiet", path],
                                     stdout=subprocess.PIPE, timeout=60).stdout)
    app = X.App(args, display, [path, "--breakpoint=1e30"], tmp, "binary-lines")
    try:
        d = wait_why(app, "end")
        ib = d["ui"]["infobar"]
        text = ib["text"] or ""
        check(d["state"]["counts"] == want["counts"] and want["counts"]["transferred"] == 1057,
              "binary lines: the trams replay as viper-replay replays them (%s)" % d["state"]["counts"])
        check(ib["visible"] and ib["type"] == "warning", "binary lines: a warning bar, not an error (%s)" % ib["type"])
        check("not a text trace" not in text and "Not a trace" not in text,
              "binary lines: the file is not called 'not a trace' (%r)" % text)
        check("garbage.trc holds binary data among its trams" in text and "reported and skipped" in text,
              "binary lines: it says the file holds binary data whose lines are skipped (%r)" % text)
        check("%d lines rejected" % want["counts"]["rejected"] in text, "binary lines: and counts the rejected lines")
        c = bar_colour(display, d, os.path.join(shots, "d1b-binary-lines.png"))
        check(is_yellowish(c), "binary lines: the bar is a warning (yellow) on screen (%s)" % (c,))
    finally:
        app.close()


def scenario_bad_lines(args, display, tmp, shots):
    src = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    path = os.path.join(tmp, "farm-bad.trc")
    with open(src) as f:
        lines = f.readlines()
    lines.insert(5, "1 10 x.5 2 0 1 2 1\n")
    lines.insert(40, "this is not a tram\n")
    with open(path, "w") as f:
        f.writelines(lines)
    want = subprocess.run([args.viper_replay, "--paradigm=monalisa", "--setup=" + setup, path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    first = want.stderr.splitlines()[0]
    app = X.App(args, display, [path, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp, "bad")
    try:
        d = wait_why(app, "end")
        ib = d["ui"]["infobar"]
        check(ib["visible"], "bad lines: the bar shows")
        check("2 lines rejected" in (ib["text"] or ""), "bad lines: it counts 2 rejected lines (%s)" % ib["text"])
        check(first in ib["text"], "bad lines: the first reason is viper-replay's first line: %s" % first)
        c = bar_colour(display, d, os.path.join(shots, "d2-bad-lines.png"))
        check(is_yellowish(c), "bad lines: the bar is a warning (yellow) on screen (%s)" % (c,))
    finally:
        app.close()


def scenario_wrong_setup(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "deadlock.setup")
    want = subprocess.run([args.viper_replay, "--paradigm=monalisa", "--setup=" + setup, trace],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    m = re.search(r"(\d+) trams still pending at the end", want.stderr)
    pending = int(m.group(1))
    reason = [l.strip() for l in want.stderr.splitlines() if l.startswith("  proc ")][0]
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp, "setup")
    try:
        d = wait_why(app, "end")
        ib = d["ui"]["infobar"]
        text = ib["text"] or ""
        check(ib["visible"], "wrong setup: the bar shows")
        check(("%d of 337 trams pending at the end" % pending) in text,
              "wrong setup: %d of 337 pending, as viper-replay says (%s)" % (pending, text))
        check(reason in text, "wrong setup: the first pending reason is viper-replay's: %s" % reason)
        check("inconsistent" in text and "not in the setup file" in text,
              "wrong setup: the inconsistency (modules not in the setup file) is named")
        X.screenshot(display, os.path.join(shots, "d3-wrong-setup.png"))
        # the Diagnostics button docks nothing but shows the pane with the pending reasons
        app.key("F9")
        d = wait_state(app, lambda s: s["ui"]["diagnostics"]["shown"], "the diagnostics window")
        check(d["ui"]["diagnostics"]["shown"], "F9 shows the diagnostics")
        app.key("shift+F9")
        d = wait_why(app, "dock")
        check(d["ui"]["diagnostics"]["docked"] and d["ui"]["diagnostics"]["shown"],
              "Shift+F9 docks them in the main window")
        X.screenshot(display, os.path.join(shots, "d4-docked-diagnostics.png"))
    finally:
        app.close()


def picl_trace(args, tmp):
    path = os.path.join(tmp, "ring.trf")
    out = subprocess.run([args.picl_gen, "--procs=3", "--messages=12", "--seed=4"], stdout=subprocess.PIPE,
                         check=True, timeout=60).stdout
    with open(path, "wb") as f:
        f.write(out)
    return path


def scenario_bad_view(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    view = os.path.join(tmp, "farm-macrame.view")
    with open(view, "w") as f:
        f.write("# the Farm's layout, said to be Macrame's\nsize 100 100\n  paradigm\tmacrame\n"
                "module 0 circle 40 40 20 20 MASTER\n")
    want = "%s:3:12: expected paradigm monalisa, got macrame" % view
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--view=" + view,
                                "--breakpoint=1e30"], tmp, "view")
    try:
        d = wait_why(app, "end")
        ib = d["ui"]["infobar"]
        check(ib["visible"] and want in (ib["text"] or ""),
              "bad view: the bar names the file's line and column: %s (%s)" % (want, ib["text"]))
        check(d["state"]["counts"]["rejected"] == 0 and d["state"]["counts"]["read"] == 337,
              "bad view: the replay itself runs (%s)" % d["state"]["counts"])
    finally:
        app.close()


def scenario_picl_after_macrame(args, display, tmp, shots):
    mesh = os.path.join(args.source_root, "traces", "mesh3x3.trc")
    trace = picl_trace(args, tmp)
    want = json.loads(subprocess.run([args.viper_replay, "--paradigm=picl", "--state-out=-", "--quiet", trace],
                                     stdout=subprocess.PIPE, timeout=60).stdout)
    app = X.App(args, display, [mesh, "--breakpoint=1e30"], tmp, "picl")
    try:
        d = wait_why(app, "end")
        check(d["ui"]["paradigm"] == "macrame", "a mesh trace alone opens as Macrame (%s)" % d["ui"]["paradigm"])
        check("macrame tram types" in (d["ui"]["detect_reason"] or ""), "and says why: %s" % d["ui"]["detect_reason"])
        # File > Open, type the path, Return
        app.key("ctrl+o")
        env = dict(os.environ, DISPLAY=display)
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Open Trace"], env=env,
                       stdout=subprocess.DEVNULL, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+l"], env=env, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "type", "--delay", "5", trace], env=env, check=True, timeout=X.TIMEOUT)
        X.screenshot(display, os.path.join(shots, "d5-open-dialog.png"))
        subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)
        d = wait_why(app, "open")
        check(d["ui"]["paradigm"] == "picl", "File > Open of a PICL trace after Macrame opens it as PICL (%s)"
              % d["ui"]["paradigm"])
        check("picl tram types" in (d["ui"]["detect_reason"] or ""), "the reason: %s" % d["ui"]["detect_reason"])
        app.key("space")
        d = wait_why(app, "end")
        check(d["state"]["counts"] == want["counts"], "and replays it as viper-replay --paradigm=picl does (%s)"
              % d["state"]["counts"])
        check(not d["ui"]["infobar"]["visible"], "nothing to complain about: no bar (%s)" % d["ui"]["infobar"])
        X.screenshot(display, os.path.join(shots, "d6-picl-after-macrame.png"))
    finally:
        app.close()


def sim_setup(args, tmp, name, extra):
    setup = os.path.join(tmp, name + ".setup")
    trace = os.path.join(tmp, name + ".trc")
    sim = [args.sim, "--program=farm", "--slaves=3", "--tasks=6", "--seed=21"] + extra
    subprocess.run(sim + ["--out=" + trace, "--setup-out=" + setup], check=True, timeout=60)
    want = X.replay_state(args, trace, setup, [])
    return sim, setup, want


def scenario_rerun(args, display, tmp, shots):
    sim, setup, want = sim_setup(args, tmp, "rerun", [])
    sock = os.path.join(tmp, "rerun.sock")
    app = X.App(args, display, ["--listen=unix:" + sock, "--setup=" + setup, "--paradigm=monalisa"], tmp, "rerun")
    try:
        poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        d = wait_state(app, lambda s: "listening" in (s["ui"]["subtitle"] or ""), "the subtitle 'listening'")
        check(True, "before any run the subtitle says listening (%s)" % d["ui"]["subtitle"])
        for run in (1, 2):
            subprocess.run(sim + ["--connect=unix:" + sock, "--speed=0"], check=True, timeout=60)
            d = wait_state(app, lambda s: s["why"] == "live-idle" and s["ui"]["new_runs"] == run - 1
                           and s["state"]["counts"]["transferred"] == want["counts"]["transferred"],
                           "run %d applied" % run)
            check(d["state"]["counts"]["rejected"] == 0, "run %d: nothing rejected (no duplicate sequence numbers)" % run)
            check(X.same_modules(d["state"], want), "run %d: the state of one run, as viper-replay's" % run)
            check("program ended" in d["ui"]["subtitle"], "run %d: subtitle says the program ended (%s)"
                  % (run, d["ui"]["subtitle"]))
        check(d["ui"]["infobar"]["visible"] and "session started over" in d["ui"]["infobar"]["text"],
              "the second run says it started a new session (%s)" % d["ui"]["infobar"]["text"])
        X.screenshot(display, os.path.join(shots, "d7-rerun.png"))
    finally:
        app.close()


def scenario_reset_live_and_killed(args, display, tmp, shots):
    # paced: ~2 s of wall time, so the run is still connected when we act
    sim, setup, want = sim_setup(args, tmp, "slow", [])
    sock = os.path.join(tmp, "slow.sock")
    app = X.App(args, display, ["--listen=unix:" + sock, "--setup=" + setup, "--paradigm=monalisa"], tmp, "slow")
    try:
        poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        slow = subprocess.Popen(sim + ["--connect=unix:" + sock, "--speed=0.005"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        d = wait_state(app, lambda s: s["ui"]["connections"]["open"] > 0 and s["state"]["counts"]["transferred"] > 0,
                       "a connected, running program")
        check("connected" in d["ui"]["subtitle"], "live: subtitle says N connected (%s)" % d["ui"]["subtitle"])
        X.screenshot(display, os.path.join(shots, "d8-connected.png"))
        # Reset while connected: asked; Return = Disconnect and Reset
        app.key("r")
        env = dict(os.environ, DISPLAY=display)
        out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Reset While Connected"],
                             env=env, stdout=subprocess.PIPE, check=True, timeout=X.TIMEOUT).stdout.split()[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", out], env=env, check=True, timeout=X.TIMEOUT)
        X.screenshot(display, os.path.join(shots, "d9-reset-question.png"))
        subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)
        # the reset's dump, or a later one (a live dump may describe the same frame)
        n = app.dumps
        d = wait_state(app, lambda s: s["dumps"] > n and s["why"] in ("reset", "live-listening")
                       and s["ui"]["connections"]["open"] == 0, "the reset")
        check(d["ui"]["connections"]["open"] == 0, "reset: the program was disconnected")
        check(d["state"]["counts"]["read"] == 0, "reset: the state is cleared")
        slow.kill()     # disconnected: whatever it does next is its own business
        slow.wait()
        # the next run replays cleanly on the reset session
        subprocess.run(sim + ["--connect=unix:" + sock, "--speed=0"], check=True, timeout=60)
        d = wait_state(app, lambda s: s["why"] == "live-idle"
                       and s["state"]["counts"]["transferred"] == want["counts"]["transferred"], "the run after reset")
        check(d["state"]["counts"]["pending"] == 0 and d["state"]["counts"]["rejected"] == 0,
              "after reset: nothing pending, nothing rejected (%s)" % d["state"]["counts"])
        check(X.same_modules(d["state"], want), "after reset: the state of the run, as viper-replay's")

        # a program killed mid-run
        victim = subprocess.Popen(sim + ["--connect=unix:" + sock, "--speed=0.005"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_state(app, lambda s: s["ui"]["new_runs"] >= 1 and s["ui"]["connections"]["open"] > 0
                   and 0 < s["state"]["counts"]["transferred"], "the victim connected and running")
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        d = wait_state(app, lambda s: s["ui"]["live"] == "lost" and s["ui"]["infobar"]["visible"]
                       and "Connection lost" in (s["ui"]["infobar"]["text"] or ""), "connection lost")
        check("connection lost" in d["ui"]["subtitle"], "killed: the subtitle says connection lost (%s)"
              % d["ui"]["subtitle"])
        check("never finished" in d["ui"]["infobar"]["text"], "killed: it names the modules that never finished (%s)"
              % d["ui"]["infobar"]["text"])
        check(d["ui"]["infobar"]["type"] == "error", "killed: an error bar")
        c = bar_colour(display, d, os.path.join(shots, "d10-killed.png"))
        check(is_reddish(c), "killed: the bar is red on screen (%s)" % (c,))
    finally:
        app.close()


def scenario_hidden(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp, "hide")
    try:
        d = wait_why(app, "end")
        h0 = d["ui"]["views"]["spacetime"]["height"]
        # click-to-inspect: a click on a module's disc describes it
        states = X.module_states(d["state"])
        layout = app.layout(len(states))
        p = [q for q in layout["views"]["animation"] if q["id"] == 1][0]
        env = dict(os.environ, DISPLAY=display)
        subprocess.run(["xdotool", "mousemove", str(p["x"]), str(p["y"]), "click", "1"], env=env, check=True,
                       timeout=X.TIMEOUT)
        d = wait_why(app, "inspect")
        text = d["ui"]["inspect"] or ""
        check(text.startswith("SLAVE[1] (module 1)"), "inspect: names the module (%s)" % text.splitlines()[:1])
        check(("state: %s" % states[1]) in text, "inspect: its state, as the state dump says (%s)" % states[1])
        check("trams applied: " in text and "\n  " in text, "inspect: and its last trams")
        X.screenshot(display, os.path.join(shots, "d12-inspect.png"))
        subprocess.run(["xdotool", "key", "Escape", "mousemove", "1279", "1023"], env=env, check=True,
                       timeout=X.TIMEOUT)
        app.key("alt+1")     # View > Animation
        app.key("alt+4")     # View > Program state
        d = wait_state(app, lambda s: not s["ui"]["views"]["program"]["shown"]
                       and s["ui"]["views"]["spacetime"]["height"] > h0, "the views to reflow")
        check(d["ui"]["views"]["spacetime"]["height"] > h0 * 1.5,
              "hiding the top views gives the space-time view their room (%d -> %d px)"
              % (h0, d["ui"]["views"]["spacetime"]["height"]))
        X.screenshot(display, os.path.join(shots, "d11-hidden-views.png"))
    finally:
        app.close()


def scenario_deadlock(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "deadlock.trc")
    setup = os.path.join(args.source_root, "setup", "deadlock.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp, "dead")
    try:
        d = wait_why(app, "end")
        cycle = d["state"]["deadlock_cycle"]
        check(d["state"]["program_state"] == "deadlock" and len(cycle) == 2, "deadlock: two modules deadlocked")
        layout = app.layout(len(d["state"]["modules"]))
        pixel = X.screenshot(display, os.path.join(shots, "d13-deadlock.png"))
        ring = (230, 115, 0)
        for p in layout["views"]["animation"]:
            xs = [pixel(p["x"] + dx, p["y"]) for dx in range(0, 140)]
            has = any(abs(c[0] - ring[0]) < 12 and abs(c[1] - ring[1]) < 12 and c[2] < 20 for c in xs)
            check(has == (p["id"] in cycle), "deadlock: module %d %s ringed in the animation"
                  % (p["id"], "is" if p["id"] in cycle else "is not"))
    finally:
        app.close()


def scenario_settings(args, display, tmp, shots):
    """The layout is kept between runs (VIPER_SETTINGS names the key file),
    and opened traces become recent files."""
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    ini = os.path.join(tmp, "settings.ini")
    os.environ["VIPER_SETTINGS"] = ini
    try:
        app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp,
                    "set1")
        try:
            d = wait_why(app, "end")
            check(d["ui"]["views"]["spacetime"]["shown"] and not d["ui"]["diagnostics"]["docked"],
                  "settings: a fresh start shows every view, diagnostics not docked")
            check(any(r.endswith("/farm.trc") for r in d["ui"]["recent"]),
                  "recent files: File > Open Recent lists farm.trc (%s)" % d["ui"]["recent"])
            app.key("alt+2")
            wait_state(app, lambda s: not s["ui"]["views"]["spacetime"]["shown"], "space-time hidden")
            app.key("shift+F9")
            wait_why(app, "dock")
            app.key("F9")
            wait_state(app, lambda s: s["ui"]["diagnostics"]["shown"], "diagnostics shown")
            app.key("ctrl+q")
            app.proc.wait(X.TIMEOUT)
        finally:
            app.close()
        with open(ini) as f:
            text = f.read()
        check("show-spacetime=false" in text and "docked=true" in text, "settings: written at Quit")
        app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=1e30"], tmp,
                    "set2")
        try:
            d = wait_why(app, "end")
            ui = d["ui"]
            check(not ui["views"]["spacetime"]["shown"] and ui["views"]["variables"]["shown"],
                  "settings: the next run hides the space-time view again")
            check(ui["diagnostics"]["docked"] and ui["diagnostics"]["shown"],
                  "settings: and docks and shows the diagnostics")
            X.screenshot(display, os.path.join(shots, "d14-settings-kept.png"))
        finally:
            app.close()
    finally:
        del os.environ["VIPER_SETTINGS"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--picl-gen", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--keep", help="directory to keep the screenshots in")
    ap.add_argument("--only", help="run only this scenario")
    args = ap.parse_args()
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-desktop-")
    # recent files go to the test's directory, not the user's
    os.environ["XDG_DATA_HOME"] = os.path.join(tmp, "data")
    os.makedirs(os.environ["XDG_DATA_HOME"])
    os.environ["GSETTINGS_BACKEND"] = "memory"   # the file chooser's own settings
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    xvfb, display = X.start_xvfb()
    scenarios = [("binary", scenario_binary), ("binary-lines", scenario_binary_lines), ("bad-lines", scenario_bad_lines),
                 ("wrong-setup", scenario_wrong_setup), ("bad-view", scenario_bad_view),
                 ("picl-after-macrame", scenario_picl_after_macrame),
                 ("rerun", scenario_rerun), ("reset-live", scenario_reset_live_and_killed),
                 ("hidden", scenario_hidden), ("deadlock", scenario_deadlock),
                 ("settings", scenario_settings)]
    try:
        for name, fn in scenarios:
            if args.only and name != args.only:
                continue
            print("# scenario", name, flush=True)
            fn(args, display, tmp, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
