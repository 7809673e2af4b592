#!/usr/bin/env python3
"""The lights paradigm on screen under Xvfb: bars, arrows, freeze, range.

viper opens a simulated 3 x 3 mesh (viper-lights-sim: ring traffic, wave
loads) with its view setup and a breakpoint halfway.  At the stop, every
node's bar shows its load (colour near the bottom of the bar, white above
the load) and every link's arrow the colour of its rate through the range
of interest, as `viper-replay --until --state-out` reports them.  Then
  - Freeze (F), Go to the end: the picture is still the breakpoint's;
  - Freeze again: the bars and arrows move to the final state;
  - Setup... loads the same layout with another range of interest: the
    arrows recolour, the state stays;
  - the Range popover (I) with MIN and MAX typed recolours them again, and
    so does MIN alone with Return in its field.
Positions come from the app's VIPER_DEBUG_DIR layout.json.  No sleeps as
synchronisation (screenshots are polled until they show a state, bounded);
exit 77 when Xvfb, xdotool or ImageMagick are missing.
"""
import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gui"))
import test_xvfb as gx  # noqa: E402


def load_colour(load):
    """lights_load_color() in 0..255."""
    if load < 0:
        c = (0.85, 0.85, 0.85)
    else:
        f = min(max(load / 1000.0, 0), 1)
        if f < 0.5:
            k = f / 0.5
            c = (0.1 + 0.85 * k, 0.7 + 0.15 * k, 0.1 - 0.1 * k)
        else:
            k = (f - 0.5) / 0.5
            c = (0.95 - 0.05 * k, 0.85 - 0.75 * k, 0.1 * k)
    return tuple(round(v * 255) for v in c)


def bw_colour(rng, bw):
    lo, hi, below, above = rng
    if bw < lo:
        return below
    if bw > hi:
        return above
    f = (bw - lo) / (hi - lo)
    return tuple(round(v * 255) for v in (0.1 + 0.9 * f, 0.15 + 0.8 * f, 0.5 - 0.5 * f))


def near(a, b, tol=6):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def bar_geometry(box):
    """lights_bar_geometry()."""
    x, y, w, h = box
    pad = max(min(w, h) * 0.08, 1.0)
    label = min(14.0, h * 0.25) if h >= 40 else 0
    return x + pad, y + pad, max(w - 2 * pad, 1), max(h - 2 * pad - label, 1)


def probe(pixel, boxes, state, rng, label, quiet=False, bars=True):
    """Which bars (unless not bars) and arrows differ from the state; [] when all match."""
    bad = []
    mods = {m["id"]: m for m in state["modules"]}
    for mid, box in boxes.items() if bars else ():
        load = mods[mid]["load"]
        bx, by, bw, bh = bar_geometry(box)
        px, py = int(bx + bw / 2), int(by + bh - 3)
        if load >= 60:
            got = pixel(px, py)
            if not near(got, load_colour(load)):
                bad.append("%s: bar %d (load %d) bottom at (%d,%d) is %s, want %s"
                           % (label, mid, load, px, py, got, load_colour(load)))
        top = int(by + bh * 0.15)
        if load < 700:
            got = pixel(px, top)
            if not near(got, (255, 255, 255)):
                bad.append("%s: bar %d (load %d) top at (%d,%d) is %s, want white" % (label, mid, load, px, top, got))
    for l in state["links"]:
        a, b = boxes[l["from"]], boxes[l["to"]]
        ax, ay = math.floor(a[0] + a[2] / 2) + 0.5, math.floor(a[1] + a[3] / 2) + 0.5
        bx, by = math.floor(b[0] + b[2] / 2) + 0.5, math.floor(b[1] + b[3] / 2) + 0.5
        dx, dy = bx - ax, by - ay
        ln = math.hypot(dx, dy)
        ux, uy = dx / ln, dy / ln
        want = bw_colour(rng, l["bw"])
        # the 2.5-pixel line runs 2.75 .. 5.25 beside the centre line: some pixel there is covered whole
        pts = [(int((ax + bx) / 2 - uy * o + ux * t), int((ay + by) / 2 + ux * o + uy * t))
               for o in (3, 3.5, 4, 4.5, 5) for t in (-1, 0, 1)]
        if not any(near(pixel(x, y), want) for x, y in pts):
            bad.append("%s: arrow %d->%d (%.0f B/s) at %s is %s, want %s"
                       % (label, l["from"], l["to"], l["bw"], pts[7], pixel(*pts[7]), want))
    if not quiet:
        for s in bad:
            print("# " + s)
    return bad


