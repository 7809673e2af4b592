#!/usr/bin/env python3
"""The Breakpoint dialog (B) stopping at a tram, under Xvfb.

On the Farm trace: B opens the dialog, Alt+T chooses a tram rather than a
clock (the dump says so).  A malformed tram ("2:x") is refused in the dialog
with the very message viper-replay --until-tram gives for it, and the dialog
stays open; then "2:5" (PROC:SEQ) is taken: the replay fast-forwards and
stops right after that tram, in the state viper-replay --until-tram=2:5
writes (the same as --steps at that tram), and the status line says
"at tram 2:5", and the space-time view rings that tram (the dump's
tram_mark; the ring's blue pixels in the screenshot, gone once Go runs on).
Opened again, the dialog shows the tram.  Space goes on past
it to the end; R arms it again and Space stops there again.  Then a later
tram by FILE:LINE (farm.trc:LINE) stops where viper-replay does with the
same value.  Screenshots are kept with --keep.  Exit 77 when Xvfb, xdotool
or ImageMagick are missing.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402  (the shared harness: Xvfb, App, probes)

check = X.check


def type_text(display, text):
    env = dict(os.environ, DISPLAY=display)
    subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+a"], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "type", "--delay", "5", text], env=env, check=True, timeout=X.TIMEOUT)
    subprocess.run(["xdotool", "key", "Return"], env=env, check=True, timeout=X.TIMEOUT)


def blue_pixels(png, ui):
    """Pixels within a fuzz of the marker blue, (0.1, 0.3, 0.9), in the space-time view's frame."""
    v = ui["views"]["spacetime"]
    crop = "%dx%d+%d+%d" % (v["width"], v["height"], v["x"], v["y"])
    r = subprocess.run([X.CONVERT, png, "-crop", crop, "+repage", "-fuzz", "12%", "-fill", "black", "+opaque", "#1A4DE6", "-fill", "white",
                        "-opaque", "#1A4DE6", "-format", "%[fx:round(mean*w*h)]", "info:"],
                       capture_output=True, text=True, timeout=X.TIMEOUT)
    return int(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip().isdigit() else -1


def cli(args, base, extra):
    r = subprocess.run([args.viper_replay, "--quiet", "--state-out=-"] + base + extra, capture_output=True, text=True,
                       timeout=60)
    return r, json.loads(r.stdout) if r.stdout else None


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-tram-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    base = ["--paradigm=monalisa", "--setup=" + setup, trace]
    # a later tram, by the line it was read from: proc 3's seq 10
    line = next(no for no, l in enumerate(open(trace), 1)
                if len(l.split()) > 7 and l.split()[3] == "3" and l.split()[7] == "10")
    xvfb, display = X.start_xvfb()
    app = None
    try:
        app = X.App(args, display, base[:2] + [trace], tmp, "tram")
        X.poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the run's index",
               proc=app.proc)

        app.key("b")
        d = app.wait_state(lambda s: s["ui"].get("breakpoint_dialog"), "the Breakpoint dialog")
        check(d["ui"]["breakpoint_dialog"]["tram"] is False, "the dialog starts on a clock")
        X.xdo(display, "key", "--clearmodifiers", "alt+t")
        d = app.wait_state(lambda s: (s["ui"].get("breakpoint_dialog") or {}).get("tram"), "the choice of a tram")
        X.screenshot(display, os.path.join(shots, "tram-1-dialog.png"))

        # malformed: the message viper-replay gives, in the dialog, which stays open
        type_text(display, "2:x")
        d = app.wait_state(lambda s: (s["ui"].get("breakpoint_dialog") or {}).get("error"), "the refusal")
        err = d["ui"]["breakpoint_dialog"]["error"]
        r = subprocess.run([args.viper_replay, "--until-tram=2:x"] + base, capture_output=True, text=True, timeout=60)
        want = r.stderr.splitlines()[0].replace("viper-replay: --until-tram: ", "", 1) if r.stderr else None
        check(r.returncode == 2 and err == want, "the dialog refuses 2:x as viper-replay does (%r vs %r)" % (err, want))
        check(app.proc.poll() is None, "the app is still running")
        X.screenshot(display, os.path.join(shots, "tram-2-refused.png"))

        # PROC:SEQ: taken, the replay fast-forwards and stops right after it
        type_text(display, "2:5")
        d = app.wait_state(lambda s: s["why"] == "tram" and not s["ui"].get("breakpoint_dialog"), "the stop at 2:5")
        r, want = cli(args, base, ["--until-tram=2:5"])
        check(r.returncode == 0 and X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"]
              and d["state"]["clock"] == want["clock"],
              "stopped at tram 2:5 as viper-replay --until-tram=2:5 (%s vs %s)" % (d["state"]["counts"], want["counts"]))
        check("at tram 2:5" in (d["ui"]["subtitle"] or ""), "the status line says so (%r)" % d["ui"]["subtitle"])
        mark = d["ui"].get("tram_mark")
        check(mark is not None and mark["module"] == 2 and mark["label"] == "tram 2:5"
              and mark["time"] <= d["state"]["clock"], "the space-time view rings tram 2:5 (%r)" % (mark,))
        X.screenshot(display, os.path.join(shots, "tram-3-stopped.png"))
        blue_at_stop = blue_pixels(os.path.join(shots, "tram-3-stopped.png"), d["ui"])
        stop1 = d["state"]

        # open again: the tram is shown as set
        app.key("b")
        d = app.wait_state(lambda s: s["ui"].get("breakpoint_dialog"), "the dialog again")
        check(d["ui"]["breakpoint_dialog"]["tram"] is True, "the dialog shows the tram breakpoint")
        X.screenshot(display, os.path.join(shots, "tram-4-again.png"))
        X.xdo(display, "key", "Escape")
        app.wait_state(lambda s: not s["ui"].get("breakpoint_dialog"), "the dialog closed")

        # Go passes it; Reset arms it again
        app.key("space")
        d = app.wait_state(lambda s: s["why"] == "end", "the end after Go")
        check(d["state"]["counts"]["transferred"] > stop1["counts"]["transferred"], "Go went on past the tram")
        check(d["ui"].get("tram_mark") is None, "past the tram the mark is gone (%r)" % (d["ui"].get("tram_mark"),))
        X.screenshot(display, os.path.join(shots, "tram-3b-end.png"))
        blue_at_end = blue_pixels(os.path.join(shots, "tram-3b-end.png"), d["ui"])
        check(blue_at_end >= 0 and blue_at_stop >= blue_at_end + 40,
              "the ring is drawn at the stop and not after Go (%d, then %d marker-blue pixels)"
              % (blue_at_stop, blue_at_end))
        app.key("r")
        app.wait_state(lambda s: s["why"] == "reset", "the reset")
        app.key("space")
        d = app.wait_state(lambda s: s["why"] == "tram", "the stop at 2:5 after the reset")
        check(X.same_modules(d["state"], stop1) and d["state"]["counts"] == stop1["counts"],
              "after Reset the tram stops the replay again, in the same state")

        # FILE:LINE, with the base name as the bad-line reports name the file
        app.key("b")
        app.wait_state(lambda s: (s["ui"].get("breakpoint_dialog") or {}).get("tram"), "the dialog on a tram")
        v = "farm.trc:%d" % line
        type_text(display, v)
        d = app.wait_state(lambda s: s["why"] == "tram" and not s["ui"].get("breakpoint_dialog")
                           and "at tram " + v in (s["ui"]["subtitle"] or ""), "the stop at " + v)
        r, want = cli(args, base, ["--until-tram=" + v])
        check(r.returncode == 0 and X.same_modules(d["state"], want) and d["state"]["counts"] == want["counts"]
              and d["state"]["counts"] != stop1["counts"],
              "stopped at %s as viper-replay --until-tram=%s (%s)" % (v, v, d["state"]["counts"]))
        X.screenshot(display, os.path.join(shots, "tram-5-file-line.png"))

        # a tram the state shown has passed (2:5, before farm.trc:LINE): back to it, not on to the end
        app.key("b")
        app.wait_state(lambda s: (s["ui"].get("breakpoint_dialog") or {}).get("tram"), "the dialog, for a past tram")
        type_text(display, "2:5")
        d = app.wait_state(lambda s: not s["ui"].get("breakpoint_dialog") and s["why"] != "tram"
                           or ("at tram 2:5" in (s["ui"]["subtitle"] or "")), "the seek back to 2:5")
        check(X.same_modules(d["state"], stop1) and d["state"]["counts"] == stop1["counts"]
              and "at tram 2:5" in (d["ui"]["subtitle"] or ""),
              "a tram already passed: back to right after it (%s, %r)" % (d["state"]["counts"], d["ui"]["subtitle"]))
        mark = d["ui"].get("tram_mark")
        check(mark is not None and mark["label"] == "tram 2:5", "back at 2:5, the ring is on it again (%r)" % (mark,))
        X.screenshot(display, os.path.join(shots, "tram-6-back.png"))
        app.close()

        # the same stop from the command line: viper --until-tram=2:5 fast-forwards there at start
        app = X.App(args, display, base[:2] + ["--until-tram=2:5", trace], tmp, "tram-cli")
        d = app.wait_state(lambda s: s["why"] == "tram", "the stop at 2:5 from --until-tram")
        check(X.same_modules(d["state"], stop1) and d["state"]["counts"] == stop1["counts"]
              and "at tram 2:5" in (d["ui"]["subtitle"] or ""),
              "viper --until-tram=2:5 stops where the dialog's 2:5 did (%s, %r)" % (d["state"]["counts"],
                                                                                 d["ui"]["subtitle"]))
        X.screenshot(display, os.path.join(shots, "tram-7-command-line.png"))
    finally:
        if app:
            app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
