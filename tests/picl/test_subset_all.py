#!/usr/bin/env python3
"""test_subset_all: collectives over every processor (SUBSET -1, spec section
3) with the processors learnt ahead of the end of the input
(core/scheduler-modules.c).

Usage: test_subset_all.py --viper-replay PATH

- A sorted trace with a barrier over -1 at its start and 12,000 lines after
  it replays under --max-pending=1000 with nothing refused and little memory
  (every later tram waited for the end of the input before: 11,008 lines
  refused).
- A processor whose first lines come last in the file, and one whose only
  lines are bad, give the state the sorted trace gives (the second is no
  processor of the run, so no member); so does the trace split over two
  files given in either order, and read from a pipe (which cannot be read
  ahead: its collectives wait for its end).
- Past --max-procs nothing is learnt ahead, and the replay is the one the
  end of the input gives.
- Live: a barrier over -1 goes on at a pause of the input with the
  connection still open (--until-tram after the barrier's end is reached
  before the sender closes), where it waited for every connection to close.
Every wait is bounded (timeouts), nothing sleeps to synchronise.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--viper-replay", required=True)
args = ap.parse_args()
problems = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        problems.append(what)


def stats(out):
    got = {}
    for line in out.splitlines():
        key, sep, value = line.rpartition(": ")
        if sep:
            got[key] = value
    return got


def replay(extra, inputs, stdin=None):
    return subprocess.run([args.viper_replay, "--quiet"] + extra + inputs, input=stdin, capture_output=True,
                          text=True, timeout=120)


def state(path):
    with open(path) as f:
        return json.load(f)


def barrier_trace(procs, after):
    """procs processors: tracing starts, a barrier over -1 (SUBSET missing),
    `after` rounds of an ignored event each, tracing stops; sorted by time."""
    lines = ["-3 -901 0.0 %d 0 0" % p for p in range(procs)]
    lines += ["-3 -402 0.001 %d 0 0" % p for p in range(procs)]
    lines += ["-4 -402 0.002 %d 0 0" % p for p in range(procs)]
    for i in range(after):
        lines += ["-5 -77 %.6f %d 0 0" % (0.003 + i * 1e-4, p) for p in range(procs)]
    lines += ["-4 -901 10.0 %d 0 0" % p for p in range(procs)]
    return lines


def write(path, lines):
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))


with tempfile.TemporaryDirectory(prefix="viper-subset-all-") as tmp:
    # bounded: nothing waits for the end of the input
    big = os.path.join(tmp, "big.trc")
    lines = barrier_trace(4, 3000)
    write(big, lines)
    r = replay(["--max-pending=1000", "--stats"], [big])
    st = stats(r.stdout)
    check(r.returncode == 0 and st.get("rejected") == "0" and st.get("transferred") == str(len(lines)),
          "a -1 barrier then 12,000 lines under --max-pending=1000: nothing refused (status %d, rejected %s, "
          "transferred %s of %d)" % (r.returncode, st.get("rejected"), st.get("transferred"), len(lines)))
    peak = int(st.get("pool bytes peak", "0"))
    check(0 < peak <= 1 << 20, "and the trams in flight stay few (pool peak %d bytes)" % peak)

    # the same state whatever the order, the split and a bad processor
    small = barrier_trace(3, 50)
    sorted_trc = os.path.join(tmp, "sorted.trc")
    write(sorted_trc, small)
    want_path = os.path.join(tmp, "want.json")
    r = replay(["--state-out=" + want_path], [sorted_trc])
    check(r.returncode == 0, "the sorted trace replays (%d: %s)" % (r.returncode, r.stderr[-200:]))
    want = state(want_path)
    check(all(m["state"] == "busy" for m in want["modules"]) and len(want["modules"]) == 3,
          "its three processors end busy, past the barrier (%s)" % [m.get("state") for m in want["modules"]])

    late = [l for l in small if l.split()[3] != "2"] + [l for l in small if l.split()[3] == "2"]
    bad = late[:5] + ["-3 -402 x.5 7 0 0", "-4 -402 y 7 0 0"] + late[5:]   # processor 7: bad lines only
    # a native PICL processor's lines come from one file (spec section 2)
    first = [l for l in late if l.split()[3] != "1"]
    second = [l for l in late if l.split()[3] == "1"]
    cases = [("processor 2 last", [late], None),
             ("a processor with bad lines only", [bad], None),
             ("two files", [first, second], None),
             ("two files, the other order", [second, first], None),
             ("standard input, a pipe", None, "\n".join(late) + "\n")]
    for name, parts, stdin in cases:
        out = os.path.join(tmp, "got.json")
        inputs = []
        for k, part in enumerate(parts or []):
            path = os.path.join(tmp, "part%d.trc" % k)
            write(path, part)
            inputs.append(path)
        r = replay(["--state-out=" + out], inputs or ["-"], stdin=stdin)
        ok_status = r.returncode == 0
        got = state(out) if os.path.exists(out) else {}
        same = {k: got.get(k) for k in ("clock", "modules", "stuck")} == {k: want[k] for k in ("clock", "modules",
                                                                                              "stuck")}
        check(ok_status and same, "%s: the sorted trace's state (status %d; %s)" % (name, r.returncode,
                                                                                   r.stderr.strip()[-200:]))

    # past --max-procs nothing is learnt ahead: at the end of the input the
    # processors are the two the bound let in, and the barrier is theirs;
    # a line of PROC -1 (the program manager's: a list too) counts
    r = replay(["--max-procs=2", "--stats"], [sorted_trc])
    st = stats(r.stdout)
    check(r.returncode == 0 and st.get("transferred") == str(2 * len(small) // 3) and "max-procs" in r.stderr,
          "--max-procs=2: processor 2 refused, the barrier over the other two (status %d, transferred %s)"
          % (r.returncode, st.get("transferred")))
    manager = os.path.join(tmp, "manager.trc")
    write(manager, ["-5 -77 0.0 -1 0 0"] + small)
    r = replay(["--max-procs=3", "--stats"], [manager])
    st = stats(r.stdout)
    check(r.returncode == 0 and st.get("transferred") == str(1 + 2 * len(small) // 3) and st.get("pending") == "0",
          "--max-procs=3 with a PROC -1 line: processor 2 refused, the barrier over 0 and 1 (status %d, "
          "transferred %s, pending %s)" % (r.returncode, st.get("transferred"), st.get("pending")))

    # live: the barrier goes on at a pause, the connection still open
    sock = os.path.join(tmp, "s")
    live_out = os.path.join(tmp, "live.json")
    # P0's lines are seq 1 (-901), 2 (barrier begin), 3 (barrier end): stop right after the end
    p = subprocess.Popen([args.viper_replay, "--listen=unix:" + sock, "--until-tram=0:3", "--quiet",
                          "--state-out=" + live_out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(sock) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.01)  # polling for the socket file, not synchronisation by time
        check(os.path.exists(sock), "viper-replay listens")
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(sock)
        c.sendall(("\n".join(barrier_trace(2, 3)[:6]) + "\n").encode())   # up to both barrier ends
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            out, err = "", "still waiting after 30 s with the connection open"
        c.close()
        check(p.returncode == 0 and os.path.exists(live_out),
              "live: the barrier's end is reached with the sender still connected (status %s, %s)"
              % (p.returncode, err.strip()[-200:]))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()

print("%d problems" % len(problems))
sys.exit(1 if problems else 0)
