#!/usr/bin/env python3
"""test_outputs: viper-replay's output files never lie (spec picl.md section 5,
"Output files"; issue 10 items 1-3 and 5, and the README's first command).

Usage: test_outputs.py --viper-replay PATH --source-root DIR

Each check prints "ok N - name" or "not ok N - name" with the reasons; the
exit status is 1 when any failed.  Every wait is bounded (timeouts on every
process, a deadline on every FIFO wait).
"""
import argparse
import json
import os
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import time

ARGS = None
RESULTS = []


def farm_args():
    src = ARGS.source_root
    return ["--paradigm=monalisa", f"--setup={src}/setup/farm.setup", f"{src}/traces/farm.trc"]


def run(args, cwd, stdout=subprocess.PIPE, timeout=60, env=None):
    p = subprocess.run([ARGS.viper_replay] + args, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout, env=env)
    out = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def check(name, problems):
    RESULTS.append((name, problems))
    print(("ok" if not problems else "not ok") + f" {len(RESULTS)} - {name}")
    for p in problems:
        print("    " + p.replace("\n", "\n    "))


def expect(cond, what, problems):
    if not cond:
        problems.append(what)


def case(fn):
    def wrapper():
        problems = []
        with tempfile.TemporaryDirectory(prefix="viper-out-") as tmp:
            try:
                fn(tmp, problems)
            except Exception as e:  # a crash of the check is a failure, not a skip
                problems.append(f"exception: {e!r}")
        check(fn.__name__, problems)
    return wrapper


def is_state(text):
    try:
        doc = json.loads(text)
    except ValueError:
        return False
    return doc.get("paradigm") == "monalisa" and doc.get("program_state") == "terminated"


# /dev/stdout is a symbolic link to /proc/self/fd/1; the tests use a private
# copy of that link, so that a broken viper-replay run as root replaces the
# copy and not the machine's /dev/stdout.
def dev_stdout(tmp):
    link = os.path.join(tmp, "stdout")
    os.symlink("/proc/self/fd/1", link)
    return link


@case
def state_out_dev_stdout_into_a_pipe(tmp, problems):
    link = dev_stdout(tmp)
    rc, out, err = run([f"--state-out={link}"] + farm_args(), tmp)
    expect(rc == 0, f"exit {rc}, stderr {err!r}", problems)
    expect(is_state(out), f"stdout is not the final state: {out[:200]!r}", problems)
    expect(os.path.islink(link), "the /dev/stdout link was replaced by a file", problems)


@case
def state_out_dev_stdout_into_a_file_with_stats(tmp, problems):
    link = dev_stdout(tmp)
    path = os.path.join(tmp, "out.txt")
    with open(path, "wb") as f:
        rc, _, err = run(["--stats", f"--state-out={link}"] + farm_args(), tmp, stdout=f)
    text = open(path).read()
    expect(rc == 0, f"exit {rc}, stderr {err!r}", problems)
    # the state first, then the counts, in the same file (written in place)
    brace = text.rfind("}\n")
    expect(brace > 0 and is_state(text[:brace + 2]), f"no state at the start: {text[:200]!r}", problems)
    expect("\nread: " in text[brace:], f"no counts after the state: {text[brace:brace + 200]!r}", problems)
    expect(sorted(os.listdir(tmp)) == ["out.txt", "stdout"], f"stray files: {os.listdir(tmp)}", problems)
    expect(os.path.islink(link), "the /dev/stdout link was replaced by a file", problems)


# Likewise /dev/full is reached through a private link: a broken viper-replay
# (one that renames over its target) replaces the link, not the device.
def dev_full(tmp):
    link = os.path.join(tmp, "full")
    if not os.path.islink(link):
        os.symlink("/dev/full", link)
    return "full"


@case
def full_device(tmp, problems):
    full = dev_full(tmp)
    for opts, stdout, want in [
        (["--state-out=-"], "full", "viper-replay: --state-out: standard output: No space left on device"),
        (["--stats"], "full", "viper-replay: --stats: standard output: No space left on device"),
        (["--run-out=-"], "full", "viper-replay: --run-out: standard output: No space left on device"),
        ([f"--run-out={full}"], None, f"viper-replay: --run-out: {full}: No space left on device"),
        ([f"--state-out={full}"], None, f"viper-replay: --state-out: {full}: No space left on device"),
    ]:
        if stdout == "full":
            with open("/dev/full", "wb") as f:
                rc, _, err = run(opts + farm_args(), tmp, stdout=f)
        else:
            rc, _, err = run(opts + farm_args(), tmp)
        expect(rc == 1, f"{opts}: exit {rc}, expected 1", problems)
        lines = err.splitlines()
        expect(want in lines, f"{opts}: stderr {lines!r} lacks {want!r}", problems)
        expect(len(lines) == 1, f"{opts}: the error is said more than once: {lines!r}", problems)


