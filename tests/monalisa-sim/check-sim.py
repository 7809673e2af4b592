#!/usr/bin/env python3
"""check-sim.py - integration tests of viper-monalisa-sim.

Usage: check-sim.py SIMULATOR [SOURCE_ROOT]

Each check runs the simulator and reads what it wrote with rules written
from spec/monalisa.md and spec/picl.md, not from the simulator's code:
syntax and data fields per tram type, per-PROC sequence numbers, causal
order in true time (message pairs matched FIFO per channel), determinism,
delivery orders, the truth files, the Module Setup file, live streaming over
Unix and TCP sockets, and the bundled traces being up to date.
"""
import json
import os
import selectors
import shlex
import socket
import subprocess
import sys
import tempfile
import time

SIM = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("VIPER_SOURCE_ROOT", "")
TMP = tempfile.mkdtemp(prefix="viper-sim-test-")

REQ = {14: 15, 16: 17, 21: 22, 18: 19}          # request event -> reply event
REP = {v: k for k, v in REQ.items()}
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)
    return cond


def run(*args, ok=True):
    p = subprocess.run([SIM, *args], capture_output=True, timeout=300)
    if ok and p.returncode != 0:
        raise RuntimeError("simulator failed: %s\n%s" % (args, p.stderr.decode()))
    return p


def parse(text):
    """Trams as tuples (rec, ev, time, proc, process, data) - data without DTYPE."""
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        f = s.split()
        rec, ev = int(f[0]), int(f[1])
        t = float(f[2])
        proc, process, ndata = int(f[3]), int(f[4]), int(f[5])
        data = [int(x) for x in f[7:]]
        check(ndata >= 1 and f[6] == "2" and len(data) == ndata, "line %d: NDATA/DTYPE: %r" % (no, line))
        out.append((rec, ev, t, proc, process, data))
    return out


def sim_trace(*args):
    return parse(run(*args).stdout.decode())


def known_type(rec, ev):
    if (rec, ev) in ((1, 10), (1, 11), (6, 23), (6, 24), (6, 25)):
        return True
    if ev in (12, 13):
        return rec in (1, 2, 3)
    if ev in REQ:
        return rec in (2, 3, 4)
    if ev in REP:
        return rec in (4, 5)
    return (rec, ev) == (5, 20)


def check_syntax(trams, name):
    for rec, ev, t, proc, process, d in trams:
        what = "%s: %d %d proc %d" % (name, rec, ev, proc)
        if not check(known_type(rec, ev), what + ": unknown tram type"):
            continue
        n = len(d)
        if rec == 6:
            check(proc == -1 and process == 0 and n >= 1, what + ": program manager tram")
            continue
        check(proc >= 0, what + ": module tram on PROC -1")
        check(process == (1 if rec in (4, 5) else 0), what + ": PROCESS")
        if ev in (10, 11):
            check(n == 1, what + ": NDATA")
        elif ev in (12, 13):
            check(n in (2, 4, 6), what + ": NDATA of expose/hide")
        else:
            check(n in (3, 5, 7), what + ": NDATA of a primitive tram")


def check_seq(trams, name):
    """Sequence numbers per PROC, in file order, exactly 1..n."""
    nxt = {}
    ok = True
    for rec, ev, t, proc, process, d in trams:
        want = nxt.get(proc, 1)
        ok = ok and d[0] == want
        nxt[proc] = d[0] + 1
    check(ok, "%s: sequence numbers per PROC are 1..n in file order" % name)
    return nxt


def read_setup(path):
    with open(path) as f:
        lines = [l.split() for l in f.read().splitlines()]
    nmods = int(lines[1][0])
    ngroups = int(lines[3][0])
    ranges = [(int(a), int(b)) for a, b in lines[5:5 + ngroups]] if ngroups else []
    groups = {}
    gi = 0
    for l in lines:
        if l and l[0] == "-" and l[1] != "#":
            first, size = ranges[gi]
            groups[int(l[2])] = list(range(first, first + size))
            gi += 1
    return nmods, groups


