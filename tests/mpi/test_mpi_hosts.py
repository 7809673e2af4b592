#!/usr/bin/env python3
"""test_mpi_hosts.py - libviper-mpi on several hosts.

Three "hosts" are network namespaces joined by veth pairs to a bridge in a
fourth ("switch") namespace, where mpirun and Viper run.  mpirun starts its
daemons on the hosts through Open MPI's rsh launcher, with an agent that
enters the host's namespace instead of logging in (the agent is the only
thing that differs from a real cluster, where it is ssh); the ranks talk
over TCP across the bridge, two ranks per host.  The test checks:
  - placement: the program (mpi-hosts) reports the network namespace each
    rank ran in: three hosts, two ranks each, none of them the switch's or
    the test's own namespace;
  - post-mortem: viper-trace --out gives one trace per rank, and everything
    test_mpi checks of a trace holds (cross-check counts, messages matched,
    0 pending / rejected / inconsistent, the program's output unchanged);
  - live: viper-replay --listen bound to the bridge address in the switch
    namespace (the only address the hosts can reach) receives every rank's
    records while the program runs: as many trams as the ranks sent, the same
    messages as the file run, nothing pending, rejected or inconsistent.
Everything it creates (namespaces, veths, bridge, processes) is removed at
the end.  Every wait has a deadline.  Skipped (exit 77) with a message when
not root, or when network namespaces or Open MPI's rsh launcher are missing.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_mpi as tm  # noqa: E402  (the checks every MPI case shares)

HOSTS = 3
PER_HOST = 2
TAG = "vm%d" % (os.getpid() % 100000)
SUB = "10.%d.%d" % (150 + os.getpid() % 50, (os.getpid() // 50) % 250)
SWITCH_NS = TAG + "sw"
BRIDGE = TAG + "br"
SW_IP = SUB + ".254"

namespaces = []
tmpdir = tempfile.mkdtemp(prefix="viper-mpi-hosts-")


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def sh(*args, check=True):
    r = subprocess.run(args, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def host_ns(k):
    return "%sh%d" % (TAG, k)


def host_ip(k):
    return "%s.%d" % (SUB, k + 1)


def in_switch():
    return ["nsenter", "--net=/run/netns/" + SWITCH_NS]


def setup_network():
    sh("ip", "netns", "add", SWITCH_NS)
    namespaces.append(SWITCH_NS)
    sh("ip", "-n", SWITCH_NS, "link", "set", "lo", "up")
    sh("ip", "-n", SWITCH_NS, "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "-n", SWITCH_NS, "addr", "add", SW_IP + "/24", "dev", BRIDGE)
    sh("ip", "-n", SWITCH_NS, "link", "set", BRIDGE, "up")
    for k in range(HOSTS):
        ns, v, p = host_ns(k), "%sv%d" % (TAG, k), "%sp%d" % (TAG, k)
        sh("ip", "netns", "add", ns)
        namespaces.append(ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "link", "add", v, "type", "veth", "peer", "name", p)
        sh("ip", "link", "set", v, "netns", ns)
        sh("ip", "link", "set", p, "netns", SWITCH_NS)
        sh("ip", "-n", SWITCH_NS, "link", "set", p, "master", BRIDGE)
        sh("ip", "-n", SWITCH_NS, "link", "set", p, "up")
        sh("ip", "-n", ns, "addr", "add", host_ip(k) + "/24", "dev", v)
        sh("ip", "-n", ns, "link", "set", v, "up")
    wait_network()


def link_state(ns, dev):
    r = sh("ip", "-n", ns, "-j", "-d", "link", "show", "dev", dev, check=False)
    try:
        d = json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        return None, None
    return d.get("operstate"), d.get("linkinfo", {}).get("info_slave_data", {}).get("state")


def wait_network(deadline_s=20.0):
    """The kernel brings a new veth's carrier up and its bridge port to forwarding
    asynchronously (up to about a second later): until then mpirun's daemons cannot
    reach it.  Wait for that state, bounded."""
    end = time.monotonic() + deadline_s
    while True:
        waiting = []
        for k in range(HOSTS):
            if link_state(host_ns(k), "%sv%d" % (TAG, k))[0] != "UP":
                waiting.append("%sv%d" % (TAG, k))
            op, port = link_state(SWITCH_NS, "%sp%d" % (TAG, k))
            if op != "UP" or port != "forwarding":
                waiting.append("%sp%d (%s, %s)" % (TAG, k, op, port))
        if not waiting:
            return
        if time.monotonic() > end:
            raise RuntimeError("links not up and forwarding after %.0f s: %s" % (deadline_s, ", ".join(waiting)))
        time.sleep(0.02)   # polling interval for a condition, not synchronisation by time


def teardown():
    for ns in namespaces:
        r = sh("ip", "netns", "pids", ns, check=False)
        for pid in r.stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
    for ns in reversed(namespaces):
        sh("ip", "netns", "del", ns, check=False)
    namespaces.clear()
    shutil.rmtree(tmpdir, ignore_errors=True)


def write_agent():
    """Open MPI's rsh launcher runs AGENT HOST COMMAND...: enter the host's network
    namespace, with a host name (a UTS namespace) and a /tmp of its own, as a real host
    has: Open MPI names its session directories after the host, and daemons of two
    "hosts" sharing one /tmp and one name would remove each other's."""
    path = os.path.join(tmpdir, "netns-agent")
    cases = "".join('  %s) ns=%s; name=host%d ;;\n' % (host_ip(k), host_ns(k), k) for k in range(HOSTS))
    with open(path, "w") as f:
        f.write('#!/bin/sh\n# an rsh agent for hosts that are network namespaces\nh=$1; shift\n'
                'case "$h" in\n%s  *) echo "netns-agent: unknown host $h" >&2; exit 255 ;;\nesac\n'
                'tmp=%s/$name; mkdir -p "$tmp" || exit 255\n'
                'OMPI_MCA_orte_tmpdir_base=$tmp; export OMPI_MCA_orte_tmpdir_base\n'
                'exec nsenter --net=/run/netns/$ns unshare --uts sh -c \'hostname "$0" && exec sh -c "$1"\' '
                '"$name" "$*"\n' % (cases, tmpdir))
    os.chmod(path, 0o755)
    return path


