#!/usr/bin/env python3
"""test_scan: prefix collectives (Scan, -792; spec section 3: member i's end
depends on the begins of members 0..i, in the order of the SUBSET
definition, or of processor numbers for -1) through viper-replay.

Usage: test_scan.py --viper-replay PATH

- Exact bounds: one scan per trace, over -1 (processor numbers with gaps)
  or over a subset defined in a shuffled order, begins and ends at random
  times on a coarse grid (many ties), in four line orders that keep each processor's own
  (sorted by time, reversed, shuffled, grouped by processor), the
  definition first or last.  A begin is its processor's first tram, so
  every end's adjusted time is exactly max(its own time, the begins of the
  members up to it), and the processor is idle (Chrome export) from its
  begin to the latest of those begins, if after it: an end released with
  the bound of a longer or shorter prefix than its own shows, in the run
  and in the model.  Nothing pending, nothing inconsistent.
- Line orders: several scans of 96 processors with skewed clocks and a
  barrier between them, over a subset defined in a shuffled order and over
  -1: the state (--state-out) and the three exports are byte-identical in
  the four orders, and no end is before a begin it depends on.
- Size: a scan of 4,096 processors over a subset defined in reverse id
  order, begins in id order (so every end waits, and every begin completes
  one more member's prefix), replays with nothing pending and nothing
  inconsistent.  Its speed (O(P) per scan) is measured by the benchmark
  bench/bench-collectives.py, not here: the time limit on this replay is
  only a guard against a hang (250 s, times VIPER_TIMEOUT_SCALE).
Prints "ok - ..." / "not ok - ..."; exit status 1 when any failed.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--viper-replay", required=True)
args = ap.parse_args()
problems = []
FORMATS = ("paragraph", "paje", "chrome")
SCALE = float(os.environ.get("VIPER_TIMEOUT_SCALE", "1"))   # slower builds (sanitizers)


def check(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        problems.append(what)
        if detail:
            print("    " + detail.replace("\n", "\n    "))


def stats(out):
    got = {}
    for line in out.splitlines():
        key, sep, value = line.rpartition(": ")
        if sep:
            got[key] = value
    return got


def orders(rnd, head, streams, head_last):
    """{order: text}: the lines in four orders, each processor's kept."""
    items = sorted((t, p, i) for p, s in streams.items() for i, (t, _) in enumerate(s))

    def take(seq):
        pos = dict.fromkeys(streams, 0)
        out = []
        for p in seq:
            out.append(streams[p][pos[p]][1])
            pos[p] += 1
        return out

    bag = [p for _, p, _ in items]
    rnd.shuffle(bag)
    lines = {
        "sorted": take(p for _, p, _ in items),
        "reversed": take(p for _, p, _ in reversed(items)),
        "shuffled": take(bag),
        "grouped": [l for p in sorted(streams, reverse=True) for _, l in streams[p]],
    }
    return {k: "".join(x + "\n" for x in (v + head if head_last else head + v)) for k, v in lines.items()}


def replay(tmp, tag, text, extra=()):
    trace = os.path.join(tmp, tag + ".trf")
    with open(trace, "w") as f:
        f.write(text)
    outs = {f: os.path.join(tmp, f"{tag}.{f}") for f in FORMATS}
    cmd = [args.viper_replay, "--stats", f"--run-out={tmp}/{tag}.run", f"--state-out={tmp}/{tag}.json"]
    cmd += [f"--export={f}:{p}" for f, p in outs.items()] + list(extra) + [trace]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    res = {"rc": p.returncode, "stats": stats(p.stdout), "stderr": p.stderr}
    with open(f"{tmp}/{tag}.run") as f:
        res["run"] = f.read()
    with open(f"{tmp}/{tag}.json", "rb") as f:
        res["state"] = f.read()
    for fmt, path in outs.items():
        with open(path, "rb") as f:
            res[fmt] = f.read()
    return res


def clean(res):
    """'' when the replay ended with everything transferred and consistent."""
    st = res["stats"]
    if res["rc"] != 0 or st.get("pending") != "0" or st.get("inconsistent") != "0" or res["stderr"]:
        return (f"exit {res['rc']}, pending {st.get('pending')}, inconsistent {st.get('inconsistent')}: "
                + res["stderr"][-400:])
    return ""


def adjusted(run_text):
    """{(kind, proc): [adjusted times of the scan trams, in order]}"""
    got = {}
    for line in run_text.splitlines():
        w = line.split()
        if len(w) > 3 and w[1] == "-792":
            got.setdefault((w[0], int(w[3])), []).append(float(w[2]))
    return got


