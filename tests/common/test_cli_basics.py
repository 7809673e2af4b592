#!/usr/bin/env python3
"""What every Viper binary does the same way (trial 3).

Usage: test_cli_basics.py EXE NAME VERSION

--version exits 0 and prints "NAME VERSION" (the project's version) and
nothing else; --help lists --version.
"""
import subprocess
import sys

exe, name, version = sys.argv[1:4]
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


r = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
check(r.returncode == 0 and r.stdout == "%s %s\n" % (name, version) and r.stderr == "",
      "%s --version: exit 0, '%s %s' (%d, %r, %r)" % (name, name, version, r.returncode, r.stdout, r.stderr))
r = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
check(r.returncode == 0 and "--version" in r.stdout, "%s --help lists --version" % name)
sys.exit(1 if failures else 0)
