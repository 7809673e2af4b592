#!/usr/bin/env python3
"""Every key of the viper app is in its menu, with the key shown (gui-xvfb-menus).

A new user found no menu entry for Back, Go to clock or the replay speed:
they were keys only.  Scenario menus (the Farm, stopped at a breakpoint):
a click on the header bar's menu button opens the menu; the app writes
menu.json after the menu has been drawn (every item: label, action, the key
drawn beside it, its box on the screen; every key the application defines;
the keys the shortcuts window lists).  Every key whose action means
something in this session is on a visible item of that action, with the
action's first key drawn beside it, and the shortcuts window lists every key
of every action.  Then the menu is used as a user would: Step Back goes one
state change back (= viper-replay --until the clock it shows), Faster doubles the speed, Go to
Clock... opens its dialog and lands on viper-replay --until's state, and the
Space-time Navigation submenu shows its keys.

Scenario paradigms: a switch network session's menu has a Network submenu
with every switchnet key beside its item, and its Torus item sets the torus
layout (the state dump's switchnet settings); a cluster lights session's
menu has Freeze Lights (Shift+F) and Range of Interest... (I), and Freeze
Lights freezes the display.

Synchronisation polls the app's dump files (VIPER_DEBUG_DIR); no sleeps.
Exit 77 when Xvfb, xdotool or ImageMagick are missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402

check, poll = X.check, X.poll

# Keys of one paradigm's own: their items are in the menu of that paradigm's sessions only.
PARADIGM_ONLY = ("app.switchnet", "app.lights-")


def menu_json(app):
    return X.read_json(os.path.join(app.dir, "menu.json"))


def open_menu(app, display, box):
    """Click the menu button; the menu.json written after the menu is drawn."""
    before = (menu_json(app) or {}).get("written", 0)
    X.xdo(display, "mousemove", str(box[0] + box[2] // 2), str(box[1] + box[3] // 2), "click", "1")
    return poll(lambda: (lambda m: m if m and m["written"] > before and any("box" in i for i in m["items"])
                         else None)(menu_json(app)), "the menu to be drawn", proc=app.proc)


def item(menu, label, parent=""):
    found = [i for i in menu["items"] if i["label"] == label and i["menu"] == parent]
    return found[0] if found else None


def click_item(display, it):
    x, y, w, h = it["box"]
    X.xdo(display, "mousemove", str(x + w // 2), str(y + h // 2), "click", "1", "mousemove", "1279", "1023")


def replay(args, trace, setup, extra):
    return X.replay_state(args, trace, setup, extra)


def scenario_menus(args, display, tmp, shots):
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=20"], tmp, "menus")
    try:
        d = app.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint stop")
        poll(lambda: (lambda p: p if p and p["index_done"] else None)(app.playback()), "the index of the run",
             proc=app.proc)
        button = d["ui"]["menu_button"]
        check(button[2] > 0 and button[3] > 0, "the menu button is on the screen (%s)" % button)
        m = open_menu(app, display, button)
        X.screenshot(display, os.path.join(shots, "menus-1-open.png"))
        shown = {}
        for i in m["items"]:
            if i["action"]:
                shown.setdefault(i["action"], []).append(i)
        for k in m["keys"]:
            action, first = k["action"], k["accels"][0]
            check(first in m["shortcuts_window"] and all(a in m["shortcuts_window"] for a in k["accels"]),
                  "the shortcuts window lists %s for %s" % (", ".join(k["accels"]), action))
            if action.startswith(PARADIGM_ONLY):
                check(action not in shown, "%s (another paradigm's) is not in a Farm session's menu" % action)
                continue
            items = shown.get(action, [])
            check(any(i["visible"] and i["accel"] == first for i in items),
                  "%s is in the menu with its key %s (%s)"
                  % (action, first, [(i["label"], i["accel"]) for i in items] or "no item"))
        for label in ("Step Back", "Go to Clock\u2026", "Faster", "Slower", "As Fast as Possible"):
            it = item(m, label)
            check(it is not None and it["visible"] and it["sensitive"] and "box" in it,
                  "the menu shows %s, usable" % label)

        # Step Back from the menu at the breakpoint's stop: back in time, to
        # the state change before the latest one
        dumps, clock = app.state()["dumps"], d["state"]["clock"]
        click_item(display, item(m, "Step Back"))
        d = app.wait_state(lambda s: s["dumps"] > dumps and s["state"]["clock"] != clock, "Step Back from the menu")
        want = replay(args, trace, setup, ["--until=%r" % d["state"]["clock"]])
        check(d["state"]["clock"] < clock and X.same_modules(d["state"], want),
              "menu Step Back: clock %r -> %r, state = viper-replay --until there" % (clock, d["state"]["clock"]))

        # Faster from the menu: the next speed up the 1-2-5 ladder
        speed = app.playback()["speed"]
        m = open_menu(app, display, button)
        click_item(display, item(m, "Faster"))
        p = poll(lambda: (lambda p: p if p and p["speed"] is not None and p["speed"] > speed else None)(app.playback()),
                 "a faster speed after Faster", proc=app.proc)
        check(p["speed"] > speed, "menu Faster: speed %s -> %s" % (speed, p["speed"]))

        # Go to Clock... from the menu: the dialog, then the state at that clock
        m = open_menu(app, display, button)
        click_item(display, item(m, "Go to Clock\u2026"))
        out = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Go to clock"],
                             env=dict(os.environ, DISPLAY=display), stdout=subprocess.PIPE, check=True,
                             timeout=X.TIMEOUT)
        # no window manager under Xvfb: the pointer's click left the focus where it was
        X.xdo(display, "windowfocus", "--sync", out.stdout.split()[0].decode())
        X.screenshot(display, os.path.join(shots, "menus-2-goto.png"))
        X.xdo(display, "type", "--delay", "20", "--", "50")
        X.xdo(display, "key", "Return")
        want = replay(args, trace, setup, ["--until=50"])
        d = app.wait_state(lambda s: s["state"]["clock"] == want["clock"], "the clock after Go to Clock 50")
        check(X.same_modules(d["state"], want), "menu Go to Clock 50: state = viper-replay --until=50")

        # the space-time navigation submenu shows its keys when it opens
        m = open_menu(app, display, button)
        nav = item(m, "Space-time Navigation")
        before = m["written"]
        x, y, w, h = nav["box"]
        X.xdo(display, "mousemove", str(x + w // 2), str(y + h // 2))
        m = poll(lambda: (lambda m: m if m and m["written"] > before
                          and "box" in (item(m, "Zoom In", "Space-time Navigation") or {}) else None)(menu_json(app)),
                 "the Space-time Navigation submenu", proc=app.proc)
        for label, accel in (("Zoom In", "plus"), ("Zoom Out", "minus"), ("Fit the Whole Run", "Home"),
                             ("Follow the Clock", "End")):
            it = item(m, label, "Space-time Navigation")
            check(it is not None and it["accel"] == accel and "box" in it,
                  "Space-time Navigation > %s shows %s" % (label, accel))
        X.screenshot(display, os.path.join(shots, "menus-3-navigation.png"))
        X.xdo(display, "key", "Escape", "key", "Escape", "mousemove", "1279", "1023")

        # the shortcuts window, from the menu
        m = open_menu(app, display, button)
        click_item(display, item(m, "Keyboard Shortcuts"))
        X.xdo(display, "search", "--sync", "--onlyvisible", "--name", "^Keyboard Shortcuts")
        X.screenshot(display, os.path.join(shots, "menus-4-shortcuts.png"))
    finally:
        app.close()


def paradigm_menu(app, display, d, prefix, label):
    """Open the menu; every key of PREFIX's actions is on a visible item with the key beside it."""
    m = open_menu(app, display, d["ui"]["menu_button"])
    shown = {i["action"]: i for i in m["items"] if i["action"]}
    for k in m["keys"]:
        if k["action"].startswith(prefix):
            it = shown.get(k["action"])
            check(it is not None and it["visible"] and it["accel"] == k["accels"][0],
                  "%s: %s is in the menu with its key %s (%s)" % (label, k["action"], k["accels"][0],
                                                                  (it or {}).get("accel", "no item")))
    return m


