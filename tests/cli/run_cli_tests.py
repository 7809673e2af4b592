#!/usr/bin/env python3
"""run_cli_tests: table-driven integration tests of viper-replay.

Usage: run_cli_tests.py --viper-replay PATH [--source-root DIR] CASES.json...

A case file is one JSON object:

  {
    "description": "what this group checks",
    "files": {"NAME": "CONTENT", ...},      written into each case's scratch directory
                                            (CONTENT {"hex": "1f8b..."}: those bytes)
    "cases": [ CASE, ... ]
  }

and a CASE is an object with:

  name             short name, printed in the report
  args             list of arguments for viper-replay
  files            more scratch files for this case only (as above)
  stdin            text fed on standard input (default: nothing, stdin is /dev/null)
  stdin_file       name of a scratch file fed on standard input
  listen           {"address": "unix:PATH", "connections": ["TEXT", ...]}: after
                   the start, connect to PATH (retrying until it accepts), send
                   each TEXT on its own connection, one after the other, and close it
  exit             expected exit status (default 0)
  stdout_contains  substrings that standard output must contain
  stdout_has       regexes: each must match one whole line of standard output
  stdout_lacks     regexes: no line of standard output may match
  stdout_empty     true: standard output must be empty
  stderr_lines     regexes: standard error must be exactly these lines, in order
  stderr_has       regexes: each must match one whole line of standard error
  stderr_lacks     regexes: no line of standard error may match
  stderr_empty     true: standard error must be empty
  timeout          seconds before the run counts as hung (default 30)

Every case runs in a fresh scratch directory, which is also the working
directory, so a trace named "bad.trc" in args is reported as "bad.trc:LINE:COL".
In args, texts and regexes, {tmp} is the scratch directory and {src} the source
root (escaped for regexes); in texts, {repeat:N:TEXT} is N copies of TEXT
(for over-long lines).  Exit status: 0 when every case passed, 1 otherwise.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time


def subst(text, tmp, src, regex=False):
    if regex:
        return text.replace("{tmp}", re.escape(tmp)).replace("{src}", re.escape(src))
    text = re.sub(r"\{repeat:([0-9]+):([^}]*)\}", lambda m: m[2] * int(m[1]), text)
    return text.replace("{tmp}", tmp).replace("{src}", src)


def write_files(files, tmp, src):
    for name, content in (files or {}).items():
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            if isinstance(content, dict):   # {"hex": "1f8b..."}: bytes that are no text
                f.write(bytes.fromhex(content["hex"]))
            else:
                f.write(subst(content, tmp, src).encode("utf-8"))


def connect(address, deadline, proc):
    """Connect to "unix:PATH" or "tcp:HOST:PORT", retrying until deadline
    or until the process under test has exited."""
    last = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ConnectionError(f"could not connect to {address}: viper-replay has exited")
        try:
            if address.startswith("unix:"):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(address[len("unix:"):])
            elif address.startswith("tcp:"):
                host, _, port = address[len("tcp:"):].rpartition(":")
                s = socket.create_connection((host or "127.0.0.1", int(port)), timeout=5)
            else:
                raise ValueError(f"unknown address {address!r}")
            return s
        except (FileNotFoundError, ConnectionRefusedError, ConnectionResetError) as e:
            last = e
            time.sleep(0.05)
    raise TimeoutError(f"could not connect to {address}: {last}")


def feed_connections(listen, tmp, src, deadline, proc, errors):
    try:
        address = subst(listen["address"], tmp, src)
        for text in listen.get("connections", []):
            s = connect(address, deadline, proc)
            with s:
                s.sendall(subst(text, tmp, src).encode("utf-8"))
                s.shutdown(socket.SHUT_WR)
    except Exception as e:  # reported as a failure of the case
        errors.append(f"listen: {e}")


def check_lines(what, lines, patterns, tmp, src, problems):
    for p in patterns:
        rx = re.compile(subst(p, tmp, src, regex=True))
        if not any(rx.fullmatch(line) for line in lines):
            problems.append(f"{what}: no line matches /{p}/")


def run_case(exe, src, group_files, case):
    problems = []
    timeout = case.get("timeout", 30)
    with tempfile.TemporaryDirectory(prefix="viper-cli-") as tmp:
        write_files(group_files, tmp, src)
        write_files(case.get("files"), tmp, src)
        args = [exe] + [subst(a, tmp, src) for a in case.get("args", [])]

        stdin_data = b""
        if "stdin" in case:
            stdin_data = subst(case["stdin"], tmp, src).encode("utf-8")
        elif "stdin_file" in case:
            with open(os.path.join(tmp, case["stdin_file"]), "rb") as f:
                stdin_data = f.read()

        proc = subprocess.Popen(args, cwd=tmp, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        feeder_errors = []
        feeder = None
        if "listen" in case:
            feeder = threading.Thread(target=feed_connections,
                                      args=(case["listen"], tmp, src,
                                            time.monotonic() + timeout, proc, feeder_errors))
            feeder.start()
        try:
            out, err = proc.communicate(stdin_data, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            problems.append(f"still running after {timeout} s: killed")
        if feeder:
            feeder.join()
            problems += feeder_errors

        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace")
        out_lines = out.splitlines()
        err_lines = err.splitlines()

        want = case.get("exit", 0)
        if proc.returncode != want:
            problems.append(f"exit status {proc.returncode}, expected {want}")
        for s in case.get("stdout_contains", []):
            if subst(s, tmp, src) not in out:
                problems.append(f"stdout: does not contain {s!r}")
        check_lines("stdout", out_lines, case.get("stdout_has", []), tmp, src, problems)
        for p in case.get("stdout_lacks", []):
            rx = re.compile(subst(p, tmp, src, regex=True))
            for line in out_lines:
                if rx.fullmatch(line):
                    problems.append(f"stdout: unexpected line {line!r}")
        if case.get("stdout_empty") and out:
            problems.append("stdout: not empty")
        if "stderr_lines" in case:
            pats = case["stderr_lines"]
            if len(pats) != len(err_lines):
                problems.append(f"stderr: {len(err_lines)} lines, expected {len(pats)}")
            for i, (p, line) in enumerate(zip(pats, err_lines), 1):
                if not re.fullmatch(subst(p, tmp, src, regex=True), line):
                    problems.append(f"stderr line {i}: {line!r} does not match /{p}/")
        check_lines("stderr", err_lines, case.get("stderr_has", []), tmp, src, problems)
        for p in case.get("stderr_lacks", []):
            rx = re.compile(subst(p, tmp, src, regex=True))
            for line in err_lines:
                if rx.fullmatch(line):
                    problems.append(f"stderr: unexpected line {line!r}")
        if case.get("stderr_empty") and err:
            problems.append("stderr: not empty")

        if problems:
            problems.append("command: " + " ".join(args[1:]) + f"  (in {tmp})")
            problems.append("stdout was:\n" + _indent(out))
            problems.append("stderr was:\n" + _indent(err))
    return problems


def _indent(text, limit=4000):
    if len(text) > limit:
        text = text[:limit] + "\n[... cut]"
    return "".join("      | " + line + "\n" for line in text.splitlines()) or "      | (nothing)\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--viper-replay", required=True)
    ap.add_argument("--source-root", default=os.environ.get("VIPER_SOURCE_ROOT", "."))
    ap.add_argument("cases", nargs="+")
    opts = ap.parse_args()
    exe = os.path.abspath(opts.viper_replay)
    src = os.path.abspath(opts.source_root)

    total = failed = 0
    for path in opts.cases:
        with open(path, encoding="utf-8") as f:
            group = json.load(f)
        print(f"# {os.path.basename(path)}: {group.get('description', '')}")
        for case in group["cases"]:
            total += 1
            problems = run_case(exe, src, group.get("files"), case)
            if problems:
                failed += 1
                print(f"not ok {total} - {case['name']}")
                for p in problems:
                    print(f"    {p}")
            else:
                print(f"ok {total} - {case['name']}")
            sys.stdout.flush()
    print(f"# {total - failed} of {total} cases passed")
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
