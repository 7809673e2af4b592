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
