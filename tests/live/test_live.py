#!/usr/bin/env python3
"""test_live: on-line monitoring end to end.

viper-replay listens on a socket; viper-monalisa-sim runs a Mona Lisa
program and streams its trams live, one connection per module (as a real
program's modules would) plus one for the program manager.  The received run
must be complete and consistent, and the replayed final state must equal the
simulator's own record of the true final state.  Bounded: every wait has a
deadline; nothing sleeps to synchronise (the socket file's appearance and the
processes' exits are what we wait for).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

def wait_for(pred, deadline, what):
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.01)  # polling interval for a condition, not synchronisation by time
    raise TimeoutError(what)

def compare(state, truth, problems, label):
    for key in ("program_state", "reported", "deadlock_cycle"):
        if state.get(key) != truth.get(key):
            problems.append(f"{label}: {key} {state.get(key)!r} != truth {truth.get(key)!r}")
    mods = {m["id"]: m for m in state.get("modules", [])}
    for tm in truth.get("modules", []):
        m = mods.get(tm["id"])
        if m is None:
            problems.append(f"{label}: module {tm['id']} missing")
            continue
        for key in ("name", "state", "started", "finished", "primitive", "variables"):
            if key in tm and m.get(key) != tm[key]:
                problems.append(f"{label}: module {tm['id']} {key} {m.get(key)!r} != truth {tm[key]!r}")

def run(args, program, transport, seed, problems):
    label = f"{program}/{transport}/seed {seed}"
    with tempfile.TemporaryDirectory(prefix="viper-live-") as tmp:
        if transport == "unix":
            addr = f"unix:{tmp}/v.sock"
        else:
            addr = "tcp:127.0.0.1:0"
        setup = os.path.join(tmp, "p.setup")
        truth = os.path.join(tmp, "truth.json")
        state = os.path.join(tmp, "state.json")
        sim_opts = [f"--program={program}", f"--seed={seed}", "--delivery=shuffled"]
        # the setup file first: Viper needs the groups before the trams come
        subprocess.run([args.sim, *sim_opts, "--out=/dev/null", f"--setup-out={setup}"], check=True, timeout=60)
        viper = subprocess.Popen([args.viper_replay, f"--listen={addr}", "--idle-exit=0.5",
                                  "--paradigm=monalisa", f"--setup={setup}", f"--state-out={state}", "--stats"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            if transport == "unix":
                wait_for(lambda: os.path.exists(f"{tmp}/v.sock"), deadline, "socket file")
            else:
                # the bound port is announced on stderr: "listening on tcp:127.0.0.1:PORT"
                line = viper.stderr.readline()
                if "listening on tcp:" not in line:
                    problems.append(f"{label}: no listening line: {line!r}")
                    return
                addr = line.strip().split("listening on ", 1)[1]
            sim = subprocess.run([args.sim, *sim_opts, f"--connect={addr}", "--speed=0", f"--truth-out={truth}"],
                                 capture_output=True, text=True, timeout=60)
            if sim.returncode != 0:
                problems.append(f"{label}: simulator failed: {sim.stderr.strip()}")
                return
            out, err = viper.communicate(timeout=60)
        except Exception as e:
            viper.kill()
            viper.communicate()
            problems.append(f"{label}: {e!r}")
            return
        if viper.returncode != 0:
            problems.append(f"{label}: viper-replay exit {viper.returncode}: {err.strip()[-500:]}")
            return
        opened = err.count(" opened")
        with open(state) as f:
            st = json.load(f)
        with open(truth) as f:
            tr = json.load(f)
        c = st["counts"]
        if c["pending"] != 0 or c["rejected"] != 0 or c["read"] != c["transferred"]:
            problems.append(f"{label}: counts {c}")
        if c["inconsistent"] != 0:
            problems.append(f"{label}: {c['inconsistent']} inconsistencies")
        nmods = len(tr["modules"])
        if opened != nmods + 1:
            problems.append(f"{label}: {opened} connections opened, expected {nmods + 1} (one per module + manager)")
        compare(st, tr, problems, label)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--sim", required=True)
    args = ap.parse_args()
    cases = [("farm", "unix", 1), ("farm", "tcp", 2), ("deadlock", "unix", 3),
             ("abnormal", "tcp", 4), ("trackfit", "unix", 5)]
    failed = 0
    for i, (program, transport, seed) in enumerate(cases, 1):
        problems = []
        run(args, program, transport, seed, problems)
        if problems:
            failed += 1
            print(f"not ok {i} - live {program} over {transport}")
            for p in problems:
                print(f"    {p}")
        else:
            print(f"ok {i} - live {program} over {transport}")
    print(f"1..{len(cases)}")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
