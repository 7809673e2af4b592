#!/usr/bin/env python3
"""test_export_target: exports are what the target tool expects (spec picl.md
section 5; issue 10 items 15-19).

Usage: test_export_target.py --viper-replay PATH --source-root DIR

  - ParaGraph files are in seconds whatever the paradigm's unit (Mona Lisa
    traces are in milliseconds);
  - no negative time in ParaGraph or Chrome files: the run is shifted to
    start at 0, and the shift is reported (stderr and --stats);
  - a PICL subset definition comes before the first record that uses it,
    even when that processor's clock is negative;
  - ParaGraph records are in non-decreasing time, and every record raised to
    keep that order is counted and reported (stderr and --stats);
  - Pajé containers are created in module order, and pj_dump reads the file;
  - a Pajé run longer than the merge window writes "running" at its time;
  - ignored trams add nothing to the Pajé and Chrome timelines;
  - subset definitions (PROC -1) dated far from the processors' clocks (0
    before epoch times) neither move the run's start or end nor shift it;
  - names that are not ASCII (UTF-8, or bytes of another encoding) leave the
    Chrome export and --state-out valid JSON.
Prints "ok N - name" / "not ok N - name"; exit status 1 when any failed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ARGS = None
RESULTS = []


def run(args, cwd, timeout=120):
    p = subprocess.run([ARGS.viper_replay] + args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def case(fn):
    def wrapper():
        problems = []
        with tempfile.TemporaryDirectory(prefix="viper-xt-") as tmp:
            try:
                fn(tmp, problems)
            except Exception as e:
                problems.append(f"exception: {e!r}")
        RESULTS.append((fn.__name__, problems))
        print(("ok" if not problems else "not ok") + f" {len(RESULTS)} - {fn.__name__}")
        for p in problems:
            print("    " + p.replace("\n", "\n    "))
    return wrapper


def expect(cond, what, problems):
    if not cond:
        problems.append(what)


def farm(tmp):
    src = ARGS.source_root
    return ["--paradigm=monalisa", f"--setup={src}/setup/farm.setup", f"{src}/traces/farm.trc"]


def paragraph_times(path):
    """(REC, EV, TIME, PROC, line) of every record of a PICL file."""
    out = []
    for line in open(path):
        f = line.split()
        if len(f) >= 4 and not line.startswith("#"):
            out.append((int(f[0]), int(f[1]), float(f[2]), int(f[3]), line.rstrip("\n")))
    return out


def stats_of(stdout):
    d = {}
    for line in stdout.splitlines():
        k, sep, v = line.rpartition(": ")
        if sep:
            d[k] = v
    return d


@case
def paragraph_in_seconds_from_milliseconds(tmp, problems):
    rc, out, err = run(["--stats", "--export=paragraph:g.trf"] + farm(tmp), tmp)
    expect(rc == 0, f"exit {rc}: {err}", problems)
    recs = paragraph_times(os.path.join(tmp, "g.trf"))
    last = max(r[2] for r in recs)
    # the Farm runs 125.674 ms (clock 123.166 ms, shifted by 2.508 ms): 0.125674 s
    expect(abs(last - 0.125674) < 1e-9, f"last time {last}, expected 0.125674 s (not 125.674)", problems)


@case
def paragraph_no_negative_time_shift_reported(tmp, problems):
    rc, out, err = run(["--stats", "--export=paragraph:g.trf"] + farm(tmp), tmp)
    recs = paragraph_times(os.path.join(tmp, "g.trf"))
    first = min(r[2] for r in recs)
    expect(first == 0.0, f"earliest time {first}, expected 0", problems)
    expect("viper-replay: --export=paragraph:g.trf: times shifted by +0.002508 s so that the run starts at 0"
           in err.splitlines(), f"no shift on stderr: {err!r}", problems)
    st = stats_of(out)
    expect(st.get("export paragraph:g.trf shift") == "0.002508", f"--stats: {st}", problems)
    expect(st.get("export paragraph:g.trf clamped") == "0", f"--stats: {st}", problems)


def chrome_ts(path):
    doc = json.load(open(path))
    return [e for e in doc["traceEvents"] if "ts" in e]


@case
def chrome_no_negative_timestamp(tmp, problems):
    src = ARGS.source_root
    for name, args in [("farm", farm(tmp)), ("mesh8x8", ["--paradigm=macrame", f"{src}/traces/mesh8x8.trc"])]:
        rc, out, err = run(["--stats", f"--export=chrome:{name}.json"] + args, tmp)
        expect(rc in (0, 3), f"{name}: exit {rc}: {err[-300:]}", problems)
        evs = chrome_ts(os.path.join(tmp, f"{name}.json"))
        neg = [e for e in evs if e["ts"] < 0]
        expect(not neg, f"{name}: {len(neg)} negative timestamps, e.g. {neg[:1]}", problems)
        expect(min(e["ts"] for e in evs) == 0, f"{name}: the run does not start at 0", problems)
        flows = {}
        for e in evs:
            if e["ph"] in "sf":
                flows.setdefault(e["id"], []).append(e)
        expect(all(len(v) == 2 and v[0]["ts"] <= v[1]["ts"] for v in flows.values()),
               f"{name}: a flow lost its start or ends before it", problems)
        st = stats_of(out)
        shift = float(st.get(f"export chrome:{name}.json shift", "nan"))
        expect(shift > 0, f"{name}: --stats has no shift: {st}", problems)
        expect(f"viper-replay: --export=chrome:{name}.json: times shifted by +{st.get(f'export chrome:{name}.json shift')}"
               f" s so that the run starts at 0" in err.splitlines(), f"{name}: no shift on stderr", problems)


SUBSET_TRACE = """\
# P0's clock is 10 s behind: its barrier begins at -9.5, before the definition's time
-3 -901 -10 0 0 0
-3 -901 0 1 0 0
-202 -812 0.2 -1 -1 3 2 7 0 1
-3 -402 -9.5 0 0 1 2 7
-3 -402 0.5 1 0 1 2 7
-4 -402 0.6 1 0 0
-4 -402 -9.3 0 0 0
-4 -901 -9 0 0 0
-4 -901 1 1 0 0
"""


@case
def subset_definition_before_first_use(tmp, problems):
    open(os.path.join(tmp, "sub.trf"), "w").write(SUBSET_TRACE)
    rc, out, err = run(["--export=paragraph:g.trf", "sub.trf"], tmp)
    expect(rc == 0, f"exit {rc}: {err}", problems)
    recs = paragraph_times(os.path.join(tmp, "g.trf"))
    kinds = [(r[0], r[1]) for r in recs]
    expect((-202, -812) in kinds, f"no definition in {kinds}", problems)
    if (-202, -812) in kinds:
        d = kinds.index((-202, -812))
        uses = [i for i, k in enumerate(kinds) if k[1] == -402]
        expect(uses and d < min(uses), f"definition at record {d}, first barrier at {min(uses)}:\n"
               + open(os.path.join(tmp, "g.trf")).read(), problems)
    times = [r[2] for r in recs]
    expect(times == sorted(times) and min(times) >= 0, f"times {times}", problems)


def grouped_trace(path, n):
    """n messages P0 -> P1, the file grouped by processor (all of P0, then
    all of P1): P1 shows up only after P0's records passed the merge window."""
    with open(path, "w") as f:
        f.write("-3 -901 0 0 0 0\n")
        for i in range(n):
            t = i * 1e-3
            f.write(f"-3 -21 {t:.6f} 0 0 4 2 8 1 1 0\n-4 -21 {t + 1e-4:.6f} 0 0 0\n")
        f.write(f"-4 -901 {n * 1e-3:.6f} 0 0 0\n")
        f.write("-3 -901 0 1 0 0\n")
        for i in range(n):
            t = i * 1e-3 + 5e-4
            f.write(f"-3 -52 {t:.6f} 1 0 3 2 1 0 0\n-4 -52 {t + 1e-4:.6f} 1 0 4 2 8 1 0 0\n")
        f.write(f"-4 -901 {n * 1e-3 + 1:.6f} 1 0 0\n")


