#!/usr/bin/env python3
"""bench-orders: replay speed and memory in three delivery orders (issue 11).

Workloads (generated, then written in three orders):
  farm     viper-monalisa-sim: a Mona Lisa Farm, 8 slaves, ~1.2 M trams
  macrame  viper-macrame-sim: the 8x8 testbed (1088 devices), ~1 M trams,
           replayed with setup/mesh8x8.view
  picl     native PICL, 64 processors, ~1 M lines (bench-picl-write), and
           the same events as a Pajé file for `pj_dump -q`

Delivery orders:
  sorted       every line in true-time order (as the generator writes it)
  interleaved  each processor's lines in their order, processors interleaved
               in random runs of 1-6 lines, at the same pace in true time (a
               run goes out near its first line's place in time order); the
               program manager's lines (PROC -1) keep their place
  shuffled     a full random permutation of the whole file (Farm, Macrame),
               except that the program manager's lines (PROC -1: the Farm's
               S_EXIT verdict) stay last, as in the simulator's delivery
               orders: a verdict delivered before the modules' lines ends
               them early, so the replay would be a different (inconsistent)
               run, not the same run in another order;
               native PICL has no sequence numbers - a processor's line order
               *is* its sequence - so its third order is instead "grouped":
               every line of processor 0, then of processor 1, ... (the
               furthest any valid delivery can be from time order)

For each: the floor (bench/floor.c: read the file, turn every field into a
number) and viper-replay --quiet, best of 3: the least wall time (with that
run's peak RSS from wait4()) and the least CPU time (user + sys, both
threads); then the ratios the issue sets as goals, in wall and in CPU time
(on a shared machine CPU time is the steadier figure).  A benchmark: it prints
figures and asserts nothing beyond clean replays.
Usage: bench-orders.py BUILD_DIR SOURCE_ROOT [farm|macrame|picl ...]
"""
import os
import random
import subprocess
import sys
import tempfile
import time

RUNS = 3


def timed(argv, out=subprocess.DEVNULL):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, status, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def best_of(argv, ok=(0,)):
    """Best of RUNS: (least wall time, peak RSS in KiB of that run, least CPU time)."""
    best, rss, cpu = None, 0, None
    for _ in range(RUNS):
        secs, status, maxrss, used = timed(argv)
        code = os.waitstatus_to_exitcode(status)
        if code not in ok:
            raise SystemExit(f"{argv[0]} failed with status {code}: {' '.join(argv)}")
        if best is None or secs < best:
            best, rss = secs, maxrss
        if cpu is None or used < cpu:
            cpu = used
    return best, rss, cpu


def split_lines(path):
    head, body = [], []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                head.append(line)
            else:
                body.append(line)
    return head, body


def proc_of(line):
    return line.split(None, 4)[3]


def interleaved(body, rng):
    """Each processor's lines in order, processors interleaved in random runs
    of 1-6 lines, keeping pace in true time.

    A run goes out near the place its first line has in true-time order:
    later by a random jitter of up to as many lines as the run has, times
    the number of processors (a run's worth of every other processor), and
    never before the processor's previous run.  The program manager's lines
    (PROC -1: PICL's group definitions at the start, the Farm's verdict at
    the end) keep their exact place, and no run is jittered across one.

    (Until 2026-11-25 a run's place was its position in its own processor's
    lines, i / n: a processor with a single line - the manager's group
    definition in the PICL trace - landed anywhere in the file or after its
    end, so every collective waited for it over half the file.)"""
    nproc = len({proc_of(line) for line in body})
    per, order, seg = {}, [], 0
    for idx, line in enumerate(body):
        if proc_of(line) == "-1":
            order.append(((seg, float("inf"), idx), [line]))
            seg += 1
        else:
            per.setdefault(proc_of(line), []).append((seg, idx, line))
    for lines in per.values():
        i, n, last = 0, len(lines), None
        while i < n:
            k = rng.randint(1, 6)
            run = [x for x in lines[i:i + k] if x[0] == lines[i][0]]   # never across a manager line
            first_seg, first_idx = run[0][0], run[0][1]
            key = (first_seg, first_idx + rng.random() * len(run) * nproc)
            if last is not None and last[0] == key[0] and key[1] < last[1]:
                key = last                       # stable sort: after the previous run
            order.append(((key[0], key[1], first_idx), [x[2] for x in run]))
            last = key
            i += len(run)
    order.sort(key=lambda r: r[0])
    return [line for _, run in order for line in run]


def grouped(body):
    per = {}
    for line in body:
        per.setdefault(proc_of(line), []).append(line)
    return [line for p in sorted(per, key=int) for line in per[p]]


def write(path, head, body):
    with open(path, "w") as f:
        f.writelines(head)
        f.writelines(body)


def workload(kind, build, root, tmp):
    """Generate the sorted trace; returns (path, replay options, description, pajé path or None)."""
    trc = os.path.join(tmp, kind + "-sorted.trc")
    if kind == "farm":
        setup = os.path.join(tmp, "farm.setup")
        subprocess.run([os.path.join(build, "paradigms/monalisa/sim/viper-monalisa-sim"), "--program=farm",
                        "--slaves=8", "--count=1200000", "--seed=7", "--delivery=inorder", "--offset-ms=5",
                        "--drift-ppm=200", "--jitter-ms=0.1", f"--out={trc}", f"--setup-out={setup}"], check=True)
        return trc, ["--paradigm=monalisa", f"--setup={setup}"], "Mona Lisa Farm, 8 slaves", None
    if kind == "macrame":
        subprocess.run([os.path.join(build, "paradigms/macrame/viper-macrame-sim"), "--mesh=8", "--trams=1000000",
                        "--seed=5", "--ordered", f"--out={trc}"], check=True)
        return (trc, ["--paradigm=macrame", "--setup=" + os.path.join(root, "setup", "mesh8x8.view")],
                "Macrame 8x8 testbed (1088 devices)", None)
    if kind == "picl":
        paje = os.path.join(tmp, "picl.paje")
        subprocess.run([os.path.join(build, "bench/bench-picl-write"), "1000000", trc, paje], check=True,
                       stdout=subprocess.DEVNULL)
        return trc, ["--paradigm=picl"], "native PICL, 64 processors", paje
    raise SystemExit("unknown workload " + kind)


