#!/usr/bin/env python3
"""The Breakpoint dialog (B) under Xvfb, on a trace whose clock is Unix time.

The Farm with every TIME moved by 1795549589 (clocks near 1.8e9, as a
cluster stamped in Unix seconds writes them).  Once the background index has
read the run, B opens the dialog, which must show the run's first and last
clock and its tram count as the readouts write them (every integer digit,
no "1.79555e+09"), the same values as the timeline's playback.json run and
trams.  Text that is not a number ("12:30") is refused with a message in the
dialog, which stays open; then a plain number typed in the readouts' format
(the first clock shown + 40) is taken: the replay fast-forwards to it and
stops where viper-replay --until=that clock stops.  The dialog's text comes
from the app's state dump (ui.breakpoint_dialog); screenshots are kept with
--keep.  Exit 77 when Xvfb, xdotool or ImageMagick are missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402  (the shared harness: Xvfb, App, probes)

check = X.check
SHIFT = 1795549589.0
RUN_RE = re.compile(r"^The run goes from (\S+) to (\S+) \((\d+) trams\); the clock (?:is at (\S+)|has not started)\.$")


def unix_time_trace(src, dst):
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) < 3:
                out.write(line)
                continue
            fields[2] = "%.3f" % (float(fields[2]) + SHIFT)
            out.write(" ".join(fields) + "\n")


def type_text(display, text):
    env = dict(os.environ, DISPLAY=display)
    subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+a"], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "type", "--delay", "5", text], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-bp-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "farm-unix.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    unix_time_trace(os.path.join(args.source_root, "traces", "farm.trc"), trace)
    xvfb, display = X.start_xvfb()
    app = None
    try:
        app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa"], tmp, "bp")
        pb = X.poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the run's index",
                    proc=app.proc)
        check(pb["run"][0] > 1e9 and pb["trams"] > 100, "the index read the run (%s, %d trams)" % (pb["run"], pb["trams"]))

        app.key("b")
        d = app.wait_state(lambda s: s["ui"].get("breakpoint_dialog"), "the Breakpoint dialog in the dump")
        run = d["ui"]["breakpoint_dialog"]["run"]
        print("# dialog: " + run)
        m = RUN_RE.match(run)
        check(m is not None and "e+" not in run, "the dialog shows the run's range and trams (%r)" % run)
        if m:
            first, last = m.group(1), m.group(2)
            check(re.fullmatch(r"17955\d{5}(\.\d{1,3})?", first) is not None
                  and re.fullmatch(r"17955\d{5}(\.\d{1,3})?", last) is not None,
                  "first and last clock with every integer digit (%s, %s)" % (first, last))
            check(abs(float(first) - pb["run"][0]) <= 5e-4 and abs(float(last) - pb["run"][1]) <= 5e-4,
                  "the range is the timeline's (%s - %s vs %s)" % (first, last, pb["run"]))
            check(int(m.group(3)) == pb["trams"], "the tram count is the timeline's (%s vs %d)" % (m.group(3), pb["trams"]))
        check(d["ui"]["breakpoint_dialog"]["error"] is None, "no message before anything is typed")
        X.screenshot(display, os.path.join(shots, "bp-1-dialog.png"))

        # not a number: refused in the dialog, which stays open
        type_text(display, "12:30")
        d = app.wait_state(lambda s: (s["ui"].get("breakpoint_dialog") or {}).get("error"), "the refusal")
        err = d["ui"]["breakpoint_dialog"]["error"]
        check("12:30" in err and "not a clock value" in err, "the dialog says why 12:30 is refused (%r)" % err)
        check(app.proc.poll() is None, "the app is still running")
        X.screenshot(display, os.path.join(shots, "bp-2-refused.png"))

        # a plain number in the readouts' format: taken, the replay fast-forwards and stops there
        bp = "%.3f" % (float(m.group(1)) + 40 if m else pb["run"][0] + 40)
        type_text(display, bp)
        d = app.wait_state(lambda s: s["why"] == "breakpoint" and not s["ui"].get("breakpoint_dialog"),
                           "the stop at the breakpoint typed")
        want = json.loads(subprocess.run([args.viper_replay, "--paradigm=monalisa", "--setup=" + setup, "--until=" + bp,
                                          "--state-out=-", "--quiet", trace], stdout=subprocess.PIPE,
                                         timeout=60).stdout)
        check(X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"],
              "stopped at %s as viper-replay --until=%s" % (bp, bp))
        X.screenshot(display, os.path.join(shots, "bp-3-stopped.png"))

        # open again: the breakpoint is shown as set, the clock now in the run line
        app.key("b")
        d = app.wait_state(lambda s: s["ui"].get("breakpoint_dialog"), "the dialog again")
        run = d["ui"]["breakpoint_dialog"]["run"]
        m2 = RUN_RE.match(run)
        check(m2 is not None and m2.group(4) is not None and abs(float(m2.group(4)) - d["state"]["clock"]) <= 5e-4,
              "the dialog shows the clock at the stop (%r, clock %s)" % (run, d["state"]["clock"]))
        X.screenshot(display, os.path.join(shots, "bp-4-again.png"))
        X.xdo(display, "key", "Escape")   # to the dialog, which has the focus
        app.wait_state(lambda s: not s["ui"].get("breakpoint_dialog"), "the dialog closed")
    finally:
        if app:
            app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
