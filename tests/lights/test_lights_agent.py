#!/usr/bin/env python3
"""test_lights_agent.py - viper-lights-agent on its own, without namespaces.

--help and usage errors (exit 0 and 2); a bad hosts file named as FILE:LINE
(exit 1); --out with --count: Joined, a message, then one Load tram per
sample, all on consecutive sequence numbers and accepted by viper-replay as
lights trams; a cgroup-like directory (--cgroup) whose cpuacct.usage the
test advances by a known amount between samples gives loads that follow it;
a child agent's lines are forwarded whole through its parent, and when the
child ends the parent sends Lost for it; an unreachable upstream is named
with its reason, lines never delivered end the agent with exit 1, and lines
that waited reach an upstream that comes late.  Loopback only; bounded in time.
"""
import os
import re
import socket
import select
import subprocess
import sys
import tempfile
import time

build = os.environ.get("VIPER_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
AGENT = os.path.join(build, "probe", "lights", "viper-lights-agent")
REPLAY = os.path.join(build, "cli", "viper-replay")
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(args, **kw):
    return subprocess.run([AGENT] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30,
                          **kw)


def trams(text):
    return [l.split() for l in text.splitlines() if l.strip() and not l.startswith("#")]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def unreachable_upstream(tmp):
    """An upstream nobody listens on: the agent says so (address, reason), and
    lines never delivered are counted at the end with exit 1; an upstream that
    starts listening later gets every line, whole and in order."""
    port = free_port()
    to = "tcp:127.0.0.1:%d" % port
    r = run(["-n", "0", "-t", to, "--count", "3", "-i", "100"])
    check(r.returncode == 1, "an upstream never reached: exit 1 (%d)" % r.returncode)
    check("%s: Connection refused; retrying" % to in r.stderr, "the refusal named with the address (%s)" % r.stderr)
    m = re.search(r"%s: (\d+) lines \(\d+ bytes\) could not be delivered: Connection refused" % re.escape(to),
                  r.stderr)
    check(m is not None and int(m.group(1)) >= 5,
          "the undelivered lines counted at the end (Joined, a message, 3 Loads at least)")

    # bound but not listening: refused until the test listens, after the agent said so
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    to = "tcp:127.0.0.1:%d" % srv.getsockname()[1]
    agent = subprocess.Popen([AGENT, "-n", "4", "-t", to, "--count", "6", "-i", "100", "-v"],
                             stderr=subprocess.PIPE, text=True)
    err = []
    for line in agent.stderr:
        err.append(line)
        if "Connection refused; retrying" in line or len(err) > 50:
            break
    srv.listen(1)
    srv.settimeout(20)
    got = b""
    try:
        conn, _ = srv.accept()
        conn.settimeout(20)
        while True:
            b = conn.recv(65536)
            if not b:
                break
            got += b
        conn.close()
    except OSError as e:
        check(False, "the agent connects once the upstream listens (%s)" % e)
    srv.close()
    err += agent.stderr.readlines()
    agent.wait(timeout=20)
    check(agent.returncode == 0, "every line delivered late: exit 0 (%d; %s)" % (agent.returncode, "".join(err)))
    check(any("connected again" in l for l in err), "the reconnection said")
    t = trams(got.decode())
    check(bool(t) and [int(w[7]) for w in t] == list(range(1, len(t) + 1)) and t[0][1] == "42",
          "the lines that waited arrive whole and in order, from Joined on (%d)" % len(t))
    check(len([w for w in t if w[1] == "40"]) == 6, "all 6 Loads delivered")

def killed_root(tmp):
    """The root agent of a tree killed with SIGKILL while viper-replay listens:
    the collection has ended, so the state says so ("terminated", not "running")
    and no node is "up" with a reading that is no longer current: "stale"."""
    import json
    import signal
    port, cport = free_port(), free_port()
    view = os.path.join(tmp, "two.view")
    with open(view, "w") as f:
        f.write("paradigm lights\nmodule 0 bar 0 0 10 10\nmodule 1 bar 20 0 10 10\n")
    state = os.path.join(tmp, "killed.json")
    replay = subprocess.Popen([REPLAY, "-p", "lights", "-s", view, "--listen=tcp:127.0.0.1:%d" % port,
                               "--idle-exit=0.2", "--state-out", state], stderr=subprocess.PIPE, text=True)
    said = replay.stderr.readline()   # listening before the root starts: it connects at once
    check("listening on tcp:127.0.0.1:%d" % port in said, "viper-replay listens (%s)" % said.strip())
    root = subprocess.Popen([AGENT, "-n", "0", "-t", "tcp:127.0.0.1:%d" % port, "-l", "127.0.0.1:%d" % cport,
                             "-i", "100", "-v"], stderr=subprocess.PIPE, text=True)
    child = subprocess.Popen([AGENT, "-n", "1", "-p", "0", "-t", "tcp:127.0.0.1:%d" % cport, "-i", "100",
                              "--count", "1000"], stderr=subprocess.DEVNULL)
    samples = 0
    for n, line in enumerate(root.stderr):   # a line per 100 ms sample
        samples += ": sample " in line
        if samples >= 3 or n > 100:
            break
    check(samples >= 3, "the root agent samples (%d)" % samples)
    root.send_signal(signal.SIGKILL)
    root.wait(timeout=10)
    try:
        replay.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        replay.kill()
        replay.wait()
    child.terminate()
    child.wait(timeout=10)
    check(replay.returncode == 0, "viper-replay ends once the root's connection closed (%s)" % replay.returncode)
    try:
        with open(state) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "state written (%s)" % e)
        return
    check(d["program_state"] in ("terminated", "abnormal"), "program state: the collection ended (%s)" % d["program_state"])
    mods = {m["id"]: m for m in d["modules"]}
    check(mods[0]["state"] == "stale" and mods[0]["load"] >= 0 and d["nodes"]["up"] == 0,
          "the root's last reading is shown stale, no node up (%s, %s)" % (mods[0]["state"], d["nodes"]))