@case
def help_and_lists_to_full_device(tmp, problems):
    # --help, --version and --list-paradigms write to standard output too:
    # a failed write is said and the exit status is 1
    for opt in ("--help", "--version", "--list-paradigms"):
        with open("/dev/full", "wb") as f:
            rc, _, err = run([opt], tmp, stdout=f)
        want = f"viper-replay: {opt}: standard output: No space left on device"
        expect(rc == 1, f"{opt} > /dev/full: exit {rc}, expected 1", problems)
        expect(want in err.splitlines(), f"{opt} > /dev/full: stderr {err!r} lacks {want!r}", problems)


@case
def render_png_real_reason(tmp, problems):
    os.symlink("/dev/full", os.path.join(tmp, "view.png"))
    rc, _, err = run(["--render=animation:view.png"] + farm_args(), tmp)
    expect(rc == 1, f"exit {rc}", problems)
    expect("viper-replay: --render=animation:view.png: view.png: No space left on device" in err.splitlines(),
           f"stderr: {err!r}", problems)
    expect(os.path.islink(os.path.join(tmp, "view.png")), "the link was replaced", problems)


@case
def export_to_full_device_names_path(tmp, problems):
    """The failed export's error, and none of its notes (the Farm starts before
    0: a file written would be shifted); an export that succeeds keeps its."""
    full = dev_full(tmp)
    rc, _, err = run([f"--export=chrome:{full}", "--export=chrome:ok.json"] + farm_args(), tmp)
    expect(rc == 1, f"exit {rc}", problems)
    expect(err.splitlines() == [f"viper-replay: --export=chrome:{full}: {full}: No space left on device",
                                "viper-replay: --export=chrome:ok.json: times shifted by +0.002508 s so that the "
                                "run starts at 0"], f"stderr: {err!r}", problems)


def wait_for_line(stream, text, deadline):
    """Read stderr (a pipe) until a line containing text, or the deadline."""
    buf = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        if text.encode() in buf:
            return buf.decode("utf-8", "replace"), True
    return buf.decode("utf-8", "replace"), False