def write_orders(kind, sorted_trc, tmp):
    rng = random.Random(1234)
    head, body = split_lines(sorted_trc)
    write(os.path.join(tmp, kind + "-interleaved.trc"), head, interleaved(body, rng))
    if kind == "picl":
        third = "grouped"
        write(os.path.join(tmp, kind + "-grouped.trc"), head, grouped(body))
    else:
        third = "shuffled"
        manager = [line for line in body if proc_of(line) == "-1"]
        modules = [line for line in body if proc_of(line) != "-1"]
        rng.shuffle(modules)
        write(os.path.join(tmp, kind + "-shuffled.trc"), head, modules + manager)
    print(len(body), "interleaved", third)
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--write-orders":
        return write_orders(*sys.argv[2:])
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, root = sys.argv[1:3]
    kinds = sys.argv[3:] or ["farm", "macrame", "picl"]
    replay = os.path.join(build, "cli/viper-replay")
    floor = os.path.join(build, "bench/bench-floor")
    rows = []
    with tempfile.TemporaryDirectory(prefix="viper-bench-orders-") as tmp:
        for kind in kinds:
            sorted_trc, opts, what, paje = workload(kind, build, root, tmp)
            # reordered in a child process: a child's peak RSS (wait4) counts
            # what it inherited at fork time, so this process stays small
            out = subprocess.run([sys.executable, __file__, "--write-orders", kind, sorted_trc, tmp],
                                 check=True, capture_output=True, text=True).stdout.split()
            trams = int(out[0])
            orders = [("sorted", sorted_trc)] + [(o, os.path.join(tmp, f"{kind}-{o}.trc")) for o in out[1:]]
            print(f"{what}: {trams} trams (load average {os.getloadavg()[0]:.2f})")
            speeds, cpus = {}, {}
            for order, path in orders:
                fsecs, _, fcpu = best_of([floor, path])
                rsecs, rss, rcpu = best_of([replay] + opts + ["--quiet", path], ok=(0,))
                speeds[order] = trams / rsecs
                cpus[order] = rcpu
                print(f"  {order:12s} floor {fsecs:6.3f} s ({fcpu:5.3f} CPU) | viper-replay {rsecs:6.3f} s "
                      f"({rcpu:5.3f} CPU), {trams / rsecs / 1e6:5.2f} M trams/s, peak RSS {rss / 1024:6.1f} MiB "
                      f"({rss * 1024 / trams:5.1f} B/tram) | {rsecs / fsecs:4.1f}x floor "
                      f"({rcpu / max(fcpu, 1e-3):4.1f}x in CPU)", flush=True)
                rows.append((what, order, trams, rsecs, rss, fsecs, rcpu, fcpu))
            last = orders[-1][0]
            print(f"  {last} / sorted speed: {speeds[last] / speeds['sorted']:.2f} in wall time, "
                  f"{cpus['sorted'] / cpus[last]:.2f} in CPU time (goal >= 0.5)")
            if paje:
                pj = subprocess.run(["sh", "-c", "command -v pj_dump"], capture_output=True, text=True).stdout.strip()
                if pj:
                    psecs, prss, pcpu = best_of([pj, "-q", paje])
                    rsecs = min(r[3] for r in rows if r[0] == what)
                    worst = max(r[3] for r in rows if r[0] == what)
                    rcpu = min(r[6] for r in rows if r[0] == what)
                    wcpu = max(r[6] for r in rows if r[0] == what)
                    inter = [r for r in rows if r[0] == what and r[1] == "interleaved"]
                    print(f"  pj_dump -q on the same events (Pajé, links for messages): {psecs:.3f} s "
                          f"({pcpu:.3f} CPU), peak RSS {prss / 1024:.1f} MiB; viper-replay is {psecs / worst:.1f}x "
                          f"(slowest order) to {psecs / rsecs:.1f}x (fastest) faster in wall time, "
                          f"{pcpu / wcpu:.1f}x to {pcpu / rcpu:.1f}x in CPU time")
                    if inter:
                        # the PICL goal is set on this order: processors
                        # interleaved in random runs of 1-6 lines
                        print(f"  on the interleaved order (the goal's): {psecs / inter[0][3]:.1f}x in wall time, "
                              f"{pcpu / inter[0][6]:.1f}x in CPU time (goal >= 5)")
                else:
                    print("  pj_dump not installed (Debian package pajeng): no side-by-side figure")
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| trace | delivery order | trams | viper-replay wall (CPU) | trams/s wall (CPU) | peak RSS | B/tram "
          "| x floor wall (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for what, order, trams, rsecs, rss, fsecs, rcpu, fcpu in rows:
        print(f"| {what} | {order} | {trams:,} | {rsecs:.2f} s ({rcpu:.2f} s) | {trams / rsecs / 1e6:.2f} M "
              f"({trams / rcpu / 1e6:.2f} M) | {rss / 1024:.0f} MiB | {rss * 1024 / trams:.0f} | "
              f"{rsecs / fsecs:.1f} ({rcpu / max(fcpu, 1e-3):.1f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
