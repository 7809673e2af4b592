#!/usr/bin/env python3
"""A module that connects late is part of the run, not a new run (gui-xvfb-late).

viper --listen on a Unix socket.  A generated PICL run is sent one
connection per processor: first processor A alone (sent, then closed, and
read by the app), then the other processors, each on its own connection,
opened together.  The second batch arrives while no connection is open, in a
session that holds trams - which used to start the session over and throw
A's trams away (`viper-replay --listen` kept them).  Now the first tram's
processor decides: one the session has not seen is a late module of the same
run.  The app's state must equal `viper-replay --state-out` of the file, with
no new run.  Then the whole run is sent again (a rerun: its first tram comes
from a processor already seen): that one starts the session over, once, and
ends in the same state.  Screenshots: late-1.png, late-2-rerun.png.
Exit 77 when Xvfb or xdotool are missing.
"""
import collections
import os
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check = X.check


def send(sock_path, groups):
    """Open one connection per group first, then send each group's lines on it, all at once."""
    conns = []
    for _ in groups:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(X.TIMEOUT)
        s.connect(sock_path)
        conns.append(s)

    def go(s, lines):
        s.sendall("".join(lines).encode())
        s.close()
    ts = [threading.Thread(target=go, args=(s, g)) for s, g in zip(conns, groups)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(X.TIMEOUT)


def main():
    args = X.parse_args(["--picl-gen"])
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-late-")
    trace = os.path.join(tmp, "late.trc")
    subprocess.run([args.picl_gen, "--procs=4", "--messages=60", "--seed=5", "--output=" + trace],
                   check=True, timeout=60)
    want = subprocess.run([args.viper_replay, "--state-out=-", "--quiet", trace], stdout=subprocess.PIPE,
                          check=True, timeout=60).stdout
    want = X.json.loads(want)
    by = collections.OrderedDict()
    for line in open(trace):
        if line.strip() and not line.startswith("#"):
            by.setdefault(line.split()[3], []).append(line)
    procs = [p for p in by if p != "-1"]
    first = procs[0]
    rest = [by[p] for p in by if p != first]
    sock = os.path.join(tmp, "v.sock")
    xvfb, display = X.start_xvfb()
    shots = args.keep or tmp
    app = X.App(args, display, ["--listen=unix:" + sock, "--paradigm=picl"], tmp, "late")
    try:
        X.poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        n1 = len(by[first])
        send(sock, [by[first]])
        app.wait_state(lambda s: s["state"]["counts"]["read"] == n1 and s["ui"]["connections"]["open"] == 0,
                       "processor %s's %d lines read, its connection closed" % (first, n1))
        send(sock, rest)
        n = want["counts"]["read"]
        d = app.wait_state(lambda s: s["why"] == "live-idle" and s["ui"]["connections"]["open"] == 0
                           and (s["state"]["counts"]["read"] == n or s["ui"]["new_runs"] > 0)
                           and s["state"]["counts"]["transferred"] == s["state"]["counts"]["read"]
                           - s["state"]["counts"]["pending"], "the late processors read")
        check(d["ui"]["new_runs"] == 0, "late modules: no new run (new_runs %d)" % d["ui"]["new_runs"])
        check(d["state"]["counts"] == want["counts"], "late modules: counts = viper-replay's on the file (%s, want %s)"
              % (d["state"]["counts"], want["counts"]))
        check(X.same_modules(d["state"], want) and d["state"]["clock"] == want["clock"],
              "late modules: every processor and the clock = viper-replay's")
        # the timeline's line knows the live run's range once trams are in
        # (the strip follows the clock ten times a second)
        pbj = X.poll(lambda: (lambda p: p if p and p["clock"] == want["clock"] else None)(app.playback()),
                     "the timeline at the clock", proc=app.proc)
        check(pbj["live"] and " \u00b7 run " in pbj["status"] and "not known" not in pbj["status"],
              "live: the status line gives the run's range (%r)" % pbj["status"])
        check(pbj["run"][1] == want["clock"] and pbj["run"][0] < pbj["run"][1],
              "live: the timeline spans the run up to the clock (%s, clock %s)" % (pbj["run"], want["clock"]))
        X.screenshot(display, os.path.join(shots, "late-1.png"))
        # a rerun: the first tram comes from a processor the session holds
        send(sock, list(by.values()))
        d = app.wait_state(lambda s: s["why"] == "live-idle" and s["ui"]["new_runs"] == 1
                           and s["ui"]["connections"]["open"] == 0 and s["state"]["counts"]["read"] == n
                           and s["state"]["counts"]["pending"] == want["counts"]["pending"], "the rerun")
        check(d["state"]["counts"] == want["counts"], "rerun: one new run, counts = viper-replay's (%s)"
              % d["state"]["counts"])
        check(X.same_modules(d["state"], want), "rerun: every processor = viper-replay's")
        X.screenshot(display, os.path.join(shots, "late-2-rerun.png"))
    finally:
        app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, None, args.keep)


if __name__ == "__main__":
    sys.exit(main())
