#!/usr/bin/env python3
"""bench-clock: cost and accuracy of --clock=decay|drift|clc (issue 15).

Generates a scrambled PICL trace of about 1,000,000 lines over 64 processors
(offsets up to +-50 ms, drift up to +-1000 ppm) with clock-truth-gen, replays
it with viper-replay in each clock mode (--run-out to a file), and prints per
mode: wall and CPU time, trams/s of CPU, peak RSS (the replay with
--state-out only), and the time-stamp error (a second replay with --run-out) against the true
times (median, max) next to the raw stamps' error.  Prints, asserts nothing.

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
        runs, costs = {}, {}
        for mode in ('decay', 'drift', 'clc'):
            out, st = os.path.join(d, mode + '.out'), os.path.join(d, mode + '.json')
            # the cost: the replay with its state at the end, no per-tram output
            costs[mode] = run([replay, '-q', '--clock=' + mode, '--state-out', st, trace])
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
            print(f'{mode:5}: wall {secs:5.2f} s, CPU {cpu:5.2f} s = {lines / cpu / 1e6:4.2f} M trams/s of CPU, '
                  f'peak RSS {rss / 1024:5.1f} MiB; error median {s["median"] * 1e3:7.4f} ms max '
                  f'{s["max"] * 1e3:7.4f} ms (raw {s["raw_median"] * 1e3:.3f} / {s["raw_max"] * 1e3:.3f} ms); '
                  f'violations {bad}/{n}; repaired {state.get("violations_repaired", "-")}')
        print('(cost: --state-out only, CPU = user + system of the replay; errors: with --run-out; '
              'the machine load shows in the CPU/wall ratio)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
