#!/usr/bin/env python3
"""Subset definitions dated 0 before epoch clocks do not stretch the GUI's run (gui-xvfb-epoch).

Real writers date the picl subset definitions (PROC -1) 0 while every
processor's events carry epoch seconds.  The run's range was then 0 ..
1.73e9 s: the space-time view drew the program in its last pixel and the
status line said "run 0 - 1732780800.9".  Now the timeline's run, the status
line and the space-time view's extent start at the first processor's tram.
Synchronisation never sleeps: the app's dumps (VIPER_DEBUG_DIR) are polled.
Exit 77 when Xvfb or xdotool are missing.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check = X.check
BASE = 1732780800
TRACE = "\n".join([
    "-202 -812 0.0 -1 -1 3 2 5 0 1",
    f"-3 -901 {BASE}.5 0 0 0", f"-3 -21 {BASE}.6 0 0 4 2 8 1 1 0", f"-4 -21 {BASE}.61 0 0 0",
    f"-3 -402 {BASE}.7 0 0 1 2 5", f"-4 -402 {BASE}.8 0 0 0", f"-4 -901 {BASE}.9 0 0 0",
    f"-3 -901 {BASE}.55 1 0 0", f"-3 -52 {BASE}.56 1 0 3 2 1 0 0", f"-4 -52 {BASE}.65 1 0 4 2 8 1 0 0",
    f"-3 -402 {BASE}.71 1 0 1 2 5", f"-4 -402 {BASE}.81 1 0 0", f"-4 -901 {BASE}.91 1 0 0", ""])
FIRST, LAST = float(f"{BASE}.5"), float(f"{BASE}.91")


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-epoch-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "epoch.trf")
    with open(trace, "w") as f:
        f.write(TRACE)
    xvfb, display = X.start_xvfb()
    app = X.App(args, display, ["--paradigm=picl", "--breakpoint=1e12", trace], tmp, "epoch")
    try:
        d = app.wait_dump("the end of the run")
        check(d["state"]["clock"] == LAST, "the clock is the last processor's tram (%s)" % d["state"]["clock"])
        pb = X.poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the timeline's index",
                    proc=app.proc)
        check(pb["run"] == [FIRST, LAST], "the timeline's run is the processors' %s, not from 0" % pb["run"])
        m = re.search(r"run (\S+) \u2013 (\S+)$", pb["status"])
        check(m is not None and abs(float(m[1]) - FIRST) < 1e-3 and abs(float(m[2]) - LAST) < 1e-3,
              "the status line names the processors' run: %r" % pb["status"])
        st = X.poll(lambda: (lambda s: s if s and s["run"][1] == LAST else None)(
            X.read_json(os.path.join(app.dir, "spacetime.json"))), "the space-time view at the end", proc=app.proc)
        check(st["run"] == [FIRST, LAST] and st["t0"] == FIRST,
              "the space-time view spans the processors' run: t0 %s, run %s" % (st["t0"], st["run"]))
        # its time axis: labels relative to a base written once, apart, inside the view
        # (epoch labels ran together and the last was clipped: outside trial 3, finding 4)
        labels = st["axis"]
        check(labels and labels[0]["base"] and labels[0]["text"].startswith("t0 = 17327808"),
              "the axis writes the epoch base once: %s" % (labels[0]["text"] if labels else None))
        check(len(labels) >= 4 and all(l["text"].startswith("+") for l in labels[1:]),
              "the ticks are labelled after it: %s" % [l["text"] for l in labels])
        left, right = st["origin"][0], st["origin"][0] + st["width"]
        check(all(left <= l["x"] and l["x"] + l["width"] <= right for l in labels),
              "every axis label lies inside the view [%d, %d]" % (left, right))
        check(all(a["x"] + a["width"] + 4 <= b["x"] for a, b in zip(labels, labels[1:])),
              "no two axis labels overlap: %s" % [(round(l["x"]), round(l["x"] + l["width"])) for l in labels])
        if os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK):
            X.screenshot(display, os.path.join(shots, "epoch-defs-at-0.png"))
    finally:
        app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
