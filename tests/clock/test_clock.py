#!/usr/bin/env python3
"""--clock=drift|clc against traces with known true times (issue 15).

PICL: clock-truth-gen (8, 32, 64 processors, offsets up to +-50 ms, drift up
to +-1000 ppm, shuffled delivery).  Mona Lisa: viper-monalisa-sim and its
--emit-true-time twin (the same run), request/reply pairs.  Asserts the
issue's goals: drift cuts the median error at least 20 times and at least
halves the maximum, with no message received before it was sent; clc leaves
no violation, never exceeds the raw maximum, and changes no interval of a
module by more than the correction it needed; decay output has no clock
fields (unchanged).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clock_eval as ce  # noqa: E402

B = os.environ.get('VIPER_BUILD_ROOT', 'build')
REPLAY = os.path.join(B, 'cli', 'viper-replay')
GEN = os.path.join(B, 'tests', 'clock', 'clock-truth-gen')
SIM = os.path.join(B, 'paradigms', 'monalisa', 'sim', 'viper-monalisa-sim')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def replay(d, mode, trace, extra=()):
    out, st = os.path.join(d, mode + '.out'), os.path.join(d, mode + '.json')
    r = subprocess.run([REPLAY, '-q', '--clock=' + mode, '--run-out', out, '--state-out', st, *extra, trace],
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, f'{mode}: viper-replay exit 0 ({r.stderr.strip()[:200]})')
    with open(st) as f:
        return ce.per_proc(out), json.load(f)


def intervals_ok(raw, out, state):
    """clc: every tram moved later than its drift-corrected time, never
    earlier, and each interval changed by at most the larger correction of
    its two ends."""
    mods = {m['id']: m for m in state['clock_sync']['modules']}
    worst = 0.0
    for p, lines in raw.items():
        if p < 0 or p not in mods:
            continue
        a, b = mods[p]['clock_offset'], 1 + mods[p]['clock_drift_ppm'] / 1e6
        base = [a + b * t for t, _ in lines]
        fin = [t for t, _ in out[p]]
        c = [f - g for f, g in zip(fin, base)]
        eps = 1e-9 * max(1.0, max(abs(x) for x in base))
        for i, ci in enumerate(c):
            if ci < -eps:
                return False, f'proc {p} tram {i} moved earlier by {-ci}'
            if i and abs(ci - c[i - 1]) > max(ci, c[i - 1]) + eps:
                return False, f'proc {p} interval {i} changed by {ci - c[i - 1]}'
            if i and fin[i] < fin[i - 1]:
                return False, f'proc {p} order lost at {i}'
            worst = max(worst, ci)
    return True, f'largest correction {worst:.3g}'


def picl_case(d, procs, messages, seed):
    trace, tt, msgs = (os.path.join(d, x) for x in ('t.trc', 'true.txt', 'msgs.json'))
    subprocess.run([GEN, '-P', str(procs), '-M', str(messages), '-s', str(seed), trace, tt, msgs], check=True)
    raw = ce.per_proc(trace)
    true = ce.true_per_proc(trace, tt)
    rawbad, n = ce.picl_violations(msgs, trace, raw)
    check(rawbad > 0, f'picl P={procs}: the raw stamps have violations ({rawbad} of {n})')

    out, st = replay(d, 'decay', trace)
    check('clock_sync' not in st and 'violations_repaired' not in st
          and not any('clock_offset' in m for m in st['modules']), f'picl P={procs}: decay state has no clock fields')

    out, st = replay(d, 'drift', trace)
    er, eo = ce.errors(raw, true, out, st['clock_sync']['reference'])
    s = ce.summary(er, eo)
    print(f'  drift P={procs}: raw median {s["raw_median"]*1e3:.3f} ms max {s["raw_max"]*1e3:.3f} ms; '
          f'median {s["median"]*1e3:.4f} ms max {s["max"]*1e3:.4f} ms; repaired {st["violations_repaired"]}')
    check(s['median'] * 20 <= s['raw_median'], f'picl P={procs} drift: median error 20x below raw')
    check(s['max'] <= s['raw_max'] / 2, f'picl P={procs} drift: max error at most half the raw max')
    check(ce.picl_violations(msgs, trace, out)[0] == 0, f'picl P={procs} drift: 0 violations')
    mods = st['clock_sync']['modules']
    check(len([m for m in mods if m['id'] >= 0]) == procs and all('clock_offset' in m and 'clock_drift_ppm' in m
                                                                   for m in mods),
          f'picl P={procs}: state-out has offset and drift per processor')
    cs = {m['id']: m for m in mods}
    check(all(m.get('clock_offset') == cs[m['id']]['clock_offset']
              and m.get('clock_drift_ppm') == cs[m['id']]['clock_drift_ppm'] and 'violations_repaired' in m
              for m in st['modules']),
          f'picl P={procs}: each module object carries its clock_offset, clock_drift_ppm, violations_repaired')
    check(st['clock_sync']['violations_raw'] == rawbad, f'picl P={procs}: raw violations counted ({rawbad})')

    out, st = replay(d, 'clc', trace)
    er, eo = ce.errors(raw, true, out, st['clock_sync']['reference'])
    s = ce.summary(er, eo)
    print(f'  clc P={procs}: median {s["median"]*1e3:.4f} ms max {s["max"]*1e3:.4f} ms')
    check(ce.picl_violations(msgs, trace, out)[0] == 0, f'picl P={procs} clc: 0 violations')
    check(s['max'] <= s['raw_max'], f'picl P={procs} clc: max error at most the raw max')
    ok, why = intervals_ok(raw, out, st)
    check(ok, f'picl P={procs} clc: intervals changed by no more than their correction ({why})')


def sync_case(d):
    """-6 -951 samples at start and end: every processor's map comes from
    them, and on a short trace they beat the messages alone."""
    maxes = {}
    for sync in (0, 3):
        trace, tt, msgs = (os.path.join(d, x) for x in ('s.trc', 's.txt', 's.json'))
        subprocess.run([GEN, '-P', '8', '-M', '400', '-s', '3', '--sync', str(sync), trace, tt, msgs], check=True)
        raw, true = ce.per_proc(trace), ce.true_per_proc(trace, tt)
        out, st = replay(d, 'drift', trace)
        cs = st['clock_sync']
        er, eo = ce.errors(raw, true, out, cs['reference'])
        s = ce.summary(er, eo)
        maxes[sync] = s['max']
        print(f'  sync={sync}: samples {cs["samples"]}, median {s["median"]*1e3:.4f} ms max {s["max"]*1e3:.4f} ms')
        if sync:
            check(cs['samples'] == 7 * 2 * sync, f'sync: {cs["samples"]} samples read (7 processors x {2 * sync})')
            check(all(m['from_sync'] for m in cs['modules'] if m['id'] > 0), 'sync: every map comes from the samples')
            check(s['median'] * 20 <= s['raw_median'] and s['max'] <= s['raw_max'] / 2, 'sync: drift goals met')
    check(maxes[3] < maxes[0], f'sync: samples give a smaller max error ({maxes[3]:.3g} < {maxes[0]:.3g})')


def clustered_trace(d, extra=()):
    """Three processors with samples only at the start (a rank that died
    before MPI_Finalize writes its Init samples only): processor 1's clock =
    0's + 2 ms, 2's = 0's - 3 ms, no drift, 30 to 60 us each way (the same
    both ways on average)."""
    trace = os.path.join(d, 'cl.trc')
    lines = ['-3 -901 0.0 0 0 0', '-3 -901 0.0 1 0 0', '-3 -901 0.0 2 0 0']
    for i, (out, back) in enumerate(((30e-6, 60e-6), (55e-6, 35e-6), (40e-6, 50e-6), (60e-6, 40e-6))):
        t1 = 0.001 + i * 100e-6
        for p, off in ((1, 0.002), (2, -0.003)):
            t2 = t1 + out + back
            lines.append('-6 -951 %.9f %d 0 4 2 0 %d %d %d' % (t2 + off, p, round((t1 + off) * 1e9),
                                                               round((t1 + out) * 1e9), round((t2 + off) * 1e9)))
    lines += list(extra) + ['-4 -901 1.0 0 0 0', '-4 -901 1.002 1 0 0', '-4 -901 0.997 2 0 0']
    with open(trace, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    r = subprocess.run([REPLAY, '--clock=drift', '--state-out', os.path.join(d, 'cl.json'), trace],
                       capture_output=True, text=True, timeout=60)
    with open(os.path.join(d, 'cl.json')) as f:
        cs = json.load(f)['clock_sync']
    return trace, r, cs


def clustered_sync_case(d):
    """Samples close together leave the slope free both ways: the map must
    keep drift 0, not a slope at the search limit (it was +50,000 ppm, 50 ms
    off after one second)."""
    trace, r, cs = clustered_trace(d)
    mods = {m['id']: m for m in cs['modules']}
    check(r.returncode == 0 and cs['reference'] == 0, f'clustered: replay ok, reference 0 ({r.returncode}, {cs["reference"]})')
    for p, off in ((1, -0.002), (2, 0.003)):
        m = mods[p]
        check(abs(m['clock_drift_ppm']) < 1 and abs(m['clock_offset'] - off) < 20e-6,
              f'clustered: processor {p} drift {m["clock_drift_ppm"]:.1f} ppm (want 0), offset {m["clock_offset"]:.9f} (want {off})')


def unusable_sample_case(d):
    """A sample that cannot be a ping and its pong (T2 before T1 on one
    clock, REF = P) is left out and said with its place: as two messages it
    bent its pair's line to the search limit and, the first one, picked the
    reference."""
    trace, r, cs = clustered_trace(d, ('-6 -951 0.5 2 0 4 2 7 600000000 500000000 500000000',  # T2 before T1
                                       '-6 -951 0.6 1 0 4 2 1 600000000 600000000 600000000'))  # REF = P
    mods = {m['id']: m for m in cs['modules']}
    check(r.returncode == 0 and cs['reference'] == 0 and 7 not in mods,
          f'unusable: replay ok, reference 0, no processor 7 ({r.returncode}, {cs["reference"]})')
    check(cs['samples'] == 8 and cs['samples_unused'] == 2,
          f'unusable: 8 samples used, 2 impossible ones not ({cs["samples"]}, {cs.get("samples_unused")})')
    check(abs(mods[2]['clock_drift_ppm']) < 1, f'unusable: processor 2 drift {mods[2]["clock_drift_ppm"]:.1f} ppm (want 0)')
    check(f'2 clock-synchronisation sample(s) not used, the first: {trace}:12: T2 is before T1' in r.stderr,
          f'unusable: the impossible samples are said with their place ({r.stderr.strip()[:300]})')


def replay_files(d, mode, files, tag):
    st = os.path.join(d, f'mr-{tag}-{mode}.json')
    r = subprocess.run([REPLAY, '--clock=' + mode, '--stats', '--state-out', st, *files],
                       capture_output=True, text=True, timeout=120)
    with open(st) as f:
        cs = json.load(f)['clock_sync']
    pend = [x for x in r.stdout.splitlines() if x.startswith('clock samples pending:')]
    return r, cs, {m['id']: m for m in cs['modules']}, pend


def missing_rank_case(d):
    """A rank's file is missing: the trams that wait behind it stay pending in
    the first reading, but their -6 -951 samples were read and must count.
    Processor 1 receives from processor 3 before its samples (clocks as in
    clustered_trace: 1 = 0 + 2 ms, 2 = 0 - 3 ms); without 3's file its
    samples were never seen and it kept its own clock."""
    main, third = os.path.join(d, 'mr012.trc'), os.path.join(d, 'mr3.trc')
    lines = ['-3 -901 0.0 0 0 0', '-3 -901 0.0 1 0 0', '-3 -901 0.0 2 0 0',
             '-3 -52 0.0001 1 0 3 2 5 3 0', '-4 -52 0.0005 1 0 4 2 8 5 3 0']
    for i, (out, back) in enumerate(((30e-6, 60e-6), (55e-6, 35e-6), (40e-6, 50e-6), (60e-6, 40e-6))):
        t1 = 0.001 + i * 100e-6
        for p, off in ((1, 0.002), (2, -0.003)):
            t2 = t1 + out + back
            lines.append('-6 -951 %.9f %d 0 4 2 0 %d %d %d' % (t2 + off, p, round((t1 + off) * 1e9),
                                                               round((t1 + out) * 1e9), round((t2 + off) * 1e9)))
    lines.append('-6 -951 0.5 1 0 4 2 0 600000000 500000000 500000000')   # T2 before T1, pending too
    lines += ['-4 -901 1.0 0 0 0', '-4 -901 1.002 1 0 0', '-4 -901 0.997 2 0 0']
    with open(main, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    with open(third, 'w') as f:
        f.write('-3 -901 0.0 3 0 0\n-3 -21 0.0002 3 0 4 2 8 5 1 0\n-4 -21 0.0003 3 0 0\n-4 -901 1.0 3 0 0\n')
    for mode in ('drift', 'clc'):
        r, cs, mods, pend = replay_files(d, mode, [main, third], 'all')
        check(r.returncode == 0 and cs['samples'] == 8 and cs['samples_unused'] == 1 and not pend,
              f'missing rank {mode}: the complete trace uses 8 samples, none pending ({r.returncode}, {cs["samples"]}, {pend})')
        r2, cs2, mods2, pend2 = replay_files(d, mode, [main], 'part')
        check(r2.returncode == 3 and 'still pending' in r2.stderr,
              f'missing rank {mode}: without 3\'s file trams stay pending (exit {r2.returncode})')
        check(cs2['samples'] == 8 and cs2['samples_unused'] == 1 and cs2['reference'] == 0,
              f'missing rank {mode}: every sample read counts, the impossible one still left out '
              f'({cs2["samples"]}, {cs2["samples_unused"]}, reference {cs2["reference"]})')
        check(f'1 clock-synchronisation sample(s) not used, the first: {main}:14: T2 is before T1' in r2.stderr,
              f'missing rank {mode}: the impossible pending sample is said with its place ({r2.stderr.strip()[-300:]})')
        check(pend2 == ['clock samples pending: 5'], f'missing rank {mode}: --stats counts the pending samples ({pend2})')
        m = mods2.get(1, {})
        check(m.get('from_sync') and abs(m['clock_offset'] + 0.002) < 20e-6 and abs(m['clock_drift_ppm']) < 1,
              f'missing rank {mode}: processor 1 corrected from its samples (offset {m.get("clock_offset")}, want -0.002)')
        check(all(mods2[p]['clock_offset'] == mods[p]['clock_offset']
                  and mods2[p]['clock_drift_ppm'] == mods[p]['clock_drift_ppm'] for p in (1, 2)),
              f'missing rank {mode}: processors 1 and 2 get the maps of the complete trace')

    # a generated MPI-like trace (init and finalize samples), one file per
    # rank, rank 3's file lost: ranks 1 and 2 keep the maps of the whole trace
    trace, tt, msgs = (os.path.join(d, x) for x in ('mg.trc', 'mg.txt', 'mg.json'))
    subprocess.run([GEN, '-P', '4', '-M', '200', '-s', '3', '--sync', '3', trace, tt, msgs], check=True)
    per = {}
    with open(trace) as f:
        for line in f:
            per.setdefault(int(line.split()[3]), []).append(line)
    files = {}
    for p, ls in per.items():
        files[p] = os.path.join(d, f'mg{p}.trc')
        with open(files[p], 'w') as f:
            f.writelines(ls)
    _, cs, mods, _ = replay_files(d, 'drift', [files[p] for p in sorted(files)], 'gall')
    r2, cs2, mods2, pend2 = replay_files(d, 'drift', [files[p] for p in sorted(files) if p != 3], 'gpart')
    check(r2.returncode == 3 and cs['samples'] == 18 and cs2['samples'] == 12 and pend2,
          f'missing rank generated: all 12 samples of ranks 1 and 2 count ({cs["samples"]}, {cs2["samples"]}, {pend2})')
    check(all(mods2[p]['clock_offset'] == mods[p]['clock_offset']
              and mods2[p]['clock_drift_ppm'] == mods[p]['clock_drift_ppm'] for p in (1, 2)),
          'missing rank generated: ranks 1 and 2 get the maps of the complete trace '
          f'({[(mods2[p]["clock_drift_ppm"], mods[p]["clock_drift_ppm"]) for p in (1, 2)]})')


def byseq(d):
    return {p: sorted(v, key=lambda e: int(e[1][2][3])) for p, v in d.items()}


def monalisa_violations(lines_by_proc):
    """Requests before their receipt and replies before theirs: (late, pairs).
    The k-th request C -> P (2 14/16/21/18 at C, D2 = P) pairs with the k-th
    receipt at P from C (4 14/16/21/18, D2 = C); the k-th reply P -> C
    (5 15/17/22/19 at P, D2 = C) with the k-th receipt at C from P (4 15/17/22/19,
    D2 = P).  lines_by_proc: per_proc() sorted by sequence number."""
    sends, recvs = {}, {}
    for p, lines in lines_by_proc.items():
        for t, (rec, ev, rest) in lines:
            if len(rest) < 5:
                continue
            other = int(rest[4])      # rest: PROCESS NDATA DTYPE D1 D2 ...
            if (rec, ev) in (('2', '14'), ('2', '16'), ('2', '21'), ('2', '18')):
                sends.setdefault(('rq', p, other), []).append(t)
            elif (rec, ev) in (('5', '15'), ('5', '17'), ('5', '22'), ('5', '19')):
                sends.setdefault(('rp', p, other), []).append(t)
            elif rec == '4' and ev in ('14', '16', '21', '18'):
                recvs.setdefault(('rq', other, p), []).append(t)
            elif rec == '4' and ev in ('15', '17', '22', '19'):
                recvs.setdefault(('rp', other, p), []).append(t)
    late = n = 0
    for k, ts in sends.items():
        for a, b in zip(ts, recvs.get(k, [])):
            n += 1
            late += b < a
    return late, n


def monalisa_case(d):
    trace, ttrace, setup = (os.path.join(d, x) for x in ('ml.trc', 'mlt.trc', 'ml.setup'))
    args = ['-p', 'farm', '--slaves', '16', '--count', '20000', '-s', '3', '--offset-ms', '50',
            '--drift-ppm', '1000', '-d', 'shuffled']
    subprocess.run([SIM, *args, '-o', trace, '--setup-out', setup], check=True)
    subprocess.run([SIM, *args, '--emit-true-time', '-o', ttrace], check=True)
    raw, true = byseq(ce.per_proc(trace)), byseq(ce.per_proc(ttrace))
    for mode in ('drift', 'clc'):
        out, st = replay(d, mode, trace, ['-p', 'monalisa', '-s', setup])
        out = byseq(out)
        er, eo = ce.errors(raw, true, out, st['clock_sync']['reference'])
        s = ce.summary(er, eo)
        print(f'  monalisa {mode}: raw median {s["raw_median"]:.3f} max {s["raw_max"]:.3f}; '
              f'median {s["median"]:.4f} max {s["max"]:.4f} (ms); pairs {st["clock_sync"]["pairs"]}, '
              f'raw violations {st["clock_sync"]["violations_raw"]}')
        check(st['clock_sync']['pairs'] > 1000 and st['clock_sync']['violations_raw'] > 0,
              f'monalisa {mode}: request/reply pairs found, raw violations seen')
        rawlate, n = monalisa_violations(raw)
        late, n2 = monalisa_violations(out)
        print(f'  monalisa {mode}: requests/replies received before sent: raw {rawlate} of {n}, output {late} of {n2}')
        check(rawlate > 0 and n2 == n > 1000 and late == 0, f'monalisa {mode}: 0 violations (raw {rawlate} of {n})')
        if mode == 'drift':
            check(s['median'] * 20 <= s['raw_median'], 'monalisa drift: median error 20x below raw')
            check(s['max'] <= s['raw_max'] / 2, 'monalisa drift: max error at most half the raw max')
        else:
            check(s['max'] <= s['raw_max'], 'monalisa clc: max error at most the raw max')
            ok, why = intervals_ok(byseq(ce.per_proc(trace)), out, st)
            check(ok, f'monalisa clc: intervals ({why})')


def usage_cases(d):
    r = subprocess.run([REPLAY, '--clock=bogus', 'x'], capture_output=True, text=True)
    check(r.returncode == 2 and '--clock' in r.stderr, '--clock=bogus is a usage error')
    r = subprocess.run([REPLAY, '--clock=drift', '-'], input='', capture_output=True, text=True)
    check(r.returncode == 2 and 'standard input' in r.stderr, '--clock=drift refuses standard input (a usage error, as --listen)')
    r = subprocess.run([REPLAY, '--clock=clc', '--listen=tcp:127.0.0.1:0'], capture_output=True, text=True)
    check(r.returncode == 2, '--clock=clc refuses --listen')


def keep_case(d):
    """The replay plays back the trams the analysis kept in memory; with
    --clock-memory=0, or a bound the trams pass, it reads the files again.
    Every output must be the same byte for byte: the run, the state, the
    exports, and the bad lines and warnings on stderr.  The trace has bad
    lines, comments, a line in non-canonical form and is split over three
    files."""
    trace, tt, msgs = (os.path.join(d, x) for x in ('k.trc', 'k.txt', 'k.json'))
    subprocess.run([GEN, '-P', '12', '-M', '3000', '-s', '9', trace, tt, msgs], check=True)
    parts = [os.path.join(d, f'k{i}.trc') for i in range(3)]
    outs = [open(x, 'w') for x in parts]
    with open(trace) as f:
        for n, line in enumerate(f):
            fields = line.split()
            if line.startswith('#') or len(fields) < 4:
                continue
            i = int(fields[3]) % 3
            if n % 401 == 7:
                outs[i].write('garbage line %d\n' % n)
            if n % 577 == 3:
                outs[i].write('# a comment\n')
            outs[i].write(line.replace(' 0 ', ' 0  ', 1) if i == 2 else line)
    for o in outs:
        o.close()
    for mode in ('drift', 'clc'):
        results = {}
        for tag, extra in (('kept', []), ('none', ['--clock-memory=0']), ('bound', ['--clock-memory=30000'])):
            files = {k: os.path.join(d, f'{mode}-{tag}.{k}') for k in ('run', 'json', 'paje', 'chrome', 'pg')}
            r = subprocess.run([REPLAY, '--clock=' + mode, '--stats', '--run-out', files['run'],
                                '--state-out', files['json'], '--export', 'paje:' + files['paje'],
                                '--export', 'chrome:' + files['chrome'], '--export', 'paragraph:' + files['pg'],
                                *extra, *parts], capture_output=True, text=True, timeout=120)
            kept = [x for x in r.stdout.splitlines() if x.startswith('clock kept:')]
            err = [x.replace(f'{mode}-{tag}.', 'OUT.') for x in r.stderr.splitlines() if '--clock-memory' not in x]
            blobs = {}
            for k, path in files.items():
                with open(path, 'rb') as f:
                    blobs[k] = f.read()
            results[tag] = (r.returncode, blobs, err, kept, r.stderr)
        rc, blobs, err, kept, _ = results['kept']
        check(rc == 0 and sum('REC is not an integer' in x for x in err) >= 10, f'keep {mode}: replay ok, bad lines reported ({rc})')
        check(kept and 'bytes of trams in memory' in kept[0], f'keep {mode}: --stats says the trams were kept ({kept})')
        for tag in ('none', 'bound'):
            rc2, blobs2, err2, kept2, raw_err = results[tag]
            check(rc2 == rc, f'keep {mode}/{tag}: same exit status')
            check(kept2 and kept2[0].startswith('clock kept: none'), f'keep {mode}/{tag}: --stats says the files were read again ({kept2})')
            for k in blobs:
                check(blobs[k] == blobs2[k] and len(blobs[k]) > 100, f'keep {mode}/{tag}: {k} byte-identical to the kept replay')
            check(err == err2, f'keep {mode}/{tag}: the same diagnostics on stderr')
        check('--clock-memory=30000 bytes: the trace files are read again' in results['bound'][4],
              f'keep {mode}: a bound that is hit says so')


def main():
    with tempfile.TemporaryDirectory() as d:
        usage_cases(d)
        for procs, messages, seed in ((8, 2400, 5), (32, 9600, 5), (64, 12800, 7)):
            picl_case(d, procs, messages, seed)
        sync_case(d)
        clustered_sync_case(d)
        unusable_sample_case(d)
        missing_rank_case(d)
        monalisa_case(d)
        keep_case(d)
    if failures:
        print(f'{len(failures)} failed')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
