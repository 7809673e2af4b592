#!/usr/bin/env python3
"""--stuck-after: a live session says, while it runs, that trams have waited
with no progress, and what for (issue 10 item 20).

viper-replay listens on a Unix socket.  A sender connects and writes a receive
end whose send never comes, keeps the connection open, and waits (bounded) for
the warning on viper-replay's standard error; then it sends the missing send
and a second stall must be said again, once.  Without --stuck-after nothing
would be said until the end.  Bounded: every wait has a deadline; nothing
sleeps to synchronise (the socket file and the warning lines are awaited).
"""
import argparse
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--viper-replay", required=True)
args = ap.parse_args()
problems = []


def expect(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        problems.append(what)


def read_until(proc, text, deadline):
    """Lines of stderr until one contains text (or the deadline)."""
    got = []
    buf = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            got.append(line.decode(errors="replace"))
            if text in got[-1]:
                return got
    return got


with tempfile.TemporaryDirectory(prefix="viper-stuck-") as tmp:
    sock = os.path.join(tmp, "s")
    p = subprocess.Popen([args.viper_replay, "--listen=unix:" + sock, "--stuck-after=0.3", "--idle-exit=0.2",
                          "--state-out=" + os.path.join(tmp, "state.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(sock) and time.monotonic() < deadline:
            if p.poll() is not None:
                break
            time.sleep(0.01)  # polling for the socket file, not synchronisation by time
        expect(os.path.exists(sock), "viper-replay listens")
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(sock)
        c.sendall(b"-3 -901 0 0 0 0\n-3 -901 0 1 0 0\n-4 -52 2 1 0 4 2 8 5 0 0\n")
        lines = read_until(p, "pending for", time.monotonic() + 20)
        warn = [l for l in lines if "pending for" in l]
        expect(len(warn) == 1, "a stall is said while the session runs (%s)" % lines[-3:])
        if warn:
            expect("1 tram pending" in warn[0] and "proc 1 waits for" in warn[0],
                   "it says how many trams and what proc 1 waits for: %s" % warn[0])
        # progress ends the stall; a new stall is said again
        c.sendall(b"-3 -21 1 0 0 4 2 8 5 1 0\n-4 -21 1.5 0 0 0\n-4 -52 3 1 0 4 2 8 6 0 0\n")
        lines = read_until(p, "pending for", time.monotonic() + 20)
        warn2 = [l for l in lines if "pending for" in l]
        expect(len(warn2) == 1, "after progress, the next stall is said once more (%s)" % lines[-3:])
        c.close()
        out, err = p.communicate(timeout=30)
        expect(p.returncode == 3, "the end with a tram still pending exits 3 (%s)" % p.returncode)
        expect(b"pending for" not in err, "a stall is said once, not at every tick")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # a bad value is a usage error
    r = subprocess.run([args.viper_replay, "--listen=unix:" + sock, "--stuck-after=-1"], capture_output=True,
                       timeout=30)
    expect(r.returncode == 2 and b"--stuck-after" in r.stderr, "--stuck-after=-1 is a usage error")

print("%d problems" % len(problems))
sys.exit(1 if problems else 0)
