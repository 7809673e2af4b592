#!/usr/bin/env python3
"""bench-lights: 1,024 simulated nodes at 2 samples/s, all-to-all, live in the GUI.

viper-lights-sim writes the view setup of a 32 x 32 mesh and then, with
--connect, sends every 500 ms each node's load and its traffic to all 1,023
others (bytes varying by pair and sample, so every link's rate moves; node k
at k/1024 of the interval, as agents out of phase send - --spread) to a
`viper --paradigm=lights --listen` under Xvfb, with a 40 ms update interval (BENCH_LIGHTS_UPDATE_MS)
(the 20 frames/s target).  The app's VIPER_DEBUG_DIR dumps (written when the
live source goes idle, after the frame that shows it) give the frames each
view painted; /proc gives the viewer's CPU time.  Printed: frames/s of the
animation view, the viewer's CPU share, trams applied against trams sent,
and how long after the last sample the picture had caught up.

Then the agent: viper-lights-agent at the default 500 ms interval, writing
to /dev/null, for 20 samples; its CPU share is printed (Lilith measured
4-7 % for its Java agents).

First, headless (bench-lights-frame, the drawing code the GUI and
`viper-replay --render` share, on image surfaces of the sizes the GUI's
views have): CPU per sample applied and per frame of each view, for the
same 1,024-node all-to-all cluster.

A benchmark: prints figures, asserts only that every tram arrived.  Exit 77
when Xvfb is missing.
Usage: bench-lights.py VIPER VIPER_LIGHTS_SIM VIPER_LIGHTS_AGENT [BENCH_LIGHTS_FRAME] [SAMPLES]
"""
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

NODES = 1024
TIMEOUT = 300.0


# the viewer's update interval (BENCH_LIGHTS_UPDATE_MS): 40 ms, so that 20 frames/s is not also the most
# the timer allows (50 ms: 20 at most, and a late tick already falls short)
UPDATE_MS = int(os.environ.get("BENCH_LIGHTS_UPDATE_MS", "40"))