def scenario_switchnet(args, display, tmp, shots):
    t4 = os.path.join(args.source_root, "setup", "switchnet", "torus4")
    model = os.path.join(t4, "torus4.swm")
    trace = os.path.join(tmp, "t4.trc")
    subprocess.run([getattr(args, "import"), "-q", "-m", model, "-p", os.path.join(t4, "packets.par"), "-j",
                    os.path.join(t4, "jobs.job"), "-o", trace], check=True, timeout=60)
    app = X.App(args, display, ["--paradigm=switchnet", "--setup=" + model, "--breakpoint=1000", trace], tmp, "swn")
    try:
        d = app.wait_state(lambda s: s["why"] in ("end", "breakpoint"), "the switchnet run")
        m = paradigm_menu(app, display, d, "app.switchnet", "switchnet")
        net = item(m, "Network")
        check(net is not None and "box" in net, "switchnet: the menu has a Network submenu")
        before = m["written"]
        x, y, w, h = net["box"]
        X.xdo(display, "mousemove", str(x + w // 2), str(y + h // 2))
        m = poll(lambda: (lambda m: m if m and m["written"] > before and "box" in (item(m, "Torus", "Network") or {})
                          else None)(menu_json(app)), "the Network submenu", proc=app.proc)
        X.screenshot(display, os.path.join(shots, "menus-5-network.png"))
        click_item(display, item(m, "Torus", "Network"))
        d = app.wait_state(lambda s: (s["state"].get("switchnet") or {}).get("view") == "torus",
                       "the torus layout from Network > Torus")
        check(d["state"]["switchnet"]["view"] == "torus", "switchnet: Network > Torus sets the torus layout")
    finally:
        app.close()


def scenario_lights(args, display, tmp, shots):
    view, trace = os.path.join(tmp, "mesh.view"), os.path.join(tmp, "mesh.trc")
    subprocess.run([args.lights_sim, "--view", "-n", "9", "-o", view], check=True, timeout=60)
    subprocess.run([args.lights_sim, "-n", "9", "--samples", "20", "-p", "0-1,1-2", "--bytes", "60000", "-o", trace],
                   check=True, timeout=60)
    app = X.App(args, display, ["--paradigm=lights", "--setup=" + view, "--breakpoint=1005", trace], tmp, "lights")
    try:
        d = app.wait_state(lambda s: s["why"] in ("end", "breakpoint"), "the lights run")
        m = paradigm_menu(app, display, d, "app.lights-", "lights")
        X.screenshot(display, os.path.join(shots, "menus-6-lights.png"))
        for label in ("Freeze Lights", "Range of Interest…"):
            it = item(m, label)
            check(it is not None and it["visible"] and it["sensitive"], "lights: the menu shows %s" % label)
        click_item(display, item(m, "Freeze Lights"))
        m = open_menu(app, display, d["ui"]["menu_button"])
        X.screenshot(display, os.path.join(shots, "menus-7-lights-frozen.png"))
        check(item(m, "Freeze Lights")["checked"] is True, "lights: Freeze Lights is ticked after a click on it")
        X.xdo(display, "key", "Escape")
    finally:
        app.close()


def main():
    args = X.parse_args(["--import", "--lights-sim"])
    if X.missing_tool():
        return 77
    if not (os.access(X.IMPORT, os.X_OK) and os.access(X.CONVERT, os.X_OK)):
        print("1..0 # SKIP ImageMagick (/usr/bin/import, /usr/bin/convert) is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-menus-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    xvfb, display = X.start_xvfb()
    try:
        scenario_menus(args, display, tmp, shots)
        scenario_switchnet(args, display, tmp, shots)
        scenario_lights(args, display, tmp, shots)
    finally:
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
