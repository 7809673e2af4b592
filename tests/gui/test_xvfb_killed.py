#!/usr/bin/env python3
"""A live MPI-like run cut off: the banner names only the ranks that never finished (gui-xvfb-killed).

viper --listen on a Unix socket, paradigm picl.  Three processors, one
connection each, as libviper-mpi streams them: P0 sends to P1 and stops
tracing (-4 -901: it finalized); P1 receives it, posts another receive and
its connection is cut in the middle of a line (the rank was killed); P2 stops
tracing too.  The red "Connection lost" bar must name P1 alone - "1 module
never finished (P1)" - and say the cut connection; P0 and P2 stay in the
states spec/picl.md defines (busy outside communication), P1 idle in its
receive.  (The bar named all three: a picl processor never reached a final
state, whether it finalized or not.)
Screenshot: killed.png.  Exit 77 when Xvfb or xdotool are missing.
"""
import os
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check = X.check

RANKS = [
    "-3 -901 0 0 0 0\n-3 -21 0.1 0 0 4 2 8 7 1 0\n-4 -21 0.2 0 0 0\n-4 -901 0.3 0 0 0\n",
    "-3 -901 0 1 0 0\n-3 -52 0.05 1 0 3 2 7 0 0\n-4 -52 0.25 1 0 4 2 8 7 0 0\n-3 -52 0.3 1 0 3 2 9 2 0\n-4 -52 0.9",
    "-3 -901 0 2 0 0\n-4 -901 0.5 2 0 0\n",
]


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-killed-")
    sock = os.path.join(tmp, "v.sock")
    xvfb, display = X.start_xvfb()
    shots = args.keep or tmp
    app = X.App(args, display, ["--listen=unix:" + sock, "--paradigm=picl"], tmp, "killed")
    try:
        X.poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        conns = []
        for _ in RANKS:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(X.TIMEOUT)
            s.connect(sock)
            conns.append(s)
        for s, text in zip(conns, RANKS):
            s.sendall(text.encode())
        for s in conns:
            s.close()
        d = app.wait_state(lambda s: s["ui"]["live"] == "lost" and s["ui"]["infobar"]["visible"]
                           and "Connection lost" in (s["ui"]["infobar"]["text"] or "")
                           and s["state"]["counts"]["read"] == 11, "the connection lost bar")
        text = d["ui"]["infobar"]["text"]
        check("1 module never finished (P1)" in text,
              "the bar names the one rank that never finished, not the two that stopped tracing (%r)" % text)
        check("1 connection cut off" in text, "the bar says the cut connection (%r)" % text)
        states = X.module_states(d["state"])
        check(states.get(0) == "busy" and states.get(2) == "busy" and states.get(1) == "idle",
              "P0 and P2 busy (the spec's states), P1 idle in its receive (%s)" % states)
        X.screenshot(display, os.path.join(shots, "killed.png"))
    finally:
        app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, None, args.keep)


if __name__ == "__main__":
    sys.exit(main())
