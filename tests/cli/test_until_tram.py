#!/usr/bin/env python3
"""viper-replay --until-tram=PROC:SEQ|FILE:LINE: stop right after one tram.

For a Mona Lisa trace (explicit sequence numbers, D1) and a native PICL trace
(implicit ones: a PROC's lines in file order), the tram a --steps=N stop ends
on (the last line of its --run-out) is named by PROC:SEQ, by FILE:LINE with
the trace's base name and with its path; each --until-tram stop must write
the same --state-out and --run-out as --steps=N, with the same exit status.
Malformed values are usage errors (status 2) that name the option; a tram
that never comes ends the replay at the end with a line that says so and the
end's status (0 when it is not in the input, 3 when trams are pending, as
spec/picl.md section 5 has it); --help lists the option.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok -", what)
    else:
        failed += 1
        print("not ok -", what)


def replay(args, base, extra, tmp):
    so, ro = os.path.join(tmp, "state.json"), os.path.join(tmp, "run.out")
    for p in (so, ro):
        if os.path.exists(p):
            os.unlink(p)
    r = subprocess.run([args.viper_replay, "--quiet", "--state-out=" + so, "--run-out=" + ro] + base + extra,
                       capture_output=True, text=True, timeout=120)
    state = json.load(open(so)) if os.path.exists(so) and os.path.getsize(so) else None
    run = open(ro).read().splitlines() if os.path.exists(ro) else []
    return r, state, run


def tram_lines(trace):
    """(line number, fields) of every tram line of a trace."""
    out = []
    with open(trace) as f:
        for no, line in enumerate(f, 1):
            s = line.strip()
            if s and not s.startswith("#"):
                out.append((no, s.split()))
    return out


def names_of_last(run, trace, explicit_seq):
    """PROC:SEQ and FILE:LINE of the last tram of a --run-out."""
    last = run[-1].split()
    proc = last[3]
    if explicit_seq:
        seq = int(last[7])
    else:
        seq = sum(1 for l in run if l.split()[3] == proc)
    k = 0
    for no, fields in tram_lines(trace):
        if fields[3] == proc:
            k += int(fields[7]) == seq if explicit_seq else 1
            if (explicit_seq and int(fields[7]) == seq) or (not explicit_seq and k == seq):
                return "%s:%d" % (proc, seq), no
    return "%s:%d" % (proc, seq), None


MARK_BLUE = "#1A4DE6"   # (0.1, 0.3, 0.9): the breakpoint's and the tram mark's blue


def blue_pixels(png):
    """Pixels within a fuzz of the marker blue (None without ImageMagick)."""
    try:
        r = subprocess.run(["convert", png, "-fuzz", "12%", "-fill", "black", "+opaque", MARK_BLUE, "-fill", "white",
                            "-opaque", MARK_BLUE, "-format", "%[fx:round(mean*w*h)]", "info:"],
                           capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        return None
    return int(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip().isdigit() else None


def tram_mark(args, name, base, v, steps, tmp):
    """--render=spacetime at --until-tram=v rings the tram; at --steps=N (the same state) nothing does."""
    pngs = []
    for extra in (["--until-tram=" + v], ["--steps=%d" % steps]):
        png = os.path.join(tmp, "st-%d.png" % len(pngs))
        r = subprocess.run([args.viper_replay, "--quiet", "--history=0", "--render=spacetime:" + png] + base + extra,
                           capture_output=True, text=True, timeout=120)
        check(r.returncode in (0, 3) and os.path.getsize(png) > 0, "%s: %s renders (%r)" % (name, extra[0], r.stderr))
        pngs.append(blue_pixels(png))
    if None in pngs:
        print("# ImageMagick's convert is missing: the tram mark is not looked at")
        return
    check(pngs[0] >= pngs[1] + 40, "%s: the space-time view at --until-tram=%s rings the tram (%d marker-blue "
          "pixels, %d at --steps=%d)" % (name, v, pngs[0], pngs[1], steps))


def same_stop(args, name, base, trace, explicit_seq, steps, tmp):
    r0, s0, run0 = replay(args, base, ["--steps=%d" % steps], tmp)
    check(r0.returncode in (0, 3) and s0 and run0, "%s: --steps=%d stops (%d)" % (name, steps, r0.returncode))
    if not run0:
        return
    ps, line = names_of_last(run0, trace, explicit_seq)
    check(line is not None, "%s: the tram of step %d (%s) is in the file" % (name, steps, ps))
    for v in (ps, "%s:%s" % (os.path.basename(trace), line), "%s:%s" % (trace, line)):
        r, s, run = replay(args, base, ["--until-tram=" + v], tmp)
        check(r.returncode == r0.returncode and r.stderr == r0.stderr,
              "%s: --until-tram=%s exits as --steps=%d (%d, %r)" % (name, v, steps, r.returncode, r.stderr[-300:]))
        check(s == s0, "%s: --until-tram=%s: the state of --steps=%d" % (name, v, steps))
        check(run == run0, "%s: --until-tram=%s: the run of --steps=%d (%d vs %d trams)"
              % (name, v, steps, len(run), len(run0)))
    tram_mark(args, name, base, ps, steps, tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--picl-gen", required=True)
    ap.add_argument("--source-root", required=True)
    args = ap.parse_args()
    src = args.source_root
    with tempfile.TemporaryDirectory(prefix="viper-until-tram-") as tmp:
        farm = os.path.join(src, "traces", "farm.trc")
        fbase = ["--paradigm=monalisa", "--setup=" + os.path.join(src, "setup", "farm.setup"), farm]
        for n in (1, 17, 60):
            same_stop(args, "monalisa farm", fbase, farm, True, n, tmp)
        p = os.path.join(tmp, "gen.trc")
        subprocess.run([args.picl_gen, "--procs=5", "--messages=80", "--seed=4", "--collectives=2", "--barriers=1",
                        "--output=" + p], check=True, timeout=60)
        pbase = ["--paradigm=picl", p]
        for n in (3, 40, 150):
            same_stop(args, "picl gen", pbase, p, False, n, tmp)

        # malformed: usage errors that name the option and the value
        for v in ("2", "2:", ":5", "2:0", "2:x", "2:-1", "farm.trc:0", "farm.trc:x", "farm.trc:99999999999"):
            r = subprocess.run([args.viper_replay, "--until-tram=" + v] + fbase[:2] + [farm],
                               capture_output=True, text=True, timeout=60)
            first = r.stderr.splitlines()[0] if r.stderr else ""
            check(r.returncode == 2 and first.startswith("viper-replay: --until-tram: '%s'" % v)
                  and r.stdout == "", "--until-tram=%s is a usage error (%d: %s)" % (v, r.returncode, first))

        # never comes: not in the input
        r_end, s_end, _ = replay(args, fbase, [], tmp)
        for v in ("99:1", "2:100000", "farm.trc:100000"):
            r, s, _ = replay(args, fbase, ["--until-tram=" + v], tmp)
            # the end with nothing pending is status 0 (spec/picl.md 5); the message says the tram never came
            check(r.returncode == 0 and re.search(r"^viper-replay: --until-tram=%s: the replay ended before .* was "
                                                  r"transferred \(nothing is pending" % re.escape(v), r.stderr, re.M),
                  "--until-tram=%s: never comes, said, status 0 (%d, %r)" % (v, r.returncode, r.stderr))
            check(s == s_end, "--until-tram=%s: the state is the end's" % v)
        # a FILE that names none of the traces: said at once, a usage error
        for v in ("other.trc:3", "./other/farm.trc:3"):
            r = subprocess.run([args.viper_replay, "--until-tram=" + v] + fbase, capture_output=True, text=True,
                               timeout=60)
            check(r.returncode == 2 and r.stderr.startswith("viper-replay: --until-tram=%s: %s names none of the "
                                                            "traces (%s)" % (v, v.rsplit(":", 1)[0], farm)),
                  "--until-tram=%s: names no trace, a usage error (%d, %r)" % (v, r.returncode, r.stderr[:200]))
        # the same trace named another way: ./3 for 3 (the man page's advice for
        # a file named by digits), an absolute path for a relative one, a/../,
        # a symbolic link; each stops where FILE:LINE with the name as given does
        digits = os.path.join(tmp, "3")
        with open(farm) as f, open(digits, "w") as out:
            out.write(f.read())
        os.symlink("3", os.path.join(tmp, "link.trc"))
        os.makedirs(os.path.join(tmp, "sub"), exist_ok=True)
        dbase = fbase[:2] + ["3"]
        def run_in_tmp(extra):
            so = os.path.join(tmp, "dstate.json")
            r = subprocess.run([os.path.abspath(args.viper_replay), "--quiet", "--state-out=" + so] + dbase + extra, cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            return r, json.load(open(so)) if os.path.exists(so) and os.path.getsize(so) else None
        r, state_line = run_in_tmp(["--until-tram=./3:20"])
        check(r.returncode == 0 and "ended before" not in r.stderr and state_line is not None,
              "--until-tram=./3:20 on a trace named 3 stops (%d, %r)" % (r.returncode, r.stderr[-200:]))
        for v in (os.path.join(tmp, "3") + ":20", "sub/../3:20", "link.trc:20"):
            r, s = run_in_tmp(["--until-tram=" + v])
            check(r.returncode == 0 and "ended before" not in r.stderr and s == state_line and s is not None
                  and s["counts"]["transferred"] < s_end["counts"]["transferred"],
                  "--until-tram=%s stops where ./3:20 does, before the end (%d, %r)" % (v, r.returncode, r.stderr[-200:]))
        # never comes: pending at the end (its module's seq 3 is missing), listed as such
        gap = os.path.join(tmp, "gap.trc")
        with open(farm) as f, open(gap, "w") as out:
            for line in f:
                w = line.split()
                if not (len(w) > 7 and w[3] == "2" and w[7] == "3"):
                    out.write(line)
        gbase = fbase[:2] + [gap]
        r2, s2, _ = replay(args, gbase, ["--until-tram=2:5"], tmp)
        check(r2.returncode == 3 and "the replay ended before seq 5 of proc 2 was transferred (it may be among the "
              "trams pending)" in r2.stderr and "trams still pending at the end" in r2.stderr
              and "seq 3 of proc 2" in r2.stderr,
              "--until-tram=2:5 behind a missing seq 3: status 3, the pending list (%r)" % r2.stderr)
        check(s2 is not None and s2["counts"]["pending"] > 0, "--until-tram=2:5: the state at the end, trams pending")

        h = subprocess.run([args.viper_replay, "--help"], capture_output=True, text=True, timeout=60)
        check("--until-tram=TRAM" in h.stdout and "--until-tram tram" in h.stdout, "--help lists --until-tram")
    print("1..%d" % (passed + failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
