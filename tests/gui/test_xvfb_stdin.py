#!/usr/bin/env python3
"""A trace on standard input, read once for every reader (gui-xvfb-stdin).

The GUI reads a trace more than once: the paradigm's detection, the replay,
the timeline's index pass, Reset.  Standard input can be read once: with a
file redirected to it the index pass took every line and the replay showed
"No tram: - yielded no tram", with a pipe the status line said "tram 1057
of 0 ... no run (no trams)" (outside trial 3, finding 1).  Now standard
input is kept for them (core/stdin-keep.h):
  redirected  viper - < good.trc: the replay reads what viper-replay reads,
              the status line says "tram 1057 of 1057", Reset and Space read
              it all again
  pipe        cat good.trc | viper -: the same
  open        a pipe that stays open: "of ? (standard input still open)"
              until it ends, then "tram N of N"
  bound       a pipe longer than the spool's bound (VIPER_STDIN_KEEP): the
              replay still reads every tram, the total is known at the end,
              Reset says standard input cannot be read again
Synchronisation never sleeps: the app's dumps (VIPER_DEBUG_DIR) are polled.
Exit 77 when Xvfb or xdotool are missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll


def counts(args, trace):
    out = subprocess.run([args.viper_replay, "--stats", trace], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=120, check=True).stdout
    c = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l and not l.startswith("proc "))
    return {k: int(c[k]) for k in ("read", "transferred", "pending", "rejected", "ignored", "inconsistent")}


def wait_end(app, what):
    d = app.wait_state(lambda s: s["why"] == "end" and s["dumps"] > app.dumps, what)
    return d


def status_when(app, pred, what):
    return poll(lambda: (lambda p: p if p and pred(p.get("status") or "") else None)(app.playback()), what,
                proc=app.proc)


def the_whole_run(app, want, label, shots, display):
    d = wait_end(app, label + ": the end of the replay")
    check(d["state"]["counts"] == want, "%s: the replay read what viper-replay reads (%s, want %s)"
          % (label, d["state"]["counts"], want))
    check(not d["ui"]["infobar"]["visible"], "%s: nothing to complain about (%s)" % (label, d["ui"]["infobar"]))
    check("picl tram types" in (d["ui"]["detect_reason"] or ""),
          "%s: the paradigm is detected from standard input (%s)" % (label, d["ui"]["detect_reason"]))
    n = want["transferred"]
    pb = status_when(app, lambda s: s.startswith("tram %d of %d " % (n, n)), label + ": the status line's total")
    check(" run " in pb["status"] and "no run" not in pb["status"],
          "%s: the status line says the run: %r" % (label, pb["status"]))
    check(pb["trams"] == n, "%s: the timeline's index counted %d trams (%s)" % (label, n, pb["trams"]))
    X.screenshot(display, os.path.join(shots, "stdin-%s.png" % label))
    # Reset reads standard input again, from its start
    app.key("r")
    d = app.wait_state(lambda s: s["why"] == "reset" and s["dumps"] > app.dumps, label + ": the reset")
    check(d["state"]["counts"]["read"] == 0 and not d["ui"]["infobar"]["visible"],
          "%s: Reset rewinds standard input (%s)" % (label, d["ui"]["infobar"]))
    app.key("space")
    d = wait_end(app, label + ": the replay after Reset")
    check(d["state"]["counts"] == want, "%s: after Reset the replay reads it all again (%s)"
          % (label, d["state"]["counts"]))


def scenario_redirected(args, display, tmp, shots, trace, want):
    with open(trace, "rb") as f:
        app = X.App(args, display, ["-", "--breakpoint=1e30"], tmp, "redirected", stdin=f)
    try:
        the_whole_run(app, want, "redirected", shots, display)
    finally:
        app.close()


def scenario_pipe(args, display, tmp, shots, trace, want):
    cat = subprocess.Popen(["cat", trace], stdout=subprocess.PIPE)
    app = X.App(args, display, ["-", "--breakpoint=1e30"], tmp, "pipe", stdin=cat.stdout)
    cat.stdout.close()
    try:
        the_whole_run(app, want, "pipe", shots, display)
    finally:
        app.close()
        cat.wait()


def scenario_open(args, display, tmp, shots, trace, want):
    with open(trace, "rb") as f:
        lines = f.readlines()
    half = len(lines) // 2
    app = X.App(args, display, ["-", "--breakpoint=1e30"], tmp, "open", stdin=subprocess.PIPE)
    try:
        app.proc.stdin.write(b"".join(lines[:half]))
        app.proc.stdin.flush()
        pb = status_when(app, lambda s: "of ? (standard input still open)" in s and not s.startswith("tram 0 "),
                         "open: the status line while standard input is open")
        check(True, "open: the total is not known while standard input is open: %r" % pb["status"])
        X.screenshot(display, os.path.join(shots, "stdin-open.png"))
        app.proc.stdin.write(b"".join(lines[half:]))
        app.proc.stdin.close()
        n = want["transferred"]
        pb = status_when(app, lambda s: s.startswith("tram %d of %d " % (n, n)), "open: the total after its end")
        check(True, "open: at its end the status line knows the total: %r" % pb["status"])
        d = wait_end(app, "open: the end")
        check(d["state"]["counts"] == want, "open: the replay read what viper-replay reads (%s)" % d["state"]["counts"])
    finally:
        app.close()


def scenario_bound(args, display, tmp, shots):
    big = os.path.join(tmp, "big.trc")
    subprocess.run([args.picl_gen, "--procs=6", "--messages=6000", "--seed=3", "-o", big], check=True, timeout=120)
    want = counts(args, big)
    cat = subprocess.Popen(["cat", big], stdout=subprocess.PIPE)
    app = X.App(args, display, ["-", "--breakpoint=1e30"], tmp, "bound", stdin=cat.stdout,
                env_extra={"VIPER_STDIN_KEEP": "100000"})
    cat.stdout.close()
    try:
        d = wait_end(app, "bound: the end of the replay")
        check(d["state"]["counts"] == want, "bound: past the spool's bound the replay still reads every tram (%s)"
              % d["state"]["counts"])
        n = want["transferred"]
        pb = status_when(app, lambda s: s.startswith("tram %d of %d " % (n, n)), "bound: the total at the end")
        check(True, "bound: the status line's total is the replay's at its end: %r" % pb["status"])
        app.key("r")
        d = app.wait_state(lambda s: s["why"] == "reset" and s["dumps"] > app.dumps, "bound: the reset")
        text = d["ui"]["infobar"]["text"] or ""
        check(d["ui"]["infobar"]["visible"] and "cannot be rewound" in text and "not kept" in text,
              "bound: Reset says standard input cannot be read again (%r)" % text)
        X.screenshot(display, os.path.join(shots, "stdin-bound-reset.png"))
    finally:
        app.close()
        cat.wait()


def main():
    args = X.parse_args(["--picl-gen"])
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-stdin-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "good.trc")
    subprocess.run([args.picl_gen, "--procs=4", "--messages=200", "--seed=7", "-o", trace], check=True, timeout=60)
    want = counts(args, trace)
    check(want["transferred"] == 1057, "the trace has 1057 trams (%s)" % want)
    xvfb, display = X.start_xvfb()
    try:
        scenario_redirected(args, display, tmp, shots, trace, want)
        scenario_pipe(args, display, tmp, shots, trace, want)
        scenario_open(args, display, tmp, shots, trace, want)
        scenario_bound(args, display, tmp, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
