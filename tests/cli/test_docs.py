#!/usr/bin/env python3
"""test_docs: viper-replay(1), the README and --help say what the binaries do
(a new-user trial found them disagreeing).

Usage: test_docs.py --viper-replay PATH --source-root DIR [--viper PATH]

Each check prints "ok N - name" or "not ok N - name" with the reasons; the
exit status is 1 when any failed.  Every process has a timeout.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ARGS = None
RESULTS = []


def run(exe, args, cwd=None, timeout=60):
    p = subprocess.run([exe] + args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check(name, fn):
    problems = []
    try:
        fn(problems)
    except Exception as e:  # a crash of the check is a failure, not a skip
        problems.append(f"exception: {e!r}")
    RESULTS.append((name, problems))
    print(("ok" if not problems else "not ok") + f" {len(RESULTS)} - {name}")
    for p in problems:
        print("    " + p.replace("\n", "\n    "))


def man_source():
    with open(os.path.join(ARGS.source_root, "docs", "man", "viper-replay.1"), encoding="utf-8") as f:
        return f.read()


def man_plain(text):
    """roff source to plain words: escapes and requests dropped."""
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\(em", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    lines = []
    for line in text.splitlines():
        if line.startswith("."):
            parts = line.split(None, 1)
            line = parts[1] if len(parts) > 1 else ""
            line = line.replace('"', "")
        lines.append(line)
    return "\n".join(lines)


def man_entry(src, option):
    """The text of one .TP entry of the OPTIONS, from the tag naming option
    to the next .TP/.SS/.SH/.PP."""
    m = re.search(r"^\.(?:TP|TQ)\n[^\n]*" + re.escape(option.replace("-", "\\-")) + r"[^\n]*\n(.*?)(?=^\.(?:TP|SS|SH|PP)\b)",
                  src, re.S | re.M)
    return man_plain(m.group(1)) if m else ""


def paradigms():
    rc, out, err = run(ARGS.viper_replay, ["--list-paradigms"])
    assert rc == 0, f"--list-paradigms: exit {rc} {err}"
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def help_line(exe, option):
    rc, out, err = run(exe, ["--help"])
    assert rc == 0, f"{exe} --help: exit {rc} {err}"
    return next((l for l in out.splitlines() if option in l), "")


def every_paradigm_is_documented(problems):
    names = paradigms()
    for expect in ("picl", "monalisa", "macrame", "switchnet", "lights"):
        if expect not in names:
            problems.append(f"--list-paradigms lacks {expect}: {names}")
    src = man_source()
    entry = man_entry(src, "--paradigm=")
    with open(os.path.join(ARGS.source_root, "README.md"), encoding="utf-8") as f:
        readme_row = next((l for l in f if l.startswith("| `--paradigm=NAME`")), "")
    places = {"viper-replay(1) --paradigm": entry, "README --paradigm row": readme_row,
              "viper-replay --help": help_line(ARGS.viper_replay, "--paradigm=")}
    if ARGS.viper:
        places["viper --help"] = help_line(ARGS.viper, "--paradigm=")
    for where, text in places.items():
        if not text:
            problems.append(f"{where}: not found")
        for n in names + ["auto"]:
            if not re.search(r"\b" + re.escape(n) + r"\b", text):
                problems.append(f"{where} does not name {n}: {text.strip()[:300]!r}")


def setup_entry_names_every_paradigm_with_a_setup(problems):
    entry = man_entry(man_source(), "--setup=")
    with tempfile.TemporaryDirectory(prefix="viper-docs-") as tmp:
        open(os.path.join(tmp, "t.trc"), "w").write("")
        for n in paradigms():
            rc, _, err = run(ARGS.viper_replay, ["-p", n, "--setup=nosuch", "t.trc"], cwd=tmp)
            takes = "takes no setup file" not in err
            if takes and not re.search(r"\b" + re.escape(n) + r"\b", entry):
                problems.append(f"{n} takes a setup file, but viper-replay(1) --setup does not say which: {entry!r}")


def list_paradigms_format_as_documented(problems):
    rc, out, _ = run(ARGS.viper_replay, ["--list-paradigms"])
    for line in out.splitlines():
        if not re.fullmatch(r"[a-z0-9_-]+ +\S.*", line):
            problems.append(f"not NAME DESCRIPTION: {line!r}")
    entry = man_entry(man_source(), "--list-paradigms")
    if "description" not in entry:
        problems.append(f"viper-replay(1) --list-paradigms does not say each line has a description: {entry!r}")


def until_example_stops_mid_run(problems):
    """Each EXAMPLE with --until on the Farm stops before its end."""
    src = man_source()
    examples = re.findall(r"^\.EX\n(.*?)^\.EE", src, re.S | re.M)
    found = 0
    for ex in examples:
        cmd = man_plain(ex).replace("\\\n", " ")
        if "--until=" not in cmd or "farm.trc" not in cmd:
            continue
        found += 1
        args = [a for a in cmd.split()[1:] if not a.startswith("--export=")]
        with tempfile.TemporaryDirectory(prefix="viper-docs-") as tmp:
            rc, out, err = run(ARGS.viper_replay, args + ["--state-out=-"], cwd=ARGS.source_root)
        if rc != 0:
            problems.append(f"{cmd}: exit {rc} {err!r}")
            continue
        doc = json.loads(out)
        if doc.get("program_state") != "running":
            problems.append(f"{cmd}: does not stop mid-run: state {doc.get('program_state')}, clock {doc.get('clock')}")
    if not found:
        problems.append("no EXAMPLE with --until on traces/farm.trc")


def stats_keys_documented(problems):
    """Every --stats key (with --clock=drift, which adds its own) is in the list."""
    src = man_source()
    keys = set(re.findall(r'^\.BI "([^"]*): "', src, re.M))
    root = ARGS.source_root
    rc, out, err = run(ARGS.viper_replay, ["-p", "monalisa", f"--setup={root}/setup/farm.setup", "--clock=drift", "--stats",
                                           f"{root}/traces/farm.trc"])
    if rc != 0:
        problems.append(f"exit {rc} {err!r}")
    for line in out.splitlines():
        key = line.split(":", 1)[0]
        if re.fullmatch(r"proc -?\d+", key) or key.startswith("export "):
            continue
        if key not in keys:
            problems.append(f"--stats key {key!r} is not in viper-replay(1)'s --stats list")


def diagnostics_example_is_exact(problems):
    src = man_plain(man_source())
    m = re.search(r"for example\s*\n?(viper-replay: run\.trc: [^;\n]*)", src)
    if not m:
        problems.append("viper-replay(1) DIAGNOSTICS lacks the run.trc example")
        return
    with tempfile.TemporaryDirectory(prefix="viper-docs-") as tmp:
        rc, out, err = run(ARGS.viper_replay, ["run.trc"], cwd=tmp)
    want = re.sub(r"\s*[.;]$", "", m.group(1).strip())
    if err.splitlines() != [want] or rc != 1:
        problems.append(f"viper-replay run.trc: exit {rc}, stderr {err!r}; the man page shows {want!r}")


# Every installed program, where the build puts it (viper-trace and the GUI are optional).
PROGRAMS = ["cli/viper-replay", "gui/viper", "paradigms/picl/viper-picl-gen",
            "paradigms/monalisa/sim/viper-monalisa-sim", "paradigms/macrame/viper-macrame-sim",
            "paradigms/lights/viper-lights-sim", "paradigms/switchnet/viper-switchnet-import",
            "probe/lights/viper-lights-agent", "probe/mpi/viper-trace"]


def every_program_has_a_man_page_that_agrees_with_its_help(problems):
    """docs/man/NAME.1 for every program; its --help options are all in it; --help names the exit
    statuses and the page has an EXIT STATUS section with the same numbers (a new-user pass found
    viper(1) without one and four --help texts silent about them)."""
    build = os.environ.get("VIPER_BUILD_ROOT") or os.path.dirname(os.path.dirname(ARGS.viper_replay))
    found = 0
    for rel in PROGRAMS:
        exe = os.path.join(build, rel)
        if not os.access(exe, os.X_OK):
            continue
        found += 1
        name = os.path.basename(rel)
        page = os.path.join(ARGS.source_root, "docs", "man", name + ".1")
        if not os.path.exists(page):
            problems.append(f"{name}: no docs/man/{name}.1")
            continue
        with open(page, encoding="utf-8") as f:
            src = f.read()
        text = man_plain(src)
        rc, out, err = run(exe, ["--help"])
        if rc != 0:
            problems.append(f"{name} --help: exit {rc} {err!r}")
            continue
        usage = next((l.strip() for l in out.splitlines() if l.strip().startswith(name + " ")), "")
        if len(re.findall(r"TRACE", usage)) > 1:
            problems.append(f"{name} --help's usage line names TRACE twice: {usage!r}")
        for opt in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", out))):
            if opt in ("--help", "--help-all", "--help-gtk", "--display"):
                continue
            if opt not in text:
                problems.append(f"{name}: --help lists {opt}, {name}(1) does not")
        m = re.search(r"^\.SH \"?EXIT STATUS\"?\n(.*?)(?=^\.SH|\Z)", src, re.S | re.M)
        if not m:
            problems.append(f"{name}(1) has no EXIT STATUS section")
            continue
        h = re.search(r"Exit status:(.*)", out, re.S)
        if not h:
            problems.append(f"{name} --help does not give the exit statuses")
            continue
        said = set(re.findall(r"\b\d{1,3}\b", h.group(1).split("\n\n")[0]))
        page_said = set(re.findall(r"\b\d{1,3}\b", man_plain(m.group(1))))
        if not said or not said <= page_said:
            problems.append(f"{name}: --help's exit statuses {sorted(said)} are not all in {name}(1)'s {sorted(page_said)}")
    if found < 2:
        problems.append(f"found only {found} programs under {build}")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--viper", default="")
    ARGS = ap.parse_args()
    ARGS.viper_replay = os.path.abspath(ARGS.viper_replay)
    ARGS.source_root = os.path.abspath(ARGS.source_root)
    for fn in [every_paradigm_is_documented, setup_entry_names_every_paradigm_with_a_setup,
               list_paradigms_format_as_documented, until_example_stops_mid_run, stats_keys_documented,
               diagnostics_example_is_exact, every_program_has_a_man_page_that_agrees_with_its_help]:
        check(fn.__name__, fn)
    failed = [n for n, p in RESULTS if p]
    print(f"{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
