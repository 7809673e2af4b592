#!/usr/bin/env python3
"""test_picl_files: viper-replay gives the same outputs for any line order and
any split of a PICL trace over files (spec section 3, issue 10 item 10).

Usage: test_picl_files.py --viper-replay PATH --viper-picl-gen PATH

For a few generated programs (overlapping waits, collectives of every kind,
skewed clocks) the same trams are written sorted by time, grouped by
processor, randomly interleaved (each processor's order kept) and split over
two or three files given in several argument orders.  --state-out and the
PNG renders of every view must be byte-identical; the Pajé and Chrome
exports must hold the same records (compared without message ids, sorted:
ids and the order of records at one time follow the run order, which is free).
The processor-grouped file must also give one "running" and one "terminated"
program event (issue 10 item 11).

Collectives over SUBSET -1 (every processor) and over subsets defined after
their collectives are replayed the same way and also stopped at several
--until points: the --state-out (with its exit status) and the Pajé export
written at each stop must not depend on the order either (an open collective
whose members are not all known, or not all begun, is idle).
"""
import argparse
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kw)
    if p.returncode != 0:
        sys.stderr.write("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.decode()))
        sys.exit(1)
    return p


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def normalised(path, id_re):
    with open(path) as f:
        return sorted(re.sub(id_re, "ID", line) for line in f.read().splitlines())


def write(path, lines):
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))


def variants(lines, rnd, tmp, tag):
    """(name, [files]) for many line orders and splits of the same trams."""
    by_proc = {}
    for l in lines:
        by_proc.setdefault(int(l.split()[3]), []).append(l)
    procs = sorted(by_proc)
    out = []
    write(os.path.join(tmp, tag + "sorted.trf"), lines)
    out.append(("sorted", [tag + "sorted.trf"]))
    grouped = [l for p in procs for l in by_proc[p]]
    write(os.path.join(tmp, tag + "grouped.trf"), grouped)
    out.append(("grouped", [tag + "grouped.trf"]))
    rev = [l for p in reversed(procs) for l in by_proc[p]]
    write(os.path.join(tmp, tag + "reversed.trf"), rev)
    out.append(("grouped-reversed", [tag + "reversed.trf"]))
    for k in range(2):
        queues = {p: list(by_proc[p]) for p in procs}
        mixed = []
        while queues:
            p = rnd.choice([q for q in queues for _ in queues[q]])
            mixed.append(queues[p].pop(0))
            if not queues[p]:
                del queues[p]
        name = tag + "mixed%d.trf" % k
        write(os.path.join(tmp, name), mixed)
        out.append(("interleaved-%d" % k, [name]))
    for nfiles in (2, 3):
        owner = {p: rnd.randrange(nfiles) for p in procs}
        names = []
        for f in range(nfiles):
            name = tag + "split%d-%d.trf" % (nfiles, f)
            write(os.path.join(tmp, name), [l for l in lines if owner[int(l.split()[3])] == f])
            names.append(name)
        out.append(("split%d" % nfiles, names))
        out.append(("split%d-reversed" % nfiles, list(reversed(names))))
    return out


BARNEG = ["-3 -901 0 0 0 0", "-3 -901 0 1 0 0", "-3 -402 1 0 0 0", "-3 -402 5 1 0 0",
          "-4 -402 5.5 0 0 0", "-4 -402 5.5 1 0 0"]
LATEDEF = ["-3 -782 1 0 0 2 2 8 1", "-202 -812 0 -1 -1 3 2 1 0 1", "-3 -782 5 1 0 2 2 8 1",
           "-4 -782 5.5 0 0 1 2 1", "-4 -782 5.5 1 0 1 2 1"]
SKEWBAR = ["-3 -901 0 0 0 0", "-3 -402 1.0 0 0 1 2 -1", "-4 -402 1.1 0 0 0", "-3 -901 1.5 1 0 0",
           "-3 -402 2.5 1 0 1 2 -1", "-4 -402 2.6 1 0 0", "-4 -901 3 0 0 0", "-4 -901 4 1 0 0"]


def all_and_late(lines):
    """Barriers over subset 1 (every processor) become SUBSET -1 without the
    definition; the other subset definitions move to the end of the file."""
    body, defs = [], []
    for l in lines:
        f = l.split()
        if f[:2] == ["-202", "-812"]:
            if f[7] != "1":
                defs.append(l)
            continue
        if f[:2] == ["-3", "-402"] and f[-3:] == ["1", "2", "1"]:
            l = " ".join(f[:-1] + ["-1"])
        body.append(l)
    return body + defs


