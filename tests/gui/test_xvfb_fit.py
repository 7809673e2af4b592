#!/usr/bin/env python3
"""Dialogs and the window's texts fit the screen (gui-xvfb-fit; outside trial 3, finding 7).

dialogs   on a 1280x900 and a 1366x768 screen with no window manager, the
          Open Trace dialog opened at 1096x959 (y -44 on the small one): its
          buttons were off the screen.  Every file dialog (Open Trace, View
          Setup, Export view, Export trace) now lies on the screen, whole.
narrow    at the window's smallest width the subtitle read "picl · we...":
          what the replay does and the clock, the parts that change, were
          cut.  Now it shows them ("breakpoint · 18.732"), not cut, and the
          whole line ("monalisa · breakpoint · clock 18.732") when there is room.
(The variables view's rows cut with an ellipsis at that width are checked on
the rendered pixels: gui-macrame-views /macrame-views/variables-cut.)
Synchronisation polls the app's dumps and xdotool --sync; no sleeps.
Exit 77 when Xvfb or xdotool are missing.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll


def geometry(display, wid):
    out = subprocess.run(["xdotool", "getwindowgeometry", wid], env=dict(os.environ, DISPLAY=display),
                         stdout=subprocess.PIPE, text=True, timeout=X.TIMEOUT, check=True).stdout
    x, y = (int(v) for v in re.search(r"Position: (-?\d+),(-?\d+)", out).groups())
    w, h = (int(v) for v in re.search(r"Geometry: (\d+)x(\d+)", out).groups())
    return x, y, w, h


def find_window(display, name):
    out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", name],
                         env=dict(os.environ, DISPLAY=display), stdout=subprocess.PIPE, timeout=X.TIMEOUT, check=True)
    return out.stdout.split()[0].decode()


def gone(display, name):
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name], env=dict(os.environ, DISPLAY=display),
                         stdout=subprocess.PIPE, timeout=X.TIMEOUT)
    return not out.stdout.split()


def app_env(tmp, name):
    home = os.path.join(tmp, name + "-data")
    os.makedirs(home)
    # the file chooser's remembered size and the recent files are the test's own
    return {"XDG_DATA_HOME": home, "GSETTINGS_BACKEND": "memory", "VIPER_SETTINGS": os.path.join(tmp, name + ".ini")}


def scenario_dialogs(args, tmp, shots, screen):
    sw, sh = (int(v) for v in screen.split("x"))
    xvfb, display = X.start_xvfb(screen + "x24")
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=20"], tmp,
                "dialogs-" + screen, env_extra=app_env(tmp, "dialogs-" + screen))
    try:
        app.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint stop")
        for key, name in (("ctrl+o", "^Open Trace$"), ("shift+ctrl+o", "^View Setup$"), ("ctrl+e", "^Export a view$"),
                          ("shift+ctrl+e", "^Export the trace$")):
            app.key(key)
            wid = find_window(display, name)
            # the file list fills in after the dialog shows, and the dialog
            # sizes itself then: look once its size has stopped changing
            last = [None]

            def settled():
                g = geometry(display, wid)
                same = g == last[0]
                last[0] = g
                return g if same else None
            x, y, w, h = poll(settled, name + " to settle", proc=app.proc)
            shot = os.path.join(shots, "fit-%s-%s.png" % (screen, name.strip("^$").replace(" ", "-").lower()))
            X.screenshot(display, shot)
            check(x >= 0 and y >= 0 and x + w <= sw and y + h <= sh,
                  "%s: %s at %d,%d %dx%d lies on the %dx%d screen" % (screen, name.strip("^$"), x, y, w, h, sw, sh))
            X.xdo(display, "windowfocus", "--sync", wid)
            X.xdo(display, "key", "Escape")
            poll(lambda: gone(display, name), name + " to close", proc=app.proc)
    finally:
        app.close()
        X.stop_xvfb(xvfb)


def scenario_narrow(args, tmp, shots):
    xvfb, display = X.start_xvfb()
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=20"], tmp,
                "narrow", env_extra=app_env(tmp, "narrow"))
    try:
        d = app.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint stop")
        shown = d["ui"]["subtitle_shown"]
        check(shown["shown"] == d["ui"]["subtitle"] and not shown["cut"],
              "a wide window shows the whole subtitle (%s)" % shown)
        # the smallest width: the window is asked for 200 px, GTK gives its minimum
        wid = app.window()
        X.xdo(display, "windowsize", "--sync", wid, "200", "700")
        X.poll(lambda: (lambda l: l if l and l["window"]["width"] < 900 else None)(
            X.read_json(os.path.join(app.dir, "layout.json"))), "the narrow layout", proc=app.proc)
        app.key("Right")   # a step: a dump of the window as it is now
        d = app.wait_state(lambda s: s["why"] == "step", "the step")
        shown = d["ui"]["subtitle_shown"]
        x, y, w, h = geometry(display, wid)
        X.screenshot(display, os.path.join(shots, "fit-narrow.png"))
        clock = re.search(r"clock (\S+)$", d["ui"]["subtitle"]).group(1)
        check(not shown["cut"] and "step" in shown["shown"] and clock in shown["shown"],
              "at the smallest width (%d px) the subtitle shows what the replay does and the clock, whole: %r"
              % (w, shown["shown"]))
    finally:
        app.close()
        X.stop_xvfb(xvfb)


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-fit-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    for screen in ("1280x900", "1366x768"):
        scenario_dialogs(args, tmp, shots, screen)
    scenario_narrow(args, tmp, shots)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
