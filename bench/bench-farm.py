#!/usr/bin/env python3
"""bench-farm: end-to-end replay of a 1,000,000-tram Mona Lisa Farm.

Generates the Farm with viper-monalisa-sim (4 slaves, shuffled delivery,
skewed clocks), then replays it with viper-replay --paradigm=monalisa and
prints trams/s and the replay's own peak RSS (wait4 on that process).
A benchmark: prints figures, asserts nothing beyond a clean replay.
Usage: bench-farm.py VIPER_REPLAY VIPER_MONALISA_SIM [TRAMS]
"""
import os
import subprocess
import sys
import tempfile
import time

def timed(argv):
    t0 = time.monotonic()
    pid = os.spawnv(os.P_NOWAIT, argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    return time.monotonic() - t0, status, ru.ru_maxrss

def main():
    replay, sim = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    with tempfile.TemporaryDirectory(prefix="viper-bench-farm-") as tmp:
        trc, setup = os.path.join(tmp, "farm.trc"), os.path.join(tmp, "farm.setup")
        t0 = time.monotonic()
        subprocess.run([sim, "--program=farm", f"--count={count}", "--seed=7", "--delivery=shuffled",
                        "--offset-ms=5", "--drift-ppm=200", "--jitter-ms=0.1",
                        f"--out={trc}", f"--setup-out={setup}"], check=True)
        trams = sum(1 for line in open(trc) if line.strip() and not line.startswith("#"))
        print(f"generated a Farm of {trams} trams (4 slaves, shuffled, skewed clocks) in {time.monotonic() - t0:.2f} s")
        best, rss = None, 0
        for _ in range(3):
            secs, status, maxrss = timed([replay, "--paradigm=monalisa", f"--setup={setup}", "--quiet", trc])
            if status != 0:
                print(f"viper-replay failed: status {status}")
                return 1
            if best is None or secs < best:
                best, rss = secs, maxrss
        print(f"viper-replay --paradigm=monalisa: {best:.3f} s, {trams / best / 1e6:.2f} million trams/s, "
              f"peak RSS {rss / 1024:.1f} MiB")
    return 0

if __name__ == "__main__":
    sys.exit(main())
