#!/usr/bin/env python3
"""The switchnet views in the GUI under Xvfb, driven by keys.

viper opens the 4-switch example's trams with a breakpoint past the end; at the
stop its state equals viper-replay's, and at every port with data the screen
shows the colour of its value in the range of interest (the app's debug dump
says where it drew each port).  Alt+R switches to the running total and Alt+3
to the torus, Alt+Right turns it: the dump says so, the colours follow, and the
port points move.  Exit 77 when Xvfb, xdotool or ImageMagick are missing.
No sleeps as synchronisation: the app writes state.json after the frame that
shows each change, and the test polls it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gui"))
import test_xvfb as gx  # noqa: E402

BELOW, ABOVE = (128, 128, 128), (255, 255, 0)   # torus4.init: below 0.5 grey, above yellow


def colour(v, lo, hi):
    if v < lo:
        return BELOW
    if v > hi:
        return ABOVE
    f = 0 if hi == lo else (v - lo) / (hi - lo)
    return (round(f * 255), 0, round((1 - f) * 255))


def near(a, b, tol=3):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def probe(pixel, sw, label):
    ok = 0
    for p in sw["ports"]:
        want = colour(p["shown"], sw["min"], sw["max"])
        got = pixel(p["x"], p["y"])
        gx.check(near(got, want), "%s: switch %d port %d (shown %d) at (%d,%d) is %s, want %s"
                 % (label, p["switch"], p["port"], p["shown"], p["x"], p["y"], got, want))
        ok += 1
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--import", dest="importer", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--shots", help="keep the screenshots in this directory")
    args = ap.parse_args()
    for tool in ("Xvfb", "xdotool"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s is not installed" % tool)
            return 77
    if not (os.path.exists(gx.IMPORT) and os.path.exists(gx.CONVERT)):
        print("1..0 # SKIP ImageMagick is not installed")
        return 77
    t4 = os.path.join(args.source_root, "setup", "switchnet", "torus4")
    model = os.path.join(t4, "torus4.swm")
    tmp = tempfile.mkdtemp(prefix="viper-switchnet-gui-")
    shots = args.shots or tmp
    os.makedirs(shots, exist_ok=True)
    trace = os.path.join(tmp, "t4.trc")
    subprocess.run([args.importer, "-q", "-m", model, "-p", os.path.join(t4, "packets.par"), "-j",
                    os.path.join(t4, "jobs.job"), "-o", trace], check=True, timeout=60)
    want = gx.json.loads(subprocess.run([args.viper_replay, "--paradigm=switchnet", "--setup=" + model,
                                         "--state-out=-", trace], stdout=subprocess.PIPE, check=True,
                                        timeout=60).stdout)
    xvfb, display = gx.start_xvfb()
    app = None
    try:
        app = gx.App(args, display, ["--paradigm=switchnet", "--setup=" + model, "--breakpoint=1000", trace], tmp, "t4")
        d = app.wait_dump("the end of the series")
        st = d["state"]
        gx.check(st["step"] == want["step"] == 5, "step %s = viper-replay's %s" % (st["step"], want["step"]))
        gx.check(st["modules"] == want["modules"], "every switch and port = viper-replay's")
        sw = st.get("switchnet")
        gx.check(sw is not None and sw["view"] == "network" and sw["mode"] == "slice", "settings %s" % sw)
        shot = os.path.join(shots, "switchnet-network.png")
        pixel = gx.screenshot(display, shot)
        print("# screenshot " + shot)
        n = probe(pixel, sw, "network, slice")
        gx.check(n >= 4, "network ports probed: %d" % n)

        # click on a port: the inspection names it with its values (the paradigm's own hit test)
        p0 = [p for p in sw["ports"] if p["switch"] == 0 and p["port"] == 12][0]
        env = dict(os.environ, DISPLAY=display)
        subprocess.run(["xdotool", "mousemove", str(p0["x"]), str(p0["y"]), "click", "1", "mousemove", "1279", "1023"],
                       env=env, check=True, timeout=gx.TIMEOUT)
        d = gx.poll(lambda: (lambda s: s if s and s["dumps"] > app.dumps and s["why"] == "inspect" else None)(
            app.state()), "the inspection", proc=app.proc)
        app.dumps = d["dumps"]
        text = (d.get("ui") or {}).get("inspect") or ""
        gx.check(text.startswith("port s0.12, network port, cabled to s1.14"), "click: names the port (%s)"
                 % text.splitlines()[:1])
        gx.check("value 60" in text, "click: its value at the last step (%s)" % text.replace("\n", " | "))
        # a click outside the popover (on the header bar) closes it
        subprocess.run(["xdotool", "mousemove", "600", "12", "click", "1", "mousemove", "1279", "1023"], env=env,
                       check=True, timeout=gx.TIMEOUT)

        app.key("alt+r")
        d = app.wait_dump("running total")
        sw2 = d["state"]["switchnet"]
        gx.check(sw2["mode"] == "running", "Alt+R: running total (%s)" % sw2["mode"])
        s012 = {(p["switch"], p["port"]): p["shown"] for p in sw2["ports"]}
        gx.check(s012.get((0, 12)) == 10 + 20 + 30 + 40 + 50 + 60, "running total of s0.12: %s" % s012.get((0, 12)))
        pixel = gx.screenshot(display, os.path.join(shots, "switchnet-running.png"))
        probe(pixel, sw2, "network, running")

        app.key("alt+o")
        d = app.wait_dump("torus")
        sw3 = d["state"]["switchnet"]
        gx.check(sw3["view"] == "torus", "Alt+O: torus (%s)" % sw3["view"])
        shot = os.path.join(shots, "switchnet-torus.png")
        pixel = gx.screenshot(display, shot)
        print("# screenshot " + shot)
        probe(pixel, sw3, "torus")
        before = {(p["switch"], p["port"]): (p["x"], p["y"]) for p in sw3["ports"]}
        app.key("alt+Right")
        d = app.wait_dump("turned")
        sw4 = d["state"]["switchnet"]
        gx.check(abs(sw4["yaw"] - sw3["yaw"] - 15) < 1e-9, "Alt+Right turns by 15 degrees (%s -> %s)"
                 % (sw3["yaw"], sw4["yaw"]))
        after = {(p["switch"], p["port"]): (p["x"], p["y"]) for p in sw4["ports"]}
        moved = sum(1 for k in before if k in after and before[k] != after[k])
        gx.check(moved >= len(before) // 2, "the ports moved: %d of %d" % (moved, len(before)))
        pixel = gx.screenshot(display, os.path.join(shots, "switchnet-turned.png"))
        probe(pixel, sw4, "torus turned")
    finally:
        if app:
            app.close()
        xvfb.terminate()
        xvfb.wait()
        if not args.shots:
            shutil.rmtree(tmp, ignore_errors=True)
    if gx.failures:
        print("# %d failures" % len(gx.failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