def stops(args, tmp, tag, lines, untils, rnd):
    """Failures: the state and the Pajé export at each stop differ between orders."""
    failures = 0
    results = {}
    for name, files in variants(lines, rnd, tmp, tag):
        out = os.path.join(tmp, tag + name)
        r = {}
        for u in untils + ["end"]:
            cmd = [args.viper_replay, "--paradigm=picl", "-q", "--state-out=" + out + ".state.json",
                   "--export=paje:" + out + ".paje"]
            if u != "end":
                cmd.append("--until=" + u)
            p = subprocess.run(cmd + files, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            with open(out + ".state.json") as f:
                r[u] = (p.returncode, f.read(), normalised(out + ".paje", r" k[0-9]+"))
        results[name] = r
    want = results["sorted"]
    for name, r in results.items():
        bad = [u for u in want if r[u] != want[u]]
        if bad:
            print("not ok - %s %s differs from the file order at --until %s" % (tag, name, ", ".join(bad)))
            failures += 1
        else:
            print("ok - %s %s at %d stops" % (tag, name, len(want)))
    return failures


def collectives_over_all(args, tmp):
    failures = 0
    rnd = random.Random(5)
    failures += stops(args, tmp, "barneg-", BARNEG, ["0.5", "1", "3", "5.2"], rnd)
    failures += stops(args, tmp, "latedef-", LATEDEF, ["0.5", "1", "3", "5.2"], rnd)
    failures += stops(args, tmp, "skewbar-", SKEWBAR, ["1.05", "1.2", "2", "2.55", "3.5"], rnd)
    gen = run([args.viper_picl_gen, "--seed=9", "--barriers=3", "--collectives=3", "--delivery=inorder"])
    lines = all_and_late([l for l in gen.stdout.decode().splitlines() if l.strip()])
    failures += stops(args, tmp, "gen9-", lines, ["0.0005", "0.001", "0.002", "0.004"], rnd)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--viper-picl-gen", required=True)
    args = ap.parse_args()
    args.viper_replay = os.path.abspath(args.viper_replay)
    args.viper_picl_gen = os.path.abspath(args.viper_picl_gen)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="picl-files-") as tmp:
        failures += collectives_over_all(args, tmp)
        for seed in (3, 11, 29):
            gen = run([args.viper_picl_gen, "--procs=%d" % (3 + seed % 4), "--messages=80", "--collectives=6",
                       "--waitall=0.7", "--nonblocking=0.6", "--barriers=1", "--seed=%d" % seed,
                       "--delivery=inorder"])
            lines = [l for l in gen.stdout.decode().splitlines() if l.strip()]
            rnd = random.Random(seed)
            tag = "s%d-" % seed
            results = {}
            for name, files in variants(lines, rnd, tmp, tag):
                out = os.path.join(tmp, tag + name)
                cmd = [args.viper_replay, "--decay=0.5", "--history=0", "-q",
                       "--state-out=" + out + ".state.json", "--render-size=640x400",
                       "--export=paje:" + out + ".paje", "--export=chrome:" + out + ".chrome.json"]
                for view in ("spacetime", "animation", "program"):
                    cmd.append("--render=%s:%s.%s.png" % (view, out, view))
                run(cmd + files, cwd=tmp)
                r = {"state": digest(out + ".state.json")}
                for view in ("spacetime", "animation", "program"):
                    r[view] = digest("%s.%s.png" % (out, view))
                r["paje"] = normalised(out + ".paje", r" k[0-9]+")
                r["chrome"] = normalised(out + ".chrome.json", r'"id":[0-9]+')
                if name == "grouped":
                    for fmt in ("paje", "chrome"):
                        text = "\n".join(r[fmt])
                        if text.count("running") != 1 or text.count("terminated") != 1:
                            print("not ok - seed %d grouped %s: %d running, %d terminated events"
                                  % (seed, fmt, text.count("running"), text.count("terminated")))
                            failures += 1
                results[name] = r
            want = results["sorted"]
            for name, r in results.items():
                bad = [k for k in want if r[k] != want[k]]
                if bad:
                    print("not ok - seed %d %s differs from sorted in: %s" % (seed, name, ", ".join(bad)))
                    failures += 1
                else:
                    print("ok - seed %d %s" % (seed, name))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
