#!/usr/bin/env python3
"""test_pm_files: a program manager's verdict (PROC -1) has no dependencies,
but its place in the run does not depend on the line order or on the split
of the trace into files (docs/paradigm-monalisa.md, "The program manager's
place in the run").  The Farm split one file per module and given in several
orders, the program manager's file first or last, and the Farm sorted by raw
time all give the single file's state, counts and run (as a set), nothing
inconsistent, and the verdict last in the run.

Usage: test_pm_files.py --viper-replay PATH --source-root DIR
Prints "ok N - name" / "not ok N - name"; exit status 1 when any failed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", required=True)
    a = ap.parse_args()
    farm = os.path.join(a.source_root, "traces", "farm.trc")
    setup = os.path.join(a.source_root, "setup", "farm.setup")
    lines = [l for l in open(farm).read().splitlines() if l.strip() and not l.startswith("#")]
    results = []
    with tempfile.TemporaryDirectory(prefix="viper-pm-") as tmp:
        def write(name, ls):
            p = os.path.join(tmp, name)
            with open(p, "w") as f:
                f.write("".join(l + "\n" for l in ls))
            return p

        per = {p: write(f"farmproc{p}.trc", [l for l in lines if int(l.split()[3]) == p]) for p in range(-1, 5)}
        cases = {
            "single file": [farm],
            "per module, the manager's file last": [per[p] for p in (0, 1, 2, 3, 4, -1)],
            "per module, the manager's file first": [per[p] for p in (-1, 0, 1, 2, 3, 4)],
            "per module, reversed": [per[p] for p in (4, 3, 2, 1, 0, -1)],
            "sorted by raw time": [write("sorted.trc", sorted(lines, key=lambda l: float(l.split()[2])))],
            "the manager's line first": [write("pmfirst.trc", [l for l in lines if l.split()[3] == "-1"]
                                               + [l for l in lines if l.split()[3] != "-1"])],
        }
        got = {}
        for name, files in cases.items():
            st = os.path.join(tmp, "state.json")
            ro = os.path.join(tmp, "run.trc")
            p = subprocess.run([a.viper_replay, "-p", "monalisa", "-s", setup, "--stats", "-q",
                                f"--state-out={st}", f"--run-out={ro}"] + files,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            stats = dict(l.rsplit(": ", 1) for l in p.stdout.decode().splitlines() if ": " in l)
            run = open(ro).read().splitlines() if os.path.exists(ro) else []
            got[name] = (p.returncode, stats, json.load(open(st)) if os.path.exists(st) else None, run)
        ref = got["single file"]
        for name, (rc, stats, state, run) in got.items():
            problems = []
            if rc != 0:
                problems.append(f"exit {rc}")
            if stats.get("inconsistent") != "0" or stats.get("pending") != "0":
                problems.append(f"inconsistent {stats.get('inconsistent')}, pending {stats.get('pending')}")
            if state != ref[2]:
                problems.append("--state-out differs from the single file's")
            if sorted(run) != sorted(ref[3]):
                problems.append("--run-out holds other trams or times than the single file's")
            if not run or run[-1].split()[:2] != ["6", "25"]:
                problems.append(f"the verdict is not last in the run: {run[-1:] }")
            results.append((name, problems))
    for i, (name, problems) in enumerate(results, 1):
        print(("ok" if not problems else "not ok") + f" {i} - {name}")
        for p in problems:
            print("    " + p)
    return 1 if any(p for _, p in results) else 0


if __name__ == "__main__":
    sys.exit(main())