def main():
    tmp = tempfile.mkdtemp(prefix="viper-lights-agent-")
    r = run(["--help"])
    check(r.returncode == 0 and "--node=ID" in r.stdout and "--cgroup" in r.stdout, "--help")
    r = run([])
    check(r.returncode == 2 and "give --node" in r.stderr, "no --node: usage error (%d)" % r.returncode)
    r = run(["-n", "x", "-o", "-"])
    check(r.returncode == 2 and "--node=x: expected an integer" in r.stderr, "bad --node: usage error")
    # a malformed --to is a usage error at once, not an upstream retried for ever (trial 3)
    for to in ("bogus", "127.0.0.1:7405", "tcp:127.0.0.1:99999", "tcp:host:", "tcp:host:7x"):
        try:
            r = run(["-n", "0", "-t", to, "--count", "1", "-i", "10"])
            check(r.returncode == 2 and r.stderr == "viper-lights-agent: --to=%s: expected tcp:HOST:PORT "
                  "(PORT 1 to 65535)\n" % to, "--to=%s: usage error naming it (%d, %r)" % (to, r.returncode, r.stderr))
        except subprocess.TimeoutExpired:
            check(False, "--to=%s: usage error (still running after 30 s)" % to)
    # an unknown option: one line and a hint, not the whole usage with the build path
    for arg, said in (("--bogus", "unrecognized option '--bogus'"), ("-Z", "invalid option -- 'Z'"),
                      ("--node", "option '--node' requires an argument")):
        r = run([arg])
        check(r.returncode == 2 and r.stderr == "viper-lights-agent: %s\nTry 'viper-lights-agent --help'.\n" % said,
              "%s: two lines (%d, %r)" % (arg, r.returncode, r.stderr))
    hosts = os.path.join(tmp, "hosts")
    with open(hosts, "w") as f:
        f.write("# peers\n10.0.0.1 1\n10.0.0.300 2\n")
    r = run(["-n", "0", "-o", "-", "-H", hosts, "--count", "1"])
    check(r.returncode == 1 and r.stderr == "viper-lights-agent: %s:3:1: '10.0.0.300' is not an IPv4 or IPv6 "
          "address\n" % hosts, "bad hosts line named FILE:LINE:COLUMN (%s)" % r.stderr.strip())
    # the column of the word at fault, or just after the line (before a comment, a \r\n end) when
    # the node is missing; a tab is one column, as in every Viper reader's messages
    for text, where, why in (("10.0.0.1 1\n  fe80::zz 4\n", "2:3", "'fe80::zz' is not an IPv4 or IPv6 address"),
                             ("10.0.0.2\t# no node\n", "1:10", "expected ADDRESS NODE"),
                             ("10.0.0.2\r\n", "1:9", "expected ADDRESS NODE"),
                             ("10.0.0.2 3 4\n", "1:12", "expected ADDRESS NODE"),
                             ("::1\tseven\n", "1:5", "expected ADDRESS NODE"),
                             ("# x\n\n10.0.0.2  -3\n", "3:11", "expected ADDRESS NODE")):
        with open(hosts, "w") as f:
            f.write(text)
        r = run(["-n", "0", "-o", "-", "-H", hosts, "--count", "1"])
        want = "viper-lights-agent: %s:%s: %s\n" % (hosts, where, why)
        check(r.returncode == 1 and r.stderr == want, "hosts %r: %r (%r)" % (text, want, r.stderr))

    # a fake cgroup: the test writes the usage the agent reads
    cg = os.path.join(tmp, "cg")
    os.mkdir(cg)
    usage = os.path.join(cg, "cpuacct.usage")
    with open(usage, "w") as f:
        f.write("0\n")
    out = os.path.join(tmp, "agent.trc")
    p = subprocess.Popen([AGENT, "-n", "5", "-o", out, "-i", "200", "--count", "3", "-g", cg, "-v"],
                         stderr=subprocess.PIPE, text=True)
    # each sample: advance the usage by half an interval of CPU (100 ms of 200): load ~500
    lines = []
    total = 0
    for line in p.stderr:
        lines.append(line)
        if ": sample " in line:
            total += 100_000_000
            with open(usage + ".new", "w") as f:
                f.write("%d\n" % total)
            os.replace(usage + ".new", usage)
    p.wait(timeout=20)
    check(p.returncode == 0, "--count 3 ends with 0")
    with open(out) as f:
        t = trams(f.read())
    check([w[1] for w in t[:2]] == ["42", "44"], "Joined, then a message")
    loads = [int(w[8]) for w in t if w[1] == "40"]
    check(len(loads) == 3, "one Load per sample: %s" % loads)
    check(all(350 <= v <= 650 for v in loads), "loads follow the cgroup's usage (half a CPU): %s" % loads)
    check([int(w[7]) for w in t] == list(range(1, len(t) + 1)), "consecutive sequence numbers")
    view = os.path.join(tmp, "one.view")
    with open(view, "w") as f:
        f.write("paradigm lights\nmodule 5 bar 0 0 10 10\n")
    r = subprocess.run([REPLAY, "-p", "lights", "-s", view, "--state-out", "-", "--strict", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    check(r.returncode == 0, "viper-replay --strict accepts the agent's trams (%s)" % r.stderr.strip())

    # a parent and a child on loopback: the child's lines go through; its end
    # by --count is said as an end (no Lost tram), a killed child's as a loss
    port = free_port()
    pout = os.path.join(tmp, "parent.trc")
    parent = subprocess.Popen([AGENT, "-n", "0", "-o", pout, "-l", "127.0.0.1:%d" % port, "-i", "100", "-v"],
                              stderr=subprocess.PIPE, text=True)
    for line in parent.stderr:
        if "agent of node 0 up" in line:
            break
    child = subprocess.Popen([AGENT, "-n", "7", "-p", "0", "-t", "tcp:127.0.0.1:%d" % port, "-i", "100",
                              "--count", "3"], stderr=subprocess.DEVNULL)
    seen = []
    for line in parent.stderr:
        seen.append(line)
        if "connected" in line:
            break
    child.wait(timeout=20)
    for line in parent.stderr:
        seen.append(line)
        if " ended" in line or " lost " in line:
            break
    check(any("child " in l and " ended, 1 node" in l for l in seen) and not any(" lost " in l for l in seen),
          "a child ending by --count is said to end, not lost: %r" % seen[-2:])
    killed = subprocess.Popen([AGENT, "-n", "8", "-p", "0", "-t", "tcp:127.0.0.1:%d" % port, "-i", "100", "-v"],
                              stderr=subprocess.PIPE, text=True)
    # its sample 1 written to the parent (it says so after writing), then
    # killed: no goodbye; what it sent still reaches the parent before the close
    for line in killed.stderr:
        if ": sample 1" in line:
            break
    killed.kill()
    killed.wait(timeout=10)
    for line in parent.stderr:
        seen.append(line)
        if " lost " in line:
            break
    parent.terminate()
    parent.wait(timeout=10)
    with open(pout) as f:
        t = trams(f.read())
    child_lines = [w for w in t if w[3] == "7"]
    check(len([w for w in child_lines if w[1] == "40"]) == 3 and child_lines[0][1] == "42",
          "the child's Joined and 3 Loads forwarded (%d lines)" % len(child_lines))
    check([int(w[7]) for w in child_lines] == list(range(1, len(child_lines) + 1)), "whole, in order")
    lost = [w for w in t if w[1] == "43"]
    check(len(lost) == 1 and lost[0][3] == "0" and lost[0][8:] == ["8"],
          "the parent reports the killed node 8 lost, not node 7, which ended: %s" % lost)
    check("viper-lights-agent: ends" not in open(pout).read(), "the child's goodbye is not forwarded")
    unreachable_upstream(tmp)
    killed_root(tmp)
    print("# %d checks failed" % len(failures) if failures else "# all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
