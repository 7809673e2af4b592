#!/usr/bin/env python3
"""viper's usage errors: a malformed value is exit status 2 with a message
that names the option and the value, before any window opens (viper(1),
EXIT STATUS), as viper-replay does.  No display is needed: DISPLAY is unset,
so a viper that got past its options would exit 1 (no display) instead.
Under the sanitizers nothing may leak on these early exits either.

Before: --listen=bogus:1 and --paradigm=bogus opened a window with a dialog
(or exited 1 without a display), and a bad --decay, --breakpoint, --history
or --update-interval gave one message listing all four options.
"""
import argparse
import os
import subprocess
import sys

CASES = [
    (["--listen=bogus:1"], ["--listen", "bogus:1"]),
    (["--listen=tcp:127.0.0.1:99999"], ["--listen", "99999"]),
    (["--listen=unix:"], ["--listen", "path"]),
    (["--paradigm=bogus"], ["--paradigm", "bogus"]),
    (["--decay=2"], ["--decay", "'2'"]),
    (["--breakpoint=abc"], ["--breakpoint", "'abc'"]),
    (["--until-tram=2:x"], ["--until-tram", "'2:x'", "sequence number"]),
    (["--until-tram=2:5", "--breakpoint=1"], ["--until-tram", "--breakpoint", "one of them"]),
    (["--history=-1"], ["--history", "'-1'"]),
    (["--update-interval=-5"], ["--update-interval", "'-5'"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["GDK_BACKEND"] = "x11"
    failures = 0
    for argv, words in CASES:
        r = subprocess.run([args.viper] + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        ok = r.returncode == 2 and first.startswith("viper: ") and all(w in first for w in words) \
            and "Try 'viper --help'" in r.stderr and "Sanitizer" not in r.stderr
        print(("ok - " if ok else "not ok - ") + "viper %s: exit %d, %r" % (" ".join(argv), r.returncode, first))
        failures += not ok
    # the good values still pass the option checks (then: no display, 1)
    for good in (["--breakpoint=-2.5"], ["--until-tram=2:5"], ["--until-tram=farm.trc:94"]):
        r = subprocess.run([args.viper, "--listen=tcp:127.0.0.1:0", "--paradigm=picl"] + good, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        ok = r.returncode == 1 and r.stderr.strip() == "viper: cannot open a display"
        print(("ok - " if ok else "not ok - ") + "good values pass (%s): exit %d, %r" % (good[0], r.returncode,
                                                                                       r.stderr.strip()))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
