#!/usr/bin/env python3
"""viper-replay's progress line and its answer to SIGINT / SIGTERM.

- --progress=always writes plain lines and a last one with the final counts;
  --progress=never and the default on a pipe write none; a bad WHEN is a
  usage error (2).
- On a terminal (script(1) gives one) the line is redrawn in place ("\\r",
  erase to the end of line) and erased at the end.
- SIGINT (SIGTERM) stops a file replay where it is: exit 130 (143), the
  message says so, --state-out and --stats hold the state reached, and a
  replay waiting on standard input is stopped as well, and so is one whose
  input FIFO still waits for a writer (the wait said once, also with -q).

No sleeps: the test waits for the replay's first progress line (printed at
its first batch with VIPER_PROGRESS_INTERVAL=0) before it signals.
"""
import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what, flush=True)
    if not cond:
        failures.append(what)


LINE = re.compile(r"viper-replay: (?:(?:(\d+)% of )?[0-9.]+ [MG]B read, )?([0-9,]+) trams, ([0-9,]+) transferred"
                  r"(?: \([0-9.]+ M/s\))?, ([0-9,]+) pending$")


def num(s):
    return int(s.replace(",", ""))


def read_until(p, text, seconds):
    """p's standard error (bytes) until text shows, at most `seconds`: what
    was read, and whether it showed."""
    fd = p.stderr.fileno()
    got = b""
    deadline = time.monotonic() + seconds
    while text.encode() not in got and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        got += chunk
    return got.decode("utf-8", "replace"), text in got.decode("utf-8", "replace")