def idle(chrome):
    """{proc: [(start, end) of its idle slices]} from a Chrome export, in seconds."""
    events = json.loads(chrome)["traceEvents"]
    proc_of = {e["tid"]: int(e["args"]["name"].split()[-1]) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    got = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "state" and e.get("name") == "idle":
            got.setdefault(proc_of[e["tid"]], []).append((e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6))
    return got


def exact_bounds():
    rnd = random.Random(792)
    grid = [0.25 * k for k in range(4, 25)]
    bad = []
    runs = 0
    with tempfile.TemporaryDirectory(prefix="viper-scan-") as tmp:
        for case in range(24):
            n = rnd.choice([2, 3, 5, 9, 17, 40])
            procs = sorted(rnd.sample(range(3 * n), n))
            subset = case % 3 != 0
            if subset:
                members = procs[:]
                rnd.shuffle(members)
                sid = 5
                head = [f"-202 -812 0.0 -1 -1 {len(members) + 1} 2 {sid} " + " ".join(map(str, members))]
            else:
                members, sid, head = procs, -1, []
            begin = {p: rnd.choice(grid) for p in procs}
            end = {p: begin[p] + rnd.choice([0, 0.25, 0.5, 1.5]) for p in procs}
            streams = {p: [(begin[p], f"-3 -792 {begin[p]:.2f} {p} 0 2 2 8 {sid}"),
                           (end[p], f"-4 -792 {end[p]:.2f} {p} 0 1 2 8")] for p in procs}
            # the model: a member waits (idle) from its begin until the last
            # begin up to it; the run: its end is not before that begin
            ready = {p: max(begin[q] for q in members[:members.index(p) + 1]) for p in procs}
            want = {p: max(end[p], ready[p]) for p in procs}
            want_idle = {p: [(begin[p], ready[p])] for p in procs if ready[p] > begin[p]}
            for order, text in orders(rnd, head, streams, case % 2 == 1).items():
                runs += 1
                res = replay(tmp, f"c{case}-{order}", text)
                why = clean(res)
                if why:
                    bad.append(f"case {case} {order}: {why}")
                    continue
                got = adjusted(res["run"])
                for p in procs:
                    b, e = got.get(("-3", p)), got.get(("-4", p))
                    if b != [begin[p]] or e != [want[p]]:
                        bad.append(f"case {case} {order} ({'subset ' + str(members) if subset else 'over -1'}): "
                                   f"proc {p}: begin {b} end {e}, expected begin {begin[p]} end {want[p]}")
                        break
                got_idle = idle(res["chrome"])
                if got_idle != want_idle:
                    bad.append(f"case {case} {order} ({'subset ' + str(members) if subset else 'over -1'}): "
                               f"idle {sorted(got_idle.items())}, expected {sorted(want_idle.items())}")
    check(not bad, f"every scan end bounded by exactly its own prefix ({runs} replays)", "\n".join(bad[:5]))


def line_orders():
    rnd = random.Random(7920)
    with tempfile.TemporaryDirectory(prefix="viper-scan-") as tmp:
        for over in ("subset", "-1"):
            procs = list(range(96))
            members = procs[:]
            rnd.shuffle(members)
            sid = 3 if over == "subset" else -1
            head = [f"-202 -812 0.0 -1 -1 97 2 3 " + " ".join(map(str, members))] if sid == 3 else []
            order_of = members if sid == 3 else procs
            skew = {p: rnd.uniform(-0.5, 0.5) for p in procs}
            streams = {p: [] for p in procs}
            t = 1.0
            for s in range(6):
                for p in procs:
                    b = round(t + skew[p] + rnd.uniform(0, 0.3), 3)
                    e = round(b + rnd.uniform(0, 0.2), 3)
                    streams[p] += [(b, f"-3 -792 {b:.3f} {p} 0 2 2 {s} {sid}"), (e, f"-4 -792 {e:.3f} {p} 0 1 2 {s}")]
                for p in procs:
                    b = round(t + 0.6 + skew[p], 3)
                    streams[p] += [(b, f"-3 -402 {b:.3f} {p} 0 1 2 {sid}"), (b + 0.01, f"-4 -402 {b + 0.01:.3f} {p} 0 0")]
                t += 1.0
            results = {o: replay(tmp, f"o-{o}", text) for o, text in orders(rnd, head, streams, True).items()}
            base = results["sorted"]
            why = [f"{o}: {clean(r)}" for o, r in results.items() if clean(r)]
            check(not why, f"scans over {over}: nothing pending or inconsistent in any line order", "\n".join(why))
            for key in ("state",) + FORMATS:
                differ = [o for o, r in results.items() if r[key] != base[key]]
                check(not differ and base[key], f"scans over {over}: {key} identical in the four line orders",
                      f"differs in {differ}")
            # an end is not before the begins of the members up to it
            got = adjusted(base["run"])
            late = []
            for s in range(6):
                latest = float("-inf")
                for p in order_of:
                    latest = max(latest, got[("-3", p)][s])
                    if got[("-4", p)][s] < latest:
                        late.append(f"scan {s + 1}: proc {p} ends at {got[('-4', p)][s]}, a begin before it at {latest}")
            check(not late, f"scans over {over}: no end before a begin of its prefix", "\n".join(late[:5]))


def size():
    n = 4096
    lines = [f"-202 -812 0.0 -1 -1 {n + 1} 2 1 " + " ".join(str(p) for p in range(n - 1, -1, -1))]
    lines += [f"-3 -792 {1 + p * 1e-6:.6f} {p} 0 2 2 8 1" for p in range(n)]
    lines += [f"-4 -792 {2 + p * 1e-6:.6f} {p} 0 1 2 8" for p in range(n)]
    with tempfile.TemporaryDirectory(prefix="viper-scan-") as tmp:
        trace = os.path.join(tmp, "big.trf")
        with open(trace, "w") as f:
            f.write("".join(l + "\n" for l in lines))
        limit = 250 * SCALE          # a hang guard, not a speed goal
        try:
            p = subprocess.run([args.viper_replay, "--stats", trace], capture_output=True, text=True, timeout=limit)
            st = stats(p.stdout)
            check(p.returncode == 0 and st.get("pending") == "0" and st.get("inconsistent") == "0",
                  f"a scan of {n} processors in reverse member order replays, nothing pending or inconsistent",
                  p.stdout[-300:] + p.stderr[-300:])
        except subprocess.TimeoutExpired:
            check(False, f"a scan of {n} processors in reverse member order ends (stopped after {limit:.0f} s)")


exact_bounds()
line_orders()
size()
print(f"# {len(problems)} failed")
sys.exit(1 if problems else 0)
