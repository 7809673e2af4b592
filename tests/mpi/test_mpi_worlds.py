#!/usr/bin/env python3
"""test_mpi_worlds: traces that meet the edges of the traced world.

Cases (each runs an unmodified MPI program under viper-trace --out=DIR):
  spawn     tests/mpi/mpi-spawn.c on 3 ranks spawns 2 more processes
            (MPI_Comm_spawn), merges the intercommunicator and meets them in
            collectives.  The spawned world is not traced: the 3 files hold
            only the 3 launched ranks' lines (no line of another world, no
            message to a spawned process, no collective over the merged
            communicator), and pass every check of test_mpi (cross-check equal
            to the file, every message received, the replay with 0 pending and
            the library's counts); the program's output is unchanged; the
            spawned world's rank 0 says it is not traced and viper-trace exits 1
            saying how many processes were left out.
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
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_mpi  # noqa: E402
from test_mpi import check_traces, fail, mpi_env, parse_counts, read_traces, replay, run  # noqa: E402


def run_group(cmd, timeout):
    """run CMD in its own process group; on timeout the whole job (mpirun, the
    ranks, the spawned processes) is ended, not only viper-trace"""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env(),
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate(timeout=30)
        err += f"\n(timed out after {timeout} s: the job hung)"
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def case_spawn(args):
    prog = os.path.join(args.prog_dir, "mpi-spawn")
    cmd = [args.mpirun, "-n", "3", prog]
    plain = run_group(cmd, timeout=120)
    if plain.returncode != 0:
        fail(f"spawn: the program fails without the library: {plain.stderr[-800:]}")
        return
    with tempfile.TemporaryDirectory(prefix="viper-mpi-spawn-") as tmp:
        out = os.path.join(tmp, "trace")
        r = run_group([args.viper_trace, f"--out={out}", "--"] + cmd, timeout=120)
        if sorted(r.stdout.splitlines()) != sorted(plain.stdout.splitlines()):
            fail(f"spawn: the output differs with the library:\n--- without\n{plain.stdout}\n--- with\n{r.stdout}")
        if r.returncode != 1:
            fail(f"spawn: viper-trace exit {r.returncode}, want 1 (spawned processes not traced): {r.stderr[-1500:]}")
        if "viper-mpi: 2 processes started by MPI_Comm_spawn not traced" not in r.stderr:
            fail(f"spawn: the spawned world does not say it is not traced: {r.stderr[-1500:]}")
        if "viper-trace: 2 process(es) started by MPI_Comm_spawn not traced" not in r.stderr:
            fail(f"spawn: viper-trace does not say why it exits 1: {r.stderr[-1500:]}")
        counts = parse_counts(r.stderr)
        if any(c["dropped"] for c in counts.values()):
            fail(f"spawn: records dropped: {counts}")
        files = sorted(os.listdir(out))
        if files != ["rank-0000.trc", "rank-0001.trc", "rank-0002.trc"]:
            fail(f"spawn: files {files}, want the 3 launched ranks'")
        for f in files:
            text = open(os.path.join(out, f)).read()
            # one world per file: one begin, one end, one cross-check comment
            for what, pat in (("begin", r"^-3 -901 "), ("end", r"^-4 -901 "), ("cross-check", r"^# viper-mpi: ")):
                n = len(re.findall(pat, text, re.M))
                if n != 1:
                    fail(f"spawn: {f}: {n} {what} lines (two worlds in one file?)")
        traces = read_traces(out)
        for rank, recs in traces.items():
            for rec in recs:
                if rec[0] == -3 and rec[1] in (-21, -27) and not 0 <= test_mpi.data(rec)[2] < 3:
                    fail(f"spawn: rank {rank}: a send to processor {test_mpi.data(rec)[2]}: {rec}")
                if rec[0] == -202 and sorted(test_mpi.data(rec)[1:]) != [0, 1, 2]:
                    fail(f"spawn: rank {rank}: a subset with members outside the world: {rec}")
        messages = check_traces("spawn", traces, counts, 3)
        # the ring: 3 Sendrecv_replace per rank; nothing with the spawned processes
        if messages != 9:
            fail(f"spawn: {messages} messages recorded, want the 9 of the parents' ring")
        replay(args, "spawn", [os.path.join(out, f) for f in files], messages, counts, traces)


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
    {"spawn": case_spawn, "diskfull": case_diskfull}[args.case](args)
    if test_mpi.problems:
        print(f"{len(test_mpi.problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
