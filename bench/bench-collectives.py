#!/usr/bin/env python3
"""bench-collectives: barriers of many processors.

Writes P processors x B barriers (every processor begins, then every one
ends; lines sorted by time), over SUBSET -1 and over a defined subset of
all P, for P = 256, 1,024 and 4,096, replays each with viper-replay and
prints seconds, trams/s and microseconds per barrier member.  An end waits
for every member's begin: the run and the picl model must cost O(P) per
barrier, not O(P^2) (4,096 processors x 64 barriers took 136 s before,
then 21 s, 10 s, now well under a second).  A benchmark: prints figures,
asserts only that each replay ends with nothing pending.
Usage: bench-collectives.py VIPER_REPLAY [BARRIERS]
"""
import os
import subprocess
import sys
import tempfile
import time


def write_trace(path, procs, barriers, subset):
    with open(path, "w") as f:
        w = f.write
        if subset:
            w(f"-202 -812 0 -1 -1 {procs + 1} 2 1 " + " ".join(map(str, range(procs))) + "\n")
        for p in range(procs):
            w(f"-3 -901 0.000000 {p} 0 0\n")
        t = 0.0
        field = "0 1 2 1" if subset else "0 1 2 -1"
        for _ in range(barriers):
            for p in range(procs):
                w(f"-3 -402 {t + p * 1e-7:.7f} {p} {field}\n")
            t += procs * 1e-7 + 1e-6
            for p in range(procs):
                w(f"-4 -402 {t:.7f} {p} 0 0\n")
            t += 1e-5
        for p in range(procs):
            w(f"-4 -901 {t:.7f} {p} 0 0\n")


def main():
    replay = sys.argv[1]
    barriers = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    print(f"{'procs':>6} {'subset':>7} {'trams':>9} {'seconds':>8} {'trams/s':>10} {'us/member':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for procs in (256, 1024, 4096):
            for subset in (False, True):
                trc = os.path.join(tmp, "bars.trf")
                write_trace(trc, procs, barriers, subset)
                trams = 2 * procs * (barriers + 1) + subset
                best = None
                for _ in range(3):
                    t0 = time.monotonic()
                    r = subprocess.run([replay, "--stats", trc], capture_output=True, text=True)
                    dt = time.monotonic() - t0
                    if r.returncode != 0 or "pending: 0" not in r.stdout:
                        sys.exit(f"replay of {procs} processors failed: {r.returncode}\n{r.stderr}")
                    best = dt if best is None else min(best, dt)
                print(f"{procs:>6} {'1' if subset else '-1':>7} {trams:>9} {best:>8.2f} {trams / best:>10.0f} "
                      f"{best * 1e6 / (procs * barriers):>10.2f}", flush=True)


if __name__ == "__main__":
    main()
