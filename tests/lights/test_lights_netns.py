#!/usr/bin/env python3
"""test_lights_netns.py - viper-lights-agent on a real (namespaced) cluster.

Seven "nodes" are network namespaces on a bridge that lives in an eighth
("switch") namespace, joined by veth pairs; Viper (viper-replay --listen)
runs in the switch namespace.  One agent per node, in a binary tree (node
k's parent is (k - 1) / 2, the root sends to Viper), samples every 250 ms
with its load taken from a cgroup of its own.  The test then
  - runs busy loops in the cgroups of nodes 1 and 2 (capped by CFS quotas at
    30 % and 60 %) and checks that Viper's load samples average within 10
    points of the cgroups' own CPU accounting over the same window;
  - sends known byte counts over TCP between chosen pairs (a sender of its
    own that keeps the connection open until the sender's agent has sampled
    it) and checks that Viper's per-pair traffic is within 10 % of the bytes
    sent, and that the routes of the view setup (a ring of 7, the shorter
    way round) put them on the right virtual links and on no other;
  - kills agent 1 (subtree 1, 3, 4): Viper must show exactly those nodes lost,
    and nodes 2, 5 and 6 must go on sending samples after the loss.
Everything it creates (namespaces, veths, bridge, cgroups, processes) is
removed at the end.  Bounded in time (every wait has a deadline); skipped
(exit 77) with a message when network namespaces or cgroups are unavailable.
"""
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

N = 7
INTERVAL_MS = 250
PORT_AGENT = 7611
PORT_VIPER = 7605
DEADLINE = 150.0
LOADS = {1: 30, 2: 60}                     # CFS quota, percent
PAIRS = [(0, 3, 2_000_000), (5, 1, 1_000_000), (2, 6, 1_500_000)]
# ring of 7, the shorter way round (ties go up)
ROUTES = {(0, 3): [0, 1, 2, 3], (5, 1): [5, 6, 0, 1], (2, 6): [2, 1, 0, 6]}

