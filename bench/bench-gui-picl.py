#!/usr/bin/env python3
"""bench-gui-picl: viper playing generated PICL traces of 64 and 1,024 ranks.

Real MPI programs run on 64 to 1,024 ranks (issue 13): this generates a
64-processor and a 1,024-processor trace with viper-picl-gen (200,000
messages, about 1.1 million trams each by default, so a run lasts seconds
rather than a dozen frames), starts `viper` on each with the default window
(the animation view's grid of ranks, space-time rows, variables and program
state all shown), 40 ms updates, unlimited history, and plays it as fast as
possible to the end (--speed=max).  Figures come from the app's own dump
(VIPER_DEBUG_DIR), as in bench-gui.py: trams/s and frames/s of the
animation and space-time views, each view's mean CPU ms per paint, and the
app's CPU time.  Target: 20 frames/s.
A benchmark: prints figures, asserts nothing beyond a complete replay.
Usage: bench-gui-picl.py VIPER VIPER_PICL_GEN [MESSAGES] [RUNS]
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_gui", os.path.join(here, "bench-gui.py"))
bg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bg)


def play(viper, display, trace, tmp, name):
    ddir = os.path.join(tmp, name)
    os.makedirs(ddir)
    env = bg.debug_env(display, ddir)
    # a breakpoint past the end starts the replay on its own, as fast as possible
    proc = subprocess.Popen([viper, trace, "--paradigm=picl", "--update-interval=40", "--breakpoint=1e300"], env=env)
    return bg.wait_end(proc, ddir)


def main():
    viper, gen = sys.argv[1], sys.argv[2]
    messages = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    if not shutil.which("Xvfb"):
        print("Xvfb is not installed: nothing to measure")
        return 77
    with tempfile.TemporaryDirectory(prefix="viper-bench-gui-picl-") as tmp:
        xvfb, display = bg.start_xvfb()
        try:
            for procs in (64, 1024):
                trc = os.path.join(tmp, "p%d.trc" % procs)
                subprocess.run([gen, "--procs=%d" % procs, "--messages=%d" % messages, "--seed=3", "--output=" + trc],
                               check=True)
                trams = sum(1 for line in open(trc) if line.strip())
                print(f"generated a PICL trace of {procs} ranks, {trams} trams")
                results = []
                for run in range(runs):
                    d = play(viper, display, trc, tmp, "p%d-%d" % (procs, run))
                    if d["why"] != "end":
                        print(f"viper stopped on {d['why']} after {d['applied']} trams")
                        return 1
                    r = bg.figures(d)
                    results.append(r)
                    print(f"  run {run + 1}: {r[5]} (load average {bg.load():.1f})")
                best = max(results)
                print(f"viper, PICL {procs} ranks, 40 ms updates: {best[0]:,.0f} trams/s, "
                      f"{min(best[1], best[2]):.1f} frames/s (target: 20 frames/s)")
        finally:
            xvfb.terminate()
            xvfb.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