@case
def paragraph_sorted_and_every_clamp_reported(tmp, problems):
    grouped_trace(os.path.join(tmp, "grouped.trf"), 40000)
    rc, out, err = run(["--stats", "--export=paragraph:g.trf", "grouped.trf"], tmp, timeout=600)
    expect(rc == 0, f"exit {rc}: {err[-500:]}", problems)
    recs = paragraph_times(os.path.join(tmp, "g.trf"))
    expect(len(recs) == 160004, f"{len(recs)} records", problems)
    times = [r[2] for r in recs]
    expect(all(a <= b for a, b in zip(times, times[1:])), "times decrease somewhere", problems)
    st = stats_of(out)
    clamped = int(st.get("export paragraph:g.trf clamped", "-1"))
    expect(clamped > 0, f"--stats does not count the clamped records: {st.get('export paragraph:g.trf clamped')}",
           problems)
    m = re.search(r"--export=paragraph:g\.trf: (\d+) records? written up to ([0-9.e+-]+) s later than their time",
                  err)
    expect(m is not None, f"no clamp message on stderr: {err[-300:]!r}", problems)
    if m:
        expect(int(m.group(1)) == clamped, f"stderr says {m.group(1)}, --stats {clamped}", problems)
        expect(float(m.group(2)) > 0, "clamp size not positive", problems)