def check_causal(trams, groups, name):
    """True-time order: each receive after its send (FIFO matching per
    channel and type), each module's times non-decreasing, each primitive's
    END after its reply."""
    sends, recvs = {}, {}
    last = {}
    for rec, ev, t, proc, process, d in trams:
        check(t >= last.get(proc, -1e300), "%s: time goes back on PROC %d" % (name, proc))
        last[proc] = t
        if rec == 2 and ev in REQ:
            targets = groups.get(d[1], [d[1]]) if ev == 18 else [d[1]]
            for p in targets:
                sends.setdefault(("req", ev, proc, p), []).append(t)
        elif rec == 4 and ev in REQ:
            recvs.setdefault(("req", ev, d[1], proc), []).append(t)
        elif rec == 5 and ev in REP:
            sends.setdefault(("rep", ev, proc, d[1]), []).append(t)
        elif rec == 4 and ev in REP:
            recvs.setdefault(("rep", ev, d[1], proc), []).append(t)
    ok = set(sends) == set(recvs)
    for k, s in sends.items():
        r = recvs.get(k, [])
        ok = ok and len(r) == len(s) and all(b >= a for a, b in zip(s, r))
    check(ok, "%s: every message received after it was sent (FIFO matching)" % name)

    # per caller: START, exactly one reply received, [ack], END - in order
    cur = {}
    ok = True
    for rec, ev, t, proc, process, d in trams:
        if rec == 2 and ev in REQ:
            ok = ok and proc not in cur
            cur[proc] = [ev, 0, t]
        elif rec == 4 and ev in REP and proc in cur:
            ok = ok and REQ[cur[proc][0]] == ev and cur[proc][1] == 0
            cur[proc][1] = 1
        elif rec == 3 and ev in REQ:
            c = cur.pop(proc, None)
            ok = ok and c is not None and c[0] == ev and c[1] == 1 and t >= c[2]
    check(ok, "%s: each primitive is START, one reply, END in its module's order" % name)


def replay_variables(trams):
    """Variable states implied by the trams (spec section 4)."""
    exposed = {}
    for rec, ev, t, proc, process, d in trams:
        if ev in (12, 13) and rec in (1, 3):
            exposed[(proc, d[1])] = ev == 13
        elif rec == 5 and ev in (15, 22, 19):
            exposed[(proc, d[2])] = False
    return exposed


def check_truth_vars(trams, truth, name):
    exp = replay_variables(trams)
    ok = True
    for m in truth["modules"]:
        for v in m["variables"]:
            ok = ok and (v["state"] == "exposed") == exp.get((m["id"], v["id"]), False)
    check(ok, "%s: truth variables agree with the trace" % name)


def check_program(prog, extra, expect_state, expect_pm):
    name = prog
    out = os.path.join(TMP, prog + ".trc")
    setup = os.path.join(TMP, prog + ".setup")
    truth = os.path.join(TMP, prog + ".json")
    run("--program=" + prog, "--emit-true-time", "--delivery=inorder", "--out=" + out,
        "--setup-out=" + setup, "--truth-out=" + truth, *extra)
    with open(out) as f:
        trams = parse(f.read())
    nmods, groups = read_setup(setup)
    check_syntax(trams, name)
    check_seq(trams, name)
    check_causal(trams, groups, name)
    times = [t for _, _, t, _, _, _ in trams]
    check(times == sorted(times), "%s: inorder delivery is sorted by true time" % name)
    with open(truth) as f:
        tr = json.load(f)
    check(set(tr) == {"paradigm", "program_state", "reported", "deadlock_cycle", "modules"},
          "%s: truth top-level fields" % name)
    check(tr["paradigm"] == "monalisa" and tr["program_state"] == expect_state,
          "%s: program_state %s (got %s)" % (name, expect_state, tr["program_state"]))
    check(len(tr["modules"]) == nmods, "%s: truth lists every module" % name)
    for m in tr["modules"]:
        check(set(m) == {"id", "name", "state", "started", "finished", "primitive", "variables"},
              "%s: truth module fields" % name)
    pm = [x for x in trams if x[3] == -1]
    check(len(pm) == 1 and pm[-1][1] == expect_pm, "%s: program manager emits (6,%d)" % (name, expect_pm))
    check_truth_vars(trams, tr, name)
    return trams, tr, groups


