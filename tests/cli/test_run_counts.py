#!/usr/bin/env python3
"""Checks tests/run-counts.py: the line scripts/test ends with and its status."""
import os
import subprocess
import sys
import tempfile

counter = sys.argv[1]
failures = 0


def check(name, logs, want_last, want_status, extra=()):
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, content in enumerate(logs):
            path = os.path.join(tmp, f"log{i}.json")
            if content is not None:
                with open(path, "w") as f:
                    f.write(content)
            paths.append(path)
        r = subprocess.run([sys.executable, counter, *extra, *paths],
                           capture_output=True, text=True)
    last = r.stdout.splitlines()[-1] if r.stdout else ""
    if last != want_last or r.returncode != want_status:
        failures += 1
        print(f"not ok - {name}: got {last!r} status {r.returncode}, "
              f"expected {want_last!r} status {want_status}")
    else:
        print(f"ok - {name}")


def entry(result, suite="viper:cli"):
    return '{"name": "t", "result": "%s", "suite": ["%s"], "duration": 0.1}\n' % (result, suite)


check("all pass", [entry("OK") * 3], "3 passed, 0 failed", 0)
check("expected failure passes", [entry("OK") + entry("EXPECTEDFAIL")], "2 passed, 0 failed", 0)
check("skips are appended", [entry("OK") + entry("SKIP")], "1 passed, 0 failed, 1 skipped", 0)
check("a failure", [entry("OK") + entry("FAIL")], "1 passed, 1 failed", 1)
check("a timeout fails", [entry("OK") + entry("TIMEOUT")], "1 passed, 1 failed", 1)
check("an error fails", [entry("ERROR")], "0 passed, 1 failed", 1)
check("an unexpected pass fails", [entry("OK") + entry("UNEXPECTEDPASS")], "1 passed, 1 failed", 1)
check("benchmarks are left out", [entry("OK") + entry("FAIL", "viper:benchmark")], "1 passed, 0 failed", 0)
check("two logs add up", [entry("OK"), entry("OK") + entry("FAIL")], "2 passed, 1 failed", 1)
check("a missing log fails", [None], "0 passed, 1 failed", 1)
check("a missing log next to a good one", [entry("OK"), None], "1 passed, 1 failed", 1)
check("no test ran", [""], "0 passed, 0 failed", 1)
check("a step that failed outside the logs", [entry("OK")], "1 passed, 1 failed", 1,
      extra=("--fail", "scripts/build"))
check("a line that is not JSON", [entry("OK") + "garbage\n"], "1 passed, 1 failed", 1)
sys.exit(1 if failures else 0)
