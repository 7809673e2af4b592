#!/usr/bin/env python3
"""File > Export trace under Xvfb, driven by real key presses.

viper opens the Farm; Shift+Ctrl+E opens the export dialog; the test types
a file name ending in .paje (the extension picks the Pajé format) and
presses Return.  The app exports the whole run from a worker thread and
says so on its standard output; the file must be byte-identical to what
`viper-replay --export=paje:FILE` writes for the same trace, and pj_dump
(when installed) must accept it.  No sleeps as synchronisation: we wait for
the app's report line.  Exit 77 when Xvfb or xdotool is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as gx  # noqa: E402  (the Xvfb helpers of the main GUI test)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", required=True)
    args = ap.parse_args()
    if gx.missing_tool():
        return 77
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    xvfb, display = gx.start_xvfb()
    tmp = tempfile.mkdtemp(prefix="viper-export-gui-")
    app = None
    try:
        out_path = os.path.join(tmp, "farm-gui.paje")
        env = dict(os.environ, DISPLAY=display, GDK_BACKEND="x11", NO_AT_BRIDGE="1", GTK_A11Y="none")
        env.pop("G_DEBUG", None)
        gx.sanitized_app_env(env)
        log = open(os.path.join(tmp, "viper.out"), "w+")
        app = subprocess.Popen([args.viper, "--paradigm=monalisa", "--setup=" + setup, trace], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
        xenv = dict(os.environ, DISPLAY=display)
        wid = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Viper"], env=xenv,
                             stdout=subprocess.PIPE, timeout=gx.TIMEOUT).stdout.split()[0].decode()
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=xenv, check=True, timeout=gx.TIMEOUT)
        subprocess.run(["xdotool", "key", "--clearmodifiers", "shift+ctrl+e"], env=xenv, check=True,
                       timeout=gx.TIMEOUT)
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Export the trace"], env=xenv,
                       stdout=subprocess.PIPE, timeout=gx.TIMEOUT, check=True)
        # the name entry has the focus: replace its text with our path
        subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+a"], env=xenv, check=True, timeout=gx.TIMEOUT)
        subprocess.run(["xdotool", "type", "--delay", "5", out_path], env=xenv, check=True, timeout=gx.TIMEOUT)
        subprocess.run(["xdotool", "key", "Return"], env=xenv, check=True, timeout=gx.TIMEOUT)

        def reported():
            log.seek(0)
            text = log.read()
            return text if ("viper: exported" in text or "export to" in text) else None
        text = gx.poll(reported, "the app's export report", proc=app)
        gx.check("viper: exported" in text and out_path in text and "as paje" in text,
                 "the app reports the export: " + text.strip().splitlines()[-1])
        # the Farm begins at -2.508 ms: what the export changed is said, as viper-replay says it
        gx.check("times shifted by +0.002508 s so that the run starts at 0" in text,
                 "the app reports the export's shift")
        ref = os.path.join(tmp, "farm-cli.paje")
        r = subprocess.run([args.viper_replay, "--paradigm=monalisa", "--setup=" + setup, "--quiet",
                            "--export=paje:" + ref, trace], timeout=60)
        gx.check(r.returncode == 0, "viper-replay --export=paje exits 0")
        with open(out_path, "rb") as a, open(ref, "rb") as b:
            gx.check(a.read() == b.read(), "the GUI's export equals viper-replay --export, byte for byte")
        if shutil.which("pj_dump"):
            p = subprocess.run(["pj_dump", "-q", out_path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            gx.check(p.returncode == 0, "pj_dump accepts the GUI's export")
    finally:
        if app and app.poll() is None:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % (4 + bool(shutil.which("pj_dump"))))
    return 1 if gx.failures else 0


if __name__ == "__main__":
    sys.exit(main())
