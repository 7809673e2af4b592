#!/usr/bin/env python3
"""bench-seek: how long a seek takes in a 1,000,000-tram trace.

The GUI's seek (Go to clock, a timeline click, Back) replays from the start
to the target when it goes back, and forward from where it is when it goes
ahead: the same transfers as `viper-replay --until=CLOCK`, so its cost is
that replay's.  This generates a 1,000,000-tram Farm (viper-monalisa-sim,
shuffled delivery) and times `viper-replay --until` to 10, 50, 90 and 100 %
of the run (best of three each, process start-up included), which bounds a
backward seek to that point.  Goal (issue 13): any point in under 200 ms.
A benchmark: prints figures, asserts nothing.
Usage: bench-seek.py VIPER_REPLAY VIPER_MONALISA_SIM [TRAMS]
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    replay, sim = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    with tempfile.TemporaryDirectory(prefix="viper-bench-seek-") as tmp:
        trc, setup = os.path.join(tmp, "farm.trc"), os.path.join(tmp, "farm.setup")
        subprocess.run([sim, "--program=farm", f"--count={count}", "--delivery=shuffled", f"--out={trc}",
                        f"--setup-out={setup}"], check=True)
        base = [replay, "--paradigm=monalisa", "--setup=" + setup, "--quiet"]
        end = json.loads(subprocess.run(base + ["--state-out=-", trc], stdout=subprocess.PIPE, check=True).stdout)
        t1 = end["clock"]
        print(f"a Farm of {end['counts']['read']} trams, clock up to {t1:.6g}")
        worst = 0
        for frac in (0.1, 0.5, 0.9, 1.0):
            clock = t1 * frac
            best = None
            for _ in range(3):
                t = time.monotonic()
                subprocess.run(base + [f"--until={clock!r}", trc], check=True, stdout=subprocess.DEVNULL)
                el = time.monotonic() - t
                best = el if best is None else min(best, el)
            worst = max(worst, best)
            print(f"seek to {frac:.0%} of the run (clock {clock:.6g}): {best * 1000:.0f} ms")
        print(f"slowest seek: {worst * 1000:.0f} ms (goal: 200 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
