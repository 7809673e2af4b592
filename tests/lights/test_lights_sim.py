#!/usr/bin/env python3
"""test_lights_sim.py - viper-lights-sim's output errors say the path and the reason.

A full device (/dev/full) as --out, as standard output and for --view: exit 1
and one line 'viper-lights-sim: PATH: No space left on device'; a viewer
(--connect) that accepts and closes at once: exit 1 with the address and the
reason, not a silent death by SIGPIPE.  --silence=K@S: node K stops sending
and nobody reports it; viper-replay shows it up until 3 of its intervals have
passed, then stale (the program still running).  Loopback only; bounded in time.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

build = os.environ.get("VIPER_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SIM = os.path.join(build, "paradigms", "lights", "viper-lights-sim")
REPLAY = os.path.join(build, "cli", "viper-replay")
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(args, stdout=subprocess.PIPE):
    return subprocess.run([SIM] + args, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60)


def main():
    for args, name in ((["-n", "64", "-o", "/dev/full"], "/dev/full"),
                       (["--view", "-n", "64", "-o", "/dev/full"], "/dev/full"),
                       (["-n", "64", "-o", "-"], "standard output")):
        with open("/dev/full", "w") as full:
            r = run(args, stdout=full)
        want = "viper-lights-sim: %s: No space left on device" % name
        check(r.returncode == 1 and r.stderr.splitlines() == [want],
              "%s: exit 1 and %r (%d, %r)" % (" ".join(args), want, r.returncode, r.stderr))

    # a viewer that hangs up at once: the next writes fail with EPIPE or ECONNRESET
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(30)
    addr = "tcp:127.0.0.1:%d" % srv.getsockname()[1]

    def hang_up():
        try:
            c, _ = srv.accept()
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            c.close()
        except OSError:
            pass
    th = threading.Thread(target=hang_up)
    th.start()
    r = run(["-n", "4", "--samples", "200", "-i", "10", "-c", addr])
    th.join(timeout=30)
    srv.close()
    lines = r.stderr.splitlines()
    check(r.returncode == 1, "a viewer that hangs up: exit 1, not a signal (%d)" % r.returncode)
    check(len(lines) == 1 and lines[0].startswith("viper-lights-sim: %s: " % addr)
          and ("Broken pipe" in lines[0] or "Connection reset by peer" in lines[0]),
          "the address and the reason said once: %r" % lines)

    # a pattern that names no traffic is a usage error, as --lose=9@2 is, and
    # no output is written (the trial's --pattern=bogus and 0-9 of 4 nodes
    # wrote a trace without traffic and exit 0)
    tmp = tempfile.mkdtemp(prefix="viper-lights-sim-")
    try:
        out = os.path.join(tmp, "z.trc")
        for pattern, said in (("bogus", "expected all, ring, neighbours, none or S-D"),
                              ("0-9", "node 9 is not one of the 4 nodes 0..3"),
                              ("9-0", "node 9 is not one of the 4 nodes 0..3"),
                              ("1-1", "a node does not send to itself"),
                              ("0-1,", "'' is not S-D"), ("0-1x", "'0-1x' is not S-D"), ("", "expected all")):
            r = run(["-n", "4", "--pattern=" + pattern, "-o", out])
            lines = r.stderr.splitlines()
            check(r.returncode == 2 and len(lines) == 1 and lines[0].startswith("viper-lights-sim: --pattern=")
                  and said in lines[0] and not os.path.exists(out),
                  "--pattern=%s: exit 2, %r, no output (%d, %r)" % (pattern, said, r.returncode, r.stderr))
        for pattern in ("all", "ring", "neighbours", "none", "0-1,3-2"):
            r = run(["-n", "4", "--samples", "1", "--pattern=" + pattern, "-o", out])
            check(r.returncode == 0 and r.stderr == "" and os.path.getsize(out) > 0,
                  "--pattern=%s is accepted (%d, %r)" % (pattern, r.returncode, r.stderr))
        with open(out) as f:
            # Traffic trams: 4 41 TIME NODE 0 4 2 SEQ INTERVAL PEER BYTES
            pairs = {(int(w[3]), int(w[9])) for w in (l.split() for l in f) if w[:2] == ["4", "41"]}
        check(pairs == {(0, 1), (3, 2)}, "--pattern=0-1,3-2 sends 0 -> 1 and 3 -> 2: %r" % pairs)

        # a node that falls silent, reported by nobody: stale in trace time
        view = os.path.join(tmp, "n9.view")
        run(["--view", "-n", "9", "-o", view])
        r = run(["-n", "9", "--silence=4@2", "--samples=10", "-o", out])
        check(r.returncode == 0 and r.stderr == "", "--silence=4@2 (%d, %r)" % (r.returncode, r.stderr))
        with open(out) as f:
            node4 = [float(w[2]) for w in (l.split() for l in f) if len(w) > 3 and w[3] == "4"]
        check(1001.0 <= max(node4) < 1001.01, "node 4's last tram is sample 2's, at 1001.0 (%s)" % max(node4))
        for until, want in (("1002.5", "up"), ("1002.6", "stale"), ("1005", "stale")):
            st = subprocess.run([REPLAY, "-p", "lights", "-s", view, "--until=" + until, "--state-out=-", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
            j = json.loads(st.stdout)
            got = [m["state"] for m in j["modules"] if m["id"] == 4]
            check(got == [want] and j["program_state"] == "running"
                  and j["nodes"]["stale"] == (want == "stale") and j["nodes"]["up"] == (9 if want == "up" else 8),
                  "--until=%s: node 4 %s, the program running (%s, %s, %s)"
                  % (until, want, got, j["program_state"], j["nodes"]))
        r = run(["-n", "9", "--silence=9@2", "-o", out + "2"])
        check(r.returncode == 2 and r.stderr.strip() == "viper-lights-sim: --silence=K@S with 0 <= K < N",
              "--silence=9@2 of 9 nodes: exit 2 (%d, %r)" % (r.returncode, r.stderr))
        # an option out of range is named, with its value (not every range listed)
        for opt, want in (("--nodes=0", "--nodes=0: expected an integer 1..100000"),
                          ("--samples=-1", "--samples=-1: expected an integer >= 0"),
                          ("--interval=0", "--interval=0: expected milliseconds >= 1"),
                          ("--bytes=-5", "--bytes=-5: expected an integer >= 0"),
                          ("--load=1001", "--load=1001: expected at most 1000")):
            r = run([opt, "-o", out + "3"])
            first = r.stderr.splitlines()[0] if r.stderr else ""
            check(r.returncode == 2 and first == "viper-lights-sim: " + want,
                  "%s: exit 2 naming it (%d, %r)" % (opt, r.returncode, first))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("# %d checks failed" % len(failures) if failures else "# all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
