#!/usr/bin/env python3
"""What every Viper binary does the same way (trial 3).

Usage: test_cli_basics.py EXE NAME VERSION [ARG...]

--version exits 0 and prints "NAME VERSION" (the project's version) and
nothing else; --help lists --version; --version=1 is a usage error (2),
"NAME: --version takes no value" (GLib's parser took a value of an option
that takes none, and dropped it).  With ARGs (a command line whose value
'abc' is refused with one of GLib's messages): under LANG=C.UTF-8 the value
is quoted “abc”, not ?abc? (the binary calls setlocale, so GLib knows the
charset is UTF-8).
"""
import os
import subprocess
import sys
import tempfile

exe, name, version = sys.argv[1:4]
exe = os.path.abspath(exe)
bad = sys.argv[4:]
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
r = subprocess.run([exe, "--version=1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
check(r.returncode == 2 and r.stdout == "" and r.stderr.startswith("%s: --version takes no value\n" % name),
      "%s --version=1: exit 2, '--version takes no value' (%d, %r, %r)" % (name, r.returncode, r.stdout, r.stderr))
if bad:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    env["LANG"] = "C.UTF-8"
    with tempfile.TemporaryDirectory(prefix="viper-basics-") as tmp:
        r = subprocess.run([exe] + bad, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp,
                           timeout=30)
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode != 0 and "\u201cabc\u201d" in err and "?abc?" not in err,
          "LANG=C.UTF-8 %s %s: the value quoted \u201cabc\u201d (%d, %r)" % (name, " ".join(bad), r.returncode, err))
sys.exit(1 if failures else 0)
