#!/usr/bin/env python3
"""The viper app under Xvfb, driven by real key presses (xdotool).

Scenario 1 (file): viper on the Farm trace with --breakpoint stops where
`viper-replay --until` stops; the colour at each module's position on the
screen is the colour of the state viper-replay reports.  Right steps exactly
one state change (viper-replay --steps=K+1 agrees), R resets to the initial
state, Space replays to the breakpoint again with the identical state.

Scenario 2 (fast-forward): a long Farm with a late breakpoint shows the
progress bar while it fast-forwards (the app writes progress.json after the
frame that first painted it) and hides it at the stop, and the views sit in
the same place in both frames.

Scenario 3 (live): viper --listen is fed by the simulator over a Unix socket;
once the senders are done its state (and the screen) match viper-replay on
the same simulated trace.

Synchronisation never sleeps: the app (VIPER_DEBUG_DIR) writes state.json
after the frame that shows a stop has been painted, and the test polls it.
Exit 77 (skip) only when Xvfb, xdotool or ImageMagick are missing.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

STATE_RGB = {
    "executing": (60, 180, 75), "interacting": (245, 200, 0),
    "blocked": (215, 38, 61), "inactive": (160, 160, 160),
}
PROGRAM_RGB = {
    "running": (60, 180, 75), "deadlock": (245, 200, 0), "abnormal": (215, 38, 61),
    "inactive": (160, 160, 160), "terminated": (40, 100, 220),
}
CONVERT = "/usr/bin/convert"   # /usr/local/bin/convert may be a stand-in
IMPORT = "/usr/bin/import"
# Sanitizer builds run several times slower: scripts/test scales every wait.
TIMEOUT = 30.0 * float(os.environ.get("VIPER_TIMEOUT_SCALE", "1"))

failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def poll(pred, what, timeout=TIMEOUT, proc=None):
    """Poll pred() (cheap file reads) until true; a dead app or the timeout fails."""
    end = time.monotonic() + timeout
    delay = 0.01
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        if proc is not None and proc.poll() is not None:
            raise SystemExit("viper exited (%s) while waiting for %s" % (proc.returncode, what))
        time.sleep(delay)   # polling interval, not synchronisation: pred decides
        delay = min(delay * 2, 0.2)
    raise SystemExit("timed out waiting for " + what)


def stop_xvfb(xvfb):
    xvfb.terminate()
    xvfb.wait()


def finish(tmp, keep=None, shots=None):
    """The end of an Xvfb test: where the screenshots are, the failed checks
    (exit 1), the temporary directory removed unless kept (exit 0)."""
    if shots:
        print("# screenshots in", shots)
    if failures:
        print("# %d checks failed" % len(failures))
        return 1
    if not keep and tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def start_xvfb(screen="1280x1024x24"):
    r, w = os.pipe()
    # -noreset: by default the server resets when its last client leaves,
    # which would put the pointer parked below back in the centre
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", screen, "-nolisten", "tcp",
                             "-noreset"],
                            pass_fds=[w], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    num = b""
    while not num.endswith(b"\n"):
        c = os.read(r, 1)
        if not c:
            raise SystemExit("Xvfb did not start")
        num += c
    os.close(r)
    display = ":" + num.decode().strip()
    # The pointer starts at the screen's centre, over the space-time view: its
    # tooltip would cover probed pixels once the hover delay passes (a slow,
    # sanitised build is slow enough).  Park it outside the app's window.
    if shutil.which("xdotool"):
        sw, sh = (int(v) for v in screen.split("x")[:2])
        subprocess.run(["xdotool", "mousemove", str(sw - 1), str(sh - 1)], env=dict(os.environ, DISPLAY=display),
                       check=True, timeout=TIMEOUT)
    return xvfb, display


def parse_args(tools, keep="directory to keep the screenshots in"):
    """The Xvfb tests' options: --viper, --viper-replay, the helper programs
    TOOLS (e.g. "--sim"), --source-root, and --keep (helped by KEEP)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    for tool in tools:
        ap.add_argument(tool, required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--keep", help=keep)
    return ap.parse_args()


def missing_tool(tools=("Xvfb", "xdotool")):
    """The first of TOOLS that is not installed, after printing the TAP skip
    line for it; None when all are (callers then return 77)."""
    for tool in tools:
        if not shutil.which(tool):
            print("1..0 # SKIP %s is not installed" % tool)
            return tool
    return None


def screenshot(display, path):
    subprocess.run([IMPORT, "-display", display, "-window", "root", path], check=True)
    ppm = subprocess.run([CONVERT, path, "-depth", "8", "ppm:-"], check=True, stdout=subprocess.PIPE).stdout
    # P6 header: magic, width, height, maxval, then RGB bytes
    parts, pos = [], 0
    while len(parts) < 4:
        while ppm[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not ppm[pos:pos + 1].isspace():
            pos += 1
        parts.append(ppm[start:pos])
    pos += 1
    w, h = int(parts[1]), int(parts[2])
    data = ppm[pos:]
    return lambda x, y: tuple(data[(y * w + x) * 3:(y * w + x) * 3 + 3])


def replay_state(args, trace, setup, extra):
    out = subprocess.run([args.viper_replay, "--paradigm=monalisa", "--setup=" + setup, "--state-out=-", "--quiet"]
                         + extra + [trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if out.returncode not in (0, 3):
        raise SystemExit("viper-replay failed: " + out.stderr.decode())
    return json.loads(out.stdout)


def module_states(state):
    return {m["id"]: m["state"] for m in state["modules"]}


def probe(pixel, layout, state, label):
    """The colour at every module's point in each view equals its state's colour."""
    states = module_states(state)
    ok = True
    for view in ("animation", "spacetime", "variables"):
        points = layout["views"][view]
        ok &= check(len(points) == len(states), "%s: %s view shows %d modules" % (label, view, len(states)))
        for p in points:
            got, want = pixel(p["x"], p["y"]), STATE_RGB[states[p["id"]]]
            ok &= check(got == want, "%s: %s view module %d (%s) at (%d,%d) is %s, want %s"
                        % (label, view, p["id"], states[p["id"]], p["x"], p["y"], got, want))
    prog = layout["views"]["program"][0]
    got, want = pixel(prog["x"], prog["y"]), PROGRAM_RGB[state["program_state"]]
    ok &= check(got == want, "%s: program square (%s) is %s, want %s" % (label, state["program_state"], got, want))
    return ok


def sanitized_app_env(env):
    """Under the sanitizers the whole GTK app runs instrumented: keep finding
    memory errors, but unwind the fast way and leave leak checking to the
    headless tests (they run the same drawing and replay code with it on):
    GTK's and fontconfig's caches are not ours, and the slow unwinder on every
    allocation makes a 1,000-node window crawl."""
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=1:detect_leaks=0"


class App:
    def __init__(self, args, display, argv, tmp, name, stdin=None, env_extra=None):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        env = dict(os.environ, DISPLAY=display, VIPER_DEBUG_DIR=self.dir, GDK_BACKEND="x11",
                   NO_AT_BRIDGE="1", GTK_A11Y="none")
        env.pop("G_DEBUG", None)   # GTK under a bare X server may warn; the app's own checks are the test
        env.update(env_extra or {})
        sanitized_app_env(env)
        self.proc = subprocess.Popen([args.viper] + argv, env=env, stdin=stdin)
        self.display = display
        self.dumps = 0

    def state(self):
        return read_json(os.path.join(self.dir, "state.json"))

    def wait_dump(self, what):
        n = self.dumps + 1
        d = poll(lambda: (lambda s: s if s and s["dumps"] >= n else None)(self.state()), what, proc=self.proc)
        self.dumps = d["dumps"]
        return d

    def playback(self):
        return read_json(os.path.join(self.dir, "playback.json"))

    def wait_state(self, pred, what):
        """The first state dump for which pred holds."""
        d = poll(lambda: (lambda s: s if s and pred(s) else None)(self.state()), what, proc=self.proc)
        self.dumps = max(self.dumps, d["dumps"])
        return d

    def layout(self, n_modules):
        return poll(lambda: (lambda l: l if l and len(l["views"]["animation"]) == n_modules else None)(
            read_json(os.path.join(self.dir, "layout.json"))), "the layout", proc=self.proc)

    def window(self):
        out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Viper"],
                             env=dict(os.environ, DISPLAY=self.display), stdout=subprocess.PIPE, timeout=TIMEOUT)
        return out.stdout.split()[0].decode()

    def key(self, key):
        env = dict(os.environ, DISPLAY=self.display)
        wid = self.window()
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=env, check=True, timeout=TIMEOUT)
        subprocess.run(["xdotool", "key", "--clearmodifiers", key], env=env, check=True, timeout=TIMEOUT)

    def keys(self, key, n):
        """Press key n times in one go, as fast as xdotool sends them (a held key)."""
        env = dict(os.environ, DISPLAY=self.display)
        wid = self.window()
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=env, check=True, timeout=TIMEOUT)
        subprocess.run(["xdotool", "key", "--clearmodifiers", "--delay", "0"] + [key] * n, env=env, check=True,
                       timeout=TIMEOUT)

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def xdo(display, *argv):
    """One xdotool command on DISPLAY; fails the test if it fails."""
    subprocess.run(["xdotool"] + list(argv), env=dict(os.environ, DISPLAY=display), stdout=subprocess.DEVNULL,
                   check=True, timeout=TIMEOUT)


def same_modules(a, b):
    strip = lambda s: [{k: v for k, v in m.items() if k != "offset"} for m in s["modules"]]
    return strip(a) == strip(b)


def scenario_file(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    bp = "6.6"
    want = replay_state(args, trace, setup, ["--until=" + bp])
    app = App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=" + bp], tmp, "file")
    try:
        d = app.wait_dump("the breakpoint stop")
        check(d["why"] == "breakpoint", "stops at the breakpoint (why=%s)" % d["why"])
        check(d["state"]["clock"] == want["clock"], "clock %s = viper-replay --until's %s" % (d["state"]["clock"], want["clock"]))
        check(same_modules(d["state"], want), "module states = viper-replay --until=%s" % bp)
        check(d["state"]["counts"] == want["counts"], "counts = viper-replay's")
        layout = app.layout(len(want["modules"]))
        probe(screenshot(display, os.path.join(shots, "1-breakpoint.png")), layout, d["state"], "breakpoint")
        at_bp = d

        app.key("Right")
        d = app.wait_dump("the step")
        check(d["why"] == "step", "Right steps (why=%s)" % d["why"])
        check(d["steps"] == at_bp["steps"] + 1 and d["changes"] == at_bp["changes"] + 1,
              "one step = exactly one state change (%d -> %d)" % (at_bp["changes"], d["changes"]))
        want_step = replay_state(args, trace, setup, ["--steps=%d" % d["steps"]])
        check(same_modules(d["state"], want_step), "after the step: = viper-replay --steps=%d" % d["steps"])
        probe(screenshot(display, os.path.join(shots, "2-step.png")), layout, d["state"], "step")

        app.key("r")
        d = app.wait_dump("the reset")
        check(d["why"] == "reset", "R resets (why=%s)" % d["why"])
        check(d["steps"] == 0 and d["state"]["counts"]["read"] == 0, "reset: nothing read, nothing applied")
        check(all(m["state"] == "inactive" for m in d["state"]["modules"]), "reset: every module inactive")
        probe(screenshot(display, os.path.join(shots, "3-reset.png")), app.layout(len(want["modules"])), d["state"], "reset")

        app.key("space")
        d = app.wait_dump("the replay to the breakpoint")
        check(d["why"] == "breakpoint", "Space replays to the breakpoint (why=%s)" % d["why"])
        check(d["state"] == at_bp["state"] and d["steps"] == at_bp["steps"], "the replay after reset is identical")
        # Fast-forwarding must not move the views: the stop's frame is painted
        # before the next tick, so anything shown only while running (the
        # progress bar once sat below the views) would shift every module.
        check(app.layout(len(want["modules"]))["views"] == layout["views"],
              "the views sit where they sat at the first stop")
        probe(screenshot(display, os.path.join(shots, "4-replayed.png")), layout, d["state"], "replayed")
    finally:
        app.close()


def scenario_fast_forward(args, display, tmp, shots):
    setup = os.path.join(tmp, "long.setup")
    trace = os.path.join(tmp, "long.trc")
    subprocess.run([args.sim, "--program=farm", "--count=1500000", "--seed=3", "--delivery=shuffled",
                    "--out=" + trace, "--setup-out=" + setup], check=True, timeout=120)
    end = replay_state(args, trace, setup, [])
    bp = "%.3f" % (end["clock"] * 0.9)
    want = replay_state(args, trace, setup, ["--until=" + bp])
    app = App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=" + bp], tmp, "ff")
    try:
        pj = os.path.join(app.dir, "progress.json")
        prog = poll(lambda: read_json(pj), "the progress bar", proc=app.proc)
        check(prog["visible"], "the progress bar shows while fast-forwarding")
        check(0 <= prog["fraction"] < 1, "its fraction %s is in [0, 1)" % prog["fraction"])
        check(prog["box"][2] >= 100 and prog["box"][3] > 0, "it has room: %s" % prog["box"])
        d = app.wait_dump("the breakpoint after fast-forwarding")
        check(d["why"] == "breakpoint", "fast-forward stops at the breakpoint (why=%s)" % d["why"])
        check(not d["progress_visible"], "the progress bar is gone at the stop")
        check(same_modules(d["state"], want), "module states = viper-replay --until=%s" % bp)
        layout = app.layout(len(want["modules"]))
        check(layout["views"] == prog["layout"]["views"],
              "the views sit where they sat while the progress bar showed")
        probe(screenshot(display, os.path.join(shots, "5-fast-forward.png")), layout, d["state"], "fast-forward")
    finally:
        app.close()


def scenario_live(args, display, tmp, shots):
    setup = os.path.join(tmp, "live.setup")
    trace = os.path.join(tmp, "live.trc")
    sim = [args.sim, "--program=farm", "--slaves=4", "--tasks=6", "--seed=11"]
    subprocess.run(sim + ["--out=" + trace, "--setup-out=" + setup], check=True, timeout=60)
    want = replay_state(args, trace, setup, [])
    sock = os.path.join(tmp, "viper.sock")
    app = App(args, display, ["--listen=unix:" + sock, "--setup=" + setup, "--paradigm=monalisa"], tmp, "live")
    try:
        poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        subprocess.run(sim + ["--connect=unix:" + sock, "--speed=0"], check=True, timeout=60)
        d = poll(lambda: (lambda s: s if s and s["why"] == "live-idle"
                          and s["state"]["counts"]["transferred"] == want["counts"]["transferred"] else None)(app.state()),
                 "the live run to be applied", proc=app.proc)
        check(same_modules(d["state"], want), "live: module states = viper-replay on the same trace")
        check(d["state"]["program_state"] == want["program_state"], "live: program state %s" % want["program_state"])
        probe(screenshot(display, os.path.join(shots, "6-live.png")), app.layout(len(want["modules"])), d["state"], "live")
    finally:
        app.close()


def main():
    args = parse_args(["--sim"])
    if missing_tool():
        return 77
    if not (os.access(IMPORT, os.X_OK) and os.access(CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick (/usr/bin/import, /usr/bin/convert) is not installed")
        return 77
    probe_run = subprocess.run([args.viper_replay, "--list-paradigms"], stdout=subprocess.PIPE)
    if b"monalisa" not in probe_run.stdout:
        print("the monalisa paradigm is not built in")
        return 1
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    xvfb, display = start_xvfb()
    try:
        scenario_file(args, display, tmp, shots)
        scenario_fast_forward(args, display, tmp, shots)
        scenario_live(args, display, tmp, shots)
    finally:
        stop_xvfb(xvfb)
    return finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
