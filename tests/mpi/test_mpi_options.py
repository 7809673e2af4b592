#!/usr/bin/env python3
"""test_mpi_options.py - viper-trace's options and libviper-mpi's VIPER_MPI_*
values (meson test mpi-options; split out of test_mpi.py, whose helpers it
uses).

  - options: bad numeric options are refused by viper-trace before anything
    runs (exit 2, the option named); other misuse (empty --out or --live, a
    bad port, a missing command, a --lib that is not a library) is said;
    a bad VIPER_MPI_BUFFER or VIPER_MPI_SYNC in the environment is said per
    rank, the summary does not claim those ranks traced and viper-trace
    exits 1 though the program succeeded;
  - values: the library's own parsing, reached past viper-trace (a batch
    system, --print-env): every numeric variable refuses what the shell
    refuses (exponents, hex, signs, blanks, inf), each rank naming the
    variable, and takes the forms the rule allows.
Every wait is bounded; nothing sleeps to synchronise.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_mpi as tm  # noqa: E402  (the helpers every MPI case shares)


def case_options(args):
    """Numeric options are checked before anything runs (exit 2, the option
    named); a bad VIPER_MPI_BUFFER or VIPER_MPI_SYNC in the environment is
    said per rank, and then the summary does not claim those ranks traced
    and viper-trace exits 1 though the program succeeded."""
    tried = 0
    for opt in ("--buffer=-5", "--buffer=abc", "--buffer=1K", "--buffer=2048M", "--buffer=",
                "--sync=abc", "--sync=-1", "--sync=101", "--live-timeout=abc", "--live-timeout=-1",
                "--live-timeout=1.2.3", "--live-timeout=1e3", "--live-timeout=0x10"):
        with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
            out = os.path.join(tmp, "tb")
            r = tm.run([args.viper_trace, opt, f"--out={out}", "--", "true"])
            tried += 1
            if r.returncode != 2 or f"viper-trace: {opt}: expected" not in r.stderr:
                tm.fail(f"options: {opt}: exit {r.returncode} (want 2 and a message): {r.stderr[-400:]}")
            if os.path.exists(out):
                tm.fail(f"options: {opt}: the command ran anyway")
    # an empty --live is no address (it used to write files instead)
    with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
        out = os.path.join(tmp, "tb")
        r = tm.run([args.viper_trace, "--live=", "--", "mkdir", out])
        tried += 1
        if r.returncode != 2 or "--live wants tcp:HOST:PORT" not in r.stderr or os.path.exists(out):
            tm.fail(f"options: --live=: exit {r.returncode} (want 2 and a message, nothing run): {r.stderr[-400:]}")
        # nor is an address without a host, or a port that is not 1..65535 (the
        # ranks used to start and run untraced: "Connection refused" for port 99999)
        for live, said in (("tcp::7405", "no HOST"), ("tcp:127.0.0.1:", "port ''"),
                           ("tcp:127.0.0.1:99999", "port '99999' is not a number from 1 to 65535"),
                           ("tcp:127.0.0.1:0", "port '0'"), ("tcp:127.0.0.1:http", "port 'http'")):
            r = tm.run([args.viper_trace, f"--live={live}", "--", "mkdir", out])
            tried += 1
            if r.returncode != 2 or f"viper-trace: --live={live}: {said}" not in r.stderr or os.path.exists(out):
                tm.fail(f"options: --live={live}: exit {r.returncode} (want 2 and '{said}', nothing run): "
                     f"{r.stderr[-400:]}")
        # nor is an empty --out a directory (it used to mean '.')
        r = tm.run([args.viper_trace, "--out=", "--", "mkdir", out])
        tried += 1
        if r.returncode != 2 or "--out wants a directory" not in r.stderr or os.path.exists(out):
            tm.fail(f"options: --out=: exit {r.returncode} (want 2 and a message, nothing run): {r.stderr[-400:]}")
        # a command that succeeds without any rank calling MPI_Init traced nothing: exit 1, said
        r = tm.run([args.viper_trace, f"--out={out}", "--"] + tm.mpirun(args, 2) + ["echo", "no mpi here"])
        if r.stdout.count("no mpi here") != 2 or r.returncode != 1 or \
                not re.search(r"^viper-trace: 0 ranks traced: .*MPI_Init.*Fortran", r.stderr, re.M):
            tm.fail(f"options: no MPI_Init: exit {r.returncode} (want 1 and a message), output {r.stdout!r}: "
                 f"{r.stderr[-400:]}")
    # a command that does not exist is said by viper-trace, not by the shell's internals
    # ("viper-trace: 170: /nonexistent-cmd: not found"), with the shell's status
    with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
        plain = os.path.join(tmp, "plain")
        with open(plain, "w") as f:
            f.write("#!/bin/sh\n")
        for cmd, rc, said in (("/nonexistent-cmd", 127, "/nonexistent-cmd: command not found"),
                              ("viper-no-such-command", 127, "viper-no-such-command: command not found"),
                              (plain, 126, f"{plain}: not an executable file"),
                              (tmp, 126, f"{tmp}: not an executable file")):
            r = tm.run([args.viper_trace, f"--out={tmp}/tb", "--", cmd])
            tried += 1
            if r.returncode != rc or r.stderr != f"viper-trace: {said}\n" or os.path.exists(f"{tmp}/tb"):
                tm.fail(f"options: -- {cmd}: exit {r.returncode}, stderr {r.stderr!r} "
                     f"(want {rc} and 'viper-trace: {said}', nothing run)")
    # a --lib that is not a shared library: said, nothing run (the loader used to
    # say "cannot be preloaded: ignored" per process, and the job ran untraced)
    with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
        text = os.path.join(tmp, "libtext.so")
        with open(text, "w") as f:
            f.write("not a library\n")
        r = tm.run([args.viper_trace, f"--lib={text}", f"--out={tmp}/tb", "--", "mkdir", f"{tmp}/ran"])
        tried += 1
        if r.returncode != 127 or r.stderr != f"viper-trace: {text}: not a shared library " \
                "(use --lib=PATH to name libviper-mpi.so)\n" or os.path.exists(f"{tmp}/ran"):
            tm.fail(f"options: --lib=<text file>: exit {r.returncode}, stderr {r.stderr!r} (want 127, nothing run)")
    # a library in a directory with a blank (a build or install path like
    # "/home/x/my work/viper"): LD_PRELOAD splits at blanks, so every rank ran untraced
    with tempfile.TemporaryDirectory(prefix="viper-mpi- ") as tmp:
        libdir = os.path.join(tmp, "lib dir")
        os.mkdir(libdir)
        shutil.copy(os.path.join(os.path.dirname(args.viper_trace), "libviper-mpi.so"), libdir)
        out = os.path.join(tmp, "out dir")
        r = tm.run([args.viper_trace, f"--lib={libdir}/libviper-mpi.so", f"--out={out}", "--"] + tm.mpirun(args, 4) +
                   [os.path.join(args.prog_dir, "mpi-p2p")], env=tm.mpi_env())
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
        if r.returncode != 0 or files != [f"rank-{i:04d}.trc" for i in range(4)] or "cannot be preloaded" in r.stderr:
            tm.fail(f"options: a library path with a blank: exit {r.returncode}, files {files}: {r.stderr[-500:]}")
        shutil.copy(os.path.join(libdir, "libviper-mpi.so"), os.path.join(tmp, "a:b.so"))
        r = tm.run([args.viper_trace, f"--lib={tmp}/a:b.so", "--", "true"])
        tried += 1
        if r.returncode != 127 or "a library path with ':' cannot be preloaded" not in r.stderr:
            tm.fail(f"options: a library path with ':': exit {r.returncode}: {r.stderr[-300:]}")
    # a value as the next argument, as viper-replay takes it ('--out' was "unknown option")
    r = tm.run([args.viper_trace, "--out", "/tmp/tb-sep", "--buffer", "64K", "--sync", "0", "--print-env"])
    if r.returncode != 0 or "VIPER_MPI_OUT='/tmp/tb-sep'" not in r.stdout or \
            "VIPER_MPI_BUFFER='64K'" not in r.stdout or "VIPER_MPI_SYNC='0'" not in r.stdout:
        tm.fail(f"options: '--out DIR --buffer 64K --sync 0' refused: {r.returncode} {r.stdout} {r.stderr}")
    for argv in (["--out"], ["--out", "--", "true"], ["--live"]):
        r = tm.run([args.viper_trace] + argv)
        tried += 1
        if r.returncode != 2 or f"viper-trace: {argv[0]} wants a value" not in r.stderr:
            tm.fail(f"options: {argv}: exit {r.returncode} (want 2 and 'wants a value'): {r.stderr[-300:]}")
    r = tm.run([args.viper_trace, "--buffer=64K", "--sync=0", "--live-timeout=0.5", "--print-env"])
    if r.returncode != 0 or "VIPER_MPI_BUFFER='64K'" not in r.stdout or "VIPER_MPI_SYNC='0'" not in r.stdout:
        tm.fail(f"options: good values refused: {r.returncode} {r.stdout} {r.stderr}")
    prog = os.path.join(args.prog_dir, "mpi-p2p")
    plain = tm.run(tm.mpirun(args, 4) + [prog])
    # a bad port reaching the library past viper-trace: said per rank, never connected modulo 65536
    lib = os.path.join(os.path.dirname(args.viper_trace), "libviper-mpi.so")
    r = tm.run(tm.mpirun(args, 4) + [prog],
               env=tm.mpi_env({"LD_PRELOAD": lib, "VIPER_MPI_LIVE": "tcp:127.0.0.1:99999"}))
    if r.stderr.count("tcp:127.0.0.1:99999: port '99999' is not a number from 1 to 65535") != 4 or \
            "0 of 4 ranks traced" not in r.stderr:
        tm.fail(f"options: VIPER_MPI_LIVE with port 99999: want the port named once per rank and "
             f"no rank traced: {r.stderr[-600:]}")
    for var, value in (("VIPER_MPI_BUFFER", "-5"), ("VIPER_MPI_SYNC", "abc")):
        with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
            out = os.path.join(tmp, "tb")
            # the variable as a launcher would pass it, past viper-trace's checks
            r = tm.run([args.viper_trace, f"--out={out}", "--"] + tm.mpirun(args, 4) + [prog],
                       env=tm.mpi_env({var: value, "OMPI_MCA_mca_base_env_list": var}))
            label = f"options: {var}={value}"
            if r.stdout != plain.stdout:
                tm.fail(f"{label}: the program's output changed")
            if r.stderr.count(f"{var}='{value}': expected") != 4 or r.stderr.count("is not traced") != 4:
                tm.fail(f"{label}: not said once per rank: {r.stderr[-800:]}")
            if "Cannot allocate memory" in r.stderr:
                tm.fail(f"{label}: reported as an allocation failure")
            if re.search(r"^viper-mpi: 4 ranks traced", r.stderr, re.M) or "0 of 4 ranks traced" not in r.stderr:
                tm.fail(f"{label}: the summary claims ranks traced: {r.stderr[-800:]}")
            if r.returncode != 1 or "4 of 4 ranks not traced" not in r.stderr:
                tm.fail(f"{label}: exit {r.returncode}, want 1 with a message: {r.stderr[-400:]}")
            files = os.listdir(out) if os.path.isdir(out) else []
            if files:
                tm.fail(f"{label}: untraced ranks left files {files}")
    print(f"options: {tried} bad options refused with exit 2; bad environment values said per rank, exit 1")


# (variable, value, what the rank says it expected)
BAD_VALUES = (
    ("VIPER_MPI_LIVE_TIMEOUT", "1e3", "expected seconds from 0 to 3600"),
    ("VIPER_MPI_LIVE_TIMEOUT", "0x10", "expected seconds from 0 to 3600"),
    ("VIPER_MPI_LIVE_TIMEOUT", "inf", "expected seconds from 0 to 3600"),
    ("VIPER_MPI_LIVE_TIMEOUT", "5 ", "expected seconds from 0 to 3600"),
    ("VIPER_MPI_LIVE_TIMEOUT", "3600.5", "expected seconds from 0 to 3600"),
    ("VIPER_MPI_SYNC", "-0", "expected a number of ping-pongs from 0 to 100"),
    ("VIPER_MPI_SYNC", "0x10", "expected a number of ping-pongs from 0 to 100"),
    ("VIPER_MPI_BUFFER", "1e6", "expected a size from 4K to 1024M"),
    ("VIPER_MPI_BUFFER", "0x10000", "expected a size from 4K to 1024M"),
)


def case_values(args):
    """Each numeric VIPER_MPI_* variable parsed by the library as viper-trace
    checks the option (the probe's rule for seconds: digits and at most one
    point, 0 to 3600): a bad value is named by every rank, which then runs
    untraced; good values in every allowed form trace every rank.  Two ranks
    of mpi-threads, the quickest program; the library preloaded directly, as
    a batch system would start the ranks."""
    lib = os.path.join(os.path.dirname(args.viper_trace), "libviper-mpi.so")
    prog = os.path.join(args.prog_dir, "mpi-threads")
    for var, value, said in BAD_VALUES:
        with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
            r = tm.run(tm.mpirun(args, 2) + [prog], env=tm.mpi_env({"LD_PRELOAD": lib, "VIPER_MPI_OUT": tmp,
                                                                     var: value}))
            label = f"values: {var}={value!r}"
            for rank in range(2):
                want = f"viper-mpi: rank {rank}: {var}='{value}': {said}"
                if want not in r.stderr:
                    tm.fail(f"{label}: rank {rank} did not say {want!r}: {r.stderr[-600:]}")
            if "0 of 2 ranks traced" not in r.stderr or os.listdir(tmp):
                tm.fail(f"{label}: ranks traced anyway ({os.listdir(tmp)}): {r.stderr[-600:]}")
    good = {"VIPER_MPI_LIVE_TIMEOUT": ".5", "VIPER_MPI_SYNC": "007", "VIPER_MPI_BUFFER": "64K"}
    for timeout in (".5", "7.", "3600", "0"):
        with tempfile.TemporaryDirectory(prefix="viper-mpi-") as tmp:
            good["VIPER_MPI_LIVE_TIMEOUT"] = timeout
            r = tm.run(tm.mpirun(args, 2) + [prog], env=tm.mpi_env(dict(good, LD_PRELOAD=lib, VIPER_MPI_OUT=tmp)))
            files = sorted(os.listdir(tmp))
            if r.returncode != 0 or files != ["rank-0000.trc", "rank-0001.trc"] or "expected" in r.stderr:
                tm.fail(f"values: good values {good} refused: exit {r.returncode}, files {files}: {r.stderr[-600:]}")
    print(f"values: {len(BAD_VALUES)} bad VIPER_MPI_* values named by every rank; 4 good sets traced")


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=("options", "values"))
    ap.add_argument("--viper-trace", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog-dir", required=True)
    args = ap.parse_args()
    {"options": case_options, "values": case_values}[args.case](args)
    if tm.problems:
        print(f"{len(tm.problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