@case
def fifo_without_reader(tmp, problems):
    """The FIFO is opened when there is something to write, the wait is said,
    the reader then gets the whole run, and the FIFO stays a FIFO."""
    ref = os.path.join(tmp, "ref.run")
    rc, _, err = run([f"--run-out={ref}"] + farm_args(), tmp)
    expect(rc == 0, f"reference run: exit {rc} {err!r}", problems)
    for opt in ["--run-out", "--export=paragraph:"]:
        fifo = os.path.join(tmp, "fifo")
        if os.path.exists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        arg = f"{opt}={fifo}" if opt.startswith("--run") else f"{opt}{fifo}"
        p = subprocess.Popen([ARGS.viper_replay, arg] + farm_args(), cwd=tmp, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            said, seen = wait_for_line(p.stderr, "waiting for a reader on FIFO", time.monotonic() + 20)
            expect(seen, f"{opt}: no 'waiting for a reader' message within 20 s (stderr {said!r})", problems)
            if not seen:
                continue
            # now read: open non-blocking so that a writer that died does not hang us
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            data = b""
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                r, _, _ = select.select([fd], [], [], 0.2)
                chunk = os.read(fd, 65536) if r else b""
                if not chunk and p.poll() is not None:
                    break   # the writer is gone and nothing is left
                data += chunk
            os.close(fd)
            rc = p.wait(timeout=30)
            expect(rc == 0, f"{opt}: exit {rc}", problems)
            if opt.startswith("--run"):
                expect(data == open(ref, "rb").read(), f"{opt}: the FIFO's reader got {len(data)} bytes, "
                       f"not the run ({os.path.getsize(ref)} bytes)", problems)
            else:
                expect(data.startswith(b"-3 -901 ") or len(data) > 1000, f"{opt}: reader got {data[:80]!r}",
                       problems)
            expect(stat.S_ISFIFO(os.stat(fifo).st_mode), f"{opt}: the FIFO was replaced", problems)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
                problems.append(f"{opt}: still running: killed")


@case
def state_out_to_fifo_reader_gets_it(tmp, problems):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([ARGS.viper_replay, f"--state-out={fifo}"] + farm_args(), cwd=tmp,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        data = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r, _, _ = select.select([fd], [], [], 0.2)
            chunk = os.read(fd, 65536) if r else b""
            if not chunk and p.poll() is not None:
                break   # the writer is gone and nothing is left
            data += chunk
        os.close(fd)
        rc = p.wait(timeout=30)
        expect(rc == 0, f"exit {rc}", problems)
        expect(is_state(data.decode()), f"the reader got {data[:100]!r}", problems)
        expect(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a file", problems)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@case
def reader_gone_is_a_failed_write(tmp, problems):
    """A reader that closes early ('| head', a FIFO's reader that quits) makes
    the next write fail: said with the path, exit status 1 (spec section 5),
    not a silent death by SIGPIPE (exit 141)."""
    if not ARGS.picl_gen:
        problems.append("needs --picl-gen")
        return
    trace = os.path.join(tmp, "big.trc")
    r = subprocess.run([ARGS.picl_gen, "-P", "4", "-M", "20000", "-s", "3", f"--output={trace}"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    expect(r.returncode == 0, f"picl-gen: exit {r.returncode} {r.stderr[-200:]!r}", problems)
    # standard output into a pipe whose reader takes 100 bytes and goes
    p = subprocess.Popen([ARGS.viper_replay, "-q", "--run-out=-", trace], cwd=tmp, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdout.read(100)
        p.stdout.close()
        err = p.stderr.read().decode("utf-8", "replace")
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    expect(rc == 1 and "--run-out: standard output: Broken pipe" in err,
           f"--run-out=- into a closed pipe: exit {rc} (want 1 and the output named), stderr {err[-300:]!r}", problems)
    # an export into a FIFO whose reader goes
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([ARGS.viper_replay, "-q", f"--export=paragraph:{fifo}", trace], cwd=tmp,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with open(fifo, "rb") as f:
            f.read(100)
        err = p.stderr.read().decode("utf-8", "replace")
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    expect(rc == 1 and f"--export=paragraph:{fifo}: {fifo}: Broken pipe" in err,
           f"--export into a FIFO whose reader went: exit {rc} (want 1 and the path), stderr {err[-300:]!r}", problems)


def read_fifo_while(p, fifo, deadline_s=30):
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    data = b""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        chunk = os.read(fd, 65536) if r else b""
        if not chunk and p.poll() is not None:
            break
        data += chunk
    os.close(fd)
    return data


@case
def generators_write_fifos_in_place(tmp, problems):
    # the trace generators wrote by renaming a temporary file over the target: as
    # root, `--out=/dev/null` (tests/live did that) made /dev/null a regular file
    gens = [(g, a) for g, a in ((ARGS.monalisa_sim, ["--program=farm", "--count=200"]),
                                (ARGS.macrame_sim, ["--mesh=3", "--trams=300"]),
                                (ARGS.picl_gen, ["--procs=4", "--messages=50"])) if g]
    expect(len(gens) == 3, "the three generators were given", problems)
    for gen, gargs in gens:
        name = os.path.basename(gen)
        fifo, plain = os.path.join(tmp, name + ".fifo"), os.path.join(tmp, name + ".trc")
        out = "--output=" if name == "viper-picl-gen" else "--out="
        r = subprocess.run([gen, *gargs, out + plain], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        expect(r.returncode == 0, f"{name} to a file: exit {r.returncode} {r.stderr[-300:]!r}", problems)
        os.mkfifo(fifo)
        p = subprocess.Popen([gen, *gargs, out + fifo], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            data = read_fifo_while(p, fifo)
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        expect(rc == 0, f"{name} to a FIFO: exit {rc}", problems)
        expect(stat.S_ISFIFO(os.stat(fifo).st_mode), f"{name}: the FIFO was replaced by a file", problems)
        with open(plain, "rb") as f:
            want = f.read()
        expect(len(want) > 0 and data == want,
               f"{name}: the reader got {len(data)} bytes, the file holds {len(want)}", problems)


@case
def symlink_followed(tmp, problems):
    os.mkdir(os.path.join(tmp, "real"))
    target = os.path.join(tmp, "real", "state.json")
    open(target, "w").write("old\n")
    os.symlink("real/state.json", os.path.join(tmp, "link.json"))
    os.symlink("real/new.json", os.path.join(tmp, "dangling.json"))
    for name in ["link.json", "dangling.json"]:
        rc, _, err = run([f"--state-out={name}"] + farm_args(), tmp)
        expect(rc == 0, f"{name}: exit {rc} {err!r}", problems)
        expect(os.path.islink(os.path.join(tmp, name)), f"{name}: the link was replaced", problems)
        expect(is_state(open(os.path.join(tmp, name)).read()), f"{name}: target not written", problems)
    expect(sorted(os.listdir(os.path.join(tmp, "real"))) == ["new.json", "state.json"],
           f"stray files: {os.listdir(os.path.join(tmp, 'real'))}", problems)


@case
def regular_file_keeps_mode(tmp, problems):
    path = os.path.join(tmp, "run.txt")
    open(path, "w").write("old\n")
    os.chmod(path, 0o640)
    rc, _, err = run(["--run-out=run.txt"] + farm_args(), tmp)
    expect(rc == 0, f"exit {rc} {err!r}", problems)
    expect(stat.S_IMODE(os.stat(path).st_mode) == 0o640, f"mode {oct(os.stat(path).st_mode)}", problems)
    expect(open(path).read().startswith("1 10 "), "not replaced by the run", problems)
    expect(os.listdir(tmp) == ["run.txt"], f"stray files: {os.listdir(tmp)}", problems)


@case
def read_only_file_stays_read_only(tmp, problems):
    path = os.path.join(tmp, "state.json")
    open(path, "w").write("old\n")
    os.chmod(path, 0o444)
    rc, _, err = run(["--state-out=state.json"] + farm_args(), tmp)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    expect(mode == 0o444, f"mode became {oct(mode)}", problems)
    if os.geteuid() == 0:
        # root may write anything, as with ">": replaced, still read-only
        expect(rc == 0, f"exit {rc} {err!r}", problems)
        expect(is_state(open(path).read()), "not replaced", problems)
    else:
        expect(rc == 1, f"exit {rc}", problems)
        expect("viper-replay: --state-out: state.json: Permission denied" in err.splitlines(), f"stderr {err!r}",
               problems)
        expect(open(path).read() == "old\n", "the read-only file was changed", problems)
    expect(os.listdir(tmp) == ["state.json"], f"stray files: {os.listdir(tmp)}", problems)


@case
def missing_directory_fails_before_replay(tmp, problems):
    rc, _, err = run(["--run-out=nodir/run.txt"] + farm_args(), tmp)
    expect(rc == 1, f"exit {rc}", problems)
    expect("viper-replay: --run-out: nodir/run.txt: No such file or directory" in err.splitlines(),
           f"stderr {err!r}", problems)


def refused_as_clash(tmp, args, first, second, problems, before=None):
    """args name one file twice: exit 2 before the replay, a message naming
    both options, and the directory exactly as it was (before: its files)."""
    before = before if before is not None else {}
    rc, out, err = run(args + farm_args(), tmp)
    expect(rc == 2, f"{args}: exit {rc}, expected 2 (usage error)", problems)
    lines = err.splitlines()
    expect(lines and first in lines[0] and second in lines[0] and "same file" in lines[0],
           f"{args}: the message does not name {first} and {second}: {err!r}", problems)
    expect(out == "", f"{args}: stdout {out[:200]!r}", problems)
    now = {n: open(os.path.join(tmp, n), "rb").read() for n in os.listdir(tmp)
           if os.path.isfile(os.path.join(tmp, n))}
    expect(now == before, f"{args}: files changed: {sorted(now)} (were {sorted(before)})", problems)


@case
def two_outputs_on_one_file_are_refused(tmp, problems):
    """The new-user trial: --state-out and --run-out on one file kept only the
    state (the run lost, exit 0).  Same path, the same path spelt otherwise,
    a link to it, or another hard link of it: a usage error naming both."""
    refused_as_clash(tmp, ["--state-out=same", "--run-out=same"], "--run-out=same", "--state-out=same", problems)
    refused_as_clash(tmp, ["--run-out=same", f"--export=chrome:{tmp}/./same"], "--run-out=same",
                     f"--export=chrome:{tmp}/./same", problems)
    os.symlink("pic.png", os.path.join(tmp, "link"))
    refused_as_clash(tmp, ["--run-out=link", "--render=animation:pic.png"], "--run-out=link",
                     "--render=animation:pic.png", problems)
    os.unlink(os.path.join(tmp, "link"))
    open(os.path.join(tmp, "old"), "w").write("old\n")
    os.link(os.path.join(tmp, "old"), os.path.join(tmp, "also"))
    refused_as_clash(tmp, ["--state-out=old", "--export=paje:also"], "--state-out=old", "--export=paje:also",
                     problems, before={"old": b"old\n", "also": b"old\n"})


@case
def output_onto_an_input_is_refused(tmp, problems):
    """An output naming the trace (or the setup file) being read would replace
    it at the end: the input lost.  A usage error before anything is read,
    and the input untouched, whatever path or link names it."""
    src = ARGS.source_root
    trace = os.path.join(tmp, "farm.trc")
    setup = os.path.join(tmp, "farm.setup")
    for a, b in ((f"{src}/traces/farm.trc", trace), (f"{src}/setup/farm.setup", setup)):
        with open(a, "rb") as f, open(b, "wb") as g:
            g.write(f.read())
    os.symlink("farm.trc", os.path.join(tmp, "t-link"))
    before = {n: open(os.path.join(tmp, n), "rb").read() for n in ("farm.trc", "farm.setup")}
    for out_opt, names in ((f"--run-out={tmp}/./farm.trc", "the trace"), ("--export=chrome:t-link", "the trace"),
                           ("--state-out=farm.setup", "the setup file")):
        rc, out, err = run(["--paradigm=monalisa", "--setup=farm.setup", out_opt, "farm.trc"], tmp)
        expect(rc == 2, f"{out_opt}: exit {rc}, expected 2", problems)
        first = err.splitlines()[0] if err else ""
        expect(out_opt in first and f"would replace {names}" in first, f"{out_opt}: stderr {err!r}", problems)
    now = {n: open(os.path.join(tmp, n), "rb").read() for n in ("farm.trc", "farm.setup")}
    expect(now == before, "an input file changed", problems)


@case
def standard_output_may_take_several_outputs(tmp, problems):
    """'-' twice is not a clash when one output follows the other: the run
    streams during the replay, the state follows at the stop point."""
    rc, out, err = run(["--run-out=-", "--state-out=-"] + farm_args(), tmp)
    expect(rc == 0, f"exit {rc} {err!r}", problems)
    brace = out.find("{")
    run_lines = out[:brace].splitlines() if brace >= 0 else []
    expect(len(run_lines) == 337, f"{len(run_lines)} run lines before the state, expected 337", problems)
    expect(brace >= 0 and is_state(out[brace:]), "no state after the run", problems)
    # but two outputs written during the replay would mix their lines there
    rc, out, err = run(["--run-out=-", "--export=paje:-"] + farm_args(), tmp)
    expect(rc == 2 and out == "", f"--run-out=- --export=paje:-: exit {rc}, stdout {out[:100]!r}", problems)
    expect(err.startswith("viper-replay: --run-out=- and --export=paje:- would both write to standard output "
                          "during the replay"), f"stderr {err!r}", problems)
    rc, out, err = run(["--run-out=/dev/null", "--export=paje:/dev/null", "--quiet"] + farm_args(), tmp)
    expect(rc == 0 and out == "" and err == "", f"/dev/null twice: exit {rc} {err!r}", problems)


@case
def render_bad_path_fails_before_replay(tmp, problems):
    """--render with a missing directory or an unknown extension stops before
    the replay, so --state-out writes nothing (it used to be written and the
    render to fail at the end)."""
    rc, _, err = run(["--state-out=ok.json", "--render=animation:nodir/a.png"] + farm_args(), tmp)
    expect(rc == 1, f"missing directory: exit {rc}", problems)
    expect("viper-replay: --render=animation:nodir/a.png: nodir/a.png: No such file or directory" in err.splitlines(),
           f"stderr {err!r}", problems)
    expect(os.listdir(tmp) == [], f"written anyway: {os.listdir(tmp)}", problems)
    rc, _, err = run(["--state-out=ok.json", "--render=animation:a.bmp"] + farm_args(), tmp)
    expect(rc == 2, f".bmp: exit {rc}, expected 2 (usage error)", problems)
    expect(err.startswith("viper-replay: --render=animation:a.bmp: unknown image format (use .png, .svg or .pdf)\n"),
           f"stderr {err!r}", problems)
    expect(os.listdir(tmp) == [], f"written anyway: {os.listdir(tmp)}", problems)
    rc, _, err = run(["--state-out=ok.json", "--render=program:A.PNG"] + farm_args(), tmp)
    expect(rc == 0, f"an upper-case .PNG: exit {rc} {err!r}", problems)
    expect(sorted(os.listdir(tmp)) == ["A.PNG", "ok.json"], f"files {os.listdir(tmp)}", problems)


@case
def render_to_standard_output_is_png(tmp, problems):
    """spec picl.md 5: '-' is standard output for --render too (it was an
    unknown format); the format there is PNG."""
    p = subprocess.run([ARGS.viper_replay, "--render=program:-"] + farm_args(), cwd=tmp, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    expect(p.returncode == 0, f"exit {p.returncode} {p.stderr!r}", problems)
    expect(p.stdout.startswith(b"\x89PNG\r\n\x1a\n") and len(p.stdout) > 1000,
           f"not a PNG on stdout: {p.stdout[:16]!r}", problems)


@case
def state_out_missing_directory_fails_before_replay(tmp, problems):
    rc, _, err = run(["--run-out=run.txt", "--state-out=nodir/s.json"] + farm_args(), tmp)
    expect(rc == 1, f"exit {rc}", problems)
    expect("viper-replay: --state-out: nodir/s.json: No such file or directory" in err.splitlines(),
           f"stderr {err!r}", problems)
    expect(os.listdir(tmp) == [], f"written anyway: {os.listdir(tmp)}", problems)


@case
def unwritable_proc_file_real_reason(tmp, problems):
    """/proc/version exists: "No such file or directory" (the temporary file's
    reason, /proc takes no new files) was a lie about the target."""
    before = open("/proc/version").read()
    rc, _, err = run(["--run-out=/proc/version"] + farm_args(), tmp)
    expect(rc == 1, f"exit {rc}", problems)
    if os.geteuid() == 0:
        want = ("viper-replay: --run-out: /proc/version: cannot create a temporary file in /proc to replace it: "
                "No such file or directory")
    else:
        want = "viper-replay: --run-out: /proc/version: Permission denied"
    expect(err.splitlines() == [want], f"stderr {err!r}, expected {want!r}", problems)
    expect(open("/proc/version").read() == before, "/proc/version changed", problems)


@case
def demo_headless_prints_final_state(tmp, problems):
    """README's first command: scripts/demo without a display prints the
    Farm's final state (build and installation skipped: already built)."""
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env["VIPER_DEMO_NO_BUILD"] = "1"
    env["VIPER_REPLAY"] = ARGS.viper_replay
    p = subprocess.run([os.path.join(ARGS.source_root, "scripts", "demo")], cwd=tmp, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    out = p.stdout.decode("utf-8", "replace")
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr.decode()!r}", problems)
    brace = out.rfind("}\n")
    expect(brace > 0 and is_state(out[:brace + 2]), f"no final state on stdout: {out[:300]!r}", problems)
    expect('"clock": 123.166' in out, "not the Farm's final clock", problems)


@case
def demo_build_output_goes_to_stderr(tmp, problems):
    """scripts/demo | jq: what the installation and the build print goes to
    standard error, and so do the counts: standard output is the state.  A copy of the
    script runs beside stand-ins for scripts/install-deps and scripts/build
    that print as meson does."""
    src = ARGS.source_root
    tree = os.path.join(tmp, "tree")
    os.makedirs(os.path.join(tree, "scripts"))
    shutil.copy(os.path.join(src, "scripts", "demo"), os.path.join(tree, "scripts", "demo"))
    for name in ("install-deps", "build"):
        path = os.path.join(tree, "scripts", name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho 'INFO: autodetecting backend as ninja (%s)'\n" % name)
        os.chmod(path, 0o755)
    for d in ("traces", "setup"):
        os.symlink(os.path.join(src, d), os.path.join(tree, d))
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("VIPER_DEMO_NO_BUILD", None)
    env["VIPER_REPLAY"] = ARGS.viper_replay
    p = subprocess.run([os.path.join(tree, "scripts", "demo")], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {err!r}", problems)
    try:
        state = json.loads(out)      # what jq would take: one JSON document, nothing else
    except ValueError:
        state = None
    expect(is_state(out) and state["clock"] == 123.166,
           f"standard output is not the Farm's final state alone: {out[:200]!r} ... {out[-100:]!r}", problems)
    expect("read: 337" in err.splitlines(), f"the counts are not on standard error: {err!r}", problems)
    for name in ("install-deps", "build"):
        expect(f"INFO: autodetecting backend as ninja ({name})" in err.splitlines(),
               f"{name}'s output is not on standard error: {err!r}", problems)


def grouped(text, key):
    """The same trams in another valid delivery order: comments dropped,
    lines stably sorted by key(fields) (each PROC's own order kept)."""
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    return "".join(l + "\n" for l in sorted(lines, key=lambda l: key(l.split())))


@case
def until_does_not_depend_on_line_order(tmp, problems):
    # spec section 3: the states are functions of the trams and their adjusted
    # times, whatever the line order; so is the stop point of --until (the
    # trams at or before CLOCK), hence the whole --state-out there
    src = ARGS.source_root
    runs = []
    if ARGS.picl_gen:
        gen = [ARGS.picl_gen, "-P", "4", "-M", "60", "-s", "7"]
        inorder = subprocess.run(gen + ["--delivery=inorder"], stdout=subprocess.PIPE, timeout=60).stdout.decode()
        shuffled = subprocess.run(gen + ["--delivery=shuffled"], stdout=subprocess.PIPE, timeout=60).stdout.decode()
        runs.append(("picl", [], [inorder, shuffled, grouped(inorder, lambda f: int(f[3]))]))
    farm = open(f"{src}/traces/farm.trc").read()
    runs.append(("farm", ["--paradigm=monalisa", f"--setup={src}/setup/farm.setup"],
                 [farm, grouped(farm, lambda f: (int(f[3]), int(f[7])))]))
    for name, opts, texts in runs:
        paths = []
        for i, text in enumerate(texts):
            paths.append(os.path.join(tmp, f"{name}{i}.trc"))
            open(paths[-1], "w").write(text)
        rc, out, err = run(opts + ["--state-out=-", paths[0]], tmp)
        end = json.loads(out)["clock"]
        start = min(float(l.split()[2]) for l in texts[0].splitlines() if l.strip() and not l.startswith("#"))
        for frac in (0.1, 0.3, 0.5, 0.8):
            until = f"{start + (end - start) * frac:.6g}"
            docs = []
            for path in paths:
                rc, out, err = run(opts + [f"--until={until}", "--state-out=-", path], tmp)
                expect(rc == 0, f"{name} --until={until} {os.path.basename(path)}: exit {rc}: {err[-300:]}", problems)
                docs.append(out)
            for i in range(1, len(docs)):
                if docs[i] != docs[0]:
                    a, b = docs[0].splitlines(), docs[i].splitlines()
                    k = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), min(len(a), len(b)))
                    problems.append(f"{name} --until={until}: order {i} differs from order 0 at line {k + 1}: "
                                    f"{b[k] if k < len(b) else '(end)'!r} vs {a[k] if k < len(a) else '(end)'!r}")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--monalisa-sim", default="")
    ap.add_argument("--macrame-sim", default="")
    ap.add_argument("--picl-gen", default="")
    ARGS = ap.parse_args()
    ARGS.viper_replay = os.path.abspath(ARGS.viper_replay)
    for fn in [state_out_dev_stdout_into_a_pipe, state_out_dev_stdout_into_a_file_with_stats, full_device,
               help_and_lists_to_full_device,
               render_png_real_reason, export_to_full_device_names_path, fifo_without_reader,
               state_out_to_fifo_reader_gets_it, reader_gone_is_a_failed_write, generators_write_fifos_in_place, symlink_followed, regular_file_keeps_mode,
               read_only_file_stays_read_only, missing_directory_fails_before_replay,
               two_outputs_on_one_file_are_refused, output_onto_an_input_is_refused,
               standard_output_may_take_several_outputs,
               render_bad_path_fails_before_replay, render_to_standard_output_is_png,
               state_out_missing_directory_fails_before_replay,
               unwritable_proc_file_real_reason,
               demo_headless_prints_final_state, demo_build_output_goes_to_stderr,
               until_does_not_depend_on_line_order]:
        fn()
    failed = [n for n, p in RESULTS if p]
    print(f"{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
