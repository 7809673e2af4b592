#!/usr/bin/env python3
"""Help with no application for the user guide shows the fallback (gui-xvfb-help).

With no application registered for text/markdown (`gio open
docs/user-guide.md` fails), F1 and the menu's Help did nothing visible: GTK
handed the guide to the desktop portal and returned before the failure came
(outside trial 3, finding 2).  Now the failure shows the fallback dialog
("Viper Help": where the guide is, why it could not be opened, Show It
Here), for F1 and for the menu item alike, and Show It Here opens the guide
in a window of viper's own.

The app runs with XDG directories that register no application at all
(/usr/share without its applications folder), so the test means the same on
a desktop that has a Markdown viewer.  Synchronisation polls the app's dumps
(VIPER_DEBUG_DIR: help.json once the dialog is mapped) and xdotool's --sync.
Exit 77 when Xvfb or xdotool are missing.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_xvfb as X  # noqa: E402
from test_xvfb_menus import open_menu, item, click_item  # noqa: E402

check, poll = X.check, X.poll


def no_handlers_env(tmp):
    """XDG directories with every data folder but the applications."""
    share = os.path.join(tmp, "share")
    os.makedirs(share)
    for name in os.listdir("/usr/share"):
        if name != "applications":
            os.symlink(os.path.join("/usr/share", name), os.path.join(share, name))
    home, config = os.path.join(tmp, "data-home"), os.path.join(tmp, "config-home")
    os.makedirs(home)
    os.makedirs(config)
    return {"XDG_DATA_DIRS": share, "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": config}


def window_ids(display, name):
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name], env=dict(os.environ, DISPLAY=display),
                         stdout=subprocess.PIPE, timeout=X.TIMEOUT)
    return out.stdout.split()


def help_json(app):
    return X.read_json(os.path.join(app.dir, "help.json"))


def expect_fallback(app, display, guide, how, shots, shot):
    d = poll(lambda: help_json(app), "the help fallback after " + how, proc=app.proc)
    check(d["shown"] and "No application here opens the user guide" in d["text"],
          "%s: the fallback says no application opens the guide (%r)" % (how, d["text"]))
    check(guide in (d["secondary"] or ""), "%s: it says where the guide is (%r)" % (how, d["secondary"]))
    ids = poll(lambda: window_ids(display, "^Viper Help$"), "the Viper Help window", proc=app.proc)
    check(len(ids) == 1, "%s: the Viper Help dialog is on the screen" % how)
    X.screenshot(display, os.path.join(shots, shot))
    os.remove(os.path.join(app.dir, "help.json"))
    return ids[0].decode()


def main():
    args = X.parse_args([])
    if X.missing_tool():
        return 77
    tmp = tempfile.mkdtemp(prefix="viper-xvfb-help-")
    shots = args.keep or os.path.join(tmp, "shots")
    os.makedirs(shots, exist_ok=True)
    guide = os.path.join(os.path.realpath(args.source_root), "docs", "user-guide.md")
    env = no_handlers_env(tmp)
    xvfb, display = X.start_xvfb()
    trace = os.path.join(args.source_root, "traces", "farm.trc")
    setup = os.path.join(args.source_root, "setup", "farm.setup")
    app = X.App(args, display, [trace, "--setup=" + setup, "--paradigm=monalisa", "--breakpoint=6.6"], tmp, "help",
                env_extra=env)
    try:
        d = app.wait_state(lambda s: s["why"] == "breakpoint", "the breakpoint stop")
        # F1: the fallback, closed with Escape
        app.key("F1")
        wid = expect_fallback(app, display, guide, "F1", shots, "help-1-f1.png")
        X.xdo(display, "windowfocus", "--sync", wid)
        X.xdo(display, "key", "Escape")
        poll(lambda: not window_ids(display, "^Viper Help$"), "the dialog to close", proc=app.proc)
        # the menu's Help: the same fallback; Show It Here opens the guide in viper
        m = open_menu(app, display, d["ui"]["menu_button"])
        it = item(m, "Help")
        check(it is not None and "box" in it and it["visible"], "the menu has Help")
        click_item(display, it)
        wid = expect_fallback(app, display, guide, "the menu's Help", shots, "help-2-menu.png")
        X.xdo(display, "windowfocus", "--sync", wid)
        X.xdo(display, "key", "alt+s")
        ids = poll(lambda: window_ids(display, "^Viper User Guide$"), "the guide's window", proc=app.proc)
        check(len(ids) == 1, "Show It Here opens the guide in a window of viper's own")
        X.screenshot(display, os.path.join(shots, "help-3-shown-here.png"))
    finally:
        app.close()
        X.stop_xvfb(xvfb)
    return X.finish(tmp, args.keep, shots)


if __name__ == "__main__":
    sys.exit(main())
