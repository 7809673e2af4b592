#!/usr/bin/env python3
"""test_mpi_worlds: traces that meet the edges of the traced world.

Cases (each runs an unmodified MPI program under viper-trace --out=DIR):
  diskfull  tests/mpi/mpi-threads.c on 4 ranks under a file size limit of
            20,480 bytes per rank (ulimit -f, SIGXFSZ ignored), so every
            rank's write fails part-way through a line: every file ends with a
            whole line, holds exactly 'records - dropped' lines (the library's
            cross-check), every rank names the reason (File too large),
            viper-replay rejects no line, and viper-trace exits 1.
Every wait is bounded; nothing sleeps to synchronise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_mpi  # noqa: E402
from test_mpi import check_traces, fail, mpi_env, parse_counts, read_traces, replay, run  # noqa: E402


def case_diskfull(args):
    prog = os.path.join(args.prog_dir, "mpi-threads")
    with tempfile.TemporaryDirectory(prefix="viper-mpi-full-") as tmp:
        out = os.path.join(tmp, "trace")
        # the limit in the ranks only (mpirun's own files stay free); sh's ulimit -f counts
        # 512-byte blocks; no shared-memory transport, whose segment the limit would refuse
        env = mpi_env({"OMPI_MCA_btl": "self,tcp"})
        limited = ["sh", "-c", f"trap '' XFSZ; ulimit -f 40; exec {prog}"]
        r = run([args.viper_trace, f"--out={out}", "--", args.mpirun, "-n", "4"] + limited, timeout=180, env=env)
        if r.returncode != 1:
            fail(f"diskfull: viper-trace exit {r.returncode}, want 1: {r.stderr[-1500:]}")
        counts = parse_counts(r.stderr)
        if sorted(counts) != [0, 1, 2, 3]:
            fail(f"diskfull: cross-check lines for ranks {sorted(counts)}: {r.stderr[-1500:]}")
        for rank in range(4):
            path = os.path.join(out, f"rank-{rank:04d}.trc")
            if f"viper-mpi: rank {rank}: {path}: File too large; this rank is not traced from here on" \
                    not in r.stderr:
                fail(f"diskfull: rank {rank} does not say why its file stopped: {r.stderr[-1500:]}")
            try:
                data = open(path, "rb").read()
            except OSError as e:
                fail(f"diskfull: {e}")
                continue
            if not data or len(data) > 20480:
                fail(f"diskfull: {path}: {len(data)} bytes, want 1..20480")
            if not data.endswith(b"\n"):
                fail(f"diskfull: rank {rank}: the file ends in the middle of a line: {data[-60:]!r}")
            c = counts.get(rank)
            if c and not c["dropped"]:
                fail(f"diskfull: rank {rank}: nothing dropped under the limit: {c}")
            lines = data.count(b"\n")
            if c and lines != c["records"] - c["dropped"]:
                fail(f"diskfull: rank {rank}: {lines} lines in the file, the library says "
                     f"{c['records']} records of which {c['dropped']} dropped")
        files = [os.path.join(out, f) for f in sorted(os.listdir(out))]
        rr = subprocess.run([args.viper_replay, "-q", "--stats"] + files, capture_output=True, text=True,
                            timeout=120)
        m = re.search(r"^rejected: (\d+)$", rr.stdout, re.M)
        if not m or m.group(1) != "0":
            fail(f"diskfull: the replay rejected lines of the cut files: {rr.stdout[:300]} {rr.stderr[-800:]}")
        print(f"diskfull: {counts}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--viper-trace", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog-dir", required=True)
    args = ap.parse_args()
    {"diskfull": case_diskfull}[args.case](args)
    if test_mpi.problems:
        print(f"{len(test_mpi.problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