def replay(args, view, trace, until):
    out = subprocess.run([args.viper_replay, "--paradigm=lights", "--setup=" + view, "--until=%s" % until,
                          "--state-out=-", "--quiet", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=60)
    if out.returncode not in (0, 3):
        raise SystemExit("viper-replay failed: " + out.stderr.decode())
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper", required=True)
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--shots", help="keep the screenshots in this directory")
    args = ap.parse_args()
    for tool in ("Xvfb", "xdotool"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s is not installed" % tool)
            return 77
    if not (os.path.exists(gx.IMPORT) and os.path.exists(gx.CONVERT)):
        print("1..0 # SKIP ImageMagick (/usr/bin/import, /usr/bin/convert) is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-lights-gui-")
    shots = args.shots or tmp
    os.makedirs(shots, exist_ok=True)
    view, view2, trace = (os.path.join(tmp, n) for n in ("mesh.view", "mesh2.view", "mesh.trc"))
    subprocess.run([args.sim, "--view", "-n", "9", "-o", view], check=True)
    with open(view, "a") as f:
        f.write("range 50k 200k below lightgrey above magenta\n")
    rng1 = (50e3, 200e3, (212, 212, 212), (255, 0, 255))
    with open(view) as f:
        text = f.read().replace("range 50k 200k below lightgrey above magenta", "range 130k 300k below cyan above red")
    with open(view2, "w") as f:
        f.write(text)
    rng2 = (130e3, 300e3, (0, 255, 255), (255, 0, 0))
    subprocess.run([args.sim, "-n", "9", "--samples", "20", "-p", "0-1,1-2,2-5,4-3,8-0,0-8,3-4", "--bytes", "60000",
                    "-o", trace], check=True)
    bp = 1005.0005
    want = replay(args, view, trace, bp)
    final = replay(args, view, trace, 1e18)

    xvfb, display = gx.start_xvfb()
    app = None
    try:
        app = gx.App(args, display, ["--paradigm=lights", "--setup=" + view, "--breakpoint=%s" % bp, trace],
                     tmp, "lights")
        d = app.wait_dump("the breakpoint")
        gx.check(d["why"] == "breakpoint", "stopped at the breakpoint (%s)" % d["why"])
        gx.check(d["state"]["modules"] == want["modules"], "every node = viper-replay's at the breakpoint")
        layout = app.layout(9)
        boxes = {p["id"]: p["box"] for p in layout["views"]["animation"] if "box" in p}
        gx.check(len(boxes) == 9, "9 bars placed by the view setup")
        shot = os.path.join(shots, "lights-breakpoint.png")
        pixel = gx.screenshot(display, shot)
        print("# screenshot " + shot)
        gx.check(not probe(pixel, boxes, want, rng1, "breakpoint"), "bars and arrows show the breakpoint's state")
        gx.check(any(l["bw"] > 200e3 for l in want["links"]) and any(50e3 <= l["bw"] <= 200e3 for l in want["links"])
                 and any(l["bw"] < 50e3 for l in want["links"]), "links below, in and above the range")

        # freeze, run to the end: the picture stays the breakpoint's
        app.key("shift+f")
        app.key("space")
        d = app.wait_dump("the end")
        gx.check(d["state"]["clock"] == final["clock"], "ran to the end (clock %s)" % d["state"]["clock"])
        shot = os.path.join(shots, "lights-frozen.png")
        pixel = gx.screenshot(display, shot)
        print("# screenshot " + shot)
        gx.check(not probe(pixel, boxes, want, rng1, "frozen"), "frozen: still the breakpoint's bars and arrows")
        gx.check(len(probe(pixel, boxes, final, rng1, "frozen vs final", quiet=True)) > 0,
                 "frozen: the final state differs on screen")

        # thaw: the final state shows (polled: the thaw writes no dump)
        app.key("shift+f")
        shot = os.path.join(shots, "lights-final.png")
        gx.poll(lambda: not probe(gx.screenshot(display, shot), boxes, final, rng1, "final", quiet=True),
                "the final state on screen", proc=app.proc)
        gx.check(True, "thawed: bars and arrows show the final state")

        # another range of interest from another view setup, mid-run
        load_setup = __import__("test_xvfb_macrame").load_setup_via_dialog
        load_setup(app, view2)
        shot = os.path.join(shots, "lights-range.png")
        gx.poll(lambda: not probe(gx.screenshot(display, shot), boxes, final, rng2, "range", quiet=True),
                "the arrows in the new range's colours", proc=app.proc)
        print("# screenshot " + shot)
        gx.check(True, "Setup... with another range recolours the arrows")
        d = app.state()
        gx.check(d["state"]["modules"] == final["modules"], "the state stays across the reload")

        # the Range popover (I): MIN and MAX typed, Return applies; the colours stay the file's
        env = dict(os.environ, DISPLAY=display)
        app.key("i")
        # typing before the popover has opened (and taken the focus) goes to the window
        app.wait_state(lambda s: s["ui"].get("lights_range"), "the Range popover open")
        steps = [("key", "ctrl+a"), ("type", "10k"), ("key", "Tab"), ("key", "ctrl+a"), ("type", "100k"),
                 ("key", "Return")]
        for how, what in steps:
            cmd = ["xdotool", "key", "--clearmodifiers", what] if how == "key" else ["xdotool", "type", "--delay", "5", what]
            subprocess.run(cmd, env=env, check=True, timeout=gx.TIMEOUT)
        rng3 = (10e3, 100e3, rng2[2], rng2[3])
        shot = os.path.join(shots, "lights-popover.png")
        gx.poll(lambda: not probe(gx.screenshot(display, shot), boxes, final, rng3, "popover", quiet=True),
                "the arrows in the popover's range", proc=app.proc)
        print("# screenshot " + shot)
        gx.check(True, "the Range popover recolours the arrows")
        # Return in the MIN field applies too (it did nothing: only MAX's Return was wired)
        app.wait_state(lambda s: not s["ui"].get("lights_range"), "the popover closed after Return")
        app.key("i")
        app.wait_state(lambda s: s["ui"].get("lights_range"), "the Range popover open again")
        # MAX first (Tab there and back), then MIN, and Return in MIN: links of 120 kB/s come into the range
        for how, what in [("key", "Tab"), ("key", "ctrl+a"), ("type", "1M"), ("key", "shift+Tab"), ("key", "ctrl+a"),
                          ("type", "100k"), ("key", "Return")]:
            cmd = ["xdotool", "key", "--clearmodifiers", what] if how == "key" else ["xdotool", "type", "--delay", "5", what]
            subprocess.run(cmd, env=env, check=True, timeout=gx.TIMEOUT)
        rng4 = (100e3, 1e6, rng2[2], rng2[3])
        shot = os.path.join(shots, "lights-popover-min.png")
        gx.poll(lambda: not probe(gx.screenshot(display, shot), boxes, final, rng4, "popover min", quiet=True),
                "the arrows in the range typed in MIN alone, Return", proc=app.proc)
        print("# screenshot " + shot)
        gx.check(True, "Return in the Range popover's MIN field applies it")

        # what the popover shows: rates as the views write them, not %g ("1e+06", "1.25e+08"),
        # and that text read back gives the same range
        def popover_text(what, pred=lambda r: True):
            d = app.wait_state(lambda s: s["ui"].get("lights_range") and pred(s["ui"]["lights_range"]), what)
            return d["ui"]["lights_range"]

        def keys(steps):
            for how, what in steps:
                cmd = (["xdotool", "key", "--clearmodifiers", what] if how == "key"
                       else ["xdotool", "type", "--delay", "5", what])
                subprocess.run(cmd, env=env, check=True, timeout=gx.TIMEOUT)
        # 'i' only once the popover has closed: into the open popover it would be typed in MIN
        app.wait_state(lambda s: not s["ui"].get("lights_range"), "the popover closed after Return in MIN")
        app.key("i")
        r = popover_text("the Range popover in the dump")
        gx.check((r["min"], r["max"]) == ("100.0 kB/s", "1.00 MB/s"),
                 "the popover shows MIN and MAX as rates (%s, %s)" % (r["min"], r["max"]))
        keys([("key", "Tab"), ("key", "ctrl+a"), ("type", "125000000"), ("key", "Return")])
        app.wait_state(lambda s: not s["ui"].get("lights_range"), "the popover closed")
        app.key("i")
        r = popover_text("the popover again", lambda r: r["max"] != "1.00 MB/s")
        # for the eye: the popover fades in; shots until two in a row are the same
        shot = os.path.join(shots, "lights-popover-text.png")
        last = [None]

        def settled():
            px = gx.screenshot(display, shot)
            now = [px(x, y) for x in range(0, 1280, 16) for y in range(0, 400, 16)]
            same, last[0] = now == last[0], now
            return same
        gx.poll(settled, "the popover drawn", proc=app.proc)
        print("# screenshot " + shot)
        gx.check((r["min"], r["max"]) == ("100.0 kB/s", "125.00 MB/s"),
                 "a MAX of 125000000 shows as 125.00 MB/s, not 1.25e+08 (%s, %s)" % (r["min"], r["max"]))
        # the shown form typed back: MIN and MAX as the popover writes them
        keys([("key", "ctrl+a"), ("type", "120.0 kB/s"), ("key", "Tab"), ("key", "ctrl+a"), ("type", "300.00 kB/s"),
              ("key", "Return")])
        rng5 = (120e3, 300e3, rng2[2], rng2[3])
        shot = os.path.join(shots, "lights-popover-roundtrip.png")
        gx.poll(lambda: not probe(gx.screenshot(display, shot), boxes, final, rng5, "popover text", quiet=True),
                "the arrows in the range typed as the popover writes it", proc=app.proc)
        gx.check(True, "MIN and MAX typed as the popover shows them (120.0 kB/s, 300.00 kB/s) set that range")
        # reopened only once closed: 'i' on the open popover would dump the typed text
        app.wait_state(lambda s: not s["ui"].get("lights_range"), "the popover closed again")
        app.key("i")
        r = popover_text("the popover once more", lambda r: r["min"] == "120.0 kB/s" and r["max"] != "300.00 kB/s")
        gx.check(r["max"] == "300.0 kB/s", "and show as typed (%s, %s)" % (r["min"], r["max"]))
        # text that is no rate: the popover says so and stays open
        keys([("key", "ctrl+a"), ("type", "fast"), ("key", "Return")])
        r = popover_text("the popover's message", lambda r: r["error"])
        gx.check("MIN and MAX" in r["error"], "a MIN of 'fast' is refused in the popover (%s)" % r["error"])
        keys([("key", "Escape")])
        app.wait_state(lambda s: not s["ui"].get("lights_range"), "the popover closed by Escape")
        app.close()

        # live: collectors that send their samples and close have ended a collection; the
        # nodes never "finish", so nothing is lost and no node is called unfinished
        sock = os.path.join(tmp, "lights.sock")
        app = gx.App(args, display, ["--paradigm=lights", "--setup=" + view, "--listen=unix:" + sock], tmp, "live")
        gx.poll(lambda: os.path.exists(sock), "the listening socket", proc=app.proc)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c, open(trace, "rb") as f:
            c.connect(sock)
            c.sendall(f.read())
        d = gx.poll(lambda: (lambda s: s if s and s["ui"]["connections"]["total"] >= 1
                             and s["ui"]["connections"]["open"] == 0 and s["ui"]["live"] in ("ended", "lost")
                             and s["state"]["counts"]["transferred"] == final["counts"]["transferred"]
                             else None)(app.state()), "the collection's end", proc=app.proc)
        gx.check(d["ui"]["live"] == "ended", "live: every collector closed: the session ended (%s)" % d["ui"]["live"])
        gx.check("collection ended" in (d["ui"]["subtitle"] or ""),
                 "live: the subtitle says the collection ended (%s)" % d["ui"]["subtitle"])
        ib = d["ui"]["infobar"]
        gx.check(not (ib["visible"] and ib["type"] == "error") and "never finished" not in (ib["text"] or ""),
                 "live: no error, no node called unfinished (%s)" % ib)
        # the collection ended: the same nodes, but what was up is stale (not current any more)
        want = [dict(m, state="stale" if m["state"] == "up" else m["state"]) for m in final["modules"]]
        gx.check(d["state"]["modules"] == want, "live: every node = the file replay's, up ones stale")
        gx.check(d["state"]["program_state"] == "terminated" and d["state"]["nodes"]["up"] == 0,
                 "live: the program state says the collection ended (%s, %s)"
                 % (d["state"]["program_state"], d["state"]["nodes"]))
        # on screen: no bar shows its last load as the present (grey, not the load's colour)
        shot = os.path.join(shots, "lights-live-ended.png")
        live_boxes = {p["id"]: p["box"] for p in app.layout(9)["views"]["animation"] if "box" in p}

        def coloured_bars(pixel):
            bad = []
            for m in final["modules"]:
                if m["id"] not in live_boxes or m["load"] < 60:
                    continue
                bx, by, bw, bh = bar_geometry(live_boxes[m["id"]])
                got = pixel(int(bx + bw / 2), int(by + bh - 3))
                if near(got, load_colour(m["load"])) or max(got) - min(got) > 12:
                    bad.append((m["id"], got))
            return bad
        # and every arrow in the colour of no traffic (below the range), not its last rate's
        no_rates = {"modules": [], "links": [dict(l, bw=0) for l in final["links"]]}

        def grey_arrows(px):   # probe() on the arrows only (the bars are checked above)
            return not probe(px, live_boxes, no_rates, rng1, "ended", quiet=True, bars=False)
        gx.poll(lambda: (lambda px: not coloured_bars(px) and grey_arrows(px))(
                    gx.screenshot(display, shot)), "every bar and arrow grey (stale) once the collection ended",
                proc=app.proc)
        print("# screenshot " + shot)
        gx.check(len(live_boxes) == 9 and any(l["bw"] > 50e3 for l in final["links"]),
                 "live: the stale bars and arrows drawn grey, none in its last reading's colour")
    finally:
        if app:
            app.close()
        xvfb.terminate()
        xvfb.wait()
        if not args.shots:
            shutil.rmtree(tmp, ignore_errors=True)
    print("# %d checks failed" % len(gx.failures) if gx.failures else "# all checks passed")
    return 1 if gx.failures else 0


if __name__ == "__main__":
    sys.exit(main())