def netns_inode(path):
    return os.stat(path).st_ino


def check_placement(label, stdout):
    got = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^rank (\d+) netns (-?\d+)$", stdout, re.M)}
    n = HOSTS * PER_HOST
    if sorted(got) != list(range(n)):
        tm.fail(f"{label}: the program named the namespaces of ranks {sorted(got)}, expected 0..{n - 1}")
        return
    own = netns_inode("/proc/self/ns/net")
    switch = netns_inode("/run/netns/" + SWITCH_NS)
    hosts = {netns_inode("/run/netns/" + host_ns(k)): k for k in range(HOSTS)}
    for rank, ino in got.items():
        if ino in (own, switch):
            tm.fail(f"{label}: rank {rank} ran in the test's or the switch's namespace, not on a host")
        elif hosts.get(ino) != rank // PER_HOST:
            tm.fail(f"{label}: rank {rank} ran on host {hosts.get(ino)}, expected host {rank // PER_HOST} "
                    f"(--host lists {PER_HOST} slots each)")
    print(f"{label}: ranks on hosts {[hosts.get(got[r]) for r in range(n)]}")


def listen_on_bridge(args):
    """viper-replay --listen in the switch namespace on the bridge address; returns (proc, addr, state, err)"""
    errf = tempfile.TemporaryFile(mode="w+")
    stfile = os.path.join(tmpdir, "live-state.json")
    viper = subprocess.Popen(in_switch() + [args.viper_replay, f"--listen=tcp:{SW_IP}:0", "--idle-exit=1",
                                            "--stats", f"--state-out={stfile}"],
                             stdout=subprocess.PIPE, stderr=errf, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and viper.poll() is None:
        errf.seek(0)
        # the announcement, not the warning about binding beyond loopback that comes first
        m = re.search(r"^viper-replay: listening on (tcp:\S+)$", errf.read(), re.M)
        if m:
            return viper, m.group(1), stfile, errf
        time.sleep(0.01)   # polling interval for a condition, not synchronisation by time
    viper.kill()
    viper.communicate()
    raise TimeoutError("viper-replay announced no listening address")


def case_live(args, cmd, files):
    label = "hosts/live"
    viper, addr, stfile, errf = listen_on_bridge(args)
    try:
        traced = tm.run([args.viper_trace, f"--live={addr}", "--"] + tm.mpirun(args, HOSTS * PER_HOST) + cmd,
                        timeout=180)
    except Exception as e:
        viper.kill()
        viper.communicate()
        tm.fail(f"{label}: {e!r}")
        return
    try:
        viper.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        viper.kill()
        viper.communicate()
        errf.seek(0)
        tm.fail(f"{label}: viper-replay did not finish after the program ended (exit {traced.returncode}).\n"
                f"--- the program's stderr:\n{traced.stderr[-1500:]}\n--- viper-replay's:\n{errf.read()[-1500:]}")
        return
    errf.seek(0)
    err = errf.read()
    if traced.returncode != 0:
        tm.fail(f"{label}: the traced program failed: {traced.stderr[-1500:]}")
        return
    if traced.stdout != files["stdout"]:
        tm.fail(f"{label}: the output differs from the file run:\n{traced.stdout}\n---\n{files['stdout']}")
    check_placement(label, traced.stdout)
    counts = tm.parse_counts(traced.stderr)
    try:
        state = json.load(open(stfile))
    except (OSError, ValueError) as e:
        tm.fail(f"{label}: no state from viper-replay ({e}): {err[-800:]}")
        return
    c = state["counts"]
    n = HOSTS * PER_HOST
    print(f"{label}: replay counts {c}, messages {state.get('messages')}; file run {files['state']['counts']}")
    opened = len(re.findall(r"connection \S+ opened", err))
    if opened != n:
        tm.fail(f"{label}: {opened} connections reached the viewer, expected one per rank ({n})")
    if sorted(counts) != list(range(n)):
        tm.fail(f"{label}: cross-check lines for ranks {sorted(counts)}")
    lib_records = sum(v["records"] for v in counts.values())
    if c["read"] != lib_records:
        tm.fail(f"{label}: viper-replay read {c['read']} trams, the ranks sent {lib_records}")
    for k in ("pending", "rejected", "inconsistent"):
        if c[k] != 0:
            tm.fail(f"{label}: {k} {c[k]}: {state.get('stuck')} {err[-800:]}")
    want = sum(v["sent"] for v in counts.values())
    if state.get("messages") != want or want != files["messages"]:
        tm.fail(f"{label}: messages live {state.get('messages')}, library {want}, file run {files['messages']}")
    if any(v["dropped"] for v in counts.values()):
        tm.fail(f"{label}: records dropped: {counts}")
    live_mods = {m["id"]: m for m in state.get("modules", [])}
    file_mods = {m["id"]: m for m in files["state"].get("modules", [])}
    for rank in range(n):
        a, b = live_mods.get(rank, {}), file_mods.get(rank, {})
        for k in ("sent", "received", "state"):
            if a.get(k) != b.get(k):
                tm.fail(f"{label}: rank {rank}: {k} {a.get(k)} live, {b.get(k)} from the files")


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-trace", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog-dir", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0:
        skip("needs root to create network namespaces")
    for tool in ("ip", "nsenter"):
        if not shutil.which(tool):
            skip(f"no {tool} (iproute2 / util-linux)")
    if "Open MPI" not in subprocess.run([args.mpirun, "--version"], capture_output=True, text=True).stdout:
        skip("the hosts are reached through Open MPI's rsh launcher; this mpirun is not Open MPI's")
    try:
        setup_network()
    except (RuntimeError, subprocess.SubprocessError) as e:
        teardown()
        skip(f"cannot create network namespaces here: {e}")

    agent = write_agent()
    hosts = ",".join(f"{host_ip(k)}:{PER_HOST}" for k in range(HOSTS))
    # daemons and ranks reach each other and mpirun only across the bridge
    # (no shared-memory transport: these hosts share one /dev/shm, which real hosts do not)
    os.environ["OMPI_MCA_btl"] = "self,tcp"
    os.environ["OMPI_MCA_btl_tcp_if_include"] = SUB + ".0/24"
    os.environ["OMPI_MCA_oob_tcp_if_include"] = SUB + ".0/24"
    os.environ["OMPI_MCA_plm_rsh_agent"] = agent
    tm.mpirun = lambda a, n: in_switch() + [a.mpirun, "--host", hosts, "-n", str(n)]
    cmd = [os.path.join(args.prog_dir, "mpi-hosts")]
    try:
        files = tm.traced_case(args, "hosts/file", cmd, HOSTS * PER_HOST, timeout=180)
        if files:
            check_placement("hosts/file", files["stdout"])
            case_live(args, cmd, files)
    finally:
        teardown()
    if tm.problems:
        print(f"{len(tm.problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
