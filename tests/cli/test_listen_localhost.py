#!/usr/bin/env python3
"""--listen=tcp:localhost:PORT listens on every address "localhost" resolves
to: a sender that connects to 127.0.0.1 and one that connects to ::1 are both
read (trial 3: only [::1] was bound, so Viper's own senders, which resolve
localhost to 127.0.0.1 first, were refused and the listener waited for ever).

viper-replay listens on tcp:localhost:0; the port is taken from its first
"listening on" line.  One sender per loopback address (::1 skipped when the
machine has no IPv6 loopback) writes one processor's trams; --stats must count
every line of each, and stderr must name a connection to each address.
Loopback only; every wait has a deadline.
"""
import argparse
import os
import re
import select
import socket
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--viper-replay", required=True)
args = ap.parse_args()
problems = []


def expect(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        problems.append(what)


def have_ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def trams(proc):
    return (f"-3 -901 0.0 {proc} 0 0\n-3 -21 0.001 {proc} 0 4 2 64 7 {1 - proc} 0\n"
            f"-4 -21 0.002 {proc} 0 0\n-4 -901 0.004 {proc} 0 0\n").encode()


hosts = ["127.0.0.1"] + (["::1"] if have_ipv6_loopback() else [])
if len(hosts) == 1:
    print("# no IPv6 loopback here: only the 127.0.0.1 sender")

p = subprocess.Popen([args.viper_replay, "--listen=tcp:localhost:0", "--idle-exit=0.5", "--stats"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
err_lines = []
try:
    deadline = time.monotonic() + 20
    buf = b""
    port = None
    while port is None and time.monotonic() < deadline:
        r, _, _ = select.select([p.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        chunk = os.read(p.stderr.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf and port is None:
            line, buf = buf.split(b"\n", 1)
            err_lines.append(line.decode(errors="replace"))
            m = re.search(r"listening on tcp:\S+:(\d+)$", err_lines[-1])
            if m:
                port = int(m.group(1))
    expect(port is not None, "viper-replay says the port it listens on")
    if port is None:
        p.kill()
    else:
        conns = []
        for proc, host in enumerate(hosts):
            try:
                conns.append(socket.create_connection((host, port), timeout=10))
                expect(True, f"a sender connects to {host}")
            except OSError as e:
                expect(False, f"a sender connects to {host}: {e}")
        for proc, c in enumerate(conns):
            with c:
                c.sendall(trams(proc))
                c.shutdown(socket.SHUT_WR)
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
    expect(False, "viper-replay ends (--idle-exit) once the senders have closed")
err_lines += (buf + err).decode(errors="replace").splitlines()
out_lines = out.decode(errors="replace").splitlines()

expect(p.returncode == 0, f"exit status 0 (got {p.returncode})")
expect(f"read: {4 * len(hosts)}" in out_lines, f"read: {4 * len(hosts)} (every line of every sender)")
expect("rejected: 0" in out_lines, "rejected: 0")
for proc, host in enumerate(hosts):
    expect(f"proc {proc}: 4" in out_lines, f"proc {proc}: 4 (the sender to {host})")
    shown = f"[{host}]" if ":" in host else host
    expect(any(f"connection tcp:{shown}:" in line and "opened" in line for line in err_lines),
           f"a connection to tcp:{shown} is reported")
if problems:
    print("stdout:\n" + out.decode(errors="replace"))
    print("stderr:\n" + "\n".join(err_lines))
sys.exit(1 if problems else 0)
