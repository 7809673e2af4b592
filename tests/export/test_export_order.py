#!/usr/bin/env python3
"""test_export_order: an export is a function of the trams and their adjusted
times only (spec picl.md section 3): the same trams in any line order give
byte-identical ParaGraph, Pajé and Chrome files.

Usage: test_export_order.py --viper-replay PATH --picl-gen PATH
                            [--monalisa-sim PATH] [--macrame-sim PATH]

  - picl: for several seeds, a generated run (non-blocking and any-source
    receives, barriers, collectives over subsets) with many equal times
    (times rounded to a coarse grid, and true times with no latency, so
    that receives are raised to their send's time and ties are common),
    written in three line orders: sorted by time; each processor's lines in
    order but processors interleaved at random; all of one processor, then
    the next.  All three formats, compared byte for byte.
  - Mona Lisa: the simulator's delivery orders (inorder, shuffled,
    interleaved) of farm, deadlock, abnormal and trackfit runs for a few
    seeds (and a longer Farm), with their setup files: all three formats.
    In the Pajé file every inrglb caller's blocked state begins at the latest
    of its instances' request receipts (spec monalisa.md section 4), not at
    the receipt the run happened to apply last.
  - Macrame: a mesh in the same three orders (Pajé, Chrome).
Prints "ok N - name" / "not ok N - name"; exit status 1 when any failed.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ARGS = None
RESULTS = []
FORMATS = ("paragraph", "paje", "chrome")
ML_FORMATS = FORMATS
ML_CASES = [(prog, seed, []) for prog in ("farm", "deadlock", "abnormal", "trackfit") for seed in (1, 2, 3)] \
    + [("farm", 1, ["--count=3000"]), ("farm", 4, ["--count=3000", "--latency-ms=3"]),
       # slow instances: replies applied before the last receipt though dated
       # after it (a block in the past), and after it though dated before
       # (a block undone): both in the shuffled order
       ("farm", 4, ["--count=20000", "--latency-ms=3"])]


def report(name, problems):
    RESULTS.append((name, problems))
    print(("ok" if not problems else "not ok") + f" {len(RESULTS)} - {name}")
    for p in problems:
        print("    " + p.replace("\n", "\n    "))


def export_all(tmp, tag, args, formats):
    """Export every format of one replay; returns {format: bytes}."""
    outs = {f: os.path.join(tmp, f"{tag}.{f}") for f in formats}
    cmd = [ARGS.viper_replay, "--quiet"] + args + [f"--export={f}:{p}" for f, p in outs.items()]
    p = subprocess.run(cmd, cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    if p.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.decode()[-500:]}")
    return {f: open(path, "rb").read() for f, path in outs.items()}


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x[:120]!r} != {y[:120]!r}"
    return f"lengths {len(la)} != {len(lb)} lines"


def compare(name, variants, formats, problems):
    """variants: [(order name, {format: bytes})]; all equal to the first."""
    base_name, base = variants[0]
    for f in formats:
        if not base[f]:
            problems.append(f"{name} {f}: empty export")
        for other_name, other in variants[1:]:
            if other[f] != base[f]:
                problems.append(f"{name} {f}: {base_name} and {other_name} differ, "
                                + first_difference(base[f], other[f]))


def picl_orders(text, seed):
    """The trace's lines in three orders that keep each processor's own
    order (and the global records' order): sorted by time, interleaved at
    random, grouped by processor."""
    head, streams, flat = [], {}, []
    for line in text.splitlines():
        w = line.split()
        if len(w) < 4 or line.startswith("#"):
            head.append(line)
            continue
        proc = int(w[3])
        streams.setdefault(proc, []).append(line)
        flat.append((float(w[2]), proc, len(streams[proc]) - 1))
    # sorted by time, each stream's order kept (a stable merge on time)
    pos = {p: 0 for p in streams}
    heads = sorted(streams)
    merged = []
    total = sum(len(s) for s in streams.values())
    while len(merged) < total:
        best = None
        for p in heads:
            if pos[p] < len(streams[p]):
                t = float(streams[p][pos[p]].split()[2])
                if best is None or t < best[0]:
                    best = (t, p)
        merged.append(streams[best[1]][pos[best[1]]])
        pos[best[1]] += 1
    rnd = random.Random(seed)
    bag = [p for p in streams for _ in streams[p]]
    rnd.shuffle(bag)
    pos = {p: 0 for p in streams}
    interleaved = []
    for p in bag:
        interleaved.append(streams[p][pos[p]])
        pos[p] += 1
    grouped = [line for p in sorted(streams, reverse=True) for line in streams[p]]
    join = lambda lines: "\n".join(head + lines) + "\n"
    return [("sorted", join(merged)), ("interleaved", join(interleaved)), ("grouped", join(grouped))]


def round_times(text, grid):
    out = []
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 4 and not line.startswith("#"):
            w[2] = "%.6f" % (round(float(w[2]) / grid) * grid)
            line = " ".join(w)
        out.append(line)
    return "\n".join(out) + "\n"


def test_picl():
    cases = []
    for seed in range(1, 7):
        common = [f"--seed={seed}", f"--procs={3 + seed % 4}", f"--messages={40 + 10 * seed}",
                  "--nonblocking=0.4", "--anysource=0.3", f"--barriers={1 + seed % 2}",
                  f"--collectives={seed % 3}", "--notes=0.1"]
        # coarse clocks: many equal stamps, receives raised to their sends
        cases.append((f"seed {seed} rounded", common + ["--latency=1e-5", "--compute=2e-5"], 1e-4))
        # true times, no latency: a receive's time is its send's
        cases.append((f"seed {seed} true-time", common + ["--true-time", "--latency=0", "--jitter=0"], None))
    with tempfile.TemporaryDirectory(prefix="viper-xo-") as tmp:
        for name, gen_args, grid in cases:
            problems = []
            try:
                p = subprocess.run([ARGS.picl_gen] + gen_args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=60, check=True)
                text = p.stdout.decode()
                if grid:
                    text = round_times(text, grid)
                variants = []
                for order, body in picl_orders(text, hash(name) & 0xffff):
                    path = os.path.join(tmp, f"t-{order}.trf")
                    open(path, "w").write(body)
                    variants.append((order, export_all(tmp, order, [path], FORMATS)))
                compare(name, variants, FORMATS, problems)
                # the ties were there to break
                pg = variants[0][1]["paragraph"].decode().splitlines()
                times = [l.split()[2] for l in pg if len(l.split()) > 2]
                if len(set(times)) == len(times):
                    problems.append(f"{name}: no equal times to test ties")
            except Exception as e:
                problems.append(f"exception: {e!r}")
            report(f"picl {name}", problems)


def inrglb_block_starts(paje):
    """Check every inrglb caller's blocked state (Pajé s3) that follows its
    requests: it begins at the latest of the instances' receipts (the
    request links' ends).  Returns (checked, problems)."""
    pending = {}        # caller alias -> [sent, received end times]
    links = {}          # key -> caller alias of an inrglb request
    checked, problems = 0, []
    for line in paje.decode().splitlines():
        w = line.split()
        if not w or w[0].startswith("%"):
            continue
        if w[0] == "9" and '"inrglb request"' in line:
            caller = w[4]
            links[w[-1]] = caller
            if caller not in pending or pending[caller][1]:
                pending[caller] = [0, []]       # a new call (its requests leave together)
            pending[caller][0] += 1
        elif w[0] == "10" and w[-1] in links:
            caller = links.pop(w[-1])
            if caller in pending:
                pending[caller][1].append(float(w[1]))
        elif w[0] == "7" and w[3] in pending:
            sent, got = pending[w[3]]
            if w[4] == "s3" and got and len(got) == sent:
                checked += 1
                if float(w[1]) != max(got):
                    problems.append(f"{w[3]} blocked at {w[1]}, its instances received the inrglb request "
                                    f"at {sorted(got)}: expected {max(got)}")
            if w[4] != "s2":            # blocked (checked) or out of the primitive
                pending.pop(w[3])
    return checked, problems


def test_monalisa():
    if not ARGS.monalisa_sim:
        return
    with tempfile.TemporaryDirectory(prefix="viper-xo-") as tmp:
        for prog, seed, extra in ML_CASES:
            name = f"{prog} seed {seed}" + (" " + " ".join(extra) if extra else "")
            problems = []
            try:
                setup = os.path.join(tmp, f"{prog}.setup")
                variants = []
                sized = extra or (["--tasks=12"] if prog in ("farm", "abnormal") else [])
                for delivery in ("inorder", "shuffled", "interleaved"):
                    trace = os.path.join(tmp, f"{prog}-{delivery}.trc")
                    subprocess.run([ARGS.monalisa_sim, f"--program={prog}", f"--seed={seed}", f"--delivery={delivery}",
                                    f"--out={trace}", f"--setup-out={setup}"] + sized, check=True, timeout=60,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    variants.append((delivery, export_all(tmp, delivery, ["--paradigm=monalisa", f"--setup={setup}",
                                                                          trace], ML_FORMATS)))
                compare(name, variants, ML_FORMATS, problems)
                if prog == "farm":
                    for delivery, out in variants:
                        checked, bad = inrglb_block_starts(out["paje"])
                        problems += [f"{delivery}: {b}" for b in bad[:5]]
                        if not checked:
                            problems.append(f"{delivery}: no inrglb block to check")
            except Exception as e:
                problems.append(f"exception: {e!r}")
            report(f"monalisa {name}", problems)


def test_macrame():
    if not ARGS.macrame_sim:
        return
    formats = ("paje", "chrome")
    with tempfile.TemporaryDirectory(prefix="viper-xo-") as tmp:
        problems = []
        try:
            # the simulator's orders are different runs: one run, reordered here
            p = subprocess.run([ARGS.macrame_sim, "--mesh=2", "--seed=3"], check=True, timeout=60,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            variants = []
            for order, body in picl_orders(p.stdout.decode(), 7):
                trace = os.path.join(tmp, f"mesh-{order}.trc")
                open(trace, "w").write(body)
                variants.append((order, export_all(tmp, order, ["--paradigm=macrame", trace], formats)))
            compare("mesh", variants, formats, problems)
        except Exception as e:
            problems.append(f"exception: {e!r}")
        report("macrame mesh", problems)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--picl-gen", required=True)
    ap.add_argument("--monalisa-sim")
    ap.add_argument("--macrame-sim")
    ARGS = ap.parse_args()
    for k in ("viper_replay", "picl_gen", "monalisa_sim", "macrame_sim"):
        if getattr(ARGS, k):
            setattr(ARGS, k, os.path.abspath(getattr(ARGS, k)))
    test_picl()
    test_monalisa()
    test_macrame()
    failed = [n for n, p in RESULTS if p]
    print(f"1..{len(RESULTS)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