def fifo_cases(replay, tmp, small, n_small):
    fifo = os.path.join(tmp, "in.fifo")
    wait = "viper-replay: waiting for a writer on FIFO " + fifo + "\n"
    for sig, code, name, quiet in ((signal.SIGTERM, 143, "SIGTERM", []), (signal.SIGINT, 130, "SIGINT", ["-q"])):
        os.mkfifo(fifo)
        state = os.path.join(tmp, "fifo-state.json")
        if os.path.exists(state):
            os.unlink(state)
        p = subprocess.Popen([replay, *quiet, "--stats", "--state-out=" + state, fifo], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            said, seen = read_until(p, wait, 30)
            check(seen, f"FIFO{' -q' if quiet else ''}: 'waiting for a writer on FIFO' said (stderr {said!r})")
            p.send_signal(sig)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        err = said + err.decode("utf-8", "replace")
        out = out.decode("utf-8", "replace")
        check(p.returncode == code, f"FIFO without a writer, {name}: exit {code} (got {p.returncode})")
        check(err.count("waiting for a writer") == 1, f"FIFO, {name}: the wait is said once ({err!r})")
        check(f"viper-replay: interrupted by {name} after 0 trams read and 0 transferred; the outputs hold the state "
              "reached" in err, f"FIFO, {name}: the message says the replay was interrupted ({err!r})")
        try:
            check(json.load(open(state))["counts"]["read"] == 0, f"FIFO, {name}: --state-out written")
        except (OSError, ValueError, KeyError) as e:
            check(False, f"FIFO, {name}: --state-out written ({e})")
        check(re.search(r"^read: 0$", out, re.M) is not None, f"FIFO, {name}: --stats written ({out!r})")
        os.unlink(fifo)

    # the writer comes after the wait was said: the whole trace is read, also
    # under -p auto (which samples no FIFO: its lines are the replay's)
    os.mkfifo(fifo)
    p = subprocess.Popen([replay, "-p", "auto", "--stats", fifo], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        said, seen = read_until(p, wait, 30)
        if seen:
            with open(fifo, "wb") as w, open(small, "rb") as f:
                w.write(f.read())
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check("paradigm picl: no trace file to sample" in said, f"FIFO, -p auto: the FIFO is not sampled ({said!r})")
    check(seen and p.returncode == 0 and re.search(r"^transferred: %d$" % n_small, out.decode(), re.M) is not None,
          f"FIFO: a writer after the wait is read whole (exit {p.returncode}, {out[:60]!r})")
    os.unlink(fifo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--picl-gen", required=True)
    a = ap.parse_args()
    replay = a.viper_replay
    tmp = tempfile.mkdtemp(prefix="viper-progress-")
    env = dict(os.environ, VIPER_PROGRESS_INTERVAL="0")
    try:
        small = os.path.join(tmp, "small.trc")
        with open(small, "w") as f:
            subprocess.run([a.picl_gen, "--procs=4", "--messages=2000", "--seed=3"], stdout=f, check=True)
        n_small = sum(1 for l in open(small) if l.strip() and not l.lstrip().startswith("#"))

        # --progress=always: lines, and a last one with the final counts
        p = subprocess.run([replay, "--progress=always", small], env=env, capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if l.startswith("viper-replay: ")]
        check(p.returncode == 0, "--progress=always: exit 0")
        check(len(lines) >= 1 and all(LINE.match(l) for l in lines), "--progress=always: every line has the format")
        m = LINE.match(lines[-1]) if lines else None
        check(m is not None and m.group(1) == "100" and num(m.group(2)) == n_small and num(m.group(3)) == n_small
              and num(m.group(4)) == 0, "--progress=always: the last line says 100%%, %d trams, all transferred" % n_small)
        for when in ("never", None):
            args = [replay] + (["--progress=" + when] if when else []) + [small]
            p = subprocess.run(args, env=env, capture_output=True, text=True)
            check(p.returncode == 0 and "viper-replay:" not in p.stderr,
                  "--progress=%s on a pipe: no progress line" % (when or "auto (default)"))
        p = subprocess.run([replay, "--progress=sometimes", small], capture_output=True, text=True)
        check(p.returncode == 2 and "--progress" in p.stderr, "--progress=sometimes: usage error (2)")

        # a terminal: redrawn in place, erased at the end
        if shutil.which("script"):
            p = subprocess.run(["script", "-qec", f"{replay} {small} --progress=auto", "/dev/null"], env=env,
                               capture_output=True, stdin=subprocess.DEVNULL)
            out = p.stdout.decode("utf-8", "replace")
            check(p.returncode == 0 and "\rviper-replay: " in out and "\x1b[K" in out,
                  "on a terminal the line is redrawn in place")
            check(out.rstrip("\r\n").endswith("\r\x1b[K"), "on a terminal the line is erased at the end")
        else:
            print("ok - # SKIP script(1) not installed")

        # SIGINT and SIGTERM in the middle of a file replay
        big = os.path.join(tmp, "big.trc")
        with open(big, "w") as f:
            subprocess.run([a.picl_gen, "--procs=16", "--messages=150000", "--seed=5"], stdout=f, check=True)
        n_big = sum(1 for l in open(big) if l.strip() and not l.lstrip().startswith("#"))
        for sig, code, name in ((signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")):
            state = os.path.join(tmp, "state.json")
            p = subprocess.Popen([replay, "--progress=always", "--stats", "--state-out=" + state, big], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            first = p.stderr.readline()       # the replay is under way
            p.send_signal(sig)
            out, err = p.communicate(timeout=120)
            check(LINE.match(first.rstrip("\n")) is not None, f"{name}: a progress line came first")
            check(p.returncode == code, f"{name}: exit {code} (got {p.returncode})")
            m = re.search(r"interrupted by %s after (\d+) trams read and (\d+) transferred; the outputs hold the state "
                          r"reached" % name, err)
            check(m is not None, f"{name}: the message says the replay was interrupted")
            try:
                st = json.load(open(state))
                c = st["counts"]
                check(m is not None and c["read"] == int(m.group(1)) and c["transferred"] == int(m.group(2))
                      and c["read"] < n_big, f"{name}: --state-out holds the state reached ({c['read']} of {n_big} read)")
            except (OSError, ValueError, KeyError) as e:
                check(False, f"{name}: --state-out written ({e})")
            check(re.search(r"^read: \d+$", out, re.M) is not None, f"{name}: --stats written")

        # SIGINT while waiting for more on standard input
        r, w = os.pipe()
        p = subprocess.Popen([replay, "--progress=always", "-"], env=env, stdin=r, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        os.close(r)
        os.write(w, b"-3 -901 0.0 0 0 0\n")
        for _ in range(100000):              # until a progress line shows the line read
            m = LINE.match(p.stderr.readline().rstrip("\n"))
            if m is None or num(m.group(2)) == 1:
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        os.close(w)
        check(p.returncode == 130 and "interrupted by SIGINT after 1 tram read and" in err,
              "SIGINT while waiting on standard input: exit 130 at once")

        # a FIFO without a writer: the wait is said once (also with -q, as
        # for an output FIFO), a signal meanwhile stops the replay like any
        # other, and a writer that comes later is read whole
        fifo_cases(replay, tmp, small, n_small)

        # SIGINT ends a live session the same way, its waiting trams said
        sock = os.path.join(tmp, "live.sock")
        state = os.path.join(tmp, "live.json")
        p = subprocess.Popen([replay, "--progress=always", "--listen=unix:" + sock, "--state-out=" + state], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        import socket
        c = None
        for _ in range(2000):                # bounded: the listener is up within its first ticks
            line = p.stderr.readline()
            if not line:
                break
            if os.path.exists(sock):
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.connect(sock)
                # a receive whose message never comes: its end stays pending
                c.sendall(b"-3 -52 0.0005 1 0 3 2 7 0\n-4 -52 0.003 1 0 4 2 64 7 0 0\n")
                break
        seen = ""
        for _ in range(100000):              # until the progress line shows both trams read
            line = p.stderr.readline()
            if not line:
                break
            m = LINE.match(line.rstrip("\n"))
            if m and num(m.group(2)) == 2:
                seen = line
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        if c:
            c.close()
        check(seen != "", "live: the progress line shows the 2 trams read")
        check(p.returncode == 130 and "interrupted by SIGINT after 2 trams read" in err,
              "live: SIGINT ends the session with exit 130 and says so (got %d)" % p.returncode)
        check("pending where it was interrupted" in err, "live: the trams still waiting are said")
        try:
            check(json.load(open(state))["counts"]["read"] == 2, "live: --state-out holds the 2 trams read")
        except (OSError, ValueError, KeyError) as e:
            check(False, f"live: --state-out written ({e})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
