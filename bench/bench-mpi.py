#!/usr/bin/env python3
"""bench-mpi: what libviper-mpi adds to an MPI program (figures, not a test).

- 8-byte ping-pong between two ranks on this host, without the library and
  traced to files: the round trip, and the time added per MPI call (a round
  trip has four calls on its critical path: send, receive end, send,
  receive end).
- records/s: one rank calling MPI_Bcast on a one-rank MPI_COMM_WORLD
  (nothing to do for MPI), traced to files minus untraced, per record.
Usage: bench-mpi.py VIPER_TRACE BENCH_MPI MPIRUN
"""
import os
import subprocess
import sys
import tempfile


def env():
    e = dict(os.environ)
    if os.geteuid() == 0:
        e["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        e["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    e["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    e.setdefault("OMPI_MCA_btl", "self,vader")
    return e


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=600)
    if r.returncode != 0:
        sys.exit(f"bench-mpi: {' '.join(cmd)} failed: {r.stderr[-800:]}")
    return float(r.stdout.split()[-1])


def main():
    trace, prog, mpirun = sys.argv[1:4]
    n = int(os.environ.get("VIPER_BENCH_MPI_N", "20000"))
    with tempfile.TemporaryDirectory(prefix="viper-bench-mpi-") as tmp:
        plain = min(run([mpirun, "-n", "2", prog, "pingpong", str(n)]) for _ in range(3))
        traced = min(run([trace, f"--out={tmp}", "--quiet", "--", mpirun, "-n", "2", prog, "pingpong", str(n)])
                     for _ in range(3))
        added = (traced - plain) / 4 * 1000
        print(f"ping-pong 8 bytes, 2 ranks, {n} round trips, best of 3x5:")
        print(f"  round trip without the library: {plain:.3f} us")
        print(f"  round trip traced to files:     {traced:.3f} us")
        print(f"  added per MPI call:             {added:.0f} ns (goal < 500 ns; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs: on a busy machine this is mostly noise)")
        m = n * 20
        p = min(run([mpirun, "-n", "1", prog, "records", str(m)]) for _ in range(3))
        t = min(run([trace, f"--out={tmp}", "--quiet", "--", mpirun, "-n", "1", prog, "records", str(m)])
                for _ in range(3))
        per = (t - p) / 2
        print(f"recording: {m} MPI_Bcast calls on one rank (MPI has nothing to do), 2 records each, CPU time:")
        print(f"  {p:.1f} ns/call untraced, {t:.1f} ns/call traced to a file:")
        print(f"  added per MPI call: {t - p:.0f} ns (goal < 500 ns); {per:.1f} ns/record, "
              f"{1e9 / per / 1e6:.2f} million records/s" if per > 0 else "  (no difference measured)")
        size = os.path.getsize(os.path.join(tmp, "rank-0000.trc"))
        print(f"  trace size {size} bytes for {5 * 2 * m} records ({size / (10 * m):.1f} bytes/record)")


if __name__ == "__main__":
    main()
