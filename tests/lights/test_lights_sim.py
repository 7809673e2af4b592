#!/usr/bin/env python3
"""test_lights_sim.py - viper-lights-sim's output errors say the path and the reason.

A full device (/dev/full) as --out, as standard output and for --view: exit 1
and one line 'viper-lights-sim: PATH: No space left on device'; a viewer
(--connect) that accepts and closes at once: exit 1 with the address and the
reason, not a silent death by SIGPIPE.  Loopback only; bounded in time.
"""
import os
import socket
import subprocess
import sys
import threading

build = os.environ.get("VIPER_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SIM = os.path.join(build, "paradigms", "lights", "viper-lights-sim")
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
    print("# %d checks failed" % len(failures) if failures else "# all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
