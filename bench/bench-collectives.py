#!/usr/bin/env python3
"""bench-collectives: barriers and scans of many processors.

Writes P processors x B barriers (every processor begins, then every one
ends; lines sorted by time), over SUBSET -1 and over a defined subset of
all P, for P = 256, 1,024 and 4,096, replays each with viper-replay and
prints seconds, trams/s and microseconds per member of a collective.  An
end waits for every member's begin: the run and the picl model must cost
O(P) per barrier, not O(P^2) (4,096 processors x 64 barriers took 136 s
before, then 21 s, 10 s, now well under a second).

Then the same with S scans (prefix collectives, -792: member i's end waits
for the begins of members 0..i-1), lines sorted by time (the begins in
processor order), over -1, over a subset defined in processor order, and
over a subset defined in reverse processor order: there the begins come
in reverse member order, every end waits, and each begin completes one
more member's prefix.  A scan must cost O(P) too (4,096 processors x 32
scans took 6 s over -1, 12 s over a subset, and far longer in reverse
member order: O(P^3) in the picl model).

A benchmark: prints figures, asserts only that each replay ends with
nothing pending.  A replay that takes more than --limit seconds is stopped
and printed as such, and the larger sizes of its series are skipped (for
measuring an old build).
Usage: bench-collectives.py VIPER_REPLAY [BARRIERS [SCANS]] [--limit=SECONDS]
"""
import os
import subprocess
import sys
import tempfile
import time


def write_trace(path, procs, count, subset, scan):
    """subset: None (-1), "ids" (defined in processor order) or "reversed"."""
    with open(path, "w") as f:
        w = f.write
        if subset:
            order = range(procs) if subset == "ids" else range(procs - 1, -1, -1)
            w(f"-202 -812 0 -1 -1 {procs + 1} 2 1 " + " ".join(map(str, order)) + "\n")
        for p in range(procs):
            w(f"-3 -901 0.000000 {p} 0 0\n")
        t = 0.0
        sid = 1 if subset else -1
        begin = f"-792 {{:.7f}} {{}} 0 2 2 8 {sid}" if scan else f"-402 {{:.7f}} {{}} 0 1 2 {sid}"
        end = "-792 {:.7f} {} 0 1 2 8" if scan else "-402 {:.7f} {} 0 0"
        for _ in range(count):
            for p in range(procs):
                w("-3 " + begin.format(t + p * 1e-7, p) + "\n")
            t += procs * 1e-7 + 1e-6
            for p in range(procs):
                w("-4 " + end.format(t, p) + "\n")
            t += 1e-5
        for p in range(procs):
            w(f"-4 -901 {t:.7f} {p} 0 0\n")


def series(replay, tmp, name, count, subset, scan, limit):
    for procs in (256, 1024, 4096):
        trc = os.path.join(tmp, "coll.trf")
        write_trace(trc, procs, count, subset, scan)
        trams = 2 * procs * (count + 1) + (1 if subset else 0)
        best = None
        for _ in range(3):
            t0 = time.monotonic()
            try:
                r = subprocess.run([replay, "--stats", trc], capture_output=True, text=True, timeout=limit)
            except subprocess.TimeoutExpired:
                print(f"{name:>8} {procs:>6} {trams:>9} {'>' + str(limit):>8} (stopped; larger sizes skipped)",
                      flush=True)
                return
            dt = time.monotonic() - t0
            if r.returncode != 0 or "pending: 0" not in r.stdout:
                sys.exit(f"replay of {procs} processors ({name}) failed: {r.returncode}\n{r.stderr}")
            best = dt if best is None else min(best, dt)
        print(f"{name:>8} {procs:>6} {trams:>9} {best:>8.2f} {trams / best:>10.0f} "
              f"{best * 1e6 / (procs * count):>10.2f}", flush=True)


def main():
    limit = None
    argv = []
    for a in sys.argv[1:]:
        if a.startswith("--limit="):
            limit = float(a[len("--limit="):])
        else:
            argv.append(a)
    replay = argv[0]
    barriers = int(argv[1]) if len(argv) > 1 else 64
    scans = int(argv[2]) if len(argv) > 2 else 32
    print(f"best of 3; {barriers} barriers, {scans} scans each; lines sorted by time")
    print(f"{'over':>8} {'procs':>6} {'trams':>9} {'seconds':>8} {'trams/s':>10} {'us/member':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        print("barriers")
        for subset in (None, "ids"):
            series(replay, tmp, "-1" if not subset else "subset", barriers, subset, False, limit)
        print("scans")
        for subset in (None, "ids", "reversed"):
            series(replay, tmp, {None: "-1", "ids": "subset", "reversed": "reversed"}[subset], scans, subset, True,
                   limit)


if __name__ == "__main__":
    main()