def test_programs():
    trams, tr, groups = check_program("farm", ["--tasks=20"], "terminated", 25)
    check(tr["reported"] == "terminated", "farm: reported terminated")
    check(trams[-1][5][1:] == [1, 2, 3, 4], "farm: (6,25) lists the slaves")
    check(all(m["finished"] and m["state"] == "inactive" and m["primitive"] is None for m in tr["modules"]),
          "farm: every module finished")
    check(sum(1 for x in trams if x[0] == 1 and x[1] == 13 and x[3] == 0)
          + sum(1 for x in trams if x[0] == 2 and x[1] == 13 and x[3] == 0) == 20,
          "farm: the master exposes JOB once per task")
    check(sum(1 for x in trams if x[0] == 2 and x[1] == 18) == 20, "farm: one inrglb per task")
    # instance replies: exactly one (5,19) per inrglb, acks name the group
    check(sum(1 for x in trams if x[0] == 5 and x[1] == 19) == 20, "farm: one (5,19) per inrglb")
    check(all(x[5][1] == 6 for x in trams if x[0] == 5 and x[1] == 20), "farm: ack names the group")

    trams, tr, groups = check_program("deadlock", [], "deadlock", 23)
    check(tr["reported"] == "deadlock" and tr["deadlock_cycle"] == [0, 1], "deadlock: cycle [0, 1]")
    check(trams[-1][5][1:] == [0, 1], "deadlock: (6,23) lists 0 1")
    blocked = [m for m in tr["modules"] if m["state"] == "blocked"]
    check([(m["id"], m["primitive"]["name"], m["primitive"]["partner"]) for m in blocked]
          == [(0, "inglb", 1), (1, "inglb", 0)], "deadlock: each peer blocked in inglb on the other")
    check(any(x[0] == 2 and x[1] == 12 for x in trams), "deadlock: has a hideglb START/END")
    check(any(x[0] == 2 and x[1] == 16 for x in trams), "deadlock: has rdglb")

    trams, tr, groups = check_program("abnormal", [], "abnormal", 24)
    check(tr["reported"] == "abnormal", "abnormal: reported abnormal")
    init = tr["modules"][-1]
    check(init["name"] == "INIT" and init["finished"], "abnormal: INIT finished")
    check(any(m["state"] == "blocked" and m["primitive"] and m["primitive"]["partner"] == init["id"]
              for m in tr["modules"]), "abnormal: a slave is blocked reading the finished INIT")

    trams, tr, groups = check_program("trackfit", [], "terminated", 25)
    check(any(x[0] == 2 and x[1] == 21 for x in trams), "trackfit: has wrglb")
    check(all(len(x[5]) == 5 for x in trams if x[1] in (14, 15, 18, 19)), "trackfit: slices on inglb/inrglb")
    for s in (2, 3, 4, 5):
        for prog in ("farm", "deadlock", "abnormal", "trackfit"):
            t = sim_trace("--program=" + prog, "--seed=%d" % s, "--emit-true-time", "--tasks=6")
            check_syntax(t, "%s seed %d" % (prog, s))
            check_seq(t, "%s seed %d" % (prog, s))
            nm = {"farm": 5, "deadlock": 3, "abnormal": 6, "trackfit": 5}[prog]
            g = {"deadlock": {4: [0, 1]}}.get(prog, {nm + 1: [1, 2, 3, 4]})
            check_causal(t, g, "%s seed %d" % (prog, s))


def test_determinism_and_delivery():
    a = run("--seed=7", "--tasks=30").stdout
    b = run("--seed=7", "--tasks=30").stdout
    c = run("--seed=8", "--tasks=30").stdout
    check(a == b, "same seed: byte-identical output")
    check(a != c, "another seed: another trace")
    inorder = a.decode().splitlines()
    for mode in ("shuffled", "interleaved"):
        x = run("--seed=7", "--tasks=30", "--delivery=" + mode).stdout
        y = run("--seed=7", "--tasks=30", "--delivery=" + mode).stdout
        check(x == y, "%s: reproducible" % mode)
        lines = x.decode().splitlines()
        check(sorted(lines) == sorted(inorder), "%s: the same trams as inorder" % mode)
        check(lines != inorder, "%s: not the inorder sequence" % mode)
        check_seq(parse(x.decode()), mode)
    # skewed clocks make raw time stamps violate causality somewhere
    t = sim_trace("--seed=7", "--tasks=30", "--offset-ms=20", "--drift-ppm=500")
    bad = 0
    start = {}
    for rec, ev, tt, proc, process, d in t:
        if rec == 2 and ev == 14:
            start.setdefault((proc, d[1]), []).append(tt)
    for rec, ev, tt, proc, process, d in t:
        if rec == 4 and ev == 14:
            s = start.get((d[1], proc), [])
            if s and tt < s.pop(0):
                bad += 1
    check(bad > 0, "skewed clocks: some request received before it was sent (raw times)")
    # --count
    t = sim_trace("--count=5000")
    check(5000 <= len(t) < 5200 and t[-1][1] == 25, "--count=5000: complete trace of at least 5000 trams")
    check_seq(t, "--count")


def test_setup_format():
    p = os.path.join(TMP, "f.setup")
    run("--setup-out=" + p, "--out=" + os.path.join(TMP, "f.trc"))
    with open(p) as f:
        text = f.read()
    want = """MODULES:
5
GROUPS:
1
RANGE FOR GROUPS:
1 4
DEFINITION TABLE:
farm.MASTER  MASTER    0
farm.SLAVE1  SLAVE[1]  1
farm.SLAVE2  SLAVE[2]  2
farm.SLAVE3  SLAVE[3]  3
farm.SLAVE4  SLAVE[4]  4
- # all_modules # 5
- SLAVE 6
#ATTRIBUTES for module MASTER#
JOB 0 INTEGER(400)
#ATTRIBUTES for module SLAVE#
RESULT 0 INTEGER(400)
"""
    check(text == want, "farm setup file is the spec's example")


