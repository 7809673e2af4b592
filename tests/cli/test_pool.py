#!/usr/bin/env python3
"""The tram pool gives memory back once a burst of pending trams drains (issue
10 item 20): `pool bytes` (what the pool holds at the end) must fall far below
`pool bytes peak` in --stats, for a file replay and for a live session over a
Unix socket with several connections.

In each trace a processor's receive waits for a send that comes last, so every
tram that processor sends meanwhile (lines of mixed lengths, of a type the
paradigm ignores) pends; the send then lets them all leave.  Bounded: every
wait has a deadline and nothing sleeps to synchronise (the socket file is
awaited; viper-replay ends by --idle-exit once every sender has closed).
"""
import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--viper-replay", required=True)
args = ap.parse_args()
problems = []
BURST = 60000          # trams per burst
SLAB = 64 * 1024


def expect(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        problems.append(what)


def burst(rng, receiver, sender, tag):
    """The receiver's start and waiting receive, its burst, then the sender's message."""
    lines = ["-3 -901 0 %d 0 0" % receiver, "-3 -901 0 %d 0 0" % sender,
             "-3 -52 1 %d 0 3 2 %d %d 0" % (receiver, tag, sender),
             "-4 -52 2 %d 0 4 2 8 %d %d 0" % (receiver, tag, sender)]
    for i in range(BURST):
        k = rng.randint(0, 8)
        data = " ".join(str(rng.randint(0, 10 ** rng.randint(1, 15))) for _ in range(k))
        lines.append("-5 -77 %d %d 0 %d 2 %s" % (3 + i, receiver, k, data) if k else
                     "-5 -77 %d %d 0 0" % (3 + i, receiver))
    lines += ["-3 -21 1 %d 0 4 2 8 %d %d 0" % (sender, tag, receiver), "-4 -21 1.5 %d 0 0" % sender]
    return "".join(l + "\n" for l in lines).encode()


def stats(out):
    got = {}
    for line in out.decode(errors="replace").splitlines():
        key, sep, value = line.rpartition(": ")
        if sep:
            got[key] = value
    return got


def check(name, st, trams):
    expect(st.get("pending") == "0", "%s: every tram left (pending %s)" % (name, st.get("pending")))
    try:
        end, peak = int(st["pool bytes"]), int(st["pool bytes peak"])
    except (KeyError, ValueError):
        expect(False, "%s: --stats has pool bytes and pool bytes peak (%s)" % (name, sorted(st)))
        return
    # the burst pended whole: at least 100 bytes a tram were held at once
    expect(peak >= trams * 100, "%s: the burst was held at once (peak %d bytes)" % (name, peak))
    # and given back: at most one spare slab per size class (a few classes here)
    expect(end <= 16 * SLAB and end * 10 < peak,
           "%s: the pool gave its memory back (%d bytes at the end, %d at peak)" % (name, end, peak))


rng = random.Random(10)
with tempfile.TemporaryDirectory(prefix="viper-pool-") as tmp:
    # a file replay
    trc = os.path.join(tmp, "burst.trc")
    with open(trc, "wb") as f:
        f.write(burst(rng, 1, 0, 5))
    r = subprocess.run([args.viper_replay, "--quiet", "--stats", trc], capture_output=True, timeout=120)
    expect(r.returncode == 0, "the file replays (%s, %s)" % (r.returncode, r.stderr[-300:]))
    check("file", stats(r.stdout), BURST)

    # a live session: four connections, each a receiver's burst and its sender's message
    sock = os.path.join(tmp, "s")
    p = subprocess.Popen([args.viper_replay, "--listen=unix:" + sock, "--idle-exit=0.2", "--quiet", "--stats"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(sock) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.01)  # polling for the socket file, not synchronisation by time
        expect(os.path.exists(sock), "viper-replay listens")
        conns = []
        for k in range(4):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(sock)
            conns.append(c)
        for k, c in enumerate(conns):
            c.sendall(burst(rng, 2 * k + 1, 2 * k, 7 + k))
        for c in conns:
            c.close()
        out, err = p.communicate(timeout=120)
        expect(p.returncode == 0, "the live session ends cleanly (%s, %s)" % (p.returncode, err[-300:]))
        check("live", stats(out), BURST)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()

    # trams that wait above the cut, packed (core/seqlist.c, issue 11): one
    # Macrame device's lines in reverse, so that all wait for the first; the
    # pool counts their pages, about 32 bytes a tram, far below the 100-150
    # of a tram in its own block, and gives them back
    rev = os.path.join(tmp, "reverse.trc")
    n = 60000
    with open(rev, "w") as f:
        f.writelines("2 30 %d.5 17 0 1 2 %d\n" % (seq, seq) for seq in range(n, 0, -1))
    r = subprocess.run([args.viper_replay, "--paradigm=macrame", "--quiet", "--stats", rev], capture_output=True,
                       timeout=120)
    expect(r.returncode == 0, "the reversed trace replays (%s, %s)" % (r.returncode, r.stderr[-300:]))
    st = stats(r.stdout)
    expect(st.get("pending") == "0" and st.get("transferred") == str(n),
           "reversed: every tram left (pending %s, transferred %s)" % (st.get("pending"), st.get("transferred")))
    end, peak = int(st.get("pool bytes", -1)), int(st.get("pool bytes peak", -1))
    expect(n * 32 <= peak <= n * 40, "reversed: the waiting trams were held packed, 32-40 bytes each "
           "(peak %d bytes for %d trams)" % (peak, n))
    expect(end * 10 < peak, "reversed: and given back (%d bytes at the end)" % end)

print("%d problems" % len(problems))
sys.exit(1 if problems else 0)
