#!/usr/bin/env python3
"""bench-gui-macrame: viper playing a 1,000,000-tram 8x8 Macrame testbed (1024 nodes).

Generates the trace with viper-macrame-sim (8x8 mesh, shuffled delivery,
skewed clocks), starts `viper` on it with setup/mesh8x8.view (the 1088-device
animation view among the four shown) at a 40 ms update interval, plays it to
the end, and prints trams/s, frames/s, each view's CPU ms per paint and the
CPU per frame from the app's own debug dump (VIPER_DEBUG_DIR: seconds since
Go, trams applied, paints per view), like bench-gui.py.  Target (issue 6): 300,000 trams/s at 20 frames/s or more.
A benchmark: prints figures, asserts nothing beyond a complete replay.
Usage: bench-gui-macrame.py VIPER VIPER_MACRAME_SIM SOURCE_ROOT [TRAMS] [RUNS]
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


def main():
    viper, sim, root = sys.argv[1], sys.argv[2], sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000000
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    if not shutil.which("Xvfb"):
        print("Xvfb is not installed: nothing to measure")
        return 77
    setup = os.path.join(root, "setup", "mesh8x8.view")
    with tempfile.TemporaryDirectory(prefix="viper-bench-gui-mac-") as tmp:
        trc = os.path.join(tmp, "mesh8x8.trc")
        subprocess.run([sim, "--mesh=8", f"--trams={count}", "--seed=5", f"--out={trc}"], check=True)
        trams = sum(1 for line in open(trc) if line.strip() and not line.startswith("#"))
        print(f"generated an 8x8 testbed trace of {trams} trams (1088 devices, shuffled delivery)")
        xvfb, display = bg.start_xvfb()
        results = []
        try:
            for run in range(runs):
                d = bg.play(viper, display, trc, setup, tmp, run, paradigm="macrame")
                if d["why"] != "end":
                    print(f"viper stopped on {d['why']} after {d['applied']} trams")
                    return 1
                r = bg.figures(d)
                results.append(r)
                print(f"run {run + 1}: {r[5]} (load average {bg.load():.1f})")
        finally:
            xvfb.terminate()
            xvfb.wait()
        best = max(results)
        print(f"viper, 1024-node animation view, 40 ms updates: {best[0]:,.0f} trams/s, {best[1]:.1f} frames/s "
              f"(target: 300,000 trams/s at 20 frames/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
