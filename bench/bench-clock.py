#!/usr/bin/env python3
"""bench-clock: cost and accuracy of --clock=decay|drift|clc (issue 15).

Generates a scrambled PICL trace of about 1,000,000 lines over 64 processors
(offsets up to +-50 ms, drift up to +-1000 ppm) with clock-truth-gen, replays
it with viper-replay in each clock mode (--run-out to a file), and prints per
mode: wall and CPU time (best of 3, and the median), trams/s of CPU, peak RSS
(the replay with --state-out only), the memory the analysis kept (--stats'
"clock bytes" and "clock kept"), and the time-stamp error (a second replay with
--run-out) against the true times (median, max) next to the raw stamps' error.
Prints the load average before and after; asserts nothing.

  bench-clock.py VIPER_REPLAY CLOCK_TRUTH_GEN [MESSAGES]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'clock'))
import clock_eval as ce  # noqa: E402


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, err


def main():
    replay, gen = sys.argv[1], sys.argv[2]
    messages = int(sys.argv[3]) if len(sys.argv) > 3 else 185000
    with tempfile.TemporaryDirectory() as d:
        trace, tt, msgs = (os.path.join(d, x) for x in ('b.trc', 'true.txt', 'msgs.json'))
        subprocess.run([gen, '-P', '64', '-M', str(messages), '-s', '11', trace, tt, msgs], check=True)
        with open(trace) as f:
            lines = sum(1 for _ in f)
        print(f'trace: {lines} lines, 64 processors, offsets +-50 ms, drift +-1000 ppm, shuffled')
        # replay first: a child forked from a Python holding the trace in
        # memory would report Python's resident set as its peak
        runs, costs, cpus, kept = {}, {}, {}, {}
        print('load average before: %.2f %.2f %.2f' % os.getloadavg())
        for rep in range(3):
            for mode in ('decay', 'drift', 'clc'):
                st = os.path.join(d, mode + '.json')
                # the cost: the replay with its state at the end, no per-tram output
                c = run([replay, '-q', '--clock=' + mode, '--state-out', st, trace])
                cpus.setdefault(mode, []).append(c[1])
                if mode not in costs or c[1] < costs[mode][1]:
                    costs[mode] = c
        print('load average after the cost runs: %.2f %.2f %.2f' % os.getloadavg())
        for mode in ('drift', 'clc'):
            p = subprocess.run([replay, '-q', '--stats', '--clock=' + mode, trace], capture_output=True, text=True)
            kept[mode] = '; '.join(x for x in p.stdout.splitlines() if x.startswith(('clock bytes', 'clock kept')))
        for mode in ('decay', 'drift', 'clc'):
            out, st = os.path.join(d, mode + '.out'), os.path.join(d, mode + '.json')
            # the accuracy: the same with the run written out
            runs[mode] = run([replay, '-q', '--clock=' + mode, '--run-out', out, '--state-out', st, trace])
        raw = ce.per_proc(trace)
        true = ce.true_per_proc(trace, tt)
        for mode in ('decay', 'drift', 'clc'):
            out, st = os.path.join(d, mode + '.out'), os.path.join(d, mode + '.json')
            _, _, _, rc, err = runs[mode]
            secs, cpu, rss, rc2, _ = costs[mode]
            rc = rc or rc2
            if rc != 0:
                print(f'{mode}: viper-replay failed ({rc}): {err[:300]}')
                continue
            with open(st) as f:
                state = json.load(f)
            ref = state.get('clock_sync', {}).get('reference', 0)
            er, eo = ce.errors(raw, true, ce.per_proc(out), ref)
            s = ce.summary(er, eo)
            bad, n = ce.picl_violations(msgs, trace, ce.per_proc(out))
            med = sorted(cpus[mode])[len(cpus[mode]) // 2]
            print(f'{mode:5}: wall {secs:5.2f} s, CPU {cpu:5.2f} s (median {med:5.2f}) = {lines / cpu / 1e6:4.2f} '
                  f'M trams/s of CPU (median {lines / med / 1e6:4.2f}), '
                  f'peak RSS {rss / 1024:5.1f} MiB; error median {s["median"] * 1e3:7.4f} ms max '
                  f'{s["max"] * 1e3:7.4f} ms (raw {s["raw_median"] * 1e3:.3f} / {s["raw_max"] * 1e3:.3f} ms); '
                  f'violations {bad}/{n}; repaired {state.get("violations_repaired", "-")}')
            if mode in kept:
                print(f'       {kept[mode]}')
        print('(cost: --state-out only, CPU = user + system of the replay; errors: with --run-out; '
              'the machine load shows in the CPU/wall ratio)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