TAG = "vl%d" % (os.getpid() % 100000)
SUB = "10.%d.%d" % (200 + os.getpid() % 50, (os.getpid() // 50) % 250)
SWITCH_NS = TAG + "sw"
BRIDGE = TAG + "br"
CG_CPU = "/sys/fs/cgroup/cpu"
CG_ACCT = "/sys/fs/cgroup/cpuacct"

build = os.environ.get("VIPER_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
AGENT = os.path.join(build, "probe", "lights", "viper-lights-agent")
REPLAY = os.path.join(build, "cli", "viper-replay")

procs = []
namespaces = []
cgroups = []
t_start = time.monotonic()


def left():
    return DEADLINE - (time.monotonic() - t_start)


def sh(*args, check=True):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=20)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def ns_name(k):
    return "%sn%d" % (TAG, k)


def ip_of(k):
    return "%s.%d" % (SUB, k + 1)


def in_ns(ns):
    # nsenter, not "ip netns exec": that remounts /sys, and the agents read their cgroups there
    return ["nsenter", "--net=/run/netns/" + ns]


def viper_ip():
    return "%s.254" % SUB


def start(args, **kw):
    p = subprocess.Popen(args, **kw)
    procs.append(p)
    return p


class Lines:
    """A process's stderr lines, read on a thread, waited for with a deadline."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.seen = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.q.put(line.rstrip("\n"))

    def wait(self, pattern, count=1, timeout=30.0):
        rx = re.compile(pattern)
        end = time.monotonic() + min(timeout, max(left(), 1.0))
        n = sum(1 for s in self.seen if rx.search(s))
        while n < count:
            rest = end - time.monotonic()
            if rest <= 0:
                raise AssertionError("timed out waiting for %r (%d of %d); last lines: %s"
                                     % (pattern, n, count, self.seen[-5:]))
            try:
                s = self.q.get(timeout=rest)
            except queue.Empty:
                continue
            self.seen.append(s)
            if rx.search(s):
                n += 1

    def samples(self):
        while True:
            try:
                self.seen.append(self.q.get_nowait())
            except queue.Empty:
                break
        return sum(1 for s in self.seen if ": sample " in s)


def setup_network():
    sh("ip", "netns", "add", SWITCH_NS)
    namespaces.append(SWITCH_NS)
    sh("ip", "-n", SWITCH_NS, "link", "set", "lo", "up")
    sh("ip", "-n", SWITCH_NS, "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "-n", SWITCH_NS, "addr", "add", viper_ip() + "/24", "dev", BRIDGE)
    sh("ip", "-n", SWITCH_NS, "link", "set", BRIDGE, "up")
    for k in range(N):
        ns = ns_name(k)
        sh("ip", "netns", "add", ns)
        namespaces.append(ns)
        a, b = "%sa%d" % (TAG, k), "%sb%d" % (TAG, k)
        # created inside the node namespace, one end moved to the switch: nothing in the host's
        sh("ip", "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b)
        sh("ip", "-n", ns, "link", "set", b, "netns", SWITCH_NS)
        sh("ip", "-n", SWITCH_NS, "link", "set", b, "master", BRIDGE)
        sh("ip", "-n", SWITCH_NS, "link", "set", b, "up")
        sh("ip", "-n", ns, "addr", "add", ip_of(k) + "/24", "dev", a)
        sh("ip", "-n", ns, "link", "set", a, "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")


def setup_cgroups():
    for k in range(N):
        for root in (CG_CPU, CG_ACCT):
            path = os.path.join(root, "%s_%d" % (TAG, k))
            os.mkdir(path)
            cgroups.append(path)
        if k in LOADS:
            cpu = os.path.join(CG_CPU, "%s_%d" % (TAG, k))
            with open(os.path.join(cpu, "cpu.cfs_period_us"), "w") as f:
                f.write("100000")
            with open(os.path.join(cpu, "cpu.cfs_quota_us"), "w") as f:
                f.write(str(LOADS[k] * 1000))


def cg_usage(k):
    with open(os.path.join(CG_ACCT, "%s_%d" % (TAG, k), "cpuacct.usage")) as f:
        return int(f.read())


def busy_loop(k):
    p = start([sys.executable, "-c", "while True: pass"])
    for root in (CG_CPU, CG_ACCT):
        with open(os.path.join(root, "%s_%d" % (TAG, k), "cgroup.procs"), "w") as f:
            f.write(str(p.pid))
    return p


SENDER = r"""
import socket, sys
dst, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = socket.create_connection((dst, port), timeout=20)
buf = b"x" * 65536
left = n
while left:
    k = c.send(buf[:min(left, len(buf))])
    left -= k
assert c.recv(1) == b"!"          # the receiver has every byte: all of them are acked
print("done", flush=True)
sys.stdin.read()                  # keep the connection open until told
c.close()
"""

RECEIVER = r"""
import socket, sys
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((host, port))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
got = 0
while got < n:
    b = c.recv(1 << 20)
    if not b:
        break
    got += len(b)
c.sendall(b"!")
print("received", got, flush=True)
c.recv(1)
"""


def write_view(path):
    with open(path, "w") as f:
        f.write("paradigm lights\nsize 700 700\ntopology ring\nrange 1k 1M\n")
        import math
        for k in range(N):
            a = -math.pi / 2 + 2 * math.pi * k / N
            x, y = 350 + 250 * math.cos(a) - 40, 350 + 250 * math.sin(a) - 40
            f.write("module %d bar %.1f %.1f 80 80 node %d\n" % (k, x, y, k))


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP network namespaces need root")
        return 77
    if not shutil.which("ip") or not shutil.which("nsenter"):
        print("1..0 # SKIP iproute2 (ip) or nsenter (util-linux) is not installed")
        return 77
    probe = subprocess.run(["ip", "netns", "add", TAG + "probe"], stderr=subprocess.PIPE, text=True)
    if probe.returncode != 0:
        print("1..0 # SKIP network namespaces unavailable: %s" % probe.stderr.strip())
        return 77
    subprocess.run(["ip", "netns", "del", TAG + "probe"])
    if not (os.path.isdir(CG_CPU) and os.path.isdir(CG_ACCT) and os.access(CG_ACCT, os.W_OK)):
        print("1..0 # SKIP cgroup v1 cpu and cpuacct hierarchies are not writable")
        return 77

    tmp = tempfile.mkdtemp(prefix="viper-lights-netns-")
    try:
        return run(tmp)
    finally:
        cleanup(tmp)


def run(tmp):
    setup_network()
    setup_cgroups()
    view = os.path.join(tmp, "ring7.view")
    write_view(view)
    hosts = os.path.join(tmp, "hosts")
    with open(hosts, "w") as f:
        for k in range(N):
            f.write("%s %d\n" % (ip_of(k), k))
    state = os.path.join(tmp, "state.json")
    runout = os.path.join(tmp, "run.trc")
    png = os.environ.get("VIPER_LIGHTS_PNG", os.path.join(tmp, "animation.png"))
    viper = start([*in_ns(SWITCH_NS), REPLAY, "-p", "lights", "-s", view,
                   "--listen", "tcp:%s:%d" % (viper_ip(), PORT_VIPER), "--idle-exit", "1.5",
                   "--state-out", state, "--run-out", runout, "--render", "animation:" + png, "-q"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    vlines = Lines(viper.stderr)
    # the listener must be up before the root connects: wait for its port
    end = time.monotonic() + 20
    while True:
        r = sh(*in_ns(SWITCH_NS), "ss", "-ltn", check=False)
        if ":%d" % PORT_VIPER in r.stdout:
            break
        assert time.monotonic() < end and viper.poll() is None, "viper-replay did not listen"
        time.sleep(0.05)

    agents, logs = {}, {}
    for k in range(N):           # parents first, so each child finds its parent listening
        parent = (k - 1) // 2 if k else -1
        to = "tcp:%s:%d" % (viper_ip(), PORT_VIPER) if k == 0 else "tcp:%s:%d" % (ip_of(parent), PORT_AGENT)
        args = [*in_ns(ns_name(k)), AGENT, "-n", str(k), "-p", str(parent), "-t", to,
                "-l", "%s:%d" % (ip_of(k), PORT_AGENT), "-i", str(INTERVAL_MS), "-H", hosts,
                "-g", os.path.join(CG_ACCT, "%s_%d" % (TAG, k)), "-v"]
        agents[k] = start(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        logs[k] = Lines(agents[k].stderr)
        logs[k].wait(r": sample 1$")
    for k in range(1, N):
        logs[(k - 1) // 2].wait(r"child %s:\d+ connected" % re.escape(ip_of(k)))

    # ---- load: busy loops capped by CFS quotas, compared with the cgroup accounting
    loops = [busy_loop(k) for k in LOADS]
    for k in LOADS:
        logs[k].wait(": sample", count=logs[k].samples() + 2)
    t0_wall, u0 = time.time(), {k: cg_usage(k) for k in LOADS}
    for k in LOADS:
        logs[k].wait(": sample", count=logs[k].samples() + 8)
    t1_wall, u1 = time.time(), {k: cg_usage(k) for k in LOADS}
    for p in loops:
        p.kill()
        p.wait()

    # ---- traffic between chosen pairs
    senders = []
    for i, (s, d, n) in enumerate(PAIRS):
        port = 9100 + i
        rcv = start([*in_ns(ns_name(d)), sys.executable, "-c", RECEIVER, ip_of(d), str(port), str(n)],
                    stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
        assert rcv.stdout.readline().strip() == "listening"
        snd = start([*in_ns(ns_name(s)), sys.executable, "-c", SENDER, ip_of(d), str(port), str(n)],
                    stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
        senders.append((s, snd, rcv))
    for s, snd, rcv in senders:
        assert snd.stdout.readline().strip() == "done", "sender of node %d failed" % s
        assert rcv.stdout.readline().split()[0] == "received"
    for s, snd, rcv in senders:  # each sender's agent has sampled after the last byte was acked
        logs[s].wait(": sample", count=logs[s].samples() + 2)
    for s, snd, rcv in senders:
        snd.stdin.close()
        snd.wait(timeout=10)
        rcv.wait(timeout=10)

    # ---- kill agent 1: nodes 1, 3, 4 lost, the rest goes on
    agents[1].kill()
    agents[1].wait()
    logs[0].wait(r"child %s:\d+ lost" % re.escape(ip_of(1)))
    for k in (2, 5, 6):
        logs[k].wait(": sample", count=logs[k].samples() + 3)
    # stop the root first (its subtree would be reported lost otherwise), then the rest
    for k in [0] + [k for k in range(2, N)]:
        agents[k].send_signal(signal.SIGTERM)
        agents[k].wait(timeout=10)
    viper.wait(timeout=max(left(), 5))
    assert viper.returncode == 0, "viper-replay exit %d: %s" % (viper.returncode, vlines.seen[-5:])

    with open(state) as f:
        st = json.load(f)
    mods = {m["id"]: m for m in st["modules"]}
    failures = []

    def check(ok, what):
        print(("ok - " if ok else "not ok - ") + what)
        if not ok:
            failures.append(what)

    assert st["counts"]["rejected"] == 0, st["counts"]
    check(st["counts"]["pending"] == 0, "nothing pending (%d)" % st["counts"]["pending"])
    lost = sorted(k for k, m in mods.items() if m["state"] == "lost")
    check(lost == [1, 3, 4], "subtree of agent 1 lost: %s" % lost)
    # every agent stopped: the collection has ended, so the others' readings are stale, not "up"
    stale = sorted(k for k, m in mods.items() if m["state"] == "stale")
    check(stale == [0, 2, 5, 6], "the others stale once the collection ended: %s" % stale)
    check(st["program_state"] == "terminated", "program state terminated (%s)" % st["program_state"])

    # loads: Viper's samples in [t0, t1] against the cgroup's accounting
    samples = {k: [] for k in LOADS}
    order = []
    with open(runout) as f:
        for line in f:
            w = line.split()
            if len(w) < 8 or w[0] != "4":
                continue
            t, node = float(w[2]), int(w[3])
            order.append((w[1], node, t))
            if w[1] == "40" and node in LOADS and t0_wall + INTERVAL_MS / 1000 <= t <= t1_wall:
                samples[node].append(int(w[8]) / 10.0)
    for k in LOADS:
        truth = (u1[k] - u0[k]) / 1e9 / (t1_wall - t0_wall) * 100
        got = sum(samples[k]) / max(len(samples[k]), 1)
        check(len(samples[k]) >= 4 and abs(got - truth) <= 10,
              "node %d load %.1f %% vs cgroup %.1f %% (quota %d %%, %d samples)"
              % (k, got, truth, LOADS[k], len(samples[k])))

    # traffic per pair within 10 %
    for s, d, n in PAIRS:
        got = sum(p["bytes"] for p in mods[s]["peers"] if p["peer"] == d)
        check(abs(got - n) <= 0.1 * n, "pair %d -> %d: %d bytes of %d sent" % (s, d, got, n))
    # routes: every link carries exactly the pairs routed over it
    expect = {}
    for s, d, n in PAIRS:
        hops = ROUTES[(s, d)]
        for a, b in zip(hops, hops[1:]):
            expect[(a, b)] = expect.get((a, b), 0) + n
    for l in st["links"]:
        want = expect.get((l["from"], l["to"]), 0)
        ok = abs(l["bytes"] - want) <= 0.1 * want if want else l["bytes"] <= 20000
        check(ok, "link %d -> %d: %d bytes, expected %d" % (l["from"], l["to"], l["bytes"], want))
    check(st["unrouted_bytes"] <= 20000, "unrouted bytes %d" % st["unrouted_bytes"])

    # the rest goes on: samples of 2, 5, 6 after the lost tram
    lost_at = next(i for i, (ev, node, t) in enumerate(order) if ev == "43")
    for k in (2, 5, 6):
        after = sum(1 for ev, node, t in order[lost_at + 1:] if ev == "40" and node == k)
        check(after >= 2, "node %d sent %d samples after the loss" % (k, after))
    check(any("lost nodes" in m for m in st["messages"]), "the loss is in the collector messages")
    print("# %d checks failed" % len(failures) if failures else "# all checks passed")
    return 1 if failures else 0


def cleanup(tmp):
    for p in reversed(procs):
        if p.poll() is None:
            try:
                p.kill()
            except OSError:
                pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    for path in reversed(cgroups):
        for _ in range(50):          # a killed task leaves its cgroup asynchronously
            try:
                os.rmdir(path)
                break
            except OSError:
                time.sleep(0.02)
    for ns in reversed(namespaces):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