def start_xvfb():
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
    return xvfb, ":" + num.decode().strip()


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def poll(pred, what, proc, timeout=TIMEOUT):
    end = time.monotonic() + timeout
    delay = 0.01
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        if proc.poll() is not None:
            raise SystemExit("viper exited (%s) while waiting for %s" % (proc.returncode, what))
        time.sleep(delay)   # polling interval; pred decides
        delay = min(delay * 2, 0.2)
    raise SystemExit("timed out waiting for " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def gui(viper, sim, samples, tmp):
    view = os.path.join(tmp, "mesh32.view")
    subprocess.run([sim, "--view", "-n", str(NODES), "-o", view], check=True)
    xvfb, display = start_xvfb()
    ddir = os.path.join(tmp, "dbg")
    os.makedirs(ddir)
    port = free_port()
    # state dumps only: the per-frame layout dump of every module the Xvfb tests read costs more than painting
    # a thousand nodes, and a user's viewer never writes it
    # (BENCH_LIGHTS_LAYOUT=1 keeps it, to compare with a viewer that always wrote it)
    env = dict(os.environ, DISPLAY=display, VIPER_DEBUG_DIR=ddir, GDK_BACKEND="x11", NO_AT_BRIDGE="1",
               VIPER_DEBUG_LAYOUT="1" if os.environ.get("BENCH_LIGHTS_LAYOUT") == "1" else "0")
    env.pop("G_DEBUG", None)
    app = subprocess.Popen([viper, "--paradigm=lights", "--setup=" + view, "--listen=tcp:127.0.0.1:%d" % port,
                            "--update-interval=%d" % UPDATE_MS], env=env, stderr=subprocess.DEVNULL)
    try:
        poll(lambda: read_json(os.path.join(ddir, "state.json")), "the window listening", app)
        cpu0, t0 = cpu_seconds(app.pid), time.monotonic()
        xcpu0 = cpu_seconds(xvfb.pid)
        sent = NODES * 2 * samples + NODES + 1   # load + traffic per sample, joins, one message
        simp = subprocess.Popen([sim, "-n", str(NODES), "--samples", str(samples), "--pattern", "all", "--vary",
                                 "--spread", "--bytes", "20000", "--connect", "tcp:127.0.0.1:%d" % port])
        # how often the viewer was runnable (state R: running or waiting for a core): a viewer that is
        # runnable nearly always but gets a small share of a core is starved by the machine, not idle
        states = {"R": 0, "all": 0}

        def sample_states():
            while simp.poll() is None:
                try:
                    with open("/proc/%d/stat" % app.pid) as f:
                        st = f.read().rsplit(")", 1)[1].split()[0]
                    states["all"] += 1
                    states["R"] += st == "R"
                except OSError:
                    return
                time.sleep(0.02)   # sampling interval, not synchronisation
        sampler = threading.Thread(target=sample_states)
        sampler.start()
        first = poll(lambda: (lambda d: d if d and d["applied"] > 0 else None)(
            read_json(os.path.join(ddir, "state.json"))), "the first samples", app)
        simp.wait(timeout=TIMEOUT)
        sampler.join()
        t_sent = time.monotonic()
        last = poll(lambda: (lambda d: d if d and d["applied"] >= sent else None)(
            read_json(os.path.join(ddir, "state.json"))), "every tram applied", app)
        t1, cpu1 = time.monotonic(), cpu_seconds(app.pid)
        xcpu1 = cpu_seconds(xvfb.pid)
        frames = last["frames"]["animation"] - first["frames"]["animation"]
        secs = last["seconds"] - first["seconds"]
        print("GUI, %d nodes (32 x 32 mesh, %d links), all-to-all, 2 samples/s for %d samples (nodes spread over "
              "the interval), %d ms updates:" % (NODES, 4 * 32 * 31, samples, UPDATE_MS))
        print("  trams applied %d of %d sent; caught up %.2f s after the last sample"
              % (last["applied"], sent, t1 - t_sent))
        print("  animation view: %.1f frames/s (%d frames in %.1f s)" % (frames / secs if secs > 0 else 0, frames,
                                                                           secs))
        print("  viewer CPU: %.0f %% of one core over %.1f s, %.2f s per sample (load average %.1f)"
              % (100 * (cpu1 - cpu0) / (t1 - t0), t1 - t0, (cpu1 - cpu0) / samples, os.getloadavg()[0]))
        print("  X server (Xvfb) CPU: %.0f %% of one core, %.2f s per sample"
              % (100 * (xcpu1 - xcpu0) / (t1 - t0), (xcpu1 - xcpu0) / samples))
        if states["all"]:
            print("  while the simulator sent, the viewer was runnable %.0f %% of the time"
                  % (100.0 * states["R"] / states["all"]))
        return last["applied"] == sent
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
        xvfb.terminate()
        xvfb.wait()


def agent(agent_bin, tmp, samples):
    hosts = os.path.join(tmp, "hosts")
    with open(hosts, "w") as f:
        for k in range(NODES):
            f.write("10.%d.%d.%d %d\n" % (k // 62500, (k // 250) % 250, k % 250 + 1, k))
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([agent_bin, "-n", "0", "-o", "/dev/null", "-H", hosts, "--count", str(samples)], check=True,
                   timeout=samples * 2 + 30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print("agent at 500 ms, %d samples (/proc/stat, sock_diag, %d-line hosts map): %.2f %% CPU (%.3f s in %.1f s)"
          % (samples, NODES, 100 * cpu / wall, cpu, wall))


def headless(frame_bin, sim, samples, tmp):
    view = os.path.join(tmp, "mesh32.view")
    trace = os.path.join(tmp, "all.trc")
    subprocess.run([sim, "--view", "-n", str(NODES), "-o", view], check=True)
    subprocess.run([sim, "-n", str(NODES), "--samples", str(samples), "--pattern", "all", "--vary", "--spread",
                    "--bytes", "20000", "-o", trace], check=True)
    r = subprocess.run([frame_bin, view, trace, "50"], check=True, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    print("  (load average %.1f)" % os.getloadavg()[0])
    os.unlink(trace)


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    viper, sim, agent_bin = sys.argv[1:4]
    rest = sys.argv[4:]
    frame_bin = rest.pop(0) if rest and not rest[0].isdigit() else None
    samples = int(rest[0]) if rest else 20
    tmp = tempfile.mkdtemp(prefix="viper-bench-lights-")
    try:
        ok = True
        if frame_bin:
            headless(frame_bin, sim, samples, tmp)
        if shutil.which("Xvfb"):
            ok = gui(viper, sim, samples, tmp)
        else:
            print("Xvfb is not installed: no GUI figures")
        agent(agent_bin, tmp, samples)
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
