#!/usr/bin/env python3
"""gui-xvfb-cache: the views' cached frames on screen show the state, not an old one.

The view widgets paint through a frame cache redrawn only where the model's
damage says (paradigms/views-cache.c, issue 13).  Under Xvfb, on the Farm:
stop at a breakpoint; hide the animation and program views and replay to the
end (their damage is dropped while hidden); show them again; resize the
window; step back; Back held (one seek for the presses queued); reset - after
each, every module's colour in every view
and the program square are probed against the app's own state dump, as
test_xvfb.py does.  A cache that kept its frame across any of these shows
the old colours and fails.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll


def wait_state(app, pred, what):
    d = poll(lambda: (lambda s: s if s and s["dumps"] > app.dumps and pred(s) else None)(app.state()), what,
             proc=app.proc)
    app.dumps = d["dumps"]
    return d


def fresh_layout(app, n, pred, what):
    """layout.json once it satisfies pred (it is written after every paint)."""
    return poll(lambda: (lambda l: l if l and len(l["views"]["animation"]) == n and pred(l) else None)(
        X.read_json(os.path.join(app.dir, "layout.json"))), what, proc=app.proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--keep", help="keep the screenshots in this directory")
    args = ap.parse_args()
    for tool in ("Xvfb", "xdotool", "import", "convert"):
        if not shutil.which(tool):
            print("%s is not installed: skipping" % tool)
            return 77
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    with tempfile.TemporaryDirectory(prefix="viper-xvfb-cache-") as tmp:
        shots = args.keep or os.path.join(tmp, "shots")
        os.makedirs(shots, exist_ok=True)
        xvfb, display = X.start_xvfb()
        app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=2.6"], tmp,
                    "cache")
        try:
            d = app.wait_dump("the breakpoint stop")
            check(d["why"] == "breakpoint", "stops at the breakpoint (why=%s)" % d["why"])
            n = len(d["state"]["modules"])
            layout = app.layout(n)
            X.probe(X.screenshot(display, os.path.join(shots, "c1-breakpoint.png")), layout, d["state"], "breakpoint")
            at_bp = d["state"]

            # hidden while the replay goes on: shown again, they show the end
            app.key("alt+1")
            app.key("alt+4")
            wait_state(app, lambda s: not s["ui"]["views"]["animation"]["shown"]
                       and not s["ui"]["views"]["program"]["shown"], "the top views hidden")
            app.key("space")
            d = wait_state(app, lambda s: s["why"] == "end", "the end of the replay")
            check(X.module_states(d["state"]) != X.module_states(at_bp), "the end differs from the breakpoint")
            app.key("alt+1")
            app.key("alt+4")
            d = wait_state(app, lambda s: s["ui"]["views"]["animation"]["shown"]
                           and s["ui"]["views"]["program"]["shown"], "the top views shown again")
            layout = fresh_layout(app, n, lambda l: len(l["views"]["program"]) == 1, "the animation laid out again")
            X.probe(X.screenshot(display, os.path.join(shots, "c2-shown-again.png")), layout, d["state"],
                    "shown again after the replay")

            # a resize: every view laid out at its new size
            env = dict(os.environ, DISPLAY=display)
            subprocess.run(["xdotool", "windowsize", "--sync", app.window(), "1240", "960"], env=env, check=True,
                           timeout=X.TIMEOUT)
            layout = fresh_layout(app, n, lambda l: l["views"]["animation"] != layout["views"]["animation"],
                                  "the layout after the resize")
            X.probe(X.screenshot(display, os.path.join(shots, "c3-resized.png")), layout, d["state"], "resized")

            # back one state change (a reset and a replay to it)
            app.key("Left")
            d = wait_state(app, lambda s: s["why"] in ("step", "breakpoint", "stopped", "end")
                           and s["steps"] == d["steps"] - 1, "the step back")
            layout = fresh_layout(app, n, lambda l: True, "the layout after the step back")
            X.probe(X.screenshot(display, os.path.join(shots, "c4-back.png")), layout, d["state"], "step back")

            # Back held down: the presses already queued make one seek, not one
            # each (a seek per press went on for seconds after a held key was let go)
            seeks0 = app.playback()["back_seeks"]
            presses = 12
            app.keys("Left", presses)
            d = wait_state(app, lambda s: s["steps"] == d["steps"] - presses, "%d steps back" % presses)
            pb = poll(lambda: (lambda p: p if p and p["back_seeks"] > seeks0 else None)(app.playback()),
                      "the seeks of Back", proc=app.proc)
            check(pb["back_seeks"] - seeks0 < presses, "%d presses of Back made %d seeks (fewer than one each)"
                  % (presses, pb["back_seeks"] - seeks0))
            layout = fresh_layout(app, n, lambda l: True, "the layout after Back held")
            X.probe(X.screenshot(display, os.path.join(shots, "c4b-back-held.png")), layout, d["state"],
                    "Back held")

            # reset: everything inactive again
            app.key("r")
            d = wait_state(app, lambda s: s["why"] == "reset", "the reset")
            check(all(m["state"] == "inactive" for m in d["state"]["modules"]), "reset: every module inactive")
            X.probe(X.screenshot(display, os.path.join(shots, "c5-reset.png")), app.layout(n), d["state"], "reset")
        finally:
            app.close()
            xvfb.terminate()
            xvfb.wait()
        if X.failures:
            print("%d checks failed" % len(X.failures))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
