"""Figures of a global-time replay against the true times (tests/clock, bench).

A trace and its twin with true time stamps (the same program: viper-picl-gen
--true-time, viper-monalisa-sim --emit-true-time) give each tram's true time,
matched per module by position.  The global time of a replay is the
reference module's clock, so the error of a tram is measured against the
reference clock's reading at the tram's true time (a least-squares line
through the reference module's own stamps).
"""
import json
import statistics


def per_proc(path, skip_comments=True):
    """{proc: [(time, rest-of-line-without-time)]} in file order."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith('#'):
                continue
            out.setdefault(int(w[3]), []).append((float(w[2]), (w[0], w[1], tuple(w[4:]))))
    return out


def file_lines(path):
    """[(proc, index in proc)] for every tram line, in file order."""
    seen = {}
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith('#'):
                continue
            p = int(w[3])
            out.append((p, seen.get(p, 0)))
            seen[p] = seen.get(p, 0) + 1
    return out


def ref_line(raw, true, ref):
    """stamped = o + k * true for the reference module (least squares)."""
    xs = [t for t, _ in true[ref]]
    ys = [t for t, _ in raw[ref]]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 1.0
    return my - k * mx, k


def errors(raw, true, out, ref, key=None):
    """(raw errors, output errors) over every tram, in trace time units.
    key(proc, entry) -> matching key; default: position in the module."""
    o, k = ref_line(raw, true, ref)
    er, eo = [], []
    for p, lines in raw.items():
        if p < 0 or p not in out or p not in true:
            continue
        for i, (t, _) in enumerate(lines):
            if i >= len(out[p]) or i >= len(true[p]):
                break
            g = o + k * true[p][i][0]
            er.append(abs(t - g))
            eo.append(abs(out[p][i][0] - g))
    return er, eo


def summary(er, eo):
    return {
        'raw_median': statistics.median(er), 'raw_max': max(er),
        'median': statistics.median(eo), 'max': max(eo),
    }


def picl_violations(truth_json, trace_path, times):
    """Messages whose receive end comes before its send, under times
    ({proc: [(t, ...)]}), using viper-picl-gen's --truth-out."""
    pos = file_lines(trace_path)
    with open(truth_json) as f:
        msgs = json.load(f)['messages']
    bad = 0
    for m in msgs:
        sp, si = pos[m['send']]
        rp, ri = pos[m['recv']]
        if times[rp][ri][0] < times[sp][si][0]:
            bad += 1
    return bad, len(msgs)


def true_per_proc(trace_path, true_times_path):
    """{proc: [(true time, None)]} from clock-truth-gen's one-time-per-line file."""
    with open(true_times_path) as f:
        ts = [float(x) for x in f.read().split()]
    out = {}
    for (p, _), t in zip(file_lines(trace_path), ts):
        out.setdefault(p, []).append((t, None))
    return out