def inorder_trace(path, n):
    """n messages P0 -> P1 from time 1 s on, the lines in time order."""
    with open(path, "w") as f:
        f.write("-3 -901 1 0 0 0\n-3 -901 1 1 0 0\n")
        for i in range(n):
            t = 1 + i * 1e-3
            f.write(f"-3 -21 {t:.6f} 0 0 4 2 8 1 1 0\n-3 -52 {t:.6f} 1 0 3 2 1 0 0\n"
                    f"-4 -21 {t + 1e-4:.6f} 0 0 0\n-4 -52 {t + 2e-4:.6f} 1 0 4 2 8 1 0 0\n")
        f.write(f"-4 -901 {1 + n * 1e-3:.6f} 0 0 0\n-4 -901 {1 + n * 1e-3:.6f} 1 0 0\n")


@case
def paje_long_run_running_at_its_time(tmp, problems):
    # more records than the merge window (65,536): the program's "running"
    # event, whose time (the earliest adjusted time) is known from the first
    # tram on, is written at that time, not clamped late at the end
    inorder_trace(os.path.join(tmp, "long.trf"), 20000)
    rc, out, err = run(["--stats", "--export=paje:long.paje", "long.trf"], tmp, timeout=600)
    expect(rc == 0, f"exit {rc}: {err[-500:]}", problems)
    times, running = [], []
    for line in open(os.path.join(tmp, "long.paje")):
        f = line.split()
        if f and f[0] in ("5", "6", "7", "8", "9", "10"):
            times.append(float(f[1]))
            if f[0] == "8" and f[-1] == '"running"':
                running.append(float(f[1]))
    expect(len(times) > 65536, f"only {len(times)} timed records: not past the merge window", problems)
    expect(running == [1.0], f"running at {running}, expected [1.0] (the run's first time)", problems)
    expect(times == sorted(times), "times decrease somewhere", problems)
    st = stats_of(out)
    expect(st.get("export paje:long.paje clamped") == "0", f"clamped: {st.get('export paje:long.paje clamped')}",
           problems)


