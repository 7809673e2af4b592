#!/usr/bin/env python3
"""viper --clock=drift under Xvfb: the global time reaches the GUI (issue 15).

Opens a skewed, shuffled 8-processor PICL trace with --clock=drift and plays
it to the end; the app's state dump (the document viper-replay --state-out
writes) must carry the clock_sync fields with the same per-processor offsets
and drifts as viper-replay --clock=drift computes, and Ctrl+I must bring up
the status window (which shows them).  Screenshots are kept with --keep.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402


def poll_counts(app, counts):
    """The dumps until one has the counts wanted (or the last one, at the time limit)."""
    d = app.wait_dump("the replay again")
    for _ in range(40):
        if d["state"]["counts"] == counts:
            break
        d = app.wait_dump("the replay again, to its end")
    return d


def open_dialog_case(args, display, tmp, trace, shots):
    """File > Open with the dialog's Clock choice set to clc (Alt+L, Down, Down):
    the session replays with the controlled logical clock, as viper-replay."""
    want = json.loads(subprocess.run([args.viper_replay, "-q", "--clock=clc", "--state-out=-", trace],
                                     stdout=subprocess.PIPE, check=True, timeout=60).stdout)
    app = X.App(args, display, ["--paradigm=picl", "--breakpoint=1e9", trace], tmp, "clock-dialog")
    try:
        d = app.wait_dump("the end of the decay replay")
        X.check(d["state"].get("clock_mode") is None, "opened without --clock: decay (no clock fields)")
        env = dict(os.environ, DISPLAY=display)
        app.key("ctrl+o")
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Open Trace"], env=env,
                       stdout=subprocess.DEVNULL, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+l"], env=env, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "type", "--delay", "5", trace], env=env, check=True, timeout=X.TIMEOUT)
        # the Clock combo (mnemonic Alt+L) from decay to clc, then Return in the location bar
        subprocess.run(["xdotool", "key", "--clearmodifiers", "alt+l"], env=env, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "key", "Down", "Down"], env=env, check=True, timeout=X.TIMEOUT)
        X.screenshot(display, os.path.join(shots, "clock-open-dialog.png"))
        subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+l"], env=env, check=True, timeout=X.TIMEOUT)
        subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)
        d = app.wait_dump("the trace opened again")
        X.check(d["state"].get("clock_mode") == "clc", "the Open dialog's Clock choice clc reaches the session (%s)"
                % d["state"].get("clock_mode"))
        app.key("space")
        d = poll_counts(app, want["counts"])
        X.check(d["state"]["counts"] == want["counts"] and d["state"].get("clock_sync", {}).get("modules")
                == want["clock_sync"]["modules"], "and replays as viper-replay --clock=clc (%s)" % d["state"]["counts"])
    finally:
        app.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--keep", help="directory to keep the screenshots in")
    args = ap.parse_args()
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-clock-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "skewed.trc")
    subprocess.run([args.gen, "-P", "8", "-M", "400", "-s", "3", trace, os.path.join(tmp, "t.txt"),
                    os.path.join(tmp, "m.json")], check=True)
    want = json.loads(subprocess.run([args.viper_replay, "-q", "--clock=drift", "--state-out=-", trace],
                                     stdout=subprocess.PIPE, check=True, timeout=60).stdout)
    xvfb, display = X.start_xvfb()
    app = None
    try:
        app = X.App(args, display, ["--paradigm=picl", "--clock=drift", "--breakpoint=1e9", trace], tmp, "clock")
        d = app.wait_dump("the end of the replay")
        st = d["state"]
        X.check(st.get("clock_mode") == "drift", "the GUI's session uses --clock=drift (%s)" % st.get("clock_mode"))
        cs = st.get("clock_sync", {})
        X.check(cs.get("modules") == want["clock_sync"]["modules"],
                "per-processor offsets, drifts and repairs = viper-replay --clock=drift's")
        X.check(any(abs(m["clock_offset"]) > 1e-3 for m in cs.get("modules", [])),
                "the offsets estimated are not all zero")
        X.check(st["counts"] == want["counts"], "counts = viper-replay's")
        # the replay plays back the trams the analysis kept: after Reset they all come again
        app.key("r")
        app.wait_dump("the reset")
        app.key("space")
        d = poll_counts(app, want["counts"])
        X.check(d["state"]["counts"] == want["counts"] and d["state"].get("clock_sync", {}).get("modules")
                == want["clock_sync"]["modules"],
                "after Reset the replay again gives the same counts and clocks (%s)" % d["state"]["counts"])
        app.key("ctrl+i")
        out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Viper status$"],
                             env=dict(os.environ, DISPLAY=display), stdout=subprocess.PIPE, timeout=X.TIMEOUT)
        X.check(bool(out.stdout.split()), "Ctrl+I shows the status window")
        # the status window refreshes on the update timer: one more dump is one more frame
        app.key("r")
        app.wait_dump("the reset")
        app.key("space")
        app.wait_dump("the replay again")
        X.screenshot(display, os.path.join(shots, "clock-status.png"))
        app.close()
        app = None
        open_dialog_case(args, display, tmp, trace, shots)
    finally:
        if app:
            app.close()
        xvfb.terminate()
        xvfb.wait()
    print("screenshots in", shots)
    if X.failures:
        print("%d checks failed" % len(X.failures))
        return 1
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
