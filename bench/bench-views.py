#!/usr/bin/env python3
"""bench-views: each view's frame cost, headless, at real-program scale (issue 13).

Generates the four cases of the GUI benchmarks - PICL traces of 64 and 1,024
ranks (viper-picl-gen, 60,000 messages), the 1,000,000-tram Mona Lisa Farm
and the 1,000,000-tram Macrame 8x8 testbed with its view setup - and runs
bench-views on each: the CPU ms of a full frame of every view at the GUI's
default window sizes at four points of the run, and of the frames the GUI
paints while replaying (damage through the frame cache).  CPU time does not
depend on how loaded the machine is the way frames/s under Xvfb do.
A benchmark: prints figures, asserts nothing.
Usage: bench-views.py BENCH_VIEWS PICL_GEN MONALISA_SIM MACRAME_SIM SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile

# the views' sizes in the GUI's default 1100-wide window under Xvfb
SIZES = ["--size=animation:826x380", "--size=spacetime:756x280", "--size=variables:323x280",
         "--size=program:248x380"]


def main():
    bench, gen, mlsim, macsim, root = sys.argv[1:6]
    with tempfile.TemporaryDirectory(prefix="viper-bench-views-") as tmp:
        p64, p1024 = os.path.join(tmp, "p64.trc"), os.path.join(tmp, "p1024.trc")
        farm, farm_setup = os.path.join(tmp, "farm.trc"), os.path.join(tmp, "farm.setup")
        mesh = os.path.join(tmp, "mesh8x8.trc")
        for procs, out in ((64, p64), (1024, p1024)):
            subprocess.run([gen, "--procs=%d" % procs, "--messages=60000", "--seed=3", "--output=" + out], check=True)
        subprocess.run([mlsim, "--program=farm", "--count=1000000", "--delivery=shuffled", "--out=" + farm,
                        "--setup-out=" + farm_setup], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([macsim, "--mesh=8", "--trams=1000000", "--seed=5", "--out=" + mesh], check=True,
                       stdout=subprocess.DEVNULL)
        cases = [("PICL, 64 ranks", ["picl", p64]), ("PICL, 1,024 ranks", ["picl", p1024]),
                 ("Mona Lisa Farm", ["--setup=" + farm_setup, "monalisa", farm]),
                 ("Macrame 8x8 testbed", ["--setup=" + os.path.join(root, "setup", "mesh8x8.view"), "macrame", mesh])]
        for name, args in cases:
            print(f"== {name} (load average {os.getloadavg()[0]:.1f})", flush=True)
            subprocess.run([bench] + SIZES + args, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