def test_usage():
    check(run("--program=nope", ok=False).returncode == 2, "unknown program: exit 2")
    check(run("--delivery=random", ok=False).returncode == 2, "bad delivery: exit 2")
    missing = os.path.join(TMP, "no", "such.sock")
    p = run("--connect=unix:" + missing, "--speed=0", ok=False)
    check(p.returncode == 1 and b"connect" in p.stderr, "unreachable Viper: exit 1 with the reason")


def live(dest_kind):
    args = ["--program=farm", "--tasks=12", "--seed=3", "--speed=0"]
    if dest_kind == "unix":
        path = os.path.join(TMP, "viper.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        dest = "unix:" + path
    else:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.bind(("127.0.0.1", 0))
        dest = "tcp:127.0.0.1:%d" % srv.getsockname()[1]
        args.append("--probe-buffer")
    srv.listen(64)
    srv.setblocking(False)
    proc = subprocess.Popen([SIM, *args, "--connect=" + dest], stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(srv, selectors.EVENT_READ)
    conns = {}
    done = []
    deadline = time.monotonic() + 120
    exited = False
    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.2):
            if key.fileobj is srv:
                try:
                    c, _ = srv.accept()
                except BlockingIOError:
                    continue
                c.setblocking(False)
                conns[c] = bytearray()
                sel.register(c, selectors.EVENT_READ)
            else:
                c = key.fileobj
                chunk = c.recv(65536)
                if chunk:
                    conns[c] += chunk
                else:
                    sel.unregister(c)
                    done.append(bytes(conns.pop(c)))
                    c.close()
        if not exited and proc.poll() is not None:
            exited = True
        if exited and not conns:
            try:  # anything left in the backlog?
                c, _ = srv.accept()
                c.setblocking(False)
                conns[c] = bytearray()
                sel.register(c, selectors.EVENT_READ)
            except BlockingIOError:
                break
    srv.close()
    err = proc.stderr.read().decode()
    check(proc.wait() == 0, "live %s: simulator succeeded (%s)" % (dest_kind, err.strip()))
    ref = run(*args[:-1] if dest_kind == "tcp" else args).stdout.decode().splitlines()
    check(len(done) == 6, "live %s: one connection per module plus the program manager (%d)" % (dest_kind, len(done)))
    all_lines = []
    procs = []
    for data in done:
        lines = data.decode().splitlines()
        t = parse(data.decode())
        ps = {x[3] for x in t}
        check(len(ps) == 1, "live %s: one PROC per connection" % dest_kind)
        procs.extend(ps)
        check([x[5][0] for x in t] == list(range(1, len(t) + 1)), "live %s: sequence order per connection" % dest_kind)
        all_lines.extend(lines)
    check(sorted(procs) == [-1, 0, 1, 2, 3, 4], "live %s: PROCs -1..4" % dest_kind)
    check(sorted(all_lines) == sorted(ref), "live %s: the same trams as the file output" % dest_kind)


def test_bundled():
    if not ROOT:
        return
    tdir = os.path.join(ROOT, "traces")
    for prog in ("farm", "deadlock", "abnormal", "trackfit"):
        trc = os.path.join(tdir, prog + ".trc")
        if not check(os.path.exists(trc), "bundled %s exists" % trc):
            continue
        with open(trc, "rb") as f:
            data = f.read()
        first = data.split(b"\n", 1)[0].decode()
        check(first.startswith("# viper-monalisa-sim "), "%s: starts with its command line" % trc)
        args = shlex.split(first[2:])[1:]
        truth = os.path.join(TMP, prog + ".bundled.json")
        setup = os.path.join(TMP, prog + ".bundled.setup")
        out = run(*args, "--header", "--truth-out=" + truth, "--setup-out=" + setup).stdout
        check(out == data, "%s is what the simulator writes today (run scripts/make-traces)" % trc)
        for mine, theirs in ((truth, os.path.join(tdir, prog + ".truth.json")),
                             (setup, os.path.join(ROOT, "setup", prog + ".setup"))):
            with open(mine, "rb") as a, open(theirs, "rb") as b:
                check(a.read() == b.read(), "%s is up to date" % theirs)
        check(len(data) < 1 << 20, "%s is smaller than 1 MB" % trc)


def main():
    for t in (test_programs, test_determinism_and_delivery, test_setup_format, test_usage,
              lambda: live("unix"), lambda: live("tcp"), test_bundled):
        t()
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
