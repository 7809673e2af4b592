#!/usr/bin/env python3
"""bench-headless: end-to-end viper-replay of a generated 1,000,000-tram trace.

  farm     viper-monalisa-sim: a Mona Lisa Farm, 4 slaves, shuffled delivery,
           skewed clocks (issue 4's target: 2 million trams/s)
  macrame  viper-macrame-sim: the 8x8 testbed (1088 devices), shuffled
           delivery, skewed clocks, replayed with setup/mesh8x8.view
           (issue 6's target: 5 million trams/s)

Replays three times and prints the best trams/s and that run's peak RSS
(wait4 on the viper-replay process).  A benchmark: prints figures, asserts
nothing beyond a clean replay.
Usage: bench-headless.py farm|macrame VIPER_REPLAY SIMULATOR SOURCE_ROOT [TRAMS]
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


def workload(kind, sim, root, tmp, count):
    """Generate the trace; return (trace, viper-replay options, description, target)."""
    trc = os.path.join(tmp, kind + ".trc")
    if kind == "farm":
        setup = os.path.join(tmp, "farm.setup")
        subprocess.run([sim, "--program=farm", f"--count={count}", "--seed=7", "--delivery=shuffled",
                        "--offset-ms=5", "--drift-ppm=200", "--jitter-ms=0.1",
                        f"--out={trc}", f"--setup-out={setup}"], check=True)
        return trc, ["--paradigm=monalisa", f"--setup={setup}"], "a Farm (4 slaves, shuffled, skewed clocks)", 2e6
    if kind == "macrame":
        subprocess.run([sim, "--mesh=8", f"--trams={count}", "--seed=5", f"--out={trc}"], check=True)
        return (trc, ["--paradigm=macrame", "--setup=" + os.path.join(root, "setup", "mesh8x8.view")],
                "an 8x8 Macrame testbed (1088 devices, shuffled, skewed clocks)", 5e6)
    raise SystemExit("unknown workload " + kind)


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    kind, replay, sim, root = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 1000000
    with tempfile.TemporaryDirectory(prefix="viper-bench-headless-") as tmp:
        t0 = time.monotonic()
        trc, opts, what, target = workload(kind, sim, root, tmp, count)
        trams = sum(1 for line in open(trc) if line.strip() and not line.startswith("#"))
        print(f"generated {what}: {trams} trams in {time.monotonic() - t0:.2f} s")
        best, rss = None, 0
        for _ in range(3):
            secs, status, maxrss = timed([replay] + opts + ["--quiet", trc])
            if status != 0:
                print(f"viper-replay failed: status {status}")
                return 1
            if best is None or secs < best:
                best, rss = secs, maxrss
        print(f"viper-replay {opts[0]}: {best:.3f} s, {trams / best / 1e6:.2f} million trams/s "
              f"(target {target / 1e6:g}), peak RSS {rss / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