@case
def paje_containers_in_module_order(tmp, problems):
    # P3 speaks first, then P1, P2, P0
    trace = "".join(f"-3 -901 {i * 0.1} {p} 0 0\n" for i, p in enumerate([3, 1, 2, 0]))
    trace += "".join(f"-4 -901 {1 + i * 0.1} {p} 0 0\n" for i, p in enumerate([3, 1, 2, 0]))
    open(os.path.join(tmp, "t.trf"), "w").write(trace)
    for name, args in [("picl", ["t.trf"]), ("farm", farm(tmp))]:
        rc, out, err = run([f"--export=paje:{name}.paje"] + args, tmp)
        expect(rc == 0, f"{name}: exit {rc}: {err}", problems)
        lines = open(os.path.join(tmp, f"{name}.paje")).read().splitlines()
        created = [int(l.split()[2][1:]) for l in lines if re.match(r"5 \S+ m-?\d+ CM ", l)]
        expect(created and created == sorted(created), f"{name}: containers created in the order {created}",
               problems)
        if shutil.which("pj_dump"):
            p = subprocess.run(["pj_dump", os.path.join(tmp, f"{name}.paje")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60)
            expect(p.returncode == 0, f"{name}: pj_dump: {p.stderr.decode()[:300]}", problems)


PICL_PLAIN = """-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -52 1 1 0 3 2 1 0 0
-3 -21 2 0 0 4 2 8 1 1 0
-4 -21 3 0 0 0
-4 -52 4 1 0 4 2 8 1 0 0
-4 -901 5 0 0 0
-4 -901 5 1 0 0
"""


def with_ignored_picl(text):
    """The same run with unknown events (-3 -777): one right after a receive
    end (the line whose states were decided last), one from a processor
    that has nothing else."""
    lines = text.splitlines(keepends=True)
    i = next(k for k, l in enumerate(lines) if l.startswith("-4 -52 "))
    return "".join(lines[:i + 1]) + "-3 -777 4.5 1 0 0\n" + "".join(lines[i + 1:]) + "-3 -777 6 2 0 0\n"


def with_ignored_monalisa(text):
    """An unknown tram (1 99) before each module's first, half a unit earlier,
    the module's sequence numbers (D1) renumbered."""
    out, seen = [], set()
    for line in text.splitlines():
        f = line.split()
        if not f or line.startswith("#"):
            out.append(line)
            continue
        if f[3] not in seen:
            seen.add(f[3])
            out.append(f"1 99 {float(f[2]) - 0.5:.3f} {f[3]} 0 1 2 1")
        f[7] = str(int(f[7]) + 1)
        out.append(" ".join(f))
    return "\n".join(out) + "\n"


@case
def ignored_trams_add_no_state(tmp, problems):
    # spec section 1: an unknown tram is ignored (no state effect); the
    # timeline exports of a run with ignored trams are those of the run without
    src = ARGS.source_root
    farm_text = open(f"{src}/traces/farm.trc").read()
    runs = [("picl", [], PICL_PLAIN, with_ignored_picl(PICL_PLAIN)),
            ("farm", ["--paradigm=monalisa", f"--setup={src}/setup/farm.setup"], farm_text,
             with_ignored_monalisa(farm_text))]
    for name, opts, plain, ignored in runs:
        outs = {}
        for kind, text in [("plain", plain), ("ignored", ignored)]:
            open(os.path.join(tmp, f"{name}-{kind}.trc"), "w").write(text)
            rc, out, err = run(["--stats", f"--export=paje:{name}-{kind}.paje",
                                f"--export=chrome:{name}-{kind}.json"] + opts + [f"{name}-{kind}.trc"], tmp)
            expect(rc == 0, f"{name} {kind}: exit {rc}: {err[-300:]}", problems)
            n = int(stats_of(out).get("ignored", "-1"))
            expect((n > 0) == (kind == "ignored"), f"{name} {kind}: {n} ignored", problems)
            outs[kind] = [open(os.path.join(tmp, f"{name}-{kind}.{ext}")).read() for ext in ("paje", "json")]
        for ext, a, b in zip(("paje", "json"), outs["plain"], outs["ignored"]):
            if a != b:
                diff = [f"- {x}\n+ {y}" for x, y in zip(a.splitlines(), b.splitlines()) if x != y][:3]
                problems.append(f"{name}: the ignored trams change the {ext} export:\n" + "\n".join(diff))


@case
def paragraph_leaves_clock_samples_out(tmp, problems):
    """A corrected run's ParaGraph file has no clock-synchronisation samples:
    theirs are the original clocks' readings (T2 was 10 ms off the line's own
    TIME), so replaying the export with --clock=drift corrected it a second
    time (every time of processor 1 moved by 10 ms).  Left out, counted and
    reported; the export replays as it is."""
    trace = os.path.join(tmp, "skew.trc")
    off = 0.010                       # processor 1's clock is 10 ms ahead of 0's
    lines = ["-3 -901 0 0 0 0", f"-3 -901 {off:.9f} 1 0 0"]
    for k, t in enumerate((0.001, 0.002, 0.101, 0.102)):        # samples at start and end, 20 us each way
        t1, tr, t2 = t + off, t + 20e-6, t + 40e-6 + off
        lines.append(f"-6 -951 {t2:.9f} 1 0 4 2 0 {round(t1 * 1e9)} {round(tr * 1e9)} {round(t2 * 1e9)}")
    for i in range(20):               # messages both ways, 30 us in flight
        t = 0.005 + i * 0.004
        lines += [f"-3 -21 {t:.9f} 0 0 4 2 8 1 1 0", f"-4 -21 {t + 1e-6:.9f} 0 0 0",
                  f"-3 -52 {t - 0.001 + off:.9f} 1 0 3 2 1 0 0", f"-4 -52 {t + 30e-6 + off:.9f} 1 0 4 2 8 1 0 0",
                  f"-3 -21 {t + 0.002 + off:.9f} 1 0 4 2 8 2 0 0", f"-4 -21 {t + 0.002 + 1e-6 + off:.9f} 1 0 0",
                  f"-3 -52 {t + 0.001:.9f} 0 0 3 2 2 1 0", f"-4 -52 {t + 0.002 + 30e-6:.9f} 0 0 4 2 8 2 1 0"]
    lines += ["-4 -901 0.2 0 0 0", f"-4 -901 {0.2 + off:.9f} 1 0 0"]
    with open(trace, "w") as f:
        f.write("\n".join(sorted(lines, key=lambda l: int(l.split()[3]))) + "\n")
    out = os.path.join(tmp, "skew.trf")
    rc, stdout, err = run(["--clock=drift", "--stats", f"--export=paragraph:{out}", trace], tmp)
    st = stats_of(stdout)
    recs = paragraph_times(out) if os.path.exists(out) else []
    expect(rc == 0 and recs, f"export: exit {rc} {err[-300:]!r}", problems)
    expect(not [r for r in recs if (r[0], r[1]) == (-6, -951)], "the export still has clock samples", problems)
    expect(f"--export=paragraph:{out}: 4 clock-synchronisation samples left out" in err,
           f"not reported on stderr: {err[-300:]!r}", problems)
    expect(st.get(f"export paragraph:{out} left out") == "4", f"--stats: {st.get(f'export paragraph:{out} left out')}",
           problems)
    # the export replayed with --clock=drift: its times stay where they are (within the flight time)
    rerun = os.path.join(tmp, "again.run")
    rc, _, err = run(["-q", "--clock=drift", f"--run-out={rerun}", out], tmp)
    before = {}
    for r in recs:
        before.setdefault(r[3], []).append(r[2])
    after = {}
    for r in (paragraph_times(rerun) if rc == 0 else []):
        after.setdefault(r[3], []).append(r[2])
    moved = max((abs(a - b) for p in before for a, b in zip(before[p], after.get(p, []))), default=None)
    expect(rc == 0 and moved is not None and moved < 1e-4,
           f"the export replayed with --clock=drift moved times by {moved} s (exit {rc} {err[-200:]!r})", problems)


KILLED_TRACE = """\
# rank 1 dies at 0.3 ms; ranks 0 and 2 wait for it in a receive until the job is killed at 1 s
-3 -901 0 0 0 0
-3 -21 0.0001 0 0 4 2 4 1 1 0
-4 -21 0.0002 0 0 0
-3 -52 0.0002 0 0 3 2 99 1 0
-4 -901 1.0 0 0 0
-3 -901 0 1 0 0
-3 -52 0.0001 1 0 3 2 1 0 0
-4 -52 0.0003 1 0 4 2 4 1 0 0
-4 -901 0.0003 1 0 0
-3 -901 0 2 0 0
-3 -52 0.0002 2 0 3 2 99 1 0
-4 -901 1.001 2 0 0
"""


@case
def timeline_lasts_as_long_as_the_run(tmp, problems):
    """A job killed while two ranks waited in a receive: their idle states
    last until their last tram (1 s), as in the space-time view and
    --state-out's clock.  The Pajé and Chrome timelines ended at the last
    state change instead (0.3 ms): the hang, a second long, was 0.1 ms."""
    trace = os.path.join(tmp, "killed.trc")
    with open(trace, "w") as f:
        f.write(KILLED_TRACE)
    rc, out, err = run(["--state-out=state.json", "--export=chrome:k.json", "--export=paje:k.paje", trace], tmp)
    expect(rc == 0, f"exit {rc}: {err[-300:]}", problems)
    clock = json.load(open(os.path.join(tmp, "state.json")))["clock"]
    expect(abs(clock - 1.001) < 1e-9, f"--state-out clock {clock}, want 1.001", problems)
    evs = chrome_ts(os.path.join(tmp, "k.json"))
    idle = {e["tid"]: e for e in evs if e["ph"] == "X" and e["name"] == "idle"}
    for tid in (0, 2):
        e = idle.get(tid)
        end = (e["ts"] + e["dur"]) / 1e6 if e else None
        expect(end is not None and abs(end - 1.001) < 1e-9,
               f"chrome: processor {tid}'s idle state ends at {end} s, want the run's end 1.001 s", problems)
    text = open(os.path.join(tmp, "k.paje")).read()
    ends = [float(line.split()[1]) for line in text.splitlines() if line.startswith("6 ")]
    expect(ends and all(abs(t - 1.001) < 1e-9 for t in ends),
           f"paje: containers destroyed at {ends}, want the run's end 1.001 s", problems)
    if shutil.which("pj_dump"):
        p = subprocess.run(["pj_dump", os.path.join(tmp, "k.paje")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        states = [l.split(", ") for l in p.stdout.decode().splitlines() if l.startswith("State")]
        last = {s[1]: (float(s[4]), s[7]) for s in states}
        expect(last.get("processor 0", (None,))[0] is not None and abs(last["processor 0"][0] - 1.001) < 1e-6
               and last["processor 0"][1] == "idle", f"pj_dump: processor 0's last state {last.get('processor 0')}",
               problems)


def timeless_defs_trace(def_time, base):
    """Two processors whose clocks read BASE + 0.5 .. BASE + 0.91 s, and the
    definition of the subset their barrier uses dated DEF_TIME (PROC -1)."""
    return "\n".join([
        f"-202 -812 {def_time} -1 -1 3 2 5 0 1",
        f"-3 -901 {base}.5 0 0 0", f"-3 -21 {base}.6 0 0 4 2 8 1 1 0", f"-4 -21 {base}.61 0 0 0",
        f"-3 -402 {base}.7 0 0 1 2 5", f"-4 -402 {base}.8 0 0 0", f"-4 -901 {base}.9 0 0 0",
        f"-3 -901 {base}.55 1 0 0", f"-3 -52 {base}.56 1 0 3 2 1 0 0", f"-4 -52 {base}.65 1 0 4 2 8 1 0 0",
        f"-3 -402 {base}.71 1 0 1 2 5", f"-4 -402 {base}.81 1 0 0", f"-4 -901 {base}.91 1 0 0", ""])


@case
def definitions_do_not_stretch_the_run(tmp, problems):
    """Real writers date the subset definitions (PROC -1) 0 while the
    processors' clocks read epoch seconds.  A definition carries no
    processor's time: the run still begins at the processors' first tram and
    ends at their last, in every export, in --state-out's clock, and with no
    shift; --run-out keeps the definition's own time.  Before, "running" and
    the Pajé containers sat at 0 (or the run was shifted by 1e6 s for a
    definition dated -1e6), and a definition dated 1e9 kept the timeline open
    until then."""
    for name, def_time, base in [("epoch", "0.0", 1732780800), ("early", "-1e6", 1), ("late", "1e9", 1)]:
        first, last = float(f"{base}.5"), float(f"{base}.91")
        open(os.path.join(tmp, name + ".trf"), "w").write(timeless_defs_trace(def_time, base))
        rc, out, err = run(["--stats", "--state-out=s.json", "--run-out=run.trf", "--export=paje:p.paje",
                            "--export=chrome:c.json", "--export=paragraph:g.trf", name + ".trf"], tmp)
        expect(rc == 0, f"{name}: exit {rc}: {err[-300:]}", problems)
        expect("shifted" not in err, f"{name}: shifted: {err!r}", problems)
        st = stats_of(out)
        for spec in ("paje:p.paje", "chrome:c.json", "paragraph:g.trf"):
            expect(st.get(f"export {spec} shift") == "0", f"{name}: {spec} shift {st.get(f'export {spec} shift')}",
                   problems)
        clock = json.load(open(os.path.join(tmp, "s.json")))["clock"]
        expect(clock == last, f"{name}: --state-out clock {clock}, want {last}", problems)
        runout = open(os.path.join(tmp, "run.trf")).read().splitlines()
        expect(float(runout[0].split()[2]) == float(def_time) and runout[0].startswith("-202 -812 "),
               f"{name}: --run-out's first line {runout[:1]}, want the definition at {def_time}", problems)
        paje = [l.split() for l in open(os.path.join(tmp, "p.paje")).read().splitlines()
                if l and l[0] in "56789" and not l.startswith("%")]
        times = [float(l[1]) for l in paje]
        expect(min(times) == first and max(times) == last,
               f"{name}: paje times {min(times)} .. {max(times)}, want {first} .. {last}", problems)
        running = [float(l[1]) for l in paje if l[0] == "8" and l[-1] == '"running"']
        expect(running == [first], f"{name}: paje \"running\" at {running}, want [{first}]", problems)
        ts = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in chrome_ts(os.path.join(tmp, "c.json"))]
        lo, hi = min(t[0] for t in ts) / 1e6, max(t[1] for t in ts) / 1e6
        expect(abs(lo - first) <= 1e-14 * first and abs(hi - last) <= 1e-14 * last,
               f"{name}: chrome times {lo} .. {hi} s, want {first} .. {last}", problems)
        recs = paragraph_times(os.path.join(tmp, "g.trf"))
        kinds = [(r[0], r[1]) for r in recs]
        uses = [i for i, k in enumerate(kinds) if k[1] == -402]
        defs = [i for i, k in enumerate(kinds) if k == (-202, -812)]
        expect(defs and uses and max(defs) < min(uses),
               f"{name}: paragraph records {kinds[:3]}: the definition must come before its first use", problems)
        ptimes = [r[2] for r in recs]
        expect(min(ptimes) == first and max(ptimes) == last,
               f"{name}: paragraph times {min(ptimes)} .. {max(ptimes)}, want {first} .. {last}", problems)


# Module and variable names come from the setup file as bytes: UTF-8 ("Café",
# "Wärme"), a quote and a backslash, and a Latin-1 byte that is not UTF-8.
NAMES_SETUP = (b"MODULES:\n2\nGROUPS:\n0\nDEFINITION TABLE:\n"
               b"a.A  Caf\xc3\xa9  0\n"
               b"a.B  B\"\\\xe9  1\n"
               b"- # all_modules # 2\n"
               b"#ATTRIBUTES for module Caf\xc3\xa9#\nW\xc3\xa4rme 0 INTEGER(1)\n"
               b"#ATTRIBUTES for module B\"\\\xe9#\nY 0 INTEGER(1)\n")
NAMES_TRACE = """\
1 10 0 0 0 1 2 1
1 10 0 1 0 1 2 1
1 13 1 0 0 2 2 2 0
2 14 2 1 0 3 2 2 0 0
4 14 3 0 1 3 2 3 1 0
5 15 4 0 1 3 2 4 1 0
4 15 5 1 1 3 2 3 0 0
3 14 6 1 0 3 2 4 0 0
1 11 7 0 0 1 2 5
1 11 7 1 0 1 2 5
"""


@case
def names_leave_json_valid(tmp, problems):
    open(os.path.join(tmp, "n.setup"), "wb").write(NAMES_SETUP)
    open(os.path.join(tmp, "n.trc"), "w").write(NAMES_TRACE)
    rc, out, err = run(["--paradigm=monalisa", "--setup=n.setup", "n.trc", "--export=chrome:n.json",
                        "--state-out=s.json"], tmp)
    expect(rc == 0, f"exit {rc}: {err[-300:]}", problems)
    docs = {}
    for name in ("n.json", "s.json"):
        try:
            # strict: the bytes must be UTF-8 and the escapes JSON's (no \303)
            docs[name] = json.loads(open(os.path.join(tmp, name), "rb").read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            problems.append(f"{name} is not valid JSON: {e}")
    if "n.json" in docs:
        names = {e["args"]["name"] for e in docs["n.json"]["traceEvents"] if e.get("name") == "thread_name"}
        expect(names == {"Café", "B\"\\\ufffd"}, f"Chrome thread names {names}", problems)
        events = {e["name"] for e in docs["n.json"]["traceEvents"] if e.get("cat") == "event"}
        expect("expose Wärme" in events, f"Chrome events {events}", problems)
    if "s.json" in docs:
        names = [m["name"] for m in docs["s.json"]["modules"]]
        expect(names == ["Café", "B\"\\\ufffd"], f"--state-out module names {names}", problems)


PINGPONG_HUGE = ("-3 -21 1e300 0 0 4 2 8 0 1 0\n-4 -21 1e300 0 0 0\n-3 -52 -1e300 1 0 3 2 0 0 0\n"
                 "-4 -52 -1e300 1 0 4 2 8 0 0 0\n-3 -21 1e300 1 0 4 2 8 0 0 0\n-4 -21 1e300 1 0 0\n"
                 "-3 -52 -1e300 0 0 3 2 0 1 0\n-4 -52 -1e300 0 0 4 2 8 0 1 0\n")


@case
def chrome_out_of_range_counted(tmp, problems):
    """Adjusted times beyond ~1.8e302 s overflow in microseconds (spec section 5:
    a clamp is counted and reported, never silent)."""
    open(os.path.join(tmp, "pp.trc"), "w").write(PINGPONG_HUGE * 50)
    rc, out, err = run(["--decay=1", "--stats", "--export=chrome:x.json", "pp.trc"], tmp)
    expect(rc == 0, f"exit {rc}: {err[-300:]}", problems)
    expect("CRITICAL" not in err, f"stderr: {err[:300]!r}", problems)
    doc = json.load(open(os.path.join(tmp, "x.json")))
    big = [e for e in doc["traceEvents"]
           if abs(e.get("ts", 0)) == sys.float_info.max or abs(e.get("dur", 0)) == sys.float_info.max]
    clamped = int(stats_of(out).get("export chrome:x.json clamped", "-1"))
    expect(big and clamped == len(big), f"{len(big)} events at +-DBL_MAX, --stats clamped {clamped}", problems)
    m = re.search(r"--export=chrome:x.json: (\d+) events? with a time or duration beyond", err)
    expect(m is not None and int(m.group(1)) == clamped, f"stderr: {err[-300:]!r}", problems)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", required=True)
    ARGS = ap.parse_args()
    ARGS.viper_replay = os.path.abspath(ARGS.viper_replay)
    for fn in [paragraph_in_seconds_from_milliseconds, paragraph_no_negative_time_shift_reported,
               chrome_no_negative_timestamp, subset_definition_before_first_use,
               paragraph_sorted_and_every_clamp_reported, paje_containers_in_module_order,
               paje_long_run_running_at_its_time, ignored_trams_add_no_state, paragraph_leaves_clock_samples_out,
               timeline_lasts_as_long_as_the_run, names_leave_json_valid, chrome_out_of_range_counted,
               definitions_do_not_stretch_the_run]:
        fn()
    failed = [n for n, p in RESULTS if p]
    print(f"{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
