#!/usr/bin/env python3
"""bench-gui: the viper app playing a 1,000,000-tram Mona Lisa Farm under Xvfb.

Generates the Farm with viper-monalisa-sim (--program=farm, shuffled delivery),
then starts `viper` on it with the default window (animation and space-time
views among the four shown), the default unlimited history and a 40 ms
update interval, and plays it to the end.  A breakpoint beyond the last clock
value makes the app start on its own and run to the end of the trace without
a key press.

The figures come from the app itself: with VIPER_DEBUG_DIR it writes
state.json after the frame that shows a stop, with the seconds since Go, the
trams applied and how many times each view was painted since Go.  So the
script waits on that file (polling, not sleeping as synchronisation) and
prints trams/s and frames/s of the animation and space-time views, each
view's mean CPU ms per paint (the app's own thread time, in the dump's
"draw" object), and the app's and the X server's CPU time and their sum per
frame: frames/s fall with the share of a core a loaded machine gives the
app, the CPU figures much less.  Three runs; the best trams/s is reported
with its frame rate, and every run is listed so the spread is visible.
The app runs with state dumps only (VIPER_DEBUG_LAYOUT=0): the layout.json
the Xvfb tests read after every frame is not written (BENCH_GUI_LAYOUT=1
writes it, as the benchmarks did before: at 1,024 modules it cost about a
fifth of the frames).

A benchmark: prints figures against the target (500,000 trams/s at 20
frames/s), asserts nothing beyond a complete replay.  Exit 77 when Xvfb is
missing.
Usage: bench-gui.py VIPER VIPER_MONALISA_SIM [TRAMS] [RUNS]
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 300.0


XVFB_PID = None   # the X server's process: its CPU time is drawing time too


def start_xvfb():
    global XVFB_PID
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=[w], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    num = b""
    while not num.endswith(b"\n"):
        c = os.read(r, 1)
        if not c:
            raise SystemExit("Xvfb did not start")
        num += c
    os.close(r)
    XVFB_PID = xvfb.pid
    return xvfb, ":" + num.decode().strip()


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def debug_env(display, ddir):
    """The app's environment: state dumps only.  The per-frame layout dump of
    every module that the Xvfb tests read is a test hook no user's viewer
    writes, and at 1,024 modules it cost a fifth of the frames (with a round
    trip to the X server after each); BENCH_GUI_LAYOUT=1 keeps it, to compare
    with figures measured with it."""
    env = dict(os.environ, DISPLAY=display, VIPER_DEBUG_DIR=ddir, GDK_BACKEND="x11",
               NO_AT_BRIDGE="1", GTK_A11Y="none",
               VIPER_DEBUG_LAYOUT="1" if os.environ.get("BENCH_GUI_LAYOUT") == "1" else "0")
    env.pop("G_DEBUG", None)
    return env


def play(viper, display, trace, setup, tmp, run, paradigm="monalisa"):
    ddir = os.path.join(tmp, "run%d" % run)
    os.makedirs(ddir)
    env = debug_env(display, ddir)
    proc = subprocess.Popen([viper, trace, "--setup=" + setup, "--paradigm=" + paradigm,
                             "--update-interval=40", "--breakpoint=1e300"], env=env)
    return wait_end(proc, ddir)


def cpu_seconds(pid):
    """user + system CPU seconds of a running process so far (Linux /proc)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def wait_end(proc, ddir):
    """Wait for the app's dump of the end of the replay; add its CPU time to it."""
    path = os.path.join(ddir, "state.json")
    end = time.monotonic() + TIMEOUT
    delay = 0.05
    x0 = cpu_seconds(XVFB_PID) if XVFB_PID else float("nan")
    try:
        while True:
            d = read_json(path)
            if d and d.get("why") in ("end", "bad input"):
                d["cpu"] = cpu_seconds(proc.pid)
                d["xcpu"] = cpu_seconds(XVFB_PID) - x0 if XVFB_PID else float("nan")
                return d
            if proc.poll() is not None:
                raise SystemExit("viper exited (%s) before the end of the trace" % proc.returncode)
            if time.monotonic() > end:
                raise SystemExit("viper did not reach the end of the trace in %.0f s" % TIMEOUT)
            time.sleep(delay)   # polling interval: the file decides when the run is over
            delay = min(delay * 2, 0.5)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def figures(d):
    """(trams/s, animation frames/s, space-time frames/s, seconds, trams, text) of one run's dump."""
    secs = d["seconds"]
    # builds before the dump counted paints since Go give paints since start-up
    fr = d.get("run_frames", d["frames"])
    r = (d["applied"] / secs, fr["animation"] / secs, fr["spacetime"] / secs, secs, d["applied"])
    text = (f"{r[4]} trams in {secs:.2f} s: {r[0]:,.0f} trams/s, "
            f"animation {r[1]:.1f} frames/s, space-time {r[2]:.1f} frames/s")
    draw = d.get("draw")
    if draw:
        # each view's mean CPU ms per paint (the app's own thread time), and
        # the process's CPU: on a loaded machine frames/s falls with the share
        # of a core the app gets, the ms do not
        text += "; CPU ms per paint: " + ", ".join(
            f"{k} {v['ms']:.1f}" for k, v in draw.items() if v.get("frames"))
    cpu, xcpu = d.get("cpu", float("nan")), d.get("xcpu", float("nan"))
    if cpu == cpu:
        text += f"; CPU: viper {cpu:.2f} s ({100 * cpu / secs:.0f}% of a core)"
        if xcpu == xcpu:
            # app and X server CPU per frame of the busier view: what a frame
            # costs whatever share of the machine the app got
            frames = max(fr["animation"], fr["spacetime"])
            text += f", X server {xcpu:.2f} s"
            if frames:
                text += f", {1000 * (cpu + xcpu) / frames:.0f} ms per frame"
    return r + (text,)


def load():
    return os.getloadavg()[0]


def main():
    viper, sim = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    if not shutil.which("Xvfb"):
        print("Xvfb is not installed: nothing to measure")
        return 77
    with tempfile.TemporaryDirectory(prefix="viper-bench-gui-") as tmp:
        trc, setup = os.path.join(tmp, "farm.trc"), os.path.join(tmp, "farm.setup")
        subprocess.run([sim, "--program=farm", f"--count={count}", "--delivery=shuffled",
                        f"--out={trc}", f"--setup-out={setup}"], check=True)
        trams = sum(1 for line in open(trc) if line.strip() and not line.startswith("#"))
        print(f"generated a Farm of {trams} trams (shuffled delivery)")
        xvfb, display = start_xvfb()
        results = []
        try:
            for run in range(runs):
                d = play(viper, display, trc, setup, tmp, run)
                if d["why"] != "end":
                    print(f"viper stopped on {d['why']} after {d['applied']} trams")
                    return 1
                r = figures(d)
                results.append(r)
                print(f"run {run + 1}: {r[5]} (load average {load():.1f})")
        finally:
            xvfb.terminate()
            xvfb.wait()
        best = max(results)
        print(f"viper, animation + space-time views, 40 ms updates, unlimited history: {best[0]:,.0f} trams/s, "
              f"{min(best[1], best[2]):.1f} frames/s (target: 500,000 trams/s at 20 frames/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
