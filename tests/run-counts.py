#!/usr/bin/env python3
"""run-counts: sum up meson test logs into one line, "N passed, M failed".

Usage: run-counts.py [--fail LABEL]... TESTLOG.json...

Each TESTLOG is meson's meson-logs/testlog.json: one JSON object per line,
one line per test, with "result" among OK, FAIL, SKIP, EXPECTEDFAIL,
UNEXPECTEDPASS, TIMEOUT, ERROR.  OK and EXPECTEDFAIL pass; SKIP is counted
apart; everything else fails, and so does a log that is missing or cannot be
read (the test run never happened, e.g. the build failed), and every
--fail LABEL (a step the caller saw fail outside the logs).  Tests in the
'benchmark' suite are left out: benchmarks report, they do not assert.

The last line printed is the total, "N passed, M failed" with ", K skipped"
when anything was skipped.  The exit status is 0 only when nothing failed
and at least one test passed.
"""
import json
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}


def is_benchmark(entry):
    suites = entry.get("suite") or []
    if isinstance(suites, str):
        suites = [suites]
    return any(s == "benchmark" or s.endswith(":benchmark") for s in suites)


def count_log(path):
    """Return (passed, failed, skipped, failed names) for one log."""
    label = path[: -len("/meson-logs/testlog.json")] if path.endswith("/meson-logs/testlog.json") else path
    passed = failed = skipped = 0
    names = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        print(f"run-counts: {path}: {e.strerror}: the tests did not run")
        return 0, 1, 0, [path]
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            print(f"run-counts: {path}:{number}: not a JSON object")
            failed += 1
            names.append(f"{path}:{number}")
            continue
        if is_benchmark(entry):
            continue
        result = str(entry.get("result", "ERROR")).upper()
        if result in PASSED:
            passed += 1
        elif result in SKIPPED:
            skipped += 1
        else:
            failed += 1
            names.append(f"{label}: {entry.get('name', '?')} ({result})")
    return passed, failed, skipped, names


def main(argv):
    logs = []
    extra = []
    args = iter(argv)
    for a in args:
        if a == "--fail":
            extra.append(next(args, "unnamed step"))
        elif a.startswith("--fail="):
            extra.append(a[len("--fail="):])
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            logs.append(a)

    passed = failed = skipped = 0
    names = []
    for path in logs:
        p, f, s, n = count_log(path)
        print(f"{path}: {p} passed, {f} failed" + (f", {s} skipped" if s else ""))
        passed, failed, skipped = passed + p, failed + f, skipped + s
        names += n
    for label in extra:
        failed += 1
        names.append(label)
    if names:
        print("failed:")
        for n in names:
            print(f"  {n}")
    if passed + failed == 0:
        print("run-counts: no test ran")
    sys.stdout.flush()
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line, flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
