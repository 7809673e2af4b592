#!/usr/bin/env python3
"""bench-seek: how long a seek takes in a 1,000,000-tram trace (issue 13).

The GUI's seek (Go to clock, a timeline click, Back) restores the latest
model checkpoint from which a replay forward reaches the target and replays
the logged run order from it (core/trail.h); `viper-replay --seek-bench`
does exactly that headless.  This generates a 1,000,000-tram Farm
(viper-monalisa-sim, shuffled delivery), replays it once to the end (which
logs the run and takes the checkpoints), then times 300 seeks to random
targets - half clocks (a breakpoint's stop), half step counts (Back's stop),
forward and backward - and prints the median and the maximum, with the
history kept for the space-time view as the GUI keeps it, and without (as
headless replays run).  For comparison it also times what a seek cost
before, a replay from the start (`viper-replay --until` to 50 % and 100 %
of the run, process start-up included).  Goal: any point in under 200 ms.
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
        print(f"a Farm of {end['counts']['read']} trams, clock up to {t1:.6g}; load average "
              f"{os.getloadavg()[0]:.1f}")
        for label, extra in (("history kept (as the GUI)", ["--history=0"]), ("no history (headless)", [])):
            out = subprocess.run(base + ["--seek-bench=300"] + extra + [trc], stdout=subprocess.PIPE, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                print(f"{label}: {line}")
        for frac in (0.5, 1.0):
            clock = t1 * frac
            best = None
            for _ in range(3):
                t = time.monotonic()
                subprocess.run(base + [f"--until={clock!r}", trc], check=True, stdout=subprocess.DEVNULL)
                el = time.monotonic() - t
                best = el if best is None else min(best, el)
            print(f"before checkpoints, a seek back replayed from the start: to {frac:.0%} of the run "
                  f"{best * 1000:.0f} ms (best of 3)")
        print("goal: any point in under 200 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
